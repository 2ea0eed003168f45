"""The listing's usage rows (``archive.session_usage``): the index's totals without the index."""

from __future__ import annotations

import json
import math
from pathlib import Path

from sessiontree.archive.catalog import Catalog
from sessiontree.archive.session_usage import usage_records
from sessiontree.archive.usage import summarize
from tests.archive.sessions import write_lines
from tests.archive.test_usage import KINDS, build_archive, independent_totals, run_stats

FIELDS = {"input": "input", "output": "output", "cacheRead": "cache_read", "cacheWrite": "cache_write"}


def _listed_totals(roots: Path, cache: Path | None, by: str) -> dict[str, dict[str, object]]:
    catalog = Catalog(roots, cache)
    catalog.scan()
    report = summarize(usage_records(catalog.usage_listed()), by)  # type: ignore[arg-type]
    return {
        g.key: {"messages": g.messages, "cost": g.cost, **{k: getattr(g, f) for k, f in FIELDS.items()}}
        for g in report.groups
    }


def _assert_same(got: dict[str, dict[str, object]], want: dict[str, dict[str, object]]) -> None:
    assert set(got) == set(want)
    for key, expected in want.items():
        assert got[key]["messages"] == expected["messages"], key
        assert [got[key][k] for k in KINDS] == [expected[k] for k in KINDS], key
        cost, wanted = got[key]["cost"], expected["cost"]
        assert isinstance(cost, float) and isinstance(wanted, float)
        assert math.isclose(cost, wanted, rel_tol=1e-9, abs_tol=1e-6), key


def test_listed_usage_matches_independent_sums_and_stats(roots: Path, cache_dir: Path) -> None:
    files = build_archive(roots)
    for by in ("day", "model", "project", "session"):
        listed = _listed_totals(roots, cache_dir, by)
        _assert_same(listed, independent_totals(files[:3], by))  # the fork's copies count once
        stats = json.loads(run_stats(roots, cache_dir / "index", "--by", by, "--json"))
        assert {g["key"]: g["messages"] for g in stats["groups"]} == {
            k: v["messages"] for k, v in listed.items()
        }
    # From the cache, in a new catalog (a restarted server): the same totals, nothing read again.
    assert _listed_totals(roots, cache_dir, "session") == _listed_totals(roots, None, "session")


def test_a_forks_copies_count_once_its_parent_is_gone(roots: Path, cache_dir: Path) -> None:
    files = build_archive(roots)
    files[0].unlink()  # the parent leaves: its messages now count in the fork that copied them
    listed = _listed_totals(roots, cache_dir, "model")
    _assert_same(listed, independent_totals(files[1:], "model"))


def test_appended_usage_is_added_from_the_last_offset(roots: Path, cache_dir: Path) -> None:
    files = build_archive(roots)
    before = _listed_totals(roots, cache_dir, "session")[str(files[1])]
    lines = [json.loads(raw) for raw in files[1].read_text().splitlines()]
    reply = next(x for x in reversed(lines) if x.get("message", {}).get("role") == "assistant")
    late = {**reply, "id": "late-reply", "parentId": lines[-1]["id"]}
    write_lines(files[1], [*lines, late])
    after = _listed_totals(roots, cache_dir, "session")[str(files[1])]
    assert after["messages"] == before["messages"] + 1  # type: ignore[operator]
    usage = reply["message"]["usage"]
    assert after["input"] == before["input"] + usage["input"]  # type: ignore[operator]
