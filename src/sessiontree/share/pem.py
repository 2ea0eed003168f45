"""Find private keys line by line: whole PEM blocks, blocks cut short, and bodies without a header.

One pass over the lines, each looked at once, so many ``BEGIN`` lines without an ``END`` cost no
more than any other text (a lazy ``BEGIN[\\s\\S]*?END`` regex rescans the rest of the text for every
``BEGIN``: quadratic). Lines end at a newline or at a literal ``\\n`` (keys inside JSON strings).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

Span = tuple[int, int, str]

_BREAK = re.compile(r"\r?\n|\\r?\\n")
_BEGIN = re.compile(r"-----BEGIN ([A-Za-z0-9 ]{0,40})-----")
_END = re.compile(r"-----END ([A-Za-z0-9 ]{0,40})-----")
# What a block holds that is secret: a private key, a static (shared) key, a secret.
_SECRET_BLOCK = re.compile(r"PRIVATE|STATIC KEY|SECRET|SHARED KEY", re.IGNORECASE)
# A base64 line, maybe after the line number a file viewer puts in front ("  12\t", "12→").
_BODY = re.compile(r"[ \t]*(?:[0-9]{1,7}(?:[\t:→|]| +))?[ \t]*(?P<b64>[A-Za-z0-9+/]{4,}={0,2})[ \t]*")
_BODY_START = re.compile(r"[ \t]*[A-Za-z0-9+/]{4,}={0,2}")
_HEADER = re.compile(r"[ \t]*[A-Za-z-]+: [^\n]*")  # Proc-Type: 4,ENCRYPTED / DEK-Info: ...
# A full-width line of a PEM (64) or OpenSSH (70) body: a body read without its BEGIN line.
_WIDE_LINE = re.compile(
    r"[A-Za-z0-9+/](?<![A-Za-z0-9+/][A-Za-z0-9+/])[A-Za-z0-9+/]{63}(?:[A-Za-z0-9+/]{6})?={0,2}[ \t]*"
    r"(?:\r?\n|\\r?\\n)"
)
_MIN_HEADLESS_LINES = 3
# A certificate's body starts with two DER SEQUENCEs (30 82 .. .. 30 82): "MII..CCA" in base64;
# a private key's with a version number ("MIIEvQIBADAN", "MIIEpAIBAAKC").
_CERTIFICATE_START = re.compile(r"MII[A-Za-z0-9+/]{3}CCA")

KIND = "private-key"


def _lines(text: str) -> Iterator[tuple[int, int]]:
    pos = 0
    for match in _BREAK.finditer(text):
        yield pos, match.start()
        pos = match.end()
    yield pos, len(text)


def _is_wide(b64: str) -> bool:
    body = b64.rstrip("=")
    return len(body) in (64, 70) and any(c.isupper() for c in body) and any(c.islower() for c in body)


class _Run:
    """Consecutive base64 lines outside any block: a key body if an END follows or it is long."""

    def __init__(self) -> None:
        self.start = self.end = -1
        self.wide = 0

    def add(self, start: int, end: int, wide: bool) -> None:
        if self.start < 0:
            self.start = start
        self.end = end
        self.wide += wide

    def flush(self, text: str) -> Iterator[Span]:
        certificate = _CERTIFICATE_START.match(text, self.start) is not None
        if self.start >= 0 and self.wide >= _MIN_HEADLESS_LINES and not certificate:
            yield self.start, self.end, KIND
        self.start = self.end = -1
        self.wide = 0


def find_private_keys(text: str) -> Iterator[Span]:
    """Yield the spans of private keys (BEGIN..END, BEGIN..last body line, body..END, long bodies)."""
    if "PRIVATE KEY" not in text and "Static key" not in text and not _WIDE_LINE.search(text):
        return
    in_key = in_public = False
    key_start = key_end = 0
    run = _Run()
    for start, end in _lines(text):
        if in_key:
            closing = _END.search(text, start, end)
            if closing is not None:
                yield key_start, closing.end(), KIND
                in_key = False
                start = closing.end()  # the rest of the line may open the next key
                if start == end:
                    continue
            elif start == end or _BODY.fullmatch(text, start, end) or _HEADER.fullmatch(text, start, end):
                key_end = end if start != end else key_end
                continue
            else:
                # Cut short: up to its last body line, and the base64 that starts this one ("...== }").
                tail = _BODY_START.match(text, start, end)
                yield key_start, tail.end() if tail is not None else key_end, KIND
                in_key = False
        if in_public:
            in_public = _END.search(text, start, end) is None
            continue
        opening = _BEGIN.search(text, start, end)
        if opening is not None:
            yield from run.flush(text)
            if _SECRET_BLOCK.search(opening.group(1)):
                key_start, key_end = opening.start(), opening.end()
                closing = _END.search(text, opening.end(), end)
                if closing is not None:
                    yield key_start, closing.end(), KIND
                else:
                    in_key = True
            else:
                in_public = _END.search(text, opening.end(), end) is None
            continue
        body = _BODY.fullmatch(text, start, end)
        # A short line continues a run (the last line of a body) but never starts one.
        if body is not None and (len(body.group("b64")) >= 16 or run.start >= 0):
            run.add(body.start("b64"), body.end("b64"), _is_wide(body.group("b64")))
            continue
        closing = _END.search(text, start, end)
        if closing is not None and _SECRET_BLOCK.search(closing.group(1)) and run.start >= 0:
            yield run.start, closing.end(), KIND  # a body read from the middle of the file
            run = _Run()
            continue
        yield from run.flush(text)
    if in_key:
        yield key_start, key_end, KIND
    yield from run.flush(text)
