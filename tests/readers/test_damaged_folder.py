"""One damaged file among good ones, per reader (issue 55): the other sessions of its folder are
still listed, searched, counted (stats), built and served. The damage is many at once: fields of
the wrong type or range (NaN, 400 digits, -1,000,000, a far-future time, lone surrogates, a
list where a string is), made with ``tests.readers.mutate``. Serve is one real process over every
format's folder.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import httpx
import pytest

from tests.readers.helpers import run
from tests.readers.mutate import FORMATS, HOSTILE, Change, apply
from tests.serve.process import listed, searched, serve_process

FOLDERS = [name for name in sorted(FORMATS) if name != "crush"]  # Crush's documents exist only in a mirror
NO_SPEND = {"kiro"}  # a format whose files hold no token count: stats has no group for them
DAMAGE = [Change(i * 7919 + 3, HOSTILE[(i * 5) % len(HOSTILE)], i % 7 == 6) for i in range(14)]


def _word(name: str, tag: str) -> str:
    return "zqgood" + re.sub("[^a-z]", "", name) + tag


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Per format, a folder of two good sessions (their prompts ``_word``) and one damaged one."""
    top = tmp_path_factory.mktemp("damaged-folders")
    made = {}
    for name in FOLDERS:
        fmt = FORMATS[name]
        folder = top / name
        for tag in ("one", "two"):
            fmt.write(folder, tag, fmt.make(tag, f"{_word(name, tag)} please"))
        content = fmt.make("bad", "zqbadfile prompt")
        if isinstance(content, str):
            bad = (
                content.replace("#### ", "#### \udcff\x00 ", 3)
                + "\n> Tokens: NaN sent, -1,000,000 received.\n"
            )
        else:
            bad, _ = apply(content, DAMAGE, None)
        fmt.write(folder, "bad", bad)
        made[name] = folder
    return made


def _json(*args: str) -> object:
    code, out, err = run(*args)
    assert code == 0 and "Traceback" not in err, (args, err)
    return json.loads(out)


@pytest.mark.parametrize("name", FOLDERS)
def test_the_good_sessions_beside_a_damaged_one_are_listed_searched_counted_and_built(
    name: str, folders: dict[str, Path], tmp_path: Path
) -> None:
    root = folders[name]
    listed = _json("list", "--all", "--json", "--root", str(root))
    assert isinstance(listed, list)
    prompts = " ".join(str(s.get("firstMessage")) for s in listed)
    paths = {Path(str(s["path"])) for s in listed}
    for tag in ("one", "two"):
        assert root / FORMATS[name].name(tag) in paths, (name, tag, listed)
    assert _word(name, "one") in prompts or name in ("amp",), prompts
    for tag in ("one", "two"):
        hits = _json("search", _word(name, tag), "--root", str(root), "--json")
        assert isinstance(hits, list) and any(
            Path(h["path"]) == root / FORMATS[name].name(tag) for h in hits
        ), hits
    stats = _json("stats", "--root", str(root), "--by", "session", "--json")
    assert isinstance(stats, dict)
    keys = {Path(str(g["key"])) for g in stats["groups"]}
    # The two good files are copies but for their prompt and id: stats counts a copied reply's
    # usage once (by design), under whichever file it read first.
    assert name in NO_SPEND or keys & {root / FORMATS[name].name(tag) for tag in ("one", "two")}, keys
    site = tmp_path / "site"
    code, _, err = run("build", "--root", str(root), "-o", str(site), "--no-search")
    assert code in (0, 1) and "Traceback" not in err, err
    pages = " ".join(p.read_text(encoding="utf-8") for p in (site / "sessions").rglob("*.html"))
    for tag in ("one", "two"):
        assert _word(name, tag) in pages, (name, tag)


def test_serve_answers_every_good_session_beside_damaged_ones(
    folders: dict[str, Path], tmp_path: Path
) -> None:
    first, *rest = (folders[name] for name in FOLDERS)
    extra = [arg for folder in rest for arg in ("--root", str(folder))]
    with (
        serve_process(first, tmp_path / "agent", tmp_path / "cache", *extra) as served,
        httpx.Client(base_url=served.url, timeout=120) as client,
    ):
        listed(client)  # a fresh server's first rows may be a glimpse of the folders, not every file read
        index = client.get("/")
        assert index.status_code == 200
        links = sorted({html.unescape(h) for h in re.findall(r'href="(/s/[^"?]+)"', index.text)})
        pages = {link: client.get(link) for link in links}
        assert all(page.status_code == 200 for page in pages.values()), {
            k: v.status_code for k, v in pages.items()
        }
        for link in links:  # the damaged sessions' too: their file as it is, their page to download
            for route in ("/raw/", "/export/"):
                answer = client.get(link.replace("/s/", route, 1))
                assert answer.status_code == 200 and answer.content, (route, link)
        shown = " ".join(page.text for page in pages.values())
        for name in FOLDERS:
            for tag in ("one", "two"):
                word = _word(name, tag)
                assert word in shown, word
                found = searched(client, word)
                assert found["hits"] and not found["pending"], word
        for route in ("/usage", "/api/sessions"):
            assert client.get(route).status_code == 200, route
        assert served.stop() == 0
        assert served.proc.stderr is not None
        errors = served.proc.stderr.read()
    assert "Traceback" not in errors, errors
