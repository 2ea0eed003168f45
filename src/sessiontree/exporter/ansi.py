"""Turn ANSI SGR colour codes into escaped HTML spans with classes (never style attributes)."""

from __future__ import annotations

import re
from functools import cache

from markupsafe import Markup, escape

# CSI sequences (colours, cursor moves), OSC sequences (titles, hyperlinks) and lone escapes.
ESCAPE_RE = re.compile(r"\x1b\[([0-9;:?]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?")

_CUBE = (0, 95, 135, 175, 215, 255)
# xterm's default RGB for the 16 basic colours; the page styles only these (per theme), so
# 256-colour and 24-bit codes are mapped to the nearest of them.
_BASIC = (
    (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
    (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255),
    (255, 0, 255), (0, 255, 255), (255, 255, 255),
)  # fmt: skip


def _rgb_of(index: int) -> tuple[int, int, int]:
    """Return the RGB of an xterm-256 palette index."""
    if index < 16:
        return _BASIC[index]
    if index < 232:
        i = index - 16
        return _CUBE[i // 36], _CUBE[i // 6 % 6], _CUBE[i % 6]
    grey = 8 + 10 * (index - 232)
    return grey, grey, grey


@cache
def nearest_basic(r: int, g: int, b: int) -> int:
    """Return the index (0-15) of the basic colour nearest to an RGB colour."""
    return min(
        range(16),
        key=lambda i: (_BASIC[i][0] - r) ** 2 + (_BASIC[i][1] - g) ** 2 + (_BASIC[i][2] - b) ** 2,
    )


def _basic_of_256(index: int) -> int:
    return index if index < 16 else nearest_basic(*_rgb_of(index))


def _code(param: str) -> int:
    # int() refuses more than 4,300 digits; no SGR code is longer than 3 (an unknown code is ignored).
    if not param.isdigit():
        return 0
    return int(param) if len(param) <= 3 else -1


class _State:
    __slots__ = ("bg", "bold", "fg")

    def __init__(self) -> None:
        self.fg: int | None = None
        self.bg: int | None = None
        self.bold = False

    def classes(self) -> str:
        out = []
        if self.fg is not None:
            out.append(f"ansi-fg-{self.fg}")
        if self.bg is not None:
            out.append(f"ansi-bg-{self.bg}")
        if self.bold:
            out.append("ansi-bold")
        return " ".join(out)

    def apply(self, params: str) -> None:
        codes = [_code(p) for p in params.replace(":", ";").split(";")] if params else [0]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0:
                self.fg, self.bg, self.bold = None, None, False
            elif c == 1:
                self.bold = True
            elif c == 22:
                self.bold = False
            elif 30 <= c <= 37:
                self.fg = c - 30
            elif 90 <= c <= 97:
                self.fg = c - 90 + 8
            elif c == 39:
                self.fg = None
            elif 40 <= c <= 47:
                self.bg = c - 40
            elif 100 <= c <= 107:
                self.bg = c - 100 + 8
            elif c == 49:
                self.bg = None
            elif c in (38, 48) and i + 1 < len(codes):
                colour: int | None = None
                if codes[i + 1] == 5 and i + 2 < len(codes):
                    colour = _basic_of_256(codes[i + 2]) if 0 <= codes[i + 2] <= 255 else None
                    i += 2
                elif codes[i + 1] == 2 and i + 4 < len(codes):
                    r, g, b = (max(0, min(255, v)) for v in codes[i + 2 : i + 5])
                    colour = nearest_basic(r, g, b)
                    i += 4
                if c == 38:
                    self.fg = colour
                else:
                    self.bg = colour
            i += 1


def has_ansi(text: str) -> bool:
    """Tell whether the text holds any escape sequence."""
    return "\x1b" in text


def strip_ansi(text: str) -> str:
    """Remove every escape sequence (for previews and search text)."""
    return ESCAPE_RE.sub("", text) if "\x1b" in text else text


def ansi_to_html(text: str) -> Markup:
    """Return escaped HTML where SGR colours are ``<span class="ansi-...">``; other sequences dropped."""
    if "\x1b" not in text:
        return escape(text)
    out: list[str] = []
    state = _State()
    open_span = False
    pos = 0
    for m in ESCAPE_RE.finditer(text):
        if m.start() > pos:
            out.append(str(escape(text[pos : m.start()])))
        pos = m.end()
        if m.group(2) != "m":
            continue
        state.apply(m.group(1) or "")
        if open_span:
            out.append("</span>")
            open_span = False
        classes = state.classes()
        if classes:
            out.append(f'<span class="{classes}">')
            open_span = True
    if pos < len(text):
        out.append(str(escape(text[pos:])))
    if open_span:
        out.append("</span>")
    return Markup("".join(out))
