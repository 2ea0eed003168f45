"""Two real processes at once: one appends and indexes, the other searches (and so indexes too)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from sessiontree.archive.search import SearchFilters, SearchIndex
from tests.archive.sessions import make_session

N = 40

INDEXER = """
import json, sys, time
from pathlib import Path
from sessiontree.archive.search import SearchIndex
root, cache, path, n, go = sys.argv[1:]
while not Path(go).exists():
    time.sleep(0.002)
with SearchIndex([Path(root)], Path(cache)) as index:
    for i in range(int(n)):
        entry = {"type": "message", "id": f"m{i}", "parentId": None, "timestamp": "2026-03-01T10:00:00.000Z",
                 "message": {"role": "user", "content": f"zqmark{i} from the indexer"}}
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\\n")
        index.update()
print("indexed", n)
"""

SEARCHER = """
import sys, time
from pathlib import Path
from sessiontree.archive.search import SearchFilters, search_sessions
root, cache, n, go = sys.argv[1:]
while not Path(go).exists():
    time.sleep(0.002)
rounds = 0
while True:
    rounds += 1
    hits = search_sessions([Path(root)], "zqmark*", SearchFilters(limit=1000), cache_dir=Path(cache))
    found = [h.entry_id for h in hits]
    assert len(found) == len(set(found)), found
    if f"m{int(n) - 1}" in found:
        break
print("searched", rounds)
"""


def test_one_process_indexes_while_another_searches(roots: Path, cache_dir: Path, tmp_path: Path) -> None:
    path, _ = make_session(roots / "p", "live", seed=1, turns=30)
    go = tmp_path / "go"
    indexer = subprocess.Popen(
        [sys.executable, "-c", INDEXER, str(roots), str(cache_dir), str(path), str(N), str(go)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    searcher = subprocess.Popen(
        [sys.executable, "-c", SEARCHER, str(roots), str(cache_dir), str(N), str(go)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    go.touch()
    out_i, err_i = indexer.communicate(timeout=240)
    out_s, err_s = searcher.communicate(timeout=240)
    assert indexer.returncode == 0, err_i
    assert searcher.returncode == 0, err_s
    assert out_i.split() == ["indexed", str(N)]
    assert out_s.split()[0] == "searched"
    with SearchIndex([roots], cache_dir) as index:
        assert index.update().rows == 0  # the two of them left nothing undone
        hits = index.search("zqmark*", SearchFilters(limit=1000))
        assert sorted(h.entry_id or "" for h in hits) == sorted(f"m{i}" for i in range(N))
        together = sorted(
            (h.entry_id or "", h.role) for h in index.search("fsync", SearchFilters(limit=10**5))
        )
    with SearchIndex([roots], tmp_path / "fresh") as fresh:
        fresh.update()
        alone = sorted((h.entry_id or "", h.role) for h in fresh.search("fsync", SearchFilters(limit=10**5)))
    assert together == alone and len(alone) > 10
