"""Helpers for exporter tests: an HTML snapshot extension and a page parser."""

from __future__ import annotations

import json
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from sessiontree.exporter.page import unpack_fragments


class HTMLSnapshotExtension(SingleFileSnapshotExtension):
    """Store each snapshot as a reviewable ``.html`` file."""

    file_extension = "html"
    _write_mode = WriteMode.TEXT


@pytest.fixture
def html_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(HTMLSnapshotExtension)


@dataclass
class ParsedPage:
    """The parts of an exported page the contract fixes."""

    csp: str
    scripts: list[tuple[dict[str, str], str]]
    data: dict[str, Any]
    frags: list[str]
    ids: set[str]


class _PageParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.csp = ""
        self.scripts: list[tuple[dict[str, str], str]] = []
        self.ids: set[str] = set()
        self._script: dict[str, str] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "meta" and a.get("http-equiv", "").lower() == "content-security-policy":
            self.csp = a.get("content", "")
        if tag == "script":
            self._script, self._text = a, []

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script, "".join(self._text)))
            self._script = None


def parse_page(html: str) -> ParsedPage:
    """Parse an exported page: CSP, scripts, the ``st-data`` JSON and its fragments."""
    parser = _PageParser()
    parser.feed(html)
    data_text = next(text for attrs, text in parser.scripts if attrs.get("id") == "st-data")
    data = json.loads(data_text)
    return ParsedPage(parser.csp, parser.scripts, data, unpack_fragments(data["frags"]), parser.ids)
