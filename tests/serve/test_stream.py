"""Event streams of the real ``sessiontree serve`` process: incremental reads, index updates, Ctrl-C."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlsplit

import httpx
import pytest

from tests.conftest import GenSession
from tests.serve.conftest import KEY, append_line, write_session
from tests.serve.process import EventReader, Served, page_settings, serve_process
from tests.store.helpers import assistant, msg


@pytest.fixture
def served(sessions_dir: Path, agent_dir: Path, tmp_path: Path) -> Iterator[Served]:
    with serve_process(sessions_dir, agent_dir, tmp_path / "cache") as s:
        yield s


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=120) as c:  # a ceiling for a loaded machine
        yield c


def open_session(http: httpx.Client, served: Served, key: str = KEY) -> EventReader:
    page = http.get(f"{served.url}/s/{quote(key)}")
    assert page.status_code == 200
    settings = page_settings(page.text)
    url = f"{served.url}{settings['events']}?g={settings['generation']}&n={settings['count']}"
    reader = EventReader(http, url)
    assert reader.response.status_code == 200
    assert reader.response.headers["content-type"].startswith("text/event-stream")
    return reader


def test_appends_arrive_as_events(served: Served, http: httpx.Client, sessions_dir: Path) -> None:
    reader = open_session(http, served)
    path = sessions_dir / KEY
    append_line(path, msg("u2", "a1", "user", "live prompt"))
    event = reader.next_named("append", "replaced")
    assert event.name == "append"
    assert [item[0]["id"] for item in event.data["entries"]] == ["u2"]
    assert "live prompt" in event.data["entries"][0][1]
    append_line(path, assistant("a2", "u2", "live answer"))
    event = reader.next_named("append")
    assert [item[0]["id"] for item in event.data["entries"]] == ["a2"]
    reader.close()


def test_half_line_then_rest_is_one_entry(served: Served, http: httpx.Client, sessions_dir: Path) -> None:
    reader = open_session(http, served)
    path = sessions_dir / KEY
    line = json.dumps(msg("u2", "a1", "user", "written in two parts")) + "\n"
    append_line(path, line[:30])
    append_line(path, line[30:])
    append_line(path, msg("u3", "u2", "user", "marker"))
    ids: list[str] = []
    while "u3" not in ids:
        event = reader.next_named("append", "replaced")
        assert event.name == "append"
        ids += [item[0]["id"] for item in event.data["entries"]]
    assert ids == ["u2", "u3"]  # never a corrupt piece of u2 on its own
    reader.close()


@pytest.mark.parametrize("change", ["shrink", "rename", "first-line"])
def test_rewrites_push_replaced(
    served: Served, http: httpx.Client, sessions_dir: Path, tmp_path: Path, change: str
) -> None:
    reader = open_session(http, served)
    path = sessions_dir / KEY
    if change == "shrink":
        data = path.read_bytes()
        with open(path, "r+b") as fh:
            fh.truncate(data.rindex(b"\n", 0, len(data) - 1) + 1)
    elif change == "rename":
        temp = write_session(tmp_path / "new.jsonl", "s1", "/work/demo", msg("u9", "a1", "user"))
        os.replace(temp, path)
    else:
        first, rest = path.read_bytes().split(b"\n", 1)
        renamed = first.replace(b"/work/demo", b"/work/dem0")
        with open(path, "r+b") as fh:
            fh.write(renamed)
        assert len(renamed) == len(first) and path.read_bytes() == renamed + b"\n" + rest
    event = reader.next_named("append", "replaced")
    assert event.name == "replaced"
    reader.close()


def test_late_page_catches_up(served: Served, http: httpx.Client, sessions_dir: Path) -> None:
    page = http.get(f"{served.url}/s/{quote(KEY)}")
    settings = page_settings(page.text)
    append_line(sessions_dir / KEY, msg("u2", "a1", "user", "before the stream opened"))
    reader = EventReader(
        http, f"{served.url}{settings['events']}?g={settings['generation']}&n={settings['count']}"
    )
    event = reader.next_named("append")
    assert event.data["entries"][-1][0]["id"] == "u2"
    reader.close()


def test_several_clients_get_every_append(served: Served, http: httpx.Client, sessions_dir: Path) -> None:
    readers = [open_session(http, served) for _ in range(3)]
    append_line(sessions_dir / KEY, msg("u2", "a1", "user", "to everyone"))
    for reader in readers:
        ids: list[str] = []
        while "u2" not in ids:
            ids += [item[0]["id"] for item in reader.next_named("append").data["entries"]]
    for reader in readers:
        reader.close()


def test_new_session_appears_on_the_index(served: Served, http: httpx.Client, sessions_dir: Path) -> None:
    reader = EventReader(http, f"{served.url}/events")
    first = reader.next_named("index").data  # what the listing is; no rows
    assert first["first"] is True and first["html"] == "" and first["state"]
    assert first["summary"] == "2 sessions in 2 projects"
    write_session(sessions_dir / "--work-new--" / "2026-02-01_new.jsonl", "new1", "/work/new")
    while True:
        event = reader.next_named("index")
        if "hello from new1" in event.data["html"]:
            break
    # Only what changed: the new row in its project's group, not the rows that did not change.
    assert 'data-cwd="/work/new"' in event.data["html"]
    assert "hello from s1" not in event.data["html"] and "hello from s2" not in event.data["html"]
    assert event.data["summary"] == "3 sessions in 3 projects" and event.data["state"] != first["state"]
    (sessions_dir / "--work-new--" / "2026-02-01_new.jsonl").unlink()
    while "--work-new--/2026-02-01_new.jsonl" not in reader.next_named("index").data["gone"]:
        pass
    reader.close()


def test_a_session_stream_first_says_the_listing_its_pane_may_have_missed(
    served: Served, http: httpx.Client, sessions_dir: Path
) -> None:
    # A page's pane fetches its list before the page's stream is open: a change in between was
    # pushed to no stream, and the pane kept the older list (the counts of a file settled then).
    before = http.get(f"{served.url}/api/sessions").json()["state"]
    reader = open_session(http, served)
    first = reader.next()
    assert first.name == "sessions" and first.data["state"] == before  # the pane has it: no fetch
    reader.close()
    write_session(sessions_dir / "--work-new--" / "2026-02-01_new.jsonl", "new1", "/work/new")
    deadline = time.monotonic() + 120  # a bound for a hung server, not a timing assertion
    while http.get(f"{served.url}/api/sessions").json()["state"] == before:
        assert time.monotonic() < deadline, "the listing never showed the new file"
        time.sleep(0.05)
    reader = open_session(http, served)
    first = reader.next()
    assert first.name == "sessions" and first.data["state"] != before  # the pane fetches its list again
    reader.close()


def test_folder_deleted_and_recreated(
    served: Served, http: httpx.Client, sessions_dir: Path, tmp_path: Path
) -> None:
    reader = EventReader(http, f"{served.url}/events")
    backup = tmp_path / "backup"
    shutil.move(sessions_dir, backup)
    while KEY not in reader.next_named("index").data["gone"]:
        pass  # the folder is gone: its sessions leave the index
    sessions_dir.mkdir()
    write_session(sessions_dir / "--work-back--" / "2026-03-01_back.jsonl", "back1", "/work/back")
    while "hello from back1" not in reader.next_named("index").data["html"]:
        pass  # watched again once it is back
    reader.close()


def test_sigint_ends_the_process_with_open_streams(served: Served, http: httpx.Client) -> None:
    assert served.proc.stdout is not None and served.proc.stderr is not None
    assert served.proc.stdout.readline() == "Press Ctrl-C to stop.\n"
    readers = [open_session(http, served) for _ in range(3)]
    readers += [EventReader(http, f"{served.url}/events") for _ in range(3)]
    readers[-1].next_named("index")  # the streams are open and have sent
    served.proc.send_signal(signal.SIGINT)
    assert served.proc.wait(timeout=120) == 0
    # Nothing but the stop line: no "Task was destroyed", no "ASGI callable returned without ..."
    assert served.proc.stdout.read() == "Stopped.\n"
    assert served.proc.stderr.read() == ""
    for reader in readers:
        with pytest.raises((AssertionError, httpx.HTTPError)):
            while True:
                reader.next()  # the stream ends instead of hanging
        reader.close()


def _status_for_host(url: str, host: bytes) -> tuple[int, bytes]:
    """Send one GET with this exact Host header over a plain socket; the status and the head."""
    parsed = urlsplit(url)
    assert parsed.hostname is not None and parsed.port is not None
    with socket.create_connection((parsed.hostname, parsed.port), timeout=30) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n")
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    head = data.partition(b"\r\n\r\n")[0].lower()
    return int(head.split(b" ", 2)[1]), head


def test_real_server_refuses_hosts_that_only_start_like_its_own(served: Served) -> None:
    port = str(urlsplit(served.url).port).encode()
    assert _status_for_host(served.url, b"127.0.0.1:" + port)[0] == 200
    for host in (
        b"localhost:" + port + b".evil.example",
        b"127.0.0.1:" + port + b"@evil.example",
        b"localhost:" + port + b":" + port,
        b"[::1]:" + port + b".evil.example",
        b"evil.example:" + port,
    ):
        status, head = _status_for_host(served.url, host)
        assert status == 400, host
        assert b"x-content-type-options: nosniff" in head


def _worker_cpu_ticks(pid: int) -> int:
    """CPU ticks used by a process's threads other than its main one (work handed to worker threads)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        if task.name == str(pid):
            continue
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the thread ended meanwhile
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads thread CPU times from /proc")
def test_sigint_while_a_page_renders_is_quiet_and_does_not_wait_for_it(
    gen_session: GenSession, agent_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "sessions" / "--big--"
    folder.mkdir(parents=True)
    shutil.copy(gen_session(1000), folder / "big.jsonl")
    with serve_process(tmp_path / "sessions", agent_dir, tmp_path / "cache") as served:
        assert served.proc.stdout is not None and served.proc.stderr is not None
        assert served.proc.stdout.readline() == "Press Ctrl-C to stop.\n"
        page = threading.Thread(target=_get_quietly, args=(served.url + "/s/--big--/big.jsonl",))
        page.start()
        while _worker_cpu_ticks(served.proc.pid) < 50:  # half a second of work in a worker: mid-request
            assert served.proc.poll() is None and page.is_alive()
            time.sleep(0.01)
        served.proc.send_signal(signal.SIGINT)
        assert served.proc.wait(timeout=120) == 0
        page.join()
        assert served.proc.stdout.read() == "Stopped.\n"
        assert served.proc.stderr.read() == ""  # no "Exception in ASGI application", no cancelled tasks


def _get_quietly(url: str) -> None:
    with contextlib.suppress(httpx.HTTPError):
        httpx.get(url, timeout=120)
