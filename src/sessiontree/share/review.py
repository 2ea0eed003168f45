"""What a share masked, one line a value, to read before the page goes up (``share``, ``--dry-run``).

The total is said once, by the share itself ("Redacted N secret(s): ..."); these lines list each
masked value, then, apart, the random-looking values a look-alike rule kept and why (their first
and last characters only), so that one can be masked with ``share --mask VALUE``. Fields the page
never shows (thinking signatures, encrypted reasoning) are dropped from the shared copy by
redaction and never appear here.
"""

from __future__ import annotations

from collections import Counter

from sessiontree.share.redact import Finding, Kept, RedactionReport

# Reasons whose values are the session's own ids (tool calls, messages): counted, not listed.
_COUNTED = "an id ("


def finding_line(finding: Finding) -> str:
    """Return one masked value: kind, first 4 characters (none of a machine's own secret: where it
    came from instead), length, where it was."""
    where = f"entry {finding.entry}" if finding.entry else "session"
    shown = f"from {finding.source}" if finding.source else f"{finding.preview}..."
    return f"  {finding.kind:<24} {shown} ({finding.length} chars)  {where}  {finding.field}"


def machine_line(report: RedactionReport) -> list[str]:
    """One line: how many of this machine's own secrets were masked, and from where (never a value)."""
    if not report.machine:
        return []
    places = ", ".join(f"{where or 'this machine'} ({n})" for where, n in report.machine.most_common())
    total = sum(report.machine.values())
    return [f"Masked {total} cop{'y' if total == 1 else 'ies'} of this machine's own secrets, from: {places}"]


def kept_line(kept: Kept) -> str:
    """Return one random-looking value kept: its first and last characters, length and why."""
    return f"  {kept.first}...{kept.last} ({kept.length} chars)  kept: {kept.reason}"


def kept_lines(kept: list[Kept]) -> list[str]:
    """Return the kept values: a heading, each value, and the ids counted by their prefix."""
    if not kept:
        return []
    listed = [k for k in kept if not k.reason.startswith(_COUNTED)]
    counted = Counter(k.reason for k in kept if k.reason.startswith(_COUNTED))
    lines = [f"Kept {len(kept)} random-looking value(s) a rule explains (share --mask VALUE masks one):"]
    lines += [kept_line(k) for k in listed]
    lines += [f"  {n} x {reason}" for reason, n in sorted(counted.items())]
    return lines


def review_lines(report: RedactionReport | None, limit: int | None = None) -> list[str]:
    """Return a line for each masked value (all of them, or ``limit`` lines with the rest counted),
    then the random-looking values kept, apart."""
    if report is None:
        return ["Redaction is off (--no-redact): the page is shared as it is"]
    lines = [finding_line(f) for f in report.findings]
    head = machine_line(report)
    if limit is not None and len(lines) > limit:
        shown = max(1, limit - 1)
        rest = len(lines) - shown
        lines = [*lines[:shown], f"  ... and {rest} more (share --dry-run lists every one)"]
    kept = kept_lines(report.kept)
    if limit is not None and len(kept) > limit:
        kept = [
            *kept[: max(2, limit - 1)],
            f"  ... and {len(kept) - max(2, limit - 1)} more (share --dry-run)",
        ]
    return [*head, *lines, *kept]
