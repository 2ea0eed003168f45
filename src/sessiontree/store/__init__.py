"""The session format: entries, lenient JSONL, migrations, blobs, tree/leaf, context, storage."""

from __future__ import annotations

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
