"""The site's usage page: cost and tokens per day by model, top sessions linked to their pages."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from sessiontree.archive.search import SearchIndex
from sessiontree.pages.usage_page import UsagePageOptions, render_usage_page
from sessiontree.site import layout
from sessiontree.site.layout import USAGE_PAGE as USAGE_PAGE
from sessiontree.site.manifest import PageRecord


def _key(path: str, base: Path) -> str | None:
    try:
        return Path(path).relative_to(base).as_posix()
    except ValueError:
        return None


def write_usage_page(
    site: Path,
    root: Path,
    pages: dict[str, PageRecord],
    *,
    theme: str = "auto",
    cache_dir: Path | None = None,
    more_roots: tuple[Path, ...] = (),
    key_of: Callable[[str], str | None] | None = None,
) -> bool:
    """Write ``usage.html`` from the archive index (user cache dir); return whether it changed.

    With ``more_roots``, ``key_of`` maps a session file to its page key.
    """
    bases = [Path(os.path.abspath(r)) for r in (root, *more_roots)]
    key = key_of or (lambda path: _key(path, bases[0]))
    with SearchIndex(bases, cache_dir, keep_out=[site]) as index:
        index.update()
        records = [r for r in index.usage() if key(r.path) in pages]  # only the sessions built

    def link_for(path: str) -> str | None:
        rec = pages.get(key(path) or "")
        return rec.page if rec is not None else None

    html = render_usage_page(records, UsagePageOptions(title="Usage", link_for=link_for, theme=theme))
    data = html.encode("utf-8", "replace")
    target = site / USAGE_PAGE
    try:
        if target.read_bytes() == data:
            return False
    except OSError:
        pass
    layout.write_atomic(target, data)
    return True
