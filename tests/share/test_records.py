"""The record of shares (shares.jsonl) and unshare through gh and through the API."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sessiontree.errors import ShareError
from sessiontree.share.gist import gist_id_from_url
from sessiontree.share.records import (
    ShareRecord,
    append_record,
    find_record,
    read_records,
    shares_path,
    update_records,
)
from sessiontree.share.unshare import unshare
from tests.share.conftest import FakeGh
from tests.share.github_server import serve_github

GIST_A = "0123456789abcdef0123456789abcdef"
GIST_B = "fedcba9876543210fedcba9876543210"


def record(gist_id: str | None, backend: str = "gh", **kw: str) -> ShareRecord:
    return ShareRecord(
        time=kw.get("time", "2026-02-16T10:00:00Z"),
        session="/home/dev/s.jsonl",
        url=f"https://gistpreview.github.io/?{gist_id}" if gist_id else kw.get("url"),
        backend=backend,
        gist_id=gist_id,
        gist_url=f"https://gist.github.com/tester/{gist_id}" if gist_id else None,
    )


def test_append_writes_one_line_per_record_and_reads_back(isolated_agent_dir: Path) -> None:
    assert read_records(isolated_agent_dir) == []
    append_record(isolated_agent_dir, record(GIST_A))
    append_record(isolated_agent_dir, record(None, "handler:share.py", url="https://x.test/1"))
    lines = shares_path(isolated_agent_dir).read_text().splitlines()
    assert len(lines) == 2
    assert json.loads(lines[0])["gist_id"] == GIST_A
    assert read_records(isolated_agent_dir) == [
        record(GIST_A),
        record(None, "handler:share.py", url="https://x.test/1"),
    ]
    assert oct(os.stat(shares_path(isolated_agent_dir)).st_mode & 0o777) == "0o600"


def test_bad_lines_are_skipped_and_unknown_keys_kept(isolated_agent_dir: Path) -> None:
    isolated_agent_dir.mkdir(parents=True)
    line = {**json.loads(record(GIST_A).to_json()), "note": "from a newer version"}
    shares_path(isolated_agent_dir).write_text("garbage\n" + json.dumps(line) + '\n{"half": \n')
    [kept] = read_records(isolated_agent_dir)
    assert kept.gist_id == GIST_A and kept.extra == {"note": "from a newer version"}
    update_records(isolated_agent_dir, lambda rs: None)
    assert json.loads(shares_path(isolated_agent_dir).read_text())["note"] == "from a newer version"


def test_find_by_id_gist_url_preview_url_and_short_url() -> None:
    records = [record(GIST_A), record(GIST_B)]
    for ref in (
        GIST_B,
        f"https://gist.github.com/tester/{GIST_B}",
        f"https://gist.github.com/{GIST_B}",
        f"https://gistpreview.github.io/?{GIST_B}",
        f"https://gistpreview.github.io/?{GIST_B}/",
    ):
        assert find_record(records, ref, gist_id_from_url(ref)).gist_id == GIST_B, ref
    with pytest.raises(ShareError, match=r"No share recorded for nope: run 'sessiontree shares'"):
        find_record(records, "nope", gist_id_from_url("nope"))


def test_unshare_with_gh_deletes_and_marks_atomically(isolated_agent_dir: Path, fake_gh: FakeGh) -> None:
    append_record(isolated_agent_dir, record(GIST_A))
    append_record(isolated_agent_dir, record(GIST_B))
    outcome = unshare(isolated_agent_dir, f"https://gistpreview.github.io/?{GIST_A}")
    assert fake_gh.calls() == [["gist", "delete", GIST_A, "--yes"]]
    assert not outcome.already_gone
    first, second = read_records(isolated_agent_dir)
    assert first.deleted is not None and first.deleted == outcome.record.deleted
    assert second.deleted is None
    # No temp file of the rewrite is left beside the record.
    assert sorted(p.name for p in isolated_agent_dir.iterdir()) == [".shares.lock", "shares.jsonl"]
    with pytest.raises(ShareError, match=f"{GIST_A} was already unshared on "):
        unshare(isolated_agent_dir, GIST_A)


def test_unshare_with_an_older_gh_without_yes(isolated_agent_dir: Path, fake_gh: FakeGh) -> None:
    fake_gh.mode("old-gh")
    append_record(isolated_agent_dir, record(GIST_A))
    unshare(isolated_agent_dir, GIST_A)
    assert fake_gh.calls() == [["gist", "delete", GIST_A, "--yes"], ["gist", "delete", GIST_A]]
    assert read_records(isolated_agent_dir)[0].deleted


def test_unshare_of_a_gist_already_gone_marks_the_record(isolated_agent_dir: Path, fake_gh: FakeGh) -> None:
    fake_gh.mode("gone")
    append_record(isolated_agent_dir, record(GIST_A))
    assert unshare(isolated_agent_dir, GIST_A).already_gone
    assert read_records(isolated_agent_dir)[0].deleted


def test_unshare_failure_leaves_the_record(isolated_agent_dir: Path, fake_gh: FakeGh) -> None:
    fake_gh.mode("fail")
    append_record(isolated_agent_dir, record(GIST_A))
    with pytest.raises(ShareError, match="gh gist delete failed: unable to delete gist: HTTP 500"):
        unshare(isolated_agent_dir, GIST_A)
    assert read_records(isolated_agent_dir)[0].deleted is None


def test_unshare_of_a_handler_share_is_refused(isolated_agent_dir: Path, fake_gh: FakeGh) -> None:
    append_record(isolated_agent_dir, record(None, "handler:share.py", url="https://x.test/1"))
    with pytest.raises(ShareError, match=r"shared by a custom handler \(handler:share.py\)"):
        unshare(isolated_agent_dir, "https://x.test/1")
    assert fake_gh.calls() == []


def test_unshare_through_the_api(
    isolated_agent_dir: Path, no_gh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GH_TOKEN", "tok-del")
    with serve_github() as github:
        github.gists[GIST_A] = {}
        append_record(isolated_agent_dir, record(GIST_A))
        append_record(isolated_agent_dir, record(GIST_B))
        assert not unshare(isolated_agent_dir, GIST_A, api_base=github.url).already_gone
        assert unshare(isolated_agent_dir, GIST_B, api_base=github.url).already_gone  # 404: gone already
        assert [(r.method, r.path) for r in github.requests] == [
            ("DELETE", f"/gists/{GIST_A}"),
            ("DELETE", f"/gists/{GIST_B}"),
        ]
        assert github.requests[0].headers["Authorization"] == "Bearer tok-del"
    assert all(r.deleted for r in read_records(isolated_agent_dir))


def test_unshare_without_gh_or_token(isolated_agent_dir: Path, no_gh: None) -> None:
    append_record(isolated_agent_dir, record(GIST_A))
    with pytest.raises(ShareError, match=r"Cannot delete the gist: install the GitHub CLI"):
        unshare(isolated_agent_dir, GIST_A)
