"""Markdown to safe HTML: CommonMark + GFM tables, strikethrough, task lists, autolinks; raw HTML off.

The parser is markdown-it-pyrs (markdown-it in Rust, by markdown-it-py's maintainer), built
without its raw-HTML rules so HTML in a text comes out escaped. Its output then contains no ``<``
that the parser did not write itself, which makes the few rewrites below exact: fenced code goes
to our highlighter, links keep only http(s)/mailto targets (others keep their text), remote images
become links, and task-list boxes are disabled.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

from markdown_it_pyrs import MarkdownIt
from markupsafe import Markup

from sessiontree.exporter.highlight import HL_CLASS, escape_text, highlight_code, lexer_by_name

log = logging.getLogger(__name__)

ALLOWED_SCHEMES = ("http://", "https://", "mailto:")
LINK_REL = "noopener noreferrer"
# Past this size a text is shown as plain preformatted text: a megabyte of pasted log is not prose.
MAX_MARKDOWN_CHARS = 200_000
MAX_HIGHLIGHT_CHARS = 50_000


def is_allowed_url(url: str) -> bool:
    """Tell whether a link target is http(s) or mailto (nothing else is ever emitted)."""
    return url.strip().lower().startswith(ALLOWED_SCHEMES)


def render_code_block(code: str, lang: str = "") -> Markup:
    """Return a highlighted ``<pre>`` block for code in a language (plain when unknown or huge)."""
    lexer = lexer_by_name(lang) if lang and len(code) <= MAX_HIGHLIGHT_CHARS else None
    body = highlight_code(code, lexer)
    lang_attr = Markup(' data-lang="{}"').format(lang) if lang else ""
    return Markup('<pre class="st-code {}"{}><code>{}</code></pre>').format(HL_CLASS, lang_attr, body)


@lru_cache(maxsize=1)
def markdown_parser() -> MarkdownIt:
    """Return the shared parser (built once; it holds no state between texts)."""
    # CommonMark without html_block/html_inline (raw HTML stays text), plus the GFM extensions.
    return MarkdownIt("zero").enable_many(list(_RULES))


# What the parser writes for code blocks, links, images and task boxes (attributes escaped).
_CODE = re.compile(r'<pre><code(?: class="language-([^"]*)")?>(.*?)</code></pre>', re.S)
_LINK = re.compile(r'<a href="([^"]*)"(?: title="([^"]*)")?>(.*?)</a>', re.S)
_IMAGE = re.compile(r'<img src="([^"]*)" alt="([^"]*)"(?: title="([^"]*)")? />')
_TASK_BOX = '<input class="task-list-item-checkbox" type="checkbox" '
_DISABLED_BOX = '<input class="task-list-item-checkbox" {}disabled="disabled" type="checkbox">'
_TASK_BOXES = {
    _TASK_BOX + 'checked="" />': _DISABLED_BOX.format('checked="checked" '),
    _TASK_BOX + "/>": _DISABLED_BOX.format(""),
}


def _code(match: re.Match[str]) -> str:
    lang = html.unescape(match.group(1) or "")[:40]
    return str(render_code_block(html.unescape(match.group(2)), lang))


def _as_written(label: str, href: str, title: str | None) -> str:
    """Return a link whose target is not allowed as the text it was written as: ``[label](href)``."""
    target = escape_text(unquote(html.unescape(href)))
    return f"[{label}]({target}{f' &quot;{title}&quot;' if title else ''})"


def _link(match: re.Match[str]) -> str:
    href, title, label = match.groups()
    # The parser escapes only &<>" and percent-encodes the rest: the scheme reads as written.
    if not is_allowed_url(href):
        return _as_written(label, href, title)
    title_attr = f' title="{title}"' if title else ""
    return f'<a href="{href}"{title_attr} rel="{LINK_REL}" target="_blank">{label}</a>'


def _image(match: re.Match[str]) -> str:
    # Images from the network are never loaded (the page requests nothing): show a link instead.
    src, alt, title = match.groups()
    if not is_allowed_url(src):
        return "!" + _as_written(alt, src, title)
    return f'<a class="st-remote-img" href="{src}" rel="{LINK_REL}" target="_blank">[image: {alt or src}]</a>'


def _rewrite(out: str) -> str:
    """Turn the parser's HTML into ours: highlighted code, allow-listed links, no images."""
    if "<pre><code" in out:
        out = _CODE.sub(_code, out)
    if "<a href=" in out:
        out = _LINK.sub(_link, out)
    if "<img " in out:
        out = _IMAGE.sub(_image, out)
    if _TASK_BOX in out:
        for box, disabled in _TASK_BOXES.items():
            out = out.replace(box, disabled)
    return out


# Prose with none of these characters, whose lines all start with a letter, is plain paragraphs
# in CommonMark: no inline syntax, and no line can open a block (list, heading, quote, code, table);
# without "www.", "://" or "@" there is nothing for GFM's autolinks either.
_PLAIN_PROSE = re.compile(r"[^\\`*_\[\]<>!#|~&@\x00-\x09\x0b-\x1f\x7f]*")
_AUTOLINK_START = re.compile(r"www\.|://", re.I)
_LINE_START = re.compile(r"\n(?![A-Za-z])")


def _plain_paragraphs(text: str) -> str | None:
    """Return CommonMark's HTML for plain prose without running the parser, or None if not plain."""
    body = text.strip("\n")
    if not body or not body[0].isascii() or not body[0].isalpha() or not _PLAIN_PROSE.fullmatch(body):
        return None
    if _AUTOLINK_START.search(body):
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
    return Markup(_rewrite(_render(text)))


_RULES: tuple[Any, ...] = (  # the engine's rule names (a Literal type there)
    *("blockquote", "code", "fence", "heading", "hr", "lheading", "list", "paragraph"),
    *("reference", "autolink", "backticks", "emphasis", "entity", "escape", "image", "link"),
    *("newline", "table", "strikethrough", "tasklist", "autolink_ext"),
)
_LABEL_RULES = frozenset({"link", "image", "reference"})


@lru_cache(maxsize=1)
def _labels_off_parser() -> MarkdownIt:
    """The parser without link labels: for the texts whose labels make the engine panic."""
    return MarkdownIt("zero").enable_many([rule for rule in _RULES if rule not in _LABEL_RULES])


_BLOCK_RULES: tuple[Any, ...] = (*_RULES[:8], "reference", "table")  # no inline rule among them


@lru_cache(maxsize=1)
def _blocks_parser() -> MarkdownIt:
    """The parser with block rules only: where each run of inline text is (it never panics)."""
    return MarkdownIt("zero").enable_many(list(_BLOCK_RULES))


_BACKTICKS = re.compile(rb"`+")


def _unclosed_runs(inline: bytes) -> Iterator[tuple[int, int]]:
    """Yield (offset, length) of each backtick run of inline text that no later run closes.

    As CommonMark reads them: a run not escaped by a backslash opens a code span that the next
    run of the same length closes (everything between is the span's: no escape, no run); a run
    that nothing closes is literal backticks.
    """
    pos, end = 0, len(inline)
    while pos < end:
        tick = inline.find(b"`", pos)
        if tick < 0:
            return
        escape = tick
        while escape > pos and inline[escape - 1] == 0x5C:  # backslashes before it
            escape -= 1
        if (tick - escape) % 2:  # an escaped backtick is literal; the rest of its run is a run
            pos = tick + 1
            continue
        run = _BACKTICKS.match(inline, tick)
        assert run is not None  # a backtick is there
        length = run.end() - tick
        closer = next(
            (m for m in _BACKTICKS.finditer(inline, run.end()) if m.end() - m.start() == length), None
        )
        if closer is None:
            yield tick, length
            pos = run.end()
        else:
            pos = closer.end()


def _defused(text: str) -> str:
    """The text with each backtick run that closes nothing in its inline text escaped.

    markdown-it-pyrs 0.4 panics (index out of bounds) on a link label holding such a run
    (``[x` ``, ``[a `b` `c``); CommonMark shows an unclosed run as literal backticks, and so shows
    an escaped one: the page is the same, and the engine never meets the run. The inline texts
    (paragraphs, headings, table cells, list items) are found by the engine's own block parse.
    """
    data = text.encode("utf-8", "surrogatepass")
    edits: list[int] = []
    for node in _blocks_parser().tree(text).walk():
        if node.name == "text" and node.srcmap is not None:
            start, end = node.srcmap
            for offset, length in _unclosed_runs(data[start:end]):
                edits.extend(range(start + offset, start + offset + length))
    if not edits:
        return text
    parts: list[bytes] = []
    last = 0
    for at in edits:
        parts += [data[last:at], b"\\"]
        last = at
    parts.append(data[last:])
    return b"".join(parts).decode("utf-8", "surrogatepass")


def _render(text: str) -> str:
    """Render with the engine: texts with a ``[`` and a backtick defused first (``_defused``).

    Should the engine still panic, the text is rendered again without link labels (its links
    stay text, autolinks still work); pyo3 raises the panic as a BaseException, and its message
    goes to stderr as any native code's would: no process-wide redirection silences other threads.
    """
    if "[" not in text or "`" not in text:
        return markdown_parser().render(text)
    text = _defused(text)
    try:
        return markdown_parser().render(text)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # pyo3_runtime.PanicException
        log.warning("the markdown engine failed on a text; its links are shown as text")
        markdown_parser.cache_clear()
    return _labels_off_parser().render(text)
