"""A real ``sessiontree serve`` run by a user who owns none of the files (issue 36): folders it may
list but not enter, folders it may not list, an unreadable blob. No 5xx, every good session listed."""

from __future__ import annotations

import html
import re
from pathlib import Path

import httpx

from tests.cli.test_faults import blob_session, good_session
from tests.serve.process import serve_process
from tests.stranger import give, restrict, stranger_dir, stranger_env, stranger_python  # noqa: F401


def test_serve_as_a_stranger_answers_every_route(stranger_dir: Path) -> None:  # noqa: F811
    agent = stranger_dir / "agent"
    root = agent / "sessions"
    _, blob = blob_session(agent)
    good_session(root / "--good--" / "good.jsonl", "good-one")
    for mode in (0o700, 0o744):
        folder = root / f"--p{mode:o}--"
        good_session(folder / "p.jsonl", f"private-{mode:o}")
        (folder / "p").mkdir()
        restrict(folder, mode)
    restrict(blob, 0o600)
    home = stranger_dir / "home"
    give(home)
    with (
        serve_process(
            root, agent, home / "cache", python=stranger_python(), env=stranger_env(home)
        ) as served,
        httpx.Client(base_url=served.url, timeout=120) as client,
    ):
        index = client.get("/")
        assert index.status_code == 200
        links = sorted({html.unescape(h) for h in re.findall(r'href="(/s/[^"?]+)"', index.text)})
        assert links == ["/s/--good--/good.jsonl", "/s/--w--/img.jsonl"]
        assert 'data-key="--p744--/p.jsonl"' in index.text and "unreadable: permission denied" in index.text
        for link in links:
            assert client.get(link).status_code == 200, link
            assert client.get(link.replace("/s/", "/export/", 1)).status_code == 200, link
        assert client.get("/s/--p744--/p.jsonl").status_code in (403, 404)
        assert client.get("/usage").status_code == 200
        found = client.get("/api/search", params={"q": "Atomic"})
        assert found.status_code == 200 and found.json()["hits"]
        picture = client.get(f"/blobs/{blob.name}.png")
        assert (
            picture.status_code == 403 and picture.text == f"blob {blob.name}: unreadable: permission denied"
        )
        assert served.stop() == 0
        assert served.proc.stderr is not None
        errors = served.proc.stderr.read()
    assert "Traceback" not in errors, errors
