"""Secrets by the name they are stored under: ``.env``, YAML, JSON, TOML, INI, code, Kubernetes.

A key names a secret when one of its words holds a secret's word piece (``pass``, ``secret``,
``token``, ``key``, ``auth``, ``session``, ``cookie``...), in any case or joining: ``PGPASSWORD``,
``csrftoken``, ``primaryKey``, ``SharedAccessKey``. Then its value decides: a password-like key
takes any value that is not a placeholder; a token-like key one that looks generated.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from sessiontree.share.entropy import irregular_parts, is_uuid, looks_random_value, reads_as_words
from sessiontree.share.placeholders import NUMBER, PATH, RESOURCE, URL, is_placeholder
from sessiontree.share.scan import Hits, register

Span = tuple[int, int, str]

_DOTTED_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$")
_CODE_ROOTS = frozenset(
    {"os", "process", "settings", "config", "conf", "env", "self", "this", "window", "globalThis"}
    | {"import", "request", "req", "ctx", "context", "app", "args", "options", "opts", "params", "secrets"}
    | {"vars", "inputs", "github", "Deno", "Bun", "System", "Environment", "ENV", "props", "cfg"}
)
SECRET_PIECES = ("pass", "pwd", "secret", "token", "key", "cred", "auth")

# A key is found from its keyword outwards (the one scan's hits of these words); then the
# separator and the value. "pat" ends a word; "pw", "sas", "otp" and "psk" are whole words.
_KEYWORDS = register(
    *("pass", "pwd", "secret", "token", "key", "cred", "auth", "sig", "salt", "cookie", "session"),
    *("dsn", "jwt", "hmac", "pw", "sas", "otp", "psk", "encrypt", "cipher", "mnemonic"),
)
# "pat" is in most paths and patterns: looked for by its own quick literal search instead.
_PAT = re.compile(r"pat(?![a-z])")
_ENDS_WORD = frozenset({"pw", "sas", "otp", "psk"})
_STARTS_WORD = frozenset({"pw", "sas", "otp", "psk"})
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_KEYWORDS_SET = frozenset(_KEYWORDS)
_KEY_HEAD = re.compile(r"(?<![\w.-])[\w.-]{0,60}\Z", re.ASCII)
_KEY_TAIL = re.compile(r"[\w.-]*", re.ASCII)
_MAX_KEY = 120
_AFTER_KEY = re.compile(
    r"(?P<kq>[\"']?)\]?[ \t]*(?P<sep>:=|=>|=|:)[ \t]*(?:\((?=[ \t]*[\"'`])[ \t]*)?"
    # A string literal's prefix: b'...', r"...", rb'...' (Python), u'...'.
    r"(?:[rRbBuU]{1,2}(?=[\"']))?"
    # The value is looked at, not consumed: a value may hold the next key ("a=b&API_KEY=...").
    r"(?=(?P<q>[\"'`])(?P<qv>[^\"'`\n]{1,500})(?P=q)|(?P<bv>[^\s\"'`,;<>(){}\[\]]{1,500}))",
)
_MAX_VALUE = 500
_BARE_REST = re.compile(r"[^\s\"'`,;<>(){}\[\]]*")
_QUOTED_REST = re.compile(r"[^\"'`\n]*")
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")

# Word pieces that make a key a secret's, inside any word ("PGPASSWORD", "csrftoken",
# "SharedAccessKey"): a password-like piece accepts any value that is not a placeholder, a
# token-like one a value that looks generated (so "sortKey: createdAt" stays).
_PASSWORD_PIECES = ("pass", "pwd", "secret", "cred", "salt", "dsn")
_TOKEN_PIECES = (
    *("token", "key", "auth", "session", "cookie", "sig", "csrf", "xsrf", "bearer"),
    *("encrypt", "cipher", "signing", "mnemonic"),
)
# Whole words only (as pieces they would match "path", "compat", "pattern").
_TOKEN_WORDS = frozenset({"pat", "jwt", "sas", "hmac", "otp", "totp", "apikey"})
# Whole words that name a password a person chose (a pre-shared key is a passphrase).
_PASSWORD_WORDS = frozenset({"pw", "psk"})
# Words that contain a piece but name something else.
_NOT_PIECE = frozenset(
    {"passage", "passages", "passenger", "passive", "bypass", "compass", "passthrough", "pass-through"}
    | {"author", "authors", "authored", "keyboard", "keyword", "keywords", "monkey", "turkey", "donkey"}
    | {"hockey", "whiskey", "jockey", "keyframe", "keyframes", "hotkey", "hotkeys", "keymap", "keystroke"}
    | {"signal", "signals", "design", "assign", "signed", "sigma", "sigterm", "sigint", "sigkill"}
    | {"passed", "passes", "passing", "secretary", "sessions", "signature", "signatures"}
)
# A "token" that is a cursor, a model vocabulary item or a count.
_NOT_CREDENTIAL_TOKEN = frozenset(
    {"page", "next", "prev", "previous", "continuation", "sync", "cursor", "mask", "pad", "bos", "eos"}
    | {"unk", "sep", "cls", "num", "max", "min", "special", "start", "end", "stop", "sample", "count"}
    | {"total", "input", "output", "vocab", "eot", "image", "audio", "think", "reasoning", "cache"}
)
# The key names something about a secret (its file, name, length), not the secret.
_ABOUT_WORDS = frozenset(
    {"file", "files", "path", "paths", "dir", "directory", "url", "uri", "endpoint", "name", "names", "id"}
    | {"ids", "type", "types", "count", "length", "len", "size", "ttl", "expiry", "expires", "expiration"}
    | {"at", "time", "timeout", "enabled", "enable", "disabled", "required", "mode", "header", "env"}
    | {"var", "field", "prefix", "suffix", "format", "version", "limit", "limits", "max", "min", "policy"}
    | {"hint", "label", "ref", "location", "region", "store", "provider", "source", "strategy", "kind"}
    | {"method", "algorithm", "alg", "rotation", "usage", "budget", "cost", "rate", "arn", "index"}
    | {"manager", "backend", "scope", "scopes", "filename", "set", "list", "tokens", "keys"}
    | {"reset", "hash", "hashed", "rules", "ok", "valid", "error", "errors", "prompt", "length"}
    | {"storage", "duration", "lifetime", "timestamp", "created", "updated", "status", "state", "user"}
)
_PUBLIC_WORDS = frozenset(
    {"public", "publishable", "pub", "sort", "cache", "foreign", "idempotency"}
    # A certificate is public (kubeconfig certificate-authority-data, client-certificate-data).
    | {"certificate", "cert", "certs", "crt", "ca"}
)


@lru_cache(maxsize=8192)  # a session repeats a few hundred keys ("text", "command") many times
def classify_key(key: str) -> str | None:
    """Return ``"password"`` or ``"token"`` when a key names a secret, else None."""
    words = [w.lower() for w in _WORDS.findall(key)]
    if words[-2:] == ["key", "id"] and "access" in words:
        return "token"  # an access key's id is half of the credential (AKIA..., LTAI...)
    if not words or words[-1] in _ABOUT_WORDS or key in ("PWD", "OLDPWD"):
        return None  # the shell's working folders (a lowercase ``pwd:`` is mongo's password)
    pieces = [w for w in words if w not in _NOT_PIECE]
    if any(w in _PUBLIC_WORDS for w in words) and not any("secret" in w or "pass" in w for w in pieces):
        return None
    if any(piece in word for word in pieces for piece in _PASSWORD_PIECES) or not _PASSWORD_WORDS.isdisjoint(
        pieces
    ):
        return "password"
    for i, word in enumerate(pieces):
        if word in _TOKEN_WORDS or any(piece in word for piece in _TOKEN_PIECES):
            before = pieces[i - 1] if i else ""
            if word.startswith("token") and before in _NOT_CREDENTIAL_TOKEN:
                continue
            if word.endswith("tokens") or word.startswith(("max", "num")):
                continue
            return "token"
    return None


def says_secret(word: str) -> bool:
    """Tell whether a word names a credential: token, password, secret, key, auth, cred (``accessToken``)."""
    lowered = word.lower()
    return any(piece in lowered for piece in SECRET_PIECES) and classify_key(word) is not None


_CODE_WORDS = frozenset(
    {"await", "new", "this", "self", "null", "undefined", "function", "async", "require", "import"}
    | {"return", "typeof", "None", "True", "False", "lambda", "yield", "nil", "let", "const", "var"}
)


def _camel_identifier(value: str) -> bool:
    """Tell ``OAuthCredentials`` or ``getApiKey`` (words joined in camelCase) from a password."""
    has_upper = any(c.isupper() for c in value[1:])
    if not (has_upper and any(c.islower() for c in value) and reads_as_words(value)):
        return False
    # A long one whose parts read by chance: 85 of 20,000 random 20-40 character tokens -> 1.
    return len(value) < 20 or irregular_parts(value) <= 1


def _is_code_reference(value: str) -> bool:
    """Tell a dotted name in code (``os.environ.get``, ``process.env.X``) from a dotted token."""
    if not _DOTTED_NAME.match(value):
        return False
    root = value.split(".", 1)[0]
    return root in _CODE_ROOTS or reads_as_words(value) or not looks_random_value(value.replace(".", ""))


# A wallet's recovery phrase: 12 to 24 lowercase words, under a key that names a seed or mnemonic.
_WORD_SEED = re.compile(r"(?:[a-z]{3,8} ){11,23}[a-z]{3,8}")
_SEED_KEY = re.compile(r"(?i)mnemonic|seed|phrase|recovery")


def _accept_value(
    key_class: str, value: str, sep: str, bare: bool, after: str, key: str, strong: bool
) -> bool:
    if is_placeholder(value) or PATH.match(value) or URL.match(value) or RESOURCE.match(value):
        return False
    if bare and value in _CODE_WORDS:
        return False  # code: "const creds = await ...", "token: string"
    if bare and sep == ":" and value.isalnum() and value[:1].isalpha() and _camel_identifier(value):
        return False  # a type or a function: "credentials: OAuthCredentials", "apiKey: getApiKey"
    if bare and (after[:1] in ("(", "[") or _is_code_reference(value)):
        return False  # code: os.environ["X"], getpass.getpass(), settings.SECRET_KEY
    if value.lower() in (key.lower(), key.lower().replace("_", "")) or value.startswith("!"):
        return False
    if is_uuid(value):
        return key_class == "password" or strong  # a UUID is a session or request id elsewhere
    if key_class == "token":
        seed = _WORD_SEED.fullmatch(value) is not None and _SEED_KEY.search(key) is not None
        return seed or looks_random_value(value)
    if NUMBER.match(value):
        return len(value) >= 6
    if len(value) < 3:
        return False
    # "the password: must be long" is prose; "password: hunter2" is not.
    return not (bare and sep == ":" and value.isalpha() and value.islower() and len(value) < 12)


def _keyword_hits(hits: Hits) -> list[tuple[int, int]]:
    """Return the (start, end) of each keyword in the text, in order."""
    lowered = hits.lowered
    found = [m.span() for m in _PAT.finditer(lowered)] if "pat" in lowered else []
    for word in _KEYWORDS_SET.intersection(hits.found()):
        for start in hits.at(word):
            end = start + len(word)
            if word in _ENDS_WORD and lowered[end : end + 1] in _LOWER:
                continue
            if word in _STARTS_WORD and lowered[start - 1 : start] in _LOWER:
                continue
            found.append((start, end))
    found.sort()
    return found


def _assignments(text: str, hits: Hits) -> Iterator[tuple[int, int, re.Match[str]]]:
    """Yield (key start, key end, separator-and-value match) for word runs holding a keyword."""
    done = 0
    for hit_start, hit_end in _keyword_hits(hits):
        if hit_start < done:
            continue  # inside the word of the last hit: one look per word, however many keywords
        tail = _KEY_TAIL.match(text, hit_end)
        end = done = tail.end() if tail is not None else hit_end
        after = _AFTER_KEY.match(text, end)
        if after is None:
            continue
        head = _KEY_HEAD.search(text, max(0, hit_start - 60), hit_start)
        if head is not None and end - head.start() <= _MAX_KEY:  # None: inside a long run
            yield head.start(), end, after


def find_key_values(text: str, hits: Hits | None = None) -> Iterator[Span]:
    """Yield the values of assignments whose key names a secret (``.env``, YAML, JSON, code, INI)."""
    rest_end = -1  # where the last value longer than the lookahead ended (one scan per run)
    for key_start, key_end, match in _assignments(text, Hits(text) if hits is None else hits):
        key = text[key_start:key_end].strip(".-")
        key_class = classify_key(key)
        if key_class is None or text.endswith("[REDACTED:", 0, key_start):
            continue  # not a secret's key, or the kind inside a mask: "[REDACTED:slack-token]:..."
        if _qualified_away(text, key_start, key):
            continue  # a prose label's last word: "restored cache key: ...", "sort key: ..."
        bare = match.group("bv") is not None
        group = "bv" if bare else "qv"
        value = match.group(group).strip()
        start, end = match.span(group)
        if bare and text[key_start - 1 : key_start] in ("?", "&"):
            # A URL query parameter ends at the next "&"; elsewhere "&" can be part of a password.
            value = value.split("&", 1)[0]
            end = start + len(value)
        if end - start == _MAX_VALUE:  # the lookahead stops there: mask to the end of the value
            if end > rest_end:
                rest = (_BARE_REST if bare else _QUOTED_REST).match(text, end)
                rest_end = rest.end() if rest is not None else end
            end = rest_end
        after = text[end : end + 1]
        if key.lower() in ("key", "name") and _NAMES_A_VALUE.match(text, end + 1):
            continue  # <add key="ApiSecret" value="...">: the name of a setting, its value follows
        strong = any(piece in key.lower() for piece in SECRET_PIECES)
        if not _accept_value(key_class, value, match.group("sep"), bare, after, key, strong):
            continue
        env = match.group("sep") == "=" and re.fullmatch(r"[A-Z0-9_]+", key)
        yield start, end, "env-assignment" if env else "key-value"


_NAMES_A_VALUE = re.compile(r"[ \t]+value[ \t]*=")
_WORD_BEFORE = re.compile(r"(?<![\w.-])(?P<word>[A-Za-z]{2,20})[ \t]\Z")


def _qualified_away(text: str, key_start: int, key: str) -> bool:
    """Tell a key that is the last word of a label whose word before it says no secret (``cache key``)."""
    before = _WORD_BEFORE.search(text, max(0, key_start - 22), key_start)
    return before is not None and classify_key(f"{before.group('word')}_{key}") is None


_K8S_SECRET = re.compile(r"(?m)^kind:[ \t]*Secret[ \t]*$")
_K8S_DATA = re.compile(r"(?m)^(?P<indent>[ \t]*)(?:data|stringData):[ \t]*\n")
_K8S_ITEM = re.compile(r"(?P<indent>[ \t]+)[\w.-]+:[ \t]*(?P<value>[^\s#]+)[ \t]*(?:\n|$)")


def find_kubernetes_secret_values(text: str) -> Iterator[Span]:
    """Yield every value under ``data:``/``stringData:`` of a manifest of ``kind: Secret``."""
    if not _K8S_SECRET.search(text):
        return
    for block in _K8S_DATA.finditer(text):
        pos = block.end()
        outer = len(block.group("indent"))
        while (item := _K8S_ITEM.match(text, pos)) is not None and len(item.group("indent")) > outer:
            if not is_placeholder(item.group("value")):
                yield item.start("value"), item.end("value"), "kubernetes-secret"
            pos = item.end()


def secret_under_key(key: str, value: str) -> str | None:
    """Return a kind when a JSON key names a secret and its whole string value passes the test."""
    key_class = classify_key(key)
    if key_class is None or "\n" in value or len(value) > _MAX_VALUE:
        return None
    strong = any(piece in key.lower() for piece in SECRET_PIECES)
    value = value.strip()
    if not _accept_value(key_class, value, "=", False, "", key, strong):
        return None
    return "key-value"
