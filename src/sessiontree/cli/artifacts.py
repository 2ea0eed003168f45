"""CLI commands: ``artifact URL`` (a session's saved tool and subagent outputs)."""

from __future__ import annotations

from pathlib import Path

import click

from sessiontree.cli.base import SessionType, cli
from sessiontree.errors import ArtifactError
from sessiontree.store.artifacts import artifacts_dir_for
from sessiontree.store.output_sink import sanitize_text
from sessiontree.store.urls import resolve_internal_url


def echo_untrusted(text: str) -> None:
    """Print session-derived text with escapes and control characters removed."""
    clean = sanitize_text(text)
    click.echo(clean, nl=not clean.endswith("\n"))


@cli.command()
@click.argument("url")
@click.option(
    "--session",
    metavar="SESSION",
    # The agent saves artifacts before the session file exists (it appears with the first answer).
    type=SessionType(must_exist=False),
    help="The session the URL belongs to: its .jsonl file or an id prefix.",
)
@click.option("--offset", type=int, metavar="N", help="First line to print (1-based); not with extraction.")
@click.option("--limit", type=int, metavar="N", help="How many lines to print; not with extraction.")
def artifact(url: str, session: Path | None, offset: int | None, limit: int | None) -> None:
    """Print a saved tool output or subagent output.

    URL is artifact://<id> or agent://<id>[/path|?q=query].
    """
    if session is None:
        raise ArtifactError("No session given; pass --session SESSION.jsonl (its artifacts sit beside it)")
    directory = artifacts_dir_for(session)
    echo_untrusted(resolve_internal_url(url, directory, offset=offset, limit=limit).content)
