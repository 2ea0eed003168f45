"""CLI command: stats (tokens and cost of every session, grouped by day, week, project, model or session)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import click

from sessiontree.archive.usage import GROUP_CHOICES, GroupBy, UsageQuery, UsageReport, UsageTotal, summarize
from sessiontree.cli.archive_options import archive_options, open_index, project_of, since_of, until_of
from sessiontree.cli.base import Context, cli, pass_context
from sessiontree.cli.roots import SINCE_FORMS
from sessiontree.store.discovery import printable
from sessiontree.store.times import LOCAL_ZONE, UTC_ZONE

BRANCH_NOTE = "Counted over every branch of each session (abandoned branches too), not only the active path."
KEY_WIDTH = 60
TITLE_WIDTH = 32
_HEADINGS = ("MESSAGES", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "COST")
CSV_FIELDS: tuple[str, ...] = ("key", "title", "messages", "input", "output", "cacheRead", "cacheWrite")
CSV_FIELDS += ("tokens", "cost", "costEstimated")
TIME_GROUPS = ("day", "week")


def _cells(total: UsageTotal, key: str) -> tuple[str, ...]:
    counts = (total.messages, total.input, total.output, total.cache_read, total.cache_write)
    return (key, *(f"{n:,}" for n in counts), printable(total.cost_text()))


def format_table(report: UsageReport, dated: bool = False) -> str:
    """The totals as an aligned table, the grand total last, and the note that all branches count
    (days and weeks headed by their zone; ``dated``: a range was asked, whose dates are the zone's)."""
    heading = report.by.upper()
    zone_note: list[str] = []
    if report.by in TIME_GROUPS:
        heading += f" ({report.zone.name})"
    elif dated:
        zone_note.append(f"Dates are days in {report.zone.name}.")
    rows: list[tuple[str, ...]] = [(heading, *_HEADINGS)]
    for group in report.groups:
        key = printable(group.key, KEY_WIDTH, keep_end=True)
        if report.by == "session":
            key = printable(group.label or "(untitled)", TITLE_WIDTH) + "  " + key
        rows.append(_cells(group, key))
    rows.append(_cells(report.total, "TOTAL"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    ]
    return "\n".join([*lines, BRANCH_NOTE, *zone_note])


def format_csv(report: UsageReport) -> str:
    """The totals as CSV (the grand total as a last row keyed ``total``; empty cost when none recorded;
    days and weeks with the time each ``start``s, offset included)."""
    out = io.StringIO()
    fields = (CSV_FIELDS[0], "start", *CSV_FIELDS[1:]) if report.by in TIME_GROUPS else CSV_FIELDS
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for total in [*report.groups, report.total]:
        row = total.to_json()
        row["cost"] = "" if row["cost"] is None else row["cost"]
        writer.writerow({k: (printable(v) if isinstance(v, str) else v) for k, v in row.items()})
    return out.getvalue().rstrip("\n")


@cli.command()
@archive_options
@click.option(
    "--by",
    "by",
    type=click.Choice(GROUP_CHOICES),
    default="day",
    show_default=True,
    help="How to group the totals.",
)
@click.option(
    "--until",
    metavar="DATE",
    help="Only before this time (a bare YYYY-MM-DD counts that whole day): " + SINCE_FORMS,
)
@click.option(
    "--utc",
    is_flag=True,
    help="Days (and --since / --until's dates) in UTC, not in this machine's zone (TZ).",
)
@click.option("--model", metavar="NAME", help="Only this model, as shown (provider/model).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (groups, total, branches: all).")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV, one row per group and a total row.")
@pass_context
def stats(
    ctx: Context,
    sessions_dirs: tuple[Path, ...],
    machine: str | None,
    project: str | None,
    since: str | None,
    cache_dir: Path | None,
    agent: str | None,
    by: GroupBy,
    until: str | None,
    utc: bool,
    model: str | None,
    as_json: bool,
    as_csv: bool,
) -> None:
    """Total the tokens and cost of every session, grouped.

    Input, output, cache-read and cache-write tokens and cost, summed from every assistant
    message's usage (and model_usage entries). Every branch counts, not only the active
    path. A session that recorded no cost gets an estimate from its token counts (marked
    estimated); a model with no known price shows - and is named. --agent keeps only that
    agent's sessions, under --root too. Days begin at midnight in this machine's zone (TZ), as
    the usage page's in the browser's, and the zone is named; --utc counts UTC days.
    """
    if as_json and as_csv:
        raise click.UsageError("Choose one of --json and --csv")
    zone = UTC_ZONE if utc else LOCAL_ZONE
    with open_index(ctx, sessions_dirs, cache_dir, agent, machine) as index:
        query = UsageQuery(project_of(project), since_of(since, zone), until_of(until, zone), agent, model)
        records = index.usage(query)
    report = summarize(records, by, zone)
    if as_json:
        click.echo(json.dumps(report.to_json(), ensure_ascii=True, indent=2))
    elif as_csv:
        click.echo(format_csv(report))
    else:
        click.echo(format_table(report, dated=bool(since or until)))
