"""The exporter stage of sessiontree: a session to a self-contained HTML page (and to text)."""

from __future__ import annotations

from sessiontree.exporter.api import (
    RenderedSession,
    export_to_file,
    load_for_export,
    render_session,
    render_session_html,
)
from sessiontree.exporter.render import RenderContext, render_appended_entry, render_entry

__all__ = [
    "RenderContext",
    "RenderedSession",
    "export_to_file",
    "load_for_export",
    "render_appended_entry",
    "render_entry",
    "render_session",
    "render_session_html",
]
