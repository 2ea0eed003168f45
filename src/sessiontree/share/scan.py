"""One scan of a text finds every literal a detector starts from: the candidates of issue 39.

Each detector registers the lowercase literals it needs (a vendor prefix, a keyword, a tool's
name, a marker such as ``://``); one Aho-Corasick automaton holds them all and one pass over the
lowercased text finds every occurrence. A detector then runs only when one of its literals is
there, and the keyword-driven ones start at the positions found instead of scanning again.

Measured on the 2,000-turn generated session's 22,436 texts (15 MB, 70 literals): the automaton
0.20 s of CPU for 52,382 hits, one ``re`` alternation of the same literals 1.44 s, the ``regex``
module's 3.40 s, the 70 substring tests it replaces 0.69 s; Hyperscan scans in 0.03 s but over
bytes (offsets to map back for any non-ASCII text) and only on x86-64.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable

import ahocorasick

# A run of the characters tokens, keys and base64 are made of: every shape detector (a vendor
# prefix and its body, a bare generated run, base64, a key's body line) looks inside these only.
_MIN_RUN = 16
_RUN_CHARS = string.ascii_letters + string.digits + "_+/=.~-"
_TOKEN_RUN = re.compile(f"[{re.escape(_RUN_CHARS)}]{{{_MIN_RUN},}}")
# An ASCII text's bytes with every run character made "a" and every other a space: the runs are
# then found by a literal search (0.06 s for the 2,000-turn session's texts against 0.22 s).
_AS_RUN = bytes(ord("a") if chr(b) in _RUN_CHARS else ord(" ") for b in range(256))
_RUN_OF_A = re.compile(b"a" * _MIN_RUN + b"a*")


def token_runs(text: str) -> list[tuple[int, int]]:
    """Return the spans of the runs of token characters (16 or more) in ``text``."""
    if text.isascii():
        return [m.span() for m in _RUN_OF_A.finditer(text.encode("ascii").translate(_AS_RUN))]
    return [m.span() for m in _TOKEN_RUN.finditer(text)]


def index_hints(groups: Iterable[Iterable[str]]) -> dict[str, list[int]]:
    """Return literal -> the indexes of the groups (detectors) that hold it."""
    index: dict[str, list[int]] = {}
    for i, literals in enumerate(groups):
        for literal in literals:
            index.setdefault(literal, []).append(i)
    return index


_LITERALS: set[str] = set()
_automaton: ahocorasick.Automaton | None = None


def register(*literals: str) -> tuple[str, ...]:
    """Add lowercase literals to the one scan (at import time); return them.

    A single character is not added (``:`` or ``-`` would be most of the hits): ``in`` tests it.
    """
    global _automaton
    for literal in literals:
        if len(literal) > 1 and literal not in _LITERALS:
            _LITERALS.add(literal)
            _automaton = None
    return literals


def _built() -> ahocorasick.Automaton:
    global _automaton
    if _automaton is None:
        automaton = ahocorasick.Automaton()
        for literal in _LITERALS:
            automaton.add_word(literal, literal)
        automaton.make_automaton()
        _automaton = automaton
    return _automaton


def lower_in_place(text: str) -> str:
    """Return ``text`` lowercased with every character where it was (a few letters grow when lowered)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


class Hits:
    """Where each registered literal occurs in a text (start offsets, in order)."""

    __slots__ = ("_at", "longest", "lowered", "runs")

    def __init__(self, text: str, lowered: str | None = None) -> None:
        self.lowered = lower_in_place(text) if lowered is None or len(lowered) != len(text) else lowered
        at: dict[str, list[int]] = {}
        for end, literal in _built().iter(self.lowered):
            found = at.get(literal)
            if found is None:
                at[literal] = [end - len(literal) + 1]
            else:
                found.append(end - len(literal) + 1)
        self._at = at
        self.runs = token_runs(text)
        self.longest = max((end - start for start, end in self.runs), default=0)

    def runs_of(self, length: int) -> list[tuple[int, int]]:
        """Return the runs of token characters at least ``length`` long."""
        return [(start, end) for start, end in self.runs if end - start >= length]

    def __contains__(self, literal: str) -> bool:
        return literal in self._at if len(literal) > 1 else literal in self.lowered

    def any(self, literals: Iterable[str]) -> bool:
        """Tell whether any of ``literals`` occurs (literals of one character are not for this)."""
        return not self._at.keys().isdisjoint(literals)

    def at(self, literal: str) -> list[int]:
        """Return the start offsets of ``literal`` (empty when it does not occur)."""
        return self._at.get(literal, [])

    def starts(self, literals: Iterable[str]) -> list[int]:
        """Return the start offsets of any of ``literals``, in order, each once."""
        found: set[int] = set()
        for literal in literals:
            found.update(self._at.get(literal, ()))
        return sorted(found)

    def chosen(self, index: dict[str, list[int]]) -> list[int]:
        """Return, in order, the indexes of ``index_hints`` whose groups hold a literal found."""
        return sorted({i for literal in self._at if literal in index for i in index[literal]})

    def found(self) -> Iterable[str]:
        """Return the literals that occur."""
        return self._at.keys()
