"""A fresh server over a folder never seen before: its first scan reads the newest files first and
lists the rest from their stat (pending) once its time is up; the background pass reads them, and
the listing it ends with is the one a whole read gives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sessiontree.archive import catalog
from sessiontree.archive.collection import Sources
from sessiontree.archive.usage_query import RecordsAnswers, UsageFilter
from sessiontree.serve import listing as listing_module
from sessiontree.serve.listing import Listing
from tests.serve.conftest import write_session


def _two_roots(tmp_path: Path) -> list[Path]:
    """Eight sessions in two roots, their times interleaved (the newest two in different roots)."""
    roots = [tmp_path / "one", tmp_path / "two"]
    for n in range(8):
        path = write_session(roots[n % 2] / f"--work-{n % 3}--" / f"s{n}.jsonl", f"s{n}", f"/work/p{n % 3}")
        os.utime(path, (1_700_000_000 + n * 60, 1_700_000_000 + n * 60))
    return roots


def _out_of_time(monkeypatch: pytest.MonkeyPatch, read: int) -> None:
    """A first scan whose time is up at once: it reads the newest ``read`` files (its first
    window), and lists the rest from their stat, pending."""
    monkeypatch.setattr(catalog, "READ_FIRST", read)
    monkeypatch.setattr(listing_module, "FIRST_READ_SECONDS", -1.0)


def test_a_first_scan_out_of_time_reads_the_newest_files_and_the_pass_reads_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    roots = _two_roots(tmp_path)
    _out_of_time(monkeypatch, 3)  # the first window: three rows
    listing = Listing(roots, tmp_path / "cache")
    first = listing.scan()
    assert [e.path.name for e in first] == [f"s{n}.jsonl" for n in range(7, -1, -1)]  # every file
    read = [e.path.name for e in first if not e.pending]
    assert read == ["s7.jsonl", "s6.jsonl", "s5.jsonl"]  # the newest three, across both roots
    assert all(e.title is None and e.cwd == "" for e in first[3:])  # the rest: their stat alone
    assert [e.message_count for e in first[:3]] == [2, 2, 2]

    settled, more = listing.settle_some(60)
    assert (settled, more) == (True, False)
    listing.changed()
    whole = Sources(roots, None).scan(exact=True)  # a fresh catalog reading every file
    assert listing.scan() == whole
    assert not any(e.pending for e in whole)

    # The cache written once every file was read: a new server lists the same at once.
    again = Listing(roots, tmp_path / "cache")
    assert again.scan() == whole


def test_a_file_listed_from_its_stat_is_shown_under_the_folder_its_name_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pi's folder names: "--home-dev-my-app--" is /home/dev/my-app or /home/dev/my/app; a file of
    # the folder read first tells which; a one-word name says it alone; a folder no read file
    # names (its sessions moved from elsewhere) tells nothing.
    root = tmp_path / "sessions"
    layout = [
        ("--srv-x--", "/srv/x"),
        ("--old-place--", "/elsewhere"),
        ("--home-dev-my-app--", "/home/dev/my-app"),
        ("--work--", "/work"),
        ("--home-dev-my-app--", "/home/dev/my-app"),
        ("--old-place--", "/elsewhere"),
    ]
    for n, (folder, cwd) in enumerate(layout):
        path = write_session(root / folder / f"s{n}.jsonl", f"s{n}", cwd)
        os.utime(path, (1_700_000_000 + n * 60, 1_700_000_000 + n * 60))
    _out_of_time(monkeypatch, 2)  # s5 and s4 read
    listing = Listing([root], tmp_path / "cache")
    first = listing.scan()
    assert [e.pending for e in first] == [False, False, True, True, True, True]
    assert {e.path.name: e.cwd for e in first} == {
        "s5.jsonl": "/elsewhere",
        "s4.jsonl": "/home/dev/my-app",
        "s3.jsonl": "/work",  # one word: its name alone
        "s2.jsonl": "/home/dev/my-app",  # as s4, read from its folder
        "s1.jsonl": "",  # "--old-place--" is not the name of /elsewhere's folder: not told
        "s0.jsonl": "",  # "--srv-x--": /srv/x or /srv-x, no file of it read
    }
    assert listing.settle_some(60) == (True, False)  # each read: its own cwd wins
    listing.changed()
    assert listing.scan() == Sources([root], None).scan(exact=True)
    assert {e.path.name: e.cwd for e in listing.scan()}["s1.jsonl"] == "/elsewhere"


def test_while_the_pass_reads_a_watched_listing_lists_what_it_read_at_most_so_often(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each new listing is made again whole by every view (at 100,000 sessions, seconds): not at
    # each of the pass's batches, but once it is done (or its interval passed: here never).
    roots = _two_roots(tmp_path)
    _out_of_time(monkeypatch, 3)
    monkeypatch.setattr(listing_module, "SETTLED_LOOK_SECONDS", 3600.0)
    listing = Listing(roots, tmp_path / "cache")
    listing.watched(True)
    first = listing.scan()
    assert sum(e.pending for e in first) == 5
    assert listing.settle_some(0) == (True, True)  # one file read, four left
    assert listing.scan() is first
    assert listing.settle_some(60) == (True, False)  # the pass is done: listed at once
    done = listing.scan()
    assert done == Sources(roots, None).scan(exact=True)


def test_a_file_listed_from_its_stat_shows_the_agent_of_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.keep.conftest import claude_session

    root = tmp_path / "projects"
    for n in range(4):
        path = claude_session(root / "-home-dev-demo", f"{n:08d}-0000-4000-8000-000000000000", f"p{n}")
        os.utime(path, (1_700_000_000 + n * 60, 1_700_000_000 + n * 60))
    _out_of_time(monkeypatch, 1)
    first = Listing([root], tmp_path / "cache").scan()
    assert [e.pending for e in first] == [False, True, True, True]
    assert [e.agent for e in first] == ["claude"] * 4  # not pi's, the default of a record


def test_while_the_pass_counts_the_usage_rows_are_made_once_then_again_when_it_settles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # At 100,000 sessions making the usage rows is ~0.85 s of CPU, taken from the pass the page
    # waits for: while it counts, the rows made first (with the files left then) are kept, the
    # count of files left is what the page's event stream says, and the exact rows are made as
    # soon as every file is counted.
    roots = _two_roots(tmp_path)
    _out_of_time(monkeypatch, 3)
    monkeypatch.setattr(listing_module, "SETTLED_LOOK_SECONDS", 0.0)
    listing = Listing(roots, tmp_path / "cache")
    listing.scan()
    first, left = listing.usage_so_far()
    assert left == 5 and listing.usage_left() == 5
    assert listing.settle_some(0) == (True, True)  # one file read, four left
    again, left_again = listing.usage_so_far()
    assert again is first and left_again == 5  # as made, and as many left as then
    assert listing.usage_left() == 4  # the count as it is now

    assert listing.settle_some(60) == (True, False)
    assert listing.usage_left() == 0
    done, none_left = listing.usage_so_far()  # every file counted: made again at once
    assert none_left == 0 and done is not first
    whole = RecordsAnswers(Listing(roots, None).usage_records())
    assert done.groups() == whole.groups()
    assert done.sessions(UsageFilter(), 0, 50) == whole.sessions(UsageFilter(), 0, 50)
