"""Whole-file rewrites while another process appends: the appender's flushed entries are never lost.

Two real processes on one real file: an appender (a SessionManager adding assistant messages as
fast as it can) and a rewriter (set_session_name, or `sessiontree move`), which take an advisory
flock and take in what was appended since they read the file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from sessiontree.store.load import load_session
from sessiontree.store.manager import SessionManager

ROOT = Path(__file__).resolve().parents[2]

APPENDER = """
import json, sys, time
from pathlib import Path
from sessiontree.errors import PersistError
from sessiontree.store.manager import SessionManager
path, agent, stop = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
manager = SessionManager.open(path, agent_dir=agent, term="appender", rewrite_migrated=False)
ids, error, n = [], None, 0
while not stop.exists():
    message = {"role": "assistant", "content": [{"type": "text", "text": f"b{n}"}], "model": "m"}
    time.sleep(0.001)  # pacing only (a few thousand entries, not millions); nothing waits on it
    try:
        ids.append(manager.append_message(message))
    except PersistError as exc:
        error = str(exc)
        break
    n += 1
    if n == 20:
        print("appending", flush=True)
print(json.dumps({"ids": ids, "error": error}), flush=True)
"""

RENAMER = """
import sys
from pathlib import Path
from sessiontree.store.manager import SessionManager
path, agent = Path(sys.argv[1]), Path(sys.argv[2])
with SessionManager.open(path, agent_dir=agent, term="renamer", rewrite_migrated=False) as manager:
    for n in range(int(sys.argv[3])):
        manager.set_session_name(f"name {n}")
"""


def python(code: str, *args: object, **kwargs: object) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    command = [sys.executable, "-c", code, *map(str, args)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env, **kwargs)  # type: ignore[call-overload]


def started_session(tmp_path: Path) -> tuple[Path, Path]:
    agent = tmp_path / "agent"
    with SessionManager.create(tmp_path / "proj", agent_dir=agent, term="t") as manager:
        manager.append_message({"role": "user", "content": "hello"})
        manager.append_message({"role": "assistant", "content": [{"type": "text", "text": "hi"}]})
    assert manager.session_file is not None
    return manager.session_file, agent


def start_appender(path: Path, agent: Path, stop: Path) -> subprocess.Popen[str]:
    appender = python(APPENDER, path, agent, stop)
    assert appender.stdout is not None
    assert appender.stdout.readline() == "appending\n"  # it is appending: the rewrites overlap it
    return appender


def finish_appender(appender: subprocess.Popen[str], stop: Path) -> dict[str, object]:
    stop.touch()
    out, _ = appender.communicate(timeout=120)
    assert appender.returncode == 0
    result: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return result


def test_renames_while_another_process_appends_lose_no_entry(tmp_path: Path) -> None:
    path, agent = started_session(tmp_path)
    stop = tmp_path / "stop"
    appender = start_appender(path, agent, stop)
    renamer = python(RENAMER, path, agent, 20)
    renamer.communicate(timeout=120)
    assert renamer.returncode == 0
    result = finish_appender(appender, stop)
    appended = result["ids"]
    assert isinstance(appended, list) and len(appended) > 20 and result["error"] is None
    session = load_session(path)
    ids = [e["id"] for e in session.entries]
    assert not set(appended) - set(ids), f"{len(set(appended) - set(ids))} appended entries lost"
    assert len(ids) == len(set(ids))  # taken in once, never twice
    assert session.bad_lines == [] and session.title == "name 19"
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_a_move_while_another_process_appends_keeps_what_it_flushed(tmp_path: Path) -> None:
    path, agent = started_session(tmp_path)
    stop = tmp_path / "stop"
    appender = start_appender(path, agent, stop)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "SESSIONTREE_AGENT_DIR": str(agent)}
    moved = subprocess.run(
        [sys.executable, "-m", "sessiontree", "move", str(path), str(tmp_path / "elsewhere")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert moved.returncode == 0, moved.stderr
    new_path = Path(moved.stdout.strip())
    result = finish_appender(appender, stop)
    appended = result["ids"]
    assert isinstance(appended, list) and len(appended) >= 20
    session = load_session(new_path)
    assert session.cwd == str(tmp_path / "elsewhere")
    assert not set(appended) - {e["id"] for e in session.entries}
    # The appender learns the file is gone from where it writes: a clear error, not silence.
    error = result["error"]
    assert error is None or "removed by another process" in str(error)
