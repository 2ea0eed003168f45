"""Run the app under uvicorn on a socket we bind ourselves (so ``--port 0`` can print its port)."""

from __future__ import annotations

import errno
import logging
import os
import socket
import sys
import threading
import time
import webbrowser
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import uvicorn
from sse_starlette.sse import AppStatus

from sessiontree.archive.collection import is_inside
from sessiontree.errors import ServeError
from sessiontree.exporter.warm import warm_up
from sessiontree.serve.config import ServeConfig
from sessiontree.serve.hub import Hub
from sessiontree.serve.renders import limit_heaps

GRACEFUL_SECONDS = 1
"""How long Ctrl-C waits for open requests and event streams before closing them."""


def check_folders(root: Path, cache_dir: Path) -> None:
    """Refuse a missing folder and a cache dir inside the served folder (it is never written to)."""
    if not root.is_dir():
        raise ServeError(f"Directory not found: {root}; pass a sessions folder (DIR)")
    if is_inside(cache_dir, root):
        raise ServeError(f"The cache dir {cache_dir} is inside the served folder; choose another --cache-dir")


def bind_socket(host: str, port: int) -> socket.socket:
    """Listen on host:port (port 0: a free one), with a one-line error when that is impossible."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ServeError(f"Unknown host {host!r}: {exc.strerror}") from None
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ServeError(
                f"Cannot listen on {host}:{port}: address already in use; "
                "choose another --port (0 picks a free one)"
            ) from None
        raise ServeError(f"Cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def server_url(host: str, port: int, token: str | None) -> str:
    """The URL to open (with the token once, as Jupyter prints it)."""
    name = f"[{host}]" if ":" in host else host
    return f"http://{name}:{port}/" + (f"?token={quote(token)}" if token else "")


class _Server(uvicorn.Server):
    """uvicorn's server, which ends our event streams as soon as it starts to stop.

    uvicorn closes the application's connections only after waiting for the open ones, and an
    event stream never ends by itself: closed later, from the lifespan or by sse-starlette's own
    shutdown watcher, each open stream is cancelled mid-response and logs "ASGI callable returned
    without completing response". Ended here, each stream sends its last chunk and completes.
    A request still rendering or searching after the grace period is cancelled, which uvicorn
    reports with a traceback: nobody waits for that answer any more, so its log is silenced.
    """

    def __init__(self, hub: Hub, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.hub = hub

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.hub.close()
        logging.getLogger("uvicorn.error").setLevel(logging.CRITICAL)
        await super().shutdown(sockets)


def _leave_busy_threads(grace: float) -> None:
    """Exit now if a worker thread still renders or searches once ``grace`` seconds have passed.

    Its answer has no one to go to, and the server writes nothing but its cache (SQLite, which
    rolls back an unfinished transaction, and files replaced whole), so nothing is left half
    written; waiting could take as long as the largest session takes to render.
    """
    deadline = time.monotonic() + grace
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join(max(0.0, deadline - time.monotonic()))
    if any(
        t.is_alive() and not t.daemon and t is not threading.current_thread() for t in threading.enumerate()
    ):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def run_server(
    config: ServeConfig, *, open_browser: bool = False, echo: Callable[[str], None] = print
) -> None:
    """Serve until Ctrl-C (SIGINT) or SIGTERM; open event streams end first, then quietly the rest."""
    from sessiontree.serve.app import create_app

    for root in config.roots:
        check_folders(root, config.cache_dir)
    limit_heaps()
    sock = bind_socket(config.host, config.port)
    port = sock.getsockname()[1]  # the one picked, for --port 0
    app = create_app(config)
    url = server_url(config.host, port, config.token)
    echo(f"Serving {', '.join(str(r) for r in config.roots)} at {url}")
    if config.token:
        echo("Anyone who can reach this address needs the token in that URL; keep it private.")
    echo("Press Ctrl-C to stop.")
    server = _Server(
        app.state.serve.hub,
        uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=GRACEFUL_SECONDS,
            proxy_headers=False,
            server_header=False,
        ),
    )
    AppStatus.disable_automatic_graceful_drain()  # type: ignore[no-untyped-call]  # _Server ends them
    # While it waits for its first request: that request's page then compiles nothing.
    threading.Thread(target=warm_up, name="sessiontree-warm-up", daemon=True).start()
    if open_browser:
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # uvicorn re-raises the Ctrl-C it handled; the server has already stopped cleanly
    finally:
        sock.close()
    echo("Stopped.")
    _leave_busy_threads(GRACEFUL_SECONDS)
