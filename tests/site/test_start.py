"""What a build's start costs: the modules it imports before it does anything, and Pagefind found
without pagefind.service (which imports asyncio)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sessiontree.errors import SearchIndexError
from sessiontree.site import pagefind_service

HEAVY = ("asyncio", "importlib.metadata", "pagefind.service")
"""Modules a build's start has no use for (asyncio ~90 ms, importlib.metadata ~20 ms)."""


def test_a_build_starts_without_asyncio_or_package_metadata() -> None:
    code = (
        "import sys, json\n"
        "from sessiontree.cli import main\n"
        "import sessiontree.cli.build, sessiontree.site.build, sessiontree.site.pagefind_index\n"
        "from sessiontree.site.pagefind_service import _executable\n"
        "_executable()\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(done.stdout) == []


def test_pagefind_is_the_one_pagefind_service_would_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from pagefind.service import get_executable

    monkeypatch.delenv("PAGEFIND_BINARY_PATH", raising=False)
    found = pagefind_service._executable()
    assert found == get_executable()
    assert found.is_file()
    monkeypatch.setenv("PAGEFIND_BINARY_PATH", "/opt/elsewhere/pagefind")
    assert pagefind_service._executable() == Path("/opt/elsewhere/pagefind")


def test_no_pagefind_at_all_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PAGEFIND_BINARY_PATH", raising=False)
    for package in ("pagefind_bin_extended", "pagefind_bin"):
        monkeypatch.setitem(sys.modules, package, None)  # import fails: as if not installed
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SearchIndexError, match="Pagefind is not installed"):
        pagefind_service._executable()
