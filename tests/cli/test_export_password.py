"""export --password: asked twice without echo, or read from $SESSIONTREE_PASSWORD; never an argument;
the page holds the plain export's bytes sealed (PBKDF2-SHA-256, 600,000 rounds), and nothing of them."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.errors import SealError
from sessiontree.exporter.seal import PBKDF2_ITERATIONS, open_envelope, read_envelope
from tests.conftest import GenSession

ENV = "SESSIONTREE_PASSWORD"


@pytest.fixture
def session(gen_session: GenSession) -> Path:
    return gen_session(8)


def export(*args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["export", *args], input=stdin, env=env)
    return result.exit_code, result.stdout, result.stderr


def opened(path: Path, password: str) -> bytes:
    return open_envelope(read_envelope(path.read_text(encoding="utf-8")), password=password)


def test_a_password_asked_twice_seals_the_plain_page(
    session: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV, raising=False)
    plain, locked = tmp_path / "plain.html", tmp_path / "locked.html"
    assert export(str(session), str(plain), "--no-cache")[0] == 0
    code, out, err = export(
        str(session), str(locked), "--password", "--no-cache", stdin="tr0ub4dor\ntr0ub4dor\n"
    )
    assert code == 0, err
    assert out == f"Exported to: {locked} (encrypted: the page asks for the password)\n"
    assert "Password: " in err and "Repeat for confirmation: " in err and "tr0ub4dor" not in err + out
    assert opened(locked, "tr0ub4dor") == plain.read_bytes()
    envelope = read_envelope(locked.read_text(encoding="utf-8"))
    assert envelope[4] == 2 and struct.unpack(">I", envelope[5:9])[0] == PBKDF2_ITERATIONS
    text = locked.read_text(encoding="utf-8")
    session_id = json.loads(session.read_text(encoding="utf-8").splitlines()[0])["id"]
    assert 'id="st-data"' not in text and session_id not in text and session_id.encode() in plain.read_bytes()
    with pytest.raises(SealError, match="Wrong key or password"):
        opened(locked, "tr0ub4dor!")


def test_two_different_entries_are_asked_again(
    session: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV, raising=False)
    locked = tmp_path / "locked.html"
    code, _, err = export(str(session), str(locked), "--password", stdin="one\ntwo\nthree\nthree\n")
    assert code == 0, err
    assert "do not match" in err
    assert opened(locked, "three").startswith(b"<!doctype html>")


def test_the_password_comes_from_the_environment_for_scripts(
    session: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, "from the env ☃")
    locked = tmp_path / "locked.html"
    code, _, err = export(str(session), str(locked), "--password", stdin="")
    assert code == 0, err
    assert "Password" not in err
    assert opened(locked, "from the env ☃").startswith(b"<!doctype html>")
    # a cached page (the plain export's, kept whole) is sealed the same way
    plain = tmp_path / "plain.html"
    assert export(str(session), str(plain))[0] == 0
    again = tmp_path / "again.html"
    assert export(str(session), str(again), "--password")[0] == 0
    assert opened(again, "from the env ☃") == plain.read_bytes()
    assert again.read_bytes() != locked.read_bytes()  # a fresh salt and nonce each time


def test_no_password_on_the_command_line_and_none_empty(
    session: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(ENV, raising=False)
    # "--password hunter2" would make hunter2 the output file: refused, nothing written
    code, _, err = export(str(session), "--password", "hunter2", stdin="x\nx\n")
    assert code == 1
    assert err.startswith("Error: With --password, OUTPUT must be a .html file or a folder (got hunter2)")
    assert err.count("\n") == 1 and list(tmp_path.iterdir()) == []
    monkeypatch.setenv(ENV, "")
    code, _, err = export(str(session), str(tmp_path / "p.html"), "--password")
    assert (code, err) == (1, f"Error: ${ENV} is empty: set it to the password, or unset it to be asked\n")
    assert list(tmp_path.iterdir()) == []
    # a folder as OUTPUT is fine: the page gets its usual name there
    monkeypatch.setenv(ENV, "pw")
    code, _, err = export(str(session), str(tmp_path), "--password")
    assert code == 0, err
    assert opened(tmp_path / f"session-{session.stem}.html", "pw").startswith(b"<!doctype html>")
