"""Options shared by the commands over many sessions (search, stats): folders, project, time, cache."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from sessiontree.archive.collection import (
    machine_roots,
    parse_since,
    parse_until,
    project_path,
    usable_cache_dir,
)
from sessiontree.archive.search import SearchIndex, check_cache_dir
from sessiontree.cli.base import Context, warn_line
from sessiontree.cli.roots import PROJECT_HELP, ROOT_HELP, SINCE_HELP, agent_filter_option, pick_roots
from sessiontree.store.times import LOCAL_ZONE, Zone

F = TypeVar("F", bound=Callable[..., Any])
ANNOUNCE_BYTES = 32 * 2**20
"""An update reading more than this says so on stderr first (the first search of a big archive)."""


def archive_options(func: F) -> F:
    """Add ``--root`` (repeatable), ``--agent``, ``--project``, ``--since`` and ``--cache-dir``."""
    func = agent_filter_option(func)
    func = click.option(
        "--cache-dir",
        type=click.Path(file_okay=False, path_type=Path),
        help="Where the index lives [default: the user cache dir, e.g. ~/.cache/sessiontree].",
    )(func)
    func = click.option(
        "--since",
        metavar="DATE",
        help=SINCE_HELP,
    )(func)
    func = click.option("--project", metavar="DIR", help=PROJECT_HELP)(func)
    func = machine_option(func)
    return click.option(
        "--root",
        "--sessions-dir",
        "sessions_dirs",
        multiple=True,
        type=click.Path(file_okay=False, exists=True, path_type=Path),
        help=ROOT_HELP,
    )(func)


def machine_option(func: F) -> F:
    """Add ``--machine NAME``: only the sessions of one machine (``keep`` brings the others')."""
    return click.option(
        "--machine",
        metavar="NAME",
        help="Only the sessions of this machine (its name in 'sessiontree keep'; another machine's "
        "are there once keep brought them).",
    )(func)


def project_of(value: str | None) -> str | None:
    """The ``--project`` value as the absolute directory headers record."""
    return project_path(value) if value else None


def since_of(value: str | None, zone: Zone = LOCAL_ZONE) -> int | None:
    """The ``--since`` value in epoch milliseconds (a date: its midnight in ``zone``, the reader's)."""
    return parse_since(value, zone=zone) if value else None


def until_of(value: str | None, zone: Zone = LOCAL_ZONE) -> int | None:
    """The ``--until`` value in epoch milliseconds (exclusive; a bare date: its whole day in ``zone``)."""
    return parse_until(value, zone=zone) if value else None


def open_index(
    ctx: Context,
    sessions_dirs: tuple[Path, ...],
    cache_dir: Path | None,
    agent: str | None = None,
    machine: str | None = None,
) -> SearchIndex:
    """Open the index of the given folders (else the default ones) and bring it up to date."""
    roots = machine_roots(pick_roots(ctx, sessions_dirs, agent), machine)
    if cache_dir is not None:
        check_cache_dir(cache_dir, [*roots, ctx.agent_dir])  # refused before any fallback
    index = SearchIndex(roots, usable_cache_dir(cache_dir, warn_line), keep_out=[ctx.agent_dir])

    def announce(files: int, size: int) -> None:
        if size >= ANNOUNCE_BYTES:
            noun = "file" if files == 1 else "files"
            click.echo(
                f"Indexing {files} {noun} ({size / 2**20:,.0f} MiB) into {index.db_path} ...", err=True
            )

    try:
        index.update(announce)
    except BaseException:
        index.close()
        raise
    return index
