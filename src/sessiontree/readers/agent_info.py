"""A session file's light metadata, of any agent: id, cwd, start, title and first typed prompt from
its first lines (and an exact message count for a small file, read whole), for listing.

Each agent's first lines say it differently (``_INFO``); ``readers.discovery`` finds the files.
Nothing here ever writes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from sessiontree.readers.base import as_str, read_prefix_values
from sessiontree.readers.opencode_layout import field, iso_time
from sessiontree.store.bounded import read_head
from sessiontree.store.content import text_of
from sessiontree.store.discovery import SessionInfo, one_line
from sessiontree.store.entries import dicts_of
from sessiontree.store.jsonl import decode_text

INFO_LINES = 64
WHOLE_BYTES = 256 * 1024
"""Files up to this size are read whole for an exact message count."""


def _records(values: list[Any], info: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The records among a file's first values, the first session id, cwd and time of any put in ``info``."""
    for value in values:
        if isinstance(value, dict):
            for key in ("sessionId", "cwd", "timestamp"):
                if key not in info and as_str(value.get(key)):
                    info[key] = value[key]
            yield value


def _claude_info(values: list[Any]) -> dict[str, Any]:
    # Imported here: the Claude Code reader is for files read now, never for a warm search.
    from sessiontree.readers.claude import TITLE_LINES
    from sessiontree.readers.claude_kinds import is_agent_written, is_task_notification
    from sessiontree.store.claude_markup import typed_text

    info: dict[str, Any] = {}
    for value in _records(values, info):
        field = TITLE_LINES.get(str(value.get("type")))
        if field is not None and field != "summary" and as_str(value.get(field)):
            info["title"] = value[field]  # the newest custom-title / ai-title of the prefix
        message = value.get("message")
        if (
            "prompt" in info
            or value.get("type") != "user"
            or value.get("isMeta")
            or not isinstance(message, dict)
        ):
            continue
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
            continue
        if (
            is_task_notification(value, text_of(content))
            or value.get("isSidechain")
            or is_agent_written(text_of(content))
        ):
            continue  # not typed by the user
        text = typed_text(text_of(content))
        if text and not text.startswith("Caveat:"):
            info["prompt"] = text
    return info


def _codex_info(values: list[Any]) -> dict[str, Any]:
    from sessiontree.readers.codex import spawned_by
    from sessiontree.readers.codex_items import ABORTED_PREFIX, CONTEXT_PREFIXES

    info: dict[str, Any] = {}
    for value in values:
        if not isinstance(value, dict):
            continue
        inner = value.get("payload")
        payload: dict[str, Any] = inner if isinstance(inner, dict) else value
        if value.get("type") == "session_meta" or (not info and "instructions" in value and "id" in value):
            if "sessionId" not in info:
                info["parent"] = spawned_by(payload)
            info.setdefault("sessionId", payload.get("id"))
            info.setdefault("cwd", payload.get("cwd"))
            info.setdefault("timestamp", payload.get("timestamp"))
        if "prompt" not in info and payload.get("type") == "message" and payload.get("role") == "user":
            parts = payload.get("content")
            text = (
                "".join(p.get("text", "") for p in parts if isinstance(p, dict))
                if isinstance(parts, list)
                else ""
            )
            if text.strip() and not text.lstrip().startswith((*CONTEXT_PREFIXES, ABORTED_PREFIX)):
                info["prompt"] = text.strip()
    return info


def _gemini_info(values: list[Any]) -> dict[str, Any]:
    meta = values[0] if values and isinstance(values[0], dict) else {}
    info: dict[str, Any] = {"sessionId": meta.get("sessionId"), "timestamp": meta.get("startTime")}
    dirs = meta.get("directories")
    info["cwd"] = next((d for d in dirs if isinstance(d, str)), None) if isinstance(dirs, list) else None
    if as_str(meta.get("summary")):
        info["title"] = meta["summary"]
    listed = meta.get("messages")  # the one-object form holds its records
    for value in [*values[1:], *(listed if isinstance(listed, list) else [])]:
        if not isinstance(value, dict):
            continue
        update = value.get("$set")
        if isinstance(update, dict) and as_str(update.get("summary")):
            info["title"] = update["summary"]
        if "prompt" not in info and value.get("type") == "user":
            content = value.get("displayContent") or value.get("content")
            text = content if isinstance(content, str) else text_of(content)
            if text.strip():
                info["prompt"] = text.strip()
    return info


def _opencode_info(values: list[Any]) -> dict[str, Any]:
    first = values[0] if values and isinstance(values[0], dict) else {}
    info = field(first, "info") if "messages" in first else first  # an export document, or a session file
    times = field(info, "time")
    found = {
        "sessionId": info.get("id"),
        "cwd": info.get("directory"),
        "timestamp": iso_time(times.get("created")),
        "title": info.get("title"),
        "parent": info.get("parentID"),  # a subtask's session names the session that ran it
    }
    messages = first.get("messages")
    for item in messages if isinstance(messages, list) else []:
        if field(item, "info").get("role") != "user":
            continue
        parts = item.get("parts") if isinstance(item, dict) else None
        typed = [
            p.get("text")
            for p in (parts if isinstance(parts, list) else [])
            if isinstance(p, dict) and p.get("type") == "text" and not p.get("synthetic")
        ]
        text = "\n".join(t for t in typed if isinstance(t, str)).strip()
        if text:
            found["prompt"] = text
            break
    return found


def is_qwen_chat(values: list[Any]) -> bool:
    """Tell whether a Gemini CLI chat was written by Qwen Code's first releases (replies of type ``qwen``)."""
    first = values[0] if values and isinstance(values[0], dict) else {}
    listed = first.get("messages")
    records = [*values[1:], *(listed if isinstance(listed, list) else [])]
    return any(isinstance(r, dict) and r.get("type") == "qwen" for r in records)


def _qwen_info(values: list[Any]) -> dict[str, Any]:
    first = values[0] if values and isinstance(values[0], dict) else {}
    if "projectHash" in first:
        return _gemini_info(values)  # its first releases' one-object chat file
    info: dict[str, Any] = {}
    for value in _records(values, info):
        message = value.get("message")
        parts = message.get("parts") if isinstance(message, dict) else None
        if "prompt" not in info and value.get("type") == "user" and not value.get("subtype"):
            text = text_of(parts).strip()
            if text:
                info["prompt"] = text
    return info


def _aider_info(path: Path) -> dict[str, Any]:
    from sessiontree.readers.aider import read_history
    from sessiontree.store.kinds import typed_prompt

    try:
        made = read_history(decode_text(read_head(path, 64 * 1024)))
    except (OSError, ValueError):
        return {}
    typed = next((t for e in made.entries if (t := typed_prompt(e))), None)
    return {"sessionId": path.parent.name, "cwd": str(path.absolute().parent), "prompt": typed}


def _goose_info(values: list[Any]) -> dict[str, Any]:
    meta = values[0] if values and isinstance(values[0], dict) else {}
    row = meta.get("gooseSession")
    if isinstance(row, dict):  # a session of Goose's database (readers.goose_db)
        from sessiontree.readers.goose_db import session_meta

        meta, values = (
            {**session_meta(row), "sessionId": row.get("id")},
            [meta, *dicts_of(meta.get("messages"))],
        )
    info: dict[str, Any] = {"cwd": meta.get("working_dir"), "title": meta.get("description")}
    info["sessionId"] = meta.get("sessionId")
    for value in values[1:]:
        items = value.get("content") if isinstance(value, dict) and value.get("role") == "user" else None
        text = text_of([i for i in dicts_of(items) if i.get("type") == "text"])  # a number there: no text
        if text.strip():
            info["prompt"] = text.strip()
            break
    return info


def _copilot_info(values: list[Any]) -> dict[str, Any]:
    info: dict[str, Any] = {}
    for value in values:
        data = value.get("data") if isinstance(value, dict) else None
        if not isinstance(data, dict):
            continue
        if value.get("type") == "session.start":
            context = data.get("context")
            info.update(sessionId=data.get("sessionId"), timestamp=data.get("startTime"))
            info["cwd"] = context.get("cwd") if isinstance(context, dict) else None
        elif value.get("type") == "user.message" and "prompt" not in info and as_str(data.get("content")):
            info["prompt"] = data["content"]
    return info


def _crush_info(values: list[Any]) -> dict[str, Any]:
    from sessiontree.readers.crush import crush_info

    return crush_info(values[0] if values and isinstance(values[0], dict) else {})


def _amp_info(values: list[Any]) -> dict[str, Any]:
    from sessiontree.readers.amp import thread_cwd

    thread = values[0] if values and isinstance(values[0], dict) else {}
    info = {"sessionId": thread.get("id"), "title": thread.get("title"), "cwd": thread_cwd(thread)}
    info["timestamp"] = iso_time(thread.get("created"))
    listed = thread.get("messages")
    for message in listed if isinstance(listed, list) else []:
        blocks = (
            message.get("content") if isinstance(message, dict) and message.get("role") == "user" else None
        )
        text = text_of([b for b in dicts_of(blocks) if b.get("type") == "text"])
        if text.strip():
            info["prompt"] = text.strip()
            break
    return info


def _task_info(path: Path, values: list[Any]) -> dict[str, Any]:
    from sessiontree.readers.cline import split_typed, task_cwd

    history = values[0] if values and isinstance(values[0], list) else []
    folder = path.parent.name
    info: dict[str, Any] = {"sessionId": folder, "cwd": task_cwd(history)}
    info["timestamp"] = iso_time(int(folder)) if folder.isdigit() and len(folder) < 20 else None
    for message in dicts_of(history):
        content = message.get("content") if message.get("role") == "user" else None
        texts = [content] if isinstance(content, str) else [b.get("text") for b in dicts_of(content)]
        typed = [t for text in texts if isinstance(text, str) for t in split_typed(text)[0]]
        if typed:
            info["prompt"] = typed[0].strip()
            break
    return info


def _continue_info(values: list[Any]) -> dict[str, Any]:
    from sessiontree.readers.continue_dev import workspace_path

    session = values[0] if values and isinstance(values[0], dict) else {}
    info = {"sessionId": session.get("sessionId"), "title": session.get("title")}
    info["cwd"] = workspace_path(session.get("workspaceDirectory") or session.get("workspacePath"))
    for item in dicts_of(session.get("history")):
        message = item.get("message")
        if (
            isinstance(message, dict)
            and message.get("role") == "user"
            and text_of(message.get("content")).strip()
        ):
            info["prompt"] = text_of(message.get("content")).strip()
            break
    return info


def _kimi_info(path: Path, values: list[Any]) -> dict[str, Any]:
    from sessiontree.readers.kimi import is_injected, work_dir_of

    info: dict[str, Any] = {"sessionId": path.parent.name, "cwd": work_dir_of(path.parent)}
    for value in values:
        if isinstance(value, dict) and value.get("role") == "user":
            text = text_of(value.get("content")).strip()
            if text and not is_injected(text):
                info["prompt"] = text
                break
    return info


def _factory_info(values: list[Any]) -> dict[str, Any]:
    from sessiontree.readers.factory import split_reminders

    start = values[0] if values and isinstance(values[0], dict) else {}
    info = {
        "sessionId": start.get("id"),
        "cwd": start.get("cwd"),
        "title": start.get("sessionTitle") or start.get("title"),
    }
    for value in values:
        message = value.get("message") if isinstance(value, dict) else None
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            texts = [content] if isinstance(content, str) else [b.get("text") for b in dicts_of(content)]
            typed = [t for text in texts if isinstance(text, str) for t in [split_reminders(text)[0]] if t]
            if typed:
                info.setdefault("timestamp", value.get("timestamp"))
                info["prompt"] = typed[0]
                break
    return info


def _zed_info(values: list[Any]) -> dict[str, Any]:
    from sessiontree.readers.zed import zed_info

    return zed_info(values[0] if values and isinstance(values[0], dict) else {})


def _cursor_info(values: list[Any]) -> dict[str, Any]:
    from sessiontree.readers.cursor import cursor_info

    return cursor_info(values[0] if values and isinstance(values[0], dict) else {})


def _openhands_info(values: list[Any]) -> dict[str, Any]:
    from sessiontree.readers.openhands import state_cwd

    state = values[0] if values and isinstance(values[0], dict) else {}
    sid = state.get("id") or state.get("conversation_id")  # the SDK's base_state, the 0.x metadata
    return {
        "sessionId": sid,
        "cwd": state_cwd(state),
        "title": state.get("title"),
        "timestamp": state.get("created_at"),
    }


_INFO = {
    "amp": _amp_info,
    "openhands": _openhands_info,
    "cursor": _cursor_info,
    "zed": _zed_info,
    "factory": _factory_info,
    "continue": _continue_info,
    "kiro": _continue_info,
    "goose": _goose_info,
    "copilot": _copilot_info,
    "crush": _crush_info,
    "claude": _claude_info,
    "codex": _codex_info,
    "gemini": _gemini_info,
    "opencode": _opencode_info,
    "qwen": _qwen_info,
}


def read_agent_info(path: str | Path, agent: str | None = None) -> SessionInfo | None:
    """Metadata of one session file of any agent from its first lines; None when it is no session."""
    return agent_info_and_entries(path, agent)[0]


def agent_info_and_entries(
    path: str | Path, agent: str | None = None
) -> tuple[SessionInfo | None, Sequence[Mapping[str, Any]] | None]:
    """``read_agent_info``, with the entries when a small file was read whole for its count (else None)."""
    from sessiontree.readers import detect_values, is_aider_file, load_any
    from sessiontree.store.entries import message_of
    from sessiontree.store.formats import task_agent
    from sessiontree.store.kinds import typed_prompt  # the line kinds (and the loader): not to find files

    path = Path(path)
    try:
        st = path.stat()
        values = read_prefix_values(path, INFO_LINES)
    except OSError:
        return None, None
    agent = agent or detect_values(values) or ("aider" if is_aider_file(path) else None)
    if agent is None:
        return None, None
    if agent == "cline":
        agent = task_agent(path)
    if agent == "gemini" and is_qwen_chat(values):
        agent = "qwen"
    count: int | None = None
    last: str | None = None
    entries: Sequence[Mapping[str, Any]] | None = None
    if agent == "aider":
        info = _aider_info(path)
    elif agent in ("cline", "roo", "kilo"):
        info = _task_info(path, values)
    elif agent == "kimi":
        info = _kimi_info(path, values)
    elif agent == "pi":
        header = values[0] if values and isinstance(values[0], dict) else {}
        info = {"sessionId": header.get("id"), "cwd": header.get("cwd"), "timestamp": header.get("timestamp")}
        info["title"] = header.get("title")
    else:
        info = _INFO.get(agent, _codex_info)(values)
    if st.st_size <= WHOLE_BYTES:
        try:
            session = load_any(path, agent)
        except OSError:
            return None, None
        entries = session.entries
        count = sum(1 for e in session.entries if message_of(e) is not None)
        last = last_entry_time(session.entries)
        info.setdefault("title", session.title)
        typed = next((text for e in session.entries if (text := typed_prompt(e))), None)
        info["prompt"] = typed or info.get("prompt")  # the one rule, where the whole file was read
    found = SessionInfo(
        path=path,
        agent=agent,
        id=as_str(info.get("sessionId")) or path.stem,
        title=as_str(info.get("title")),
        first_message=one_line(info.get("prompt") or "") or None,
        cwd=as_str(info.get("cwd")) or "",
        created=as_str(info.get("timestamp")),
        modified=st.st_mtime,
        size=st.st_size,
        message_count=count,
        last_activity=last,
        parent_session=as_str(info.get("parent")),
    )
    return found, entries


def part_infos(path: Path, agent: str) -> list[tuple[SessionInfo, Sequence[Mapping[str, Any]]]]:
    """Each session of a file that holds several (``store.parts``) as its own listing record with
    its entries; none for a file of one session, or of an agent whose files hold one."""
    from sessiontree.readers import load_any, reader_for
    from sessiontree.store.entries import message_of
    from sessiontree.store.kinds import typed_prompt
    from sessiontree.store.parts import part_path

    session_ids = getattr(reader_for(agent), "session_ids", None)
    ids: list[str] = [] if session_ids is None else session_ids(path)
    if len(ids) < 2:
        return []
    st = path.stat()
    found: list[tuple[SessionInfo, Sequence[Mapping[str, Any]]]] = []
    for sid in ids:
        session = load_any(part_path(path, sid), agent)
        header = session.header
        prompt = next((text for e in session.entries if (text := typed_prompt(e))), None)
        info = SessionInfo(
            path=part_path(path, sid),
            agent=agent,
            id=sid,
            title=session.title,
            first_message=one_line(prompt or "") or None,
            cwd=as_str(header.get("cwd")) or "",
            created=as_str(header.get("timestamp")),
            modified=st.st_mtime,
            size=st.st_size,
            message_count=sum(1 for e in session.entries if message_of(e) is not None),
            last_activity=last_entry_time(session.entries),
        )
        found.append((info, session.entries))
    return found


def last_entry_time(entries: Sequence[Mapping[str, Any]]) -> str | None:
    """The timestamp of the last entry that has one (ISO, as the entry holds it)."""
    for entry in reversed(entries):
        stamp = entry.get("timestamp")
        if isinstance(stamp, str) and stamp:
            return stamp
    return None
