"""Markdown safety and features: raw HTML off, allow-listed links, remote images as links."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessiontree.exporter.markdown import (
    _defused,
    _plain_paragraphs,
    is_allowed_url,
    markdown_parser,
    render_markdown,
)


@pytest.mark.parametrize(
    "text",
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        '<a href="javascript:alert(1)">x</a>',
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "[x](vbscript:msgbox(1))",
        "![x](javascript:alert(1))",
        '![x](https://e.com/a.png" onerror="alert(1))',
        "<javascript:alert(1)>",
        "```\n</code></pre><script>alert(1)</script>\n```",
        '```python" onmouseover="alert(1)\nx\n```',
    ],
)
def test_hostile_markdown_yields_no_script_handler_or_js_url(text: str) -> None:
    html = str(render_markdown(text))
    assert "<script" not in html.lower()
    assert not re.search(r"<[^>]*\son\w+\s*=", html, re.I)
    assert "javascript:" not in re.sub(r">[^<]*<", "><", html).lower()
    assert "data:" not in re.sub(r">[^<]*<", "><", html).lower()


def test_links_get_rel_noopener_and_only_allowed_schemes() -> None:
    html = str(render_markdown("[a](https://a.example) [m](mailto:x@y.z) [f](ftp://f.example)"))
    assert html.count('rel="noopener noreferrer"') == 2
    assert 'href="https://a.example"' in html
    assert 'href="mailto:x@y.z"' in html
    assert "ftp://" not in re.sub(r">[^<]*<", "><", html)


def test_remote_image_is_a_link_never_an_img() -> None:
    html = str(render_markdown("![chart](https://example.com/c.png)"))
    assert "<img" not in html
    assert 'class="st-remote-img" href="https://example.com/c.png"' in html
    assert "[image: chart]" in html


def test_tables_strikethrough_and_task_lists() -> None:
    html = str(render_markdown("| a |\n|---|\n| ~~b~~ |\n\n- [x] done\n- [ ] todo"))
    assert "<table>" in html
    assert "<s>b</s>" in html
    assert html.count('type="checkbox"') == 2
    assert "checked" in html


def test_fence_is_highlighted_with_language_and_unknown_language_is_plain() -> None:
    html = str(render_markdown("```python\ndef f(): pass\n```\n\n```nosuchlang\n<b>\n```"))
    assert '<pre class="st-code st-hl" data-lang="python">' in html
    assert '<span class="k">def</span>' in html
    assert "&lt;b&gt;" in html


def test_allowed_url() -> None:
    assert is_allowed_url("HTTPS://x")
    assert not is_allowed_url("javascript:x")
    assert not is_allowed_url("/relative")


PROSE = st.text(alphabet="ab Z9.,:;-+=()'\"?/%$@\n é", max_size=80)


@settings(max_examples=400, deadline=None)
@given(PROSE)
def test_plain_prose_shortcut_matches_markdown_it(text: str) -> None:
    shortcut = _plain_paragraphs(text)
    if shortcut is not None:
        assert shortcut == markdown_parser().render(text).replace("&quot;", '"')


@pytest.mark.parametrize(
    "text",
    [
        "Just words.",
        "Two\nlines",
        "One.\n\nTwo.",
        "a\n\n b",
        "a  \nb",
        "a\n1. b",
        "Hi\n===",
        "x\n- y",
        "a\n\n\nb",
    ],
)
def test_plain_prose_shortcut_cases(text: str) -> None:
    shortcut = _plain_paragraphs(text)
    full = markdown_parser().render(text)
    assert shortcut is None or shortcut == full
    if text in ("Just words.", "Two\nlines", "One.\n\nTwo."):
        assert shortcut == full


def test_gfm_autolinks_are_allow_listed_links() -> None:
    html = str(render_markdown("See www.example.com, https://e.example/x and mail a@b.example."))
    assert '<a href="http://www.example.com" rel="noopener noreferrer" target="_blank">' in html
    assert '<a href="https://e.example/x" rel="noopener noreferrer" target="_blank">' in html
    assert '<a href="mailto:a@b.example" rel="noopener noreferrer" target="_blank">' in html


def test_a_link_to_a_target_not_allowed_reads_as_written() -> None:
    html = str(render_markdown("in [next.config.js](next.config.js:184:8-186:10) and ![a](x.png)"))
    assert "<a " not in html
    assert "[next.config.js](next.config.js:184:8-186:10)" in html
    assert "![a](x.png)" in html


def test_task_boxes_are_disabled() -> None:
    html = str(render_markdown("- [x] done\n- [ ] todo"))
    assert html.count('disabled="disabled" type="checkbox">') == 2


def test_code_in_a_fence_reaches_the_highlighter_unescaped_once() -> None:
    html = str(render_markdown("```python\nx = '<a>' & 1\n```"))
    assert "&lt;a&gt;" in html and "&amp;lt;" not in html
    assert '<span class="o">&amp;</span>' in html


@pytest.mark.parametrize(
    "text",
    [
        "[x`",
        "[a `b` `c and **bold**",
        "![`",
        "[a\n`b",
        "mm490ad\x1b[1;32mv(O2Guf;```\n**\n\n",
        "x\n[a `b\n\ny",
    ],
)
def test_a_label_with_an_unclosed_backtick_does_not_crash_the_engine(text: str, capfd) -> None:
    # markdown-it-pyrs 0.4 panics on these; the text is shown, and nothing reaches stderr
    html = str(render_markdown(text))
    words = [w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in ("mv",)]
    assert all(w in html for w in words), html
    assert "<script" not in html
    assert capfd.readouterr().err == ""


def test_a_link_whose_label_holds_an_unclosed_backtick_stays_a_link() -> None:
    html = str(render_markdown("see [x` y](https://a.example/x) and ``bar``"))
    assert '<a href="https://a.example/x"' in html and ">x` y</a>" in html and "<code>bar</code>" in html


def _engine(text: str) -> str | None:
    """The engine's HTML for a text, or None when it panics."""
    try:
        return markdown_parser().render(text)
    except Exception:
        raise
    except BaseException:  # pyo3_runtime.PanicException
        markdown_parser.cache_clear()
        return None


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="[]()`\\ab!\n|-#>*:é ", max_size=40))
def test_a_defused_text_never_panics_the_engine_and_reads_the_same(text: str) -> None:
    defused = _defused(text)
    html = _engine(defused)
    assert html is not None, defused
    before = _engine(text)
    if before is not None:  # where the engine did not panic, the page is the same
        assert html == before


def test_links_still_work_beside_backticks() -> None:
    html = str(render_markdown("see [`foo`](https://a.example/x) and `bar`"))
    assert (
        '<a href="https://a.example/x"' in html and "<code>foo</code>" in html and "<code>bar</code>" in html
    )
