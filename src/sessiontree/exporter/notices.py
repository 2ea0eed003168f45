"""Renderers of the entry kinds that are notices or bookkeeping: model and level changes, labels,
titles, resets, archives, extra model calls, service tiers, credential pins, init and rules.

Each returns (cat, role shown in the head, body) like the message renderers of ``render``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from markupsafe import Markup

from sessiontree.exporter.blocks import MACROS, Meta, one_line, pretty_json, render_output
from sessiontree.exporter.blocks import text_of as _str
from sessiontree.exporter.markdown import render_markdown
from sessiontree.exporter.markup import render_user_block
from sessiontree.store.claude_markup import content_parts, describe_parts
from sessiontree.store.content import text_of as content_text
from sessiontree.store.context import thinking_level_of
from sessiontree.store.kinds import LineKind, kind_of
from sessiontree.store.numbers import count_of

Rendered = tuple[str, str, Markup]
NoticeRender = Callable[[Mapping[str, Any], Any, Meta], Rendered]


def notice(text: str, meta: Meta) -> Markup:
    """Return a one-line notice body, its text also the tree preview."""
    meta["preview"] = one_line(text)
    return MACROS.notice(text)


def _model_change(entry: Mapping[str, Any], ctx: Any, meta: Meta) -> Rendered:
    model = _str(entry.get("model")) or "/".join(
        p for p in (_str(entry.get("provider")), _str(entry.get("modelId"))) if p
    )
    role = _str(entry.get("role"))
    notes = [role] if role and role != "default" else []
    if entry.get("resolvedModelIsFallback") is True and role != "fallback":
        notes.append("fallback")
    text = f"Model: {model}" + (f" ({', '.join(notes)})" if notes else "")
    return "notice", "Model", notice(text, meta)


def _thinking_change(entry: Mapping[str, Any], ctx: Any, meta: Meta) -> Rendered:
    return "notice", "Thinking", notice(f"Thinking level: {thinking_level_of(dict(entry))}", meta)


def _mode_change(entry: Mapping[str, Any], ctx: Any, meta: Meta) -> Rendered:
    return "notice", "Mode", notice(f"Mode: {_str(entry.get('mode')) or 'none'}", meta)


def _label(entry: Mapping[str, Any], ctx: Any, meta: Meta) -> Rendered:
    label, target = _str(entry.get("label")), _str(entry.get("targetId"))
    text = f"Label “{label}” on {target}" if label else f"Label cleared on {target}"
    return "meta", "Label", notice(text, meta)


def _session_init(entry: Mapping[str, Any], ctx: Any, meta: Meta) -> Rendered:
    m = MACROS
    raw_prompt = entry.get("systemPrompt")
    # oh-my-pi keeps the prompt blocks as sent (a list); older files hold one string.
    if isinstance(raw_prompt, list):
        prompt = "\n\n".join(p for p in raw_prompt if isinstance(p, str))
    else:
        prompt = _str(raw_prompt)
    task = _str(entry.get("task"))
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


def _ttsr(entry: Mapping[str, Any], ctx: Any, meta: Meta) -> Rendered:
    rules = entry.get("injectedRules")
    names = [str(r) for r in rules] if isinstance(rules, list) else []
    return "meta", "Rules injected", notice("Injected rules: " + ", ".join(names), meta)


def render_kind(row: LineKind, entry: Mapping[str, Any], meta: Meta) -> Rendered:
    """An entry of an agent's line kind, as its row says (no text: its JSON under "all")."""
    text = content_text(entry.get("content")).strip()
    if row.typed and text:
        meta["prompt"] = True  # a prompt the person typed (queued while the agent worked): in the outline
    if not text:
        meta["preview"] = one_line(row.label)
        raw = entry.get("data", entry.get("details"))
        return "meta", row.label, MACROS.raw_json(pretty_json(raw)) if raw is not None else Markup("")
    if row.show == "command":
        found = content_parts(entry.get("content"))
        meta["preview"] = one_line(text if found is None else describe_parts(found)) or row.label
        return "notice", row.label, render_user_block(text, found)
    if row.show == "error":
        meta["preview"] = one_line(text)
        return "notice", row.label, MACROS.error_notice(text)
    return ("meta" if row.show == "meta" else "notice"), row.label, notice(text, meta)


def _custom(entry: Mapping[str, Any], ctx: Any, meta: Meta) -> Rendered:
    row = kind_of(entry)
    if row is not None:
        return render_kind(row, entry, meta)
    custom_type = _str(entry.get("customType")) or "custom"
    meta["preview"] = one_line(custom_type)
    return "meta", custom_type, MACROS.raw_json(pretty_json(entry.get("data")))


def _session_info(entry: Mapping[str, Any], ctx: Any, meta: Meta) -> Rendered:
    name = _str(entry.get("name")).strip()
    text = f"Session named “{name}”" if name else "Session name cleared"
    return "notice", "Name", notice(text, meta)


def _title_change(entry: Mapping[str, Any], ctx: Any, meta: Meta) -> Rendered:
    title, source = _str(entry.get("title")).strip(), _str(entry.get("source"))
    by = " (by the user)" if source == "user" else " (automatic)" if source == "auto" else ""
    text = f"Title: “{title}”{by}" if title else f"Title cleared{by}"
    return "notice", "Title", notice(text, meta)


def _reset_boundary(entry: Mapping[str, Any], ctx: Any, meta: Meta) -> Rendered:
    meta["preview"] = "Context cleared"
    body = Markup(
        '<div class="st-reset" role="separator"><span>Context cleared (/clear): '
        "the model's context starts after this line</span></div>"
    )
    return "notice", "Reset", body


def _archive(entry: Mapping[str, Any], ctx: Any, meta: Meta) -> Rendered:
    target = _str(entry.get("targetId"))
    archived = entry.get("archived") is not False
    text = f"Branch at {target} archived" if archived else f"Branch at {target} restored"
    return "meta", "Archive", notice(text, meta)


def _model_usage(entry: Mapping[str, Any], ctx: Any, meta: Meta) -> Rendered:
    model = "/".join(p for p in (_str(entry.get("provider")), _str(entry.get("model"))) if p)
    purpose = _str(entry.get("purpose")) or "model call"
    usage = entry.get("usage")
    usage = usage if isinstance(usage, Mapping) else {}
    tokens = f"↑{count_of(usage.get('input')):,} ↓{count_of(usage.get('output')):,}"
    text = f"Model call for {purpose}" + (f" ({model})" if model else "") + f": {tokens}"
    if _str(entry.get("errorMessage")):
        text += f" — {entry['errorMessage']}"
    return "meta", "Model call", notice(text, meta)


def _service_tier(entry: Mapping[str, Any], ctx: Any, meta: Meta) -> Rendered:
    tier = entry.get("serviceTier")
    if isinstance(tier, Mapping):
        text = ", ".join(f"{family} {value}" for family, value in tier.items() if isinstance(value, str))
    else:
        text = _str(tier)
    return "notice", "Service tier", notice(f"Service tier: {text or 'default'}", meta)


def _credential_pin(entry: Mapping[str, Any], ctx: Any, meta: Meta) -> Rendered:
    # The hash identifies the account (an unsalted digest): the page shows the provider only.
    provider = _str(entry.get("provider")) or "a provider"
    return "notice", "Credential", notice(f"Credential pinned for {provider}", meta)


NOTICE_RENDERERS: dict[str, NoticeRender] = {
    "model_change": _model_change,
    "thinking_level_change": _thinking_change,
    "mode_change": _mode_change,
    "label": _label,
    "session_init": _session_init,
    "ttsr_injection": _ttsr,
    "custom": _custom,
    "session_info": _session_info,
    "title_change": _title_change,
    "reset_boundary": _reset_boundary,
    "archive": _archive,
    "model_usage": _model_usage,
    "service_tier_change": _service_tier,
    "credential_pin": _credential_pin,
}
