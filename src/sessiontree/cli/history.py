"""CLI commands: the ``history`` group (search, add) over the prompt history."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict
from pathlib import Path

import click

from sessiontree.cli.base import Context, cli, pass_context
from sessiontree.errors import SessiontreeError
from sessiontree.store.history import HistoryEntry, HistoryStorage, history_db_path
from sessiontree.store.output_sink import sanitize_text
from sessiontree.store.times import LOCAL_ZONE


@cli.group()
def history() -> None:
    """Search and add to the prompt history (<agent dir>/history.db)."""


def cwd_option(value: str | None) -> str | None:
    """Return a ``--cwd`` value with ``~`` expanded and a relative path made absolute."""
    if value is None:
        return None
    path = Path(value).expanduser()
    return str(path if path.is_absolute() else path.absolute())


def format_entry(entry: HistoryEntry) -> str:
    """Return one tab-separated line: time (this machine's, with its UTC offset), cwd, prompt
    (newlines shown as \\n)."""
    when = LOCAL_ZONE.datetime_of(round(entry.created_at * 1000)).isoformat(sep=" ", timespec="seconds")
    prompt = sanitize_text(entry.prompt.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t"))
    return f"{when}\t{sanitize_text(entry.cwd or '-')}\t{prompt}"


@history.command("search")
@click.argument("query")
@click.option("--cwd", metavar="DIR", help="Only prompts typed in this directory.")
@click.option(
    "--limit", type=click.IntRange(min=1), default=20, show_default=True, metavar="N", help="Most results."
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array of {id, prompt, created_at, cwd}.")
@pass_context
def history_search(ctx: Context, query: str, cwd: str | None, limit: int, as_json: bool) -> None:
    """Search prompts, newest first.

    QUERY is FTS5 syntax; anything else is matched as plain text.
    """
    if not history_db_path(ctx.agent_dir).exists():
        found = []  # no history yet: nothing to find, and a search creates nothing
    else:
        with HistoryStorage.open(ctx.agent_dir, readonly=True) as storage:
            found = storage.search(query, cwd=cwd_option(cwd), limit=limit)
    if as_json:
        click.echo(json.dumps([asdict(e) for e in found], ensure_ascii=True, indent=2))
        return
    for entry in found:
        click.echo(format_entry(entry))


@history.command("add")
@click.argument("prompt")
@click.option("--cwd", metavar="DIR", help="The directory to record [default: the current one].")
@pass_context
def history_add(ctx: Context, prompt: str, cwd: str | None) -> None:
    """Add PROMPT to the history ('-' reads it from stdin).

    A repeat of the last prompt is skipped.
    """
    text = sys.stdin.read() if prompt == "-" else prompt
    if not text.strip():
        raise SessiontreeError("Empty prompt; give the text to add (or '-' to read it from stdin)")
    with HistoryStorage.open(ctx.agent_dir) as storage:
        storage.add(text, cwd=cwd_option(cwd) or os.getcwd())
