"""JSON extraction for ``agent://`` URLs: a ``/a/b`` path or a small jq-like ``?q=`` query."""

from __future__ import annotations

import json
import re

from sessiontree.errors import ArtifactError
from sessiontree.store.jsonl import decode_json

# One step of a query: ``.name``, ``["any key"]`` or ``[3]`` (a leading ``.`` is optional).
_STEP = re.compile(
    r"""\.?(?P<name>[A-Za-z_$][A-Za-z0-9_$-]*)"""
    r"""|\.?\[(?P<index>-?[0-9]+)\]"""
    r"""|\.?\[(?P<quoted>"(?:[^"\\]|\\.)*")\]""",
    re.ASCII,
)

Key = str | int


def load_json(text: str, where: str) -> object:
    """Parse ``text`` as JSON or say that extraction needs a JSON output."""
    try:
        return decode_json(text)
    except ValueError:
        raise ArtifactError(
            f"{where} is not JSON; extraction needs a JSON output (drop the /path or ?q= to read it)"
        ) from None


def parse_query(query: str) -> list[Key]:
    """Turn ``.a.b[0]["c d"]`` into keys; ``.`` alone is the whole document."""
    query = query.strip()
    if query in ("", "."):
        return []
    keys: list[Key] = []
    pos = 0
    while pos < len(query):
        m = _STEP.match(query, pos)
        if m is None or m.end() == pos:
            raise ArtifactError(
                f"Invalid query {query!r} at character {pos + 1}; use a form like .items[0].name"
            )
        if m.group("name") is not None:
            keys.append(m.group("name"))
        elif m.group("index") is not None:
            keys.append(int(m.group("index")))
        else:
            keys.append(str(json.loads(m.group("quoted"))))
        pos = m.end()
    return keys


def path_keys(segments: list[str]) -> list[Key]:
    """Turn URL path segments into keys (digits index arrays, anything else is an object key)."""
    return [int(s) if s.isascii() and s.isdigit() else s for s in segments]


def extract(document: object, keys: list[Key], where: str) -> object:
    """Follow ``keys`` into ``document`` or raise naming the first missing step."""
    value = document
    for depth, key in enumerate(keys):
        if isinstance(value, dict) and str(key) in value:
            value = value[str(key)]
        elif isinstance(value, list) and isinstance(key, int) and -len(value) <= key < len(value):
            value = value[key]
        else:
            shown = "/" + "/".join(str(k) for k in keys[: depth + 1])
            raise ArtifactError(f"No value at {shown} in {where}; check the path against the JSON")
    return value


def render_json(value: object) -> str:
    """Return ``value`` as indented JSON text."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"
