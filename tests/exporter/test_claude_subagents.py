"""Claude Code subagent transcripts: their own page in serve and build, inline only in an export.

Two layouts: 2.1 keeps ``<session>/subagents/agent-<id>.jsonl``; 2.0 kept ``agent-<id>.jsonl``
beside the session (a real pair from the claude-code-log test data).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.readers import load_any
from sessiontree.readers.claude_layout import subagent_file
from sessiontree.serve.config import ServeConfig
from sessiontree.site.build import BuildOptions, build_site
from sessiontree.site.manifest import load_manifest
from tests.conftest import real_file
from tests.exporter.conftest import parse_page
from tests.serve.conftest import make_client

TOUR = Path(__file__).resolve().parent.parent / "fixtures" / "claude" / "tour"
TOUR_ID = "5e55a0b1-0000-4000-8000-00000000000a"
REAL_ID = "cb2e607c-c758-415a-8b45-c49e4631906a"
REAL_PREFIX = (
    "claude/claude-code-log--test_test_data_real_projects_-Users-dain-workspace-coderabbit-review-helper_"
)
LINK = re.compile(r'class="st-subagent-open"><a href="([^"]+)"')


def _tour(root: Path) -> tuple[Path, Path]:
    """The 2.1 layout in a projects folder: (session file, its subagent's transcript)."""
    project = root / "-home-dev-tour"
    shutil.copytree(TOUR, project)
    return project / f"{TOUR_ID}.jsonl", project / TOUR_ID / "subagents" / "agent-a1b2c3d.jsonl"


def _real(root: Path) -> tuple[Path, Path]:
    """The 2.0 layout (a real pair) under the names Claude Code gave them."""
    parent, agent = (
        real_file(f"{REAL_PREFIX}{REAL_ID}.jsonl"),
        real_file(f"{REAL_PREFIX}agent-ea02459f.jsonl"),
    )
    project = root / "-Users-dain-workspace-coderabbit-review-helper"
    project.mkdir(parents=True)
    shutil.copy(parent, project / f"{REAL_ID}.jsonl")
    shutil.copy(agent, project / "agent-ea02459f.jsonl")
    return project / f"{REAL_ID}.jsonl", project / "agent-ea02459f.jsonl"


def _workflow(root: Path) -> tuple[Path, Path]:
    """The 2.1.17x layout: the agent a workflow ran, under ``subagents/workflows/wf_<run>/``
    beside the run's journal (no transcript)."""
    parent, agent = _tour(root)
    run = agent.parent / "workflows" / "wf_0001"
    run.mkdir(parents=True)
    (run / "journal.jsonl").write_text('{"event": "started"}\n', encoding="utf-8")
    return parent, agent.rename(run / agent.name)


LAYOUTS = {"2.1 subagents folder": _tour, "2.0 beside (real)": _real, "2.1.17x workflow": _workflow}


def _ids(path: Path) -> set[str]:
    return {e["id"] for e in load_any(path).entries}


def _links(html: str) -> list[str]:
    return [href for frag in parse_page(html).frags for href in LINK.findall(frag)]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_an_export_keeps_the_subagent_inline_without_a_link(tmp_path: Path, layout: str) -> None:
    parent, agent = LAYOUTS[layout](tmp_path / "projects")
    out = tmp_path / "page.html"
    result = CliRunner().invoke(cli, ["export", str(parent), str(out)])
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert _links(html) == [] and "st-subagent-open" not in html
    # The subagent's conversation is in the parent's tree (a side branch under the Task call).
    shown = {e["id"] for e in parse_page(html).data["entries"]}
    assert len(_ids(agent) & shown) >= 4


@pytest.mark.anyio
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
async def test_serve_follows_the_task_link_to_the_subagent_page(tmp_path: Path, layout: str) -> None:
    root = tmp_path / "projects"
    parent, agent = LAYOUTS[layout](root)
    config = ServeConfig(roots=(root,), cache_dir=tmp_path / "cache", watch=False)
    key = parent.relative_to(root).as_posix()
    async with make_client(config) as client:
        index = await client.get("/")
        assert key in index.text and agent.name not in index.text  # one listed session, not two
        page = await client.get(f"/s/{key}")
        assert page.status_code == 200
        [href] = _links(page.text)
        sub = await client.get(href)
        assert sub.status_code == 200, href
        data = parse_page(sub.text).data
        # The subagent's whole tree, as reading its file alone gives it.
        assert {e["id"] for e in data["entries"]} == _ids(agent)
        assert data["session"]["id"]
        assert _links(sub.text) == []
        # ... and links back to the session that ran it, as other agents' subagents do.
        assert f'<dd class="st-parent"><a href="/s/{key}"><code>{parent.stem}</code></a>' in sub.text


@pytest.mark.anyio
async def test_serve_refuses_a_subagent_outside_its_session(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    parent, agent = _tour(root)
    key = parent.relative_to(root).as_posix()
    secret = tmp_path / "agent-secret.jsonl"
    shutil.copy(agent, secret)  # a readable transcript outside the served folder
    linked = parent.with_suffix("") / "subagents" / "agent-linked.jsonl"
    linked.symlink_to(secret)
    other = parent.parent / "agent-other.jsonl"  # 2.0 layout, but another session's
    lines = [json.loads(line) for line in agent.read_text(encoding="utf-8").splitlines()]
    other.write_text(
        "".join(json.dumps({**x, "sessionId": "another"}) + "\n" for x in lines), encoding="utf-8"
    )
    config = ServeConfig(roots=(root,), cache_dir=tmp_path / "cache", watch=False)
    async with make_client(config) as client:
        assert (await client.get(f"/agent/a1b2c3d/{key}")).status_code == 200
        for path in (
            f"/agent/linked/{key}",  # a link leaving the session's folder
            f"/agent/other/{key}",  # beside it, but naming another session
            f"/agent/missing/{key}",
            f"/agent/..%2F..%2Fagent-secret/{key}",
            f"/agent/%2E%2E/{key}",
            f"/agent/a1b2c3d.jsonl/{key}",
            f"/agent/a1b2c3d/..%2F{key}",
            f"/agent/a1b2c3d/-home-dev-tour/%2E%2E/-home-dev-tour/{TOUR_ID}.jsonl",
            f"/agent/a1b2c3d/{key.removesuffix('.jsonl')}/subagents/agent-a1b2c3d.jsonl",
        ):
            response = await client.get(path)
            assert response.status_code == 404, path
    assert subagent_file(parent, "../agent-secret") is None
    assert subagent_file(parent, "linked") is None and subagent_file(parent, "a1b2c3d") is not None


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_build_links_the_task_to_a_subagent_page_beside_it(tmp_path: Path, layout: str) -> None:
    root = tmp_path / "projects"
    parent, agent = LAYOUTS[layout](root)
    site = tmp_path / "site"
    options = BuildOptions(root=root, site=site, search=False, cache_dir=tmp_path / "cache")
    first = build_site(options)
    assert first.ok, first.failures
    manifest = load_manifest(site)
    [(key, rec)] = manifest.pages.items()  # the subagent is no session of its own
    parent_page = site / rec.page
    [href] = _links(parent_page.read_text(encoding="utf-8"))
    target = (parent_page.parent / href).resolve()
    assert target.parent == parent_page.parent.resolve() and target.is_file()
    assert [str(sub["page"]) for sub in rec.subagents.values()] == [
        target.relative_to(site.resolve()).as_posix()
    ]
    assert {e["id"] for e in parse_page(target.read_text(encoding="utf-8")).data["entries"]} == _ids(agent)
    back = f'<dd class="st-parent"><a href="{parent_page.name}"><code>{parent.stem}</code></a>'
    assert back in target.read_text(encoding="utf-8")  # linked both ways

    # The transcript grows, the session file does not: the next build makes both pages again.
    lines = agent.read_text(encoding="utf-8").splitlines()
    last = json.loads(lines[-1])
    added = {**last, "uuid": "added-1", "parentUuid": last["uuid"], "type": "user"}
    added["message"] = {"role": "user", "content": "one more thing"}
    with agent.open("a", encoding="utf-8") as out:
        out.write(json.dumps(added) + "\n")
    second = build_site(options)
    assert second.rendered == [key]
    assert "added-1" in {e["id"] for e in parse_page(target.read_text(encoding="utf-8")).data["entries"]}
    assert build_site(options).rendered == []  # nothing changed since

    # The session goes: its subagent's page goes with it.
    parent.unlink()
    third = build_site(options)
    assert third.removed == [key]
    assert not target.exists() and not parent_page.exists()
