"""Redaction stays linear on hostile inputs, and redacting twice changes nothing (held-out values)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessiontree.share.redact import redact_entries, redact_text
from tests.share.heldout.generate import draw_cases
from tests.share.heldout.lookalikes import draw_lookalikes
from tests.share.test_redact import assert_idempotent

# Each makes a text of about n units that once made (or could make) a regex or a loop quadratic:
# a scan to the end for every start, two blank runs side by side, a keyword inside one long word.
HOSTILE: dict[str, Callable[[int], str]] = {
    "begin-lines": lambda n: "-----BEGIN RSA PRIVATE KEY-----\n" * n,
    "keys-without-values": lambda n: "password=" * n,
    "keywords-in-one-word": lambda n: "key" * n + "=x",
    "long-blanks-before-a-break": lambda n: "a" + " " * (30 * n) + "|\nb",
    "slashes-after-a-prefix": lambda n: "ab_" + "/xy" * (10 * n),
    "urls-without-spaces": lambda n: "https://hooks.example.com/" * n,
    "webhook-words": lambda n: "https://a.io/" + "hook" * (8 * n),
    "glued-prefixes": lambda n: "AKIA" * (8 * n),
    "base64-lines": lambda n: ("QUJD" * 19 + "\n") * n,
    "table-joints": lambda n: " 1 | abcdefgh.\n   |.ijklmnop\n" * n,
    "ansi-codes": lambda n: "\x1b[31m" * (4 * n) + "ghp_",
    "entities-and-escapes": lambda n: "&amp;\\_" * (4 * n),
    "dashes-after-sk": lambda n: "sk-" + "a-" * (10 * n),
    "pipes": lambda n: "| " * (10 * n) + "\n",
    "colons": lambda n: "a:" * (10 * n) + "\n",
    "url-users": lambda n: "://" + "a" * (30 * n) + "@",
    # The slot detectors (share/slots.py, share/blocks.py).
    "xml-tags-never-closed": lambda n: "<password>" * (3 * n),
    "calls-without-arguments": lambda n: "Credential(" * (3 * n),
    "prose-without-value": lambda n: "the password is " * (2 * n),
    "dsn-colons-and-ats": lambda n: "u:p@" * (8 * n),
    "continuations": lambda n: "TOKEN=ab" + "\\\ncd" * (4 * n),
    "concatenations": lambda n: 'KEY="ab"' + '\n"cd"' * (4 * n),
    "glue-joints": lambda n: "sk_" + "Ab3dEf5h!" * (4 * n),
    "table-rules": lambda n: "| password | b |\n|---|---|\n" + "| x | y |\n" * n,
    "hex-runs-glued": lambda n: ("dose" + "ab12" * 8 + " ") * n,
    "dotted-pieces": lambda n: "a" + ".abcd" * (8 * n),
    "prompt-lines": lambda n: "$ cat secret.txt\n" * (2 * n),
    "folded-keys": lambda n: "password: >\n" * (2 * n),
    "sql-inserts": lambda n: "INSERT INTO t (password) VALUES (" * n,
    # share/roles.py's finders (issue 53): flags, login lines, pipes, calls, declarations, diffs.
    "short-flags": lambda n: " -P Ab3dEf5h!" * (4 * n),
    "auth-lines": lambda n: "AUTH user Ab3dEf5h!\n" * n,
    "echo-pipes": lambda n: "echo Ab3dEf5h! | " * (2 * n),
    "connect-args": lambda n: 'db.connect("a", ' * (2 * n),
    "typed-declarations": lambda n: "passKey: String " * (2 * n),
    "word-diffs": lambda n: "password: [-Ab3dEf5h!" * (2 * n),
    "graphql-variables": lambda n: '"variables" password: $p "p": ' * n,
    "directives": lambda n: "requirepass Ab3dEf5h! " * (2 * n),
}
SMALL = 1500


def _cpu(text: str) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        redact_text(text)
        best = min(best, time.process_time() - started)
    return best


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_redaction_time_grows_linearly_on_hostile_input(name: str) -> None:
    make = HOSTILE[name]
    redact_text(make(SMALL // 10))  # warm up (regex compilation, caches)
    small, large = _cpu(make(SMALL)), _cpu(make(4 * SMALL))
    # Four times the text: about 4x the time when linear, 16x when quadratic. CPU time, best of
    # three, and a floor of 5 ms, so a loaded machine's noise does not decide.
    assert large <= 8 * max(small, 0.005), (name, small, large)


def _heldout_texts() -> list[str]:
    texts = [case.text for case in draw_cases(7, 1)]
    return texts + [text for _, text, _ in draw_lookalikes(7)]


HELDOUT = _heldout_texts()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.one_of(st.sampled_from(HELDOUT), st.text(max_size=20)), min_size=1, max_size=6),
    st.sampled_from([" ", "\n", "", "/", "_", "-", "=", "|", "\n | "]),
)
def test_redacting_twice_changes_nothing(parts: list[str], glue: str) -> None:
    assert_idempotent(glue.join(parts))


def test_redacting_a_session_twice_changes_nothing() -> None:
    rng = random.Random(11)
    texts = HELDOUT[:]
    rng.shuffle(texts)
    header = {"type": "session", "id": "1d3e1d3e", "cwd": f"/home/dev/{draw_cases(7, 1)[0].value}/app"}
    entries = [
        {
            "type": "message",
            "id": f"e{i:03d}",
            "message": {"role": "user", "content": [{"type": "text", "text": t}]},
        }
        for i, t in enumerate(texts)
    ]
    header1, entries1, report1 = redact_entries(header, entries)
    assert report1.total > len(texts) // 2
    header2, entries2, report2 = redact_entries(header1, entries1)
    assert (header2, entries2) == (header1, entries1)
    assert report2.total == 0


def test_a_key_that_opens_on_the_line_another_closes_is_masked() -> None:
    # Found by the idempotence property: the second key was masked only by a second pass.
    body = "V7ESofSD1Zrmr/ZLxEaz6ZUDaM7FZyG8lVJ0d6NNlogKgGSLqao3RjMT95zr4Kds"
    text = (
        f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----"
        f"output cut: -----BEGIN PRIVATE KEY-----\n{body[::-1]}\njKQB9VNMYisG3am4jlWi3q4Pp8Co5jpzWU6"
    )
    once = redact_text(text)
    assert once == "[REDACTED:private-key]output cut: [REDACTED:private-key]"
    assert redact_text(once) == once


def test_a_token_after_a_path_in_the_same_run_is_masked_at_once() -> None:
    # Found by the idempotence property: the run's first token hid the one after "/config.json".
    first = "slk_b31ca0dd91b6bed40fc8db9cd0340efee9030f1faf1797d293d976088f501ed3"
    text = f"ls /v/{first}/config.json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"
    once = redact_text(text)
    assert "84aaf4614dc9" not in once and "b31ca0dd91b6" not in once
    assert redact_text(once) == once
