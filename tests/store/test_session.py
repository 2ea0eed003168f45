"""The Session model: its tree is derived from its entries."""

from __future__ import annotations

import dataclasses

import pytest

from sessiontree.store import Session
from tests.store.helpers import assistant, header, msg


def test_replace_builds_a_fresh_tree_from_the_new_entries() -> None:
    session = Session(header=header(), entries=[msg("a", None, "user"), assistant("b", "a")], leaf_id="b")
    assert session.tree.path_ids("b") == ["a", "b"]
    copy = dataclasses.replace(session, entries=[msg("x", None, "user", "other")])
    assert "a" not in copy.tree and copy.tree.order == ["x"]
    assert session.tree.order == ["a", "b"]


def test_the_tree_is_not_a_constructor_argument() -> None:
    with pytest.raises(TypeError):
        Session(header=header(), _tree=None)  # type: ignore[call-arg]
