"""Options shared by the commands over many sessions (search, stats): folders, project, time, cache."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from sessiontree.archive.dates import parse_since
from sessiontree.archive.search import SearchIndex
from sessiontree.cli.base import AGENT_CHOICES, Context
from sessiontree.readers import agent_label
from sessiontree.readers.discovery import default_roots
from sessiontree.store.discovery import normalize_cwd
from sessiontree.store.paths import AgentPaths

F = TypeVar("F", bound=Callable[..., Any])
ANNOUNCE_BYTES = 32 * 2**20
"""An update reading more than this says so on stderr first (the first search of a big archive)."""


def archive_options(func: F) -> F:
    """Add ``--root`` (repeatable), ``--agent``, ``--project``, ``--since`` and ``--cache-dir``."""
    func = click.option(
        "--agent",
        "agent",
        type=click.Choice(AGENT_CHOICES),
        default=None,
        help="Only this agent's default folder (pi: <agent-dir>/sessions) when no --root is given.",
    )(func)
    func = click.option(
        "--cache-dir",
        type=click.Path(file_okay=False, path_type=Path),
        help="Where the index lives [default: the user cache dir, e.g. ~/.cache/sessiontree].",
    )(func)
    func = click.option(
        "--since",
        metavar="DATE",
        help="Only from this time on: YYYY-MM-DD, an ISO date-time (UTC unless given), or 12h / 7d / 2w.",
    )(func)
    func = click.option(
        "--project", metavar="CWD", help="Only sessions started in this working directory (exactly)."
    )(func)
    return click.option(
        "--root",
        "--sessions-dir",
        "sessions_dirs",
        multiple=True,
        type=click.Path(file_okay=False, exists=True, path_type=Path),
        help="Folder of session files to cover, of any agent (repeatable) [default: <agent-dir>/sessions, "
        "and ~/.claude/projects and ~/.codex/sessions when they exist].",
    )(func)


def project_of(value: str | None) -> str | None:
    """The ``--project`` value as the absolute cwd headers record."""
    return normalize_cwd(value) if value else None


def since_of(value: str | None) -> int | None:
    """The ``--since`` value in epoch milliseconds."""
    return parse_since(value) if value else None


def archive_roots(ctx: Context, sessions_dirs: tuple[Path, ...], agent: str | None = None) -> list[Path]:
    """The folders to cover: those given, else ours and the other agents' default folders that exist.

    Picking up another agent's folder is said on stderr, so nobody wonders where sessions came from.
    """
    if sessions_dirs:
        return list(sessions_dirs)
    roots = [AgentPaths(ctx.agent_dir).sessions_dir] if agent in (None, "pi") else []
    for name, root in default_roots():
        if agent in (None, name):
            click.echo(
                f"Including {agent_label(name)} sessions from {root} (--root chooses the folders)", err=True
            )
            roots.append(root)
    return roots


def open_index(
    ctx: Context, sessions_dirs: tuple[Path, ...], cache_dir: Path | None, agent: str | None = None
) -> SearchIndex:
    """Open the index of the given folders (else the default ones) and bring it up to date."""
    roots = archive_roots(ctx, sessions_dirs, agent)
    index = SearchIndex(roots, cache_dir, keep_out=[ctx.agent_dir])

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
