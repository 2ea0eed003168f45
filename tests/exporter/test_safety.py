"""No script from session content can run: payloads in every field come out as inert text."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from sessiontree.pages.export import export_to_file
from tests.exporter.conftest import parse_page
from tests.exporter.hostile import X, write_hostile_session

URL_ATTRS = {"href", "src", "action", "formaction", "xlink:href", "data"}


class _Audit(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag in {"script", "iframe", "object", "embed", "base", "form", "meta", "link"}:
            self.problems.append(f"<{tag}>")
        for name, value in attrs:
            value = (value or "").strip().lower()
            if name.startswith("on"):
                self.problems.append(f"{tag} {name}=")
            if name == "style":
                self.problems.append(f"{tag} style=")
            if name in URL_ATTRS and not value.startswith(("http://", "https://", "mailto:")):
                self.problems.append(f"{tag} {name}={value[:40]}")


def audit(html: str) -> _Audit:
    a = _Audit()
    a.feed(html)
    return a


def test_hostile_session_exports_inert(tmp_path: Path) -> None:
    path = write_hostile_session(tmp_path / "evil.jsonl")
    html = export_to_file(path, tmp_path / "evil.html").read_text(encoding="utf-8")
    page = parse_page(html)

    # Exactly our two scripts; the page-level parse sees no injected element anywhere.
    assert len(page.scripts) == 2
    assert html.count("<script") == 2
    shell = html.split('<script type="application/json" id="st-data">', 1)[0]
    problems = [p for p in audit(shell).problems if p not in ("<meta>",)]
    assert problems == []

    assert len(page.frags) == len(page.data["entries"]) == 18
    for frag in page.frags:
        a = audit(frag)
        assert a.problems == [], (a.problems, frag[:300])
        assert a.tags[0] == "article"
    joined = "".join(page.frags)
    assert "&lt;script&gt;" in joined
    # Refused images never reach the images map or a data: URL.
    assert len(page.data["images"]) == 0
    assert joined.count("image with unsupported type not shown") == 3


def test_hostile_values_round_trip_through_st_data(tmp_path: Path) -> None:
    path = write_hostile_session(tmp_path / "evil.jsonl")
    page = parse_page(export_to_file(path, tmp_path / "evil.html").read_text(encoding="utf-8"))
    assert page.data["session"]["title"] == X
    assert page.data["session"]["cwd"] == "/tmp/" + X
    assert X in {m["id"] for m in page.data["entries"]}
    assert any(m.get("label") == X for m in page.data["entries"])
