"""What an edit changes: its diff (recorded, or computed from old and new text), and the files a patch
names, for the head of its tool row ("src/a.py, b.md +2 more")."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sessiontree.exporter.blocks import compute_diff

# apply_patch's "*** Update File: x" (Add, Delete; "*** Move to: y"), else a unified diff's "+++ b/x".
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.M)
_DIFF_FILE = re.compile(r"^\+\+\+ (?:b/)?(.+?)\s*$", re.M)
SHOWN_FILES = 3


def patch_files(text: str) -> list[str]:
    """The file names a patch's text names, in order, each once."""
    names = [a or b for a, b in _PATCH_FILE.findall(text)] or _DIFF_FILE.findall(text)
    return [n for n in dict.fromkeys(names) if n and n != "/dev/null"]


def files_text(files: list[str]) -> str:
    """The first ``SHOWN_FILES`` names, then how many more."""
    more = len(files) - SHOWN_FILES
    return ", ".join(files[:SHOWN_FILES]) + (f" +{more} more" if more > 0 else "")


def _text(args: Mapping[str, Any], *keys: str) -> str:
    return next((v for k in keys if isinstance(v := args.get(k), str)), "")


def edit_diff(args: Mapping[str, Any], details: Any) -> str:
    """The diff an edit call made: its result's ``details.diff``, else one computed from its old and
    new text (each edit of a multi-edit)."""
    if isinstance(details, Mapping) and isinstance(details.get("diff"), str):
        return str(details["diff"])
    old = _text(args, "oldText", "old_string", "old_str", "oldString")
    new = _text(args, "newText", "new_string", "new_str", "newString")
    if old or new:
        return compute_diff(old, new)
    edits = args.get("edits")
    if isinstance(edits, list):
        parts = [
            compute_diff(_text(e, "oldText", "old_string"), _text(e, "newText", "new_string"))
            for e in edits
            if isinstance(e, Mapping)
        ]
        return "\n".join(p for p in parts if p)
    return ""
