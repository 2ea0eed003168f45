"""Where things go in a built site, and the atomic writes every output file goes through."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path

from sessiontree.store.atomic import TEMP_GLOB as TEMP_GLOB
from sessiontree.store.atomic import remove_stale_temps as remove_stale_temps
from sessiontree.store.atomic import write_atomic as store_write_atomic

STATE_DIR = ".sessiontree"
"""The builder's own files inside the site: the manifest and the search records."""

MANIFEST = f"{STATE_DIR}/manifest.json"
RECORDS_DIR = f"{STATE_DIR}/records"
SESSIONS_DIR = "sessions"
ASSETS_DIR = "assets"
USAGE_PAGE = "usage.html"

_SAFE_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_UNSAFE_CHAR = re.compile(r"[^A-Za-z0-9._-]")
MARK = "~"
"""Never in a kept segment (``_SAFE_SEGMENT``), URL-safe: what the scheme adds to a name carries it,
so no session's own name can ever become another page's path (a test checks it)."""


def _safe_segment(segment: str) -> str:
    if _SAFE_SEGMENT.fullmatch(segment):
        return segment
    digest = hashlib.sha256(segment.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    cleaned = _UNSAFE_CHAR.sub("_", segment).lstrip("._-")[:80]
    return f"{cleaned or 'h'}{MARK}{digest}"  # starts as a kept name does: a letter or digit


def page_path(key: str) -> str:
    """The site-relative page of a session key (``a/b.jsonl`` -> ``sessions/a/b.html``), URL-safe.

    The one path scheme of a built page: a kept name has no ``~``; a name that is not kept is
    ``<cleaned>~<16 hex of its hash>``; a Claude Code subagent's page is ``<page>~agent-<id>``. A
    ``.html`` stem never ends another key's folder (``a.jsonl`` -> ``a.html``, ``a/x.jsonl`` -> ``a/``).
    """
    parts = key.split("/")
    stem = parts[-1][: -len(".jsonl")] if parts[-1].endswith(".jsonl") else parts[-1]
    return "/".join([SESSIONS_DIR, *(_safe_segment(p) for p in parts[:-1]), _safe_segment(stem) + ".html"])


def subagent_page_path(page: str, agent_id: str) -> str:
    """The page of a Claude Code subagent's transcript, beside its session's page (``s.html`` ->
    ``s~agent-<id>.html``): not a listed session, an extra page of its parent's. A session file
    named ``s.agent-<id>.jsonl`` keeps ``s.agent-<id>.html``: the ``~`` keeps them apart."""
    return f"{page.removesuffix('.html')}{MARK}agent-{_safe_segment(agent_id)}.html"


def records_path(key: str) -> str:
    """The site-relative file holding a session's search records."""
    return f"{RECORDS_DIR}/{hashlib.sha256(key.encode('utf-8', 'surrogatepass')).hexdigest()[:32]}.json.gz"


def write_atomic(path: Path, data: bytes | Iterable[str]) -> None:
    """Write a site file atomically (creating its folder): a reader sees the old file or the new one.

    Its folder is not fsynced: a site is made again from its sources, and a build writes thousands
    of files (a folder's fsync each would be a journal commit each)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    store_write_atomic(path, data, durable=False)
