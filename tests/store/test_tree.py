from __future__ import annotations

from sessiontree.store import SessionTree
from tests.store.helpers import assistant, entry, msg


def test_children_in_file_order_roots_and_branch_points() -> None:
    entries = [
        msg("a", None, "user"),
        assistant("b", "a"),
        msg("c", "b", "user"),
        msg("d", "b", "user", "other branch"),
        assistant("e", "d"),
        msg("f", None, "user", "second root"),
    ]
    tree = SessionTree(entries)
    assert tree.roots == ["a", "f"]
    assert tree.children_of("b") == ["c", "d"]
    assert tree.children_of(None) == ["a", "f"]
    assert tree.branch_points == ["b"]
    assert [e["id"] for e in tree.path_to("e")] == ["a", "b", "d", "e"]
    assert tree.path_ids("zzz") == [] and tree.path_ids(None) == []
    assert tree.last_id == "f"


def test_labels_last_wins_and_empty_clears() -> None:
    entries = [
        msg("a", None, "user"),
        entry("label", "l1", "a", targetId="a", label="first"),
        entry("label", "l2", "l1", targetId="a", label="second"),
        entry("label", "l3", "l2", targetId="b", label="gone"),
        entry("label", "l4", "l3", targetId="b"),
        entry("label", "l5", "l4", targetId="c", label="x"),
        entry("label", "l6", "l5", targetId="c", label=None),
    ]
    tree = SessionTree(entries)
    assert tree.labels == {"a": "second"}
    assert tree.label_of("a") == "second" and tree.label_of("b") is None


def test_orphans_and_self_parents_are_roots() -> None:
    tree = SessionTree([msg("a", "missing", "user"), msg("b", "b", "user"), msg("c", "a", "user")])
    assert tree.roots == ["a", "b"]
    assert tree.parent_of("b") is None and tree.parent_of("c") == "a"
    assert tree.path_ids("c") == ["a", "c"]


def test_cycles_are_broken_at_their_first_entry() -> None:
    entries = [msg("a", "c", "user"), msg("b", "a", "user"), msg("c", "b", "user"), msg("d", "c", "user")]
    tree = SessionTree(entries)
    assert tree.roots == ["a"]
    assert tree.path_ids("d") == ["a", "b", "c", "d"]
    assert tree.children_of("c") == ["d"]


def test_duplicate_ids_last_wins_without_hanging() -> None:
    entries = [msg("a", None, "user", "one"), msg("a", "a", "user", "two"), assistant("b", "a")]
    tree = SessionTree(entries)
    assert tree.by_id["a"]["message"]["content"][0]["text"] == "two"
    assert tree.order == ["a", "b"]
    assert tree.path_ids("b") == ["a", "b"]


def test_deep_linear_chain_needs_no_recursion() -> None:
    entries = [msg("0", None, "user")] + [msg(str(i), str(i - 1), "user") for i in range(1, 50_000)]
    tree = SessionTree(entries)
    assert len(tree.path_ids("49999")) == 50_000
