"""A restarted serve answers /usage from its usage store before its first listing is made (at
100,000 sessions that listing takes seconds: the catalogs loaded, every file looked at), saying it
is still looking, then the page's totals correct themselves for a file changed while it was down
(issue 54 item 1, usage). Real processes; the restarted one's listing held until the test lets it
go (``held_count.py --listing``), so the early answer is a state, not a race."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Generator
from pathlib import Path

import httpx

from tests.pages.usage_records import data_totals, page_data
from tests.serve.counting import counting_folders, generate, held_python, stats_totals
from tests.serve.process import serve_process

COUNTING = re.compile(
    r'<main id="st-usage" data-drawn="0" data-counting="([a-z0-9]+)" data-events="/usage/events">'
)


def _usage(http: httpx.Client, url: str) -> tuple[str | None, dict[str, int]]:
    """(the page's data-counting or None when every session is counted, its totals)."""
    reply = http.get(url + "/usage")
    assert reply.status_code == 200
    found = COUNTING.search(reply.text)
    assert (found is not None) == ("location.reload()" in reply.text)
    return (found.group(1) if found else None), data_totals(page_data(reply.text))


def _counted(http: httpx.Client, url: str) -> dict[str, int]:
    """The totals once the page no longer says it is counting (a bound for a hung server only)."""
    deadline = time.monotonic() + 120
    while True:
        counting, totals = _usage(http, url)
        if counting is None:
            return totals
        assert time.monotonic() < deadline, "the count never ended"
        time.sleep(0.05)  # between polls of the state


def _usage_events(http: httpx.Client, url: str) -> Generator[int]:
    """The files left as ``/usage/events`` says, event by event (a real SSE stream)."""
    with http.stream("GET", url + "/usage/events") as reply:
        assert reply.status_code == 200
        assert reply.headers["content-type"].startswith("text/event-stream")
        name = ""
        for line in reply.iter_lines():
            if line.startswith("event:"):
                name = line.partition(":")[2].strip()
            elif line.startswith("data:") and name == "usage":
                yield int(json.loads(line.partition(":")[2])["left"])


def test_a_restarted_server_pushes_its_count_to_the_usage_page_until_it_settles(tmp_path: Path) -> None:
    """The page no longer reloads itself on a timer: its stream says the files are not listed yet
    (-1), then, once the test lets the listing go, that none is left; the page is then the files'
    totals as they are now, at once (no poll)."""
    root, _ = counting_folders(tmp_path)
    cache, gate = tmp_path / "cache", tmp_path / "list-now"
    with httpx.Client(timeout=120) as http:  # a ceiling for a hung server (pings every 15 s)
        with serve_process(root, tmp_path / "agent", cache) as served:
            _counted(http, served.url)
            assert served.stop() == 0
        generate(root / "--home-dev-small--" / "small1.jsonl", 5, 77)  # changed while it was down
        after = stats_totals(root, tmp_path / "c2")
        with serve_process(root, tmp_path / "agent", cache, python=held_python(gate, listing=True)) as served:
            counting, _ = _usage(http, served.url)
            assert counting == "unlisted"
            events = _usage_events(http, served.url)
            assert next(events) == -1  # the first listing not made: held
            gate.touch()
            while next(events) != 0:  # -1 until listed, then the files left: pushed, no poll
                pass
            events.close()
            counting, totals = _usage(http, served.url)
            assert counting is None and totals == after
            assert served.stop() == 0


def test_a_restarted_server_answers_usage_before_its_listing_then_corrects_it(tmp_path: Path) -> None:
    root, _ = counting_folders(tmp_path)
    before = stats_totals(root, tmp_path / "c1")
    cache, gate = tmp_path / "cache", tmp_path / "list-now"
    with httpx.Client(timeout=120) as http:
        with serve_process(root, tmp_path / "agent", cache) as served:
            assert _counted(http, served.url) == before
            assert served.stop() == 0
        changed = root / "--home-dev-small--" / "small0.jsonl"
        generate(changed, 6, 99)  # another session in its place while the server was down
        after = stats_totals(root, tmp_path / "c2")
        assert after != before
        with serve_process(root, tmp_path / "agent", cache, python=held_python(gate, listing=True)) as served:
            reply = http.get(served.url + "/usage")
            counting, totals = _usage(http, served.url)
            assert counting == "unlisted" and totals == before  # the store as the last run left it
            assert "Still looking at the files" in reply.text
            gate.touch()
            assert _counted(http, served.url) == after
            assert served.stop() == 0


def _kept(cache: Path) -> set[str]:
    """The names of the answers the usage store kept for its rows as they are now (none: no store)."""
    stores = list(cache.glob("usage-*.sqlite"))
    if not stores:
        return set()
    conn = sqlite3.connect(stores[0], timeout=30)
    try:
        found = conn.execute("SELECT k.name FROM kept_answers k JOIN generation g ON k.generation = g.n")
        return {name for (name,) in found}
    except sqlite3.OperationalError:  # made, its tables not yet
        return set()
    finally:
        conn.close()


def _run_until_kept(root: Path, agent: Path, cache: Path) -> None:
    """Run a server until it kept the usage page's answers with no page asked, then stop it."""
    with serve_process(root, agent, cache) as served:
        deadline = time.monotonic() + 120  # a ceiling for a hung server, not a timing
        while not {"groups", "sessions 0 50"} <= _kept(cache):
            assert time.monotonic() < deadline, "the answers were never kept"
            time.sleep(0.05)  # between reads of the state
        assert served.stop() == 0


def test_once_counted_the_usage_answers_are_kept_with_no_page_asked(tmp_path: Path) -> None:
    """A server whose pass settled keeps the usage page's answers for its rows with no one asking
    (a restarted server whose store kept none took 3 s for its first usage page at 100,000
    sessions): the next run's first page comes from them."""
    root, _ = counting_folders(tmp_path)
    cache, gate = tmp_path / "cache", tmp_path / "list-now"
    want = stats_totals(root, tmp_path / "c1")
    _run_until_kept(root, tmp_path / "agent", cache)
    with (
        httpx.Client(timeout=120) as http,
        serve_process(root, tmp_path / "agent", cache, python=held_python(gate, listing=True)) as served,
    ):
        counting, totals = _usage(http, served.url)  # before its listing: from what was kept
        assert counting == "unlisted" and totals == want
        gate.touch()
        assert served.stop() == 0


def test_a_restarted_server_whose_store_kept_answers_of_older_rows_answers_from_its_rows(
    tmp_path: Path,
) -> None:
    """The last run wrote rows and was stopped before it kept the page's answers for them (its
    kept answers are of an older generation): the restarted server's first page, before its
    listing, is made from the rows (exact) and kept for the next run."""
    root, _ = counting_folders(tmp_path)
    cache, gate = tmp_path / "cache", tmp_path / "list-now"
    want = stats_totals(root, tmp_path / "c1")
    _run_until_kept(root, tmp_path / "agent", cache)
    (store,) = cache.glob("usage-*.sqlite")
    conn = sqlite3.connect(store, timeout=30)
    with conn:
        conn.execute("UPDATE generation SET n = n + 1")  # the state a run stopped after a write leaves
    conn.close()
    assert _kept(cache) == set()
    with (
        httpx.Client(timeout=120) as http,
        serve_process(root, tmp_path / "agent", cache, python=held_python(gate, listing=True)) as served,
    ):
        counting, totals = _usage(http, served.url)
        assert counting == "unlisted" and totals == want
        assert {"groups", "sessions 0 50"} <= _kept(cache)  # kept, the listing still held
        gate.touch()
        assert _counted(http, served.url) == want
        assert served.stop() == 0
