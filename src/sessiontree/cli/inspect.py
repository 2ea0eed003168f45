"""CLI commands: inspect."""

from __future__ import annotations

import json
from pathlib import Path

import click

from sessiontree.cli.base import Context, cli, pass_context, session_argument
from sessiontree.store import load_session
from sessiontree.store.session import require_header
from sessiontree.store.summary import format_summary, summarize_session


@cli.command()
@session_argument()
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@pass_context
def inspect(ctx: Context, session: Path, as_json: bool) -> None:
    """Summarise a session: counts, branches, tokens, problems.

    Also its format version and the migrations it needs. SESSION is its .jsonl file or an id
    prefix.
    """
    loaded = require_header(load_session(session, agent_dir=ctx.agent_dir, strict=True))
    summary = summarize_session(loaded)
    click.echo(json.dumps(summary.to_json(), indent=2) if as_json else format_summary(summary))
