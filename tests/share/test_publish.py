"""The share flow end to end with the real exporter: backends, redaction, size limits, temp files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sessiontree.errors import ExportError, InvalidSession, SessionNotFound, ShareError
from sessiontree.exporter.seal import key_from_text, open_envelope, read_envelope
from sessiontree.share.publish import (
    MAX_BYTES,
    WARN_BYTES,
    check_size,
    plain_title,
    share_date,
    share_file_name,
    share_session,
    slugify,
)
from sessiontree.share.records import read_records
from sessiontree.store import Session, load_session
from tests.conftest import machine_zone
from tests.share.conftest import FakeGh
from tests.share.github_server import FakeGitHub
from tests.share.sessions import SECRETS, page_text, write_session


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    return write_session(tmp_path / "s.jsonl")


def test_gh_share_uploads_a_redacted_page_and_records_it(
    session_file: Path, fake_gh: FakeGh, temp_root: Path, isolated_agent_dir: Path
) -> None:
    # The readable page (--no-encrypt): as every share went up before shares were encrypted.
    before = (session_file.read_bytes(), os.stat(session_file).st_mtime_ns)
    notes: list[str] = []
    outcome = share_session(session_file, isolated_agent_dir, notify=notes.append, encrypt=False)

    calls = fake_gh.calls()
    assert calls[0] == ["auth", "status"]
    create = calls[1]
    assert create[:3] == ["gist", "create", "--public=false"]
    assert create[3] == "--desc=sessiontree: Fix the login bug (2026-02-16)"
    uploaded_path = fake_gh.uploaded_path()
    assert uploaded_path.name == "sessiontree-fix-the-login-bug-2026-02-16.html"
    assert uploaded_path.parent.parent == temp_root
    assert (fake_gh.record_dir / "uploaded-dir-mode").read_text() == "0o700"  # private while it exists
    assert not uploaded_path.exists() and list(temp_root.iterdir()) == []  # temp file and dir gone

    text = page_text(fake_gh.uploaded())
    assert all(secret not in text for secret in SECRETS)
    assert "[REDACTED:github-token]" in text and "[REDACTED:aws-access-key]" in text
    assert "[REDACTED:env-assignment]" in text
    assert notes == [
        "Redacted 3 secret(s): 1 aws-access-key, 1 env-assignment, 1 github-token (--no-redact shares as is)"
    ]

    assert outcome.gist is not None
    assert outcome.url == f"https://gistpreview.github.io/?{outcome.gist.id}"
    assert outcome.gist.url == f"https://gist.github.com/tester/{outcome.gist.id}"
    [record] = read_records(isolated_agent_dir)
    assert (record.url, record.gist_id, record.backend) == (outcome.url, outcome.gist.id, "gh")
    assert record.key is None and outcome.key is None and record.link == outcome.url
    assert record.session == str(session_file.resolve())
    assert (session_file.read_bytes(), os.stat(session_file).st_mtime_ns) == before


def test_no_redact_shares_as_is(session_file: Path, fake_gh: FakeGh, isolated_agent_dir: Path) -> None:
    notes: list[str] = []
    share_session(session_file, isolated_agent_dir, redact=False, notify=notes.append)
    text = page_text(fake_gh.uploaded())
    assert all(secret in text for secret in SECRETS)
    assert "REDACTED" not in text
    assert notes == []


def test_gh_not_logged_in_says_what_to_do(
    session_file: Path, fake_gh: FakeGh, temp_root: Path, isolated_agent_dir: Path
) -> None:
    fake_gh.mode("logged-out")
    with pytest.raises(ShareError, match=r"GitHub CLI is not logged in: run 'gh auth login'"):
        share_session(session_file, isolated_agent_dir)
    assert [c[:2] for c in fake_gh.calls()] == [["auth", "status"]]
    assert list(temp_root.iterdir()) == []
    assert read_records(isolated_agent_dir) == []


def test_gh_missing_and_no_token_says_what_to_do(
    session_file: Path, no_gh: None, isolated_agent_dir: Path
) -> None:
    with pytest.raises(ShareError) as info:
        share_session(session_file, isolated_agent_dir)
    assert "GitHub CLI (gh) is not installed: install it from https://cli.github.com" in str(info.value)
    assert "set GITHUB_TOKEN" in str(info.value)


def test_gh_failure_cleans_up_and_records_nothing(
    session_file: Path, fake_gh: FakeGh, temp_root: Path, isolated_agent_dir: Path
) -> None:
    fake_gh.mode("fail")
    with pytest.raises(
        ShareError, match=r"gh gist create failed: failed to create gist: HTTP 422: Validation Failed"
    ):
        share_session(session_file, isolated_agent_dir)
    assert fake_gh.uploaded_path().parent.parent == temp_root
    assert list(temp_root.iterdir()) == []
    assert read_records(isolated_agent_dir) == []


def test_rest_api_path_with_a_token(
    session_file: Path, local_github: FakeGitHub, temp_root: Path, isolated_agent_dir: Path
) -> None:
    outcome = share_session(session_file, isolated_agent_dir, notify=lambda _: None)
    [seen] = local_github.requests
    [gist_body] = local_github.gists.values()
    assert seen.headers["Authorization"] == "Bearer tok-local"
    assert gist_body["public"] is False
    assert gist_body["description"] == "sessiontree: encrypted session (2026-02-16)"
    [(name, file)] = gist_body["files"].items()
    assert name == "sessiontree-encrypted-2026-02-16.html"
    assert "login" not in json.dumps(gist_body)
    assert outcome.gist is not None and outcome.key is not None
    assert outcome.url == f"https://gistpreview.github.io/?{outcome.gist.id}#{outcome.key}"
    opened = open_envelope(read_envelope(file["content"]), key=key_from_text(outcome.key)).decode()
    assert "Fix the login bug" in opened and all(secret not in page_text(opened) for secret in SECRETS)
    assert read_records(isolated_agent_dir)[0].backend == "api"
    assert list(temp_root.iterdir()) == []


def test_custom_handler_gets_the_redacted_page_and_wins_over_gh(
    session_file: Path, fake_gh: FakeGh, temp_root: Path, isolated_agent_dir: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "handler-saw.html"
    isolated_agent_dir.mkdir(parents=True)
    (isolated_agent_dir / "share.py").write_text(
        "import shutil\n"
        f"def share(html_path):\n    shutil.copy(html_path, {str(copy)!r})\n"
        "    return {'url': 'https://share.example.test/x', 'message': 'Uploaded to the wiki'}\n"
    )
    outcome = share_session(session_file, isolated_agent_dir, encrypt=False)
    assert (outcome.url, outcome.message, outcome.gist) == (
        "https://share.example.test/x",
        "Uploaded to the wiki",
        None,
    )
    assert fake_gh.calls() == []  # no fallback, not even an auth check
    assert all(secret not in page_text(copy.read_text()) for secret in SECRETS)
    assert list(temp_root.iterdir()) == []
    [record] = read_records(isolated_agent_dir)
    assert (record.backend, record.url, record.gist_id) == (
        "handler:share.py",
        "https://share.example.test/x",
        None,
    )


@pytest.mark.parametrize(
    "source",
    ["def share(p):\n    raise RuntimeError('upload refused')\n", "def share(p)\n"],
    ids=["raises", "fails-to-load"],
)
def test_failing_handler_does_not_fall_back_to_the_gist(
    source: str, session_file: Path, fake_gh: FakeGh, temp_root: Path, isolated_agent_dir: Path
) -> None:
    isolated_agent_dir.mkdir(parents=True)
    (isolated_agent_dir / "share.py").write_text(source)
    with pytest.raises(ShareError, match=r"Share handler .*share\.py failed"):
        share_session(session_file, isolated_agent_dir)
    assert fake_gh.calls() == []
    assert list(temp_root.iterdir()) == []
    assert read_records(isolated_agent_dir) == []


def test_js_handler_end_to_end(
    session_file: Path, fake_gh: FakeGh, temp_root: Path, isolated_agent_dir: Path, node_only_path: Path
) -> None:
    isolated_agent_dir.mkdir(parents=True)
    (isolated_agent_dir / "share.mjs").write_text(
        "import { readFileSync } from 'node:fs';\n"
        "export default async (p) =>\n"
        "  readFileSync(p, 'utf8').includes('<!doctype html>') ? 'https://js.example.test/ok' : 'bad';\n"
    )
    outcome = share_session(session_file, isolated_agent_dir)
    assert outcome.key is not None and outcome.url == f"https://js.example.test/ok#{outcome.key}"
    assert list(temp_root.iterdir()) == []


def test_in_memory_session_cannot_be_shared(
    isolated_agent_dir: Path, fake_gh: FakeGh, session_file: Path
) -> None:
    loaded = load_session(session_file)
    in_memory = Session(header=loaded.header, entries=loaded.entries, path=None, leaf_id=loaded.leaf_id)
    with pytest.raises(ExportError, match=r"^Cannot export in-memory session to HTML$"):
        share_session(in_memory, isolated_agent_dir)
    assert fake_gh.calls() == []


def test_loaded_session_object_is_not_changed_by_redaction(
    session_file: Path, fake_gh: FakeGh, isolated_agent_dir: Path
) -> None:
    loaded = load_session(session_file)
    before = json.dumps([loaded.header, loaded.entries])
    share_session(loaded, isolated_agent_dir, notify=lambda _: None)
    assert json.dumps([loaded.header, loaded.entries]) == before


def test_missing_and_non_session_files(tmp_path: Path, fake_gh: FakeGh, isolated_agent_dir: Path) -> None:
    with pytest.raises(SessionNotFound, match=r"^File not found: "):
        share_session(tmp_path / "nope.jsonl", isolated_agent_dir)
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n")
    with pytest.raises(InvalidSession, match="Not a session file"):
        share_session(junk, isolated_agent_dir)
    assert fake_gh.calls() == []


def test_big_page_is_refused_unless_forced(
    tmp_path: Path, fake_gh: FakeGh, temp_root: Path, isolated_agent_dir: Path
) -> None:
    big = write_session(tmp_path / "big.jsonl", image_bytes=8 * 1024 * 1024)
    with pytest.raises(
        ShareError, match=r"The exported page is 1\d\.\d MB, over the 10 MB share limit: pass --force"
    ):
        share_session(big, isolated_agent_dir)
    assert [c[:2] for c in fake_gh.calls()] == [["auth", "status"]]
    notes: list[str] = []
    outcome = share_session(big, isolated_agent_dir, force=True, notify=notes.append)
    assert outcome.size > MAX_BYTES
    assert any(n.startswith("Warning: the exported page is 1") and "gist previews" in n for n in notes)
    assert list(temp_root.iterdir()) == []


def test_size_thresholds() -> None:
    warned: list[str] = []
    check_size(WARN_BYTES, force=False, warn=warned.append)
    assert warned == []
    check_size(WARN_BYTES + 1, force=False, warn=warned.append)
    assert warned == ["Warning: the exported page is 1.0 MB; gist previews may not load more than 1 MB"]
    check_size(MAX_BYTES, force=False, warn=None)
    with pytest.raises(ShareError):
        check_size(MAX_BYTES + 1, force=False, warn=None)
    check_size(MAX_BYTES + 1, force=True, warn=None)


def test_names_from_title_and_date(session_file: Path) -> None:
    assert slugify("Ünïcode: fix the *login* bug!  (v2)") == "unicode-fix-the-login-bug-v2"
    assert slugify("日本語") == ""
    assert share_file_name("日本語", "2026-02-16") == "sessiontree-session-2026-02-16.html"
    assert plain_title("a <b>\n c\x1b") == "a <b> c"
    assert share_date(load_session(session_file)) == "2026-02-16"


@pytest.mark.parametrize(
    ("zone", "day"),
    [("UTC", "2026-02-16"), ("Asia/Kolkata", "2026-02-17"), ("America/Los_Angeles", "2026-02-16")],
)
def test_the_shared_date_is_the_first_entrys_day_in_the_machines_zone(
    session_file: Path, zone: str, day: str
) -> None:
    # The header rewritten days later keeps its new time; the session began at its first entry,
    # 20:21 UTC: the 17th in Kolkata (as the lists show it there), the 16th in Los Angeles.
    lines = session_file.read_text(encoding="utf-8").splitlines()
    header, first = json.loads(lines[0]), json.loads(lines[1])
    header["timestamp"] = "2026-02-19T08:00:00.000Z"
    first["timestamp"] = "2026-02-16T20:21:00.000Z"
    session_file.write_text("\n".join([json.dumps(header), json.dumps(first), *lines[2:]]) + "\n")
    with machine_zone(zone):
        assert share_date(load_session(session_file)) == day


def test_a_record_that_cannot_be_written_does_not_hide_the_links(
    session_file: Path, fake_gh: FakeGh, tmp_path: Path
) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "shares.jsonl").mkdir()  # a directory where the record file should be
    notes: list[str] = []
    outcome = share_session(session_file, agent, notify=notes.append)
    assert outcome.gist is not None and outcome.url == f"{outcome.gist.preview_url}#{outcome.key}"
    assert any(n.startswith(f"Warning: could not record the share in {agent}") for n in notes)
