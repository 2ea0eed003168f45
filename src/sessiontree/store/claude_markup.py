"""Claude Code's wrapper markup in user text: slash commands, their output, IDE context, reminders.

Claude Code writes what is not a typed prompt into user messages as tags: ``<command-name>`` /
``<command-message>`` / ``<command-args>`` for a slash command, ``<local-command-stdout>`` for its
output, ``<local-command-caveat>`` before it, ``<bash-input>`` / ``<bash-stdout>`` for bash mode,
``<ide_selection>`` / ``<ide_opened_file>`` for what the IDE shares, ``<system-reminder>`` for
injected reminders, and ``[Request interrupted by user…]`` when the user stops a reply.
``split_markup`` cuts a text into those parts. The Claude Code reader does it once, when a
session is read (``parsed_content``): a user text block that holds markup carries its ``parts``
(``MarkupBlock``), and the page, the typed-prompt rule, titles and the search index take them
from there (``block_parts``, ``typed_content``, ``describe_parts``) instead of parsing again.
``typed_text`` and ``describe_markup`` parse raw text for what reads lines without a session
(the listing's cheap pass, the reader's own notices).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from sessiontree.store.content import text_of

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


class PartDict(TypedDict):
    """A ``MarkupPart`` as a session's entries hold it (JSON)."""

    kind: str
    text: str


class MarkupBlock(TypedDict):
    """A user text block as the reader leaves it: ``parts`` when its text holds wrapper markup."""

    type: str
    text: str
    parts: NotRequired[list[PartDict]]


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


# A block an agent wrapped in a tag of its own and put in the user's turn, known or not
# (``<environment_context>``, ``<subagent_notification>``, ``<task-notification>``): a name with a
# separator or of 12 letters or more, never an HTML element a person pastes.
_INJECTED = re.compile(
    r"\s*(?:<(?P<tag>[A-Za-z][A-Za-z0-9]*(?:[_:.-][A-Za-z0-9]+)+|[A-Za-z]{12,})(?:[ \t][^<>\n]{0,200})?>"
    r".*?</(?P=tag)>\s*)+",
    re.S,
)


def is_injected(text: str) -> bool:
    """Tell whether a user text is only blocks an agent wrapped in tags of its own (no typed word)."""
    return "</" in text and _INJECTED.fullmatch(text) is not None


def typed_text(text: str) -> str:
    """What the user typed in a user text: wrapper markup, IDE context, reminders and any block an
    agent wrapped in a tag of its own left out."""
    if not has_markup(text):
        return "" if is_injected(text) else text.strip()
    return "\n".join(
        p.text for p in split_markup(text) if p.kind == "text" and not is_injected(p.text)
    ).strip()


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
    return describe_parts(split_markup(text)) if has_markup(text) else text.strip()


def describe_parts(parts: Sequence[MarkupPart]) -> str:
    """A one-line description of parsed parts: the typed text, else what the markup is."""
    typed = "\n".join(p.text for p in parts if p.kind == "text").strip()
    if typed:
        return typed
    command = command_of(list(parts))
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


# --- parsed once, when a session is read ------------------------------------------------------


def parsed_content(content: Any) -> Any:
    """User content with each text's wrapper markup parsed (the reader's one pass).

    A string holding markup becomes one text block; a text block holding markup gets ``parts``
    (its text kept whole: dump and the model's context show it as the agent sent it). Content
    with no markup is returned as it is.
    """
    if isinstance(content, str):
        return [_parsed_block({"type": "text", "text": content})] if has_markup(content) else content
    if not isinstance(content, list):
        return content
    return [_parsed_block(b) if isinstance(b, dict) and b.get("type") == "text" else b for b in content]


def _parsed_block(block: dict[str, Any]) -> dict[str, Any]:
    text = block.get("text")
    if not isinstance(text, str) or not has_markup(text):
        return block
    parts: list[PartDict] = [{"kind": p.kind, "text": p.text} for p in split_markup(text)]
    return {**block, "parts": parts}


def block_parts(block: Mapping[str, Any]) -> list[MarkupPart] | None:
    """The parts the reader found in a text block, or None when it holds no markup."""
    parts = block.get("parts")
    if not isinstance(parts, list):
        return None
    return [
        MarkupPart(str(p.get("kind")), str(p.get("text")))
        for p in parts
        if isinstance(p, dict) and isinstance(p.get("text"), str)
    ]


def content_parts(content: Any) -> list[MarkupPart] | None:
    """Every part of a content's text blocks in order (plain blocks as ``text``); None without markup."""
    if not isinstance(content, list):
        return None
    found: list[MarkupPart] = []
    marked = False
    for block in content:
        if not isinstance(block, Mapping) or block.get("type") != "text":
            continue
        parts = block_parts(block)
        marked = marked or parts is not None
        text = block.get("text")
        found.extend(
            parts if parts is not None else [MarkupPart("text", text if isinstance(text, str) else "")]
        )
    return found if marked else None


def typed_content(content: Any) -> str:
    """What a person typed in a message's content: the text, its parsed markup left out."""
    if isinstance(content, str):
        return "" if is_injected(content) else content.strip()
    parts = content_parts(content)
    if parts is None:
        text = text_of(content)
        return "" if is_injected(text) else text.strip()
    return "\n".join(
        p.text.strip("\n") for p in parts if p.kind == "text" and p.text.strip() and not is_injected(p.text)
    ).strip()
