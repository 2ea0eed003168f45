"""CLI command: search (full-text search over every session, through the index in the cache dir)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from sessiontree.archive.search import ROLE_CHOICES, SearchFilters, SearchHit
from sessiontree.cli.archive_options import archive_options, open_index, project_of, since_of
from sessiontree.cli.base import Context, cli, pass_context
from sessiontree.store.discovery import printable
from sessiontree.store.titles import cut_title

TITLE_WIDTH = 40
MARK_OPEN, MARK_CLOSE = "«", "»"
BOLD_OPEN, BOLD_CLOSE = "\x1b[1m", "\x1b[0m"


def format_hit(hit: SearchHit, *, bold: bool) -> str:
    """One line: title, time, role, snippet with the match marked, path (and ``--leaf ID``)."""
    opening, closing = (BOLD_OPEN, BOLD_CLOSE) if bold else (MARK_OPEN, MARK_CLOSE)
    snippet = "".join(
        f"{opening}{printable(text)}{closing}" if marked else printable(text)
        for text, marked in hit.snippet.parts()
    )
    where = printable(str(hit.path)) + (f" --leaf {printable(hit.entry_id)}" if hit.entry_id else "")
    title = printable(cut_title(hit.title or "(untitled)", TITLE_WIDTH))
    return "\t".join((title, hit.time or "-", hit.role, snippet, where))


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
    first on ties. Each line is title, time, role, snippet and FILE --leaf ID:
    `sessiontree export FILE --leaf ID` shows it. No match: a line on stderr, exit status 1.
    """
    filters = SearchFilters(project=project_of(project), since_ms=since_of(since), role=role, limit=limit)
    with open_index(ctx, sessions_dirs, cache_dir, agent) as index:
        hits = index.search(query, filters)
        searched = 0 if hits else index.session_count(filters.project)
    if as_json:
        click.echo(json.dumps([hit.to_json() for hit in hits], ensure_ascii=True, indent=2))
    else:
        bold = sys.stdout.isatty()
        for hit in hits:
            click.echo(format_hit(hit, bold=bold))
    if not hits:
        # As grep does: nothing found is said on stderr and is exit status 1.
        noun = "session" if searched == 1 else "sessions"
        click.echo(f"No matches for {printable(query)!r} in {searched:,} {noun}", err=True)
        sys.exit(1)
