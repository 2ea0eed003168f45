"""Claude Code and Codex files are searched and totalled through their readers' line converters."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from sessiontree.archive.search import SearchFilters, SearchIndex
from sessiontree.archive.usage import count_of
from sessiontree.readers import load_any
from sessiontree.store.claude_markup import content_parts
from tests.conftest import REAL

CLAUDE = (
    REAL
    / "claude"
    / (
        "claude-code-log--test_test_data_real_projects_-Users-dain-workspace-coderabbit-review-helper_"
        "cb2e607c-c758-415a-8b45-c49e4631906a.jsonl"
    )
)


def test_a_claude_session_is_found_at_the_readers_entry_ids(roots: Path, cache_dir: Path) -> None:
    path = roots / "claude" / "session.jsonl"
    path.parent.mkdir()
    shutil.copyfile(CLAUDE, path)
    session = load_any(path)
    user = next(e for e in session.entries if e.get("type") == "message" and e["message"]["role"] == "user")
    content = user["message"]["content"]
    text = (
        content if isinstance(content, str) else next(b["text"] for b in content if b.get("type") == "text")
    )
    # what the message says, its wrapper tags left out (the index holds the parts' text, not tag names)
    parts = content_parts(content)
    text = text if parts is None else " ".join(p.text for p in parts)
    assert "<command" not in text
    words = re.findall(r"[^\W_]+", text)[:4]
    with SearchIndex([roots], cache_dir) as index:
        assert index.update().whole == 1
        found = index.search('"' + " ".join(words) + '"', SearchFilters(role="user", limit=100))
        assert user["id"] in {h.entry_id for h in found}
        usage = index.usage()
        expected = sum(
            count_of(e["message"]["usage"].get("output"))
            for e in session.entries
            if e.get("type") == "message"
            and e["message"].get("role") == "assistant"
            and "usage" in e["message"]
        )
        assert usage and sum(r.usage.output for r in usage) == expected > 0
        line = json.loads(CLAUDE.read_text().splitlines()[-1])
        line.update(uuid="zq-appended-uuid", parentUuid=line.get("uuid"), type="user")
        line["message"] = {"role": "user", "content": "zqclaudeappend words"}
        with path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")
        report = index.update()
        assert report.whole == 0 and report.appended == 1  # only the appended line is read
        hits = index.search("zqclaudeappend")
        assert len(hits) == 1 and hits[0].role == "user"
        assert len(index.usage()) == len(usage)
