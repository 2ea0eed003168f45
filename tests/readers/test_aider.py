"""Aider's Markdown chat history, written as aider/io.py writes it, counted from its lines."""

from __future__ import annotations

import json
from pathlib import Path

from sessiontree.readers import detect_agent, load_any
from tests.readers.helpers import run


def user_input(text: str) -> str:
    """``InputOutput.user_input``: each line prefixed ``#### ``, a Markdown line break after each."""
    return "\n#### " + "  \n#### ".join(text.splitlines()) + "  \n"


def tool_output(text: str) -> str:
    """``InputOutput.tool_output``: a blockquote line with a Markdown line break."""
    return f"> {text.strip()}  \n"


def ai_output(text: str) -> str:
    """``InputOutput.ai_output``."""
    return "\n" + text.strip() + "\n\n"


HISTORY = (
    "\n# aider chat started at 2025-06-02 09:14:03\n\n"
    + tool_output("/home/dev/.local/bin/aider --model sonnet")
    + tool_output("Aider v0.84.0")
    + tool_output("Main model: anthropic/claude-sonnet-4-20250514 with diff edit format")
    + user_input("/add src/cache.py")
    + tool_output("Added src/cache.py to the chat")
    + user_input("why is the cache cold after a restart?\nit should load from disk")
    + ai_output("The loader never runs: `load()` is not called in `__init__`.\n\n```python\nself.load()\n```")
    + tool_output("Tokens: 2.3k sent, 1.1k cache hit, 120 received. Cost: $0.0123 message, $0.0123 session.")
    + tool_output("Applied edit to src/cache.py")
    + tool_output("Commit 1a2b3c4 fix: load the cache on start")
    + "\n# aider chat started at 2025-06-03 10:00:00\n\n"
    + tool_output("Main model: gpt-4o with diff edit format")
    + user_input("now add a test")
    + ai_output("Added `test_cache_loads`.")
    + tool_output("Tokens: 1,200 sent, 80 received. Cost: $0.0040 message, $0.0040 session.")
)


def test_a_history_counts_what_its_lines_say(tmp_path: Path) -> None:
    path = tmp_path / "cache" / ".aider.chat.history.md"
    path.parent.mkdir()
    path.write_text(HISTORY, encoding="utf-8")
    lines = HISTORY.split("\n")
    typed = [line for line in lines if line.startswith("#### ") and not line.startswith("#### /")]
    assert detect_agent(path) == "aider"
    code, out, err = run("inspect", "--json", str(path))
    assert code == 0, err
    summary = json.loads(out)
    prompts = [line for line in typed if not line.startswith("#### it should")]  # one input of two lines
    assert summary["prompts"] == len(prompts) == 2
    assert summary["message_roles"] == {"user": 2, "assistant": 2}
    assert summary["tokens"] == {"input": 3500, "output": 200, "cacheRead": 1100, "cacheWrite": 0}
    assert summary["cost"] == 0.0163 and summary["cost_estimated"] is False
    assert summary["models"] == ["anthropic/claude-sonnet-4-20250514", "openai/gpt-4o"]
    session = load_any(path)
    first = next(e for e in session.entries if e.get("message", {}).get("role") == "user")
    assert (
        first["message"]["content"][0]["text"]
        == "why is the cache cold after a restart?\nit should load from disk"
    )
    shown = [e["customType"] for e in session.entries if e["type"] == "custom"]
    assert shown.count("aider:start") == 2 and shown.count("aider:command") == 1


def test_list_finds_histories_under_a_root(tmp_path: Path) -> None:
    for name in ("cache", "web"):
        (tmp_path / "code" / name).mkdir(parents=True)
        (tmp_path / "code" / name / ".aider.chat.history.md").write_text(HISTORY, encoding="utf-8")
    code, out, err = run("list", "--all", "--root", str(tmp_path / "code"), "--json")
    assert code == 0, err
    found = json.loads(out)
    assert sorted(s["id"] for s in found) == ["cache", "web"]
    assert {s["agent"] for s in found} == {"aider"}
    assert {s["firstMessage"] for s in found} == {
        "why is the cache cold after a restart? it should load from disk"
    }
