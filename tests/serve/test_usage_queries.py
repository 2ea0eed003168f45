"""serve's /usage answered by queries (issue 54): the page carries totals per project, agent, quarter
hour and model and the first page of the top sessions, ``/api/usage-sessions`` the sessions of any
filter a page at a time; all exact against a brute-force count over the files (a copied message
counted once, in the oldest file), and the page's size does not grow with the sessions.
Real ``sessiontree serve`` processes over real files, its real SQLite store."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.pages.usage_records import data_totals, page_data
from tests.serve.process import Served, serve_process
from tests.store.helpers import header, msg

DAYS = 4
PROJECTS = ("/work/p0", "/work/p1", "/work/p1/sub", "/work/p10")
MODELS = ("m-small", "m-large")
BASE = datetime(2026, 3, 1, tzinfo=UTC).timestamp()


def _reply(entry_id: str, parent: str, n: int, k: int) -> dict[str, Any]:
    """Session ``n``'s ``k``-th reply: counts and a cost unique to it (no ties in the ranking)."""
    at = BASE + (n % DAYS) * 86400 + (n % 8) * 3600 + k * 60  # few quarter hours, whatever the count
    usage = {
        "input": 100 + n,
        "output": 10 + k,
        "cacheRead": 7 * n % 50,
        "cacheWrite": k,
        "cost": {"total": round(0.001 * (n + 1) + 0.0001 * k, 6)},
    }
    message = {
        "role": "assistant",
        "content": [],
        "provider": "p",
        "model": MODELS[(n + k) % 2],
        "usage": usage,
    }
    stamp = datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp, "message": message}


def _corpus(root: Path, count: int) -> list[Path]:
    """``count`` pi sessions over four projects and days, two models; every tenth a fork that copies
    the reply of the session before it (same id, time and usage: one message, counted once)."""
    paths = []
    for n in range(count):
        cwd = PROJECTS[n % len(PROJECTS)]
        folder = root / ("--" + cwd.strip("/").replace("/", "-") + "--")
        lines = [header(f"s{n}", cwd=cwd), msg("u1", None, "user", f"question {n}")]
        if n % 10 == 9:
            lines.append(_reply(f"a{n - 1}-1", "u1", n - 1, 1))  # the copy
        lines += [_reply(f"a{n}-1", "u1", n, 1), _reply(f"a{n}-2", f"a{n}-1", n, 2)]
        path = folder / f"2026-03-01T00-00-00-000Z_s{n:05}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        os.utime(path, (BASE + n, BASE + n))  # a fork is newer than the file it copies
        paths.append(path)
    return paths


def _brute(
    paths: list[Path], keep: Callable[[str, str, int], bool] | None = None
) -> dict[str, dict[str, Any]]:
    """Each file's usage from its lines: a message (id, time, usage) counted in the oldest file only;
    ``keep`` (folder, model, time in ms): only the messages it keeps, only the files with one."""
    seen: set[str] = set()
    per: dict[str, dict[str, Any]] = {}
    for path in sorted(paths, key=lambda p: (p.stat().st_mtime_ns, str(p))):
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        cwd = lines[0]["cwd"]
        total: dict[str, Any] = {
            "cwd": cwd,
            "messages": 0,
            "input": 0,
            "tokens": 0,
            "cost": 0.0,
            "quarters": set(),
        }
        for line in lines[1:]:
            message = line.get("message", {})
            if message.get("role") != "assistant":
                continue
            key = json.dumps([line["id"], line["timestamp"], message["usage"]], sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            when = datetime.strptime(line["timestamp"], "%Y-%m-%dT%H:%M:%S.000Z").replace(tzinfo=UTC)
            if keep is not None and not keep(cwd, "p/" + message["model"], int(when.timestamp() * 1000)):
                continue
            total["messages"] += 1
            total["input"] += message["usage"]["input"]
            total["cost"] += message["usage"]["cost"]["total"]
            total["tokens"] += sum(
                message["usage"][k] for k in ("input", "output", "cacheRead", "cacheWrite")
            )
            total["quarters"].add((int(when.timestamp()) // 900 * 900 * 1000, "p/" + message["model"]))
        if keep is None or total["messages"]:
            per[str(path)] = total
    return per


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, list[Path]]]:
    tmp = tmp_path_factory.mktemp("usage-small")
    paths = _corpus(tmp / "sessions", 200)
    with serve_process(tmp / "sessions", tmp / "agent", tmp / "cache") as served:
        _counted(served.url)
        yield served, paths


def _counted(url: str) -> str:
    """The /usage page once every file is counted (bounded: a hung server, not a timing assertion)."""
    ceiling = time.monotonic() + 180
    while "data-counting" in (page := httpx.get(url + "/usage", timeout=120).text):
        assert time.monotonic() < ceiling, "the count never ended"
        time.sleep(0.1)
    return page


def _ranked(brute: dict[str, dict[str, Any]], keep: Any = lambda path, t: True) -> list[tuple[str, int, int]]:
    found = [(path, t) for path, t in brute.items() if t["messages"] and keep(path, t)]
    found.sort(key=lambda item: (-item[1]["cost"], item[0]))
    return [(path, t["messages"], t["input"]) for path, t in found]


def _rows(listed: dict[str, Any]) -> list[tuple[str, int, int]]:
    return [(row[1], row[4], row[5]) for row in listed["top"]]


def test_the_page_and_its_api_equal_a_count_over_the_files(small: tuple[Served, list[Path]]) -> None:
    served, paths = small
    brute = _brute(paths)
    data = page_data(_counted(served.url))
    totals = data_totals(data)
    assert totals["messages"] == sum(t["messages"] for t in brute.values()) == 200 * 2
    assert totals["input"] == sum(t["input"] for t in brute.values())
    # The rows are per project, agent, quarter hour and model, not per session.
    quarters = {q for t in brute.values() for q in t["quarters"]}
    assert len(data["rows"]) // 11 <= len(quarters) * len(PROJECTS) < 200 * 2
    everything = _ranked(brute)
    assert data["listed"]["count"] == len(everything) == 200
    assert _rows(data["listed"]) == everything[:50]
    api = served.url + "/api/usage-sessions"
    second = httpx.get(api, params={"offset": 50}, timeout=60).json()
    assert second["count"] == 200 and _rows(second) == everything[50:100]

    # A project is its folder and the folders under it (/work/p1/sub), never /work/p10.
    mine = _ranked(brute, lambda path, t: t["cwd"] in ("/work/p1", "/work/p1/sub"))
    found = httpx.get(api, params={"project": "/work/p1", "limit": 100}, timeout=60).json()
    assert found["count"] == len(mine) == 100 and _rows(found) == mine

    # A time range (quarter hours, the end left out) and a model: per session, only what falls in it.
    since = int(BASE * 1000) + 86_400_000
    until = since + 2 * 86_400_000
    model = "p/m-large"
    in_range: dict[str, dict[str, Any]] = {}
    for path, t in brute.items():
        kept = [q for q in t["quarters"] if since <= q[0] < until and q[1] == model]
        if kept:
            in_range[path] = t
    query: dict[str, str | int] = {"since": since, "until": until, "model": model, "limit": 100}
    found = httpx.get(api, params=query, timeout=60).json()
    assert found["count"] == len(in_range) > 0
    assert {row[1] for row in found["top"]} <= set(in_range)

    for bad in ({"since": "x"}, {"offset": -1}, {"limit": 0}, {"limit": 10_000}):
        reply = httpx.get(api, params=bad, timeout=60)
        assert reply.status_code == 400 and reply.json()["error"] == "bad usage filter"


def test_the_page_does_not_grow_with_the_sessions(small: tuple[Served, list[Path]], tmp_path: Path) -> None:
    served, _ = small
    few = len(_counted(served.url).encode())
    paths = _corpus(tmp_path / "sessions", 2000)
    with serve_process(tmp_path / "sessions", tmp_path / "agent", tmp_path / "cache") as many:
        page = _counted(many.url)
        data = page_data(page)
        assert data["listed"]["count"] == 2000 and data_totals(data)["messages"] == 4000
        assert _rows(data["listed"]) == _ranked(_brute(paths))[:50]
    # Ten times the sessions over the same days, projects and models: the page holds the same
    # quarter hours and one page of sessions (before, every session's rows: about ten times the bytes).
    assert len(page.encode()) < 2 * few, (few, len(page.encode()))
