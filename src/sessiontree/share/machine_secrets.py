"""This machine's own secrets: credential values a share masks exactly, in any encoding, wherever they are.

Read before a share from where the user's tools keep them: the environment (credential names, or
values that look generated), ``~/.aws/credentials``, ``~/.netrc``, ``~/.docker/config.json``,
``~/.npmrc``, ``~/.pypirc``, gh's ``hosts.yml``, git's credential store, kubeconfig, private keys
under ``~/.ssh``, and the ``.env`` files of the session's project folder when it is on this
machine. The values stay in memory: never written, logged or shown; the review names only the
place each came from. Each is masked raw, base64-encoded (alone or inside a longer encoded
text, as ``user:password`` in a Basic header), URL-encoded, JSON-escaped, and split across lines
(``share.redact`` joins a text's lines to find those).
"""

from __future__ import annotations

import base64
import json
import os
import re
import stat
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from sessiontree.share.entropy import is_hex, is_uuid, looks_generated, reads_as_words
from sessiontree.share.keyvalue import secret_under_key
from sessiontree.share.placeholders import PATH, is_placeholder

MIN_VALUE = 8
"""A shorter value is left to the detectors: masked wherever it recurs, it would hit words."""
MIN_PASSWORD = 6
"""A value under an explicit password field may be as short as this, when it does not read as words."""
MIN_SPLIT = 12
"""A value this long is found split across lines too."""
MIN_BASE64_CORE = 8
"""Eight base64 characters are 48 bits of the value: no other text holds them by chance."""
MAX_FILE = 1 << 20
"""A credential file larger than this is not one: left alone."""

# Keys whose value is a credential in the files read here, whatever it looks like.
_EXPLICIT = frozenset(
    {"aws_secret_access_key", "aws_session_token", "aws_access_key_id", "password", "passwd", "_password"}
    | {"_authtoken", "_auth", "oauth_token", "token", "access-token", "refresh-token", "id-token"}
    | {"client-secret", "client-key-data", "secret", "auth", "identitytoken", "registrytoken"}
)
# Environment variables that hold no secret whatever their value (the shell's, the desktop's).
_ENV_NEVER = frozenset(
    {"PWD", "OLDPWD", "HOME", "PATH", "SHELL", "TERM", "LANG", "USER", "LOGNAME", "HOSTNAME", "DISPLAY"}
    | {"SSH_AUTH_SOCK", "SSH_AGENT_PID", "XAUTHORITY", "GPG_AGENT_INFO", "LS_COLORS", "MAIL", "TZ"}
    | {"SESSIONTREE_AGENT_DIR", "PYTEST_CURRENT_TEST", "_"}
)
_ENV_NOT_SECRET_SUFFIX = ("_PATH", "_FILE", "_DIR", "_HOME", "_URL_BASE", "_SOCK", "_PID")
_KEY_VALUE = re.compile(
    r"""^\s*(?:export\s+)?(?P<key>[^\s=:#;'"]+(?:\s*:\s*_[A-Za-z]+)?)\s*(?:=|:(?!//))\s*(?P<value>.*?)\s*$"""
)
_PEM_BODY = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(.*?)-----END [A-Z0-9 ]*PRIVATE KEY-----", re.S)
_URL_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^\s/@:]*:(?P<password>[^\s/@]+)@", re.IGNORECASE)


@dataclass
class MachineSecrets:
    """The secret values found on this machine, each with the place it came from (never shown)."""

    found: dict[str, str] = field(default_factory=dict)
    """value -> where it came from (``~/.aws/credentials``, ``$GITHUB_TOKEN``)."""

    def add(self, value: str, where: str, *, password: bool = False) -> None:
        """Keep ``value`` when it can be a secret (not a placeholder, a path, a short word)."""
        value = value.strip()
        if len(value) < (MIN_PASSWORD if password else MIN_VALUE) or is_placeholder(value):
            return
        if "\n" in value or len(value) > 16_384 or (PATH.match(value) and not password):
            return
        if len(value) < 10 and reads_as_words(value):
            return  # a short word: masked everywhere it recurs it would hit prose
        self.found.setdefault(value, where)

    def sources(self) -> list[str]:
        """Where the values came from, each once, in the order found."""
        return list(dict.fromkeys(self.found.values()))

    def forms(self) -> dict[str, str]:
        """Every form of every value to mask (raw and encoded) -> where the value came from."""
        out: dict[str, str] = {}
        for value, where in self.found.items():
            for form in encoded_forms(value):
                out.setdefault(form, where)
        return out


def _base64_cores(raw: bytes) -> Iterator[str]:
    """The base64 characters that encode ``raw`` wherever it stands inside a longer encoded text."""
    for pad in range(3):
        encoded = base64.b64encode(b"\0" * pad + raw).decode("ascii")
        # Only the characters whose six bits all come from ``raw``: the text around it decides the rest.
        core = encoded[-(-4 * pad // 3) : 4 * (pad + len(raw)) // 3]
        if len(core) >= MIN_BASE64_CORE:
            yield core
            yield core.replace("+", "-").replace("/", "_")


def encoded_forms(value: str) -> list[str]:
    """``value`` raw, base64 (whole, and inside a longer text), URL-encoded and JSON-escaped."""
    raw = value.encode("utf-8", "surrogatepass")
    whole = base64.b64encode(raw).decode("ascii")
    forms = [value, whole, whole.rstrip("="), base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")]
    forms += _base64_cores(raw)
    forms += [quote(value, safe=""), quote(value, safe="/:"), json.dumps(value, ensure_ascii=False)[1:-1]]
    forms.append(json.dumps(value)[1:-1])
    return [f for f in dict.fromkeys(forms) if len(f) >= MIN_PASSWORD]


# -- the places ---------------------------------------------------------------------------------


def _read_small(path: Path) -> str | None:
    """A regular file's text (None for a missing, special, unreadable or oversized one: never blocks)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens at once, then is refused
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE:
            return None
        with os.fdopen(fd, "rb", closefd=False) as stream:
            data = stream.read(MAX_FILE + 1)
        return data.decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def _shown(path: Path, home: Path) -> str:
    try:
        return "~/" + path.relative_to(home).as_posix()
    except ValueError:
        return str(path)


def _unquote_value(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value.split(" #", 1)[0].strip() if value[:1] not in "'\"" else value


def _key_values(text: str) -> Iterator[tuple[str, str]]:
    """``key = value``, ``key: value``, ``KEY=value`` and ``export KEY=value`` lines (INI, YAML, .env)."""
    for line in text.splitlines():
        if line.lstrip().startswith(("#", ";", "[")):
            continue
        match = _KEY_VALUE.match(line.lstrip("- "))
        if match is not None:
            yield match.group("key"), _unquote_value(match.group("value"))


def _from_key_values(secrets: MachineSecrets, text: str, where: str, *, any_key: bool) -> None:
    for key, value in _key_values(text):
        name = key.rsplit(":", 1)[-1].strip().lower()  # npmrc's //registry/:_authToken
        if name in _EXPLICIT:
            secrets.add(value, where, password=True)
            if name in ("client-key-data", "_auth", "auth"):
                _add_decoded(secrets, value, where)
        elif secret_under_key(key, value) is not None or (any_key and _generated(value)):
            secrets.add(value, where)
        for match in _URL_PASSWORD.finditer(value):
            secrets.add(unquote(match.group("password")), where, password=True)


def _add_decoded(secrets: MachineSecrets, value: str, where: str) -> None:
    """What a base64 value holds: a key's PEM body, or the password of ``user:password``."""
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return
    _from_pem(secrets, decoded, where)
    user, sep, password = decoded.partition(":")
    if sep and user and "\n" not in decoded:
        secrets.add(password, where, password=True)


def _from_pem(secrets: MachineSecrets, text: str, where: str) -> None:
    for match in _PEM_BODY.finditer(text):
        lines = [ln.strip() for ln in match.group(1).splitlines() if ln.strip() and ":" not in ln]
        secrets.add("".join(lines), where)
        for line in lines:
            if len(line) >= 24:
                secrets.add(line, where)


def _generated(value: str) -> bool:
    """A value that looks made by a machine, not a digest or an id (kept: a commit, a build's UUID)."""
    if " " in value or is_uuid(value) or (is_hex(value) and len(value) in (32, 40, 64)):
        return False
    return looks_generated(value, min_len=16)


def _from_environ(secrets: MachineSecrets, environ: Mapping[str, str]) -> None:
    for name, value in environ.items():
        upper = name.upper()
        if upper in _ENV_NEVER or upper.endswith(_ENV_NOT_SECRET_SUFFIX) or not value:
            continue
        where = f"${name}"
        if secret_under_key(name, value) is not None or (len(value) <= 4_096 and _generated(value)):
            secrets.add(value, where)
        for match in _URL_PASSWORD.finditer(value):
            secrets.add(unquote(match.group("password")), where, password=True)


def _from_netrc(secrets: MachineSecrets, text: str, where: str) -> None:
    words = text.split()
    for word, value in pairwise(words):
        if word in ("password", "account"):
            secrets.add(value, where, password=True)


def _from_docker(secrets: MachineSecrets, text: str, where: str) -> None:
    try:
        config = json.loads(text)
    except ValueError:
        return
    auths = config.get("auths") if isinstance(config, dict) else None
    for entry in auths.values() if isinstance(auths, dict) else ():
        if not isinstance(entry, dict):
            continue
        for name in ("auth", "identitytoken", "registrytoken", "password"):
            value = entry.get(name)
            if isinstance(value, str):
                secrets.add(value, where, password=True)
                if name == "auth":
                    _add_decoded(secrets, value, where)


def _from_git_credentials(secrets: MachineSecrets, text: str, where: str) -> None:
    for line in text.splitlines():
        try:
            password = urlsplit(line.strip()).password
        except ValueError:
            continue
        if password:
            secrets.add(unquote(password), where, password=True)


def _credential_files(home: Path, environ: Mapping[str, str]) -> Iterator[tuple[Path, str]]:
    """(file, how it is read) for each place a tool keeps credentials."""
    config = Path(environ.get("XDG_CONFIG_HOME") or home / ".config")
    yield home / ".aws" / "credentials", "kv"
    yield Path(environ.get("AWS_SHARED_CREDENTIALS_FILE") or home / ".aws" / "credentials"), "kv"
    yield home / ".netrc", "netrc"
    yield Path(environ.get("DOCKER_CONFIG") or home / ".docker") / "config.json", "docker"
    yield home / ".npmrc", "kv"
    yield home / ".pypirc", "kv"
    yield Path(environ.get("GH_CONFIG_DIR") or config / "gh") / "hosts.yml", "kv"
    yield home / ".git-credentials", "git"
    yield config / "git" / "credentials", "git"
    for kubeconfig in (environ.get("KUBECONFIG") or str(home / ".kube" / "config")).split(os.pathsep):
        if kubeconfig:
            yield Path(kubeconfig), "kv"


def _ssh_keys(home: Path) -> Iterator[Path]:
    try:
        names = sorted(os.listdir(home / ".ssh"))
    except OSError:
        return
    for name in names:
        if not name.endswith((".pub", "known_hosts", "known_hosts.old", "config", "authorized_keys")):
            yield home / ".ssh" / name


def _env_files(project: Path) -> Iterator[Path]:
    try:
        names = sorted(os.listdir(project))
    except OSError:
        return
    for name in names:
        if name == ".env" or (
            name.startswith(".env.") and not name.endswith((".example", ".sample", ".template"))
        ):
            yield project / name


_READERS = {"kv": lambda s, t, w: _from_key_values(s, t, w, any_key=False), "netrc": _from_netrc}
_READERS |= {"docker": _from_docker, "git": _from_git_credentials}


def collect_machine_secrets(
    projects: Iterable[str] = (), *, home: Path | None = None, environ: Mapping[str, str] | None = None
) -> MachineSecrets:
    """Every secret value this machine holds where the tools keep them (``projects``: the session's
    folders, whose ``.env`` files count when they are on this machine)."""
    environ = os.environ if environ is None else environ
    home = Path(environ.get("HOME") or Path.home()) if home is None else home
    secrets = MachineSecrets()
    _from_environ(secrets, environ)
    seen: set[Path] = set()
    for path, how in _credential_files(home, environ):
        if path in seen:
            continue
        seen.add(path)
        text = _read_small(path)
        if text is not None:
            _READERS[how](secrets, text, _shown(path, home))
    for path in _ssh_keys(home):
        text = _read_small(path)
        if text is not None and "PRIVATE KEY-----" in text:
            _from_pem(secrets, text, _shown(path, home))
    for project in dict.fromkeys(p for p in projects if p and os.path.isabs(p)):
        for path in _env_files(Path(project)):
            text = _read_small(path)
            if text is not None:
                _from_key_values(secrets, text, _shown(path, home), any_key=True)
    return secrets
