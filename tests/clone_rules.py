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
import inspect
import re
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def touching_modules() -> dict[str, Path]:
    """Every tests module (helpers too) that imports a real-file helper or mutants, at any depth."""
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
    return {name: known[name] for name in touching}


def real_file_test_modules() -> list[Path]:
    """The test files that touch a real file: they import a real-file helper or mutants, at any depth."""
    return sorted(path for path in touching_modules().values() if path.name.startswith("test_"))


# -- which collected tests touch a real file (a clone runs those, not the rest of their modules) --


def tainted_names(
    source: str, imported: Callable[[str, str], bool] = lambda module, name: module == "tests.mutants"
) -> tuple[set[str], set[str], bool]:
    """What of a module's top level reaches a real file, read in order from its source.

    Returns the top-level names that hold a real file's path or come from one (a name imported
    from conftest's helpers or from ``tests.mutants``, a name assigned from an expression naming
    a tainted one, a fixture whose decorator names one), the tests whose decorators name one
    (parametrized over real files), and whether the module's own top-level code reaches one
    beyond naming it (``pytestmark``, a call): then every test of the module touches real files.
    ``imported(module, name)`` tells whether a name another tests module exports is tainted there.
    """
    tree = ast.parse(source)
    tainted: set[str] = set()
    tests: set[str] = set()
    whole = False

    def names_in(node: ast.AST) -> set[str]:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}

    def decorated(node: ast.AST) -> bool:
        return bool(set().union(*(names_in(d) for d in getattr(node, "decorator_list", []))) & tainted)

    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module:
            for alias in stmt.names:
                helper = stmt.module == "tests.conftest" and alias.name in REAL_HELPERS
                if helper or (stmt.module.startswith("tests.") and imported(stmt.module, alias.name)):
                    tainted.add(alias.asname or alias.name)
        elif isinstance(stmt, ast.ClassDef):
            methods = [n for n in stmt.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
            if decorated(stmt):
                tests |= {m.name for m in methods}
            tests |= {m.name for m in methods if decorated(m)}
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if decorated(stmt):
                (tests if stmt.name.startswith("test") else tainted).add(stmt.name)
            elif not stmt.name.startswith("test") and names_in(stmt) & tainted:
                tainted.add(stmt.name)  # a helper that reaches one (a table of helpers may name it)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            if stmt.value is not None and names_in(stmt.value) & tainted:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                found = set().union(*(names_in(t) for t in targets))
                tainted |= found
                whole = whole or "pytestmark" in found
        elif not isinstance(stmt, ast.Import) and names_in(stmt) & tainted:
            whole = True
    return tainted, tests, whole


def _code_names(code: Any) -> set[str]:
    """The global and attribute names a function's code (and the code nested in it) uses."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _code_names(const)
    return names


class RealFileUse:
    """Tells whether a collected test touches a real file: through its own code, a fixture, a
    helper function or constant of a test module, followed through the functions it calls."""

    def __init__(self) -> None:
        self._modules: dict[str, tuple[set[str], set[str], bool]] = {}
        self._seen: dict[int, bool] = {}
        self._files = module_files()
        self._touching = frozenset(touching_modules())

    def _module(self, name: str) -> tuple[set[str], set[str], bool]:
        if name not in self._modules:
            self._modules[name] = (set(), set(), False)  # while it is read: an import cycle finds nothing
            path = self._files.get(name)
            if path is not None:
                self._modules[name] = tainted_names(path.read_text(encoding="utf-8"), self._tainted)
        return self._modules[name]

    def _tainted(self, module: str, name: str) -> bool:
        """Whether a tests module's top-level name holds a real file's path (or is tests.mutants')."""
        return module == "tests.mutants" or name in self._module(module)[0]

    def function(self, func: Any) -> bool:
        """Whether a function of the tests (a test, a fixture, a helper) touches a real file."""
        func = inspect.unwrap(func)
        inner = getattr(getattr(func, "hypothesis", None), "inner_test", None)
        func = inspect.unwrap(inner) if inner is not None else func
        code = getattr(func, "__code__", None)
        module = getattr(func, "__module__", None) or ""
        if code is None or not module.startswith("tests"):
            return False
        if id(code) in self._seen:
            return self._seen[id(code)]
        self._seen[id(code)] = False  # a recursion is no evidence
        names = _code_names(code)
        found = bool(names & REAL_HELPERS) or any(self._tainted(module, name) for name in names)
        scope = getattr(func, "__globals__", {})
        for name in sorted(names) if not found else ():
            value = scope.get(name)
            if isinstance(value, types.ModuleType):
                found = value.__name__ in self._touching and any(self._member(value, attr) for attr in names)
            elif value is not None:
                found = self._member_value(value)
            if found:
                break
        self._seen[id(code)] = found
        return found

    def _member(self, module: types.ModuleType, attr: str) -> bool:
        value = getattr(module, attr, None)
        return self._tainted(module.__name__, attr) or (value is not None and self._member_value(value))

    def _member_value(self, value: Any) -> bool:
        if inspect.isclass(value) and value.__module__.startswith("tests"):
            return any(self.function(f) for f in vars(value).values() if inspect.isfunction(f))
        if inspect.isfunction(value):
            return self.function(value)
        if isinstance(value, (dict, list, tuple)):  # a table of helpers
            items = value.values() if isinstance(value, dict) else value
            return any(self.function(v) for v in list(items)[:64] if inspect.isfunction(v))
        return False

    def test(self, item: Any) -> bool:
        """Whether one collected item (a ``pytest.Function``) touches a real file."""
        module = getattr(getattr(item, "module", None), "__name__", "")
        _, tests, whole = self._module(module)
        if whole or getattr(item, "originalname", item.name) in tests or self.function(item.function):
            return True
        defs = item._fixtureinfo.name2fixturedefs
        return any(
            self.function(fixturedef.func) for name in item.fixturenames for fixturedef in defs.get(name, ())
        )
