"""Agents' own file and folder names are look-alikes: a share keeps them, and still masks a token."""

from __future__ import annotations

import pytest

from sessiontree.share.redact import redact_text

# Shapes an agent writes into every session (subagent artifacts, Codex rollouts, run folders).
NAMES = [
    "/Users/dev/.pi/agent/sessions/--repo--/subagent-artifacts/526c9f56_speckit-constitution_0_meta.json",
    "/Users/dev/.pi/agent/sessions/--repo--/subagent-artifacts/4b24e586_delegate_3/output.md",
    "~/.codex/sessions/2026/06/09/rollout-2026-06-09T04-06-14-019ea8d7-c76a-76c0-999e-6b30b4193ce9.jsonl",
    "2026-06-08T21-39-23-650Z_019ea92d-1182-7fe2-a214-9fc88c28832f/526c9f56/run-0/session.jsonl",
]


@pytest.mark.parametrize("name", NAMES)
def test_an_agents_file_name_is_kept(name: str) -> None:
    assert redact_text(f"wrote {name} (done)") == f"wrote {name} (done)"


@pytest.mark.parametrize(
    "token",
    [
        "shippo_live_b5481798dbaa1a10f4fbea97c4230e9e7",
        "duffel_live_pc7SP_y3tzJs-_3MnFwGSJLjX3jMFbzr23fgoqY_GP0",
    ],
)
def test_a_vendor_token_in_a_file_name_is_still_masked(token: str) -> None:
    shown = redact_text(f"![shot](./shots/capture-{token}.png)")
    assert token not in shown and shown.endswith(".png)")
