"""CLI commands: share, shares, unshare."""

from __future__ import annotations

import webbrowser
from pathlib import Path

import click

from sessiontree.cli.base import Context, agent_option, cli, pass_context, session_argument
from sessiontree.share.publish import ShareOutcome, share_session
from sessiontree.share.records import read_records
from sessiontree.share.unshare import unshare
from sessiontree.store.discovery import printable


def _say(text: str) -> None:
    click.echo(text, err=True)


@cli.command()
@session_argument(read_only=True)
@click.option("--no-open", is_flag=True, help="Print the links without opening the preview.")
@click.option("--force", is_flag=True, help="Share pages over the 10 MB limit.")
@click.option("--no-redact", is_flag=True, help="Share as is, without masking the secrets found.")
@agent_option
@pass_context
def share(
    ctx: Context, session: Path, no_open: bool, force: bool, no_redact: bool, agent: str | None
) -> None:
    """Publish a session as an HTML page and print the links.

    SESSION is its .jsonl file or an id prefix. The page goes through the custom share script
    when there is one, else to a secret gist; secrets found are masked first.
    """
    outcome = share_session(
        session, ctx.agent_dir, force=force, redact=not no_redact, notify=_say, agent=agent
    )
    print_outcome(outcome)
    if outcome.url and not no_open:
        webbrowser.open(outcome.url)


def print_outcome(outcome: ShareOutcome) -> None:
    """Print the share's links or message (``Session shared`` when there is neither)."""
    # A handler's answer may echo anything; keep escapes and control characters off the terminal.
    if outcome.url:
        click.echo(f"Share URL: {printable(outcome.url)}")
    if outcome.gist:
        click.echo(f"Gist: {printable(outcome.gist.url)}")
    if outcome.message:
        click.echo(printable(outcome.message))
    if not outcome.url and not outcome.message:
        click.echo("Session shared")


@cli.command()
@pass_context
def shares(ctx: Context) -> None:
    """List the shares recorded in <agent dir>/shares.jsonl."""
    records = read_records(ctx.agent_dir)
    if not records:
        click.echo("No shares recorded")
        return
    for record in records:
        status = f"unshared {record.deleted}" if record.deleted else "shared"
        ident = record.gist_id or "-"
        click.echo(printable(f"{record.time}  {record.backend:<8}  {ident}  {status}"))
        click.echo(f"    {printable(record.url or '(no URL)')}")
        click.echo(f"    {printable(record.session)}")


@cli.command(name="unshare")
@click.argument("ref", metavar="ID|URL")
@pass_context
def unshare_command(ctx: Context, ref: str) -> None:
    """Delete a shared gist and mark its record as unshared.

    REF is the gist id, the gist URL or the share URL.
    """
    outcome = unshare(ctx.agent_dir, ref)
    gist_id = outcome.record.gist_id
    if outcome.already_gone:
        click.echo(f"Gist {gist_id} no longer exists on GitHub; record marked as unshared")
    else:
        click.echo(f"Deleted gist {gist_id}")
