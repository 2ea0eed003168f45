"""The session format: entries, lenient JSONL, migrations, blobs, tree/leaf, context, storage.

The names below are imported on first use (PEP 562), so a command that needs one module of the
store (the CLI's root group needs only ``paths``) does not pay for all of them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sessiontree.store.blobs import BlobStore
    from sessiontree.store.context import UNSET, SessionContext, build_session_context
    from sessiontree.store.discovery import SessionInfo, list_all_sessions, list_sessions
    from sessiontree.store.entries import CURRENT_VERSION, ENTRY_TYPES, MESSAGE_ROLES, Entry, Message
    from sessiontree.store.jsonl import BadLine
    from sessiontree.store.load import load_session, parse_session_text
    from sessiontree.store.manager import SessionManager
    from sessiontree.store.paths import AgentPaths, default_agent_dir
    from sessiontree.store.resolve import find_session, resolve_session
    from sessiontree.store.session import Session
    from sessiontree.store.storage import FileSessionStorage, MemorySessionStorage, SessionStorage
    from sessiontree.store.tree import SessionTree

_WHERE = {
    "BlobStore": "sessiontree.store.blobs",
    "UNSET": "sessiontree.store.context",
    "SessionContext": "sessiontree.store.context",
    "build_session_context": "sessiontree.store.context",
    "SessionInfo": "sessiontree.store.discovery",
    "list_all_sessions": "sessiontree.store.discovery",
    "list_sessions": "sessiontree.store.discovery",
    "CURRENT_VERSION": "sessiontree.store.entries",
    "ENTRY_TYPES": "sessiontree.store.entries",
    "MESSAGE_ROLES": "sessiontree.store.entries",
    "Entry": "sessiontree.store.entries",
    "Message": "sessiontree.store.entries",
    "BadLine": "sessiontree.store.jsonl",
    "load_session": "sessiontree.store.load",
    "parse_session_text": "sessiontree.store.load",
    "SessionManager": "sessiontree.store.manager",
    "AgentPaths": "sessiontree.store.paths",
    "default_agent_dir": "sessiontree.store.paths",
    "find_session": "sessiontree.store.resolve",
    "resolve_session": "sessiontree.store.resolve",
    "Session": "sessiontree.store.session",
    "FileSessionStorage": "sessiontree.store.storage",
    "MemorySessionStorage": "sessiontree.store.storage",
    "SessionStorage": "sessiontree.store.storage",
    "SessionTree": "sessiontree.store.tree",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "CURRENT_VERSION",
    "ENTRY_TYPES",
    "MESSAGE_ROLES",
    "UNSET",
    "AgentPaths",
    "BadLine",
    "BlobStore",
    "Entry",
    "FileSessionStorage",
    "MemorySessionStorage",
    "Message",
    "Session",
    "SessionContext",
    "SessionInfo",
    "SessionManager",
    "SessionStorage",
    "SessionTree",
    "build_session_context",
    "default_agent_dir",
    "find_session",
    "list_all_sessions",
    "list_sessions",
    "load_session",
    "parse_session_text",
    "resolve_session",
]
