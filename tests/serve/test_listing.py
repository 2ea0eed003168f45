"""Serve's listing while the watcher reports every change: a request answers from the last scan
(no stat of every file) until a change is reported; without the watcher each scan looks again."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import anyio

from sessiontree.serve.listing import Listing
from sessiontree.store.discovery import SessionInfo
from tests.conftest import GEN_SESSION
from tests.serve.conftest import append_line, write_session
from tests.serve.test_cold_listing import raw_message_count
from tests.store.helpers import msg


def test_a_watched_listing_scans_again_only_after_a_reported_change(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = write_session(root / "--work-a--" / "a.jsonl", "a")
    listing = Listing([root], tmp_path / "cache")
    first = listing.scan()
    assert [e.message_count for e in first] == [2]
    assert listing.scan() is not first  # not watched: every scan looks at the files

    listing.watched(True)
    watched = listing.scan()
    append_line(path, msg("u2", "a1", "user", "more"))
    write_session(root / "--work-b--" / "b.jsonl", "b")
    assert listing.scan() is watched  # nothing reported yet: the last scan's listing
    listing.changed()
    again = listing.scan()
    assert again is not watched and sorted(e.key for e in again) == [
        "--work-a--/a.jsonl",
        "--work-b--/b.jsonl",
    ]
    assert listing.scan() is again
    assert listing.scan(again=True) is not again  # a key not listed yet looks again whatever was reported

    listing.watched(False)  # the watch ended: changes may go unreported
    assert listing.scan() is not listing.scan()


def _watched_with_a_big_file(tmp_path: Path) -> tuple[Listing, Path]:
    """A watched listing of one session big enough to be listed from its prefix (pending)."""
    root = tmp_path / "sessions"
    big = root / "--work-big--" / "big.jsonl"
    big.parent.mkdir(parents=True)
    cmd = [sys.executable, str(GEN_SESSION), "--turns", "100", "--seed", "3", "-o", str(big)]
    subprocess.run(cmd, check=True)
    listing = Listing([root], tmp_path / "cache")
    listing.watched(True)
    return listing, big


def test_a_count_settled_by_the_background_pass_shows_at_the_next_scan(tmp_path: Path) -> None:
    listing, big = _watched_with_a_big_file(tmp_path)
    before = listing.scan()
    assert before[0].message_count is None  # listed from its prefix: pending
    assert listing.scan() is before
    assert listing.settle_some(60) == (True, False)
    after = listing.scan()
    assert after is not before and after[0].message_count == raw_message_count(big)


def test_a_scans_version_names_the_list_it_returned(tmp_path: Path) -> None:
    # The pane's JSON is kept by the version a scan returns: a version read after the scan, once the
    # background pass had settled a file, named the pending list, and the pane showed no counts.
    listing, big = _watched_with_a_big_file(tmp_path)
    version, before = anyio.run(listing.versioned_scan)
    assert before[0].message_count is None
    catalog = listing.sources.catalogs[0]
    done = catalog.read_exact(before[0].key)
    assert done is not None
    catalog.settle(before[0].key, done)  # settled, its change not reported yet
    assert anyio.run(listing.versioned_scan) == (version, before)  # the last list, with its own version
    listing.changed()
    settled_version, after = anyio.run(listing.versioned_scan)
    assert settled_version != version and after[0].message_count == raw_message_count(big)


def test_a_watched_listing_looks_again_only_at_the_files_reported(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = write_session(root / "--work-a--" / "a.jsonl", "a")
    listing = Listing([root], tmp_path / "cache")
    listing.watched(True)
    assert [e.message_count for e in listing.scan()] == [2]

    append_line(path, msg("u2", "a1", "user", "more"))
    write_session(root / "--work-b--" / "b.jsonl", "b")  # not reported: never looked at
    listing.changed([path])
    assert [(e.key, e.message_count) for e in listing.scan()] == [("--work-a--/a.jsonl", 3)]

    # A path the listing does not hold (a new file, a folder, a file gone): every file again.
    listing.changed([root / "--work-c--"])
    assert sorted(e.key for e in listing.scan()) == ["--work-a--/a.jsonl", "--work-b--/b.jsonl"]
    path.unlink()
    listing.changed([path])
    assert [e.key for e in listing.scan()] == ["--work-b--/b.jsonl"]


def _pending_records(key: str) -> int:
    gc.collect()
    return sum(
        1 for o in gc.get_objects() if isinstance(o, SessionInfo) and o.key == key and o.message_count is None
    )


def test_the_first_listing_is_not_held_once_a_later_one_replaced_it(tmp_path: Path) -> None:
    # Serve's first listing is a future made once (the usage page may wait for it): when it kept
    # its list as its result, every record of the first listing stayed alive beside the records
    # the counts replaced them with (fresh serve's peak at 100,000 sessions, 368 -> 436 MiB).
    listing, big = _watched_with_a_big_file(tmp_path)

    async def first() -> None:
        await listing.first_listing()

    anyio.run(first)
    key = listing.scan()[0].key
    assert _pending_records(key) == 1  # listed from its prefix: pending, and held by the listing
    assert listing.settle_some(60) == (True, False)
    listing.changed()
    assert listing.scan()[0].message_count == raw_message_count(big)
    assert _pending_records(key) == 0


def test_the_answers_kept_before_the_first_listing_are_let_go_once_it_is_made(tmp_path: Path) -> None:
    from sessiontree.archive.usage_early import KeptAnswers

    root = tmp_path / "sessions"
    (root / "--work-a--").mkdir(parents=True)
    cmd = [
        sys.executable,
        str(GEN_SESSION),
        "--turns",
        "3",
        "--seed",
        "5",
        "-o",
        str(root / "--work-a--" / "a.jsonl"),
    ]
    subprocess.run(cmd, check=True)  # replies with usage: the page has totals to keep
    last_run = Listing([root], tmp_path / "cache")
    last_run.scan()
    while last_run.settle_some(60)[1]:
        pass
    answers, left = last_run.usage_so_far()
    assert left == 0 and answers.groups()  # made once counted: kept in the store with its generation
    del last_run, answers
    gc.collect()

    restarted = Listing([root], tmp_path / "cache")
    early, _ = restarted.usage_so_far()  # before its first listing: what the store kept
    assert isinstance(early, KeptAnswers)
    del early
    restarted.scan()
    restarted.usage_so_far()
    gc.collect()
    assert not [o for o in gc.get_objects() if isinstance(o, KeptAnswers)]
