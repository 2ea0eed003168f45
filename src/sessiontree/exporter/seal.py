"""Sealed pages: a session page compressed and encrypted in one versioned envelope, opened in the browser.

The envelope (its bytes go into the sealed page as base64)::

    b"STSE" | version (1 byte) | [version 2: PBKDF2 iterations (4 bytes, big-endian) | salt (16)]
            | nonce (12) | AES-256-GCM(deflate-raw(the page's UTF-8 bytes)) with its 16-byte tag

Everything before the ciphertext is the AEAD's associated data, so a changed version, count or
salt fails as a changed byte of the ciphertext does. Version 1 is sealed with a random 32-byte key
that travels only in the link's ``#fragment`` (``share``); version 2 with a key derived from a
password by PBKDF2-SHA-256 (``export --password``). A nonce is drawn afresh for each page (a key
seals one page; a password's key is new with each salt).

The sealed page (``templates/sealed/``) holds the envelope and one hashed script that reads the
key (or asks for the password), decrypts with WebCrypto, inflates with ``DecompressionStream``
and writes the plain page in its own place: the same viewer, under a policy that still lets only
the viewer's script run (the sealed page's CSP lists the viewer's hashes beside its own, and the
plain page's meta CSP is added to it when written: a script runs only if both allow it).
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import struct
import zlib
from functools import cache

from markupsafe import Markup

from sessiontree.errors import SealError
from sessiontree.exporter.options import PageOptions, check_theme
from sessiontree.exporter.page import content_security_policy, viewer_assets
from sessiontree.exporter.templating import get_template, read_asset

MAGIC = b"STSE"
KEY_VERSION = 1  # a random key in the link's fragment
PASSWORD_VERSION = 2  # a key derived from a password (PBKDF2-SHA-256)
KEY_BYTES = 32  # AES-256
NONCE_BYTES = 12
SALT_BYTES = 16
# OWASP's figure for PBKDF2-HMAC-SHA256 (2023); WebCrypto offers no scrypt or Argon2.
PBKDF2_ITERATIONS = 600_000
MIN_ITERATIONS = 100_000  # an envelope asking fewer is refused (it would make a guess cheap)
# zlib's level 6 costs the 2,000-turn page's 11 MB ~3x the CPU of level 1 for a few % smaller.
COMPRESS_LEVEL = 1
SEALED_DATA_ID = "st-sealed"
_KEY_TEXT = re.compile(r"^[A-Za-z0-9_-]{43}$")


def new_key() -> bytes:
    """A fresh random AES-256 key (the OS's CSPRNG)."""
    return os.urandom(KEY_BYTES)


def key_text(key: bytes) -> str:
    """The key as it goes in a link's fragment: base64url without padding (43 characters)."""
    if len(key) != KEY_BYTES:
        raise ValueError(f"a key is {KEY_BYTES} bytes")
    return base64.urlsafe_b64encode(key).rstrip(b"=").decode("ascii")


def key_from_text(text: str) -> bytes:
    """The key of a link's fragment (``key_text``'s form, a leading ``#`` allowed)."""
    text = text.removeprefix("#")
    if not _KEY_TEXT.match(text):
        raise SealError("Not a page key: expected the 43 characters after '#' in the share link")
    return base64.urlsafe_b64decode(text + "=")


def seal(data: bytes, key: bytes) -> bytes:
    """Compress and encrypt ``data`` with ``key`` into a version 1 envelope."""
    if len(key) != KEY_BYTES:
        raise ValueError(f"a key is {KEY_BYTES} bytes")
    return _seal(data, key, MAGIC + bytes([KEY_VERSION]))


def seal_with_password(
    data: bytes, password: str, *, iterations: int = PBKDF2_ITERATIONS, salt: bytes | None = None
) -> bytes:
    """Compress and encrypt ``data`` with a key derived from ``password`` (a version 2 envelope)."""
    if not password:
        raise SealError("The password is empty")
    salt = os.urandom(SALT_BYTES) if salt is None else salt
    if len(salt) != SALT_BYTES or iterations < MIN_ITERATIONS:
        raise ValueError("a salt is 16 bytes and PBKDF2 runs at least 100,000 iterations")
    header = MAGIC + bytes([PASSWORD_VERSION]) + struct.pack(">I", iterations) + salt
    return _seal(data, derive_key(password, salt, iterations), header)


def derive_key(password: str, salt: bytes, iterations: int) -> bytes:
    """The AES key of a password: PBKDF2-HMAC-SHA-256 over its UTF-8 bytes (as WebCrypto's)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

    kdf = PBKDF2HMAC(algorithm=hashes.SHA256(), length=KEY_BYTES, salt=salt, iterations=iterations)
    return kdf.derive(password.encode("utf-8"))


def _seal(data: bytes, key: bytes, header: bytes) -> bytes:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # only when a page is sealed

    packer = zlib.compressobj(COMPRESS_LEVEL, zlib.DEFLATED, -15)  # raw deflate: DecompressionStream's
    packed = packer.compress(data) + packer.flush()
    nonce = os.urandom(NONCE_BYTES)
    aad = header + nonce
    return aad + AESGCM(key).encrypt(nonce, packed, aad)


def open_envelope(envelope: bytes, *, key: bytes | None = None, password: str | None = None) -> bytes:
    """The data sealed in ``envelope``, with its key (version 1) or password (version 2).

    Raises ``SealError`` for a wrong key or password and for damaged bytes alike (AES-GCM cannot
    tell them apart), and for an envelope this version does not know.
    """
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    version, header = _read_header(envelope)
    if version == KEY_VERSION:
        if key is None or len(key) != KEY_BYTES:
            raise SealError("This page is sealed with a key: give the key of its link")
        aes_key = key
    else:
        if not password:
            raise SealError("This page is sealed with a password: give the password")
        iterations, salt = struct.unpack(">I", header[5:9])[0], header[9 : 9 + SALT_BYTES]
        aes_key = derive_key(password, salt, iterations)
    nonce = envelope[len(header) : len(header) + NONCE_BYTES]
    aad = envelope[: len(header) + NONCE_BYTES]
    try:
        packed = AESGCM(aes_key).decrypt(nonce, envelope[len(aad) :], aad)
    except InvalidTag:
        raise SealError("Wrong key or password, or the page was changed") from None
    return zlib.decompress(packed, -15)


def _read_header(envelope: bytes) -> tuple[int, bytes]:
    if envelope[:4] != MAGIC or len(envelope) < 5:
        raise SealError("Not a sealed page")
    version = envelope[4]
    if version == KEY_VERSION:
        header = envelope[:5]
    elif version == PASSWORD_VERSION:
        header = envelope[: 5 + 4 + SALT_BYTES]
        if len(header) < 5 + 4 + SALT_BYTES or struct.unpack(">I", header[5:9])[0] < MIN_ITERATIONS:
            raise SealError("A damaged sealed page: its key derivation is cut or too weak")
    else:
        raise SealError(f"A sealed page of version {version}: this sessiontree opens versions 1 and 2")
    if len(envelope) < len(header) + NONCE_BYTES + 16:
        raise SealError("A damaged sealed page: it is cut short")
    return version, header


@cache
def sealed_assets() -> tuple[str, str]:
    """The sealed page's (css, js): the palette and its own style; its one script."""
    css = read_asset("palette.css") + read_asset("sealed/sealed.css")
    js = read_asset("sealed/sealed.js")
    return css, js


def sealed_csp() -> str:
    """The sealed page's policy: the plain page's, with the sealed page's own script and style added.

    The plain page written in its place adds its own meta policy; a resource must pass both, so
    the decrypted page runs under what its own policy allows (the viewer's hashes), no more.
    """
    css, js = sealed_assets()
    viewer_css, viewer_js = viewer_assets()
    return content_security_policy([viewer_js, js], PageOptions(), css=[viewer_css, css])


def sealed_page(envelope: bytes, *, theme: str = "auto") -> str:
    """The page that holds ``envelope`` and opens it in the browser (the key from the link's
    fragment for version 1, a password field for version 2)."""
    version, _ = _read_header(envelope)
    css, js = sealed_assets()
    return get_template("sealed/page.html.j2").render(
        theme=check_theme(theme),
        csp=Markup(sealed_csp()),
        css=Markup(css),
        script=Markup(js),
        password=version == PASSWORD_VERSION,
        data_id=SEALED_DATA_ID,
        envelope=Markup(base64.b64encode(envelope).decode("ascii")),
    )


def seal_page(html: str, key: bytes, *, theme: str = "auto") -> str:
    """The sealed page of a plain page's HTML, opened by ``key`` (in the link: ``#`` + ``key_text``)."""
    return sealed_page(seal(html.encode("utf-8"), key), theme=theme)


def seal_page_with_password(html: bytes, password: str, *, theme: str = "auto") -> str:
    """The sealed page of a plain page's UTF-8 bytes, opened by ``password``."""
    return sealed_page(seal_with_password(html, password), theme=theme)


def read_envelope(page: str) -> bytes:
    """The envelope a sealed page holds (its base64, decoded)."""
    start_tag = f'<script type="application/octet-stream" id="{SEALED_DATA_ID}">'
    start = page.find(start_tag)
    end = page.find("</script>", start)
    if start < 0 or end < 0:
        raise SealError("Not a sealed page: it holds no envelope")
    try:
        return base64.b64decode(page[start + len(start_tag) : end], validate=True)
    except binascii.Error:
        raise SealError("A damaged sealed page: its envelope is not base64") from None


__all__ = [
    "PBKDF2_ITERATIONS",
    "key_from_text",
    "key_text",
    "new_key",
    "open_envelope",
    "read_envelope",
    "seal",
    "seal_page",
    "seal_page_with_password",
    "seal_with_password",
    "sealed_csp",
    "sealed_page",
]
