"""Many small sessions for the pane's windows (several projects and models, spread over days), and
what a brute-force pass over their files says the pane keeps of them."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from tests.store.helpers import header, msg

PROJECTS = ("/work/alpha", "/work/beta", "/work/gamma", "/work/delta", "/work/eps")
MODELS = ("p/m-small", "p/m-large", "p/m-mid")
"""The models as the pane names them (provider/model)."""
USAGE = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.01}}
NOW_MS = 1_790_000_000_000
"""The newest session's last activity (a fixed time, so a run draws the same list)."""


@dataclass(frozen=True)
class Listed:
    """One session as a pass over its file sees it: key, project, models, last activity (ms)."""

    key: str
    project: str
    models: frozenset[str]
    ms: int


def _assistant(entry_id: str, parent: str, model: str) -> dict[str, object]:
    provider, _, name = model.partition("/")
    return msg(entry_id, parent, "assistant", "ok", provider=provider, model=name, usage=USAGE)


def write_session(path: Path, n: int, project: str, model: str, ms: int, second: str | None = None) -> None:
    """Session ``n`` of ``project`` at ``path``: a prompt answered by ``model`` (and another by
    ``second``), fsynced, its mtime ``ms`` (a whole number of ms)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        header(f"s{n:05d}", cwd=project, title=f"Session <b>{n}</b> & co"),
        msg(f"u{n}", None, "user", "hi"),
    ]
    # Ids of its own: the same ids in two files are one message copied (counted once, its model too).
    lines.append(_assistant(f"a{n}", f"u{n}", model))
    if second is not None:
        lines += [msg(f"v{n}", f"a{n}", "user", "more"), _assistant(f"b{n}", f"v{n}", second)]
    with path.open("w", encoding="utf-8") as out:
        out.write("".join(json.dumps(line) + "\n" for line in lines))
        out.flush()
        os.fsync(out.fileno())
    os.utime(path, ns=(ms * 1_000_000, ms * 1_000_000))


def write_corpus(root: Path, count: int) -> None:
    """``count`` small sessions under ``root`` in five projects, a seventh of them with two models,
    their last activity every quarter hour before ``NOW_MS``, shuffled."""
    for n in range(count):
        project = PROJECTS[n % len(PROJECTS)]
        folder = root / ("--" + project.strip("/").replace("/", "-") + "--")
        ms = NOW_MS - (n * 7919 % count) * 3_600_000 // 4
        second = MODELS[(n + 1) % 3] if n % 7 == 0 else None
        write_session(folder / f"s{n:05d}.jsonl", n, project, MODELS[n % 3], ms, second)


def read_corpus(root: Path) -> list[Listed]:
    """Every session under ``root`` read from its file, in the pane's order (newest first, then key)."""
    found = []
    for path in root.rglob("*.jsonl"):
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        replies = [line["message"] for line in lines if line.get("message", {}).get("role") == "assistant"]
        models = {f"{m['provider']}/{m['model']}" for m in replies}
        ms = path.stat().st_mtime_ns // 1_000_000
        found.append(Listed(path.relative_to(root).as_posix(), lines[0]["cwd"], frozenset(models), ms))
    found.sort(key=lambda s: (-s.ms, s.key))
    return found
