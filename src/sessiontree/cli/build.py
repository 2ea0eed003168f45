"""CLI command: build (a sessions folder as a static, searchable site)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from sessiontree.cli.base import Context, cli, pass_context
from sessiontree.cli.roots import PROJECT_HELP, SINCE_FORMS, agent_filter_option, pick_roots, roots_option
from sessiontree.exporter.options import THEMES
from sessiontree.store.discovery import printable


@contextmanager
def _progress(quiet: bool) -> Iterator[Callable[[int, int, str], None] | None]:
    """A bar on a terminal, one plain line per session otherwise, nothing with --quiet."""
    if quiet:
        yield None
        return
    if not sys.stderr.isatty():

        def line(done: int, total: int, key: str) -> None:
            click.echo(f"[{done}/{total}] {printable(key, 100, keep_end=True)}", err=True)

        yield line
        return
    bar_cm = None
    bar = None

    def tick(done: int, total: int, key: str) -> None:
        nonlocal bar_cm, bar
        if bar is None:
            bar_cm = click.progressbar(length=total, label="Rendering", file=sys.stderr, show_pos=True)
            bar = bar_cm.__enter__()
        bar.update(1)

    try:
        yield tick
    finally:
        if bar_cm is not None:
            bar_cm.__exit__(None, None, None)


@cli.command()
@click.argument("folder", metavar="[DIR]", required=False, type=click.Path(path_type=Path))
@click.option(
    "-o", "--output", "site", required=True, type=click.Path(path_type=Path), help="The site folder to write."
)
@click.option(
    "-j", "--jobs", type=click.IntRange(min=0), default=0, help="Worker processes [default: one per core]."
)
@click.option("--force", is_flag=True, help="Render every session again, changed or not.")
@click.option("--project", metavar="DIR", help=PROJECT_HELP)
@click.option("--since", metavar="DATE", help="Only sessions changed from this time on: " + SINCE_FORMS)
@click.option(
    "--exclude", metavar="GLOB", multiple=True, help="Leave out session files matching GLOB (repeatable)."
)
@click.option(
    "--shared-assets", is_flag=True, help="Write each image once under assets/ instead of inside every page."
)
@click.option("--no-search", is_flag=True, help="Do not build the full-text search index.")
@click.option("--no-usage", is_flag=True, help="Do not write usage.html (tokens and cost per day).")
@click.option(
    "--theme", type=click.Choice(THEMES), default="auto", show_default=True, help="Colour theme of the pages."
)
@click.option("--title", default="Sessions", show_default=True, help="Title of the index page.")
@click.option("-q", "--quiet", is_flag=True, help="Print only failures and the summary.")
@roots_option("pages")
@agent_filter_option
@pass_context
def build(
    ctx: Context,
    folder: Path | None,
    roots: tuple[Path, ...],
    agent: str | None,
    site: Path,
    jobs: int,
    force: bool,
    project: str | None,
    since: str | None,
    exclude: tuple[str, ...],
    shared_assets: bool,
    no_search: bool,
    no_usage: bool,
    theme: str,
    title: str,
    quiet: bool,
) -> None:
    """Build a static, searchable site of sessions.

    Sessions of any agent: DIR (or --root, repeatable) defaults to the agent dir's sessions/
    and the Claude Code and Codex CLI folders that exist.
    """
    from sessiontree.archive.collection import Filters, parse_since, project_path
    from sessiontree.site.build import BuildOptions, build_site

    chosen = pick_roots(ctx, (*((folder,) if folder is not None else ()), *roots), agent, existing=True)
    if not chosen:
        raise click.UsageError("No sessions folder: pass DIR or --root")
    filters = Filters(
        project=project_path(project) if project else None,
        since_ms=parse_since(since) if since else None,
        exclude=exclude,
    )
    options = BuildOptions(
        root=chosen[0],
        more_roots=tuple(chosen[1:]),
        site=site,
        jobs=jobs,
        force=force,
        filters=filters,
        shared_assets=shared_assets,
        search=not no_search,
        usage=not no_usage,
        theme=theme,
        title=title,
    )
    with _progress(quiet) as progress:
        result = build_site(options, progress)
    parts = [f"{len(result.rendered)} rendered", f"{result.kept} unchanged"]
    if result.removed:
        parts.append(f"{len(result.removed)} removed")
    if result.search_records is not None:
        parts.append(f"{result.search_records} messages indexed")
    click.echo(f"Built {site}: " + ", ".join(parts))
    if result.failures:
        click.echo(f"{len(result.failures)} failed:", err=True)
        for key, reason in sorted(result.failures.items()):
            click.echo(f"  {printable(key, 120, keep_end=True)}: {printable(reason, 200)}", err=True)
        raise SystemExit(1)
