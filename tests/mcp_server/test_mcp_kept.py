"""The MCP server covers what ``keep`` keeps: a session its agent deleted, named by machine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from mcp import ClientSession

from tests.keep.conftest import claude_session
from tests.mcp_server.test_mcp_process import ToolCall, _in_stdio

GONE_ID = "9a9a0001-0000-4000-8000-000000000001"
LIVE_ID = "9b9b0002-0000-4000-8000-000000000002"
PHRASE = "heron-quartz-marmalade"


def test_a_deleted_kept_session_is_listed_searched_and_read_with_its_machine(tmp_path: Path) -> None:
    home = tmp_path / "home"
    projects = home / ".claude" / "projects" / "-home-dev-demo"
    gone = claude_session(projects, GONE_ID, PHRASE)
    claude_session(projects, LIVE_ID, "plain words", day="2026-01-06")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "SESSIONTREE_"))}
    env.update(HOME=str(home), SESSIONTREE_MACHINE="desk-7", TZ="UTC")
    env["SESSIONTREE_AGENT_DIR"] = str(home / ".xcsh" / "agent")
    for _ in range(2):  # kept, then kept again once its file is gone
        subprocess.run(
            [sys.executable, "-m", "sessiontree", "keep"],
            env=env,
            check=True,
            capture_output=True,
            timeout=300,
        )
        gone.unlink(missing_ok=True)

    async def body(call: ToolCall, session: ClientSession) -> None:
        error, listed = await call("list_sessions", {})
        assert not error, listed
        by_id = {s["sessionId"]: s for s in listed["sessions"]}
        assert sorted(by_id) == [GONE_ID, LIVE_ID]  # once each
        assert "kept copy" in by_id[GONE_ID]["kept"] and "kept" not in by_id[LIVE_ID]
        assert {s["machine"] for s in listed["sessions"]} == {"desk-7"}
        error, found = await call("search_sessions", {"query": PHRASE, "machine": "desk-7"})
        assert not error and {h["sessionId"] for h in found["hits"]} == {GONE_ID}
        assert {h["machine"] for h in found["hits"]} == {"desk-7"}
        error, read = await call("read_session", {"session": GONE_ID})
        assert not error and PHRASE in read["messages"][0]["text"]
        error, said = await call("list_sessions", {"machine": "laptop-9"})
        assert error and "machine named 'laptop-9'" in said and "desk-7" in said

    _in_stdio(None, home, env=env, body=body)
