"""Sealed pages in Chromium: opened from a file, from a static server process on 127.0.0.1 and in the
gist preview's form (the page written into the host's own document), with the right key (the plain
page's DOM, its viewer alone running), a wrong or missing key and a changed byte (refused, nothing
shown); a password page (Enter opens it, "Wrong password"); both themes, 400 and 1280 px, axe."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from sessiontree.exporter.options import ExportOptions
from sessiontree.exporter.page import viewer_assets
from sessiontree.exporter.seal import (
    key_text,
    new_key,
    read_envelope,
    seal_page,
    seal_page_with_password,
    sealed_assets,
    sealed_page,
)
from sessiontree.pages.export import export_to_file
from sessiontree.share.publish import share_session
from tests.browser.axe import assert_clean, audit_page
from tests.browser.conftest import Watch, wait_js
from tests.browser.hostile import write_hostile_session
from tests.browser.test_site import serve_folder
from tests.conftest import GenSession
from tests.share import conftest as share_fixtures
from tests.share.conftest import FakeGh

fake_gh = share_fixtures.fake_gh  # a fake gh on PATH (the share tests' fixtures)
no_gh = share_fixtures.no_gh

pytestmark = pytest.mark.browser

# The gist preview's way, as gistpreview.github.io reads a gist: the first query part names it, its
# HTML is fetched and written into the host's own document (whose URL keeps the #fragment).
PREVIEW_HOST = """<!doctype html><html><head><title>gist preview</title></head><body>loading...
<script>
const id = location.search.slice(1).split('&')[0];
fetch('/' + id + '.html').then(r => r.text()).then(html => {
  document.open(); document.write(html); document.close();
});
</script></body></html>"""

# Waits until the viewer's DOM stops changing (it draws the shown path in idle slices): the DOM is
# read at that state, the same for the plain page and the decrypted one.
SETTLED = """() => new Promise((resolve) => {
  let timer = null;
  const done = () => { observer.disconnect(); resolve(document.documentElement.outerHTML); };
  const observer = new MutationObserver(() => { clearTimeout(timer); timer = setTimeout(done, 400); });
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  timer = setTimeout(done, 400);
})"""
# The pages' names: words no page holds, so that a DOM's own address can be told from its text.
PLAIN, SEALED = "q7plainz", "q7sealedz"
REFUSED = (
    "document.querySelector('#st-sealed-error') && document.querySelector('#st-sealed-error').textContent"
)


@dataclass
class Pages:
    """A session's plain page and its sealed page (named ``<name>.html``) in ``root``, and the key."""

    root: Path
    plain: str
    key: str
    html: str


def web_root(tmp_path: Path) -> Path:
    """A folder to serve: the preview host's page, and a favicon (a browser asks a server for one)."""
    root = tmp_path / "www"
    root.mkdir()
    (root / "preview.html").write_text(PREVIEW_HOST, encoding="utf-8")
    (root / "favicon.ico").write_bytes(b"")
    return root


@pytest.fixture
def pages(gen_session: GenSession, tmp_path: Path) -> Pages:
    root = web_root(tmp_path)
    plain = export_to_file(gen_session(12), root / f"{PLAIN}.html")
    html = plain.read_text(encoding="utf-8")
    key = new_key()
    (root / f"{SEALED}.html").write_text(seal_page(html, key), encoding="utf-8")
    return Pages(root, PLAIN, key_text(key), html)


@pytest.fixture
def static_server(pages: Pages) -> Iterator[str]:
    with serve_folder(pages.root) as url:
        yield url


def address(way: str, pages: Pages, server: str, name: str) -> str:
    """The address of page ``name`` read ``way``: a file, the static server, the preview host."""
    if way == "file":
        return (pages.root / f"{name}.html").as_uri()
    if way == "server":
        return f"{server}/{name}.html"
    return f"{server}/preview.html?{name}"


def settled_dom(page: Page, url: str) -> str:
    page.goto("about:blank")  # a new document each time (a changed fragment alone is no navigation)
    page.goto(url)
    page.wait_for_selector("html[data-st-ready]")
    dom: str = page.evaluate(SETTLED)
    return dom


def session_texts(html: str) -> list[str]:
    """Words of the session's page that a reader sees (the first prompts of the outline's titles)."""
    return re.findall(r'"title":"([^"]{12,60})"', html)[:3] or ["session"]


@pytest.mark.parametrize("way", ["file", "server", "preview"])
def test_the_right_key_opens_the_plain_page_s_dom(
    page: Page, pages: Pages, static_server: str, watch: Watch, way: str
) -> None:
    assert_opens_as_plain(page, pages, static_server, watch, way)


@pytest.mark.parametrize("way", ["file", "server", "preview"])
def test_an_encrypted_share_opens_as_the_plain_share(
    page: Page,
    gen_session: GenSession,
    tmp_path: Path,
    fake_gh: FakeGh,
    isolated_agent_dir: Path,
    watch: Watch,
    way: str,
) -> None:
    root = web_root(tmp_path)
    session = gen_session(12)
    share_session(session, isolated_agent_dir, notify=lambda _: None, encrypt=False)
    plain = fake_gh.uploaded_raw()
    (root / f"{PLAIN}.html").write_text(plain, encoding="utf-8")
    outcome = share_session(session, isolated_agent_dir, notify=lambda _: None)
    (root / f"{SEALED}.html").write_text(fake_gh.uploaded_raw(), encoding="utf-8")
    assert outcome.url is not None and outcome.key is not None
    assert outcome.url.split("#")[1] == outcome.key
    with serve_folder(root) as server:
        assert_opens_as_plain(page, Pages(root, PLAIN, outcome.key, plain), server, watch, way)


def assert_opens_as_plain(page: Page, pages: Pages, static_server: str, watch: Watch, way: str) -> None:
    """The sealed page read ``way`` with its key has the plain page's DOM, and fetched nothing else."""
    plain_url = address(way, pages, static_server, PLAIN)
    sealed_url = address(way, pages, static_server, SEALED)
    plain = settled_dom(page, plain_url)
    watch.requests.clear()
    sealed = settled_dom(page, sealed_url + "#" + pages.key)
    # The viewer builds its links from the page's address (the key's fragment kept in them: a copied
    # link opens the page): the same page under two names.
    assert f"#{pages.key}" in sealed
    assert sealed.replace(SEALED, "NAME").replace("#" + pages.key, "") == plain.replace(PLAIN, "NAME")
    assert page.evaluate("performance.getEntriesByName('st-sealed-opened').length") == 1
    assert page.title() == re.search(r"<title>(.*?)</title>", pages.html).group(1)  # type: ignore[union-attr]
    # The key never left the page: no request carries it, nothing but the page itself was fetched.
    asked = [u for u in watch.requests if u != "about:blank" and not u.startswith("data:")]
    expected = [sealed_url] if way != "preview" else [sealed_url, f"{static_server}/{SEALED}.html"]
    assert asked == expected
    assert not any(pages.key in u.split("#")[0] for u in watch.requests)
    # The browser's own favicon fetch for the host's document meets the page's img-src: not ours.
    assert watch.page_errors == [] and [e for e in watch.console_errors if "/favicon.ico" not in e] == []


@pytest.mark.parametrize("way", ["file", "server", "preview"])
@pytest.mark.parametrize("case", ["wrong", "missing", "cut", "changed"])
def test_a_wrong_or_missing_key_or_a_changed_byte_shows_nothing(
    page: Page, pages: Pages, static_server: str, watch: Watch, way: str, case: str
) -> None:
    name = SEALED
    fragment = {"wrong": "#" + key_text(new_key()), "missing": "", "cut": "#" + pages.key[:20]}.get(
        case, "#" + pages.key
    )
    if case == "changed":
        envelope = bytearray(read_envelope((pages.root / f"{SEALED}.html").read_text(encoding="utf-8")))
        envelope[len(envelope) // 2] ^= 0x04  # one bit of the ciphertext
        (pages.root / "changed.html").write_text(sealed_page(bytes(envelope)), encoding="utf-8")
        name = "changed"
    page.goto(address(way, pages, static_server, name) + fragment)
    wait_js(page, REFUSED)
    said = page.inner_text("#st-sealed-error")
    expected = {
        "wrong": "the key in the link is not its key, or the page was changed",
        "changed": "the key in the link is not its key, or the page was changed",
        "missing": "open it with the whole link it was shared with",
        "cut": "key is not whole",
    }[case]
    assert expected in said
    assert page.locator("#st-data, #st-app").count() == 0
    assert page.get_attribute("html", "data-st-ready") is None
    text = page.inner_text("body")
    assert all(t not in text for t in session_texts(pages.html))
    assert watch.page_errors == []


def test_a_key_given_after_the_page_opened_opens_it(page: Page, pages: Pages, watch: Watch) -> None:
    url = (pages.root / f"{SEALED}.html").as_uri()
    page.goto(url)
    wait_js(page, REFUSED)
    page.evaluate(f"location.hash = '#{pages.key}'")
    page.wait_for_selector("html[data-st-ready]")
    assert page.locator("#st-messages .st-entry").count() > 0
    assert watch.page_errors == []


def test_no_script_runs_in_the_decrypted_page_but_the_viewer(page: Page, pages: Pages, watch: Watch) -> None:
    # A page carrying a stray inline script, and a copy of the sealed page's own (allowed by the
    # sealed page's policy alone): the plain page's policy, added when it is written, stops both.
    shell_js = sealed_assets()[1]
    stray = "<script>window.__stray = 1;</script><script>" + shell_js + "</script></body>"
    key = new_key()
    (pages.root / "stray.html").write_text(
        seal_page(pages.html.replace("</body>", stray), key), encoding="utf-8"
    )
    page.goto((pages.root / "stray.html").as_uri() + "#" + key_text(key))
    page.wait_for_selector("html[data-st-ready]")
    assert page.evaluate("window.__stray") is None
    assert page.locator("#st-sealed-error").count() == 0  # the copied sealed script did not run
    blocked = [e for e in watch.console_errors if "Content Security Policy" in e]
    # The stray script refused by both policies, the sealed page's own by the plain page's.
    assert len(blocked) == 3
    policies = page.eval_on_selector_all(
        "meta[http-equiv='Content-Security-Policy']", "els => els.map(e => e.content)"
    )
    assert len(policies) == 1 and "sha256-" in policies[0]
    assert viewer_assets()[1] in pages.html


@pytest.fixture
def password_page(pages: Pages, gen_session: GenSession) -> Path:
    """``export --password`` of the session whose plain page ``pages`` holds."""
    return export_to_file(gen_session(12), pages.root / "q7locked.html", password="hunter2 ☃")


def test_a_password_page_opens_with_enter_and_says_wrong_password(
    page: Page, pages: Pages, password_page: Path, watch: Watch
) -> None:
    plain = settled_dom(page, (pages.root / f"{PLAIN}.html").as_uri())
    page.goto(password_page.as_uri())
    field = page.get_by_label("Password")
    field.wait_for()
    assert page.evaluate("document.activeElement.id") == "st-sealed-password"
    page.keyboard.type("hunter2")
    page.keyboard.press("Enter")
    wait_js(page, REFUSED)
    assert page.inner_text("#st-sealed-error") == "Wrong password"
    assert page.locator("#st-data").count() == 0
    assert page.evaluate("document.activeElement.id") == "st-sealed-password"
    field.fill("hunter2 ☃")
    field.press("Enter")
    page.wait_for_selector("html[data-st-ready]")
    dom: str = page.evaluate(SETTLED)
    assert dom.replace("q7locked", "NAME") == plain.replace(PLAIN, "NAME")
    assert watch.page_errors == [] and watch.console_errors == []
    assert [u for u in watch.requests if not u.startswith("data:")] == [
        (pages.root / f"{PLAIN}.html").as_uri(),
        password_page.as_uri(),
    ]


def test_a_password_page_s_button_opens_it_too(page: Page, pages: Pages, password_page: Path) -> None:
    page.goto(password_page.as_uri())
    page.get_by_label("Password").fill("hunter2 ☃")
    page.get_by_role("button", name="Open").click()
    page.wait_for_selector("html[data-st-ready]")
    assert page.locator("#st-messages .st-entry").count() > 0


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("width", [400, 1280])
def test_sealed_pages_are_accessible_in_both_themes_and_widths(
    browser: Browser, gen_session: GenSession, tmp_path: Path, theme: str, width: int
) -> None:
    html = export_to_file(gen_session(12), tmp_path / "plain.html", ExportOptions(theme=theme)).read_bytes()
    key = new_key()
    keyed = tmp_path / f"keyed-{theme}.html"
    keyed.write_text(seal_page(html.decode("utf-8"), key, theme=theme), encoding="utf-8")
    locked = tmp_path / f"locked-{theme}.html"
    locked.write_text(seal_page_with_password(html, "pw", theme=theme), encoding="utf-8")
    with audit_page(browser, width=width) as page:
        page.emulate_media(color_scheme=theme)  # type: ignore[arg-type]
        page.goto(keyed.as_uri())
        wait_js(page, REFUSED)
        assert_clean(page, f"a sealed page without its key, {theme}, {width} px")
        page.goto(locked.as_uri())
        page.get_by_label("Password").fill("not it")
        page.keyboard.press("Enter")
        wait_js(page, REFUSED)
        assert page.inner_text("#st-sealed-error") == "Wrong password"
        assert_clean(page, f"a password page after a wrong password, {theme}, {width} px")
        # Nothing wider than the window: the field and its button fit at 400 px.
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == ("rgb(255, 255, 255)" if theme == "light" else "rgb(13, 17, 23)")
        page.goto("about:blank")
        page.goto(keyed.as_uri() + "#" + key_text(key))
        page.wait_for_selector("html[data-st-ready]")
        assert page.get_attribute("html", "data-theme") == theme
        assert_clean(page, f"a decrypted page, {theme}, {width} px", include="#st-main")


def test_the_envelope_in_the_page_is_base64_of_the_whole_envelope(pages: Pages) -> None:
    text = (pages.root / f"{SEALED}.html").read_text(encoding="utf-8")
    envelope = read_envelope(text)
    assert base64.b64encode(envelope).decode("ascii") in text


def test_a_link_copied_in_a_decrypted_page_carries_the_key_and_opens_that_entry(
    page: Page, pages: Pages, static_server: str, watch: Watch
) -> None:
    url = f"{static_server}/preview.html?{SEALED}#{pages.key}"
    page.goto(url)
    page.wait_for_selector("html[data-st-ready]")
    entry = page.locator("#st-messages .st-entry").nth(1)
    entry_id = entry.get_attribute("data-id")
    entry.locator(".st-link").click()
    wait_js(page, "document.querySelector('#st-toast').textContent === 'Link copied'")
    link: str = page.evaluate("navigator.clipboard.readText()")
    assert link.startswith(f"{static_server}/preview.html?{SEALED}&leafId=")
    assert link.endswith(f"&targetId={entry_id}#{pages.key}")
    page.goto("about:blank")
    page.goto(link)
    page.wait_for_selector("html[data-st-ready]")
    assert page.evaluate("window.sessiontree.leafId") == link.split("leafId=")[1].split("&")[0]
    assert page.url == link  # the address keeps the key for a reload
    assert watch.page_errors == []


def test_a_hostile_session_s_sealed_page_runs_none_of_its_text(
    page: Page, tmp_path: Path, watch: Watch
) -> None:
    plain = export_to_file(write_hostile_session(tmp_path / "hostile.jsonl"), tmp_path / "hostile.html")
    key = new_key()
    sealed = tmp_path / "sealed.html"
    sealed.write_text(seal_page(plain.read_text(encoding="utf-8"), key), encoding="utf-8")
    page.goto(sealed.as_uri() + "#" + key_text(key))
    page.wait_for_selector("html[data-st-ready]")
    page.click('[data-filter="all"]')
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    assert "<script>window.__xss=1" in page.inner_text("#st-messages")  # shown as text
    assert page.evaluate("window.__xss") is None and watch.dialogs == []
    assert page.locator("#st-messages script, #st-messages iframe").count() == 0
    assert all(u.startswith(("file://", "data:")) for u in watch.requests)
