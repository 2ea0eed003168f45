"""Valid files of every added agent's format, and hypothesis strategies that damage them (issue 55).

``FORMATS`` names, for each format, how to write a good file of it into a folder with a marker
text and an id of its own; ``mutations`` draws changes to its parsed values (any field given a
value of the wrong type or range, or removed) and ``damage`` to its bytes (cut short, a byte
flipped, invalid UTF-8). The property tests (``test_reader_properties``) and the whole-folder
tests (``test_damaged_folder``) share them.
"""

from __future__ import annotations

import copy
import json
import re
import sqlite3
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.readers.test_damaged_formats import SOURCES

HOSTILE: list[Any] = [
    float("nan"), float("inf"), float("-inf"), 10**400, -(10**400), -(10**6), -1, 0, 10**18, 2**63, 2**64,
    1e308, -1e-308, 3.5, True, False, None, "", "\ud800", "x \udfff y", "\x00", "\x1b[31m", "9999-99-99T",
    "2999-01-01T00:00:00Z", "29999-01-01T00:00:00Z", "-1", "NaN", [], {}, [None], [1, "a"], {"": None},
    {"type": 3}, [[[[[[[[[[[]]]]]]]]]]],
]  # fmt: skip
"""Values every field is given in turn: wrong JSON types, numbers out of range, text no encoder takes."""

hostile = st.one_of(
    st.sampled_from(HOSTILE),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.recursive(
        st.none() | st.booleans() | st.integers(-5, 5),
        lambda inner: st.lists(inner, max_size=2),
        max_leaves=4,
    ),
)
"""One value to put where any field was."""

Path_ = tuple[Any, ...]


def paths(value: Any, at: Path_ = ()) -> Iterator[Path_]:
    """Every place in a parsed JSON value (its root first)."""
    yield at
    children = (
        value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    )
    for key, child in children:
        yield from paths(child, (*at, key))


def get(value: Any, at: Path_) -> Any:
    for key in at:
        value = value[key]
    return value


@dataclass(frozen=True)
class Change:
    """One change to a parsed value: at the ``pick``-th place (modulo their number), ``value`` put
    there, or the key removed."""

    pick: int
    value: Any
    remove: bool
    kindred: bool = False
    add: bool = False
    """Set a field some reader asks for (``READER_KEYS``) on an object of the file, instead."""
    """Damage the value in its own kind instead: text given a lone surrogate and an escape
    sequence, a number NaN, Infinity, 400 digits or a negative, a list or object another type."""


READER_KEYS: list[str] = sorted(
    {
        key
        for source in (Path(__file__).parents[2] / "src" / "sessiontree" / "readers").glob("*.py")
        for key in re.findall(r'\.get\(\s*"([A-Za-z_][A-Za-z0-9_.]*)"', source.read_text(encoding="utf-8"))
    }
)
"""Every field name a reader reads with ``.get("…")``: a field a file may lack, given a bad value."""

KINDRED_NUMBERS: list[Any] = [float("nan"), float("inf"), 10**400, -(10**6), 10**18, -1, 1e308, 2**64]


def kindred(old: Any, pick: int) -> Any:
    """What ``old`` becomes under a kindred change (see ``Change.kindred``)."""
    if isinstance(old, str):
        return old[: pick % (len(old) + 1)] + "\ud800\x1b[2J" + old[pick % (len(old) + 1) :] + "\udfff"
    if isinstance(old, bool):
        return "true"
    if isinstance(old, int | float):
        return KINDRED_NUMBERS[pick % len(KINDRED_NUMBERS)]
    return 7 if isinstance(old, list) else ["x"]


changes = st.lists(
    st.builds(Change, st.integers(0, 10**6), hostile, st.booleans(), st.booleans(), st.booleans()),
    min_size=1,
    max_size=4,
)


def apply(value: Any, found: list[Change], keep: Path_ | None) -> tuple[Any, list[Path_]]:
    """``value`` with each change made; the record ``keep``, what it holds and what holds it are
    never changed (the rest of the file is what a reader must still show)."""
    out = copy.deepcopy(value)
    touched: list[Path_] = []
    for change in found:
        places = [
            p for p in paths(out)
            if p and (keep is None or (keep[: len(p)] != p and p[: len(keep)] != keep))
        ]  # fmt: skip
        if change.add:
            objects = [p for p in [(), *places] if isinstance(get(out, p), dict)]
            if objects:
                holder = get(out, objects[change.pick % len(objects)])
                key = READER_KEYS[(change.pick // 7) % len(READER_KEYS)]
                holder[key] = copy.deepcopy(change.value)
                touched.append((*objects[change.pick % len(objects)], key))
                continue
        if change.kindred:  # a leaf, damaged in its own kind: text and numbers are what readers show
            places = [p for p in places if isinstance(get(out, p), str | int | float)] or places
        if not places:
            break
        at = places[change.pick % len(places)]
        touched.append(at)
        holder = get(out, at[:-1])
        if change.kindred:
            holder[at[-1]] = kindred(holder[at[-1]], change.pick)
        elif change.remove and isinstance(holder, dict):
            del holder[at[-1]]
        else:
            holder[at[-1]] = copy.deepcopy(change.value)
    return out, touched


@dataclass(frozen=True)
class Damage:
    """Damage to a file's bytes: ``kind`` at a fraction ``where`` of its length."""

    kind: str  # "cut" | "flip" | "utf8"
    where: float


damages = st.none() | st.builds(Damage, st.sampled_from(["cut", "flip", "utf8"]), st.floats(0, 1))


def damaged(data: bytes, damage: Damage | None) -> bytes:
    if damage is None or not data:
        return data
    at = min(len(data) - 1, int(len(data) * damage.where))
    if damage.kind == "cut":
        return data[:at]
    if damage.kind == "flip":
        return data[:at] + bytes([data[at] ^ 0x5A]) + data[at + 1 :]
    return data[:at] + b"\xff\xfe\xed\xa0\x80" + data[at:]


def dumps(value: Any, pretty: bool) -> bytes:
    """JSON as a JavaScript agent writes it: NaN as written by Python, lone surrogates as escapes."""
    return json.dumps(value, indent=2 if pretty else None, allow_nan=True).encode("ascii")


@dataclass(frozen=True)
class Format:
    """One format: a file's name in a folder, its content made with a marker, where the marker is."""

    agent: str
    name: Callable[[str], str]
    """The relative path of a session named ``tag`` (the listing finds it by this name)."""
    make: Callable[[str, str], Any]
    """(tag, marker) -> parsed content (a list: JSON lines; a dict: one object; a str: text)."""
    marker: Path_ | None
    """Where the marker text is; None for a text format."""
    depth: int = 1
    """How many steps of ``marker`` name its record (a line: 1; a message of a list: 2), never changed."""

    identity: tuple[Path_, ...] = ()
    """The fields that make a file this format's (its sniffer's): changed, the file may be none."""

    def keeps_identity(self, touched: list[Path_]) -> bool:
        """Tell whether changes at ``touched`` left every field that makes the file this format's."""
        return not any(i[: len(at)] == at for at in touched for i in self.identity)

    @property
    def record(self) -> Path_ | None:
        """The record holding the marker, which ``apply`` leaves alone."""
        return None if self.marker is None else self.marker[: self.depth]

    def write(self, folder: Path, tag: str, content: Any, damage: Damage | None = None) -> Path:
        path = folder / self.name(tag)
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            data = content.encode("utf-8", "surrogatepass")
        elif isinstance(content, list):
            data = b"".join(dumps(line, False) + b"\n" for line in content)
        else:
            data = dumps(content, True)
        path.write_bytes(damaged(data, damage))
        return path


@dataclass(frozen=True)
class TaskFormat(Format):
    """Cline's task folder: ``{"history": [...], "ui": [...]}`` written as its two arrays (the
    history damaged as the others' files are)."""

    def write(self, folder: Path, tag: str, content: Any, damage: Damage | None = None) -> Path:
        path = folder / self.name(tag)
        path.parent.mkdir(parents=True, exist_ok=True)
        parts = content if isinstance(content, dict) else {"history": content}
        path.write_bytes(damaged(dumps(parts.get("history"), False), damage))
        (path.parent / "ui_messages.json").write_bytes(dumps(parts.get("ui", []), False))
        return path


@dataclass(frozen=True)
class CompanionFormat(Format):
    """A session file with a file beside that holds its spend (Kimi CLI's ``wire.jsonl``, droid's
    ``<id>.settings.json``), written good."""

    companion: Callable[[Path], tuple[Path, str]] | None = None

    def write(self, folder: Path, tag: str, content: Any, damage: Damage | None = None) -> Path:
        path = super().write(folder, tag, content, damage)
        if self.companion is not None:
            beside, text = self.companion(path)
            beside.write_text(text, encoding="utf-8")
        return path


def _kimi_wire(path: Path) -> tuple[Path, str]:
    from tests.readers.test_kimi import WIRE

    return path.with_name("wire.jsonl"), "".join(json.dumps(r) + "\n" for r in WIRE)


def _factory_settings(path: Path) -> tuple[Path, str]:
    from tests.readers.test_factory import SETTINGS

    return path.with_name(f"{path.stem}.settings.json"), json.dumps(SETTINGS)


@dataclass(frozen=True)
class ConversationFormat(Format):
    """An OpenHands conversation: ``{"state": ..., "events": [...]}`` written as ``base_state.json``
    (damaged as the others' files are) and one file an event."""

    def write(self, folder: Path, tag: str, content: Any, damage: Damage | None = None) -> Path:
        path = folder / self.name(tag)
        (path.parent / "events").mkdir(parents=True, exist_ok=True)
        parts = content if isinstance(content, dict) else {"state": content}
        path.write_bytes(damaged(dumps(parts.get("state"), True), damage))
        events = parts.get("events")
        for index, event in enumerate(events if isinstance(events, list) else []):
            (path.parent / "events" / self.event_name(index)).write_bytes(dumps(event, False))
        return path

    def event_name(self, index: int) -> str:
        """The file name of the event at ``index`` (the SDK's)."""
        return f"event-{index:05d}-x.json"


@dataclass(frozen=True)
class ServerConversationFormat(ConversationFormat):
    """An OpenHands conversation of its 0.x server: ``metadata.json`` and ``events/<n>.json``."""

    def event_name(self, index: int) -> str:
        return f"{index}.json"


def _set(value: Any, at: Path_, new: Any) -> Any:
    get(value, at[:-1])[at[-1]] = new
    return value


def _source(name: str) -> Any:
    return copy.deepcopy(SOURCES[name]()[1])


def _gemini(tag: str, marker: str) -> Any:
    chat = _source("gemini-json")
    chat["sessionId"] = f"gemini-{tag}"
    return _set(chat, ("messages", 0, "content", 0, "text"), marker)


def _qwen(tag: str, marker: str) -> Any:
    lines = _source("qwen-jsonl")
    for line in lines:
        line["sessionId"] = f"qwen-{tag}"
    return _set(lines, (0, "message", "parts", 0, "text"), marker)


def _copilot(tag: str, marker: str) -> Any:
    events = _source("copilot")
    events[0]["data"]["sessionId"] = f"copilot-{tag}"
    return _set(events, (2, "data", "content"), marker)


def _goose(tag: str, marker: str) -> Any:
    lines = _source("goose")
    lines[0]["description"] = f"goose {tag}"
    return _set(lines, (1, "content", 0, "text"), marker)


def _amp(tag: str, marker: str) -> Any:
    thread = _source("amp")
    thread["id"] = _amp_name(tag)[len("threads/") : -len(".json")]
    return _set(thread, ("messages", 0, "content", 0, "text"), marker)


def _opencode_export(tag: str, marker: str) -> Any:
    document = _source("opencode-export")
    document["info"]["id"] = f"ses_{tag}"
    return _set(document, ("messages", 0, "parts", 0, "text"), marker)


def _crush(tag: str, marker: str) -> Any:
    document = _source("crush-document")
    document["crushSession"]["id"] = f"crush-{tag}"
    return _set(document, ("messages", 0, "parts", 0, "data", "text"), marker)


def _aider(tag: str, marker: str) -> str:
    history: str = SOURCES["aider"]()[1]
    return history.replace("why is the cache cold after a restart?", marker)


_IN_MESSAGE = 2  # the marker's record: a message of the file's list


def _cline(tag: str, marker: str) -> Any:
    from tests.readers.test_cline import HISTORY, UI

    return _set(
        {"history": copy.deepcopy(HISTORY), "ui": copy.deepcopy(UI)},
        ("history", 0, "content", 0, "text"),
        marker,
    )


def _continue(tag: str, marker: str) -> Any:
    from tests.readers.test_continue import SESSION

    session = copy.deepcopy(SESSION)
    session["sessionId"] = f"continue-{tag}"
    return _set(session, ("history", 0, "message", "content", 0, "text"), marker)


def _kiro(tag: str, marker: str) -> Any:
    from tests.readers.test_kiro import SESSION

    session = {**copy.deepcopy(SESSION), "sessionId": f"kiro-{tag}"}
    return _set(session, ("history", 0, "message", "content", 0, "text"), marker)


def _kimi(tag: str, marker: str) -> Any:
    from tests.readers.test_kimi import CONTEXT

    return _set(copy.deepcopy(CONTEXT), (2, "content", 0, "text"), marker)


def _factory(tag: str, marker: str) -> Any:
    from tests.readers.test_factory import LINES

    lines = copy.deepcopy(LINES)
    lines[0]["id"] = f"factory-{tag}"
    return _set(lines, (1, "message", "content", 1, "text"), marker)


_OPENHANDS_MARKER = ("events", 1, "llm_message", "content", 0, "text")


def _openhands_v0(tag: str, marker: str) -> Any:
    from tests.readers.test_openhands_v0 import EVENTS, METADATA

    state = {**copy.deepcopy(METADATA), "conversation_id": f"openhands-v0-{tag}"}
    return _set({"state": state, "events": copy.deepcopy(EVENTS)}, ("events", 1, "args", "content"), marker)


def _openhands(tag: str, marker: str) -> Any:
    from tests.readers.test_openhands import EVENTS, STATE

    state = {**copy.deepcopy(STATE), "id": f"openhands-{tag}"}
    return _set(
        {"state": state, "events": copy.deepcopy(EVENTS)},
        ("events", 1, "llm_message", "content", 0, "text"),
        marker,
    )


def _cline_name(tag: str) -> str:
    return f"tasks/{1764831000000 + zlib.crc32(tag.encode()) % 10**6}/api_conversation_history.json"


def _amp_name(tag: str) -> str:
    return f"threads/T-00000000-0000-4000-8000-{zlib.crc32(tag.encode()):012d}.json"


FORMATS: dict[str, Format] = {
    "gemini": Format(
        "gemini", lambda t: f"{t}/chats/session-2025-09-01T10-00-{t}.json", _gemini,
        ("messages", 0, "content", 0, "text"), _IN_MESSAGE, (("sessionId",), ("projectHash",)),
    ),
    "qwen": Format("qwen", lambda t: f"{t}.jsonl", _qwen, (0, "message", "parts", 0, "text")),
    "copilot": Format("copilot", lambda t: f"{t}/events.jsonl", _copilot, (2, "data", "content")),
    "goose": Format(
        "goose", lambda t: f"{t}.jsonl", _goose, (1, "content", 0, "text"), 1,
        ((0, "working_dir"), (0, "description"), (0, "message_count")),
    ),
    "amp": Format("amp", _amp_name, _amp, ("messages", 0, "content", 0, "text"), _IN_MESSAGE, (("id",),)),
    "opencode-export": Format(
        "opencode", lambda t: f"{t}/session/p/ses_{t}.json", _opencode_export,
        ("messages", 0, "parts", 0, "text"), _IN_MESSAGE, (("info", "id"), ("info", "time", "created")),
    ),
    "crush": Format(
        "crush", lambda t: f"{t}.json", _crush, ("messages", 0, "parts", 0, "data", "text"), _IN_MESSAGE,
        (("crushSession",),),
    ),
    "aider": Format("aider", lambda t: f"{t}/.aider.chat.history.md", _aider, None),
    "continue": Format(
        "continue", lambda t: f".continue/sessions/continue-{t}.json", _continue,
        ("history", 0, "message", "content", 0, "text"), _IN_MESSAGE,
        (("sessionId",), ("history",), ("workspaceDirectory",)),
    ),
    "kiro": Format(
        "kiro", lambda t: f"workspace-sessions/w/kiro-{t}.json", _kiro,
        ("history", 0, "message", "content", 0, "text"), _IN_MESSAGE,
        (("sessionId",), ("history",), ("workspacePath",), ("selectedModel",)),
    ),
    "kimi": CompanionFormat(
        "kimi", lambda t: f"0a1b/{t}/context.jsonl", _kimi, (2, "content", 0, "text"), companion=_kimi_wire
    ),
    "factory": CompanionFormat(
        "factory", lambda t: f"-w/{t}.jsonl", _factory, (1, "message", "content", 1, "text"),
        identity=((0, "type"), (0, "id")), companion=_factory_settings,
    ),
    "openhands": ConversationFormat(
        "openhands", lambda t: f"{t}/base_state.json", _openhands, _OPENHANDS_MARKER, _IN_MESSAGE,
        (("state",),),
    ),
    "cline": TaskFormat("cline", _cline_name, _cline, ("history", 0, "content", 0, "text"), _IN_MESSAGE),
    "openhands-v0": ServerConversationFormat(
        "openhands", lambda t: f"{t}/metadata.json", _openhands_v0, ("events", 1, "args", "content"),
        _IN_MESSAGE, (("state",),),
    ),
}  # fmt: skip
"""Every one-file format of the readers issue 41 added (OpenCode's storage and databases: below)."""


def mutate_database_row(db: Path, table: str, column: str, rowid: int, value: Any) -> None:
    """Put ``value`` into one cell of a database (any SQLite type: text, a BLOB, a huge integer)."""
    if isinstance(value, int) and not -(2**63) <= value < 2**63:
        value = str(value)  # what SQLite cannot hold as an integer, as text
    elif isinstance(value, str):
        value = value.encode("utf-8", "surrogatepass")  # invalid UTF-8 stays bytes: a BLOB
    elif isinstance(value, list | dict):
        value = json.dumps(value)
    con = sqlite3.connect(db)
    try:
        try:
            con.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE rowid = ?', (value, rowid))
        except sqlite3.IntegrityError:  # NULL where the schema forbids it: the nearest a file can hold
            try:
                con.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE rowid = ?', (b"\xff", rowid))
            except sqlite3.IntegrityError:  # an INTEGER PRIMARY KEY (the rowid): only another integer
                con.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE rowid = ?', (rowid + 10**6, rowid))
        con.commit()
    finally:
        con.close()


def table_cells(db: Path) -> list[tuple[str, str, int]]:
    """(table, column, rowid) of every cell of a database's tables."""
    con = sqlite3.connect(db)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        cells = []
        for table in tables:
            columns = [r[1] for r in con.execute(f'PRAGMA table_info("{table}")')]
            for (rowid,) in con.execute(f'SELECT rowid FROM "{table}"'):
                cells += [(table, column, rowid) for column in columns]
        return cells
    finally:
        con.close()
