"""resolve_session: path vs id prefix, current scope then global, the cross-project fork prompt."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessiontree.errors import AmbiguousSession, InvalidSession, SessionNotFound
from sessiontree.store.discovery import session_dir_for
from sessiontree.store.load import load_session
from sessiontree.store.resolve import find_session, looks_like_path, resolve_session
from tests.store.test_discovery import make_session


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    return tmp_path / "agent"


def here(agent: Path, session_id: str, mtime: float | None = None) -> Path:
    return make_session(session_dir_for("/proj", agent), session_id, cwd="/proj", mtime=mtime)


def there(agent: Path, session_id: str) -> Path:
    return make_session(session_dir_for("/other", agent), session_id, cwd="/other")


def test_what_looks_like_a_path() -> None:
    assert looks_like_path("a/b") and looks_like_path("a\\b") and looks_like_path("x.jsonl")
    assert not looks_like_path("abc123")


def test_a_path_is_used_as_is(agent: Path, tmp_path: Path) -> None:
    path = make_session(tmp_path / "loose", "9" * 16, cwd="/somewhere/else")
    assert resolve_session(str(path), agent, "/proj").path == path


def test_a_relative_jsonl_name_is_a_path(
    agent: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = make_session(tmp_path / "loose", "9" * 16, cwd="/else")
    monkeypatch.chdir(path.parent)
    assert resolve_session(path.name, agent, "/proj").path == path


def test_missing_path(agent: Path, tmp_path: Path) -> None:
    with pytest.raises(SessionNotFound, match="File not found: "):
        resolve_session(str(tmp_path / "nope.jsonl"), agent, "/proj")


def test_path_that_is_not_a_session(agent: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("hello\n")
    with pytest.raises(InvalidSession, match="Not a session file"):
        resolve_session(str(bad), agent, "/proj")
    with pytest.raises(InvalidSession, match="directory"):
        resolve_session(str(tmp_path) + "/", agent, "/proj")


def test_unique_prefix_in_scope(agent: Path) -> None:
    wanted = here(agent, "abcdef0011223344")
    here(agent, "ffff000011112222")
    assert resolve_session("abc", agent, "/proj").path == wanted
    assert resolve_session("ABCDEF", agent, "/proj").path == wanted  # ids are hex: case does not matter


def test_scope_wins_over_global(agent: Path) -> None:
    mine = here(agent, "abcd000000000001")
    there(agent, "abcd000000000002")
    assert resolve_session("abcd", agent, "/proj").path == mine


def test_ambiguous_prefix_lists_candidates(agent: Path) -> None:
    here(agent, "abcd000000000001")
    here(agent, "abcd000000000002")
    with pytest.raises(AmbiguousSession) as err:
        resolve_session("abcd", agent, "/proj")
    message = str(err.value)
    assert "matches 2 sessions" in message and "abcd000000000001" in message and "abcd000000000002" in message


def test_exact_id_beats_longer_ids(agent: Path) -> None:
    exact = here(agent, "abcd")
    here(agent, "abcd000000000002")
    assert resolve_session("abcd", agent, "/proj").path == exact


def test_unknown_id(agent: Path) -> None:
    here(agent, "1234000000000000")
    with pytest.raises(SessionNotFound, match="No session id starts with 'zz'"):
        resolve_session("zz", agent, "/proj")
    with pytest.raises(SessionNotFound, match="Empty session id"):
        resolve_session("  ", agent, "/proj")


def test_global_match_in_the_same_cwd_is_returned(agent: Path, tmp_path: Path) -> None:
    # A session of this cwd kept in another folder (e.g. written with --session-dir).
    path = make_session(agent / "sessions" / "custom", "7777000000000000", cwd="/proj")
    assert resolve_session("7777", agent, "/proj").path == path


def test_cross_project_without_a_tty_is_an_error(agent: Path) -> None:
    source = there(agent, "c0ffee0000000000")
    with pytest.raises(SessionNotFound, match="belongs to another project \\(/other\\)") as err:
        resolve_session("c0ffee", agent, "/proj")
    assert str(source) in str(err.value)


def test_cross_project_declined(agent: Path) -> None:
    there(agent, "c0ffee0000000000")
    asked: list[str] = []

    def no(question: str) -> bool:
        asked.append(question)
        return False

    with pytest.raises(SessionNotFound, match="Not forked"):
        resolve_session("c0ffee", agent, "/proj", confirm=no)
    assert asked == ["Session found in different project: /other. Fork into current directory?"]
    assert list(session_dir_for("/proj", agent).glob("*.jsonl")) == []


def test_cross_project_accepted_forks_into_this_project(agent: Path) -> None:
    source = there(agent, "c0ffee0000000000")
    resolved = resolve_session("c0ffee", agent, "/proj", confirm=lambda question: True)
    assert resolved.forked_from == source
    assert resolved.path.parent == session_dir_for("/proj", agent)
    forked = load_session(resolved.path)
    assert forked.cwd == "/proj" and forked.header["parentSession"] == str(source)
    assert forked.entries == load_session(source).entries


def test_explicit_session_dir_skips_the_global_search(agent: Path, tmp_path: Path) -> None:
    there(agent, "c0ffee0000000000")
    custom = tmp_path / "custom"
    inside = make_session(custom, "dddd000000000000", cwd="/anything")
    assert resolve_session("dddd", agent, "/proj", session_dir=custom).path == inside
    with pytest.raises(SessionNotFound, match=f"in {custom}"):
        resolve_session("c0ffee", agent, "/proj", session_dir=custom)


def test_find_session_never_forks(agent: Path) -> None:
    source = there(agent, "c0ffee0000000000")
    info = find_session("c0ffee", agent, "/proj")
    assert info.path == source and info.cwd == "/other"
    assert list(session_dir_for("/proj", agent).glob("*.jsonl")) == []
