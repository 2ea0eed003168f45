"""Where the secrets of one text are: each shown form of it scanned once, the spans merged.

``find_secret_spans`` is the finding half of the redaction (``share.redact`` masks what it finds,
and every copy of it elsewhere): the detectors over the text as it is and around what its
shown forms change, encoded secrets, and the default for random-looking values nothing explains.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from typing import Any

from sessiontree.share.blocks import extend_span
from sessiontree.share.encoded import find_encoded_secrets
from sessiontree.share.public import public_reason
from sessiontree.share.random_default import KEPT, find_random_tokens
from sessiontree.share.random_default import MIN_LENGTH as MIN_RANDOM
from sessiontree.share.scan import Hits
from sessiontree.share.secrets import find_secrets
from sessiontree.share.shown import View, shown_views

_MASKED = re.compile(r"\[REDACTED:[a-z0-9-]*\](?:#[0-9]+)?")
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


def merge_spans(found: Iterable[tuple[int, int, int, str]]) -> list[Span]:
    """Return the spans (start, end, rank, kind) merged where they overlap, each with its best-ranked kind."""
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
    masks = masks_in(text)
    hits = Hits(text)  # the one scan of the text as it is
    for view in shown_views(text):
        identity = view.text is text
        for rank, (start, end, kind) in enumerate(_find_in_view(view, hits if identity else None)):
            if end <= start:
                continue
            pieces = [(start, end)] if identity else view.source_spans(start, end)
            for piece_start, piece_end in pieces:
                if masks and starts_in_mask(piece_start, masks):
                    continue  # a value that is already a mask: redacting twice changes nothing
                found.append((piece_start, piece_end, rank, kind))
    if hits.longest >= 40:
        for start, end, kind in find_encoded_secrets(text, find_secrets):
            if not (masks and starts_in_mask(start, masks)):
                found.append((start, end, 1000, kind))
    grown = ((*extend_span(text, start, end), rank, kind) for start, end, rank, kind in found)
    if masks:  # a secret glued to a mask ends where the mask begins: the mask stays as it was
        grown = ((start, _end_before_mask(start, end, masks), rank, kind) for start, end, rank, kind in grown)
    merged = merge_spans(grown)
    if hits.longest >= MIN_RANDOM:
        merged = _with_random_tokens(text, hits, merged, kept)
    return _without_public(text, merged, kept) if merged else merged


def _without_public(text: str, spans: list[Span], kept: list[Span] | None) -> list[Span]:
    """The spans less the public values (public keys, documented examples, test vectors), which go
    to ``kept`` with their reason."""
    out: list[Span] = []
    for start, end, kind in spans:
        reason = public_reason(text, start, end)
        if reason is None:
            out.append((start, end, kind))
        elif kept is not None:
            kept.append((start, end, reason))
    return out


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
    return merge_spans([*((s, e, 0, k) for s, e, k in merged), *masked]) if masked else merged


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


def masks_in(text: str) -> list[tuple[int, int]]:
    """Return where ``text`` holds masks already (in order)."""
    return [m.span() for m in _MASKED.finditer(text)] if "[REDACTED:" in text else []


def starts_in_mask(start: int, masks: list[tuple[int, int]]) -> bool:
    """Tell whether ``start`` lies inside one of ``masks``."""
    i = bisect_right(masks, (start, 2**62)) - 1
    return i >= 0 and masks[i][0] <= start < masks[i][1]


def _end_before_mask(start: int, end: int, masks: list[tuple[int, int]]) -> int:
    i = bisect_right(masks, (start, 2**62))
    return min(end, masks[i][0]) if i < len(masks) else end
