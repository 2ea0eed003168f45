"""CLI commands: dump (a session's model context as text, to the clipboard or stdout)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from sessiontree.cli.base import agent_option, cli, session_argument, system_options
from sessiontree.errors import ExportError
from sessiontree.exporter.clipboard import copy_to_clipboard
from sessiontree.exporter.text import TextFilter, estimate_tokens, format_session_as_text
from sessiontree.readers import load_for_export
from sessiontree.store.discovery import printable
from sessiontree.store.output_sink import sanitize_text


@cli.command()
@session_argument(read_only=True)
@click.option("--stdout", "to_stdout", is_flag=True, help="Print the text instead of copying it.")
@click.option("--leaf", "leaf_id", metavar="ID", help="Dump the branch ending at this entry.")
@click.option("--no-tools", is_flag=True, help="Leave out tool calls, tool results and executions.")
@click.option("--user-only", is_flag=True, help="Keep only the user's messages.")
@system_options
@agent_option
def dump(
    session: Path,
    to_stdout: bool,
    leaf_id: str | None,
    no_tools: bool,
    user_only: bool,
    system_prompt: str | None,
    tools: list[Any] | None,
    agent: str | None,
) -> None:
    """Copy a session's model context as text to the clipboard.

    SESSION is its .jsonl file or an id prefix; --stdout prints the text instead.
    """
    if no_tools and user_only:
        raise ExportError("--no-tools and --user-only do not go together; pick one")
    text_filter: TextFilter = "user-only" if user_only else "no-tools" if no_tools else "default"
    text = format_session_as_text(
        load_for_export(session, agent=agent, warn=lambda text: click.echo(printable(text), err=True)),
        system_prompt,
        tools,
        leaf_id=leaf_id,
        filter=text_filter,
    )
    if not text:
        raise ExportError("No messages to dump yet")
    if to_stdout:
        # On a terminal, session text must not drive it (escape sequences); pipes get it verbatim
        # (color=True: click would otherwise strip some escapes, and only some, from a pipe).
        click.echo(sanitize_text(text) if sys.stdout.isatty() else text, color=True)
        return
    result = copy_to_clipboard(text)
    summary = f"Copied {len(text):,} characters (~{estimate_tokens(text):,} tokens) to the clipboard"
    if result.method == "osc52":
        click.echo(f"Note: {result.fallback_reason}; sent the text through the terminal (OSC 52)", err=True)
        summary += " via the terminal (OSC 52)"
    click.echo(summary)
