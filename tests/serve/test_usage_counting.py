"""serve's /usage and the pane's model filter never wait for the background pass: while files are
still to count they answer with what is counted so far (the page marked and reloading) until the
count is done (issue 42 item 2).
A real process whose count is held until the test lets it go (``held_count.py``)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import httpx

from tests.pages.usage_records import data_totals, page_data
from tests.serve.counting import counting_folders, held_python, stats_totals
from tests.serve.process import serve_process

SMALL = [f"--home-dev-small--/small{n}.jsonl" for n in range(2)]
COUNTING = re.compile(
    r'<main id="st-usage" data-drawn="0" data-counting="(\d+)" data-events="/usage/events">'
)


def _usage(http: httpx.Client, url: str) -> tuple[int | None, dict[str, int]]:
    """(files still to count or None when all are, the page's totals) of one /usage answer, once
    the server's first listing is made (before it the page answers from the usage store, which a
    fresh cache dir has nothing in, and says it is still looking: ``test_usage_restart``)."""
    deadline = time.monotonic() + 120  # a bound for a hung server, not a timing assertion
    while 'data-counting="unlisted"' in (reply := http.get(url + "/usage")).text:
        assert time.monotonic() < deadline, "the first listing never ended"
        time.sleep(0.05)  # between polls of the state
    assert reply.status_code == 200
    found = COUNTING.search(reply.text)
    assert (found is not None) == ("Still counting" in reply.text) == ("location.reload()" in reply.text)
    return (int(found.group(1)) if found else None), data_totals(page_data(reply.text))


def test_usage_answers_with_the_totals_so_far_until_the_count_ends(tmp_path: Path) -> None:
    root, small = counting_folders(tmp_path)
    everything, counted_first = stats_totals(root, tmp_path / "c1"), stats_totals(small, tmp_path / "c2")
    assert counted_first["messages"] < everything["messages"]
    gate = tmp_path / "count-now"
    with (
        serve_process(root, tmp_path / "agent", tmp_path / "cache", python=held_python(gate)) as served,
        httpx.Client(timeout=120) as http,
    ):
        uncounted, totals = _usage(http, served.url)
        assert uncounted == 3 and totals == counted_first  # the small files, read by the listing
        assert _usage(http, served.url) == (3, counted_first)  # the same, while the count is held
        # The pane's model filter answers at once too, with the sessions counted so far.
        assert sorted(http.get(served.url + "/api/session-models").json()["models"]) == SMALL
        gate.touch()
        deadline = time.monotonic() + 120  # a bound for a hung server, not a timing assertion
        while uncounted is not None:
            assert time.monotonic() < deadline, "the count never ended"
            uncounted, totals = _usage(http, served.url)
            assert uncounted is None or uncounted <= 3
            time.sleep(0.05)  # between polls of the state
        assert totals == everything
        assert sorted(http.get(served.url + "/api/session-models").json()["models"]) == sorted(
            [*SMALL, *(f"--home-dev-big--/big{n}.jsonl" for n in range(3))]
        )
        assert served.stop() == 0
