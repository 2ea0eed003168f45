"""Syntax highlighting with Pygments: class-based HTML, cached lexers, CSS for both themes."""

from __future__ import annotations

from functools import lru_cache

from markupsafe import Markup, escape

# Pygments ships no type information (types-Pygments is not a dependency).
from pygments import highlight as _pygments_highlight  # type: ignore[import-untyped]
from pygments.formatters.html import HtmlFormatter  # type: ignore[import-untyped]
from pygments.lexer import Lexer  # type: ignore[import-untyped]
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename  # type: ignore[import-untyped]
from pygments.util import ClassNotFound  # type: ignore[import-untyped]

__all__ = ["HL_CLASS", "Lexer", "highlight_code", "lexer_by_name", "lexer_for_path", "theme_css"]

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


@lru_cache(maxsize=1)
def _formatter() -> HtmlFormatter:
    return HtmlFormatter(nowrap=True)


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


def highlight_code(code: str, lexer: Lexer | None) -> Markup:
    """Return the inner HTML of highlighted code (escaped plain text without a lexer)."""
    if lexer is None or lexer.name == "Text only":
        return escape(code)
    html = _pygments_highlight(code, lexer, _formatter())
    # Pygments adds a trailing newline to the last line; keep the caller's text exact.
    if not code.endswith("\n") and html.endswith("\n"):
        html = html[:-1]
    return Markup(html)


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
