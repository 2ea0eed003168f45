"""``build --out s3://bucket/prefix``: a site built in a local staging folder, then published to a
bucket so that it is whole at every moment, as a local build is.

Only files whose content changed travel (the bucket holds ``.sessiontree/published.json``: each
file's SHA-256 as last published). Order: every file in a folder (the session pages, images,
Pagefind's fragments) first; then the files that link to them: the top-level data the pages fetch
(the index's row files, the usage page's files of sessions by month, the pane's list, Pagefind's
entry), then the top-level pages; then the list of what is published; stale files are deleted last.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from sessiontree.archive.keep.stores import BucketStore
from sessiontree.site.layout import STATE_DIR

PUBLISHED = f"{STATE_DIR}/published.json"
LINKING = ("pagefind/pagefind-entry.json",)
"""Files in a folder that still link to others (published with the top-level files)."""


@dataclass(slots=True)
class Published:
    where: str
    sent: list[str] = field(default_factory=list)
    unchanged: int = 0
    deleted: list[str] = field(default_factory=list)


def _files(site: Path) -> dict[str, str]:
    """Each file of the built site (its own state left out) -> the SHA-256 of its bytes."""
    found: dict[str, str] = {}
    for top, dirs, names in os.walk(site):
        rel_top = Path(top).relative_to(site).as_posix()
        if rel_top == STATE_DIR:
            dirs[:] = []
            continue
        for name in names:
            if name.startswith(".") and name.endswith(".tmp"):
                continue  # a write under way in another build: never published
            rel = name if rel_top == "." else f"{rel_top}/{name}"
            found[rel] = hashlib.sha256((Path(top) / name).read_bytes()).hexdigest()
    return found


def _links(rel: str) -> bool:
    return "/" not in rel or rel in LINKING


def publish_site(site: Path, url: str, jobs: int = 8) -> Published:
    """Publish the built ``site`` to ``url`` (``s3://bucket/prefix``); see the module."""
    store = BucketStore(url)
    result = Published(store.where)
    raw = store.get(PUBLISHED)
    try:
        before: dict[str, str] = dict(json.loads(raw)) if raw else {}
    except (ValueError, TypeError):
        before = {}  # unreadable: everything is sent again
    now = _files(site)
    changed = sorted(rel for rel, digest in now.items() if before.get(rel) != digest)
    result.unchanged = len(now) - len(changed)

    def send(rel: str) -> None:
        kind = mimetypes.guess_type(rel)[0] or "application/octet-stream"
        store.put(rel, (site / rel).read_bytes(), content_type=kind)

    with ThreadPoolExecutor(jobs, thread_name_prefix="publish") as pool:
        pages = [r for r in changed if _links(r) and r.endswith(".html")]  # after the data they fetch
        data = [r for r in changed if _links(r) and not r.endswith(".html")]
        for group in ([r for r in changed if not _links(r)], data, pages):
            list(pool.map(send, group))  # the whole group is in before the next starts
            result.sent += group
    store.put(PUBLISHED, json.dumps(now, sort_keys=True).encode(), content_type="application/json")
    for rel in sorted(set(before) - set(now)):
        store.delete(rel)
        result.deleted.append(rel)
    return result
