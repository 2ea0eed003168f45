"""CLI commands: export (a session file to a self-contained HTML page)."""

from __future__ import annotations

from pathlib import Path

import click

from sessiontree.cli.base import cli
from sessiontree.errors import ExportError
from sessiontree.exporter.api import export_to_file, load_tools_file, open_in_browser, read_text_file
from sessiontree.exporter.page import THEMES


@cli.command()
@click.argument("session", metavar="SESSION.jsonl", type=click.Path(path_type=Path))
@click.argument("output", metavar="[OUTPUT.html]", required=False, type=click.Path(path_type=Path))
@click.option("--open", "open_page", is_flag=True, help="Open the page in the browser afterwards.")
@click.option(
    "--theme",
    type=click.Choice(THEMES),
    default="auto",
    show_default=True,
    help="Colour theme; auto follows the reader's system setting.",
)
@click.option("--leaf", "leaf_id", metavar="ID", help="Export with this entry as the active leaf.")
@click.option(
    "--system-prompt",
    "system_prompt_file",
    metavar="FILE",
    type=click.Path(path_type=Path),
    help="Show this file as the system prompt (instead of the session's session_init).",
)
@click.option(
    "--tools",
    "tools_file",
    metavar="FILE.json",
    type=click.Path(path_type=Path),
    help="Show these tools (a JSON list of tool schemas) instead of the session's.",
)
@click.option("--copy", is_flag=True, hidden=True, help="Not supported here; use `sessiontree dump`.")
def export(
    session: Path,
    output: Path | None,
    open_page: bool,
    theme: str,
    leaf_id: str | None,
    system_prompt_file: Path | None,
    tools_file: Path | None,
    copy: bool,
) -> None:
    """Export SESSION.jsonl to one self-contained HTML file (default: session-<stem>.html here)."""
    if copy:
        raise ExportError("export --copy is not supported; use `sessiontree dump SESSION.jsonl --copy`")
    path = export_to_file(
        session,
        output,
        theme=theme,
        leaf_id=leaf_id,
        system_prompt=read_text_file(system_prompt_file) if system_prompt_file else None,
        tools=load_tools_file(tools_file) if tools_file else None,
    )
    click.echo(f"Exported to: {path}")
    if open_page:
        open_in_browser(path)
