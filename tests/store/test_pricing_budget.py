"""A page naming thousands of models looks up few of them in the price table (issue 36, item 10)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessiontree.exporter.api import render_session
from sessiontree.readers import load_any
from sessiontree.store import pricing


def test_a_session_naming_five_thousand_models_looks_up_few(tmp_path: Path) -> None:
    lines = [
        {"type": "session", "version": 3, "id": "models", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}
    ]
    parent = None
    for i in range(5000):
        message = {"role": "assistant", "content": [{"type": "text", "text": "a"}], "model": f"zq-model-{i}",
                   "provider": "openai", "usage": {"input": 10, "output": 5}}  # fmt: skip
        lines.append({"type": "message", "id": f"a{i}", "parentId": parent, "message": message})
        parent = f"a{i}"
    path = tmp_path / "models.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    calls = [0]
    snapshot = pricing._prices().data_snapshot.get_snapshot()
    real = snapshot.find_provider_model

    def counted(*args: object) -> object:
        calls[0] += 1
        return real(*args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(snapshot, "find_provider_model", counted)
        rendered = render_session(load_any(path))
    assert len(rendered.entries) == 5000
    assert calls[0] <= 2 * pricing.MAX_MODEL_LOOKUPS  # a provider's table, then every table
