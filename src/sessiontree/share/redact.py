"""Find secrets in session text and mask them in the copy that gets shared."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sessiontree.share.secrets import find_secrets
from sessiontree.share.shown import shown_views

MASK = "[REDACTED:{kind}]"
_MASKED = re.compile(r"\[REDACTED:[a-z0-9-]*\](?:#[0-9]+)?")

# The entry's (and header's) own structural fields: ids that link entries, never prose.
# Only at the top of an entry: deeper down an "id" or "type" is session data like any other.
_ENTRY_KEYS = frozenset({"id", "parentId", "type", "timestamp", "targetId", "fromId", "firstKeptEntryId"})
_HEADER_KEYS = frozenset({"type", "id", "version", "timestamp"})
_NO_KEYS: frozenset[str] = frozenset()


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


def find_secret_spans(text: str) -> list[tuple[int, int, str]]:
    """Return the merged source spans of every secret, found in each shown form of the text."""
    found: list[tuple[int, int, int, str]] = []  # start, end, rank (most specific first), kind
    masks = [m.span() for m in _MASKED.finditer(text)] if "[REDACTED:" in text else []
    for view in shown_views(text):
        identity = view.text is text
        for rank, (start, end, kind) in enumerate(find_secrets(view.text)):
            if end <= start:
                continue
            if not identity:
                start, end = view.source_span(start, end)
            if masks and _starts_in_mask(start, masks):
                continue  # a value that is already a mask: redacting twice changes nothing
            found.append((start, end, rank, kind))
    found.sort()
    merged: list[list[Any]] = []
    for start, end, rank, kind in found:
        if merged and start < merged[-1][1]:
            last = merged[-1]
            last[1] = max(last[1], end)
            if rank < last[2]:
                last[2], last[3] = rank, kind
        else:
            merged.append([start, end, rank, kind])
    return [(start, end, kind) for start, end, _, kind in merged]


def _starts_in_mask(start: int, masks: list[tuple[int, int]]) -> bool:
    i = bisect_right(masks, (start, 2**62)) - 1
    return i >= 0 and masks[i][0] <= start < masks[i][1]


def redact_text(text: str, report: RedactionReport | None = None) -> str:
    """Return ``text`` with every secret masked; count what was masked into ``report``."""
    spans = find_secret_spans(text)
    if not spans:
        return text
    report = report if report is not None else RedactionReport()
    pieces: list[str] = []
    pos = 0
    for start, end, kind in spans:
        pieces.append(text[pos:start])
        pieces.append(MASK.format(kind=kind))
        report.counts[kind] += 1
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def redact_value(value: Any, report: RedactionReport, *, keep: frozenset[str] = _NO_KEYS) -> Any:
    """Return a copy of a JSON value with every string and key redacted (image data left alone).

    ``keep`` names the top-level keys whose string values are structure, copied as they are. The
    walk uses its own stack, so a value nested thousands deep is no recursion problem.
    """
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, frozenset[str]]] = [(value, root, 0, keep)]
    while stack:
        item, parent, slot, skip = stack.pop()
        if isinstance(item, str):
            parent[slot] = redact_text(item, report)
        elif isinstance(item, list):
            items: list[Any] = [None] * len(item)
            parent[slot] = items
            stack.extend((child, items, i, _NO_KEYS) for i, child in enumerate(item))
        elif isinstance(item, dict):
            out: dict[Any, Any] = {}
            parent[slot] = out
            is_image = item.get("type") == "image"
            for key, child in item.items():
                new_key = _unique_key(redact_text(key, report), out) if isinstance(key, str) else key
                if isinstance(child, str) and (key in skip or (is_image and key == "data")):
                    out[new_key] = child
                else:
                    out[new_key] = None  # keeps the key order; filled when popped
                    stack.append((child, out, new_key, _NO_KEYS))
        else:
            parent[slot] = item  # numbers, booleans and null are immutable
    return root[0]


def _unique_key(key: str, taken: dict[Any, Any]) -> str:
    """Return ``key``, or ``key#2``... when two masked keys would collide."""
    if key not in taken:
        return key
    n = 2
    while f"{key}#{n}" in taken:
        n += 1
    return f"{key}#{n}"


def redact_entries(
    header: dict[str, Any], entries: list[dict[str, Any]]
) -> tuple[dict[str, Any], list[dict[str, Any]], RedactionReport]:
    """Return redacted copies of a session's header and entries, and what was masked."""
    report = RedactionReport()
    new_header = redact_value(header, report, keep=_HEADER_KEYS)
    new_entries = [redact_value(entry, report, keep=_ENTRY_KEYS) for entry in entries]
    return new_header, new_entries, report
