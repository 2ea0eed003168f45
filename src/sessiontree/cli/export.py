"""CLI commands: export (a session file to a self-contained HTML page)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from sessiontree.cli.base import agent_option, cli, session_argument, system_options, warn_line
from sessiontree.errors import ExportError
from sessiontree.exporter.fragment_cache import FragmentCache
from sessiontree.exporter.options import ExportOptions
from sessiontree.exporter.page import THEMES
from sessiontree.pages.export import export_to_file, open_in_browser
from sessiontree.store.discovery import printable

PASSWORD_ENV = "SESSIONTREE_PASSWORD"  # export --password reads it instead of asking (for scripts)


def _warn(text: str) -> None:
    click.echo(printable(text), err=True)


def _open_cache(folder: Path | None, *, keep_out: Path) -> FragmentCache:
    """The fragment cache in ``folder`` (default: the user cache dir), never among the sessions."""
    from sessiontree.archive.collection import is_inside, usable_cache_dir

    if folder is not None and is_inside(folder, keep_out):
        raise ExportError(f"The cache dir {folder} is inside the sessions folder {keep_out}; choose another")
    return FragmentCache(usable_cache_dir(folder, warn_line))


@cli.command()
@session_argument(read_only=True)
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
@system_options
@agent_option
@click.option(
    "--cache-dir",
    metavar="DIR",
    type=click.Path(path_type=Path),
    help="Where rendered fragments are cached [default: the user cache dir].",
)
@click.option("--no-cache", is_flag=True, help="Render everything afresh; read and write no cache.")
@click.option(
    "--password",
    "protect",
    is_flag=True,
    help=f"Encrypt the page with a password, asked for (or read from ${PASSWORD_ENV}); the page asks for it.",
)
@click.option("--copy", is_flag=True, hidden=True, help="Not supported here; use `sessiontree dump`.")
def export(
    session: Path,
    output: Path | None,
    open_page: bool,
    theme: str,
    leaf_id: str | None,
    system_prompt: str | None,
    tools: list[Any] | None,
    agent: str | None,
    cache_dir: Path | None,
    no_cache: bool,
    protect: bool,
    copy: bool,
) -> None:
    """Export a session to one self-contained HTML file.

    SESSION is its .jsonl file or an id prefix; OUTPUT defaults to session-<file stem>.html in the
    current directory. With --password the page holds only ciphertext and opens in a browser, even
    offline, for whoever types the password.
    """
    if copy:
        raise ExportError(
            "export --copy is not supported; use `sessiontree dump SESSION.jsonl` to copy a session"
        )
    password = ask_password(output) if protect else None
    cache = None if no_cache else _open_cache(cache_dir, keep_out=session.parent)
    try:
        options = ExportOptions(
            theme=theme, leaf_id=leaf_id, system_prompt=system_prompt, tools=tools, agent=agent
        )
        path = export_to_file(session, output, options, cache, warn=_warn, password=password)
    finally:
        if cache is not None:
            cache.close()
    click.echo(f"Exported to: {path}" + (" (encrypted: the page asks for the password)" if password else ""))
    if open_page:
        open_in_browser(path)


def ask_password(output: Path | None) -> str:
    """The export's password: ``$SESSIONTREE_PASSWORD``, else asked twice without echo (never an
    argument: a command line lands in the shell's history and in every process listing)."""
    if output is not None and not output.is_dir() and output.suffix.lower() not in (".html", ".htm"):
        # ``--password secret`` would have made "secret" the output file's name.
        raise ExportError(
            f"With --password, OUTPUT must be a .html file or a folder (got {output}): "
            f"the password is asked for, or read from ${PASSWORD_ENV}"
        )
    given = os.environ.get(PASSWORD_ENV)
    if given is not None:
        if not given:
            raise ExportError(f"${PASSWORD_ENV} is empty: set it to the password, or unset it to be asked")
        return given
    password: str = click.prompt("Password", hide_input=True, confirmation_prompt=True, err=True)
    return password
