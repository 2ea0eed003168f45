"""Draw held-out secrets from the documented formats and place them where sessions hold them.

Independent of the patterns' own corpus (``tests/share/corpus.py``): values come from the
provider formats in ``formats.py`` through a seeded RNG, so each seed is a new draw. Every case
is one value in one placement (a ``.env`` line, a header, a URL path, a wrapped psql cell, an
``env | base64`` dump, a docker ``config.json``...), put in one field of a session (user text,
assistant text, a tool's arguments or output, the title, the working directory, a label).
"""

from __future__ import annotations

import base64
import random
import re
import string
from collections.abc import Callable
from dataclasses import dataclass

from tests.share.heldout.formats import FORMATS, Format

_CLASSES = {
    "d": string.digits,
    "h": "0123456789abcdef",
    "H": "0123456789ABCDEF",
    "l": string.ascii_lowercase,
    "u": string.ascii_uppercase,
    "la": string.ascii_lowercase + string.digits,
    "ua": string.ascii_uppercase + string.digits,
    "a": string.ascii_letters + string.digits,
    "w": string.ascii_letters + string.digits + "-_",
    "b": string.ascii_letters + string.digits + "+/",
}
_PIECE = re.compile(r"\{(?P<cls>[a-zA-Z]+):(?P<lo>[0-9]+)(?:-(?P<hi>[0-9]+))?\}")


def draw(fmt: Format, rng: random.Random) -> str:
    """Return a value of the format, with a letter and a digit in each mixed piece (as real keys)."""

    def piece(match: re.Match[str]) -> str:
        alphabet = _CLASSES[match.group("cls")]
        lo = int(match.group("lo"))
        n = rng.randint(lo, int(match.group("hi") or lo))
        mixed = any(c.isdigit() for c in alphabet) and any(c.isalpha() for c in alphabet)
        while True:
            value = "".join(rng.choice(alphabet) for _ in range(n))
            if n < 8 or not mixed or (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
                return value

    return _PIECE.sub(piece, fmt.shape)


def key_name(fmt: Format) -> str:
    """Return the variable the value is kept under (``ACME_API_TOKEN`` when the format names none)."""
    if fmt.key:
        return fmt.key
    words = fmt.kind.upper().replace("-", "_")
    return words if any(w in words for w in ("KEY", "TOKEN", "SECRET", "PASSWORD")) else words + "_TOKEN"


def camel(name: str) -> str:
    """Return ``ACME_API_TOKEN`` as ``acmeApiToken``."""
    parts = [p for p in name.lower().split("_") if p]
    return parts[0] + "".join(p.title() for p in parts[1:]) if parts else name


def _psql(key: str, value: str, rng: random.Random) -> str:
    cut = rng.randint(12, max(13, len(value) - 8))
    width = cut + 1
    return (
        f" id | name {' ' * (len(key) - 4)}| {'value'.ljust(width)}\n"
        f"----+-{'-' * len(key)}-+-{'-' * width}\n"
        f"  1 | {key} | {value[:cut]}.\n"
        f"    | {' ' * len(key)} |.{value[cut:]}\n(1 row)\n"
    )


def _env_dump(key: str, value: str, _: random.Random) -> str:
    env = f"HOME=/home/dev\nLANG=C.UTF-8\n{key}={value}\nPATH=/usr/local/bin:/usr/bin\nTERM=xterm\n"
    encoded = base64.b64encode(env.encode()).decode()
    return "$ env | base64 -w 76\n" + "\n".join(encoded[i : i + 76] for i in range(0, len(encoded), 76))


def _docker_config(_: str, value: str, __: random.Random) -> str:
    auth = base64.b64encode(f"deploy:{value}".encode()).decode()
    return '{\n  "auths": {\n    "registry.example.io": {\n      "auth": "' + auth + '"\n    }\n  }\n}'


Place = Callable[[str, str, random.Random], str]

# Placements where the value's name or place says it is a credential: any format.
CONTEXT_PLACEMENTS: dict[str, Place] = {
    "env-line": lambda k, v, r: f"{k}={v}\nDEBUG=false",
    "export-quoted": lambda k, v, r: f"export {k}='{v}'",
    "dotenv-spaced": lambda k, v, r: f'{k} = "{v}"',
    "json-camel": lambda k, v, r: '{"name": "svc", "' + camel(k) + '": "' + v + '", "region": "eu"}',
    "yaml-nested": lambda k, v, r: f"service:\n  credentials:\n    {k.lower()}: {v}\n  replicas: 2",
    "toml-section": lambda k, v, r: f'[vendor]\n{k.lower()} = "{v}"\ntimeout = 30',
    "python-kwarg": lambda k, v, r: f'client = Client({k.lower()}="{v}", timeout=10)',
    "query-param": lambda k, v, r: f"GET https://api.example.com/v1/items?{k.lower()}={v}&limit=10",
    "cli-flag": lambda k, v, r: f"vendorctl deploy --{k.lower().replace('_', '-')} {v} --region eu",
    "cli-flag-equals": lambda k, v, r: f"tool sync --api-key={v} --dry-run",
    "auth-bearer": lambda k, v, r: f"curl -H 'Authorization: Bearer {v}' https://api.example.com/v1/me",
    "auth-token": lambda k, v, r: f"Authorization: Token {v}",
    "x-key-header": lambda k, v, r: f"curl -H 'X-Vendor-Key: {v}' https://api.example.com",
    "url-password": lambda k, v, r: f"DATABASE_URL=postgres://svc:{v}@db.internal:5432/app",
    "curl-user": lambda k, v, r: f"curl -u deploy:{v} https://ci.example.com/api/json",
    "pgpass": lambda k, v, r: f"$ cat ~/.pgpass\ndb.internal:5432:app:svc:{v}",
    "netrc": lambda k, v, r: f"machine api.example.com\n  login bot\n  password {v}",
    "sshpass": lambda k, v, r: f"sshpass -p '{v}' ssh deploy@10.0.0.5 uptime",
    "mysql-p": lambda k, v, r: f"mysql -u app -p{v} -h db prod < dump.sql",
    "docker-login": lambda k, v, r: f"docker login -u bot -p {v} registry.example.io",
    "connection-string": lambda k, v, r: f"Server=tcp:db.example.net;Database=app;User Id=sa;Password={v};",
    "env-base64-dump": _env_dump,
    "docker-config-auth": _docker_config,
    "ini-section": lambda k, v, r: f"[default]\n{k.lower()} = {v}\noutput = json",
}
# Placements where only the value itself can tell: formats with a fixed prefix.
SHAPE_PLACEMENTS: dict[str, Place] = {
    "prose": lambda k, v, r: f"here is the key you asked for: {v} (it works)",
    "url-path": lambda k, v, r: f"POST https://api.example.com/bot{v}/sendMessage",
    "url-userinfo": lambda k, v, r: f"git clone https://{v}@git.example.com/org/repo.git",
    "path-segment": lambda k, v, r: f"ls /var/lib/vendor/{v}/config.json",
    "image-file-name": lambda k, v, r: f"![screenshot](./shots/capture-{v}.png)",
    "psql-wrapped": lambda k, v, r: _psql(k.lower(), v, r),
    "markdown-table": lambda k, v, r: f"| name | value |\n|---|---|\n| {k} | `{v}` |",
    "ansi-grep": lambda k, v, r: f"config.yml:3:  \x1b[01;31m\x1b[K{v}\x1b[m\x1b[K",
    "json-array": lambda k, v, r: '{"keys": ["' + v + '"]}',
}
FIELD_PLACEMENTS = ("title", "cwd", "label")
FIELDS = ("user", "assistant", "tool-args", "tool-output")


@dataclass(frozen=True)
class Case:
    """One secret in one placement: what goes in the session, and what must not be left."""

    kind: str
    placement: str
    field: str
    value: str
    text: str
    evidence: tuple[str, ...]
    output: str = ""  # field "tool-pair": the text is the command, this its output
    family: str = "vendor"  # vendor formats; slot families in ``slots.py``


def evidence_of(fmt: Format, value: str, text: str, placement: str) -> tuple[str, ...]:
    """Return the pieces a page must not show: the value, windows of its random part, its base64."""
    fixed = fmt.shape.split("{")[0]
    body = value[len(fixed) :] if value.startswith(fixed) else value
    pieces = [value]
    if len(body) >= 24:
        pieces += [body[i : i + 16] for i in range(0, len(body) - 15, 8)]
    if placement in ("env-base64-dump", "docker-config-auth"):
        pieces += _encoded_windows(text, value)
    return tuple(dict.fromkeys(pieces))


def _encoded_windows(text: str, value: str) -> list[str]:
    """Return 16-character pieces of the base64 lines that encode ``value`` (not the rest)."""
    lines = re.findall(r"[A-Za-z0-9+/=]{20,}", text)
    joined = "".join(lines)
    decoded = base64.b64decode(joined)
    at = decoded.find(value.encode())
    first, last = at // 3 * 4 + 4, (at + len(value)) // 3 * 4 - 4  # whole groups inside the value
    windows: list[str] = []
    pos = 0
    for line in lines:
        lo, hi = max(first, pos), min(last, pos + len(line))
        windows += [joined[j : j + 16] for j in range(lo, hi - 15, 8)]
        pos += len(line)
    return windows


def draw_cases(seed: int, per_placement: int = 6) -> list[Case]:
    """Return every format once (in a random fitting placement) and each placement at least N times."""
    rng = random.Random(seed)
    cases: list[Case] = []
    shape_names = [*SHAPE_PLACEMENTS, *FIELD_PLACEMENTS]
    counts = dict.fromkeys([*CONTEXT_PLACEMENTS, *shape_names], 0)

    def add(fmt: Format, placement: str) -> None:
        value = draw(fmt, rng)
        key = key_name(fmt)
        if placement in FIELD_PLACEMENTS:
            text, field = value, placement
        else:
            make = CONTEXT_PLACEMENTS.get(placement) or SHAPE_PLACEMENTS[placement]
            text, field = make(key, value, rng), rng.choice(FIELDS)
        cases.append(Case(fmt.kind, placement, field, value, text, evidence_of(fmt, value, text, placement)))
        counts[placement] += 1

    for fmt in FORMATS:
        add(fmt, rng.choice(shape_names if fmt.prefixed else list(CONTEXT_PLACEMENTS)))
    prefixed = [f for f in FORMATS if f.prefixed]
    for placement, n in list(counts.items()):
        pool = prefixed if placement in shape_names else list(FORMATS)
        for _ in range(per_placement - n):
            add(rng.choice(pool), placement)
    return cases
