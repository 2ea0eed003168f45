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


_LOWER_ALNUM = string.ascii_lowercase + string.digits
# jwt.io's example token, in most JWT documentation: public, and kept.
DOCUMENTED_JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)


def _cert_line(rng: random.Random) -> str:
    """Return a full-width line of a certificate's body (what follows ``MII..CCA`` is DER noise)."""
    return "MIID" + _id(rng, 1, string.ascii_letters) + "zCCA" + _id(rng, 55, ALNUM + "+/")


def _slot_lookalikes(rng: random.Random) -> list[Lookalike]:
    """Look-alikes of the slot shapes: ids, hashes, certificates, placeholders, prose about passwords."""
    pod = f"web-{_hex(rng, 10)}-{_id(rng, 5, _LOWER_ALNUM)}"
    deployment = "dpl_" + _id(rng, 28)
    node = rng.choice(["PR_kwDO", "I_kwDO", "U_kgDO", "R_kgDO"]) + _id(rng, 12, ALNUM + "-_")
    notion = f"https://www.notion.so/acme/Release-Plan-{_hex(rng, 32)}"
    cert = [_cert_line(rng) for _ in range(4)]
    ca_data = base64.b64encode(("-----BEGIN CERTIFICATE-----\n" + "\n".join(cert)).encode()).decode()
    tx = "0x" + _hex(rng, 64)
    bcrypt = "$2b$12$" + _id(rng, 53, ALNUM + "./")
    age = "age1" + _id(rng, 58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l")
    return [
        ("placeholder", "DB_PASSWORD=changeme-in-prod", "changeme-in-prod"),
        ("placeholder", "<password>${env.DB_PASSWORD}</password>", "${env.DB_PASSWORD}"),
        ("placeholder", "htpasswd -b .htpasswd admin <password>", "<password>"),
        ("k8s-pod-name", f"kubectl describe pod {pod} -n web", pod),
        (
            "deployment-id",
            f"Deployment {deployment} is ready: https://app-{_id(rng, 9, _LOWER_ALNUM)}.vercel.app",
            deployment,
        ),
        ("graphql-node-id", f'{{"data": {{"node": {{"id": "{node}", "title": "Fix login"}}}}}}', node),
        ("notion-url", f"See {notion} for the plan.", notion[-32:]),
        (
            "x509-line",
            "-----BEGIN CERTIFICATE-----\n" + "\n".join(cert) + "\n-----END CERTIFICATE-----",
            cert[1],
        ),
        ("x509-line", "\n".join(cert[:3]), cert[1]),
        (
            "kubeconfig-ca",
            f"clusters:\n- cluster:\n    certificate-authority-data: {ca_data}\n    server: https://10.0.0.1:6443",
            ca_data[:60],
        ),
        (
            "documented-jwt",
            f"curl -H 'Authorization: Bearer {DOCUMENTED_JWT}' http://localhost:8080",
            DOCUMENTED_JWT[-43:],
        ),
        ("tx-hash", f"transaction {tx} confirmed in block 19000000", tx),
        ("bcrypt-hash", f"| id | email | password_hash |\n|---|---|---|\n| 1 | a@b.io | {bcrypt} |", bcrypt),
        ("age-public-key", f"age -r {age} -o secrets.age secrets.txt", age),
        (
            "prose",
            "The password must be at least 12 characters and include a digit.",
            "at least 12 characters",
        ),
        ("prose", "Passwords are hashed with bcrypt before storage.", "hashed with bcrypt"),
        ("prose", "The token is valid for 3600 seconds.", "valid for 3600"),
        (
            "cli-docs",
            "usage: htpasswd -b[cmBdpsD] passwordfile username password",
            "passwordfile username password",
        ),
        ("agent-id", f"call_{_id(rng, 24)} finished; see rs_{_hex(rng, 48)}", "call_"),
    ]


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
        out += _slot_lookalikes(rng)
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
