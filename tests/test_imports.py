"""Imports run one way: no stage imports a later one (docs/architecture.md's floors)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "sessiontree"

# What each stage may import besides itself (the package root, errors and asyncrun are shared).
ALLOWED: dict[str, set[str]] = {
    "store": set(),
    "readers": {"store"},
    "exporter": {"store"},
    "archive": {"store", "readers"},
    "pages": {"store", "readers", "exporter", "archive"},
    "share": {"store", "readers", "exporter"},
    "serve": {"store", "readers", "exporter", "archive", "pages"},
    "site": {"store", "readers", "exporter", "archive", "pages"},
    "mcp_server": {"store", "readers", "exporter", "archive", "share", "serve"},
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


def module_name(path: Path) -> str:
    """The dotted name of a file of the package (a package's ``__init__`` is the package)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports, deferred and type-checking imports included.

    ``from sessiontree.readers import claude`` is an arrow to ``sessiontree.readers.claude`` when
    that is a module, else to ``sessiontree.readers`` (a name its ``__init__`` defines).
    """
    files = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        arrows: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module.split(".")[0] != "sessiontree":
                    continue
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    arrows.add(sub if sub in files else node.module)
            elif isinstance(node, ast.Import):
                arrows |= {a.name for a in node.names if a.name.split(".")[0] == "sessiontree"}
        graph[name] = {target for target in arrows if target in files and target != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            part: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_cycles_finds_a_cycle_it_is_shown() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]


def test_no_module_imports_itself_through_others() -> None:
    assert cycles(import_graph()) == []


def test_the_exporter_imports_no_reader() -> None:
    """The exporter renders a loaded session; the line-kind table it reads lives in ``store``."""
    used = {
        name
        for path in (PACKAGE / "exporter").rglob("*.py")
        for name in imported(path)
        if name.startswith("sessiontree.readers")
    }
    assert used == set()


def test_the_catalog_cache_is_not_saved_through_the_session_rewrite() -> None:
    assert "sessiontree.store.persist" not in imported(PACKAGE / "archive" / "catalog.py")


MAX_MODULE_LINES = 500


def test_no_module_is_over_500_lines() -> None:
    """A module past 500 lines holds more than one idea: split it where a real seam is (issue 43)."""
    long = {
        str(path.relative_to(PACKAGE)): n
        for path in PACKAGE.rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}
