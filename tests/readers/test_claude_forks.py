"""Claude Code's forked subagents (compaction, side question) replay the parent's conversation
before their own work: the replay is shown once (the parent's), the fork's own records after it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from sessiontree.readers import load_any
from tests.readers.helpers import raw_objects, run

SID = "5e55a0b1-0000-4000-8000-0000000000f0"


def rec(uuid: str, parent: str | None, kind: str, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": SID, "isSidechain": False,
            "timestamp": f"2026-01-05T10:00:{len(uuid):02d}.000Z", "message": message, **extra}  # fmt: skip


def reply(rid: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    return {"id": rid, "role": "assistant", "model": "claude-sonnet-4-5", "content": list(blocks),
            "usage": {"input_tokens": 10, "output_tokens": 5}}  # fmt: skip


PARENT = [
    rec("u1", None, "user", {"role": "user", "content": "why is the cache cold?"}),
    rec("a1", "u1", "assistant", reply("msg_1", {"type": "tool_use", "id": "toolu_1", "name": "Bash",
                                                  "input": {"command": "make stats"}}), requestId="req_1"),
    rec("u2", "a1", "user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                                          "content": "hits 0"}]}),
    rec("a2", "u2", "assistant", reply("msg_2", {"type": "text", "text": "The TTL is zero."}),
        requestId="req_2"),
    rec("u3", "a2", "user", {"role": "user", "content": "set it to an hour"}),
    rec("a3", "u3", "assistant", reply("msg_3", {"type": "text", "text": "Done."}), requestId="req_3"),
]  # fmt: skip


def fork(prefix: str, task: str, answer: str) -> list[dict[str, Any]]:
    """A fork's transcript: the parent's records again (new uuids, same ids), then its own two."""
    out, previous = [], None
    for obj in PARENT:
        copy = {**json.loads(json.dumps(obj)), "uuid": prefix + obj["uuid"], "parentUuid": previous,
                "isSidechain": True, "agentId": prefix}  # fmt: skip
        out.append(copy)
        previous = copy["uuid"]
    own = rec(prefix + "t", previous, "user", {"role": "user", "content": task}, isSidechain=True)
    answered = reply(prefix + "msg", {"type": "text", "text": answer})
    done = rec(prefix + "r", prefix + "t", "assistant", answered, isSidechain=True, requestId=prefix + "req")
    return [*out, own, done]


def write(folder: Path, name: str, lines: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_compaction_and_a_side_question_show_the_parent_once(tmp_path: Path) -> None:
    project = tmp_path / "projects" / "-home-dev-cache"
    session = write(project, f"{SID}.jsonl", PARENT)
    agents = project / SID / "subagents"
    compact = write(agents, "agent-acompact-767ece576f2b74e8.jsonl",
                    fork("c", "Your task is to create a detailed summary of the conversation so far",
                         "Summary: the TTL was zero, now an hour."))  # fmt: skip
    aside = write(agents, "agent-aside_question-c5e5c961a7749e08.jsonl",
                  fork("q", "what does TTL stand for?", "Time to live."))  # fmt: skip
    entries = load_any(session).entries
    replies = Counter(
        e["message"].get("responseId") for e in entries if e.get("message", {}).get("role") == "assistant"
    )
    files = [session, compact, aside]
    stated = Counter(o["message"]["id"] for f in files for o in raw_objects(f) if o["type"] == "assistant")
    assert set(replies) == set(stated)  # every reply of the three files is read ...
    assert all(n == 1 for n in replies.values())  # ... once, though the forks state the parent's 3 times
    results = [e for e in entries if e.get("message", {}).get("role") == "toolResult"]
    assert len(results) == 1
    prompts = [e for e in entries if e.get("message", {}).get("role") == "user"]
    assert len(prompts) == 2 + 2  # the parent's two, and each fork's own task (synthetic: not typed)
    by_id = {e["id"]: e for e in entries}
    for own in ("cr", "qr"):  # each fork's answer hangs where it forked: under the parent's last reply
        chain = []
        at: str | None = own
        while at is not None:
            chain.append(at)
            at = by_id[at].get("parentId")
        assert "a3" in chain, chain
    code, out, err = run("inspect", "--json", str(session))
    assert code == 0, err
    assert json.loads(out)["prompts"] == 2


def test_a_task_subagent_is_read_whole(tmp_path: Path) -> None:
    project = tmp_path / "projects" / "-home-dev-cache"
    session = write(project, f"{SID}.jsonl", PARENT)
    own = [
        rec("t1", None, "user", {"role": "user", "content": "why is the cache cold?"}, isSidechain=True),
        rec("t2", "t1", "assistant", reply("msg_t", {"type": "text", "text": "Its TTL."}), isSidechain=True),
    ]
    own[0]["message"]["content"] = "Find why the cache is cold"
    write(project / SID / "subagents", "agent-a1b2c3d4e5f6a7b8c.jsonl", own)
    entries = load_any(session).entries
    assert sum(1 for e in entries if e.get("message", {}).get("responseId") == "msg_t") == 1
    assert len([e for e in entries if e.get("message", {}).get("role") == "user"]) == 3


def test_a_workflow_subagent_is_read_with_its_session_and_found_by_id(tmp_path: Path) -> None:
    """Claude Code 2.1.17x keeps a workflow's agents under <session>/subagents/workflows/wf_<run>/."""
    from sessiontree.readers.claude_layout import subagent_file

    project = tmp_path / "projects" / "-home-dev-cache"
    session = write(project, f"{SID}.jsonl", PARENT)
    own = [
        rec("w1", None, "user", {"role": "user", "content": "Audit the cache keys"}, isSidechain=True),
        rec(
            "w2",
            "w1",
            "assistant",
            reply("msg_w", {"type": "text", "text": "Two collide."}),
            isSidechain=True,
        ),
    ]
    run_dir = project / SID / "subagents" / "workflows" / "wf_0001"
    write(run_dir, "agent-b2c3d4e5f6a7b8c9d.jsonl", own)
    (run_dir / "journal.jsonl").write_text('{"event": "started"}\n', encoding="utf-8")
    entries = load_any(session).entries
    assert sum(1 for e in entries if e.get("message", {}).get("responseId") == "msg_w") == 1
    assert subagent_file(session, "b2c3d4e5f6a7b8c9d") == run_dir / "agent-b2c3d4e5f6a7b8c9d.jsonl"
    assert subagent_file(session, "../wf_0001") is None
