from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sessiontree.store import SessionTree
from sessiontree.store.tree import apply_label
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


# The definition of the tree, written as plainly as possible: what ``add`` must keep equal to.
def reference_tree(entries: list[dict[str, Any]]) -> dict[str, Any]:
    by_id: dict[str, dict[str, Any]] = {}
    first: dict[str, int] = {}
    labels: dict[str, str] = {}
    for index, e in enumerate(entries):
        if isinstance(e.get("id"), str):
            first.setdefault(e["id"], index)
            by_id[e["id"]] = e
        if e.get("type") == "label" and isinstance(e.get("targetId"), str):
            if isinstance(e.get("label"), str) and e["label"]:
                labels[e["targetId"]] = e["label"]
            else:
                labels.pop(e["targetId"], None)
    order = sorted(by_id, key=first.__getitem__)
    parent: dict[str, str | None] = {}
    for i in order:
        raw = by_id[i].get("parentId")
        parent[i] = raw if isinstance(raw, str) and raw in by_id and raw != i else None
    for i in order:  # every cycle (found from each of its members) loses its earliest link
        seen: list[str] = []
        node: str | None = i
        while node is not None and node not in seen:
            seen.append(node)
            node = parent[node]
        if node is not None:
            cycle = seen[seen.index(node) :]
            parent[min(cycle, key=first.__getitem__)] = None
    children = {i: [c for c in order if parent[c] == i] for i in [None, *order]}
    return {"order": order, "parent": parent, "children": children, "labels": labels}


def tree_shape(tree: SessionTree) -> dict[str, Any]:
    return {
        "order": list(tree.order),
        "parent": {i: tree.parent_of(i) for i in tree.order},
        "children": {i: list(tree.children_of(i)) for i in [None, *tree.order]},
        "labels": dict(tree.labels),
    }


IDS = st.sampled_from(["a", "b", "c", "d", "e", "f", "g"])
ENTRIES = st.one_of(
    st.builds(lambda i, p: msg(i, p, "user"), IDS, st.one_of(st.none(), IDS, st.just("missing"))),
    st.builds(
        lambda i, p, t, label: entry("label", i, p, targetId=t, label=label),
        IDS,
        st.one_of(st.none(), IDS),
        IDS,
        st.one_of(st.none(), st.just(""), st.sampled_from(["x", "y"])),
    ),
    st.builds(lambda p: {"type": "message", "parentId": p}, st.one_of(st.none(), IDS)),  # no id
)


@settings(max_examples=400, deadline=None)
@given(st.lists(ENTRIES, max_size=14))
def test_adding_entries_one_by_one_gives_the_tree_of_the_whole_list(entries: list[dict[str, Any]]) -> None:
    expected = reference_tree(entries)
    tree = SessionTree()
    for index, e in enumerate(entries):
        tree.add(e)
        assert tree_shape(tree) == reference_tree(entries[: index + 1])  # every prefix, too
    assert tree_shape(tree) == expected
    assert tree_shape(SessionTree(entries)) == expected
    for leaf in tree.order:
        path = tree.path_ids(leaf)
        assert path[-1] == leaf and tree.parent_of(path[0]) is None
        assert all(tree.parent_of(child) == parent for parent, child in itertools.pairwise(path))


def test_an_orphan_is_adopted_when_its_parent_arrives_later() -> None:
    tree = SessionTree([msg("b", "a", "user"), msg("c", None, "user")])
    assert tree.roots == ["b", "c"]
    tree.add(msg("a", None, "user"))
    assert tree.roots == ["c", "a"]
    assert tree.children_of("a") == ["b"] and tree.path_ids("b") == ["a", "b"]


def test_a_late_parent_that_closes_a_cycle_cuts_the_earliest_entry() -> None:
    tree = SessionTree([msg("b", "a", "user"), msg("c", "b", "user")])
    tree.add(msg("a", "c", "user"))  # a -> c -> b -> a
    assert tree.roots == ["b"]
    assert tree.path_ids("a") == ["b", "c", "a"]


def test_apply_label_is_the_one_label_rule() -> None:
    labels: dict[str, str] = {}
    assert apply_label(labels, entry("label", "l1", None, targetId="a", label="one"))
    assert apply_label(labels, entry("label", "l2", None, targetId="b", label="two"))
    assert apply_label(labels, entry("label", "l3", None, targetId="a", label=""))
    assert not apply_label(labels, msg("m", None, "user"))
    assert labels == {"b": "two"}


def test_the_render_context_reads_the_trees_labels() -> None:
    from sessiontree.exporter.render import RenderContext, render_appended_entry, render_entry

    tree = SessionTree([msg("a", None, "user"), entry("label", "l1", "a", targetId="a", label="old")])
    ctx = RenderContext.for_entries([], tree.labels)
    assert ctx.labels is tree.labels
    relabel = entry("label", "l2", "l1", targetId="a", label="new")
    tree.add(relabel)  # a live viewer: the tail reader's entry goes into the tree, then is rendered
    render_appended_entry(relabel, ctx)
    assert ctx.labels == {"a": "new"} == tree.labels
    assert render_entry(tree.by_id["a"], ctx)[0]["label"] == "new"
