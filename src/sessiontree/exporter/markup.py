"""User text holding Claude Code's wrapper markup, shown as what it is (see ``store.claude_markup``).

The reader parsed the markup when it read the session (a text block's ``parts``); nothing here
parses it again.

A slash command becomes a command chip with its output under it, IDE context a collapsed chip,
reminders and caveats addressed to the model a collapsed note, an interruption a notice. Every
string goes through the templates' autoescape or ``render_output``: no tag reaches the page.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup

from sessiontree.exporter.blocks import MACROS, one_line, render_output
from sessiontree.exporter.markdown import render_markdown
from sessiontree.store.claude_markup import (
    COMMAND_TAGS,
    CONTEXT_TAGS,
    OUTPUT_TAGS,
    MarkupPart,
    command_of,
)

_CONTEXT_LABELS = {
    "ide_selection": "IDE selection",
    "ide_opened_file": "Opened in IDE",
    "ide_diagnostics": "IDE diagnostics",
}
_NOTE_LABELS = {
    "local-command-caveat": "Note to the model",
    "system-reminder": "System reminder",
    "user-prompt-submit-hook": "Prompt hook output",
}


def render_user_block(text: str, parts: Sequence[MarkupPart] | None) -> Markup:
    """A user text block as HTML: markdown for what was typed, chips and notices for the markup
    the reader found in it (``parts``; None: plain text)."""
    if parts is None:
        return MACROS.text(render_markdown(text), text)
    parts = list(parts)
    html: list[Markup] = []
    command_done = False
    for part in parts:
        if part.kind == "text":
            html.append(MACROS.text(render_markdown(part.text), part.text.strip()))
        elif part.kind in COMMAND_TAGS:
            if not command_done:
                html.append(MACROS.command_chip("Command", command_of(parts)))
                command_done = True
        elif part.kind == "bash-input":
            html.append(MACROS.command_chip("Bash", "! " + part.text.strip()))
        elif part.kind in OUTPUT_TAGS:
            html.append(_output(part))
        elif part.kind in CONTEXT_TAGS:
            html.append(
                MACROS.context_chip(_CONTEXT_LABELS[part.kind], one_line(part.text, 100), _body(part))
            )
        elif part.kind == "interrupted":
            html.append(MACROS.interrupted(part.text))
        else:
            html.append(MACROS.context_chip(_NOTE_LABELS.get(part.kind, part.kind), "", _body(part)))
    return Markup("").join(html)


def markup_role(parts: Sequence[MarkupPart] | None) -> str | None:
    """The head of a user entry that holds no typed text: ``Command``, ``Interrupted``, or None."""
    if parts is None:
        return None
    kinds = {p.kind for p in parts}
    if "text" in kinds:
        return None
    if kinds <= {"interrupted"}:
        return "Interrupted"
    if kinds & (COMMAND_TAGS | OUTPUT_TAGS | {"bash-input"}):
        return "Command"
    return "Context"


def _output(part: MarkupPart) -> Markup:
    text = part.text.strip("\n")
    if not text.strip():
        return Markup("")
    return MACROS.command_output(render_output(text, ansi=True, kind="exec"), part.kind.endswith("stderr"))


def _body(part: MarkupPart) -> Markup:
    text = part.text.strip("\n")
    return render_output(text, kind="text") if text.strip() else Markup("")
