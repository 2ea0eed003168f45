"""Which agent wrote a session file, told from its first lines; the write path's refusal of others.

The sniffing of every known format lives here, below the store, so the store can refuse another
agent's file (it never resumes, forks, moves or appends to one) without importing the readers;
each reader's ``sniff`` is the function of its format here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from sessiontree.errors import ForeignSession
from sessiontree.store.bounded import read_head
from sessiontree.store.entries import is_valid_header
from sessiontree.store.jsonl import decode_line, decode_text
from sessiontree.store.parts import split_part

SNIFF_LINES = 24
"""How many JSON lines detection looks at."""

SNIFF_BYTES = 1 << 20
"""Detection stops reading after this many bytes (a first line may be an image-sized record)."""

AGENT_LABELS: dict[str, str] = {
    "pi": "pi",
    "codex": "Codex CLI",
    "gemini": "Gemini CLI",
    "opencode": "OpenCode",
    "qwen": "Qwen Code",
    "crush": "Crush",
    "aider": "Aider",
    "copilot": "GitHub Copilot CLI",
    "goose": "Goose",
    "amp": "Amp",
    "cline": "Cline",
    "roo": "Roo Code",
    "kilo": "Kilo Code",
    "continue": "Continue",
    "kimi": "Kimi CLI",
    "factory": "Factory Droid",
    "zed": "Zed",
    "cursor": "Cursor",
    "openhands": "OpenHands",
    "kiro": "Kiro",
    "claude": "Claude Code",
}
"""The name people know each agent by, in detection order (most specific first)."""

CLAUDE_MESSAGE_TYPES = ("user", "assistant", "system")
CLAUDE_LINE_TYPES = frozenset(
    {"user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation", "progress",
     "attachment", "permission-mode", "custom-title", "ai-title", "mode", "last-prompt", "tag", "agent-name"}
)  # fmt: skip
CODEX_LINE_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})


SQLITE_MAGIC = b"SQLite format 3\x00"
"""The first bytes of every SQLite database (OpenCode and Crush keep their sessions in one)."""


TABLE_READS = 5
"""How many times the table names of a database being written are read before giving up."""


def is_sqlite_file(path: Path) -> bool:
    """Tell whether a file starts as a SQLite database does."""
    try:
        return read_head(path, len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def database_tables(path: Path) -> frozenset[str]:
    """The table names of a SQLite file, read without a lock, a journal or a file made beside it.

    ``immutable=1`` makes SQLite read the file as it is (no ``-shm``, no WAL, no lock): enough to
    tell what a database is (its rows are read from a consistent copy: ``readers.opencode_db``).
    A page being checkpointed as it is read can fail the read: it is tried again.
    """
    import sqlite3  # only for a file that starts as a database does

    uri = f"file:{quote(str(Path(path).absolute()))}?mode=ro&immutable=1"
    for _ in range(TABLE_READS):
        try:
            connection = sqlite3.connect(uri, uri=True)
        except sqlite3.Error:
            return frozenset()
        try:
            rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
            return frozenset(str(name) for (name,) in rows)
        except (sqlite3.Error, UnicodeDecodeError):  # a damaged schema's names are no UTF-8
            continue
        finally:
            connection.close()
    return frozenset()


def agent_of_tables(tables: frozenset[str]) -> str | None:
    """The agent whose database has these tables, or None."""
    if {"session", "message", "part"} <= tables:
        return "opencode"
    if {"sessions", "messages", "files"} <= tables:
        return "crush"
    if {"sessions", "messages", "schema_version"} <= tables:
        return "goose"
    if {"meta", "blobs"} <= tables or {"ItemTable", "cursorDiskKV"} <= tables:
        return "cursor"  # a CLI chat's store.db, the editor's state.vscdb
    if "threads" in tables and len(tables) <= 2:  # Zed's threads.db (and sqlite_sequence at most)
        return "zed"
    return None


def is_pi_file(values: list[Any]) -> bool:
    """A pi file starts with a session header."""
    return bool(values) and is_valid_header(values[0])


def is_claude_line(value: Any) -> bool:
    """Tell whether one parsed line has the shape of a Claude Code record."""
    if not isinstance(value, dict):
        return False
    kind = value.get("type")
    if kind in CLAUDE_MESSAGE_TYPES:
        return "uuid" in value and ("parentUuid" in value or "sessionId" in value)
    if kind == "summary":
        return "leafUuid" in value
    if kind == "file-history-snapshot":
        return "snapshot" in value or "messageId" in value
    return kind in CLAUDE_LINE_TYPES and "sessionId" in value


def is_claude_file(values: list[Any]) -> bool:
    """A Claude file: one of its first lines is a Claude record."""
    return any(is_claude_line(v) for v in values)


def is_codex_old_header(value: Any) -> bool:
    """The bare first line of the old rollout format: ``{id, timestamp, instructions?, git?}``."""
    return (
        isinstance(value, dict)
        and "type" not in value
        and isinstance(value.get("id"), str)
        and isinstance(value.get("timestamp"), str)
        and ("instructions" in value or "git" in value)
    )


def is_codex_file(values: list[Any]) -> bool:
    """A rollout starts with ``session_meta`` (or the old bare header) or has Codex line types."""
    if values and (
        is_codex_old_header(values[0])
        or (isinstance(values[0], dict) and values[0].get("type") == "session_meta")
    ):
        return True
    return any(
        isinstance(v, dict)
        and (
            (v.get("type") in CODEX_LINE_TYPES and isinstance(v.get("payload"), dict))
            or v.get("record_type") == "state"
        )
        for v in values
    )


def _metadata_head(values: list[Any]) -> dict[str, Any] | None:
    """The first value when it is an object with no ``type``: the metadata a file of Gemini CLI,
    Goose or Amp starts with (a line of every other format says its type)."""
    first = values[0] if values else None
    return first if isinstance(first, dict) and "type" not in first else None


def is_gemini_file(values: list[Any]) -> bool:
    """A Gemini CLI chat file starts with its metadata line ``{sessionId, projectHash, ...}``."""
    head = _metadata_head(values)
    return (
        head is not None
        and isinstance(head.get("sessionId"), str)
        and isinstance(head.get("projectHash"), str)
    )


def is_opencode_session_info(value: Any) -> bool:
    """OpenCode's session info: ``{id: "ses_…", projectID?, time {created}, ...}``."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("id"), str)
        and value["id"].startswith("ses_")
        and isinstance(value.get("time"), dict)
    )


def is_opencode_export(values: list[Any]) -> bool:
    """What ``opencode export`` prints: ``{info: <session info>, messages: [{info, parts}], ...}``."""
    first = values[0] if values else None
    return isinstance(first, dict) and is_opencode_session_info(first.get("info")) and "messages" in first


def is_opencode_file(values: list[Any]) -> bool:
    """An OpenCode session file of its storage folder (``{id: "ses_…", projectID, time, ...}``) or
    an ``opencode export`` document."""
    first = values[0] if values else None
    return (
        is_opencode_session_info(first) and isinstance(first.get("projectID"), str)  # type: ignore[union-attr]
    ) or is_opencode_export(values)


def is_qwen_line(value: Any) -> bool:
    """A Qwen Code record: ``{uuid, sessionId, type, message: {role, parts: [...]}}`` or a
    ``tool_result`` / ``system`` record (Claude Code's records hold ``message.content``, never ``parts``)."""
    if not isinstance(value, dict) or not isinstance(value.get("uuid"), str) or "sessionId" not in value:
        return False
    message = value.get("message")
    kind = value.get("type")
    if kind in ("user", "assistant", "tool_result") and isinstance(message, dict):
        return isinstance(message.get("parts"), list)
    return kind == "system" and "systemPayload" in value and "cwd" in value


def is_qwen_file(values: list[Any]) -> bool:
    """A Qwen Code chat file: one of its first lines is a Qwen Code record."""
    return any(is_qwen_line(v) for v in values)


AIDER_START = b"# aider chat started at "


def is_aider_text(data: bytes) -> bool:
    """Aider's chat history (Markdown): its first non-blank line is ``# aider chat started at``."""
    return data.lstrip().startswith(AIDER_START)


def is_crush_file(values: list[Any]) -> bool:
    """A Crush session's document (``readers.crush``): ``{"crushSession": {id, ...}, "messages": [...]}``."""
    first = values[0] if values else None
    return isinstance(first, dict) and isinstance(first.get("crushSession"), dict) and "messages" in first


COPILOT_EVENTS = frozenset({"session.start", "user.message", "assistant.message", "tool.execution_complete"})


def is_copilot_file(values: list[Any]) -> bool:
    """A Copilot CLI log: events ``{type: "session.start" | "user.message" | ..., data, id, parentId}``."""
    return any(
        isinstance(v, dict)
        and v.get("type") in COPILOT_EVENTS
        and isinstance(v.get("data"), dict)
        and "parentId" in v
        for v in values
    )


def is_goose_document(values: list[Any]) -> bool:
    """A session of Goose's database, as its mirror holds it: ``{"gooseSession": row, "messages": [...]}``."""
    first = values[0] if values else None
    return isinstance(first, dict) and isinstance(first.get("gooseSession"), dict) and "messages" in first


def is_goose_file(values: list[Any]) -> bool:
    """A Goose session file starts with its metadata ``{working_dir, description, message_count, ...}``
    (or is a session of its database: ``is_goose_document``)."""
    head = _metadata_head(values)
    return is_goose_document(values) or (
        head is not None
        and isinstance(head.get("working_dir"), str)
        and "description" in head
        and "message_count" in head
    )


def is_amp_file(values: list[Any]) -> bool:
    """An Amp thread: one object ``{id: "T-…", messages: [...], ...}`` with no ``type``."""
    head = _metadata_head(values) or {}
    ident = head.get("id")
    return isinstance(ident, str) and ident.startswith("T-") and "messages" in head


TASK_EXTENSIONS: dict[str, str] = {
    "saoudrizwan.claude-dev": "cline",
    "rooveterinaryinc.roo-cline": "roo",
    "kilocode.kilo-code": "kilo",
}
"""The VS Code extension folders of the three agents sharing Cline's task format -> the agent."""


def is_cline_file(values: list[Any]) -> bool:
    """A task file of Cline (Roo Code, Kilo Code): one JSON array of Anthropic messages ``{role,
    content}`` (``api_conversation_history.json``) or of UI messages ``{ts, type: say | ask}``."""
    first = values[0] if values else None
    item = first[0] if isinstance(first, list) and first else None
    if not isinstance(item, dict):
        return False
    if item.get("role") in ("user", "assistant") and "content" in item:
        return True
    return item.get("type") in ("say", "ask") and "ts" in item


def is_continue_file(values: list[Any]) -> bool:
    """A Continue session: one object ``{sessionId, title, workspaceDirectory, history: [...]}``."""
    head = _metadata_head(values) or {}
    return isinstance(head.get("sessionId"), str) and "history" in head and "workspaceDirectory" in head


KIMI_RECORDS = frozenset({"_system_prompt", "_checkpoint", "_usage"})


def is_kiro_file(values: list[Any]) -> bool:
    """A Kiro chat session: Continue's shape with ``workspacePath``: ``{sessionId, history, ...}``."""
    head = _metadata_head(values) or {}
    return (
        isinstance(head.get("sessionId"), str)
        and "history" in head
        and "workspaceDirectory" not in head
        and ("workspacePath" in head or "selectedModel" in head)
    )


def is_kimi_file(values: list[Any]) -> bool:
    """A Kimi CLI ``context.jsonl``: its own records ``{role: _checkpoint | _usage | _system_prompt}``."""
    return any(isinstance(v, dict) and v.get("role") in KIMI_RECORDS for v in values)


def is_factory_file(values: list[Any]) -> bool:
    """A Factory droid session: its first line ``{type: session_start, id, ...}``."""
    first = values[0] if values else None
    return (
        isinstance(first, dict) and first.get("type") == "session_start" and isinstance(first.get("id"), str)
    )


def is_zed_document(values: list[Any]) -> bool:
    """A Zed thread as its database's mirror holds it: ``{"zedThread": row, "thread": {...}}``."""
    first = values[0] if values else None
    return isinstance(first, dict) and isinstance(first.get("zedThread"), dict)


def is_cursor_document(values: list[Any]) -> bool:
    """A Cursor CLI chat as its ``store.db``'s mirror holds it: ``{"cursorChat": meta, "messages": …}``,
    or an editor conversation as its ``state.vscdb``'s does: ``{"cursorComposer": meta, "bubbles": …}``."""
    first = values[0] if values else None
    return isinstance(first, dict) and (
        isinstance(first.get("cursorChat"), dict) or isinstance(first.get("cursorComposer"), dict)
    )


def is_openhands_state(values: list[Any]) -> bool:
    """An OpenHands conversation's ``base_state.json``: ``{id, agent: {...}, workspace: {...}, ...}``,
    or its 0.x server's ``metadata.json``: ``{conversation_id, created_at | last_updated_at, ...}``."""
    head = _metadata_head(values) or {}
    if isinstance(head.get("conversation_id"), str) and ("created_at" in head or "last_updated_at" in head):
        return True
    return isinstance(head.get("id"), str) and "agent" in head and "workspace" in head


def task_agent(path: Path) -> str:
    """Which of Cline, Roo Code and Kilo Code wrote a task file: the extension folder it is in."""
    for part in reversed(Path(path).parts):
        agent = TASK_EXTENSIONS.get(part.lower())
        if agent is not None:
            return agent
    return "cline"


_SNIFFERS = {
    "pi": is_pi_file,
    "codex": is_codex_file,
    "gemini": is_gemini_file,
    "opencode": is_opencode_file,
    "qwen": is_qwen_file,
    "crush": is_crush_file,
    "copilot": is_copilot_file,
    "goose": is_goose_file,
    "amp": is_amp_file,
    "cline": is_cline_file,
    "continue": is_continue_file,
    "kiro": is_kiro_file,
    "kimi": is_kimi_file,
    "factory": is_factory_file,
    "zed": is_zed_document,
    "cursor": is_cursor_document,
    "openhands": is_openhands_state,
    "claude": is_claude_file,
}


def sniff_agent(values: list[Any]) -> str | None:
    """The agent whose format the first parsed lines of a file are, or None."""
    for agent, sniff in _SNIFFERS.items():
        if sniff(values):
            return agent
    return None


def prefix_values(data: bytes) -> list[Any]:
    """The JSON values of the first lines of a file's bytes (unparsable lines as None)."""
    values: list[Any] = []
    for line in data[:SNIFF_BYTES].split(b"\n")[:SNIFF_LINES]:
        if line.strip():
            try:
                values.append(decode_line(decode_text(line)))
            except ValueError:
                values.append(None)
    return values


def foreign_refusal(agent: str, path: str | Path) -> ForeignSession:
    """The error of the write path given another agent's file."""
    label = AGENT_LABELS.get(agent, agent)
    return ForeignSession(
        f"{path} is a {label} session: sessiontree only reads those (inspect, export, "
        "dump, share); it never resumes, forks, moves or appends to another agent's file"
    )


def refuse_foreign_data(data: bytes, path: str | Path) -> None:
    """Raise ``ForeignSession`` when a file's bytes are another agent's format."""
    agent = sniff_agent(prefix_values(data))
    if agent not in (None, "pi"):
        raise foreign_refusal(agent, path)


def refuse_foreign(path: str | Path) -> None:
    """Raise ``ForeignSession`` when ``path`` is another agent's file, or one session of such a file
    (``<file>#<id>``, store.parts); a missing or unreadable one is not."""
    try:
        data = read_head(split_part(Path(path))[0], SNIFF_BYTES)
    except OSError:
        return
    refuse_foreign_data(data, path)
