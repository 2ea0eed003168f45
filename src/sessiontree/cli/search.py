"""CLI command: search (full-text search over every session, through the index in the cache dir)."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

import click

from sessiontree.archive.search import ROLE_CHOICES, SearchFilters, SearchHit
from sessiontree.cli.archive_options import archive_options, open_index, project_of, since_of
from sessiontree.cli.base import Context, cli, pass_context
from sessiontree.store.discovery import printable
from sessiontree.store.times import LOCAL_ZONE
from sessiontree.store.titles import plain_title

TITLE_WIDTH = 40
HEADING_WIDTH = 72
MARK_OPEN, MARK_CLOSE = "«", "»"
BOLD_OPEN, BOLD_CLOSE = "\x1b[1m", "\x1b[0m"


def format_hit(hit: SearchHit, *, bold: bool) -> str:
    """One line: title, time, role, snippet with the match marked, path (and ``--leaf ID``)."""
    snippet = _snippet(hit, None, bold=bold)
    where = printable(str(hit.path)) + (f" --leaf {printable(hit.entry_id)}" if hit.entry_id else "")
    title = printable(plain_title(hit.title or "(untitled)", TITLE_WIDTH))
    return "\t".join((title, hit.time or "-", hit.role, snippet, where))


def _snippet(hit: SearchHit, width: int | None, *, bold: bool) -> str:
    """The snippet with its matches marked, cut to ``width`` visible characters."""
    opening, closing = (BOLD_OPEN, BOLD_CLOSE) if bold else (MARK_OPEN, MARK_CLOSE)
    out: list[str] = []
    room = width
    for text, marked in hit.snippet.parts():
        shown = printable(text)
        if room is not None:
            if room <= 0:
                break
            if len(shown) > room:
                shown = shown[: max(0, room - 1)] + "…"
            room -= len(shown)
        out.append(f"{opening}{shown}{closing}" if marked else shown)
    return "".join(out)


def format_groups(hits: Sequence[SearchHit], *, bold: bool, width: int) -> str:
    """Hits grouped by session (in rank order of each session's best hit): the title and path once,
    then one aligned line per hit: time (this machine's, its zone named last), role, snippet,
    ``--leaf ID``."""
    groups: dict[Path, list[SearchHit]] = {}
    for hit in hits:
        groups.setdefault(hit.path, []).append(hit)
    role_width = max(len(hit.role) for hit in hits)
    lines: list[str] = []
    for path, group in groups.items():
        title = printable(plain_title(group[0].title or "(untitled)", HEADING_WIDTH))
        heading = f"{BOLD_OPEN}{title}{BOLD_CLOSE}" if bold else title
        if lines:
            lines.append("")
        lines.append(f"{heading}  {printable(str(path))}")
        for hit in group:
            when = LOCAL_ZONE.datetime_of(hit.ts).strftime("%Y-%m-%d %H:%M") if hit.ts > 0 else "-"
            leaf = f"  --leaf {printable(hit.entry_id)}" if hit.entry_id else ""
            lead = f"  {when:<16}  {printable(hit.role):<{role_width}}  "
            room = max(20, width - len(lead) - len(leaf))
            lines.append(lead + _snippet(hit, room, bold=bold) + leaf)
    lines += ["", f"Times in {LOCAL_ZONE.name}."]
    return "\n".join(lines)


@cli.command()
@click.argument("query")
@archive_options
@click.option(
    "--role",
    type=click.Choice(ROLE_CHOICES),
    help="Only user text, assistant text, or tool calls and results.",
)
@click.option(
    "--limit", type=click.IntRange(min=1), default=20, show_default=True, metavar="N", help="Most results."
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array of hits.")
@pass_context
def search(
    ctx: Context,
    query: str,
    sessions_dirs: tuple[Path, ...],
    machine: str | None,
    project: str | None,
    since: str | None,
    cache_dir: Path | None,
    agent: str | None,
    role: str | None,
    limit: int,
    as_json: bool,
) -> None:
    """Search the text of every session.

    FTS5 syntax: words, "a phrase", pre*, a OR b, a NOT b; text that is not valid FTS5 is
    matched as plain text. Title and label hits come first, then by relevance (bm25), newest
    first on ties. On a terminal, hits are grouped under each session's title and FILE, a line
    each: time (in this machine's zone, named last), role, snippet, --leaf ID; piped, each line
    is title, time (ISO 8601 UTC), role, snippet and FILE --leaf ID, tab-separated.
    `sessiontree export FILE --leaf ID` shows a hit. No match: a line on stderr, exit status 1.
    """
    filters = SearchFilters(project=project_of(project), since_ms=since_of(since), role=role, limit=limit)
    with open_index(ctx, sessions_dirs, cache_dir, agent, machine) as index:
        hits = index.search(query, filters)
        searched = 0 if hits else index.session_count(filters.project)
    if as_json:
        click.echo(json.dumps([hit.to_json() for hit in hits], ensure_ascii=True, indent=2))
    elif hits and sys.stdout.isatty():
        import shutil  # its archive modules are no cost of a piped search

        click.echo(format_groups(hits, bold=True, width=shutil.get_terminal_size().columns))
    else:
        for hit in hits:
            click.echo(format_hit(hit, bold=False))
    if not hits:
        # As grep does: nothing found is said on stderr and is exit status 1.
        noun = "session" if searched == 1 else "sessions"
        click.echo(f"No matches for {printable(query)!r} in {searched:,} {noun}", err=True)
        sys.exit(1)
