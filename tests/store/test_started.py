"""A pi header rewritten later than the session began: the page's Date and inspect's Created are the
first entry's time; inspect also shows the header's own time where the two differ (issue 31)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.exporter import render_session_html
from sessiontree.store.load import load_session

FIRST = "2026-02-01T09:00:00.000Z"
REWRITTEN = "2026-02-03T18:30:00.000Z"


def _file(tmp_path: Path, header_ts: str) -> Path:
    path = tmp_path / "s.jsonl"
    lines = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": header_ts, "cwd": "/w"},
        {"type": "message", "id": "u1", "parentId": None, "timestamp": FIRST,
         "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}},
        {"type": "message", "id": "a1", "parentId": "u1", "timestamp": "2026-02-01T09:00:05.000Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(v) + "\n" for v in lines))
    return path


def test_a_rewritten_header_does_not_move_the_date(tmp_path: Path) -> None:
    path = _file(tmp_path, REWRITTEN)
    session = load_session(path)
    assert session.timestamp == REWRITTEN and session.started == FIRST
    page = render_session_html(session)
    # the page's times are whole seconds in UTC (the reader's browser shows its own zone)
    assert f'<dd class="st-date"><time datetime="{FIRST.replace(".000Z", "Z")}">' in page
    data = json.loads(CliRunner().invoke(cli, ["inspect", "--json", str(path)]).output)
    assert data["created"] == FIRST and data["header_time"] == REWRITTEN
    text = CliRunner().invoke(cli, ["inspect", str(path)]).output
    assert f"Created   {FIRST} (header written {REWRITTEN})" in text


def test_a_header_older_than_its_entries_is_the_date(tmp_path: Path) -> None:
    header_ts = "2026-02-01T08:59:59.000Z"
    session = load_session(_file(tmp_path, header_ts))
    assert session.started == header_ts
    data = json.loads(CliRunner().invoke(cli, ["inspect", "--json", str(session.path)]).output)
    assert data["created"] == header_ts and data["header_time"] is None


def test_a_listing_created_is_the_first_entry_time_too(tmp_path: Path) -> None:
    # The index's "created" (read from the file's first bytes) follows the same rule as the page.
    from sessiontree.store.discovery import read_session_info

    info = read_session_info(_file(tmp_path, REWRITTEN))
    assert info is not None and info.created == FIRST


def test_a_real_rewritten_header_lists_its_first_day() -> None:
    from sessiontree.store.discovery import read_session_info
    from tests.conftest import real_file

    # A real pi file whose header was rewritten a day after its first entry.
    info = read_session_info(real_file("pi/pi-mono--test_fixtures_before-compaction.jsonl"))
    assert info is not None and info.created == "2025-12-08T22:41:05.306Z"
