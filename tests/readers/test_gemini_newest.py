"""Gemini CLI tool results that carry images, as gemini-cli's ``convertToFunctionResponse`` (commit
5411f113) writes them: nested in the function response (``functionResponse.parts``) for a model that
takes them there, else as ``inlineData`` parts beside it. Each image is shown with its result."""

from __future__ import annotations

import re

from sessiontree.exporter.api import render_session
from sessiontree.exporter.options import RenderOptions
from sessiontree.readers import load_any
from tests.readers.helpers import FIXTURES, raw_objects

IMAGES = next((FIXTURES / "gemini" / "newest").glob("session-*.jsonl"))


def _raw_images() -> list[str]:
    """The image data in the tool results of the file's last record of each reply, counted from the lines."""
    found: list[str] = []
    replies = {o["id"]: o for o in raw_objects(IMAGES) if o.get("type") == "gemini"}
    for reply in replies.values():
        for call in reply.get("toolCalls", []):
            for part in call.get("result") or []:
                nested = part.get("functionResponse", {}).get("parts", [])
                found += [p["inlineData"]["data"] for p in [*nested, part] if "inlineData" in p]
    return found


def test_each_image_a_tool_returned_is_shown_with_its_result() -> None:
    images = _raw_images()
    rendered = render_session(load_any(IMAGES), RenderOptions(compress=False))
    frags = rendered.frags.value()
    assert isinstance(frags, list)
    results = [f for f in frags if "st-result" in f]
    assert len(results) == 2
    assert [len(re.findall(r'<img class="st-img"', f)) for f in results] == [1, 1]
    assert sum(f.count('<img class="st-img"') for f in frags) == len(images) == 2
    assert all("Binary content provided" in f for f in results)
