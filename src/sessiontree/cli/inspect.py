"""CLI commands: inspect."""

from __future__ import annotations

import json
from pathlib import Path

import click

from sessiontree.cli.base import Context, agent_option, cli, pass_context, session_argument
from sessiontree.readers import load_any, several_note
from sessiontree.store.discovery import printable
from sessiontree.store.kinds import summarize
from sessiontree.store.session import require_header
from sessiontree.store.summary import format_summary


@cli.command()
@session_argument(read_only=True)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@agent_option
@pass_context
def inspect(ctx: Context, session: Path, as_json: bool, agent: str | None) -> None:
    """Summarise a session: counts, branches, tokens, problems.

    Also its format version and the migrations it needs. SESSION is its .jsonl file or an id
    prefix.
    """
    loaded = require_header(load_any(session, agent, agent_dir=ctx.agent_dir))
    note = several_note(session, loaded)  # a file of several sessions, summarised whole: how to take one
    if note is not None:
        click.echo(printable(note), err=True)
    summary = summarize(loaded)
    click.echo(json.dumps(summary.to_json(), indent=2) if as_json else format_summary(summary))
