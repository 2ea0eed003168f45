"""CLI commands: inspect."""

from __future__ import annotations

import json
from pathlib import Path

import click

from sessiontree.cli.base import Context, cli, pass_context
from sessiontree.errors import InvalidSession
from sessiontree.store import load_session
from sessiontree.store.summary import format_summary, summarize_session


@cli.command()
@click.argument("session_file", metavar="SESSION.jsonl", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@pass_context
def inspect(ctx: Context, session_file: Path, as_json: bool) -> None:
    """Summarise a session file: version, migrations, counts, branches, tokens, problems."""
    session = load_session(session_file, agent_dir=ctx.agent_dir, strict=True)
    if session.is_empty:
        raise InvalidSession(f"{session_file} is not a session file (no valid header on its first line)")
    summary = summarize_session(session)
    click.echo(json.dumps(summary.to_json(), indent=2) if as_json else format_summary(summary))
