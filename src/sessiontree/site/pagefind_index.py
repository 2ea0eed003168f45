"""Full-text search for a built site: Pagefind indexes every message's text as custom records."""

from __future__ import annotations

import asyncio
import base64
import gzip
import html
import json
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sessiontree.asyncrun import run_sync
from sessiontree.errors import SearchIndexError
from sessiontree.site.layout import STATE_DIR

BUNDLE_PREFIX = "pagefind-"
_CONCURRENT = 64
"""Documents in flight to the Pagefind service at once (it answers in order; a window keeps it busy)."""
CHUNK_MESSAGES = 20
CHUNK_CHARS = 48_000


@dataclass(frozen=True, slots=True)
class IndexedPage:
    """A session page and its records file, as the search index takes them."""

    page: str
    records: str
    title: str


def _records_of(site: Path, item: IndexedPage) -> list[dict[str, Any]]:
    try:
        raw = json.loads(gzip.decompress((site / item.records).read_bytes()))
    except (OSError, ValueError, EOFError):
        return []
    return [r for r in raw if isinstance(r, dict)] if isinstance(raw, list) else []


def _service_class() -> type[Any]:
    from pagefind.service import PagefindService

    class ReadingService(PagefindService):
        """Pagefind's service with a reader that takes each answer as it comes.

        The stock reader sleeps 0.1 s before every answer, which caps indexing at ten records a
        second (100,000 messages would take three hours); this one reads the same comma-ended
        base64 JSON frames back to back.
        """

        async def _wait_for_responses(self) -> None:
            stdout = self._backend.stdout
            assert stdout is not None  # started with stdout=PIPE
            responses: dict[Any, asyncio.Future[Any]] = self._responses
            while True:
                try:
                    frame = await stdout.readuntil(b",")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
                    # The service died or spoke out of turn: fail every open request, never hang.
                    for future in responses.values():
                        if not future.done():
                            future.set_exception(SearchIndexError(f"Pagefind stopped answering: {exc}"))
                    return
                answer = json.loads(base64.b64decode(frame[:-1]))
                if not isinstance(answer, dict):
                    continue
                waiting = responses.get(answer.get("message_id"))
                if waiting is None or waiting.done():
                    continue
                payload = answer.get("payload") or {}
                if payload.get("type") == "Error":
                    waiting.set_exception(SearchIndexError(f"Pagefind: {payload.get('message')}"))
                else:
                    waiting.set_result(payload)

    return ReadingService


def chunk_documents(item: IndexedPage, records: list[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """Group a session's records into small HTML documents: (url, html), one section per message.

    Each message is a heading whose id is its entry id, so Pagefind's sub-results point at
    entries (``<url>#<entry id>``); grouping keeps the bundle to one fragment per chunk instead
    of one per message (20,000 messages: 1,031 files and 3.4 s instead of 20,041 and 18.5 s).
    """
    title = html.escape(item.title or item.page)
    parts: list[str] = []
    size = 0
    chunk = 0

    def document() -> tuple[str, str]:
        body = "".join(parts)
        doc = f'<html lang="en"><head><title>{title}</title></head><body><h1>{title}</h1>{body}</body></html>'
        return f"{item.page}?chunk={chunk}", doc

    for rec in records:
        text = str(rec.get("text", ""))
        entry = html.escape(str(rec.get("id", "")))
        role = html.escape(str(rec.get("role", "")))
        parts.append(f'<section><h2 id="{entry}">{role}</h2><p>{html.escape(text)}</p></section>')
        size += len(text)
        if len(parts) >= CHUNK_MESSAGES or size >= CHUNK_CHARS:
            yield document()
            parts, size, chunk = [], 0, chunk + 1
    if parts:
        yield document()


async def _index(site: Path, pages: Iterable[IndexedPage], out: Path) -> int:
    count = 0
    service = await _service_class()().launch()
    try:
        index = await service.create_index({"output_path": str(out)})
        pending: set[asyncio.Future[Any]] = set()
        for item in pages:
            records = _records_of(site, item)
            count += len(records)
            for url, doc in chunk_documents(item, records):
                pending.add(asyncio.ensure_future(index.add_html_file(content=doc, url=url)))
                if len(pending) >= _CONCURRENT:
                    done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                    for task in done:
                        task.result()
        if pending:
            await asyncio.gather(*pending)
        await index.write_files(str(out))
    finally:
        await service.close()
    return count


def write_search_bundle(site: Path, pages: Iterable[IndexedPage], bundle_id: str) -> int:
    """Index the records and write the bundle as ``pagefind-<bundle_id>/``; return how many records.

    The bundle is written under the state folder first and moved into place whole, so the index
    page never points at half a bundle.
    """
    name = BUNDLE_PREFIX + bundle_id
    staging = site / STATE_DIR / f"staging-{name}"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        count = run_sync(_index(site, pages, staging))
    except FileNotFoundError as exc:
        raise SearchIndexError(
            f"Pagefind is not installed ({exc}); install sessiontree with its build extra or pass --no-search"
        ) from None
    except (OSError, RuntimeError, AssertionError) as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise SearchIndexError(f"Pagefind failed: {exc}") from None
    final = site / name
    shutil.rmtree(final, ignore_errors=True)
    staging.rename(final)
    return count


def remove_old_bundles(site: Path, keep: str | None) -> None:
    """Delete search bundles other than ``keep`` (after the index page that names it is in place)."""
    for path in site.glob(BUNDLE_PREFIX + "*"):
        if path.is_dir() and path.name != keep:
            shutil.rmtree(path, ignore_errors=True)
    for path in (site / STATE_DIR).glob("staging-" + BUNDLE_PREFIX + "*"):
        shutil.rmtree(path, ignore_errors=True)
