"""OutputSink across chunk boundaries: the result never depends on where the stream was cut."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sessiontree.store.output_sink import OutputSink, sanitize_bytes, sanitize_text, split_open_tail

ALPHABET = [
    "\x1b",
    "[",
    "]",
    ";",
    "0",
    "3",
    "1",
    "m",
    "\x07",
    "\\",
    "a",
    "Z",
    " ",
    "é",
    "°",
    "\x85",
    "€",
    "😀",
]
ALPHABET += ["\r", "\n", "\t", "\x00", "\x7f", "\x9b", "~", "?"]
texts = st.lists(st.sampled_from(ALPHABET), max_size=80).map("".join)


def stream(data: bytes, cuts: list[int]) -> str:
    sink = OutputSink(spill_threshold=1 << 20)
    points = sorted({min(c, len(data)) for c in cuts})
    start = 0
    for point in [*points, len(data)]:
        sink.push(data[start:point])
        start = point
    return sink.dump().output


@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_bytes_rules_match_text_rules(text: str) -> None:
    assert sanitize_bytes(text.encode()).decode() == sanitize_text(text)


@settings(max_examples=300, deadline=None)
@given(text=texts, cuts=st.lists(st.integers(0, 400), max_size=12))
def test_any_chunking_gives_the_same_output(text: str, cuts: list[int]) -> None:
    assert stream(text.encode(), cuts) == sanitize_text(text)


def test_escape_split_across_chunks_leaves_no_debris() -> None:
    assert stream(b"red \x1b[31mtext\x1b[0m done", [5, 6, 7, 8, 14]) == "red text done"


def test_osc_title_split_across_chunks() -> None:
    assert stream(b"a\x1b]0;my title\x1b\\b", [3, 9, 12]) == "ab"


def test_unterminated_osc_loses_only_its_two_byte_introducer() -> None:
    assert stream(b"x\x1b]not an osc\nkept\n", [4]) == "xnot an osc\nkept\n"


def test_c1_control_split_after_its_lead_byte() -> None:
    assert stream("a\x85b°c".encode(), [2, 5]) == "ab°c"


def test_open_tail_detection() -> None:
    assert split_open_tail(b"abc\x1b[3") == 3
    assert split_open_tail(b"abc\x1b") == 3
    assert split_open_tail(b"abc\x1b]title") == 3
    assert split_open_tail(b"abc\x1b[31m") == 8
    assert split_open_tail(b"abc\xc2") == 3
    assert split_open_tail(b"abc") == 3


def test_str_and_bytes_chunks_can_mix() -> None:
    sink = OutputSink()
    sink.push(b"one \x1b[")
    sink.push("two\n")
    sink.push(b"\xe2\x82")
    sink.push(b"\xac")
    assert sink.dump().output == "one [two\n€"
