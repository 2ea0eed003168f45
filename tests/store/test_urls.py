"""artifact:// and agent:// resolution on a real artifact directory."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from sessiontree.errors import ArtifactError
from sessiontree.store.artifacts import AgentOutputManager, ArtifactManager
from sessiontree.store.urls import parse_internal_url, resolve_internal_url

REPORT: dict[str, Any] = {
    "summary": "done",
    "files": [{"path": "a.py", "lines": 3}, {"path": "b y.py", "lines": 9}],
    "n": 2,
}


@pytest.fixture
def art(tmp_path: Path) -> Path:
    """An artifact dir with two tool outputs and three agent outputs, one of them JSON."""
    directory = tmp_path / "2026_sess"
    artifacts = ArtifactManager(directory)
    artifacts.save("bash", "".join(f"bash line {i}\n" for i in range(1, 11)))
    artifacts.save("python", "py out\n")
    agents = AgentOutputManager(directory)
    agents.write("Explorer", "# Explorer\n\nfound *it*\n")
    agents.write("Json", json.dumps(REPORT))
    AgentOutputManager(directory, parent_prefix="0-Explorer").write("Child", "child text\n")
    return directory


def test_artifact_reads_text_plain(art: Path) -> None:
    res = resolve_internal_url("artifact://1", art)
    assert res.content == "py out\n"
    assert res.content_type == "text/plain"
    assert res.path == (art / "1.python.log").resolve()


def test_artifact_leading_zeros_name_the_same_id(art: Path) -> None:
    assert resolve_internal_url("artifact://0001", art).content == "py out\n"


def test_artifact_prefix_match_does_not_confuse_1_and_10(art: Path) -> None:
    manager = ArtifactManager(art)
    for i in range(2, 11):
        manager.save("bash", f"out {i}\n")
    assert resolve_internal_url("artifact://10", art).content == "out 10\n"
    assert resolve_internal_url("artifact://1", art).content == "py out\n"


def test_missing_artifact_lists_available_ids(art: Path) -> None:
    with pytest.raises(ArtifactError, match=r"^Not found: 7\. Available artifact ids: 0, 1$"):
        resolve_internal_url("artifact://7", art)


def test_missing_artifact_in_empty_dir_says_none(tmp_path: Path) -> None:
    with pytest.raises(ArtifactError, match="Available artifact ids: none"):
        resolve_internal_url("artifact://0", tmp_path)


@pytest.mark.parametrize("url", ["artifact://0", "agent://0-Explorer"])
def test_no_directory(tmp_path: Path, url: str) -> None:
    for directory in (None, tmp_path / "missing", tmp_path / "file.txt"):
        if directory is not None and directory.name == "file.txt":
            directory.write_text("not a dir")
        with pytest.raises(ArtifactError, match=r"^No artifacts directory found$"):
            resolve_internal_url(url, directory)


@pytest.mark.parametrize("ident", ["abc", "1a", "-1", "1.5", "١٢", "１", "1 ", " 1", "0x1"])
def test_artifact_ids_must_be_ascii_numbers(art: Path, ident: str) -> None:
    with pytest.raises(ArtifactError, match="Invalid artifact id"):
        resolve_internal_url(f"artifact://{ident}", art)


@pytest.mark.parametrize("url", ["artifact://0/x", "artifact://0?q=.a", "artifact://0/"])
def test_artifact_takes_no_path_or_query(art: Path, url: str) -> None:
    with pytest.raises(ArtifactError, match="take no path or query"):
        resolve_internal_url(url, art)


def test_agent_plain_read_is_markdown(art: Path) -> None:
    res = resolve_internal_url("agent://0-Explorer", art)
    assert res.content == "# Explorer\n\nfound *it*\n"
    assert res.content_type == "text/markdown"


def test_agent_nested_id(art: Path) -> None:
    assert resolve_internal_url("agent://0-Explorer.0-Child", art).content == "child text\n"


def test_agent_not_found_lists_ids(art: Path) -> None:
    with pytest.raises(ArtifactError) as info:
        resolve_internal_url("agent://9-Nope", art)
    assert str(info.value) == "Not found: 9-Nope. Available: 0-Explorer, 0-Explorer.0-Child, 1-Json"


def test_agent_path_extraction(art: Path) -> None:
    res = resolve_internal_url("agent://1-Json/files/1/path", art)
    assert json.loads(res.content) == "b y.py"
    assert res.content_type == "application/json"
    assert json.loads(resolve_internal_url("agent://1-Json/files/0", art).content) == REPORT["files"][0]


def test_agent_path_segments_are_percent_decoded(tmp_path: Path) -> None:
    AgentOutputManager(tmp_path).write("J", json.dumps({"a b": {"c/d": 5}}))
    assert resolve_internal_url("agent://0-J/a%20b/c%2Fd", tmp_path).content == "5\n"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (".summary", "done"),
        ("summary", "done"),
        (".files[1].lines", 9),
        (".files[-1].path", "b y.py"),
        ('.["n"]', 2),
        (".", REPORT),
        ("", REPORT),
    ],
)
def test_agent_query_extraction(art: Path, query: str, expected: object) -> None:
    from urllib.parse import quote

    res = resolve_internal_url(f"agent://1-Json?q={quote(query)}", art)
    assert json.loads(res.content) == expected


@pytest.mark.parametrize(
    "url", ["agent://1-Json/missing", "agent://1-Json?q=.files[5]", "agent://1-Json/n/x"]
)
def test_extraction_of_a_missing_value(art: Path, url: str) -> None:
    with pytest.raises(ArtifactError, match="No value at"):
        resolve_internal_url(url, art)


@pytest.mark.parametrize("query", [".a..b", ".files[", "files]", ".a[x]", "!"])
def test_invalid_query_syntax(art: Path, query: str) -> None:
    from urllib.parse import quote

    with pytest.raises(ArtifactError, match="Invalid query"):
        resolve_internal_url(f"agent://1-Json?q={quote(query)}", art)


def test_path_and_query_cannot_be_combined(art: Path) -> None:
    with pytest.raises(ArtifactError, match="cannot be combined"):
        resolve_internal_url("agent://1-Json/files?q=.summary", art)


@pytest.mark.parametrize("url", ["agent://1-Json?x=1", "agent://1-Json?q=.a&q=.b", "agent://1-Json?q=.a&z=2"])
def test_only_one_q_parameter(art: Path, url: str) -> None:
    with pytest.raises(ArtifactError, match=r"Unsupported query|Invalid query string"):
        resolve_internal_url(url, art)


@pytest.mark.parametrize("url", ["agent://0-Explorer/x", "agent://0-Explorer?q=.x"])
def test_extraction_requires_json(art: Path, url: str) -> None:
    with pytest.raises(ArtifactError, match="is not JSON"):
        resolve_internal_url(url, art)


def test_paging_by_line(art: Path) -> None:
    res = resolve_internal_url("artifact://0", art, offset=3, limit=2)
    assert res.content == "bash line 3\nbash line 4\n"
    assert res.total_lines == 10
    assert resolve_internal_url("artifact://0", art, offset=9).content == "bash line 9\nbash line 10\n"
    assert resolve_internal_url("artifact://0", art, limit=1).content == "bash line 1\n"
    assert resolve_internal_url("agent://0-Explorer", art, offset=3).content == "found *it*\n"


def test_paging_past_the_end(art: Path) -> None:
    with pytest.raises(ArtifactError, match=r"Offset 11 is past the end of artifact://0 \(10 lines\)"):
        resolve_internal_url("artifact://0", art, offset=11)
    with pytest.raises(ArtifactError, match=r"Offset 500 is past the end of artifact://0 \(10 lines\)"):
        resolve_internal_url("artifact://0", art, offset=500, limit=3)


@pytest.mark.parametrize(("offset", "limit"), [(0, None), (None, 0), (-1, 5)])
def test_paging_values_must_be_positive(art: Path, offset: int | None, limit: int | None) -> None:
    with pytest.raises(ArtifactError, match="must be 1 or more"):
        resolve_internal_url("artifact://0", art, offset=offset, limit=limit)


@pytest.mark.parametrize(("offset", "limit"), [(1, None), (None, 1), (2, 2)])
def test_paging_is_rejected_with_extraction(art: Path, offset: int | None, limit: int | None) -> None:
    with pytest.raises(ArtifactError, match="cannot be used with agent:// extraction"):
        resolve_internal_url("agent://1-Json/summary", art, offset=offset, limit=limit)


@pytest.mark.parametrize(
    "url",
    [
        "agent://..",
        "agent://../secret",
        "agent://..%2Fsecret",
        "agent://0-Explorer%2F..%2F..%2Fsecret",
        "agent://%2e%2e",
        "agent:///etc/passwd",
        "agent://.hidden",
        "agent://a..b",
        "agent://a\\..\\b",
        "agent://a\x00b",
        "artifact://..",
        "artifact://../0",
        "artifact:///etc/passwd",
        "artifact://0%2F..%2F..",
        "artifact://%30",
    ],
)
def test_ids_that_leave_the_directory_are_refused(art: Path, url: str) -> None:
    secret = art.parent / "secret.md"
    secret.write_text("SECRET")
    with pytest.raises(ArtifactError) as info:
        resolve_internal_url(url, art)
    assert "SECRET" not in str(info.value)
    assert "\n" not in str(info.value)


def test_symlink_pointing_out_is_refused(art: Path) -> None:
    outside = art.parent / "outside.txt"
    outside.write_text("SECRET")
    os.symlink(outside, art / "5.bash.log")
    os.symlink(outside, art / "9-Link.md")
    with pytest.raises(ArtifactError, match="points outside the artifacts directory"):
        resolve_internal_url("artifact://5", art)
    with pytest.raises(ArtifactError, match="points outside the artifacts directory"):
        resolve_internal_url("agent://9-Link", art)


def test_symlink_inside_the_directory_is_fine(art: Path) -> None:
    os.symlink(art / "1.python.log", art / "6.bash.log")
    assert resolve_internal_url("artifact://6", art).content == "py out\n"


def test_symlinked_artifact_directory_itself_is_followed(art: Path, tmp_path: Path) -> None:
    link = tmp_path / "linked"
    os.symlink(art, link)
    assert resolve_internal_url("artifact://1", link).content == "py out\n"


def test_broken_link_and_directories_are_refused(art: Path) -> None:
    os.symlink(art / "nowhere", art / "3.bash.log")
    (art / "4.dir.log").mkdir()
    with pytest.raises(ArtifactError, match="missing or a broken link"):
        resolve_internal_url("artifact://3", art)
    with pytest.raises(ArtifactError, match="not a regular file"):
        resolve_internal_url("artifact://4", art)


@pytest.mark.parametrize(
    "url", ["http://x", "file:///etc/passwd", "artifact:0", "blob:sha256:abc", "", "agent://"]
)
def test_unsupported_or_empty_urls(url: str) -> None:
    with pytest.raises(ArtifactError, match=r"Unsupported URL|Missing id"):
        parse_internal_url(url)


def test_scheme_is_case_insensitive(art: Path) -> None:
    assert resolve_internal_url("ARTIFACT://1", art).content == "py out\n"


def test_read_does_not_modify_files(art: Path) -> None:
    before = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in art.iterdir()}
    resolve_internal_url("artifact://0", art, offset=2, limit=3)
    resolve_internal_url("agent://1-Json?q=.files", art)
    after = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in art.iterdir()}
    assert before == after


def test_non_utf8_artifact_is_read_with_replacement(tmp_path: Path) -> None:
    (tmp_path / "0.bash.log").write_bytes(b"ok \xff\n")
    assert resolve_internal_url("artifact://0", tmp_path).content == "ok \ufffd\n"


def test_artifact_file_with_leading_zeros_is_found_by_its_number(tmp_path: Path) -> None:
    (tmp_path / "007.bash.log").write_text("seven\n")
    assert resolve_internal_url("artifact://7", tmp_path).content == "seven\n"
    with pytest.raises(ArtifactError, match=r"Available artifact ids: 7$"):
        resolve_internal_url("artifact://8", tmp_path)


def test_hostile_file_names_do_not_reach_error_messages(tmp_path: Path) -> None:
    (tmp_path / "0-ok.md").write_text("ok")
    (tmp_path / "evil\x1b[2J.md").write_text("x")
    os.symlink(tmp_path / "missing", tmp_path / "3.\x1b]0;t\x07.log")
    with pytest.raises(ArtifactError) as info:
        resolve_internal_url("agent://9-x", tmp_path)
    assert str(info.value) == "Not found: 9-x. Available: 0-ok"
    with pytest.raises(ArtifactError, match="broken link") as info:
        resolve_internal_url("artifact://3", tmp_path)
    assert "\x1b" not in str(info.value)
