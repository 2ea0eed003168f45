"""Issue 16's redaction classes, one test each: what the page shows, forms, shapes, structure, limits."""

from __future__ import annotations

import base64
import sys
from typing import Any

import pytest

from sessiontree.exporter.ansi import strip_ansi
from sessiontree.share import pem
from sessiontree.share.redact import RedactionReport, redact_entries, redact_text, redact_value
from sessiontree.share.shown import shown_views
from tests.share.corpus import B64, URLSAFE, rand

GH = "ghp_" + rand(36)
STRIPE = "sk_live_" + rand(30)


def masked(text: str) -> tuple[str, RedactionReport]:
    report = RedactionReport()
    return redact_text(text, report), report


def test_item1_detects_what_the_page_shows_ansi_and_markdown() -> None:
    cases = {
        # grep --color=always / jq -C: a code right before, and one inside, the token.
        f"\x1b[01;31m\x1b[K{GH}\x1b[m\x1b[K": GH,
        f"Your token:\x1b[1m{GH[:10]}\x1b[0m{GH[10:]}": GH,
        f'{{\x1b[1;34m"key"\x1b[0m: \x1b[0;32m"{STRIPE}"\x1b[0m}}': STRIPE,
        # Markdown escapes and entities the renderer decodes after redaction used to run.
        STRIPE.replace("_", "\\_"): STRIPE,
        GH.replace("_", "&#95;"): GH,
        GH.replace("_", "&lowbar;"): GH,
        "\u200b".join(GH[i : i + 8] for i in range(0, len(GH), 8)): GH,
    }
    for source, secret in cases.items():
        out, report = masked(source)
        assert report.total == 1, source
        for view in shown_views(out):
            assert secret not in view.text and secret[4:20] not in view.text
        assert "[REDACTED:" in out
    # The codes around the token stay, so the colours of the rest of the line are kept.
    out, _ = masked(f"\x1b[32mok\x1b[0m {GH} \x1b[31mend\x1b[0m")
    assert out == "\x1b[32mok\x1b[0m [REDACTED:github-token] \x1b[31mend\x1b[0m"
    assert strip_ansi(masked(f"\x1b[01;31m{GH}\x1b[m")[0]) == "[REDACTED:github-token]"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("POSTGRES_PASSWORD: Kestrel-9x2mQ", "Kestrel-9x2mQ"),
        ("postgres_password: Kestrel-9x2mQ", "Kestrel-9x2mQ"),
        ("Postgres_Password = Kestrel-9x2mQ", "Kestrel-9x2mQ"),
        ('client_secret = "q8Xv2LmN0pR7sT4uW6yZ"', "q8Xv2LmN0pR7sT4uW6yZ"),
        (
            '{"SecretAccessKey": "wJalrXUtnFEMIK7MDENGbPxRfiCYzq8TnQ4LsV2e"}',
            "wJalrXUtnFEMIK7MDENGbPxRfiCYzq8TnQ4LsV2e",
        ),
        ('{"secret_key": "9f8e7d6c5b4a39281706"}', "9f8e7d6c5b4a39281706"),
        ('"{\\"client_secret\\":\\"q8Xv2LmN0pR7sT4uW6yZ\\"}"', "q8Xv2LmN0pR7sT4uW6yZ"),
        (
            "[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmc" + "Ab1" * 20,
            "pypi-AgEIcHlwaS5vcmc",
        ),
        ("AccountName=prod;AccountKey=" + "Zm9v" * 21 + "YQ==;EndpointSuffix=core.windows.net", "Zm9v" * 21),
        (
            "kind: Secret\ndata:\n  password: " + base64.b64encode(b"hunter2-x").decode() + "\n",
            "aHVudGVyMi14",
        ),
    ],
)
def test_item2_key_value_forms(text: str, secret: str) -> None:
    out, report = masked(text)
    assert secret not in out and report.total >= 1, out


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("curl -u deploy:Zq7pL2mX9vN4 https://ci.example.com", "Zq7pL2mX9vN4"),
        ("Authorization: Basic " + base64.b64encode(b"admin:Zq7pL2mX9vN4").decode(), "YWRtaW46"),
        ("X-API-Key: 4f9a0c2e7b1d3f5a8c6e0b2d4f6a8c0e", "4f9a0c2e7b1d3f5a"),
        ("redis://:Zq7pL2mX9vN4kR8s@cache:6379", "Zq7pL2mX9vN4kR8s"),
        ("postgres://u:HEAD1x@TAIL2y@host/db", "TAIL2y"),
        (
            "(lines 3-6)\n" + "\n".join(rand(64, B64) for _ in range(3)) + "\n-----END RSA PRIVATE KEY-----",
            "-----END",
        ),
        ("socket: xapp-1-A0123ABCD-1234567890123-" + rand(64, "0123456789abcdef"), "xapp-1-A0123"),
        ("twine upload -p pypi-AgEIcHlwaS5vcmc" + rand(60, URLSAFE), "pypi-AgEI"),
    ],
)
def test_item3_shapes_without_a_pattern_before(text: str, secret: str) -> None:
    out, report = masked(text)
    assert secret not in out and report.total >= 1, out


def test_item4_secrets_as_keys_and_structural_keys_only_at_the_top() -> None:
    header = {"type": "session", "id": "s1", "version": 3, "cwd": "/w"}
    entry: dict[str, Any] = {
        "type": "custom",
        "id": "e1",
        "parentId": None,
        "customType": "x",
        "data": {
            "tokens": {GH: {"scopes": ["repo"]}, GH.replace("ghp", "gho"): {"scopes": []}},
            "nested": {"id": GH, "type": STRIPE, "timestamp": f"Bearer {rand(40)}"},
        },
    }
    _, (out,), report = redact_entries(header, [entry])
    assert GH not in repr(out) and STRIPE not in repr(out)
    keys = list(out["data"]["tokens"])
    assert keys == ["[REDACTED:github-token]", "[REDACTED:github-token]#2"]  # both kept, none lost
    assert out["data"]["nested"]["id"] == "[REDACTED:github-token]"
    assert out["id"] == "e1" and out["parentId"] is None and out["type"] == "custom"
    assert report.counts["github-token"] == 3 and report.counts["stripe-key"] == 1


@pytest.mark.parametrize(
    "text",
    ["DB_PASSWORD=$dTHF8kQ2mZ7xLp", "SECRET_KEY=mysecretkeyvalue", "password: Tr0ub4dor&3"],
)
def test_item5_placeholders_are_not_that_generous(text: str) -> None:
    out, report = masked(text)
    assert report.total == 1 and out.endswith("]"), out


@pytest.mark.parametrize(
    "text",
    [
        "GOOGLE_APPLICATION_CREDENTIALS=/home/dev/keys/sa.json",
        '{"nextPageToken": "CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA3czRlY2NoEgIIAQ"}',
        '"mask_token": "[MASK]"',
        "name: projects/acme/secrets/db-url/versions/7",
        "secret: projects/acme/secrets/db-url/versions/7",
        "NUM_TOKEN=32000",
        "DB_PASSWORD=$DB_PASSWORD",
    ],
)
def test_item6_false_positives_stopped(text: str) -> None:
    out, report = masked(text)
    assert out == text and report.total == 0, report.summary()


def test_item9_values_nested_far_deeper_than_the_recursion_limit() -> None:
    depth = sys.getrecursionlimit() * 20
    value: Any = {"leaf": f"token {GH}"}
    for i in range(depth):
        value = {"k": value} if i % 2 else [value]
    report = RedactionReport()
    out = redact_value(value, report)
    for _ in range(depth):
        out = out[0] if isinstance(out, list) else out["k"]
    assert out == {"leaf": "token [REDACTED:github-token]"}
    assert report.total == 1


class _CountingPattern:
    """A regex stand-in that adds up how many characters its searches were given to scan."""

    def __init__(self, pattern: Any, counter: list[int]) -> None:
        self.pattern, self.counter = pattern, counter

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> Any:
        self.counter[0] += min(endpos, len(text)) - pos
        return self.pattern.search(text, pos, endpos)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pattern, name)


def test_item10_many_begin_lines_cost_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    # 4 MB: a scan to the end of the text for every BEGIN (what the lazy regex did) would be 10^11
    # character steps (hours); the line scanner looks at each line a bounded number of times.
    line = "-----BEGIN PRIVATE KEY-----\n"
    text = line * (4_000_000 // len(line)) + "tail " + GH
    scanned = [0]
    for name in ("_BEGIN", "_END"):
        monkeypatch.setattr(pem, name, _CountingPattern(getattr(pem, name), scanned))
    out, report = masked(text)
    assert scanned[0] <= 3 * len(text)  # deterministic: characters handed to searches, not time
    assert report.counts == {"private-key": text.count(line), "github-token": 1}
    assert "BEGIN" not in out and GH not in out
