"""A faster driver for Pygments' RegexLexer: the same tokens, far fewer regex match attempts.

What it does: Pygments' ``RegexLexer.get_tokens_unprocessed`` tries every rule of the current
state in turn at each position. Here, per state and per next character, only the rules whose
regex can start with that character are tried (first-character sets worked out from the regex
syntax tree of the private ``re._parser``; an over-estimate, all rules when unsure or for
non-ASCII text), and four or more of them are joined into one alternation
``(?P<r0>...)|(?P<r1>...)`` (Python's alternation takes the first alternative that matches, as
Pygments' loop takes the first rule). Rules that cannot be joined (conditional groups, flags
that cannot be scoped) are tried one by one. Python code highlights ~3.7x faster.

What it relies on, and the fence around it:
- ``tokens()`` is a copy of Pygments' own loop (state stack, ``#pop``/``#push``, error tokens,
  newline resets) reading the lexer's private ``_tokens``; Pygments is pinned below its next
  major version (pyproject.toml) because that loop and those attributes are internals.
- At first use of each lexer, its tokens for a probe text are compared with Pygments' own;
  if they differ at all, that lexer goes through Pygments unchanged from then on.
- Only plain RegexLexers (those that do not override the loop) are accepted; every other
  lexer always runs through Pygments.
- ``SESSIONTREE_FASTLEX=0`` in the environment turns it off: every lexer runs through Pygments.
- tests/exporter/test_fastlex.py compares tokens on samples, random text, and (slow) every
  lexer Pygments ships that this driver accepts.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

# Pygments ships no type information.
from pygments.lexer import RegexLexer  # type: ignore[import-untyped]
from pygments.token import Error, Whitespace, _TokenType  # type: ignore[import-untyped]

Token = tuple[int, Any, str]
Rule = tuple[Callable[..., Any], Any, Any]
_CONDITIONAL = re.compile(r"\(\?\(")
_ESCAPE_OR_BACKREF = re.compile(r"\\([1-9][0-9]?)|\\.", re.DOTALL)
_LEADING_FLAGS = re.compile(r"\(\?([imsx]+)\)")
# Flags that can be scoped to one alternative with (?flags-flags:...).
_SCOPED = {re.IGNORECASE: "i", re.MULTILINE: "m", re.DOTALL: "s", re.VERBOSE: "x"}


def _shift_backrefs(pattern: str, offset: int) -> str:
    """Renumber ``\\N`` backreferences for a pattern placed after ``offset`` groups."""
    return _ESCAPE_OR_BACKREF.sub(
        lambda m: f"(?:\\{int(m.group(1)) + offset})" if m.group(1) else m.group(0), pattern
    )


def _alternative(compiled: re.Pattern[str], base: int) -> str | None:
    """Return the rule's pattern with its own flags scoped to it, or None if that cannot be done."""
    pattern = compiled.pattern
    lead = _LEADING_FLAGS.match(pattern)
    if lead:
        pattern = pattern[lead.end() :]
    differ = compiled.flags ^ base
    if differ & ~sum(_SCOPED):
        return None
    add = "".join(c for f, c in _SCOPED.items() if differ & f and compiled.flags & f)
    remove = "".join(c for f, c in _SCOPED.items() if differ & f and base & f)
    if not add and not remove:
        return pattern
    return f"(?{add}{'-' + remove if remove else ''}:{pattern})"


def _combine(rules: list[Rule]) -> Callable[[str, int], re.Match[str] | None] | None:
    """Return the ``match`` of one alternation of the rules, or None when they cannot be combined."""
    compiled_rules = []
    for rexmatch, _, _ in rules:
        compiled = getattr(rexmatch, "__self__", None)
        if not isinstance(compiled, re.Pattern) or not isinstance(compiled.pattern, str):
            return None
        if _CONDITIONAL.search(compiled.pattern):
            return None
        compiled_rules.append(compiled)
    if not compiled_rules:
        return None
    flag_counts: dict[int, int] = {}
    for compiled in compiled_rules:
        flag_counts[compiled.flags] = flag_counts.get(compiled.flags, 0) + 1
    base = max(flag_counts, key=flag_counts.__getitem__)
    parts = []
    group = 0
    for i, compiled in enumerate(compiled_rules):
        alternative = _alternative(compiled, base)
        if alternative is None:
            return None
        group += 1  # the wrapper group of this alternative
        parts.append(f"(?P<r{i}>{_shift_backrefs(alternative, group)})")
        group += compiled.groups
    try:
        combined = re.compile("|".join(parts), base)
    except (re.error, OverflowError, RecursionError):
        return None
    return combined.match


_ASCII = frozenset(chr(i) for i in range(128))
_CATEGORY_CACHE: dict[Any, frozenset[str]] = {}
_INDEX = {f"r{i}": i for i in range(1024)}
_COMBINE_FROM = 3


def _category_chars(category: Any) -> frozenset[str]:
    """Return the ASCII characters an ``\\w``-style category matches (by asking ``re`` itself)."""
    chars = _CATEGORY_CACHE.get(category)
    if chars is None:
        name = str(category).removeprefix("CATEGORY_")
        probe = {"DIGIT": r"\d", "NOT_DIGIT": r"\D", "SPACE": r"\s", "NOT_SPACE": r"\S",
                 "WORD": r"\w", "NOT_WORD": r"\W"}.get(name)  # fmt: skip
        chars = _ASCII if probe is None else frozenset(c for c in _ASCII if re.match(probe, c))
        _CATEGORY_CACHE[category] = chars
    return chars


def _with_case(chars: set[str], ignorecase: bool) -> set[str]:
    return chars | {c.swapcase() for c in chars} if ignorecase else chars


def _in_chars(items: list[Any], ignorecase: bool) -> frozenset[str]:
    """Return the ASCII characters a ``[...]`` set can match."""
    chars: set[str] = set()
    negate = False
    for op, arg in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            if arg >= 128 and ignorecase:
                return _ASCII  # case folding can map it onto ASCII ("ſ" matches "s")
            if arg < 128:
                chars.add(chr(arg))
        elif name == "RANGE":
            lo, hi = arg
            if hi >= 128 and ignorecase:
                return _ASCII
            chars.update(chr(i) for i in range(lo, min(hi, 127) + 1))
        elif name == "CATEGORY":
            chars |= _category_chars(arg)
        else:
            return _ASCII
    chars = _with_case(chars, ignorecase)
    return _ASCII - chars if negate else frozenset(chars)


def _first(items: Any, flags: int) -> tuple[frozenset[str], bool]:
    """Return (ASCII characters a match can start with, whether it can be empty): an over-estimate."""
    first: set[str] = set()
    for op, arg in items:
        name = str(op)
        ignorecase = bool(flags & re.IGNORECASE)
        if name == "LITERAL":
            if arg >= 128:
                return (_ASCII if ignorecase else frozenset(first)), False
            return frozenset(first | _with_case({chr(arg)}, ignorecase)), False
        if name == "IN":
            return frozenset(first | _in_chars(arg, ignorecase)), False
        if name in ("AT", "ASSERT", "ASSERT_NOT"):
            continue  # zero width: the next item gives the first character
        if name == "BRANCH":
            nullable = False
            for alternative in arg[1]:
                chars, empty = _first(alternative, flags)
                first |= chars
                nullable = nullable or empty
            if not nullable:
                return frozenset(first), False
            continue
        if name == "SUBPATTERN":
            _, add, remove, sub = arg
            chars, empty = _first(sub, (flags | add) & ~remove)
            first |= chars
            if not empty:
                return frozenset(first), False
            continue
        if name == "ATOMIC_GROUP":
            chars, empty = _first(arg, flags)
            first |= chars
            if not empty:
                return frozenset(first), False
            continue
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, sub = arg
            if high == 0:
                continue
            chars, empty = _first(sub, flags)
            first |= chars
            if low > 0 and not empty:
                return frozenset(first), False
            continue
        return _ASCII, True  # anything else (backreferences, ...): assume it can start anywhere
    return frozenset(first), True


def first_chars(rexmatch: Callable[..., Any]) -> frozenset[str]:
    """Return the ASCII characters a rule can match first at (all of them when unsure)."""
    compiled = getattr(rexmatch, "__self__", None)
    if not isinstance(compiled, re.Pattern) or not isinstance(compiled.pattern, str):
        return _ASCII
    try:
        parsed = re._parser.parse(compiled.pattern, compiled.flags)  # type: ignore[attr-defined]
        chars, nullable = _first(list(parsed), compiled.flags)
    except Exception:  # a private module: if it changes, just match every rule
        return _ASCII
    return _ASCII if nullable else chars


class _Pick:
    """Some rules of a state, in order, matched with one combined pattern (or one by one)."""

    __slots__ = ("matcher", "rules")

    def __init__(self, rules: list[Rule]) -> None:
        self.rules = rules
        # A few rules are cheaper to try one by one than to compile into a new pattern.
        self.matcher = _combine(rules) if len(rules) > _COMBINE_FROM else None


class _StateRules:
    """A state's rules and, per next character, only the rules that can match there."""

    __slots__ = ("_full", "by_char", "by_subset", "firsts", "rules")

    def __init__(self, rules: list[Rule]) -> None:
        self.rules = rules
        self.firsts = [first_chars(rule[0]) for rule in rules]
        self.by_char: dict[str, _Pick] = {}
        self.by_subset: dict[tuple[int, ...], _Pick] = {}
        self._full: _Pick | None = None

    @property
    def full(self) -> _Pick:
        """All the rules (non-ASCII text may start any of them); compiled on first use."""
        if self._full is None:
            self._full = _Pick(self.rules)
        return self._full

    def _subset(self, subset: tuple[int, ...]) -> _Pick:
        pick = self.by_subset.get(subset)
        if pick is None:
            pick = self.by_subset[subset] = _Pick([self.rules[i] for i in subset])
        return pick

    def for_char(self, char: str) -> _Pick:
        """Return the rules that can match at this character (all of them for non-ASCII text)."""
        if char < "\x80":
            pick = self._subset(tuple(i for i, chars in enumerate(self.firsts) if char in chars))
        else:
            pick = self.full
        self.by_char[char] = pick
        return pick

    def at_end(self) -> _Pick:
        """Return the rules that can match at the end of the text: those that may match empty."""
        # Rules that may match empty (or that the analysis is unsure of) have every first character.
        return self._subset(tuple(i for i, chars in enumerate(self.firsts) if len(chars) == len(_ASCII)))


class FastRegexLexer:
    """Tokenise like ``RegexLexer.get_tokens_unprocessed``, trying only the rules that can match.

    Per state and next character, the rules that can start with that character (an
    over-estimate from the regex syntax tree) are combined into one pattern, in their order.
    """

    def __init__(self, lexer: Any) -> None:
        self.lexer = lexer
        self.tokendefs: dict[str, list[Rule]] = lexer._tokens
        # Built on first use: big lexers have dozens of states a given text never enters.
        self.states: dict[str, _StateRules] = {}

    def state(self, name: str) -> _StateRules:
        """Return the rules of a state, prepared on first use."""
        rules = self.states.get(name)
        if rules is None:
            rules = self.states[name] = _StateRules(self.tokendefs[name])
        return rules

    def matcher(self, name: str) -> Callable[[str, int], re.Match[str] | None] | None:
        """Return the combined matcher of all a state's rules (None: they are matched one by one)."""
        return self.state(name).full.matcher

    def tokens(self, text: str) -> Iterator[Token]:
        """Yield (index, token type, value) exactly as the Pygments lexer would."""
        lexer, state_of = self.lexer, self.state
        index_of = _INDEX
        pos = 0
        end = len(text)
        statestack = ["root"]
        current = state_of("root")
        while True:
            if pos < end:
                char = text[pos]
                pick = current.by_char.get(char) or current.for_char(char)
            else:
                pick = current.at_end()
            # The first of the picked rules that matches (once per token: no call for it).
            rule: Rule | None = None
            matcher = pick.matcher
            if matcher is not None:
                m = matcher(text, pos)
                if m is not None:
                    rule = pick.rules[index_of[m.lastgroup or ""]]
            else:
                for candidate in pick.rules:
                    m = candidate[0](text, pos)
                    if m:
                        rule = candidate
                        break
            if rule is not None and m is not None:
                rexmatch, action, new_state = rule
                if action is not None:
                    if type(action) is _TokenType:
                        yield pos, action, m.group()
                    else:
                        # Callbacks (bygroups, using) read groups by number: give them their own match.
                        yield from action(lexer, rexmatch(text, pos))
                pos = m.end()
                if new_state is not None:
                    if isinstance(new_state, tuple):
                        for name in new_state:
                            if name == "#pop":
                                if len(statestack) > 1:
                                    statestack.pop()
                            elif name == "#push":
                                statestack.append(statestack[-1])
                            else:
                                statestack.append(name)
                    elif isinstance(new_state, int):
                        if abs(new_state) >= len(statestack):
                            del statestack[1:]
                        else:
                            del statestack[new_state:]
                    elif new_state == "#push":
                        statestack.append(statestack[-1])
                    current = state_of(statestack[-1])
                continue
            if pos >= end:
                break
            if text[pos] == "\n":
                statestack = ["root"]
                current = state_of("root")
                yield pos, Whitespace, "\n"
            else:
                yield pos, Error, text[pos]
            pos += 1


def _is_plain_regex_lexer(lexer: Any) -> bool:
    cls = type(lexer)
    return (
        isinstance(lexer, RegexLexer)
        and cls.get_tokens_unprocessed is RegexLexer.get_tokens_unprocessed
        and hasattr(lexer, "_tokens")
    )


ENV = "SESSIONTREE_FASTLEX"
log = logging.getLogger(__name__)

# Text that takes most lexers through a few states (strings, comments, markup, templates, a
# lone "\r"): enough to exercise the copied loop's state stack, short enough that the check
# costs little more than the state preparation the first real text needs anyway. ASCII only:
# non-ASCII text compiles a state's whole alternation (tens of ms for a big lexer).
PROBE = 'def f(x, *a):\n  """d"""\n  return "s\\n" + \'c\' # c\n/* b */ `t ${y}` <a b="c">{ $y }</a>\n\tx\r\n'


def _agrees(fast: FastRegexLexer, lexer: Any) -> bool:
    """Return whether the fast driver gives Pygments' own tokens for the probe text."""
    try:
        return list(fast.tokens(PROBE)) == list(lexer.get_tokens_unprocessed(PROBE))
    except Exception:  # a lexer that fails on the probe: let Pygments handle it (and fail) itself
        return False


@lru_cache(maxsize=256)
def _fast(lexer: Any) -> FastRegexLexer | None:
    if not _is_plain_regex_lexer(lexer):
        return None
    fast = FastRegexLexer(lexer)
    if not _agrees(fast, lexer):
        log.warning(
            "fastlex: %s gives other tokens than Pygments; using Pygments for it", type(lexer).__name__
        )
        return None
    return fast


def enabled() -> bool:
    """Return whether the fast driver is on (``SESSIONTREE_FASTLEX=0`` turns it off)."""
    return os.environ.get(ENV, "1").strip().lower() not in ("0", "false", "no", "off")


FAST_AFTER_CHARS = 50_000
"""Characters a lexer highlights through Pygments' own loop before the fast driver takes over.

The driver compiles its combined patterns at first use of each state and character: 45-60 ms a
lexer for a few screens of code (a fresh process's first highlighting of five languages took
0.30 s of CPU through it, 0.08 s through Pygments' loop), repaid only over tens of kilobytes.
So a first screen, a small export or a one-off highlight never compiles them.
"""
_seen: dict[type, int] = {}
_bulk = False


def expect_bulk() -> None:
    """Take the fast driver from the first character on: a big render follows (compiled once, here,
    before a render worker is forked, rather than once in each process)."""
    global _bulk
    _bulk = True


def lex(lexer: Any, text: str) -> Iterator[Token]:
    """Yield (index, token type, value) for text: the fast path when it is on, the lexer allows it
    and the lexer has highlighted enough in this process for its compilation to pay."""
    if not _bulk:
        seen = _seen.get(type(lexer), 0)
        if seen < FAST_AFTER_CHARS:
            _seen[type(lexer)] = seen + len(text)
            return iter(lexer.get_tokens_unprocessed(text))
    fast = _fast(lexer) if enabled() else None
    if fast is None:
        return iter(lexer.get_tokens_unprocessed(text))
    return fast.tokens(text)
