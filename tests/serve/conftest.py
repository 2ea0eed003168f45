"""A served sessions folder on disk and the ASGI app over it (httpx, no network)."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx
import pytest
from starlette.applications import Starlette
from starlette.types import ASGIApp

from sessiontree.serve.app import create_app
from sessiontree.serve.config import ServeConfig
from sessiontree.serve.listing import Listing
from sessiontree.serve.state import ServeState
from tests.store.helpers import assistant, header, msg

KEY = "--work-demo--/2026-01-01T10-00-00_s1.jsonl"


def write_session(path: Path, sid: str, cwd: str = "/work/demo", *extra: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        header(sid, cwd=cwd),
        msg("u1", None, "user", f"hello from {sid}"),
        assistant("a1", "u1"),
        *extra,
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def append_line(path: Path, value: dict[str, Any] | str) -> None:
    text = value if isinstance(value, str) else json.dumps(value) + "\n"
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    agent = tmp_path / "agent"
    write_session(agent / "sessions" / KEY, "s1")
    write_session(agent / "sessions" / "--work-other--" / "2026-01-02_s2.jsonl", "s2", "/work/other")
    return agent


@pytest.fixture
def sessions_dir(agent_dir: Path) -> Path:
    return agent_dir / "sessions"


def make_client(config: ServeConfig, host: str = "127.0.0.1:8765") -> httpx.AsyncClient:
    """httpx against the ASGI app itself (no socket)."""
    transport = httpx.ASGITransport(app=create_app(config))
    return httpx.AsyncClient(transport=transport, base_url=f"http://{host}", follow_redirects=False)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def served_app(sessions_dir: Path, agent_dir: Path, tmp_path: Path) -> Starlette:
    config = ServeConfig(
        roots=(sessions_dir,), cache_dir=tmp_path / "cache", agent_dir=agent_dir, watch=False
    )
    return create_app(config)


@pytest.fixture
def serve_state(served_app: Starlette) -> ServeState:
    """What the app's requests share, its background tasks not started (a test runs their steps)."""
    state: ServeState = served_app.state.serve
    return state


async def raw_get(
    app: ASGIApp, target: str, host: str = "127.0.0.1:8765", more_headers: Sequence[tuple[bytes, bytes]] = ()
) -> tuple[int, bytes]:
    """Send one GET with the path exactly as written (no normalisation) into the ASGI app."""
    raw_path, _, query = target.encode().partition(b"?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": unquote(raw_path.decode()),
        "raw_path": raw_path,
        "query_string": query,
        "root_path": "",
        "headers": [(b"host", host.encode()), *more_headers],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8765),
    }
    sent: list[dict[str, Any]] = []
    requested = False

    async def receive() -> dict[str, Any]:
        nonlocal requested
        if not requested:
            requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)  # type: ignore[arg-type]
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, body


@pytest.fixture
async def client(sessions_dir: Path, agent_dir: Path, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    config = ServeConfig(
        roots=(sessions_dir,), cache_dir=tmp_path / "cache", agent_dir=agent_dir, watch=False
    )
    async with make_client(config) as c:
        yield c


def gate_first_listing(monkeypatch: pytest.MonkeyPatch, hang: float = 120.0) -> threading.Event:
    """Make every listing a request asks for wait until the returned event is set (a fresh server
    whose first listing takes long); set it in a ``finally``."""
    go = threading.Event()
    scan = Listing._scan_first

    def gated(self: Listing, again: bool) -> Any:
        assert go.wait(hang)
        return scan(self, again)

    monkeypatch.setattr(Listing, "_scan_first", gated)
    return go
