"""Secret scanning: a corpus of realistic secrets that must be masked, and look-alikes that must not."""

from __future__ import annotations

import base64
import copy
import hashlib
import random
import string
import uuid
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessiontree.share.redact import RedactionReport, redact_entries, redact_text
from tests.share.corpus import ALNUM, rand

_rng = random.Random(20261129)


# Built at import time so no literal credential sits in the repository.
PEM_BODY = "\n".join(rand(64, ALNUM + "+/") for _ in range(6))
SECRETS: list[tuple[str, str, str]] = [
    # (kind, text around the secret with {s} for it, the secret)
    (
        "aws-access-key",
        "export AWS_ACCESS_KEY_ID={s}",
        "AKIA" + rand(16, string.ascii_uppercase + string.digits),
    ),
    ("aws-access-key", "creds: {s} (temporary)", "ASIA" + rand(16, string.ascii_uppercase + string.digits)),
    ("aws-secret-key", "aws_secret_access_key = {s}", rand(40, ALNUM + "/+")),
    ("github-token", "git clone https://github.com/o/r # token {s}", "ghp_" + rand(36)),
    ("github-token", "GH auth: {s}", "gho_" + rand(36)),
    ("github-token", "use {s} for the API", "github_pat_" + rand(22) + "_" + rand(59)),
    ("openai-key", "client = OpenAI(api_key='{s}')", "sk-" + rand(48)),
    ("openai-key", "key: {s}", "sk-proj-" + rand(40, ALNUM + "-_") + rand(20)),
    ("anthropic-key", "Anthropic key {s} works", "sk-ant-api03-" + rand(80, ALNUM + "-_") + "AA"),
    (
        "slack-token",
        "SLACK={s}",
        "xoxb-" + rand(11, string.digits) + "-" + rand(13, string.digits) + "-" + rand(24),
    ),
    ("slack-token", "user token {s}", "xoxp-" + rand(11, string.digits) + "-" + rand(30)),
    ("google-api-key", "maps?key={s}&q=x", "AIza" + rand(35, ALNUM + "_-")),
    ("stripe-key", 'stripe.api_key = "{s}"', "sk_live_" + rand(24)),
    ("stripe-key", "test mode: {s}", "sk_test_" + rand(24)),
    ("gitlab-token", "git clone https://oauth2:x@gitlab.com/r.git # {s}", "glpat-" + rand(20)),
    ("npm-token", "//registry.npmjs.org/:_authToken={s}", "npm_" + rand(36)),
    ("huggingface-token", "huggingface-cli login --token {s}", "hf_" + rand(34)),
    ("bearer-token", "curl -H 'Authorization: Bearer {s}' https://api.example.com", rand(40, ALNUM + "._-")),
    (
        "jwt",
        "Authorization: Bearer {s}",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ." + rand(43),
    ),
    (
        "private-key",
        "cat id_rsa\n{s}\n$ ",
        f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----",
    ),
    (
        "private-key",
        "key:\n{s}",
        f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}\n-----END OPENSSH PRIVATE KEY-----",
    ),
    ("private-key", "output cut: {s}", f"-----BEGIN PRIVATE KEY-----\n{PEM_BODY[:100]}"),
    ("url-password", "DATABASE_URL=postgres://admin:{s}@db.internal:5432/app", "Tr0ub4dor-" + rand(6)),
    ("url-password", "git remote add o https://bot:{s}@git.example.com/r.git", rand(20)),
    ("env-assignment", "API_KEY={s} npm start", rand(24)),
    ("env-assignment", "DB_PASSWORD={s}\nDEBUG=1", "hunter2"),
    ("env-assignment", 'SECRET_KEY = "{s}"', "django-insecure-" + rand(30)),
    ("env-assignment", "export SERVICE_TOKEN='{s}'", rand(32)),
    ("key-value", 'config = {{"apiKey": "{s}", "region": "eu"}}', rand(32)),
    ("key-value", '{{"password": "{s}"}}', "correct horse".replace(" ", "-") + "7"),
]


@pytest.mark.parametrize(
    ("kind", "template", "secret"), SECRETS, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(SECRETS)]
)
def test_secret_is_masked_and_counted(kind: str, template: str, secret: str) -> None:
    text = template.format(s=secret)
    report = RedactionReport()
    out = redact_text(text, report)
    assert secret not in out
    assert f"[REDACTED:{kind}]" in out
    assert report.counts == {kind: 1}
    # The text around the secret is kept.
    before, after = template.split("{s}")
    assert out.startswith(before.replace("{{", "{").replace("}}", "}")[:10])
    assert out.endswith(after.replace("{{", "{").replace("}}", "}")[-5:] if after else "]")


LOOKALIKES = [
    "commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904 on main",
    "merge " + hashlib.sha1(b"x").hexdigest()[:12] + " into topic",
    "request id " + str(uuid.UUID(int=_rng.getrandbits(128))),
    "sha256:" + hashlib.sha256(b"session").hexdigest(),
    "data:image/png;base64," + base64.b64encode(bytes(_rng.getrandbits(8) for _ in range(3000))).decode(),
    "Please enter your password and keep the token safe; the secret is patience.",
    "The password field is required. Reset the password: it must be 12 characters.",
    "TOKEN=\nAPI_KEY=\n",
    "Set OPENAI_API_KEY=sk-... in your shell, e.g. sk-... or sk-proj-...",
    "export API_KEY=your-api-key-here",
    "API_KEY=<your key> SECRET=${SECRET} TOKEN=$(cat ~/.token) PASSWORD=***",
    'API_KEY = os.environ["API_KEY"]',
    "const token = process.argv[2]; if (!token) throw new Error('no token')",
    "PWD=/home/dev/project OLDPWD=/home/dev SORT_KEY=name MONKEY=banana",
    '{"max_tokens": 4096, "input_tokens": 120, "tokenizer": "cl100k"}',
    "git@github.com:org/repo.git and https://example.com:8443/path@v2",
    "scikit-learn and risk-assessment-framework-version-2024-extended",
    "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx is the example format",
    "AKIAIOSFODNNEXAMPLEX is documentation",
    "postgres://user:password@localhost/db and https://user:<password>@host/",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
    "eyJhbGciOiJIUzI1NiJ9 alone is just a base64 header",
    "[REDACTED:github-token] was masked before",
    "curl -H 'Authorization: Bearer $TOKEN' and Bearer <token> and bearer tokens expire",
    "the hf_hub_download helper and npm_config_cache and glpat- prefixes",
]


@pytest.mark.parametrize("text", LOOKALIKES, ids=[f"lookalike-{i}" for i in range(len(LOOKALIKES))])
def test_lookalike_is_left_alone(text: str) -> None:
    report = RedactionReport()
    assert redact_text(text, report) == text
    assert report.total == 0, report.summary()


def test_many_secrets_in_one_text_are_listed_by_kind() -> None:
    secrets = [s for _, _, s in SECRETS[:6]]
    text = "\n".join(f"line {i}: {t.format(s=s)}" for i, (_, t, s) in enumerate(SECRETS[:6]))
    report = RedactionReport()
    out = redact_text(text, report)
    assert all(s not in out for s in secrets)
    assert report.counts == {"aws-access-key": 2, "aws-secret-key": 1, "github-token": 3}
    assert report.summary() == "2 aws-access-key, 1 aws-secret-key, 3 github-token"


def test_redacting_twice_changes_nothing_more() -> None:
    text = "\n".join(t.format(s=s) for _, t, s in SECRETS)
    once = redact_text(text)
    report = RedactionReport()
    assert redact_text(once, report) == once
    assert report.total == 0


def test_entries_are_walked_in_a_copy_and_images_kept() -> None:
    token = "ghp_" + rand(36)
    image = base64.b64encode(b"AKIA" + bytes(range(256)) * 4).decode()
    header = {"type": "session", "id": "s1", "title": f"debug {token}", "cwd": "/w"}
    entries: list[dict[str, Any]] = [
        {
            "type": "message",
            "id": "a1b2c3d4",
            "parentId": None,
            "message": {
                "role": "user",
                "content": [
                    {"type": "text", "text": f"my token is {token}"},
                    {"type": "image", "data": image, "mimeType": "image/png"},
                ],
            },
        },
        {
            "type": "message",
            "id": "e5f6a7b8",
            "parentId": "a1b2c3d4",
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "type": "toolCall",
                        "id": "call_1",
                        "name": "bash",
                        "arguments": {"command": f"GH_TOKEN={token} gh api"},
                    }
                ],
                "usage": {"input": 10, "output": 3},
            },
        },
    ]
    original = copy.deepcopy((header, entries))
    new_header, new_entries, report = redact_entries(header, entries)
    assert (header, entries) == original  # the loaded session is not touched
    assert token not in repr((new_header, new_entries))
    assert report.counts == {"github-token": 3}
    assert new_entries[0]["message"]["content"][1]["data"] == image
    assert new_entries[1]["id"] == "e5f6a7b8" and new_entries[1]["parentId"] == "a1b2c3d4"
    assert new_entries[1]["message"]["usage"] == {"input": 10, "output": 3}
    assert new_header["title"] == "debug [REDACTED:github-token]"


FRAGMENTS = [t.format(s=s) for _, t, s in SECRETS] + LOOKALIKES + [" ", "\n", "=", '"', "'", "://", "@", ":"]


def assert_idempotent(text: str) -> None:
    """Redacting counts what it masks, and redacting the result again changes nothing."""
    report = RedactionReport()
    once = redact_text(text, report)
    assert once.count("[REDACTED:") - text.count("[REDACTED:") == report.total
    again = RedactionReport()
    assert redact_text(once, again) == once
    assert again.total == 0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=30)), max_size=8))
def test_redaction_is_idempotent_and_counts_what_it_masks(parts: list[str]) -> None:
    assert_idempotent("".join(parts))


def test_a_token_glued_to_a_mask_ends_where_the_mask_begins() -> None:
    # Found by the idempotence property: the token's span grew over the mask after it.
    text = "login --token hf_nMyjzz7GW0cZmaeaPBIdUbKTPXZW33I5Ir[REDACTED:github-token] was masked before"
    report = RedactionReport()
    once = redact_text(text, report)
    assert once == "login --token [REDACTED:huggingface-token][REDACTED:github-token] was masked before"
    assert report.total == 1
    assert_idempotent(text)


def test_a_token_glued_to_the_next_word_is_masked_whole() -> None:
    # Found by the idempotence property: the JWT's signature stayed visible when text followed it.
    jwt = (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
        ".vrKagVfwffVqjp39BR4J7o3Mdj8DsCnJIcp5QjoCv6l"
    )
    text = f"Authorization: Bearer {jwt}API_KEY=8aAMVhTaJGOi4lcL8tsd5dtB npm start"
    once = redact_text(text)
    assert "vrKagVfwffVqjp39" not in once and "8aAMVhTaJGOi4lcL" not in once
    assert redact_text(once) == once
    underscored = redact_text("Authorization: Bearer abc_defghijklmnopqrstuvwxyz012345")
    assert "abc_def" not in underscored
