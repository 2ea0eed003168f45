"""The build manifest: what each page was made from, so the next build redoes only what changed."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessiontree.site.layout import ASSETS_DIR, MANIFEST, write_atomic
from sessiontree.site.pagefind_index import Bundle

FORMAT = 1


@dataclass
class PageRecord:
    """One session's line in the manifest."""

    size: int
    mtime: float
    sha256: str
    page: str
    records: str
    title: str = ""
    assets: list[str] = field(default_factory=list)
    subagents: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Claude Code subagent pages written with this one, by agent id: page, and the size and
    mtime of the transcript it was made from (a changed transcript renders the session again)."""
    related: list[Any] = field(default_factory=list)
    """Its links to the sessions it spawned or was spawned by (``pages.related.related_signature``)."""


@dataclass
class Failure:
    """A session that could not be loaded or rendered, remembered until its file changes."""

    size: int
    mtime: float
    reason: str


@dataclass
class Manifest:
    """Every session page of the site, plus the settings the pages were made with."""

    version: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    pages: dict[str, PageRecord] = field(default_factory=dict)
    failures: dict[str, Failure] = field(default_factory=dict)
    bundles: dict[str, Bundle] = field(default_factory=dict)
    """The search bundles the index page loads, by folder name."""
    stale: list[str] = field(default_factory=list)
    """Site files of pages no longer built, to delete once the index no longer links them."""
    index_chunks: list[str] | None = None
    """The files of the index's rows its page names, in order (None: not known, the index is written)."""
    loaded: dict[str, tuple[PageRecord, dict[str, Any]]] = field(
        default_factory=dict, compare=False, repr=False
    )
    """Each page's record as the manifest read it, with its JSON value: a record kept from the last
    build is written from that again (at 10,000 sessions, 0.15 s of an incremental build to remake)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "sessiontree": self.version,
            "settings": self.settings,
            "searchBundles": {name: b.to_json() for name, b in sorted(self.bundles.items())},
            "stale": sorted(self.stale),
            "indexChunks": self.index_chunks,
            # Field by field: dataclasses.asdict deep-copies, a third of a no-change build's time.
            "pages": {
                key: raw[1]
                if (raw := self.loaded.get(key)) is not None and raw[0] is r
                else {
                    "size": r.size,
                    "mtime": r.mtime,
                    "sha256": r.sha256,
                    "page": r.page,
                    "records": r.records,
                    "title": r.title,
                    "assets": list(r.assets),
                    "subagents": {a: dict(sub) for a, sub in sorted(r.subagents.items())},
                    "related": list(r.related),
                }
                for key, r in sorted(self.pages.items())
            },
            "failures": {
                key: {"size": f.size, "mtime": f.mtime, "reason": f.reason}
                for key, f in sorted(self.failures.items())
            },
        }


def load_manifest(site: Path) -> Manifest:
    """Read the manifest of a site; a missing or unreadable one is an empty manifest (full build)."""
    try:
        raw = json.loads((site / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Manifest()
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        return Manifest()
    try:
        values = raw.get("pages", {})
        pages = {key: PageRecord(**rec) for key, rec in values.items()}
        failures = {key: Failure(**f) for key, f in raw.get("failures", {}).items()}
    except TypeError:
        return Manifest()
    for rec in pages.values():
        subs = rec.subagents
        if not isinstance(subs, dict) or not all(
            isinstance(sub, dict) and isinstance(sub.get("page"), str) for sub in subs.values()
        ):
            return Manifest()
    found = raw.get("searchBundles")
    bundles = {
        name: bundle
        for name, value in (found.items() if isinstance(found, dict) else ())
        if (bundle := Bundle.from_json(str(name), value)) is not None
    }
    stale = raw.get("stale")
    chunks = raw.get("indexChunks")
    settings = raw.get("settings")
    return Manifest(
        version=str(raw.get("sessiontree", "")),
        settings=settings if isinstance(settings, dict) else {},
        pages=pages,
        failures=failures,
        bundles=bundles,
        stale=[str(p) for p in stale] if isinstance(stale, list) else [],
        index_chunks=[str(p) for p in chunks] if isinstance(chunks, list) else None,
        loaded={key: (rec, values[key]) for key, rec in pages.items()},
    )


def save_manifest(site: Path, manifest: Manifest) -> None:
    """Write the manifest atomically (the last step of a build: until then the old one stands)."""
    # ASCII: a lone surrogate from a session title stays a valid \\ud83d escape, not bad UTF-8.
    # No indent: json's C encoder (indented, the Python one took 0.4 s at 10,000 sessions).
    text = json.dumps(manifest.to_json(), ensure_ascii=True, separators=(",", ":"))
    write_atomic(site / MANIFEST, text.encode("ascii"))


def page_files(rec: PageRecord) -> list[str]:
    """The site files a page record's session made: its page, records and subagents' pages."""
    return [rec.page, rec.records, *sorted({str(sub["page"]) for sub in rec.subagents.values()})]


def remove_files(site: Path, paths: Iterable[str]) -> None:
    """Delete these site files (relative paths), those already gone too."""
    for rel in paths:
        (site / rel).unlink(missing_ok=True)


def remove_unused_assets(site: Path, pages: Iterable[PageRecord]) -> None:
    """Delete the shared assets no page names."""
    used = {name for rec in pages for name in rec.assets}
    folder = site / ASSETS_DIR
    if folder.is_dir():
        for path in folder.iterdir():
            if path.is_file() and path.name not in used:
                path.unlink(missing_ok=True)
