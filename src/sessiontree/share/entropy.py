"""Tell generated values (keys, tokens) from words, names, numbers, hashes and ids by their shape.

No list of vendors: a value is judged by its length, its mix of character classes, how often the
class changes from one character to the next, and its Shannon entropy. A random base62 string
changes class about every other character; an identifier (``fetchUserName2024``) a few times.
"""

from __future__ import annotations

import math
import re
from collections import Counter

_SEPARATORS = re.compile(r"[-_.~+/=]")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-f]+|[0-9A-F]+")
# The parts of an identifier: words in any case (camelCase split) and numbers.
_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_FILLER = re.compile(r"0123456|1234567|abcdefg|XXXX|EXAMPLE", re.IGNORECASE)
_RUN_OF_ONE = re.compile(r"(.)\1{3,}")


def shannon(value: str) -> float:
    """Return the Shannon entropy of ``value`` in bits per character."""
    n = len(value)
    if not n:
        return 0.0
    return -sum(k / n * math.log2(k / n) for k in Counter(value).values())


def _class(c: str) -> int:
    return 0 if c.islower() else 1 if c.isupper() else 2 if c.isdigit() else 3


def class_switches(value: str) -> int:
    """Return how many times the character class (lower, upper, digit, other) changes."""
    switches = 0
    last = -1
    for c in value:
        k = _class(c)
        if k != last:
            switches += 1
            last = k
    return max(0, switches - 1)


def is_uuid(value: str) -> bool:
    """Tell whether the value is a UUID (any case)."""
    return _UUID.fullmatch(value) is not None


# Addresses (bech32, Ethereum) and content ids (IPFS v0 and v1): public, however random.
_ADDRESS = re.compile(r"(?:bc1|tb1|ltc1|cosmos1|osmo1|addr1|age1)[02-9ac-hj-np-z]{20,}|0x[0-9a-fA-F]{40}")
_CONTENT_ID = re.compile(r"Qm[1-9A-HJ-NP-Za-km-z]{44}|baf[a-z2-7]{50,}")


def public_shape(value: str) -> str | None:
    """Return "an address" or "a content id" when the value has one's shape, else None."""
    if _ADDRESS.fullmatch(value):
        return "an address"
    return "a content id" if _CONTENT_ID.fullmatch(value) else None


def is_hex(value: str) -> bool:
    """Tell whether the value is hexadecimal in one case (a digest, a commit, an object id)."""
    return _HEX.fullmatch(value) is not None


def reads_as_words(value: str) -> bool:
    """Tell whether a value reads as words and short numbers (``fetchUser2024``, ``v2-linux-node20``).

    Generated text splits into many parts of one or two characters (``Xk``, ``29``, ``s``...);
    an identifier into few long ones.
    """
    parts = _PARTS.findall(value)
    if not parts:
        return False
    letters = [p for p in parts if p[0].isalpha()]
    numbers = [p for p in parts if p[0].isdigit()]
    if not letters or any(len(p) > 4 for p in numbers):
        return False
    if len(numbers) >= 4 and len(value) >= 20 and value.isalnum() and value.isupper():
        return False  # digits scattered through capitals: RHILW0HY2YUSE3QWAJ1E6GHQYV (no word is cased so)
    short = sum(len(p) == 1 for p in letters)
    # An acronym of four in a camelCase name (HTTPServer) is a word; any other four letters are
    # one only if pronounceable ("Dnnv", "Spbg", "QWAJ" are pieces of a random token).
    acronyms = not value.isupper()
    if any(
        (len(p) > 4 or (len(p) == 4 and not (acronyms and p.isupper()))) and not _pronounceable(p)
        for p in letters
    ):
        return False
    return sum(map(len, letters)) / len(letters) >= 3.0 and short <= 1


MIN_ENTROPY = 4.0  # bits per character: random base62 of 32 has ~4.6, words ~3
# A short sample repeats characters by chance: 24 random base62 characters measure 4.0 to 4.4,
# and one in twenty falls under 4.0 (measured over 2,000 draws). Words stay near 3.
MIN_SHORT_ENTROPY = 3.75
MIN_PART = 20


def random_part(part: str) -> bool:
    """Tell a part of a slug or a file name that makes it a token's wrapping: 20 characters or
    more of both cases, random alone (one case is an id's alphabet: ``node-modules-<32 base36>``)."""
    return len(part) >= MIN_PART and part.upper() != part and part.lower() != part and random_alone(part)


def random_alone(core: str) -> bool:
    """Tell a generated run of letters and digits (one run: no separators judged here) by its
    digits, both cases under 32 characters, its switches of character class and its entropy."""
    n = len(core)
    if not any(c.isdigit() for c in core) or (n < 32 and (core.upper() == core or core.lower() == core)):
        return False
    if class_switches(core) < n / 5 or reads_as_words(core):
        return False
    return shannon(core) >= (MIN_SHORT_ENTROPY if n < 32 else MIN_ENTROPY)


def irregular_parts(value: str) -> int:
    """Count the parts of a name no word-by-word name has many of: two letters (``Qe``, ``Xp``),
    capitals of three or more (``BSMV``), digits between letters (``Wetd61he``).

    A camelCase name has at most one (``HTTPBasicAuth``, ``createOAuth2Client``, ``IdToken``);
    a random token whose parts happen to read has several.
    """
    parts = _PARTS.findall(value)
    odd = 0
    for i, part in enumerate(parts):
        if part[0].isdigit():
            odd += 0 < i < len(parts) - 1
        else:
            odd += len(part) == 2 or (len(part) >= 3 and part.isupper())
    return odd


_CONSONANTS = re.compile(r"[b-df-hj-np-tv-xzB-DF-HJ-NP-TV-XZ]{4}")


def _pronounceable(word: str) -> bool:
    """Tell a word (about two letters in five are vowels, few long consonant runs) from random letters."""
    vowels = sum(c in "aeiouyAEIOUY" for c in word)
    return vowels >= 0.15 * len(word) and not _CONSONANTS.search(word)


# A date and time (YYYYMMDDhhmmss: Go pseudo-versions, build stamps) is no part of a secret.
_TIMESTAMP = re.compile(r"(?:19|20)[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])[0-9]{6}")


def _core(value: str) -> str | None:
    """Return the value without separators and with runs of one character cut to one (or None
    when it is filler: ``xxxx``, ``EXAMPLE``, ``1234567``, or mostly one repeated character)."""
    core = _SEPARATORS.sub("", _TIMESTAMP.sub("", value))
    if _FILLER.search(core):
        return None
    collapsed = _RUN_OF_ONE.sub(r"\1", core)
    return collapsed if len(collapsed) >= 0.6 * len(core) else None


def looks_generated(value: str, min_len: int = 20) -> bool:
    """Tell whether ``value`` looks machine-generated: long, mixed, changing class often, high entropy."""
    core = _core(value)
    if core is None or len(value) < min_len or len(core) < min_len - 4:
        return False
    n = len(core)
    has_lower = any(c.islower() for c in core)
    has_upper = any(c.isupper() for c in core)
    digits = sum(c.isdigit() for c in core)
    if has_lower + has_upper + (digits > 0) < 2 or digits == n:
        return False
    if reads_as_words(value):
        return False
    if class_switches(core) < n / 6:
        return False
    # Random base62 of 20 characters has ~4.0 bits; hex of 32 ~3.7; an English word ~3 or less.
    return shannon(core) >= min(3.3, math.log2(n) - 1.0)


def looks_random_value(value: str, min_len: int = 8) -> bool:
    """Tell whether a value in a credential context is generated rather than a word or a name."""
    core = _core(value)
    if core is None or len(core) < min_len:
        return False
    n = len(core)
    has_lower = any(c.islower() for c in core)
    has_upper = any(c.isupper() for c in core)
    has_digit = any(c.isdigit() for c in core)
    if has_lower + has_upper + has_digit < 2:
        return False
    if reads_as_words(value) and n < 24 and class_switches(core) < n / 3:
        return False
    if class_switches(core) < max(2, n / 8):
        return False
    # A long value that changes class this often is generated even when it repeats itself.
    return n >= 32 or shannon(core) >= min(3.0, math.log2(n) - 0.5)
