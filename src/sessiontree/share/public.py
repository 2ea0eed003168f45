"""Values that look secret but are public: keys meant to be published, documented examples, test vectors.

A found value is kept, with the reason the review lists, when it is a public key by its shape
(an X.509 SubjectPublicKeyInfo, a BIP32 extended public key, a nostr ``npub``, a minisign or
signify public key, a Tor ``.onion`` address, a DKIM record's ``p=``), a value published in
documentation (the providers' own example keys), a published test vector (an RFC's or a
"test vector" line's values), or filler (a short unit repeated, ``0b0b0b…``).
"""

from __future__ import annotations

import re

# Example keys the providers print in their own documentation (shared by thousands of pages).
DOCUMENTED = frozenset(
    {
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",  # Stripe's API reference
        "pk_test_TYooMQauvdEDq54NiTphI7jx",
        "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
        "ghp_16C7e42F292c6912E7710c838347Ae178B4a",  # GitHub's token-format documentation
        "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",  # Slack's OAuth documentation
        # RFC 7515 A.1's HMAC key
        "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow",
    }
)
# Base64 of SubjectPublicKeyInfo: RSA (a BIT STRING after rsaEncryption, two alignments; a
# private key's OCTET STRING reads otherwise), P-256, P-384, Ed25519, X25519.
_PUBLIC_DER = re.compile(
    r"DQEBAQUAA4|BAQEFAAOC|^MFkwEwYHKoZIzj0CAQ|^MHYwEAYHKoZIzj0CAQ|^MCowBQYDK2Vw|^MCowBQYDK2Vu"
)
_EXTENDED_PUBLIC = re.compile(r"^(?:[xyzt]|[YZUV])pub[1-9A-HJ-NP-Za-km-z]{100,112}$")
_NPUB = re.compile(r"^npub1[02-9ac-hj-np-z]{58}$")
_SIGNIFY_PUBLIC = re.compile(r"^RW[A-Za-z0-9+/]{54}$")
_ONION = re.compile(r"^[a-z2-7]{56}$")
_TEST_VECTOR = re.compile(
    r"(?i)test[ -]vectors?\b|known[ -]answer test"
    r"|\bRFC[ -]?\d{3,5}\b[^\n]{0,80}\b(?:test|example)|\b(?:test|example)\b[^\n]{0,80}\bRFC[ -]?\d{3,5}\b"
)
_AROUND = 240
"""Characters looked at on each side of a value for the words that make it a test vector."""
_DKIM = re.compile(r"(?i)v=DKIM1[^\n]{0,200}\bp=$")


def _periodic(value: str) -> bool:
    """A short unit repeated (``0b0b0b…``, ``abcabcabc``): filler, never a secret."""
    core = value.removeprefix("0x")
    return len(core) >= 8 and any(
        len(core) % unit == 0 and core == core[:unit] * (len(core) // unit) for unit in range(1, 5)
    )


def public_reason(text: str, start: int, end: int) -> str | None:
    """Why the value at ``text[start:end]`` is public and kept (None: it may be a secret)."""
    value = text[start:end]
    if value in DOCUMENTED:
        return "a documented example key"
    if _periodic(value):
        return "filler (a short unit repeated)"
    if _PUBLIC_DER.search(value) or _EXTENDED_PUBLIC.match(value) or _NPUB.match(value):
        return "a public key"
    if _SIGNIFY_PUBLIC.match(value) and not text[end : end + 1].isalnum():
        return "a public key (minisign, signify)"
    if _ONION.match(value) and text.startswith(".onion", end):
        return "a Tor address (.onion)"
    # This line and the one before, within a bounded window (a text of one long line stays linear).
    low = max(0, start - _AROUND)
    before = text.rfind("\n", low, start)
    line_start = max(low, text.rfind("\n", low, before) + 1) if before >= 0 else low
    line_end = text.find("\n", end, end + _AROUND)
    if _TEST_VECTOR.search(text, line_start, min(len(text), end + _AROUND) if line_end < 0 else line_end):
        return "a published test vector"
    if _DKIM.search(text[max(0, start - 220) : start]):
        return "a public key (DKIM record)"
    return None
