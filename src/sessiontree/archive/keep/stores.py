"""A store of immutable objects behind four verbs (put, get, list, delete): a local folder or an
S3-compatible bucket (through obstore, Rust's object_store).

Names are ``/``-separated and never reveal a session (see ``envelope``). A failure is one
``KeepError`` line naming the store; obstore retries 5xx answers, dropped connections and
timeouts itself (exponential backoff) before giving up.
"""

from __future__ import annotations

import configparser
import os
from datetime import timedelta
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from sessiontree.errors import KeepError
from sessiontree.store.atomic import TEMP_NAME, make_private_dir, write_atomic


class Store(Protocol):
    """Where the archive's objects live."""

    where: str
    """The store as a user names it (a folder, ``s3://bucket/prefix``), for messages."""

    def put(self, name: str, data: bytes) -> None: ...

    def get(self, name: str) -> bytes | None:
        """The object's bytes, or None when there is no such object."""
        ...

    def list(self, prefix: str) -> list[str]: ...

    def delete(self, name: str) -> None: ...


class FolderStore:
    """Objects as files under a folder (each written whole, atomically, fsynced)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.where = str(folder)

    def _path(self, name: str) -> Path:
        if not name or name.startswith("/") or ".." in name.split("/"):
            raise KeepError(f"Not an object name: {name!r}")
        return self.folder / name

    def put(self, name: str, data: bytes) -> None:
        path = self._path(name)
        try:
            make_private_dir(path.parent)
            write_atomic(path, data, readable=False)
        except OSError as exc:
            raise KeepError(f"Cannot write to the archive {self.where}: {exc.strerror or exc}") from None

    def get(self, name: str) -> bytes | None:
        try:
            return self._path(name).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise KeepError(f"Cannot read the archive {self.where}: {exc.strerror or exc}") from None

    def list(self, prefix: str) -> list[str]:
        base = self.folder / prefix if prefix else self.folder
        found: list[str] = []
        for top, _dirs, files in os.walk(base):
            for name in files:
                if not TEMP_NAME.match(name):
                    found.append(Path(top, name).relative_to(self.folder).as_posix())
        return sorted(found)

    def delete(self, name: str) -> None:
        self._path(name).unlink(missing_ok=True)


class BucketStore:
    """Objects in an S3-compatible bucket under a prefix (AWS S3, R2, MinIO, GCS's S3 interface)."""

    def __init__(self, url: str) -> None:
        from obstore.store import S3Store

        parts = urlsplit(url)
        if parts.scheme != "s3" or not parts.netloc:
            raise KeepError(f"Not a bucket: {url!r}; use s3://bucket/prefix")
        self.where = url.rstrip("/")
        config = s3_settings()
        endpoint = config.get("endpoint", "")
        if endpoint and not ("access_key_id" in config and "secret_access_key" in config):
            # Not AWS itself (whose machines may have a role's credentials): say what is missing.
            raise KeepError(
                f"No credentials for {self.where}: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
                "(or aws_access_key_id and aws_secret_access_key in ~/.aws/credentials)"
            )
        wait = request_seconds()
        try:
            self._store = S3Store(
                parts.netloc,
                prefix=parts.path.strip("/") or None,
                config=config,  # type: ignore[arg-type]
                client_options={
                    "allow_http": endpoint.startswith("http://"),
                    "timeout": f"{wait}s",
                    "connect_timeout": f"{min(wait, 10)}s",
                },
                retry_config={"max_retries": 4, "retry_timeout": timedelta(seconds=max(wait, 60))},
            )
        except Exception as exc:
            raise KeepError(f"Cannot use the bucket {self.where}: {one_line(exc)}") from None

    def _fail(self, doing: str, exc: Exception) -> KeepError:
        return KeepError(f"Cannot {doing} the bucket {self.where}: {one_line(exc)}")

    def put(self, name: str, data: bytes, content_type: str | None = None) -> None:
        import obstore

        try:
            if content_type is None:
                obstore.put(self._store, name, data)
            else:  # a published site's file, served as what it is
                obstore.put(self._store, name, data, attributes={"Content-Type": content_type})
        except Exception as exc:
            raise self._fail("write to", exc) from None

    def get(self, name: str) -> bytes | None:
        import obstore
        from obstore.exceptions import NotFoundError

        try:
            return bytes(obstore.get(self._store, name).bytes())
        except (NotFoundError, FileNotFoundError):  # obstore raises the builtin for a 404
            return None
        except Exception as exc:
            raise self._fail("read from", exc) from None

    def list(self, prefix: str) -> list[str]:
        import obstore

        try:
            return sorted(
                meta["path"] for batch in obstore.list(self._store, prefix or None) for meta in batch
            )
        except Exception as exc:
            raise self._fail("list", exc) from None

    def delete(self, name: str) -> None:
        import obstore

        try:
            obstore.delete(self._store, name)
        except Exception as exc:
            raise self._fail("delete from", exc) from None


TIMEOUT_ENV = "SESSIONTREE_KEEP_TIMEOUT"


def request_seconds() -> int:
    """How long one request to a bucket may take: ``$SESSIONTREE_KEEP_TIMEOUT`` seconds (a slow
    link, a test), else 120."""
    try:
        return max(1, int(os.environ.get(TIMEOUT_ENV) or 120))
    except ValueError:
        raise KeepError(f"Not a number of seconds: {TIMEOUT_ENV}={os.environ[TIMEOUT_ENV]!r}") from None


def one_line(exc: BaseException) -> str:
    """An object store's error as one short line (obstore's messages run over many)."""
    text = " ".join(str(exc).split())
    for marker in ("Client error with status", "Server error", "status: ", "error sending request"):
        at = text.find(marker)
        if at > 0:
            text = text[at:]
            break
    return text[:200] + ("…" if len(text) > 200 else "")


def open_store(where: str) -> Store:
    """The store a ``--to`` names: ``s3://bucket/prefix`` or a folder."""
    if where.startswith("s3://"):
        return BucketStore(where)
    if "://" in where:
        raise KeepError(f"Not a store: {where!r}; use s3://bucket/prefix or a folder")
    return FolderStore(Path(where).expanduser().absolute())


def s3_settings() -> dict[str, str]:
    """The endpoint, region and credentials from the standard places: ``AWS_*`` variables first,
    else ``~/.aws/credentials`` and ``~/.aws/config`` (the ``AWS_PROFILE``, else ``default``)."""
    profile = os.environ.get("AWS_PROFILE") or "default"
    files = configparser.ConfigParser()
    home = Path(os.environ.get("AWS_SHARED_CREDENTIALS_FILE") or Path.home() / ".aws" / "credentials")
    config_file = Path(os.environ.get("AWS_CONFIG_FILE") or Path.home() / ".aws" / "config")
    settings: dict[str, str] = {}
    for path, section in (
        (config_file, profile if profile == "default" else f"profile {profile}"),
        (home, profile),
    ):
        try:
            files.read(path)
        except (OSError, configparser.Error):
            continue
        if files.has_section(section):
            settings |= dict(files.items(section))
        files = configparser.ConfigParser()
    wanted: dict[str, Any] = {
        "access_key_id": os.environ.get("AWS_ACCESS_KEY_ID") or settings.get("aws_access_key_id"),
        "secret_access_key": os.environ.get("AWS_SECRET_ACCESS_KEY") or settings.get("aws_secret_access_key"),
        "session_token": os.environ.get("AWS_SESSION_TOKEN") or settings.get("aws_session_token"),
        "region": os.environ.get("AWS_REGION")
        or os.environ.get("AWS_DEFAULT_REGION")
        or settings.get("region")
        or "us-east-1",
        "endpoint": os.environ.get("AWS_ENDPOINT_URL_S3")
        or os.environ.get("AWS_ENDPOINT_URL")
        or settings.get("endpoint_url"),
    }
    return {key: value for key, value in wanted.items() if value}
