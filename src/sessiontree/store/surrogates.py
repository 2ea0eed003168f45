"""Lone UTF-16 surrogates (legal in JSON, not in UTF-8) become U+FFFD where text is encoded."""

from __future__ import annotations

import codecs
import re

_LONE_SURROGATE = "[\ud800-\udfff]"  # compiled at first non-ASCII text (re's cache), not at import

# The codec error handler for every UTF-8 write of session text: ``errors=SURROGATES``.
SURROGATES = "sessiontree.replace-surrogates"


def _replace(error: UnicodeError) -> tuple[str | bytes, int]:
    if isinstance(error, UnicodeEncodeError):
        # The UTF-8 encoder takes only ASCII text from a handler, so give it U+FFFD's bytes.
        replacement = "\ufffd".encode() if error.encoding in ("utf-8", "utf8") else "?"
        return replacement * (error.end - error.start), error.end
    raise error


codecs.register_error(SURROGATES, _replace)


def replace_surrogates(text: str) -> str:
    """Return ``text`` with every lone surrogate replaced by U+FFFD (the same object when none)."""
    if text.isascii():
        return text
    return re.sub(_LONE_SURROGATE, "\ufffd", text)


_UNDECODABLE = "[\udc80-\udcff]"


def shown_name(text: str) -> str:
    """Return a file name or path for people: its bytes that are not UTF-8 (which Python keeps as
    lone surrogates, ``surrogateescape``) written ``\\xff``; the same object when there are none."""
    if text.isascii():
        return text
    return re.sub(_UNDECODABLE, lambda m: f"\\x{ord(m.group()) - 0xDC00:02x}", text)
