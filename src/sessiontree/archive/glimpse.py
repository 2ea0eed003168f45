"""A first look at folders no listing was made of yet (issue 54 item 1: "a folder never seen before
shows its first rows from the newest files first, before every file has been read").

A fresh server's first listing walks and stats every file and reads the newest (at 100,000
sessions: seconds). With no page kept from a last run, its first ``GET /`` answers instead with
what ``glimpse`` finds by a deadline: the files a walk of the folders met by then, newest first,
the newest of them read while time is left, the others listed from their stat alone. Never
stored anywhere: the listing, once made, replaces it (its state differs, so the page asks again).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from sessiontree.archive.catalog_read import FolderCwds, _bare, key_of, read_entry, shown_as
from sessiontree.archive.collection import root_labels
from sessiontree.archive.keep.roots import kept_root_of
from sessiontree.archive.session_files import iter_session_files
from sessiontree.store.discovery import SessionInfo


def glimpse(
    roots: Sequence[Path],
    walked_by: float,
    read_by: float,
    read: int,
    given_up: Callable[[], bool] = lambda: False,
) -> list[SessionInfo]:
    """The session files under ``roots`` a walk finds until ``walked_by`` (``time.monotonic()``),
    newest first, keys as ``Sources`` gives them; up to ``read`` of the newest read until
    ``read_by``, the others bare records of their stat (pending, shown as their root's agent when
    one of its files was read). Files the walk had not reached are missing: a first look, not a
    listing. Once ``given_up()`` (asked every 256 files walked, and before each read): nothing
    more is looked at."""
    found: list[tuple[float, str, int, Path, str | None, int]] = []
    for index, root in enumerate(roots):
        for path, parent in iter_session_files(root):
            if len(found) % 256 == 255 and given_up():
                return []
            if time.monotonic() >= walked_by:
                break
            try:
                st = os.stat(path)
            except OSError:
                continue
            found.append((-st.st_mtime, key_of(root, path), index, path, parent, st.st_size))
        if time.monotonic() >= walked_by:
            break
    found.sort(key=lambda f: (f[0], f[1]))
    labels = root_labels(roots)
    kept = [kept_root_of(root) for root in roots]
    agents: dict[int, str] = {}
    cwds = FolderCwds()  # a bare record is shown under the cwd its folder's name says
    shown: list[SessionInfo] = []
    for n, (newest, key, index, path, parent, size) in enumerate(found):
        entry: SessionInfo | None = None
        if n < read and time.monotonic() < read_by and not given_up():
            done = read_entry(roots[index], path, parent, None, exact=False).entry
            if done.error is None:
                entry = done
                agents.setdefault(index, done.agent)
                cwds.learn(done)
        if entry is None:
            entry = _bare(path, key, parent, size, -newest, agent=agents.get(index, "pi"), cwd=cwds.of(path))
        shown.append(shown_as(entry, f"{labels[index]}/" if labels[index] else "", kept[index]))
    return shown
