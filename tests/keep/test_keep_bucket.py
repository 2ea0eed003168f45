"""``keep --to s3://…`` against a real ``rclone serve s3`` on 127.0.0.1: two machines (two homes,
two names) sharing one bucket, the machine filter, and faults (5xx, a server killed while writing
and while reading, wrong credentials, a wrong passphrase): each a retry or one line, nothing half
kept and the bucket never holding a session's text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from sessiontree.cli import cli
from tests.keep.conftest import claude_session, stored_bytes
from tests.keep.s3server import ACCESS, BUCKETS, SECRET, FaultProxy, S3Server

LAPTOP_PHRASE, DESKTOP_PHRASE = "walrus-lantern-paprika", "heron-cobalt-dumpling"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    s3 = S3Server(tmp_path_factory.mktemp("s3")).start()
    yield s3
    s3.stop()


@pytest.fixture
def bucket(server: S3Server, monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh bucket on the server, the AWS_* variables pointing at it, one passphrase for all."""
    name = next(b for b in BUCKETS if not any((server.folder / b).iterdir()))
    for key, value in {
        "AWS_ENDPOINT_URL": server.endpoint,
        "AWS_ACCESS_KEY_ID": ACCESS,
        "AWS_SECRET_ACCESS_KEY": SECRET,
        "AWS_REGION": "us-east-1",
        "SESSIONTREE_PASSPHRASE": "one passphrase for the team",
        "SESSIONTREE_MACHINE": "laptop",
    }.items():
        monkeypatch.setenv(key, value)
    return name


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def as_machine(monkeypatch: pytest.MonkeyPatch, home: Path, machine: str) -> None:
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SESSIONTREE_MACHINE", machine)


def listed(*args: str) -> list[dict[str, object]]:
    result = run("list", "--all", "--json", *args)
    assert result.exit_code == 0, result.output
    return list(json.loads(result.stdout))


def test_two_machines_share_one_bucket_and_each_sees_the_other(
    bucket: str, server: S3Server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    laptop, desktop = Path.home(), tmp_path / "desktop-home"
    claude_session(
        laptop / ".claude" / "projects" / "p", "1a1a0001-0000-4000-8000-000000000001", LAPTOP_PHRASE
    )
    first = run("keep", "--to", f"s3://{bucket}/team")
    assert first.exit_code == 0, first.output
    assert f"s3://{bucket}/team as laptop" in first.output

    as_machine(monkeypatch, desktop, "desktop")
    claude_session(
        desktop / ".claude" / "projects" / "p", "2b2b0002-0000-4000-8000-000000000002", DESKTOP_PHRASE
    )
    second = run("keep", "--to", f"s3://{bucket}/team")
    assert second.exit_code == 0, second.output
    assert "Brought 1 files from laptop" in second.output
    both = listed()
    assert {(s["id"], s.get("machine")) for s in both} == {
        ("1a1a0001-0000-4000-8000-000000000001", "laptop"),
        ("2b2b0002-0000-4000-8000-000000000002", None),
    }
    assert [s["id"] for s in listed("--machine", "laptop")] == ["1a1a0001-0000-4000-8000-000000000001"]
    assert [s["id"] for s in listed("--machine", "desktop")] == ["2b2b0002-0000-4000-8000-000000000002"]
    assert "1a1a0001" in run("search", LAPTOP_PHRASE, "--machine", "laptop").stdout
    assert "1a1a0001" not in run("search", LAPTOP_PHRASE, "--machine", "desktop").stdout
    assert "from laptop" in run("list", "--all").stdout
    site = tmp_path / "laptop-site"
    built = run("build", "-o", str(site), "--no-search", "-j", "1", "--machine", "laptop")
    assert built.exit_code == 0, built.output
    assert [p.name for p in (site / "sessions").rglob("*.html")] == [
        "1a1a0001-0000-4000-8000-000000000001.html"
    ]
    bad = run("list", "--all", "--machine", "nowhere")
    assert bad.exit_code != 0 and "machines: desktop, laptop" in bad.output

    as_machine(monkeypatch, laptop, "laptop")
    again = run("keep")  # the bucket is remembered
    assert again.exit_code == 0 and f"s3://{bucket}/team" in again.output
    assert "Brought 1 files from desktop" in again.output
    assert {s["id"] for s in listed("--machine", "desktop")} == {"2b2b0002-0000-4000-8000-000000000002"}

    stored = stored_bytes(server.folder / bucket)
    for secret in (LAPTOP_PHRASE, DESKTOP_PHRASE, "laptop", "desktop", "1a1a0001", "/home/dev/demo"):
        assert secret.encode() not in stored


def test_5xx_answers_are_retried_and_a_server_that_keeps_failing_is_one_line(
    bucket: str, server: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude_session(Path.home() / ".claude" / "projects" / "p", "3c3c0003-0000-4000-8000-000000000003", "x")
    proxy = FaultProxy(server)
    try:
        monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.endpoint)
        failed: list[str] = []

        def always_500(method: str, path: str, n: int) -> int | None:
            if method == "PUT" and "/o/" in path:
                failed.append(path)
                return 500
            return None

        proxy.fault = always_500
        result = run("keep", "--to", f"s3://{bucket}/t")
        assert result.exit_code == 1 and "Traceback" not in result.output, result.output
        assert "Cannot write to the bucket" in result.output and len(result.output.splitlines()) <= 2
        assert len(failed) > 1, result.output  # retried before giving up
        assert not (server.folder / bucket / "t" / "i").exists()  # no manifest: nothing half kept

        answered: list[int] = []

        def two_slow_downs(method: str, path: str, n: int) -> int | None:
            if method == "PUT" and "/o/" in path and len(answered) < 2:
                answered.append(503)
                return 503
            return None

        proxy.fault = two_slow_downs
        result = run("keep")
        assert result.exit_code == 0, result.output
        assert answered == [503, 503] and (server.folder / bucket / "t" / "i").is_dir()
    finally:
        proxy.close()


def test_the_server_killed_while_writing_and_while_reading(
    bucket: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = S3Server(tmp_path / "s3").start()
    proxy = FaultProxy(own)
    try:
        monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.endpoint)
        root = Path.home() / ".claude" / "projects" / "p"
        for n in range(3):
            claude_session(root, f"4d4d000{n}-0000-4000-8000-00000000000{n}", LAPTOP_PHRASE)
        puts: list[str] = []

        def kill_at_second_object(method: str, path: str, n: int) -> int | None:
            if method == "PUT" and "/o/" in path:
                puts.append(path)
                if len(puts) == 2:
                    own.kill()
            return None

        proxy.fault = kill_at_second_object
        result = run("keep", "--to", f"s3://{bucket}/t")
        assert result.exit_code == 1 and "Cannot write to the bucket" in result.output
        assert not (own.folder / bucket / "t" / "i").exists()
        own.start()  # the same folder and port
        proxy.fault = lambda method, path, n: None
        result = run("keep")
        assert result.exit_code == 0, result.output

        as_machine(monkeypatch, tmp_path / "other-home", "desktop")
        gets: list[str] = []

        def kill_at_first_object_read(method: str, path: str, n: int) -> int | None:
            if method == "GET" and "/o/" in path:
                gets.append(path)
                own.kill()
            return None

        proxy.fault = kill_at_first_object_read
        result = run("keep", "--to", f"s3://{bucket}/t")
        assert result.exit_code == 1 and "Cannot read from the bucket" in result.output
        assert "Traceback" not in result.output
        kept = tmp_path / "other-home" / ".local" / "share" / "sessiontree" / "kept"
        assert list(kept.rglob("*.jsonl")) == []  # nothing half brought
        own.start()
        proxy.fault = lambda method, path, n: None
        result = run("keep")
        assert result.exit_code == 0, result.output
        copies = sorted(kept.rglob("*.jsonl"))
        assert [p.read_bytes() for p in copies] == [p.read_bytes() for p in sorted(root.glob("*.jsonl"))]
    finally:
        proxy.close()
        own.stop()


def test_wrong_credentials_and_a_wrong_passphrase_are_one_line(
    bucket: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    claude_session(Path.home() / ".claude" / "projects" / "p", "5e5e0005-0000-4000-8000-000000000005", "x")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    result = run("keep", "--to", f"s3://{bucket}/t")
    assert result.exit_code == 1 and "No credentials for" in result.output
    (Path.home() / ".aws").mkdir()
    (Path.home() / ".aws" / "credentials").write_text(f"[default]\naws_secret_access_key = {SECRET}\n")
    assert run("keep", "--to", f"s3://{bucket}/t").exit_code == 0  # the secret from ~/.aws
    (Path.home() / ".aws" / "credentials").unlink()
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")
    result = run("keep", "--to", f"s3://{bucket}/t")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"s3://{bucket}/t" in result.output and len(result.output.strip().splitlines()) <= 2
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    as_machine(monkeypatch, tmp_path / "other-home", "desktop")
    monkeypatch.setenv("SESSIONTREE_PASSPHRASE", "another passphrase")
    result = run("keep", "--to", f"s3://{bucket}/t")
    assert result.exit_code == 1 and "The passphrase does not open this archive" in result.output
    monkeypatch.delenv("SESSIONTREE_PASSPHRASE")
    result = run("keep", "--to", f"s3://{bucket}/t")
    assert result.exit_code == 1 and "kept with a passphrase" in result.output
    assert os.environ["SESSIONTREE_MACHINE"] == "desktop"


def test_two_machines_keeping_at_once_both_land_and_then_see_each_other(
    bucket: str, server: S3Server, tmp_path: Path
) -> None:
    homes = {"laptop": tmp_path / "laptop", "desktop": tmp_path / "desktop"}
    for n, home in enumerate(homes.values()):
        for m in range(3):
            claude_session(
                home / ".claude" / "projects" / "p", f"6f6f{n}{m}00-0000-4000-8000-00000000000{m}", "x"
            )
    base = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONTREE_")}

    def start(machine: str) -> subprocess.Popen[str]:
        env = base | {"HOME": str(homes[machine]), "SESSIONTREE_MACHINE": machine}
        env |= {
            "SESSIONTREE_PASSPHRASE": "one passphrase for the team",
            "XDG_CACHE_HOME": str(homes[machine] / "c"),
        }
        args = [str(Path(sys.executable).with_name("sessiontree")), "keep", "--to", f"s3://{bucket}/t"]
        return subprocess.Popen(args, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)

    first = [start(machine) for machine in homes]  # at once: each writes only under its own name
    for process in first:
        _out, err = process.communicate(timeout=240)
        assert process.returncode == 0, err
    for machine in homes:  # a second round: each brings what the other kept meanwhile
        process = start(machine)
        _out, err = process.communicate(timeout=240)
        assert process.returncode == 0, err
        other = next(m for m in homes if m != machine)
        copies = homes[machine] / ".local" / "share" / "sessiontree" / "kept" / other
        assert len(list(copies.rglob("*.jsonl"))) == 3


def test_a_request_the_server_never_answers_times_out_in_one_line(
    bucket: str, server: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude_session(Path.home() / ".claude" / "projects" / "p", "7f7f0007-0000-4000-8000-000000000007", "x")
    proxy = FaultProxy(server)
    released = threading.Event()
    try:
        monkeypatch.setenv("AWS_ENDPOINT_URL", proxy.endpoint)
        monkeypatch.setenv("SESSIONTREE_KEEP_TIMEOUT", "1")

        def hang(method: str, path: str, n: int) -> int | None:
            if method == "PUT" and "/o/" in path:
                released.wait(timeout=240)  # a server that never answers (until the test ends)
            return None

        proxy.fault = hang
        result = run("keep", "--to", f"s3://{bucket}/t")
        assert result.exit_code == 1 and "Traceback" not in result.output
        assert "Cannot write to the bucket" in result.output
        assert not (server.folder / bucket / "t" / "i").exists()
    finally:
        released.set()
        proxy.close()
