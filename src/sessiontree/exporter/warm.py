"""What a fresh server prepares while it waits for its first request, so that request pays none of it:
the page's templates compiled, the markdown parser built, the lexers of the languages sessions use
most compiled (Pygments compiles a lexer's every rule when it is first made: 15-45 ms each)."""

from __future__ import annotations

import logging

from sessiontree.exporter.highlight import lexer_by_name, theme_css
from sessiontree.exporter.markdown import render_markdown
from sessiontree.exporter.templating import get_template

log = logging.getLogger(__name__)

COMMON_LANGUAGES = (
    *("bash", "typescript", "json", "javascript", "markdown", "python", "xml", "yaml", "tsx", "diff"),
    *("toml", "html", "css"),
)
"""The fenced languages and file types of the real fixtures, most used first."""

PAGE_TEMPLATES = ("page.html.j2", "index.html.j2")
MACRO_TEMPLATES = ("macros.html.j2", "sections.html.j2", "nav.html.j2")

_SAMPLE = "# t\n\n*a* [b](https://example.org) `c`\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n- [ ] d\n"


def warm_up() -> None:
    """Compile what a session page needs (idempotent; safe beside a render in another thread)."""
    try:
        for name in PAGE_TEMPLATES:
            get_template(name)
        for name in MACRO_TEMPLATES:
            get_template(name).module  # noqa: B018  # its macros are made when the module is
        render_markdown(_SAMPLE)
        theme_css()
        for lang in COMMON_LANGUAGES:
            lexer_by_name(lang)
    except Exception:  # a warm-up is never worth a failure: the first request does it itself
        log.debug("warm-up stopped", exc_info=True)
