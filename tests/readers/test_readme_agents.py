"""The README's table names every agent a reader reads, and where each keeps its sessions."""

from __future__ import annotations

import re

from sessiontree.readers.discovery import DATA_ROOTS, DEFAULT_ROOTS
from sessiontree.store.formats import AGENT_LABELS
from tests.conftest import ROOT


def table_rows() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = text[text.index("| agent | its sessions") :].splitlines()[2:]
    return lines[: next(i for i, line in enumerate(lines) if not line.startswith("|"))]


def test_every_agent_read_has_a_row() -> None:
    named = {re.match(r"\| \[([^\]]+)\]", row)[1] for row in table_rows()}  # type: ignore[index]
    assert {label for agent, label in AGENT_LABELS.items() if agent != "pi"} <= named


def test_every_default_folder_is_in_the_table() -> None:
    rows = "\n".join(table_rows())
    for _, folder in DEFAULT_ROOTS:
        assert f"~/{folder}" in rows, folder


def test_every_data_folder_is_in_the_table() -> None:
    rows = "\n".join(table_rows())
    for _, folder in DATA_ROOTS:
        assert f"$XDG_DATA_HOME/{folder}" in rows, folder
