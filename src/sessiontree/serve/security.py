"""The server's guards: Host header (DNS rebinding), the access token, and safe file lookups.

Pure ASGI middleware, so every route (pages, downloads, event streams) passes through them.
"""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
import socket
from collections.abc import Iterable
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, unquote_to_bytes, urlencode

from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from sessiontree.archive.collection import is_inside
from sessiontree.store.storage import entry_is

TOKEN_COOKIE = "sessiontree_token"
TOKEN_PARAM = "token"
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})

# Escapes of separators, dots and NUL: a key's URL never holds them (quoting leaves "/" and "."
# as they are; no file name holds NUL). "%25" is a "%" of a file name: the key is decoded once,
# here, from the bytes sent, so no escape in a name is ever decoded a second time.
_BAD_ESCAPES = re.compile(rb"%(?:2[fFeE]|00)")
# On POSIX a backslash is a character of a name; elsewhere it separates folders.
_BACKSLASH_SEPARATES = os.sep != "/" or os.altsep is not None
_HOST = re.compile(
    r"(?:\[(?P<ipv6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?))(?::[0-9]{1,5})?"
)
_SAFE_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses (the default, token-free binding)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def new_token() -> str:
    """A fresh random access token."""
    return secrets.token_urlsafe(24)


def allowed_hosts(bound: str) -> frozenset[str]:
    """Host header names accepted for a server bound to ``bound``."""
    try:
        address = ipaddress.ip_address(bound.strip("[]"))
    except ValueError:
        names, wildcard = set(LOOPBACK_NAMES) | {bound.lower()}, False
    else:
        names, wildcard = set(LOOPBACK_NAMES) | {str(address)}, address.is_unspecified
    if wildcard:
        # Bound to every interface: the machine's own names are fine (IP literals always are).
        names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
    return frozenset(names)


def host_name(header: str) -> str | None:
    """The host of a Host header, lower-cased (IPv6 without its brackets); None unless well formed.

    Only ``host[:port]`` is a Host header (RFC 9110 7.2): a name or IPv4 address, or an IPv6
    address in brackets, then at most a colon and digits. ``localhost:80.evil.example`` or
    ``127.0.0.1:80@evil.example`` are nothing of the kind, so they name no host at all.
    """
    match = _HOST.fullmatch(header.strip(" \t"))
    if match is None:
        return None
    ipv6 = match.group("ipv6")
    if ipv6 is None:
        return match.group("name").lower()
    try:
        return str(ipaddress.IPv6Address(ipv6))
    except ValueError:
        return None


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class GuardMiddleware:
    """Refuse foreign Host headers and, when a token is set, requests without it."""

    def __init__(self, app: ASGIApp, *, bound_host: str, token: str | None) -> None:
        self.app = app
        self.hosts = allowed_hosts(bound_host)
        self.wildcard = (
            _is_ip(bound_host.strip("[]")) and ipaddress.ip_address(bound_host.strip("[]")).is_unspecified
        )
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        response = self._check(scope)
        if response is not None:
            await response(scope, receive, send)
            return
        await self.app(scope, receive, _with_safe_headers(send))

    def _host_ok(self, scope: Scope) -> bool:
        given = [value for key, value in scope.get("headers") or [] if key == b"host"]
        if len(given) != 1:
            return False  # none, or two that may disagree
        name = host_name(given[0].decode("latin-1"))
        return name is not None and (name in self.hosts or (self.wildcard and _is_ip(name)))

    def _check(self, scope: Scope) -> Response | None:
        if not self._host_ok(scope):
            return _refusal("Bad Host header", 400)
        if self.token is None:
            return None
        if secrets.compare_digest(_cookie(scope, TOKEN_COOKIE).encode(), self.token.encode()):
            return None
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        given = next((v for k, v in query if k == TOKEN_PARAM), "")
        if given and secrets.compare_digest(given.encode(), self.token.encode()):
            # Accepted once from the URL, then kept in a cookie; the token leaves the address bar.
            rest = urlencode([(k, v) for k, v in query if k != TOKEN_PARAM])
            target = scope.get("root_path", "") + scope["path"] + (f"?{rest}" if rest else "")
            redirect = RedirectResponse(_quote_path(target), status_code=303)
            redirect.set_cookie(TOKEN_COOKIE, self.token, httponly=True, samesite="strict", path="/")
            redirect.headers["X-Content-Type-Options"] = "nosniff"
            return redirect
        return _refusal("Missing or wrong token: open the URL the server printed", 403)


def _refusal(text: str, status: int) -> Response:
    """The guard's own answer: plain text, never sniffed, never cached."""
    return PlainTextResponse(
        text, status_code=status, headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}
    )


def _quote_path(target: str) -> str:
    return quote(target, safe="/?=&%:@-._~+!$'()*,;")


def _cookie(scope: Scope, name: str) -> str:
    for key, value in scope.get("headers") or []:
        if key == b"cookie":
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(value.decode("latin-1"))
            except Exception:  # a malformed Cookie header is simply no cookie
                continue
            if name in jar:
                return jar[name].value
    return ""


def _with_safe_headers(send: Send) -> Send:
    async def wrapped(message: Any) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers") or [])
            present = {k.lower() for k, _ in headers}
            headers.extend((k, v) for k, v in _SAFE_HEADERS if k not in present)
            message = {**message, "headers": headers}
        await send(message)

    return wrapped


def clean_key(raw_path: bytes, prefix: str) -> str | None:
    """Return the relative key a request path names, or None for any traversal form.

    ``raw_path`` is the path as sent (escapes intact); the key is its part after ``prefix``,
    decoded once, byte for byte (a name's bytes that are not UTF-8 come back as the file system
    gives them). Refused: escaped separators, dots or NUL, NUL, empty, absolute, "." or ".."
    segments (and backslashes where they separate folders).
    """
    if _BAD_ESCAPES.search(raw_path) or not raw_path.startswith(prefix.encode()):
        return None
    key = os.fsdecode(unquote_to_bytes(raw_path[len(prefix) :]))
    if not key or "\x00" in key or key.startswith("/") or (_BACKSLASH_SEPARATES and "\\" in key):
        return None
    parts = key.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return None
    return key


def contained(path: Path, roots: Iterable[Path]) -> Path | None:
    """Return the real path when ``path`` (symlinks followed) is a file inside one of ``roots``
    (or one session of such a file: ``store.parts``)."""
    from sessiontree.store.parts import part_path, split_part

    path, part = split_part(path)
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if not (entry_is(real, "file") and any(is_inside(real, root) for root in roots)):
        return None
    return real if part is None else part_path(real, part)
