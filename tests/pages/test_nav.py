"""The nav bar and the sessions pane's data: links from any page, nothing in an exported file."""

from __future__ import annotations

import json
from pathlib import Path

from sessiontree.exporter import render_session_html
from sessiontree.pages.nav import NavLinks
from sessiontree.pages.related import related_by_key
from sessiontree.pages.sessions_data import sessions_data
from sessiontree.readers import load_any
from sessiontree.store.discovery import SessionInfo
from tests.store.helpers import assistant, header, msg


def test_nav_marks_the_page_shown_and_rebases_for_a_page_in_a_folder() -> None:
    links = NavLinks(index="index.html", usage="usage.html", search="search.html")
    html = str(links.html("usage"))
    assert html.count("<a ") == 3 and 'href="usage.html" aria-current="page"' in html
    assert 'href="index.html" id="st-home"' in html
    deep = links.relative_to("sessions/proj/a.html")
    assert (deep.index, deep.usage, deep.search) == (
        "../../index.html",
        "../../usage.html",
        "../../search.html",
    )
    assert str(NavLinks(index="/").html()).count("<a ") == 1  # no usage, no search: not linked
    assert "aria-current" not in str(links.html())


def _info(key: str, modified: float, **more: object) -> SessionInfo:
    fields: dict[str, object] = {
        "path": Path("/r") / key, "id": key, "cwd": "/w", "title": None, "first_message": "## Plan **now**",
        "created": None, "modified": modified, "size": 10, "message_count": 3, "key": key,
    }  # fmt: skip
    return SessionInfo(**{**fields, **more})  # type: ignore[arg-type]


def test_pane_data_is_newest_first_without_subagents_unreadable_or_unlinked_files() -> None:
    entries = [
        _info("a.jsonl", 10.0),
        _info("b.jsonl", 30.0, agent="claude", prompt_count=2),
        _info("b/sub.jsonl", 40.0, parent_key="b.jsonl"),
        _info("bad.jsonl", 50.0, error="not a session"),
        _info("hidden.jsonl", 60.0),
    ]
    data = sessions_data(
        entries, lambda e: None if e.key == "hidden.jsonl" else "/s/" + e.key, {"/r/a.jsonl": ["m1"]}
    )
    assert [r["k"] for r in data["sessions"]] == ["b.jsonl", "a.jsonl"]
    first, second = data["sessions"]
    want = {"k": "b.jsonl", "h": "/s/b.jsonl", "t": "Plan now", "a": "claude", "p": "/w", "n": 3, "q": 2}
    assert first == {**want, "u": 30000, "m": []}
    assert second["m"] == ["m1"] and data["models"] is True and second["q"] is None  # not counted yet
    assert json.loads(json.dumps(data)) == data


def test_an_exported_file_has_no_nav_no_pane_and_no_browsing_script(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    lines = [header("s1", cwd="/w"), msg("u1", None, "user", "hello"), assistant("a1", "u1")]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    page = render_session_html(load_any(path))
    for absent in ("st-nav", "st-browse", "sessiontreeBrowse", "New since your last visit"):
        assert absent not in page


def test_related_links_are_made_for_parents_and_children_only() -> None:
    # related_by_key skips a session with neither (most of them) before making anything for it.
    entries = [
        _info("a.jsonl", 10.0),
        _info("b.jsonl", 30.0),
        _info("b/sub.jsonl", 40.0, parent_key="b.jsonl", title="Sub task"),
        _info("c/orphan.jsonl", 50.0, parent_key="gone.jsonl"),
    ]
    found = related_by_key(entries, lambda here, other: f"{other}.html")
    assert set(found) == {"b.jsonl", "b/sub.jsonl"}
    assert found["b.jsonl"].parent is None
    assert found["b.jsonl"].children == (("b/sub.jsonl", "Sub task", "b/sub.jsonl.html"),)
    assert found["b/sub.jsonl"].parent == "b.jsonl.html" and found["b/sub.jsonl"].children == ()
