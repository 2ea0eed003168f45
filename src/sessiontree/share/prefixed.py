"""Find vendor tokens nobody listed: a short prefix, ``_``, ``-`` or ``.``, then a generated body.

Most providers now issue keys as ``<prefix>_<random>`` (``ghp_``, ``sk_live_``, ``glpat-``, ``dp.pt.``)
so that scanners can find them. Instead of a table of prefixes this looks for the structure: a run
of token characters whose first one to three pieces are short single-case words and whose rest is
at least 20 characters that look generated (see ``entropy``). A run starts after any character that
cannot be part of a token, so ``/bot<token>/``, ``https://<token>@host`` and ``shot-<token>.png``
are found too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sessiontree.share.entropy import (
    class_switches,
    is_hex,
    is_uuid,
    looks_generated,
    public_shape,
    random_part,
    reads_as_words,
    shannon,
)
from sessiontree.share.keyvalue import classify_key
from sessiontree.share.placeholders import DOCUMENTED_JWT_PAYLOAD

Span = tuple[int, int, str]
KIND = "prefixed-token"

# A run of token characters that starts with a short piece and a separator.
# After the prefix, a base64 body may hold "+", "/" and "=" (``fm2_...``, ``ops_eyJ...``).
_RUN = re.compile(r"[A-Za-z](?<![A-Za-z0-9_-][A-Za-z])[A-Za-z0-9]{0,19}[_.-][A-Za-z0-9_.+/-]{20,}={0,2}")
_MAX_TOKEN = 1024
_MAX_PREFIX_AT = 256  # a token after a "/" starts this early in the run (a URL path)
_START = re.compile(r"[A-Za-z][A-Za-z0-9]{0,19}[_.-]")
_PIECE = re.compile(r"[A-Za-z][A-Za-z0-9]{0,19}|[0-9][A-Za-z0-9]{0,5}")
_MAX_PREFIX_PIECES = 3
# Prefixes that name a hash or an identifier, not a credential: integrity and cache digests,
# nonces, and the ids coding agents and their APIs give messages and tool calls.
_NOT_CREDENTIAL = frozenset(
    {"sha", "sha1", "sha224", "sha256", "sha384", "sha512", "md5", "blake2b", "blake3", "h1", "nonce"}
    | {"msg", "toolu", "srvtoolu", "call", "chatcmpl", "resp", "fc", "rs", "run", "thread", "asst"}
    | {"file", "req", "request", "evt", "batch", "ft", "item", "conv", "ws", "compl", "cmpl", "step"}
    # Deployment and build ids (Vercel dpl_, Netlify deploy-).
    | {"dpl", "deploy", "deployment", "build", "bld"}
    | {"commit", "rev", "sha1sum", "digest", "hash", "checksum", "etag", "trace", "span", "uuid", "id"}
    | {"cus", "ch", "pi", "pm", "sub", "in", "ii", "prod", "price", "txn", "acct", "seti", "src", "tok"}
    # Publishable keys by convention (Stripe pk_live_, Mapbox pk., Langfuse pk-lf-).
    | {"pk", "pub", "public", "publishable"}
)


def not_credential_prefix(prefix: str) -> bool:
    """Tell whether a lowercase prefix names a hash or an id (``sha256``, ``toolu``, ``pk``), not a secret."""
    return prefix in _NOT_CREDENTIAL


# Prefixes under which a UUID or a hex digest is a credential (``api-<uuid>``, ``sk-lf-<uuid>``).
_CREDENTIAL_WORDS = frozenset({"sk", "api", "sdk", "key", "secret", "token", "pat", "auth", "pass"})
_TRAILING_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,4}$")


Runs = list[tuple[int, int]]


def _all(text: str) -> Runs:
    return [(0, len(text))]


def find_prefixed_tokens(text: str, runs: Runs | None = None) -> Iterator[Span]:
    """Yield every ``prefix_generated-body`` run in ``text`` (also one after a ``/`` in a URL).

    ``runs`` are the spans of token characters to look in (all of the text when not given).
    """
    for lo, hi in runs if runs is not None else _all(text):
        yield from _prefixed_in(text, lo, hi)


def _prefixed_in(text: str, pos: int, hi: int) -> Iterator[Span]:
    while (match := _RUN.search(text, pos, hi)) is not None:
        pos = match.end()
        run = match.group()[:_MAX_TOKEN]  # longer runs are data, not one token
        starts = [0, *(i + 1 for i, c in enumerate(run[:_MAX_PREFIX_AT]) if c == "/")]
        for offset in starts:
            token = _trim(run[offset:])
            if (
                _START.match(token)
                and _accept(token)
                and not after_digest(text, match.start() + offset)
                and not _under_jwk_public(text, match.start() + offset)
            ):
                start = match.start() + offset
                yield start, start + len(token), KIND
                # What the token left of its run ("/config.json<next token>") is looked at too.
                pos = start + len(token)
                break


def _under_jwk_public(text: str, start: int) -> bool:
    key = _KEY_BEFORE.search(text, max(0, start - 70), start) if '"kty"' in text else None
    return key is not None and _jwk_public(text, key.group("key"))


def _trim(run: str) -> str:
    """Return the run without a file extension or a path after it, and without end punctuation."""
    extension = _TRAILING_EXTENSION.search(run)
    if extension is not None:  # a file name: shot-<token>.png keeps its ".png"
        run = run[: extension.start()]
    return _cut_path(run).rstrip("._-")


# A page's slug and id: Meeting-Notes-<32 hex> (Notion, wikis), words then one hex id.
_SLUG_ID = re.compile(r"(?P<words>(?:[A-Za-z]+-)+)[0-9a-f]{32}")


def _accept(run: str) -> bool:
    if names_a_file(run) or DOCUMENTED_JWT_PAYLOAD in run:
        return False
    slug = _SLUG_ID.fullmatch(run)
    if slug is not None and any(_is_word(w) for w in slug.group("words").split("-")):
        return False
    if _named_id(run):
        return False
    pos = 0
    pieces: list[str] = []
    for _ in range(_MAX_PREFIX_PIECES):
        piece = _PIECE.match(run, pos)
        if piece is None or piece.end() >= len(run) or run[piece.end()] not in "_.-":
            return False
        pieces.append(piece.group().lower())
        if pieces[0] in _NOT_CREDENTIAL:
            return False
        pos = piece.end() + 1
        body = run[pos:]
        if len(body) >= 20 and _body_is_secret(body, pieces):
            return True
    return False


# A kebab-case name of words, then one single-case id: node-modules-<base36>, a cache key, a
# build's or a container's name. A vendor's words say where the key works (live, test) or what
# it is (secret, token); a name's say what the thing holds.
_NAMED_ID = re.compile(r"(?P<words>(?:[A-Za-z]{4,20}-){2,4})(?P<id>[0-9a-z]{20,64}|[0-9A-Z]{20,64})")
_KEY_ENVIRONMENTS = frozenset({"live", "test", "prod", "production", "sandbox", "staging"})


def _named_id(run: str) -> bool:
    named = _NAMED_ID.fullmatch(run)
    if named is None:
        return False
    words = named.group("words").rstrip("-").split("-")
    return all(_is_word(w) and w.lower() not in _KEY_ENVIRONMENTS and classify_key(w) is None for w in words)


def _cut_path(run: str) -> str:
    """Return the run up to a ``/`` that starts a path or a word (``<token>/sendMessage``)."""
    if "/" not in run:
        return run
    segments = run.split("/")
    base64 = "+" in run or run.endswith("=")  # its "/" pieces are random, never words
    pos = len(segments[0])
    for segment in segments[1:]:
        if not segment or "." in segment or (not base64 and (reads_as_words(segment) or len(segment) < 4)):
            return run[:pos]
        pos += 1 + len(segment)
    return run


# A file or folder name, not a token: a date in it (rollout-2026-06-09T04-06-14-<uuid>.jsonl), or
# a word after a generated piece (subagent-artifacts/526c9f56_speckit-constitution_0_meta). A
# token's words are its vendor's prefix and come first (shippo_live_, capture-duffel_live_).
_DATE = re.compile(r"(?:19|20)[0-9]{2}-[01][0-9]-[0-3][0-9]")
_SEPARATED = re.compile(r"[/_.+-]")
_WORD = re.compile(r"[a-z]{4,}|[A-Z][a-z]{3,}")


def _is_word(piece: str) -> bool:
    return _WORD.fullmatch(piece) is not None and reads_as_words(piece)


def names_a_file(run: str) -> bool:
    if _DATE.search(run):
        return True
    parts = [p for p in _SEPARATED.split(run) if p]
    if any(random_part(p) for p in parts):
        return False  # words glued before a token: capture-ak_live_<30 random>.png
    words = [_is_word(p) for p in parts]
    first_other = words.index(False) if False in words else len(words)
    return sum(words) >= 2 and any(words[first_other:])


# A GraphQL global node id: a type's short name, "_", then "kwDO..." / "kgDO..." (GitHub).
_NODE_ID = re.compile(r"k[a-z][A-Z]{2}[A-Za-z0-9_-]{6,}")


def _body_is_secret(body: str, prefix: list[str]) -> bool:
    credential = any(p in _CREDENTIAL_WORDS for p in prefix)
    if _NODE_ID.fullmatch(body) and all(len(p) <= 4 for p in prefix):
        return False
    if is_uuid(body) or is_uuid(body[:36]):
        return credential
    core = body.replace("-", "").replace("_", "")
    if is_hex(core) and len(core) < 32:
        return False
    return looks_generated(body)


# A long run of letters and digits standing alone (a token whose prefix is glued on: AKCp...,
# LTAI..., EZAK...). Base64 data (images, fonts, keys, digests) is told apart by its
# surroundings: "+", "/" and "=" around it, a hash name before it, lines of one width.
_BARE = re.compile(r"[A-Za-z0-9](?<![A-Za-z0-9_.+=-][A-Za-z0-9])[A-Za-z0-9]{31,}(?![A-Za-z0-9+=])")
_BASE64_AROUND = re.compile(r"[A-Za-z0-9+/=]*")
_DIGEST_BEFORE = re.compile(
    # Not "~": "sha256~" begins an OpenShift access token, no digest is written so.
    r"(?:sha[0-9]*|SHA[0-9]*|md5|MD5|h1|base64|blake[0-9a-z]*)[:,=-]?$"
    # A password hash in crypt(3) form: $2b$12$<salt+hash>, $6$<salt>$<hash>, $argon2id$...$
    r"|\$(?:2[abxy]?\$[0-9]{2}|1|5|6|y|apr1|argon2i?d?|pbkdf2[\w-]*|scrypt)\$(?:[^$\s]{0,60}\$)*[./A-Za-z0-9]{0,60}$"
)
_BASE64_LINE = re.compile(r"[A-Za-z0-9+/=]{40,}")
BARE_KIND = "high-entropy-token"


# Base64 of a PEM's BEGIN line (a certificate; an encoded private key is found by decoding it).
PEM_BEGIN = "LS0tLS1CRUdJTi"


def find_bare_tokens(text: str, runs: Runs | None = None) -> Iterator[Span]:
    """Yield long generated runs of letters and digits that stand alone (no prefix separator)."""
    for lo, hi in runs if runs is not None else _all(text):
        yield from _bare_in(text, lo, hi)


def _bare_in(text: str, lo: int, hi: int) -> Iterator[Span]:
    for match in _BARE.finditer(text, lo, hi):
        value = match.group()
        if (
            value.startswith(PEM_BEGIN)
            or public_shape(value)
            or not (_bare_is_secret(value) or glued_hex(value))
        ):
            continue
        if value.startswith("eyJ") and text[match.end() : match.end() + 1] == ".":
            continue  # a JWT's header: the JWT pattern judges the whole token
            continue
        start, end = match.span()
        if inside_base64(text, start, end) or _named_not_secret(text, start):
            continue
        yield start, end, BARE_KIND


_KEY_BEFORE = re.compile(r"(?P<key>[A-Za-z_][\w.-]{0,60})[\"']?[ \t]*(?:=|:)[ \t]*[\"']?$")
_NAMES_NOT_SECRET = frozenset(
    {"cursor", "etag", "nonce", "hash", "digest", "checksum", "integrity", "fingerprint", "state", "page"}
    | {"id", "ids", "uuid", "guid", "sha", "commit", "revision", "rev", "version", "tag", "ref", "key"}
)


_JWK_PUBLIC = frozenset({"x", "y", "n", "e", "crv", "kid"})


def _jwk_public(text: str, key: str) -> bool:
    """Tell whether ``key`` is a JSON Web Key's public member (its value is a public key's part)."""
    return key in _JWK_PUBLIC and '"kty"' in text


def _named_not_secret(text: str, start: int) -> bool:
    """Tell whether the value is under a key that names a cursor, an id or a digest."""
    match = _KEY_BEFORE.search(text, max(0, start - 70), start)
    if match is None:
        return False
    key = match.group("key")
    words = [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", key)]
    if not words:
        return False
    if classify_key(key) is not None:
        return False
    if _jwk_public(text, key):
        return True
    return words[-1] in _NAMES_NOT_SECRET or "token" in words or words[-1] in ("name", "path", "url")


def _bare_is_secret(value: str) -> bool:
    # Base64 of a binary key starts with its length's zero bytes ("AAAAB3NzaC1yc2E..."); a
    # token padded with a run of "A"s (Twitter's bearer tokens) is judged on the rest.
    padding = len(value) - len(value.lstrip("A"))
    if padding >= 16:
        value = value[padding:]
    elif padding >= 4:
        return False
    if len(value) < 32 or not (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
    ):
        return False
    return looks_generated(value, 32) and class_switches(value) >= len(value) / 4 and shannon(value) >= 4.0


def after_digest(text: str, start: int) -> bool:
    """Tell whether a value follows a digest's name or a crypt(3) hash's ``$id$`` fields."""
    return _DIGEST_BEFORE.search(text, max(0, start - 120), start) is not None


def inside_base64(text: str, start: int, end: int) -> bool:
    if after_digest(text, start):
        return True
    left = start
    while (left > 0 and text[left - 1] in "+/=") or (left > 0 and text[left - 1].isalnum() and left < start):
        left -= 1
    around = _BASE64_AROUND.match(text, left)
    wider = text[left : around.end()] if around is not None else ""
    if len(wider) > end - start:
        # (the piece's own parts are no others: "-" ends a base64 run, not a piece)
        others = [p for p in re.split(r"[+/=]+", wider) if p and p not in text[start:end]]
        if "+" in wider or not all(reads_as_words(p) or len(p) <= 3 for p in others):
            return True
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if text[line_start:line_end].strip() != text[start:end]:
        return False
    before = text[text.rfind("\n", 0, max(0, line_start - 1)) + 1 : max(0, line_start - 1)]
    after_end = text.find("\n", line_end + 1)
    after = text[line_end + 1 : len(text) if after_end < 0 else after_end]
    return any(
        _BASE64_LINE.fullmatch(line.strip()) or line.startswith("-----") for line in (before, after) if line
    )


# A hex secret with a short vendor prefix glued on (``dose<32 hex>``): the prefix holds a letter
# that is not a hex digit, and no digest or id name.
_GLUED = re.compile(r"(?P<prefix>[A-Za-z]{2,8}?)(?P<hex>[0-9a-f]{32,}|[0-9A-F]{32,})")
_NOT_HEX_LETTER = re.compile(r"[g-zG-Z]")
_DIGEST_NAMES = (
    "sha",
    "md",
    "blake",
    "crc",
    "xxh",
    "commit",
    "tree",
    "blob",
    "rev",
    "hash",
    "id",
    "uuid",
    "etag",
)
GLUED_KIND = "prefixed-token"


def glued_hex(value: str) -> bool:
    """Tell a ``<letters><32+ hex>`` run whose letters are a vendor's prefix (``dose<hex>``)."""
    glued = _GLUED.fullmatch(value)
    if glued is None:
        return False
    prefix, hex_part = glued.group("prefix"), glued.group("hex")
    if not _NOT_HEX_LETTER.search(prefix) or prefix.lower().startswith(_DIGEST_NAMES):
        return False
    return any(c.isdigit() for c in hex_part) and any(c.isalpha() for c in hex_part)


# A token whose pieces are joined by dots (``<digits>.<hex>.<hex>``, ``<id>.<random>.<random>``):
# two or more long generated pieces; a domain, a version or a dotted name has none.
_DOTTED = re.compile(
    r"[A-Za-z0-9](?<![A-Za-z0-9_.+/=-][A-Za-z0-9])[A-Za-z0-9_-]{3,}(?:\.[A-Za-z0-9_-]{4,}){2,5}"
)


# Where a dotted token may be: a long piece between two dots (found from its literal ".").
_DOTTED_MIDDLE = re.compile(r"\.[A-Za-z0-9_-]{16,}\.")
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.")


def find_dotted_tokens(text: str, runs: Runs | None = None) -> Iterator[Span]:
    """Yield dot-joined runs of which at least two pieces look generated (16 characters or more)."""
    for lo, hi in runs if runs is not None else _all(text):
        yield from _dotted_around(text, lo, hi)


def _dotted_around(text: str, pos: int, hi: int) -> Iterator[Span]:
    while (hint := _DOTTED_MIDDLE.search(text, pos, hi)) is not None:
        start = hint.start()
        while start > 0 and text[start - 1] in _TOKEN_CHARS and hint.start() - start < 300:
            start -= 1
        end = hint.end()
        while end < len(text) and text[end] in _TOKEN_CHARS and end - hint.end() < 1200:
            end += 1
        pos = end
        yield from _dotted_in(text, start, end)


def _dotted_in(text: str, lo: int, hi: int) -> Iterator[Span]:
    for match in _DOTTED.finditer(text, lo, hi):
        end = match.end()
        if end < len(text) and (text[end].isalnum() or text[end] in "+/="):
            continue
        pieces = match.group().split(".")
        generated = [p for p in pieces if len(p) >= 16 and (is_hex(p) or looks_generated(p, 16))]
        if DOCUMENTED_JWT_PAYLOAD in match.group() or after_digest(text, match.start()):
            continue
        if len(generated) >= 2 and not any(_is_word(p) for p in pieces[1:]):
            yield match.start(), end, KIND
