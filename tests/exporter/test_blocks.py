"""Diffs, long-output previews, images and mime types."""

from __future__ import annotations

import base64
import hashlib
import html as html_lib
import re

from sessiontree.exporter.blocks import (
    HIGHLIGHT_REST_CHARS,
    MAX_HIGHLIGHT_CHARS,
    PREVIEW_LINES,
    compute_diff,
    render_diff_text,
    render_output,
)
from sessiontree.exporter.highlight import highlight_code, highlight_split, lexer_by_name, theme_css
from sessiontree.exporter.images import ImageRegistry
from sessiontree.exporter.templating import read_asset
from tests.exporter.entries import PNG_1X1


def test_computed_diff_marks_removed_and_added_lines() -> None:
    diff = compute_diff("a\nb\nc", "a\nB\nc")
    assert diff.splitlines() == ["@@ -1,3 +1,3 @@", " a", "-b", "+B", " c"]
    html = str(render_diff_text(diff))
    assert '<span class="st-diff-del">-b</span>' in html
    assert '<span class="st-diff-add">+B</span>' in html
    assert '<span class="st-diff-hunk">@@ -1,3 +1,3 @@</span>' in html


def test_diff_text_is_escaped() -> None:
    assert "+&lt;script&gt;" in str(render_diff_text("+<script>"))


def test_short_output_has_no_more_button() -> None:
    html = str(render_output("a\nb"))
    assert "data-more" not in html
    assert "st-more" not in html


def test_preview_keeps_exact_line_split() -> None:
    text = "\n".join(str(i) for i in range(23))
    html = str(render_output(text, limit=20))
    assert 'data-more="3"' in html
    assert ">0\n1\n" in html
    assert '19<span class="st-rest" hidden>\n20\n21\n22</span></pre>' in html


def test_highlighting_runs_across_the_preview_cut() -> None:
    """The rest of a long output is highlighted as part of the whole, not left plain."""
    text = "\n".join(['doc = """first'] + [f"line {i}" for i in range(22)] + ['"""', "x = 1"])
    html = str(render_output(text, lexer=lexer_by_name("python")))
    head, rest = html.split('<span class="st-rest" hidden>')
    assert '<span class="s2">&quot;&quot;&quot;first' in head.replace('"""', "&quot;&quot;&quot;")
    assert head.count("\n") == PREVIEW_LINES - 1 == 19  # the issue's ~20 lines
    assert rest.startswith('\n<span class="s2">line 19')  # the string token goes on past the cut
    assert '<span class="mi">1</span>' in rest
    plain = re.sub(r"<[^>]+>", "", html.split('<pre class="st-pre st-hl">')[1].split("</pre>")[0])
    assert html_lib.unescape(plain) == text  # preview and rest put together: the text, exactly


def test_a_long_outputs_hidden_rest_costs_no_highlighting() -> None:
    """Past HIGHLIGHT_REST_CHARS the preview is highlighted and the hidden rest is plain, text exact."""
    text = "\n".join(f"value_{i} = {i}  # <{i}>" for i in range(HIGHLIGHT_REST_CHARS // 10))
    html = str(render_output(text, lexer=lexer_by_name("python")))
    head, rest = html.split('<span class="st-rest" hidden>')
    assert '<span class="mi">9</span>' in head
    assert "<span class" not in rest.split("</span></pre>")[0]
    assert "&lt;22&gt;" in rest and "&lt;19&gt;" in head
    plain = re.sub(r"<[^>]+>", "", html.split('<pre class="st-pre st-hl">')[1].split("</pre>")[0])
    assert html_lib.unescape(plain) == text


def test_very_long_outputs_are_plain_throughout() -> None:
    text = "\n".join(f"value_{i} = {i}" for i in range(MAX_HIGHLIGHT_CHARS // 10))
    html = str(render_output(text, lexer=lexer_by_name("python")))
    assert "st-hl" not in html and '<span class="mi">' not in html


def test_each_distinct_image_is_stored_once_by_sha256_of_bytes() -> None:
    reg = ImageRegistry()
    first = reg.add(PNG_1X1, "image/png")
    second = reg.add(PNG_1X1, "image/png")
    assert first.sha == second.sha == hashlib.sha256(base64.b64decode(PNG_1X1)).hexdigest()
    assert list(reg.images) == [first.sha]
    assert reg.images[first.sha].startswith("data:image/png;base64,")
    assert reg.take_new() == reg.images
    assert reg.take_new() == {}


def test_bad_mime_types_and_data_are_refused_with_a_note() -> None:
    reg = ImageRegistry()
    for mime in ("image/svg+xml", "text/html", 'image/png;"><script>', None, "IMAGE/PNG "):
        ref = reg.add(PNG_1X1, mime)
        if mime == "IMAGE/PNG ":
            assert ref.sha is not None
        else:
            assert ref.sha is None
            assert ref.note
    assert reg.add("not base64!!", "image/png").sha is None
    assert reg.add("blob:sha256:" + "0" * 64, "image/png").note == "image not available (blob missing)"
    assert all(url.startswith("data:image/png;base64,") for url in reg.images.values())


def test_classes_drawn_as_plain_text_get_no_span() -> None:
    """Names and punctuation look like plain text in both themes: no span, the same look, text exact."""
    code = "value = compute(a, b)  # <note> & more\n"
    html = highlight_code(code, lexer_by_name("python"))
    assert 'class="n"' not in html and 'class="p"' not in html
    assert '<span class="o">=</span>' in html and '<span class="c1"># &lt;note&gt; &amp; more</span>' in html
    assert html_lib.unescape(re.sub(r"<[^>]+>", "", html)) == code
    # Plain in the dark theme only because the page's dark text is the dark style's text colour.
    dark_text = re.search(r"--fg: light-dark\(#[0-9a-f]+, (#[0-9a-f]+)\)", read_asset("palette.css"))
    assert dark_text is not None and dark_text[1] == "#e6edf3"
    assert (
        ".st-hl .nv { color: #79C0FF }" in theme_css()
        and f"color: {dark_text[1].upper()}" in theme_css()
        and '[data-theme="light"] .st-hl .n ' not in theme_css()
    )


def test_code_holding_the_formatters_own_mark_characters_reads_exactly() -> None:
    """Runs are joined with private-use marks; code that holds those characters is still exact."""
    code = 'x = "\ue000k\ue001" + \ue002 < y\n'
    html = highlight_code(code, lexer_by_name("python"))
    assert '<span class="err">\ue002</span> <span class="o">&lt;</span> y' in html
    assert html_lib.unescape(re.sub(r"<[^>]+>", "", html)) == code
    head, rest = highlight_split(code, lexer_by_name("python"), 5, 6)
    assert html_lib.unescape(re.sub(r"<[^>]+>", "", head + rest)) == code[:5] + code[6:]
