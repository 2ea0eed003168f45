"""The site's search in batches: one Pagefind bundle per batch, rebuilt only when its batch changes."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from sessiontree.site import pagefind_index, search_router
from sessiontree.site.build import BuildOptions, build_site
from sessiontree.site.manifest import Manifest, load_manifest
from sessiontree.site.pagefind_index import (
    BATCH_BYTES,
    BATCH_SESSIONS,
    Bundle,
    IndexedPage,
    bundle_intact,
    index_batch,
    plan_batches,
)
from tests.conftest import GenSession
from tests.site.archive import Archive, plant

Stamps = dict[str, tuple[int, int]]


def bundle_stamps(site: Path, name: str) -> Stamps:
    """(inode, mtime) of every file of a bundle."""
    return {
        p.relative_to(site).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in (site / name).rglob("*")
        if p.is_file()
    }


def bundle_of(manifest: Manifest, key: str) -> str:
    return next(name for name, b in manifest.bundles.items() if key in b.keys)


def shard_of(site: Path, bundles: list[str], name: str) -> dict[str, Any]:
    """A router shard as the page reads it: through the routes of the list of ``bundles``."""
    folder = site / "search-router"
    routes = json.loads((folder / f"list-{search_router.bundles_digest(bundles)}-routes.json").read_text())
    shard: dict[str, Any] = json.loads((folder / f"{name}-{routes['shards'][name]}.json").read_text())
    return shard


def shard_stamps(site: Path) -> Stamps:
    """(inode, mtime) of every router shard file."""
    return {
        p.name: (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in (site / "search-router").glob("*.json")
        if not p.name.startswith("list-")
    }


def check_bundle(folder: Path) -> int:
    """Read a bundle as a browser would need it; return how many pages its entry file counts."""
    entry = json.loads((folder / "pagefind-entry.json").read_text(encoding="utf-8"))
    pages = 0
    for language in entry["languages"].values():
        assert (folder / f"pagefind.{language['hash']}.pf_meta").is_file()
        assert (folder / f"wasm.{language['wasm'] or 'unknown'}.pagefind").stat().st_size > 1000
        pages += language["page_count"]
    assert (folder / "pagefind.js").stat().st_size > 1000
    for path in folder.rglob("*.pf_*"):
        assert gzip.decompress(path.read_bytes()).startswith(b"pagefind_dcd"), path  # whole, not cut short
    return pages


@pytest.fixture
def batched(archive: Archive, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> BuildOptions:
    """The archive built with one search bundle per session; the options to build it again."""
    monkeypatch.setattr(pagefind_index, "CUT_ONE_IN", 1)
    options = BuildOptions(root=archive.root, site=tmp_path / "site", jobs=2)
    build_site(options)
    return options


def test_a_changed_session_rewrites_only_its_own_bundle(archive: Archive, batched: BuildOptions) -> None:
    site, options = batched.site, batched
    before = load_manifest(site)
    assert len(before.bundles) == 6
    stamps = {name: bundle_stamps(site, name) for name in before.bundles}

    grown = archive.app[2]
    key = grown.relative_to(archive.root).as_posix()
    last = json.loads(grown.read_text(encoding="utf-8").splitlines()[-1])
    with grown.open("a", encoding="utf-8") as fh:
        line = {"type": "label", "id": "lbl-b1", "parentId": last["id"], "targetId": last["id"], "label": "x"}
        fh.write(json.dumps({**line, "timestamp": "2026-11-30T10:00:00.000Z"}) + "\n")
    result = build_site(options)
    after = load_manifest(site)
    assert result.rendered == [key]
    old_name, new_name = bundle_of(before, key), bundle_of(after, key)
    assert old_name != new_name and not (site / old_name).exists()
    assert set(after.bundles) - {new_name} == set(before.bundles) - {old_name}
    for name in set(before.bundles) - {old_name}:
        assert bundle_stamps(site, name) == stamps[name], name  # not one file of another batch rewritten
    assert bundle_intact(site, after.bundles[new_name])
    assert check_bundle(site / new_name) >= 1


def test_a_changed_session_rewrites_only_the_router_shards_of_its_new_words(
    archive: Archive, batched: BuildOptions, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 54 item 3: the router numbers a bundle by its batch, not by its name, and names a
    shard by its content, so a session given one new word leaves every shard but that word's as
    it was (it rewrote them all, 139 at 10,000 sessions, whenever the bundle list changed)."""
    monkeypatch.setattr(search_router, "NAMED", 0)  # every key by number: a renamed bundle alone changes none
    site, options = batched.site, batched
    shutil.rmtree(site / "search-router")
    build_site(options)  # the router as NAMED = 0 writes it (the build finds it missing)
    before = load_manifest(site)
    stamps = shard_stamps(site)
    assert len(stamps) > 10 and not any(name.startswith("zq") for name in stamps)
    plant(archive.app[2], "zqxjkvu")
    result = build_site(options)
    after = load_manifest(site)
    assert result.rendered == [archive.app[2].relative_to(archive.root).as_posix()]
    assert set(after.bundles) != set(before.bundles)
    now = shard_stamps(site)
    assert [n for n in now if n not in stamps] == [next(n for n in now if n.startswith("zq-"))]
    assert {n: s for n, s in now.items() if n in stamps} == stamps  # not one other shard written again
    order = pagefind_index.router_order(after.bundles)
    assert order.index(bundle_of(after, result.rendered[0])) == pagefind_index.router_order(
        before.bundles
    ).index(bundle_of(before, result.rendered[0]))
    assert shard_of(site, order, "zq")["keys"] == {"zqx": [order.index(bundle_of(after, result.rendered[0]))]}


def test_a_damaged_or_missing_bundle_is_rebuilt(archive: Archive, batched: BuildOptions) -> None:
    site, options = batched.site, batched
    manifest = load_manifest(site)
    damaged, missing = sorted(manifest.bundles)[:2]
    index_file = next((site / damaged / "index").iterdir())
    whole = index_file.read_bytes()
    index_file.write_bytes(whole[: len(whole) // 2])  # cut short, as a killed writer leaves it
    (site / missing / "pagefind-entry.json").unlink()
    assert not bundle_intact(site, manifest.bundles[damaged])
    untouched = {n: bundle_stamps(site, n) for n in manifest.bundles if n not in (damaged, missing)}

    result = build_site(options)
    assert result.rendered == [] and result.search_records
    assert load_manifest(site).bundles == manifest.bundles  # the same names and files as before
    assert index_file.read_bytes() == whole
    for name in (damaged, missing):
        assert bundle_intact(site, manifest.bundles[name])
        check_bundle(site / name)
    assert {n: bundle_stamps(site, n) for n in untouched} == untouched

    nothing = build_site(options)
    assert nothing.search_records is None  # every bundle intact: nothing indexed again
    forced = build_site(BuildOptions(root=archive.root, site=site, jobs=2, force=True))
    assert forced.search_records and forced.search_records >= result.search_records
    assert all(bundle_stamps(site, n) != s for n, s in untouched.items())  # --force re-indexes all


def _page(key: str) -> IndexedPage:
    return IndexedPage(key=key, page=f"sessions/{key}.html", records=f"r/{key}", title=key)


def test_batches_keep_their_boundaries_when_a_session_grows_or_arrives() -> None:
    keys = [f"p{i % 5}/s{i:03d}.jsonl" for i in range(120)]
    sizes = dict.fromkeys(keys, 10_000)
    pages = [_page(k) for k in keys]

    def batches(of: list[IndexedPage]) -> list[tuple[str, ...]]:
        return [tuple(p.key for p in b) for b in plan_batches(of, lambda p: sizes[p.key])]

    first = batches(pages)
    assert 5 <= len(first) <= 60
    assert all(sum(sizes[k] for k in b) <= BATCH_BYTES for b in first)
    assert sorted(k for b in first for k in b) == sorted(keys)

    grown = keys[37]
    sizes[grown] = 100_000  # one session grows tenfold
    second = batches(pages)
    assert [b for b in second if grown not in b] == [b for b in first if grown not in b]

    newcomer = "p2/s500.jsonl"
    sizes[newcomer] = 10_000
    third = batches([*pages, _page(newcomer)])
    changed = [b for b in third if b not in second]
    assert len(changed) <= 2 and any(newcomer in b for b in changed)

    sizes["p0/huge.jsonl"] = BATCH_BYTES * 3  # bigger than a batch: three parts, a batch each
    fourth = plan_batches([*pages, _page("p0/huge.jsonl")], lambda p: sizes[p.key])
    parts = [b for b in fourth if b[0].key == "p0/huge.jsonl"]
    assert [[(p.part, p.parts) for p in b] for b in parts] == [[(0, 3)], [(1, 3)], [(2, 3)]]


def test_a_new_session_joins_only_its_own_folders_last_batch() -> None:
    keys = [f"p{i % 3}/s{i:03d}.jsonl" for i in range(90)] + ["q/only.jsonl"]
    sizes = dict.fromkeys(keys, 10_000)
    pages = [_page(k) for k in keys]

    def batches(of: list[IndexedPage]) -> list[tuple[str, ...]]:
        return [tuple(p.key for p in b) for b in plan_batches(of, lambda p: sizes[p.key])]

    before = batches(pages)
    assert all(len({k.rpartition("/")[0] for k in b}) == 1 for b in before)  # none spans two folders
    assert ("q/only.jsonl",) in before
    newest = "p1/s999.jsonl"  # newest last in its folder, as a new session's file name sorts
    sizes[newest] = 10_000
    after = batches([*pages, _page(newest)])
    changed = [b for b in after if b not in before]
    assert len(changed) == 1 and newest in changed[0]
    assert all(k.startswith("p1/") for k in changed[0])
    gone = [b for b in before if b not in after]  # the batch it joined (none: it began one)
    assert len(gone) <= 1 and all(k.startswith("p1/") for b in gone for k in b)
    assert set(changed[0]) == {newest, *(k for b in gone for k in b)}


def test_new_sessions_one_after_another_fill_small_batches() -> None:
    keys = [f"p/s{i:03d}.jsonl" for i in range(10)]
    sizes = dict.fromkeys(keys, 100)  # tiny: the bytes never end a batch
    pages = [_page(k) for k in keys]
    for n in range(3 * BATCH_SESSIONS):  # each new one newest, last in its folder
        key = f"p/t{n:03d}.jsonl"
        sizes[key] = 100
        pages.append(_page(key))
        batches = plan_batches(pages, lambda p: sizes[p.key])
        joined = next(b for b in batches if b[-1].key == key)
        assert len(joined) <= BATCH_SESSIONS  # what this new session re-indexes
    assert sorted(p.key for b in batches for p in b) == sorted(sizes)
    assert all(len(b) <= BATCH_SESSIONS for b in batches)


@pytest.mark.slow
def test_bundles_are_whole_after_100_search_builds(tmp_path: Path, gen_session: GenSession) -> None:
    root = tmp_path / "sessions" / "--p--"
    root.mkdir(parents=True)
    (root / "2026-11-01_a.jsonl").write_bytes(gen_session(4, seed=11).read_bytes())
    site = tmp_path / "site"
    build_site(BuildOptions(root=root.parent, site=site, jobs=1, usage=False))
    manifest = load_manifest(site)
    (name, first), *_ = manifest.bundles.items()
    rec = manifest.pages["--p--/2026-11-01_a.jsonl"]
    batch = [IndexedPage("--p--/2026-11-01_a.jsonl", rec.page, rec.records, rec.title, rec.sha256)]
    pages = check_bundle(site / name)
    assert pages >= 1
    for _ in range(100):
        bundle, count = index_batch(site, batch)
        assert count > 0 and bundle == first  # the same files, byte for byte, every time
        assert bundle_intact(site, bundle)
        assert check_bundle(site / name) == pages
    assert isinstance(first, Bundle)


def test_the_bundle_list_is_in_files_of_the_router_and_old_lists_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pages carry no bundle list (issue 54 item 2): the router's list files name each bundle
    once, in the pages' order, and another build's files go once its pages are in place."""
    monkeypatch.setattr(search_router, "LIST_NAMES", 4)
    site = tmp_path / "site"
    bundles = [f"pagefind-{n:016x}" for n in range(6)]
    for name in bundles:
        (site / name).mkdir(parents=True)
        (site / name / search_router.KEYS_FILE).write_text(f"ab{n}" if (n := int(name[-1])) else "abc\nxyz")
    search_router.write_router(site, bundles)
    assert search_router.router_written(site, bundles)
    digest = search_router.bundles_digest(bundles)
    files = sorted((site / "search-router").glob("list-*-?.json"))
    assert [p.name for p in files] == [f"list-{digest}-0.json", f"list-{digest}-1.json"]
    routes = site / "search-router" / f"list-{digest}-routes.json"
    kept = routes.read_bytes()
    routes.unlink()  # as an earlier sessiontree left its router: lists, shards of another form
    assert not search_router.router_written(site, bundles)
    routes.write_bytes(kept)
    named = [n for p in files for n in json.loads(p.read_text())["names"]]
    assert ["pagefind-" + n for n in named] == bundles
    shard = shard_of(site, bundles, "ab")  # "ab1" ... "ab5": one bundle each
    assert shard["keys"] == {} and shard["names"]["ab3"] == ["0000000000000003"]
    many = [f"pagefind-{n:016x}" for n in range(search_router.NAMED + 1)]
    for name in many:
        (site / name).mkdir(parents=True, exist_ok=True)
        (site / name / search_router.KEYS_FILE).write_text("xyz")
    search_router.write_router(site, many)  # a key of more bundles than NAMED: by number
    assert shard_of(site, many, "xy")["keys"] == {"xyz": list(range(len(many)))}

    search_router.remove_old_lists(site, bundles)
    fewer = bundles[:3]
    search_router.write_router(site, fewer)
    assert search_router.router_written(site, fewer)
    assert len(list((site / "search-router").glob("list-*-?.json"))) == 3  # the old list stays ...
    assert shard_of(site, bundles, "ab")["names"]  # ... and the shards its routes name
    search_router.remove_old_lists(site, fewer)  # ... until the pages naming the new one are in place
    fewer_digest = search_router.bundles_digest(fewer)
    assert sorted(p.name for p in (site / "search-router").glob("list-*.json")) == [
        f"list-{fewer_digest}-0.json",
        f"list-{fewer_digest}-routes.json",
    ]
    assert sorted(shard_stamps(site)) == sorted(
        f"{n}-{h}.json"
        for n, h in json.loads((site / "search-router" / f"list-{fewer_digest}-routes.json").read_text())[
            "shards"
        ].items()
    )


def test_a_rare_keys_shard_names_its_bundles_metadata(tmp_path: Path) -> None:
    """A shard names the metadata file of each bundle it names (the page asks for it with the
    bundle's entry, issue 54 item 3); a bundle whose keys file says none (written before) has none."""
    site = tmp_path / "site"
    bundles = [f"pagefind-{n:016x}" for n in range(2)]
    for name in bundles:
        (site / name).mkdir(parents=True)
    (site / bundles[0] / search_router.KEYS_FILE).write_bytes(
        search_router.keys_file(["xyz", "abc"], "en_0a1b2c")
    )
    (site / bundles[1] / search_router.KEYS_FILE).write_bytes(search_router.keys_file(["abd"]))
    search_router.write_router(site, bundles)
    shard = shard_of(site, bundles, "ab")
    assert shard["names"] == {"abc": ["0000000000000000"], "abd": ["0000000000000001"]}
    assert shard["meta"] == {"0000000000000000": "en_0a1b2c"}
    assert shard_of(site, bundles, "xy")["names"] == {"xyz": ["0000000000000000"]}
    entry = {"version": "1", "languages": {"de": {"hash": "de_1", "page_count": 9}, "en": {"hash": "en_2"}}}
    assert search_router.entry_meta(json.dumps(entry).encode()) == "en_2"
    entry["languages"] = {"de": {"hash": "de_1", "page_count": 9}, "fr": {"hash": "fr_3", "page_count": 2}}
    assert search_router.entry_meta(json.dumps(entry).encode()) == "de_1"
    for bad in (b"{", b"{}", b'{"languages": {"en": {"hash": "../x"}}}', b'{"languages": []}'):
        assert search_router.entry_meta(bad) == ""


def test_a_new_sessions_own_batch_moves_no_router_number() -> None:
    """Sessions are named by their start: a batch a new session begins (its folder's last one
    full) is numbered after every other, in whichever folder, so no other bundle's number moves."""

    def bundle(n: int, first: str) -> Bundle:
        return Bundle(f"pagefind-{n:016x}", (first,), 1, 1, "0" * 64)

    made = [
        bundle(0, "b/2026-11-01_x.jsonl"),
        bundle(1, "a/2026-11-02_y.jsonl"),
        bundle(2, "c/2026-11-03_z.jsonl"),
    ]
    old = {b.name: b for b in made}
    new = {**old, bundle(3, "a/2026-11-04_n.jsonl").name: bundle(3, "a/2026-11-04_n.jsonl")}
    assert pagefind_index.router_order(old) == [
        b.name for b in made
    ]  # not a/, b/, c/: by key, "a/..04" moved two
    assert pagefind_index.router_order(new) == [*pagefind_index.router_order(old), bundle(3, "").name]


def test_a_large_shard_is_split_into_a_file_per_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A shard past SPLIT_BYTES (its keys in many bundles: 40 kB for "de" at 10,000 sessions, growing
    with the archive) names a file per key, so a rare word's key costs a file of its few bundles
    (issue 54 item 3); the pages carry the routes and the meta of the first bundle; a later build's
    removal of old shards keeps the key files its split shards name, and only those."""
    monkeypatch.setattr(search_router, "SPLIT_BYTES", 100)
    site = tmp_path / "site"
    bundles = [f"pagefind-{n:016x}" for n in range(12)]
    for n, name in enumerate(bundles):
        (site / name).mkdir(parents=True)
        keys = ["dea", "xyz"] + (["dex"] if n == 3 else [])  # "dea" in every bundle, "dex" in one
        (site / name / search_router.KEYS_FILE).write_bytes(search_router.keys_file(keys, f"en_{n:x}"))
    search_router.write_router(site, bundles)
    split = shard_of(site, bundles, "de")
    assert set(split) == {"split"} and set(split["split"]) == {"dea", "dex"}
    folder = site / "search-router"
    dex = json.loads((folder / f"dex-{split['split']['dex']}.json").read_text())
    assert dex == {"keys": {}, "names": {"dex": ["0000000000000003"]}, "meta": {"0000000000000003": "en_3"}}
    dea = json.loads((folder / f"dea-{split['split']['dea']}.json").read_text())
    assert dea["keys"] == {"dea": list(range(12))} and dea["names"] == {}
    assert shard_of(site, bundles, "xy")["keys"] == {"xyz": list(range(12))}  # under 100 bytes: whole
    routes = search_router.read_routes(site, bundles)
    assert routes is not None and routes["always"] == [] and routes["meta0"] == "en_0"
    shards = routes["shards"]
    assert isinstance(shards, dict) and set(shards) == {"de", "xy"}
    (folder / "dez-0123456789ab.json").write_bytes(b"{}")  # a key file no split shard names
    search_router.remove_old_lists(site, bundles)
    assert (folder / f"dex-{split['split']['dex']}.json").is_file()
    assert (folder / f"dea-{split['split']['dea']}.json").is_file()
    assert not (folder / "dez-0123456789ab.json").exists()


def test_the_pages_carry_the_routes_of_the_router_written_again(batched: BuildOptions) -> None:
    """The index and search pages carry the router's routes (the shards' names, issue 54 item 3): a
    build that writes the router again with no session changed (an earlier sessiontree's router, no
    routes file) writes them again too, so they name the shards on disk."""
    site = batched.site
    order = pagefind_index.router_order(load_manifest(site).bundles)
    digest = search_router.bundles_digest(order)
    routes = search_router.read_routes(site, order)
    assert routes is not None
    for page in ("index.html", "search.html"):
        assert json.dumps(routes, separators=(",", ":")) in (site / page).read_text(encoding="utf-8")
    (site / "search-router" / f"list-{digest}-routes.json").unlink()
    (site / "search.html").write_text("<!doctype html>stale", encoding="utf-8")
    index_before = (site / "index.html").stat().st_mtime_ns
    build_site(batched)
    assert search_router.read_routes(site, order) == routes
    assert json.dumps(routes, separators=(",", ":")) in (site / "search.html").read_text(encoding="utf-8")
    assert (site / "index.html").stat().st_mtime_ns != index_before
    written = {page: (site / page).stat().st_mtime_ns for page in ("index.html", "search.html")}
    build_site(batched)  # nothing changed: neither page is written
    assert {page: (site / page).stat().st_mtime_ns for page in written} == written
