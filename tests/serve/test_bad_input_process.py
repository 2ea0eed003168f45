"""A real ``sessiontree serve`` over damaged files and odd file names: no 5xx, no traceback, no hang."""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

import httpx

from tests.mutants import write_mutants
from tests.serve.process import listed, serve_process

ODD = {b"bad-\xff.jsonl": "zqbadbyte", b"new\nline.jsonl": "zqnewline", b"%2e%2e.jsonl": "zqpercent"}


def test_serve_answers_every_page_of_a_damaged_folder(tmp_path: Path) -> None:
    folder = write_mutants(tmp_path / "root")
    good = (folder.root / "pi-good.jsonl").read_bytes()
    for name, word in ODD.items():
        Path(os.fsdecode(os.fsencode(folder.root) + b"/" + name)).write_bytes(
            good.replace(b'"pi-good"', f'"{word}"'.encode()).replace(b'"pi good"', f'"{word} title"'.encode())
        )
    os.mkfifo(folder.root / "pipe.jsonl")
    with (
        serve_process(folder.root, tmp_path / "agent", tmp_path / "cache") as served,
        httpx.Client(base_url=served.url, timeout=120) as client,
    ):
        listed(client)
        index = client.get("/")
        assert index.status_code == 200
        assert "unreadable: it is a named pipe" in index.text
        for word in ODD.values():
            assert f"{word} title" in index.text
        links = sorted({html.unescape(h) for h in re.findall(r'href="(/s/[^"?]+)"', index.text)})
        readable = len(folder.good) + sum(m.readable for m in folder.mutants) + len(ODD)
        assert len(links) == readable
        for link in links:
            page = client.get(link)
            assert page.status_code == 200 and 'id="st-data"' in page.text, link
            raw = client.get(link.replace("/s/", "/raw/", 1))
            assert raw.status_code == 200 and raw.content, link
        assert client.get("/usage").status_code == 200
        for query in ("the", "zqbadbyte", "zqnewline"):
            found = client.get("/api/search", params={"q": query, "limit": "200"})
            assert found.status_code == 200, query
            hits = found.json()["hits"]
            assert hits and all(client.get(hit["href"]).status_code == 200 for hit in hits[:20]), query
        assert served.stop() == 0
        assert served.proc.stderr is not None
        errors = served.proc.stderr.read()
    assert "Traceback" not in errors, errors
