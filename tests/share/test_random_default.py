"""The default for random values nothing explains: masked, unless a look-alike rule keeps it (says why)."""

from __future__ import annotations

import random
import string
import uuid
from pathlib import Path

import pytest

from sessiontree.readers import load_for_export
from sessiontree.share.publish import redact_session
from sessiontree.share.redact import RedactionReport, Redactor, redact_text
from sessiontree.share.review import review_lines
from sessiontree.share.spans import find_secret_spans

ROOT = Path(__file__).resolve().parents[2]
RNG = random.Random(40)
ALNUM = string.ascii_letters + string.digits
BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _random(n: int, alphabet: str = ALNUM) -> str:
    while True:
        value = "".join(RNG.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
            return value


TOKEN = _random(36)
HEX = "".join(RNG.choice("0123456789abcdef") for _ in range(40))
UUID = str(uuid.UUID(int=RNG.getrandbits(128)))


@pytest.mark.parametrize(
    "text",
    [
        f"Use {TOKEN} when the dashboard asks for it.",
        f'client.configure("{TOKEN}")',
        f"here it is:\n{TOKEN}\nkeep it safe",
        f"POST https://ingest.example.net/v2/{TOKEN}/events",
    ],
)
def test_a_random_value_no_detector_explains_is_masked(text: str) -> None:
    report = RedactionReport()
    out = redact_text(text, report)
    assert TOKEN not in out and out.count("[REDACTED:") == report.total == 1


def test_the_default_masks_what_no_shape_detector_takes() -> None:
    value = _random(20) + "+" + _random(19)  # base64: no vendor prefix, no bare run of 32
    report = RedactionReport()
    out = redact_text(f"Set it to {value}, then restart.", report)
    assert value not in out and report.counts == {"random-token": 1}


@pytest.mark.parametrize(
    ("text", "value", "reason"),
    [
        (f"commit {HEX}\nAuthor: Dev <dev@example.com>", HEX, "hex"),
        (f'{{"requestId": "{UUID}"}}', UUID, "UUID"),
        (f"FROM python:3.12@sha256:{_random(40)}", None, "digest"),
        (f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_random(43)} dev@laptop", None, "public key"),
        (f"deposit address: bc1q{_random(38, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}", None, "address"),
        (f"added Qm{_random(44, BASE58)} a.jpg", None, "content id"),
        (f"tool_use_id: toolu_01{_random(22)}", None, "id (toolu_"),
        (f'{{"nextPageToken": "{_random(30)}"}}', None, "nextPageToken"),
    ],
)  # fmt: skip
def test_a_lookalike_rule_keeps_it_and_says_why(text: str, value: str | None, reason: str) -> None:
    redactor = Redactor()
    redactor.learn(text)
    report = RedactionReport()
    assert redactor.redact(text, report) == text and report.total == 0
    [kept] = redactor.kept()
    assert reason in kept.reason
    if value is not None:
        assert (kept.first, kept.last, kept.length) == (value[:4], value[-4:], len(value))


def test_a_value_masked_elsewhere_is_not_listed_as_kept() -> None:
    redactor = Redactor()
    redactor.learn(f"commit {HEX}")
    redactor.learn(f"DB_PASSWORD={HEX}")
    assert redactor.kept() == []


def test_the_review_lists_kept_values_apart_with_their_first_and_last_characters() -> None:
    redactor = Redactor()
    for text in (f"commit {HEX}", f"tool_use_id: toolu_01{_random(22)}", f"token {TOKEN}"):
        redactor.learn(text)
    report = RedactionReport()
    redactor.redact(f"token {TOKEN}", report)
    report.kept = redactor.kept()
    lines = review_lines(report)
    at = next(i for i, line in enumerate(lines) if line.startswith("Kept 2 random-looking"))
    assert all("REDACTED" not in line and "random-token" not in line for line in lines[at:])
    assert f"{HEX[:4]}...{HEX[-4:]} (40 chars)  kept: hex" in lines[at + 1]
    assert HEX[4:-4] not in "\n".join(lines)
    assert lines[at + 2] == "  1 x an id (toolu_...)"
    assert TOKEN[:4] in lines[0] and at == 1  # the masked value first, the kept ones after


def test_masks_given_by_the_person_are_masked_everywhere() -> None:
    redactor = Redactor(masks=["acme-staging", HEX])
    report = RedactionReport()
    out = redactor.redact(f"deploy acme-staging at {HEX}; acme-staging is up", report)
    assert (
        out == "deploy [REDACTED:masked-by-you] at [REDACTED:masked-by-you]; [REDACTED:masked-by-you] is up"
    )
    assert report.counts == {"masked-by-you": 3}


def test_ordinary_text_of_the_real_fixtures_is_almost_never_masked_by_the_default() -> None:
    paths = sorted((ROOT / "tests" / "fixtures" / "real").rglob("*.jsonl"))
    assert len(paths) >= 10
    masked: set[tuple[str, int]] = set()
    pieces = 0
    for path in paths:
        _, report = redact_session(load_for_export(path, warn=lambda _: None))
        masked |= {(f.preview, f.length) for f in report.findings if f.kind == "random-token"}
        pieces += len(report.kept)
    # 13 files, 12,379 texts: one temporary folder's random name (/var/folders/49/l417...) masked
    # (with its copies), thousands of ids, digests and UUIDs kept by their place.
    assert len(masked) <= 2 and pieces >= 1000, (masked, pieces)


def test_the_default_judges_what_other_detectors_left_as_a_second_redaction_would() -> None:
    text = "![shot](./shots/capture-sk_live_" + _random(24) + "-" + _random(30, ALNUM + "_-") + ".png)"
    once = redact_text(text)
    assert redact_text(once) == once
    assert next(kind for *_, kind in find_secret_spans(text)) == "stripe-key"
