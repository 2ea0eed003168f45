"""Imports run one way: no stage imports a later one (docs/architecture.md's package map)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "sessiontree"

# What each stage may import besides itself (the package root, errors and asyncrun are shared).
ALLOWED: dict[str, set[str]] = {
    "store": set(),
    "readers": {"store"},
    "exporter": {"store", "readers"},
    "archive": {"store", "readers"},
    "pages": {"store", "readers", "exporter", "archive"},
    "share": {"store", "readers", "exporter"},
    "serve": {"store", "readers", "exporter", "archive", "pages"},
    "site": {"store", "readers", "exporter", "archive", "pages"},
}
SHARED = {"", "errors", "asyncrun"}  # "": the package itself (its version)


def imported(path: Path) -> set[str]:
    """The sessiontree modules a file imports (deferred imports inside functions too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found |= {name for name in names if name.split(".")[0] == "sessiontree"}
    return found


@pytest.mark.parametrize("stage", sorted(ALLOWED))
def test_a_stage_imports_no_later_one(stage: str) -> None:
    allowed = ALLOWED[stage] | SHARED | {stage}
    wrong = sorted(
        f"{path.relative_to(PACKAGE)} imports {name}"
        for path in (PACKAGE / stage).rglob("*.py")
        for name in imported(path)
        if [*name.split("."), ""][1] not in allowed
    )
    assert wrong == []


# The exporter renders a loaded session: of the readers it may use only the line-kind table
# (rows each reader adds; to move to store/), never a loader or a subagent lookup.
EXPORTER_FROM_READERS = {"sessiontree.readers.kinds", "sessiontree.readers.base"}


def test_the_exporter_loads_nothing_through_a_reader() -> None:
    used = {
        name
        for path in (PACKAGE / "exporter").rglob("*.py")
        for name in imported(path)
        if name.startswith("sessiontree.readers")
    }
    assert used <= EXPORTER_FROM_READERS


def test_the_catalog_cache_is_not_saved_through_the_session_rewrite() -> None:
    assert "sessiontree.store.persist" not in imported(PACKAGE / "archive" / "catalog.py")
