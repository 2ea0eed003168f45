"""Secrets whose slot spans lines: table columns, folded YAML scalars, printed secrets, continuations.

- a column of a table (markdown, psql, MySQL boxes) or of a CSV / TSV whose header names a secret;
- a folded or literal YAML scalar (``password: >`` and the indented lines under it);
- the output of a command whose job is to print a secret (``cat …/initialAdminPassword``,
  ``openssl rand -hex 32``, ``gh auth token``): the line after the command, or the whole output;
- a generated value whose context says secret: an ``0x<64 hex>`` under ``accounts`` or a private
  key's name, the ``result`` of a Terraform ``random_password``;
- a value that goes on past the end of a line: after a shell backslash-newline or in a string
  concatenation (``"abc" +\\n "def"``), and a value whose separators (``.``, ``!``, ``~``, ``:``)
  joined it to more generated pieces.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sessiontree.share.entropy import is_hex, looks_generated, looks_random_value, reads_as_words
from sessiontree.share.keyvalue import SECRET_PIECES, classify_key, says_secret
from sessiontree.share.scan import Hits, register
from sessiontree.share.slots import is_password

Span = tuple[int, int, str]

_CELL_SPLIT = re.compile(r"[ \t]*[|\u2502][ \t]*")
# The rule under a table's header: |---|:--:|, ----+----, +----+----+ (two columns or more).
_RULE_LINE = re.compile(
    r"(?m)^[ \t]*[|+\u2502]?[ \t]*:?-{3,}:?[ \t]*(?:[|+\u2502\u253c][ \t]*:?-{3,}:?[ \t]*)+[|+\u2502]?[ \t]*$"
)
_HEADER_CELL = re.compile(r"[A-Za-z_][\w .()-]{0,39}")


def _cells(line: str) -> list[str]:
    return _CELL_SPLIT.split(line.strip().strip("|\u2502").strip())


def find_table_secrets(text: str) -> Iterator[Span]:
    """Yield the cells of a column whose header names a secret, and the values of key/value rows."""
    for rule in _RULE_LINE.finditer(text):
        head_end = rule.start() - 1
        if head_end <= 0:
            continue
        header = text[text.rfind("\n", 0, head_end) + 1 : head_end]
        cells = _cells(header)
        if len(cells) < 2 or not all(_HEADER_CELL.fullmatch(c) for c in cells):
            continue
        columns = {i: c for i, c in enumerate(cells) if " " not in c and classify_key(c)}
        yield from _rows(text, rule.end() + 1, columns, len(cells))


# A variable's name in a key/value row (API_KEY, db.password, clientSecret), not a word of prose.
_NAME_CELL = re.compile(r"[A-Za-z][A-Za-z0-9]*[_.-][\w.-]*|[A-Z][A-Z0-9_]{2,}|[a-z]+[A-Z]\w*")


def _cell_secret(name: str, value: str) -> bool:
    """Tell a secret in a table cell: any password under a password's name; a generated token."""
    if classify_key(name) == "password":
        return is_password(value) and not reads_as_words(value)
    return is_password(value) and looks_generated(value, 16)


def _rows(text: str, pos: int, columns: dict[int, str], width: int) -> Iterator[Span]:
    """Yield the secret cells of the rows from ``pos`` to the end of the table."""
    while pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line, start, pos = text[pos:end], pos, end + 1
        if _RULE_LINE.fullmatch(line):
            continue
        if "|" not in line and "\u2502" not in line:
            return
        cells = _cells(line)
        if len(cells) != width:
            return
        offset = 0
        for i, cell in enumerate(cells):
            at = line.find(cell, offset) if cell else -1
            if at < 0:
                continue
            offset = at + len(cell)
            value = cell.strip("`'\"")
            if not value or " " in value:
                continue
            lead = start + at + cell.find(value)
            name = cells[i - 1].strip("`") if i else ""
            if (i in columns and _cell_secret(columns[i], value)) or (
                _NAME_CELL.fullmatch(name) and _cell_secret(name, value)  # | API_KEY | `value` |
            ):
                yield lead, lead + len(value), "table-secret"


# A delimited file's header (CSV, TSV, semicolon-separated): a cell names a secret's column.
COLUMN_HINTS = register(*SECRET_PIECES)
# A header line whole: two names or more, each perhaps quoted, between one kind of delimiter (a
# quick test in C before the fields are split: most lines holding "key" are code). A name holds
# no delimiter and starts with a letter, so the line splits one way only (linear time).
_NAME = r'[ \t]*"?[A-Za-z_][\w .()-]{0,39}"?'
_MAX_HEADER = 600
_HEADER_LINE = re.compile(_NAME + r"(?P<d>[,\t;])" + _NAME + r"(?:(?P=d)" + _NAME + r")*[ \t]*\r?")


def _fields(line: str, delimiter: str) -> list[tuple[int, int]] | None:
    """Return the spans of a delimited line's fields (a quoted field's content), or None if malformed."""
    spans: list[tuple[int, int]] = []
    pos = 0
    while True:
        if line.startswith('"', pos):
            close = pos + 1
            while True:
                close = line.find('"', close)
                if close < 0:
                    return None
                if not line.startswith('"', close + 1):
                    break
                close += 2  # "" is a quote inside the field
            spans.append((pos + 1, close))
            pos = close + 1
            if pos < len(line) and line[pos] != delimiter:
                return None
        else:
            end = line.find(delimiter, pos)
            end = len(line) if end < 0 else end
            spans.append((pos, end))
            pos = end
        if pos >= len(line):
            return spans
        pos += 1


def find_column_secrets(text: str, hits: Hits) -> Iterator[Span]:
    """Yield the cells of a CSV / TSV column whose header names a secret (any position, any case)."""
    seen: set[int] = set()
    for at in (at for hint in COLUMN_HINTS for at in hits.at(hint)):  # each line once, any order
        # A header is a short line with a row under it: a longer one is not looked at.
        head = text.rfind("\n", max(0, at - _MAX_HEADER), at) + 1
        if (head == 0 and at > _MAX_HEADER) or head in seen:
            continue
        seen.add(head)
        end = text.find("\n", at, head + _MAX_HEADER)
        if end < 0:
            continue
        line = _HEADER_LINE.fullmatch(text, head, end)
        if line is not None:
            yield from _column_cells(text, text[head:end].rstrip("\r"), end + 1, line.group("d"))


def _column_secret(name: str, value: str) -> bool:
    """Tell a secret in a data file's column: any password under a password's header, a random token."""
    if classify_key(name.replace(" ", "_")) == "password":
        return is_password(value)
    return " " not in value and is_password(value) and looks_random_value(value, 8)


def _column_cells(text: str, header: str, pos: int, delimiter: str) -> Iterator[Span]:
    fields = _fields(header, delimiter)
    if fields is None or len(fields) < 2:
        return
    names = [header[a:b].strip() for a, b in fields]
    if not all(_HEADER_CELL.fullmatch(name) for name in names):
        return
    columns = {i: name for i, name in enumerate(names) if classify_key(name.replace(" ", "_"))}
    if not columns:
        return
    while pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line, start, pos = text[pos:end].rstrip("\r"), pos, end + 1
        row = _fields(line, delimiter) if line.strip() else None
        if row is None or len(row) != len(fields):
            return
        for i, name in columns.items():
            a, b = row[i]
            value = line[a:b].strip()
            if value and _column_secret(name, value):
                lead = start + a + line[a:b].find(value)
                yield lead, lead + len(value), "column-secret"


_FOLDED = re.compile(r"(?m)^(?P<indent>[ \t]*)(?P<key>[\w.-]{1,80})[ \t]*:[ \t]*[>|][-+0-9]*[ \t]*$")


def find_folded_secrets(text: str) -> Iterator[Span]:
    """Yield the lines of a folded (``>``) or literal (``|``) YAML scalar under a secret's key."""
    for match in _FOLDED.finditer(text):
        if classify_key(match.group("key")) is None:
            continue
        indent = len(match.group("indent"))
        pos = match.end() + 1
        while pos < len(text):
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            line = text[pos:end]
            body = line.lstrip(" \t")
            if body and len(line) - len(body) <= indent:
                break
            if body and is_password(body.strip()):
                yield pos + len(line) - len(body), pos + len(line.rstrip()), "yaml-secret"
            pos = end + 1


# A command whose output is a secret: it reads or makes one.
_PRINTS_SECRET = re.compile(
    r"(?i:pass(?:word|wd|phrase)?|secret|token|api[_.-]?key|private[_.-]?key|credential|master[_.-]?key)"
    r"|(?:cat|type|more|less|head|tail|bat)[ \t][^\n|;&]{0,200}(?i:key|secret|token|pass|cred|pwd)"
    r"|openssl[ \t]+rand|pwgen|apg\b|/dev/urandom|secrets\.token_|token_(?:hex|urlsafe)|genkey"
    r"|rails[ \t]+secret|rake[ \t]+secret|key:generate|print-access-token|get-login-password"
    r"|keygen|mkpasswd|uuidgen[ \t]+-r"
    r"|randomBytes|SecureRandom|random_bytes|randbytes|token_bytes|getRandomValues"
    # A read from a secret store or a decryption: what it prints is the secret, whatever its name.
    r"|op://|\bop[ \t]+(?:read|inject)|\bbw[ \t]+get|\blpass[ \t]+show|--with-decryption|decrypt"
    r"|\betcdctl[ \t]+get\b|\bconsul[ \t]+kv[ \t]+get\b|\bvault[ \t]+(?:kv[ \t]+)?(?:get|read)\b"
    r"|get-secret-value|secrets[ \t]+versions[ \t]+access|keyvault[ \t]+secret[ \t]+show"
    r"|\b(?:sops|age|gpg|rage)[ \t]+(?:[^\n|;&]{0,80}[ \t])?-d\b"
)
# Lowercase pieces one of which every command that prints a secret holds (a cheap test first).
PRINTS_SECRET_HINTS = (
    *("pass", "secret", "token", "key", "cred", "auth", "pwd"),
    *("rand", "pwgen", "apg", "urandom", "uuidgen"),
    *("op://", "op read", "op inject", "bw get", "lpass", "decrypt", "sops", "gpg", "age -d"),
    *("etcdctl", "consul", "vault", "get-secret-value", "versions access", "keyvault"),
)
_NOT_PRINTING = re.compile(r"(?i)\b(?:ls|tree|find|grep|rg|git|wc|stat|file|du|which|man|head -n 0)\b")
# A command that prints a digest or a fingerprint of a secret, not the secret.
_PRINTS_DIGEST = re.compile(r"(?i)(?:sha\d*|md5|b2|ck)sum|shasum|hash|digest|fingerprint")
# The words of a command and its arguments (``get-access-token``, ``{.data.password}``, ``op://x/credential``).
_COMMAND_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]{1,60}")
_COMMAND_LINE = 400
_PROMPT_LINE = re.compile(
    r"(?m)^[ \t]*(?:[\w@.~:/()\[\]-]{0,80}[$#%]|>{1,3}|PS [^>\n]{0,80}>)[ \t]+(?P<cmd>[^\n]{2,400})\n"
)
# An assignment printed (``KEY=value``, ``token=…``), not a value: a name of words before "=".
_ASSIGNED = re.compile(r"(?:[A-Z][A-Z0-9_]*|[a-z][a-z0-9_.-]*|[A-Za-z][a-z]+(?:[A-Z_][a-z0-9]+)*)=(?=.)")


def _assigned(value: str) -> bool:
    """Tell ``KEY=value`` or ``name=value`` printed from a generated value that holds "=" (``fs=uZAx~1m``)."""
    name = _ASSIGNED.match(value)
    if name is None:
        return False
    word = name.group()[:-1]
    return len(word) >= 3 and (word.isupper() or reads_as_words(word))


_SYMBOL_INSIDE = re.compile(r"[~*#!@$%^&+=?|]")
_ALONE = re.compile(r"[ \t]*(?P<secret>[^\s]{8,500})[ \t]*(?:\r?\n|$)")


def prints_secret(command: str) -> bool:
    """Tell whether a command's job is to print a secret (its output is then masked).

    Learnt from what the command is, not from a list of tools: a word of its name or arguments
    says token, password, secret, key, auth or credential (``gh auth token``, ``op read
    op://vault/db/credential``, ``aws ecr get-login-password``), or it makes a random value.
    """
    if _NOT_PRINTING.match(command.strip()) is not None or _PRINTS_DIGEST.search(command) is not None:
        return False
    if _PRINTS_SECRET.search(command) is not None:
        return True
    # The command's own line only: a script or here-doc after it says what it writes, not prints.
    line = command.lstrip()[:_COMMAND_LINE].split("\n", 1)[0]
    lowered = line.lower()
    if not any(piece in lowered for piece in SECRET_PIECES):
        return False
    return any(says_secret(word) for word in _COMMAND_WORD.findall(line))


_ECHOED_KEY = re.compile(r"[ \t]*/[^\s]{1,300}[ \t]*\r?\n")


def printed_secret(output: str, alone: bool = True) -> tuple[int, int] | None:
    """Return the span of the value a secret-printing command printed: alone, or on its first line
    (after the key it was read at, as ``etcdctl get /app/db_pass`` prints it first)."""
    echoed = _ECHOED_KEY.match(output.lstrip("\n"))
    if echoed is not None:
        shift = len(output) - len(output.lstrip("\n")) + echoed.end()
        found = printed_secret(output[shift:], alone)
        if found is not None:
            return shift + found[0], shift + found[1]
    match = _ALONE.match(output.lstrip("\n"))
    if match is None:
        return None
    shift = len(output) - len(output.lstrip("\n"))
    if alone and output[shift + match.end() :].strip():
        return None
    value = match.group("secret")
    if not is_password(value) or (value.isalpha() and value.islower()):
        return None
    mixed = len(value) >= 8 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
    if reads_as_words(value) and not mixed and not _SYMBOL_INSIDE.search(value, 1, len(value) - 1):
        return None  # words ("Logged in"), unless digits or a symbol inside make them a password
    if _assigned(value) or value.endswith((".txt", ".json", ".pem", ".key", ".env")):
        return None
    return shift + match.start("secret"), shift + match.end("secret")


def find_printed_secrets(text: str, hits: Hits) -> Iterator[Span]:
    """Yield the line a secret-printing command printed after its prompt line (``$ cmd\\nvalue``).

    Only the lines that hold a hint of such a command are looked at.
    """
    line_starts = {text.rfind("\n", 0, at) + 1 for at in hits.starts(PRINTS_SECRET_HINTS)}
    for line_start in sorted(line_starts):
        match = _PROMPT_LINE.match(text, line_start)
        if match is not None and prints_secret(match.group("cmd")):
            found = printed_secret(text[match.end() : match.end() + 600], alone=False)
            if found is not None and text[match.end() + found[0] : match.end() + found[1]].count("$") == 0:
                yield match.end() + found[0], match.end() + found[1], "printed-secret"


_HEX_KEY = re.compile(r"(?<![0-9A-Za-z])0x(?P<hex>[0-9a-fA-F]{64})(?![0-9A-Za-z])")
_NEAREST_KEY = re.compile(r"(?P<key>[A-Za-z_][\w-]{1,60})[\"']?[ \t]*[:=][^:=\n]{0,300}$")
_SECRET_LIST = frozenset(
    {"accounts", "privatekeys", "private_keys", "signers", "wallets", "keys", "mnemonic"}
)
register("0x", "random_password")
_HASH_WORDS = re.compile(r"(?i)hash|tx|transaction|block|root|topic|address|salt|digest|commit|id$")


def find_context_secrets(text: str, hits: Hits) -> Iterator[Span]:
    """Yield generated values whose context says secret (``accounts: ["0x…"]``, ``random_password``)."""
    if "0x" in hits:
        for match in _HEX_KEY.finditer(text):
            before = text[max(0, match.start() - 300) : match.start()]
            key = _NEAREST_KEY.search(before)
            name = key.group("key") if key is not None else ""
            if _HASH_WORDS.search(name):
                continue
            if name.lower() in _SECRET_LIST or (name and classify_key(name) is not None):
                yield match.start("hex") - 2, match.end("hex"), "private-key"
    if "random_password" in hits and "result" in hits.lowered:
        for match in re.finditer(r"\"result\"[ \t]*:[ \t]*\"(?P<secret>(?:[^\"\\\n]|\\.){1,300})\"", text):
            yield match.start("secret"), match.end("secret"), "terraform-secret"


# After a value: a shell continuation ("\\" newline) or a string concatenation ("..." + "...").
_CONTINUED = re.compile(r"\\\r?\n[ \t]*(?P<more>[A-Za-z0-9+/=_.~-]{4,500})")
_CONCATENATED = re.compile(
    r"(?P<close>[\"'])[ \t]*(?:\\|\+|\.|&|\|\|)?[ \t]*\r?\n[ \t]*(?:[+.&][ \t]*)?(?P=close)"
    r"(?P<more>[^\"'\n]{1,500})(?P=close)"
)
_GLUE = re.compile(r"[.!~:](?P<more>[A-Za-z0-9_-]{2,500})")
_GLUE_BEFORE = re.compile(r"(?P<more>[A-Za-z0-9_-]{2,200})[.!~:]$")
_EXTENSION = re.compile(r"[A-Za-z]{1,5}")


def extend_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Return the span grown to the value's real end: continued lines, glued generated pieces."""
    for _ in range(64):
        grown = _grow_once(text, start, end)
        if grown == (start, end):
            break
        start, end = grown
    return start, end


def _grow_once(text: str, start: int, end: int) -> tuple[int, int]:
    nxt = text[end : end + 1]
    if text[end - 1 : end] == "\\" and nxt in ("\r", "\n"):
        end, nxt = end - 1, "\\"  # the value took the continuation's backslash
    if nxt == "\\":
        match = _CONTINUED.match(text, end)
        if match is not None:
            return start, match.end("more")
    if nxt in ('"', "'"):
        match = _CONCATENATED.match(text, end)
        if match is not None:
            return start, match.end("more")
    if nxt in ".!~:":
        match = _GLUE.match(text, end)
        if match is not None and _generated_piece(match.group("more"), nxt):
            return start, match.end("more")
    if start and text[start - 1] in ".!~:":
        match = _GLUE_BEFORE.search(text, max(0, start - 201), start)
        if (
            match is not None
            and match.end() == start
            and _generated_piece(match.group("more"), text[start - 1])
            and (match.start() == 0 or not text[match.start() - 1].isalnum())
        ):
            return match.start(), end
    return start, end


def _generated_piece(piece: str, sep: str) -> bool:
    """Tell a generated piece glued to a token (``!AQ8…``, ``.9f3c…``) from a word or an extension."""
    if sep == ":" and piece.isdigit():
        return False  # a port
    if sep == "!":
        return len(piece) >= 8 and any(c.isdigit() for c in piece)  # never a word's separator
    if _EXTENSION.fullmatch(piece) or reads_as_words(piece):
        return False
    if piece.isdigit():
        return len(piece) >= 6
    return (is_hex(piece) and len(piece) >= 8) or looks_random_value(piece, 8)
