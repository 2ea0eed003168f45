"""Tool renderers: one class per tool family, each showing its call block and its result block."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from markupsafe import Markup, escape

from sessiontree.exporter.blocks import (
    artifact_ref,
    join_text_blocks,
    pretty_json,
    render_diff_text,
    render_image_tag,
    render_json,
    render_note,
    render_numbered,
    render_output,
    render_truncation_note,
    split_line_numbers,
)
from sessiontree.exporter.highlight import escape_text, lexer_by_name, lexer_for_path
from sessiontree.exporter.images import ImageRegistry
from sessiontree.exporter.markdown import render_markdown
from sessiontree.exporter.patches import edit_diff, files_text, patch_files

Args = Mapping[str, Any]


def _str(args: Args, *keys: str) -> str:
    """Return the first string argument among ``keys`` (tools name the same thing differently)."""
    for key in keys:
        value = args.get(key)
        if isinstance(value, str):
            return value
    return ""


def _path(args: Args) -> str:
    return _str(args, "path", "file_path", "filePath", "file", "filename")


def _edit_files(args: Args) -> str:
    """The head of an edit row: its path, else the files its patch names (``exporter.patches``)."""
    path = _path(args)
    return path or files_text(patch_files(_str(args, "input", "patch", "diff")))


def _line_range(args: Args) -> str:
    start = args.get("offset", args.get("start_line", args.get("startLine")))
    limit = args.get("limit")
    end = args.get("end_line", args.get("endLine"))
    if isinstance(start, int) and isinstance(limit, int):
        return f"{start}-{start + limit - 1}"
    if isinstance(start, int) and isinstance(end, int):
        return f"{start}-{end}"
    if isinstance(start, int):
        return f"{start}-"
    if isinstance(limit, int):
        return f"1-{limit}"
    return ""


def _count_lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _lines(count: int, what: str = "line") -> str:
    return f"{count:,} {what}{'' if count == 1 else 's'}"


_EXIT = re.compile(r"(?:exit(?:ed with)?(?: code| status)?|status)[ :=]+(-?\d+)", re.IGNORECASE)


def error_outcome(text: str) -> str:
    """The one-line outcome of a failed call: its exit code when the output states one."""
    found = _EXIT.search(text[-2000:]) or _EXIT.search(text[:2000])
    return f"exit {found[1]}" if found else "error"


def _summary(text: str, kind: str = "arg") -> Markup:
    return Markup(f'<span class="st-call-{kind}">{escape_text(text)}</span>')


def render_todos(todos: Any) -> Markup:
    """Return a todo list as a checklist (status: pending / in_progress / completed)."""
    if not isinstance(todos, list):
        return render_json(todos)
    items = []
    for todo in todos:
        if not isinstance(todo, Mapping):
            items.append(Markup('<li class="st-todo">{}</li>').format(str(todo)))
            continue
        status = str(todo.get("status", "pending"))
        text = _str(todo, "content", "text", "title", "activeForm")
        mark = {"completed": "☑", "done": "☑", "in_progress": "◐"}.get(status, "☐")
        items.append(
            Markup(
                '<li class="st-todo" data-status="{}"><span class="st-todo-mark">{}</span> {}</li>'
            ).format(status, mark, text)
        )
    return Markup('<ul class="st-todos">{}</ul>').format(Markup("").join(items))


def _task_prompt(title: str, prompt: str) -> Markup:
    return Markup(
        '<details class="st-task-prompt"><summary>{}</summary><div class="st-md">{}</div></details>'
    ).format(title, render_markdown(prompt))


# --- one renderer per tool family -------------------------------------------------------------


class ToolRenderer:
    """A tool family: how its call (head summary and body) and its result body are shown.

    This base class is the fallback for tools no family claims: arguments and details as JSON,
    output as text. A new family is one subclass with its ``names``, added to ``RENDERERS``.
    """

    names: ClassVar[tuple[str, ...]] = ()
    status: ClassVar[str] = "pending"
    """A call's status until its result is paired (a tool whose result is no entry of its own
    says ``success``)."""

    def call(self, name: str, args: Args) -> tuple[Markup, Markup]:
        """Return (head summary, body) of a call; ``name`` is the tool's name as called, lower case."""
        return Markup(""), render_json(args, kind="args") if args else Markup("")

    def result(self, name: str, args: Args, text: str, details: Any) -> Markup:
        """Return the body of a successful result (``text``: its text blocks joined)."""
        if not text and details:
            return render_json(details, kind="details")
        return render_output(text, ansi=True, kind="text") if text else Markup("")

    def target(self, args: Args) -> str:
        """Return what a call acts on, on one line: a path, a command's first line, a pattern."""
        return args_search_text(args).split("\n", 1)[0][:200]

    def outcome(self, args: Args, text: str, details: Any) -> str:
        """Return a successful result in a few words ("120 lines"; "" when nothing says more)."""
        return _lines(_count_lines(text)) if text else ""

    def source(self, args: Args) -> str:
        """Return what a "copy input" button copies: the arguments as JSON."""
        return pretty_json(args) if args else ""


class BashRenderer(ToolRenderer):
    # shell_command, exec_command, local_shell: Codex CLI's shell tools across its versions
    names = (
        "bash",
        "shell",
        "sh",
        "exec",
        "run_command",
        "terminal",
        "shell_command",
        "exec_command",
        "local_shell",
    )

    def call(self, name: str, args: Args) -> tuple[Markup, Markup]:
        cmd = _str(args, "command", "cmd", "script")
        first = cmd.split("\n", 1)[0]
        # A command is shown once: in the head, and whole in the body only when the head cuts it.
        whole = (
            render_output("$ " + cmd, kind="cmd") if len(first) > 200 or first != cmd.strip() else Markup("")
        )
        return _summary(first[:200], "cmd"), whole

    def result(self, name: str, args: Args, text: str, details: Any) -> Markup:
        return render_output(text, ansi=True, kind="bash")

    def target(self, args: Args) -> str:
        return _str(args, "command", "cmd", "script").strip().split("\n", 1)[0][:200]

    def source(self, args: Args) -> str:
        return _str(args, "command", "cmd", "script")  # the command as typed

    def outcome(self, args: Args, text: str, details: Any) -> str:
        found = _EXIT.search(text[-2000:])
        if found:
            return f"exit {found[1]}"
        return _lines(_count_lines(text), "line") if text.strip() else "no output"


class ReadRenderer(ToolRenderer):
    names = ("read", "read_file", "view")

    def call(self, name: str, args: Args) -> tuple[Markup, Markup]:
        path, rng = _path(args), _line_range(args)
        head = _summary(path, "path")
        if rng:
            head += Markup(' <span class="st-call-range">:{}</span>').format(rng)
        return head, Markup("")

    def result(self, name: str, args: Args, text: str, details: Any) -> Markup:
        lexer = lexer_for_path(_path(args))
        numbered = split_line_numbers(text)
        if numbered is None:
            return render_output(text, lexer=lexer, kind="code")
        numbers, code = numbered
        return render_numbered(code, numbers, lexer=lexer)

    def target(self, args: Args) -> str:
        rng = _line_range(args)
        return _path(args) + (f":{rng}" if rng else "")

    def outcome(self, args: Args, text: str, details: Any) -> str:
        numbered = split_line_numbers(text)
        return _lines(sum(1 for n in numbered[0] if n) if numbered else _count_lines(text))


class WriteRenderer(ToolRenderer):
    names = ("write", "write_file", "create_file")

    def call(self, name: str, args: Args) -> tuple[Markup, Markup]:
        path = _path(args)
        content = _str(args, "content", "text", "file_text")
        lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
        head = _summary(path, "path") + Markup(' <span class="st-call-lines">({} line{})</span>').format(
            lines, "" if lines == 1 else "s"
        )
        return head, render_output(content, lexer=lexer_for_path(path), kind="code")

    def target(self, args: Args) -> str:
        return _path(args)

    def outcome(self, args: Args, text: str, details: Any) -> str:
        return "wrote " + _lines(_count_lines(_str(args, "content", "text", "file_text")))


class EditRenderer(ToolRenderer):
    names = ("edit", "edit_file", "multiedit", "str_replace", "apply_patch", "patch")

    def call(self, name: str, args: Args) -> tuple[Markup, Markup]:
        return _summary(_edit_files(args), "path"), Markup("")

    def result(self, name: str, args: Args, text: str, details: Any) -> Markup:
        diff = edit_diff(args, details)
        out = render_diff_text(diff) if diff else Markup("")
        return out + (render_output(text, kind="text") if text and not diff else Markup(""))

    def target(self, args: Args) -> str:
        return _edit_files(args)

    def outcome(self, args: Args, text: str, details: Any) -> str:
        lines = edit_diff(args, details).split("\n")
        added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
        removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
        return f"+{added} \u2212{removed}" if added or removed else ""


class SearchRenderer(ToolRenderer):
    names = ("grep", "find", "ls", "glob", "search", "rg", "list_dir")

    def call(self, name: str, args: Args) -> tuple[Markup, Markup]:
        pattern = _str(args, "pattern", "query", "regex", "glob", "name")
        path = _path(args) or _str(args, "dir", "directory", "cwd")
        parts = [str(_summary(pattern, "pattern"))] if pattern else []
        if path:
            parts.append(str(Markup('<span class="st-call-in">in</span> ') + _summary(path, "path")))
        return Markup(" ".join(parts)), Markup("")

    def target(self, args: Args) -> str:
        pattern = _str(args, "pattern", "query", "regex", "glob", "name")
        path = _path(args) or _str(args, "dir", "directory", "cwd")
        return " in ".join(p for p in (pattern, path) if p)[:200]

    def outcome(self, args: Args, text: str, details: Any) -> str:
        found = sum(1 for line in text.split("\n") if line.strip())
        return _lines(found, "result") if found else "nothing found"


class WebSearchRenderer(ToolRenderer):
    """A web search the model ran (Codex CLI's ``web_search_call``): a chip with the query, the page
    opened, or a find-in-page's pattern beside its page (openai/codex 001cb8e2 models.rs
    ``WebSearchAction``: search / open_page / find_in_page {url, pattern})."""

    names = ("web_search",)
    status = "success"  # run by the model's server: no tool result entry follows

    def call(self, name: str, args: Args) -> tuple[Markup, Markup]:
        queries = args.get("queries")
        query = _str(args, "query") or (
            "; ".join(q for q in queries if isinstance(q, str)) if isinstance(queries, list) else ""
        )
        url, pattern = _str(args, "url"), "" if query else _str(args, "pattern")
        if query or url or pattern:
            word = "Search" if query else "Find" if pattern else "Open"
            label = Markup('<span class="st-chip-label">{}</span> ').format(word)
            shown = label + _summary(query or pattern or url, "path" if word == "Open" else "pattern")
            if pattern and url:
                shown += Markup(' <span class="st-call-in">in</span> ') + _summary(url, "path")
            return shown, Markup("")
        return super().call(name, args)

    def target(self, args: Args) -> str:
        return self.source(args)

    def source(self, args: Args) -> str:
        queries = args.get("queries")
        listed = "; ".join(q for q in queries if isinstance(q, str)) if isinstance(queries, list) else ""
        url, pattern = _str(args, "url"), _str(args, "pattern")
        found = f"'{pattern}' in {url}" if pattern and url else pattern or url
        return _str(args, "query") or listed or found


class TodoRenderer(ToolRenderer):
    names = ("todo", "todo_write", "todowrite", "todoread", "todo_read", "todos")

    def call(self, name: str, args: Args) -> tuple[Markup, Markup]:
        todos = args.get("todos", args.get("items"))
        count = len(todos) if isinstance(todos, list) else 0
        body = render_todos(todos) if todos else Markup("")
        return _summary(f"{count} item{'' if count == 1 else 's'}"), body

    def result(self, name: str, args: Args, text: str, details: Any) -> Markup:
        if isinstance(details, Mapping) and isinstance(details.get("todos"), list):
            return render_todos(details["todos"])
        return super().result(name, args, text, details)

    def target(self, args: Args) -> str:
        todos = args.get("todos", args.get("items"))
        return _lines(len(todos), "item") if isinstance(todos, list) else ""

    def outcome(self, args: Args, text: str, details: Any) -> str:
        return ""


class TaskRenderer(ToolRenderer):
    names = ("task", "subagent", "agent", "dispatch_agent")

    def call(self, name: str, args: Args) -> tuple[Markup, Markup]:
        agent = _str(args, "subagent_type", "agent", "agentType")
        desc = _str(args, "description", "title")
        prompt = _str(args, "prompt", "task", "instructions")
        tasks = args.get("tasks")
        # One call may start several subagents (a list of tasks), each with its own prompt.
        subtasks = [t for t in tasks if isinstance(t, Mapping)] if isinstance(tasks, list) else []
        if subtasks and not desc:
            desc = f"{len(subtasks)} task{'' if len(subtasks) == 1 else 's'}"
        parts = [_task_prompt("Prompt", prompt)] if prompt else []
        for task in subtasks:
            text = _str(task, "task", "prompt", "instructions")
            title = _str(task, "description", "title", "id") or "Task"
            parts.append(_task_prompt(title, text) if text else _summary(title))
        context = _str(args, "context")
        if context:
            parts.append(_task_prompt("Context", context))
        return _summary(" · ".join(p for p in (agent, desc) if p)), Markup("").join(parts)

    def result(self, name: str, args: Args, text: str, details: Any) -> Markup:
        return Markup('<div class="st-md">{}</div>').format(render_markdown(text)) if text else Markup("")

    def target(self, args: Args) -> str:
        agent = _str(args, "subagent_type", "agent", "agentType")
        return " · ".join(p for p in (agent, _str(args, "description", "title")) if p)

    def outcome(self, args: Args, text: str, details: Any) -> str:
        return "done" if text else ""


class CellRenderer(ToolRenderer):
    """Code cells (Python, JavaScript): the language follows the tool's name."""

    languages: ClassVar[dict[str, str]] = {
        "python": "python", "ipython": "python", "notebook": "python", "eval": "python",
        "js": "javascript", "javascript": "javascript", "node": "javascript",
    }  # fmt: skip
    names = tuple(languages)

    def call(self, name: str, args: Args) -> tuple[Markup, Markup]:
        code = _str(args, "code", "source", "script", "input")
        cells = args.get("cells")
        if not code and isinstance(cells, list):
            code = "\n\n".join(_str(c, "code", "source") for c in cells if isinstance(c, Mapping))
        if not code:
            return Markup(""), render_json(args)
        lexer = lexer_by_name(self.languages.get(name, "python"))
        return _summary(code.split("\n", 1)[0][:120], "code"), render_output(code, lexer=lexer, kind="code")

    def result(self, name: str, args: Args, text: str, details: Any) -> Markup:
        return render_output(text, ansi=True, kind="cell")


FALLBACK = ToolRenderer()
RENDERERS: tuple[ToolRenderer, ...] = (
    BashRenderer(),
    ReadRenderer(),
    WriteRenderer(),
    EditRenderer(),
    SearchRenderer(),
    WebSearchRenderer(),
    TodoRenderer(),
    TaskRenderer(),
    CellRenderer(),
)
_BY_NAME: dict[str, ToolRenderer] = {name: r for r in RENDERERS for name in r.names}


def renderer_for(name: str) -> ToolRenderer:
    """Return the renderer of a tool by its name (case-insensitive), or the JSON fallback."""
    return _BY_NAME.get(name.lower(), FALLBACK)


# --- the call and result blocks of the contract -----------------------------------------------


def render_call(call_id: str, name: str, args: Any) -> Markup:
    """Return the ``st-call`` block of one tool call with its empty result slot."""
    safe_args: Args = args if isinstance(args, Mapping) else {}
    renderer = renderer_for(name)
    head, body = renderer.call(name.lower(), safe_args)
    if not isinstance(args, Mapping) and args is not None:
        body = render_json(args, kind="args")
    attr_id, attr_name, status = escape(call_id), escape(name), renderer.status
    source = renderer.source(safe_args) if isinstance(args, Mapping) else pretty_json(args) if args else ""
    src = f'<template class="st-src">{escape(source)}</template>' if source else ""
    return Markup(
        f'<div class="st-call" data-call-id="{attr_id}" data-tool="{attr_name}" data-status="{status}">'
        # The head is the call's one line (compact until asked); the viewer opens it on a click.
        f'<button class="st-call-head" type="button" aria-expanded="false">'
        f'<span class="st-tool-name">{attr_name}</span> {head}</button>'
        f'<div class="st-call-body">{body}{src}<div class="st-call-result"></div></div></div>'
    )


def _result_images(content: Any, images: ImageRegistry) -> Markup:
    if not isinstance(content, list):
        return Markup("")
    tags = []
    for block in content:
        if isinstance(block, Mapping) and block.get("type") == "image":
            ref = images.add(block.get("data"), block.get("mimeType"))
            tags.append(render_image_tag(ref.sha) if ref.sha else render_note(ref.note or "image"))
    return Markup("").join(tags)


def render_result(
    call_id: str, name: str, args: Any, message: Mapping[str, Any], images: ImageRegistry
) -> Markup:
    """Return the ``st-result`` block for a tool result, rendered by its call's tool and arguments."""
    is_error = bool(message.get("isError"))
    content = message.get("content")
    text = join_text_blocks(content)
    safe_args: Args = args if isinstance(args, Mapping) else {}
    details = message.get("details")
    renderer = renderer_for(name)
    if is_error:
        body = render_output(text, ansi=True, kind="error")
        outcome = error_outcome(text)
    else:
        body = renderer.result(name.lower(), safe_args, text, details)
        outcome = renderer.outcome(safe_args, text, details)
    if isinstance(details, Mapping) and (details.get("truncated") or details.get("truncation")):
        body += render_truncation_note(artifact_ref(dict(details)))
    status = "error" if is_error else "success"
    return Markup(
        f'<div class="st-result" data-call-id="{escape(call_id)}" data-tool="{escape(name)}" '
        f'data-status="{status}" data-outcome="{escape(outcome)}">'
        f"{body}{_result_images(content, images)}</div>"
    )


def call_target(name: str, args: Any) -> str:
    """Return what a call acts on, on one line (its tool's rule): a tree row's and a head's words."""
    return renderer_for(name).target(args if isinstance(args, Mapping) else {})


def args_search_text(args: Any) -> str:
    """Return the arguments as compact text (for previews)."""
    if isinstance(args, Mapping):
        for key in ("command", "path", "file_path", "pattern", "query", "description", "code"):
            value = args.get(key)
            if isinstance(value, str):
                return value
        return pretty_json(args).replace("\n", " ")[:200]
    return "" if args is None else str(args)[:200]


__all__ = [
    "RENDERERS",
    "ToolRenderer",
    "args_search_text",
    "call_target",
    "error_outcome",
    "render_call",
    "render_result",
    "render_todos",
    "renderer_for",
]
