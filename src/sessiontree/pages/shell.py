"""The page shell of the many-session pages: the palette before each page's stylesheet, one CSP."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from markupsafe import Markup

from sessiontree.errors import ExportError
from sessiontree.exporter.csp import build_csp, csp_hash
from sessiontree.exporter.options import check_csp_sources, check_theme
from sessiontree.exporter.templating import read_asset
from sessiontree.pages.nav import nav_css

PALETTE = "palette.css"


def check_inline(texts: Iterable[str]) -> None:
    """Refuse our own scripts and styles if they hold a stray ``</script`` or ``</style``."""
    for text in texts:
        # Our own files, but a stray "</" would end the element early and break the page.
        if "</script" in text.lower() or "</style" in text.lower():
            raise ExportError("a page's scripts and styles must not contain '</script' or '</style'")


def page_css(name: str) -> str:
    """The text of a page's one ``<style>``: the palette, then its own stylesheet from ``templates/``."""
    css = read_asset(PALETTE) + read_asset(name)
    check_inline([css])
    return css


def page_csp(
    css: str,
    scripts: Iterable[str] = (),
    *,
    connect_src: Iterable[str] = (),
    more: Mapping[str, tuple[str, ...]] | None = None,
    img_src: tuple[str, ...] = ("'none'",),
) -> str:
    """The policy of a many-session page: its own hashed style and scripts, nothing from the network.

    ``more`` adds sources to a directive (checked like PageOptions' ``csp_sources``).
    """
    connect = tuple(connect_src)
    extra = {"connect-src": connect, **(more or {})}
    check_csp_sources(extra)
    listed = list(scripts)
    directives = {
        "script-src": [f"'{csp_hash(s)}'" for s in listed],
        "style-src": [f"'{csp_hash(css)}'"],
        "img-src": list(img_src),
    }
    if not listed:
        del directives["script-src"]
    return build_csp(directives, extra)


def shell_fields(
    theme: str,
    title: str,
    stylesheet: str,
    scripts: Sequence[str] = (),
    *,
    connect_src: Iterable[str] = (),
    more: Mapping[str, tuple[str, ...]] | None = None,
) -> dict[str, Any]:
    """What every many-session template takes: the theme (checked), title, the palette and the
    page's ``stylesheet`` with the nav bar's style, its scripts (checked) and the CSP over both."""
    check_theme(theme)
    css = page_css(stylesheet) + nav_css()
    check_inline(scripts)
    return {
        "theme": theme,
        "title": title,
        "css": Markup(css),
        "scripts": [Markup(s) for s in scripts],
        "csp": Markup(page_csp(css, scripts, connect_src=connect_src, more=more)),
    }
