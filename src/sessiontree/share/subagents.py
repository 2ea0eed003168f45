"""Subagent sessions a page embeds, redacted in memory with the session that runs them.

The page of an oh-my-pi session embeds its subagents' transcripts (``session.subagents``), so a
share redacts them too: every subagent's secrets are learnt first (masked wherever they appear),
then each transcript is redacted into a copy held in memory. Nothing is written to disk.
"""

from __future__ import annotations

import dataclasses

from sessiontree.share.redact import RedactionReport, Redactor, learn_value, redact_entries, redact_value
from sessiontree.store.session import MAX_DEPTH, Session, Subagents


def learn_subagents(subagents: Subagents, redactor: Redactor, depth: int = 0) -> None:
    """Find the secrets of every embedded subagent (pass one), so their values are masked everywhere."""
    if not subagents.embedded or depth >= MAX_DEPTH:
        return
    for agent_id in subagents.ids():
        sub = subagents.get(agent_id)
        if sub is not None:
            for value in (sub.header, *sub.entries):
                learn_value(redactor, value)
            learn_subagents(sub.subagents, redactor, depth + 1)


def redact_subagents(
    subagents: Subagents, redactor: Redactor, report: RedactionReport, depth: int = 0
) -> Subagents:
    """Return the embedded subagents redacted (theirs too), in memory; what was masked goes in ``report``.

    Claude Code's transcripts are in the parent's tree already (redacted with it): left as they are.
    """
    if not subagents.embedded:
        return subagents
    done: dict[str, Session | None] = {}
    for agent_id in subagents.ids() if depth < MAX_DEPTH else []:
        sub = subagents.get(agent_id)
        if sub is None:
            done[agent_id] = None
            continue
        nested = redact_subagents(sub.subagents, redactor, report, depth + 1)
        header, entries, sub_report = redact_entries(sub.header, sub.entries, redactor=redactor)
        slot = sub.title_slot
        if slot:
            slot = redact_value(slot, sub_report, redactor=redactor, entry="title-slot")
        report.counts.update(sub_report.counts)
        report.findings.extend(
            dataclasses.replace(f, entry=f"{agent_id}/{f.entry}") for f in sub_report.findings
        )
        done[agent_id] = dataclasses.replace(
            sub, header=header, entries=entries, title_slot=slot, subagents=nested
        )
    return Subagents.of(done, embedded=True)


__all__ = ["learn_subagents", "redact_subagents"]
