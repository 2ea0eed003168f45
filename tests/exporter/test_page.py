"""The page contract: CSP hash of the inline script, st-data JSON, fragments aligned with entries."""

from __future__ import annotations

import base64
import hashlib
import json
import re

import pytest

from sessiontree.errors import ExportError
from sessiontree.exporter import render_session_html
from sessiontree.exporter.page import (
    FragmentPacker,
    assemble_page,
    json_for_script,
    pack_fragments,
    unpack_fragments,
)
from sessiontree.store import load_session
from tests.conftest import GenSession
from tests.exporter.conftest import parse_page


def test_page_matches_the_contract(gen_session: GenSession) -> None:
    path = gen_session(30, blobs=True)
    session = load_session(path)
    html = render_session_html(session, theme="dark")
    page = parse_page(html)

    assert html.startswith("<!doctype html>")
    assert '<html lang="en" data-theme="dark">' in html
    assert {"st-app", "st-sidebar", "st-main", "st-header", "st-system", "st-messages", "st-data"} <= page.ids
    inline = [text for attrs, text in page.scripts if not attrs]
    assert len(inline) == 1 and len(page.scripts) == 2
    digest = base64.b64encode(hashlib.sha256(inline[0].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in page.csp
    assert "default-src 'none'" in page.csp and "img-src data:" in page.csp

    data = page.data
    assert data["v"] == 1
    assert data["frags"].startswith("gz:")
    assert data["leafId"] == session.leaf_id
    assert data["session"]["id"] == session.id
    assert len(page.frags) == len(data["entries"]) == len(session.entries)
    for meta, frag in zip(data["entries"], page.frags, strict=True):
        assert frag.startswith(f'<article class="st-entry st-{meta["cat"]}" data-id="{meta["id"]}">')
        assert len(meta["preview"]) <= 120
    used = set(re.findall(r'data-img="([0-9a-f]{64})"', "".join(page.frags)))
    assert used and used == set(data["images"])


def test_st_data_never_contains_a_raw_less_than() -> None:
    text = json_for_script({"x": "</script><!-- \u2028"})
    assert "<" not in text
    assert json.loads(text) == {"x": "</script><!-- \u2028"}


def test_fragments_pack_and_unpack_both_forms() -> None:
    frags = ["<article>é</article>", "<article>2</article>"]
    assert unpack_fragments(pack_fragments(frags)) == frags
    assert pack_fragments(frags, compress=False) == frags
    with pytest.raises(ExportError):
        unpack_fragments("nope")


def test_assemble_page_checks_theme_and_alignment() -> None:
    with pytest.raises(ExportError, match="Unknown theme"):
        assemble_page({}, [], [], {}, "", "", "sepia")
    with pytest.raises(ExportError, match="align"):
        assemble_page({}, [{"id": "a"}], [], {}, "", "", "auto")


def test_uncompressed_page_for_the_live_viewer(gen_session: GenSession) -> None:
    session = load_session(gen_session(5))
    page = parse_page(render_session_html(session, compress=False))
    assert isinstance(page.data["frags"], list)
    assert len(page.data["frags"]) == len(page.data["entries"])


def test_packer_streams_many_batches_and_can_be_closed() -> None:
    frags = [f"<article>{i} {'x' * (i % 50)}</article>" for i in range(1000)]
    packer = FragmentPacker()
    for html in frags:
        packer.add(html)
    value = packer.value()
    assert isinstance(value, str) and value.startswith("gz:")
    assert unpack_fragments(value) == frags
    assert packer.value() == value  # finishing twice gives the same bytes
    packer.add("<article>late</article>")
    with pytest.raises(ExportError, match="already packed"):
        packer._flush_pending()
    abandoned = FragmentPacker()
    abandoned.add("<article>x</article>")
    abandoned.close()
    assert unpack_fragments(FragmentPacker().value()) == []
