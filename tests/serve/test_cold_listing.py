"""A cold serve (no catalog cache) answers its index from prefix reads; the exact counts and late
titles come afterwards over the index's event stream (issue 21 item 6). Real process, real files."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import httpx

from tests.conftest import GEN_SESSION
from tests.serve.conftest import append_line, write_session
from tests.serve.process import EventReader, serve_process

BIG_KEY = "--home-dev-demo--/big.jsonl"


def item_meta(page: str, key: str) -> tuple[str, str]:
    """The (title, meta line) of one listed session in index HTML."""
    found = re.search(
        rf'<li class="st-session[^"]*" data-key="{re.escape(key)}".*?class="st-title"[^>]*>(.*?)</(?:a|span)>'
        r'.*?<span class="st-meta">(.*?)</span>\s*(?:<ul|</li>)',
        page,
        re.S,
    )
    assert found is not None, f"{key} not listed"
    return html.unescape(found.group(1)), html.unescape(re.sub(r"<[^>]+>", "", found.group(2)))


def raw_message_count(path: Path) -> int:
    """The messages of a session file counted from its raw text, line by line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return sum(1 for line in lines if line.strip() and json.loads(line).get("type") == "message")


def folder(tmp_path: Path) -> Path:
    """A sessions folder: two small sessions and a generated ~1 MB one renamed at its very end."""
    root = tmp_path / "sessions"
    for n in (1, 2):
        write_session(root / "--work-demo--" / f"small{n}.jsonl", f"s{n}")
    big = root / BIG_KEY
    big.parent.mkdir(parents=True)
    cmd = [sys.executable, str(GEN_SESSION), "--turns", "100", "--seed", "3", "-o", str(big)]
    subprocess.run(cmd, check=True)
    append_line(big, {"type": "session_info", "id": "zz-rename", "name": "Renamed at the end"})
    return root


def test_cold_index_answers_from_prefixes_then_streams_exact_counts(tmp_path: Path) -> None:
    root = folder(tmp_path)
    big = root / BIG_KEY
    expected = raw_message_count(big)
    assert expected > 100 and big.stat().st_size > 512 * 1024
    cache = tmp_path / "cache"
    with serve_process(root, tmp_path / "agent", cache) as served, httpx.Client() as client:
        first = client.get(served.url + "/")
        assert first.status_code == 200
        title, meta = item_meta(first.text, BIG_KEY)
        # The small files, read whole in passing, are exact. The server lists its folders at
        # start and reads pending files in the background, so the first answer may come before
        # the big file was read whole or after: before, its count is pending (never 0) and its
        # title the header's, and the exact ones come over the event stream.
        assert "2 messages" in item_meta(first.text, "--work-demo--/small1.jsonl")[1]
        assert "0 messages" not in meta
        if "messages pending" in meta:
            assert title == "Synthetic demo session"
            events = EventReader(client, served.url + "/events")
            try:
                # The stream's first event says what the listing is: changed since the page (the
                # big file read whole in between), the page asks for its rows again; else the
                # next events hold the rows that change, the big one's when it does.
                data = events.next_named("index").data
                page_state = re.search(r'id="st-groups"[^>]* data-state="([^"]+)"', first.text)
                assert data["first"] is True and page_state is not None
                if data["state"] != page_state.group(1):
                    data = client.get(served.url + "/api/index-rows").json()
                title, meta = item_meta(data["html"], BIG_KEY) if BIG_KEY in data["html"] else ("", "")
                while "messages pending" in meta or not meta:
                    data = events.next_named("index").data
                    if f'data-key="{BIG_KEY}"' in data["html"]:
                        title, meta = item_meta(data["html"], BIG_KEY)
            finally:
                events.close()
        assert f" {expected} messages · " in meta
        assert title == "Renamed at the end"

        again = client.get(served.url + "/")  # the settled record stays
        assert item_meta(again.text, BIG_KEY) == (title, meta)

    # The next start is warm: the cache holds the exact count, the first answer shows it.
    with serve_process(root, tmp_path / "agent", cache) as served, httpx.Client() as client:
        assert item_meta(client.get(served.url + "/").text, BIG_KEY) == (title, meta)
