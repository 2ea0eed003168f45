"""The share, shares and unshare commands (CliRunner), and Ctrl-C on a real subprocess."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.share.records import read_records
from tests.share import conftest as share_fixtures
from tests.share.conftest import FakeGh
from tests.share.github_server import FakeGitHub, Reply
from tests.share.sessions import SECRETS, page_text, write_session

# The share tests' fixtures: a fake gh on PATH (no real gh, no token) and a visible temp root.
fake_gh = share_fixtures.fake_gh
no_gh = share_fixtures.no_gh
temp_root = share_fixtures.temp_root
node_only_path = share_fixtures.node_only_path
local_github = share_fixtures.local_github

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    return write_session(tmp_path / "s.jsonl")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_share_prints_links_and_opens_the_preview(
    session_file: Path, fake_gh: FakeGh, temp_root: Path, no_browser: list[str], isolated_agent_dir: Path
) -> None:
    code, out, err = run("share", str(session_file))
    assert code == 0, err
    [record] = read_records(isolated_agent_dir)
    assert record.key is not None
    assert out.splitlines() == [
        f"Share URL: https://gistpreview.github.io/?{record.gist_id}#{record.key}",
        f"Gist: https://gist.github.com/tester/{record.gist_id}",
    ]
    assert "Redacted 3 secret(s): 1 aws-access-key, 1 env-assignment, 1 github-token" in err
    assert "Creating gist..." in err
    assert "Encrypted: only the whole link (its key after #) opens the page" in err
    assert no_browser == [f"https://gistpreview.github.io/?{record.gist_id}#{record.key}"]
    assert list(temp_root.iterdir()) == []


def test_share_no_open_and_no_redact(
    session_file: Path, fake_gh: FakeGh, no_browser: list[str], isolated_agent_dir: Path
) -> None:
    code, out, err = run("share", "--no-open", "--no-redact", str(session_file))
    assert code == 0, err
    assert out.startswith("Share URL: https://gistpreview.github.io/?")
    assert no_browser == []
    assert "Redacted" not in err
    assert all(secret in page_text(fake_gh.uploaded()) for secret in SECRETS)
    assert len(read_records(isolated_agent_dir)) == 1


@pytest.mark.parametrize(
    ("body", "stdout", "opened"),
    [
        ("return 'https://h.test/1'", ["Share URL: https://h.test/1#{key}"], ["https://h.test/1#{key}"]),
        (
            "return {'url': 'https://h.test/2', 'message': 'Posted to #team'}",
            ["Share URL: https://h.test/2#{key}", "Posted to #team"],
            ["https://h.test/2#{key}"],
        ),
        (  # a script that puts the key in its link itself: kept as it is, not doubled
            "import os; return 'https://h.test/3#' + os.environ['SESSIONTREE_SHARE_KEY']",
            ["Share URL: https://h.test/3#{key}"],
            ["https://h.test/3#{key}"],
        ),
        (
            "return {'message': 'Saved on the NAS'}",
            ["Saved on the NAS", "Key: #{key} (after the page's address)"],
            [],
        ),
        ("return None", ["Session shared", "Key: #{key} (after the page's address)"], []),
    ],
    ids=["string", "object", "own-fragment", "message", "nothing"],
)
def test_share_with_a_python_handler(
    body: str,
    stdout: list[str],
    opened: list[str],
    session_file: Path,
    fake_gh: FakeGh,
    no_browser: list[str],
    isolated_agent_dir: Path,
) -> None:
    isolated_agent_dir.mkdir(parents=True)
    (isolated_agent_dir / "share.py").write_text(f"def share(html_path):\n    {body}\n")
    code, out, err = run("share", str(session_file))
    assert code == 0, err
    [record] = read_records(isolated_agent_dir)
    assert record.key is not None and len(record.key) == 43
    assert out.splitlines() == [line.format(key=record.key) for line in stdout]
    assert no_browser == [url.format(key=record.key) for url in opened]
    assert fake_gh.calls() == []


def test_share_errors_are_one_line_without_traceback(
    session_file: Path, fake_gh: FakeGh, temp_root: Path, isolated_agent_dir: Path, tmp_path: Path
) -> None:
    code, _, err = run("share", str(tmp_path / "missing.jsonl"))
    assert (code, err) == (1, f"Error: File not found: {tmp_path / 'missing.jsonl'}\n")

    fake_gh.mode("logged-out")
    code, _, err = run("share", str(session_file))
    assert code == 1
    assert err.startswith("Error: GitHub CLI is not logged in: run 'gh auth login'") and err.count("\n") == 1

    isolated_agent_dir.mkdir(parents=True)
    (isolated_agent_dir / "share.py").write_text("def share(p):\n    raise ValueError('no space left')\n")
    code, _, err = run("share", str(session_file))
    assert code == 1
    assert err.endswith("failed: ValueError: no space left\n") and "Traceback" not in err
    assert list(temp_root.iterdir()) == []


def test_shares_and_unshare(
    session_file: Path, fake_gh: FakeGh, no_browser: list[str], isolated_agent_dir: Path
) -> None:
    assert run("shares") == (0, "No shares recorded\n", "")
    assert run("share", "--no-open", str(session_file))[0] == 0
    [record] = read_records(isolated_agent_dir)
    code, out, _ = run("shares")
    assert code == 0
    assert f"gh        {record.gist_id}  shared" in out
    assert f"https://gistpreview.github.io/?{record.gist_id}" in out
    assert str(session_file.resolve()) in out

    code, out, err = run("unshare", f"https://gist.github.com/tester/{record.gist_id}")
    assert (code, out) == (0, f"Deleted gist {record.gist_id}\n"), err
    assert fake_gh.calls()[-1] == ["gist", "delete", str(record.gist_id), "--yes"]
    code, out, _ = run("shares")
    assert f"{record.gist_id}  unshared 20" in out

    code, _, err = run("unshare", str(record.gist_id))
    assert code == 1 and "was already unshared on" in err
    code, _, err = run("unshare", "https://example.com/x")
    assert (code, err) == (
        1,
        "Error: No share recorded for https://example.com/x: run 'sessiontree shares' to list them\n",
    )


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in state  # a zombie has exited


def as_from_a_shell() -> None:
    """In the child: Ctrl-C as a shell leaves it to a command (default action, not blocked), whatever
    this test process inherited (a run of the whole suite once gave it share ignoring SIGINT)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())


def interrupt_share(session_file: Path, started: Callable[[], bool]) -> tuple[int, str, str]:
    """Run ``sessiontree share`` in a subprocess, send it SIGINT once ``started()``, return its end."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "sessiontree", "share", "--no-open", str(session_file)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_from_a_shell,
    )
    deadline = time.monotonic() + 120  # a bound for a hung start, not a timing assertion
    while not started() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    try:
        assert started(), proc.communicate()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:  # never leave the process behind for a later test to trip over
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, out, err


def assert_cancelled(result: tuple[int, str, str], temp_root: Path, agent_dir: Path) -> None:
    code, out, err = result
    assert code == 130, err
    assert "Share cancelled" in err and "Traceback" not in err
    assert out == ""
    assert list(temp_root.iterdir()) == []
    assert read_records(agent_dir) == []


def test_ctrl_c_stops_gh_and_removes_the_temp_file(
    session_file: Path, fake_gh: FakeGh, temp_root: Path, isolated_agent_dir: Path
) -> None:
    fake_gh.mode("slow")
    pid_file = fake_gh.record_dir / "gh.pid"

    def gh_running() -> bool:
        # The private dir with the page exists while gh runs.
        return pid_file.exists() and len(list(temp_root.iterdir())) == 1

    result = interrupt_share(session_file, gh_running)
    gh_pid = int(pid_file.read_text())
    assert_cancelled(result, temp_root, isolated_agent_dir)
    assert not _alive(gh_pid)


def test_ctrl_c_during_an_api_upload(
    session_file: Path, local_github: FakeGitHub, temp_root: Path, isolated_agent_dir: Path
) -> None:
    local_github.replies.append(Reply(201, {"id": "1", "html_url": "u"}, delay=10))
    result = interrupt_share(session_file, lambda: bool(local_github.requests))
    assert_cancelled(result, temp_root, isolated_agent_dir)


def test_ctrl_c_stops_a_js_handler(
    session_file: Path, temp_root: Path, isolated_agent_dir: Path, node_only_path: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "node.pid"
    isolated_agent_dir.mkdir(parents=True)
    (isolated_agent_dir / "share.mjs").write_text(
        "import { writeFileSync } from 'node:fs';\n"
        "export default async () => {\n"
        f"  writeFileSync({str(pid_file)!r}, String(process.pid));\n"
        "  await new Promise((r) => setTimeout(r, 60000));\n"
        "  return 'https://late.example.test';\n};\n"
    )
    result = interrupt_share(session_file, pid_file.exists)
    assert_cancelled(result, temp_root, isolated_agent_dir)
    assert not _alive(int(pid_file.read_text()))


def test_handler_answer_is_printed_without_escapes(
    session_file: Path, fake_gh: FakeGh, no_browser: list[str], isolated_agent_dir: Path
) -> None:
    isolated_agent_dir.mkdir(parents=True)
    (isolated_agent_dir / "share.py").write_text(
        "def share(p):\n"
        "    return {'url': 'https://h.test/\\x1b[2Jx', 'message': 'done\\x1b]0;pwned\\x07 ok'}\n"
    )
    code, out, err = run("share", "--no-open", str(session_file))
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out
    assert out.splitlines()[0].startswith("Share URL: https://h.test/")
