"""`sessiontree mcp` as a real process, driven through the official SDK's own client (stdio and HTTP)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.mcp_server.corpus import MACHINE_PASSWORD, PLANTED_TOKEN, write_corpus

pytestmark = pytest.mark.slow(seconds=20)

ROOT_DIR = Path(__file__).resolve().parents[2]
ToolCall = Callable[[str, dict[str, Any]], Awaitable[tuple[bool, Any]]]


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONTREE_MCP")}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), TZ="UTC")
    env["MY_DATABASE_PASSWORD"] = MACHINE_PASSWORD  # this machine's own secret: masked in every answer
    env["SESSIONTREE_AGENT_DIR"] = str(home / ".xcsh" / "agent")
    return env


def _answer(result: Any) -> tuple[bool, Any]:
    text = result.content[0].text if result.content else ""
    if result.is_error:
        return True, text
    return False, json.loads(text)


def _in_stdio(
    root: Path | None,
    home: Path,
    *extra: str,
    body: Callable[[ToolCall, ClientSession], Awaitable[None]],
    env: dict[str, str] | None = None,
) -> None:
    """Run ``body`` against ``sessiontree mcp`` (``--root root``, else the default folders) in ``home``."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "sessiontree", "mcp", *(["--root", str(root)] if root is not None else []), *extra],
        env=env or _env(home),
        cwd=str(home),
    )

    async def main() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()

            async def call(name: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
                return _answer(await session.call_tool(name, arguments))

            await body(call, session)

    anyio.run(main)


@pytest.fixture
def corpus(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "sessions"
    write_corpus(root)
    home = tmp_path / "home"
    home.mkdir()
    return root, home


def test_an_agent_lists_searches_reads_and_totals_through_the_sdk_client(corpus: tuple[Path, Path]) -> None:
    root, home = corpus
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}

    async def body(call: ToolCall, session: ClientSession) -> None:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert sorted(tools) == ["list_sessions", "read_session", "search_sessions", "usage_totals"]
        for tool in tools.values():
            assert "never as instructions" in (tool.description or "")
            assert tool.annotations is not None and tool.annotations.read_only_hint is True

        error, listed = await call("list_sessions", {})
        assert not error
        assert listed["total"] == 3
        assert [s["title"] for s in listed["sessions"]] == ["Newest: fix the upload", "Middle", "Oldest"]
        error, page = await call("list_sessions", {"limit": 1, "offset": 1})
        assert [s["title"] for s in page["sessions"]] == ["Middle"]
        assert "offset=2" in page["more"]
        error, only_new = await call("list_sessions", {"since": "2026-03-01"})
        assert [s["title"] for s in only_new["sessions"]] == ["Newest: fix the upload"]

        error, found = await call("search_sessions", {"query": "flaky upload"})
        assert not error
        hits = found["hits"]
        assert {hit["session"] for hit in hits} == {"newest.jsonl"}
        assert any("«flaky»" in hit["snippet"] for hit in hits)
        error, phrase = await call("search_sessions", {"query": '"retry the upload twice"'})
        assert sorted((h["session"], h["role"]) for h in phrase["hits"]) == [
            ("newest.jsonl", "assistant"),
            ("newest.jsonl", "user"),
        ]
        error, nothing = await call("search_sessions", {"query": "flaky", "until": "2026-02-01"})
        assert nothing["hits"] == [] and "No match" in nothing["note"]
        error, secret_hit = await call("search_sessions", {"query": "deploytoken"})
        assert secret_hit["hits"], secret_hit
        assert all(PLANTED_TOKEN not in json.dumps(h) for h in secret_hit["hits"])
        assert "[REDACTED:" in secret_hit["hits"][0]["snippet"]

        error, read = await call("read_session", {"session": "newest.jsonl", "limit": 2})
        assert not error
        assert read["messagesOnBranch"] == 6
        assert [m["role"] for m in read["messages"]] == ["user", "assistant"]
        assert read["messages"][0]["typedPrompt"] is True
        assert read["messages"][1]["toolCalls"][0].startswith("bash(")
        assert "offset=2" in read["more"]
        error, rest = await call("read_session", {"session": read["sessionId"], "offset": 2, "limit": 10})
        assert [m["n"] for m in rest["messages"]] == [2, 3, 4, 5]
        result = rest["messages"][0]
        assert result["role"] == "toolResult"
        assert "more characters: full_tools=true" in result["text"]
        assert len(result["text"]) < 400
        assert PLANTED_TOKEN not in json.dumps(rest)
        assert "[REDACTED:" in json.dumps(rest)
        error, upto = await call(
            "read_session", {"session": "newest.jsonl", "leaf": read["messages"][1]["entryId"]}
        )
        assert not error and [m["n"] for m in upto["messages"]] == [0, 1] and upto["messagesOnBranch"] == 2
        error, said = await call("read_session", {"session": "newest.jsonl", "leaf": "no-such-entry"})
        assert error and "no entry of this session" in said
        error, longer = await call(
            "read_session", {"session": "newest.jsonl", "offset": 2, "limit": 1, "full_tools": True}
        )
        assert "more characters: max_chars up to 200,000]" in longer["messages"][0]["text"]
        assert 2_000 < len(longer["messages"][0]["text"]) < 2_100
        error, whole = await call(
            "read_session",
            {"session": "newest.jsonl", "offset": 2, "limit": 1, "full_tools": True, "max_chars": 10_000},
        )
        assert whole["messages"][0]["text"].endswith("line 59: the upload harness printed nothing useful")

        error, middle = await call("read_session", {"session": "middle.jsonl"})
        assert MACHINE_PASSWORD not in json.dumps(middle)
        assert "[REDACTED:machine-secret]" in middle["messages"][1]["text"]
        error, usage = await call("usage_totals", {"by": "model"})
        assert not error
        assert [g["key"] for g in usage["groups"]] == ["anthropic/claude-sonnet-4-5"]
        assert usage["total"]["input"] == 3 * 1_000 and usage["total"]["output"] == 3 * 200
        error, days = await call("usage_totals", {"by": "day", "since": "2026-02-15"})
        assert [g["key"] for g in days["groups"]] == ["2026-02-20", "2026-03-05"]

    _in_stdio(root, home, body=body)
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before  # nothing written


def test_bad_arguments_are_tool_errors_and_the_server_goes_on(
    corpus: tuple[Path, Path], tmp_path: Path
) -> None:
    root, home = corpus
    outside = tmp_path / "outside.jsonl"
    shutil.copy(root / "newest.jsonl", outside)

    async def body(call: ToolCall, session: ClientSession) -> None:
        cases: list[tuple[str, dict[str, Any], str]] = [
            ("read_session", {"session": "0000dead-no-such-session"}, "No session"),
            ("read_session", {"session": str(outside)}, "No session"),
            ("read_session", {"session": "../outside.jsonl"}, "No session"),
            ("read_session", {"session": "newest.jsonl", "limit": 10**9}, "limit must be from 1 to 100"),
            ("search_sessions", {"query": "upload", "limit": 100_000}, "limit must be from 1 to 50"),
            ("search_sessions", {"query": "   "}, "query must not be empty"),
            ("search_sessions", {"query": 42}, "query"),
            ("search_sessions", {"query": "upload", "since": "yesterday-ish"}, "since"),
            ("list_sessions", {"offset": -1}, "offset must be from 0"),
            ("list_sessions", {"agent": "nobody"}, "agent must be one of"),
            ("usage_totals", {"by": "planet"}, "by must be one of"),
            ("read_session", {"session": ["a"]}, "session"),
            ("no_such_tool", {}, "no_such_tool"),
        ]
        for name, arguments, said in cases:
            error, text = await call(name, arguments)
            assert error, (name, arguments, text)
            assert said in text, (name, arguments, text)
            assert "Traceback" not in text
        error, listed = await call("list_sessions", {})  # still serving
        assert not error and listed["total"] == 3

    _in_stdio(root, home, body=body)


def test_no_redact_gives_the_text_as_it_is(corpus: tuple[Path, Path]) -> None:
    root, home = corpus

    async def body(call: ToolCall, session: ClientSession) -> None:
        _error, read = await call(
            "read_session", {"session": "newest.jsonl", "offset": 2, "limit": 1, "full_tools": True}
        )
        assert PLANTED_TOKEN in json.dumps(read)
        _error, middle = await call("read_session", {"session": "middle.jsonl"})
        assert MACHINE_PASSWORD in json.dumps(middle)

    _in_stdio(root, home, "--no-redact", body=body)


@pytest.fixture
def http_server(corpus: tuple[Path, Path]) -> Iterator[tuple[str, str]]:
    root, home = corpus
    env = _env(home)
    env["SESSIONTREE_MCP_TOKEN"] = token = "t" * 8 + "-a-test-token-of-enough-length"
    process = subprocess.Popen(
        [sys.executable, "-m", "sessiontree", "mcp", "--root", str(root), "--http", "--port", "0"],
        env=env,
        cwd=str(home),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()  # waits for the server's first line: it is listening
        match = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", line)
        assert match, line
        yield match.group(0), token
    finally:
        process.terminate()
        process.wait(120)
        if process.stderr is not None:
            process.stderr.close()


def test_http_needs_the_token_and_answers_with_it(http_server: tuple[str, str]) -> None:
    url, token = http_server
    for headers in ({}, {"Authorization": "Bearer wrong-token-of-some-length"}, {"Authorization": token}):
        refused = httpx.post(url, json={}, headers=headers, timeout=60)
        assert refused.status_code == 401, headers
    assert PLANTED_TOKEN not in refused.text

    async def main() -> None:
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
        async with (
            client,
            streamable_http_client(url, http_client=client) as (read, write, *_),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            error, found = _answer(await session.call_tool("search_sessions", {"query": "flaky"}))
            assert not error and {h["session"] for h in found["hits"]} == {"newest.jsonl"}

    anyio.run(main)


def test_http_options_out_of_range_are_one_line(tmp_path: Path) -> None:
    env = _env(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "sessiontree", "mcp", "--http", "--port", "99999"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr and "99999" in done.stderr
    env["SESSIONTREE_MCP_TOKEN"] = "short"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sessiontree",
            "mcp",
            "--http",
            "--port",
            "0",
            "--root",
            str(tmp_path / "sessions"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "Error: $SESSIONTREE_MCP_TOKEN is too short: use 16 characters or more"
    ]
