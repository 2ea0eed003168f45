"""CLI command: build (a sessions folder as a static, searchable site)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import click

from sessiontree.archive import collection
from sessiontree.cli.archive_options import machine_option
from sessiontree.cli.base import Context, cli, pass_context, warn_line
from sessiontree.cli.roots import PROJECT_HELP, SINCE_FORMS, agent_filter_option, pick_roots, roots_option
from sessiontree.exporter.options import THEMES
from sessiontree.store.discovery import printable

SLOW_STEP = 2.0
"""Seconds after which a step without a count says it is running."""


class _Report:
    """A build's progress on stderr: a bar per counted step on a terminal, a line per item on a
    pipe, a line for a step without a count that runs over ``SLOW_STEP``; nothing with --quiet
    (but notes, which are warnings)."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.terminal = sys.stderr.isatty()
        self.step = ""
        self.total: int | None = None
        self.bar_cm: Any = None
        self.bar: Any = None
        self.timer: threading.Timer | None = None

    def begin(self, step: str, total: int | None = None) -> None:
        self.end()
        self.step, self.total = step, total
        if self.quiet:
            return
        if total is None:
            self.timer = threading.Timer(SLOW_STEP, click.echo, args=(f"{step}...",), kwargs={"err": True})
            self.timer.daemon = True
            self.timer.start()
        elif self.terminal:
            self.bar_cm = click.progressbar(length=total, label=step, file=sys.stderr, show_pos=True)
            self.bar = self.bar_cm.__enter__()

    def advance(self, done: int, label: str) -> None:
        if self.quiet:
            return
        if self.bar is not None:
            self.bar.update(done - self.bar.pos)
        elif not self.terminal:
            click.echo(f"{self.step} [{done}/{self.total}] {printable(label, 100, keep_end=True)}", err=True)

    def end(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.bar_cm is not None:
            self.bar_cm.__exit__(None, None, None)
            self.bar_cm = self.bar = None

    def note(self, message: str) -> None:
        click.echo(printable(message, 300), err=True)


def _staging(bucket: str) -> Path:
    """The local folder a site published to ``bucket`` is built in (kept, so builds stay incremental)."""
    import hashlib

    from sessiontree.archive.collection import usable_cache_dir

    digest = hashlib.sha256(bucket.rstrip("/").encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return usable_cache_dir(None, warn_line) / "published-sites" / digest


@cli.command()
@click.argument("folder", metavar="[DIR]", required=False, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    "--out",
    "site_out",
    required=True,
    metavar="DIR|s3://BUCKET/PREFIX",
    help="The site folder to write, or a bucket prefix to publish it to (built in the cache dir first; "
    "only changed files sent, pages before the index, stale files deleted last; AWS_* or ~/.aws).",
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
@machine_option
@pass_context
def build(
    ctx: Context,
    folder: Path | None,
    roots: tuple[Path, ...],
    agent: str | None,
    machine: str | None,
    site_out: str,
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
    from sessiontree.archive.collection import Filters, parse_since, project_path, usable_cache_dir
    from sessiontree.site.build import BuildOptions, build_site
    from sessiontree.store.times import LOCAL_ZONE

    bucket = site_out if site_out.startswith("s3://") else None
    site = _staging(bucket) if bucket else Path(site_out)

    chosen = pick_roots(ctx, (*((folder,) if folder is not None else ()), *roots), agent, existing=True)
    chosen = collection.machine_roots(chosen, machine)
    if not chosen:
        raise click.UsageError("No sessions folder: pass DIR or --root")
    filters = Filters(
        project=project_path(project) if project else None,
        since_ms=parse_since(since, zone=LOCAL_ZONE) if since else None,
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
        cache_dir=usable_cache_dir(None, warn_line),
    )
    report = _Report(quiet)
    try:
        result = build_site(options, report)
    finally:
        report.end()
    for warning in result.warnings:
        click.echo(f"Warning: {printable(warning, 300)}", err=True)
    parts = [f"{len(result.rendered)} rendered", f"{result.kept} unchanged"]
    if result.removed:
        parts.append(f"{len(result.removed)} removed")
    if result.search_records is not None:
        parts.append(f"{result.search_records} messages indexed")
    click.echo(f"Built {site}: " + ", ".join(parts))
    if bucket is not None:
        from sessiontree.site.publish import publish_site

        done = publish_site(site, bucket)
        said = f"{len(done.sent)} sent, {done.unchanged} unchanged"
        click.echo(
            f"Published to {done.where}: {said}" + (f", {len(done.deleted)} deleted" if done.deleted else "")
        )
    if result.failures:
        click.echo(f"{len(result.failures)} failed:", err=True)
        for key, reason in sorted(result.failures.items()):
            click.echo(f"  {printable(key, 120, keep_end=True)}: {printable(reason, 200)}", err=True)
        raise SystemExit(1)
