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

from sessiontree.share.blocks import (
    COLUMN_HINTS,
    PRINTS_SECRET_HINTS,
    find_column_secrets,
    find_context_secrets,
    find_folded_secrets,
    find_printed_secrets,
    find_table_secrets,
)
from sessiontree.share.contexts import find_credential_contexts
from sessiontree.share.cookies import COOKIE_HINTS, find_cookie_secrets
from sessiontree.share.entropy import looks_random_value
from sessiontree.share.keyvalue import find_key_values, find_kubernetes_secret_values
from sessiontree.share.pem import find_private_keys
from sessiontree.share.placeholders import DOCUMENTED_JWT_PAYLOAD, PATH, is_placeholder, not_placeholder
from sessiontree.share.prefixed import (
    find_bare_tokens,
    find_dotted_tokens,
    find_prefixed_tokens,
)
from sessiontree.share.roles import find_role_secrets
from sessiontree.share.scan import Hits, register
from sessiontree.share.slots import find_slot_secrets

Span = tuple[int, int, str]  # start, end, kind

# A token must not sit inside a longer run of token characters: this keeps base64 image data,
# hashes and identifiers from yielding accidental matches.
# Any other character may border a token: "/", "-", ".", "_" and "+" included (URL paths, file
# names, ``https://<token>@host``); base64 data is told apart by ``encoded.py`` instead.
_L = r"(?<![A-Za-z0-9])"
_R = r"(?![A-Za-z0-9])"


def _has_digit_and_letter(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _random_run(min_len: int) -> Callable[[str], bool]:
    """Accept a value holding a run of letters and digits at least ``min_len`` long."""
    run = re.compile(rf"[A-Za-z0-9]{{{min_len},}}")

    def check(value: str) -> bool:
        if "EXAMPLE" in value or re.search(r"(.)\1{7}", value) or DOCUMENTED_JWT_PAYLOAD in value:
            return False
        return any(_has_digit_and_letter(m) for m in run.findall(value))

    return check


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
    # No letter or digit may come right before the match. Checked here, not by a lookbehind at
    # the start of the regex, which would keep the regex engine from jumping to its prefix.
    bounded: bool = False


def _p(
    kind: str, pattern: str, hints: tuple[str, ...], accept: Callable[[str], bool] = not_placeholder
) -> SecretPattern:
    return SecretPattern(kind, re.compile(pattern), accept, hints)


def _token(kind: str, prefix: str, body: str, hints: tuple[str, ...], min_run: int = 16) -> SecretPattern:
    regex = re.compile(rf"(?P<secret>{prefix}{body})" + _R)
    return SecretPattern(kind, regex, _random_run(min_run), hints, bounded=True)


# Order matters: specific token shapes first, then the generic forms, so that
# ``OPENAI_API_KEY=sk-...`` is counted as an OpenAI key rather than an assignment.
TOKEN_PATTERNS: tuple[SecretPattern, ...] = (
    _token("anthropic-key", "sk-ant-", r"[A-Za-z0-9_-]{20,}", ("sk-ant-",), 8),
    _token("openai-key", r"sk-(?:proj-|svcacct-|admin-|or-v1-)?", r"[A-Za-z0-9_-]{20,}", ("sk-",)),
    _token("stripe-key", r"(?:sk|rk)_(?:live|test)_", r"[A-Za-z0-9]{16,}", ("k_live_", "k_test_")),
    _token("stripe-key", "whsec_", r"[A-Za-z0-9]{24,}", ("whsec_",)),
    _token("github-token", "gh[pousr]_", r"[A-Za-z0-9]{36,255}", ("gh",), 20),
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
    _token("newrelic-key", "NR(?:AK|AA|II|JS)-", r"[A-Z0-9]{27}", ("nr",), 8),
    _token("supabase-token", "sb(?:p|_secret)_", r"[A-Za-z0-9_]{32,}", ("sbp_", "sb_secret_")),
    _token("databricks-token", "dapi", r"[a-f0-9]{32}(?:-[0-9]+)?", ("dapi",), 8),
    _token("doppler-token", r"dp\.(?:st|ct|sa|scim|audit|pt)\.", r"[A-Za-z0-9._-]{40,}", ("dp.",)),
    _token("vault-token", r"hv[sbr]\.", r"[A-Za-z0-9_-]{24,}", ("hv",), 12),
    _token("planetscale-token", "pscale_(?:tkn|pw|oauth)_", r"[A-Za-z0-9_.-]{32,}", ("pscale_",)),
    _token("age-key", "AGE-SECRET-KEY-1", r"[0-9A-Z]{58}", ("age-secret-key-",), 8),
    _p(
        "telegram-token",
        r"(?<![0-9])(?P<secret>[0-9]{8,10}:AA[A-Za-z0-9_-]{33})(?![A-Za-z0-9_-])",
        (":aa",),
        _random_run(8),
    ),
    _p(
        "discord-token",
        r"(?P<secret>[MNO](?<![A-Za-z0-9][MNO])[A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38})"
        + _R,
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
        lambda v: _has_digit_and_letter(v) and not_placeholder(v),
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
        # From its literal "://" (what comes before it is no part of the password).
        r"://[^\s:/@\"'<>]{0,200}:"
        r"(?P<secret>[^\s/\"'<>]{1,300})@(?=[A-Za-z0-9\[])",
        ("://",),
    ),
    _p(
        "url-password",
        # A generated password with "/" in it (base64): not a port and a path ("host:8080/x@y").
        r"://[^\s:/@\"'<>]{1,200}:(?P<secret>[^\s/\"'<>@]{1,300}/[^\s\"'<>@]{1,300})@(?=[A-Za-z0-9\[])",
        ("://",),
        lambda v: not v.split("/", 1)[0].isdigit() and looks_random_value(v.replace("/", ""), 16),
    ),
    _p(
        "curl-user",
        r"(?<![\w-])(?:-u|--user)(?:[ \t]+|=)[\"']?[^\s:\"']{1,200}:(?P<secret>[^\s\"']{1,300})",
        ("-u", "--user"),
    ),
    _p(
        "cli-password",
        # Starts with its literal "-" (a leading lookbehind makes the regex try every position).
        r"-(?<![\w-]-)-?(?:[a-z]+-)*(?:password|passwd|pass|token|secret|api-key|apikey|access-token|auth-token|pw)"
        r"(?:=|[ \t]+)[\"']?(?P<secret>[^\s\"'`<-][^\s\"'`]{2,})",
        ("pass", "token", "secret", "key", "-pw"),
        lambda v: not_placeholder(v) and not (v.isalpha() and v.islower()) and not PATH.match(v),
    ),
    _p(
        "key-value",
        r"(?i)(?<![\w])define\(\s*[\"'][A-Z0-9_]*(?:KEY|SALT|SECRET|PASSWORD|TOKEN)[\"']\s*,\s*"
        r"[\"'](?P<secret>[^\"'\n]{6,300})[\"']",
        ("define(",),
    ),
)


def find_pattern(pattern: SecretPattern, text: str) -> Iterator[Span]:
    """Yield the accepted matches of one pattern."""
    for match in pattern.regex.finditer(text):
        if pattern.bounded and match.start() and text[match.start() - 1].isalnum():
            continue
        if pattern.accept(match.group("secret")):
            start, end = match.span("secret")
            yield start, end, pattern.kind


_ORDERED = (*TOKEN_PATTERNS, *PLACE_PATTERNS)
# Each hint once, with the patterns it lets run: one substring test per hint, not per pattern.
_BY_HINT: dict[str, list[int]] = {}
for _index, _pattern in enumerate(_ORDERED):
    for _hint in _pattern.hints:
        _BY_HINT.setdefault(_hint, []).append(_index)
# A hint that holds a shorter one is implied by it: test the shorter one only ("sk" for "sk-ant-").
for _hint in sorted(_BY_HINT, key=len, reverse=True):
    _inner = next((h for h in _BY_HINT if h != _hint and h in _hint), None)
    if _inner is not None:
        _BY_HINT[_inner] = sorted({*_BY_HINT[_inner], *_BY_HINT.pop(_hint)})
register(*_BY_HINT, *PRINTS_SECRET_HINTS, "private key", "static key")
_ALWAYS = next(i for i, p in enumerate(_ORDERED) if not p.hints)
# The one detector without a hint looks for its middle first: ".<6 characters>.<27 or more>".
_DISCORD_MIDDLE = re.compile(r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}")


def find_secrets(text: str, hits: Hits | None = None) -> Iterator[Span]:
    """Yield the spans of every secret in ``text``, the most specific detectors first.

    ``hits`` is the text's one scan (made here when not given).
    """
    hits = hits or Hits(text)
    lowered = hits.lowered
    # Each test of a long text is a scan of it: what the one scan knew already is asked first.
    lines = "\n" in text
    if ("private key" in hits or "static key" in hits or hits.longest >= 64) and (lines or "-----" in text):
        yield from find_private_keys(text)
    chosen = {i for hint in hits.found() for i in _BY_HINT.get(hint, ())}
    if hits.longest >= 59 and any(_DISCORD_MIDDLE.search(text, s, e) for s, e in hits.runs_of(59)):
        chosen.add(_ALWAYS)
    for index in sorted(chosen):
        yield from find_pattern(_ORDERED[index], text)
    yield from find_credential_contexts(text, hits)
    yield from find_slot_secrets(text, hits)
    yield from find_role_secrets(text, hits)
    yield from find_context_secrets(text, hits)
    if hits.any(COOKIE_HINTS):
        yield from find_cookie_secrets(text, hits)
    if lines:
        if hits.any(COLUMN_HINTS) and ("," in text or "\t" in text or ";" in text):
            yield from find_column_secrets(text, hits)
        if "---" in text and ("|" in text or "\u2502" in text):
            yield from find_table_secrets(text)
        if ":" in text and (": >" in text or ": |" in text or ":>" in text or ":|" in text):
            yield from find_folded_secrets(text)
        if hits.any(PRINTS_SECRET_HINTS) and ("$ " in text or "# " in text or "> " in text or "% " in text):
            yield from find_printed_secrets(text, hits)
    if "secret" in lowered and "kind:" in lowered:
        yield from find_kubernetes_secret_values(text)
    yield from find_key_values(text, hits)
    # Last: a known kind or a named context says more about the same value.
    if hits.longest >= 22:
        yield from find_prefixed_tokens(text, hits.runs_of(22))
    if hits.longest >= 32:
        yield from find_bare_tokens(text, hits.runs_of(32))
    if hits.longest >= 18:
        yield from find_dotted_tokens(text, hits.runs_of(18))
