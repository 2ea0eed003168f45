"""Fuzz the internal URL parser with hostile ids: it either refuses cleanly or stays inside the dir."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessiontree.errors import ArtifactError
from sessiontree.store.artifacts import AgentOutputManager, ArtifactManager
from sessiontree.store.urls import parse_internal_url, resolve_internal_url

SECRET = "TOP-SECRET-OUTSIDE"
PIECES = [
    "..",
    ".",
    "/",
    "//",
    "\\",
    "%2F",
    "%2f",
    "%2e",
    "%2E%2E",
    "%5C",
    "%00",
    "\x00",
    "~",
    "/etc/passwd",
    "0",
    "1",
    "5",
    "0-Agent",
    "1-Json",
    "outside",
    "secret",
    "?",
    "?q=",
    "#",
    " ",
    "\n",
    "%",
    "..%2F",
    "C:",
    "\u2024",
    "\uff0e",
    "0-Agent.0-Child",
    ".md",
    ".bash.log",
    "link",
]


@pytest.fixture(scope="module")
def art(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A populated artifact dir next to secret files, with symlinks that point out."""
    root = tmp_path_factory.mktemp("fuzz")
    (root / "secret.md").write_text(SECRET)
    (root / "0.bash.log").write_text(SECRET)
    (root / "outside").mkdir()
    (root / "outside" / "0-Agent.md").write_text(SECRET)
    directory = root / "sess"
    ArtifactManager(directory).save("bash", "inside zero\n")
    ArtifactManager(directory).save("bash", "inside one\n")
    AgentOutputManager(directory).write("Agent", "inside agent\n")
    AgentOutputManager(directory).write("Json", json.dumps({"a": {"b": [1, 2]}, "s": "inside"}))
    os.symlink(root / "secret.md", directory / "5.bash.log")
    os.symlink(root / "secret.md", directory / "7-link.md")
    os.symlink(root / "outside", directory / "sub")
    return directory


hostile = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=8).map("".join),
)


def check(url: str, directory: Path, **paging: int | None) -> None:
    """Resolve ``url``: only ArtifactError may escape, and a result is never from outside ``directory``."""
    try:
        res = resolve_internal_url(url, directory, **paging)
    except ArtifactError as exc:
        assert "\n" not in str(exc)  # one-line errors, even for ids holding newlines
        assert SECRET not in str(exc)
        return
    assert res.path.is_relative_to(directory.resolve())
    assert SECRET not in res.content


@settings(max_examples=400, deadline=None)
@given(ident=hostile, scheme=st.sampled_from(["artifact://", "agent://", "AGENT://", "artifact:/"]))
def test_hostile_ids_never_escape(art: Path, ident: str, scheme: str) -> None:
    check(scheme + ident, art)


@settings(max_examples=200, deadline=None)
@given(
    tail=hostile,
    offset=st.one_of(st.none(), st.integers(-3, 20)),
    limit=st.one_of(st.none(), st.integers(-3, 20)),
)
def test_hostile_paths_queries_and_paging(
    art: Path, tail: str, offset: int | None, limit: int | None
) -> None:
    for base in ("agent://1-Json/", "agent://1-Json?q=", "agent://0-Agent", "artifact://1"):
        check(base + tail, art, offset=offset, limit=limit)


@settings(max_examples=300, deadline=None)
@given(url=st.text(max_size=60))
def test_parser_only_raises_artifact_error(url: str) -> None:
    try:
        parsed = parse_internal_url(url)
    except ArtifactError:
        return
    assert parsed.scheme in ("artifact", "agent")
    assert ".." not in parsed.id
    assert "/" not in parsed.id and "\\" not in parsed.id and "%" not in parsed.id
    assert not parsed.id.startswith(".")
