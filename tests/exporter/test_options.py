"""The renderer seam: RenderOptions -> RenderedSession -> iter_page(PageOptions), CSP, images, live script."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from sessiontree.errors import ExportError
from sessiontree.exporter import (
    PageOptions,
    RenderOptions,
    image_files,
    iter_page,
    live_script,
    render_session,
)
from sessiontree.exporter.csp import csp_hash
from sessiontree.exporter.page import content_security_policy, viewer_assets
from sessiontree.pages.export import export_to_file
from sessiontree.store import load_session
from tests.conftest import GenSession
from tests.exporter.conftest import parse_page


def page_of(rendered: object, options: PageOptions | None = None) -> str:
    return "".join(iter_page(rendered, options))  # type: ignore[arg-type]


def test_rendered_session_carries_title_and_stats(gen_session: GenSession) -> None:
    session = load_session(gen_session(12))
    rendered = render_session(session)
    page = parse_page(page_of(rendered))
    assert page.data["session"]["title"] == rendered.title
    assert f"<title>{rendered.title}</title>" in page_of(rendered)
    users = sum(1 for e in session.entries if e.get("type") == "message" and e["message"]["role"] == "user")
    assert rendered.stats.counts["user"] == users > 0
    assert len(rendered.entries) == rendered.frags.count == len(page.frags)


def test_render_options_pick_leaf_prompt_and_tools(gen_session: GenSession) -> None:
    session = load_session(gen_session(8))
    other = session.entries[3]["id"]
    rendered = render_session(
        session, RenderOptions(leaf_id=other, system_prompt="Be brief & safe.", tools=["grep"])
    )
    assert rendered.leaf_id == other
    assert "Be brief &amp; safe." in rendered.system_html and "grep" in rendered.system_html


def test_one_render_makes_pages_of_either_compression(gen_session: GenSession) -> None:
    session = load_session(gen_session(10))
    for compress in (True, False):
        rendered = render_session(session, RenderOptions(compress=compress))
        gz = parse_page(page_of(rendered, PageOptions(compress=True)))
        plain = parse_page(page_of(rendered, PageOptions(compress=False)))
        again = parse_page(page_of(rendered, PageOptions(compress=True)))
        assert isinstance(gz.data["frags"], str) and gz.data["frags"].startswith("gz:")
        assert isinstance(plain.data["frags"], list)
        assert gz.frags == plain.frags == again.frags
        assert len(plain.frags) == len(rendered.entries)


def test_page_options_are_checked_in_one_place() -> None:
    with pytest.raises(ExportError, match="Unknown theme 'sepia'"):
        PageOptions(theme="sepia")
    for bad in ("'self'; script-src *", "a b", "x\n", "'unsafe-inline' 'x'"):
        with pytest.raises(ExportError, match="Bad CSP source"):
            PageOptions(connect_src=(bad,))
    with pytest.raises(ExportError, match="Bad CSP directive"):
        PageOptions(csp_sources={"script-src; img-src": ("'self'",)})
    with pytest.raises(ExportError, match="tuple of strings"):
        PageOptions(csp_sources={"script-src": "'self'"})  # type: ignore[dict-item]
    with pytest.raises(ExportError, match="</script"):
        PageOptions(extra_scripts=("x = '</SCRIPT>'",))
    for prefix in ("javascript:", "http://evil/", "/a b/", "blobs"):
        with pytest.raises(ExportError, match="Bad image prefix"):
            PageOptions(image_prefix=prefix)
    assert PageOptions(image_prefix="/blobs/").image_prefix == "/blobs/"
    assert PageOptions(image_prefix="assets/").image_prefix == "assets/"


def test_csp_hashes_every_inline_script_and_adds_sources(gen_session: GenSession) -> None:
    rendered = render_session(load_session(gen_session(4)))
    extra = ("window.one = 1;", "window.two = 2;")
    options = PageOptions(
        extra_scripts=extra,
        connect_src=("'self'",),
        csp_sources={"script-src": ("'wasm-unsafe-eval'",), "worker-src": ("'self'",)},
    )
    page = parse_page(page_of(rendered, options))
    inline = [text for attrs, text in page.scripts if "type" not in attrs]
    assert inline[1:] == list(extra)
    directives = {d.split()[0]: d.split()[1:] for d in page.csp.split("; ")}
    assert directives["script-src"] == [f"'{csp_hash(s)}'" for s in inline] + ["'wasm-unsafe-eval'"]
    for text in inline:
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in directives["script-src"]
    assert directives["connect-src"] == ["'self'"]
    assert directives["worker-src"] == ["'self'"]
    assert directives["default-src"] == ["'none'"] and directives["img-src"] == ["data:"]


def test_default_csp_allows_only_the_page_s_own_script_and_stylesheet() -> None:
    css, js = viewer_assets()
    style = csp_hash(css)
    assert content_security_policy(js) == (
        f"default-src 'none'; img-src data:; style-src '{style}'; style-src-elem '{style}'; "
        f"style-src-attr 'none'; script-src '{csp_hash(js)}'; base-uri 'none'; form-action 'none'"
    )
    assert "unsafe-inline" not in content_security_policy(js)
    widened = content_security_policy(js, PageOptions(csp_sources={"style-src-attr": ("'unsafe-inline'",)}))
    assert "style-src-attr 'unsafe-inline';" in widened


def test_images_by_url_under_a_prefix(gen_session: GenSession) -> None:
    src = gen_session(30, blobs=True)
    rendered = render_session(load_session(src, blobs_dir=src.parent / "blobs"))
    assert rendered.images, "the generated session has images"
    files = {f.sha256: f for f in image_files(rendered)}
    assert set(files) == set(rendered.images)
    for sha, f in files.items():
        assert hashlib.sha256(f.data).hexdigest() == sha
        assert f.name == f"{sha}.{f.ext}" and f.ext in {"png", "jpg", "gif", "webp"}
        assert rendered.images[sha] == f"data:{f.mime};base64," + base64.b64encode(f.data).decode()
    page = parse_page(page_of(rendered, PageOptions(image_prefix="/blobs/")))
    assert page.data["images"] == {sha: f"/blobs/{f.name}" for sha, f in files.items()}
    assert "img-src data: 'self'" in page.csp
    inline = parse_page(page_of(rendered))
    assert inline.data["images"] == rendered.images


def test_an_export_does_not_carry_the_live_script(gen_session: GenSession, tmp_path: Path) -> None:
    live = live_script()
    assert "appendEntry" in live
    exported = export_to_file(gen_session(6), tmp_path / "out.html").read_text(encoding="utf-8")
    scripts = [text for attrs, text in parse_page(exported).scripts if "type" not in attrs]
    assert len(scripts) == 1
    assert "appendEntry" not in exported and live not in exported
    served = page_of(render_session(load_session(gen_session(6))), PageOptions(extra_scripts=(live,)))
    assert live in served


def test_extra_scripts_keep_st_data_parseable(gen_session: GenSession) -> None:
    rendered = render_session(load_session(gen_session(3)))
    html = page_of(rendered, PageOptions(extra_scripts=("/* \x00st-data\x00 */",)))
    page = parse_page(html)
    assert json.dumps(page.data["entries"]) == json.dumps(rendered.entries)
