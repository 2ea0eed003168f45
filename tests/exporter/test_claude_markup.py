"""Claude Code's wrapper markup shown as what it is (chips, notices), never as raw tags or a title."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from syrupy.assertion import SnapshotAssertion

from sessiontree.archive.catalog import Catalog
from sessiontree.cli import cli
from sessiontree.exporter import RenderOptions, render_session
from sessiontree.exporter.render import RenderContext, render_entry
from sessiontree.readers import load_any
from sessiontree.readers.agent_info import read_agent_info
from sessiontree.share.publish import describe_share
from sessiontree.store.claude_markup import parsed_content, split_markup, typed_text
from tests.exporter.entries import TS
from tests.readers.helpers import REAL

WRAPPER = re.compile(
    r"<(command-name|command-message|command-args|local-command-stdout|local-command-caveat|ide_selection|"
    r"ide_opened_file|system-reminder|environment_context|user_instructions)>|\[Request interrupted"
)
REAL_FILES = sorted([*(REAL / "claude").glob("*.jsonl"), *(REAL / "codex").glob("*.jsonl")])

COMMAND = (
    "<command-name>/model</command-name>\n<command-message>model</command-message>\n"
    "<command-args>opus <script>alert(1)</script></command-args>"
)
STDOUT = "<local-command-stdout>Set model to \x1b[1mopus\x1b[22m (claude-opus-4-1)</local-command-stdout>"
IDE = (
    "<ide_selection>The user selected the lines 3 to 4 from /src/app.py:\nx = 1\ny = 2\n\n"
    "This may or may not be related to the current task.</ide_selection>"
)
CASES = {
    "command": COMMAND,
    "command_output": STDOUT,
    "ide_selection_and_prompt": [{"type": "text", "text": IDE}, {"type": "text", "text": "Why is y 2 here?"}],
    "reminder_in_prompt": "Fix the test<system-reminder>Be concise.</system-reminder>",
    "interrupted": [{"type": "text", "text": "[Request interrupted by user for tool use]"}],
}


def _user(content: object) -> dict[str, object]:
    """A user entry as the Claude Code reader leaves it: its wrapper markup parsed once."""
    return {
        "type": "message",
        "id": "u1",
        "parentId": None,
        "timestamp": TS,
        "message": {"role": "user", "content": parsed_content(content)},
    }


def test_parts_and_typed_text() -> None:
    assert [p.kind for p in split_markup(COMMAND)] == ["command-name", "command-message", "command-args"]
    assert typed_text(COMMAND) == "" and typed_text(STDOUT) == ""
    assert typed_text(IDE + "Why is y 2 here?") == "Why is y 2 here?"
    assert typed_text("[Request interrupted by user]") == ""
    assert typed_text("plain <b>html</b> talk") == "plain <b>html</b> talk"
    cut = "<ide_opened_file>The user opened /a.py"  # a tag never closed: all of it is that part
    assert [p.kind for p in split_markup("look " + cut)] == ["text", "ide_opened_file"]


@pytest.mark.parametrize("case", list(CASES))
def test_markup_fragments(case: str, html_snapshot: SnapshotAssertion) -> None:
    meta, html = render_entry(_user(CASES[case]), RenderContext())
    assert "&lt;command" not in html and "&lt;local-command" not in html and "&lt;ide_" not in html
    assert "&lt;system-reminder" not in html and "<script>" not in html
    assert "\x1b" not in html
    assert html == html_snapshot
    expected = {
        "command": ("user", "Command", "/model opus <script>alert(1)</script>", "st-chip-command"),
        "command_output": ("user", "Command", "Command output", "st-command-output"),
        "ide_selection_and_prompt": ("user", "User", "Why is y 2 here?", "st-chip-context"),
        "reminder_in_prompt": ("user", "User", "Fix the test", "st-chip-context"),
        "interrupted": ("notice", "Interrupted", "Interrupted by user", "st-interrupted"),
    }[case]
    assert (meta["cat"], meta["preview"]) == (expected[0], expected[2])
    assert f">{expected[1]}<" in html and expected[3] in html


def test_no_wrapper_tag_in_any_title_of_the_real_files(tmp_path: Path) -> None:
    root = tmp_path / "projects" / "-Users-dain-workspace"
    root.mkdir(parents=True)
    for path in REAL_FILES:
        session = load_any(path)
        rendered = render_session(session, RenderOptions(parallel=False, compress=False))
        info = read_agent_info(path)
        assert info is not None
        for text in (
            rendered.title,
            info.display_title,
            info.first_message or "",
            describe_share(rendered.title, "2026-01-01"),
        ):
            assert not WRAPPER.search(text), (path.name, text)
        if path.parent.name == "claude":
            shutil.copy(path, root / path.name.rsplit("_", 1)[-1])
    entries = Catalog(tmp_path / "projects", tmp_path / "cache").scan()
    assert len(entries) >= 5
    for entry in entries:
        title = entry.display_title
        assert title and not WRAPPER.search(title) and not WRAPPER.search(entry.first_message or "")
    args = ["--sessions-dir", str(tmp_path / "projects"), "--cache-dir", str(tmp_path / "cache2")]
    report = json.loads(CliRunner().invoke(cli, ["stats", *args, "--by", "session", "--json"]).output)
    titles = [g["title"] for g in report["groups"]]
    assert len(titles) >= 5 and all(t and not WRAPPER.search(t) for t in titles), titles
    found = CliRunner().invoke(cli, ["search", *args, "--json", "the"]).output
    hits = [json.loads(line) for line in found.splitlines() if line.startswith("{")] or json.loads(found)
    hit_titles = [h.get("title") or "" for h in (hits if isinstance(hits, list) else hits.get("hits", []))]
    assert hit_titles and not any(WRAPPER.search(t) for t in hit_titles)


def test_no_user_bubble_holds_raw_wrapper_tags_in_the_real_files() -> None:
    """Claude Code's markup and Codex CLI's injected context never show as a user's raw text."""
    injected = re.compile(
        r"&lt;(command-name|local-command|ide_|environment_context|user_instructions)|# AGENTS\.md"
    )
    for path in REAL_FILES:
        rendered = render_session(load_any(path), RenderOptions(parallel=False, compress=False))
        frags = rendered.frags.value()
        assert isinstance(frags, list) and len(frags) == len(rendered.entries), path.name
        for meta, html in zip(rendered.entries, frags, strict=True):
            if meta.get("cat") == "user":
                assert not injected.search(html), (path.name, meta["id"])
