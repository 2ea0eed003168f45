"""The index's rows in windows: the server's sort and filters give the rows the page's script would
show, in the same order, a window at a time; a paged page carries only its first window."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from sessiontree.pages.index_page import IndexOptions, render_index
from sessiontree.pages.index_rows import FIRST_ROWS, RowQuery, select_rows
from sessiontree.store.discovery import SessionInfo
from tests.pages.test_index_page import link, rec


def row(key: str, mtime: float, cwd: str, size: int = 2048, **kw: Any) -> SessionInfo:
    return dataclasses.replace(rec(key, mtime, cwd, **kw), size=size)


def keys(entries: list[SessionInfo], query: RowQuery) -> list[tuple[str, list[str]]]:
    return [(g.cwd, [n.entry.key for n in g.nodes]) for g in select_rows(entries, query).groups]


def listing() -> list[SessionInfo]:
    return [
        row("a1.jsonl", 100, "/a", 10, title="alpha one", prompt_count=3, created="2026-01-05T00:00:00Z"),
        row("a2.jsonl", 300, "/a", 5, title="alpha two", prompt_count=None, created="2026-01-01T00:00:00Z"),
        row("b1.jsonl", 200, "/b", 50, title="beta one", prompt_count=1, agent="claude"),
        row("a2/sub.jsonl", 250, "/a", title="zeta sub", parent_key="a2.jsonl", agent="codex"),
        row("c1.jsonl", 50, "", 1, title="no folder"),
    ]


def test_sorts_rows_in_projects_and_projects_by_their_first_row() -> None:
    entries = listing()
    assert keys(entries, RowQuery()) == [
        ("/a", ["a2.jsonl", "a1.jsonl"]),
        ("/b", ["b1.jsonl"]),
        ("", ["c1.jsonl"]),
    ]
    assert keys(entries, RowQuery(sort="size")) == [
        ("/b", ["b1.jsonl"]),
        ("/a", ["a1.jsonl", "a2.jsonl"]),
        ("", ["c1.jsonl"]),
    ]
    # No prompt count (-1) sorts below every count; created with no time counts as 0.
    assert keys(entries, RowQuery(sort="prompts"))[0] == ("/a", ["a1.jsonl", "a2.jsonl"])
    assert keys(entries, RowQuery(sort="created"))[0] == ("/a", ["a1.jsonl", "a2.jsonl"])


def test_filters_as_the_page_does() -> None:
    entries = listing()
    # A subagent's match shows its parent's row (with the subagent under it).
    assert keys(entries, RowQuery(terms=("zeta",))) == [("/a", ["a2.jsonl"])]
    assert keys(entries, RowQuery(agent="codex")) == [("/a", ["a2.jsonl"])]
    assert keys(entries, RowQuery(agent="claude", terms=("one",))) == [("/b", ["b1.jsonl"])]
    # A term may be in the project's folder; every term must match.
    assert keys(entries, RowQuery(terms=("/b",))) == [("/b", ["b1.jsonl"])]
    assert keys(entries, RowQuery(terms=("alpha", "nothing"))) == []
    assert keys(entries, RowQuery(project="")) == [("", ["c1.jsonl"])]
    assert keys(entries, RowQuery(project="/a", terms=("one",))) == [("/a", ["a1.jsonl"])]


def test_windows_cover_every_row_once_and_say_where_the_next_starts() -> None:
    entries = [rec(f"s{n:03}.jsonl", 1000 - n, f"/p{n % 3}") for n in range(250)]
    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        window = select_rows(entries, RowQuery(offset=offset, limit=70))
        assert window.total == 250
        seen += [n.entry.key for g in window.groups for n in g.nodes]
        offset = window.next
    assert len(seen) == 250 and len(set(seen)) == 250
    whole = select_rows(entries, RowQuery(limit=500))
    assert seen == [n.entry.key for g in whole.groups for n in g.nodes]
    assert whole.next is None


def test_query_of_request_parameters_falls_back_on_bad_values() -> None:
    query = RowQuery.of({"sort": "evil", "offset": "-5", "limit": "x", "q": "  Foo  BAR ", "agent": "pi"})
    assert query == RowQuery(sort="mtime", agent="pi", terms=("foo", "bar"), offset=0, limit=FIRST_ROWS)
    assert RowQuery.of({"limit": "100000", "project": ""}).limit == 500
    assert RowQuery.of({"project": ""}).project == ""


def test_a_paged_index_carries_its_first_window_and_where_the_rest_is() -> None:
    entries = [
        rec(f"s{n:04}.jsonl", 10_000 - n, f"/p{n % 7}", title=f"title {n}") for n in range(FIRST_ROWS * 3)
    ]
    paged = render_index(entries, link, IndexOptions(rows_url="/api/index-rows", state="42"))
    assert len(re.findall(r'<li class="st-session', paged)) == FIRST_ROWS
    assert 'data-rows="/api/index-rows"' in paged and f'data-next="{FIRST_ROWS}"' in paged
    assert 'data-state="42"' in paged and '<button id="st-more" type="button">' in paged
    # The summary and the filters still count every session and project.
    assert f"{FIRST_ROWS * 3} sessions in 7 projects" in paged
    assert paged.count('<option value="/p') == 7
    whole = render_index(entries, link)
    assert len(re.findall(r'<li class="st-session', whole)) == FIRST_ROWS * 3
    assert "data-rows=" not in whole and '<button id="st-more"' not in whole
