"""Look-alikes drawn at random: values shaped like secrets that a shared page must keep.

Each is (kind, text, evidence): the text goes in a session; the evidence must still be on the
page after redaction (masking it is a false positive).
"""

from __future__ import annotations

import base64
import hashlib
import random
import string
import uuid

Lookalike = tuple[str, str, str]

ALNUM = string.ascii_letters + string.digits


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _b64(rng: random.Random, n: int) -> str:
    return base64.b64encode(rng.randbytes(n)).decode()


def _id(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def draw_lookalikes(seed: int) -> list[Lookalike]:
    """Return about sixty look-alikes of some twenty kinds, drawn from ``seed``."""
    rng = random.Random(seed ^ 0x5EED)
    out: list[Lookalike] = []
    for _ in range(3):
        sha = _hex(rng, 40)
        out.append(("git-sha", f"commit {sha}\nAuthor: Dev <dev@example.com>", sha))
        short = _hex(rng, 7)
        out.append(("git-sha-short", f"{short} fix: handle empty input ({_hex(rng, 7)} follows)", short))
        u = str(uuid.UUID(int=rng.getrandbits(128)))
        out.append(("uuid", f'{{"requestId": "{u}", "status": 200}}', u))
        u2 = str(uuid.UUID(int=rng.getrandbits(128)))
        out.append(("uuid", f"session {u2} started", u2))
        integrity = "sha512-" + base64.b64encode(hashlib.sha512(rng.randbytes(8)).digest()).decode()
        out.append(
            (
                "npm-integrity",
                f'"resolved": "https://registry.npmjs.org/x/-/x-1.2.3.tgz",\n"integrity": "{integrity}"',
                integrity,
            )
        )
        h1 = "h1:" + base64.b64encode(hashlib.sha256(rng.randbytes(8)).digest()).decode()
        out.append(("go-sum", f"github.com/pkg/errors v0.9.1 {h1}", h1))
        digest = "sha256:" + _hex(rng, 64)
        out.append(("docker-digest", f"FROM python:3.12@{digest}", digest))
        cargo = _hex(rng, 64)
        out.append(("lockfile-checksum", f'[[package]]\nname = "serde"\nchecksum = "{cargo}"', cargo))
        wheel = _hex(rng, 64)
        out.append(("pip-hash", f"requests==2.32.3 --hash=sha256:{wheel}", wheel))
        img = _b64(rng, 300)
        out.append(("base64-image", f"![logo](data:image/png;base64,{img})", img[:60]))
        font = _b64(rng, 240)
        out.append(("base64-font", f"@font-face {{ src: url(data:font/woff2;base64,{font}) }}", font[:60]))
        pub = "AAAAC3NzaC1lZDI1NTE5AAAAI" + _id(rng, 43, ALNUM + "+/")
        out.append(("ssh-public-key", f"ssh-ed25519 {pub} dev@laptop", pub))
        fp = "SHA256:" + _id(rng, 43, ALNUM + "+/")
        out.append(("ssh-fingerprint", f"ED25519 key fingerprint is {fp}.", fp))
        gpg = " ".join(_hex(rng, 4).upper() for _ in range(10))
        out.append(("gpg-fingerprint", f"Key fingerprint = {gpg}", gpg))
        colour = "#" + _hex(rng, 6)
        out.append(("css-colour", f".btn {{ color: {colour}; background: #{_hex(rng, 3)}; }}", colour))
        pk = "pk_live_" + _id(rng, 24)
        out.append(("publishable-key", f"STRIPE_PUBLISHABLE_KEY={pk}", pk))
        msg = "msg_01" + _id(rng, 22)
        out.append(("agent-message-id", f'{{"id": "{msg}", "type": "message"}}', msg))
        toolu = "toolu_01" + _id(rng, 22)
        out.append(("agent-tool-id", f"tool_use_id: {toolu}", toolu))
        pod = f"api-{_hex(rng, 9)}-{_id(rng, 5, string.ascii_lowercase + string.digits)}"
        out.append(("k8s-pod-name", f"kubectl logs {pod} -n prod", pod))
        chunk = f"assets/index-{_id(rng, 8)}.js"
        out.append(("bundle-name", f'<script src="/{chunk}"></script>', chunk))
        pseudo = f"v0.0.0-20240101120000-{_hex(rng, 12)}"
        out.append(("go-pseudo-version", f"require example.com/mod {pseudo}", pseudo))
    out += [
        ("placeholder", "export OPENAI_API_KEY=sk-...XXXX", "sk-...XXXX"),
        ("placeholder", "curl -H 'Authorization: Bearer <token>' https://api.example.com", "<token>"),
        ("placeholder", "API_KEY=your-api-key-here", "your-api-key-here"),
        ("placeholder", "password: ${DB_PASSWORD}", "${DB_PASSWORD}"),
        ("placeholder", "token = os.environ['GITHUB_TOKEN']", "os.environ['GITHUB_TOKEN']"),
        ("placeholder", "const key = process.env.STRIPE_SECRET_KEY;", "process.env.STRIPE_SECRET_KEY"),
        ("placeholder", "SECRET_KEY = settings.SECRET_KEY", "settings.SECRET_KEY"),
        (
            "docs-table",
            "| flag | meaning |\n|---|---|\n| `--api-key <key>` | your key |",
            "`--api-key <key>`",
        ),
        ("docs-example-key", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
        (
            "docs-example-key",
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
        (
            "docs-example-key",
            "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx is the format",
            "ghp_xxxxxxxxxxxxxxxxxxxx",
        ),
        ("model-setting", '{"max_tokens": 4096, "cacheKey": "v2-linux-node20"}', "v2-linux-node20"),
        ("prose", "Rotate the API key and keep the session cookie secret.", "Rotate the API key"),
    ]
    return out
