"""CLI command: mcp (an MCP server over every session search covers, for a coding agent to ask)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import click

from sessiontree.archive.collection import usable_cache_dir
from sessiontree.archive.search import check_cache_dir
from sessiontree.cli.base import Context, cli, pass_context, warn_line
from sessiontree.cli.roots import ROOT_HELP, choose_roots
from sessiontree.errors import ServeError

TOKEN_ENV = "SESSIONTREE_MCP_TOKEN"


@cli.command("mcp")
@click.option(
    "--root", "roots", multiple=True, type=click.Path(file_okay=False, path_type=Path), help=ROOT_HELP
)
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where the search index lives [default: the user cache dir, as search's].",
)
@click.option(
    "--no-redact",
    is_flag=True,
    help="Give the agent session text as it is (secrets included): only for your own local agent.",
)
@click.option(
    "--http", "use_http", is_flag=True, help="Streamable HTTP at http://HOST:PORT/mcp instead of stdio."
)
@click.option("--host", default="127.0.0.1", show_default=True, help="With --http: the address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="With --http (0: a free one).",
)
@pass_context
def mcp_command(
    ctx: Context,
    roots: tuple[Path, ...],
    cache_dir: Path | None,
    no_redact: bool,
    use_http: bool,
    host: str,
    port: int,
) -> None:
    """Serve your past sessions to a coding agent as MCP tools.

    Four read-only tools: search_sessions, list_sessions, read_session and usage_totals, over
    every session search covers (every agent's default folder, or --root). Text passes the
    share redactor first unless --no-redact. Standard input and output by default (the agent
    starts this command); --http serves http://HOST:PORT/mcp and asks for a bearer token:
    $SESSIONTREE_MCP_TOKEN, else a fresh one printed on stderr.
    """
    from sessiontree.mcp_server.library import Library
    from sessiontree.mcp_server.server import run_http, run_stdio
    from sessiontree.readers import AGENTS

    token = os.environ.get(TOKEN_ENV) or secrets.token_urlsafe(24)
    if use_http and len(token) < 16:
        raise ServeError(f"${TOKEN_ENV} is too short: use 16 characters or more")
    chosen, _others = choose_roots(ctx, roots, None, existing=True)
    if cache_dir is not None:
        check_cache_dir(cache_dir, [*chosen, ctx.agent_dir])
    library = Library(
        chosen,
        usable_cache_dir(cache_dir, warn_line),
        keep_out=[ctx.agent_dir],
        redact=not no_redact,
        agents=list(AGENTS),
    )
    try:
        if not use_http:
            run_stdio(library)
            return

        def ready(bound: int) -> None:
            name = f"[{host}]" if ":" in host else host
            click.echo(f"MCP server at http://{name}:{bound}/mcp", err=True)
            if TOKEN_ENV not in os.environ:
                click.echo(f"Token (send 'Authorization: Bearer <token>'): {token}", err=True)

        run_http(library, host, port, token, ready)
    finally:
        library.close()
