"""Benchmark the write path and discovery.

1. Append 10,000 entries with persistence on (a real file): entries per second, with the OS
   write after every append, again with an fsync every 100 entries, and (1,000 entries) with an
   fsync after every one.
2. ``list_all_sessions`` over 1,000 session files of 1 MB each: time and bytes read, against the
   total size and against reading every file whole (page cache warm in both cases).

Usage: .venv/bin/python bench/bench_write.py [--entries 10000] [--files 1000] [--size-mb 1]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from sessiontree.store.discovery import list_all_sessions, session_dir_for
from sessiontree.store.manager import SessionManager
from sessiontree.store.storage import FileSessionStorage


class CountingStorage(FileSessionStorage):
    """The real filesystem, counting the bytes its reads return."""

    def __init__(self) -> None:
        self.bytes_read = 0
        self.reads = 0

    def read_bytes_sync(self, path: Path) -> bytes:
        data = super().read_bytes_sync(path)
        self.bytes_read += len(data)
        self.reads += 1
        return data

    def read_text_prefix_sync(self, path: Path, max_bytes: int) -> str:
        text = super().read_text_prefix_sync(path, max_bytes)
        self.bytes_read += len(text.encode())
        self.reads += 1
        return text


def message(rng: random.Random, n: int) -> dict[str, Any]:
    role = "assistant" if n % 3 == 0 else rng.choice(["user", "toolResult"])
    text = f"turn {n}: " + " ".join(
        rng.choice(["parse", "tree", "leaf", "write", "fsync"]) for _ in range(80)
    )
    if role == "assistant":
        return {"role": role, "content": [{"type": "text", "text": text}], "provider": "p", "model": "m"}
    return {"role": role, "content": text}


def bench_appends(root: Path, entries: int, fsync_every: int | None) -> None:
    rng = random.Random(1)
    messages = [message(rng, n) for n in range(entries)]
    manager = SessionManager.create(root / "proj", agent_dir=root / "agent", term="bench")
    start = time.perf_counter()
    for n, msg in enumerate(messages, 1):
        manager.append_message(msg)
        if fsync_every and n % fsync_every == 0:
            manager.flush()
    manager.flush()
    elapsed = time.perf_counter() - start
    manager.close()
    assert manager.session_file is not None
    size = manager.session_file.stat().st_size
    label = f"fsync every {fsync_every}" if fsync_every else "fsync at the end only"
    print(
        f"append {entries:,} entries ({label}): {elapsed:.3f} s, {entries / elapsed:,.0f} entries/s, "
        f"file {size / 1e6:.1f} MB"
    )


def make_sessions(root: Path, files: int, size: int) -> int:
    """Write ``files`` sessions of about ``size`` bytes each over 20 projects; return total bytes."""
    filler_entry = {
        "type": "message",
        "id": "f0000000",
        "parentId": None,
        "timestamp": "2026-01-01T00:00:00.000Z",
    }
    filler_entry["message"] = {"role": "toolResult", "toolCallId": "t", "content": "x" * 4000}
    filler = (json.dumps(filler_entry) + "\n").encode()
    total = 0
    for i in range(files):
        cwd = f"/work/project-{i % 20}"
        folder = session_dir_for(cwd, root)
        folder.mkdir(parents=True, exist_ok=True)
        session_id = f"{i:016x}"
        head = {"type": "session", "version": 3, "id": session_id, "timestamp": "2026-01-01T00:00:00.000Z"}
        head["cwd"] = cwd
        prompt = {
            "type": "message",
            "id": "u0000001",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01.000Z",
        }
        prompt["message"] = {"role": "user", "content": f"please look at problem number {i}"}
        start = (json.dumps(head) + "\n" + json.dumps(prompt) + "\n").encode()
        body = start + filler * ((size - len(start)) // len(filler) + 1)
        (folder / f"2026-01-01T00-00-00-000Z_{session_id}.jsonl").write_bytes(body)
        total += len(body)
    return total


def bench_list_all(root: Path, files: int, size: int) -> None:
    total = make_sessions(root, files, size)
    storage = CountingStorage()
    start = time.perf_counter()
    infos = list_all_sessions(root, storage)
    elapsed = time.perf_counter() - start
    assert len(infos) == files and all(i.first_message for i in infos)
    print(
        f"list_all over {files:,} files of {size / 1e6:.1f} MB ({total / 1e9:.2f} GB): "
        f"{elapsed * 1000:.0f} ms, "
        f"{storage.bytes_read / 1e6:.2f} MB read in {storage.reads:,} reads "
        f"({storage.bytes_read / total:.4%} of the total)"
    )
    start = time.perf_counter()
    whole = sum(len(p.read_bytes()) for p in (root / "sessions").rglob("*.jsonl"))
    took = time.perf_counter() - start
    print(f"  for comparison, reading every file whole: {took:.2f} s, {whole / 1e9:.2f} GB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--files", type=int, default=1_000)
    parser.add_argument("--size-mb", type=float, default=1.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-write-") as tmp:
        root = Path(tmp)
        bench_appends(root / "a", args.entries, None)
        bench_appends(root / "b", args.entries, 100)
        bench_appends(root / "c", args.entries // 10, 1)
        bench_list_all(root / "agent", args.files, int(args.size_mb * 1_000_000))


if __name__ == "__main__":
    main()
