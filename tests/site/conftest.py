"""Fixtures of the site builder's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import GenSession
from tests.site.archive import Archive, make_archive


@pytest.fixture
def archive(tmp_path: Path, gen_session: GenSession) -> Archive:
    """Two projects, a shared blob, a v1 file, a damaged file, a file that is not a session."""
    return make_archive(tmp_path, gen_session)
