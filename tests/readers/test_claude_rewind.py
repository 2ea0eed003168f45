"""Claude Code rewinds: a second typed prompt under the first one's parent is a branch.

The hand-made file follows the 2.1 layout: each prompt has a ``file-history-snapshot`` line
before it, each turn ends with ``stop_hook_summary`` and ``turn_duration`` system lines, and
the rewound prompt names the same ``stop_hook_summary`` parent as the prompt it replaces.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.readers import load_any
from sessiontree.store.entries import message_of
from sessiontree.store.session import Session
from tests.conftest import GenSession
from tests.readers.helpers import FIXTURES, REAL, claude_role_counts
from tests.readers.test_claude import roles

REWIND = FIXTURES / "claude" / "rewind" / "7e3d2c1b-0000-4000-8000-00000000be01.jsonl"


def _typed(session: Session, entry_ids: list[str]) -> list[str]:
    out = []
    for entry_id in entry_ids:
        message = message_of(session.tree.by_id[entry_id]) or {}
        if message.get("role") == "user":
            content = message.get("content")
            out.append(content[0]["text"] if isinstance(content, list) else str(content))
    return out


def _dump(path: Path, leaf: str) -> str:
    result = CliRunner().invoke(cli, ["dump", "--stdout", "--leaf", leaf, str(path)])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_rewound_prompt_is_a_branch_at_the_shared_parent() -> None:
    session = load_any(REWIND)
    tree = session.tree
    assert tree.branch_points == ["s-1"]
    old = [e["id"] for e in tree.path_to("d-2")]
    new = [e["id"] for e in tree.path_to("d-3")]
    assert "u-2" in old and "u-3" not in old
    assert "u-3" in new and "u-2" not in new and "a-3" not in new
    # each prompt keeps its file-history snapshot just above it
    assert tree.by_id[tree.parent_of("u-3") or ""]["data"]["messageId"] == "u-3"
    assert tree.by_id[tree.parent_of("u-2") or ""]["data"]["messageId"] == "u-2"
    # the newest line of the file is the leaf: the conversation after the rewind
    assert session.leaf_id == "d-3"


def test_parallel_calls_and_a_split_reply_stay_one_line() -> None:
    session = load_any(REWIND)
    reply = session.tree.by_id["a-1"]["message"]
    assert [b["type"] for b in reply["content"]] == ["thinking", "toolCall", "toolCall"]
    path = [e["id"] for e in session.tree.path_to("d-3")]
    assert path.index("a-1") < path.index("t-1") < path.index("t-2") < path.index("a-2")
    assert roles(session) == claude_role_counts(REWIND)


def test_each_leaf_dumps_its_own_context() -> None:
    old, new = _dump(REWIND, "d-2"), _dump(REWIND, "d-3")
    for text in (old, new):
        assert "Add a --dry-run flag to deploy.sh" in text and "I will wrap both" in text
    assert "Now also log every step" in old and "Instead, make --dry-run" not in old
    assert "Instead, make --dry-run" in new and "Now also log every step" not in new
    assert "tee -a deploy.log" not in new


def test_inspect_counts_the_branch_point() -> None:
    result = CliRunner().invoke(cli, ["inspect", "--json", str(REWIND)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["branch_points"], data["roots"], data["leaf_id"]) == (1, 1, "d-3")


def _snapshot(uuid: str) -> dict[str, Any]:
    backup = {"messageId": uuid, "trackedFileBackups": {}}
    return {"type": "file-history-snapshot", "messageId": uuid, "snapshot": backup, "isSnapshotUpdate": False}


def _to_2x_layout(lines: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """Give a generated file the 2.1 turn layout: snapshot before, stop summary after each turn."""
    out: list[dict[str, Any]] = []
    stops: list[str] = []
    for line in lines:
        content = line["message"]["content"] if line["type"] == "user" else None
        typed = isinstance(content, list) and any(b.get("type") == "text" for b in content)
        if typed and line["parentUuid"] is not None:
            stop = {**line, "type": "system", "subtype": "stop_hook_summary", "uuid": f"stop-{len(stops)}",
                    "hookCount": 1, "hookInfos": [], "hookErrors": []}  # fmt: skip
            del stop["message"]
            out.append(stop)
            stops.append(stop["uuid"])
            line = {**line, "parentUuid": stop["uuid"]}
        if typed:
            out.append(_snapshot(line["uuid"]))
        out.append(line)
    return out, stops


def _rewind_lines(base: dict[str, Any], parent: str, n: int) -> list[dict[str, Any]]:
    prompt = {**base, "type": "user", "uuid": f"rewind-{n}", "parentUuid": parent,
              "message": {"role": "user", "content": f"Rewound prompt number {n}"}}  # fmt: skip
    reply = {**base, "type": "assistant", "uuid": f"rewind-{n}-reply", "parentUuid": prompt["uuid"],
             "message": {"id": f"msg_rewind_{n}", "role": "assistant", "model": "claude-sonnet-4-5",
                         "content": [{"type": "text", "text": f"Answer to rewound prompt {n}"}]}}  # fmt: skip
    return [_snapshot(prompt["uuid"]), prompt, reply]


def test_generated_sessions_with_rewinds(gen_session: GenSession, tmp_path: Path) -> None:
    source = gen_session(12, fmt="claude")
    raw = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    plain = load_any(source)
    assert plain.tree.branch_points == []  # parallel results and split replies are no fork
    lines, stops = _to_2x_layout(raw)
    base = {k: raw[0][k] for k in ("sessionId", "cwd", "version", "timestamp")}
    rewinds = [stops[2], stops[5]]
    for n, stop in enumerate(rewinds):
        lines += _rewind_lines(base, stop, n)
    path = tmp_path / "5f2b9c1e-0000-4000-8000-000000000001.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    session = load_any(path)
    assert sorted(session.tree.branch_points) == sorted(rewinds)
    assert roles(session) == claude_role_counts(path)
    main_leaf = plain.leaf_id or ""
    main_path = [e["id"] for e in session.tree.path_to(main_leaf)]
    assert _typed(session, main_path) == _typed(plain, [e["id"] for e in plain.tree.path_to(main_leaf)])
    for n, stop in enumerate(rewinds):
        branch = [e["id"] for e in session.tree.path_to(f"rewind-{n}-reply")]
        assert stop in branch and f"rewind-{n}" in branch
        shared = main_path[: main_path.index(stop) + 1]
        assert branch[: len(shared)] == shared  # the history before the rewind point, nothing after it
        text = _dump(path, f"rewind-{n}-reply")
        assert f"Rewound prompt number {n}" in text and f"Answer to rewound prompt {n}" in text
        later = _typed(session, main_path[len(shared) :])
        assert later and all(prompt not in text for prompt in later)


def test_real_files_have_no_rewind() -> None:
    for path in sorted((REAL / "claude").glob("*.jsonl")):
        assert load_any(path).tree.branch_points == [], path.name
