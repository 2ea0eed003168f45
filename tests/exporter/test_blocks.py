"""Diffs, long-output previews, images and mime types."""

from __future__ import annotations

import base64
import hashlib

from sessiontree.exporter.blocks import compute_diff, render_diff_text, render_output
from sessiontree.exporter.images import ImageRegistry
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
    assert "hidden>20\n21\n22</pre>" in html


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
