"""The archive's keys and its one envelope: zstd-compressed, then sealed with AES-256-GCM.

An object is ``VERSION (1 byte) | nonce (12 random bytes) | AES-GCM(zstd(plain), aad=its name)``:
the version names the scheme so it can change; the name as associated data means an object
moved under another name is refused like a damaged one. The archive key (32 bytes) comes from a
key file made 0600 on first use or from a passphrase through scrypt (its salt in the store's
``config``); two keys are derived from it with HKDF, one that seals and one that names objects
(an HMAC of their logical name, so the store sees no project path, session id or machine name).
Nothing here logs, prints or caches a key.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sessiontree.errors import KeepDamaged, KeepKeyError
from sessiontree.store.atomic import make_private_dir

VERSION = 1
NONCE_BYTES = 12
KEY_BYTES = 32
SCRYPT = {"n": 2**15, "r": 8, "p": 1}
"""scrypt's cost (~32 MiB, ~0.1 s): a slow KDF for a passphrase, as OWASP's minimum asks."""
CHECK_TEXT = b"sessiontree keep: the key opens this archive"
ZSTD_LEVEL = 3


@dataclass(frozen=True, slots=True)
class Keys:
    """The two keys derived from the archive key."""

    seal: bytes
    name: bytes

    @classmethod
    def derive(cls, master: bytes) -> Keys:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF

        def one(info: bytes) -> bytes:
            return HKDF(algorithm=hashes.SHA256(), length=KEY_BYTES, salt=None, info=info).derive(master)

        return cls(one(b"sessiontree keep seal v1"), one(b"sessiontree keep names v1"))

    def check(self) -> str:
        """A value the store's config holds to tell a wrong key at once (reveals nothing of the key)."""
        return hmac.new(self.name, CHECK_TEXT, hashlib.sha256).hexdigest()

    def object_name(self, logical: str) -> str:
        """The store name of an object: an HMAC of its logical name, hex."""
        return hmac.new(self.name, logical.encode("utf-8", "surrogateescape"), hashlib.sha256).hexdigest()


def seal(keys: Keys, name: str, plain: bytes) -> bytes:
    """Compress and encrypt ``plain`` for the object called ``name``."""
    import zstandard
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    nonce = os.urandom(NONCE_BYTES)
    packed = zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(plain)
    return bytes([VERSION]) + nonce + AESGCM(keys.seal).encrypt(nonce, packed, name.encode())


def unseal(keys: Keys, name: str, sealed: bytes) -> bytes:
    """The plain bytes of an object; ``KeepDamaged`` when it was altered, cut or is not ours."""
    import zstandard
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    if len(sealed) < 1 + NONCE_BYTES + 16 or sealed[0] != VERSION:
        raise KeepDamaged(f"Refused a damaged object in the archive ({name[:16]}): not a sealed object")
    nonce, body = sealed[1 : 1 + NONCE_BYTES], sealed[1 + NONCE_BYTES :]
    try:
        packed = AESGCM(keys.seal).decrypt(nonce, body, name.encode())
        return zstandard.ZstdDecompressor().decompress(packed, max_output_size=1 << 31)
    except (InvalidTag, zstandard.ZstdError):
        raise KeepDamaged(
            f"Refused a damaged object in the archive ({name[:16]}): it does not open with this key"
        ) from None


# -- where the key comes from -------------------------------------------------------------------

PASSPHRASE_ENV = "SESSIONTREE_PASSPHRASE"


def new_config(key_file: Path, passphrase: str | None, where: str) -> tuple[dict[str, Any], Keys]:
    """A new archive's plain config (its KDF and salt, a key check) and its keys.

    A passphrase's salt is derived from the archive's place (``s3://bucket/prefix``), not drawn at
    random: two machines starting one archive at the same moment both write a config, and a store
    without conditional writes keeps the last; with the same salt, both configs are the same."""
    if passphrase is not None:
        salt = hashlib.sha256(
            b"sessiontree keep v1 salt\0" + where.encode("utf-8", "surrogateescape")
        ).digest()[:16]
        keys = Keys.derive(_scrypt(passphrase, salt, SCRYPT))
        config = {"version": VERSION, "kdf": "scrypt", "salt": salt.hex(), **SCRYPT}
    else:
        keys = Keys.derive(read_or_make_key(key_file))
        config = {"version": VERSION, "kdf": "keyfile"}
    return {**config, "check": keys.check()}, keys


def open_config(config: dict[str, Any], key_file: Path, passphrase: str | None) -> Keys:
    """The keys of an archive with this config; ``KeepKeyError`` when ours do not open it."""
    if config.get("kdf") == "scrypt":
        if passphrase is None:
            raise KeepKeyError(
                f"This archive is kept with a passphrase: set {PASSPHRASE_ENV} or run in a terminal"
            )
        params = {k: int(config[k]) for k in ("n", "r", "p")}
        keys = Keys.derive(_scrypt(passphrase, bytes.fromhex(str(config["salt"])), params))
        wrong = "The passphrase does not open this archive"
    else:
        if not key_file.is_file():
            raise KeepKeyError(
                f"This archive is kept with a key file that is not here: copy {key_file.name} from a "
                f"machine that keeps into it to {key_file}"
            )
        keys = Keys.derive(read_or_make_key(key_file))
        wrong = f"The key file {key_file} does not open this archive"
    if not hmac.compare_digest(keys.check(), str(config.get("check", ""))):
        raise KeepKeyError(wrong)
    return keys


def _scrypt(passphrase: str, salt: bytes, params: dict[str, int]) -> bytes:
    return hashlib.scrypt(
        passphrase.encode("utf-8"),
        salt=salt,
        n=params["n"],
        r=params["r"],
        p=params["p"],
        maxmem=256 * 2**20,
        dklen=KEY_BYTES,
    )


def read_or_make_key(key_file: Path) -> bytes:
    """The key in ``key_file`` (base64 of 32 bytes), made 0600 with a fresh random key when missing."""
    if not key_file.exists():
        make_private_dir(key_file.parent)
        text = base64.b64encode(os.urandom(KEY_BYTES)).decode() + "\n"
        try:
            fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another run made it first: read theirs
        else:
            with os.fdopen(fd, "w") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
    try:
        key = base64.b64decode(key_file.read_text().strip(), validate=True)
    except (OSError, ValueError) as exc:
        raise KeepKeyError(f"The key file {key_file} cannot be read: {exc}") from None
    if len(key) != KEY_BYTES:
        raise KeepKeyError(f"The key file {key_file} does not hold a key (32 bytes, base64)")
    return key


def dump_json(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=True).encode()
