"""Faults contained everywhere (issue 36): clocks, links, nesting and permissions, each through the
real CLI in a process: one clear line and an exit status, never a traceback, every good session
still listed. Permission cases run as a user who owns none of the files (``tests/stranger.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.archive.sessions import generate, write_lines
from tests.cli.test_archive_bad_input import run
from tests.stranger import give, restrict, run_as_stranger, stranger_dir  # noqa: F401 (fixture)

FAR_PAST = "0001-01-01T00:00:00+14:00"  # parses, but is before year 1 in UTC


def _chain(sid: str, *messages: dict[str, Any], stamp: str = "2026-01-01T00:00:00Z") -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": sid, "timestamp": stamp, "cwd": "/w"}
    ]
    parent = None
    for i, message in enumerate(messages):
        lines.append(
            {
                "type": "message",
                "id": f"{sid}-{i}",
                "parentId": parent,
                "timestamp": stamp,
                "message": message,
            }
        )
        parent = f"{sid}-{i}"
    return lines


def far_past_session(path: Path) -> Path:
    """A message out of any clock's range with usage no price table knows (OverflowError once)."""
    unpriced = {"input": 10, "output": 5}
    return write_lines(
        path,
        _chain(
            "far-past",
            {"role": "user", "content": "when was this", "timestamp": FAR_PAST},
            {"role": "assistant", "content": [{"type": "text", "text": "long ago"}], "model": "no-such-model",
             "provider": "nobody", "usage": unpriced, "timestamp": FAR_PAST},
            stamp=FAR_PAST,
        ),
    )  # fmt: skip


def deep_session(path: Path) -> Path:
    """A tool call whose arguments nest 500 deep (RecursionError in the search extraction once)."""
    lines = _chain(
        "deep-args",
        {"role": "user", "content": "go deep"},
        {
            "role": "assistant",
            "content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"x": "N"}}],
        },
    )
    text = "".join(json.dumps(line) + "\n" for line in lines)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.replace('"x": "N"', '"x": ' + "[" * 500 + '"bottomword"' + "]" * 500))
    return path


def good_session(path: Path, sid: str) -> Path:
    lines = generate(3, 7)
    lines[0]["id"] = sid
    return write_lines(path, lines)


def test_a_time_out_of_range_is_shown_never_a_crash(tmp_path: Path) -> None:
    path = far_past_session(tmp_path / "r" / "far.jsonl")
    inspected = run("inspect", str(path), cwd=tmp_path)
    assert inspected.returncode == 0 and "no price for nobody/no-such-model" in inspected.stdout
    exported = run("export", str(path), str(tmp_path / "far.html"), cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    assert "long ago" in (tmp_path / "far.html").read_text()
    built = run("build", "--root", str(path.parent), "-o", str(tmp_path / "site"), cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "site" / "sessions" / "far.html").is_file()
    stats = run("stats", "--root", str(path.parent), "--json", cwd=tmp_path)
    assert stats.returncode == 0 and json.loads(stats.stdout)["groups"]


def test_build_indexes_a_line_nested_500_deep(tmp_path: Path) -> None:
    path = deep_session(tmp_path / "r" / "deep.jsonl")
    built = run("build", "--root", str(path.parent), "-o", str(tmp_path / "site"), cwd=tmp_path)
    assert built.returncode == 0 and "failed" not in built.stdout + built.stderr, built.stderr
    assert (tmp_path / "site" / "sessions" / "deep.html").is_file()
    found = run("search", "bottomword", "--root", str(path.parent), cwd=tmp_path)
    assert found.returncode == 0 and "deep.jsonl" in found.stdout


def test_links_that_lead_nowhere_are_listed_with_their_reason(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    folder = agent / "sessions" / "--w--"
    good_session(folder / "good.jsonl", "good-one")
    (folder / "loop.jsonl").symlink_to("loop.jsonl")
    (folder / "gone.jsonl").symlink_to("nowhere.jsonl")
    env = {"SESSIONTREE_AGENT_DIR": str(agent), "HOME": str(tmp_path)}
    from tests.cli.test_hostile_inputs import run as run_env

    for args in (["list", "--all"], ["list", "--all", "--root", str(agent / "sessions")]):
        listed = run_env(*args, cwd=tmp_path, env=env)
        assert "Traceback" not in listed.stderr and listed.returncode == 0, listed.stderr
        assert "good-one" in listed.stdout
    built = run("build", "--root", str(agent / "sessions"), "-o", str(tmp_path / "site"), cwd=tmp_path)
    assert "loop.jsonl: unreadable: a symlink loop" in built.stderr
    assert "gone.jsonl: unreadable: it is a link to nothing" in built.stderr
    assert [p.name for p in (tmp_path / "site" / "sessions").rglob("*.html")] == ["good.html"]


@pytest.fixture
def private_folders(stranger_dir: Path) -> dict[str, Path]:  # noqa: F811
    """A root with a good project and two of someone else's: one 0700, one 0744 (listed, not entered)."""
    root = stranger_dir / "agent" / "sessions"
    made = {"good": good_session(root / "--good--" / "good.jsonl", "good-one")}
    for mode in ("700", "744"):
        made[mode] = good_session(root / f"--p{mode}--" / "p.jsonl", f"private-{mode}")
        (root / f"--p{mode}--" / "p").mkdir()  # its session folder: a stat of it is EACCES
    home = stranger_dir / "home"
    give(home)
    restrict(root / "--p700--", 0o700)
    restrict(root / "--p744--", 0o744)
    return made


def test_folders_of_someone_else_never_crash_a_command(private_folders: dict[str, Path]) -> None:
    top = private_folders["good"].parents[3]
    home, root = top / "home", top / "agent" / "sessions"
    env = {"SESSIONTREE_AGENT_DIR": str(top / "agent")}
    listed = run_as_stranger("list", "--all", cwd=home, home=home, env=env)
    assert listed.returncode == 0 and "good-one" in listed.stdout
    for args in (["search", "Atomic", "--root", str(root)], ["stats", "--root", str(root)]):
        result = run_as_stranger(*args, cwd=home, home=home, env=env)
        assert result.returncode == 0, result.stderr
    found = run_as_stranger("search", "Atomic", "--root", str(root), cwd=home, home=home, env=env)
    assert "good.jsonl" in found.stdout
    built = run_as_stranger(
        "build", "--root", str(root), "-o", str(home / "site"), cwd=home, home=home, env=env
    )
    assert built.returncode == 1  # a file it could not read: said, and the status says so
    assert "--p744--/p.jsonl: unreadable: permission denied" in built.stderr
    assert [p.name for p in (home / "site" / "sessions").rglob("*.html")] == ["good.html"]
    for mode in ("700", "744"):
        for command in ("export", "inspect"):
            result = run_as_stranger(command, str(private_folders[mode]), cwd=home, home=home, env=env)
            assert result.returncode == 1
            assert result.stderr.strip() == f"Error: Cannot read {private_folders[mode]}: permission denied"


def test_a_cache_dir_that_cannot_be_made_means_no_cache_said_once(tmp_path: Path) -> None:
    from tests.cli.test_hostile_inputs import run as run_env

    root = tmp_path / "r"
    good_session(root / "good.jsonl", "good-one")
    (tmp_path / "xdg").mkdir()
    blocked = tmp_path / "xdg" / "sessiontree"
    blocked.write_text("a file where the cache dir goes\n")
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path)}
    said = f"Warning: Cannot use the cache dir {blocked} (a file is in its place); working without a cache"
    commands = [
        ["export", str(root / "good.jsonl"), str(tmp_path / "out.html")],
        ["export", str(root / "good.jsonl"), str(tmp_path / "out2.html"), "--cache-dir", str(blocked)],
        ["build", "--root", str(root), "-o", str(tmp_path / "site")],
        ["search", "Atomic", "--root", str(root)],
        ["stats", "--root", str(root)],
    ]
    for args in commands:
        result = run_env(*args, cwd=tmp_path, env=env)
        assert "Traceback" not in result.stderr and result.returncode == 0, (args, result.stderr)
        assert result.stderr.count(said) == 1, (args, result.stderr)
    assert [p.name for p in (tmp_path / "site" / "sessions").rglob("*.html")] == ["good.html"]
    assert blocked.read_text() == "a file where the cache dir goes\n"  # never touched


def test_the_cache_is_readable_by_its_owner_alone(tmp_path: Path) -> None:
    from tests.cli.test_hostile_inputs import run as run_env

    root = tmp_path / "r"
    good_session(root / "good.jsonl", "good-one")
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path)}
    for args in (
        ["export", str(root / "good.jsonl"), str(tmp_path / "o.html")],
        ["search", "x", "--root", str(root)],
    ):
        assert run_env(*args, cwd=tmp_path, env=env).returncode in (0, 1)
    cache = tmp_path / "xdg" / "sessiontree"
    assert cache.stat().st_mode & 0o777 == 0o700
    made = sorted(p.name for p in cache.iterdir())
    assert {"fragments.sqlite", "search.db"} <= set(made)
    for path in cache.iterdir():
        assert path.stat().st_mode & 0o077 == 0, (path, oct(path.stat().st_mode))


PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63f8cfc0f01f0005000201a1d5e2a90000000049454e44ae426082"
)


def blob_session(agent: Path) -> tuple[Path, Path]:
    """A session of ours whose image lives in the agent dir's blob store: (session, blob file)."""
    import hashlib

    digest = hashlib.sha256(PNG).hexdigest()
    blob = agent / "blobs" / digest
    blob.parent.mkdir(parents=True, exist_ok=True)
    blob.write_bytes(PNG)
    image = {"type": "image", "data": f"blob:sha256:{digest}", "mimeType": "image/png"}
    path = write_lines(
        agent / "sessions" / "--w--" / "img.jsonl",
        _chain("with-image", {"role": "user", "content": [{"type": "text", "text": "look"}, image]},
               {"role": "assistant", "content": [{"type": "text", "text": "seen it"}]}),
    )  # fmt: skip
    return path, blob


@pytest.fixture
def stranger_home(stranger_dir: Path) -> Path:  # noqa: F811
    home = stranger_dir / "home"
    give(home)
    return home


def test_an_unreadable_blob_is_named_and_the_session_kept(stranger_home: Path) -> None:
    agent = stranger_home.parent / "agent"
    path, blob = blob_session(agent)
    restrict(blob, 0o600)
    env = {"SESSIONTREE_AGENT_DIR": str(agent)}
    out = stranger_home / "img.html"
    exported = run_as_stranger("export", str(path), str(out), cwd=stranger_home, home=stranger_home, env=env)
    assert exported.returncode == 0 and "seen it" in out.read_text()
    assert f"cannot read the blob {blob}: permission denied" in exported.stderr
    assert str(path) not in exported.stderr  # the blob is blamed, not the session
    site = stranger_home / "site"
    built = run_as_stranger("build", "--root", str(agent / "sessions"), "-o", str(site), cwd=stranger_home,
                            home=stranger_home, env=env)  # fmt: skip
    assert built.returncode == 0, built.stderr
    assert [p.name for p in (site / "sessions").rglob("*.html")] == ["img.html"]


def test_what_a_stranger_cannot_read_or_write_is_one_clear_line(stranger_home: Path) -> None:
    top = stranger_home.parent
    agent = top / "agent"
    path, _ = blob_session(agent)
    artifacts = path.with_suffix("")
    artifacts.mkdir()
    (artifacts / "1.bash.log").write_text("artifact text\n")
    env = {"SESSIONTREE_AGENT_DIR": str(agent)}

    def stranger(*args: str, cwd: Path = stranger_home) -> tuple[int, str]:
        result = run_as_stranger(*args, cwd=cwd, home=stranger_home, env=env)
        return result.returncode, result.stderr.strip()

    read = ("artifact", "artifact://1", "--session", str(path))
    restrict(artifacts, 0o700)
    assert stranger(*read) == (
        1,
        f"Error: Cannot read the artifacts directory {artifacts}: permission denied",
    )
    restrict(artifacts, 0o755)
    restrict(artifacts / "1.bash.log", 0o600)
    assert stranger(*read) == (1, "Error: Cannot read '1.bash.log': permission denied")

    locked = top / "locked"
    locked.mkdir()
    restrict(locked, 0o755)  # someone else's folder: the stranger may look, not write
    code, said = stranger("build", "--root", str(agent / "sessions"), "-o", str(locked / "site"))
    assert (code, said) == (1, f"Error: Cannot write the site folder {locked / 'site'}: permission denied")
    code, said = stranger("share", str(path), "--dry-run", cwd=locked)
    assert code == 1 and said.endswith("permission denied; run --dry-run from a folder you can write to")
    assert said.splitlines()[-1].startswith(f"Error: Cannot write {locked}/")

    day = top / "codex" / "2026" / "01" / "06"
    rollout = day / "rollout-2026-01-06T10-00-00-00000000-0000-4000-8000-000000000001.jsonl"
    day.mkdir(parents=True)
    rollout.write_text(json.dumps({"type": "session_meta", "payload": {"id": "x", "cwd": "/w"}}) + "\n")
    restrict(day, 0o700)
    assert stranger("export", str(rollout)) == (1, f"Error: Cannot read {rollout}: permission denied")
