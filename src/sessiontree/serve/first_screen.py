"""A session page's first screen before its file is read whole: the header's identity and the
active path's first messages from a quick scan (``store.quick_scan``), kept per file state.

A 22 MB session read whole took 0.3 s of CPU and its header's statistics 0.2 s more before the
first prompt could go out; the scan reads ids, parents and types and parses only what the first
screen shows. A second visit of an unchanged file (same size and modification time) takes the
kept screen. Where the scan does not apply (another agent's format, an older version, a damaged
file) there is no first screen here and the page is made from the whole load, as before.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from sessiontree.exporter.api import render_identity_shell
from sessiontree.exporter.options import PageShell, RelatedPages, RenderOptions
from sessiontree.exporter.preview import first_screen_ids, render_first_screen
from sessiontree.readers import foreign_agent
from sessiontree.store.quick_scan import scan_session

KEPT = 32
"""First screens kept (the most recently made)."""


@dataclass(frozen=True)
class FirstScreen:
    """What a page's first chunk shows: its shell (header without statistics) and first messages."""

    shell: PageShell
    preview: str


@dataclass(frozen=True)
class _Asked:
    """A first screen asked for: the file as it is now (size, modification time) and the link."""

    path: Path
    size: int
    mtime_ns: int
    agent_dir: Path | None
    leaf_id: str | None
    target_id: str | None
    related: RelatedPages | None


_KEPT: OrderedDict[_Asked, FirstScreen] = OrderedDict()
_LOCK = threading.Lock()
_MAKING: dict[_Asked, threading.Lock] = {}


def first_screen(
    path: Path,
    *,
    agent_dir: Path | None,
    leaf_id: str | None,
    target_id: str | None,
    related: RelatedPages | None,
) -> FirstScreen | None:
    """The first screen of a session file for a link's leaf and target, or None where only the
    whole load shows it right. Clients asking for the same one at once share one scan."""
    try:
        stat = path.stat()
    except OSError:
        return None
    asked = _Asked(path, stat.st_size, stat.st_mtime_ns, agent_dir, leaf_id, target_id, related)
    with _LOCK:
        making = _MAKING.setdefault(asked, threading.Lock())
    with making:
        with _LOCK:
            found = _KEPT.get(asked)
            if found is not None:
                _KEPT.move_to_end(asked)
                return found
        made = _make(asked)
        with _LOCK:
            _MAKING.pop(asked, None)
            if made is not None:
                _KEPT[asked] = made
                while len(_KEPT) > KEPT:
                    _KEPT.popitem(last=False)
    return made


def _make(asked: _Asked) -> FirstScreen | None:
    if foreign_agent(asked.path) is not None:
        return None
    scan = scan_session(asked.path)
    if scan is None:
        return None
    leaf = asked.leaf_id if asked.leaf_id in scan.index else scan.leaf_id
    ids = first_screen_ids(scan.path_to, scan.index, leaf, asked.target_id)
    # The system section is the file's leaf's (as the whole page's shell), whatever the link's leaf.
    init_id = scan.last_of_type(scan.path_to(scan.leaf_id), "session_init") if scan.leaf_id else None
    session = scan.read([*ids, *([init_id] if init_id else [])], agent_dir=asked.agent_dir)
    if session is None:
        return None
    by_id = {entry["id"]: entry for entry in session.entries}
    preview = render_first_screen(
        [by_id[i] for i in ids], session.tree.labels, session.joints, scan.parent_of
    )
    init = by_id.get(init_id) if init_id else None
    shell = render_identity_shell(session, init, scan.leaf_id, RenderOptions(related=asked.related))
    return FirstScreen(shell, preview)
