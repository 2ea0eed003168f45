"""What a share masked, as lines to read before the page goes up (``share`` and ``share --dry-run``)."""

from __future__ import annotations

from sessiontree.share.redact import RedactionReport

MAX_LISTED = 40


def review_lines(report: RedactionReport | None, limit: int = MAX_LISTED) -> list[str]:
    """Return the counts by kind, then each masked value: kind, first 4 characters, length, where."""
    if report is None:
        return ["Redaction is off (--no-redact): the page is shared as it is"]
    if not report.total:
        return ["Nothing was masked: no secret was found in this session"]
    lines = [f"Masked {report.total} value(s): {report.summary()}"]
    for finding in report.findings[:limit]:
        where = f"entry {finding.entry}" if finding.entry else "session"
        lines.append(
            f"  {finding.kind:<24} {finding.preview}... ({finding.length} chars)  {where}  {finding.field}"
        )
    if len(report.findings) > limit:
        lines.append(f"  ... and {len(report.findings) - limit} more")
    return lines
