"""The root click group, shared options and the edge where errors become one-line messages."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from sessiontree.errors import AmbiguousSession, SessionNotFound, SessiontreeError
from sessiontree.store.formats import AGENT_LABELS
from sessiontree.store.paths import default_agent_dir

F = TypeVar("F", bound=Callable[..., Any])


class Context:
    """What every command gets through ``click.pass_obj``."""

    def __init__(self, agent_dir: Path) -> None:
        self.agent_dir = agent_dir


# Command name -> module that defines it: a command's imports (Pygments, httpx, SQLite, ...)
# are paid only by the command that runs, not by every start of the CLI.
LAZY_COMMANDS = {
    "inspect": "sessiontree.cli.inspect",
    "export": "sessiontree.cli.export",
    "dump": "sessiontree.cli.dump",
    "list": "sessiontree.cli.sessions",
    "resume": "sessiontree.cli.sessions",
    "continue": "sessiontree.cli.sessions",
    "fork": "sessiontree.cli.sessions",
    "move": "sessiontree.cli.sessions",
    "artifact": "sessiontree.cli.artifacts",
    "history": "sessiontree.cli.history",
    "share": "sessiontree.cli.share",
    "shares": "sessiontree.cli.share",
    "unshare": "sessiontree.cli.share",
    "search": "sessiontree.cli.search",
    "stats": "sessiontree.cli.stats",
    "build": "sessiontree.cli.build",
    "serve": "sessiontree.cli.serve",
    "keep": "sessiontree.cli.keep",
    "mcp": "sessiontree.cli.mcp",
}


class SessiontreeGroup(click.Group):
    """A group that loads commands on demand and turns library errors into one line and an exit code."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(LAZY_COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = LAZY_COMMANDS.get(cmd_name)
        if module is not None and cmd_name not in self.commands:
            importlib.import_module(module)  # its decorators attach the command to this group
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except SessiontreeError as exc:
            # Messages quote paths, ids and titles from sessions: no escape sequence reaches the terminal.
            from sessiontree.store.output_sink import sanitize_text

            message = sanitize_text(str(exc))
            # A cancellation (exit code 130, like Ctrl-C) is what the user asked for, not an error.
            click.echo(message if exc.exit_code == 130 else f"Error: {message}", err=True)
            ctx.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("Interrupted", err=True)
            ctx.exit(130)
        except BrokenPipeError:
            # The reader went away (``sessiontree list | head``); say nothing more.
            sys.stderr.close()
            ctx.exit(1)


def warn_line(text: str) -> None:
    """Say ``Warning: <text>`` on stderr, on one line (the text may quote a session's or a path's bytes)."""
    from sessiontree.store.discovery import printable

    click.echo(f"Warning: {printable(text, 300)}", err=True)


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


if TYPE_CHECKING:
    _PathType = click.ParamType[Path, Any]  # generic in click 8.2+
else:
    _PathType = click.ParamType


class SessionType(_PathType):
    """A session named by its ``.jsonl`` path or by an id prefix (this project first, then all).

    Converts to the session file's path; a missing file, a non-session or an id prefix that
    matches none or several sessions is one clear error line. ``--session-dir``, when the
    command has it, must be eager so the lookup can use it.
    """

    name = "session"

    def __init__(self, *, must_exist: bool = True, foreign: bool = False) -> None:
        self.must_exist = must_exist
        self.foreign = foreign
        """Also take other agents' files (Claude Code, Codex CLI) by path: the read commands."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path:
        if isinstance(value, Path):
            return value
        from sessiontree.store.resolve import find_session, looks_like_path

        text = str(value)
        if not self.must_exist and (looks_like_path(text) or os.path.exists(text)):
            return Path(text).expanduser().absolute()
        if self.foreign and (looks_like_path(text) or os.path.isfile(text)):
            from sessiontree.readers import foreign_agent

            path = Path(text).expanduser().absolute()
            if foreign_agent(path) is not None or _is_excerpt_file(path):
                return path  # the write commands get a ForeignSession error from the lookup instead
        obj = ctx.find_object(Context) if ctx is not None else None
        agent_dir = obj.agent_dir if obj is not None else default_agent_dir()
        given = ctx.params.get("session_dir") if ctx is not None else None
        session_dir = given if isinstance(given, Path) else None  # click may hold a sentinel here
        try:
            return find_session(text, agent_dir, os.getcwd(), session_dir=session_dir).path
        except SessionNotFound as not_ours:
            if not self.foreign or looks_like_path(text) or os.path.isfile(text) or not text.strip():
                raise
            return _foreign_by_id(text, not_ours)


def _foreign_by_id(prefix: str, not_ours: SessionNotFound) -> Path:
    """A Claude Code or Codex CLI session of the default folders named by an id prefix."""
    from sessiontree.readers import detect_agent
    from sessiontree.readers.discovery import find_agent_session

    found = find_agent_session(prefix)
    if not found:  # deleted by its agent, or another machine's: its kept copy (``keep``)
        from sessiontree.archive.keep.roots import kept_roots

        found = find_agent_session(prefix, [(k.agent, k.path) for k in kept_roots()])
    if not found:
        said = str(not_ours)
        where = "; run" if "; run" in said else None
        raise SessionNotFound(
            said.replace("; run", ", nor in the Claude Code or Codex CLI folders; run", 1) if where else said
        ) from None
    if len(found) > 1:
        from sessiontree.store.parts import split_part  # one session of a file of several: its id

        names = ", ".join(f"{split_part(p)[1] or p.stem} ({detect_agent(p) or '?'})" for p in found[:8])
        more = f", +{len(found) - 8} more" if len(found) > 8 else ""
        raise AmbiguousSession(
            f"Session id prefix '{prefix}' matches {len(found)} sessions: {names}{more}; type more of the id"
        )
    return found[0]


def _is_excerpt_file(path: Path) -> bool:
    """Tell whether a headerless file reads as an excerpt (read commands only: writers never adopt one)."""
    from sessiontree.store.discovery import read_session_info
    from sessiontree.store.load import load_session
    from sessiontree.store.storage import entry_is

    if not entry_is(path, "file") or read_session_info(path) is not None:
        return False
    try:
        return any(r.kind == "header" for r in load_session(path).repairs)
    except SessiontreeError:
        return False


SESSION = SessionType()
"""The argument type of every command that takes one session."""

ANY_SESSION = SessionType(foreign=True)
"""The argument type of the commands that only read a session (any agent's file)."""


def session_argument(name: str = "session", *, read_only: bool = False) -> Callable[[F], F]:
    """Add the ``SESSION`` argument (a ``.jsonl`` path or an id prefix), given as a ``Path``.

    ``read_only`` commands also take Claude Code and Codex CLI files.
    """
    return click.argument(name, metavar="SESSION", type=ANY_SESSION if read_only else SESSION)


def session_dir_option(func: F) -> F:
    """Add ``--session-dir``: a folder for session storage and lookup instead of the per-cwd one."""
    return click.option(
        "--session-dir",
        type=click.Path(file_okay=False, path_type=Path),
        is_eager=True,  # a SESSION argument looks ids up there, so it must be known first
        help="Folder for session storage and lookup (instead of <agent-dir>/sessions/--<cwd>--).",
    )(func)


def _read_prompt(ctx: click.Context, param: click.Parameter, value: Path | None) -> str | None:
    from sessiontree.store.system import read_text_file

    return read_text_file(value) if value is not None else None


def _read_tools(ctx: click.Context, param: click.Parameter, value: Path | None) -> list[Any] | None:
    from sessiontree.store.system import read_tools_file

    return read_tools_file(value) if value is not None else None


AGENT_CHOICES = tuple(sorted(AGENT_LABELS))
"""The ``--agent`` names: every format a reader reads."""


def agent_choice(help_text: str) -> Callable[[F], F]:
    """An ``--agent`` option (one of ``AGENT_CHOICES``, default None) with its command's meaning."""
    return click.option("--agent", "agent", type=click.Choice(AGENT_CHOICES), default=None, help=help_text)


def agent_option(func: F) -> F:
    """Add ``--agent claude|codex|pi``: read the file as that agent's format (default: detect by content)."""
    return agent_choice("Read the file as this agent's format (default: detected from the content).")(func)


def system_options(func: F) -> F:
    """Add ``--system-prompt FILE`` and ``--tools FILE.json``, read into ``system_prompt`` and ``tools``."""
    func = click.option(
        "--tools",
        "tools",
        metavar="FILE.json",
        type=click.Path(path_type=Path),
        callback=_read_tools,
        help="Use these tools (a JSON list of {name, description, parameters}, or names) "
        "instead of the session's session_init.",
    )(func)
    return click.option(
        "--system-prompt",
        "system_prompt",
        metavar="FILE",
        type=click.Path(path_type=Path),
        callback=_read_prompt,
        help="Use this file as the system prompt instead of the session's session_init.",
    )(func)
