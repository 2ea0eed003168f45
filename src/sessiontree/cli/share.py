"""CLI commands: share, shares, unshare."""

from __future__ import annotations

import shutil
import sys
import webbrowser
from pathlib import Path

import click

from sessiontree.cli.base import Context, agent_option, cli, pass_context, session_argument
from sessiontree.share.publish import ShareOutcome, share_session
from sessiontree.share.records import read_records
from sessiontree.share.redact import RedactionReport
from sessiontree.share.review import review_lines
from sessiontree.share.unshare import unshare
from sessiontree.store.discovery import printable


def _say(text: str) -> None:
    click.echo(text, err=True)


@cli.command()
@session_argument(read_only=True)
@click.option("--no-open", is_flag=True, help="Print the links without opening the preview.")
@click.option("--force", is_flag=True, help="Share pages over the 10 MB limit.")
@click.option("--no-redact", is_flag=True, help="Share as is, without masking the secrets found.")
@click.option(
    "--no-encrypt",
    is_flag=True,
    help="Upload the readable page (by default it is encrypted: only the printed link opens it).",
)
@click.option("--yes", "-y", is_flag=True, help="Upload without showing what was masked and asking first.")
@click.option(
    "--dry-run",
    is_flag=True,
    help="Write the readable page to the current folder and list what was masked; upload nothing.",
)
@click.option(
    "--mask",
    "masks",
    multiple=True,
    metavar="VALUE",
    help="Also mask VALUE wherever it is (repeatable): one the review kept, or any text.",
)
@agent_option
@pass_context
def share(
    ctx: Context,
    session: Path,
    no_open: bool,
    force: bool,
    no_redact: bool,
    no_encrypt: bool,
    yes: bool,
    dry_run: bool,
    masks: tuple[str, ...],
    agent: str | None,
) -> None:
    """Publish a session as an HTML page and print the links.

    SESSION is its .jsonl file or an id prefix. The page goes through the custom share script
    when there is one, else to a secret gist; secrets found are masked first, then the page is
    encrypted with a fresh key that only the printed link carries (after #). On a terminal,
    share lists what it masked and asks before uploading (--yes does not ask); without a
    terminal (a script, a pipe) it uploads as before and prints the count of what it masked.
    """
    asks = not yes and not dry_run and sys.stdin.isatty() and sys.stderr.isatty()
    outcome = share_session(
        session,
        ctx.agent_dir,
        force=force,
        redact=not no_redact,
        notify=_say,
        agent=agent,
        review=_ask if asks else None,
        dry_run=Path.cwd() if dry_run else None,
        masks=masks,
        encrypt=not no_encrypt,
    )
    if dry_run:
        _list_all(review_lines(outcome.redaction))
        click.echo(f"Page written to {printable(outcome.message or '')} (nothing uploaded)")
        return
    print_outcome(outcome)
    if outcome.key is not None:
        _say(
            "Encrypted: only the whole link (its key after #) opens the page; --no-encrypt shares it readable"
        )
    if outcome.url and not no_open:
        webbrowser.open(outcome.url)


def _list_all(lines: list[str]) -> None:
    """Print every masked value: through a pager when the list is longer than the terminal."""
    lines = [printable(line) for line in lines]
    if sys.stdout.isatty() and sys.stderr.isatty() and len(lines) > _screen_lines():
        click.echo_via_pager("\n".join(lines) + "\n")
        return
    for line in lines:
        _say(line)


def _screen_lines() -> int:
    """Return how many lines of the list fit on the terminal with the prompt under it."""
    return max(5, shutil.get_terminal_size().lines - 4)


def _ask(report: RedactionReport | None) -> bool:
    """Show what was masked (cut to the screen, the rest counted) and ask whether to upload."""
    for line in review_lines(report, limit=_screen_lines()):
        _say(printable(line))
    return click.confirm("Upload this page?", default=False, err=True)


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
    if outcome.key is not None and not outcome.url:
        # A share script that gave no link: the key opens the page wherever the script put it.
        click.echo(f"Key: #{outcome.key} (after the page's address)")


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
        click.echo(f"    {printable(record.link or '(no URL)')}")
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
