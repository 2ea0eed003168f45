"""The answers of the MCP tools: search, list, read and usage over the covered sessions.

Plain functions of one ``Library`` (the roots, the search index, the catalogs) that validate
their arguments, return small JSON-ready dicts and say how to get more. Every text a session
holds passes the share redactor first unless the library was opened with ``redact=False``.
A session is named only by what a listing gave (its key under a covered root, or its id):
never a path, so nothing outside the roots is reachable.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessiontree.archive.collection import (
    Sources,
    in_project,
    is_inside,
    machine_roots,
    parse_since,
    parse_until,
    project_path,
)
from sessiontree.archive.search import ROLE_CHOICES, SearchFilters, SearchHit, SearchIndex
from sessiontree.archive.usage import GROUP_CHOICES, UsageQuery, summarize
from sessiontree.errors import FilterError, SessionNotFound, ToolArgumentError
from sessiontree.mcp_server.messages import Shown, shown_messages
from sessiontree.store.discovery import SessionInfo
from sessiontree.store.surrogates import replace_surrogates
from sessiontree.store.times import LOCAL_ZONE, datetime_millis, parse_iso, utc_datetime

if TYPE_CHECKING:
    from sessiontree.share.redact import Redactor

SEARCH_LIMIT = (10, 50)
"""A search's hits: (by default, at most)."""
LIST_LIMIT = (20, 100)
READ_LIMIT = (20, 100)
USAGE_GROUPS = (31, 400)
TEXT_CHARS = (2_000, 200_000)
"""A message's text: (cut at, by default; the most ``max_chars`` may ask for)."""
TOOL_CHARS = 300
"""A tool call's arguments or a tool result, when tools are shortened."""
QUERY_CHARS = 1_000
REDACTORS_KEPT = 4
"""Sessions whose learnt redactor is kept between calls (the pages of one session read in turn)."""


def machine_forms(folders: Sequence[str] = ()) -> dict[str, str]:
    """This machine's own secrets in every form to mask (and those of the ``.env`` files in
    ``folders``): read once per tool call, however many rows it answers with."""
    from sessiontree.share.machine_secrets import collect_machine_secrets

    return collect_machine_secrets(folders).forms()


def new_redactor(machine: dict[str, str]) -> Redactor:
    """A fresh share redactor that knows ``machine``'s secrets (``machine_forms``); its detectors
    load with the first call that needs one, not at start-up."""
    from sessiontree.share.redact import Redactor

    return Redactor(machine=machine)


@dataclass(frozen=True)
class Scope:
    """What narrows a search or a listing (already validated)."""

    agent: str | None = None
    project: str | None = None
    since_ms: int | None = None
    until_ms: int | None = None
    machine: str | None = None
    roots: tuple[Path, ...] = ()
    """The roots of ``machine``'s sessions (``archive.collection.machine_roots``); empty: every root."""


def _int(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolArgumentError(f"{name} must be a whole number from {low} to {high}")
    if not low <= value <= high:
        raise ToolArgumentError(f"{name} must be from {low} to {high} (got {value})")
    return value


def _text(name: str, value: Any, limit: int = QUERY_CHARS) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ToolArgumentError(f"{name} must be a string")
    if len(value) > limit:
        raise ToolArgumentError(f"{name} is longer than {limit:,} characters")
    return value


def _time(ms: int | None) -> str | None:
    if ms is None or ms <= 0:
        return None
    return utc_datetime(ms / 1000).isoformat(timespec="seconds").replace("+00:00", "Z")


def _last_active_ms(info: SessionInfo) -> int:
    when = parse_iso(info.last_activity) if info.last_activity else None
    ms = datetime_millis(when) if when is not None else None
    return ms if ms is not None else round(info.modified * 1000)


class Library:
    """The covered sessions as the tools see them (thread-safe: the SDK may call from threads)."""

    def __init__(
        self,
        roots: Sequence[Path],
        cache_dir: Path,
        *,
        keep_out: Sequence[Path] = (),
        redact: bool = True,
        agents: Sequence[str] = (),
    ) -> None:
        self.roots = list(roots)
        self.redact = redact
        self.agents = tuple(agents)
        self._cache_dir, self._keep_out = cache_dir, list(keep_out)
        self._index = SearchIndex(self.roots, cache_dir, keep_out=keep_out)
        self._indexes: dict[tuple[Path, ...], SearchIndex] = {}  # one machine's roots -> its view
        from sessiontree.archive.keep.manifest import machine_name
        from sessiontree.archive.keep.roots import kept_root_of

        self.machine = machine_name()
        self._machines = {root: kept.machine for root in self.roots if (kept := kept_root_of(root))}
        self._sources = Sources(self.roots, cache_dir)
        self._lock = threading.Lock()
        self._redactors: OrderedDict[tuple[str, float, int], Redactor] = OrderedDict()

    def close(self) -> None:
        """Close the indexes."""
        self._index.close()
        for index in self._indexes.values():
            index.close()

    def machine_of(self, path: Path) -> str:
        """The machine a covered file's session comes from (this one unless it is another's kept copy)."""
        return next((m for root, m in self._machines.items() if is_inside(path, root)), self.machine)

    def _index_of(self, scope: Scope) -> SearchIndex:
        """The index over the scope's roots (one database: another view of it per machine)."""
        if not scope.roots:
            return self._index
        index = self._indexes.get(scope.roots)
        if index is None:
            index = self._indexes[scope.roots] = SearchIndex(
                scope.roots, self._cache_dir, keep_out=self._keep_out
            )
        return index

    # -- arguments ----------------------------------------------------------------------------

    def scope(
        self,
        agent: Any = None,
        project: Any = None,
        since: Any = None,
        until: Any = None,
        machine: Any = None,
    ) -> Scope:
        """The filters of a call, validated (one line of what is wrong otherwise)."""
        agent_name = _text("agent", agent, 40)
        machine_name = _text("machine", machine, 200)
        if agent_name is not None and self.agents and agent_name not in self.agents:
            raise ToolArgumentError(f"agent must be one of: {', '.join(self.agents)}")
        folder = _text("project", project)
        try:
            return Scope(
                agent=agent_name,
                project=project_path(folder) if folder else None,
                since_ms=parse_since(s, zone=LOCAL_ZONE, option="since")
                if (s := _text("since", since))
                else None,
                until_ms=parse_until(u, zone=LOCAL_ZONE) if (u := _text("until", until)) else None,
                machine=machine_name,
                roots=tuple(machine_roots(self.roots, machine_name)) if machine_name else (),
            )
        except FilterError as exc:
            raise ToolArgumentError(str(exc).replace("--until", "until")) from None

    # -- search -------------------------------------------------------------------------------

    def search(
        self, query: Any, scope: Scope, *, role: Any = None, limit: Any = None, offset: Any = 0
    ) -> dict[str, Any]:
        """Hits for ``query`` (FTS5 words, "a phrase", pre*, OR, NOT; else plain text), best first."""
        text = _text("query", query)
        if text is None or not text.strip():
            raise ToolArgumentError("query must not be empty")
        if role is not None and role not in ROLE_CHOICES:
            raise ToolArgumentError(f"role must be one of: {', '.join(ROLE_CHOICES)}")
        size = SEARCH_LIMIT[0] if limit is None else _int("limit", limit, 1, SEARCH_LIMIT[1])
        skip = _int("offset", offset, 0, 1_000_000)
        filters = SearchFilters(
            project=scope.project,
            since_ms=scope.since_ms,
            until_ms=scope.until_ms,
            agent=scope.agent,
            role=role,
            limit=size + 1,  # one more tells whether there are more
            offset=skip,
        )
        with self._lock:
            index = self._index_of(scope)
            index.update()
            hits = index.search(text, filters)
        more = len(hits) > size
        forms = machine_forms() if self.redact else {}
        found = [self._hit(hit, forms) for hit in hits[:size]]
        found = [hit for hit in found if hit is not None]
        answer: dict[str, Any] = {"hits": found}
        if more:
            answer["more"] = f"More hits: call again with offset={skip + size}."
        elif not found:
            answer["note"] = "No match. Try fewer or other words, a prefix (word*), or no filters."
        return answer

    def _hit(self, hit: SearchHit, forms: dict[str, str]) -> dict[str, Any] | None:
        key = self._sources.key_of(str(hit.path))
        if key is None:
            return None
        redactor = new_redactor(forms) if self.redact else None
        marked = "".join(f"«{part}»" if on else part for part, on in hit.snippet.parts())
        snippet = self._clean(hit.snippet.text, redactor)
        # Marks only when nothing was masked: a mark must never split what the redactor reads.
        snippet = self._clean(marked, None) if snippet == replace_surrogates(hit.snippet.text) else snippet
        return {
            "session": key,
            "sessionId": hit.session_id,
            "title": self._clean(hit.title or "", redactor) or None,
            "project": self._clean(hit.cwd or "", redactor) or None,
            "time": hit.time or None,
            "role": hit.role,
            "entryId": hit.entry_id,
            "machine": self.machine_of(hit.path),
            "snippet": snippet,
        }

    # -- listing ------------------------------------------------------------------------------

    def listing(self, scope: Scope) -> list[SessionInfo]:
        """The sessions in scope, newest activity first (subagents' files and non-sessions left out)."""
        with self._lock:
            infos = self._sources.scan()
        kept: list[tuple[int, SessionInfo]] = []
        for info in infos:
            if info.error is not None or info.parent_key is not None:
                continue
            if scope.agent is not None and info.agent != scope.agent:
                continue
            if scope.roots and not any(is_inside(info.path, root) for root in scope.roots):
                continue
            if scope.project is not None and not (info.cwd and in_project(info.cwd, scope.project)):
                continue
            active = _last_active_ms(info)
            if scope.since_ms is not None and active < scope.since_ms:
                continue
            if scope.until_ms is not None and active >= scope.until_ms:
                continue
            kept.append((active, info))
        kept.sort(key=lambda pair: (-pair[0], pair[1].key))
        return [info for _active, info in kept]

    def list_sessions(self, scope: Scope, *, limit: Any = None, offset: Any = 0) -> dict[str, Any]:
        """One page of the listing."""
        size = LIST_LIMIT[0] if limit is None else _int("limit", limit, 1, LIST_LIMIT[1])
        skip = _int("offset", offset, 0, 10_000_000)
        infos = self.listing(scope)
        page = infos[skip : skip + size]
        forms = machine_forms() if self.redact else {}
        answer: dict[str, Any] = {"total": len(infos), "sessions": [self._row(info, forms) for info in page]}
        if skip + size < len(infos):
            answer["more"] = f"More sessions: call again with offset={skip + size}."
        return answer

    def _row(self, info: SessionInfo, forms: dict[str, str]) -> dict[str, Any]:
        redactor = new_redactor(forms) if self.redact else None
        return {
            "session": info.key,
            "sessionId": info.id,
            "agent": info.agent,
            "title": self._clean(info.display_title, redactor) or None,
            "project": self._clean(info.cwd, redactor) or None,
            "lastActive": _time(_last_active_ms(info)),
            "created": info.created,
            "messages": info.message_count,
            "prompts": info.prompt_count,
            "machine": info.machine or self.machine,
            **(
                {"kept": f"its own file is gone since {info.kept}; this is the kept copy"}
                if info.kept
                else {}
            ),
        }

    # -- one session --------------------------------------------------------------------------

    def resolve(self, session: Any) -> SessionInfo:
        """The listed session a key or id names (a unique id prefix of 8 characters or more too)."""
        name = _text("session", session, 2_000)
        if name is None:
            raise ToolArgumentError(
                "session must name a session (its 'session' or 'sessionId' from a listing)"
            )
        with self._lock:
            infos = [i for i in self._sources.scan() if i.error is None]  # stats only, once read
        found = next((i for i in infos if i.key == name), None)
        if found is None:
            exact = [i for i in infos if i.id == name]
            top = [i for i in exact if i.parent_key is None] or exact
            if not top and len(name) >= 8:
                top = [i for i in infos if i.id.startswith(name) and i.parent_key is None]
            if len({i.key for i in top}) > 1:
                keys = ", ".join(sorted(i.key for i in top)[:5])
                raise ToolArgumentError(f"{name!r} names several sessions; pass one 'session' of: {keys}")
            found = top[0] if top else None
        if found is None:
            raise SessionNotFound(
                f"No session {name!r} among the covered sessions; take 'session' from list_sessions or search"
            )
        return found

    def read_session(
        self,
        session: Any,
        *,
        offset: Any = 0,
        limit: Any = None,
        full_tools: Any = False,
        max_chars: Any = None,
        leaf: Any = None,
    ) -> dict[str, Any]:
        """One page of a session's messages on its active branch (or the branch ending at ``leaf``)."""
        info = self.resolve(session)
        size = READ_LIMIT[0] if limit is None else _int("limit", limit, 1, READ_LIMIT[1])
        skip = _int("offset", offset, 0, 10_000_000)
        chars = TEXT_CHARS[0] if max_chars is None else _int("max_chars", max_chars, 100, TEXT_CHARS[1])
        if not isinstance(full_tools, bool):
            raise ToolArgumentError("full_tools must be true or false")
        with self._lock:
            path = self._sources.path_of(info.key)
        from sessiontree.readers import load_for_export  # the loading side: only a read needs it

        loaded = load_for_export(path)
        end = _text("leaf", leaf, 200)
        if end is not None and end not in loaded.tree.by_id:
            raise ToolArgumentError(
                f"leaf {end!r} is no entry of this session; take an entryId from its messages"
            )
        messages = shown_messages(loaded.path_entries(end) if end is not None else loaded.path_entries())
        redactor = self._redactor_of(info, loaded.entries) if self.redact else None
        page = messages[skip : skip + size]
        shown = [self._message(n, m, redactor, chars, full_tools) for n, m in enumerate(page, skip)]
        answer: dict[str, Any] = {
            "session": info.key,
            "sessionId": info.id,
            "agent": info.agent,
            "title": self._clean(info.display_title, redactor) or None,
            "project": self._clean(info.cwd, redactor) or None,
            "messagesOnBranch": len(messages),
            "messages": shown,
        }
        if skip + size < len(messages):
            answer["more"] = f"More messages: call again with offset={skip + size}."
        return answer

    def _message(
        self, n: int, message: Shown, redactor: Redactor | None, chars: int, full_tools: bool
    ) -> dict[str, Any]:
        limit = chars if full_tools or not message.tool else min(chars, TOOL_CHARS)
        text = self._clean(message.text, redactor)
        out: dict[str, Any] = {"n": n, "role": message.role, "time": _time(message.ts)}
        if message.entry_id:
            out["entryId"] = message.entry_id
        if message.typed is not None:
            out["typedPrompt"] = message.typed
        if message.calls:
            out["toolCalls"] = [self._clean(call, redactor)[:limit] for call in message.calls]
        if len(text) > limit:
            rest = len(text) - limit
            hint = (
                "full_tools=true" if message.tool and not full_tools else f"max_chars up to {TEXT_CHARS[1]:,}"
            )
            text = f"{text[:limit]}… [{rest:,} more characters: {hint}]"
        out["text"] = text
        return out

    def _redactor_of(self, info: SessionInfo, entries: list[dict[str, Any]]) -> Redactor:
        """The redactor that learnt every secret of the session (each value masked wherever it recurs)."""
        mark = (info.key, info.modified, info.size)
        with self._lock:
            redactor = self._redactors.get(mark)
            if redactor is not None:
                self._redactors.move_to_end(mark)
                return redactor
        from sessiontree.share.redact import learn_value

        redactor = new_redactor(machine_forms([info.cwd] if info.cwd else []))
        for entry in entries:
            learn_value(redactor, entry)
        with self._lock:
            self._redactors[mark] = redactor
            while len(self._redactors) > REDACTORS_KEPT:
                self._redactors.popitem(last=False)
        return redactor

    def _clean(self, text: str, redactor: Redactor | None) -> str:
        text = replace_surrogates(text)
        if redactor is None or not self.redact:
            return text
        from sessiontree.share.redact import RedactionReport

        return redactor.redact(text, RedactionReport())

    # -- usage --------------------------------------------------------------------------------

    def usage(self, scope: Scope, *, by: Any = "day", model: Any = None, limit: Any = None) -> dict[str, Any]:
        """Tokens and cost grouped by day, week, model, project, agent or session, and the total."""
        if by not in GROUP_CHOICES:
            raise ToolArgumentError(f"by must be one of: {', '.join(GROUP_CHOICES)}")
        size = USAGE_GROUPS[0] if limit is None else _int("limit", limit, 1, USAGE_GROUPS[1])
        query = UsageQuery(
            scope.project, scope.since_ms, scope.until_ms, scope.agent, _text("model", model, 200)
        )
        with self._lock:
            index = self._index_of(scope)
            index.update()
            records = index.usage(query)
        report = summarize(records, by, LOCAL_ZONE).to_json()
        groups: list[dict[str, Any]] = report["groups"]
        # Dated groups: the newest; others: the costliest (summarize's order).
        chosen = groups[-size:] if by in ("day", "week") else groups[:size]
        redactor = new_redactor(machine_forms()) if self.redact else None
        for group in chosen:
            if by == "session":  # its key is the file's path: named as the other tools name it
                group["key"] = self._sources.key_of(group["key"]) or "(not covered)"
            for name in ("key", "title"):
                if isinstance(group.get(name), str):
                    group[name] = self._clean(group[name], redactor)
        report["groups"] = chosen
        if len(groups) > len(chosen):
            report["more"] = (
                f"{len(groups) - len(chosen):,} more groups left out; ask with a larger limit "
                f"(up to {USAGE_GROUPS[1]}) or narrower since/until."
            )
        return report
