"""The options of the many-session commands: --root (any agent's, else the defaults), --agent, filters."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from sessiontree.archive import collection
from sessiontree.cli.base import Context, agent_choice
from sessiontree.readers import agent_label

F = TypeVar("F", bound=Callable[..., Any])

ROOT_HELP = (
    "Folder of session files to cover, of any agent (repeatable) [default: <agent-dir>/sessions, "
    "and ~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp and ~/.local/share/opencode/storage when "
    "they exist]."
)


def roots_option(what: str) -> Callable[[F], F]:
    """Add ``--root`` (repeatable, into ``roots``) to a command that lists ``what`` per root."""
    return click.option(
        "--root",
        "roots",
        multiple=True,
        type=click.Path(file_okay=False, path_type=Path),
        help=ROOT_HELP + f" Several roots put each one's {what} under its agent's name.",
    )


def agent_filter_option(func: F) -> F:
    """Add ``--agent``: only that agent's default folder when no root is given."""
    return agent_choice(
        "Only this agent's default folder (pi: <agent-dir>/sessions) when no --root is given."
    )(func)


def pick_roots(
    ctx: Context, given: tuple[Path, ...], agent: str | None = None, *, existing: bool = False
) -> list[Path]:
    """The folders given, else ours and the other agents' default folders that exist.

    Picking up other agents' folders is said in one line on stderr, so nobody wonders where
    sessions came from. ``existing`` leaves out our own folder when it does not exist and
    another one does.
    """
    roots, others = choose_roots(ctx, given, agent, existing=existing)
    if others:
        click.echo(other_agents_notice(others), err=True)
    return roots


def choose_roots(
    ctx: Context, given: tuple[Path, ...], agent: str | None = None, *, existing: bool = False
) -> tuple[list[Path], list[tuple[str, Path]]]:
    """``pick_roots`` without the notice: the roots, and the (agent, folder) picked by default."""
    others: list[tuple[str, Path]] = []
    roots = collection.pick_roots(
        ctx.agent_dir,
        given,
        agent,
        existing=existing,
        announce=lambda name, root: others.append((name, root)),
    )
    return roots, others


def other_agents_notice(picked: list[tuple[str, Path]]) -> str:
    """One line naming the other agents' folders a command covers by default."""
    parts = [f"{agent_label(name)} sessions from {root}" for name, root in picked]
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"Including {listed} (--root chooses the folders)"


PROJECT_HELP = "Only sessions started in this directory or a folder under it."
SINCE_FORMS = "YYYY-MM-DD, an ISO date-time (this machine's zone, TZ, unless given), or 12h / 7d / 2w."
SINCE_HELP = "Only from this time on: " + SINCE_FORMS
