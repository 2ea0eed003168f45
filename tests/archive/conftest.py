"""Fixtures of the archive tests: a sessions folder and a cache dir outside it."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def roots(tmp_path: Path) -> Path:
    """An empty sessions folder."""
    folder = tmp_path / "agent" / "sessions"
    folder.mkdir(parents=True)
    return folder


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    return tmp_path / "cache"
