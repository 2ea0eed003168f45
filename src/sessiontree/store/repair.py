"""In-memory repairs of damaged files: what loading fixed so every readable entry shows.

The file is never touched. Each repair is recorded, so ``inspect`` lists them and the commands
that read a session (export, dump, share) say in one line that the view is a repaired one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sessiontree.store.entries import CURRENT_VERSION, Entry
from sessiontree.store.jsonl import INCOMPLETE, BadLine


@dataclass(frozen=True, slots=True)
class Repair:
    """One repair: the 1-based line it applies to, its kind, and a sentence saying what was done."""

    lineno: int
    kind: str  # "split" | "reattached" | "header" | "unknown" (store.sane)
    text: str


def split_repairs(found: Sequence[BadLine]) -> list[Repair]:
    """The repairs for lines that held several JSON objects (as the parser noted them)."""
    return [Repair(b.lineno, "split", f"line {b.lineno} held {b.reason}; each was read") for b in found]


def _lost_between(bad: Sequence[BadLine], after: int, before: int) -> int:
    return sum(1 for b in bad if after < b.lineno < before)


def reattach_orphans(
    entries: list[Entry], linenos: Sequence[int], bad: Sequence[BadLine]
) -> tuple[list[Repair], dict[str, str]]:
    """Attach each entry whose parent is not in the file to the nearest earlier entry.

    A parent missing from the file was lost to an unreadable line (or a deleted one); left
    alone, its children would start a new root and the active path would lose the history
    before the damage. Children of one lost parent all go to the entry that preceded the
    first of them, so they stay siblings. Returns the repairs and, per reattached entry id,
    the note shown at that joint.
    """
    ids = {e["id"] for e in entries if isinstance(e.get("id"), str)}
    target_of_lost: dict[str, tuple[str, int]] = {}
    repairs: list[Repair] = []
    joints: dict[str, str] = {}
    previous: tuple[str, int] | None = None
    for entry, lineno in zip(entries, linenos, strict=True):
        entry_id, parent = entry.get("id"), entry.get("parentId")
        if not isinstance(entry_id, str):
            continue
        if isinstance(parent, str) and parent not in ids:
            target = target_of_lost.get(parent, previous)
            if target is None:
                # Nothing earlier to attach to: this entry is the root its lost siblings join.
                target_of_lost[parent] = (entry_id, lineno)
            else:
                target_of_lost.setdefault(parent, target)
                entry["parentId"] = target[0]
                lost = _lost_between(bad, target[1], lineno)
                joints[entry_id] = (
                    f"{lost} unreadable line{'' if lost == 1 else 's'} lost here"
                    if lost
                    else "an entry is missing here"
                )
                repairs.append(
                    Repair(
                        lineno,
                        "reattached",
                        f"line {lineno}: entry {entry_id} named a parent not in the file ({parent}); "
                        f"attached to {target[0]}",
                    )
                )
        previous = (entry_id, lineno)
    return repairs, joints


def is_entry(value: Any) -> bool:
    """Tell whether a parsed line is a session entry (a string type and id, a ``parentId``
    field, even null; not a header). Another tool's records with ids but no ``parentId`` (Gemini
    CLI's chat lines) are not entries, so such a file is never read as a damaged excerpt."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("type"), str)
        and value.get("type") not in ("session", "title")
        and isinstance(value.get("id"), str)
        and "parentId" in value
    )


def is_excerpt(values: Sequence[tuple[int, Any]]) -> bool:
    """Tell whether parsed values are entries without a header (an excerpt of a session).

    Damage is tolerated: lines that were not JSON never reach here, and values that are not
    entries may be among them, as long as entries are at least half and no line is a header.
    """
    entries = sum(1 for _, v in values if is_entry(v))
    if not entries or entries * 2 < len(values):
        return False
    return not any(isinstance(v, dict) and v.get("type") in ("session", "title") for _, v in values)


def synthesize_header(values: Sequence[tuple[int, Any]], path: Path | None) -> dict[str, Any]:
    """A header for an excerpt: an id from the file name, the first entry's timestamp."""
    stem = path.stem if path is not None else "excerpt"
    header: dict[str, Any] = {"type": "session", "version": CURRENT_VERSION, "id": stem.rsplit("_", 1)[-1]}
    first = next(v for _, v in values if is_entry(v))
    if isinstance(first.get("timestamp"), str):
        header["timestamp"] = first["timestamp"]
    return header


def header_repair(values: Sequence[tuple[int, Any]]) -> Repair:
    """The repair noting a synthesised header (at the first entry's line)."""
    lineno = next(n for n, v in values if is_entry(v))
    return Repair(lineno, "header", f"no session header; line {lineno} is an entry: read as an excerpt")


def describe_damage(repairs: Sequence[Repair], bad: Sequence[BadLine]) -> str | None:
    """One line saying what loading repaired or skipped (None for a sound file).

    A half-written last line is what a session being written looks like, not damage.
    """
    skipped = [b for b in bad if b.reason != INCOMPLETE]
    parts: list[str] = []
    if skipped:
        lines = ", ".join(str(b.lineno) for b in skipped[:5]) + (" ..." if len(skipped) > 5 else "")
        parts.append(f"{len(skipped)} unreadable line{'' if len(skipped) == 1 else 's'} skipped ({lines})")
    split = [r for r in repairs if r.kind == "split"]
    if split:
        lines = ", ".join(str(r.lineno) for r in split[:5]) + (" ..." if len(split) > 5 else "")
        parts.append(f"{len(split)} line{'' if len(split) == 1 else 's'} held several entries ({lines})")
    reattached = sum(1 for r in repairs if r.kind == "reattached")
    if reattached:
        parts.append(
            f"{reattached} entr{'y' if reattached == 1 else 'ies'} whose parent was lost "
            "attached to the entry before"
        )
    unknown = sum(1 for r in repairs if r.kind == "unknown")
    if unknown:
        values = f"{unknown} value{'' if unknown == 1 else 's'}"
        parts.append(f"{values} out of range (a time, a token count, a cost) read as unknown")
    if any(r.kind == "header" for r in repairs):
        parts.append("no session header (read as an excerpt)")
    if not parts:
        return None
    return "damaged file, repaired in memory (the file is untouched): " + "; ".join(parts)
