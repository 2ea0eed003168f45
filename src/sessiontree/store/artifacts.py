"""Session-local artifact files: truncated tool output (``artifact://``) and subagent output (``agent://``)."""

from __future__ import annotations

import re
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sessiontree.errors import ArtifactError
from sessiontree.store import paths
from sessiontree.store.output_sink import DEFAULT_MAX_BYTES, OutputSink

SESSION_SUFFIX = ".jsonl"
ARTIFACT_SUFFIX = ".log"
AGENT_OUTPUT_SUFFIX = ".md"

# ``{id}.{toolType}.log``: the id is the leading run of ASCII digits before the first dot.
_ARTIFACT_NAME = re.compile(r"([0-9]+)\.[^/\\]*\.log", re.ASCII)
# A tool type becomes part of a file name, so it is kept to a safe alphabet.
_TOOL_TYPE = re.compile(r"[A-Za-z0-9_-]{1,64}", re.ASCII)
# Characters a requested agent id may keep; anything else (dots, separators, ...) becomes "_".
_UNSAFE_ID_CHARS = re.compile(r"[^A-Za-z0-9_-]", re.ASCII)
_SAFE_SEGMENT = re.compile(r"[A-Za-z0-9_-]+", re.ASCII)
_AGENT_INDEX = re.compile(r"([0-9]+)-", re.ASCII)


def artifacts_dir_for(session_file: Path) -> Path:
    """Return the artifact directory of a session file: its path without ``.jsonl``."""
    name = session_file.name
    if not name.endswith(SESSION_SUFFIX) or name == SESSION_SUFFIX:
        raise ArtifactError(f"Not a session file: {session_file} (its name does not end in {SESSION_SUFFIX})")
    return paths.artifacts_dir_for(session_file)


def list_dir_names(directory: Path) -> list[str]:
    """Return the sorted file names in ``directory``; a missing directory gives an empty list."""
    try:
        return sorted(p.name for p in directory.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []


def artifact_ids(names: list[str]) -> list[int]:
    """Return the numeric ids of the ``{id}.{toolType}.log`` names, ascending and unique."""
    ids = {int(m.group(1)) for n in names if (m := _ARTIFACT_NAME.fullmatch(n))}
    return sorted(ids)


def find_artifact_name(names: list[str], artifact_id: int) -> str | None:
    """Return the first ``{id}.{toolType}.log`` name whose id is ``artifact_id`` (``007`` counts as 7)."""
    for name in names:
        m = _ARTIFACT_NAME.fullmatch(name)
        if m and int(m.group(1)) == artifact_id:
            return name
    return None


def agent_output_ids(names: list[str]) -> list[str]:
    """Return the output ids (file names without ``.md``) of the agent output files."""
    return sorted(
        n[: -len(AGENT_OUTPUT_SUFFIX)] for n in names if n.endswith(AGENT_OUTPUT_SUFFIX) and len(n) > 3
    )


@dataclass(frozen=True)
class ArtifactSlot:
    """An allocated artifact id and the file path it owns (the file is not created yet)."""

    id: str
    path: Path

    @property
    def url(self) -> str:
        """Return the ``artifact://`` URL of this slot."""
        return f"artifact://{self.id}"


class ArtifactManager:
    """Allocate ``{id}.{toolType}.log`` files in one session's artifact directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._next_id: int | None = None
        self._lock = threading.Lock()

    @classmethod
    def for_session(cls, session_file: Path) -> ArtifactManager:
        """Return the manager of the artifact directory beside ``session_file``."""
        return cls(artifacts_dir_for(session_file))

    def list_files(self) -> list[str]:
        """Return the names of the artifact files present (empty when the directory is missing)."""
        return [n for n in list_dir_names(self.directory) if _ARTIFACT_NAME.fullmatch(n)]

    def allocate(self, tool_type: str) -> ArtifactSlot:
        """Reserve the next id for ``tool_type``; existing files are scanned first so none is overwritten."""
        if not _TOOL_TYPE.fullmatch(tool_type):
            raise ArtifactError(f"Invalid tool type {tool_type!r}; use letters, digits, '_' or '-'")
        with self._lock:
            if self._next_id is None:
                # Scanned once, on first use: a resumed or forked session continues after its max id.
                ids = artifact_ids(self.list_files())
                self._next_id = ids[-1] + 1 if ids else 0
            artifact_id = str(self._next_id)
            self._next_id += 1
        return ArtifactSlot(artifact_id, self.directory / f"{artifact_id}.{tool_type}{ARTIFACT_SUFFIX}")

    def save(self, tool_type: str, content: str) -> ArtifactSlot:
        """Allocate an artifact and write ``content`` to it; return the slot."""
        slot = self.allocate(tool_type)
        self.directory.mkdir(parents=True, exist_ok=True)
        # "x": never replace a file some other writer created under the same name.
        with slot.path.open("x", encoding="utf-8") as fh:
            fh.write(content)
        return slot

    def open_sink(
        self,
        tool_type: str,
        *,
        spill_threshold: int = DEFAULT_MAX_BYTES,
        on_chunk: Callable[[str], None] | None = None,
    ) -> OutputSink:
        """Return an OutputSink that spills into a freshly allocated ``{id}.{tool_type}.log``."""
        slot = self.allocate(tool_type)
        return OutputSink(slot.path, slot.id, spill_threshold=spill_threshold, on_chunk=on_chunk)


class AgentOutputManager:
    """Allocate subagent output ids ``<index>-<requestedId>``, optionally under a parent prefix."""

    def __init__(self, directory: Path | None, parent_prefix: str | None = None) -> None:
        self.directory = directory
        if parent_prefix and not all(_SAFE_SEGMENT.fullmatch(p) for p in parent_prefix.split(".")):
            raise ArtifactError(
                f"Invalid parent output id {parent_prefix!r}; use an id returned by allocate()"
            )
        self.parent_prefix = parent_prefix or None
        self._next_index = self._scan_next_index()
        self._lock = threading.Lock()

    def _scan_next_index(self) -> int:
        """Return one past the highest index already used at this nesting level."""
        if self.directory is None:
            return 0
        lead = f"{self.parent_prefix}." if self.parent_prefix else ""
        highest = -1
        for output_id in agent_output_ids(list_dir_names(self.directory)):
            if not output_id.startswith(lead):
                continue
            # The index at this level leads the segment right after the prefix; deeper ids count too.
            segment = output_id[len(lead) :].split(".", 1)[0]
            if m := _AGENT_INDEX.match(segment):
                highest = max(highest, int(m.group(1)))
        return highest + 1

    def allocate(self, requested_id: str) -> str:
        """Return a fresh output id for ``requested_id`` (unsafe characters become ``_``)."""
        safe = _UNSAFE_ID_CHARS.sub("_", requested_id)[:80] or "agent"
        with self._lock:
            index = self._next_index
            self._next_index += 1
        own = f"{index}-{safe}"
        return f"{self.parent_prefix}.{own}" if self.parent_prefix else own

    def path_for(self, output_id: str) -> Path:
        """Return the ``.md`` file path of an allocated output id."""
        if self.directory is None:
            raise ArtifactError("No artifacts directory found")
        return self.directory / f"{output_id}{AGENT_OUTPUT_SUFFIX}"

    def write(self, requested_id: str, content: str) -> str:
        """Allocate an output id, write ``content`` to ``<id>.md`` and return the id."""
        output_id = self.allocate(requested_id)
        path = self.path_for(output_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x", encoding="utf-8") as fh:
            fh.write(content)
        return output_id


def task_artifacts_dir(session_file: Path | None) -> tuple[Path, bool]:
    """Return the artifact dir for a task and whether it is a temporary one.

    A task that runs without a session file still needs somewhere to put subagent outputs,
    so it gets a fresh temporary directory (the caller removes it when done).
    """
    if session_file is not None:
        return artifacts_dir_for(session_file), False
    return Path(tempfile.mkdtemp(prefix="sessiontree-artifacts-")), True
