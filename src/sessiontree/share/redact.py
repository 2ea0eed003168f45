"""Find secrets in session text and mask them in the copy that gets shared."""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MASK = "[REDACTED:{kind}]"

# A token must not sit inside a longer run of token characters: this keeps base64 image data,
# hashes and identifiers from yielding accidental matches.
_L = r"(?<![A-Za-z0-9_+/-])"
_R = r"(?![A-Za-z0-9_+/=-])"

# Values that people write in docs and examples instead of a real secret.
_PLACEHOLDER = re.compile(
    r"""^(?:
        \[REDACTED[^\]]*\] |                 # already masked
        <[^>]*> | \{\{.*\}\} | \$\{[^}]*\} | \$\(.*\) | \$[A-Za-z_][A-Za-z0-9_]* |
        [.*xX•…-]+ |                          # ***, xxxx, ..., ---
        (?:your|my|the|some|example|sample|dummy|fake|test)[-_a-z]* |
        changeme | placeholder | redacted | secret | password | passwd | pass | token | none | null |
        true | false | undefined | string | required | optional |
        .*(?:\.\.\.|…).*                          # sk-..., abc…
    )$""",
    re.IGNORECASE | re.VERBOSE,
)


def _has_digit_and_letter(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _random_run(min_len: int) -> Callable[[str], bool]:
    """Accept a value holding a run of letters and digits at least ``min_len`` long."""
    run = re.compile(rf"[A-Za-z0-9]{{{min_len},}}")

    def check(value: str) -> bool:
        return _has_digit_and_letter(value) and any(_has_digit_and_letter(m) for m in run.findall(value))

    return check


def _not_placeholder(value: str) -> bool:
    return bool(value) and not _PLACEHOLDER.match(value)


@dataclass(frozen=True)
class SecretPattern:
    """One kind of secret: a regex whose group ``secret`` is what gets masked."""

    kind: str
    regex: re.Pattern[str]
    accept: Callable[[str], bool]
    # Lowercase substrings one of which every match holds: a text without any is skipped,
    # which keeps the scan of a large session fast (most strings hold no candidate at all).
    hints: tuple[str, ...]
    needs: str = ""  # and a substring every match holds besides


def _p(
    kind: str,
    pattern: str,
    hints: tuple[str, ...],
    accept: Callable[[str], bool] = _not_placeholder,
    needs: str = "",
) -> SecretPattern:
    return SecretPattern(kind, re.compile(pattern), accept, hints, needs)


_ENV_HINTS = ("token", "secret", "password", "passwd", "apikey", "credential", "_key", "_pass", "_pwd")


_ENV_NAME = (
    r"(?<![A-Za-z0-9_])(?:[A-Z0-9]+_)*"
    r"(?:[A-Z0-9]*(?:TOKEN|SECRET|PASSWORD|PASSWD|APIKEY|CREDENTIALS?)"
    r"|(?:API|PRIVATE|ACCESS|AUTH|SECRET|SIGNING|ENCRYPTION|MASTER|ACCOUNT|SERVICE|LICENSE)_KEY"
    r"|[A-Z0-9]+_(?:PASS|PWD))"
)

# Order matters: specific token shapes first, then the generic assignment forms, so that
# ``OPENAI_API_KEY=sk-...`` is counted as an OpenAI key rather than an assignment.
PATTERNS: tuple[SecretPattern, ...] = (
    _p(
        "private-key",
        r"(?P<secret>-----BEGIN (?P<label>[A-Z0-9 ]*)PRIVATE KEY( BLOCK)?-----"
        r"[\s\S]*?-----END (?P=label)PRIVATE KEY( BLOCK)?-----)",
        ("private key",),
    ),
    # A key cut short (a truncated tool output): mask the header and the base64 body after it.
    _p(
        "private-key",
        r"(?P<secret>-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[A-Za-z0-9+/=\s\\:,-]*)",
        ("private key",),
    ),
    _p("anthropic-key", _L + r"(?P<secret>sk-ant-[A-Za-z0-9_-]{20,})" + _R, ("sk-ant-",), _random_run(8)),
    _p(
        "openai-key",
        _L + r"(?P<secret>sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,})" + _R,
        ("sk-",),
        _random_run(16),
    ),
    _p(
        "stripe-key",
        _L + r"(?P<secret>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})" + _R,
        ("k_live_", "k_test_"),
        _random_run(16),
    ),
    _p(
        "github-token",
        _L + r"(?P<secret>gh[pousr]_[A-Za-z0-9]{36,255})" + _R,
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        _random_run(20),
    ),
    _p(
        "github-token",
        _L + r"(?P<secret>github_pat_[A-Za-z0-9_]{50,255})" + _R,
        ("github_pat_",),
        _random_run(20),
    ),
    _p(
        "aws-access-key",
        _L + r"(?P<secret>(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})" + _R,
        ("akia", "asia", "abia", "acca"),
        _has_digit_and_letter,
    ),
    _p(
        "aws-secret-key",
        r"(?i:aws_?secret_?access_?key)[\"']?\s*[:=]\s*[\"']?(?P<secret>[A-Za-z0-9/+]{40})" + _R,
        ("secret",),
        _has_digit_and_letter,
    ),
    _p(
        "slack-token",
        _L + r"(?P<secret>xox[abposre]-[A-Za-z0-9-]{10,})" + _R,
        ("xox",),
        _has_digit_and_letter,
    ),
    _p(
        "slack-webhook",
        r"(?P<secret>https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{16,})",
        ("hooks.slack.com",),
    ),
    _p("gitlab-token", _L + r"(?P<secret>glpat-[A-Za-z0-9_-]{20,})" + _R, ("glpat-",), _random_run(8)),
    _p("npm-token", _L + r"(?P<secret>npm_[A-Za-z0-9]{36})" + _R, ("npm_",), _random_run(16)),
    _p("huggingface-token", _L + r"(?P<secret>hf_[A-Za-z0-9]{34,})" + _R, ("hf_",), _has_digit_and_letter),
    _p("google-api-key", _L + r"(?P<secret>AIza[A-Za-z0-9_-]{35})" + _R, ("aiza",), _has_digit_and_letter),
    _p(
        "jwt",
        _L + r"(?P<secret>eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})" + _R,
        ("eyj",),
    ),
    _p(
        "bearer-token",
        r"(?i:\bbearer)\s+(?P<secret>[A-Za-z0-9._~+/-]{20,}=*)" + _R,
        ("bearer",),
        _random_run(12),
    ),
    _p(
        "url-password",
        r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@\"'<>]+:(?P<secret>[^\s@/\"'<>]+)@[A-Za-z0-9\[]",
        ("://",),
    ),
    # ``.env`` / shell style: ``API_KEY=value`` (no spaces) or ``API_KEY = "value"`` (quoted).
    _p(
        "env-assignment",
        _ENV_NAME + r"=(?P<secret>[^\s\"'#;&|()\[\]{}<>,`]+)(?![^\s;&|#])",
        _ENV_HINTS,
        needs="=",
    ),
    _p(
        "env-assignment",
        _ENV_NAME + r"[ \t]*=[ \t]*(?P<q>[\"'])(?P<secret>[^\"'\n]+)(?P=q)",
        _ENV_HINTS,
        needs="=",
    ),
    _p(
        "url-token",
        r"[?&](?:access_token|api_key|apikey|token|client_secret|password)=(?P<secret>[^&\s\"'#<>]+)",
        ("token=", "key=", "secret=", "password="),
        _random_run(12),
    ),
    _p(
        "key-value",
        r"(?i)(?P<kq>[\"'])[A-Za-z0-9_-]*(?:api[_-]?key|secret|token|password|passwd|credentials?)(?P=kq)"
        r"\s*[:=]\s*(?P<q>[\"'])(?P<secret>[^\"'\s]{6,})(?P=q)",
        ("key", "secret", "token", "passw", "credential"),
    ),
)


@dataclass
class RedactionReport:
    """What was masked: secret kind -> count."""

    counts: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> int:
        """Return how many secrets were masked."""
        return sum(self.counts.values())

    def summary(self) -> str:
        """Return ``2 github-token, 1 jwt`` (kinds sorted by name)."""
        return ", ".join(f"{n} {kind}" for kind, n in sorted(self.counts.items()))


def redact_text(text: str, report: RedactionReport | None = None) -> str:
    """Return ``text`` with every secret masked; count what was masked into ``report``."""
    report = report if report is not None else RedactionReport()
    lowered = text.lower()
    for pattern in PATTERNS:
        if pattern.needs in text and any(hint in lowered for hint in pattern.hints):
            masked = _apply(pattern, text, report)
            if masked is not text:
                text, lowered = masked, masked.lower()
    return text


def _apply(pattern: SecretPattern, text: str, report: RedactionReport) -> str:
    def mask(match: re.Match[str]) -> str:
        secret = match.group("secret")
        if not pattern.accept(secret):
            return match.group(0)
        report.counts[pattern.kind] += 1
        start, end = match.span("secret")
        whole = match.group(0)
        base = match.start()
        return whole[: start - base] + MASK.format(kind=pattern.kind) + whole[end - base :]

    return pattern.regex.sub(mask, text)


# Keys whose values are structure (ids, links between entries) or binary payloads, never prose.
_SKIP_KEYS = frozenset({"id", "parentId", "type", "role", "timestamp", "toolCallId", "targetId", "fromId"})


def redact_value(value: Any, report: RedactionReport) -> Any:
    """Return a deep copy of a JSON value with every string redacted (image data left alone)."""
    if isinstance(value, str):
        return redact_text(value, report)
    if isinstance(value, list):
        return [redact_value(item, report) for item in value]
    if isinstance(value, dict):
        is_image = value.get("type") == "image"
        out: dict[str, Any] = {}
        for key, item in value.items():
            if (key in _SKIP_KEYS and isinstance(item, str)) or (is_image and key == "data"):
                out[key] = item
            else:
                out[key] = redact_value(item, report)
        return out
    return copy.deepcopy(value)


def redact_entries(
    header: dict[str, Any], entries: list[dict[str, Any]]
) -> tuple[dict[str, Any], list[dict[str, Any]], RedactionReport]:
    """Return redacted copies of a session's header and entries, and what was masked."""
    report = RedactionReport()
    new_header = redact_value(header, report)
    new_entries = [redact_value(entry, report) for entry in entries]
    return new_header, new_entries, report
