"""A local stand-in for the GitHub gist API on 127.0.0.1, with scripted answers."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Seen:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


class FakeGitHub:
    """Answers POST /gists and DELETE /gists/<id>; scripted replies win over the defaults."""

    def __init__(self) -> None:
        self.requests: list[Seen] = []
        self.replies: list[Reply] = []
        self.gists: dict[str, dict[str, Any]] = {}
        self.url = ""

    def answer(self, method: str, path: str, body: Any) -> Reply:
        if self.replies:
            return self.replies.pop(0)
        if method == "POST" and path == "/gists":
            gist_id = f"{len(self.gists) + 1:032x}"
            self.gists[gist_id] = body
            return Reply(201, {"id": gist_id, "html_url": f"https://gist.github.com/tester/{gist_id}"})
        if method == "DELETE" and path.startswith("/gists/"):
            gist_id = path.rsplit("/", 1)[1]
            if self.gists.pop(gist_id, None) is None:
                return Reply(404, {"message": "Not Found"})
            return Reply(204)
        return Reply(404, {"message": "Not Found"})


@contextmanager
def serve_github() -> Iterator[FakeGitHub]:
    """Run a FakeGitHub on an ephemeral port for the duration of the block."""
    fake = FakeGitHub()

    class Handler(BaseHTTPRequestHandler):
        def _handle(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            fake.requests.append(Seen(self.command, self.path, dict(self.headers.items()), body))
            reply = fake.answer(self.command, self.path, body)
            if reply.delay:
                time.sleep(reply.delay)
            payload = b"" if reply.body is None else json.dumps(reply.body).encode()
            try:
                self.send_response(reply.status)
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                if payload:
                    self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout tests)

        do_POST = do_DELETE = do_GET = _handle

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
