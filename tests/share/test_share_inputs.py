"""Share inputs that used to crash: lone surrogates, values nested far deeper than recursion allows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_hostile_inputs import no_traceback, run, write_session
from tests.share.conftest import FakeGh
from tests.share.planted import shown_text

TOKEN = "ghp_" + "Q7w8E9r0T1y2U3i4O5p6" + "A7s8D9f0G1h2J3k4"


def test_lone_surrogates_share(tmp_path: Path, fake_gh: FakeGh, isolated_agent_dir: Path) -> None:
    path = write_session(
        tmp_path / "cut.jsonl",
        {"title": "cut \ud83d title"},
        [{"role": "user", "content": [{"type": "text", "text": f"smile \ud83d then {TOKEN} \ude00"}]}],
    )
    no_traceback(run("--agent-dir", str(isolated_agent_dir), "share", str(path), cwd=tmp_path))
    uploaded = fake_gh.uploaded()  # the decrypted page's bytes, read as strict UTF-8
    assert "smile \ufffd then [REDACTED:github-token] \ufffd" in shown_text(uploaded)


def test_value_nested_900_deep_shares(tmp_path: Path, fake_gh: FakeGh, isolated_agent_dir: Path) -> None:
    # 900 levels (450 objects in 450 lists): loads fine, and used to break redact_value's recursion.
    deep = '{"a":[' * 450 + json.dumps({"token": TOKEN}) + "]}" * 450
    path = write_session(tmp_path / "deep.jsonl", {}, [{"role": "user", "content": "configure it"}])
    call = '{"type":"toolCall","id":"c1","name":"configure","arguments":' + deep + "}"
    line = (
        '{"type":"message","id":"e0000001","parentId":"e0000000","message":{"role":"assistant",'
        f'"provider":"p","model":"m","content":[{call}]}}}}'
    )
    path.write_text(path.read_text() + line + "\n")
    assert json.loads(line)  # the line is valid JSON that Python's parser accepts
    no_traceback(run("--agent-dir", str(isolated_agent_dir), "share", str(path), cwd=tmp_path))
    uploaded = fake_gh.uploaded()
    assert TOKEN not in shown_text(uploaded)
    assert "<!doctype html>" in uploaded.lower()


@pytest.mark.parametrize("depth", [1_200, 3_000, 100_000])
def test_a_line_nested_too_deep_is_one_unreadable_line_when_shared(
    tmp_path: Path, fake_gh: FakeGh, isolated_agent_dir: Path, depth: int
) -> None:
    path = write_session(tmp_path / "deep.jsonl", {}, [{"role": "user", "content": "configure it"}])
    line = '{"type":"message","id":"e0000001","parentId":"e0000000","deep":' + "[" * depth + "]" * depth + "}"
    path.write_text(path.read_text() + line + "\n")
    shared = run("--agent-dir", str(isolated_agent_dir), "share", str(path), cwd=tmp_path)
    no_traceback(shared)
    assert "1 unreadable line skipped (3)" in shared.stderr
    assert "configure it" in shown_text(fake_gh.uploaded())
