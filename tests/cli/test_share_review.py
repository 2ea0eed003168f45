"""Review before upload, through a real ``sessiontree share`` process with a fake ``gh`` on PATH.

On a terminal (a pty here) share lists what it masked and asks; ``--yes`` does not ask;
``--dry-run`` writes the page and uploads nothing; without a terminal it uploads as before.
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.share import conftest as share_fixtures
from tests.share.conftest import FakeGh
from tests.share.sessions import AWS_KEY, DB_PASSWORD, GITHUB_TOKEN, page_text, write_session

fake_gh = share_fixtures.fake_gh
no_gh = share_fixtures.no_gh

ROOT = Path(__file__).resolve().parents[2]
PROMPT = "Upload this page? [y/N]"


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1"}


def _share_piped(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``sessiontree share`` without a terminal (stdin closed, output captured)."""
    return subprocess.run(
        [sys.executable, "-m", "sessiontree", "share", *args],
        capture_output=True,
        text=True,
        env=_env(),
        stdin=subprocess.DEVNULL,
        cwd=cwd,
        timeout=300,
    )


def _gist_created(gh: FakeGh) -> bool:
    return any(call[:2] == ["gist", "create"] for call in gh.calls())


class Terminal:
    """``sessiontree share`` with stdin, stdout and stderr on a pseudo-terminal."""

    def __init__(self, *args: str, cwd: Path) -> None:
        self.fd, child = pty.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sessiontree", "share", "--no-open", *args],
            stdin=child,
            stdout=child,
            stderr=child,
            env=_env(),
            cwd=cwd,
            close_fds=True,
        )
        os.close(child)
        self.seen = ""

    def read_until(self, text: str, timeout: float = 120) -> str:
        """Read the terminal until ``text`` shows (or the process ends); return all seen."""
        deadline = time.monotonic() + timeout
        while text not in self.seen and time.monotonic() < deadline:
            ready, _, _ = select.select([self.fd], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                self.seen += chunk.decode("utf-8", "replace")
            elif self.proc.poll() is not None:
                break
        return self.seen

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def finish(self) -> int:
        self.read_until("\x00", timeout=5) if self.proc.poll() is None else None
        code = self.proc.wait(timeout=120)
        self.read_until("\x00", timeout=1)
        os.close(self.fd)
        return code


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    return write_session(tmp_path / "s.jsonl")


def _assert_listed(text: str) -> None:
    # One total, said once; then one line a masked value.
    assert text.count("Redacted 3 secret(s): 1 aws-access-key, 1 env-assignment, 1 github-token") == 1
    assert "Masked" not in text
    for secret, kind in (
        (GITHUB_TOKEN, "github-token"),
        (AWS_KEY, "aws-access-key"),
        (DB_PASSWORD, "env-assignment"),
    ):
        line = next(line for line in text.splitlines() if line.strip().startswith(kind))
        assert f"{secret[:4]}... ({len(secret)} chars)" in line and "entry a000000" in line, line
        assert secret not in text  # only the first four characters are shown


def test_on_a_terminal_share_lists_what_it_masked_and_uploads_on_yes(
    session_file: Path, fake_gh: FakeGh, isolated_agent_dir: Path, tmp_path: Path
) -> None:
    term = Terminal(str(session_file), cwd=tmp_path)
    seen = term.read_until(PROMPT)
    assert PROMPT in seen, seen
    assert not _gist_created(fake_gh)  # nothing goes up before the answer
    _assert_listed(seen)
    assert "message.content[0].text" in seen  # where: the field of the entry
    term.type("y\n")
    assert term.finish() == 0, term.seen
    assert _gist_created(fake_gh)
    assert "Share URL: https://gistpreview.github.io/?" in term.seen
    assert all(s not in page_text(fake_gh.uploaded()) for s in (GITHUB_TOKEN, AWS_KEY, DB_PASSWORD))


def test_on_a_terminal_no_uploads_nothing(
    session_file: Path, fake_gh: FakeGh, isolated_agent_dir: Path, tmp_path: Path
) -> None:
    term = Terminal(str(session_file), cwd=tmp_path)
    assert PROMPT in term.read_until(PROMPT)
    term.type("n\n")
    assert term.finish() == 130, term.seen
    assert "Share cancelled: nothing was uploaded" in term.seen and "Traceback" not in term.seen
    assert not _gist_created(fake_gh)
    assert not (isolated_agent_dir / "shares.jsonl").exists()


def test_yes_uploads_without_asking(
    session_file: Path, fake_gh: FakeGh, isolated_agent_dir: Path, tmp_path: Path
) -> None:
    term = Terminal("--yes", str(session_file), cwd=tmp_path)
    assert term.finish() == 0, term.seen
    assert PROMPT not in term.seen
    assert "Redacted 3 secret(s)" in term.seen
    assert _gist_created(fake_gh)


def test_dry_run_writes_the_page_and_uploads_nothing(
    session_file: Path, fake_gh: FakeGh, isolated_agent_dir: Path, tmp_path: Path
) -> None:
    work = tmp_path / "here"
    work.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "sessiontree", "share", "--dry-run", str(session_file)],
        capture_output=True,
        text=True,
        env=_env(),
        cwd=work,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    [page] = list(work.iterdir())
    assert page.name == "sessiontree-fix-the-login-bug-2026-02-16.html"
    assert proc.stdout == f"Page written to {page} (nothing uploaded)\n"
    _assert_listed(proc.stderr)
    text = page_text(page.read_text(encoding="utf-8"))
    assert "[REDACTED:github-token]" in text and GITHUB_TOKEN not in text
    assert fake_gh.calls() == []  # not even "gh auth status"
    assert not (isolated_agent_dir / "shares.jsonl").exists()


def test_without_a_terminal_share_uploads_and_says_when_nothing_was_masked(
    tmp_path: Path, fake_gh: FakeGh, isolated_agent_dir: Path
) -> None:
    clean = tmp_path / "clean.jsonl"
    header = {"type": "session", "version": 3, "id": "c1ea0c1ea0c1ea0c", "timestamp": "2026-02-16T10:00:00Z"}
    message = {"role": "user", "content": [{"type": "text", "text": "Rename the helper, please."}]}
    entry = {"type": "message", "id": "c0000001", "parentId": None, "message": message}
    clean.write_text(json.dumps(header) + "\n" + json.dumps(entry) + "\n")
    proc = _share_piped("--no-open", str(clean))
    assert proc.returncode == 0, proc.stderr
    assert "No secret found: nothing was masked" in proc.stderr
    assert PROMPT not in proc.stderr
    assert _gist_created(fake_gh)


def _many_secrets(path: Path, n: int) -> list[str]:
    """Write a pi session with ``n`` distinct GitHub tokens, one a prompt; return the tokens."""
    tokens = [f"ghp_{i:04d}" + "Q7wE9rT2yU4iO6pA8sD1fG3hJ5kL7z" + f"{i:02d}" for i in range(n)]
    header = {"type": "session", "version": 3, "id": "3a1131a13a1131a1", "timestamp": "2026-02-16T10:00:00Z"}
    lines = [json.dumps(header)]
    for i, token in enumerate(tokens):
        text = f"deploy with GITHUB_TOKEN={token}"
        message = {"role": "user", "content": [{"type": "text", "text": text}]}
        parent = f"m{i - 1:07d}" if i else None
        lines.append(
            json.dumps({"type": "message", "id": f"m{i:07d}", "parentId": parent, "message": message})
        )
    path.write_text("\n".join(lines) + "\n")
    return tokens


def test_dry_run_lists_every_masked_value(tmp_path: Path, fake_gh: FakeGh, isolated_agent_dir: Path) -> None:
    tokens = _many_secrets(tmp_path / "many.jsonl", 75)
    proc = _share_piped("--dry-run", str(tmp_path / "many.jsonl"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    listed = [line for line in proc.stderr.splitlines() if "(40 chars)" in line]
    assert len(listed) == 75 and "more" not in proc.stderr
    assert {line.split()[1] for line in listed} == {t[:4] + "..." for t in tokens}
    assert {line.split()[-2] for line in listed} == {f"m{i:07d}" for i in range(75)}
    assert proc.stderr.count("Redacted 75 secret(s)") == 1


def test_on_a_terminal_a_long_list_is_cut_with_the_count(
    tmp_path: Path, fake_gh: FakeGh, isolated_agent_dir: Path
) -> None:
    _many_secrets(tmp_path / "many.jsonl", 75)
    term = Terminal(str(tmp_path / "many.jsonl"), cwd=tmp_path)
    seen = term.read_until(PROMPT)
    assert PROMPT in seen, seen
    shown = [line for line in seen.splitlines() if "(40 chars)" in line]
    more = next(line for line in seen.splitlines() if "more (share --dry-run lists every one)" in line)
    assert int(more.split()[2]) == 75 - len(shown) and 0 < len(shown) < 75
    term.type("n\n")
    assert term.finish() == 130, term.seen
    assert not _gist_created(fake_gh)


def test_thinking_signatures_are_neither_listed_nor_published(
    tmp_path: Path, fake_gh: FakeGh, isolated_agent_dir: Path
) -> None:
    # A signature is base64 of a binary blob: it looks like a token, and the page never shows it.
    signature = "EqQBCkYIBxgCKkB" + "x7Q9mZ2vL4kP8sR1tW6yN3cF5hJ0aD" * 8
    gemini = "CiQB" + "yH3kT9pQ2mW7vZ5xR8nL4cF6jD1sA0" * 6
    session = tmp_path / "claude.jsonl"
    blocks = [
        {"type": "thinking", "thinking": "Look at the config first.", "signature": signature},
        {"type": "text", "text": "I will read the config.", "thoughtSignature": gemini},
    ]
    line = {
        "type": "assistant",
        "uuid": "00000000-0000-4000-8000-000000000001",
        "parentUuid": None,
        "sessionId": "5e000000-0000-4000-8000-000000000001",
        "timestamp": "2026-02-16T10:00:00.000Z",
        "cwd": "/home/dev/app",
        "message": {"id": "msg_01", "role": "assistant", "model": "m", "content": blocks},
    }
    prompt = {**line, "type": "user", "uuid": "00000000-0000-4000-8000-000000000000"}
    prompt["message"] = {"role": "user", "content": "Check the config."}
    line["parentUuid"] = prompt["uuid"]
    session.write_text(json.dumps(prompt) + "\n" + json.dumps(line) + "\n")
    proc = _share_piped("--no-open", str(session))
    assert proc.returncode == 0, proc.stderr
    assert "No secret found: nothing was masked" in proc.stderr, proc.stderr
    assert "ignature" not in proc.stderr
    uploaded = page_text(fake_gh.uploaded())
    assert "Look at the config first." in uploaded
    for blob in (signature, gemini):
        assert all(blob[i : i + 8] not in uploaded for i in range(0, len(blob) - 8, 4))


def test_dry_run_lists_kept_random_values_apart_and_mask_masks_them(
    tmp_path: Path, fake_gh: FakeGh, isolated_agent_dir: Path
) -> None:
    commit = "0f3a9c27" + "5be14d6083a7c9e1f2b4d5a6c7e8f901"
    header = {"type": "session", "version": 3, "id": "4e7a4e7a4e7a4e7a", "timestamp": "2026-02-16T10:00:00Z"}
    text = f"commit {commit}\nthe staging host is acme-stage-7"
    message = {"role": "user", "content": [{"type": "text", "text": text}]}
    entry = {"type": "message", "id": "k0000001", "parentId": None, "message": message}
    path = tmp_path / "kept.jsonl"
    path.write_text(json.dumps(header) + "\n" + json.dumps(entry) + "\n")
    work = tmp_path / "out"
    work.mkdir()

    proc = _share_piped("--dry-run", str(path), cwd=work)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    at = lines.index("Kept 1 random-looking value(s) a rule explains (share --mask VALUE masks one):")
    assert (
        lines[at + 1] == f"  {commit[:4]}...{commit[-4:]} (40 chars)  kept: hex (a digest, a commit or an id)"
    )
    assert commit[4:-4] not in proc.stderr
    assert commit in page_text(next(work.iterdir()).read_text(encoding="utf-8"))

    # The same share uploaded through gh, with two values masked by hand.
    proc = _share_piped("--no-open", "--mask", commit, "--mask", "acme-stage-7", str(path))
    assert proc.returncode == 0, proc.stderr
    assert "Redacted 2 secret(s): 2 masked-by-you" in proc.stderr
    uploaded = page_text(fake_gh.uploaded())
    assert commit not in uploaded and "acme-stage-7" not in uploaded
    assert "commit [REDACTED:masked-by-you]\nthe staging host is [REDACTED:masked-by-you]" in uploaded
