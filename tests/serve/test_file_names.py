"""Any file name the file system allows is listed and served; what cannot be read says why."""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

import pytest
from httpx import AsyncClient

from tests.serve.conftest import write_session

pytestmark = pytest.mark.anyio

ODD_NAMES = [
    b"bad-\xff-byte.jsonl",  # not UTF-8
    b"proj-\xfe/inside.jsonl",  # a folder whose name is not UTF-8
    b"new\nline.jsonl",
    b"%2e%2e.jsonl",  # a literal "%2e%2e", no dots
    b"a%2fb%25.jsonl",
    b"back\\slash.jsonl",
    b"hash#q?.jsonl",
    "caf\u00e9 \U0001f600.jsonl".encode(),
]


def odd_path(root: Path, name: bytes) -> Path:
    return Path(os.fsdecode(os.fsencode(root) + b"/" + name))


@pytest.fixture
def odd_files(sessions_dir: Path) -> dict[bytes, Path]:
    return {name: write_session(odd_path(sessions_dir, name), f"odd{i}") for i, name in enumerate(ODD_NAMES)}


async def test_every_file_name_is_listed_and_each_page_answers(
    client: AsyncClient, odd_files: dict[bytes, Path]
) -> None:
    index = await client.get("/")
    assert index.status_code == 200
    assert 'data-key="bad-\\xff-byte.jsonl"' in index.text  # bytes that are not UTF-8 shown escaped
    links = [html.unescape(h) for h in re.findall(r'href="(/s/[^"?]+)"', index.text)]
    assert len(links) == len(ODD_NAMES) + 2  # and the two plain sessions
    downloaded = set()
    for link in links:
        page = await client.get(link)
        assert page.status_code == 200 and 'id="st-data"' in page.text, link
        raw = await client.get(link.replace("/s/", "/raw/", 1))
        assert raw.status_code == 200, link
        downloaded.add(raw.content)
        export = await client.get(link.replace("/s/", "/export/", 1))
        assert export.status_code == 200 and "<!doctype html>" in export.text.lower(), link
        for value in (raw.headers["content-disposition"], export.headers["content-disposition"]):
            assert value.isascii() and "\n" not in value
    for name, path in odd_files.items():
        assert path.read_bytes() in downloaded, name  # each odd file served, byte for byte


async def test_a_percent_in_a_name_opens_no_traversal(client: AsyncClient, sessions_dir: Path) -> None:
    # "%252e%252e" names the file literally called "%2e%2e", never "..": decoded once only.
    write_session(sessions_dir / "%2e%2e.jsonl", "literal")
    assert (await client.get("/s/%252e%252e.jsonl")).status_code == 200
    assert (await client.get("/s/%2e%2e.jsonl")).status_code == 404
    assert (await client.get("/s/%252e%252e%252fetc%252fpasswd")).status_code == 404


async def test_what_cannot_be_read_is_listed_and_answers_cleanly(
    client: AsyncClient, sessions_dir: Path
) -> None:
    os.mkfifo(sessions_dir / "pipe.jsonl")
    (sessions_dir / "gone.jsonl").symlink_to("nowhere.jsonl")
    index = await client.get("/")
    assert index.status_code == 200
    assert "unreadable: it is a named pipe" in index.text
    assert "unreadable: it is a link to nothing" in index.text
    for path in ("/s/pipe.jsonl", "/raw/pipe.jsonl", "/export/pipe.jsonl", "/raw/gone.jsonl"):
        r = await client.get(path)
        assert r.status_code == 404, path


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
async def test_raw_download_of_a_file_nobody_may_read_answers_with_the_reason(
    client: AsyncClient, sessions_dir: Path
) -> None:
    path = write_session(sessions_dir / "secret.jsonl", "secret")
    path.chmod(0)
    try:
        index = await client.get("/")
        assert "secret.jsonl" in index.text and "unreadable: permission denied" in index.text
        r = await client.get("/raw/secret.jsonl")  # answered whole, never headers then a cut
        assert r.status_code == 403 and r.text == "secret.jsonl: unreadable: permission denied"
    finally:
        path.chmod(0o644)
