"""Render one entry to (meta, fragment): the single renderer behind export, live viewer and site."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from markupsafe import Markup

from sessiontree.exporter.blocks import (
    MACROS,
    Meta,
    format_ts,
    join_text_blocks,
    one_line,
    pretty_json,
    render_image_tag,
    render_note,
    render_output,
)
from sessiontree.exporter.blocks import text_of as _str
from sessiontree.exporter.bodies import execution_body, summary_body
from sessiontree.exporter.context import RenderContext
from sessiontree.exporter.kinds import ROLES, shows
from sessiontree.exporter.markdown import render_markdown
from sessiontree.exporter.markup import markup_role, render_user_block
from sessiontree.exporter.notices import NOTICE_RENDERERS, render_kind
from sessiontree.exporter.tools import args_search_text, call_target, render_call, render_result
from sessiontree.store.claude_markup import block_parts, content_parts, describe_parts
from sessiontree.store.kinds import is_typed_prompt, kind_of
from sessiontree.store.numbers import amount_of, count_of
from sessiontree.store.pricing import usage_cost
from sessiontree.store.session import Session
from sessiontree.store.subagents import task_agent_ids

__all__ = [
    "Meta",
    "RenderContext",
    "entry_inputs",
    "format_ts",
    "one_line",
    "render_appended_entry",
    "render_entry",
]


# --- message content ------------------------------------------------------------------------


def _content_blocks(content: Any, ctx: RenderContext, *, user: bool = False) -> tuple[Markup, str]:
    """Render user/custom content (text as markdown, images by reference); return (html, text).

    ``user``: wrapper markup in the text (slash commands, IDE context) is shown as what it is.
    """
    m = MACROS
    if isinstance(content, str):
        return m.text(render_markdown(content), content), content
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
            parts.append(render_user_block(text, block_parts(block) if user else None))
        elif kind == "image":
            ref = ctx.images.add(block.get("data"), block.get("mimeType"))
            parts.append(render_image_tag(ref.sha, "image") if ref.sha else render_note(ref.note or "image"))
        else:
            parts.append(m.raw_json(pretty_json(block)))
    return Markup("").join(parts), "\n".join(texts)


def _file_mention(message: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> Markup:
    """The files an @mention attached: each path, its text (as an output block) or its image."""
    parts: list[Markup] = []
    paths: list[str] = []
    files = message.get("files")
    for file in files if isinstance(files, list) else []:
        if not isinstance(file, Mapping):
            continue
        path = _str(file.get("path")) or "(file)"
        paths.append(path)
        content = render_output(_str(file.get("content")), kind="file") if file.get("content") else Markup("")
        image = file.get("image")
        if isinstance(image, Mapping):
            ref = ctx.images.add(image.get("data"), image.get("mimeType"))
            content += render_image_tag(ref.sha, path) if ref.sha else render_note(ref.note or "image")
        parts.append(MACROS.file_mention(path, content))
    meta["preview"] = one_line("Files: " + ", ".join(paths))
    return Markup("").join(parts)


def _usage(message: Mapping[str, Any], when: object) -> Markup:
    usage = message.get("usage")
    model = _str(message.get("model"))
    if not isinstance(usage, Mapping):
        return MACROS.usage(model, 0, 0, 0, 0, 0) if model else Markup("")
    # The header's rule (store.pricing): the recorded cost, else an estimate marked as one.
    cost = usage_cost(usage, message.get("provider"), message.get("model"), when)
    return MACROS.usage(
        model,
        count_of(usage.get("input")),
        count_of(usage.get("output")),
        count_of(usage.get("cacheRead")),
        count_of(usage.get("cacheWrite")),
        amount_of(cost.amount),
        cost.estimated,
    )


def _assistant(
    entry: Mapping[str, Any], message: Mapping[str, Any], ctx: RenderContext, meta: Meta
) -> Markup:
    m = MACROS
    parts: list[Markup] = []
    preview = ""
    calls: list[str] = []
    tools: list[str] = []
    content = message.get("content")
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind == "text":
            text = _str(block.get("text"))
            preview = preview or text
            parts.append(m.text(render_markdown(text), text))
        elif kind == "thinking" and block.get("redacted") is True:
            parts.append(render_note("thinking redacted", "redacted"))
        elif kind == "thinking":
            parts.append(m.thinking(render_markdown(_str(block.get("thinking")))))
        elif kind == "redactedThinking":
            parts.append(render_note("thinking redacted", "redacted"))
        elif kind == "fallback":
            parts.append(_fallback(block))
        elif kind == "anthropicServerTool":
            parts.append(_server_tool(block))
        elif kind == "toolCall":
            call_id, name = _str(block.get("id")), _str(block.get("name")) or "tool"
            calls.append(call_id)
            tools.append(name)
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
    elif stop == "length":
        parts.append(m.state("length", "Stopped: output token limit", _str(message.get("errorMessage"))))
    elif stop == "error":
        meta["error"] = True
        parts.append(m.state("error", "Error", _str(message.get("errorMessage"))))
    if calls:
        meta["calls"] = calls
        meta["tools"] = tools
    meta["preview"] = one_line(preview or _str(message.get("errorMessage")) or str(stop or ""))
    parts.append(_usage(message, entry.get("timestamp")))
    return Markup("").join(parts)


def _model_name(value: Any) -> str:
    return _str(value.get("model")) if isinstance(value, Mapping) else _str(value)


def _fallback(block: Mapping[str, Any]) -> Markup:
    """Anthropic's server-side fallback marker: the request was served by another model."""
    source, target = _model_name(block.get("from")), _model_name(block.get("to"))
    text = f"Fallback: {source or 'the requested model'} → {target or 'another model'}"
    return render_note(text, "fallback")


def _server_tool(block: Mapping[str, Any]) -> Markup:
    """An Anthropic server-side tool call or result (web search, tool search), kept for replay."""
    inner = block.get("block")
    inner = inner if isinstance(inner, Mapping) else {}
    kind = _str(inner.get("type"))
    if kind == "server_tool_use":
        name = _str(inner.get("name")) or "server tool"
        return MACROS.server_tool(
            f"{name} (server tool)", render_output(pretty_json(inner.get("input")), kind="json")
        )
    results = inner.get("content")
    lines = []
    if isinstance(results, Mapping):  # one result (a fetch, a code run): its address, then its output
        lines = [t for k in ("url", "title", "stdout", "stderr", "error_code") if (t := _str(results.get(k)))]
    for item in results if isinstance(results, list) else []:
        if isinstance(item, Mapping):
            # encrypted_content is opaque provider data: never shown.
            lines.append(
                " ".join(p for p in (_str(item.get("title")), _str(item.get("url"))) if p) or "(result)"
            )
    title = (kind or "server tool result").replace("_", " ")
    return MACROS.server_tool(title, render_output("\n".join(lines) or pretty_json(results), kind="text"))


def _tool_result(message: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> Markup:
    call_id = _str(message.get("toolCallId"))
    name, args = ctx.calls.get(call_id, (_str(message.get("toolName")) or "tool", None))
    meta["result"] = call_id
    if message.get("isError"):
        meta["error"] = True
    # The tree row names the call (tool and target), not the output's first line.
    target = call_target(name, args) if args is not None else join_text_blocks(message.get("content"))
    meta["preview"] = one_line(f"{name} {target}")
    html = render_result(call_id, name, args, message, ctx.images)
    nested = Markup("").join(_subagent(agent_id, ctx) for agent_id in embedded_agents(message, ctx))
    agent_id = linked_agent(message, ctx)
    href = ctx.subagent_href(agent_id) if agent_id is not None and ctx.subagent_href is not None else None
    if href:
        nested += MACROS.subagent_link(href)
    if (page := ctx.child_session_page(message)) is not None:
        nested += MACROS.child_session_link(page)
    # Inside the result block, so the transcript moves with the result into its call.
    return Markup(str(html)[: -len("</div>")] + str(nested) + "</div>") if nested else html


def embedded_agents(message: Mapping[str, Any], ctx: RenderContext) -> list[str]:
    """The agent ids of the subagent sessions a task result embeds (oh-my-pi)."""
    if not ctx.subagents.embedded:
        return []
    return [a for a in task_agent_ids(message.get("details")) if a in ctx.subagents]


def linked_agent(message: Mapping[str, Any], ctx: RenderContext) -> str | None:
    """The agent id of a Claude Code Task result whose transcript gets its own page (serve, build).

    None in an export (no ``subagent_href``) and when the reader found no transcript of that id.
    """
    if ctx.subagent_href is None or ctx.subagents.embedded or ctx.depth:
        return None
    details = message.get("details")
    agent_id = details.get("agentId") if isinstance(details, Mapping) else None
    return agent_id if isinstance(agent_id, str) and agent_id in ctx.subagents else None


_LINK_BUTTON = ' <button class="st-link" type="button" title="Copy link" aria-label="Copy link">#</button>'
MAX_SUBAGENT_DEPTH = 4


def _subagent(agent_id: str, ctx: RenderContext) -> Markup:
    """A subagent's session, collapsed under the task that ran it: its active path, same renderer."""
    if ctx.depth >= MAX_SUBAGENT_DEPTH:
        return Markup("")
    session = ctx.subagents.get(agent_id)
    if session is None:
        return render_note(f"subagent {agent_id}: transcript unreadable")
    sub = RenderContext.for_session(session, depth=ctx.depth + 1)
    sub.images = ctx.images  # one image map for the page
    parts: list[str] = []
    count = 0
    for entry in session.path_entries():
        meta, html = render_entry(entry, sub, parent_id=session.tree.parent_of(entry["id"]))
        if meta["cat"] == "meta":
            continue
        count += 1
        # Nested entries are not the page's entries: no id the viewer would look up, no link.
        parts.append(html.replace(' data-id="', ' data-sub-id="', 1).replace(_LINK_BUTTON, "", 1))
    title = f"Subagent {agent_id}" + (f": {session.title}" if session.title else "")
    href = ctx.subagent_href(agent_id) if ctx.subagent_href is not None and ctx.depth == 0 else None
    return MACROS.subagent(title, count, Markup("".join(parts)), href)


# --- entry kinds -----------------------------------------------------------------------------

# (cat, role shown in the head, body) for each message role
Render = Callable[[Mapping[str, Any], RenderContext, Meta], tuple[str, str, Markup]]


def _message(entry: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> tuple[str, str, Markup]:
    message = entry.get("message")
    if not isinstance(message, Mapping):
        return _unknown(entry, ctx, meta)
    role = _str(message.get("role"))
    meta["role"] = role
    kind = ROLES.get(role)
    if kind is None or kind.show is None:
        return _unknown(entry, ctx, meta)
    return kind.show(entry, message, ctx, meta)


@shows("user")
def _user(
    entry: Mapping[str, Any], message: Mapping[str, Any], ctx: RenderContext, meta: Meta
) -> tuple[str, str, Markup]:
    body, text = _content_blocks(message.get("content"), ctx, user=True)
    found = content_parts(message.get("content"))
    meta["preview"] = one_line(text.strip() if found is None else describe_parts(found)) or "(image)"
    if is_typed_prompt(entry):
        meta["prompt"] = True
    head = markup_role(found)
    if head == "Interrupted":
        return "notice", head, body
    return "user", head or "User", body


@shows("developer")
def _developer(
    entry: Mapping[str, Any], message: Mapping[str, Any], ctx: RenderContext, meta: Meta
) -> tuple[str, str, Markup]:
    body, text = _content_blocks(message.get("content"), ctx)
    meta["preview"] = one_line(text)
    return "custom", "Developer", body


@shows("fileMention")
def _files(
    entry: Mapping[str, Any], message: Mapping[str, Any], ctx: RenderContext, meta: Meta
) -> tuple[str, str, Markup]:
    return "custom", "Files", _file_mention(message, ctx, meta)


@shows("assistant")
def _assistant_message(
    entry: Mapping[str, Any], message: Mapping[str, Any], ctx: RenderContext, meta: Meta
) -> tuple[str, str, Markup]:
    return "assistant", "Assistant", _assistant(entry, message, ctx, meta)


@shows("toolResult")
def _tool_result_message(
    entry: Mapping[str, Any], message: Mapping[str, Any], ctx: RenderContext, meta: Meta
) -> tuple[str, str, Markup]:
    return "tool", "Tool result", _tool_result(message, ctx, meta)


@shows("bashExecution", "pythonExecution")
def _execution_message(
    entry: Mapping[str, Any], message: Mapping[str, Any], ctx: RenderContext, meta: Meta
) -> tuple[str, str, Markup]:
    if message.get("role") == "pythonExecution":
        return "tool", "Python", execution_body(message, "python", meta)
    return "tool", "Bash", execution_body(message, "bash", meta)


@shows("custom", "hookMessage")
def _custom(
    entry: Mapping[str, Any], message: Mapping[str, Any], ctx: RenderContext, meta: Meta
) -> tuple[str, str, Markup]:
    body, text = _content_blocks(message.get("content"), ctx)
    meta["preview"] = one_line(text)
    cat = "custom" if message.get("display", True) is not False else "meta"
    return cat, _str(message.get("customType")) or "Custom", body


@shows("branchSummary")
def _branch_summary_message(
    entry: Mapping[str, Any], message: Mapping[str, Any], ctx: RenderContext, meta: Meta
) -> tuple[str, str, Markup]:
    summary = _str(message.get("summary"))
    return "summary", "Branch summary", summary_body("branch", "Branch summary", summary, meta)


@shows("compactionSummary")
def _compaction_summary_message(
    entry: Mapping[str, Any], message: Mapping[str, Any], ctx: RenderContext, meta: Meta
) -> tuple[str, str, Markup]:
    summary, tokens = _str(message.get("summary")), message.get("tokensBefore")
    return "summary", "Compaction", summary_body("compaction", "Compaction", summary, meta, tokens)


def _compaction(entry: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> tuple[str, str, Markup]:
    summary, tokens = _str(entry.get("summary")), entry.get("tokensBefore")
    body = summary_body("compaction", "Compaction summary", summary, meta, tokens, entry)
    return "summary", "Compaction", body


def _branch_summary(entry: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> tuple[str, str, Markup]:
    return (
        "summary",
        "Branch summary",
        summary_body("branch", "Branch summary", _str(entry.get("summary")), meta),
    )


def _custom_message(entry: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> tuple[str, str, Markup]:
    row = kind_of(entry)
    if row is not None:
        return render_kind(row, entry, meta)
    body, text = _content_blocks(entry.get("content"), ctx)
    meta["preview"] = one_line(text)
    cat = "custom" if entry.get("display") is True else "meta"
    return cat, _str(entry.get("customType")) or "Custom message", body


def _unknown(entry: Mapping[str, Any], ctx: RenderContext, meta: Meta) -> tuple[str, str, Markup]:
    text = pretty_json(entry)
    meta["preview"] = one_line(f"{_str(entry.get('type')) or 'entry'} {text}")
    return "unknown", _str(entry.get("type")) or "Unknown", render_output(text, kind="json")


RENDERERS: dict[str, Render] = {
    "message": _message,
    "compaction": _compaction,
    "branch_summary": _branch_summary,
    "custom_message": _custom_message,
    **NOTICE_RENDERERS,
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
    joint = ctx.joints.get(entry_id)
    if joint is not None:
        meta["lost"] = joint
        body = MACROS.lost(joint) + body
    if entry_id in ctx.archived:
        meta["archived"] = True
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


def entry_inputs(entry: Mapping[str, Any], ctx: RenderContext, *, parent_id: Any) -> list[Any]:
    """Return everything ``render_entry`` reads for this entry: a cache key's content.

    A task result's embedded subagents count with all they hold (theirs too), and a subagent's
    link with its URL (serve's route, build's relative path), so every entry is cacheable.
    """
    entry_id = _str(entry.get("id"))
    message = entry.get("message")
    call: Any = None
    agents: list[Any] = []
    if isinstance(message, Mapping) and message.get("role") == "toolResult":
        call = ctx.calls.get(_str(message.get("toolCallId")))
        href = ctx.subagent_href if ctx.depth == 0 else None
        for agent_id in embedded_agents(message, ctx):
            agents.append(
                [
                    agent_id,
                    href(agent_id) if href else None,
                    _content(ctx.subagents.get(agent_id), ctx.depth + 1),
                ]
            )
        linked = linked_agent(message, ctx)
        if linked is not None:
            agents.append([linked, href(linked) if href else None])
        if (page := ctx.child_session_page(message)) is not None:
            agents.append(page)
    return [
        entry,
        parent_id,
        call,
        ctx.labels.get(entry_id),
        ctx.joints.get(entry_id),
        entry_id in ctx.archived,
        ctx.depth,
        agents,
    ]


def _content(session: Session | None, depth: int) -> list[Any] | None:
    """All that a subagent's nested transcript is rendered from (its own subagents' too)."""
    if session is None or depth > MAX_SUBAGENT_DEPTH:
        return None
    subs = session.subagents
    nested = [[a, _content(subs.get(a), depth + 1)] for a in subs.ids()] if subs.embedded else []
    return [session.header, session.entries, session.joints, session.title_slot, session.leaf_id, nested]


def render_appended_entry(
    entry: Mapping[str, Any], ctx: RenderContext, *, parent_id: Any = ...
) -> tuple[Meta, str, dict[str, str]]:
    """Render one entry appended to a live session: (meta, fragment, images new since the last call).

    The triple is what ``window.sessiontree.appendEntry(meta, html, images)`` takes.
    """
    ctx.register(entry)
    meta, html = render_entry(entry, ctx, parent_id=parent_id)
    ctx.images.take_seen()  # only a whole render gathers images by entry
    return meta, html, ctx.images.take_new()
