"""Claude Code and Codex files followed line by line: appended pieces index as the whole file does."""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sessiontree.archive.index_db import read_texts
from sessiontree.archive.search import SearchFilters, SearchIndex
from tests.conftest import GEN_SESSION, ROOT, SHIPPED_REAL

FIXTURES = ROOT / "tests" / "fixtures"
FOREIGN = sorted(
    [
        *(SHIPPED_REAL / "claude").glob("*.jsonl"),
        *(SHIPPED_REAL / "codex").glob("*.jsonl"),
        *(FIXTURES / "claude").glob("*.jsonl"),
        *(FIXTURES / "codex").glob("*.jsonl"),
        *(FIXTURES / "claude" / "events").glob("*.jsonl"),  # folded API errors, notices (issue 31)
        *(FIXTURES / "codex" / "rollback").glob("*.jsonl"),  # a rollback, an injected abort
    ]
)


def _contents(db: Path) -> dict[str, Any]:
    """Everything the index holds of its files, by content (row ids and insertion order left out)."""
    conn = sqlite3.connect(db)
    try:
        ids = [r[0] for r in conn.execute("SELECT id FROM rows")]
        texts = read_texts(conn, ids)
        rows = sorted(
            (str(path), entry_id or "", role, tier, ts, texts[row_id])
            for row_id, path, entry_id, role, tier, ts in conn.execute(
                "SELECT r.id, f.path, r.entry_id, r.role, r.tier, r.ts "
                "FROM rows r JOIN files f ON f.id = r.file_id"
            )
        )
        files = sorted(conn.execute("SELECT path, session_id, title, cwd, started, version FROM files"))
        usage = sorted(
            (path, quarter, model, n, i, o, cr, cw, round(cost, 9), costed)
            for path, quarter, model, n, i, o, cr, cw, cost, costed in conn.execute(
                "SELECT f.path, quarter, model, messages, input, output, cache_read, cache_write, "
                "cost, costed FROM usage_days u JOIN files f ON f.id = u.file_id"
            )
        )
        return {"rows": rows, "files": files, "usage": usage}
    finally:
        conn.close()


def _pieces(data: bytes, count: int) -> list[bytes]:
    """Cut a file's bytes into ``count`` pieces at line ends (the last piece may end mid-line)."""
    lines = data.splitlines(keepends=True)
    if len(lines) <= count:
        return lines
    step = len(lines) / count
    cuts = sorted({round(step * n) for n in range(1, count)})
    bounds = [0, *cuts, len(lines)]
    return [b"".join(lines[a:b]) for a, b in itertools.pairwise(bounds)]


def _grow(source: bytes, path: Path, cache: Path, count: int) -> dict[str, Any]:
    path.write_bytes(b"")
    with SearchIndex([path.parent.parent], cache) as index:
        for piece in _pieces(source, count):
            with path.open("ab") as fh:
                fh.write(piece)
            index.update()
    return _contents(cache / "search.db")


@pytest.mark.parametrize("source", FOREIGN, ids=lambda p: p.name[-40:])
def test_appended_pieces_index_as_the_whole_file(source: Path, tmp_path: Path) -> None:
    data = source.read_bytes()
    name = source.name if "rollout" in source.name else source.name.split("_")[-1]
    whole_path = tmp_path / "whole" / "p" / name
    whole_path.parent.mkdir(parents=True)
    whole_path.write_bytes(data)
    with SearchIndex([tmp_path / "whole"], tmp_path / "c-whole") as index:
        assert index.update().whole == 1
    whole = _contents(tmp_path / "c-whole" / "search.db")
    assert whole["rows"]
    lines = data.count(b"\n")
    for count in sorted({3, 11, lines if lines <= 150 else 40}):
        grown_path = tmp_path / f"grown{count}" / "p" / name
        grown_path.parent.mkdir(parents=True)
        grown = _grow(data, grown_path, tmp_path / f"c{count}", count)
        fix = str(grown_path), str(whole_path)
        grown["rows"] = sorted((fix[1] if r[0] == fix[0] else r[0], *r[1:]) for r in grown["rows"])
        grown["files"] = sorted((fix[1] if f[0] == fix[0] else f[0], *f[1:]) for f in grown["files"])
        grown["usage"] = sorted((fix[1] if u[0] == fix[0] else u[0], *u[1:]) for u in grown["usage"])
        assert grown == whole, f"{count} pieces"


def _claude_lines(turns: int, seed: int) -> list[str]:
    out = subprocess.run(
        [sys.executable, str(GEN_SESSION), "--format", "claude", "--turns", str(turns), "--seed", str(seed)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return out.splitlines(keepends=True)


def _db_pages(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return int(conn.execute("PRAGMA page_count").fetchone()[0]) - int(
            conn.execute("PRAGMA freelist_count").fetchone()[0]
        )
    finally:
        conn.close()


def test_a_claude_file_that_grows_is_rewritten_shrinks_and_is_replaced(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    path = root / "-work-demo" / "0d3a8e6f-290f-4105-a327-a2496e5e2a99.jsonl"
    path.parent.mkdir(parents=True)
    lines = _claude_lines(60, 7)
    half = len(lines) // 2
    path.write_text("".join(lines[:half]), encoding="utf-8")

    def said(word: str, uuid: str, parent: str | None) -> str:
        record = json.loads(lines[1])
        record.update(type="user", uuid=uuid, parentUuid=parent, isSidechain=False)
        record["message"] = {"role": "user", "content": f"please look at {word} now"}
        return json.dumps(record) + "\n"

    with SearchIndex([root], tmp_path / "c") as index:
        assert index.update().whole == 1
        last = json.loads(lines[-1])["uuid"]
        with path.open("a", encoding="utf-8") as fh:  # grows
            fh.write("".join(lines[half:]) + said("zqgrownword", "u-grown", last))
        report = index.update()
        assert (report.whole, report.appended) == (0, 1)
        assert [h.entry_id for h in index.search("zqgrownword")] == ["u-grown"]
        db = tmp_path / "c" / "search.db"
        text = path.read_text(encoding="utf-8")
        sizes = []
        for round_ in range(8):  # its last line rewritten in place: read whole again, each time
            word = f"zqrewrite{round_}x"
            with path.open("r+", encoding="utf-8") as fh:
                fh.write(text.replace("zqgrownword", word))
            report = index.update()
            assert report.whole == 1
            assert index.search("zqgrownword") == [] and index.search(f"zqrewrite{round_ - 1}x") == []
            assert [h.entry_id for h in index.search(word)] == ["u-grown"]
            sizes.append(_db_pages(db))
        # FTS5 keeps a forgotten row's words until it merges segments: the size cycles, it does not grow.
        assert max(sizes[4:]) <= max(sizes[:4]) and min(sizes) < max(sizes)
        path.write_text("".join(lines[:half]), encoding="utf-8")  # shrinks
        assert index.update().whole == 1
        assert index.search("zqrewrite7x") == [] and index.search("zqgrownword") == []
        replacement = path.with_name("next.tmp")
        first = json.loads(lines[half - 1])["uuid"]
        replacement.write_text("".join(lines[:half]) + said("zqreplaced", "u-new", first), encoding="utf-8")
        os.replace(replacement, path)  # replaced by rename
        assert index.update().whole == 1
        assert [h.entry_id for h in index.search("zqreplaced")] == ["u-new"]
        hits = index.search("zqreplaced", SearchFilters(role="user"))
        assert hits[0].path == path


def test_every_title_of_a_claude_file_is_searchable(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    path = root / "-work-demo" / "0d3a8e6f-290f-4105-a327-a2496e5e2a98.jsonl"
    path.parent.mkdir(parents=True)
    lines = _claude_lines(4, 8)
    leaf = json.loads(lines[-1])["uuid"]
    session = json.loads(lines[0])["sessionId"]
    summary = {"type": "summary", "summary": "Fixing the zqsummaryword parser", "leafUuid": leaf}
    path.write_text("".join(lines) + json.dumps(summary) + "\n", encoding="utf-8")
    with SearchIndex([root], tmp_path / "c") as index:
        index.update()
        assert [(h.role, h.title) for h in index.search("zqsummaryword")] == [
            ("title", "Fixing the zqsummaryword parser")
        ]
        custom = {"type": "custom-title", "customTitle": "Renamed zqcustomword", "sessionId": session}
        with path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(custom) + "\n")
        assert index.update().appended == 1
        assert [(h.role, h.title) for h in index.search("zqsummaryword")] == [
            ("title", "Renamed zqcustomword")
        ]
        assert [h.role for h in index.search("zqcustomword")] == ["title"]
