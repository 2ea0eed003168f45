"""What a share masked, one line a value, to read before the page goes up (``share``, ``--dry-run``).

The total is said once, by the share itself ("Redacted N secret(s): ..."); these lines list each
masked value. Fields the page never shows (thinking signatures, encrypted reasoning) are dropped
from the shared copy by redaction and never appear here.
"""

from __future__ import annotations

from sessiontree.share.redact import Finding, RedactionReport


def finding_line(finding: Finding) -> str:
    """Return one masked value: kind, first 4 characters, length, where it was."""
    where = f"entry {finding.entry}" if finding.entry else "session"
    return f"  {finding.kind:<24} {finding.preview}... ({finding.length} chars)  {where}  {finding.field}"


def review_lines(report: RedactionReport | None, limit: int | None = None) -> list[str]:
    """Return a line for each masked value (all of them, or ``limit`` lines with the rest counted)."""
    if report is None:
        return ["Redaction is off (--no-redact): the page is shared as it is"]
    lines = [finding_line(f) for f in report.findings]
    if limit is not None and len(lines) > limit:
        shown = max(1, limit - 1)
        rest = len(lines) - shown
        lines = [*lines[:shown], f"  ... and {rest} more (share --dry-run lists every one)"]
    return lines
