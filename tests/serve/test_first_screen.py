"""serve's first screen from a quick scan equals the one made from the whole load, or is not made."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessiontree.exporter.api import render_identity_shell, render_shell
from sessiontree.exporter.options import RenderOptions
from sessiontree.exporter.preview import render_preview
from sessiontree.serve.first_screen import FirstScreen, first_screen
from sessiontree.store.load import load_session
from sessiontree.store.quick_scan import scan_session
from tests.conftest import REAL, ROOT, GenSession
from tests.store.helpers import assistant, entry, header, msg, write_jsonl

FIXTURES = ROOT / "tests" / "fixtures"
REAL_FILES = sorted(p.relative_to(REAL).as_posix() for p in REAL.rglob("*.jsonl"))
BUNDLED = sorted(p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*.jsonl"))
QUICK_REAL = {
    *("pi/dexter-v3--pi-session.jsonl", "pi/kimchi-dev--session.jsonl", "pi/kimchi-dev--statsuline.jsonl"),
    "pi/paradocs--session.jsonl",
}
"""Real files the scan must read itself (current-version pi files; the others may fall back)."""


def screen(path: Path, leaf_id: str | None = None, target_id: str | None = None) -> FirstScreen | None:
    return first_screen(path, agent_dir=None, leaf_id=leaf_id, target_id=target_id, related=None)


def assert_same_as_whole_load(path: Path, leaf_id: str | None = None, target_id: str | None = None) -> bool:
    """Compare the quick first screen with the whole load's; tell whether the scan applied."""
    quick = screen(path, leaf_id, target_id)
    if quick is None:
        return False
    whole = load_session(path)
    shell = render_shell(whole)
    identity = render_identity_shell(whole, whole.session_init(whole.leaf_id), whole.leaf_id, RenderOptions())
    assert quick.preview == render_preview(whole, leaf_id=leaf_id, target_id=target_id)
    assert quick.shell.title == shell.title
    assert quick.shell.system_html == shell.system_html
    assert quick.shell.leaf_id == shell.leaf_id
    assert quick.shell.header_html == identity.header_html
    return True


@pytest.mark.parametrize("name", REAL_FILES)
def test_real_files_first_screen_is_the_whole_loads(name: str) -> None:
    applied = assert_same_as_whole_load(REAL / name)
    assert applied or name not in QUICK_REAL


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_fixtures_first_screen_is_the_whole_loads(name: str) -> None:
    assert_same_as_whole_load(FIXTURES / name)


def test_a_generated_session_is_scanned_and_its_links_open_where_the_whole_load_does(
    gen_session: GenSession,
) -> None:
    path = gen_session(60)
    assert assert_same_as_whole_load(path)
    ids = [json.loads(line).get("id") for line in path.read_text().splitlines()[1:]]
    for target in (ids[len(ids) // 2], ids[-3], "no-such-id"):
        assert assert_same_as_whole_load(path, leaf_id=ids[-1], target_id=target)
    # The preview of a target deep in the path starts near it, not at the session's start.
    found = screen(path, target_id=ids[len(ids) // 2])
    assert found is not None and f'data-id="{ids[len(ids) // 2]}"' in found.preview


def branched(path: Path, *tail: dict[str, object] | str) -> Path:
    """A session with two branches (the leaf on the second), a label, a compaction and a name."""
    return write_jsonl(
        path,
        [
            header("branchy0001"),
            entry("session_init", "i1", None, systemPrompt="Be brief.", tools=["read", "bash"]),
            msg("u1", "i1", "user", "first question"),
            assistant("a1", "u1", "first answer"),
            msg("u2", "a1", "user", "the branch left behind"),
            assistant("a2", "u2", "old answer"),
            entry("label", "l1", "a2", targetId="u1", label="start here"),
            msg("u3", "a1", "user", "the branch taken"),
            entry("compaction", "c1", "u3", summary="Summary of the talk so far", firstKeptEntryId="u3"),
            assistant("a3", "c1", "new answer"),
            entry("session_info", "n1", "a3", name="A named session"),
            *tail,
        ],
    )


def test_branches_labels_and_a_moved_leaf(tmp_path: Path) -> None:
    path = branched(tmp_path / "s.jsonl")
    assert assert_same_as_whole_load(path)
    quick = screen(path)
    assert quick is not None
    assert "the branch taken" in quick.preview and "the branch left behind" not in quick.preview
    assert quick.shell.title == "A named session" and "Be brief." in quick.shell.system_html
    # A link to the other branch's leaf opens that branch.
    assert assert_same_as_whole_load(path, leaf_id="a2")
    other = screen(path, leaf_id="a2")
    assert other is not None and "the branch left behind" in other.preview
    # The leaf moved back to the first branch (a new entry under a2): the scan follows it.
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(msg("u4", "a2", "user", "back on the old branch")) + "\n")
    assert assert_same_as_whole_load(path)
    moved = screen(path)
    assert moved is not None and "back on the old branch" in moved.preview


def test_a_half_written_last_line_is_left_as_the_load_leaves_it(tmp_path: Path) -> None:
    path = branched(tmp_path / "s.jsonl", '{"type":"message","id":"half","parentId":"n1","mess')
    path.write_text(path.read_text().rstrip("\n"))  # the last line still being written
    assert scan_session(path) is not None
    assert assert_same_as_whole_load(path)


def test_a_damaged_line_falls_back_to_the_whole_load(tmp_path: Path) -> None:
    path = branched(tmp_path / "s.jsonl")
    lines = path.read_text().splitlines()
    lines.insert(5, "{this is not json}")
    path.write_text("\n".join(lines) + "\n")
    assert scan_session(path) is None
    assert screen(path) is None  # the page is made from the whole load, which shows what it reads
    glued = branched(tmp_path / "g.jsonl")
    text = glued.read_text().splitlines()
    text[3] = text[3] + text[4]  # two entries with no newline between them
    del text[4]
    glued.write_text("\n".join(text) + "\n")
    assert scan_session(glued) is None
    cut = branched(tmp_path / "c.jsonl")
    text = cut.read_text().splitlines()
    text[3] = text[3][:60]  # a line cut short mid-file that starts as an entry does
    cut.write_text("\n".join(text) + "\n")
    assert scan_session(cut) is None


@pytest.mark.parametrize(
    "lines",
    [
        [header("v1", version=None), msg("u1", None, "user", "old format")],  # migrated on load
        [msg("u1", None, "user", "no header")],  # a header synthesised on load
        [header("orph"), msg("u1", "lost", "user", "parent not in the file")],  # reattached on load
        [header("dup"), msg("u1", None, "user", "a"), msg("u1", None, "user", "b")],  # one id twice
    ],
)
def test_what_the_load_repairs_or_migrates_is_not_scanned(tmp_path: Path, lines: list[object]) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", lines)
    assert screen(path) is None


def test_a_second_visit_takes_the_kept_screen_until_the_file_changes(tmp_path: Path) -> None:
    path = branched(tmp_path / "s.jsonl")
    first = screen(path)
    assert first is not None and screen(path) is first
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(msg("u5", "n1", "user", "one more")) + "\n")
    again = screen(path)
    assert again is not None and again is not first and "one more" in again.preview


def test_an_id_given_twice_is_the_last_lines_entry_as_in_the_whole_load(
    gen_session: GenSession, tmp_path: Path
) -> None:
    lines = gen_session(100).read_text().splitlines()
    entries = [json.loads(line) for line in lines[1:]]
    assert len(entries) > 600
    late = dict(entries[550], parentId=entries[10]["id"])  # given again, under an earlier entry
    path = tmp_path / "dup.jsonl"
    path.write_text(
        "\n".join([*lines, json.dumps(late), json.dumps(msg("u9", late["id"], "user", "z"))]) + "\n"
    )
    assert assert_same_as_whole_load(path)
    quick = screen(path)
    assert quick is not None and 'data-id="u9"' in quick.preview  # the short path through the moved entry
    early = tmp_path / "early.jsonl"
    early.write_text("\n".join([*lines, json.dumps(entries[3])]) + "\n")
    assert screen(early) is None
    # Given again under its own descendant: a cycle, which the entry tree cuts at its earliest entry.
    looped = tmp_path / "loop.jsonl"
    cycle = dict(entries[550], parentId=entries[600]["id"])
    looped.write_text("\n".join([*lines, json.dumps(cycle)]) + "\n")
    assert assert_same_as_whole_load(looped)
    assert load_session(looped).tree.parent_of(cycle["id"]) is None  # it was a cycle, and cut there
