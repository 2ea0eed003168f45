"""The collection's rules, one place each: --since, --project, the cache dir, containment, blob dirs."""

from __future__ import annotations

import sqlite3
import sys
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from sessiontree.archive.collection import (
    Sources,
    default_cache_dir,
    in_project,
    is_inside,
    parse_since,
    parse_until,
    project_clause,
    project_path,
)
from sessiontree.errors import FilterError
from sessiontree.store.paths import blob_dirs_for, blob_dirs_near
from sessiontree.store.times import LOCAL_ZONE, MAX_TIME_MS
from tests.conftest import machine_zone

NOW = datetime(2026, 3, 10, 12, tzinfo=UTC).timestamp()


def test_since_takes_dates_times_and_relative_spans() -> None:
    assert parse_since("2026-03-01") == int(datetime(2026, 3, 1, tzinfo=UTC).timestamp() * 1000)
    assert parse_since("2026-03-01T12:00+02:00") == int(
        datetime(2026, 3, 1, 10, tzinfo=UTC).timestamp() * 1000
    )
    assert parse_since("12h", now=NOW) == int((NOW - 12 * 3600) * 1000)
    assert parse_since(" 7d ", now=NOW) == int((NOW - 7 * 86400) * 1000)
    assert parse_since("2W", now=NOW) == int((NOW - 14 * 86400) * 1000)
    for bad in ("last tuesday", "7 days", "", "-3d"):
        with pytest.raises(FilterError, match="Not a date for --since"):
            parse_since(bad)


def test_dates_in_the_machines_zone_begin_at_its_midnight() -> None:
    with machine_zone("America/Los_Angeles"):
        la = ZoneInfo("America/Los_Angeles")
        assert parse_since("2026-03-01", zone=LOCAL_ZONE) == int(
            datetime(2026, 3, 1, tzinfo=la).timestamp() * 1000
        )
        assert parse_since("2026-03-01T21:00", zone=LOCAL_ZONE) == int(
            datetime(2026, 3, 2, 5, tzinfo=UTC).timestamp() * 1000
        )
        assert parse_since("2026-03-01T21:00Z", zone=LOCAL_ZONE) == int(
            datetime(2026, 3, 1, 21, tzinfo=UTC).timestamp() * 1000
        )
        # An --until date ends at the next midnight: the day the clocks go forward is 23 hours long.
        for day, hours in (("2026-03-08", 23), ("2026-11-01", 25), ("2026-03-09", 24)):
            span = parse_until(day, zone=LOCAL_ZONE) - parse_since(day, zone=LOCAL_ZONE)
            assert span == hours * 3_600_000, day
        assert parse_until("2026-03-08") - parse_since("2026-03-08") == 24 * 3_600_000  # UTC by default
        assert parse_until("9999-12-31", zone=LOCAL_ZONE) == MAX_TIME_MS


CWDS = ["/work", "/work/app", "/work/app/sub", "/workshop", "/work-app", "/other"]


@pytest.mark.parametrize(
    ("project", "kept"),
    [
        ("/work", ["/work", "/work/app", "/work/app/sub"]),
        ("/work/app", ["/work/app", "/work/app/sub"]),
        ("/work/app/", ["/work/app", "/work/app/sub"]),
        ("/wor", []),
        ("/", CWDS),
    ],
)
def test_one_project_rule_in_python_and_in_sql(project: str, kept: list[str]) -> None:
    wanted = project_path(project)
    assert [c for c in CWDS if in_project(c, wanted)] == kept
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE files (cwd TEXT)")
    conn.executemany("INSERT INTO files VALUES (?)", [(c,) for c in CWDS])
    where, params = project_clause(wanted, "cwd")
    assert [r[0] for r in conn.execute(f"SELECT cwd FROM files WHERE {where} ORDER BY rowid", params)] == kept


def test_project_values_are_absolute_directories(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    assert project_path("app") == str(tmp_path / "app")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert project_path("~/app/") == str(tmp_path / "app")


def test_one_cache_dir_for_every_command(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "sessiontree"
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / "Library" / "Caches" / "sessiontree"


def test_inside_follows_links_and_counts_the_folder_itself(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    (root / "p").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "link").symlink_to(root / "p")
    assert is_inside(root, root) and is_inside(root / "p" / "cache", root)
    assert is_inside(tmp_path / "link" / "cache", root)  # through a link into the folder
    assert not is_inside(tmp_path / "elsewhere", root) and not is_inside(tmp_path / "sessions2", root)


def test_one_blob_dir_rule_per_root_and_per_file(tmp_path: Path) -> None:
    agent, ours = tmp_path / "agent", tmp_path / "mine"
    project = agent / "sessions" / "--work-app--"
    project.mkdir(parents=True)
    by_root = blob_dirs_near(agent / "sessions", ours)
    assert by_root == [ours / "blobs", agent / "blobs", agent / "sessions" / "blobs"]
    by_file = blob_dirs_for(project / "s.jsonl", ours)
    assert by_file == [ours / "blobs", agent / "blobs", project / "blobs"]
    flat = tmp_path / "flat"
    assert blob_dirs_near(flat, ours) == [ours / "blobs", flat / "blobs"]


def test_a_files_key_is_the_same_cut_as_a_string_or_through_pathlib(tmp_path: Path) -> None:
    """``Sources.key_of`` cuts a normal path under a root as a string: the keys pathlib gives."""
    first, second = tmp_path / "a" / "sessions", tmp_path / "b" / "sessions"
    sources = Sources([first, second], None)
    one, two = sources.key_of(str(first / "p" / "s.jsonl")), sources.key_of(str(second / "p" / "s.jsonl"))
    assert (one, two) == (f"{sources.labels[0]}/p/s.jsonl", f"{sources.labels[1]}/p/s.jsonl")
    assert sources.key_of(f"{second}/./p//s.jsonl") == two  # not normal: pathlib's cut
    assert sources.key_of(f"{first}-other/p/s.jsonl") is None  # a sibling whose name starts alike
    assert sources.key_of(str(tmp_path / "elsewhere.jsonl")) is None
