"""Find secrets in session text and mask them in the copy that gets shared.

Two passes over a session: the first finds secrets in every string (the texts as the page shows
them, wrapped table cells joined, base64 decoded); the second masks them and every other copy
of a value found anywhere (a password seen once in a ``.env`` is masked in a later command, the
title, the working directory and a file name too).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sessiontree.share.blocks import printed_secret, prints_secret
from sessiontree.share.keyvalue import secret_under_key
from sessiontree.share.spans import Span, find_secret_spans, masks_in, merge_spans, starts_in_mask

MASK = "[REDACTED:{kind}]"
USER_MASK = "masked-by-you"  # the kind of a value given to ``share --mask``
MACHINE = (
    "machine-secret"  # the kind of a value this machine keeps as a credential (``share.machine_secrets``)
)
MIN_SPLIT = 12
"""A machine secret this long is found split across lines too (a wrapped terminal, a PEM body):
joined lines make no word this long by chance."""
_LINE_BREAK = re.compile(r"\r?\n[ \t]*")
_JOIN = re.compile(r"\n[ \t]*")  # the same, faster to search (a literal first): ``\r`` taken out before
# A value this short is masked where it was found, not looked for everywhere else.
MIN_PROPAGATED = 6
# Shorter texts hold no secret of their own (the shortest, "pw=abc1234", is 10 characters).
MIN_TEXT = 8

# The entry's (and header's) own structural fields: ids that link entries, never prose.
# Only at the top of an entry: deeper down an "id" or "type" is session data like any other.
_ENTRY_KEYS = frozenset({"id", "parentId", "type", "timestamp", "targetId", "fromId", "firstKeptEntryId"})
_HEADER_KEYS = frozenset({"type", "id", "version", "timestamp"})
_NO_KEYS: frozenset[str] = frozenset()
# Opaque provider data the page never shows (thinking signatures, encrypted reasoning): dropped
# from the shared copy (its value emptied), never scanned, never listed in the review.
HIDDEN_FIELDS = frozenset(
    {"thinkingSignature", "thoughtSignature", "thought_signature", "textSignature"}
    | {"encrypted_content", "encryptedContent"}
)
_HIDDEN_BY_TYPE = {"thinking": "signature", "redactedThinking": "data", "redacted_thinking": "data"}


@dataclass(frozen=True)
class Finding:
    """One masked value: its kind, first characters, length and where it was (entry, field)."""

    kind: str
    preview: str
    length: int
    entry: str
    field: str
    source: str = ""
    """For this machine's own secret: where it came from (its first characters are never kept)."""


@dataclass(frozen=True)
class Kept:
    """A random-looking value kept: the look-alike rule's reason, its first and last characters."""

    reason: str
    first: str
    last: str
    length: int


@dataclass
class RedactionReport:
    """What was masked: secret kind -> count, and each value found; the random-looking values kept."""

    counts: Counter[str] = field(default_factory=Counter)
    findings: list[Finding] = field(default_factory=list)
    kept: list[Kept] = field(default_factory=list)
    machine: Counter[str] = field(default_factory=Counter)
    """This machine's own secrets masked: where each came from -> how many times."""

    @property
    def total(self) -> int:
        """Return how many secrets were masked."""
        return sum(self.counts.values())

    def summary(self) -> str:
        """Return ``2 github-token, 1 jwt`` (kinds sorted by name)."""
        return ", ".join(f"{n} {kind}" for kind, n in sorted(self.counts.items()))


class Redactor:
    """Masks secrets across many strings: finds them first, then masks every copy of each value."""

    def __init__(self, masks: Iterable[str] = (), machine: Mapping[str, str] | None = None) -> None:
        """``masks`` are values to mask wherever they are, whatever they look like (``--mask``);
        ``machine`` this machine's secrets in every form to mask -> where each came from."""
        self._spans: dict[str, list[Span]] = {}
        self._values: dict[str, str] = dict.fromkeys((m for m in masks if m), USER_MASK)  # value -> kind
        self._copies: re.Pattern[str] | None = None
        self._kept: dict[str, str] = {}  # random-looking value kept -> the look-alike rule's reason
        self._machine: dict[str, str] = {f: where for f, where in (machine or {}).items() if f}
        self._matcher: Any = None  # an Aho-Corasick automaton of the machine's secrets, every form
        if self._machine:
            import ahocorasick

            self._matcher = ahocorasick.Automaton()
            for form in self._machine:
                self._matcher.add_word(form, form)
            self._matcher.make_automaton()

    def learn(self, text: str, key: str | None = None) -> None:
        """Find the secrets of ``text`` (pass one) and remember their values.

        ``key`` is the JSON key the text is the value of: under ``"password"`` or ``"apiKey"``
        the whole text is the secret when it passes that key's test.
        """
        if key is not None and len(text) >= MIN_PROPAGATED and text not in self._values:
            kind = secret_under_key(key, text)
            if kind is not None:
                self._values[text] = kind
                self._copies = None
        if len(text) < MIN_TEXT or text in self._spans:
            return
        kept: list[Span] = []
        spans = find_secret_spans(text, kept)
        self._spans[text] = spans
        for start, end, reason in kept:
            self._kept.setdefault(text[start:end], reason)
        for start, end, kind in spans:
            if end - start >= MIN_PROPAGATED:
                self._values.setdefault(text[start:end], kind)
        self._copies = None

    def learn_strings(self, strings: Iterable[tuple[str, str | None]]) -> list[str] | None:
        """``learn`` each (text, key) of a walk (``_strings``); return the texts when none holds a
        secret of its own or is hidden, else None (see ``learn_value``)."""
        texts: list[str] | None = []
        known = self._spans
        for text, key in strings:
            # Most strings of a session are keys and texts seen before: answered without a call.
            spans = known.get(text) if key is None else None
            if spans is None:
                if key is _HIDDEN:
                    texts = None
                    continue
                self.learn(text, key)
                spans = known.get(text)
            if texts is not None:
                if spans:
                    texts = None
                else:
                    texts.append(text)
        return texts

    def kept(self) -> list[Kept]:
        """Return the random-looking values kept by a look-alike rule and masked nowhere, and why."""
        copies = self._copy_pattern()
        return [
            Kept(reason, value[:4], value[-4:], len(value))
            for value, reason in self._kept.items()
            if value not in self._values
            and (copies is None or copies.search(value) is None)
            and not self._holds_machine(value)
        ]

    def holds_copy(self, texts: list[str]) -> bool:
        """Tell whether a value learnt anywhere, or a secret of this machine, may be in one of ``texts``."""
        copies = self._copy_pattern()
        if copies is not None and copies.search("\x00".join(texts)) is not None:
            return True
        return self._holds_machine("\x00".join(texts))

    def _holds_machine(self, text: str) -> bool:
        """Tell whether a secret of this machine may be in ``text`` (lines joined: in C, no mapping)."""
        if self._matcher is None:
            return False
        joined = _JOIN.sub("", text.replace("\r", "") if "\r" in text else text) if "\n" in text else text
        return next(iter(self._matcher.iter(joined)), None) is not None

    def _machine_spans(self, text: str) -> list[tuple[int, int]]:
        """Where this machine's secrets stand in ``text``, a long one split across lines too (line
        breaks and the indentation after them left out)."""
        if "\n" not in text:
            return [(end - len(form) + 1, end + 1) for end, form in self._matcher.iter(text)]
        pieces: list[str] = []
        starts: list[int] = []  # where each piece begins in the joined text
        origins: list[int] = []  # and in ``text``
        joined = pos = 0
        for match in _LINE_BREAK.finditer(text):
            pieces.append(text[pos : match.start()])
            starts.append(joined)
            origins.append(pos)
            joined += match.start() - pos
            pos = match.end()
        pieces.append(text[pos:])
        starts.append(joined)
        origins.append(pos)

        def origin(index: int) -> int:
            piece = bisect_right(starts, index) - 1
            return origins[piece] + index - starts[piece]

        found: list[tuple[int, int]] = []
        for end, form in self._matcher.iter("".join(pieces)):
            length = len(form)
            start, stop = origin(end - length + 1), origin(end) + 1
            if stop - start == length or length >= MIN_SPLIT:  # a short one only where it stands whole
                found.append((start, stop))
        return found

    def remember(self, value: str, kind: str) -> None:
        """Mask every copy of ``value`` (found by its context elsewhere: a command's output)."""
        if len(value) >= MIN_PROPAGATED and value not in self._values:
            self._values[value] = kind
            self._copies = None

    def spans(self, text: str) -> list[Span]:
        """Return where ``text`` is masked: its own secrets and copies of any value learnt."""
        if len(text) < MIN_PROPAGATED:
            return []
        own = self._spans.get(text)
        if own is None:
            self.learn(text)
            own = self._spans.get(text, [])
        copies = self._copy_pattern()
        machine = self._machine_spans(text) if self._holds_machine(text) else []
        if not machine and (copies is None or not copies.search(text)):
            return own
        found = [(s, e, 0, k) for s, e, k in own]
        masks = masks_in(text)
        for match in copies.finditer(text) if copies is not None else ():
            if not (masks and starts_in_mask(match.start(), masks)):
                found.append((match.start(), match.end(), 1, self._values[match.group()]))
        # What this machine holds is known for sure: it names the span over any guess.
        found += [(start, end, -1, MACHINE) for start, end in machine]
        return merge_spans(found)

    def _machine_source(self, value: str) -> str:
        """Where the machine's secret in a masked span came from (the longest form in it)."""
        forms = (
            [form for _end, form in self._matcher.iter(_LINE_BREAK.sub("", value))] if self._matcher else []
        )
        return self._machine.get(max(forms, key=len), "") if forms else ""

    def _copy_pattern(self) -> re.Pattern[str] | None:
        if self._copies is None and self._values:
            ordered = sorted(self._values, key=len, reverse=True)
            self._copies = re.compile("|".join(map(re.escape, ordered)))
        return self._copies

    def redact(self, text: str, report: RedactionReport, entry: str = "", where: Any = None) -> str:
        """Return ``text`` with its secrets and every learnt value masked; note each in ``report``.

        ``where`` is the field: a string, or the walk's linked path (made a string only when needed).
        """
        spans = self.spans(text)
        if not spans:
            return text
        field_name = where if isinstance(where, str) else _path_text(where)
        pieces: list[str] = []
        pos = 0
        for start, end, kind in spans:
            pieces.append(text[pos:start])
            pieces.append(MASK.format(kind=kind))
            report.counts[kind] += 1
            value = text[start:end]
            if kind == MACHINE:
                where = self._machine_source(value)
                report.machine[where] += 1
                report.findings.append(Finding(kind, "", end - start, entry, field_name, where))
            else:
                report.findings.append(Finding(kind, value[:4], end - start, entry, field_name))
            pos = end
        pieces.append(text[pos:])
        return "".join(pieces)


def redact_text(text: str, report: RedactionReport | None = None) -> str:
    """Return ``text`` with every secret masked (and every other copy of one in it)."""
    return Redactor().redact(text, report if report is not None else RedactionReport())


def _hidden_key(item: dict[Any, Any]) -> str | None:
    """Return the key of a block's own hidden field (``signature`` of a thinking block), if any."""
    kind = item.get("type")
    return _HIDDEN_BY_TYPE.get(kind) if isinstance(kind, str) else None


# The key ``_strings`` gives the value of a hidden field under (its text is never scanned).
_HIDDEN = "\x00hidden"


def _strings(value: Any, keep: frozenset[str] = _NO_KEYS) -> Iterable[tuple[str, str | None]]:
    """Yield every string of a JSON value with the key it is under (keys too, with None), but
    those shorter than ``MIN_PROPAGATED``: too short to be a secret or to hold a copy of one.

    Image data and the top-level ``keep`` fields are left out, a hidden field's value is given
    under ``_HIDDEN``; no recursion.
    """
    stack: list[tuple[Any, str | None]] = [(value, None)]
    top = True
    while stack:
        item, under = stack.pop()
        if isinstance(item, str):
            yield item, under
        elif isinstance(item, list):
            stack.extend(
                (child, under) for child in item if not isinstance(child, str) or len(child) >= MIN_PROPAGATED
            )
        elif isinstance(item, dict):
            is_image = item.get("type") == "image"
            hidden = _hidden_key(item)
            for key, child in item.items():
                if isinstance(key, str) and len(key) >= MIN_PROPAGATED:
                    yield key, None
                if isinstance(child, str):
                    if key in HIDDEN_FIELDS or key == hidden:
                        yield child, _HIDDEN
                        continue
                    if len(child) < MIN_PROPAGATED or (is_image and key == "data") or (top and key in keep):
                        continue
                stack.append((child, key if isinstance(key, str) else None))
        top = False


def redact_value(
    value: Any,
    report: RedactionReport,
    *,
    keep: frozenset[str] = _NO_KEYS,
    redactor: Redactor | None = None,
    entry: str = "",
) -> Any:
    """Return a copy of a JSON value with every string and key redacted (image data left alone).

    ``keep`` names the top-level keys whose string values are structure, copied as they are. The
    walk uses its own stack, so a value nested thousands deep is no recursion problem.
    """
    redactor = redactor or Redactor()
    root: list[Any] = [None]
    # item, the list or dict to put its copy in, its slot there, keys kept, field path (linked)
    stack: list[tuple[Any, Any, Any, frozenset[str], Any]] = [(value, root, 0, keep, None)]
    while stack:
        item, parent, slot, skip, path = stack.pop()
        if isinstance(item, str):
            parent[slot] = redactor.redact(item, report, entry, path)
        elif isinstance(item, list):
            items: list[Any] = [None] * len(item)
            parent[slot] = items
            stack.extend((child, items, i, _NO_KEYS, (i, path)) for i, child in enumerate(item))
        elif isinstance(item, dict):
            out: dict[Any, Any] = {}
            parent[slot] = out
            is_image = item.get("type") == "image"
            hidden = _hidden_key(item)
            for key, child in item.items():
                if isinstance(child, str) and (key in HIDDEN_FIELDS or key == hidden):
                    out[key] = ""  # never shown: not published, not listed
                    continue
                if isinstance(key, str):
                    new_key = _unique_key(redactor.redact(key, report, entry, (key, path)), out)
                else:
                    new_key = key
                if isinstance(child, str) and (key in skip or (is_image and key == "data")):
                    out[new_key] = child
                else:
                    out[new_key] = None  # keeps the key order; filled when popped
                    stack.append((child, out, new_key, _NO_KEYS, (key, path)))
        else:
            parent[slot] = item  # numbers, booleans and null are immutable
    return root[0]


def _path_text(path: Any) -> str:
    parts: list[str] = []
    while path is not None:
        key, path = path
        parts.append(f"[{key}]" if isinstance(key, int) else str(key))
    return ".".join(reversed(parts)).replace(".[", "[")


def _unique_key(key: str, taken: dict[Any, Any]) -> str:
    """Return ``key``, or ``key#2``... when two masked keys would collide."""
    if key not in taken:
        return key
    n = 2
    while f"{key}#{n}" in taken:
        n += 1
    return f"{key}#{n}"


def learn_value(redactor: Redactor, value: Any, keep: frozenset[str] = _ENTRY_KEYS) -> list[str] | None:
    """Find the secrets of every string of a JSON value (pass one), keys judged with their values.

    Return the strings looked at when none holds a secret of its own or is a hidden field (the
    value then needs redacting only if a value learnt elsewhere is in one of them), else None.
    """
    return redactor.learn_strings(_strings(value, keep))


def _command(block: dict[str, Any]) -> str | None:
    arguments = block.get("arguments")
    command = arguments.get("command") if isinstance(arguments, dict) else None
    if isinstance(command, list):
        command = " ".join(str(part) for part in command)
    return command if isinstance(command, str) else None


def learn_printed(redactor: Redactor, entries: list[dict[str, Any]]) -> None:
    """Learn the value a secret-printing command printed alone (``openssl rand -hex 32``)."""
    printing: set[Any] = set()
    for entry in entries:
        message = entry.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        if message.get("role") == "toolResult":  # type: ignore[union-attr]
            if message.get("toolCallId") not in printing:  # type: ignore[union-attr]
                continue
            for block in content:
                text = block.get("text") if isinstance(block, dict) else None
                found = printed_secret(text) if isinstance(text, str) else None
                if found is not None:
                    redactor.remember(text[found[0] : found[1]], "printed-secret")  # type: ignore[index]
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "toolCall":
                command = _command(block)
                if command is not None and prints_secret(command):
                    printing.add(block.get("id"))


def redact_entries(
    header: dict[str, Any],
    entries: list[dict[str, Any]],
    extra: Iterable[tuple[str, Any]] = (),
    redactor: Redactor | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]], RedactionReport]:
    """Return redacted copies of a session's header and entries, and what was masked.

    ``extra`` are more (name, value) pairs whose secrets count too (a title slot, subagents);
    pass the same ``redactor`` to ``redact_value`` to mask them.
    """
    redactor = redactor or Redactor()
    learn_printed(redactor, entries)
    learn_value(redactor, header, _HEADER_KEYS)
    clean = [learn_value(redactor, value) for value in entries]
    for _, value in extra:
        learn_value(redactor, value)
    report = RedactionReport()
    new_header = redact_value(header, report, keep=_HEADER_KEYS, redactor=redactor, entry="header")
    # An entry with no secret of its own, no hidden field and no value learnt elsewhere is
    # shared as it is (never changed): a copy would be equal to it.
    new_entries = [
        entry
        if texts is not None and not redactor.holds_copy(texts)
        else redact_value(entry, report, keep=_ENTRY_KEYS, redactor=redactor, entry=str(entry.get("id", "")))
        for entry, texts in zip(entries, clean, strict=True)
    ]
    return new_header, new_entries, report
