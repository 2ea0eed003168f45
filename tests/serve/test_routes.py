"""The app through httpx (ASGI transport): pages, downloads, artifacts, blobs; every way out refused."""

from __future__ import annotations

import base64
import hashlib
import html
import re
from pathlib import Path
from urllib.parse import quote

import pytest
from httpx import AsyncClient
from starlette.types import ASGIApp

from sessiontree.serve.config import ServeConfig
from sessiontree.serve.security import host_name
from tests.serve.conftest import KEY, make_client, raw_get, write_session
from tests.serve.process import page_settings
from tests.store.helpers import msg

pytestmark = pytest.mark.anyio


async def test_index_lists_every_project(client: AsyncClient) -> None:
    r = await client.get("/")
    assert r.status_code == 200
    assert "hello from s1" in r.text and "hello from s2" in r.text
    assert 'data-cwd="/work/demo"' in r.text and 'data-cwd="/work/other"' in r.text
    assert f'href="/s/{quote(KEY)}"' in r.text
    assert "connect-src 'self'" in r.text
    assert r.headers["cache-control"] == "no-store"
    assert r.headers["x-content-type-options"] == "nosniff"


async def test_session_page_uses_the_export_renderer_plus_live_scripts(client: AsyncClient) -> None:
    r = await client.get("/s/" + quote(KEY))
    assert r.status_code == 200
    assert 'id="st-data"' in r.text and "hello from s1" not in r.text.split('id="st-data"')[0][-10:]
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', r.text)
    assert csp is not None and "connect-src 'self'" in csp.group(1)
    scripts = re.findall(r"<script>(.*?)</script>", r.text, re.S)
    # the viewer and its settings, then serve's: the browse config, the collection's keys, the
    # sessions pane, live.js, the serve config and its live client; each hashed in the CSP
    assert len(scripts) == 8
    for marker in (
        "window.sessiontreeBrowse = ",
        "sessiontree: the keys of every page of a collection",
        "sessiontree: the sessions pane of a session page",
        "sessiontree live page: window.sessiontree.appendEntry",
        "window.sessiontreeServe = ",
        "sessiontree serve: a session page that follows its file",
    ):
        assert sum(marker in text for text in scripts) == 1, marker
    for text in scripts:
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in csp.group(1)
    assert "window.sessiontreeServe" in r.text


async def test_export_download_carries_no_live_code(client: AsyncClient) -> None:
    r = await client.get("/export/" + quote(KEY))
    assert r.status_code == 200
    assert r.headers["content-disposition"].startswith("attachment;")
    assert "appendEntry" not in r.text and "EventSource" not in r.text
    assert "connect-src" not in r.text


async def test_raw_download_is_the_file(client: AsyncClient, sessions_dir: Path) -> None:
    r = await client.get("/raw/" + quote(KEY))
    assert r.status_code == 200
    assert r.content == (sessions_dir / KEY).read_bytes()
    assert r.headers["content-disposition"].startswith("attachment;")


async def test_artifacts_are_served_from_the_session_folder(client: AsyncClient, sessions_dir: Path) -> None:
    folder = sessions_dir / KEY.removesuffix(".jsonl")
    folder.mkdir()
    (folder / "3.bash.log").write_text("full output\n")
    (folder / "0-Explorer.md").write_text("# agent says\n")
    r = await client.get("/a/" + quote(KEY), params={"u": "artifact://3"})
    assert r.status_code == 200 and r.text == "full output\n"
    assert r.headers["content-type"].startswith("text/plain")
    assert "sandbox" in r.headers["content-security-policy"]
    assert (await client.get("/a/" + quote(KEY), params={"u": "agent://0-Explorer"})).text == "# agent says\n"
    assert (await client.get("/a/" + quote(KEY), params={"u": "artifact://9"})).status_code == 404
    assert (await client.get("/a/" + quote(KEY), params={"u": "agent://../../x"})).status_code == 404


async def test_blobs_are_served_with_long_cache(client: AsyncClient, agent_dir: Path) -> None:
    data = b"\x89PNG\r\n\x1a\nfake"
    sha = hashlib.sha256(data).hexdigest()
    (agent_dir / "blobs").mkdir()
    (agent_dir / "blobs" / sha).write_bytes(data)
    r = await client.get(f"/blobs/{sha}.png")
    assert r.status_code == 200 and r.content == data
    assert "immutable" in r.headers["cache-control"]
    assert r.headers["content-type"] == "image/png"
    assert (await client.get(f"/blobs/{'0' * 64}.png")).status_code == 404
    assert (await client.get(f"/blobs/{sha}.svg")).status_code == 404


TRAVERSALS = [
    "/s/../../etc/passwd",
    "/s/%2e%2e/%2e%2e/etc/passwd",
    "/s/..%2F..%2Fetc%2Fpasswd",
    "/s/..%2f..%2fetc%2fpasswd",
    "/s/..%5C..%5Cetc%5Cpasswd",
    "/s/%252e%252e%252fetc%252fpasswd",
    "/s/%25%32%65%25%32%65/etc/passwd",
    "/s//etc/passwd",
    "/s/%2Fetc%2Fpasswd",
    "/s/--work-demo--%2F2026-01-01T10-00-00_s1.jsonl",
    "/s/--work-demo--/../--work-demo--/2026-01-01T10-00-00_s1.jsonl",
    "/s/./--work-demo--/2026-01-01T10-00-00_s1.jsonl",
    "/s/--work-demo--/2026-01-01T10-00-00_s1.jsonl%00",
    "/s/--work-demo--/2026-01-01T10-00-00_s1.jsonl%00.html",
    "/s/..\\..\\etc\\passwd",
    "/raw/../../etc/passwd",
    "/raw/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "/export/..%2F..%2Fetc%2Fpasswd",
    "/a/..%2F..%2Fetc%2Fpasswd?u=artifact://1",
    "/events/s/..%2F..%2Fetc%2Fpasswd",
    "/blobs/..%2F..%2Fetc%2Fpasswd",
    "/blobs/%2e%2e",
    "/s/no-such.jsonl",
    "/s/",
]


# Literal dot segments inside a real key resolve to that key once a client normalises them.
NORMALISED = [p for p in TRAVERSALS if not p.startswith(("/s/--work-demo--/../", "/s/./"))]


@pytest.mark.parametrize("path", NORMALISED)
async def test_traversal_forms_are_404(client: AsyncClient, path: str) -> None:
    # As a browser sends them (httpx removes dot segments first, as browsers do) ...
    r = await client.get(path)
    assert r.status_code == 404, path
    assert "root:" not in r.text


@pytest.mark.parametrize("path", TRAVERSALS)
async def test_traversal_forms_sent_as_is_are_404(served_app: ASGIApp, path: str) -> None:
    # ... and byte for byte as written (curl --path-as-is), straight into the ASGI app.
    status, body = await raw_get(served_app, path)
    assert status == 404, path
    assert b"root:" not in body


async def test_symlinks_leaving_the_folder_are_404(
    client: AsyncClient, sessions_dir: Path, tmp_path: Path
) -> None:
    outside = write_session(tmp_path / "elsewhere" / "secret.jsonl", "secret")
    (sessions_dir / "--work-demo--" / "link.jsonl").symlink_to(outside)
    (sessions_dir / "linked-dir").symlink_to(outside.parent, target_is_directory=True)
    for path in (
        "/s/--work-demo--/link.jsonl",
        "/raw/--work-demo--/link.jsonl",
        "/raw/linked-dir/secret.jsonl",
    ):
        assert (await client.get(path)).status_code == 404, path
    assert "secret" not in (await client.get("/")).text


async def test_a_symlinked_artifact_pointing_out_is_404(
    client: AsyncClient, sessions_dir: Path, tmp_path: Path
) -> None:
    folder = sessions_dir / KEY.removesuffix(".jsonl")
    folder.mkdir()
    (tmp_path / "private.txt").write_text("private")
    (folder / "4.bash.log").symlink_to(tmp_path / "private.txt")
    assert (await client.get("/a/" + quote(KEY), params={"u": "artifact://4"})).status_code == 404


async def test_nothing_writes(client: AsyncClient) -> None:
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        assert (await client.request(method, "/")).status_code == 405
        assert (await client.request(method, "/s/" + quote(KEY))).status_code == 405


async def test_no_cors_headers(client: AsyncClient) -> None:
    r = await client.get("/", headers={"Origin": "http://evil.example"})
    assert not any(k.lower().startswith("access-control-") for k in r.headers)
    r = await client.options(
        "/", headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "GET"}
    )
    assert r.status_code in (400, 405)
    assert not any(k.lower().startswith("access-control-") for k in r.headers)


FOREIGN_HOSTS = [
    "evil.example",
    "evil.example:8765",
    "127.0.0.1.evil.example",
    "localhost.evil",
    "localhost:8765.evil.example",
    "127.0.0.1:8765@evil.example",
    "localhost@evil.example",
    "localhost:8765:8765",
    "localhost:",
    "localhost:80a",
    "localhost:123456",
    "localhost.",
    "local host",
    "localhost/evil",
    "localhost:8765/evil.example",
    "::1",
    "[::1",
    "[::1]evil",
    "[::1]:8765.evil.example",
    "[localhost]",
    "[::1]:",
    "",
]


@pytest.mark.parametrize("host", FOREIGN_HOSTS)
async def test_foreign_host_header_is_refused(client: AsyncClient, host: str) -> None:
    r = await client.get("/", headers={"Host": host})
    assert r.status_code == 400
    assert r.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("localhost", "localhost"),
        ("LocalHost:8765", "localhost"),
        ("127.0.0.1:80", "127.0.0.1"),
        ("[::1]:8765", "::1"),
        ("[0:0::1]", "::1"),
        ("localhost:8765.evil.example", None),
        ("127.0.0.1:8765@evil.example", None),
        ("[::1]x", None),
        ("[nope]", None),
    ],
)
def test_host_is_parsed_strictly(header: str, name: str | None) -> None:
    assert host_name(header) == name


async def test_two_host_headers_are_refused(served_app: ASGIApp) -> None:
    status, _ = await raw_get(served_app, "/", host="127.0.0.1:8765")
    assert status == 200
    status, _ = await raw_get(
        served_app, "/", host="127.0.0.1:8765", more_headers=[(b"host", b"evil.example")]
    )
    assert status == 400


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "localhost:8765", "localhost", "[::1]:8765"])
async def test_loopback_host_headers_are_fine(client: AsyncClient, host: str) -> None:
    assert (await client.get("/", headers={"Host": host})).status_code == 200


async def test_token_then_cookie(sessions_dir: Path, tmp_path: Path) -> None:
    config = ServeConfig(
        roots=(sessions_dir,), cache_dir=tmp_path / "c", host="192.0.2.10", token="s3cret-token", watch=False
    )
    async with make_client(config, host="192.0.2.10:8765") as c:
        for path in ("/", "/s/" + quote(KEY), "/raw/" + quote(KEY), "/events", "/events/s/" + quote(KEY)):
            refused = await c.get(path)
            assert refused.status_code == 403, path
            assert refused.headers["x-content-type-options"] == "nosniff"
        assert (await c.get("/", params={"token": "wrong"})).status_code == 403
        r = await c.get("/s/" + quote(KEY), params={"token": "s3cret-token", "leafId": "a1"})
        assert r.status_code == 303
        assert r.headers["location"] == "/s/" + quote(KEY) + "?leafId=a1"  # the token leaves the URL
        cookie = r.headers["set-cookie"]
        assert "sessiontree_token=s3cret-token" in cookie
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
        assert (await c.get("/raw/" + quote(KEY))).status_code == 200  # the cookie now opens every route
    async with make_client(config, host="localhost:8765") as other:
        assert (await other.get("/", headers={"Cookie": "sessiontree_token=nope"})).status_code == 403
        assert (await other.get("/", headers={"Cookie": "sessiontree_token=s3cret-token"})).status_code == 200


async def test_corrupt_file_shows_its_readable_part(client: AsyncClient, sessions_dir: Path) -> None:
    path = sessions_dir / "--work-demo--" / "broken.jsonl"
    write_session(path, "broken")
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("{this is not json}\n")
        fh.write('{"type":"message","id":"half"')  # being written
    r = await client.get("/s/--work-demo--/broken.jsonl")
    assert r.status_code == 200
    assert '"badLines":1' in r.text


async def test_non_session_file_is_listed_as_unreadable(client: AsyncClient, sessions_dir: Path) -> None:
    (sessions_dir / "--work-demo--" / "notes.jsonl").write_text("hello\n")
    r = await client.get("/")
    assert "notes.jsonl" in r.text and "not a session file" in r.text
    assert (await client.get("/s/--work-demo--/notes.jsonl")).status_code == 200


async def test_file_names_with_spaces_and_unicode(client: AsyncClient, sessions_dir: Path) -> None:
    write_session(
        sessions_dir / "--work-demo--" / "my séssion 1.jsonl", "uni", "/work/demo", msg("u2", "a1", "user")
    )
    assert (await client.get("/s/" + quote("--work-demo--/my séssion 1.jsonl"))).status_code == 200


async def test_every_link_handed_out_leads_to_its_session(client: AsyncClient, sessions_dir: Path) -> None:
    odd = sessions_dir / "--work-demo--" / "a b#c?d&e+f é.jsonl"
    write_session(odd, "odd", "/work/demo", msg("u2", "a1", "user"))
    index = await client.get("/")
    links = [html.unescape(h) for h in re.findall(r'href="(/s/[^"]+)"', index.text)]
    assert len(links) == 3
    for link in links:
        assert (await client.get(link)).status_code == 200, link
    page = await client.get(next(link for link in links if "%23" in link))  # "#" quoted, not a fragment
    settings = page_settings(page.text)
    assert (await client.get(settings["raw"])).content == odd.read_bytes()
    assert (await client.get(settings["export"])).status_code == 200


async def test_blob_images_are_linked_by_url_not_inlined(
    client: AsyncClient, sessions_dir: Path, agent_dir: Path
) -> None:
    data = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
    sha = hashlib.sha256(data).hexdigest()
    (agent_dir / "blobs").mkdir(exist_ok=True)
    (agent_dir / "blobs" / sha).write_bytes(data)
    image = {"type": "image", "data": f"blob:sha256:{sha}", "mimeType": "image/png"}
    shot = msg("u2", "a1", "user", "a screenshot")
    shot["message"]["content"].append(image)
    write_session(sessions_dir / "--work-demo--" / "img.jsonl", "img", "/work/demo", shot)
    page = await client.get("/s/--work-demo--/img.jsonl")
    assert page.status_code == 200
    assert f"/blobs/{sha}.png" in page.text
    assert base64.b64encode(data).decode() not in page.text  # not inlined
    r = await client.get(f"/blobs/{sha}.png")
    assert r.status_code == 200 and r.content == data
    assert "immutable" in r.headers["cache-control"]
