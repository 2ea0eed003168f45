"""Render one entry to (meta, fragment): the single renderer behind export, live viewer and site."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from sessiontree.exporter.ansi import strip_ansi
from sessiontree.exporter.blocks import (
    artifact_ref,
    join_text_blocks,
    pretty_json,
    render_image_tag,
    render_note,
    render_output,
    render_truncation_note,
)
from sessiontree.exporter.highlight import lexer_by_name
from sessiontree.exporter.images import ImageRegistry
from sessiontree.exporter.markdown import render_markdown
from sessiontree.exporter.templating import MacroSet
from sessiontree.exporter.tools import args_search_text, render_call, render_result
from sessiontree.store.numbers import amount_of, count_of
from sessiontree.store.tree import apply_label

PREVIEW_CHARS = 120
Meta = dict[str, Any]


@dataclass
class RenderContext:
    """What rendering one entry needs from the rest of the session (small; kept by a live viewer)."""

    labels: dict[str, str] = field(default_factory=dict)
    images: ImageRegistry = field(default_factory=ImageRegistry)
    calls: dict[str, tuple[str, Any]] = field(default_factory=dict)

    @classmethod
    def for_entries(cls, entries: Iterable[Mapping[str, Any]], labels: Mapping[str, str]) -> RenderContext:
        """Build a context indexing every tool call of the entries (results render by their call)."""
        ctx = cls(labels=dict(labels))
        for entry in entries:
            ctx.register(entry)
        return ctx

    def register(self, entry: Mapping[str, Any]) -> None:
        """Index the tool calls (and a label) of one entry, as a live viewer does for appended entries."""
        if apply_label(self.labels, entry):
            return
        message = entry.get("message")
        if entry.get("type") != "message" or not isinstance(message, Mapping):
            return
        if message.get("role") != "assistant" or not isinstance(message.get("content"), list):
            return
        for block in message["content"]:
            if (
                isinstance(block, Mapping)
                and block.get("type") == "toolCall"
                and isinstance(block.get("id"), str)
            ):
                name = block.get("name")
                self.calls[block["id"]] = (name if isinstance(name, str) else "tool", block.get("arguments"))


def one_line(text: str, limit: int = PREVIEW_CHARS) -> str:
    """Return the first ``limit`` characters of text on one line (whitespace collapsed)."""
    return " ".join(strip_ansi(text[: limit * 3]).split())[:limit]


def format_ts(ts: Any) -> str:
    """Return an ISO timestamp as ``YYYY-MM-DD HH:MM:SS`` (other values as given)."""
    if isinstance(ts, str):
        return ts[:19].replace("T", " ") if len(ts) >= 19 and ts[10:11] == "T" else ts[:40]
    return ""


MACROS = MacroSet("macros.html.j2")


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


# --- message content ------------------------------------------------------------------------


def _content_blocks(content: Any, ctx: RenderContext) -> tuple[Markup, str]:
    """Render user/custom content (text as markdown, images by reference); return (html, text)."""
    m = MACROS
    if isinstance(content, str):
        return m.text(render_markdown(content)), content
    if not isinstance(content, list):
        return Markup(""), ""
    parts: list[Markup] = []
    texts: list[str] = []
    for block in content:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind == "text":
            text = _str(block.get("text"))
            texts.append(text)
            parts.append(m.text(render_markdown(text)))
        elif kind == "image":
            ref = ctx.images.add(block.get("data"), block.get("mimeType"))
            parts.append(render_image_tag(ref.sha, "image") if ref.sha else render_note(ref.note or "image"))
        else:
            parts.append(m.raw_json(pretty_json(block)))
    return Markup("").join(parts), "\n".join(texts)


def _usage(message: Mapping[str, Any]) -> Markup:
    usage = message.get("usage")
    model = _str(message.get("model"))
    if not isinstance(usage, Mapping):
        return MACROS.usage(model, 0, 0, 0, 0, 0) if model else Markup("")
    cost = usage.get("cost")
    total = cost.get("total") if isinstance(cost, Mapping) else None
    return MACROS.usage(
        model,
        count_of(usage.get("input")),
        count_of(usage.get("output")),
        count_of(usage.get("cacheRead")),
        count_of(usage.get("cacheWrite")),
        amount_of(total),
    )


def _assistant(
    entry: Mapping[str, Any], message: Mapping[str, Any], ctx: RenderContext, meta: Meta
) -> Markup:
    m = MACROS
    parts: list[Markup] = []
    preview = ""
    calls: list[str] = []
    content = message.get("content")
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind == "text":
            text = _str(block.get("text"))
            preview = preview or text
            parts.append(m.text(render_markdown(text)))
        elif kind == "thinking":
            parts.append(m.thinking(render_markdown(_str(block.get("thinking")))))
        elif kind == "redactedThinking":
            parts.append(render_note("thinking redacted by the provider", "redacted"))
        elif kind == "toolCall":
            call_id, name = _str(block.get("id")), _str(block.get("name")) or "tool"
            calls.append(call_id)
            preview = preview or f"{name} {args_search_text(block.get('arguments'))}"
            parts.append(render_call(call_id, name, block.get("arguments")))
        elif kind == "image":
            ref = ctx.images.add(block.get("data"), block.get("mimeType"))
            parts.append(render_image_tag(ref.sha) if ref.sha else render_note(ref.note or "image"))
        else:
            parts.append(m.raw_json(pretty_json(block)))
    stop = message.get("stopReason")
    if stop == "aborted":
        parts.append(m.state("aborted", "Aborted", _str(message.get("errorMessage"))))
    elif stop == "error":
        meta["error"] = True
        parts.append(m.state("error", "Error", _str(message.get("errorMessage"))))
    if calls:
        meta["calls"] = calls
    meta["preview"] = one_line(preview or _str(message.get("errorMessage")) or str(stop or ""))
    parts.append(_usage(message))
    return Markup("").join(parts)


def _tool_result(message: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> Markup:
    call_id = _str(message.get("toolCallId"))
    name, args = ctx.calls.get(call_id, (_str(message.get("toolName")) or "tool", None))
    meta["result"] = call_id
    if message.get("isError"):
        meta["error"] = True
    meta["preview"] = one_line(f"{name}: {join_text_blocks(message.get('content'))}")
    return render_result(call_id, name, args, message, ctx.images)


def _execution(message: Mapping[str, Any], kind: str, meta: Meta) -> Markup:
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


def _summary_body(kind: str, title: str, summary: str, meta: Meta, tokens: Any = None) -> Markup:
    meta["preview"] = one_line(summary)
    tokens_before = tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else None
    return MACROS.summary(kind, title, render_markdown(summary), tokens_before)


# --- entry kinds -----------------------------------------------------------------------------

# (cat, role shown in the head, body) for each message role
Render = Callable[[Mapping[str, Any], RenderContext, Meta], tuple[str, str, Markup]]


def _message(entry: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> tuple[str, str, Markup]:
    message = entry.get("message")
    if not isinstance(message, Mapping):
        return _unknown(entry, ctx, meta)
    role = _str(message.get("role"))
    meta["role"] = role
    if role == "user":
        body, text = _content_blocks(message.get("content"), ctx)
        meta["preview"] = one_line(text) or "(image)"
        return "user", "User", body
    if role == "assistant":
        return "assistant", "Assistant", _assistant(entry, message, ctx, meta)
    if role == "toolResult":
        return "tool", "Tool result", _tool_result(message, ctx, meta)
    if role == "bashExecution":
        return "tool", "Bash", _execution(message, "bash", meta)
    if role == "pythonExecution":
        return "tool", "Python", _execution(message, "python", meta)
    if role in ("custom", "hookMessage"):
        body, text = _content_blocks(message.get("content"), ctx)
        meta["preview"] = one_line(text)
        cat = "custom" if message.get("display", True) is not False else "meta"
        return cat, _str(message.get("customType")) or "Custom", body
    if role == "branchSummary":
        return (
            "summary",
            "Branch summary",
            _summary_body("branch", "Branch summary", _str(message.get("summary")), meta),
        )
    if role == "compactionSummary":
        summary, tokens = _str(message.get("summary")), message.get("tokensBefore")
        return "summary", "Compaction", _summary_body("compaction", "Compaction", summary, meta, tokens)
    return _unknown(entry, ctx, meta)


def _compaction(entry: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> tuple[str, str, Markup]:
    summary, tokens = _str(entry.get("summary")), entry.get("tokensBefore")
    return "summary", "Compaction", _summary_body("compaction", "Compaction summary", summary, meta, tokens)


def _branch_summary(entry: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> tuple[str, str, Markup]:
    return (
        "summary",
        "Branch summary",
        _summary_body("branch", "Branch summary", _str(entry.get("summary")), meta),
    )


def _custom_message(entry: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> tuple[str, str, Markup]:
    body, text = _content_blocks(entry.get("content"), ctx)
    meta["preview"] = one_line(text)
    cat = "custom" if entry.get("display") is True else "meta"
    return cat, _str(entry.get("customType")) or "Custom message", body


def _notice(text: str, meta: Meta) -> Markup:
    meta["preview"] = one_line(text)
    return MACROS.notice(text)


def _model_change(entry: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> tuple[str, str, Markup]:
    model = _str(entry.get("model")) or "/".join(
        p for p in (_str(entry.get("provider")), _str(entry.get("modelId"))) if p
    )
    role = _str(entry.get("role"))
    text = f"Model: {model}" + (f" ({role})" if role and role != "default" else "")
    return "notice", "Model", _notice(text, meta)


def _thinking_change(entry: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> tuple[str, str, Markup]:
    return "notice", "Thinking", _notice(f"Thinking level: {_str(entry.get('thinkingLevel')) or 'off'}", meta)


def _mode_change(entry: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> tuple[str, str, Markup]:
    return "notice", "Mode", _notice(f"Mode: {_str(entry.get('mode')) or 'none'}", meta)


def _label(entry: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> tuple[str, str, Markup]:
    label, target = _str(entry.get("label")), _str(entry.get("targetId"))
    text = f"Label “{label}” on {target}" if label else f"Label cleared on {target}"
    return "meta", "Label", _notice(text, meta)


def _session_init(entry: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> tuple[str, str, Markup]:
    m = MACROS
    prompt, task = _str(entry.get("systemPrompt")), _str(entry.get("task"))
    parts = [m.summary("system", "System prompt", render_output(prompt, kind="text"))] if prompt else []
    if task:
        parts.append(m.text(render_markdown(task)))
    tools = entry.get("tools")
    if isinstance(tools, list) and tools:
        names = [
            t if isinstance(t, str) else _str(t.get("name")) if isinstance(t, Mapping) else "" for t in tools
        ]
        parts.append(m.notice("Tools: " + ", ".join(n for n in names if n)))
    meta["preview"] = one_line(task or prompt or "session init")
    return "meta", "Session init", Markup("").join(parts)


def _ttsr(entry: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> tuple[str, str, Markup]:
    rules = entry.get("injectedRules")
    names = [str(r) for r in rules] if isinstance(rules, list) else []
    return "meta", "Rules injected", _notice("Injected rules: " + ", ".join(names), meta)


def _custom(entry: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> tuple[str, str, Markup]:
    custom_type = _str(entry.get("customType")) or "custom"
    meta["preview"] = one_line(custom_type)
    return (
        "meta",
        custom_type,
        MACROS.raw_json(pretty_json(entry.get("data"))),
    )


def _unknown(entry: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> tuple[str, str, Markup]:
    text = pretty_json(entry)
    meta["preview"] = one_line(f"{_str(entry.get('type')) or 'entry'} {text}")
    return "unknown", _str(entry.get("type")) or "Unknown", render_output(text, kind="json")


RENDERERS: dict[str, Render] = {
    "message": _message,
    "compaction": _compaction,
    "branch_summary": _branch_summary,
    "custom_message": _custom_message,
    "model_change": _model_change,
    "thinking_level_change": _thinking_change,
    "mode_change": _mode_change,
    "label": _label,
    "session_init": _session_init,
    "ttsr_injection": _ttsr,
    "custom": _custom,
}


def render_entry(entry: Mapping[str, Any], ctx: RenderContext, *, parent_id: Any = ...) -> tuple[Meta, str]:
    """Return (meta, fragment) for one entry: the ``entries`` item and ``<article>`` of the contract.

    ``parent_id`` overrides the entry's own ``parentId`` (the tree's effective parent).
    """
    entry_id = _str(entry.get("id"))
    entry_type = _str(entry.get("type"))
    meta: Meta = {
        "id": entry_id,
        "parentId": entry.get("parentId") if parent_id is ... else parent_id,
        "type": entry_type,
    }
    if not isinstance(meta["parentId"], str):
        meta["parentId"] = None
    cat, role, body = RENDERERS.get(entry_type, _unknown)(entry, ctx, meta)
    meta["cat"] = cat
    label = ctx.labels.get(entry_id)
    if label:
        meta["label"] = label
    ts = entry.get("timestamp")
    if isinstance(ts, str):
        meta["ts"] = ts
    meta.setdefault("preview", "")
    html = MACROS.entry(entry_id, cat, role, ts if isinstance(ts, str) else "", format_ts(ts), label, body)
    return meta, str(html)


def render_appended_entry(
    entry: Mapping[str, Any], ctx: RenderContext, *, parent_id: Any = ...
) -> tuple[Meta, str, dict[str, str]]:
    """Render one entry appended to a live session: (meta, fragment, images new since the last call).

    The triple is what ``window.sessiontree.appendEntry(meta, html, images)`` takes.
    """
    ctx.register(entry)
    meta, html = render_entry(entry, ctx, parent_id=parent_id)
    return meta, html, ctx.images.take_new()
