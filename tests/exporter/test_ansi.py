"""ANSI escapes become escaped spans with classes; everything else is dropped."""

from __future__ import annotations

from sessiontree.exporter.ansi import ansi_to_html, strip_ansi


def test_basic_colours_bold_and_reset() -> None:
    html = str(ansi_to_html("\x1b[1;31merror\x1b[0m ok"))
    assert html == '<span class="ansi-fg-1 ansi-bold">error</span> ok'


def test_bright_background_256_and_truecolour_map_to_the_16_styled_colours() -> None:
    assert str(ansi_to_html("\x1b[92;104mx")) == '<span class="ansi-fg-10 ansi-bg-12">x</span>'
    assert str(ansi_to_html("\x1b[38;5;5mx\x1b[39my")) == '<span class="ansi-fg-5">x</span>y'
    assert str(ansi_to_html("\x1b[38;5;196mx")) == '<span class="ansi-fg-9">x</span>'  # bright red
    assert str(ansi_to_html("\x1b[48;5;232mx")) == '<span class="ansi-bg-0">x</span>'  # near black
    assert str(ansi_to_html("\x1b[38;2;250;250;250mx")) == '<span class="ansi-fg-15">x</span>'
    assert str(ansi_to_html("\x1b[38;2;0;0;230mx")) == '<span class="ansi-fg-4">x</span>'


def test_text_is_escaped_and_non_colour_sequences_dropped() -> None:
    html = str(ansi_to_html("\x1b]0;title\x07\x1b[2K<script>\x1b[31m&\x1b[m"))
    assert html == '&lt;script&gt;<span class="ansi-fg-1">&amp;</span>'


def test_no_escape_is_plain_escape_and_never_a_style_attribute() -> None:
    assert str(ansi_to_html("a<b")) == "a&lt;b"
    assert "style=" not in str(ansi_to_html("\x1b[38;2;1;2;3;48;5;7mx"))


def test_strip_ansi() -> None:
    assert strip_ansi("\x1b[1mbold\x1b[0m \x1b]8;;https://x\x1b\\link") == "bold link"
