"""CLI command: serve (browse a sessions folder live in the browser)."""

from __future__ import annotations

from pathlib import Path

import click

from sessiontree.cli.base import Context, cli, pass_context
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
    help="Where the index cache lives (never inside DIR) [default: ~/.cache/sessiontree].",
)
@click.option(
    "--theme", type=click.Choice(THEMES), default="auto", show_default=True, help="Colour theme of the pages."
)
@pass_context
def serve(
    ctx: Context,
    directory: Path | None,
    host: str,
    port: int,
    open_browser: bool,
    cache_dir: Path | None,
    theme: str,
) -> None:
    """Browse a sessions folder live in the browser.

    DIR defaults to the agent dir's sessions/.
    """
    from sessiontree.serve.server import run_server
    from sessiontree.serve.state import ServeConfig

    root = directory if directory is not None else ctx.agent_dir / "sessions"
    config = ServeConfig(
        root=root, cache_dir=cache_dir, host=host, port=port, agent_dir=ctx.agent_dir, theme=theme
    )
    run_server(config, open_browser=open_browser, echo=lambda line: click.echo(line))
