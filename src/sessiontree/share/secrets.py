"""The secret detectors: token shapes, private keys, passwords in URLs and commands, key/value forms.

Every regex here runs in time linear in its input: a repeated prefix only starts where a run of
its characters starts (a lookbehind forbids starting inside one), and nothing scans ahead for a
terminator it may never find (private keys are matched by the line scanner in ``pem.py``).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from sessiontree.share.pem import find_private_keys

Span = tuple[int, int, str]  # start, end, kind

# A token must not sit inside a longer run of token characters: this keeps base64 image data,
# hashes and identifiers from yielding accidental matches.
_L = r"(?<![A-Za-z0-9_+/.-])"
_R = r"(?![A-Za-z0-9_+/=-])"

# Values that people write in docs and examples instead of a real secret.
_PLACEHOLDER = re.compile(
    r"""^(?:
        \[REDACTED[^\]]*\] | \[[A-Za-z_ -]*\] |   # already masked, [MASK]
        <[^>]*> | \{\{.*\}\} | \$\{[^}]*\}? | \$\(.*\)? |
        (?-i:\$[A-Z_][A-Z0-9_]* | \$[a-z_][a-z0-9_]*) |   # shell variables: one case, not a random mix
        %[A-Za-z_]+% | \$\$ | \$ |
        [.*xX•…#?-]+ |                            # ***, xxxx, ..., ---
        (?:your|example|sample|dummy|fake|placeholder|insert|enter|replace|put|add)(?:[-_.][a-z0-9]+)* |
        [a-z]+[-_]here |
        changeme | change_me | redacted | secret | secrets | password | passwd | pass | token | none | null |
        nil | true | false | yes | no | on | off | undefined | string | str | int | bool | bytes | any |
        optional | required | value | default | empty | todo | tbd | hidden | masked | set |
        .*(?:\.\.\.|…).*                          # sk-..., abc…
    )$""",
    re.IGNORECASE | re.VERBOSE,
)
_PATH = re.compile(
    r"^(?:~|\.{1,2})?/[^\s]*$|^[A-Za-z]:\\|^file:|^[\w.-]+\.(?:json|pem|key|txt|ya?ml|env|p12|crt)$"
)
_RESOURCE = re.compile(r"^[a-z0-9][a-z0-9._-]*(?:/[a-z0-9._-]+){2,}$")
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)
_NUMBER = re.compile(r"^[+-]?[0-9][0-9_.,:]*[kKmMgG]?$")
_CAMEL_CASE = re.compile(r"[a-z]{0,12}(?:[A-Z][a-z]{2,})+")
_DOTTED_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$")


def _has_digit_and_letter(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _random_run(min_len: int) -> Callable[[str], bool]:
    """Accept a value holding a run of letters and digits at least ``min_len`` long."""
    run = re.compile(rf"[A-Za-z0-9]{{{min_len},}}")

    def check(value: str) -> bool:
        if "EXAMPLE" in value or re.search(r"(.)\1{7}", value):
            return False
        return any(_has_digit_and_letter(m) for m in run.findall(value))

    return check


def is_placeholder(value: str) -> bool:
    """Tell whether a value is an example, a variable, a type name or a mask rather than a secret."""
    return not value or bool(_PLACEHOLDER.match(value))


def _not_placeholder(value: str) -> bool:
    return not is_placeholder(value)


def _looks_random(value: str) -> bool:
    """Tell whether a value looks generated (a token) rather than a word, a name or a number."""
    if len(value) < 8 or is_placeholder(value) or _NUMBER.match(value):
        return False
    if _has_digit_and_letter(value):
        return True
    has_upper = any(c.isupper() for c in value)
    has_lower = any(c.islower() for c in value)
    return len(value) >= 16 and has_upper and has_lower and not _CAMEL_CASE.fullmatch(value)


def _basic_credentials(value: str) -> bool:
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    _, sep, password = decoded.partition(":")
    return bool(sep and password and decoded.isprintable() and not is_placeholder(password))


@dataclass(frozen=True)
class SecretPattern:
    """One kind of secret: a regex whose group ``secret`` is what gets masked."""

    kind: str
    regex: re.Pattern[str]
    accept: Callable[[str], bool]
    # Lowercase substrings one of which every match holds: a text without any is skipped,
    # which keeps the scan of a large session fast (most strings hold no candidate at all).
    hints: tuple[str, ...]


def _p(
    kind: str, pattern: str, hints: tuple[str, ...], accept: Callable[[str], bool] = _not_placeholder
) -> SecretPattern:
    return SecretPattern(kind, re.compile(pattern), accept, hints)


def _token(kind: str, prefix: str, body: str, hints: tuple[str, ...], min_run: int = 16) -> SecretPattern:
    return _p(kind, _L + rf"(?P<secret>{prefix}{body})" + _R, hints, _random_run(min_run))


# Order matters: specific token shapes first, then the generic forms, so that
# ``OPENAI_API_KEY=sk-...`` is counted as an OpenAI key rather than an assignment.
TOKEN_PATTERNS: tuple[SecretPattern, ...] = (
    _token("anthropic-key", "sk-ant-", r"[A-Za-z0-9_-]{20,}", ("sk-ant-",), 8),
    _token("openai-key", r"sk-(?:proj-|svcacct-|admin-|or-v1-)?", r"[A-Za-z0-9_-]{20,}", ("sk-",)),
    _token("stripe-key", r"(?:sk|rk)_(?:live|test)_", r"[A-Za-z0-9]{16,}", ("k_live_", "k_test_")),
    _token("stripe-key", "whsec_", r"[A-Za-z0-9]{24,}", ("whsec_",)),
    _token(
        "github-token", "gh[pousr]_", r"[A-Za-z0-9]{36,255}", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), 20
    ),
    _token("github-token", "github_pat_", r"[A-Za-z0-9_]{50,255}", ("github_pat_",), 20),
    _token("aws-access-key", "(?:AKIA|ASIA|ABIA|ACCA)", r"[A-Z0-9]{16}", ("akia", "asia", "abia", "acca"), 8),
    _token("slack-token", "xox[abposre]-", r"[A-Za-z0-9-]{10,}", ("xox",), 8),
    _token("slack-token", "xapp-", r"[0-9]-[A-Za-z0-9-]{20,}", ("xapp-",), 8),
    _p(
        "slack-webhook",
        r"(?P<secret>https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20,})",
        ("hooks.slack.com",),
    ),
    _p(
        "discord-webhook",
        r"(?P<secret>https://(?:canary\.|ptb\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]{20,})",
        ("/api/webhooks/",),
    ),
    _token("gitlab-token", "gl(?:pat|dt|ptt|rt|cbt|soat|ft|imt|agent)-", r"[A-Za-z0-9_-]{20,}", ("gl",), 8),
    _token("npm-token", "npm_", r"[A-Za-z0-9]{36}", ("npm_",)),
    _token("pypi-token", "pypi-AgE", r"[A-Za-z0-9_-]{50,}", ("pypi-",)),
    _token("huggingface-token", "hf_", r"[A-Za-z0-9]{34,}", ("hf_",)),
    _token("google-api-key", "AIza", r"[A-Za-z0-9_-]{35}", ("aiza",), 8),
    _token("google-oauth-secret", "GOCSPX-", r"[A-Za-z0-9_-]{28}", ("gocspx-",), 8),
    _token("digitalocean-token", "do[opr]_v1_", r"[a-f0-9]{64}", ("_v1_",)),
    _token("heroku-key", "HRKU-", r"[A-Za-z0-9_-]{30,}", ("hrku-",)),
    _token("fly-token", "fo1_", r"[A-Za-z0-9_-]{40,}", ("fo1_",)),
    _token("groq-key", "gsk_", r"[A-Za-z0-9]{48,}", ("gsk_",)),
    _token("replicate-token", "r8_", r"[A-Za-z0-9]{36,}", ("r8_",)),
    _token("xai-key", "xai-", r"[A-Za-z0-9]{60,}", ("xai-",)),
    _token("perplexity-key", "pplx-", r"[A-Za-z0-9]{40,}", ("pplx-",)),
    _token("sendgrid-key", r"SG\.", r"[A-Za-z0-9_-]{20,24}\.[A-Za-z0-9_-]{39,50}", ("sg.",), 8),
    _token("mailgun-key", "key-", r"[a-f0-9]{32}", ("key-",), 8),
    _token("twilio-key", "SK", r"[a-f0-9]{32}", ("sk",), 8),
    _token("shopify-token", "shp(?:at|ss|ca|pa)_", r"[a-fA-F0-9]{32}", ("shp",), 8),
    _token("square-token", "(?:EAAA|sq0atp-|sq0csp-)", r"[A-Za-z0-9_-]{22,}", ("eaaa", "sq0"), 8),
    _token("linear-key", "lin_(?:api|oauth)_", r"[A-Za-z0-9]{40}", ("lin_",)),
    _token("notion-token", "(?:ntn_|secret_)", r"[A-Za-z0-9]{43,46}", ("ntn_", "secret_")),
    _token("atlassian-token", "ATATT3", r"[A-Za-z0-9_=-]{60,}", ("atatt3",)),
    _token("sentry-token", "sntry[su]_", r"[A-Za-z0-9+/=_-]{40,}", ("sntr",)),
    _token("grafana-token", "gl(?:sa|c)_", r"[A-Za-z0-9_+/=-]{32,}", ("glsa_", "glc_")),
    _token("newrelic-key", "NR(?:AK|AA|II|JS)-", r"[A-Z0-9]{27}", ("nrak-", "nraa-", "nrii-", "nrjs-"), 8),
    _token("supabase-token", "sb(?:p|_secret)_", r"[A-Za-z0-9_]{32,}", ("sbp_", "sb_secret_")),
    _token("databricks-token", "dapi", r"[a-f0-9]{32}(?:-[0-9]+)?", ("dapi",), 8),
    _token("doppler-token", r"dp\.(?:st|ct|sa|scim|audit|pt)\.", r"[A-Za-z0-9._-]{40,}", ("dp.",)),
    _token("vault-token", r"hv[sbr]\.", r"[A-Za-z0-9_-]{24,}", ("hvs.", "hvb.", "hvr."), 12),
    _token("planetscale-token", "pscale_(?:tkn|pw|oauth)_", r"[A-Za-z0-9_.-]{32,}", ("pscale_",)),
    _token("age-key", "AGE-SECRET-KEY-1", r"[0-9A-Z]{58}", ("age-secret-key-",), 8),
    _p(
        "telegram-token",
        r"(?<![A-Za-z0-9_:-])(?P<secret>[0-9]{8,10}:AA[A-Za-z0-9_-]{33})" + _R,
        (":aa",),
        _random_run(8),
    ),
    _p(
        "discord-token",
        _L + r"(?P<secret>[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38})" + _R,
        (),  # no literal to look for: run on every text long enough (see find_secrets)
        _random_run(16),
    ),
    _p(
        "jwt",
        # No clean end required after the signature: glued text goes with it (masked, not shown).
        _L + r"(?P<secret>eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})",
        ("eyj",),
    ),
)

# Credentials by their place in a command, header or URL rather than by their shape.
PLACE_PATTERNS: tuple[SecretPattern, ...] = (
    _p(
        "aws-secret-key",
        r"(?i:(?<![A-Za-z0-9])(?:aws_?)?secret_?access_?key)[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        ("secret",),
        _has_digit_and_letter,
    ),
    _p(
        "bearer-token",
        # The whole run of token characters, "_" included (base64url), with no clean end
        # required: a token glued to the next word is masked with it, never cut short.
        r"(?i:(?<![A-Za-z0-9_])bearer)[ \t]+(?P<secret>[A-Za-z0-9._~+/=-]{20,})",
        ("bearer",),
        _random_run(12),
    ),
    _p(
        "basic-auth",
        r"(?i:(?<![A-Za-z0-9_])basic)[ \t]+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])",
        ("basic",),
        _basic_credentials,
    ),
    _p(
        "url-password",
        # The password runs to the last "@" before the host, so "u:HEAD@TAIL@host" masks HEAD@TAIL.
        r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,30}://[^\s:/@\"'<>]{0,200}:"
        r"(?P<secret>[^\s/\"'<>]{1,300})@(?=[A-Za-z0-9\[])",
        ("://",),
    ),
    _p(
        "curl-user",
        r"(?<![\w-])(?:-u|--user)(?:[ \t]+|=)[\"']?[^\s:\"']{1,200}:(?P<secret>[^\s\"']{1,300})",
        ("-u", "--user"),
    ),
    _p(
        "cli-password",
        r"(?<![\w-])--?(?:[a-z]+-)*(?:password|passwd|pass|token|secret|api-key|apikey|access-token|auth-token|pw)"
        r"(?:=|[ \t]+)[\"']?(?P<secret>[^\s\"'-][^\s\"']{2,})",
        ("pass", "token", "secret", "key", "-pw"),
        lambda v: _not_placeholder(v) and not (v.isalpha() and v.islower()) and not _PATH.match(v),
    ),
    _p(
        "key-value",
        r"(?i)(?<![\w])define\(\s*[\"'][A-Z0-9_]*(?:KEY|SALT|SECRET|PASSWORD|TOKEN)[\"']\s*,\s*"
        r"[\"'](?P<secret>[^\"'\n]{6,300})[\"']",
        ("define(",),
    ),
)


# A key is found from its keyword outwards (a regex that tried every word start for a keyword
# somewhere inside it was the slowest step of a share); then the separator and the value.
_KEYWORD = re.compile(r"pass|pwd|secret|token|key|cred|auth|sig|salt|cookie|session|dsn")
_KEY_HEAD = re.compile(r"(?<![\w.-])[\w.-]{0,60}\Z", re.ASCII)
_KEY_TAIL = re.compile(r"[\w.-]*", re.ASCII)
_MAX_KEY = 120
_AFTER_KEY = re.compile(
    r"(?P<kq>[\"']?)\]?[ \t]*(?P<sep>:=|=>|=|:)[ \t]*"
    # The value is looked at, not consumed: a value may hold the next key ("a=b&API_KEY=...").
    r"(?=(?P<q>[\"'`])(?P<qv>[^\"'`\n]{1,500})(?P=q)|(?P<bv>[^\s\"'`,;<>(){}\[\]]{1,500}))",
)
_MAX_VALUE = 500
_BARE_REST = re.compile(r"[^\s\"'`,;<>(){}\[\]]*")
_QUOTED_REST = re.compile(r"[^\"'`\n]*")
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")

_PASSWORD_WORDS = frozenset(
    {
        "password",
        "passwd",
        "passphrase",
        "pass",
        "pwd",
        "pw",
        "secret",
        "secrets",
        "credential",
        "credentials",
    }
    | {"creds", "salt", "dsn", "apisecret", "clientsecret"}
)
_TOKEN_WORDS = frozenset(
    {"token", "apikey", "auth", "authorization", "signature", "sig", "cookie", "privatekey", "accesskey"}
    | {"secretkey", "authtoken", "accesstoken", "sessionid", "sessiontoken", "xsrf", "csrf"}
)
# "key" is a secret only after one of these words (api key, access key), not in sort or cache key.
_KEY_OWNERS = frozenset(
    {"api", "access", "secret", "private", "account", "signing", "encryption", "master", "service"}
    | {"license", "client", "app", "application", "auth", "subscription", "shared", "storage", "admin"}
    | {"webhook", "encrypt", "hmac", "jwt", "consumer", "deploy", "root", "primary", "secondary", "sas"}
    | {"sign", "crypto", "cipher", "aes", "x", "developer", "dev", "prod", "live", "key"}
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
    | {"location", "manager", "backend", "scope", "scopes", "filename", "set", "list", "id", "tokens"}
    | {"reset", "hash", "hashed", "policy", "rules", "ok", "valid", "error", "errors", "prompt"}
)
_PUBLIC_WORDS = frozenset(
    {"public", "publishable", "pub", "sort", "cache", "primary", "foreign", "idempotency"}
)


def classify_key(key: str) -> str | None:
    """Return ``"password"`` or ``"token"`` when a key names a secret, else None."""
    words = [w.lower() for w in _WORDS.findall(key)]
    if not words or words[-1] in _ABOUT_WORDS or key.upper() in ("PWD", "OLDPWD"):
        return None
    if any(w in _PUBLIC_WORDS for w in words) and "secret" not in words and "password" not in words:
        return None
    if any(w in _PASSWORD_WORDS for w in words):
        return "password"
    for i, word in enumerate(words):
        before = words[i - 1] if i else ""
        if word in _TOKEN_WORDS and not (word == "token" and before in _NOT_CREDENTIAL_TOKEN):
            return "token"
        if word == "key" and before in _KEY_OWNERS:
            return "token"
    return None


def _accept_value(key_class: str, value: str, sep: str, bare: bool, after: str, key: str) -> bool:
    if is_placeholder(value) or _PATH.match(value) or _URL.match(value) or _RESOURCE.match(value):
        return False
    if bare and (after[:1] in ("(", "[", ".") or _DOTTED_NAME.match(value)):
        return False  # code: os.environ["X"], getpass.getpass()
    if value.lower() in (key.lower(), key.lower().replace("_", "")) or value.startswith("!"):
        return False
    if key_class == "token":
        return _looks_random(value)
    if _NUMBER.match(value):
        return len(value) >= 6
    if len(value) < 3:
        return False
    # "the password: must be long" is prose; "password: hunter2" is not.
    return not (bare and sep == ":" and value.isalpha() and value.islower() and len(value) < 12)


def _assignments(text: str, lowered: str) -> Iterator[tuple[int, int, re.Match[str]]]:
    """Yield (key start, key end, separator-and-value match) for word runs holding a keyword."""
    done = 0
    # Keywords are looked for in the lowercased text (a case-blind regex scans several times
    # slower); a text whose lowercase form has another length is lowercased letter by letter.
    if len(lowered) != len(text):
        lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    for hit in _KEYWORD.finditer(lowered):
        if hit.start() < done:
            continue
        tail = _KEY_TAIL.match(text, hit.end())
        end = done = tail.end() if tail is not None else hit.end()
        after = _AFTER_KEY.match(text, end)
        if after is None:
            continue
        head = _KEY_HEAD.search(text, max(0, hit.start() - 60), hit.start())
        if head is not None and end - head.start() <= _MAX_KEY:  # None: inside a long run
            yield head.start(), end, after


def find_key_values(text: str, lowered: str | None = None) -> Iterator[Span]:
    """Yield the values of assignments whose key names a secret (``.env``, YAML, JSON, code, INI)."""
    rest_end = -1  # where the last value longer than the lookahead ended (one scan per run)
    for key_start, key_end, match in _assignments(text, text.lower() if lowered is None else lowered):
        key = text[key_start:key_end].strip(".-")
        key_class = classify_key(key)
        if key_class is None or text.endswith("[REDACTED:", 0, key_start):
            continue  # not a secret's key, or the kind inside a mask: "[REDACTED:slack-token]:..."
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
        if not _accept_value(key_class, value, match.group("sep"), bare, after, key):
            continue
        env = match.group("sep") == "=" and re.fullmatch(r"[A-Z0-9_]+", key)
        yield start, end, "env-assignment" if env else "key-value"


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


def find_pattern(pattern: SecretPattern, text: str) -> Iterator[Span]:
    """Yield the accepted matches of one pattern."""
    for match in pattern.regex.finditer(text):
        if pattern.accept(match.group("secret")):
            start, end = match.span("secret")
            yield start, end, pattern.kind


_ORDERED = (*TOKEN_PATTERNS, *PLACE_PATTERNS)
# Each hint once, with the patterns it lets run: one substring test per hint, not per pattern.
_BY_HINT: dict[str, list[int]] = {}
for _index, _pattern in enumerate(_ORDERED):
    for _hint in _pattern.hints:
        _BY_HINT.setdefault(_hint, []).append(_index)
_ALWAYS = next(i for i, p in enumerate(_ORDERED) if not p.hints)
_ANY_HINT = re.compile("|".join(re.escape(h) for h in sorted(_BY_HINT, key=len, reverse=True)))


def find_secrets(text: str) -> Iterator[Span]:
    """Yield the spans of every secret in ``text``, the most specific detectors first."""
    lowered = text.lower()
    if "-----" in text or "\n" in text:
        yield from find_private_keys(text)
    chosen: list[int] = []
    if _ANY_HINT.search(lowered):
        chosen = sorted({i for hint, indexes in _BY_HINT.items() if hint in lowered for i in indexes})
    if len(text) >= 59 and "." in text:
        chosen = sorted({*chosen, _ALWAYS})
    for index in chosen:
        yield from find_pattern(_ORDERED[index], text)
    if "secret" in lowered and "kind:" in lowered:
        yield from find_kubernetes_secret_values(text)
    yield from find_key_values(text, lowered)
