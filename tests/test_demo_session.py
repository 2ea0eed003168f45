"""The bundled example: written by scripts/build-demo-session, and it shows what sessiontree does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.store import load_session

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "demo-session.jsonl"


def test_the_demo_file_is_what_the_builder_writes(tmp_path: Path) -> None:
    out = tmp_path / "demo.jsonl"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "build-demo-session"), str(out)], check=True)
    assert out.read_bytes() == DEMO.read_bytes()


def test_the_demo_shows_branches_compaction_image_labels_and_the_main_tools(tmp_path: Path) -> None:
    session = load_session(DEMO)
    assert session.bad_lines == [] and session.repairs == []
    assert session.title == "Fix the skipped last row in ledger totals"
    tree = session.tree
    assert tree.branch_points and len(tree.labels) >= 2
    kinds = {e["type"] for e in session.entries}
    assert {"compaction", "branch_summary", "label"} <= kinds
    blocks = [
        b
        for e in session.entries
        if e["type"] == "message"
        for b in (e["message"].get("content") or [])
        if isinstance(b, dict)
    ]
    assert any(b["type"] == "image" for b in blocks)
    tools = {b["name"] for b in blocks if b["type"] == "toolCall"}
    assert {"bash", "read", "edit", "write"} <= tools
    # the active path goes through the compaction and ends on the last entry
    path = [e["type"] for e in session.path_entries()]
    assert "compaction" in path and session.leaf_id == session.entries[-1]["id"]
    result = CliRunner().invoke(cli, ["export", str(DEMO), str(tmp_path / "demo.html")])
    assert result.exit_code == 0 and "Warning" not in result.stderr
