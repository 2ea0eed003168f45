"""The real ``sessiontree serve`` process on a free port, and an SSE reader, for end-to-end tests."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

URL_LINE = re.compile(r"Serving .* at (http://\S+)")


@dataclass
class Served:
    """A running server: its URL and process."""

    url: str
    proc: subprocess.Popen[str]

    def stop(self) -> int:
        """Ctrl-C it (SIGINT) and return its exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(timeout=120)  # a bound for a hung server on a loaded machine


def agent_folder(tmp_path: Path, key: str, *, turns: int) -> Path:
    """An agent dir under ``tmp_path`` whose sessions/ holds one generated session at ``key``."""
    from tests.conftest import GEN_SESSION

    agent = tmp_path / "agent"
    path = agent / "sessions" / key
    path.parent.mkdir(parents=True)
    cmd = [sys.executable, str(GEN_SESSION), "--turns", str(turns), "--seed", "7", "-o", str(path)]
    subprocess.run(cmd, check=True)
    return agent


@contextmanager
def serve_process(
    root: Path | None,
    agent_dir: Path,
    cache_dir: Path,
    *extra: str,
    home: Path | None = None,
    python: list[str] | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[Served]:
    """Start ``sessiontree serve [ROOT] --port 0`` and wait until it printed its URL.

    No ``root``: the default folders (ours, and Claude Code's and Codex's under ``home``).
    ``python`` and ``env`` run it otherwise (as another user: ``tests/stranger.py``).
    """
    cmd = [
        *(python or [sys.executable]), "-m", "sessiontree", "--agent-dir", str(agent_dir),
        "serve", *([str(root)] if root is not None else []),
        "--port", "0", "--cache-dir", str(cache_dir), *extra,
    ]  # fmt: skip
    env = {
        **(env or os.environ),
        "PYTHONUNBUFFERED": "1",
        **({"HOME": str(home)} if home is not None else {}),
    }
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        url = None
        for line in proc.stdout:
            match = URL_LINE.search(line)
            if match:
                url = match.group(1)
                break
        if url is None:
            raise AssertionError(f"serve did not start: {proc.stderr.read() if proc.stderr else ''}")
        yield Served(url.rstrip("/"), proc)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


@dataclass(frozen=True)
class SseEvent:
    name: str
    data: dict[str, Any]


class EventReader:
    """Read server-sent events from one open stream, one at a time (blocking until the next)."""

    def __init__(self, client: httpx.Client, url: str, timeout: float = 120.0) -> None:
        self._cm = client.stream("GET", url, timeout=httpx.Timeout(timeout))
        self.response = self._cm.__enter__()
        self._lines = self.response.iter_lines()

    def next(self) -> SseEvent:
        """The next named event (pings and comments skipped)."""
        name, data = "message", list[str]()
        for line in self._lines:
            if line == "":
                if data:
                    return SseEvent(name, json.loads("\n".join(data)))
                name = "message"
                continue
            if line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
        raise AssertionError("the event stream ended")

    def next_named(self, *names: str) -> SseEvent:
        """The next event with one of these names."""
        while True:
            event = self.next()
            if event.name in names:
                return event

    def close(self) -> None:
        self._cm.__exit__(None, None, None)


def page_settings(html: str) -> dict[str, Any]:
    """The ``window.sessiontreeServe`` settings a served session page carries, with the state its
    data was rendered from (generation, count, badLines: ``#st-serve-state``, after the data)."""
    match = re.search(r"window\.sessiontreeServe = (\{.*?\});", html)
    assert match is not None, "no live settings in the page"
    settings: dict[str, Any] = json.loads(match.group(1))
    state = re.search(r'<script type="application/json" id="st-serve-state">(\{.*?\})</script>', html)
    assert state is not None, "no served state in the page"
    settings.update(json.loads(state.group(1)))
    return settings


def listed(client: httpx.Client) -> None:
    """Wait until a fresh server's first listing is made and every file in it read: before, its
    first ``GET /`` may be a glimpse of the folders (``archive.glimpse``: the files a walk met in
    a moment, those not read yet without their errors), and the files its first scan had no time
    to read are rows still being read, whose corrections the index feed pushes as they are read."""
    assert client.get("/api/sessions").status_code == 200  # answered from the listing
    ceiling = time.monotonic() + 120  # a bound on a loaded machine, not a timed assertion
    while "still being read" in (page := client.get("/")).text and time.monotonic() < ceiling:
        time.sleep(0.1)
    assert page.status_code == 200 and "still being read" not in page.text


def searched(client: httpx.Client, word: str) -> dict[str, Any]:
    """Serve's answer to a search once every listed file is indexed: a fresh server's first answers
    hold what is indexed so far and say how many files are ``pending`` (the page asks again)."""
    ceiling = time.monotonic() + 120  # a bound on a loaded machine, not a timed assertion
    while (found := client.get("/api/search", params={"q": word})).status_code == 200:
        answer: dict[str, Any] = found.json()
        if not answer["pending"] or time.monotonic() > ceiling:
            return answer
        time.sleep(0.1)
    raise AssertionError(f"search for {word}: {found.status_code}")
