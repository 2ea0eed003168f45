"""The exporter stage of sessiontree: a session to a self-contained HTML page (and to text)."""

from __future__ import annotations

from sessiontree.exporter.api import (
    PageOptions,
    RenderedSession,
    RenderOptions,
    export_to_file,
    load_for_export,
    render_session,
    render_session_html,
)
from sessiontree.exporter.page import image_files, iter_page, live_script
from sessiontree.exporter.render import RenderContext, render_appended_entry, render_entry

__all__ = [
    "PageOptions",
    "RenderContext",
    "RenderOptions",
    "RenderedSession",
    "export_to_file",
    "image_files",
    "iter_page",
    "live_script",
    "load_for_export",
    "render_appended_entry",
    "render_entry",
    "render_session",
    "render_session_html",
]
