"""The options of the many-session commands: --root (any agent's, else the defaults), --agent, filters."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from sessiontree.archive import collection
from sessiontree.cli.base import AGENT_CHOICES, Context
from sessiontree.readers import agent_label

F = TypeVar("F", bound=Callable[..., Any])

ROOT_HELP = (
    "Folder of session files to cover, of any agent (repeatable) [default: <agent-dir>/sessions, "
    "and ~/.claude/projects and ~/.codex/sessions when they exist]."
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
    return click.option(
        "--agent",
        "agent",
        type=click.Choice(AGENT_CHOICES),
        default=None,
        help="Only this agent's default folder (pi: <agent-dir>/sessions) when no --root is given.",
    )(func)


def pick_roots(
    ctx: Context, given: tuple[Path, ...], agent: str | None = None, *, existing: bool = False
) -> list[Path]:
    """The folders given, else ours and the other agents' default folders that exist.

    Picking up another agent's folder is said on stderr, so nobody wonders where sessions came
    from. ``existing`` leaves out our own folder when it does not exist and another one does.
    """

    def announce(name: str, root: Path) -> None:
        click.echo(
            f"Including {agent_label(name)} sessions from {root} (--root chooses the folders)", err=True
        )

    return collection.pick_roots(ctx.agent_dir, given, agent, existing=existing, announce=announce)


PROJECT_HELP = "Only sessions started in this directory or a folder under it."
SINCE_FORMS = "YYYY-MM-DD, an ISO date-time (UTC unless given), or 12h / 7d / 2w."
SINCE_HELP = "Only from this time on: " + SINCE_FORMS
