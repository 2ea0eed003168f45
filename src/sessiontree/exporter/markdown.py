"""Markdown to safe HTML: CommonMark + tables, strikethrough, task lists; raw HTML off."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markdown_it.utils import OptionsDict
from markupsafe import Markup, escape
from mdit_py_plugins.tasklists import tasklists_plugin

from sessiontree.exporter.highlight import HL_CLASS, escape_text, highlight_code, lexer_by_name

ALLOWED_SCHEMES = ("http://", "https://", "mailto:")
LINK_REL = "noopener noreferrer"
# Past this size a text is shown as plain preformatted text: markdown-it is pure Python and
# a megabyte of pasted log is not prose.
MAX_MARKDOWN_CHARS = 200_000
MAX_HIGHLIGHT_CHARS = 50_000


def is_allowed_url(url: str) -> bool:
    """Tell whether a link target is http(s) or mailto (nothing else is ever emitted)."""
    return url.strip().lower().startswith(ALLOWED_SCHEMES)


def _render_link_open(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
    token = tokens[idx]
    token.attrSet("rel", LINK_REL)
    token.attrSet("target", "_blank")
    return str(self.renderToken(tokens, idx, options, env))


def _render_image(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
    # Images from the network are never loaded (the page requests nothing): show a link instead.
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    alt = self.renderInlineAsText(token.children or [], options, env) or src
    return (
        f'<a class="st-remote-img" href="{escape(src)}" rel="{LINK_REL}" target="_blank">'
        f"[image: {escape(alt)}]</a>"
    )


def render_code_block(code: str, lang: str = "") -> Markup:
    """Return a highlighted ``<pre>`` block for code in a language (plain when unknown or huge)."""
    lexer = lexer_by_name(lang) if lang and len(code) <= MAX_HIGHLIGHT_CHARS else None
    body = highlight_code(code, lexer)
    lang_attr = Markup(' data-lang="{}"').format(lang) if lang else ""
    return Markup('<pre class="st-code {}"{}><code>{}</code></pre>').format(HL_CLASS, lang_attr, body)


def _render_fence(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
    token = tokens[idx]
    lang = token.info.strip().split(maxsplit=1)[0] if token.info.strip() else ""
    return str(render_code_block(token.content, lang[:40])) + "\n"


def _render_code_block(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
    return str(render_code_block(tokens[idx].content)) + "\n"


@lru_cache(maxsize=1)
def markdown_parser() -> MarkdownIt:
    """Return the shared parser (built once; markdown-it parsers are reusable and stateless)."""
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.use(tasklists_plugin)
    md.validateLink = is_allowed_url  # type: ignore[method-assign]
    md.add_render_rule("link_open", _render_link_open)
    md.add_render_rule("image", _render_image)
    md.add_render_rule("fence", _render_fence)
    md.add_render_rule("code_block", _render_code_block)
    return md


# Prose with none of these characters, whose lines all start with a letter, is plain paragraphs
# in CommonMark: no inline syntax, and no line can open a block (list, heading, quote, code, table).
_PLAIN_PROSE = re.compile(r"[^\\`*_\[\]<>!#|~&\x00-\x09\x0b-\x1f\x7f]*")
_LINE_START = re.compile(r"\n(?![A-Za-z])")


def _plain_paragraphs(text: str) -> str | None:
    """Return CommonMark's HTML for plain prose without running the parser, or None if not plain."""
    body = text.strip("\n")
    if not body or not body[0].isascii() or not body[0].isalpha() or not _PLAIN_PROSE.fullmatch(body):
        return None
    paragraphs = body.split("\n\n")
    for para in paragraphs:
        if (
            not para
            or not (para[0].isascii() and para[0].isalpha())
            or _LINE_START.search(para)
            or " \n" in para
            or para.endswith(" ")
        ):
            return None
    return "".join(f"<p>{escape_text(para)}</p>\n" for para in paragraphs)


@lru_cache(maxsize=2048)
def render_markdown(text: str) -> Markup:
    """Return safe HTML for markdown text (raw HTML escaped, links allow-listed, fences highlighted)."""
    if not text:
        return Markup("")
    if len(text) > MAX_MARKDOWN_CHARS:
        return Markup('<pre class="st-pre">{}</pre>').format(text)
    plain = _plain_paragraphs(text)
    if plain is not None:
        return Markup(plain)
    return Markup(markdown_parser().render(text))
