"""`sessiontree search`: one line per hit, JSON, filters as options, safe terminal text, clean errors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessiontree.cli import cli
from tests.archive.sessions import make_session, write_lines


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_search_prints_title_time_role_snippet_and_where(isolated_agent_dir: Path) -> None:
    folder = isolated_agent_dir / "sessions" / "--work-demo--"
    path, lines = make_session(folder, "s", seed=1, turns=6, title="Demo work", cwd="/work/demo")
    user = next(e for e in lines if e.get("type") == "message" and e["message"]["role"] == "user")
    user["message"]["content"][0]["text"] = "please fix zqcliword \x1b]0;owned\x07 and \x1b[31mred\x1b[0m"
    write_lines(path, lines)
    code, out, err = invoke("search", "zqcliword")
    assert code == 0, err
    title, when, role, snippet, where = out.rstrip("\n").split("\t")
    assert (title, role) == ("Demo work", "user")
    assert when == user["timestamp"][:19] + "Z"
    assert "«zqcliword»" in snippet and "\x1b" not in out and "\x07" not in out
    assert where == f"{path} --leaf {user['id']}"
    # the cache is the user cache dir, not the agent dir
    assert not list(isolated_agent_dir.rglob("*.db"))
    assert list((isolated_agent_dir.parents[1] / ".cache" / "sessiontree").glob("search.db"))


def test_search_json_and_filters(isolated_agent_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "elsewhere"
    make_session(folder / "a", "a", seed=2, turns=6, cwd="/work/a", title="A")
    make_session(folder / "b", "b", seed=2, turns=6, cwd="/work/b", title="B", days=20)
    base = ["search", "--sessions-dir", str(folder), "--cache-dir", str(tmp_path / "c")]
    code, out, _err = invoke(*base, "fsync", "--json", "--limit", "500")
    hits = json.loads(out)
    assert code == 0 and {h["title"] for h in hits} == {"A", "B"}
    assert set(hits[0]) >= {"path", "entryId", "role", "time", "snippet", "marks", "title", "sessionId"}
    code, out, _ = invoke(
        *base, "fsync", "--json", "--project", "/work/b", "--role", "tool", "--limit", "500"
    )
    only = json.loads(out)
    assert only and {(h["title"], h["role"]) for h in only} == {("B", "tool")}
    code, out, _ = invoke(*base, "fsync", "--json", "--since", "2026-03-01")
    assert {h["title"] for h in json.loads(out)} == {"B"}
    code, out, _ = invoke(*base, "fsync", "--limit", "2")
    assert len(out.splitlines()) == 2


def test_search_errors_are_one_line(isolated_agent_dir: Path, tmp_path: Path) -> None:
    code, _, err = invoke("search", "x", "--cache-dir", str(isolated_agent_dir / "cache"))
    assert code == 1 and err.startswith("Error: ") and len(err.strip().splitlines()) == 1
    code, _, err = invoke("search", "x", "--since", "yesterday-ish")
    assert code == 1 and "--since" in err and "Traceback" not in err
    code, _, err = invoke("search", "x", "--role", "system")
    assert code == 2 and "--role" in err
    bad_db = tmp_path / "bad"
    bad_db.mkdir()
    (bad_db / "search.db").write_bytes(b"not a database at all" * 100)
    code, _, err = invoke("search", "x", "--cache-dir", str(bad_db))
    assert code == 1 and "search index" in err and len(err.strip().splitlines()) == 1


def test_search_with_no_sessions_finds_nothing(isolated_agent_dir: Path) -> None:
    code, out, err = invoke("search", "anything")
    assert (code, out, err) == (1, "", "No matches for 'anything' in 0 sessions\n")


def test_no_match_says_so_on_stderr_and_exits_1_as_grep_does(
    isolated_agent_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "s"
    make_session(folder / "a", "a", seed=4, turns=4, cwd="/work/a")
    make_session(folder / "b", "b", seed=5, turns=4, cwd="/work/b")
    base = ["search", "--root", str(folder), "--cache-dir", str(tmp_path / "c")]
    code, out, err = invoke(*base, "zqnowhere\x1b[31m")
    assert (code, out) == (1, "")
    assert err == "No matches for 'zqnowhere' in 2 sessions\n"
    code, out, err = invoke(*base, "zqnowhere", "--project", "/work/a", "--json")
    assert (code, json.loads(out), err) == (1, [], "No matches for 'zqnowhere' in 1 session\n")
    code, out, err = invoke(*base, "fsync", "--limit", "1")
    assert code == 0 and out.count("\n") == 1 and err == ""


def test_a_big_first_index_is_announced_on_stderr(
    isolated_agent_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sessiontree.cli.archive_options.ANNOUNCE_BYTES", 1000)
    make_session(tmp_path / "s" / "p", "a", seed=3, turns=4)
    base = ["search", "fsync", "--sessions-dir", str(tmp_path / "s"), "--cache-dir", str(tmp_path / "c")]
    code, out, err = invoke(*base)
    assert code == 0 and out and err.startswith("Indexing 1 file (")
    code, out, err = invoke(*base)
    assert code == 0 and out and err == ""


def test_a_search_on_a_warm_index_imports_no_reader(isolated_agent_dir: Path) -> None:
    # The readers (and their line tables) are for reading changed files: a warm query needs none.
    import subprocess
    import sys

    folder = isolated_agent_dir / "sessions" / "--work-demo--"
    path, _ = make_session(folder, "s", seed=1, turns=6, title="Demo work", cwd="/work/demo")
    os.utime(path, (1_700_000_000, 1_700_000_000))  # not changed just now: no re-read to be sure
    assert invoke("search", "anything")[0] in (0, 1)  # builds the index
    probe = (
        "import sys\nfrom sessiontree.cli import main\ntry:\n    main(['search', 'zqnothere'])\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('sessiontree.readers.')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert "No matches for 'zqnothere'" in done.stderr
    loaded = done.stdout.strip()
    for reader in ("claude", "codex", "pi", "claude_kinds"):
        assert f"'sessiontree.readers.{reader}'" not in loaded, loaded
