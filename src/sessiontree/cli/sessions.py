"""CLI commands: sessions (list, resume, continue, fork, move)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import click

from sessiontree.archive.catalog import Catalog
from sessiontree.archive.collection import default_cache_dir, machine_roots
from sessiontree.cli.archive_options import machine_option
from sessiontree.cli.base import Context, cli, pass_context, session_argument, session_dir_option
from sessiontree.cli.roots import agent_filter_option, choose_roots, other_agents_notice, roots_option
from sessiontree.errors import SessionNotFound
from sessiontree.store.discovery import (
    SessionInfo,
    find_continue_target,
    list_sessions,
    normalize_cwd,
    printable,
    session_dir_for,
    terminal_id,
)
from sessiontree.store.manager import SessionManager
from sessiontree.store.paths import AgentPaths
from sessiontree.store.resolve import resolve_session
from sessiontree.store.surrogates import replace_surrogates
from sessiontree.store.times import LOCAL_ZONE, datetime_millis, parse_iso
from sessiontree.store.titles import plain_title

TITLE_WIDTH = 48


def is_interactive() -> bool:
    """Tell whether a person can answer prompts (stdin and stdout are terminals)."""
    # A stream whose descriptor was closed when Python started is None, not a file.
    return all(stream is not None and stream.isatty() for stream in (sys.stdin, sys.stdout))


def last_active(info: SessionInfo) -> float:
    """When a session was last active: its last entry's time, else its file's mtime (epoch seconds)."""
    when = parse_iso(info.last_activity) if info.last_activity else None
    ms = datetime_millis(when) if when is not None else None
    return ms / 1000 if ms is not None else info.modified


def format_table(infos: Sequence[SessionInfo]) -> str:
    """Format the session table: id, plain-text title, cwd, messages, last activity (and the agent
    when another agent's sessions are listed)."""
    agents = any(info.agent != "pi" for info in infos)
    kept = any(info.machine for info in infos)
    rows = [
        (
            *(("AGENT",) if agents else ()),
            "ID",
            "TITLE",
            "CWD",
            *(("KEPT",) if kept else ()),
            "MESSAGES",
            f"LAST ACTIVE ({LOCAL_ZONE.name})",
        )
    ]
    for info in infos:
        count = "-" if info.message_count is None else str(info.message_count)
        active = LOCAL_ZONE.datetime_of(round(last_active(info) * 1000)).strftime("%Y-%m-%d %H:%M")
        rows.append(
            (
                *((info.agent,) if agents else ()),
                printable(info.id, 16),
                printable(plain_title(info.display_title, TITLE_WIDTH)),
                printable(info.cwd or "", 40, keep_end=True),
                *((kept_label(info),) if kept else ()),
                count,
                active,
            )
        )
    counted = len(rows[0]) - 2
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            cell.rjust(w) if i == counted else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def kept_label(info: SessionInfo) -> str:
    """The KEPT column: the machine a kept session came from, the day its file went."""
    from sessiontree.archive.keep.roots import kept_label as label

    return printable(label(info.machine, info.kept))


@dataclass
class Listing:
    """The sessions a ``list`` found, newest activity first, and the folders it looked in."""

    sessions: list[SessionInfo] = field(default_factory=list)
    folders: list[Path] = field(default_factory=list)
    others: list[tuple[str, Path]] = field(default_factory=list)
    """The other agents' folders listed by default (no ``--root``)."""


def list_everywhere(
    ctx: Context,
    roots: tuple[Path, ...],
    agent: str | None,
    *,
    show_all: bool,
    session_dir: Path | None,
    machine: str | None = None,
) -> Listing:
    """Our sessions (this cwd's, or all) and those of every other root (the other agents' default
    folders, or ``--root``), newest activity first.

    Each folder is listed through its catalog in the user cache dir, so every file's message
    count and last entry's time are exact (a whole read once, then only what was appended).
    """
    ours = AgentPaths(ctx.agent_dir).sessions_dir
    cwd = normalize_cwd(os.getcwd())
    cache = default_cache_dir()
    chosen, others = choose_roots(ctx, roots, agent, existing=True)
    chosen = machine_roots(chosen, machine)
    listing = Listing(others=others)
    for root in chosen:
        mine = root == ours or (session_dir is not None and root == session_dir)
        folder = root if show_all or not mine else (session_dir or session_dir_for(cwd, ctx.agent_dir))
        listing.folders.append(folder)
        for info in Catalog(folder, cache).scan():
            if info.error is not None or info.parent_key is not None:
                continue  # not a session, or a subagent's (listed under its parent elsewhere)
            if show_all or mine or (info.cwd and normalize_cwd(info.cwd) == cwd):
                listing.sessions.append(info)
    listing.sessions.sort(key=last_active, reverse=True)
    return listing


@cli.command("list")
@click.option("--all", "show_all", is_flag=True, help="Sessions of every project, not only this cwd's.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@roots_option("sessions")
@agent_filter_option
@machine_option
@session_dir_option
@pass_context
def list_command(
    ctx: Context,
    show_all: bool,
    as_json: bool,
    roots: tuple[Path, ...],
    agent: str | None,
    machine: str | None,
    session_dir: Path | None,
) -> None:
    """List sessions of every root, newest activity first.

    Ours and, when their folders exist (or with --root), Claude Code's and Codex CLI's, with
    the agent shown. MESSAGES counts every file's messages; LAST ACTIVE is its last entry's
    time, else the file's, in this machine's zone (TZ; named in the heading).
    """
    listing = list_everywhere(ctx, roots, agent, show_all=show_all, session_dir=session_dir, machine=machine)
    infos = listing.sessions
    if as_json:
        data = [{"agent": info.agent, **info.to_json()} for info in infos]
        click.echo(replace_surrogates(json.dumps(data, indent=2, ensure_ascii=False)))
        return
    if not infos:  # the folders looked in are named here, so no notice besides
        where = "any project" if show_all else os.getcwd()
        looked = ", ".join(printable(str(f)) for f in listing.folders)
        click.echo(f"No sessions for {printable(where)} (looked in {looked})", err=True)
        return
    if listing.others and any(info.agent != "pi" for info in infos):
        click.echo(other_agents_notice(listing.others), err=True)
    click.echo(format_table(infos))


def pick_session(infos: list[SessionInfo]) -> Path:
    """Ask which session to resume from a numbered list (needs a terminal)."""
    if not infos:
        raise SessionNotFound(f"No sessions for {os.getcwd()}; pass a path or use 'sessiontree list --all'")
    if not is_interactive():
        raise SessionNotFound("No session given: pass an ID or PATH (the picker needs a terminal)")
    for number, info in enumerate(infos, 1):
        click.echo(
            f"{number:>3}. {printable(info.id[:8])}  {printable(info.display_title, 60) or '(no prompt)'}"
        )
    choice = click.prompt("Resume which session", type=click.IntRange(1, len(infos)))
    return infos[choice - 1].path


def confirm_on_tty(question: str) -> bool:
    """Ask yes/no on a terminal (default no)."""
    return click.confirm(question, default=False)


@cli.command()
@click.argument("value", required=False, metavar="[ID|PATH]")
@session_dir_option
@pass_context
def resume(ctx: Context, value: str | None, session_dir: Path | None) -> None:
    """Find a session and print its file path.

    ID|PATH is an id prefix or a .jsonl file; without it, pick one from a list. A session of
    another project is forked into this one when you agree.
    """
    if value is None:
        click.echo(pick_session(list_sessions(os.getcwd(), ctx.agent_dir, session_dir)))
        return
    confirm = confirm_on_tty if is_interactive() else None
    resolved = resolve_session(value, ctx.agent_dir, os.getcwd(), session_dir=session_dir, confirm=confirm)
    if resolved.forked_from is not None:
        click.echo(f"Forked {resolved.forked_from}", err=True)
    click.echo(resolved.path)


@cli.command("continue")
@session_dir_option
@pass_context
def continue_command(ctx: Context, session_dir: Path | None) -> None:
    """Print the path of the session to continue here.

    That is this terminal's last session in this directory, else the newest one here.
    """
    target = find_continue_target(os.getcwd(), ctx.agent_dir, session_dir, term=terminal_id())
    if target is None:
        raise SessionNotFound(f"No session to continue in {os.getcwd()}; start one with the agent first")
    click.echo(target)


@cli.command()
@session_argument()
@session_dir_option
@pass_context
def fork(ctx: Context, session: Path, session_dir: Path | None) -> None:
    """Copy a session into a new file and print its path.

    The copy gets a new id and names the original as its parentSession. SESSION is a .jsonl file
    or an id prefix.
    """
    manager = SessionManager.open(session, agent_dir=ctx.agent_dir, rewrite_migrated=False)
    with manager:
        new_path = manager.fork()
    if new_path is None:
        raise SessionNotFound(f"Cannot fork {session}: it is not written to disk yet")
    click.echo(new_path)


@cli.command()
@session_argument()
@click.argument("new_cwd", metavar="NEW_CWD", type=click.Path(file_okay=False, path_type=Path))
@session_dir_option
@pass_context
def move(ctx: Context, session: Path, new_cwd: Path, session_dir: Path | None) -> None:
    """Move a session to another project and print its new path.

    The file goes to that project's session folder, its artifact folder with it. SESSION is a
    .jsonl file or an id prefix.
    """
    with SessionManager.open(session, agent_dir=ctx.agent_dir) as manager:
        new_path = manager.move_to(new_cwd, session_dir)
    click.echo(new_path)
