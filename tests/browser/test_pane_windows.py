"""The sessions pane in Chromium over real ``serve`` processes of 600 and 6,000 generated sessions:
its first rows come from one window and its choices from one more request, the same count and
about the same bytes at both sizes; scrolling asks for the next window; a filter's rows are the
sessions a brute-force pass over the files keeps; a session deep in the list is shown, in view."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, Response

from tests.browser.conftest import Watch, wait_js
from tests.serve.pane_corpus import PROJECTS, Listed, read_corpus, write_corpus, write_session
from tests.serve.process import listed, serve_process

pytestmark = pytest.mark.browser

SIZES = (600, 6_000)
ROW = "#st-browse .st-browse-row"
MORE = "#st-browse .st-browse-more:not(.st-browse-earlier)"


@pytest.fixture(scope="module")
def archives(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[int, tuple[str, list[Listed]]]]:
    """A serve process over each size of archive, every file read: its URL and the files' sessions."""
    found = {}
    with ExitStack() as stack:
        for size in SIZES:
            base = tmp_path_factory.mktemp(f"pane{size}")
            root = base / "agent" / "sessions"
            write_corpus(root, size)
            served = stack.enter_context(serve_process(root, base / "agent", base / "cache"))
            with httpx.Client(base_url=served.url, timeout=120) as client:
                listed(client)
            found[size] = (served.url, read_corpus(root))
        yield found


def _keys(page: Page) -> list[str]:
    return page.eval_on_selector_all(ROW, "rs => rs.map(r => r.dataset.key)")


def _windows(page: Page) -> list[Response]:
    """The pane's window requests' responses, collected as they come."""
    seen: list[Response] = []
    page.on("response", lambda r: seen.append(r) if "/api/sessions" in r.url else None)
    return seen


def _project(files: list[Listed], n: int) -> list[Listed]:
    return [s for s in files if s.project == PROJECTS[n]]


def test_the_first_rows_cost_the_same_requests_and_bytes_at_600_and_6000(
    page: Page, watch: Watch, archives: dict[int, tuple[str, list[Listed]]]
) -> None:
    sizes: dict[int, int] = {}
    seen = _windows(page)
    for size, (url, files) in archives.items():
        mine = _project(files, 0)
        at = len(seen)
        page.goto(f"{url}/s/{mine[0].key}")
        page.wait_for_selector(ROW)
        page.wait_for_selector("#st-browse .st-browse-agent option[value=pi]", state="attached")
        assert _keys(page) == [s.key for s in mine[:100]]
        assert page.get_attribute("html", "data-st-browse") == str(len(mine))
        assert page.inner_text(MORE) == f"{len(mine) - 100} more…"
        wait_js(page, f"document.querySelectorAll('{ROW}').length === 100")  # nothing more drawn meanwhile
        replies = seen[at:]
        assert len(replies) == 2 and "around=" in replies[0].url and "choices=1" in replies[1].url
        sizes[size] = sum(int(r.headers["content-length"]) for r in replies)
    small, large = sizes[SIZES[0]], sizes[SIZES[1]]
    assert large < small * 1.1  # 10x the sessions, the same window (its keys a digit longer)
    assert watch.page_errors == []


def test_a_deep_session_is_shown_in_its_window_and_scrolling_asks_for_more(
    page: Page, watch: Watch, archives: dict[int, tuple[str, list[Listed]]]
) -> None:
    url, files = archives[SIZES[1]]
    mine = _project(files, 2)
    at = len(mine) - 150  # deep in its project's list
    replies = _windows(page)
    page.goto(f"{url}/s/{mine[at].key}")
    current = page.locator("#st-browse a[aria-current=page]")
    current.wait_for()
    offset = at - 100 // 3
    assert _keys(page) == [s.key for s in mine[offset : offset + 100]]
    assert page.inner_text("#st-browse .st-browse-earlier") == f"{offset} newer…"
    box = current.bounding_box()
    shown = page.locator("#st-browse .st-browse-list").bounding_box()
    assert box is not None and shown is not None
    assert shown["y"] <= box["y"] and box["y"] + box["height"] <= shown["y"] + shown["height"]  # in view
    # The rest of the list (83 rows) as it is scrolled to its end, then the newer ones by the top row.
    page.locator(MORE).scroll_into_view_if_needed()
    wait_js(page, f"document.querySelectorAll('{ROW}').length === {len(mine) - offset}")
    page.click("#st-browse .st-browse-earlier")
    wait_js(page, f"document.querySelectorAll('{ROW}').length === {len(mine) - offset + 200}")
    assert _keys(page) == [s.key for s in mine[offset - 200 :]]
    asked = [r.url for r in replies]
    assert len(asked) == 4 and f"offset={offset + 100}" in asked[2] and f"offset={offset - 200}" in asked[3]
    page.keyboard.press("Alt+ArrowUp")
    page.wait_for_url(f"**/{mine[at - 1].key}")
    assert watch.page_errors == []


def test_a_filters_rows_are_what_a_pass_over_the_files_keeps(
    page: Page, watch: Watch, archives: dict[int, tuple[str, list[Listed]]]
) -> None:
    url, files = archives[SIZES[1]]
    page.goto(f"{url}/s/{files[0].key}")
    page.wait_for_selector("#st-browse .st-browse-model option[value='p/m-mid']", state="attached")
    day = datetime.fromtimestamp(files[len(files) // 2].ms / 1000).date()  # the reader's day (this zone)
    page.select_option("#st-browse .st-browse-scope", "all")
    page.click("#st-browse .st-browse-filters summary")
    page.select_option("#st-browse .st-browse-project", PROJECTS[1])
    page.select_option("#st-browse .st-browse-model", "p/m-mid")
    page.fill("#st-browse .st-browse-from", day.isoformat())
    kept = [
        s.key
        for s in files
        if s.project == PROJECTS[1]
        and "p/m-mid" in s.models
        and datetime.fromtimestamp(s.ms / 1000).date() >= day
    ]
    wait_js(page, f"document.documentElement.getAttribute('data-st-browse') === '{len(kept)}'")
    while page.locator(MORE).count():
        drawn = page.locator(ROW).count()
        page.locator(MORE).scroll_into_view_if_needed()
        wait_js(page, f"document.querySelectorAll('{ROW}').length > {drawn}")
    assert _keys(page) == kept and len(kept) > 100
    assert watch.page_errors == []


def test_a_session_changed_since_the_last_visit_is_new_and_counted(
    page: Page, watch: Watch, tmp_path: Path
) -> None:
    """ "New since last seen" is a time mark: a session the pane never showed that changed after the
    pane's last visit has a dot and "new", and the status counts the sessions changed since; the
    titles are text (a session's markup never becomes an element)."""
    root = tmp_path / "agent" / "sessions"
    write_corpus(root, 150)
    with serve_process(root, tmp_path / "agent", tmp_path / "cache") as served:
        with httpx.Client(base_url=served.url, timeout=120) as client:
            listed(client)
        mine = _project(read_corpus(root), 0)
        page.goto(f"{served.url}/s/{mine[0].key}")
        page.wait_for_selector(ROW)
        assert page.locator("#st-browse .st-browse-grew").count() == 0  # a first visit: nothing new
        assert page.locator("#st-browse .st-browse-title b").count() == 0
        assert page.inner_text(f"{ROW} .st-browse-title") == f"Session <b>{int(mine[0].key[-10:-6])}</b> & co"
        page.goto("about:blank")
        late = int(time.time() * 1000)
        folder = root / mine[0].key.split("/")[0]
        write_session(folder / "late.jsonl", 900, PROJECTS[0], "p/m-mid", late)
        with httpx.Client(base_url=served.url, timeout=120) as client:
            ceiling = time.monotonic() + 120  # a bound on a loaded machine, not a timed assertion
            while (
                client.get("/api/sessions/window", params={"project": PROJECTS[0]}).json()["total"]
                != len(mine) + 1
            ):
                assert time.monotonic() < ceiling, "the new session was never listed"
                time.sleep(0.05)
        page.goto(f"{served.url}/s/{mine[0].key}")
        new = f'{ROW}.st-browse-grew[data-key="{folder.name}/late.jsonl"]'
        page.wait_for_selector(new)
        assert page.inner_text(new + " .st-browse-new") == "new"
        assert page.locator("#st-browse .st-browse-grew").count() == 1
        assert (
            page.inner_text("#st-browse .st-browse-status")
            == f"{len(mine) + 1} sessions, 1 changed since your last visit"
        )
    assert watch.page_errors == []
