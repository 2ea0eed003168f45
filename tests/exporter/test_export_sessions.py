"""Exports of the real v1 fixture and generated v3 sessions with blobs and branches."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from sessiontree.errors import EntryNotFound, InvalidSession, SessionNotFound
from sessiontree.exporter import render_session_html
from sessiontree.pages.export import export_to_file
from sessiontree.store import load_session
from tests.conftest import GenSession
from tests.exporter.conftest import parse_page


def test_real_v1_fixture_exports_every_message(real_v1: Path, tmp_path: Path) -> None:
    before = (real_v1.read_bytes(), real_v1.stat().st_mtime_ns)
    out = export_to_file(real_v1, tmp_path / "v1.html")
    assert (real_v1.read_bytes(), real_v1.stat().st_mtime_ns) == before
    page = parse_page(out.read_text(encoding="utf-8"))
    messages = [m for m in page.data["entries"] if m["type"] == "message"]
    assert len(messages) == 914
    roles = {m["role"] for m in messages}
    assert roles == {"user", "assistant", "toolResult"}
    calls = {c for m in messages for c in m.get("calls", [])}
    results = [m["result"] for m in messages if "result" in m]
    assert len(results) == 373 and set(results) <= calls
    assert page.data["session"]["cwd"] == "/Users/badlogic/workspaces/pi-mono"
    assert "claude-sonnet-4-5" in out.read_text(encoding="utf-8")


def test_generated_v3_with_blobs_and_branches(gen_session: GenSession, tmp_path: Path) -> None:
    src = gen_session(130, blobs=True)
    work = tmp_path / "s"
    shutil.copytree(src.parent, work)
    path = work / "session.jsonl"
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    out = export_to_file(path, tmp_path / "out.html")
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    assert sorted(p.name for p in work.iterdir()) == ["blobs", "session.jsonl"]

    lines = [json.loads(line) for line in path.read_text().splitlines()]
    page = parse_page(out.read_text(encoding="utf-8"))
    ids = [m["id"] for m in page.data["entries"]]
    assert ids == [line["id"] for line in lines[1:]]
    assert page.data["images"], "blob images must be rehydrated and embedded"
    assert "blob missing" not in "".join(page.frags)
    parents = [m["parentId"] for m in page.data["entries"]]
    assert len(parents) != len(set(parents)), "the generated session has branches"
    cats = {m["cat"] for m in page.data["entries"]}
    assert {"user", "assistant", "tool", "notice", "summary", "custom", "meta"} <= cats
    labeled = [m for m in page.data["entries"] if "label" in m]
    assert labeled and all(m["label"].startswith("checkpoint-") for m in labeled)


def test_leaf_option_moves_the_active_leaf(gen_session: GenSession) -> None:
    session = load_session(gen_session(130))
    tree = session.tree
    other = next(c for bp in tree.branch_points for c in tree.children_of(bp) if c != session.leaf_id)
    page = parse_page(render_session_html(session, leaf_id=other))
    assert page.data["leafId"] == other
    with pytest.raises(EntryNotFound, match="Entry not found: nope"):
        render_session_html(session, leaf_id="nope")


def test_system_prompt_and_tools_from_session_init_or_given(gen_session: GenSession) -> None:
    session = load_session(gen_session(5))
    html = render_session_html(session)
    system = html.split('<section id="st-system">', 1)[1].split("</section>", 1)[0]
    assert "You are a coding agent." in system
    assert '<code class="st-tool-name">bash</code>' in system
    tools = [{"name": "grep", "description": "Search <files>", "parameters": {"type": "object"}}]
    html = render_session_html(session, system_prompt="Be brief & safe.", tools=tools)
    system = html.split('<section id="st-system">', 1)[1].split("</section>", 1)[0]
    assert "Be brief &amp; safe." in system
    assert "Search &lt;files&gt;" in system
    assert '<code class="st-tool-name">bash</code>' not in system


def test_header_shows_counts_tokens_cost_and_chart(gen_session: GenSession) -> None:
    html = render_session_html(load_session(gen_session(20)))
    header = html.split('<header id="st-header">', 1)[1].split("</header>\n<section", 1)[0]
    assert '<h1 class="st-title">Synthetic demo session</h1>' in header
    assert '<li data-count="prompts"><span class="st-n">20</span> prompts</li>' in header
    # no chip says "0 ..."
    assert not re.search(r'<span class="st-n">0</span>', header)
    assert re.search(r"<span class=\"st-n\">\$\d+\.\d{4}</span> cost", header)
    assert '<svg class="st-chart"' in header
    assert "anthropic/claude-sonnet-4-5" in header


def test_missing_directory_and_invalid_inputs(tmp_path: Path) -> None:
    with pytest.raises(SessionNotFound, match=f"^File not found: {tmp_path / 'x.jsonl'}$"):
        export_to_file(tmp_path / "x.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    with pytest.raises(InvalidSession, match="Not a session file"):
        export_to_file(bad, tmp_path / "o.html")
    assert not (tmp_path / "o.html").exists()


def test_default_output_name_in_current_directory(
    gen_session: GenSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    out = export_to_file(gen_session(3))
    assert out == tmp_path / "session-session.html"
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask
