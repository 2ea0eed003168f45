"""The pane's list in a built site: ``sessions.json`` holds the newest ``CHUNK_ROWS`` sessions and
names the files of the rest (named after their records: kept while they stay the same); a smaller
list later removes the chunks it no longer needs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sessiontree.archive.collection import Sources
from sessiontree.site import browse
from sessiontree.site.manifest import PageRecord
from tests.archive.sessions import make_session


def _write(site: Path, root: Path) -> list[str]:
    sources = Sources([root], None)
    entries = sources.scan()
    pages = {e.key: PageRecord(1, 0.0, "", f"p/{e.key}.html", "") for e in entries}
    browse.write_sessions_data(site, entries, pages, sources.usage_records())
    return [e.key for e in sorted(entries, key=lambda e: -e.modified)]


def test_the_pane_list_is_written_in_chunks_and_old_chunks_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(browse, "CHUNK_ROWS", 2)
    root, site = tmp_path / "sessions", tmp_path / "site"
    site.mkdir()
    made = [make_session(root, f"s{n}", seed=n + 1, turns=2, days=n)[0] for n in range(5)]
    keys = _write(site, root)
    first = json.loads((site / "sessions.json").read_text())
    assert [s["k"] for s in first["sessions"]] == keys[:2]
    assert all(re.fullmatch(r"sessions-[0-9a-f]{16}\.json", name) for name in first["more"])
    rest = [json.loads((site / name).read_text())["sessions"] for name in first["more"]]
    assert [s["k"] for chunk in rest for s in chunk] == keys[2:]  # each once, in order
    assert all(s["m"] for s in first["sessions"])  # each with its models, from the listing's usage
    # Written again with nothing changed: the same names, no file written anew.
    stamps = {name: (site / name).stat().st_mtime_ns for name in first["more"]}
    _write(site, root)
    assert json.loads((site / "sessions.json").read_text()) == first
    assert {name: (site / name).stat().st_mtime_ns for name in first["more"]} == stamps
    for path in made[2:]:
        path.unlink()
    assert len(_write(site, root)) == 2
    again = json.loads((site / "sessions.json").read_text())
    assert again["more"] == [] and len(again["sessions"]) == 2
    assert sorted(p.name for p in site.glob("sessions*.json")) == ["sessions.json"]
