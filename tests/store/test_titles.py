"""Titles cut at a word boundary with "…", the whole title on hover (page heading, tab, gist)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from sessiontree.exporter import render_session_html
from sessiontree.readers import load_any
from sessiontree.share.publish import describe_share
from sessiontree.store.titles import cut_title

PROMPT = (
    "Hey Claude, I'd like your help with refactoring the timeline filtering so that when we filter "
    "by message type the hidden entries keep their place"
)


def test_cut_at_a_word_boundary() -> None:
    cut = cut_title(PROMPT)
    assert cut == "Hey Claude, I'd like your help with refactoring the timeline filtering so that…"
    assert cut_title("short  title\n") == "short title"
    assert cut_title("x" * 100, 10) == "x" * 9 + "…"  # one long word is cut inside it


@given(st.text(alphabet=st.sampled_from("ab cd\n,."), max_size=300), st.integers(min_value=8, max_value=120))
def test_a_cut_title_fits_and_is_a_prefix_of_the_words(text: str, limit: int) -> None:
    cut = cut_title(text, limit)
    flat = " ".join(text.split())
    assert len(cut) <= limit
    assert cut == flat or (cut.endswith("…") and flat.startswith(cut[:-1]))


def test_page_heading_tab_and_gist_show_the_cut_title(tmp_path: Path) -> None:
    lines = [
        {"type": "session", "version": 3, "id": "t1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"},
        {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
         "message": {"role": "user", "content": [{"type": "text", "text": PROMPT}]}},
    ]  # fmt: skip
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    page = render_session_html(load_any(path))
    cut = cut_title(PROMPT)
    heading = re.search(r'<h1 class="st-title" title="([^"]*)">([^<]*)</h1>', page)
    assert heading is not None
    assert html.unescape(heading[1]) == PROMPT and html.unescape(heading[2]) == cut
    tab = re.search(r"<title>([^<]*)</title>", page)
    assert tab is not None and html.unescape(tab[1]) == cut
    assert (
        describe_share(PROMPT * 2, "2026-01-01") == f"sessiontree: {cut_title(PROMPT * 2, 100)} (2026-01-01)"
    )
    assert "so that w " not in page.split("<body", 1)[0]  # no cut inside a word in the head


def test_markdown_marks_are_stripped_from_titles() -> None:
    from sessiontree.store.titles import plain_title, strip_markdown

    assert strip_markdown("## Research Plan **Question**: when") == "Research Plan Question: when"
    assert strip_markdown("> *quoted* and _this_ [link](https://x.invalid) ![alt](y.png) `code`") == (
        "quoted and this link alt code"
    )
    assert strip_markdown("- [x] done ~~old~~ __new__") == "done old new"
    # What only looks like marks stays: identifiers, arithmetic, a lone star.
    assert strip_markdown("snake_case_name 2*3*4 a * b") == "snake_case_name 2*3*4 a * b"
    assert plain_title("# " + "word " * 30, 20) == "word word word…"


def test_a_title_without_marks_skips_the_rules_and_a_numbered_one_does_not() -> None:
    import random
    import re

    from sessiontree.store import titles

    def by_every_rule(text: str) -> str:
        for pattern, replacement in titles._MARKDOWN_RULES:
            text = re.sub(pattern, replacement, text)
        return text

    plain = "Synthetic demo session: 3 files, v2"
    assert titles.strip_markdown(plain) is plain
    assert titles.strip_markdown("1. Fix it\n  ٢) and this") == "Fix it\nand this"
    pick = random.Random(3)
    for _ in range(5_000):
        text = "".join(pick.choice("ab 12.)[]()!#>-*+_~`\n٣") for _ in range(pick.randint(0, 14)))
        assert titles.strip_markdown(text) == by_every_rule(text), repr(text)
