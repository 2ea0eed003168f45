"""The site's usage page: cost and tokens per day by model, top sessions linked to their pages."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sessiontree.archive.collection import Sources
from sessiontree.archive.usage import UsageRecord
from sessiontree.pages.nav import NavLinks
from sessiontree.pages.usage_page import UsagePageOptions, render_usage_page
from sessiontree.site import layout
from sessiontree.site.layout import USAGE_PAGE as USAGE_PAGE
from sessiontree.site.manifest import PageRecord
from sessiontree.site.usage_chunks import usage_chunks, write_usage_chunks


def write_usage_page(
    site: Path,
    sources: Sources,
    pages: dict[str, PageRecord],
    records: Sequence[UsageRecord],
    *,
    theme: str = "auto",
    nav: NavLinks | None = None,
) -> bool:
    """Write ``usage.html`` from the listing's usage ``records`` (``sources.usage_records()``, no
    full-text index);
    return whether it or a file of its sessions changed. Only the sessions built (``pages``, by the
    collection's keys) are counted and linked. The sessions of a dated or combined filter are in
    files by month beside it (``site.usage_chunks``), the page naming the months.
    """
    keys = {path: sources.key_of(path) for path in dict.fromkeys(r.path for r in records)}  # each once
    built = [r for r in records if keys[r.path] in pages]  # only those built

    def link_for(path: str) -> str | None:
        rec = pages.get(keys.get(path) or "")
        return rec.page if rec is not None else None

    chunks = usage_chunks(built, link_for)
    changed = write_usage_chunks(site, chunks)
    options = UsagePageOptions(title="Usage", link_for=link_for, theme=theme, nav=nav, chunks=tuple(chunks))
    data = render_usage_page(built, options).encode("utf-8", "replace")
    target = site / USAGE_PAGE
    try:
        if target.read_bytes() == data:
            return changed
    except OSError:
        pass
    layout.write_atomic(target, data)
    return True
