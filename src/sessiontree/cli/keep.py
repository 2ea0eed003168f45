"""CLI command: keep (every session of every agent, into an archive that outlives the agents' clean-up)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import click

from sessiontree.cli.base import Context, cli, pass_context, warn_line
from sessiontree.cli.roots import agent_filter_option, pick_roots, roots_option


def _passphrase(new: bool) -> str | None:
    """The passphrase from ``SESSIONTREE_PASSPHRASE``, else asked on a terminal for an archive that
    has one (a new archive without it uses a key file)."""
    from sessiontree.archive.keep.envelope import PASSPHRASE_ENV

    given = os.environ.get(PASSPHRASE_ENV)
    if given:
        return given
    if new or not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None
    return click.prompt("Passphrase of the archive", hide_input=True, err=True)


@cli.command()
@click.option(
    "--to",
    metavar="s3://BUCKET/PREFIX",
    help="Keep into this bucket (or folder), remembered for later runs [default: a folder in the "
    "user data dir, e.g. ~/.local/share/sessiontree/archive].",
)
@click.option(
    "--schedule",
    type=click.Choice(["cron", "systemd", "launchd"]),
    help="Print the crontab line, systemd user timer or launchd agent that runs keep every hour.",
)
@click.option("--no-pull", is_flag=True, help="Do not bring the other machines' sessions here.")
@click.option(
    "--redact",
    is_flag=True,
    help="Keep copies with their secrets masked (the share redactor), for a team bucket whose readers "
    "should not see the raw sessions: session files only, each sent whole when it changes.",
)
@roots_option("files")
@agent_filter_option
@pass_context
def keep(
    ctx: Context,
    to: str | None,
    schedule: str | None,
    no_pull: bool,
    redact: bool,
    roots: tuple[Path, ...],
    agent: str | None,
) -> None:
    """Keep every agent's sessions in an archive.

    Every session file of every agent (with its subagents, artifacts and blobs), compressed and
    encrypted on this machine (a key file made on first use in the config dir, or
    SESSIONTREE_PASSPHRASE); only what changed is sent. Sessions an agent deletes stay listed by
    list, search, stats, serve and build, marked kept. With --to s3://bucket/prefix (endpoint and
    credentials from AWS_* or ~/.aws) each machine (SESSIONTREE_MACHINE, else the host name) keeps
    under its own name and brings the others' sessions here.
    """
    if schedule is not None:
        from sessiontree.archive.keep.schedule import schedule_text

        program = shutil.which("sessiontree") or "sessiontree"
        command = [program, "keep", *(a for r in roots for a in ("--root", str(r.absolute())))]
        command += ["--redact"] if redact else []
        click.echo(schedule_text(schedule, command), nl=False)
        return
    from sessiontree.archive.keep.roots import kept_roots
    from sessiontree.archive.keep.run import keep as keep_all

    kept = {k.path for k in kept_roots()}
    chosen = [root for root in pick_roots(ctx, roots, agent) if root not in kept]
    redactor = None
    if redact:
        from sessiontree.archive.keep.run import Redact
        from sessiontree.share.redact_file import REDACTED_SUFFIXES, redact_file_bytes

        redactor = Redact(REDACTED_SUFFIXES, redact_file_bytes)
    report = keep_all(chosen, to=to, passphrase=_passphrase, pull=not no_pull, redact=redactor)
    sent = f"{report.sent_bytes / 2**20:,.1f} MiB" if report.sent_bytes else "nothing new"
    line = f"Kept {report.files} files of {len(chosen)} folders in {report.where} as {report.machine}: {sent}"
    if report.changed:
        line += f" ({report.changed} changed, {report.appended} appended to)"
    if report.gone:
        line += f"; {report.gone} deleted by their agent, still kept"
    click.echo(line, err=True)
    for machine, count in sorted(report.pulled.items()):
        if count:
            click.echo(f"Brought {count} files from {machine}", err=True)
    for problem in report.problems:
        warn_line(problem)
    if report.problems:
        raise SystemExit(1)
