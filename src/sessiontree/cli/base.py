"""The root click group, shared options and the edge where errors become one-line messages."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from sessiontree.errors import SessiontreeError
from sessiontree.store.paths import default_agent_dir

F = TypeVar("F", bound=Callable[..., Any])


class Context:
    """What every command gets through ``click.pass_obj``."""

    def __init__(self, agent_dir: Path) -> None:
        self.agent_dir = agent_dir


class SessiontreeGroup(click.Group):
    """A group that turns library errors into one line on stderr and an exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except SessiontreeError as exc:
            click.echo(f"Error: {exc}", err=True)
            ctx.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("Interrupted", err=True)
            ctx.exit(130)
        except BrokenPipeError:
            # The reader went away (``sessiontree list | head``); say nothing more.
            sys.stderr.close()
            ctx.exit(1)


def resolve_agent_dir(value: str | None) -> Path:
    """The agent dir from the option, ``SESSIONTREE_AGENT_DIR``, or ``~/.xcsh/agent``."""
    return Path(value).expanduser() if value else default_agent_dir()


@click.group(cls=SessiontreeGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--agent-dir",
    metavar="DIR",
    help="Agent directory holding sessions/, blobs/ and history.db "
    "[env SESSIONTREE_AGENT_DIR; default ~/.xcsh/agent].",
)
@click.version_option(package_name="sessiontree")
@click.pass_context
def cli(ctx: click.Context, agent_dir: str | None) -> None:
    """Read, keep and share coding-agent sessions (pi / oh-my-pi / xcsh JSONL files)."""
    ctx.obj = Context(resolve_agent_dir(agent_dir))


pass_context = click.pass_obj
