"""Secrets told from look-alikes by where they stand, drawn as families (seeded), not as examples.

Each family draws many values: a rule that only fits one example fails here.
"""

from __future__ import annotations

import random
import string

import pytest

from sessiontree.share.redact import redact_text

ALNUM = string.ascii_letters + string.digits
B64URL = ALNUM + "-_"
SYMBOLS = "~*#!@%^&+="


def _draw(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
            return value


def _password(rng: random.Random) -> str:
    """A generated password: letters, digits and symbols inside, 14 to 20 characters."""
    chars = [rng.choice(ALNUM) for _ in range(rng.randint(12, 18))]
    for _ in range(2):
        chars.insert(rng.randint(1, len(chars) - 1), rng.choice(SYMBOLS))
    return "".join(chars)


def _kept(value: str, text: str) -> bool:
    return value in redact_text(text)


@pytest.mark.parametrize("qualifier", ["cache", "Cache", "sort", "idempotency", "public"])
def test_a_label_whose_word_before_key_says_no_secret_keeps_its_value(qualifier: str) -> None:
    rng = random.Random(qualifier)
    for _ in range(20):
        value = "node-modules-" + _draw(rng, 32, string.ascii_lowercase + string.digits)
        assert _kept(value, f"restored {qualifier} key: {value}"), value


@pytest.mark.parametrize("qualifier", ["api", "secret", "access", "signing", "master"])
def test_a_label_whose_word_before_key_names_a_secret_masks_its_value(qualifier: str) -> None:
    rng = random.Random(qualifier)
    for _ in range(20):
        value = _draw(rng, 40)
        assert not _kept(value, f"your {qualifier} key: {value}"), value


def test_a_kebab_name_and_a_single_case_id_is_kept_and_a_vendors_words_are_not() -> None:
    rng = random.Random(3)
    lower = string.ascii_lowercase + string.digits
    for _ in range(30):
        ident = _draw(rng, rng.randint(24, 40), lower)
        for name in ("node-modules", "webpack-build-cache", "gradle-wrapper-dists"):
            assert _kept(f"{name}-{ident}", f"saved {name}-{ident}")
        token = _draw(rng, 40, lower)
        assert not _kept(token, f"the key is capture-duffel_live_{token} here")


def test_an_openshift_token_is_masked_wherever_it_stands() -> None:
    rng = random.Random(4)
    for _ in range(30):
        token = "sha256~" + _draw(rng, 43, B64URL)
        body = token[len("sha256~") :]
        for text in (token, f'label "{token}"', f"  token: {token}", f"Authorization: Bearer {token}"):
            assert body not in redact_text(text), text


@pytest.mark.parametrize(
    "command",
    [
        "op read op://Private/db/field",
        "op read 'op://work/Deploy Box/notes'",
        "bw get item deploy-box",
        "lpass show --notes deploy",
        "sops -d secrets.enc.yaml",
        "gpg --quiet -d vault.txt.gpg",
    ],
)
def test_what_a_read_from_a_secret_store_prints_is_masked(command: str) -> None:
    rng = random.Random(command)
    for _ in range(15):
        value = _password(rng)
        assert not _kept(value, f"$ {command}\n{value}\n"), (command, value)


def test_a_short_random_token_in_prose_is_masked_by_the_default() -> None:
    rng = random.Random(5)
    values = [_draw(rng, 24) for _ in range(400)]
    left = [v for v in values if _kept(v, f"use {v} here")]
    assert len(left) <= 0.03 * len(values), left[:5]


def test_capitals_and_scattered_digits_after_a_credential_prefix_are_masked() -> None:
    rng = random.Random(6)
    caps = string.ascii_uppercase + string.digits
    for _ in range(40):
        while True:
            body = _draw(rng, 26, caps)
            if (
                sum(1 for i, c in enumerate(body) if c.isdigit() and (i == 0 or not body[i - 1].isdigit()))
                >= 4
            ):
                break
        assert not _kept(body, f"here is the key you asked for: API-{body} (it works)"), body


@pytest.mark.parametrize(
    "name", ["node18Alpine3Slim2024Build7", "ubuntu-22.04-amd64-build3-v2", "HTTPServer2Factory"]
)
def test_names_with_version_numbers_are_kept(name: str) -> None:
    assert _kept(name, f"use {name} for the image")


def test_a_random_folder_name_is_masked_in_a_home_path_and_kept_in_a_temporary_one() -> None:
    rng = random.Random(7)
    for _ in range(30):
        name = _draw(rng, 29)
        assert not _kept(name, f"cd /home/dev/{name}/app")
        assert _kept(name, f"cd /tmp/{name}/app")


def test_a_public_key_coordinate_that_begins_with_a_dash_is_kept() -> None:
    rng = random.Random(8)
    for _ in range(30):
        x = "-" + _draw(rng, 42, B64URL)
        assert _kept(x, '{"kty": "OKP", "crv": "Ed25519", "x": "' + x + '"}'), x


CLASS_NAMES = [
    "AwsCredentialsProviderChain",
    "ApiKeyAuthenticationHandler",
    "createOAuth2Client",
    "getAWSSecretsManagerClient",
    "IdTokenCredentialsProvider",
    "DbConnectionStringBuilder",
]


def test_a_random_token_whose_parts_read_as_words_is_no_class_name() -> None:
    """In a key's slot a camelCase name is code ('credentials: AwsCredentialsProviderChain'); a
    random token of 20-40 characters whose parts read by chance is a secret (issue 40's class)."""
    rng = random.Random(40)
    alphabet = string.ascii_letters + string.digits
    tokens = [
        rng.choice(string.ascii_letters) + "".join(rng.choice(alphabet) for _ in range(rng.randint(19, 39)))
        for _ in range(3000)
    ]
    kept = [t for t in tokens if t in redact_text(f"password: {t}")]
    assert len(kept) <= 3, kept  # 1 in 1,000 at most (was 1 in 200)
    for name in CLASS_NAMES:
        assert redact_text(f"credentials: {name}") == f"credentials: {name}"


def _random_token(rng: random.Random, n: int) -> str:
    alphabet = string.ascii_letters + string.digits
    while True:
        token = "".join(rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in token) and not token.isdigit():
            return token


@pytest.mark.parametrize("words", ["capture-ak_live_", "shot-rk_prod_", "report-final-", "export-data-x_"])
def test_words_glued_before_a_token_in_a_file_name_hide_nothing(words: str) -> None:
    """A file name or a slug is kept by its words, unless one of its parts is a token alone."""
    rng = random.Random(words)
    for n in (20, 26, 34):
        token = _random_token(rng, n)
        for text in (f"![screenshot](./shots/{words}{token}.png)", f"ls /srv/{words}{token}/config.json"):
            assert token not in redact_text(text), text
    for kept in ("feat-remaining-phases-1780741904", "node-modules-013ht2vgdzxgtv12snzoabfgmfjj9fu8"):
        assert redact_text(f"git checkout {kept}") == f"git checkout {kept}"


def test_a_hex_id_after_a_name_is_a_key_when_the_name_says_key() -> None:
    hexed = "a8942ae70464002ba2bb18def67e3cc8"
    assert hexed not in redact_text(f"POST https://api.example.com/botkey-{hexed}/sendMessage")
    assert redact_text(f"see build-{hexed}") == f"see build-{hexed}"


def test_a_token_cut_by_a_dash_in_a_path_is_no_base64_of_its_own() -> None:
    token = "GR13489419D0dB0eepzC3W36RG-cY"
    assert token not in redact_text(f"ls /var/lib/vendor/{token}/config.json")
