"""Claude Code's wrapper markup in user text: slash commands, their output, IDE context, reminders.

Claude Code writes what is not a typed prompt into user messages as tags: ``<command-name>`` /
``<command-message>`` / ``<command-args>`` for a slash command, ``<local-command-stdout>`` for its
output, ``<local-command-caveat>`` before it, ``<bash-input>`` / ``<bash-stdout>`` for bash mode,
``<ide_selection>`` / ``<ide_opened_file>`` for what the IDE shares, ``<system-reminder>`` for
injected reminders, and ``[Request interrupted by user…]`` when the user stops a reply.
``split_markup`` cuts a text into those parts, so the page shows each as what it is and titles
take only what the user typed (``typed_text``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TAGS = (
    "command-name", "command-message", "command-args", "local-command-stdout", "local-command-stderr",
    "local-command-caveat", "bash-input", "bash-stdout", "bash-stderr", "ide_selection",
    "ide_opened_file", "ide_diagnostics", "system-reminder", "user-prompt-submit-hook",
)  # fmt: skip
_PART = re.compile(
    r"<(" + "|".join(re.escape(t) for t in TAGS) + r")>(.*?)</\1>"
    r"|\[Request interrupted by user[^\]\n]{0,80}\]",
    re.S,
)
# A tag opened and never closed (a line cut short): the rest of the text is that part.
_OPEN = re.compile(r"<(" + "|".join(re.escape(t) for t in TAGS) + r")>", re.S)

COMMAND_TAGS = frozenset({"command-name", "command-message", "command-args"})
OUTPUT_TAGS = frozenset({"local-command-stdout", "local-command-stderr", "bash-stdout", "bash-stderr"})
CONTEXT_TAGS = frozenset({"ide_selection", "ide_opened_file", "ide_diagnostics"})
HIDDEN_TAGS = frozenset({"local-command-caveat", "system-reminder", "user-prompt-submit-hook"})


@dataclass(frozen=True, slots=True)
class MarkupPart:
    """One part of a user text: ``text`` (typed), or a tag's name (``interrupted`` for the notice)."""

    kind: str
    text: str


def has_markup(text: str) -> bool:
    """Tell whether a text holds any wrapper markup (cheap check first)."""
    return ("<" in text or "[Request interrupted" in text) and _PART.search(text) is not None


def split_markup(text: str) -> list[MarkupPart]:
    """The parts of a user text in order; text between tags is ``text`` (blank runs dropped)."""
    parts: list[MarkupPart] = []

    def typed(chunk: str) -> None:
        opened = _OPEN.search(chunk)
        if opened is not None:  # cut short: keep what comes before, the rest is that tag's part
            typed(chunk[: opened.start()])
            parts.append(MarkupPart(opened[1], chunk[opened.end() :]))
        elif chunk.strip():
            parts.append(MarkupPart("text", chunk.strip("\n")))

    pos = 0
    for found in _PART.finditer(text):
        typed(text[pos : found.start()])
        if found[1] is None:
            parts.append(MarkupPart("interrupted", found[0][1:-1]))
        else:
            parts.append(MarkupPart(found[1], found[2]))
        pos = found.end()
    typed(text[pos:])
    return parts


def typed_text(text: str) -> str:
    """What the user typed in a user text: wrapper markup, IDE context and reminders left out."""
    if not has_markup(text):
        return text.strip()
    return "\n".join(p.text for p in split_markup(text) if p.kind == "text").strip()


def command_of(parts: list[MarkupPart]) -> str:
    """A slash command as typed (``/model opus``), from its name and args parts."""
    name = next((p.text.strip() for p in parts if p.kind == "command-name"), "")
    args = next((p.text.strip() for p in parts if p.kind == "command-args"), "")
    if not name:
        name = next((p.text.strip() for p in parts if p.kind == "command-message"), "")
        name = f"/{name}" if name and not name.startswith("/") else name
    return f"{name} {args}".strip()


def describe_markup(text: str) -> str:
    """A one-line description of a user text for previews: the typed text, else what the markup is."""
    typed = typed_text(text)
    if typed:
        return typed
    parts = split_markup(text)
    command = command_of(parts)
    if command:
        return command
    kinds = {p.kind for p in parts}
    if "interrupted" in kinds:
        return "Interrupted by user"
    if "bash-input" in kinds:
        return "! " + next(p.text for p in parts if p.kind == "bash-input").strip()
    if kinds & OUTPUT_TAGS:
        return "Command output"
    if kinds & CONTEXT_TAGS:
        return "IDE context"
    return ""
