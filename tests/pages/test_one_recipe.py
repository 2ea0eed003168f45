"""One recipe: every real fixture's page is the same bytes whether export writes it (cold and
from its caches), serve answers it at /export/, or a share (redaction off) would publish it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sessiontree.exporter import make_page
from sessiontree.exporter.fragment_cache import FragmentCache
from sessiontree.pages.export import export_to_file
from sessiontree.readers import load_for_export
from sessiontree.serve.config import ServeConfig
from sessiontree.store.surrogates import SURROGATES
from tests.conftest import REAL
from tests.serve.conftest import make_client

REAL_FILES = sorted(REAL.rglob("*.jsonl"))


@pytest.mark.anyio
@pytest.mark.parametrize("source", REAL_FILES, ids=lambda p: f"{p.parent.name}/{p.name[:40]}")
async def test_export_serve_and_share_make_the_same_page(source: Path, tmp_path: Path) -> None:
    root = tmp_path / "sessions" / "--real--"
    root.mkdir(parents=True)
    path = Path(shutil.copy2(source, root / source.name))
    fresh = export_to_file(path, tmp_path / "fresh.html").read_bytes()
    cache = FragmentCache(tmp_path / "cache")
    try:
        cold = export_to_file(path, tmp_path / "cold.html", cache=cache).read_bytes()
        warm = export_to_file(path, tmp_path / "warm.html", cache=cache).read_bytes()
    finally:
        cache.close()
    shared = "".join(make_page(load_for_export(path)).chunks).encode("utf-8", SURROGATES)
    config = ServeConfig(roots=(tmp_path / "sessions",), cache_dir=tmp_path / "serve-cache", watch=False)
    async with make_client(config) as client:
        served = await client.get(f"/export/--real--/{source.name}")
    assert served.status_code == 200
    assert cold == warm == fresh == shared == served.content
