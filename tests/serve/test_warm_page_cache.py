"""A warm served page renders nothing: every entry comes from the fragment cache, a Task result
that links its subagent's page included (its key holds the link and the subagent's content)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sessiontree.exporter import api, render
from sessiontree.serve.config import ServeConfig
from tests.exporter.conftest import parse_page
from tests.serve.conftest import make_client

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TOUR_ID = "5e55a0b1-0000-4000-8000-00000000000a"
OMP = FIXTURES / "omp-subagent" / "2026-03-02T09-00-00-000Z_019f0b00.jsonl"


def _counting(calls: list[str], real: Callable[..., Any]) -> Callable[..., Any]:
    def render_entry(entry: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(str(entry.get("id")))
        return real(entry, *args, **kwargs)

    return render_entry


def _roots(tmp_path: Path) -> tuple[Path, list[str]]:
    claude = tmp_path / "claude" / "-home-dev-tour"
    shutil.copytree(FIXTURES / "claude" / "tour", claude)
    omp = tmp_path / "pi" / "--work-omp--"
    omp.mkdir(parents=True)
    shutil.copy(OMP, omp / OMP.name)
    shutil.copytree(OMP.with_suffix(""), omp / OMP.stem)
    return tmp_path, [f"/s/claude/-home-dev-tour/{TOUR_ID}.jsonl", f"/s/pi/--work-omp--/{OMP.name}"]


@pytest.mark.anyio
async def test_a_warm_page_with_subagents_hits_the_cache_for_every_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, routes = _roots(tmp_path)
    calls: list[str] = []
    monkeypatch.setattr(api, "render_entry", _counting(calls, render.render_entry))
    config = ServeConfig(roots=(root / "claude", root / "pi"), cache_dir=tmp_path / "cache", watch=False)
    async with make_client(config) as client:
        for route in routes:
            calls.clear()
            cold = await client.get(route)
            assert cold.status_code == 200
            page = parse_page(cold.text)
            assert calls and len(calls) == len(page.data["entries"])  # cold: every entry rendered
            assert any("st-subagent-open" in f for f in page.frags)  # a task links its subagent
            calls.clear()
            warm = await client.get(route)
            assert warm.status_code == 200
            assert calls == []  # warm: not one entry rendered again
            assert parse_page(warm.text).frags == page.frags
