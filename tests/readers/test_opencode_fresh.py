"""An OpenCode storage session's page follows its message and part files (issue 55): the session's
own file does not change when OpenCode adds a part, so export's page cache and serve's loaded
session are keyed by every file the page reads, and a new or changed part is shown without
``--no-cache``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import httpx

from tests.readers.helpers import run
from tests.readers.opencode_db import STORAGE
from tests.serve.process import serve_process

SID = "ses_5f2c8a71bffeQ1vN3xR7tK9mLp"
MESSAGE = "msg_a7c1e2f30001Xk2"


def _storage(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "storage"
    shutil.copytree(STORAGE, root)
    (session,) = (root / "session").rglob(f"{SID}.json")
    return root, session


def _add_part(root: Path, word: str, name: str = "prt_a7c1e2f30199.json") -> Path:
    part = {"id": name[:-5], "sessionID": SID, "messageID": MESSAGE, "type": "text", "text": word}
    path = root / "part" / MESSAGE / name
    path.write_text(json.dumps(part), encoding="utf-8")
    return path


def test_export_from_the_page_cache_shows_a_new_and_a_changed_part(tmp_path: Path) -> None:
    root, session = _storage(tmp_path)
    out, cache = tmp_path / "page.html", str(tmp_path / "cache")
    code, _, err = run("export", str(session), str(out), "--cache-dir", cache)
    assert code == 0, err
    assert "zqfreshpart" not in out.read_text(encoding="utf-8")
    part = _add_part(root, "zqfreshpart")
    code, _, err = run("export", str(session), str(out), "--cache-dir", cache)
    assert code == 0, err
    assert "zqfreshpart" in out.read_text(encoding="utf-8")
    part.write_text(
        part.read_text(encoding="utf-8").replace("zqfreshpart", "zqchangedpart"), encoding="utf-8"
    )
    os.utime(part, ns=(part.stat().st_mtime_ns + 10**9,) * 2)  # a rewrite within the clock's tick
    code, _, err = run("export", str(session), str(out), "--cache-dir", cache)
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    assert "zqchangedpart" in page and "zqfreshpart" not in page


def test_serve_shows_a_part_added_to_an_open_session(tmp_path: Path) -> None:
    root, _ = _storage(tmp_path)
    with (
        serve_process(root, tmp_path / "agent", tmp_path / "cache") as served,
        httpx.Client(base_url=served.url, timeout=120) as http,
    ):
        index = http.get("/")
        (link,) = set(re.findall(r'href="(/s/[^"]*ses_[^"]*\.json)"', index.text))
        first = http.get(link)
        assert first.status_code == 200 and "zqservedpart" not in first.text
        _add_part(root, "zqservedpart")
        again = http.get(link)
        assert again.status_code == 200 and "zqservedpart" in again.text
        assert served.stop() == 0
