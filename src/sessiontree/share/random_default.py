"""The default for what no detector explains: a long random-looking token is masked.

Vendors and slots come and go; a generated credential stays a long run that changes character
class often and has high entropy. Any such run no detector has masked is masked here, unless a
look-alike rule explains it by where it stands: a hash where hashes stand (hex, after a digest's
name, under ``integrity`` or ``checksum``), an identifier where identifiers stand (a UUID, an
agent's or an API's id, under a key that names an id), a public key, an address, a content id,
base64 data, a file's name. Each value kept is given with the rule's reason, for the review.

The thresholds were measured on the real fixtures' ordinary text (``bench/bench_random_default.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sessiontree.share.entropy import (
    is_hex,
    is_uuid,
    public_shape,
    random_alone,
    random_part,
    reads_as_words,
    shannon,
)
from sessiontree.share.keyvalue import classify_key
from sessiontree.share.placeholders import DOCUMENTED_JWT_PAYLOAD
from sessiontree.share.prefixed import (
    PEM_BEGIN,
    after_digest,
    inside_base64,
    names_a_file,
    not_credential_prefix,
)

Span = tuple[int, int, str]
KIND = "random-token"
KEPT = "kept:"  # the kind of a span kept by a look-alike rule: "kept:<reason>"

MIN_LENGTH = 24
MIN_HEX_ENTROPY = 3.4  # random hex of 32 has ~3.7
# A piece of a run: split at ".", "/", "=" and "~" (paths, dotted names, URLs, flags and their
# values) unless the run is base64 ("+" in it, or "=" padding at its end).
_PIECE = re.compile(r"[A-Za-z0-9_+-]+={0,2}")
_PARTS = re.compile(r"[-_]+")
_IN_ESCAPE = re.compile(r"\x1b\[[0-9;:?]*$")
_ESCAPE_REST = re.compile(r"[0-9;:?]*[@-~]")
# (A piece starts after a value's leading dashes: base64url may begin with "-".)
_KEY_BEFORE = re.compile(r"(?P<key>[A-Za-z_][\w.-]{0,60})[\"']?\]?[ \t]*(?:=|:|=>)[ \t]*[\"'(]?-*$")
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# Keys under which a random value is a hash, an id, a public key, an address or a content id.
_NAMES_NOT_SECRET = frozenset(
    {"id", "ids", "uuid", "guid", "uid", "oid", "sha", "hash", "digest", "checksum", "integrity", "etag"}
    | {"nonce", "cursor", "fingerprint", "commit", "revision", "rev", "version", "tag", "ref", "cid"}
    | {"address", "addr", "public", "pub", "x", "y", "n", "e", "resolved", "name", "path", "url", "file"}
    | {"signature", "hmac256", "state", "page", "request", "trace", "span", "correlation", "order"}
    | {"challenge"}  # a PKCE code_challenge: the hash of a verifier the page never holds
)
_PUBLIC_KEY_BEFORE = re.compile(
    r"(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp[0-9]+|sk-ssh-ed25519@openssh\.com)[ \t]+$"
    r"|(?i:public[ _-]?key|pubkey)[\"']?[ \t]*[:=][ \t]*[\"']?$"
)
# A local path up to the piece (no "://" in it) through a folder of generated names: a
# temporary, cache or build folder's random name is no secret. Elsewhere (``/home/dev/<x>/app``)
# a random folder name is judged like any other text.
_LOCAL_PATH = re.compile(r"(?:^|[\s\"'`(=])(?:~|\.{1,2})?/(?:[\w.@+-]+/)*$")
_GENERATED_FOLDER = re.compile(
    r"(?i)/(?:te?mp|t|var/folders|caches?|\.cache|private|node_modules|\.git|build|dist|target|out"
    r"|\.venv|venv|site-packages|snap|worktrees?|\.pi|\.claude|\.codex|sessions?|tasks|artifacts)/"
)
_UUID_IN = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)


def looks_random(piece: str) -> bool:
    """Tell a generated piece (24+ characters, letters and digits mixed, high entropy) from names.

    A digit is required: 24 random base62 characters hold one 98.5% of the time, and a long
    camelCase or kebab-case name none.
    """
    core = piece.strip("=_-")
    n = len(core)
    if n < MIN_LENGTH:
        return False
    digits = sum(c.isdigit() for c in core)
    if not digits or digits == n or not any(c.isalpha() for c in core):
        return False
    if is_hex(core.replace("-", "")):  # a digest or an id, listed as kept: 16 symbols, 4 bits at most
        return n >= 32 and shannon(core) >= MIN_HEX_ENTROPY
    # One case under 32 characters is an id's alphabet (ULID, base32, Crockford), not a key's:
    # random_alone says so of the whole, random_part asks both cases of a slug's part.
    parts = [p for p in _PARTS.split(core) if p]
    if sum(_is_word(p) for p in parts) >= 2:
        # A slug or a branch (feat-remaining-phases-1780741904), unless one of its parts is random
        # alone: words glued before a token (capture-ak_live_<30 random>.png) hide nothing.
        return any(random_part(p) for p in parts)
    return random_alone(core)


def _is_word(part: str) -> bool:
    return len(part) >= 4 and part.isalpha() and reads_as_words(part)


def _reason(text: str, start: int, end: int, piece: str, run: str) -> str | None:
    """Return why a random-looking piece of ``run`` is kept (a look-alike rule), or None to mask it."""
    bare = piece.strip("=_-")
    if DOCUMENTED_JWT_PAYLOAD in run:
        return "a documented example"
    if run.startswith(PEM_BEGIN):
        return "base64 of a certificate"  # an encoded private key is masked from its decoded text
    if is_uuid(bare) or is_uuid(bare[:36]):
        return "a UUID (an id)"
    if is_hex(bare.replace("-", "")):
        return "hex (a digest, a commit or an id)"
    shape = public_shape(bare)
    if shape is not None:
        return shape
    if after_digest(text, start):
        return "after a digest's name"
    if _PUBLIC_KEY_BEFORE.search(text, max(0, start - 40), start) or bare.startswith("AAAA"):
        return "a public key"
    if inside_base64(text, start, end):
        return "base64 data"
    head = bare.split("_", 1)[0].split("-", 1)[0]
    if head != bare and not_credential_prefix(head.lower()):
        return f"an id ({head}_...)"
    if names_a_file(piece):
        return "a file name"
    words = [p for p in _PARTS.split(bare) if p and not _is_word(p)]
    if len(words) == 1 and bare != words[0] and (is_hex(words[0]) or is_uuid(words[0])):
        name = bare.replace(words[0], "").strip("-_")
        if classify_key(name) is None:  # "botkey-<32 hex>" is a key, "build-<32 hex>" an id
            return "a name and its hex id"
    if _UUID_IN.search(bare) and not looks_random(_UUID_IN.sub("", bare)):
        return "a name and its UUID"
    path = _LOCAL_PATH.search(text, max(0, start - 300), start)
    if path is not None and _GENERATED_FOLDER.search(path.group()):
        return "a folder or file of a local path"
    key = _KEY_BEFORE.search(text, max(0, start - 70), start)
    if key is not None and classify_key(key.group("key")) is None:
        words = [w.lower() for w in _WORDS.findall(key.group("key"))]
        # A "token" the key classes call no credential is a cursor or a count (nextPageToken).
        if words and (words[-1] in _NAMES_NOT_SECRET or "token" in words):
            return f"under '{key.group('key')[-30:]}'"
    return None


def _pieces(text: str, lo: int, hi: int) -> Iterator[tuple[int, int]]:
    """Yield the pieces of a run of token characters: the run itself when base64, else its parts."""
    if text[lo - 1 : lo] in ("[", ";") and _IN_ESCAPE.search(text, max(0, lo - 40), lo):
        escape = _ESCAPE_REST.match(text, lo, hi)  # "31m" of "\x1b[01;31m": no part of the run
        lo = escape.end() if escape is not None else lo
    run = text[lo:hi]
    if ("+" in run or run.endswith("=")) and "." not in run and "==" not in run.rstrip("="):
        yield lo, hi
        return
    for match in _PIECE.finditer(text, lo, hi):
        start, end = match.span()
        while start < end and text[start] == "-":
            start += 1  # a flag's dashes: --field-trial-handle
        yield start, end


def find_random_tokens(text: str, runs: list[tuple[int, int]]) -> Iterator[Span]:
    """Yield each random-looking piece of the runs: masked, or kept with its reason (``kept:...``)."""
    for lo, hi in runs:
        for start, end in _pieces(text, lo, hi):
            piece = text[start:end]
            if not looks_random(piece):
                continue
            reason = _reason(text, start, end, piece, text[lo:hi])
            yield start, end, KIND if reason is None else KEPT + reason
