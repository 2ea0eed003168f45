"""Find secrets in session text and mask them in the copy that gets shared.

Two passes over a session: the first finds secrets in every string (the texts as the page shows
them, wrapped table cells joined, base64 decoded); the second masks them and every other copy
of a value found anywhere (a password seen once in a ``.env`` is masked in a later command, the
title, the working directory and a file name too).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sessiontree.share.blocks import extend_span, printed_secret, prints_secret
from sessiontree.share.encoded import find_encoded_secrets
from sessiontree.share.keyvalue import secret_under_key
from sessiontree.share.random_default import KEPT, find_random_tokens
from sessiontree.share.random_default import MIN_LENGTH as MIN_RANDOM
from sessiontree.share.scan import Hits
from sessiontree.share.secrets import find_secrets
from sessiontree.share.shown import View, shown_views

MASK = "[REDACTED:{kind}]"
USER_MASK = "masked-by-you"  # the kind of a value given to ``share --mask``
_MASKED = re.compile(r"\[REDACTED:[a-z0-9-]*\](?:#[0-9]+)?")
# A value this short is masked where it was found, not looked for everywhere else.
MIN_PROPAGATED = 6
# Shorter texts hold no secret of their own (the shortest, "pw=abc1234", is 10 characters).
MIN_TEXT = 8

# The entry's (and header's) own structural fields: ids that link entries, never prose.
# Only at the top of an entry: deeper down an "id" or "type" is session data like any other.
_ENTRY_KEYS = frozenset({"id", "parentId", "type", "timestamp", "targetId", "fromId", "firstKeptEntryId"})
_HEADER_KEYS = frozenset({"type", "id", "version", "timestamp"})
_NO_KEYS: frozenset[str] = frozenset()
# Opaque provider data the page never shows (thinking signatures, encrypted reasoning): dropped
# from the shared copy (its value emptied), never scanned, never listed in the review.
HIDDEN_FIELDS = frozenset(
    {"thinkingSignature", "thoughtSignature", "thought_signature", "textSignature"}
    | {"encrypted_content", "encryptedContent"}
)
_HIDDEN_BY_TYPE = {"thinking": "signature", "redactedThinking": "data", "redacted_thinking": "data"}

Span = tuple[int, int, str]
# A short text holds a secret only with a keyword, a command that takes a password, a URL, a
# key's dashes, a run of 16 token characters, or the colons of a .pgpass line.
_SHORT = 32
_MAY_HOLD_SECRET = re.compile(
    r"pass|pwd|secret|token|key|auth|cred|sig|salt|cookie|session|dsn|bearer|basic|jwt|pat|pw|otp"
    r"|hmac|sas|psk|mysql|mariadb|login|redis|://|@|-----|[A-Za-z0-9_+/=.~-]{16}|\s-[a-z]|%|identified"
    # What the page hides or decodes (escape codes, invisible characters, escapes, entities)
    # may split a token into short runs.
    r"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u200b-\u200f\u2060-\u2064\ufeff\\&]"
)


@dataclass(frozen=True)
class Finding:
    """One masked value: its kind, first characters, length and where it was (entry, field)."""

    kind: str
    preview: str
    length: int
    entry: str
    field: str


@dataclass(frozen=True)
class Kept:
    """A random-looking value kept: the look-alike rule's reason, its first and last characters."""

    reason: str
    first: str
    last: str
    length: int


@dataclass
class RedactionReport:
    """What was masked: secret kind -> count, and each value found; the random-looking values kept."""

    counts: Counter[str] = field(default_factory=Counter)
    findings: list[Finding] = field(default_factory=list)
    kept: list[Kept] = field(default_factory=list)

    @property
    def total(self) -> int:
        """Return how many secrets were masked."""
        return sum(self.counts.values())

    def summary(self) -> str:
        """Return ``2 github-token, 1 jwt`` (kinds sorted by name)."""
        return ", ".join(f"{n} {kind}" for kind, n in sorted(self.counts.items()))


def _merge(found: Iterable[tuple[int, int, int, str]]) -> list[Span]:
    merged: list[list[Any]] = []
    for start, end, rank, kind in sorted(found):
        if merged and start < merged[-1][1]:
            last = merged[-1]
            last[1] = max(last[1], end)
            if rank < last[2]:
                last[2], last[3] = rank, kind
        else:
            merged.append([start, end, rank, kind])
    return [(start, end, kind) for start, end, _, kind in merged]


def find_secret_spans(text: str, kept: list[Span] | None = None) -> list[Span]:
    """Return the merged source spans of every secret, found in each shown form of the text.

    ``kept`` gets the random-looking values a look-alike rule kept (kind ``kept:<reason>``).
    """
    if len(text) < _SHORT and text.count(":") < 4 and not _MAY_HOLD_SECRET.search(text.lower()):
        return []
    found: list[tuple[int, int, int, str]] = []  # start, end, rank (most specific first), kind
    masks = [m.span() for m in _MASKED.finditer(text)] if "[REDACTED:" in text else []
    hits = Hits(text)  # the one scan of the text as it is
    for view in shown_views(text):
        identity = view.text is text
        for rank, (start, end, kind) in enumerate(_find_in_view(view, hits if identity else None)):
            if end <= start:
                continue
            pieces = [(start, end)] if identity else view.source_spans(start, end)
            for piece_start, piece_end in pieces:
                if masks and _starts_in_mask(piece_start, masks):
                    continue  # a value that is already a mask: redacting twice changes nothing
                found.append((piece_start, piece_end, rank, kind))
    if hits.longest >= 40:
        for start, end, kind in find_encoded_secrets(text, find_secrets):
            if not (masks and _starts_in_mask(start, masks)):
                found.append((start, end, 1000, kind))
    grown = ((*extend_span(text, start, end), rank, kind) for start, end, rank, kind in found)
    if masks:  # a secret glued to a mask ends where the mask begins: the mask stays as it was
        grown = ((start, _end_before_mask(start, end, masks), rank, kind) for start, end, rank, kind in grown)
    merged = _merge(grown)
    if hits.longest >= MIN_RANDOM:
        return _with_random_tokens(text, hits, merged, kept)
    return merged


def _with_random_tokens(text: str, hits: Hits, merged: list[Span], kept: list[Span] | None) -> list[Span]:
    """Return ``merged`` and the random-looking values nothing else masked (the default).

    The default judges the runs of token characters outside what is masked already, as a second
    redaction of the masked text would see them; what a look-alike rule keeps goes in ``kept``.
    """
    free: list[tuple[int, int]] = []
    i = 0  # both are in order: one walk over the masked spans for all the runs
    for lo, hi in hits.runs_of(MIN_RANDOM):
        while i < len(merged) and merged[i][1] <= lo:
            i += 1
        j = i
        while j < len(merged) and merged[j][0] < hi:
            if merged[j][0] - lo >= MIN_RANDOM:
                free.append((lo, merged[j][0]))
            lo = max(lo, merged[j][1])
            j += 1
        if hi - lo >= MIN_RANDOM:
            free.append((lo, hi))
    found = list(find_random_tokens(text, free))
    if kept is not None:
        kept += [(s, e, kind.removeprefix(KEPT)) for s, e, kind in found if kind.startswith(KEPT)]
    masked = [(s, e, 2000, kind) for s, e, kind in found if not kind.startswith(KEPT)]
    return _merge([*((s, e, 0, k) for s, e, k in merged), *masked]) if masked else merged


# A secret a view shows that the text does not lies across an edit (a removed escape code, a
# decoded entity, a joined line): only the text this close to an edit is scanned again.
_AROUND_EDIT = 700


def _find_in_view(view: View, hits: Hits | None) -> Iterable[Span]:
    """Yield the secrets of a view: all of the text (``hits`` its scan), or what lies around its edits."""
    if hits is not None:
        yield from find_secrets(view.text, hits)
        return
    windows: list[list[int]] = []
    for v_start, v_len, _, _ in view._edits:
        lo, hi = max(0, v_start - _AROUND_EDIT), v_start + v_len + _AROUND_EDIT
        if windows and lo <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], hi)
        else:
            windows.append([lo, hi])
    if sum(hi - lo for lo, hi in windows) >= 0.7 * len(view.text):
        yield from find_secrets(view.text)
        return
    for lo, hi in windows:
        for start, end, kind in find_secrets(view.text[lo:hi]):
            yield start + lo, end + lo, kind


def _starts_in_mask(start: int, masks: list[tuple[int, int]]) -> bool:
    i = bisect_right(masks, (start, 2**62)) - 1
    return i >= 0 and masks[i][0] <= start < masks[i][1]


def _end_before_mask(start: int, end: int, masks: list[tuple[int, int]]) -> int:
    i = bisect_right(masks, (start, 2**62))
    return min(end, masks[i][0]) if i < len(masks) else end


class Redactor:
    """Masks secrets across many strings: finds them first, then masks every copy of each value."""

    def __init__(self, masks: Iterable[str] = ()) -> None:
        """``masks`` are values to mask wherever they are, whatever they look like (``--mask``)."""
        self._spans: dict[str, list[Span]] = {}
        self._values: dict[str, str] = dict.fromkeys((m for m in masks if m), USER_MASK)  # value -> kind
        self._copies: re.Pattern[str] | None = None
        self._kept: dict[str, str] = {}  # random-looking value kept -> the look-alike rule's reason

    def learn(self, text: str, key: str | None = None) -> None:
        """Find the secrets of ``text`` (pass one) and remember their values.

        ``key`` is the JSON key the text is the value of: under ``"password"`` or ``"apiKey"``
        the whole text is the secret when it passes that key's test.
        """
        if key is not None and len(text) >= MIN_PROPAGATED and text not in self._values:
            kind = secret_under_key(key, text)
            if kind is not None:
                self._values[text] = kind
                self._copies = None
        if len(text) < MIN_TEXT or text in self._spans:
            return
        kept: list[Span] = []
        spans = find_secret_spans(text, kept)
        self._spans[text] = spans
        for start, end, reason in kept:
            self._kept.setdefault(text[start:end], reason)
        for start, end, kind in spans:
            if end - start >= MIN_PROPAGATED:
                self._values.setdefault(text[start:end], kind)
        self._copies = None

    def kept(self) -> list[Kept]:
        """Return the random-looking values kept by a look-alike rule and masked nowhere, and why."""
        copies = self._copy_pattern()
        return [
            Kept(reason, value[:4], value[-4:], len(value))
            for value, reason in self._kept.items()
            if value not in self._values and (copies is None or copies.search(value) is None)
        ]

    def holds_secret(self, text: str) -> bool:
        """Tell whether ``text`` (learnt) holds a secret of its own."""
        return bool(self._spans.get(text))

    def holds_copy(self, texts: list[str]) -> bool:
        """Tell whether a value learnt anywhere may be in one of ``texts``."""
        copies = self._copy_pattern()
        return copies is not None and copies.search("\x00".join(texts)) is not None

    def remember(self, value: str, kind: str) -> None:
        """Mask every copy of ``value`` (found by its context elsewhere: a command's output)."""
        if len(value) >= MIN_PROPAGATED and value not in self._values:
            self._values[value] = kind
            self._copies = None

    def spans(self, text: str) -> list[Span]:
        """Return where ``text`` is masked: its own secrets and copies of any value learnt."""
        if len(text) < MIN_PROPAGATED:
            return []
        own = self._spans.get(text)
        if own is None:
            self.learn(text)
            own = self._spans.get(text, [])
        copies = self._copy_pattern()
        if copies is None or not copies.search(text):
            return own
        found = [(s, e, 0, k) for s, e, k in own]
        masks = [m.span() for m in _MASKED.finditer(text)] if "[REDACTED:" in text else []
        for match in copies.finditer(text):
            if not (masks and _starts_in_mask(match.start(), masks)):
                found.append((match.start(), match.end(), 1, self._values[match.group()]))
        return _merge(found)

    def _copy_pattern(self) -> re.Pattern[str] | None:
        if self._copies is None and self._values:
            ordered = sorted(self._values, key=len, reverse=True)
            self._copies = re.compile("|".join(map(re.escape, ordered)))
        return self._copies

    def redact(self, text: str, report: RedactionReport, entry: str = "", where: Any = None) -> str:
        """Return ``text`` with its secrets and every learnt value masked; note each in ``report``.

        ``where`` is the field: a string, or the walk's linked path (made a string only when needed).
        """
        spans = self.spans(text)
        if not spans:
            return text
        field_name = where if isinstance(where, str) else _path_text(where)
        pieces: list[str] = []
        pos = 0
        for start, end, kind in spans:
            pieces.append(text[pos:start])
            pieces.append(MASK.format(kind=kind))
            report.counts[kind] += 1
            report.findings.append(Finding(kind, text[start : start + 4], end - start, entry, field_name))
            pos = end
        pieces.append(text[pos:])
        return "".join(pieces)


def redact_text(text: str, report: RedactionReport | None = None) -> str:
    """Return ``text`` with every secret masked (and every other copy of one in it)."""
    return Redactor().redact(text, report if report is not None else RedactionReport())


def _hidden_key(item: dict[Any, Any]) -> str | None:
    """Return the key of a block's own hidden field (``signature`` of a thinking block), if any."""
    kind = item.get("type")
    return _HIDDEN_BY_TYPE.get(kind) if isinstance(kind, str) else None


# The key ``_strings`` gives the value of a hidden field under (its text is never scanned).
_HIDDEN = "\x00hidden"


def _strings(value: Any, keep: frozenset[str] = _NO_KEYS) -> Iterable[tuple[str, str | None]]:
    """Yield every string of a JSON value with the key it is under (keys too, with None), but
    those shorter than ``MIN_PROPAGATED``: too short to be a secret or to hold a copy of one.

    Image data and the top-level ``keep`` fields are left out, a hidden field's value is given
    under ``_HIDDEN``; no recursion.
    """
    stack: list[tuple[Any, str | None]] = [(value, None)]
    top = True
    while stack:
        item, under = stack.pop()
        if isinstance(item, str):
            yield item, under
        elif isinstance(item, list):
            stack.extend(
                (child, under) for child in item if not isinstance(child, str) or len(child) >= MIN_PROPAGATED
            )
        elif isinstance(item, dict):
            is_image = item.get("type") == "image"
            hidden = _hidden_key(item)
            for key, child in item.items():
                if isinstance(key, str) and len(key) >= MIN_PROPAGATED:
                    yield key, None
                if isinstance(child, str):
                    if key in HIDDEN_FIELDS or key == hidden:
                        yield child, _HIDDEN
                        continue
                    if len(child) < MIN_PROPAGATED or (is_image and key == "data") or (top and key in keep):
                        continue
                stack.append((child, key if isinstance(key, str) else None))
        top = False


def redact_value(
    value: Any,
    report: RedactionReport,
    *,
    keep: frozenset[str] = _NO_KEYS,
    redactor: Redactor | None = None,
    entry: str = "",
) -> Any:
    """Return a copy of a JSON value with every string and key redacted (image data left alone).

    ``keep`` names the top-level keys whose string values are structure, copied as they are. The
    walk uses its own stack, so a value nested thousands deep is no recursion problem.
    """
    redactor = redactor or Redactor()
    root: list[Any] = [None]
    # item, the list or dict to put its copy in, its slot there, keys kept, field path (linked)
    stack: list[tuple[Any, Any, Any, frozenset[str], Any]] = [(value, root, 0, keep, None)]
    while stack:
        item, parent, slot, skip, path = stack.pop()
        if isinstance(item, str):
            parent[slot] = redactor.redact(item, report, entry, path)
        elif isinstance(item, list):
            items: list[Any] = [None] * len(item)
            parent[slot] = items
            stack.extend((child, items, i, _NO_KEYS, (i, path)) for i, child in enumerate(item))
        elif isinstance(item, dict):
            out: dict[Any, Any] = {}
            parent[slot] = out
            is_image = item.get("type") == "image"
            hidden = _hidden_key(item)
            for key, child in item.items():
                if isinstance(child, str) and (key in HIDDEN_FIELDS or key == hidden):
                    out[key] = ""  # never shown: not published, not listed
                    continue
                if isinstance(key, str):
                    new_key = _unique_key(redactor.redact(key, report, entry, (key, path)), out)
                else:
                    new_key = key
                if isinstance(child, str) and (key in skip or (is_image and key == "data")):
                    out[new_key] = child
                else:
                    out[new_key] = None  # keeps the key order; filled when popped
                    stack.append((child, out, new_key, _NO_KEYS, (key, path)))
        else:
            parent[slot] = item  # numbers, booleans and null are immutable
    return root[0]


def _path_text(path: Any) -> str:
    parts: list[str] = []
    while path is not None:
        key, path = path
        parts.append(f"[{key}]" if isinstance(key, int) else str(key))
    return ".".join(reversed(parts)).replace(".[", "[")


def _unique_key(key: str, taken: dict[Any, Any]) -> str:
    """Return ``key``, or ``key#2``... when two masked keys would collide."""
    if key not in taken:
        return key
    n = 2
    while f"{key}#{n}" in taken:
        n += 1
    return f"{key}#{n}"


def learn_value(redactor: Redactor, value: Any, keep: frozenset[str] = _ENTRY_KEYS) -> list[str] | None:
    """Find the secrets of every string of a JSON value (pass one), keys judged with their values.

    Return the strings looked at when none holds a secret of its own or is a hidden field (the
    value then needs redacting only if a value learnt elsewhere is in one of them), else None.
    """
    texts: list[str] | None = []
    for text, key in _strings(value, keep):
        if key is _HIDDEN:
            texts = None
            continue
        redactor.learn(text, key)
        if texts is not None:
            if redactor.holds_secret(text):
                texts = None
            else:
                texts.append(text)
    return texts


def _command(block: dict[str, Any]) -> str | None:
    arguments = block.get("arguments")
    command = arguments.get("command") if isinstance(arguments, dict) else None
    if isinstance(command, list):
        command = " ".join(str(part) for part in command)
    return command if isinstance(command, str) else None


def learn_printed(redactor: Redactor, entries: list[dict[str, Any]]) -> None:
    """Learn the value a secret-printing command printed alone (``openssl rand -hex 32``)."""
    printing: set[Any] = set()
    for entry in entries:
        message = entry.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        if message.get("role") == "toolResult":  # type: ignore[union-attr]
            if message.get("toolCallId") not in printing:  # type: ignore[union-attr]
                continue
            for block in content:
                text = block.get("text") if isinstance(block, dict) else None
                found = printed_secret(text) if isinstance(text, str) else None
                if found is not None:
                    redactor.remember(text[found[0] : found[1]], "printed-secret")  # type: ignore[index]
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "toolCall":
                command = _command(block)
                if command is not None and prints_secret(command):
                    printing.add(block.get("id"))


def redact_entries(
    header: dict[str, Any],
    entries: list[dict[str, Any]],
    extra: Iterable[tuple[str, Any]] = (),
    redactor: Redactor | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]], RedactionReport]:
    """Return redacted copies of a session's header and entries, and what was masked.

    ``extra`` are more (name, value) pairs whose secrets count too (a title slot, subagents);
    pass the same ``redactor`` to ``redact_value`` to mask them.
    """
    redactor = redactor or Redactor()
    learn_printed(redactor, entries)
    learn_value(redactor, header, _HEADER_KEYS)
    clean = [learn_value(redactor, value) for value in entries]
    for _, value in extra:
        learn_value(redactor, value)
    report = RedactionReport()
    new_header = redact_value(header, report, keep=_HEADER_KEYS, redactor=redactor, entry="header")
    # An entry with no secret of its own, no hidden field and no value learnt elsewhere is
    # shared as it is (never changed): a copy would be equal to it.
    new_entries = [
        entry
        if texts is not None and not redactor.holds_copy(texts)
        else redact_value(entry, report, keep=_ENTRY_KEYS, redactor=redactor, entry=str(entry.get("id", "")))
        for entry, texts in zip(entries, clean, strict=True)
    ]
    return new_header, new_entries, report
