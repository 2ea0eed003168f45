"""The agent directory layout: sessions per cwd, blobs, terminal breadcrumbs, history database."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

DEFAULT_AGENT_DIR = "~/.xcsh/agent"
AGENT_DIR_ENV = "SESSIONTREE_AGENT_DIR"

_CWD_SEPARATORS = re.compile(r"[/\\:]")


def default_agent_dir() -> Path:
    """``$SESSIONTREE_AGENT_DIR`` or ``~/.xcsh/agent``."""
    return Path(os.environ.get(AGENT_DIR_ENV) or DEFAULT_AGENT_DIR).expanduser()


def default_cache_dir() -> Path:
    """The user cache dir: ``$XDG_CACHE_HOME/sessiontree`` (``~/.cache``; the platform's own elsewhere)."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "sessiontree"
    if os.name == "nt" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "sessiontree" / "Cache"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "sessiontree"


def default_data_dir() -> Path:
    """The user data dir other agents keep their files in: ``$XDG_DATA_HOME`` (``~/.local/share``)."""
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share").expanduser()


KEEP_DIR_ENV = "SESSIONTREE_KEEP_DIR"


def keep_data_dir() -> Path:
    """Where ``keep`` keeps its archive, key and shown copies: ``$SESSIONTREE_KEEP_DIR``, else the
    user data dir's ``sessiontree`` (``~/.local/share``; the platform's own elsewhere, as the cache)."""
    if os.environ.get(KEEP_DIR_ENV):
        return Path(os.environ[KEEP_DIR_ENV]).expanduser()
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "sessiontree"
    if os.name == "nt" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "sessiontree" / "Data"
    return default_data_dir() / "sessiontree"


def keep_key_file() -> Path:
    """``keep``'s key file: in the user config dir (``$XDG_CONFIG_HOME``, ``~/.config``), not beside
    the archive in the data dir, so a copy of the one is not a copy of the other."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base).expanduser() / "sessiontree" / "keep.key"


def encode_cwd(cwd: str) -> str:
    """The session folder name of a cwd: leading slash removed, ``/ \\ :`` turned into ``-``."""
    return "--" + _CWD_SEPARATORS.sub("-", cwd.lstrip("/\\")) + "--"


_CLAUDE_SEPARATORS = re.compile(r"[^A-Za-z0-9-]")


def names_folder(folder: str, cwd: str) -> bool:
    """True when a session folder's name is the one its agent gives ``cwd``'s sessions: pi's
    (``encode_cwd``) or Claude Code's (``projects/<cwd, each character not a letter, digit or
    ``-`` as ``-``>``). Neither can be decoded alone (``--home-my-app--`` is ``/home/my-app`` or
    ``/home/my/app``): a cwd read from one of the folder's files tells which."""
    return bool(cwd) and (folder == encode_cwd(cwd) or folder == _CLAUDE_SEPARATORS.sub("-", cwd))


def folder_cwd(folder: str) -> str:
    """The cwd a session folder's name alone says, when it says one: ``--work--`` (pi) and
    ``-work`` (Claude Code) are ``/work``; any other name could be several (see ``names_folder``)."""
    pi = folder[2:-2] if len(folder) > 4 and folder.startswith("--") and folder.endswith("--") else ""
    name = pi or (folder[1:] if folder[:1] == "-" and folder[1:2] != "-" else "")
    return "/" + name if name.isalnum() and name.isascii() else ""


@dataclass(frozen=True, slots=True)
class AgentPaths:
    """Where an agent dir keeps each kind of file."""

    root: Path

    @classmethod
    def default(cls) -> AgentPaths:
        return cls(default_agent_dir())

    @property
    def sessions_dir(self) -> Path:
        return self.root / "sessions"

    @property
    def blobs_dir(self) -> Path:
        return self.root / "blobs"

    @property
    def terminal_sessions_dir(self) -> Path:
        return self.root / "terminal-sessions"

    @property
    def history_db(self) -> Path:
        return self.root / "history.db"

    def session_dir_for(self, cwd: str) -> Path:
        """The folder holding the sessions of one working directory."""
        return self.sessions_dir / encode_cwd(cwd)


def artifacts_dir_for(session_file: Path) -> Path:
    """A session's artifact directory: its file path without ``.jsonl``."""
    name = session_file.name
    return session_file.with_name(name[: -len(".jsonl")] if name.endswith(".jsonl") else name + ".d")


def blob_dirs_near(folder: Path, agent_dir: Path | None = None) -> list[Path]:
    """Blob stores to try for the sessions in ``folder``, most specific first: the one blob-dir rule.

    The agent's global store; the store of the agent dir the folder belongs to (``folder`` is
    ``<agent>/sessions`` or one of its project folders); and a ``blobs/`` folder inside
    ``folder`` (exported bundles and test fixtures).
    """
    candidates: list[Path] = [(agent_dir or default_agent_dir()) / "blobs"]
    if folder.name == "sessions":
        candidates.append(folder.parent / "blobs")
    elif folder.parent.name == "sessions":
        candidates.append(folder.parent.parent / "blobs")
    candidates.append(folder / "blobs")
    unique: list[Path] = []
    for path in candidates:
        if path not in unique:
            unique.append(path)
    return unique


def blob_dirs_for(session_file: Path | None, agent_dir: Path | None = None) -> list[Path]:
    """Blob stores to try for a session file (``blob_dirs_near`` its folder; the agent's alone for none)."""
    if session_file is None:
        return [(agent_dir or default_agent_dir()) / "blobs"]
    return blob_dirs_near(session_file.resolve().parent, agent_dir)
