"""The bodies of a command or code execution and of a compaction or branch summary."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

from sessiontree.exporter.blocks import (
    MACROS,
    Meta,
    artifact_ref,
    one_line,
    render_output,
    render_truncation_note,
)
from sessiontree.exporter.blocks import text_of as _str
from sessiontree.exporter.highlight import lexer_by_name
from sessiontree.exporter.markdown import render_markdown


def execution_body(message: Mapping[str, Any], kind: str, meta: Meta) -> Markup:
    if kind == "python":
        source = _str(message.get("code"))
        source_html = render_output(source, lexer=lexer_by_name("python"), kind="code")
    else:
        source = _str(message.get("command"))
        source_html = render_output("$ " + source, kind="cmd")
    output = _str(message.get("output"))
    exit_code = message.get("exitCode")
    artifact = artifact_ref(dict(message))
    meta["preview"] = one_line(source)
    if isinstance(exit_code, int) and exit_code != 0:
        meta["error"] = True
    return MACROS.execution(
        kind,
        source_html,
        render_output(output, ansi=True, kind="exec") if output else Markup(""),
        exit_code if isinstance(exit_code, int) else None,
        bool(message.get("cancelled")),
        render_truncation_note(artifact) if message.get("truncated") else Markup(""),
    )


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def summary_body(
    kind: str,
    title: str,
    summary: str,
    meta: Meta,
    tokens: Any = None,
    holder: Mapping[str, Any] | None = None,
) -> Markup:
    """A collapsed summary; ``holder`` adds what a compaction records (after, method, warning, tail)."""
    holder = holder or {}
    short = _str(holder.get("shortSummary"))
    meta["preview"] = one_line(short or summary)
    facts: list[str] = []
    after = _count(holder.get("tokensAfter"))
    if after is not None:
        facts.append(f"{after:,} tokens after")
    if _str(holder.get("method")):
        facts.append(f"method: {holder['method']}")
    tail = holder.get("retainedTail")
    if isinstance(tail, list):
        facts.append(f"{len(tail)} message{'' if len(tail) == 1 else 's'} kept verbatim")
    warning = _str(holder.get("warning"))
    return MACROS.summary(
        kind, title, render_markdown(summary), _count(tokens), short=short, facts=facts, warning=warning
    )
