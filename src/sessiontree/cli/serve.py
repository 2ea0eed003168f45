"""CLI command: serve (browse a sessions folder live in the browser)."""

from __future__ import annotations

from pathlib import Path

import click

from sessiontree.archive import collection
from sessiontree.cli.archive_options import machine_option
from sessiontree.cli.base import Context, cli, pass_context, warn_line
from sessiontree.cli.roots import agent_filter_option, pick_roots, roots_option
from sessiontree.exporter.options import THEMES


@cli.command()
@click.argument("directory", metavar="[DIR]", required=False, type=click.Path(path_type=Path))
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on; any other than loopback needs the printed token.",
)
@click.option(
    "--port",
    default=8765,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port to listen on; 0 picks a free one.",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the index in the browser.")
@click.option(
    "--cache-dir",
    metavar="DIR",
    type=click.Path(path_type=Path),
    help="Where the index cache lives (never inside DIR) [default: the user cache dir].",
)
@click.option(
    "--theme", type=click.Choice(THEMES), default="auto", show_default=True, help="Colour theme of the pages."
)
@roots_option("sessions")
@agent_filter_option
@machine_option
@pass_context
def serve(
    ctx: Context,
    directory: Path | None,
    host: str,
    port: int,
    open_browser: bool,
    cache_dir: Path | None,
    theme: str,
    roots: tuple[Path, ...],
    agent: str | None,
    machine: str | None,
) -> None:
    """Browse sessions folders (any agent's) live in the browser.

    DIR (or --root, repeatable) defaults to the agent dir's sessions/ and the Claude Code and
    Codex CLI folders that exist.
    """
    from sessiontree.archive.collection import usable_cache_dir
    from sessiontree.archive.search import check_cache_dir
    from sessiontree.serve.config import ServeConfig
    from sessiontree.serve.server import run_server

    chosen = pick_roots(ctx, (*((directory,) if directory is not None else ()), *roots), agent, existing=True)
    chosen = collection.machine_roots(chosen, machine)
    if not chosen:
        raise click.UsageError("No sessions folder: pass DIR or --root")
    if cache_dir is not None:
        check_cache_dir(cache_dir, chosen)  # refused before it is made
    config = ServeConfig(
        roots=tuple(chosen),
        cache_dir=usable_cache_dir(cache_dir, warn_line),
        host=host,
        port=port,
        agent_dir=ctx.agent_dir,
        theme=theme,
    )
    run_server(config, open_browser=open_browser, echo=lambda line: click.echo(line))
