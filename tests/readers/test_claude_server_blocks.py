"""Claude Code replies and tool results holding the Anthropic API's newer blocks (server tools'
results, a PDF ``document``, a tool-search ``tool_reference``): each is shown as what it is, never
as its JSON or its base64. Lines in the shape of the real files in tests/fixtures/real/claude."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sessiontree.exporter.api import render_session
from sessiontree.exporter.options import RenderOptions
from sessiontree.readers import load_any
from tests.readers.helpers import inspected, raw_objects

SID = "0b5e7c1a-9d2f-4e3a-8b6c-1d0e2f3a4b5c"
PDF = (
    "JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoKdHJhaWxlcgo8PC9Sb290IDEgMCBSPj4KJSVFT0YK"
)


def _lines() -> list[dict[str, Any]]:
    made: list[dict[str, Any]] = []

    def line(kind: str, content: Any, **extra: Any) -> None:
        role = "assistant" if kind == "assistant" else "user"
        made.append({"parentUuid": made[-1]["uuid"] if made else None, "isSidechain": False,
                     "userType": "external", "cwd": "/home/dev/spec", "sessionId": SID, "version": "2.1.20",
                     "gitBranch": "main", "type": kind, "message": {"role": role, "content": content},
                     "uuid": f"u{len(made) + 1}", "timestamp": f"2026-07-01T12:00:{len(made):02d}.000Z",
                     **extra})  # fmt: skip

    hit = {"type": "web_search_result", "title": "RFC 9110: HTTP Semantics", "page_age": "June 2022",
           "url": "https://www.rfc-editor.org/rfc/rfc9110",
           "encrypted_content": "EqgfCioIARgBIiQ3"}  # fmt: skip
    search = {
        "type": "server_tool_use",
        "id": "srvtoolu_1",
        "name": "web_search",
        "input": {"query": "rfc 9110"},
    }
    found = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [hit]}
    fetch = {
        "type": "server_tool_use",
        "id": "srvtoolu_2",
        "name": "web_fetch",
        "input": {"url": "https://x.test/a"},
    }
    page = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "A page"}}
    fetched = {"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_2",
               "content": {"type": "web_fetch_result", "url": "https://x.test/a",
                           "content": page}}  # fmt: skip
    read = {"type": "tool_use", "id": "toolu_read", "name": "Read", "input": {"file_path": "spec.pdf"}}
    pdf = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": PDF}}
    loaded = {"type": "tool_reference", "tool_name": "mcp__github__create_issue"}
    line("user", "Find RFC 9110, fetch x.test/a and read spec.pdf")
    line("assistant", [search, found, fetch, fetched, read])
    line("user", [{"type": "tool_result", "tool_use_id": "toolu_read", "content": [pdf]}],
         toolUseResult={"type": "pdf", "file": {"filePath": "spec.pdf", "originalSize": 80}})  # fmt: skip
    line(
        "assistant",
        [{"type": "tool_use", "id": "toolu_ts", "name": "ToolSearch", "input": {"query": "github"}}],
    )
    line("user", [{"type": "tool_result", "tool_use_id": "toolu_ts", "content": [loaded]}])
    line("assistant", [{"type": "text", "text": "The spec is a one-page PDF."}])
    return made


def test_server_tool_results_documents_and_tool_references_are_shown_by_name(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "projects" / "-home-dev-spec" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(o) + "\n" for o in _lines()), encoding="utf-8")
    typed = [o for o in raw_objects(path) if o["type"] == "user" and isinstance(o["message"]["content"], str)]
    assert inspected(path, "claude")["prompts"] == len(typed) == 1
    frags = render_session(load_any(path), RenderOptions(compress=False)).frags.value()
    assert isinstance(frags, list)
    page = "".join(frags)
    assert PDF not in page and "EqgfCioIARgBIiQ3" not in page and "st-json" not in page
    assert "RFC 9110: HTTP Semantics https://www.rfc-editor.org/rfc/rfc9110" in page
    assert "https://x.test/a" in page and "web fetch tool result" in page
    assert "[document: application/pdf]" in page and "[tool loaded: mcp__github__create_issue]" in page
