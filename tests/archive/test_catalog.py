"""The catalog of a sessions folder on real files: layouts, titles, counts, cache, unreadable files."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from sessiontree.archive.catalog import Catalog, group_by_project
from sessiontree.archive.catalog_cache import saved_files
from sessiontree.archive.session_files import iter_session_files
from tests.store.helpers import assistant, entry, header, msg, write_jsonl


def session(path: Path, sid: str, cwd: str, *extra: dict[str, Any], title: str | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    titled: dict[str, Any] = {"title": title} if title else {}
    head = header(sid, cwd=cwd, **titled)
    return write_jsonl(
        path, [head, msg("u1", None, "user", f"prompt of {sid}"), assistant("a1", "u1"), *extra]
    )


def set_mtime(path: Path, when: float) -> None:
    os.utime(path, (when, when))


def snapshot_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def sessions_dir(tmp_path: Path) -> Path:
    root = tmp_path / "sessions"
    session(root / "--work-a--" / "2026-01-01_s1.jsonl", "s1", "/work/a")
    session(root / "--work-a--" / "2026-01-02_s2.jsonl", "s2", "/work/a", title="Named in header")
    session(root / "--work-b--" / "2026-01-03_s3.jsonl", "s3", "/work/b")
    # an oh-my-pi subagent, kept in the parent's session folder
    session(root / "--work-b--" / "2026-01-03_s3" / "0-Explorer.jsonl", "s3a", "/work/b")
    (root / "--work-b--" / "2026-01-03_s3" / "1.bash.log").write_text("artifact")
    set_mtime(root / "--work-a--" / "2026-01-01_s1.jsonl", 1_000_000)
    set_mtime(root / "--work-a--" / "2026-01-02_s2.jsonl", 2_000_000)
    set_mtime(root / "--work-b--" / "2026-01-03_s3.jsonl", 3_000_000)
    set_mtime(root / "--work-b--" / "2026-01-03_s3" / "0-Explorer.jsonl", 2_500_000)
    return root


def test_lists_project_folders_with_subagents_nested(sessions_dir: Path, tmp_path: Path) -> None:
    entries = Catalog(sessions_dir, tmp_path / "cache").scan()
    by_key = {e.key: e for e in entries}
    assert set(by_key) == {
        "--work-a--/2026-01-01_s1.jsonl",
        "--work-a--/2026-01-02_s2.jsonl",
        "--work-b--/2026-01-03_s3.jsonl",
        "--work-b--/2026-01-03_s3/0-Explorer.jsonl",
    }
    assert by_key["--work-b--/2026-01-03_s3/0-Explorer.jsonl"].parent_key == "--work-b--/2026-01-03_s3.jsonl"
    assert by_key["--work-a--/2026-01-02_s2.jsonl"].display_title == "Named in header"
    assert by_key["--work-a--/2026-01-01_s1.jsonl"].display_title == "prompt of s1"
    assert all(e.message_count == 2 for e in entries)
    groups = group_by_project(entries)
    assert [g.cwd for g in groups] == ["/work/b", "/work/a"]
    assert [n.entry.id for n in groups[1].nodes] == ["s2", "s1"]  # newest first
    (parent,) = groups[0].nodes
    assert [c.entry.id for c in parent.children] == ["s3a"]


def test_flat_folder(tmp_path: Path) -> None:
    flat = tmp_path / "flat"
    session(flat / "one.jsonl", "f1", "/x")
    session(flat / "two.jsonl", "f2", "/y")
    keys = sorted(e.key for e in Catalog(flat).scan())
    assert keys == ["one.jsonl", "two.jsonl"]


def test_later_rename_wins_and_counts_follow_growth(tmp_path: Path) -> None:
    path = session(
        tmp_path / "s" / "a.jsonl",
        "s1",
        "/w",
        entry("session_info", "i1", "a1", name="Refactor auth"),
        title="Header title",
    )
    catalog = Catalog(tmp_path / "s", tmp_path / "cache")
    (first,) = catalog.scan()
    assert first.display_title == "Refactor auth" and first.message_count == 2
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(msg("u2", "i1", "user", "more")) + "\n")
        fh.write(json.dumps(entry("title_change", "t1", "u2", title="Newest title", source="user")) + "\n")
        fh.write('{"type":"message","id":"u3"')  # half-written: not counted yet
    (grown,) = catalog.scan()
    assert grown.display_title == "Newest title" and grown.message_count == 3
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(',"parentId":"t1","message":{"role":"user","content":"x"}}\n')
    (done,) = catalog.scan()
    assert done.message_count == 4


def test_lines_in_another_key_order_are_parsed(tmp_path: Path) -> None:
    path = tmp_path / "s" / "a.jsonl"
    path.parent.mkdir()
    lines = [header("s1"), {"id": "u1", "type": "message", "message": {"role": "user", "content": "hi"}}]
    write_jsonl(path, lines)
    (e,) = Catalog(path.parent).scan()
    assert e.message_count == 1


def test_unreadable_and_non_session_files_are_listed(tmp_path: Path) -> None:
    root = tmp_path / "s"
    session(root / "good.jsonl", "g", "/w")
    (root / "notes.jsonl").write_text("just some text\n")
    (root / "empty.jsonl").write_bytes(b"")
    entries = {e.key: e for e in Catalog(root).scan()}
    assert entries["good.jsonl"].error is None
    assert entries["notes.jsonl"].error == "not a session file"
    assert entries["empty.jsonl"].error == "not a session file"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_permission_denied_is_listed(tmp_path: Path) -> None:
    root = tmp_path / "s"
    path = session(root / "secret.jsonl", "g", "/w")
    path.chmod(0)
    try:
        (e,) = Catalog(root).scan()
    finally:
        path.chmod(0o644)
    assert e.error is not None and "permission denied" in e.error


def test_symlinks_leaving_the_root_are_not_listed(tmp_path: Path) -> None:
    root = tmp_path / "s"
    outside = session(tmp_path / "outside" / "o.jsonl", "o", "/w")
    session(root / "in.jsonl", "i", "/w")
    (root / "link.jsonl").symlink_to(outside)
    (root / "linkdir").symlink_to(outside.parent)
    (root / "inner.jsonl").symlink_to(root / "in.jsonl")
    keys = sorted(path.relative_to(root).as_posix() for path, _ in iter_session_files(root))
    assert keys == ["in.jsonl", "inner.jsonl"]


def test_warm_scan_reads_nothing_but_stat(
    sessions_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    cold = Catalog(sessions_dir, cache).scan()
    assert list(cache.iterdir())
    import sessiontree.archive.catalog as catalog_module

    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("a warm scan read a file")

    monkeypatch.setattr(catalog_module, "read_entry", fail)
    warm = Catalog(sessions_dir, cache).scan()
    assert warm == cold


def test_the_cache_is_one_sqlite_file_of_the_users_alone(sessions_dir: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    entries = Catalog(sessions_dir, cache).scan()
    (written,) = cache.iterdir()  # no temp file, journal or backup beside it
    assert written.name.startswith("catalog-") and written.suffix == ".sqlite"
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert sorted(saved_files(written)) == sorted(e.key for e in entries)


def test_changed_file_is_read_again(sessions_dir: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    Catalog(sessions_dir, cache).scan()
    path = sessions_dir / "--work-a--" / "2026-01-01_s1.jsonl"
    session(path, "s1", "/work/a", title="Renamed by rewrite")
    entries = {e.key: e for e in Catalog(sessions_dir, cache).scan()}
    assert entries["--work-a--/2026-01-01_s1.jsonl"].display_title == "Renamed by rewrite"


def test_a_save_after_one_change_writes_what_a_fresh_catalog_writes(
    sessions_dir: Path, tmp_path: Path
) -> None:
    # Each record's JSON is kept from the last save: the one that changed is made again, and the
    # file is the same as a catalog that never saved before writes.
    catalog = Catalog(sessions_dir, tmp_path / "cache")
    catalog.scan()
    path = sessions_dir / "--work-a--" / "2026-01-01_s1.jsonl"
    session(path, "s1", "/work/a", title="Renamed by rewrite")
    catalog.scan()
    fresh = Catalog(sessions_dir, tmp_path / "fresh")
    fresh.scan()
    (kept,), (made,) = (tmp_path / "cache").iterdir(), (tmp_path / "fresh").iterdir()
    saved = saved_files(kept)
    assert saved == saved_files(made)
    assert saved["--work-a--/2026-01-01_s1.jsonl"]["entry"]["title"] == "Renamed by rewrite"
    # A catalog loaded from that cache writes the records it read as they were, the changed one anew.
    session(path, "s1", "/work/a", title="Renamed twice")
    Catalog(sessions_dir, tmp_path / "cache").scan()
    Catalog(sessions_dir, tmp_path / "fresh-2").scan()
    (made,) = (tmp_path / "fresh-2").iterdir()
    saved = saved_files(kept)
    assert saved == saved_files(made)
    assert saved["--work-a--/2026-01-01_s1.jsonl"]["entry"]["title"] == "Renamed twice"


def test_damaged_cache_is_rebuilt(sessions_dir: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    Catalog(sessions_dir, cache).scan()
    (cache_file,) = cache.iterdir()
    cache_file.write_text("{not json")
    assert len(Catalog(sessions_dir, cache).scan()) == 4


def test_never_writes_into_the_listed_folder(sessions_dir: Path, tmp_path: Path) -> None:
    before = snapshot_bytes(sessions_dir)
    catalog = Catalog(sessions_dir, tmp_path / "cache")
    catalog.scan()
    catalog.scan()
    assert snapshot_bytes(sessions_dir) == before


def test_removed_file_leaves_the_listing(sessions_dir: Path) -> None:
    catalog = Catalog(sessions_dir)
    assert len(catalog.scan()) == 4
    (sessions_dir / "--work-a--" / "2026-01-01_s1.jsonl").unlink()
    assert len(catalog.scan()) == 3


def test_live_flag(sessions_dir: Path) -> None:
    (e, *_) = Catalog(sessions_dir).scan()
    assert e.is_live(e.modified + 10)
    assert not e.is_live(e.modified + 61)


def test_missing_root_lists_nothing(tmp_path: Path) -> None:
    assert Catalog(tmp_path / "nope").scan() == []


def _title_slot(title: str) -> str:
    slot = {
        "type": "title",
        "v": 1,
        "title": title,
        "source": "auto",
        "updatedAt": "2026-03-01T10:00:00.000Z",
        "pad": "",
    }
    slot["pad"] = " " * (255 - len(json.dumps(slot, separators=(",", ":"))))
    line = json.dumps(slot, separators=(",", ":"))
    assert len(line) == 255
    return line + "\n"


def test_oh_my_pi_title_slot_and_its_rewrite_in_place(tmp_path: Path) -> None:
    root = tmp_path / "s"
    root.mkdir()
    path = root / "omp.jsonl"
    body = json.dumps(header("omp1")) + "\n" + json.dumps(msg("u1", None, "user", "first prompt")) + "\n"
    path.write_text(_title_slot("Fix the widget") + body)
    catalog = Catalog(root, tmp_path / "cache")
    (first,) = catalog.scan()
    assert first.display_title == "Fix the widget" and first.message_count == 1
    size = path.stat().st_size
    with open(path, "r+", encoding="utf-8") as fh:
        fh.write(_title_slot("Renamed in place"))
    os.utime(path, (first.modified + 5, first.modified + 5))
    assert path.stat().st_size == size
    (renamed,) = catalog.scan()
    assert renamed.display_title == "Renamed in place" and renamed.message_count == 1


def test_what_cannot_be_read_is_listed_with_its_reason(tmp_path: Path) -> None:
    root = tmp_path / "s"
    session(root / "good.jsonl", "g", "/w")
    os.mkfifo(root / "pipe.jsonl")  # never opened: a read would wait for a writer
    session(root / "folder.jsonl" / "inside.jsonl", "i", "/w")  # a folder named like a session
    (root / "gone.jsonl").symlink_to("nowhere.jsonl")
    (root / "loop.jsonl").symlink_to("loop.jsonl")  # ELOOP from DirEntry.is_file, once a traceback
    entries = {e.key: e for e in Catalog(root).scan()}
    assert entries["good.jsonl"].error is None
    assert entries["pipe.jsonl"].error == "unreadable: it is a named pipe"
    assert entries["folder.jsonl"].error == "unreadable: it is a directory"
    assert entries["gone.jsonl"].error == "unreadable: it is a link to nothing"
    assert entries["loop.jsonl"].error == "unreadable: a symlink loop"
    assert entries["folder.jsonl/inside.jsonl"].error is None  # its sessions are still listed


def test_file_names_that_are_not_utf8_are_listed_and_cached(tmp_path: Path) -> None:
    root = tmp_path / "s"
    root.mkdir()
    odd = [b"bad-\xff.jsonl", b"proj-\xfe/in.jsonl", b"new\nline.jsonl", b"%2e%2e.jsonl"]
    for name in odd:
        path = Path(os.fsdecode(bytes(root) + b"/" + name))
        session(path, name.hex(), "/w")
    cache = tmp_path / "cache"
    first = Catalog(root, cache).scan()
    assert sorted(os.fsencode(e.key) for e in first) == sorted(odd)
    assert all(e.error is None and e.message_count == 2 for e in first)
    assert Catalog(root, cache).entries() == first  # read back from the cache as they were


def test_what_cannot_be_read_in_a_claude_code_folder_is_listed_with_its_reason(tmp_path: Path) -> None:
    real = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "claude"
    project = tmp_path / "projects" / "-work-demo"
    project.mkdir(parents=True)
    good = next(real.glob("*.jsonl"))
    (project / "good.jsonl").write_bytes(good.read_bytes())
    os.mkfifo(project / "pipe.jsonl")
    entries = {e.key: e for e in Catalog(tmp_path / "projects").scan()}
    assert (
        entries["-work-demo/good.jsonl"].agent == "claude" and entries["-work-demo/good.jsonl"].error is None
    )
    assert entries["-work-demo/pipe.jsonl"].error == "unreadable: it is a named pipe"


CLAUDE_BIG = (
    "claude/claude-code-log--test_test_data_real_projects_-Users-dain-workspace-claude-code-log-sample_"
    "0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl"
)


def test_prefix_listing_leaves_large_counts_pending_until_settled(tmp_path: Path) -> None:
    """``scan(exact=False)`` lists a large file from its prefix (count pending, header title);
    ``read_exact`` + ``settle`` give exactly what the exact scan gives, and the cache keeps it."""
    from sessiontree.store.entries import message_of
    from tests.conftest import real_file

    root = tmp_path / "s"
    big = root / "--w--" / "big.jsonl"
    lines = [msg(f"u{n}", None, "user", "words " * 400) for n in range(60)]  # ~150 KB: past the cheap size
    session(big, "s1", "/w", *lines, entry("session_info", "i1", "u59", name="Named late"), title="Head")
    small = session(root / "--w--" / "small.jsonl", "s2", "/w")
    claude = root / "claude.jsonl"
    claude.write_bytes(real_file(CLAUDE_BIG).read_bytes())  # a Claude Code file past the whole-read size

    quick = Catalog(root, tmp_path / "cache")
    by_key = {e.key: e for e in quick.scan(exact=False)}
    assert by_key["--w--/big.jsonl"].pending and by_key["--w--/big.jsonl"].message_count is None
    assert by_key["--w--/big.jsonl"].display_title == "Head"
    assert by_key["claude.jsonl"].pending
    assert not by_key["--w--/small.jsonl"].pending and by_key["--w--/small.jsonl"].message_count == 2
    assert set(quick.pending()) == {"--w--/big.jsonl", "claude.jsonl"}
    assert small.exists()

    for key in quick.pending():
        done = quick.read_exact(key)
        assert done is not None
        quick.settle(key, done)
    assert quick.pending() == []
    quick.save()
    exact = {e.key: e for e in Catalog(root).scan()}  # no cache: every file read whole
    assert {e.key: e for e in quick.entries()} == exact
    assert (
        exact["--w--/big.jsonl"].display_title == "Named late"
        and exact["--w--/big.jsonl"].message_count == 62
    )
    from sessiontree.readers import load_any

    claude_count = sum(1 for e in load_any(claude, "claude").entries if message_of(e) is not None)
    assert exact["claude.jsonl"].message_count == claude_count
    # Warm: the cache holds the settled records; a quick scan reads nothing and leaves none pending.
    warm = Catalog(root, tmp_path / "cache")
    assert {e.key: e for e in warm.scan(exact=False)} == exact and warm.pending() == []


def test_exact_scan_reads_what_a_quick_scan_left_pending(tmp_path: Path) -> None:
    root = tmp_path / "s"
    lines = [msg(f"u{n}", None, "user", "words " * 400) for n in range(40)]
    session(root / "big.jsonl", "s1", "/w", *lines)
    Catalog(root, tmp_path / "cache").scan(exact=False)
    (entry_,) = Catalog(root, tmp_path / "cache").scan()  # e.g. build after serve: pending ones read whole
    assert entry_.message_count == 42 and not entry_.pending


def test_a_listing_counts_typed_prompts_as_the_page_does(tmp_path: Path) -> None:
    """Issue 44: each row says its typed prompts; a file that grows is counted from where it was."""
    import shutil

    from tests.conftest import real_file

    root = tmp_path / "sessions"
    path = session(
        root / "--w--" / "s.jsonl", "s", "/w", msg("u2", "a1", "user", "and then?"), assistant("a2", "u2")
    )
    claude = root / "claude" / "cb2e607c-c758-415a-8b45-c49e4631906a.jsonl"
    claude.parent.mkdir()
    name = (
        "claude/claude-code-log--test_test_data_real_projects_-Users-dain-workspace-coderabbit-review-helper_"
    )
    shutil.copyfile(real_file(name + "cb2e607c-c758-415a-8b45-c49e4631906a.jsonl"), claude)
    catalog = Catalog(root, tmp_path / "cache")
    by_key = {e.key: e for e in catalog.scan()}
    assert by_key["--w--/s.jsonl"].prompt_count == 2
    assert by_key["claude/cb2e607c-c758-415a-8b45-c49e4631906a.jsonl"].prompt_count == 5  # the outline's 5
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(msg("u3", "a2", "user", "one more")) + "\n")
    assert {e.key: e for e in catalog.scan()}["--w--/s.jsonl"].prompt_count == 3


def test_usage_rows_a_cache_carries_go_to_the_store_and_out_of_the_cache(tmp_path: Path) -> None:
    from sessiontree.archive.collection import Sources
    from tests.archive.test_usage import build_archive

    roots, cache = tmp_path / "roots", tmp_path / "cache"
    build_archive(roots)
    Catalog(roots, cache).scan()  # no usage store (a build's): the rows are kept in the cache
    (cache_file,) = cache.glob("catalog-*.sqlite")
    assert any(v["scan"] and v["scan"]["usage"] for v in saved_files(cache_file).values())
    served = Sources([roots], cache, usage_store=True)
    served.scan()
    assert served.catalogs[0].changes == 0  # the records of the cache, no file read again
    assert served.usage_records()  # the rows the cache carried, in the store
    assert all(not v["scan"] or v["scan"]["usage"] == [] for v in saved_files(cache_file).values())
    assert served.usage_db is not None
    served.usage_db.close()
