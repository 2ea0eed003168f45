"""The secret corpus: every secret masked in every placement of a shared page, look-alikes kept."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessiontree.exporter import render_session, render_session_html
from sessiontree.exporter.options import RenderOptions
from sessiontree.readers import load_for_export
from sessiontree.share.publish import (
    describe_share,
    plain_title,
    redact_session,
    share_date,
    share_file_name,
    share_session,
)
from sessiontree.share.redact import RedactionReport, redact_text
from sessiontree.store.load import parse_session_text
from tests.share.conftest import FakeGh
from tests.share.corpus import LOOKALIKES, SECRETS, Secret
from tests.share.planted import (
    PLACEMENTS,
    shown_text,
    surviving,
    with_ansi,
    with_markdown_escapes,
    write_planted_session,
)


def test_corpus_size() -> None:
    assert len(SECRETS) >= 100 and len({s.kind for s in SECRETS}) >= 30
    assert len(LOOKALIKES) >= 50
    assert len({s.value for s in SECRETS}) == len(SECRETS)


@pytest.mark.parametrize("secret", SECRETS, ids=[f"{i}-{s.kind}" for i, s in enumerate(SECRETS)])
def test_corpus_secret_is_masked(secret: Secret) -> None:
    report = RedactionReport()
    out = redact_text(secret.text, report)
    assert surviving([secret], out) == [], out
    assert report.total >= 1


@pytest.mark.parametrize("text", LOOKALIKES, ids=[f"lookalike-{i}" for i in range(len(LOOKALIKES))])
def test_corpus_lookalike_is_left_alone(text: str) -> None:
    report = RedactionReport()
    assert redact_text(text, report) == text
    assert report.total == 0, report.summary()


@pytest.mark.parametrize("placement", PLACEMENTS)
def test_every_secret_is_gone_from_the_shared_page(placement: str, tmp_path: Path) -> None:
    path = write_planted_session(tmp_path / f"{placement}.jsonl", SECRETS, (placement,))
    session = load_for_export(path)
    unredacted = shown_text(render_session_html(session))
    # The placement really holds every secret when not redacted (so the check below means something);
    # the page shows a long title cut at a word, so the title is checked where it is kept.
    holder = (session.title or "") if placement == "title" else unredacted
    assert len(surviving(SECRETS, holder)) == len(SECRETS)
    redacted, report = redact_session(session)
    page = render_session_html(redacted)
    assert surviving(SECRETS, shown_text(page)) == []
    assert report.total >= len(SECRETS)


def test_shared_page_description_and_file_name_hold_no_secret(
    tmp_path: Path, fake_gh: FakeGh, isolated_agent_dir: Path
) -> None:
    # The title starts with secrets, so an unredacted file name and description would carry them.
    bare = [s for s in SECRETS if s.context == "{s}" or s.fixed][:40]
    path = write_planted_session(tmp_path / "all.jsonl", bare)
    share_session(path, isolated_agent_dir, notify=lambda _: None)
    uploaded = fake_gh.uploaded()
    name = fake_gh.uploaded_path().name
    description = next(call for call in fake_gh.calls() if call[:2] == ["gist", "create"])
    assert surviving(bare, shown_text(uploaded)) == []
    assert surviving(bare, name + "\n" + "\n".join(description)) == []
    rendered = render_session(load_for_export(path), RenderOptions(compress=False))  # no packer thread
    unredacted_title = plain_title(rendered.title)
    date = share_date(load_for_export(path))
    assert surviving(bare, share_file_name(unredacted_title, date) + describe_share(unredacted_title, date))


_FILLER = st.text(alphabet=string.ascii_letters + string.digits + " \n\t.,:;=-_*`#>[]()&\\'\"", max_size=40)
_ANSI = st.sampled_from(["\x1b[31m", "\x1b[0m", "\x1b[1;32m", "\x1b[K", "\x1b[38;5;208m", "\x1b]0;t\x07"])
_MARKUP = st.sampled_from(["**", "_", "`", "> ", "# ", "- ", "\n\n", "```\n", "\n```\n", "| ", " |"])


def _render_redacted(text: str) -> str:
    """Share-render a session holding ``text`` as markdown, as tool output and as a tool argument."""
    entries = [
        {"role": "user", "content": [{"type": "text", "text": text}]},
        {"role": "assistant", "content": [{"type": "text", "text": text}], "provider": "p", "model": "m"},
        {
            "role": "toolResult",
            "toolCallId": "c1",
            "toolName": "bash",
            "content": [{"type": "text", "text": text}],
        },
    ]
    lines = [json.dumps({"type": "session", "version": 3, "id": "f022f022f022f022", "cwd": "/w"})]
    for i, message in enumerate(entries):
        parent = f"f{i - 1:07d}" if i else None
        lines.append(
            json.dumps({"type": "message", "id": f"f{i:07d}", "parentId": parent, "message": message})
        )
    session = parse_session_text("\n".join(lines) + "\n", Path("fuzz.jsonl"))
    redacted, _ = redact_session(session)
    return render_session_html(redacted, compress=False)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(SECRETS), min_size=1, max_size=4, unique=True),
    st.lists(st.one_of(_FILLER, _ANSI, _MARKUP), min_size=1, max_size=10),
    st.randoms(use_true_random=False),
    st.sampled_from(["plain", "ansi", "markdown"]),
)
def test_fuzz_planted_secrets_never_reach_the_page(
    secrets: list[Secret], noise: list[str], rnd: random.Random, dress: str
) -> None:
    """Secrets dressed in ANSI or markdown escapes, inside random text, ANSI and markup."""
    pieces = list(noise)
    for secret in secrets:
        planted = {
            "plain": secret.text,
            "ansi": with_ansi(secret),
            "markdown": with_markdown_escapes(secret),
        }[dress]
        # Line breaks keep the secret's own context whole (noise glued onto a token changes the token).
        pieces.insert(rnd.randrange(len(pieces) + 1), "\n" + planted + "\n")
    page = _render_redacted("".join(pieces))
    assert surviving(secrets, shown_text(page)) == []


MARKUP_HOLDERS = (
    "<command-name>/login</command-name><command-args>{}</command-args>",
    "<local-command-stdout>{}</local-command-stdout>",
    "<bash-input>echo {}</bash-input>",
    "<ide_selection>The user selected the lines 1 to 1 from /app/.env:\n{}</ide_selection>",
)


def test_secrets_in_claude_code_markup_are_gone_from_the_shared_page(tmp_path: Path) -> None:
    # The reader parses the wrapper markup once into parts, and the page shows the parts: a
    # secret inside a command's args or output, bash mode or IDE context must be masked there too.
    path = tmp_path / "5e55a0b1-0000-4000-8000-0000000000aa.jsonl"
    lines = []
    for i, secret in enumerate(SECRETS):
        holder = MARKUP_HOLDERS[i % len(MARKUP_HOLDERS)]
        lines.append(
            {
                "type": "user",
                "uuid": f"u{i}",
                "parentUuid": f"u{i - 1}" if i else None,
                "sessionId": "5e55a0b1-0000-4000-8000-0000000000aa",
                "timestamp": f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z",
                "cwd": "/app",
                "message": {"role": "user", "content": holder.format(secret.text)},
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    session = load_for_export(path)
    assert sum(1 for e in session.entries if "parts" in json.dumps(e)) >= len(SECRETS) // 2
    unredacted = shown_text(render_session_html(session))
    assert len(surviving(SECRETS, unredacted)) >= len(SECRETS) * 0.9
    redacted, _ = redact_session(session)
    assert surviving(SECRETS, shown_text(render_session_html(redacted))) == []
