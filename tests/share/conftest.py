"""Fixtures for the share tests: a fake ``gh`` on PATH, a private temp root, PATH helpers."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from sessiontree.exporter.seal import SEALED_DATA_ID, key_from_text, open_envelope, read_envelope
from sessiontree.share.records import read_records
from tests.share.github_server import FakeGitHub, serve_github

FAKE_GH = '''#!{python}
"""A stand-in for the GitHub CLI: records its argv, behaves per FAKE_GH_MODE."""
import json, os, pathlib, shutil, sys, time, uuid

rec = pathlib.Path(os.environ["FAKE_GH_DIR"])
mode = os.environ.get("FAKE_GH_MODE", "ok")
args = sys.argv[1:]
with open(rec / "calls.jsonl", "a") as f:
    f.write(json.dumps(args) + "\\n")
if args[:2] == ["auth", "status"]:
    if mode == "logged-out":
        print("You are not logged into any GitHub hosts. To log in, run: gh auth login", file=sys.stderr)
        sys.exit(1)
    print("github.com\\n  Logged in to github.com account tester (keyring)", file=sys.stderr)
    sys.exit(0)
if args[:2] == ["gist", "create"]:
    path = pathlib.Path(args[-1])
    shutil.copy(path, rec / "uploaded.html")
    (rec / "uploaded-path").write_text(str(path))
    (rec / "uploaded-dir-mode").write_text(oct(path.parent.stat().st_mode & 0o777))
    if mode == "fail":
        print("- Creating gist " + path.name, file=sys.stderr)
        print("failed to create gist: HTTP 422: Validation Failed", file=sys.stderr)
        sys.exit(1)
    if mode == "slow":
        (rec / "gh.pid").write_text(str(os.getpid()))
        time.sleep(120)
    print("- Creating gist " + path.name, file=sys.stderr)
    print("https://gist.github.com/tester/" + uuid.uuid4().hex)
    sys.exit(0)
if args[:2] == ["gist", "delete"]:
    if mode == "old-gh" and "--yes" in args:
        print("unknown flag: --yes", file=sys.stderr)
        sys.exit(1)
    if mode == "gone":
        print("unable to delete gist: HTTP 404: Not Found", file=sys.stderr)
        sys.exit(1)
    if mode == "fail":
        print("unable to delete gist: HTTP 500: Server Error", file=sys.stderr)
        sys.exit(1)
    sys.exit(0)
print("fake gh: unexpected arguments " + " ".join(args), file=sys.stderr)
sys.exit(2)
'''


@dataclass
class FakeGh:
    """The fake gh's directory (on PATH) and what it recorded."""

    bin_dir: Path
    record_dir: Path
    monkeypatch: pytest.MonkeyPatch
    agent_dir: Path  # where share records go (their keys open an encrypted upload)

    def mode(self, mode: str) -> None:
        self.monkeypatch.setenv("FAKE_GH_MODE", mode)

    def calls(self) -> list[list[str]]:
        path = self.record_dir / "calls.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines()]

    def uploaded_raw(self) -> str:
        """The page as it went up (an encrypted share's: the sealed page)."""
        return (self.record_dir / "uploaded.html").read_text(encoding="utf-8")

    def uploaded(self) -> str:
        """The page as its reader sees it: an encrypted upload opened with the newest recorded key."""
        raw = self.uploaded_raw()
        if f'id="{SEALED_DATA_ID}"' not in raw:
            return raw
        keys = [record.key for record in read_records(self.agent_dir) if record.key]
        assert keys, "an encrypted page went up, and no share record holds its key"
        return open_envelope(read_envelope(raw), key=key_from_text(keys[-1])).decode("utf-8")

    def uploaded_path(self) -> Path:
        return Path((self.record_dir / "uploaded-path").read_text())


def path_without(*names: str) -> str:
    """Return PATH minus every directory holding one of ``names`` (e.g. a real gh)."""
    dirs = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(d for d in dirs if d and not any((Path(d) / n).exists() for n in names))


@pytest.fixture
def no_gh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make sure no gh is on PATH and no token is set."""
    monkeypatch.setenv("PATH", path_without("gh"))
    for name in ("GH_TOKEN", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def fake_gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_gh: None, isolated_agent_dir: Path) -> FakeGh:
    """Put an executable fake ``gh`` first on PATH; it records argv and copies uploads."""
    bin_dir = tmp_path / "fake-bin"
    record_dir = tmp_path / "fake-gh-record"
    bin_dir.mkdir()
    record_dir.mkdir()
    gh = bin_dir / "gh"
    gh.write_text(FAKE_GH.replace("{python}", sys.executable))
    gh.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_GH_DIR", str(record_dir))
    monkeypatch.setenv("FAKE_GH_MODE", "ok")
    return FakeGh(bin_dir, record_dir, monkeypatch, isolated_agent_dir)


@pytest.fixture
def temp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point ``tempfile`` at an empty dir so tests can see every temp file left behind."""
    root = tmp_path / "tmp-root"
    root.mkdir()
    monkeypatch.setenv("TMPDIR", str(root))
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    yield root


@pytest.fixture
def node_only_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """PATH holding only node (no bun, no deno), so the runtime choice is known."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (scripts/setup --test installs it)")
    bin_dir = tmp_path / "node-bin"
    bin_dir.mkdir()
    (bin_dir / "node").symlink_to(node)
    monkeypatch.setenv("PATH", str(bin_dir))
    return bin_dir


@pytest.fixture
def local_github(monkeypatch: pytest.MonkeyPatch, no_gh: None) -> Iterator[FakeGitHub]:
    """No gh, a token in GITHUB_TOKEN, and the API served on 127.0.0.1 (SESSIONTREE_GITHUB_API)."""
    monkeypatch.setenv("GITHUB_TOKEN", "tok-local")
    with serve_github() as github:
        monkeypatch.setenv("SESSIONTREE_GITHUB_API", github.url)
        yield github
