"""Encrypted shares (the default): what goes up holds no text of the session, the key travels only in
the link and the 0600 record, share scripts get the sealed page and the key, --no-encrypt as before."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.exporter.seal import key_from_text, open_envelope, read_envelope, seal_page
from sessiontree.share.publish import KEY_ENV, share_session
from sessiontree.share.records import read_records, shares_path
from tests.conftest import GenSession
from tests.share.conftest import FakeGh
from tests.share.sessions import SECRETS, page_text, write_session


def strings(value: Any) -> Iterator[str]:
    """Every string a JSON value holds, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def session_texts(path: Path) -> set[str]:
    """Every text of a session file of 8 characters or more, whole and word by word.

    Shorter ones could turn up by chance in the base64 of the ciphertext (a given 8 characters do
    once in 64^8 places); the sealed page's own words (its title, its messages, its script) are
    left out: they are the same for every page, whatever it holds.
    """
    empty = seal_page("", os.urandom(32))
    found: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        for text in strings(json.loads(line)):
            found.update(t for t in (text, *text.split()) if len(t) >= 8)
    return {t for t in found if t not in empty}


def test_an_encrypted_share_uploads_no_text_of_the_session(
    gen_session: GenSession, tmp_path: Path, fake_gh: FakeGh, isolated_agent_dir: Path
) -> None:
    for session in (gen_session(20), write_session(tmp_path / "s.jsonl")):
        outcome = share_session(session, isolated_agent_dir, notify=lambda _: None)
        texts = session_texts(session)
        assert len(texts) > 30
        uploaded = fake_gh.uploaded_raw()
        create = [c for c in fake_gh.calls() if c[:2] == ["gist", "create"]][-1]
        gone_up = "\n".join([uploaded, *create])
        assert [t for t in texts if t in gone_up] == []
        assert outcome.key is not None and outcome.url is not None
        assert outcome.url.endswith("#" + outcome.key) and outcome.key not in gone_up
        # Redaction ran before encryption: the page the key opens holds the masks, not the secrets.
        opened = open_envelope(read_envelope(uploaded), key=key_from_text(outcome.key)).decode("utf-8")
        if session.name == "s.jsonl":
            assert all(secret not in page_text(opened) for secret in SECRETS)
            assert "[REDACTED:github-token]" in page_text(opened)
        assert "Login fails" in page_text(opened) or session.name != "s.jsonl"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_the_record_keeps_the_key_privately_and_shares_prints_the_whole_link(
    tmp_path: Path, fake_gh: FakeGh, no_browser: list[str], isolated_agent_dir: Path
) -> None:
    session = write_session(tmp_path / "s.jsonl")
    code, out, err = run("share", "--no-open", str(session))
    assert code == 0, err
    [record] = read_records(isolated_agent_dir)
    link = f"https://gistpreview.github.io/?{record.gist_id}#{record.key}"
    assert f"Share URL: {link}" in out
    assert record.url == f"https://gistpreview.github.io/?{record.gist_id}" and record.link == link
    assert stat.S_IMODE(shares_path(isolated_agent_dir).stat().st_mode) == 0o600
    assert json.loads(shares_path(isolated_agent_dir).read_text())["key"] == record.key
    code, out, _ = run("shares")
    assert code == 0 and f"    {link}\n" in out
    # unshare finds it by the whole link (the key after #) as by the gist's id
    code, out, err = run("unshare", link)
    assert (code, out) == (0, f"Deleted gist {record.gist_id}\n"), err
    [record] = read_records(isolated_agent_dir)
    assert record.deleted is not None and record.key is not None
    assert stat.S_IMODE(shares_path(isolated_agent_dir).stat().st_mode) == 0o600


def test_a_looser_record_file_is_made_private_when_a_key_goes_in(
    tmp_path: Path, fake_gh: FakeGh, isolated_agent_dir: Path
) -> None:
    isolated_agent_dir.mkdir(parents=True)
    shares_path(isolated_agent_dir).write_text("")
    shares_path(isolated_agent_dir).chmod(0o644)
    share_session(write_session(tmp_path / "s.jsonl"), isolated_agent_dir, notify=lambda _: None)
    assert stat.S_IMODE(shares_path(isolated_agent_dir).stat().st_mode) == 0o600


def test_no_encrypt_uploads_the_readable_page_as_before(
    tmp_path: Path, fake_gh: FakeGh, no_browser: list[str], isolated_agent_dir: Path
) -> None:
    code, out, err = run("share", "--no-encrypt", "--no-open", str(write_session(tmp_path / "s.jsonl")))
    assert code == 0, err
    [record] = read_records(isolated_agent_dir)
    assert out.splitlines()[0] == f"Share URL: https://gistpreview.github.io/?{record.gist_id}"
    assert record.key is None and "key" not in json.loads(shares_path(isolated_agent_dir).read_text())
    assert '<script type="application/json" id="st-data">' in fake_gh.uploaded_raw()
    assert "Encrypted" not in err
    assert fake_gh.calls()[-1][3] == "--desc=sessiontree: Fix the login bug (2026-02-16)"


def test_a_share_script_gets_the_sealed_page_and_the_key(
    tmp_path: Path, fake_gh: FakeGh, isolated_agent_dir: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv(KEY_ENV, "left over from somewhere")
    seen = tmp_path / "seen"
    seen.mkdir()
    isolated_agent_dir.mkdir(parents=True)
    (isolated_agent_dir / "share.py").write_text(
        "import os, pathlib, shutil\n"
        "def share(html_path):\n"
        f"    shutil.copy(html_path, {str(seen / 'page.html')!r})\n"
        f"    pathlib.Path({str(seen / 'key')!r}).write_text(os.environ.get({KEY_ENV!r}, ''))\n"
        "    return 'https://pages.example.test/s/1'\n"
    )
    outcome = share_session(write_session(tmp_path / "s.jsonl"), isolated_agent_dir, notify=lambda _: None)
    key = (seen / "key").read_text()
    assert outcome.key == key and outcome.url == f"https://pages.example.test/s/1#{key}"
    page = (seen / "page.html").read_text(encoding="utf-8")
    assert "Login fails" not in page
    assert "Login fails" in page_text(open_envelope(read_envelope(page), key=key_from_text(key)).decode())
    assert os.environ[KEY_ENV] == "left over from somewhere"  # the environment as it was
    # A plain share gives a script no key, whatever the environment held.
    share_session(tmp_path / "s.jsonl", isolated_agent_dir, notify=lambda _: None, encrypt=False)
    assert (seen / "key").read_text() == ""
    assert "Login fails" in page_text((seen / "page.html").read_text(encoding="utf-8"))
