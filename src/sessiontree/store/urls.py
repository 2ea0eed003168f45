"""Resolve ``artifact://<id>`` and ``agent://<id>[/path|?q=query]`` URLs to a session's artifact files."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, unquote

from sessiontree.errors import ArtifactError
from sessiontree.store.artifact_json import extract, load_json, parse_query, path_keys, render_json
from sessiontree.store.artifacts import (
    AGENT_OUTPUT_SUFFIX,
    agent_output_ids,
    artifact_ids,
    find_artifact_name,
    list_dir_names,
)
from sessiontree.store.storage import entry_is, open_regular, read_reason

SCHEMES = ("artifact", "agent")
NO_DIR = "No artifacts directory found"

_ARTIFACT_ID = re.compile(r"[0-9]{1,18}", re.ASCII)
# Dot-separated segments of safe characters: no "..", no leading dot, no separators.
_AGENT_ID = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*", re.ASCII)
_FORBIDDEN = re.compile(r"[\x00-\x1f\x7f\\]")


@dataclass(frozen=True)
class InternalUrl:
    """A parsed internal URL: scheme, id and the optional extraction (path keys or query)."""

    scheme: str
    id: str
    path: list[str] = field(default_factory=list)
    query: str | None = None

    @property
    def extracts(self) -> bool:
        """Whether the URL asks for JSON extraction."""
        return bool(self.path) or self.query is not None


@dataclass(frozen=True)
class Resource:
    """The text an internal URL resolves to."""

    url: str
    content: str
    content_type: str
    path: Path
    total_lines: int | None = None


def _shorten(text: str) -> str:
    return repr(text if len(text) <= 80 else text[:77] + "...")


def parse_internal_url(url: str) -> InternalUrl:
    """Parse and validate an internal URL; ids that could leave the artifact directory are refused."""
    scheme, sep, rest = url.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in SCHEMES:
        raise ArtifactError(f"Unsupported URL {_shorten(url)}; use artifact://<id> or agent://<id>")
    if _FORBIDDEN.search(rest):
        raise ArtifactError(f"Refused URL {_shorten(url)}: control characters or backslashes in it")
    rest, has_query, raw_query = rest.partition("?")
    ident, has_path, raw_path = rest.partition("/")
    if not ident:
        raise ArtifactError(f"Missing id in {_shorten(url)}; use {scheme}://<id>")
    if "%" in ident:
        raise ArtifactError(f"Refused id {_shorten(ident)}: encoded characters are not allowed in ids")
    if scheme == "artifact":
        if not _ARTIFACT_ID.fullmatch(ident):
            raise ArtifactError(
                f"Invalid artifact id {_shorten(ident)}; artifact ids are numbers (artifact://0)"
            )
        if has_path or has_query:
            raise ArtifactError("artifact:// URLs take no path or query; use artifact://<id>")
        return InternalUrl("artifact", str(int(ident)))
    if not _AGENT_ID.fullmatch(ident):
        raise ArtifactError(f"Invalid agent id {_shorten(ident)}; ids look like 0-Name or 0-Parent.1-Child")
    segments = [unquote(s) for s in raw_path.split("/") if s]
    query = _parse_query_string(raw_query) if has_query else None
    if segments and query is not None:
        raise ArtifactError("agent:// path extraction and ?q= query cannot be combined; use one of them")
    return InternalUrl("agent", ident, segments, query)


def _parse_query_string(raw: str) -> str:
    """Return the ``q`` parameter, refusing any other parameter."""
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise ArtifactError(f"Invalid query string {_shorten(raw)}; use ?q=<query>") from None
    names = {name for name, _ in pairs}
    if names != {"q"} or len(pairs) != 1:
        raise ArtifactError(f"Unsupported query {_shorten(raw)}; the only parameter is a single q=<query>")
    return pairs[0][1]


def _contained_file(directory: Path, name: str) -> Path:
    """Return ``directory/name`` if it is a regular file that really lies inside ``directory``."""
    candidate = directory / name
    try:
        real = candidate.resolve(strict=True)
        base = directory.resolve(strict=True)
    except PermissionError:
        raise ArtifactError(f"Cannot read {_shorten(name)}: permission denied") from None
    except (OSError, RuntimeError):
        raise ArtifactError(f"Cannot open {_shorten(name)}: it is missing or a broken link") from None
    if not real.is_relative_to(base) or real == base:
        raise ArtifactError(f"Refused {_shorten(name)}: it points outside the artifacts directory")
    if not entry_is(real, "file"):
        raise ArtifactError(f"Refused {_shorten(name)}: not a regular file")
    try:
        open_regular(real, base).close()
    except OSError as exc:
        raise ArtifactError(f"Cannot read {_shorten(name)}: {read_reason(exc)}") from None
    return real


def _available(ids: list[str]) -> str:
    return ", ".join(ids) if ids else "none"


def _locate(parsed: InternalUrl, directory: Path) -> tuple[Path, str]:
    """Return the file and content type a parsed URL names inside ``directory``."""
    names = list_dir_names(directory)
    if parsed.scheme == "artifact":
        match = find_artifact_name(names, int(parsed.id))
        if match is None:
            ids = [str(i) for i in artifact_ids(names)]
            raise ArtifactError(f"Not found: {parsed.id}. Available artifact ids: {_available(ids)}")
        return _contained_file(directory, match), "text/plain"
    name = f"{parsed.id}{AGENT_OUTPUT_SUFFIX}"
    if name not in names:
        # Only ids an agent:// URL could name are listed (file names are untrusted text).
        ids = [i for i in agent_output_ids(names) if _AGENT_ID.fullmatch(i)]
        raise ArtifactError(f"Not found: {parsed.id}. Available: {_available(ids)}")
    return _contained_file(directory, name), "text/markdown"


def _read_page(path: Path, url: str, offset: int | None, limit: int | None) -> tuple[str, int]:
    """Return lines ``offset..offset+limit-1`` (1-based) of a file and its line count, streaming it."""
    start = (offset or 1) - 1
    end = None if limit is None else start + limit
    lines: list[str] = []
    total = 0
    with path.open(encoding="utf-8", errors="replace", newline="\n") as fh:
        # One pass: keep the page, count the rest, never hold more than the page in memory.
        for total, line in enumerate(fh, 1):
            if total > start and (end is None or total <= end):
                lines.append(line)
    if start > 0 and start >= total:
        raise ArtifactError(
            f"Offset {offset} is past the end of {url} ({total} lines); use a smaller --offset"
        )
    return "".join(lines), total


def resolve_internal_url(
    url: str, artifacts_dir: Path | None, *, offset: int | None = None, limit: int | None = None
) -> Resource:
    """Read what ``url`` names in ``artifacts_dir``; ``offset``/``limit`` page plain reads by line."""
    parsed = parse_internal_url(url)
    for name, number in (("offset", offset), ("limit", limit)):
        if number is not None and number < 1:
            raise ArtifactError(f"Invalid {name} {number}; it must be 1 or more")
    if parsed.extracts and (offset is not None or limit is not None):
        raise ArtifactError("offset/limit cannot be used with agent:// extraction; drop one of them")
    if artifacts_dir is None or not entry_is(artifacts_dir, "dir"):
        raise ArtifactError(NO_DIR)
    try:
        path, content_type = _locate(parsed, artifacts_dir)
        if not parsed.extracts:
            content, total = _read_page(path, url, offset, limit)
            return Resource(url, content, content_type, path, total)
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:  # the folder not ours to list, a file changed under us
        raise ArtifactError(
            f"Cannot read the artifacts directory {artifacts_dir}: {read_reason(exc)}"
        ) from None
    document = load_json(text, f"agent://{parsed.id}")
    keys = path_keys(parsed.path) if parsed.path else parse_query(parsed.query or "")
    value = extract(document, keys, f"agent://{parsed.id}")
    return Resource(url, render_json(value), "application/json", path)
