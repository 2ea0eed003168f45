"""Search over generated sessions: every field, every filter, ranking, FTS5 syntax and plain text."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

from sessiontree.archive import extract
from sessiontree.archive.search import SearchFilters, SearchIndex, check_cache_dir, search_sessions
from sessiontree.errors import SearchError
from tests.archive.sessions import make_session, write_lines


def _first(lines: list[dict[str, Any]], test: Any) -> dict[str, Any]:
    return next(line for line in lines if test(line))


def _role(line: dict[str, Any]) -> str | None:
    message = line.get("message")
    return message.get("role") if line.get("type") == "message" and isinstance(message, dict) else None


def _block(line: dict[str, Any], kind: str) -> dict[str, Any] | None:
    content = line["message"].get("content")
    return next((b for b in content if isinstance(b, dict) and b.get("type") == kind), None)


def plant_markers(lines: list[dict[str, Any]]) -> dict[str, tuple[str | None, str]]:
    """Put one unique word into each searchable field; return word -> (entry id, role of the hit)."""
    planted: dict[str, tuple[str | None, str]] = {}
    user = _first(lines, lambda e: _role(e) == "user")
    user["message"]["content"][0]["text"] += " zqusertext"
    planted["zqusertext"] = (user["id"], "user")
    said = _first(lines, lambda e: _role(e) == "assistant" and _block(e, "text") is not None)
    said_block = _block(said, "text")
    assert said_block is not None
    said_block["text"] += " zqassistanttext"
    planted["zqassistanttext"] = (said["id"], "assistant")
    thought = _first(lines, lambda e: _role(e) == "assistant" and _block(e, "thinking") is not None)
    thinking = _block(thought, "thinking")
    assert thinking is not None
    thinking["thinking"] += " zqthinking"
    planted["zqthinking"] = (thought["id"], "assistant")
    caller = _first(lines, lambda e: _role(e) == "assistant" and _block(e, "toolCall") is not None)
    call = _block(caller, "toolCall")
    assert call is not None
    call["name"] = "zqtoolname"
    call["arguments"] = {**call["arguments"], "pattern": "zqtoolargument"}
    planted["zqtoolname"] = (caller["id"], "tool")
    planted["zqtoolargument"] = (caller["id"], "tool")
    result = _first(lines, lambda e: _role(e) == "toolResult")
    result["message"]["content"][0]["text"] += "\nzqtoolresult"
    planted["zqtoolresult"] = (result["id"], "tool")
    compaction = _first(lines, lambda e: e.get("type") == "compaction")
    compaction["summary"] += " zqcompaction"
    planted["zqcompaction"] = (compaction["id"], "summary")
    branch = _first(lines, lambda e: e.get("type") == "branch_summary")
    branch["summary"] += " zqbranchsummary"
    planted["zqbranchsummary"] = (branch["id"], "summary")
    label = _first(lines, lambda e: e.get("type") == "label")
    label["label"] = "zqlabel"
    planted["zqlabel"] = (label["targetId"], "label")
    custom = _first(lines, lambda e: e.get("type") == "custom_message")
    custom["content"] += " zqcustommessage"
    planted["zqcustommessage"] = (custom["id"], "custom")
    bash = _first(lines, lambda e: _role(e) == "bashExecution")
    bash["message"]["output"] += "\nzqbashoutput"
    planted["zqbashoutput"] = (bash["id"], "tool")
    lines[0]["title"] = "Refactor the zqtitle parser"
    planted["zqtitle"] = (None, "title")
    return planted


@pytest.fixture
def planted(roots: Path) -> tuple[Path, dict[str, tuple[str | None, str]]]:
    path, lines = make_session(roots / "--home-dev-demo--", "rich", seed=3, turns=45, title="x")
    markers = plant_markers(lines)
    write_lines(path, lines)
    return path, markers


def test_every_field_is_found_at_its_entry(planted: Any, roots: Path, cache_dir: Path) -> None:
    path, markers = planted
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        for word, (entry_id, role) in markers.items():
            hits = index.search(word)
            assert [(h.path, h.entry_id, h.role) for h in hits] == [(path, entry_id, role)], word
            assert (word, True) in [(t.lower(), m) for t, m in hits[0].snippet.parts()], word


def test_phrases_prefixes_and_boolean_queries(planted: Any, roots: Path, cache_dir: Path) -> None:
    _path, _ = planted
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        assert [h.role for h in index.search('"the zqtitle parser"')] == ["title"]
        assert index.search('"parser zqtitle"') == []
        assert {h.entry_id for h in index.search("zqtool*")} == {
            h.entry_id for w in ("zqtoolname", "zqtoolargument", "zqtoolresult") for h in index.search(w)
        }
        assert [h.role for h in index.search("zqusertext OR zqthinking")].count("user") == 1
        assert index.search("zqusertext NOT zqusertext") == []


def test_text_that_is_not_fts5_syntax_is_matched_as_plain_text(roots: Path, cache_dir: Path) -> None:
    path, lines = make_session(roots / "p", "plain", seed=5, turns=6)
    user = _first(lines, lambda e: _role(e) == "user")
    user["message"]["content"][0]["text"] += ' call foo(bar, "baz and c++ AND'
    write_lines(path, lines)
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        for query in ['foo(bar, "baz', "c++ AND", '"baz and c++']:
            hits = index.search(query)
            assert [h.entry_id for h in hits] == [user["id"]], query
        assert index.search("foo(baz") == []  # the words are there, the text is not


def test_filters_project_since_role_limit(roots: Path, cache_dir: Path) -> None:
    old, _ = make_session(roots / "a", "old", seed=1, turns=12, cwd="/work/alpha", days=0)
    new, _ = make_session(roots / "b", "new", seed=1, turns=12, cwd="/work/beta", days=30)
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        every = index.search("fsync", SearchFilters(limit=10_000))
        assert {h.path for h in every} == {old, new}
        alpha = index.search("fsync", SearchFilters(project="/work/alpha", limit=10_000))
        assert alpha and {h.path for h in alpha} == {old}
        cut = min(h.ts for h in every if h.path == new)
        recent = index.search("fsync", SearchFilters(since_ms=cut, limit=10_000))
        assert recent and {h.path for h in recent} == {new} and min(h.ts for h in recent) >= cut
        for role in ("user", "assistant", "tool"):
            only = index.search("fsync", SearchFilters(role=role, limit=10_000))
            assert only and {h.role for h in only} == {role}
        assert len(index.search("fsync", SearchFilters(limit=3))) == 3
        assert len(every) > 3


def test_title_hit_ranks_above_body_hits(roots: Path, cache_dir: Path) -> None:
    body_path, lines = make_session(roots / "p", "body", seed=2, turns=8, title="Unrelated work")
    for line in lines:
        if _role(line) == "user":
            line["message"]["content"][0]["text"] += " kestrel kestrel kestrel"
    write_lines(body_path, lines)
    title_path, _ = make_session(
        roots / "p", "titled", seed=4, turns=8, title="The kestrel migration", days=-9
    )
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        hits = index.search("kestrel", SearchFilters(limit=50))
        assert (hits[0].path, hits[0].role) == (title_path, "title")
        assert len(hits) > 1 and all(h.path == body_path for h in hits[1:])


def test_ties_are_broken_newest_first(roots: Path, cache_dir: Path) -> None:
    paths = [
        make_session(roots / "p", f"copy{d}", seed=6, turns=4, days=d, title="Synthetic")[0]
        for d in (3, 9, 1)
    ]
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        hits = index.search("Synthetic", SearchFilters(limit=10))
        assert [h.path for h in hits[:3]] == [paths[1], paths[0], paths[2]]
        assert hits[0].score == hits[1].score == hits[2].score


def test_search_sessions_writes_only_the_cache_and_refuses_a_cache_inside(
    roots: Path, cache_dir: Path
) -> None:
    make_session(roots / "p", "s", seed=1, turns=4)
    before = sorted((p, p.stat().st_mtime_ns) for p in roots.parent.rglob("*"))
    assert search_sessions([roots], "fsync", cache_dir=cache_dir)
    assert sorted((p, p.stat().st_mtime_ns) for p in roots.parent.rglob("*")) == before
    assert (cache_dir / "search.db").is_file()
    with pytest.raises(SearchError, match="inside"):
        check_cache_dir(roots / "p" / "cache", [roots])
    with pytest.raises(SearchError, match="inside"):
        SearchIndex([roots], roots.parent / "cache", keep_out=[roots.parent])


def test_hostile_lines_are_skipped_not_fatal(roots: Path, cache_dir: Path) -> None:
    path, lines = make_session(roots / "p", "hostile", seed=8, turns=4)
    deep = '{"type":"message","id":"deep","message":{"role":"user","content":' + "[" * 100_000 + "]" * 100_000
    bad = [
        deep + "}}",
        '{"type":"message","id":"big","message":{"role":"user","content":"huge ' + "9" * 5000 + '"}}',
        '{"type":"message","id":"nan","timestamp":NaN,"message":{"role":"user","content":"zqnan",'
        '"timestamp":Infinity}}',
        '{"type":"message","id":"num","message":{"role":"user","content":"zqbignumber"},"n":'
        + "9" * 5000
        + "}",
        '{"type":"message","id":"utf","message":{"role":"user","content":"zqbadbytes \xff"}}',
    ]
    data = "".join(__import__("json").dumps(line) + "\n" for line in lines) + "\n".join(bad) + "\n"
    path.write_bytes(data.encode("utf-8", "surrogateescape").replace(b"\xc3\xbf", b"\xff"))
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        assert [h.entry_id for h in index.search("zqnan")] == ["nan"]
        assert index.search("zqnan")[0].ts == 0
        assert [h.entry_id for h in index.search("zqbadbytes")] == ["utf"]
        # A number past Python's 4,300 digits is clamped where lines are decoded: the line is read.
        assert [h.entry_id for h in index.search("zqbignumber")] == ["num"]
        assert index.search("fsync")


def test_a_copy_of_lines_keeps_rows_apart(roots: Path, cache_dir: Path) -> None:
    """Two files with the same entries (a fork) both show up: hits are per file."""
    _path, lines = make_session(roots / "p", "one", seed=9, turns=4)
    write_lines(roots / "p" / "two.jsonl", copy.deepcopy(lines))
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        assert {h.path.name for h in index.search("fsync")} == {"one.jsonl", "two.jsonl"}


def test_a_very_common_word_ranks_the_newest_rows_and_filters_still_find_the_rest(
    roots: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sessiontree.archive.search.RANK_SLICE", 10)
    new, _ = make_session(roots / "b", "new", seed=2, turns=12, cwd="/work/new", days=30)
    old, _ = make_session(roots / "a", "old", seed=1, turns=12, cwd="/work/old")
    os.utime(new, (1_000_000_000, 1_000_000_000))  # indexed first: the entries' times still decide
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        hits = index.search("fsync", SearchFilters(limit=3))
        assert len(hits) == 3 and {h.path for h in hits} == {new}
        assert [h.score for h in hits] == sorted(h.score for h in hits)
        older = index.search("fsync", SearchFilters(limit=3, project="/work/old"))
        assert len(older) == 3 and {h.path for h in older} == {old}
        monkeypatch.setattr("sessiontree.archive.search.RANK_SLICE", 10**9)
        everything = index.search("fsync", SearchFilters(limit=10**5))
        assert {h.path for h in everything} == {old, new}


def _answers(index: SearchIndex, queries: list[str], limit: int) -> list[list[tuple[Any, ...]]]:
    return [
        [
            (h.path, h.entry_id, h.role, h.ts, h.score, h.snippet)
            for h in index.search(q, SearchFilters(limit=limit))
        ]
        for q in queries
    ]


def test_results_do_not_depend_on_how_the_index_was_built(
    roots: Path, cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index updated in place (appends, a rewrite, a fork) answers as a fresh one does."""
    monkeypatch.setattr("sessiontree.archive.search.RANK_SLICE", 40)
    queries = ["fsync", "parser", '"atomic writer"', "pars*", "the"]
    old, old_lines = make_session(roots / "a", "old", seed=1, turns=20, cwd="/work/a")
    grown, grown_lines = make_session(roots / "b", "grown", seed=2, turns=20, cwd="/work/b", days=20)
    half = len(grown_lines) // 2
    write_lines(grown, grown_lines[:half])
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        _answers(index, queries, 5)
        with grown.open("a", encoding="utf-8") as fh:  # appended: indexed alone
            fh.write("".join(json.dumps(line) + "\n" for line in grown_lines[half:]))
        index.update()
        _first(old_lines, lambda e: _role(e) == "user")["message"]["content"][0]["text"] += " rewritten"
        write_lines(old, old_lines)  # rewritten: its rows indexed again, last
        write_lines(roots / "c" / "fork.jsonl", copy.deepcopy(grown_lines))  # identical rows: ties
        report = index.update()
        assert report.whole == 2 and report.appended == 0
        updated = _answers(index, queries, 5) + _answers(index, queries, 50)
    with SearchIndex([roots], tmp_path / "fresh") as fresh:
        fresh.update()
        assert _answers(fresh, queries, 5) + _answers(fresh, queries, 50) == updated
    assert all(updated[:5]) and {h[0] for h in updated[0]} == {grown, roots / "c" / "fork.jsonl"}


def _long_output(words: int, planted: dict[int, str]) -> str:
    """A tool output of ``words`` numbered words (about 9 characters each), some replaced by markers."""
    return " ".join(planted.get(n, f"word{n:04d}") for n in range(words))


def test_every_word_of_a_long_tool_output_is_found_up_to_the_bound(roots: Path, cache_dir: Path) -> None:
    path, lines = make_session(roots / "p", "long", seed=10, turns=4)
    results = [line for line in lines if _role(line) == "toolResult"]
    medium = _long_output(8_000, {4_000: "zqmiddleword", 7_999: "zqmediumlast"})  # 70 KB
    assert 65_000 < len(medium) < 80_000 and 30_000 < medium.index("zqmiddleword") < 40_000
    results[0]["message"]["content"][0]["text"] = medium
    size = extract.MAX_TEXT_CHARS + 300_000
    huge = _long_output(size // 9, {10_000: "zqheadword", 120_000: "zqcutword", size // 9 - 2: "zqtailword"})
    assert huge.index("zqcutword") > extract.MAX_TEXT_CHARS - extract.TAIL_CHARS
    assert len(huge) - huge.index("zqcutword") > extract.TAIL_CHARS
    results[1]["message"]["content"][0]["text"] = huge
    write_lines(path, lines)
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        for word, entry in [
            ("zqmiddleword", results[0]),
            ("zqmediumlast", results[0]),
            ("zqheadword", results[1]),
            ("zqtailword", results[1]),
        ]:
            hits = index.search(word)
            assert [(h.entry_id, h.role) for h in hits] == [(entry["id"], "tool")], word
            assert f"«{word}»" in "".join(f"«{t}»" if m else t for t, m in hits[0].snippet.parts())
        # The documented bound: past MAX_TEXT_CHARS only the head and the tail are indexed.
        assert index.search("zqcutword") == []


def test_count_is_every_hit_and_pages_reach_each_one_once(roots: Path, cache_dir: Path) -> None:
    make_session(roots / "a", "one", seed=1, turns=12, cwd="/work/alpha")
    make_session(roots / "b", "two", seed=2, turns=12, cwd="/work/beta")
    path, lines = make_session(roots / "b", "plain", seed=5, turns=6, cwd="/work/beta")
    user = _first(lines, lambda e: _role(e) == "user")
    user["message"]["content"][0]["text"] += " zq(plain) zq(plain)"
    write_lines(path, lines)
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        every = index.search("fsync", SearchFilters(limit=100_000))
        count = index.count("fsync")
        assert count.hits == len(every) > 20 and count.sessions == len({h.path for h in every}) == 3
        pages = [index.search("fsync", SearchFilters(limit=7, offset=at)) for at in range(0, count.hits, 7)]
        keys = [(h.path, h.entry_id, h.role) for page in pages for h in page]
        assert keys == [(h.path, h.entry_id, h.role) for h in every]
        beta = index.count("fsync", SearchFilters(project="/work/beta"))
        assert beta.sessions == 2 and beta.hits == sum(1 for h in every if h.cwd == "/work/beta")
        plain = index.count("zq(plain")  # not FTS5 syntax: counted as plain text, as searched
        assert plain.hits == len(index.search("zq(plain", SearchFilters(limit=100))) == 1
        assert plain.sessions == 1 and index.count("  ").hits == 0


def test_newest_first_pages_every_hit_by_time(roots: Path, cache_dir: Path) -> None:
    """Issue 44: relevance or recency; the newest order reaches the same hits, page by page."""
    make_session(roots / "a", "old", seed=1, turns=12, cwd="/work/alpha", days=0)
    make_session(roots / "b", "new", seed=1, turns=12, cwd="/work/beta", days=30)
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        best = index.search("fsync", SearchFilters(limit=10_000))
        newest = index.search("fsync", SearchFilters(limit=10_000, newest=True))
        assert sorted((h.path, h.entry_id, h.role) for h in newest) == sorted(
            (h.path, h.entry_id, h.role) for h in best
        )
        times = [h.ts for h in newest]
        assert times == sorted(times, reverse=True) and times != [h.ts for h in best]
        paged = [
            h
            for k in range(0, len(newest), 7)
            for h in index.search("fsync", SearchFilters(limit=7, offset=k, newest=True))
        ]
        assert [(h.path, h.entry_id, h.role) for h in paged] == [(h.path, h.entry_id, h.role) for h in newest]
