"""sessiontree build: the site, its manifest, incremental rebuilds, filters, shared assets."""

from __future__ import annotations

import base64
import gc
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sessiontree.archive.collection import Filters, parse_since
from sessiontree.cli import cli
from sessiontree.errors import FilterError
from sessiontree.site import layout
from sessiontree.site.build import BuildOptions, build_site
from sessiontree.site.lock import LOCK_FILE
from sessiontree.site.manifest import load_manifest
from tests.readers.helpers import st_data
from tests.site.archive import Archive, page_stamps, snapshot_tree
from tests.store.helpers import dead_pid


def run_build(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["build", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_build_writes_an_index_and_a_page_per_session_and_reports_the_unreadable(
    archive: Archive, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    before = snapshot_tree(archive.agent)
    code, out, err = run_build(str(archive.root), "-o", str(site), "-j", "2", "--no-search")
    assert snapshot_tree(archive.agent) == before  # the sessions folder is only read
    assert code == 1  # the file that is not a session is a failure, listed at the end
    assert "1 failed" in err and "notes.jsonl" in err
    manifest = load_manifest(site)
    keys = {p.relative_to(archive.root).as_posix() for p in [*archive.app, archive.v1, archive.corrupt]}
    assert keys <= set(manifest.pages)
    assert "--home-dev-lib--/notes.jsonl" not in manifest.pages
    index = (site / "index.html").read_text(encoding="utf-8")
    for key in keys:
        page = site / layout.page_path(key)
        assert page.is_file()
        assert f'href="{layout.page_path(key)}"' in index
    assert "notes.jsonl" in index and "unreadable" in index
    # The damaged file still has its page with everything readable.
    corrupt = site / manifest.pages["--home-dev-lib--/2026-11-05_corrupt.jsonl"].page
    assert 'id="st-data"' in corrupt.read_text(encoding="utf-8")
    assert "6 rendered, 0 unchanged" in out


def test_a_second_build_touches_only_what_changed(archive: Archive, tmp_path: Path) -> None:
    site = tmp_path / "site"
    options = BuildOptions(root=archive.root, site=site, jobs=1, search=False)
    first = build_site(options)
    assert len(first.rendered) == 6
    stamps = page_stamps(site)
    index_stamp = (site / "index.html").stat().st_ino

    nothing = build_site(options)
    assert nothing.rendered == [] and nothing.kept == 6
    assert page_stamps(site) == stamps
    assert (site / "index.html").stat().st_ino == index_stamp  # not even the index is rewritten

    grown = archive.app[2]
    with grown.open("a", encoding="utf-8") as fh:
        last = json.loads(grown.read_text(encoding="utf-8").splitlines()[-1])
        fh.write(
            json.dumps(
                {
                    "type": "label",
                    "id": "lbl-new",
                    "parentId": last["id"],
                    "timestamp": "2026-11-30T10:00:00.000Z",
                    "targetId": last["id"],
                    "label": "late",
                }
            )
            + "\n"
        )
    touched = archive.app[0]
    st = touched.stat()
    os.utime(touched, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))  # newer time, same bytes
    again = build_site(options)
    grown_key = grown.relative_to(archive.root).as_posix()
    assert again.rendered == [grown_key]
    after = page_stamps(site)
    changed = {page for page in stamps if after[page] != stamps[page]}
    assert changed == {layout.page_path(grown_key)}
    assert (site / "index.html").stat().st_ino != index_stamp


def test_deleted_sessions_vanish_and_new_ones_appear(archive: Archive, tmp_path: Path) -> None:
    site = tmp_path / "site"
    options = BuildOptions(root=archive.root, site=site, jobs=1, search=False)
    build_site(options)
    gone = archive.app[1].relative_to(archive.root).as_posix()
    gone_page = site / layout.page_path(gone)
    assert gone_page.is_file()
    archive.app[1].unlink()
    newcomer = archive.root / "--home-dev-new--" / "2026-11-20_n.jsonl"
    newcomer.parent.mkdir()
    newcomer.write_bytes(archive.app[2].read_bytes())
    result = build_site(options)
    assert result.removed == [gone]
    assert result.rendered == ["--home-dev-new--/2026-11-20_n.jsonl"]
    assert not gone_page.exists()
    assert (site / load_manifest(site).pages[result.rendered[0]].records).read_bytes() != b""
    index = (site / "index.html").read_text(encoding="utf-8")
    assert layout.page_path(gone) not in index
    assert layout.page_path("--home-dev-new--/2026-11-20_n.jsonl") in index


def test_an_incremental_build_writes_the_lists_and_manifest_a_full_build_writes(
    archive: Archive, tmp_path: Path
) -> None:
    # The pane's list and the usage page are made while Pagefind indexes, and kept pages' manifest
    # records are written as they were read: what one new session leaves is what a build from
    # nothing writes, byte for byte.
    site, fresh = tmp_path / "site", tmp_path / "fresh"
    build_site(BuildOptions(root=archive.root, site=site, jobs=1))
    newcomer = archive.root / "--home-dev-new--" / "2026-11-20_n.jsonl"
    newcomer.parent.mkdir()
    newcomer.write_bytes(archive.app[2].read_bytes())
    again = build_site(BuildOptions(root=archive.root, site=site, jobs=1))
    assert again.rendered == ["--home-dev-new--/2026-11-20_n.jsonl"]
    build_site(BuildOptions(root=archive.root, site=fresh, jobs=1))
    months = sorted(p.name for p in fresh.glob("usage-sessions-*.json"))  # the usage page's files
    assert months and sorted(p.name for p in site.glob("usage-sessions-*.json")) == months
    for name in ("sessions.json", "usage.html", "index.html", "search.html", layout.MANIFEST, *months):
        assert (site / name).read_bytes() == (fresh / name).read_bytes(), name
    assert "2026-11-20_n" in (site / "sessions.json").read_text(encoding="utf-8")


def test_a_site_whose_catalog_is_of_the_older_table_builds_incrementally_as_a_fresh_one(
    archive: Archive, tmp_path: Path
) -> None:
    # A site built by an earlier sessiontree keeps its catalog in the older table (each record's
    # JSON whole): the next build reads it as it was (nothing rendered again but the new session),
    # writes the same files a build from nothing writes, and leaves the catalog in the new table.
    from sessiontree.archive.catalog_cache import is_old, saved_files
    from tests.archive.test_catalog_store import write_old_table

    site, fresh = tmp_path / "site", tmp_path / "fresh"
    build_site(BuildOptions(root=archive.root, site=site, jobs=1))
    (cache_file,) = (site / layout.STATE_DIR / "catalog").iterdir()
    write_old_table(cache_file, saved_files(cache_file), str(archive.root.resolve()))
    assert is_old(cache_file)
    newcomer = archive.root / "--home-dev-new--" / "2026-11-20_n.jsonl"
    newcomer.parent.mkdir()
    newcomer.write_bytes(archive.app[2].read_bytes())
    again = build_site(BuildOptions(root=archive.root, site=site, jobs=1))
    assert again.rendered == ["--home-dev-new--/2026-11-20_n.jsonl"]
    assert not is_old(cache_file)
    build_site(BuildOptions(root=archive.root, site=fresh, jobs=1))
    for name in ("sessions.json", "usage.html", "index.html", "search.html", layout.MANIFEST):
        assert (site / name).read_bytes() == (fresh / name).read_bytes(), name
    (fresh_catalog,) = (fresh / layout.STATE_DIR / "catalog").iterdir()
    assert saved_files(cache_file) == saved_files(fresh_catalog)


def test_a_build_parses_the_catalogs_passes_only_for_the_lists_and_before_the_freeze(
    archive: Archive, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A build that writes the lists asks for every record's line pass (their usage rows): parsed
    # before the listing is frozen, not after (every collection walked them then); a build with
    # nothing new parses none.
    from sessiontree.archive.collection import Sources
    from sessiontree.site import build as build_module

    made: list[Sources] = []
    frozen: list[list[tuple[bool, bool]]] = []

    class Seen(Sources):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    def freeze() -> None:  # (text of the pass kept, pass parsed) of every record of the build
        records = [c for k in made[-1].catalogs for c in k._cached.values()]
        frozen.append([(c.scan_text is not None, c._scan is not None) for c in records])

    options = BuildOptions(root=archive.root, site=tmp_path / "site", jobs=1, search=False)
    build_site(options)
    monkeypatch.setattr(build_module, "Sources", Seen)
    monkeypatch.setattr(gc, "freeze", freeze)
    build_site(options)  # nothing new
    assert frozen[-1] and not any(parsed for _, parsed in frozen[-1])  # every pass still text
    assert sum(text for text, _ in frozen[-1]) >= 6
    newcomer = archive.root / "--home-dev-new--" / "2026-11-20_n.jsonl"
    newcomer.parent.mkdir()
    newcomer.write_bytes(archive.app[2].read_bytes())
    assert build_site(options).rendered == ["--home-dev-new--/2026-11-20_n.jsonl"]
    assert not any(text for text, _ in frozen[-1])  # every pass parsed by the freeze
    assert sum(parsed for _, parsed in frozen[-1]) >= 7


def test_a_build_gives_back_the_collector_as_it_found_it(archive: Archive, tmp_path: Path) -> None:
    # The build loads the listing with the cyclic collector off and freezes it: neither outlives it.
    options = BuildOptions(root=archive.root, site=tmp_path / "site", jobs=1, search=False)
    assert gc.isenabled()
    build_site(options)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()
    try:
        build_site(options)
        assert not gc.isenabled() and gc.get_freeze_count() == 0
    finally:
        gc.enable()


def test_an_upgrade_of_sessiontree_or_force_renders_everything(archive: Archive, tmp_path: Path) -> None:
    site = tmp_path / "site"
    options = BuildOptions(root=archive.root, site=site, jobs=1, search=False)
    build_site(options)
    manifest_path = site / layout.MANIFEST
    raw = json.loads(manifest_path.read_text())
    raw["sessiontree"] = "0.0.1-older"
    manifest_path.write_text(json.dumps(raw))
    stamps = page_stamps(site)
    upgraded = build_site(options)
    assert len(upgraded.rendered) == 6
    assert all(page_stamps(site)[p] != stamps[p] for p in stamps)
    assert len(build_site(options).rendered) == 0
    forced = build_site(BuildOptions(root=archive.root, site=site, jobs=1, search=False, force=True))
    assert len(forced.rendered) == 6


def test_filters_pick_projects_times_and_globs(archive: Archive, tmp_path: Path) -> None:
    site = tmp_path / "site"
    only_app = build_site(
        BuildOptions(
            root=archive.root, site=site, jobs=1, search=False, filters=Filters(project="/home/dev/app")
        )
    )
    assert sorted(only_app.rendered) == sorted(p.relative_to(archive.root).as_posix() for p in archive.app)
    assert only_app.failures == {}  # the unreadable file has no cwd: a project filter leaves it out

    excluded = build_site(
        BuildOptions(
            root=archive.root,
            site=site,
            jobs=1,
            search=False,
            filters=Filters(project="/home/dev/app", exclude=("*_b.jsonl",)),
        )
    )
    assert [Path(k).name for k in excluded.removed] == ["2026-11-02_b.jsonl"]

    old = archive.v1
    os.utime(old, (1_600_000_000, 1_600_000_000))  # 2020
    recent = build_site(
        BuildOptions(
            root=archive.root,
            site=tmp_path / "recent",
            jobs=1,
            search=False,
            filters=Filters(since_ms=parse_since("2024-01-01")),
        )
    )
    assert old.relative_to(archive.root).as_posix() not in recent.rendered
    assert len(recent.rendered) == 5


def test_bad_dates_and_outputs_are_one_line_errors(archive: Archive, tmp_path: Path) -> None:
    with pytest.raises(FilterError, match="Not a date"):
        parse_since("last tuesday")
    code, _, err = run_build(str(archive.root), "-o", str(archive.root / "site"))
    assert code == 1 and "inside the sessions folder" in err and "Traceback" not in err
    assert not (archive.root / "site").exists()
    code, _, err = run_build(str(tmp_path / "missing"), "-o", str(tmp_path / "site"))
    assert code == 1 and "Not a folder" in err


def test_shared_assets_write_each_image_once(archive: Archive, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_site(BuildOptions(root=archive.root, site=site, jobs=2, search=False, shared_assets=True))
    assets = sorted((site / layout.ASSETS_DIR).iterdir())
    expected = image_digests(archive)
    assert len(expected) >= 2
    assert {a.name.partition(".")[0] for a in assets} == expected  # each distinct image once
    for asset in assets:
        assert asset.name.partition(".")[2] in {"png", "jpg", "gif", "webp"}
        assert hashlib.sha256(asset.read_bytes()).hexdigest() == asset.name.partition(".")[0]
    blob = next((archive.agent / "blobs").iterdir())
    assert blob.name in expected  # the image the two sessions share through the blob store
    manifest = load_manifest(site)
    for key in ("--home-dev-app--/2026-11-01_a.jsonl", "--home-dev-lib--/2026-11-04_shared.jsonl"):
        images = page_data(site / manifest.pages[key].page)["images"]
        assert images and all(url.startswith("../../assets/") for url in images.values())
        assert any(url.startswith(f"../../assets/{blob.name}.") for url in images.values())
    # Back to self-contained pages: everything re-rendered, the assets folder emptied.
    again = build_site(BuildOptions(root=archive.root, site=site, jobs=1, search=False))
    assert len(again.rendered) == 6
    assert list((site / layout.ASSETS_DIR).iterdir()) == []
    images = page_data(site / manifest.pages["--home-dev-app--/2026-11-01_a.jsonl"].page)["images"]
    assert images and all(url.startswith("data:image/") for url in images.values())


def page_data(page: Path) -> dict[str, Any]:
    """The st-data JSON of a session page."""
    return st_data(page.read_text(encoding="utf-8"))


def image_digests(archive: Archive) -> set[str]:
    """The sha256 of every distinct image in the archive's sessions, read from the files directly."""
    found: set[str] = set()
    for path in archive.root.rglob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                value = json.loads(line)
            except ValueError:
                continue
            stack = [value]
            while stack:
                item = stack.pop()
                if isinstance(item, dict):
                    if item.get("type") == "image" and isinstance(item.get("data"), str):
                        data = item["data"]
                        if data.startswith("blob:sha256:"):
                            raw = (archive.agent / "blobs" / data.removeprefix("blob:sha256:")).read_bytes()
                        else:
                            raw = base64.b64decode(data)
                        found.add(hashlib.sha256(raw).hexdigest())
                    stack.extend(item.values())
                elif isinstance(item, list):
                    stack.extend(item)
    return found


def test_stale_temp_files_of_a_killed_build_are_removed(archive: Archive, tmp_path: Path) -> None:
    site = tmp_path / "site"
    options = BuildOptions(root=archive.root, site=site, jobs=1, search=False)
    build_site(options)
    held = site / LOCK_FILE
    assert held.read_bytes() == b""  # a build that ended whole leaves no pid: nothing to look for
    killed = dead_pid()
    stale = site / "sessions" / f".x.html.sessiontree-{killed}-0123abcd.tmp"
    stale.write_text("half a page")
    running = site / "sessions" / f".y.html.sessiontree-{os.getpid()}-0123abcd.tmp"  # another build's
    running.write_text("a page being written")
    held.write_text(f"{killed}\n")  # as the killed build left it
    build_site(options)
    assert not stale.exists() and running.exists()
    assert held.read_bytes() == b""


def test_page_paths_are_safe_and_distinct() -> None:
    keys = ["a/b.jsonl", "../x.jsonl", "a b/c?d.jsonl", "a_b/c_d.jsonl", "é/ü.jsonl", "-x-/y.jsonl"]
    pages = [layout.page_path(k) for k in keys]
    assert len(set(pages)) == len(pages)
    for page in pages:
        assert page.startswith("sessions/") and page.endswith(".html")
        assert all(re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._~-]*", part) for part in page.split("/"))
        assert ".." not in page.split("/")


def test_progress_is_a_line_per_session_on_a_pipe_and_nothing_with_quiet(
    archive: Archive, tmp_path: Path
) -> None:
    code, _, err = run_build(str(archive.root), "-o", str(tmp_path / "a"), "-j", "1", "--no-search")
    lines = [line for line in err.splitlines() if line.startswith("Rendering [")]
    assert code == 1
    assert len(lines) == 6 and lines[-1].startswith("Rendering [6/6] ")
    code, out, err = run_build(
        str(archive.root), "-o", str(tmp_path / "b"), "-j", "1", "--no-search", "--quiet"
    )
    assert not [line for line in err.splitlines() if " [" in line]
    assert "6 rendered" in out and "notes.jsonl" in err  # failures are printed even when quiet


def test_a_folder_without_sessions_builds_an_empty_site_with_a_warning(tmp_path: Path) -> None:
    empty = tmp_path / "sessions"
    empty.mkdir()
    code, out, err = run_build(str(empty), "-o", str(tmp_path / "site"), "--no-usage")
    assert code == 0, err
    assert f"Warning: No sessions found in {empty}" in err
    assert "0 rendered, 0 unchanged" in out
    assert (tmp_path / "site" / "index.html").is_file()
    code, _, err = run_build(str(empty), "-o", str(tmp_path / "quiet"), "--no-usage", "--quiet")
    assert code == 0 and "Warning: No sessions found" in err  # a warning shows even with --quiet
