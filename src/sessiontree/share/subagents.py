"""Subagent transcripts a page embeds: redacted copies for a share, in its private folder.

The exporter reads a session's subagent files (``<session>/<AgentId>.jsonl``) while it renders,
so a share that redacted only the session would publish the subagents as they are. Their
redacted copies are written beside a copy-named session in the share's private folder, and the
session points there; the user's files are never touched.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

from sessiontree.errors import SessiontreeError
from sessiontree.share.redact import RedactionReport, Redactor, learn_value, redact_entries
from sessiontree.store import Session
from sessiontree.store.load import load_session
from sessiontree.store.subagents import subagent_files

MAX_DEPTH = 4  # the exporter nests subagents this deep


@dataclass(frozen=True)
class Subagent:
    """A subagent's session and its own subagents, by agent id."""

    session: Session
    nested: dict[str, Subagent]


def load_subagents(session: Session, depth: int = 0) -> dict[str, Subagent]:
    """Return the readable subagent sessions by agent id, each with its own subagents."""
    found: dict[str, Subagent] = {}
    if depth >= MAX_DEPTH:
        return found
    for agent_id, path in subagent_files(session.path).items():
        try:
            sub = load_session(path)
        except SessiontreeError:
            continue  # the page says the transcript is unreadable
        found[agent_id] = Subagent(sub, load_subagents(sub, depth + 1))
    return found


def learn_subagents(subagents: dict[str, Subagent], redactor: Redactor) -> None:
    """Find the secrets of every subagent (pass one), so their values are masked everywhere."""
    for sub in subagents.values():
        for value in (sub.session.header, *sub.session.entries):
            learn_value(redactor, value)
        learn_subagents(sub.nested, redactor)


def write_redacted_subagents(
    session: Session,
    subagents: dict[str, Subagent],
    redactor: Redactor,
    report: RedactionReport,
    folder: Path,
) -> Session:
    """Write redacted copies of the subagents under ``folder``; return the session pointing there."""
    if not subagents or session.path is None:
        return session
    main = folder / session.path.name
    sub_dir = main.with_suffix("")
    sub_dir.mkdir(parents=True, exist_ok=True)
    for agent_id, sub in subagents.items():
        name = sub.session.path.name if sub.session.path is not None else f"{agent_id}.jsonl"
        copy = write_redacted_subagents(sub.session, sub.nested, redactor, report, sub_dir)
        header, entries, sub_report = redact_entries(copy.header, copy.entries, redactor=redactor)
        report.counts.update(sub_report.counts)
        report.findings.extend(
            dataclasses.replace(f, entry=f"{agent_id}/{f.entry}") for f in sub_report.findings
        )
        lines = [json.dumps(header, ensure_ascii=False)] + [
            json.dumps(e, ensure_ascii=False) for e in entries
        ]
        (sub_dir / name).write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    return dataclasses.replace(session, path=main)


__all__ = ["Subagent", "learn_subagents", "load_subagents", "write_redacted_subagents"]
