"""Linking Claude Code records into one tree: real forks kept, noise linearised, subagents attached.

In a Claude file "two children under one parent" is usually not a fork: parallel tool calls,
their results and progress lines all point at the call. A real fork is a second typed prompt
(or a regenerated reply) under a parent that already has one. A rewind (double Esc, ``/rewind``)
writes the new prompt under the same parent as the old one; since 2.x that parent is often a
``system`` line (``stop_hook_summary``, ``turn_duration``) with a ``file-history-snapshot``
between it and the old prompt, so two prompts whose parents lead, through such lines, to the
same message are a fork too. Anything else that lands on a parent with children is hung under
the previous record of its conversation instead, when that record descends from the parent,
so the tree shows one line per conversation. Subagent transcripts hang under the assistant
entry whose tool call started them (a side branch).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sessiontree.store.entries import Entry, dicts_of

ANCESTOR_STEPS = 256
"""How far up "does the previous record descend from this parent" looks."""


@dataclass(slots=True)
class Node:
    """An entry with the parent its line names (a Claude uuid or an entry id) and its conversation."""

    entry: Entry
    parent: str | None
    chain: str
    conv: bool = False
    """A typed prompt or an assistant reply: two of these under one parent are a real fork."""
    logical: bool = False
    """The parent is a compaction's ``logicalParentUuid``."""
    follow: bool = False
    """No parent of its own: it follows the previous record of its conversation."""
    prompt: bool = False
    """A typed prompt (a rewind writes a second one under the same parent)."""
    through: bool = False
    """A progress, system or file-history line: a rewind looks through it to the message above."""


class Linker:
    """Collects nodes in file order and links them (``link``) once every line is read."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self._alias: dict[str, str] = {}
        self._merged: set[str] = set()
        self._by_id: dict[str, Entry] = {}

    def known(self, uuid: str) -> bool:
        """Tell whether a message with this uuid was read already (as an entry or merged into one)."""
        return uuid in self._by_id or uuid in self._merged

    def alias(self, uuid: str, target: str, *, merged: bool = True) -> None:
        """Make ``uuid`` stand for the entry ``target`` (a merged or folded line, or a carried one)."""
        self._alias[uuid] = target
        if merged:
            self._merged.add(uuid)

    def resolve(self, ref: str) -> str:
        """The entry id a uuid stands for."""
        for _ in range(8):
            nxt = self._alias.get(ref)
            if nxt is None or nxt == ref:
                break
            ref = nxt
        return ref

    def entry(self, ref: str) -> Entry | None:
        """The entry a uuid or id stands for."""
        return self._by_id.get(self.resolve(ref))

    def add(self, node: Node) -> None:
        """Add one node (file order)."""
        self.nodes.append(node)
        self._by_id[node.entry["id"]] = node.entry
        self._alias.pop(node.entry["id"], None)  # a message line wins over a carried one of its uuid

    def ids(self) -> set[str]:
        """Every uuid and id that names an entry."""
        return set(self._by_id) | set(self._alias)

    def link(
        self, calls: Mapping[str, tuple[str, Any]], agent_calls: Mapping[str, str]
    ) -> tuple[list[Entry], str | None]:
        """Set every entry's ``parentId``; return the entries (file order) and the leaf."""
        parent_of: dict[str, str | None] = {}
        has_child: set[str] = set()
        conv_child: set[str] = set()
        prev: dict[str, str] = {}
        roots_seen: set[str] = set()
        side_roots: list[Node] = []
        anchor: dict[str, str] = {}  # id -> the message above it, looking through system/progress lines
        prompted: set[str] = set()  # anchors that have a typed prompt below them
        trailing: dict[str, list[Node]] = {}  # the follow-only lines just before the next record

        def descends(node_id: str, ancestor: str) -> bool:
            current: str | None = node_id
            for _ in range(ANCESTOR_STEPS):
                if current is None:
                    return False
                if current == ancestor:
                    return True
                current = parent_of.get(current)
            return False

        for node in self.nodes:
            entry_id, chain = node.entry["id"], node.chain
            parent: str | None
            if node.follow:
                parent = prev.get(chain)
            else:
                parent = self.resolve(node.parent) if node.parent else None
                orphan = parent is not None and (parent not in self._by_id or parent == entry_id)
                if orphan:
                    parent = None
                if parent is None and not node.logical:
                    if (orphan or chain not in roots_seen) and chain in prev:
                        # The first record after leading summary/snapshot lines, or one whose parent
                        # is not in the file (a hidden line): it goes on after what came before.
                        parent = prev[chain]
                    elif chain != "main":
                        side_roots.append(node)
                elif node.prompt and parent is not None and anchor.get(parent, parent) in prompted:
                    parent = _rewind(node, trailing.get(chain, []), parent, parent_of)
                elif parent in has_child and not (node.conv and parent in conv_child):
                    last = prev.get(chain)
                    if last is not None and last != parent and descends(last, parent):
                        parent = last
                roots_seen.add(chain)
            node.entry["parentId"] = parent
            parent_of[entry_id] = parent
            anchor[entry_id] = anchor.get(parent, parent) if node.through and parent else entry_id
            if node.prompt and node.parent:
                raw = self.resolve(node.parent)
                prompted.add(anchor.get(raw, raw))
            if parent is not None:
                has_child.add(parent)
                if node.conv:
                    conv_child.add(parent)
            prev[chain] = entry_id
            if node.follow:
                trailing.setdefault(chain, []).append(node)
            elif trailing.get(chain):
                trailing[chain] = []
        self._attach_subagents(side_roots, calls, agent_calls)
        main = [n.entry["id"] for n in self.nodes if n.chain == "main"]
        leaf = main[-1] if main else (self.nodes[-1].entry["id"] if self.nodes else None)
        return [n.entry for n in self.nodes], leaf

    def _attach_subagents(
        self, roots: list[Node], calls: Mapping[str, tuple[str, Any]], agent_calls: Mapping[str, str]
    ) -> None:
        owner: dict[str, str] = {}
        for node in self.nodes:
            message = node.entry.get("message")
            if node.chain == "main" and isinstance(message, dict) and message.get("role") == "assistant":
                for block in dicts_of(message.get("content")):
                    if (
                        isinstance(block, dict)
                        and block.get("type") == "toolCall"
                        and isinstance(block.get("id"), str)
                    ):
                        owner[block["id"]] = node.entry["id"]
        by_prompt: dict[str, list[str]] = {}
        for call_id, (_, args) in calls.items():
            prompt = args.get("prompt") if isinstance(args, dict) else None
            if isinstance(prompt, str) and call_id in owner:
                by_prompt.setdefault(prompt.strip(), []).append(call_id)
        for node in roots:
            found: str | None = None
            if node.chain.startswith("agent:"):
                found = agent_calls.get(node.chain.removeprefix("agent:"))
            if found is None:
                waiting = by_prompt.get(_prompt_of(node.entry).strip())
                found = waiting.pop(0) if waiting else None
            if found is not None and found in owner:
                node.entry["parentId"] = owner[found]


def _snapshot_of(node: Node, prompt_id: str) -> bool:
    data = node.entry.get("data")
    return (
        node.entry.get("customType") == "claude:file-history-snapshot"
        and isinstance(data, dict)
        and data.get("messageId") == prompt_id
    )


def _rewind(prompt: Node, run: list[Node], parent: str, parent_of: dict[str, str | None]) -> str:
    """Hang a rewound prompt under ``parent``, with its file-history snapshot (written just
    before it) between them as the first prompt has; return the prompt's parent."""
    own = list(itertools.takewhile(lambda n: _snapshot_of(n, prompt.entry["id"]), reversed(run)))
    if not own:
        return parent
    first = own[-1].entry
    first["parentId"] = parent_of[first["id"]] = parent
    last: str = own[0].entry["id"]
    return last


def _prompt_of(entry: Entry) -> str:
    message = entry.get("message")
    if not isinstance(message, dict):
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    texts = [b.get("text") for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    return "\n".join(t for t in texts if isinstance(t, str))
