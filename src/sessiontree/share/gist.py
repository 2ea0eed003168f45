"""Secret gists through the GitHub CLI (``gh``), and the gist URLs they give."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from sessiontree.errors import GistNotFound, ShareError
from sessiontree.share.process import run_interruptible

PREVIEW_URL = "https://gistpreview.github.io/?{id}"
_GIST_URL = re.compile(r"https://gist\.github\.com/[^\s]+")
_GIST_ID = re.compile(r"^[0-9a-fA-F]{20,40}$|^[0-9]{1,12}$")


@dataclass(frozen=True)
class Gist:
    """A created gist."""

    id: str
    url: str

    @property
    def preview_url(self) -> str:
        """Return the gistpreview.github.io address that renders the gist's HTML."""
        return PREVIEW_URL.format(id=self.id)


def gist_id_from_url(ref: str) -> str | None:
    """Return the gist id in a gist URL, a gistpreview URL or a bare id; None otherwise."""
    ref = ref.strip()
    if _GIST_ID.match(ref):
        return ref
    parts = urlsplit(ref)
    if parts.netloc == "gistpreview.github.io":
        candidate = parts.query.split("/")[0]
    elif parts.netloc in {"gist.github.com", "gist.githubusercontent.com"}:
        segments = [s for s in parts.path.split("/") if s]
        candidate = segments[1] if len(segments) > 1 else (segments[0] if segments else "")
    else:
        return None
    return candidate if _GIST_ID.match(candidate) else None


def find_gh() -> str | None:
    """Return the path of the ``gh`` executable on PATH, or None."""
    return shutil.which("gh")


def check_gh_auth(gh: str) -> None:
    """Raise a ShareError saying what to do unless ``gh`` is logged in."""
    try:
        proc = subprocess.run([gh, "auth", "status"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as exc:
        raise ShareError(f"Cannot run the GitHub CLI ({gh}): {exc}") from exc
    if proc.returncode != 0:
        raise ShareError(
            "GitHub CLI is not logged in: run 'gh auth login' (or set GITHUB_TOKEN to a token "
            "with the gist scope), then share again"
        )


def create_gist_gh(gh: str, file: Path, description: str) -> Gist:
    """Create a secret gist holding ``file`` with ``gh gist create``; Ctrl-C stops gh."""
    # ``--desc=`` keeps a title starting with "-" from being read as a flag.
    command = [gh, "gist", "create", "--public=false", f"--desc={description}", str(file)]
    code, out, err = run_interruptible(command)
    if code != 0:
        raise ShareError(f"gh gist create failed: {_last_line(err) or f'exit code {code}'}")
    urls = _GIST_URL.findall(out) or _GIST_URL.findall(err)
    if not urls:
        raise ShareError(f"gh gist create printed no gist URL: {_last_line(out) or _last_line(err)}")
    url = urls[-1].rstrip("/")
    gist_id = gist_id_from_url(url)
    if gist_id is None:
        raise ShareError(f"Cannot tell the gist id from {url}")
    return Gist(id=gist_id, url=url)


def delete_gist_gh(gh: str, gist_id: str) -> None:
    """Delete a gist with ``gh gist delete`` (``--yes`` where this gh knows the flag)."""
    code, _, err = run_interruptible([gh, "gist", "delete", gist_id, "--yes"])
    if code != 0 and "unknown flag" in err:
        # gh before 2.5x deletes without asking and has no --yes.
        code, _, err = run_interruptible([gh, "gist", "delete", gist_id])
    if code == 0:
        return
    if re.search(r"not found|404", err, re.IGNORECASE):
        raise GistNotFound(f"Gist {gist_id} was not found on GitHub")
    raise ShareError(f"gh gist delete failed: {_last_line(err) or f'exit code {code}'}")


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""
