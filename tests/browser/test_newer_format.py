"""The newer format and damaged files in Chromium: one-block outputs, print, archive, joints, reset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page

from sessiontree.exporter.blocks import PREVIEW_LINES
from sessiontree.pages.export import export_to_file
from tests.browser.conftest import Watch, open_page, wait_js

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# Longer than the preview, so the string token runs across the cut.
CODE = (
    ['doc = """a string that runs']
    + [f"    on, line {i}" for i in range(PREVIEW_LINES + 4)]
    + ['"""', "answer = 42"]
)


def code_session(tmp_path: Path, code: list[str] = CODE) -> Path:
    """A read of a Python file longer than the preview, with a string token across the cut."""
    text = "\n".join(code)
    lines = [
        {
            "type": "session",
            "version": 3,
            "id": "s-code",
            "timestamp": "2026-03-01T10:00:00.000Z",
            "cwd": "/w",
        },
        {
            "type": "message",
            "id": "u",
            "parentId": None,
            "timestamp": "2026-03-01T10:00:01.000Z",
            "message": {"role": "user", "content": "read it"},
        },
        {
            "type": "message",
            "id": "a",
            "parentId": "u",
            "timestamp": "2026-03-01T10:00:02.000Z",
            "message": {
                "role": "assistant",
                "stopReason": "toolUse",
                "content": [
                    {"type": "thinking", "thinking": "private musing about the file"},
                    {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "mod.py"}},
                ],
            },
        },
        {
            "type": "message",
            "id": "r",
            "parentId": "a",
            "timestamp": "2026-03-01T10:00:03.000Z",
            "message": {
                "role": "toolResult",
                "toolCallId": "c1",
                "toolName": "read",
                "content": [{"type": "text", "text": text}],
            },
        },
        {
            "type": "compaction",
            "id": "k",
            "parentId": "r",
            "timestamp": "2026-03-01T10:00:04.000Z",
            "summary": "The summary nobody opened",
            "firstKeptEntryId": "r",
            "tokensBefore": 1000,
        },
    ]
    path = tmp_path / "code.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return export_to_file(path, tmp_path / "code.html")


def open_call(inside: Locator) -> None:
    """Open the tool call an element is in (a call is one line until opened)."""
    inside.evaluate(
        "el => { const call = el.closest('.st-call');"
        " if (call && !call.classList.contains('st-open')) call.querySelector('.st-call-head').click(); }"
    )


def test_an_expanded_output_reads_as_one_highlighted_block(page: Page, tmp_path: Path) -> None:
    open_page(page, code_session(tmp_path).as_uri())
    output = page.locator(".st-output[data-more]").first
    assert output.locator("pre").count() == 1
    open_call(output)
    output.locator(".st-more").click()
    assert output.locator(".st-rest").is_visible()
    assert output.locator("pre").inner_text() == "\n".join(CODE)  # no blank line at the joint
    # the rest is highlighted like the preview: the string runs on, the number is a number
    assert output.locator(".st-rest .s2").count() >= 1
    assert output.locator(".st-rest .mi").inner_text() == "42"


LONG_CODE = [f"value_{i} = {i}  # line <{i}>" for i in range(300)]


def test_a_long_outputs_plain_rest_expands_readable_and_prints(page: Page, tmp_path: Path) -> None:
    """Past the highlighting budget the rest is plain text: expanded or printed, it reads whole."""
    open_page(page, code_session(tmp_path, LONG_CODE).as_uri())
    output = page.locator(".st-output[data-more]").first
    assert output.locator("pre .mi").count() >= 1  # the preview is highlighted
    assert output.locator(".st-rest span").count() == 0  # the hidden rest cost no highlighting
    assert not output.locator(".st-rest").is_visible()
    page.emulate_media(media="print")
    assert output.locator(".st-rest").is_visible()
    page.emulate_media(media="screen")
    open_call(output)
    output.locator(".st-more").click()
    assert output.locator(".st-rest").is_visible()
    assert output.locator("pre").inner_text() == "\n".join(LONG_CODE)


def test_print_expands_thinking_summaries_and_outputs(page: Page, tmp_path: Path) -> None:
    open_page(page, code_session(tmp_path).as_uri())
    assert not page.locator("#st-messages >> text=private musing about the file").is_visible()
    assert not page.locator("#st-messages >> text=The summary nobody opened").is_visible()
    page.emulate_media(media="print")
    assert page.locator("#st-messages >> text=private musing about the file").is_visible()
    assert page.locator("#st-messages >> text=The summary nobody opened").is_visible()
    assert page.locator(".st-output .st-rest").first.is_visible()
    page.emulate_media(media="screen")
    assert not page.locator("#st-messages >> text=private musing about the file").is_visible()


def test_archived_branch_only_under_all_and_reset_divider(page: Page, tmp_path: Path) -> None:
    out = export_to_file(FIXTURES / "omp-newer-entries.jsonl", tmp_path / "omp.html")
    open_page(page, out.as_uri())
    assert page.title().startswith("Fix the flaky widget test")
    tree_ids = "Array.from(document.querySelectorAll('#st-tree .st-row')).map(r => r.dataset.id)"
    shown = page.evaluate(tree_ids)
    assert "u2" in shown and "u3" not in shown and "a3" not in shown
    page.click('#st-filters [data-filter="all"]')
    wait_js(page, f"{tree_ids}.includes('u3')")
    assert "a3" in page.evaluate(tree_ids)
    page.click('#st-filters [data-filter="default"]')
    wait_js(page, f"!{tree_ids}.includes('u3')")
    divider = page.locator(".st-reset")
    assert divider.is_visible() and "Context cleared" in divider.inner_text()


def test_lines_lost_marker_at_the_joint(page: Page, tmp_path: Path) -> None:
    out = export_to_file(FIXTURES / "damaged-lost-line.jsonl", tmp_path / "damaged.html")
    open_page(page, out.as_uri())
    marker = page.locator(".st-lost")
    assert marker.count() == 1 and marker.is_visible()
    assert marker.inner_text() == "1 unreadable line lost here"
    texts = page.locator("#st-messages").inner_text()
    assert (
        texts.index("First prompt")
        < texts.index("1 unreadable line lost here")
        < texts.index("Fourth prompt")
    )


def test_subagent_transcript_opens_under_its_task_call(page: Page, tmp_path: Path, watch: Watch) -> None:
    parent = FIXTURES / "omp-subagent" / "2026-03-02T09-00-00-000Z_019f0b00.jsonl"
    out = export_to_file(parent, tmp_path / "sub.html")
    open_page(page, out.as_uri())
    call = page.locator('.st-call[data-call-id="call_task_1"]')
    nested = call.locator(".st-call-result details.st-subagent")
    assert nested.count() == 1
    finding = nested.locator("text=Subagent finding: cache.py line 41")
    assert not finding.is_visible()
    open_call(call)
    nested.locator("summary").click()
    assert finding.is_visible()
    assert watch.page_errors == []
