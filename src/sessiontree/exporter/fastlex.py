"""Run a Pygments RegexLexer with one combined regex per state: same tokens, far fewer matches.

Pygments tries each rule of a state in turn at every position (tens of ``match`` calls per
token). Python's alternation ``(?P<r0>...)|(?P<r1>...)`` also takes the first alternative that
matches at a position, so one match on the combined pattern finds the same rule. States whose
rules cannot be combined (numeric backreferences, global inline flags, mixed flags) keep the
rule-by-rule loop. Anything but a plain RegexLexer runs through Pygments unchanged.
"""

from __future__ import annotations

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


class FastRegexLexer:
    """Tokenise like ``RegexLexer.get_tokens_unprocessed`` with combined per-state patterns."""

    def __init__(self, lexer: Any) -> None:
        self.lexer = lexer
        self.tokendefs: dict[str, list[Rule]] = lexer._tokens
        # Built on first use: big lexers have dozens of states a given text never enters.
        self.combined: dict[str, Callable[[str, int], re.Match[str] | None] | None] = {}
        # Group name -> rule index, so a match names its rule without parsing the name.
        self.index = {f"r{i}": i for i in range(max((len(r) for r in self.tokendefs.values()), default=0))}

    def matcher(self, state: str) -> Callable[[str, int], re.Match[str] | None] | None:
        """Return the combined matcher of a state (None: match its rules one by one)."""
        try:
            return self.combined[state]
        except KeyError:
            matcher = self.combined[state] = _combine(self.tokendefs[state])
            return matcher

    def tokens(self, text: str) -> Iterator[Token]:
        """Yield (index, token type, value) exactly as the Pygments lexer would."""
        lexer, tokendefs, index, matcher_of = self.lexer, self.tokendefs, self.index, self.matcher
        pos = 0
        statestack = ["root"]
        rules = tokendefs["root"]
        matcher = matcher_of("root")
        while True:
            rule: Rule | None = None
            m: re.Match[str] | None = None
            if matcher is not None:
                m = matcher(text, pos)
                if m is not None:
                    rule = rules[index[m.lastgroup or ""]]
            else:
                for candidate in rules:
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
                        for state in new_state:
                            if state == "#pop":
                                if len(statestack) > 1:
                                    statestack.pop()
                            elif state == "#push":
                                statestack.append(statestack[-1])
                            else:
                                statestack.append(state)
                    elif isinstance(new_state, int):
                        if abs(new_state) >= len(statestack):
                            del statestack[1:]
                        else:
                            del statestack[new_state:]
                    elif new_state == "#push":
                        statestack.append(statestack[-1])
                    rules = tokendefs[statestack[-1]]
                    matcher = matcher_of(statestack[-1])
                continue
            if pos >= len(text):
                break
            if text[pos] == "\n":
                statestack = ["root"]
                rules = tokendefs["root"]
                matcher = matcher_of("root")
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


@lru_cache(maxsize=256)
def _fast(lexer: Any) -> FastRegexLexer | None:
    return FastRegexLexer(lexer) if _is_plain_regex_lexer(lexer) else None


def lex(lexer: Any, text: str) -> Iterator[Token]:
    """Yield (index, token type, value) for text: the fast path when the lexer allows it."""
    fast = _fast(lexer)
    if fast is None:
        return iter(lexer.get_tokens_unprocessed(text))
    return fast.tokens(text)
