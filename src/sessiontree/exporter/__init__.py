"""The exporter stage of sessiontree: a session to a self-contained HTML page (and to text).

Its public names load on first use, so importing a light submodule (``exporter.options``, the
index page) does not pull in the renderer, Pygments and markdown-it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sessiontree.exporter.api import PageOptions, RenderedSession, RenderOptions, render_session
    from sessiontree.exporter.context import RenderContext
    from sessiontree.exporter.options import ExportOptions
    from sessiontree.exporter.page import image_files, iter_page, live_script
    from sessiontree.exporter.recipe import Page, PageTarget, make_page, render_session_html
    from sessiontree.exporter.render import render_appended_entry, render_entry

_WHERE = {
    "PageOptions": "api",
    "RenderedSession": "api",
    "RenderOptions": "api",
    "render_session": "api",
    "ExportOptions": "options",
    "Page": "recipe",
    "PageTarget": "recipe",
    "make_page": "recipe",
    "render_session_html": "recipe",
    "image_files": "page",
    "iter_page": "page",
    "live_script": "page",
    "RenderContext": "context",
    "render_appended_entry": "render",
    "render_entry": "render",
}

__all__ = [
    "ExportOptions",
    "Page",
    "PageOptions",
    "PageTarget",
    "RenderContext",
    "RenderOptions",
    "RenderedSession",
    "image_files",
    "iter_page",
    "live_script",
    "make_page",
    "render_appended_entry",
    "render_entry",
    "render_session",
    "render_session_html",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'sessiontree.exporter' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"sessiontree.exporter.{module}"), name)
    globals()[name] = value
    return value
