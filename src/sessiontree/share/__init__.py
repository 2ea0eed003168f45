"""The share stage of sessiontree: custom share scripts, secret gists, redaction, the record."""

from __future__ import annotations

from sessiontree.share.publish import ShareOutcome, share_session
from sessiontree.share.records import ShareRecord, read_records
from sessiontree.share.redact import RedactionReport, redact_text
from sessiontree.share.unshare import UnshareOutcome, unshare

__all__ = [
    "RedactionReport",
    "ShareOutcome",
    "ShareRecord",
    "UnshareOutcome",
    "read_records",
    "redact_text",
    "share_session",
    "unshare",
]
