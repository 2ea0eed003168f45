"""Syntax highlighting with Pygments: class-based HTML, cached lexers, CSS for both themes."""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

from markupsafe import Markup

# Pygments ships no type information (types-Pygments is not a dependency).
from pygments.formatters.html import HtmlFormatter  # type: ignore[import-untyped]
from pygments.lexer import Lexer  # type: ignore[import-untyped]
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename  # type: ignore[import-untyped]
from pygments.token import STANDARD_TYPES  # type: ignore[import-untyped]
from pygments.util import ClassNotFound  # type: ignore[import-untyped]

from sessiontree.exporter.fastlex import lex

__all__ = [
    "HL_CLASS",
    "Lexer",
    "escape_text",
    "highlight_code",
    "highlight_split",
    "lexer_by_name",
    "lexer_for_path",
    "theme_css",
]

HL_CLASS = "st-hl"
LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"

# Extensions Pygments guesses slowly or wrongly; the rest go through get_lexer_for_filename.
_EXT_ALIASES = {
    "py": "python",
    "js": "javascript",
    "mjs": "javascript",
    "cjs": "javascript",
    "ts": "typescript",
    "tsx": "tsx",
    "jsx": "jsx",
    "json": "json",
    "jsonl": "json",
    "md": "markdown",
    "sh": "bash",
    "bash": "bash",
    "zsh": "bash",
    "rs": "rust",
    "go": "go",
    "toml": "toml",
    "yaml": "yaml",
    "yml": "yaml",
    "html": "html",
    "css": "css",
    "c": "c",
    "h": "c",
    "cpp": "cpp",
    "java": "java",
    "rb": "ruby",
    "sql": "sql",
    "txt": "text",
}


def escape_text(text: str) -> str:
    """Escape text for an HTML text node (quotes need no escaping there; keeps pages small)."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


@cache
def _css_class(ttype: Any) -> str:
    """Return Pygments' short class for a token type (as HtmlFormatter names it); "" for plain text."""
    name = STANDARD_TYPES.get(ttype)
    suffix = ""
    while name is None:
        suffix = ttype[-1] + suffix
        ttype = ttype.parent
        name = STANDARD_TYPES.get(ttype)
    # Whitespace, plain text and classes drawn as plain text need no span: smaller pages, same look.
    cls = name + suffix
    return "" if name in ("", "w") or cls in _plain_classes() else cls


@cache
def _plain_classes() -> frozenset[str]:
    """Return the classes drawn as plain text in both themes: no rule in the light style, and in
    the dark one only the colour of its plain text, which the page's own text colour is (names
    and punctuation in Python: 44% of the spans, none of the look)."""
    light = HtmlFormatter(style=LIGHT_STYLE).class2style
    dark = HtmlFormatter(style=DARK_STYLE).class2style
    plain = dark[""][0]
    return frozenset(cls for cls, (style, _, _) in dark.items() if style == plain and cls not in light)


# Runs of one class are joined with marks of private-use characters in place of the tags, so the
# whole text is escaped at once and the marks turned into tags at once (loops in C), not run by
# run in Python: this loop runs once per token, the hot loop of an export. A text that holds a
# mark character itself is formatted run by run.
_OPEN, _MID, _CLOSE = "\ue000", "\ue001", "\ue002"
# Token type -> its class's opening mark ("" for plain text), filled as types are met (a dict
# lookup is cheaper than a cached call).
_MARKS: dict[Any, str] = {}


def _mark(ttype: Any) -> str:
    cls = _css_class(ttype)
    mark = _MARKS[ttype] = f"{_OPEN}{cls}{_MID}" if cls else ""
    return mark


def _format_tokens(code: str, tokens: Any) -> str:
    """Format the (index, type, value) tokens of ``code`` as spans, merging runs of one class
    (like HtmlFormatter)."""
    if _OPEN in code or _MID in code or _CLOSE in code:
        return _format_runs(tokens)
    marks = _MARKS
    out: list[str] = []
    append = out.append
    run_mark = ""
    for _, ttype, value in tokens:
        mark = marks.get(ttype)
        if mark is None:
            mark = _mark(ttype)
        if mark != run_mark:
            if run_mark:
                append(_CLOSE)
            if mark:
                append(mark)
            run_mark = mark
        append(value)
    if run_mark:
        append(_CLOSE)
    text = escape_text("".join(out))
    return text.replace(_OPEN, '<span class="').replace(_MID, '">').replace(_CLOSE, "</span>")


def _format_runs(tokens: Any) -> str:
    """Format tokens run by run, each run escaped apart (for code that holds a mark character)."""
    out: list[str] = []
    run_class, run_text = "", ""
    for _, ttype, value in tokens:
        cls = _css_class(ttype)
        if cls != run_class and run_text:
            text = escape_text(run_text)
            out.append(f'<span class="{run_class}">{text}</span>' if run_class else text)
            run_text = ""
        run_class, run_text = cls, run_text + value
    text = escape_text(run_text)
    out.append(f'<span class="{run_class}">{text}</span>' if run_class and text else text)
    return "".join(out)


@lru_cache(maxsize=256)
def lexer_by_name(name: str) -> Lexer | None:
    """Return a cached lexer for a language name or alias, or None when unknown."""
    if not name or len(name) > 40:
        return None
    try:
        return get_lexer_by_name(name.lower(), stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


@lru_cache(maxsize=512)
def lexer_for_path(path: str) -> Lexer | None:
    """Return a cached lexer chosen by a file name's extension, or None when unknown."""
    name = path.rsplit("/", 1)[-1]
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if ext in _EXT_ALIASES:
        return lexer_by_name(_EXT_ALIASES[ext])
    try:
        return get_lexer_for_filename(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def highlight_split(code: str, lexer: Lexer, cut: int, resume: int) -> tuple[Markup, Markup]:
    """Highlight ``code`` in one pass; return the HTML of ``code[:cut]`` and of ``code[resume:]``.

    A token running across the cut is split in two of the same class, so the halves put back
    together (with ``code[cut:resume]`` between) read exactly as the whole: a long output's
    preview and its hidden rest.
    """
    head: list[tuple[int, Any, str]] = []
    rest: list[tuple[int, Any, str]] = []
    for index, ttype, value in lex(lexer, code):
        end = index + len(value)
        if end > index and index < cut:
            head.append((index, ttype, value[: cut - index]))
        if end > resume:
            start = max(index, resume)
            rest.append((start, ttype, value[start - index :]))
    return Markup(_format_tokens(code, head)), Markup(_format_tokens(code, rest))


def highlight_code(code: str, lexer: Lexer | None) -> Markup:
    """Return the inner HTML of highlighted code (escaped plain text without a lexer)."""
    if lexer is None or lexer.name == "Text only":
        return Markup(escape_text(code))
    return Markup(_format_tokens(code, lex(lexer, code)))


def _style_defs(formatter: HtmlFormatter, prefix: str) -> str:
    # Keep only the rules under our prefix (Pygments adds global ``pre``/linenos rules) and
    # drop the token-name comments to keep pages small.
    lines = formatter.get_style_defs(prefix).splitlines()
    return "\n".join(line.split(" /*")[0] for line in lines if line.startswith(prefix))


@lru_cache(maxsize=1)
def theme_css() -> str:
    """Return the Pygments CSS for light and dark, keyed on ``data-theme`` and the system scheme."""
    light = HtmlFormatter(style=LIGHT_STYLE)
    dark = HtmlFormatter(style=DARK_STYLE)
    sel = f".{HL_CLASS}"
    return "\n".join(
        [
            _style_defs(light, f'[data-theme="light"] {sel}'),
            _style_defs(dark, f'[data-theme="dark"] {sel}'),
            "@media (prefers-color-scheme: light) {",
            _style_defs(light, f'[data-theme="auto"] {sel}'),
            "}",
            "@media (prefers-color-scheme: dark) {",
            _style_defs(dark, f'[data-theme="auto"] {sel}'),
            "}",
            "@media print {",
            _style_defs(light, f"html[data-theme] {sel}"),
            "}",
        ]
    )
