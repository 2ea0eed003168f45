"""CLI commands: sessions (list, resume, continue, fork, move)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import click

from sessiontree.cli.base import Context, cli, pass_context
from sessiontree.errors import SessionNotFound
from sessiontree.store.discovery import (
    SessionInfo,
    find_continue_target,
    list_all_sessions,
    list_sessions,
    printable,
    terminal_id,
)
from sessiontree.store.manager import SessionManager
from sessiontree.store.resolve import find_session, resolve_session

F = TypeVar("F", bound=Callable[..., Any])


def session_dir_option(func: F) -> F:
    """Add ``--session-dir``: a folder for session storage and lookup instead of the per-cwd one."""
    return click.option(
        "--session-dir",
        type=click.Path(file_okay=False, path_type=Path),
        help="Folder for session storage and lookup (instead of <agent-dir>/sessions/--<cwd>--).",
    )(func)


def is_interactive() -> bool:
    """Tell whether a person can answer prompts (stdin and stdout are terminals)."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def format_table(infos: list[SessionInfo]) -> str:
    """Format the session table: id, title or first prompt, cwd, messages, modified."""
    rows = [("ID", "TITLE", "CWD", "MESSAGES", "MODIFIED")]
    for info in infos:
        count = "-" if info.message_count is None else str(info.message_count)
        modified = datetime.fromtimestamp(info.modified).strftime("%Y-%m-%d %H:%M")
        rows.append(
            (
                printable(info.id, 16),
                printable(info.display_title, 48),
                printable(info.cwd, 40, keep_end=True),
                count,
                modified,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            cell.rjust(w) if i == 3 else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


@cli.command("list")
@click.option("--all", "show_all", is_flag=True, help="Sessions of every project, not only this cwd's.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@session_dir_option
@pass_context
def list_command(ctx: Context, show_all: bool, as_json: bool, session_dir: Path | None) -> None:
    """List sessions, newest first."""
    if show_all:
        infos = list_all_sessions(ctx.agent_dir)
    else:
        infos = list_sessions(os.getcwd(), ctx.agent_dir, session_dir)
    if as_json:
        click.echo(json.dumps([info.to_json() for info in infos], indent=2, ensure_ascii=False))
    elif not infos:
        where = "any project" if show_all else os.getcwd()
        click.echo(f"No sessions for {printable(where)}", err=True)
    else:
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
    """Find a session by id prefix or path (no value: pick one) and print its file path."""
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
    """Print the session to continue: this terminal's last one here, else the newest here."""
    target = find_continue_target(os.getcwd(), ctx.agent_dir, session_dir, term=terminal_id())
    if target is None:
        raise SessionNotFound(f"No session to continue in {os.getcwd()}; start one with the agent first")
    click.echo(target)


def find_anywhere(value: str, ctx: Context, session_dir: Path | None) -> Path:
    """Find a session by path or id prefix (here, then in every project), where it lives."""
    return find_session(value, ctx.agent_dir, os.getcwd(), session_dir=session_dir).path


@cli.command()
@click.argument("session", metavar="SESSION")
@session_dir_option
@pass_context
def fork(ctx: Context, session: str, session_dir: Path | None) -> None:
    """Copy a session into a new file (parentSession = its id) and print the new path."""
    path = find_anywhere(session, ctx, session_dir)
    manager = SessionManager.open(path, agent_dir=ctx.agent_dir, rewrite_migrated=False)
    with manager:
        new_path = manager.fork()
    if new_path is None:
        raise SessionNotFound(f"Cannot fork {path}: it is not written to disk yet")
    click.echo(new_path)


@cli.command()
@click.argument("session", metavar="SESSION")
@click.argument("new_cwd", metavar="NEW_CWD", type=click.Path(file_okay=False, path_type=Path))
@session_dir_option
@pass_context
def move(ctx: Context, session: str, new_cwd: Path, session_dir: Path | None) -> None:
    """Move a session (file and artifacts) to another project's folder and print the new path."""
    path = find_anywhere(session, ctx, session_dir)
    with SessionManager.open(path, agent_dir=ctx.agent_dir) as manager:
        new_path = manager.move_to(new_cwd, session_dir)
    click.echo(new_path)
