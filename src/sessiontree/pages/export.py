"""A session file to a self-contained HTML file: read by its agent's reader, made by the one recipe."""

from __future__ import annotations

import webbrowser
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from sessiontree.errors import ExportError
from sessiontree.exporter.fragment_cache import FragmentCache, page_key, page_record
from sessiontree.exporter.options import ExportOptions, RenderOptions
from sessiontree.exporter.recipe import PageTarget, make_page
from sessiontree.readers import load_for_export
from sessiontree.store.atomic import write_atomic
from sessiontree.store.jsonl import frozen_gc
from sessiontree.store.surrogates import SURROGATES


def default_output_path(input_path: str | Path) -> Path:
    """Return ``session-<file stem>.html`` in the current directory (the reference's default)."""
    return Path.cwd() / f"session-{Path(input_path).stem}.html"


def export_to_file(
    input_path: str | Path,
    output_path: str | Path | None = None,
    options: ExportOptions | None = None,
    cache: FragmentCache | None = None,
    *,
    warn: Callable[[str], None] | None = None,
    password: str | None = None,
) -> Path:
    """Export a session file to a self-contained HTML file and return its path (input untouched).

    ``cache`` reuses the page made before from the same files and options (its bytes, kept
    whole), else the fragments rendered before. It keeps the page, and the fragments of a file
    exported before: a one-off export of a file never seen stores no fragments (storing them cost
    a first export of 2,000 turns 35% more CPU; its page alone is a tenth of their size), and the
    next export of a changed version renders and keeps them. ``warn`` gets one line per thing
    loading repaired or could not find (said again on a cached page). ``password`` writes the page
    sealed (``exporter.seal``): it asks for the password and decrypts itself in the browser; the
    cache keeps the plain page, as it keeps any page made from a file on this machine.
    """
    opts = options or ExportOptions()
    key = _page_key(Path(input_path), opts) if cache is not None else None
    hit = cache.get_page(key) if cache is not None and key is not None else None
    if hit is not None:
        out = _output_path(input_path, output_path)
        for line in hit[0]:
            if warn is not None:
                warn(line)
        write_atomic(out, hit[1] if password is None else _sealed(hit[1], password, opts))
        return out
    warnings: list[str] = []

    def keep_warning(line: str) -> None:
        warnings.append(line)
        if warn is not None:
            warn(line)

    session = load_for_export(input_path, blobs_dir=opts.blobs_dir, agent=opts.agent, warn=keep_warning)
    out = _output_path(input_path, output_path)
    # A page with missing images is not kept whole: it must change when they turn up.
    keep = cache is not None and key is not None and not session.missing_blobs
    fragments = cache if cache is not None and cache.seen(Path(input_path)) else None
    record = page_record(warnings) if keep else bytearray()

    def keeping(chunks: Iterable[str]) -> Iterator[bytes]:
        for chunk in chunks:
            data = chunk.encode("utf-8", SURROGATES)  # as write_atomic encodes text
            record.extend(data)
            yield data

    with frozen_gc():  # the loaded session: rendered and written, never walked by the collector
        page = make_page(session, opts, PageTarget(render=RenderOptions(cache=fragments)))
        # The page drops the entries once they are rendered; holding them here would keep the
        # whole session alive while the page is written.
        del session
        # the page held once, as bytes (not as text, then bytes)
        if password is None:
            write_atomic(out, keeping(page.chunks) if keep else page.chunks)
        else:
            chunks = keeping(page.chunks) if keep else (c.encode("utf-8", SURROGATES) for c in page.chunks)
            write_atomic(out, _sealed(b"".join(chunks), password, opts))
    if cache is not None:
        cache.mark_seen(Path(input_path))
    if not keep:
        if cache is not None:
            cache.flush()
        return out
    assert cache is not None and key is not None
    cache.put_page(key, record)
    return out


def _sealed(page: bytes, password: str, options: ExportOptions) -> bytes:
    from sessiontree.exporter.seal import seal_page_with_password  # cryptography: only here

    return seal_page_with_password(page, password, theme=options.theme).encode("utf-8")


def _page_key(path: Path, options: ExportOptions) -> bytes | None:
    try:
        return page_key(path, options.cache_key())
    except OSError:  # a missing or unreadable file: the load below says so in its words
        return None


def _output_path(input_path: str | Path, output_path: str | Path | None) -> Path:
    out = Path(output_path) if output_path is not None else default_output_path(input_path)
    if out.is_dir():
        out = out / default_output_path(input_path).name
    if out.exists() and out.resolve() == Path(input_path).resolve():
        raise ExportError(f"Output {out} is the session file itself; choose another output path")
    if not out.parent.is_dir():
        raise ExportError(f"Directory not found: {out.parent}; create it or choose another output path")
    return out


def open_in_browser(path: Path) -> None:
    """Open an exported page in the default browser."""
    webbrowser.open(path.resolve().as_uri())


__all__ = ["default_output_path", "export_to_file", "open_in_browser"]
