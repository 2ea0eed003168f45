"""``keep`` into the local archive: every file kept, encrypted, only what changed sent, nothing
half-kept after a failure, deleted sessions brought back as shown copies."""

from __future__ import annotations

import json
import os
import plistlib
import stat
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessiontree.archive.keep import run as keep_run
from sessiontree.archive.keep import walk as keep_walk
from sessiontree.archive.keep.envelope import Keys, read_or_make_key, seal, unseal
from sessiontree.archive.keep.manifest import Manifest, Places
from sessiontree.archive.keep.repository import Repository
from sessiontree.archive.keep.run import keep, run_lock
from sessiontree.archive.keep.stores import FolderStore
from sessiontree.cli import cli
from sessiontree.errors import KeepDamaged
from tests.keep.conftest import claude_session, stored_bytes

PHRASE = "zebra-quartz-marmalade"


def manifest_of(places: Places) -> Manifest:
    repo = Repository(FolderStore(places.archive), Keys.derive(read_or_make_key(places.key_file)))
    names = repo.manifest_names()
    assert len(names) == 1
    found = repo.read_manifest(next(iter(names.values())))
    assert found is not None
    return found


def test_everything_is_kept_encrypted_and_a_second_run_writes_nothing(
    claude_root: Path, places: Places
) -> None:
    session = claude_session(claude_root / "-home-dev-demo", "aaaa1111-0000-4000-8000-000000000001", PHRASE)
    sub = session.with_suffix("") / "subagents" / "agent-1.jsonl"
    sub.parent.mkdir(parents=True)
    sub.write_text(json.dumps({"type": "user", "text": PHRASE + " sub"}) + "\n")
    result = CliRunner().invoke(cli, ["keep"])
    assert result.exit_code == 0, result.output
    assert "Kept 2 files" in result.output
    archive = stored_bytes(places.archive)
    assert PHRASE.encode() not in archive and b"aaaa1111" not in archive and b"home-dev" not in archive
    assert stat.S_IMODE(places.key_file.stat().st_mode) == 0o600
    assert places.key_file.parent == Path.home() / ".config" / "sessiontree"  # not beside the archive
    manifest = manifest_of(places)
    assert sorted(k.split("/", 2)[2] for k in manifest.files) == [
        "-home-dev-demo/aaaa1111-0000-4000-8000-000000000001.jsonl",
        "-home-dev-demo/aaaa1111-0000-4000-8000-000000000001/subagents/agent-1.jsonl",
    ]
    before = {p: p.stat().st_mtime_ns for p in places.base.rglob("*") if p.is_file()}
    again = CliRunner().invoke(cli, ["keep"])
    assert again.exit_code == 0 and "nothing new" in again.output
    assert {p: p.stat().st_mtime_ns for p in places.base.rglob("*") if p.is_file()} == before


def test_an_append_sends_only_its_bytes_and_a_rewrite_keeps_the_earlier_version(
    claude_root: Path, places: Places
) -> None:
    session = claude_session(claude_root / "p", "bbbb2222-0000-4000-8000-000000000002", PHRASE)
    keep([claude_root])
    first = session.read_bytes()
    line = b'{"type":"user","message":{"role":"user","content":"one more"}}\n'
    with session.open("ab") as fh:
        fh.write(line)
    report = keep([claude_root])
    assert (report.changed, report.appended, report.sent_bytes, report.objects) == (1, 1, len(line), 1)
    record = next(iter(manifest_of(places).files.values()))
    assert record.now.size == len(first) + len(line) and record.old == []
    session.write_bytes(b'{"type":"user","message":{"role":"user","content":"rewritten"}}\n')
    report = keep([claude_root])
    assert report.appended == 0 and report.sent_bytes == session.stat().st_size
    record = next(iter(manifest_of(places).files.values()))
    assert len(record.old) == 1
    repo = Repository(FolderStore(places.archive), Keys.derive(read_or_make_key(places.key_file)))
    assert b"".join(repo.get(name) for name, _o, _n in record.old[0].parts) == first + line


def test_a_deleted_session_comes_back_as_a_shown_copy_with_its_own_time(
    claude_root: Path, places: Places
) -> None:
    session = claude_session(claude_root / "p", "cccc3333-0000-4000-8000-000000000003", PHRASE)
    content, mtime = session.read_bytes(), session.stat().st_mtime_ns
    keep([claude_root])
    assert not places.kept.exists()  # a live file is not copied twice
    session.unlink()
    report = keep([claude_root])
    assert report.gone == 1
    copies = [p for p in places.kept.rglob("*.jsonl")]
    assert len(copies) == 1 and copies[0].read_bytes() == content and copies[0].stat().st_mtime_ns == mtime
    index = json.loads((copies[0].parents[3] / "index.json").read_text())
    assert list(index["gone"].values()) == [__import__("datetime").date.today().isoformat()]
    session.write_bytes(content)  # back again: the live file is the session
    os.utime(session, ns=(mtime, mtime))
    keep([claude_root])
    assert list(places.kept.rglob("*.jsonl")) == []


class Interrupted(BaseException):
    pass


def test_a_run_stopped_midway_leaves_no_manifest_and_the_next_one_finishes(
    claude_root: Path, places: Places, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(4):
        claude_session(claude_root / "p", f"dddd{n}444-0000-4000-8000-00000000000{n}", PHRASE)
    real_put = FolderStore.put
    calls = iter(range(100))
    guard = threading.Lock()

    def failing_put(self: FolderStore, name: str, data: bytes) -> None:
        with guard:
            number = next(calls) if name.startswith("o/") else -1
        if number >= 2:
            raise Interrupted  # as a kill after two objects
        real_put(self, name, data)

    monkeypatch.setattr(FolderStore, "put", failing_put)
    with pytest.raises(Interrupted):
        keep([claude_root])
    assert not (places.archive / "i").exists()  # no manifest: nothing is half-kept
    monkeypatch.setattr(FolderStore, "put", real_put)
    report = keep([claude_root])
    assert report.changed == 4 and report.objects == 2  # the two objects already there are not sent again
    assert len(manifest_of(places).files) == 4


def test_a_file_deleted_after_listing_and_one_written_while_kept(
    claude_root: Path, places: Places, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = claude_session(claude_root / "p", "eeee5555-0000-4000-8000-000000000005", PHRASE)
    moving = claude_session(claude_root / "p", "ffff6666-0000-4000-8000-000000000006", PHRASE)
    real_walk, real_send = keep_walk.walk_roots, keep_run._Sender.send

    def walk_then_delete(roots, suffixes=None):  # type: ignore[no-untyped-def]
        found = real_walk(roots, suffixes)
        gone.unlink()
        return found

    def send_then_append(self, key, offset, piece):  # type: ignore[no-untyped-def]
        if key.endswith(moving.name):
            with moving.open("a") as fh:
                fh.write('{"type":"user","message":{"role":"user","content":"late"}}\n')
        return real_send(self, key, offset, piece)

    monkeypatch.setattr(keep_walk, "walk_roots", walk_then_delete)
    monkeypatch.setattr(keep_run._Sender, "send", send_then_append)
    report = keep([claude_root])
    assert report.changed == 1
    record = next(iter(manifest_of(places).files.values()))
    assert record.now.mtime_ns == -1  # written to while read: read again by the next run
    monkeypatch.setattr(keep_walk, "walk_roots", real_walk)
    monkeypatch.setattr(keep_run._Sender, "send", real_send)
    report = keep([claude_root])
    assert report.changed == 1 and report.appended == 1
    record = next(iter(manifest_of(places).files.values()))
    assert record.now.size == moving.stat().st_size and record.now.mtime_ns == moving.stat().st_mtime_ns


def test_a_damaged_object_is_refused_in_one_line_and_never_shown(claude_root: Path, places: Places) -> None:
    session = claude_session(claude_root / "p", "abab7777-0000-4000-8000-000000000007", PHRASE)
    keep([claude_root])
    session.unlink()
    (obj,) = [p for p in (places.archive / "o").rglob("*") if p.is_file()]
    data = bytearray(obj.read_bytes())
    data[40] ^= 1
    obj.write_bytes(bytes(data))
    result = CliRunner().invoke(cli, ["keep"])
    assert result.exit_code == 1
    assert "Refused a damaged object" in result.output and "Traceback" not in result.output
    assert list(places.kept.rglob("*.jsonl")) == []


def test_the_envelope_refuses_a_wrong_key_a_moved_object_and_a_cut_one() -> None:
    keys, other = Keys.derive(b"k" * 32), Keys.derive(b"j" * 32)
    sealed = seal(keys, "o/a", b"plain text " * 100)
    assert sealed[0] == 1 and seal(keys, "o/a", b"plain text " * 100)[1:13] != sealed[1:13]  # fresh nonce
    assert unseal(keys, "o/a", sealed) == b"plain text " * 100
    for bad_keys, name, data in ((other, "o/a", sealed), (keys, "o/b", sealed), (keys, "o/a", sealed[:-1])):
        with pytest.raises(KeepDamaged):
            unseal(bad_keys, name, data)


def test_a_wrong_key_or_passphrase_is_one_line(claude_root: Path, places: Places, monkeypatch) -> None:
    claude_session(claude_root / "p", "acac8888-0000-4000-8000-000000000008", PHRASE)
    assert CliRunner().invoke(cli, ["keep"]).exit_code == 0
    places.key_file.write_text("A" * 43 + "=\n")
    result = CliRunner().invoke(cli, ["keep"])
    assert result.exit_code == 1 and "does not open this archive" in result.output
    assert "Traceback" not in result.output
    other = places.base.parent / "passphrased"
    monkeypatch.setenv("SESSIONTREE_KEEP_DIR", str(other))
    monkeypatch.setenv("SESSIONTREE_PASSPHRASE", "correct horse")
    assert CliRunner().invoke(cli, ["keep"]).exit_code == 0
    assert json.loads((other / "archive" / "config").read_text())["kdf"] == "scrypt"
    assert not (other / "keep.key").exists() and places.key_file.read_text() == "A" * 43 + "=\n"
    monkeypatch.setenv("SESSIONTREE_PASSPHRASE", "wrong horse")
    result = CliRunner().invoke(cli, ["keep"])
    assert result.exit_code == 1 and "The passphrase does not open this archive" in result.output


def test_two_runs_at_once_the_second_stops_at_once(claude_root: Path, places: Places) -> None:
    claude_session(claude_root / "p", "adad9999-0000-4000-8000-000000000009", PHRASE)
    with run_lock(places):
        result = CliRunner().invoke(cli, ["keep"])
    assert result.exit_code == 1 and "Another keep run is under way" in result.output
    assert not places.archive.exists()


def test_schedule_prints_a_cron_line_a_systemd_timer_and_a_launchd_agent() -> None:
    cron = CliRunner().invoke(cli, ["keep", "--schedule", "cron"]).output
    assert cron.splitlines()[1].startswith("0 * * * * ") and " keep" in cron
    systemd = CliRunner().invoke(cli, ["keep", "--schedule", "systemd"]).output
    assert "ExecStart=" in systemd and "OnUnitActiveSec=60min" in systemd and "[Timer]" in systemd
    launchd = CliRunner().invoke(cli, ["keep", "--schedule", "launchd"]).output
    plist = plistlib.loads(launchd.split("\n", 1)[1].encode())
    assert plist["ProgramArguments"][-1] == "keep" and plist["StartInterval"] == 3600


def test_a_disk_that_refuses_writes_is_one_line_and_the_next_run_keeps_all(
    claude_root: Path, places: Places
) -> None:
    """Files over 256 KiB refused by the kernel (RLIMIT_FSIZE: EFBIG, as a full disk's ENOSPC is an
    OSError of the same write) in a real ``sessiontree keep`` process."""
    import base64
    import resource
    import signal
    import subprocess
    import sys

    session = claude_session(claude_root / "p", "aeae0010-0000-4000-8000-000000000010", PHRASE)
    with session.open("a") as fh:  # incompressible: its object is over the limit
        fh.write(json.dumps({"type": "user", "blob": base64.b64encode(os.urandom(600_000)).decode()}) + "\n")

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024, 256 * 1024))

    program = [str(Path(sys.executable).with_name("sessiontree")), "keep"]
    full = subprocess.run(program, preexec_fn=limited, capture_output=True, text=True, timeout=240)
    assert full.returncode == 1 and "Traceback" not in full.stderr
    assert "Cannot write to the archive" in full.stderr and "File too large" in full.stderr
    assert not (places.archive / "i").exists()  # no manifest: nothing half kept
    done = subprocess.run(program, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert manifest_of(places).files  # kept whole by the next run
