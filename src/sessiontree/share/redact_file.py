"""A session file's bytes with its secrets masked, as ``keep --redact`` keeps them for a team bucket:
the share redactor over every line of a JSONL file (every value found masked in every line), or
over the one object of a JSON session file. Other files (images, blobs) are not kept redacted."""

from __future__ import annotations

import json
from typing import Any

from sessiontree.share.redact import RedactionReport, Redactor, redact_entries, redact_value

REDACTED_SUFFIXES = (".jsonl", ".json")
"""The files a redacted archive keeps: the ones whose text the redactor can read."""


def redact_file_bytes(name: str, data: bytes) -> bytes:
    """The redacted bytes of the file called ``name`` (a line that is not JSON is masked as text)."""
    text = data.decode("utf-8", "replace")
    if name.endswith(".json"):
        try:
            value = json.loads(text)
        except ValueError:
            return _text(text).encode()
        return json.dumps(
            redact_value(value, RedactionReport(), redactor=_learnt([value])), ensure_ascii=False
        ).encode()
    lines = text.split("\n")
    parsed: list[Any] = []
    for line in lines:
        try:
            parsed.append(json.loads(line) if line.strip() else None)
        except ValueError:
            parsed.append(line)  # a torn or foreign line: redacted as text
    objects = [p for p in parsed if isinstance(p, dict)]
    redactor = Redactor()
    for value in parsed:
        if isinstance(value, str):
            redactor.learn(value)
    _header, clean, _report = redact_entries({}, objects, redactor=redactor)
    cleaned = iter(clean)
    out: list[str] = []
    for line, value in zip(lines, parsed, strict=True):
        if isinstance(value, dict):
            out.append(json.dumps(next(cleaned), ensure_ascii=False))
        elif isinstance(value, str):
            out.append(redactor.redact(value, RedactionReport(), "", None))
        else:
            out.append(line)
    return "\n".join(out).encode()


def _learnt(values: list[Any]) -> Redactor:
    from sessiontree.share.redact import learn_value

    redactor = Redactor()
    for value in values:
        learn_value(redactor, value)
    return redactor


def _text(text: str) -> str:
    redactor = Redactor()
    redactor.learn(text)
    return redactor.redact(text, RedactionReport(), "", None)
