"""The site's usage page: written from the archive index, linked to built pages, rewritten only on change."""

from __future__ import annotations

import json
from pathlib import Path

from sessiontree.archive.collection import Filters
from sessiontree.site.build import BuildOptions, build_site
from tests.pages.usage_records import data_totals, page_data
from tests.site.archive import Archive


def _assistant_messages(paths: list[Path]) -> int:
    seen: set[tuple[object, ...]] = set()
    for path in paths:
        for raw in path.read_text(encoding="utf-8").splitlines()[1:]:
            try:
                entry = json.loads(raw)
            except ValueError:
                continue
            message = entry.get("message") if isinstance(entry, dict) else None
            if isinstance(message, dict) and message.get("role") == "assistant" and "usage" in message:
                seen.add(
                    (entry.get("id"), entry.get("timestamp"), json.dumps(message["usage"], sort_keys=True))
                )
    return len(seen)


def test_usage_page_links_built_pages_and_follows_changes(archive: Archive, tmp_path: Path) -> None:
    site = tmp_path / "site"
    options = BuildOptions(root=archive.root, site=site, jobs=1, search=False)
    first = build_site(options)
    assert first.usage_written
    html = (site / "usage.html").read_text(encoding="utf-8")
    data = page_data(html)
    hrefs = [s[3] for s in data["tops"][""]["top"]]
    assert hrefs and all(href and (site / href).is_file() for href in hrefs)
    assert '<a href="index.html" id="st-home">' in html
    sessions = [
        *archive.app,
        archive.v1,
        archive.corrupt,
        archive.root / "--home-dev-lib--" / "2026-11-04_shared.jsonl",
    ]
    assert data_totals(data)["messages"] == _assistant_messages(sessions)

    assert not build_site(options).usage_written  # nothing changed: the page is left alone
    grown = archive.app[2]
    last = json.loads(grown.read_text(encoding="utf-8").splitlines()[-1])
    usage = {"input": 7, "output": 5, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.5}}
    entry = {
        "type": "message",
        "id": "late-reply",
        "parentId": last["id"],
        "timestamp": "2026-12-01T10:00:00.000Z",
        "message": {"role": "assistant", "content": [], "provider": "p", "model": "m", "usage": usage},
    }
    with grown.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry) + "\n")
    assert build_site(options).usage_written
    assert "p/m" in (site / "usage.html").read_text(encoding="utf-8")


def test_usage_page_covers_only_the_sessions_the_filters_keep(archive: Archive, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_site(
        BuildOptions(
            root=archive.root, site=site, jobs=1, search=False, filters=Filters(project="/home/dev/app")
        )
    )
    html = (site / "usage.html").read_text(encoding="utf-8")
    assert data_totals(page_data(html))["messages"] == _assistant_messages(archive.app)
    assert "2026-11-04_shared" not in html


def test_no_usage_option(archive: Archive, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_site(BuildOptions(root=archive.root, site=site, jobs=1, search=False, usage=False))
    assert not (site / "usage.html").exists()
