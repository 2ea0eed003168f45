"""A served page is the export of the same file: title, damage notes; its CSP sent as a header too."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from httpx import AsyncClient

from sessiontree.cli import cli
from tests.exporter.conftest import ParsedPage, parse_page

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _damaged_titled(path: Path) -> Path:
    """oh-my-pi's title slot, then a damaged file (a lost line, a re-attached entry, two on one line)."""
    slot = (FIXTURES / "omp-newer-entries.jsonl").read_bytes().split(b"\n", 1)[0] + b"\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(slot + (FIXTURES / "damaged-lost-line.jsonl").read_bytes())
    return path


def _title(html: str) -> str:
    found = re.search(r"<title>([^<]*)</title>", html)
    assert found is not None
    return found.group(1)


def _lost(page: ParsedPage) -> dict[str, str]:
    return {m["id"]: m["lost"] for m in page.data["entries"] if "lost" in m}


async def test_served_page_and_export_agree_on_title_and_damage(
    client: AsyncClient, sessions_dir: Path, tmp_path: Path
) -> None:
    key = "--work-demo--/damaged.jsonl"
    path = _damaged_titled(sessions_dir / key)
    served = await client.get("/s/" + quote(key))
    downloaded = await client.get("/export/" + quote(key))
    out = tmp_path / "export.html"
    result = CliRunner().invoke(cli, ["export", str(path), str(out)])
    assert result.exit_code == 0, result.output
    exported = out.read_text(encoding="utf-8")

    assert served.status_code == downloaded.status_code == 200
    assert _title(served.text) == _title(downloaded.text) == _title(exported) == "Fix the widget"
    lost = _lost(parse_page(exported))
    assert lost == {"a2": "1 unreadable line lost here"}
    assert _lost(parse_page(served.text)) == _lost(parse_page(downloaded.text)) == lost
    page = parse_page(served.text)
    assert [m["id"] for m in page.data["entries"]] == [m["id"] for m in parse_page(exported).data["entries"]]


@pytest.mark.parametrize(
    "route", ["/", "/s/" + quote("--work-demo--/2026-01-01T10-00-00_s1.jsonl"), "/usage"]
)
async def test_html_pages_send_their_csp_as_a_header(client: AsyncClient, route: str) -> None:
    r = await client.get(route)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    meta = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', r.text)
    assert meta is not None
    assert r.headers["content-security-policy"] == meta.group(1).replace("&#39;", "'")
    assert "default-src 'none'" in r.headers["content-security-policy"]
