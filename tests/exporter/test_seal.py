"""The sealed page's envelope (exporter/seal.py): round trips, a changed byte, a wrong key or password."""

from __future__ import annotations

import base64
import re
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessiontree.errors import SealError
from sessiontree.exporter.csp import csp_hash
from sessiontree.exporter.options import PageOptions
from sessiontree.exporter.page import page_csp, viewer_assets
from sessiontree.exporter.seal import (
    MAGIC,
    PBKDF2_ITERATIONS,
    key_from_text,
    key_text,
    new_key,
    open_envelope,
    read_envelope,
    seal,
    seal_page,
    seal_page_with_password,
    seal_with_password,
    sealed_assets,
    sealed_csp,
)
from tests.exporter.conftest import _PageParser

FAST = 100_000  # the least an envelope may ask: the tests' password envelopes, but for one


@settings(max_examples=25, deadline=None)
@given(st.binary(max_size=4096))
def test_a_key_envelope_opens_to_the_bytes_sealed(data: bytes) -> None:
    key = new_key()
    envelope = seal(data, key)
    assert envelope[:5] == MAGIC + b"\x01"
    assert open_envelope(envelope, key=key) == data


def test_two_seals_of_the_same_page_share_no_nonce_and_no_bytes() -> None:
    key = new_key()
    first, second = seal(b"same page", key), seal(b"same page", key)
    assert first[5:17] != second[5:17]
    assert first != second


def test_a_password_envelope_names_its_derivation_and_opens_with_the_password() -> None:
    envelope = seal_with_password("pâge ✓".encode(), "correct horse ☃")
    assert envelope[:5] == MAGIC + b"\x02"
    assert struct.unpack(">I", envelope[5:9])[0] == PBKDF2_ITERATIONS >= 600_000
    assert open_envelope(envelope, password="correct horse ☃") == "pâge ✓".encode()
    with pytest.raises(SealError, match="Wrong key or password"):
        open_envelope(envelope, password="correct horse")


def test_a_wrong_key_opens_nothing() -> None:
    envelope = seal(b"secret page", new_key())
    with pytest.raises(SealError, match="Wrong key or password"):
        open_envelope(envelope, key=new_key())
    with pytest.raises(SealError, match="give the key"):
        open_envelope(envelope)


@pytest.mark.parametrize("where", ["version", "nonce", "ciphertext", "tag"])
def test_any_changed_byte_is_refused(where: str) -> None:
    key = new_key()
    envelope = bytearray(seal(b"a page " * 200, key))
    at = {"version": 4, "nonce": 7, "ciphertext": 40, "tag": len(envelope) - 1}[where]
    envelope[at] ^= 0x01
    with pytest.raises(SealError):
        open_envelope(bytes(envelope), key=key)


def test_a_changed_salt_or_count_of_a_password_envelope_is_refused() -> None:
    envelope = seal_with_password(b"page", "pw", iterations=FAST)
    salt_changed = bytearray(envelope)
    salt_changed[12] ^= 0x80
    count_changed = bytearray(envelope)
    count_changed[8] ^= 0x01  # 100,000 -> 100,001: still allowed, but not what was sealed
    for damaged in (salt_changed, count_changed):
        with pytest.raises(SealError, match="Wrong key or password"):
            open_envelope(bytes(damaged), password="pw")
    weak = bytearray(envelope)
    weak[5:9] = struct.pack(">I", 1000)
    with pytest.raises(SealError, match="too weak"):
        open_envelope(bytes(weak), password="pw")


def test_cut_and_foreign_envelopes_say_so() -> None:
    envelope = seal(b"page", new_key())
    with pytest.raises(SealError, match="cut short"):
        open_envelope(envelope[:20], key=new_key())
    with pytest.raises(SealError, match="Not a sealed page"):
        open_envelope(b"<!doctype html>", key=new_key())
    with pytest.raises(SealError, match="version 9"):
        open_envelope(MAGIC + b"\x09" + envelope[5:], key=new_key())


def test_an_empty_password_is_refused() -> None:
    with pytest.raises(SealError, match="empty"):
        seal_with_password(b"page", "")


def test_the_key_goes_in_a_fragment_as_43_url_safe_characters() -> None:
    key = new_key()
    text = key_text(key)
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", text)
    assert key_from_text("#" + text) == key == key_from_text(text)
    with pytest.raises(SealError, match="Not a page key"):
        key_from_text(text[:-1])


def test_the_sealed_page_holds_only_the_envelope_and_one_script() -> None:
    plain = "<!doctype html><title>My secret title</title><p>the session's words</p>"
    key = new_key()
    page = seal_page(plain, key, theme="dark")
    assert "secret" not in page and "words" not in page
    assert open_envelope(read_envelope(page), key=key) == plain.encode()
    parsed = _PageParser()
    parsed.feed(page)
    runnable = [text for attrs, text in parsed.scripts if "type" not in attrs]
    assert runnable == [sealed_assets()[1]]
    assert 'data-theme="dark"' in page
    assert parsed.csp == sealed_csp()


def test_the_sealed_policy_is_the_plain_one_with_the_sealed_page_s_own_hashes() -> None:
    css, js = sealed_assets()
    policy = dict(d.strip().split(" ", 1) for d in sealed_csp().split(";"))
    plain = dict(d.strip().split(" ", 1) for d in page_csp(PageOptions()).split(";"))
    assert set(policy) == set(plain)
    assert policy["script-src"].split() == [f"'{csp_hash(viewer_assets()[1])}'", f"'{csp_hash(js)}'"]
    assert policy["style-src-elem"].split() == [f"'{csp_hash(viewer_assets()[0])}'", f"'{csp_hash(css)}'"]
    assert "unsafe" not in sealed_csp()
    assert {k: v for k, v in policy.items() if not k.startswith(("script", "style-src"))} == {
        k: v for k, v in plain.items() if not k.startswith(("script", "style-src"))
    }


def test_a_password_page_carries_a_password_field() -> None:
    page = seal_page_with_password(b"<p>x</p>", "pw")
    assert '<label for="st-sealed-password">Password</label>' in page
    assert 'type="password"' in page
    envelope = base64.b64decode(re.search(r'id="st-sealed">([^<]*)<', page).group(1))  # type: ignore[union-attr]
    assert open_envelope(envelope, password="pw") == b"<p>x</p>"
