"""Real Chromium through Playwright (one browser per test session) and a loopback HTTP server."""

from __future__ import annotations

import functools
import http.server
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page, Playwright, sync_playwright

from tests.chromium import CHROMIUM, CHROMIUM_ARGS


@pytest.fixture(scope="package")
def playwright_sync() -> Iterator[Playwright]:
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="package")
def browser(playwright_sync: Playwright) -> Iterator[Browser]:
    """Launch Debian's Chromium once for the browser tests.

    Package scope: Playwright's sync API keeps an event loop running in this thread, which the
    asyncio code tested elsewhere must not find.
    """
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    b = playwright_sync.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield b
    b.close()


@dataclass
class Watch:
    """What a page did: dialogs opened, console errors, page errors, requests made."""

    dialogs: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


@pytest.fixture
def watch() -> Watch:
    return Watch()


@pytest.fixture
def page(browser: Browser, watch: Watch) -> Iterator[Page]:
    """Open a fresh context (own storage, clipboard allowed) and record dialogs, errors and requests."""
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    pg = context.new_page()

    def on_dialog(d: Dialog) -> None:
        watch.dialogs.append(f"{d.type}: {d.message}")
        d.dismiss()

    def on_console(m: ConsoleMessage) -> None:
        if m.type == "error":
            watch.console_errors.append(m.text)

    pg.on("dialog", on_dialog)
    pg.on("console", on_console)
    pg.on("pageerror", lambda e: watch.page_errors.append(str(e)))
    pg.on("request", lambda r: watch.requests.append(r.url))
    pg.set_default_timeout(60_000)  # a ceiling for waits on a loaded machine, not a timed assertion
    yield pg
    context.close()


def open_page(pg: Page, url: str) -> None:
    """Navigate and wait until the viewer has rendered the active path."""
    pg.goto(url)
    pg.wait_for_selector("html[data-st-ready]")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@dataclass
class Server:
    root: Path
    url: str


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[Server]:
    """Serve a temp directory on 127.0.0.1 (a real HTTP server on a free port)."""
    root = tmp_path / "www"
    root.mkdir()
    handler = functools.partial(_QuietHandler, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield Server(root, f"http://127.0.0.1:{httpd.server_address[1]}")
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def wait_js(pg: Page, expression: str, timeout: float = 60.0) -> None:
    """Poll a JS expression until truthy (wait_for_function evals strings, which the page's CSP forbids);
    ``timeout``: a ceiling for a loaded machine, never reached when the state comes."""
    deadline = time.monotonic() + timeout
    while not pg.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for: {expression}")
        pg.wait_for_timeout(30)
