"""Claude Code sessions (``~/.claude/projects/<cwd>/<id>.jsonl``) read into the session model.

Each message line becomes an entry keyed by its ``uuid`` and linked by ``parentUuid``; one API
reply written over several lines (same ``message.id``) becomes one assistant entry; each
``tool_result`` block becomes a ``toolResult`` entry; a compaction boundary becomes a
``compaction`` entry; every other line is carried as a ``custom`` entry (JSON under "all").
The linking itself (what is a real fork, subagents as side branches) is in ``claude_links``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from sessiontree.readers.base import (
    EntryBuilder,
    as_str,
    iter_dicts,
    make_session,
    read_values,
    register,
    strip_csi,
)
from sessiontree.readers.claude_blocks import (
    STOP_REASONS,
    convert_assistant_block,
    convert_content,
    convert_usage,
    tool_calls_of,
)
from sessiontree.readers.claude_kinds import (
    API_ERROR,
    TASK_NOTIFICATION,
    api_error_details,
    api_error_text,
    fold_error,
    is_agent_written,
    is_task_notification,
    notice_of,
    same_error,
    task_notification_text,
    thinking_evidence,
)
from sessiontree.readers.claude_layout import AGENT_ID, subagent_files
from sessiontree.readers.claude_links import Linker, Node
from sessiontree.readers.claude_replay import Replays
from sessiontree.store.claude_markup import content_parts, parsed_content, typed_content
from sessiontree.store.content import text_of
from sessiontree.store.entries import Entry
from sessiontree.store.jsonl import BadLine
from sessiontree.store.kinds import KINDS

# Fields of a message line that the mapping uses or that every line repeats; others are shown.
from sessiontree.store.session import Session, Subagents
from sessiontree.store.subagents import SUBAGENT_KEY

KNOWN_FIELDS = frozenset(
    {"type", "uuid", "parentUuid", "logicalParentUuid", "sessionId", "timestamp", "cwd", "gitBranch",
     "version", "userType", "isSidechain", "isMeta", "message", "requestId", "toolUseResult", "agentId",
     "slug", "content", "subtype", "level", "toolUseID", "isCompactSummary", "isVisibleInTranscriptOnly",
     "compactMetadata", "isApiErrorMessage", "thinkingMetadata", "todos", "sourceToolUseID",
     "sourceToolAssistantUUID", "imagePasteIds", "permissionMode", "error", "durationMs", "stopReason",
     "hookCount", "hookInfos", "hookErrors", "preventedContinuation", "hasOutput", "cause",
     "retryInMs", "retryAttempt", "maxRetries", "isCompactBoundary", "planContent", "origin",
     "promptSource"}
)  # fmt: skip
TITLE_LINES = {"summary": "summary", "custom-title": "customTitle", "ai-title": "aiTitle"}
"""Line types that name the session -> the field holding the name (the newest line wins)."""
SHOWN_SYSTEM_SUBTYPES = frozenset({"api_error", "local_command", "informational"})
# What Claude Code writes for slash commands and bash mode: said by the user, but not a prompt.
LOCAL_COMMAND_TAGS = ("<command-name>", "<command-message>", "<local-command-", "<bash-input>", "<bash-std")


def _is_local_command(content: Any) -> bool:
    """A user message (its markup parsed) with nothing typed: a slash command, its output, bash
    mode, an interruption."""
    if text_of(content).lstrip().startswith(LOCAL_COMMAND_TAGS):
        return True
    return content_parts(content) is not None and not typed_content(content)


class _Converter:
    """Turns the lines of a session file (and its subagents' files) into entries and tree nodes."""

    def __init__(self) -> None:
        self.linker = Linker()
        self.calls: dict[str, tuple[str, Any]] = {}  # tool_use id -> (name, input)
        self.agent_calls: dict[str, str] = {}  # subagent id -> the tool_use id that started it
        self.by_message_id: dict[tuple[str, str], Entry] = {}
        self.header: dict[str, Any] = {}
        self.titles: list[tuple[str, str, str]] = []  # (leafUuid or "", text, line type) of TITLE_LINES
        self.thinking: str | None = None  # the thinking level the lines show (thinkingMetadata, blocks)
        self.last_error: Entry | None = None  # the API error notice later retries fold into
        self.last_error_uuid: str | None = None  # the uuid of its last retry
        self.session_ids: list[str] = []

    def add_file(self, values: list[tuple[int, Any]], bad: list[BadLine], prefix: str, chain: str) -> None:
        """Convert one file's lines; ``chain`` names the conversation they belong to (main or a subagent)."""
        build = EntryBuilder(prefix)
        for lineno, obj in iter_dicts(values, bad):
            try:
                self._line(build, lineno, obj, chain)
            except (TypeError, ValueError, AttributeError, KeyError, RecursionError):
                # A shape no version wrote: keep the line as it is rather than lose it.
                self._carry(build, lineno, obj, chain, "claude:unreadable")

    # --- one line ---------------------------------------------------------------------------

    def _line(self, build: EntryBuilder, lineno: int, obj: dict[str, Any], chain: str) -> None:
        kind = obj.get("type")
        uuid = as_str(obj.get("uuid"))
        if uuid is not None and self.linker.known(uuid):
            return  # the same record written twice (a resumed session repeats its history)
        if chain == "main" and obj.get("isSidechain") is True:
            chain = "side"
        self._note_header(obj, chain)
        if kind == "user" and isinstance(obj.get("message"), dict) and uuid:
            self._user(build, lineno, obj, uuid, chain)
        elif kind == "assistant" and isinstance(obj.get("message"), dict) and uuid:
            self._assistant(build, lineno, obj, uuid, chain)
        elif kind == "system" and uuid:
            self._system(build, lineno, obj, uuid, chain)
        else:
            title = obj.get(TITLE_LINES.get(kind, "")) if isinstance(kind, str) else None
            if kind == "ai-title" and title is None:
                title = obj.get("title")
            if isinstance(title, str) and title.strip():
                self.titles.append((as_str(obj.get("leafUuid")) or "", title, str(kind)))
            notice = notice_of(kind, obj) if isinstance(kind, str) else None
            if notice is not None:
                self._carry(build, lineno, obj, chain, notice[0], content=notice[1])
                return
            self._carry(
                build, lineno, obj, chain, f"claude:{kind}" if isinstance(kind, str) else "claude:line"
            )
            return
        self._carry_extra_fields(build, lineno, obj, chain)

    def _note_header(self, obj: dict[str, Any], chain: str) -> None:
        session_id = as_str(obj.get("sessionId"))
        if session_id and chain == "main" and session_id not in self.session_ids:
            self.session_ids.append(session_id)
        for key, field in (("cwd", "cwd"), ("version", "agentVersion"), ("gitBranch", "gitBranch")):
            value = as_str(obj.get(key))
            if value and field not in self.header:
                self.header[field] = value
        ts = as_str(obj.get("timestamp"))
        if ts and "timestamp" not in self.header:
            self.header["timestamp"] = ts

    def _entry(self, build: EntryBuilder, entry_id: str, obj: dict[str, Any], **fields: Any) -> Entry:
        entry: Entry = {"type": fields.pop("type", "message"), "id": entry_id, "parentId": None}
        ts = obj.get("timestamp")
        if isinstance(ts, str):
            entry["timestamp"] = ts
        entry.update(fields)
        build.entries.append(entry)
        return entry

    def _node(self, entry: Entry, parent: str | None, chain: str, *, conv: bool = False, **kw: Any) -> None:
        if chain.startswith("agent:"):
            entry[SUBAGENT_KEY] = chain.removeprefix("agent:")  # counted apart by the page's header
        self.linker.add(Node(entry, parent, chain, conv=conv, **kw))

    def _raw_parent(self, obj: dict[str, Any]) -> tuple[str | None, bool]:
        parent = as_str(obj.get("parentUuid"))
        if parent is None and as_str(obj.get("logicalParentUuid")):
            return obj["logicalParentUuid"], True  # a compaction restarts the chain; keep it one tree
        return parent, False

    def _user(self, build: EntryBuilder, lineno: int, obj: dict[str, Any], uuid: str, chain: str) -> None:
        message = obj["message"]
        parent, logical = self._raw_parent(obj)
        content = message.get("content")
        if obj.get("isCompactSummary") is True:
            self._compact_summary(build, obj, uuid, parent, chain)
            return
        self._note_thinking(obj.get("thinkingMetadata"))
        text = text_of(content)
        if is_task_notification(obj, text):
            entry = self._entry(
                build, uuid, obj, type="custom_message", customType=TASK_NOTIFICATION,
                content=task_notification_text(text), display=True, details={"text": text},
            )  # fmt: skip
            self._node(entry, parent, chain, logical=logical)
            return
        if obj.get("isMeta") is True:
            entry = self._entry(
                build, uuid, obj, type="custom_message", customType="claude:meta",
                content=convert_content(content), display=False,
            )  # fmt: skip
            self._node(entry, parent, chain, logical=logical)
            return
        results = (
            [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
            if isinstance(content, list)
            else []
        )
        rest = (
            [b for b in content if not (isinstance(b, dict) and b.get("type") == "tool_result")]
            if isinstance(content, list)
            else content
        )
        parts: list[tuple[str, dict[str, Any], bool]] = []
        for block in results:
            parts.append(("toolResult", self._tool_result(block, obj, len(results) == 1), False))
        if rest or not results:
            user: dict[str, Any] = {"role": "user", "content": parsed_content(convert_content(rest))}
            origin = obj.get("origin")
            by_agent = isinstance(origin, dict) and origin.get("kind") not in (None, "human")
            if chain != "main" or by_agent or is_agent_written(text_of(rest)):
                user["synthetic"] = True  # a subagent's task, Claude Code's own words: never typed
            parts.append(("user", user, not results and not _is_local_command(user["content"])))
        for index, (_, msg, conv) in enumerate(parts):
            last = index == len(parts) - 1
            entry_id = uuid if last else build.line_id(lineno, index + 1)
            entry = self._entry(build, entry_id, obj, message=msg)
            self._node(entry, parent, chain, conv=conv, prompt=conv, logical=logical and index == 0)
            parent, logical = entry_id, False

    def _tool_result(self, block: dict[str, Any], obj: dict[str, Any], single: bool) -> dict[str, Any]:
        call_id = as_str(block.get("tool_use_id")) or ""
        name = self.calls.get(call_id, ("", None))[0]
        message: dict[str, Any] = {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": name,
            "content": convert_content(block.get("content")),
            "isError": block.get("is_error") is True,
        }
        details = obj.get("toolUseResult")
        if single and details is not None:
            message["details"] = details
            agent_id = as_str(details.get("agentId")) if isinstance(details, dict) else None
            if agent_id:
                self.agent_calls[agent_id] = call_id
        return message

    def _compact_summary(
        self, build: EntryBuilder, obj: dict[str, Any], uuid: str, parent: str | None, chain: str
    ) -> None:
        text = text_of(obj["message"].get("content"))
        boundary = self.linker.entry(parent) if parent else None
        if boundary is not None and boundary.get("type") == "compaction" and not boundary.get("summary"):
            boundary["summary"] = text
            self.linker.alias(uuid, boundary["id"])
            return
        entry = self._entry(build, uuid, obj, type="compaction", summary=text, tokensBefore=0)
        self._node(entry, parent, chain)

    def _assistant(
        self, build: EntryBuilder, lineno: int, obj: dict[str, Any], uuid: str, chain: str
    ) -> None:
        message = obj["message"]
        content = message.get("content")
        blocks = (
            content if isinstance(content, list) else [{"type": "text", "text": content}] if content else []
        )
        for call_id, name, args in tool_calls_of(blocks):
            self.calls[call_id] = (name, args)
        if self.thinking is None and thinking_evidence(blocks):
            self.thinking = "on"
        reply_id = as_str(message.get("id"))
        merged = self.by_message_id.get((chain, reply_id)) if reply_id else None
        if merged is not None:
            # One API reply streamed over several lines: one entry, children re-pointed to it.
            merged["message"]["content"].extend(convert_assistant_block(b) for b in blocks)
            self._finish_assistant(merged["message"], message, obj)
            self.linker.alias(uuid, merged["id"])
            return
        out: dict[str, Any] = {"role": "assistant", "content": [convert_assistant_block(b) for b in blocks]}
        model = as_str(message.get("model"))
        if model and model != "<synthetic>":
            out.update(provider="anthropic", model=model)
        if reply_id:
            out["responseId"] = reply_id
        self._finish_assistant(out, message, obj)
        entry = self._entry(build, uuid, obj, message=out)
        if reply_id:
            self.by_message_id[(chain, reply_id)] = entry
        parent, logical = self._raw_parent(obj)
        self._node(entry, parent, chain, conv=True, logical=logical)

    def _finish_assistant(self, out: dict[str, Any], message: dict[str, Any], obj: dict[str, Any]) -> None:
        usage = convert_usage(message.get("usage"), obj.get("costUSD"))
        if usage is not None:
            out["usage"] = usage  # a later line of a streamed reply carries the reply's final counts
        stop = message.get("stop_reason")
        if isinstance(stop, str):
            out["stopReason"] = STOP_REASONS.get(stop, stop)
        if obj.get("isApiErrorMessage") is True:
            out["stopReason"] = "error"
            out["errorMessage"] = text_of(message.get("content")) or as_str(obj.get("error")) or "API error"

    def _system(self, build: EntryBuilder, lineno: int, obj: dict[str, Any], uuid: str, chain: str) -> None:
        subtype = as_str(obj.get("subtype"))
        parent, logical = self._raw_parent(obj)
        if subtype == "compact_boundary":
            meta = obj.get("compactMetadata")
            tokens = meta.get("preTokens") if isinstance(meta, dict) else None
            entry = self._entry(
                build, uuid, obj, type="compaction", summary="",
                tokensBefore=tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else 0,
            )  # fmt: skip
            self._node(entry, parent, chain, logical=logical)
            return
        if subtype == "api_error":
            self._api_error(build, obj, uuid, parent, chain, logical)
            return
        notice = notice_of(f"system/{subtype}", obj)
        if notice is not None:
            self._system_notice(build, obj, uuid, (parent, logical), chain, *notice)
            return
        text = strip_csi(text_of(obj.get("content")))
        level = as_str(obj.get("level"))
        shown = bool(text) and (subtype in SHOWN_SYSTEM_SUBTYPES or level in ("warning", "error"))
        entry = self._entry(
            build, uuid, obj, type="custom_message", customType=f"claude:system/{subtype or level or 'info'}",
            content=text or "", display=shown, details={k: v for k, v in obj.items() if k not in KNOWN_FIELDS}
            or None,
        )  # fmt: skip
        self._node(entry, parent, chain, logical=logical, through=True)

    def _api_error(
        self,
        build: EntryBuilder,
        obj: dict[str, Any],
        uuid: str,
        parent: str | None,
        chain: str,
        logical: bool,
    ) -> None:
        details = api_error_details(obj)
        last = self.last_error
        # A retry written right under the last one (its parent is the last retry's uuid).
        if last is not None and parent == self.last_error_uuid and same_error(last["details"], details):
            fold_error(last["details"], details)  # a retry of the same failure: one notice, counted
            last["content"] = api_error_text(last["details"])
            self.linker.alias(uuid, last["id"])
            self.last_error_uuid = uuid
            return
        entry = self._entry(
            build, uuid, obj, type="custom_message", customType=API_ERROR, content=api_error_text(details),
            display=True, details=details,
        )  # fmt: skip
        self.last_error, self.last_error_uuid = entry, uuid
        self._node(entry, parent, chain, logical=logical, through=True)

    def _system_notice(
        self, build: EntryBuilder, obj: dict[str, Any], uuid: str, parent: tuple[str | None, bool],
        chain: str, custom_type: str, text: str,
    ) -> None:  # fmt: skip
        row = KINDS[custom_type]
        details = {k: v for k, v in obj.items() if k not in KNOWN_FIELDS} or None
        content = parsed_content(text) if row.show == "command" else text
        fields: dict[str, Any] = (
            {"type": "custom_message", "content": content, "display": bool(text), "details": details}
            if row.context
            else {"type": "custom", "data": obj, "content": text}
        )
        entry = self._entry(build, uuid, obj, customType=custom_type, **fields)
        self._node(entry, parent[0], chain, logical=parent[1], through=True)

    def _note_thinking(self, meta: Any) -> None:
        if not isinstance(meta, dict):
            return
        level, tokens = as_str(meta.get("level")), meta.get("maxThinkingTokens")
        if meta.get("disabled") is True or tokens == 0:
            self.thinking = "off"
        elif level and level != "none":
            self.thinking = level
        elif isinstance(tokens, int) and not isinstance(tokens, bool) and tokens > 0:
            self.thinking = f"on ({tokens:,} tokens)"

    def _carry(
        self, build: EntryBuilder, lineno: int, obj: dict[str, Any], chain: str, kind: str, **fields: Any
    ) -> None:
        uuid = as_str(obj.get("uuid"))
        entry = build.carry(lineno, kind, obj, None, obj.get("timestamp"))
        entry.update(fields)
        if uuid and not self.linker.known(uuid):
            # A line other lines may point at (progress, attachment): keep its uuid reachable.
            self.linker.alias(uuid, entry["id"], merged=False)
            self._node(entry, as_str(obj.get("parentUuid")), chain, through=True)
        else:
            self._node(entry, None, chain, follow=True, through=True)

    def _carry_extra_fields(self, build: EntryBuilder, lineno: int, obj: dict[str, Any], chain: str) -> None:
        extra = {k: v for k, v in obj.items() if k not in KNOWN_FIELDS}
        if not extra:
            return
        entry = build.carry(lineno, "claude:fields", extra, None, obj.get("timestamp"))
        entry["id"] = build.line_id(lineno, 99)
        self._node(entry, None, chain, follow=True)

    # --- the whole ----------------------------------------------------------------------------

    def session(self, path: Path, bad: list[BadLine]) -> Session:
        """Link the entries into a tree and make the session."""
        entries, leaf = self.linker.link(self.calls, self.agent_calls)
        stem = path.stem
        header: dict[str, Any] = {
            "type": "session",
            "version": 3,
            "id": stem if stem in self.session_ids or not self.session_ids else self.session_ids[0],
        }
        header.update(self.header)
        known = self.linker.ids()
        titles = [
            (text, kind) for leaf_uuid, text, kind in self.titles if not leaf_uuid or leaf_uuid in known
        ]
        if titles:
            header["title"], header["titleSource"] = titles[-1]
        if self.thinking is not None:
            header["thinkingLevel"] = self.thinking
        header["agent"] = "claude"
        return make_session(path, header, entries, bad, leaf)


class ClaudeReader:
    """Claude Code JSONL (CLI 1.0 to 2.1)."""

    agent: ClassVar[str] = "claude"

    def read(self, path: Path, *, agent_dir: Path | None = None, blobs_dir: Path | None = None) -> Session:
        """Read the session and its subagents' transcripts (read-only)."""
        values, bad = read_values(path)
        convert = _Converter()
        convert.add_file(values, bad, "L", "main")
        replays = Replays(values)
        del values
        session_id = (
            path.stem
            if path.stem in convert.session_ids or not convert.session_ids
            else convert.session_ids[0]
        )
        read: dict[str, Callable[[], Session]] = {}
        for index, agent_path in enumerate(subagent_files(path, session_id)):
            try:
                agent_values, agent_bad = read_values(agent_path)
            except OSError:
                continue
            skipped = replays.skip(agent_values, convert.linker, convert.by_message_id)
            convert.add_file(agent_values[skipped:], agent_bad, f"A{index}:", f"agent:{agent_path.stem[6:]}")
            bad.extend(BadLine(b.lineno, f"{agent_path.name}: {b.reason}", b.text) for b in agent_bad)
            if AGENT_ID.fullmatch(agent_path.stem[6:]):
                read[agent_path.stem[6:]] = functools.partial(self.read, agent_path)
        session = convert.session(path, bad)
        session.subagents = Subagents(lambda: read, embedded=False)  # read here; pages of their own
        return session


register(ClaudeReader())
