"""Every exception class of sessiontree, in one hierarchy; the CLI turns them into one-line messages.

The library raises these; ``cli`` prints ``Error: <message>`` and exits with ``exit_code``.

* SessiontreeError
  + SessionNotFound - a file, id or prefix that names no session
  + InvalidSession - not a session file (no header, a directory, unreadable)
  |  + ForeignSession - another agent's file where only ours will do
  + AmbiguousSession - an id prefix that matches several sessions
  + EntryNotFound - an entry id not in the session
  + PersistError - writing a session failed (sticky)
  + ArtifactError - an artifact:// or agent:// URL that does not resolve
  + HistoryError - the prompt history database
  + SearchError - the search index, or a search option
  + FilterError - a --since, --project or --exclude value
  + ExportError - a session that cannot be exported
  |  + InputFileError - a file named on the command line (system prompt, tools)
  + ClipboardError - no way to reach the clipboard
  + ShareError - publishing a session failed
  |  + ShareCancelled - the user interrupted a share (exit 130)
  |  + GistNotFound - the gist to delete is gone
  + ServeError - the server cannot start
  + BuildError - the site build cannot start (bad folder, output or filter)
  + SearchIndexError - Pagefind could not run, or failed while indexing
"""

from __future__ import annotations


class SessiontreeError(Exception):
    """Base of every error sessiontree raises on purpose (bad input, missing files, ...)."""

    exit_code = 1


class SessionNotFound(SessiontreeError):
    """A session file, id or prefix that does not resolve to a session."""


class InvalidSession(SessiontreeError):
    """A file that is not a session (no valid header, a directory, unreadable)."""


class ForeignSession(InvalidSession):
    """Another agent's session file (Claude Code, Codex CLI) where only our own format will do."""


class AmbiguousSession(SessiontreeError):
    """An id prefix that matches more than one session."""


class EntryNotFound(SessiontreeError):
    """An entry id that is not in the session."""


class PersistError(SessiontreeError):
    """Writing a session to disk failed; kept and raised again by later operations."""


class ArtifactError(SessiontreeError):
    """An artifact:// or agent:// URL that cannot be resolved."""


class HistoryError(SessiontreeError):
    """The prompt history database cannot be opened, read or written."""


class SearchError(SessiontreeError):
    """The search index cannot be opened, updated or queried, or a search option is invalid."""


class ExportError(SessiontreeError):
    """The session cannot be exported."""


class InputFileError(ExportError):
    """A file named on the command line (system prompt, tools) cannot be used."""


class ClipboardError(SessiontreeError):
    """No way to reach the clipboard."""


class ShareError(SessiontreeError):
    """Publishing a session failed."""


class ShareCancelled(ShareError):
    """The user interrupted a share."""

    exit_code = 130


class ServeError(SessiontreeError):
    """The server cannot start (folder missing, address in use, cache dir inside the folder)."""


class FilterError(SessiontreeError):
    """A ``--since``, ``--project`` or ``--exclude`` value that cannot be used."""


class GistNotFound(ShareError):
    """The gist to delete no longer exists (or this account cannot see it)."""


class BuildError(SessiontreeError):
    """The build cannot start (bad folder, bad output, bad filter)."""


class SearchIndexError(SessiontreeError):
    """Pagefind could not be run or failed while indexing."""
