"""CLI commands: ``artifact URL`` and the ``history`` group (search, add)."""

from __future__ import annotations

import importlib
import json
import os
import sys
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

import click

from sessiontree.cli.base import Context, cli, pass_context
from sessiontree.errors import ArtifactError, SessiontreeError
from sessiontree.store.artifacts import SESSION_SUFFIX, artifacts_dir_for
from sessiontree.store.history import HistoryEntry, HistoryStorage, history_db_path
from sessiontree.store.output_sink import sanitize_text
from sessiontree.store.urls import resolve_internal_url


def session_artifacts_dir(value: str | None, agent_dir: Path) -> Path:
    """Return the artifact dir of ``--session``: a ``.jsonl`` path, or a session id (prefix)."""
    if value is None:
        raise ArtifactError("No session given; pass --session SESSION.jsonl (its artifacts sit beside it)")
    if value.endswith(SESSION_SUFFIX):
        return artifacts_dir_for(Path(value).expanduser())
    try:
        # Session ids need issue 3's resolver; a plain .jsonl path works without it.
        resolver = importlib.import_module("sessiontree.store.resolve")
    except ImportError:
        resolver = None
    # find_session only reads; resolve_session may fork another project's session, which a read
    # command must never do.
    find = getattr(resolver, "find_session", None)
    if find is None:
        raise ArtifactError(f"Not a session file: {value}; pass a path ending in {SESSION_SUFFIX}")
    found = find(value, agent_dir, Path.cwd())
    return artifacts_dir_for(Path(getattr(found, "path", found)))


def echo_untrusted(text: str) -> None:
    """Print session-derived text with escapes and control characters removed."""
    clean = sanitize_text(text)
    click.echo(clean, nl=not clean.endswith("\n"))


@cli.command()
@click.argument("url")
@click.option("--session", metavar="SESSION", help="The session the URL belongs to: its .jsonl file or id.")
@click.option("--offset", type=int, metavar="N", help="First line to print (1-based); not with extraction.")
@click.option("--limit", type=int, metavar="N", help="How many lines to print; not with extraction.")
@pass_context
def artifact(ctx: Context, url: str, session: str | None, offset: int | None, limit: int | None) -> None:
    """Print an artifact://<id> tool output or an agent://<id>[/path|?q=query] subagent output."""
    directory = session_artifacts_dir(session, ctx.agent_dir)
    echo_untrusted(resolve_internal_url(url, directory, offset=offset, limit=limit).content)


@cli.group()
def history() -> None:
    """Search and add to the prompt history (<agent dir>/history.db)."""


def cwd_option(value: str | None) -> str | None:
    """Return a ``--cwd`` value with ``~`` expanded and a relative path made absolute."""
    if value is None:
        return None
    path = Path(value).expanduser()
    return str(path if path.is_absolute() else path.absolute())


def format_entry(entry: HistoryEntry) -> str:
    """Return one tab-separated line: UTC time, cwd, prompt (newlines shown as \\n)."""
    when = datetime.fromtimestamp(entry.created_at, UTC).strftime("%Y-%m-%d %H:%M:%S")
    prompt = sanitize_text(entry.prompt.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t"))
    return f"{when}\t{sanitize_text(entry.cwd or '-')}\t{prompt}"


@history.command("search")
@click.argument("query")
@click.option("--cwd", metavar="DIR", help="Only prompts typed in this directory.")
@click.option(
    "--limit", type=click.IntRange(min=1), default=20, show_default=True, metavar="N", help="Most results."
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array of {id, prompt, created_at, cwd}.")
@pass_context
def history_search(ctx: Context, query: str, cwd: str | None, limit: int, as_json: bool) -> None:
    """Search prompts, newest first (FTS5 syntax; anything else is matched as plain text)."""
    if not history_db_path(ctx.agent_dir).exists():
        found = []  # no history yet: nothing to find, and a search creates nothing
    else:
        with HistoryStorage.open(ctx.agent_dir, readonly=True) as storage:
            found = storage.search(query, cwd=cwd_option(cwd), limit=limit)
    if as_json:
        click.echo(json.dumps([asdict(e) for e in found], ensure_ascii=True, indent=2))
        return
    for entry in found:
        click.echo(format_entry(entry))


@history.command("add")
@click.argument("prompt")
@click.option("--cwd", metavar="DIR", help="The directory to record [default: the current one].")
@pass_context
def history_add(ctx: Context, prompt: str, cwd: str | None) -> None:
    """Add PROMPT to the history ('-' reads it from stdin); a repeat of the last prompt is skipped."""
    text = sys.stdin.read() if prompt == "-" else prompt
    if not text.strip():
        raise SessiontreeError("Empty prompt; give the text to add (or '-' to read it from stdin)")
    with HistoryStorage.open(ctx.agent_dir) as storage:
        storage.add(text, cwd=cwd_option(cwd) or os.getcwd())
