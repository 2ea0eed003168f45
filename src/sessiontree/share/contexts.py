"""Secrets by their place: headers, command flags, credential files and URL user parts.

Whatever its shape, a value is a secret when it stands where credentials go: after an
``Authorization:`` scheme, after ``sshpass -p`` or ``mysql -p``, after a flag whose name holds a
secret's word piece (``--api-key``, ``--db-password``), on a ``.pgpass`` line, after ``password``
in a ``.netrc``, or as the user part of a URL when it looks generated (``https://<token>@host``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from sessiontree.share.entropy import is_uuid, looks_random_value
from sessiontree.share.keyvalue import classify_key
from sessiontree.share.placeholders import PATH, URL, is_placeholder
from sessiontree.share.scan import Hits, index_hints, register

Span = tuple[int, int, str]

_VALUE = r"(?P<q>[\"']?)(?P<secret>[^\s\"'`<>|;&]{3,400})"

_AUTH_HEADER = re.compile(
    r"(?i:(?<![\w-])(?:proxy-)?authorization)[\"']?[ \t]*[:=][ \t]*[\"']?"
    r"(?:(?P<scheme>[A-Za-z][A-Za-z0-9_-]{0,30})[ \t]+)?(?P<secret>[A-Za-z0-9._~+/=:-]{8,})"
)
_PGPASS = re.compile(
    r"(?m)^[A-Za-z0-9_.*\[\]:-]+:(?:[0-9]{1,5}|\*):[^\s:]+:[^\s:]+:(?P<secret>[^\s]+)[ \t]*$"
)
_NETRC = re.compile(
    r"login(?<![\w-]login)[ \t\r\n]+[^\s]+[ \t\r\n]+(?:account[ \t\r\n]+[^\s]+[ \t\r\n]+)?"
    r"password[ \t\r\n]+(?P<secret>[^\s]+)"
)
_COMMAND_FLAGS = re.compile(
    r"(?:"
    r"sshpass[ \t]+(?:-[a-oq-zA-Z][^\s]*[ \t]+)*-p[ \t]*"
    r"|(?:mysql|mysqldump|mysqladmin|mysqlimport|mariadb|mariadb-dump)\b[^\n;|&]{0,200}?[ \t]-p"
    r"|(?:docker|podman|nerdctl|buildah|skopeo|oras|helm(?:[ \t]+registry)?)[ \t]+login\b[^\n;|&]{0,200}?"
    r"[ \t](?:-p|--password)(?:[ \t]+|=)"
    r"|redis-cli\b[^\n;|&]{0,200}?[ \t](?:-a|--pass)[ \t]+"
    r")" + _VALUE
)
# Any long flag whose name holds a secret's word piece: --api-key, --db-password, --auth-token.
_SECRET_FLAG = re.compile(
    r"-(?<![\w-]-)-?(?P<flag>[A-Za-z0-9][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*)(?:=|[ \t]+)" + _VALUE
)
_WORDISH = re.compile(r"[\w-]")
_FLAG_HINTS = register("pass", "pwd", "secret", "token", "key", "auth", "cred")
# A webhook URL is its own credential: whoever has it can post. The path after the host is
# masked when a segment of it looks generated (ids, keys), so the host stays readable.
_WEBHOOK = re.compile(
    r"https?://(?P<host>[A-Za-z0-9.-]{1,253})(?P<secret>/[^\s\"'<>`)]{0,500}?(?:webhook|hooks?)"
    r"[^\s\"'<>`)]{0,500}|(?<=hook)[^\s\"'<>`)]{0,500})",
    re.IGNORECASE,
)
_URL_SEGMENT = re.compile(r"[^/@?&=#]+")
_URL_USER = re.compile(r"://(?P<secret>[^\s:/@\"'<>]{16,300})@")


def _webhook(match: re.Match[str]) -> bool:
    host = match.group("host").lower()
    if "hook" not in host and "hook" not in match.group("secret").lower():
        return False
    return any(
        is_uuid(seg) or looks_random_value(seg, 16) for seg in _URL_SEGMENT.findall(match.group("secret"))
    )


def _password(value: str) -> bool:
    return not is_placeholder(value) and not PATH.match(value) and not URL.match(value)


def _flag_value(flag: str, value: str) -> bool:
    key_class = classify_key(flag)
    if key_class is None or not _password(value) or value.startswith("-"):
        return False
    if key_class == "token":
        return looks_random_value(value)
    return not (value.isalpha() and value.islower())


def _auth_value(match: re.Match[str]) -> bool:
    value = match.group("secret")
    if is_placeholder(value) or value.lower() in ("bearer", "basic", "token"):
        return False
    return looks_random_value(value) or (match.group("scheme") is not None and len(value) >= 16)


_FINDERS: tuple[tuple[str, tuple[str, ...], re.Pattern[str], Callable[[re.Match[str]], bool]], ...] = (
    ("authorization", ("authorization",), _AUTH_HEADER, _auth_value),
    ("pgpass", (), _PGPASS, lambda m: _password(m.group("secret"))),  # four ":" or more
    ("netrc", ("password",), _NETRC, lambda m: _password(m.group("secret"))),
    (
        "command-password",
        ("sshpass", "mysql", "mariadb", "login", "redis-cli"),
        _COMMAND_FLAGS,
        lambda m: _password(m.group("secret")),
    ),
    ("flag-secret", _FLAG_HINTS, _SECRET_FLAG, lambda m: _flag_value(m.group("flag"), m.group("secret"))),
    ("url-token", ("://",), _URL_USER, lambda m: looks_random_value(m.group("secret"), 16)),
    ("webhook-url", ("hook",), _WEBHOOK, _webhook),
)


_FINDERS_BY_HINT = index_hints(register(*hints) for _, hints, _, _ in _FINDERS)
_PGPASS_AT = next(i for i, finder in enumerate(_FINDERS) if finder[2] is _PGPASS)


def find_credential_contexts(text: str, hits: Hits) -> Iterator[Span]:
    """Yield values that stand in a credential's place, whatever their shape."""
    chosen = hits.chosen(_FINDERS_BY_HINT)
    if text.count(":") >= 4:
        chosen = sorted({*chosen, _PGPASS_AT})
    for i in chosen:
        kind, _, regex, accept = _FINDERS[i]
        if regex is _SECRET_FLAG and "-" not in text:
            continue  # "-" and a piece (found by the one scan): "-[\w-]*piece" retries every "-"
        for match in regex.finditer(text):
            if regex is _COMMAND_FLAGS and match.start() and _WORDISH.match(text, match.start() - 1):
                continue  # inside a longer name ("my-sshpass")
            if accept(match):
                yield match.start("secret"), match.end("secret"), kind
