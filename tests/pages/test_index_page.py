"""The index page: groups, order, escaping, links, CSP hashes of every inline script and style."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path
from typing import Any

import pytest

from sessiontree.errors import ExportError
from sessiontree.pages.index_page import IndexOptions, render_index, render_index_groups
from sessiontree.store.discovery import SessionInfo


def rec(key: str, mtime: float, cwd: str = "/w", **kw: Any) -> SessionInfo:
    fields: dict[str, Any] = {"title": None, "first_message": None, "created": None, "message_count": 0}
    ident = key.split(".")[0]
    return SessionInfo(path=Path(key), key=key, size=2048, modified=mtime, id=ident, cwd=cwd, **fields | kw)


def link(e: SessionInfo) -> str:
    return "/s/" + e.key


def sha(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def test_groups_newest_first_with_subagents_nested() -> None:
    entries = [
        rec("old.jsonl", 100, "/a", title="Old one"),
        rec("new.jsonl", 300, "/a", title="New one"),
        rec("b.jsonl", 200, "/b", title="In b"),
        rec("new/0-Sub.jsonl", 250, "/a", title="Sub", parent_key="new.jsonl"),
    ]
    html = render_index_groups(entries, link, now=310)
    assert html.index('data-cwd="/a"') < html.index('data-cwd="/b"')
    assert html.index("New one") < html.index("Sub") < html.index("Old one")
    sub = html.index('class="st-subagents"')
    assert html.index("New one") < sub < html.index("Sub")
    assert 'href="/s/new.jsonl"' in html
    # live: changed within the last minute of "now"
    assert re.search(r'data-key="new.jsonl"[^>]*>\s*<span class="st-live st-on"', html)
    assert re.search(r'data-key="old.jsonl"[^>]*>\s*<span class="st-live"', html)


def test_session_text_is_escaped() -> None:
    evil = '<script>alert(1)</script>"'
    html = render_index([rec("x.jsonl", 1, cwd=evil, title=evil, first_message=evil)], link)
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_unreadable_files_are_listed_without_a_link() -> None:
    html = render_index([rec("bad.jsonl", 1, error="not a session file")], link)
    assert "not a session file" in html and "bad.jsonl" in html
    assert 'href="/s/bad.jsonl"' not in html


def test_csp_hashes_every_inline_script_and_style() -> None:
    extra = "console.log('live');"
    html = render_index(
        [rec("x.jsonl", 1)], link, IndexOptions(extra_scripts=(extra,), connect_src=("'self'",))
    )
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert csp is not None
    policy = csp.group(1)
    scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
    styles = re.findall(r"<style>(.*?)</style>", html, re.S)
    assert len(scripts) == 4 and extra in scripts  # local-time.js, index-choices.js, index.js, the extra one
    for text in [*scripts]:
        assert f"'{sha(text)}'" in policy.split("script-src")[1].split(";")[0]
    assert f"'{sha(styles[0])}'" in policy.split("style-src")[1].split(";")[0]
    assert "connect-src 'self'" in policy
    assert "unsafe-inline" not in policy


def test_without_connect_src_the_page_connects_nowhere() -> None:
    html = render_index([], link)
    assert "connect-src" not in html  # default-src 'none' covers it


def test_unknown_theme_is_refused() -> None:
    with pytest.raises(ExportError):
        render_index([], link, IndexOptions(theme="neon"))


def test_times_are_utc_time_elements_the_script_puts_in_the_reader_zone() -> None:
    entries = [rec("a.jsonl", 1_765_000_000, title="A", created="2025-12-08T22:41:05.306Z")]
    html = render_index(entries, link)
    assert '<time class="st-short" datetime="2025-12-08T22:41:05Z">2025-12-08 22:41 UTC</time>' in html
    assert '<time class="st-short" datetime="2025-12-06T05:46:40Z">2025-12-06 05:46 UTC</time>' in html
    assert "localize(" in html  # local-time.js is on the page, hashed with the others
    odd = render_index_groups([rec("b.jsonl", 1, created="last tuesday")], link)
    assert "created last tuesday ·" in odd and odd.count("<time") == 1


def test_files_not_read_yet_are_counted_as_such_not_as_a_folder_of_their_own() -> None:
    # A fresh server lists the files it had no time to read from their stat alone: no folder yet.
    # They are no "(no working directory)" project (count or filter) and the summary says so.
    entries = [
        rec("a.jsonl", 300, "/a", title="Read"),
        rec("b.jsonl", 200, "", title="Read, no folder"),
        rec("c.jsonl", 100, "", message_count=None),
        rec("d.jsonl", 90, "", message_count=None),
        rec("e.jsonl", 80, "/a", message_count=None, title="A big file's prefix"),
    ]
    html = render_index(entries, link)
    assert "5 sessions in 2 projects, 3 still being read" in html
    (projects,) = re.findall(r'<select id="st-project-filter">(.*?)</select>', html, re.S)
    choices = re.findall(r'<option value="([^"]*)">([^<]*)</option>', projects)
    assert choices == [("", "Every project"), ("", "(no working directory)"), ("/a", "/a")]  # b's, not c's

    whole = render_index([e for e in entries if not e.pending], link)
    assert "2 sessions in 2 projects" in whole
    assert "still being read" not in whole
