"""What a clone without ../shared needs of the test suite, read from the tests' own source.

Two rules, both by reading the modules (``ast``), never by running them:
- only ``tests/conftest.py`` builds a path to the team's shared folder; every other module takes
  ``REAL``, ``real_file``, ``REAL_V1``, ``GEN_SESSION`` or ``need_shared`` from it, which fall
  back to the files shipped in ``tests/`` or skip by name (``shared_path_builders``);
- the test modules that touch a real file are every module importing one of those helpers or
  ``tests.mutants``, directly or through another helper module (``real_file_test_modules``): a
  clone runs all of them.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
REAL_HELPERS = frozenset({"REAL", "REAL_V1", "SHIPPED_REAL", "HAVE_SHARED", "real_file", "need_shared"})
"""conftest's names that reach real session files (the shipped ones, or ../shared's)."""
RULE_KEEPERS = frozenset({"tests/conftest.py", "tests/clone_rules.py", "tests/test_clone_rules.py"})
"""The modules that may name the shared folder: the one that finds it, this rule and its examples."""
_SHARED_SEGMENT = re.compile(r"(^|[/\\])shared([/\\]|$)")


def shared_path_builders(source: str) -> list[str]:
    """Each place in a module's source that reaches the shared folder other than through conftest."""
    tree = ast.parse(source)
    prose = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}  # docstrings
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.ImportFrom) and node.module == "tests.conftest":
            for alias in node.names:
                if alias.name in ("SHARED", "SHARED_ENV"):
                    found.append(f"line {line}: imports conftest.{alias.name} (use REAL, real_file, ...)")
        elif isinstance(node, ast.Attribute) and node.attr in ("SHARED", "SHARED_ENV"):
            found.append(f"line {line}: uses conftest.{node.attr}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            if _SHARED_SEGMENT.search(node.value):
                found.append(f"line {line}: a path through a 'shared' folder: {node.value!r}")
            elif node.value == "SESSIONTREE_SHARED":
                found.append(f"line {line}: reads SESSIONTREE_SHARED itself")
    return found


def module_files() -> dict[str, Path]:
    """Every module under tests/ by dotted name (the verbatim generator copy in tests/tools aside)."""
    found = {}
    for path in sorted(TESTS.rglob("*.py")):
        relative = path.relative_to(ROOT).with_suffix("")
        if relative.parts[1] == "tools":
            continue
        parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
        found[".".join(parts)] = path
    return found


def _imports(path: Path, known: dict[str, Path]) -> tuple[set[str], bool]:
    """The test modules one module imports, and whether it imports a real-file helper of conftest."""
    deps: set[str] = set()
    real = False
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = {alias.name for alias in node.names}
            if node.module == "tests.conftest" and names & REAL_HELPERS:
                real = True
            deps |= {node.module, *(f"{node.module}.{name}" for name in names)}
        elif isinstance(node, ast.Import):
            deps |= {alias.name for alias in node.names}
    return {dep for dep in deps if dep in known}, real


def real_file_test_modules() -> list[Path]:
    """The test files that touch a real file: they import a real-file helper or mutants, at any depth."""
    known = module_files()
    edges: dict[str, set[str]] = {}
    touching = {"tests.mutants"}
    for name, path in known.items():
        edges[name], real = _imports(path, known)
        if real:
            touching.add(name)
    grew = True
    while grew:
        grew = False
        for name, deps in edges.items():
            if name not in touching and deps & touching:
                touching.add(name)
                grew = True
    return sorted(known[name] for name in touching if known[name].name.startswith("test_"))
