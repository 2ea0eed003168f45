"""Secrets inside base64: ``env | base64`` dumps (wrapped over lines), docker ``auth`` values.

Every run of at least 40 base64 characters, joined over lines of one width as ``base64 -w N``
wraps them, is decoded; when it decodes to text, that text is scanned like any other, and a
secret in it masks the whole run (line by line, so the line breaks stay). Images, fonts, keys
and digests decode to binary and are left alone.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterable, Iterator

Span = tuple[int, int, str]
Finder = Callable[[str], Iterable[Span]]

MIN_RUN = 40
_LINE = r"[A-Za-z0-9+/_-]{%d,}={0,2}"
# One run: full-width lines joined by line breaks, then the last (maybe shorter) line.
_RUN = re.compile(
    r"(?<![A-Za-z0-9+/=_-])(?:[A-Za-z0-9+/_-]{16,}\r?\n)*" + _LINE % 16 + r"(?![A-Za-z0-9+/=_-])"
)
_BREAK = re.compile(r"\r?\n")
_ANY_RUN = re.compile(rf"[A-Za-z0-9+/_-]{{{MIN_RUN}}}")
MAX_DEPTH = 2


def _decode(run: str) -> str | None:
    """Return the text a base64 run holds, or None when it is not base64 of printable text."""
    data = run.rstrip("=")
    if len(data) % 4 == 1:
        return None
    padded = data + "=" * (-len(data) % 4)
    try:
        raw = (
            base64.urlsafe_b64decode(padded)
            if ("-" in data or "_" in data)
            else base64.b64decode(padded, validate=True)
        )
        text = raw.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    printable = sum(c.isprintable() or c in "\n\r\t" for c in text)
    return text if printable >= 0.95 * len(text) else None


def _lines_of_one_width(pieces: list[str]) -> bool:
    widths = {len(p) for p in pieces[:-1]}
    return len(widths) <= 1 and (not widths or len(pieces[-1].rstrip("=")) <= widths.pop())


def find_encoded_secrets(text: str, find: Finder, depth: int = 0) -> Iterator[Span]:
    """Yield the lines of every base64 run whose decoded text holds a secret that ``find`` sees."""
    if depth >= MAX_DEPTH or not _ANY_RUN.search(text):
        return
    for match in _RUN.finditer(text):
        run = match.group()
        if len(run) < MIN_RUN:
            continue
        lines = _BREAK.split(run)
        if not _lines_of_one_width(lines):
            # Not one wrapped block: each line on its own.
            offsets = [m.end() for m in _BREAK.finditer(run)]
            starts = [match.start(), *(match.start() + o for o in offsets)]
            for start, line in zip(starts, lines, strict=True):
                if len(line) >= MIN_RUN:
                    yield from _scan(line, start, find, depth)
            continue
        yield from _scan_block(run, match.start(), lines, find, depth)


def _scan(run: str, start: int, find: Finder, depth: int) -> Iterator[Span]:
    decoded = _decode(run)
    if decoded is None:
        return
    kinds = {kind for _, _, kind in find_decoded(decoded, find, depth)}
    if kinds:
        yield start, start + len(run), "base64-" + sorted(kinds)[0].removeprefix("base64-")


def _scan_block(run: str, start: int, lines: list[str], find: Finder, depth: int) -> Iterator[Span]:
    decoded = _decode("".join(lines))
    if decoded is None:
        return
    kinds = {kind for _, _, kind in find_decoded(decoded, find, depth)}
    if not kinds:
        return
    kind = "base64-" + sorted(kinds)[0].removeprefix("base64-")
    pos = start
    for line, brk in zip(lines, [*(m.group() for m in _BREAK.finditer(run)), ""], strict=True):
        yield pos, pos + len(line), kind
        pos += len(line) + len(brk)


def find_decoded(decoded: str, find: Finder, depth: int) -> Iterator[Span]:
    """Yield the secrets of decoded text, looking one level deeper into base64 inside it."""
    yield from find(decoded)
    yield from find_encoded_secrets(decoded, find, depth + 1)
