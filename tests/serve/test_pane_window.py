"""``/api/sessions/window`` of a real ``serve`` process over 1,500 generated session files: every
filter's windows, walked to the end, are exactly the sessions a brute-force pass over the files
keeps, in the pane's order; a window around a deep session holds it; bad parameters are a 400."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.serve.pane_corpus import MODELS, NOW_MS, PROJECTS, Listed, read_corpus, write_corpus, write_session
from tests.serve.process import listed, serve_process

COUNT = 1_500
HOUR = 3_600_000


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[httpx.Client, list[Listed]]]:
    base = tmp_path_factory.mktemp("pane")
    root = base / "agent" / "sessions"
    write_corpus(root, COUNT)
    with (
        serve_process(root, base / "agent", base / "cache") as server,
        httpx.Client(base_url=server.url, timeout=120) as client,
    ):
        listed(client)
        yield client, read_corpus(root)


def _walk(client: httpx.Client, params: dict[str, Any], limit: int) -> tuple[list[str], int]:
    """Every session a filter keeps, window after window, and the total each window said."""
    keys: list[str] = []
    totals = set()
    while True:
        reply = client.get("/api/sessions/window", params={**params, "offset": len(keys), "limit": limit})
        assert reply.status_code == 200
        data = reply.json()
        totals.add(data["total"])
        assert data["offset"] == len(keys) and len(data["sessions"]) <= limit
        if not data["sessions"]:
            break
        keys += [s["k"] for s in data["sessions"]]
    assert len(totals) == 1
    return keys, totals.pop()


FILTERS = [
    ({}, lambda s: True),
    ({"project": PROJECTS[1]}, lambda s: s.project == PROJECTS[1]),
    ({"model": MODELS[2]}, lambda s: MODELS[2] in s.models),
    (
        {"agent": "pi", "project": PROJECTS[3], "model": MODELS[0]},
        lambda s: s.project == PROJECTS[3] and MODELS[0] in s.models,
    ),
    (
        {"since": NOW_MS - 100 * HOUR, "until": NOW_MS - 40 * HOUR, "model": MODELS[1]},
        lambda s: NOW_MS - 100 * HOUR <= s.ms < NOW_MS - 40 * HOUR and MODELS[1] in s.models,
    ),
    ({"agent": "claude"}, lambda s: False),
]


@pytest.mark.parametrize(
    ("params", "keep"), FILTERS, ids=["all", "project", "model", "three", "days", "agent"]
)
def test_a_filters_windows_are_the_sessions_a_pass_over_the_files_keeps(
    served: tuple[httpx.Client, list[Listed]], params: dict[str, Any], keep: Any
) -> None:
    client, files = served
    expected = [s.key for s in files if keep(s)]
    keys, total = _walk(client, params, 137)
    assert keys == expected and total == len(expected)


def test_a_window_around_a_deep_session_holds_it_and_counts_what_changed_since_a_mark(
    served: tuple[httpx.Client, list[Listed]],
) -> None:
    client, files = served
    mine = [s for s in files if s.project == PROJECTS[2]]
    deep = mine[-5]  # near the end of its project's list
    mark = mine[40].ms
    reply = client.get(
        "/api/sessions/window", params={"of": deep.key, "around": deep.key, "limit": 60, "mark": mark}
    )
    data = reply.json()
    assert data["total"] == len(mine) and data["all"] == COUNT
    assert data["sessions"][data["at"] - data["offset"]]["k"] == deep.key
    assert [s["k"] for s in data["sessions"]] == [s.key for s in mine[data["offset"] : data["offset"] + 60]]
    assert data["fresh"] == sum(1 for s in mine if s.ms > mark) == 40
    # A session not listed keeps no "this project"; one outside the filter is not found in it.
    assert client.get("/api/sessions/window", params={"of": "nope.jsonl"}).json()["total"] == 0
    other = next(s for s in files if s.project != PROJECTS[2])
    outside = client.get("/api/sessions/window", params={"project": PROJECTS[2], "around": other.key}).json()
    assert outside["at"] == -1 and outside["offset"] == 0


def test_the_choices_and_rows_are_what_the_files_say(served: tuple[httpx.Client, list[Listed]]) -> None:
    client, files = served
    data = client.get("/api/sessions/window", params={"choices": "1", "limit": 3}).json()
    assert data["choices"] == {"projects": sorted(PROJECTS), "agents": ["pi"], "models": sorted(MODELS)}
    first = data["sessions"][0]
    assert first["k"] == files[0].key and first["t"] == f"Session <b>{int(files[0].key[-10:-6])}</b> & co"
    assert set(first["m"]) == files[0].models and first["u"] == files[0].ms
    assert first["h"].startswith("/s/")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"limit": "0"}, "limit must be from 1 to 500"),
        ({"limit": "x"}, "limit must be a whole number"),
        ({"since": "-1"}, "since must be from 0 to 9007199254740992"),
        ({"offset": "1e3"}, "offset must be a whole number"),
        ({"project": "p" * 5000}, "project is longer than 4096 characters"),
    ],
)
def test_a_bad_parameter_is_a_400_with_one_line(
    served: tuple[httpx.Client, list[Listed]], params: dict[str, str], message: str
) -> None:
    reply = served[0].get("/api/sessions/window", params=params)
    assert reply.status_code == 400 and reply.json() == {"error": message}


def test_a_new_sessions_model_is_a_choice_and_a_filter_once_it_is_read(tmp_path: Path) -> None:
    """The model lists are kept while the listing and the usage store's rows stay: a new file with
    a new model changes both, and the next window's choices and model filter have it."""
    root = tmp_path / "agent" / "sessions"
    write_corpus(root, 12)
    with (
        serve_process(root, tmp_path / "agent", tmp_path / "cache") as server,
        httpx.Client(base_url=server.url, timeout=120) as client,
    ):
        listed(client)
        before = client.get("/api/sessions/window", params={"choices": "1", "model": MODELS[0]}).json()
        assert before["choices"]["models"] == sorted(MODELS)
        assert before["total"] == sum(1 for s in read_corpus(root) if MODELS[0] in s.models)
        write_session(root / "--work-new--" / "late.jsonl", 99, "/work/new", "p/m-new", NOW_MS + HOUR)
        ceiling = time.monotonic() + 120  # a bound on a loaded machine, not a timed assertion
        while (
            found := client.get("/api/sessions/window", params={"choices": "1", "model": "p/m-new"}).json()
        )["total"] != 1:
            assert time.monotonic() < ceiling, "the new session's model never came"
            time.sleep(0.05)
        assert found["choices"]["models"] == sorted([*MODELS, "p/m-new"])
        assert [s["k"] for s in found["sessions"]] == ["--work-new--/late.jsonl"]
