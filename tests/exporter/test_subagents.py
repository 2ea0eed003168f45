"""oh-my-pi subagent sessions: listed by inspect, embedded under the task result that ran them."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.exporter.render import RenderContext, render_entry
from sessiontree.serve.config import ServeConfig
from sessiontree.store import load_session
from sessiontree.store.subagents import subagent_files
from tests.exporter.conftest import parse_page
from tests.serve.conftest import make_client

PARENT = (
    Path(__file__).resolve().parent.parent
    / "fixtures"
    / "omp-subagent"
    / "2026-03-02T09-00-00-000Z_019f0b00.jsonl"
)


def test_subagent_files_skip_advisors() -> None:
    assert list(subagent_files(PARENT)) == ["0-Explore"]


def test_inspect_lists_the_subagents() -> None:
    result = CliRunner().invoke(cli, ["inspect", "--json", str(PARENT)])
    assert result.exit_code == 0, result.output
    [sub] = json.loads(result.output)["subagents"]
    assert sub["id"] == "0-Explore" and sub["messages"] == 4
    text = CliRunner().invoke(cli, ["inspect", str(PARENT)]).output
    assert "Subagents 1:" in text and "0-Explore: 4 message(s)" in text


def test_the_task_result_embeds_the_subagent_transcript() -> None:
    session = load_session(PARENT)
    ctx = RenderContext.for_session(session)
    out = {e["id"]: render_entry(e, ctx)[1] for e in session.entries}
    result = out["r1"]
    body = result.split('<div class="st-result"', 1)[1]
    assert '<details class="st-subagent">' in body  # inside the result: it moves with it
    assert "Subagent 0-Explore" in body and "Subagent finding: cache.py line 41" in body
    assert "src/hooks.py:12" in body  # the subagent's own tool result, same renderer
    assert body.count('data-id="') == 0 and 'data-sub-id="sb"' in body
    assert "st-subagent" not in out["a2"]


def _sessions_root(tmp_path: Path) -> Path:
    """The fixture in a sessions folder: <root>/<project>/<parent>.jsonl and its subagent folder."""
    project = tmp_path / "sessions" / "--work-omp--"
    project.mkdir(parents=True)
    shutil.copy(PARENT, project / PARENT.name)
    shutil.copytree(PARENT.with_suffix(""), project / PARENT.stem)
    return tmp_path / "sessions"


def test_an_export_keeps_the_subagent_inline_without_a_link(tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    assert CliRunner().invoke(cli, ["export", str(PARENT), str(out)]).exit_code == 0
    frags = parse_page(out.read_text(encoding="utf-8")).frags
    assert any('<details class="st-subagent">' in f for f in frags)
    assert not any("st-subagent-open" in f for f in frags)


@pytest.mark.anyio
async def test_serve_links_the_task_to_the_subagent_page_with_its_tree(tmp_path: Path) -> None:
    root = _sessions_root(tmp_path)
    config = ServeConfig(roots=(root,), cache_dir=tmp_path / "cache", watch=False)
    async with make_client(config) as client:
        page = await client.get(f"/s/--work-omp--/{PARENT.name}")
        assert page.status_code == 200
        frags = parse_page(page.text).frags
        [result] = [f for f in frags if "st-subagent-open" in f]
        [href] = re.findall(r'class="st-subagent-open"><a href="([^"]+)"', result)
        assert '<details class="st-subagent">' in result  # the inline view stays
        sub = await client.get(href)
        assert sub.status_code == 200
        data = parse_page(sub.text).data
        assert data["session"]["id"] and len(data["entries"]) >= 4  # the whole tree viewer's data
        assert any("Subagent finding: cache.py line 41" in f for f in parse_page(sub.text).frags)


def test_build_links_the_task_to_the_subagent_page(tmp_path: Path) -> None:
    root = _sessions_root(tmp_path)
    site = tmp_path / "site"
    args = ["build", "--root", str(root), "-o", str(site), "--no-search", "-q"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    parent_page = next(site.rglob(f"{PARENT.stem}.html"))
    frags = parse_page(parent_page.read_text(encoding="utf-8")).frags
    [href] = [h for f in frags for h in re.findall(r'class="st-subagent-open"><a href="([^"]+)"', f)]
    target = (parent_page.parent / href).resolve()
    assert target.is_file() and target.is_relative_to(site.resolve())
    sub = parse_page(target.read_text(encoding="utf-8"))
    assert any("Subagent finding: cache.py line 41" in f for f in sub.frags)
