"""Every exception class of sessiontree, in one tree grouped by what went wrong.

The library raises these; ``cli`` prints ``Error: <message>`` and exits with ``exit_code`` (1;
130 for a cancelled share). A caller catches a group (``NotFoundError``, ``BadInputError``, ...)
without knowing which module raised it, or one subsystem's class.

* SessiontreeError
  + NotFoundError - what was named is not there
  |  + SessionNotFound - a file, id or prefix that names no session
  |  + EntryNotFound - an entry id not in the session
  |  + ArtifactError - an artifact:// or agent:// URL that does not resolve
  + BadInputError - what was given cannot be used
  |  + InvalidSession - not a session file (no header, a directory, unreadable)
  |  |  + ForeignSession - another agent's file where only ours will do
  |  + FilterError - a --since, --project or --exclude value
  |  + ToolArgumentError - an argument of an MCP tool call
  |  + ExportError - a session that cannot be exported (theme, output path)
  |  |  + InputFileError - a file named on the command line (system prompt, tools)
  |  + SealError - an encrypted page's envelope that will not open (wrong key, damaged)
  + ConflictError - the input is fine but something else stands in the way
  |  + AmbiguousSession - an id prefix that matches several sessions
  |  + PersistError - writing a session failed (sticky)
  + IndexFailure - a store of many sessions cannot be made, read or queried
  |  + HistoryError - the prompt history database
  |  + SearchError - the search index (SQLite FTS5), or a search option
  |  + SearchIndexError - Pagefind could not run, or failed while indexing
  |  + KeepError - the archive of kept sessions (its store, its lock)
  |     + KeepKeyError - the key or passphrase does not open the archive
  |     + KeepDamaged - an object was altered or cut: refused, never shown
  + PublishFailure - a session could not be published
  |  + ShareError - publishing a session failed
  |     + ShareCancelled - the user interrupted a share (exit 130)
  |     + GistNotFound - the gist to delete is gone
  + StartFailure - a command cannot start here
     + ServeError - the server cannot start
     + BuildError - the site build cannot start (bad folder, output or filter)
     + ClipboardError - no way to reach the clipboard
"""

from __future__ import annotations


class SessiontreeError(Exception):
    """Base of every error sessiontree raises on purpose (bad input, missing files, ...)."""

    exit_code = 1


# --- the groups: what went wrong ------------------------------------------------------------


class NotFoundError(SessiontreeError):
    """What was named (a session, an entry, an artifact) is not there."""


class BadInputError(SessiontreeError):
    """What was given (a file, an option, a value) cannot be used."""


class ConflictError(SessiontreeError):
    """The input is fine, but something else stands in the way (several matches, a failed write)."""


class IndexFailure(SessiontreeError):
    """A store of many sessions (history, search index, Pagefind) cannot be made, read or queried."""


class PublishFailure(SessiontreeError):
    """A session could not be published."""


class StartFailure(SessiontreeError):
    """A command cannot start here (a folder, an address, a tool it needs)."""


# --- not found ------------------------------------------------------------------------------


class SessionNotFound(NotFoundError):
    """A session file, id or prefix that does not resolve to a session."""


class EntryNotFound(NotFoundError):
    """An entry id that is not in the session."""


class ArtifactError(NotFoundError):
    """An artifact:// or agent:// URL that cannot be resolved."""


# --- bad input ------------------------------------------------------------------------------


class InvalidSession(BadInputError):
    """A file that is not a session (no valid header, a directory, unreadable)."""


class ForeignSession(InvalidSession):
    """Another agent's session file (Claude Code, Codex CLI) where only our own format will do."""


class FilterError(BadInputError):
    """A ``--since``, ``--project`` or ``--exclude`` value that cannot be used."""


class ToolArgumentError(BadInputError):
    """An argument of an MCP tool call that cannot be used (its type, range or value)."""


class ExportError(BadInputError):
    """The session cannot be exported."""


class InputFileError(ExportError):
    """A file named on the command line (system prompt, tools) cannot be used."""


class SealError(BadInputError):
    """An encrypted page's envelope will not open: a wrong key or password, or damaged bytes."""


# --- conflict -------------------------------------------------------------------------------


class AmbiguousSession(ConflictError):
    """An id prefix that matches more than one session."""


class PersistError(ConflictError):
    """Writing a session to disk failed; kept and raised again by later operations."""


# --- index failure --------------------------------------------------------------------------


class HistoryError(IndexFailure):
    """The prompt history database cannot be opened, read or written."""


class SearchError(IndexFailure):
    """The search index cannot be opened, updated or queried, or a search option is invalid."""


class SearchIndexError(IndexFailure):
    """Pagefind could not be run or failed while indexing."""


class KeepError(IndexFailure):
    """The archive of kept sessions cannot be written or read (its store, its lock, a setting)."""


class KeepKeyError(KeepError):
    """The key file or passphrase does not open the archive (or is missing)."""


class KeepDamaged(KeepError):
    """An object of the archive was altered, cut or is not ours: refused, never shown."""


# --- publish failure ------------------------------------------------------------------------


class ShareError(PublishFailure):
    """Publishing a session failed."""


class ShareCancelled(ShareError):
    """The user interrupted a share."""

    exit_code = 130


class GistNotFound(ShareError):
    """The gist to delete no longer exists (or this account cannot see it)."""


# --- start failure --------------------------------------------------------------------------


class ServeError(StartFailure):
    """The server cannot start (folder missing, address in use, cache dir inside the folder)."""


class BuildError(StartFailure):
    """The build cannot start (bad folder, bad output, bad filter)."""


class ClipboardError(StartFailure):
    """No way to reach the clipboard."""
