"""The line kinds of every agent that are not conversation, one row each, and the typed-prompt rule.

A reader turns such a line (an API error, a background-task notification, a mode change, ...) into
a ``custom_message`` entry (in the model's context) or a ``custom`` entry (not in it) whose
``customType`` names its row; its ``content`` is the text the row shows. The page, ``dump``,
``inspect`` and the search index read the row, never the agent, so a new kind, or a new agent, is
one row in the reader that owns the format (``readers.claude_kinds.CLAUDE_KINDS``,
``readers.codex.CODEX_KINDS``). The table lives in ``store`` because both floors use it: the
readers fill it, the exporter and ``inspect`` read it.

``is_typed_prompt`` is the one rule of "what the user typed": the titles, the prompt counts of
``inspect``, the outline of the page and the index's titles all ask it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from sessiontree.store.claude_markup import typed_content
from sessiontree.store.session import Session
from sessiontree.store.summary import SessionSummary, summarize_session

Show = Literal["notice", "meta", "error", "command"]


@dataclass(frozen=True, slots=True)
class LineKind:
    """How one kind of line is shown, dumped and counted."""

    custom_type: str
    """The ``customType`` of the entries of this kind (``claude:system/api_error``)."""
    label: str
    """The head the page shows and the heading ``dump`` prints (``API error``)."""
    show: Show = "notice"
    """``notice`` (one line), ``meta`` (a notice under "all" only), ``error`` (a notice marked as
    an error), ``command`` (the command chips of Claude Code's markup). An entry with no text is
    under "all" only, whatever its row."""
    context: bool = True
    """In the model's context (a ``custom_message`` entry), else a ``custom`` entry."""
    dumped: bool = True
    """Printed by ``dump`` (a ``## label`` section with the text; never an empty one)."""
    counted: bool = False
    """Counted by ``inspect`` (``notices``: label -> count, folded repeats included)."""
    dump_text: Callable[[Any], str] | None = None
    """What ``dump`` prints of the entry's content (default: its text)."""
    typed: bool = False
    """Typed by the person though not a user message of the conversation (a prompt queued while
    the agent worked): a typed prompt (``typed_prompt``)."""


KINDS: dict[str, LineKind] = {}
"""customType -> row, for every agent (each reader adds its own rows on import)."""


def add_kinds(rows: Iterable[LineKind]) -> None:
    """Add a reader's rows to the table."""
    for row in rows:
        KINDS[row.custom_type] = row


def kind_of(entry: Mapping[str, Any]) -> LineKind | None:
    """The row of a ``custom_message`` / ``custom`` entry (or a context message of one), or None."""
    custom_type = entry.get("customType")
    return KINDS.get(custom_type) if isinstance(custom_type, str) else None


def notice_count(entry: Mapping[str, Any]) -> int:
    """How many lines of the file one entry of a kind stands for (repeated retries are folded)."""
    details = entry.get("details")
    count = details.get("count") if isinstance(details, Mapping) else None
    return count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 1


def typed_prompt(entry: Mapping[str, Any]) -> str:
    """What the person typed in an entry ("" when it is not a typed prompt): the one rule.

    A typed prompt is what a person typed: a ``user`` message with text left once the agents'
    wrapper markup (slash commands, their output, IDE context, reminders, interruptions) is
    taken out, or an entry of a ``typed`` row (a prompt queued while the agent worked). Never
    what a model or the agent wrote: a user-role message a reader marks ``synthetic`` (a
    subagent's task, a compaction's instruction, a command's output) and the rows of lines
    nobody typed (task notifications, hook output, injected aborts).
    """
    kind = entry.get("type")
    if kind in ("custom_message", "custom"):
        row = kind_of(entry)
        return typed_content(entry.get("content")) if row is not None and row.typed else ""
    if kind != "message":
        return ""
    message = entry.get("message")
    if not isinstance(message, Mapping) or message.get("role") != "user" or message.get("synthetic"):
        return ""
    return typed_content(message.get("content"))


def is_typed_prompt(entry: Mapping[str, Any]) -> bool:
    """Tell whether an entry is a prompt the user typed (see ``typed_prompt``)."""
    return bool(typed_prompt(entry))


def count_notices(entries: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Label -> how many lines of each counted kind the entries hold."""
    counts: dict[str, int] = {}
    for entry in entries:
        row = kind_of(entry) if entry.get("type") in ("custom_message", "custom") else None
        if row is not None and row.counted:
            counts[row.label] = counts.get(row.label, 0) + notice_count(entry)
    return counts


def summarize(session: Session) -> SessionSummary:
    """``inspect``'s summary of a session of any agent, with its typed prompts and counted kinds."""
    return replace(
        summarize_session(session),
        prompts=sum(1 for e in session.entries if is_typed_prompt(e)),
        notices=count_notices(session.entries),
    )
