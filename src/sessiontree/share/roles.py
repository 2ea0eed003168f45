# ruff: noqa: E501  (a table of finders and their regexes: one a line reads better than wrapped)
"""Credentials by the role they play, in any tool's or language's spelling (issue 53).

A value is a password by what it is given to: a command's short password flag (``-P``, ``-w``,
``-k``, ``-N``, ``/rp``), a ``user,password`` or ``user:password`` joined to a user option, the
input of a command that reads a password (a pipe, a repeated here-document), a protocol or REPL
line that logs in (``AUTH``, ``LOGIN``, ``PASS``, ``SET PASSWORD``), a daemon's directive in
``key value`` form (``requirepass``, ``masterauth``, ``community``, ``psk``), a ``{PLAIN}``
scheme, an answer file's ``<Value>`` under a password element, a cloud-init ``chpasswd`` list, a
kickstart ``rootpw``, a YAML anchor under a secret's key, a typed declaration
(``const DB_PASS: &str = "…"``), the last argument of a connect call, a ``set_password`` or
``setenv`` call, a GraphQL variable bound to a password argument, a ``Key  Value`` table row,
and both sides of a word diff under a secret's key. Then its shape decides: a value given to a
generic flag must look made for a password (letters of both cases and a digit or a symbol, no
path, host, address or identifier); one given to a place that only takes passwords need only
not be a placeholder, a variable or a plain word.

Every regex starts at a literal the one scan (``share.scan``) found, so it runs in linear time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from sessiontree.share.entropy import is_hex, is_uuid, looks_random_value, reads_as_words
from sessiontree.share.keyvalue import classify_key
from sessiontree.share.scan import Hits, index_hints, register
from sessiontree.share.slots import is_password, slot_value

Span = tuple[int, int, str]
Found = list[tuple[int, int]]

_VALUE = r"(?P<q>[\"']?)(?P<secret>[^\s\"'`|;&<>(){}]{3,200})(?P=q)"
_QUOTED = r"(?P<q>[\"'])(?P<secret>[^\"'\n]{1,300})(?P=q)"
_SYMBOLS = frozenset("!#$%&*+,-./:;=?@^_~")
_HOST = re.compile(r"^[a-z0-9-]+(?:\.[a-z0-9-]+)+$|^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][\w.-]{2,}=")
_VERSION = re.compile(r"^v?\d+(?:[._-]\d+)+[\w.-]*$")
_IDENTIFIER = re.compile(r"^(?:[A-Z]?[a-z]+)(?:[A-Z][a-z]+)+$|^[A-Z][A-Z0-9_]+$|^[a-z]+(?:_[a-z0-9]+)+$")
_AUTH_MECHANISMS = frozenset(
    {"LOGIN", "PLAIN", "CRAM-MD5", "DIGEST-MD5", "XOAUTH2", "OAUTHBEARER", "NTLM", "GSSAPI", "EXTERNAL"}
)


def plain_word(value: str) -> bool:
    """Tell a plain word or number from a password (``stored``, ``Restricted``, ``8080``)."""
    core = value.strip("\"'")
    return core.isdigit() or (core.isalpha() and (core.islower() or core.isupper() or reads_as_words(core)))


def taken_password(value: str) -> bool:
    """A value in a place that takes only a password: anything but a placeholder, a variable or a word."""
    return is_password(value) and not plain_word(value) and not value.startswith(("*", "&"))


def made_password(value: str) -> bool:
    """A value given to a flag that may take other things: it must look made for a password."""
    if not taken_password(value) or not 8 <= len(value) <= 128:
        return False
    if (
        "/" in value
        or "\\" in value
        or _ASSIGNMENT.match(value)
        or _HOST.match(value)
        or _VERSION.match(value)
    ):
        return False
    if is_uuid(value) or (is_hex(value) and len(value) in (32, 40, 64)):
        return False
    upper = any(c.isupper() for c in value)
    lower = any(c.islower() for c in value)
    digit = any(c.isdigit() for c in value)
    symbol = any(c in _SYMBOLS for c in value)
    if _IDENTIFIER.match(value) and not digit:
        return False
    classes = upper + lower + digit + symbol
    return (classes >= 3 and (upper or symbol)) or looks_random_value(value)


# -- the finders ----------------------------------------------------------------------------------
# Each regex is matched where the scan found its hint: at the hint (``at``), from the start of its
# line (``line``), anywhere in its line (``inline``), or from the start of the name it is part of
# (``word``): never over a whole long text from every position.

# A command's short password flag: ``-P pw``, ``-Ppw`` (P and p only), ``-k pw``, ``/rp pw``.
_SHORT_FLAG = re.compile(
    r"(?:-(?P<flag>[PpwkNAXsaKW])(?:[ \t]+|=)|-(?P<glued>[Pp])(?=[^\s-])|/(?i:rp|p|pw|pass)[ \t:]+)" + _VALUE
)
# A user option's ``user:password``, ``user,password`` or ``user%password``; a ``user=name,password`` mount option.
_JOINED = re.compile(
    r"(?:(?<=[ \t])-[a-zA-Z]*u[ \t]+|--user[ \t=]+|(?<=[ \t,])user=)[\"']?(?P<user>[\w.@\\-]{1,64})[:,%]"
    r"(?P<secret>[^\s\"',@]{3,200})"
)
# What is piped into a command that reads a password (the format of ``printf '%s\n'`` skipped).
_PIPED = re.compile(
    r"(?:echo|printf)[ \t]+(?:-[neE]+[ \t]+)?(?:'%s\\n'[ \t]+|\"%s\\n\"[ \t]+)?" + _VALUE + r"[ \t]*\|[ \t]*"
    r"(?P<reader>(?:sudo[ \t]+)?[\w./-]+)"
)
_READS_PASSWORD = re.compile(
    r"(?i)pass|pwd|crypt|luks|kinit|login|unlock|auth|key|vault|gpg|openssl|sudo|su$|htpasswd|smb"
)
# The same value twice (a password and its confirmation), into a command's input.
_TWICE = re.compile(
    r"\((?:echo|printf)[ \t]+"
    + _VALUE
    + r"[ \t]*;[ \t]*(?:echo|printf)[ \t]+(?P<q2>[\"']?)(?P=secret)(?P=q2)[ \t]*\)"
)
_HERE_TWICE = re.compile(
    r"<<-?[ \t]*[\"']?(?P<tag>[A-Za-z_]{2,20})[\"']?[^\n]*\n[ \t]*(?P<secret>[^\s]{3,200})[ \t]*\n"
    r"[ \t]*(?P=secret)[ \t]*\n[ \t]*(?P=tag)\b"
)
# Protocol and REPL lines that log in.
_AUTH_LINE = re.compile(
    r"(?:[\w.:\[\]-]{0,60}>[ \t]*)?(?i:auth)[ \t]+(?:(?P<user>[^\s]{1,64})[ \t]+)?(?P<secret>[^\s]{3,200})[ \t]*\r?(?:\n|$)"
)
_LOGIN_LINE = re.compile(
    r"[\w.*-]{1,12}[ \t]+(?i:login)[ \t]+\"?[^\s\"]{1,100}\"?[ \t]+(?P<q>\"?)(?P<secret>[^\s\"]{3,200})(?P=q)[ \t]*\r?(?:\n|$)"
)
_PASS_LINE = re.compile(r"(?:PASS|pass)[ \t]+(?P<secret>[^\s]{3,200})[ \t]*\r?(?:\n|$)")
_SET_PASSWORD = re.compile(r"(?i:set[ \t]+password)[^=\n]{0,160}=[ \t]*(?i:password\()?" + _QUOTED)
# A daemon's ``directive value`` (redis, snmpd, fetchmail, Cisco): the directive names a secret.
_DIRECTIVE = re.compile(
    r"[ \t]*(?:[\w-]{1,40}[ \t]+)?(?P<key>[\w-]{0,40}(?i:pass|auth|secret|psk|community|pwd)[\w-]{0,40})"
    r"[ \t]+" + _VALUE + r"(?=[ \t]*(?:\r?\n|$)|[ \t]+[^\s=])"
)
_SCHEME = re.compile(r"\{(?i:PLAIN|CLEARTEXT|CLEAR|PLAIN-TRUNC)\}(?P<secret>[^\s:]{3,200})")
_ANSWER_VALUE = re.compile(r"<(?i:value)>(?P<secret>[^<\n]{1,300})</")
_ANSWER_TAG = re.compile(r"<[\w:]{0,60}(?i:password|passwd|secret|pin)[\w:]{0,60}>\s{0,200}$")
_CHPASSWD = re.compile(r"(?i)chpasswd:[^\n]*\n(?:[ \t]+[^\n]*\n){0,4}?[ \t]+list:[ \t]*\|[^\n]*\n")
_LIST_LINE = re.compile(r"[ \t]+[\w.-]{1,32}:(?P<secret>[^\s:]{3,200})[ \t]*\n?")
_ROOTPW = re.compile(
    r"rootpw(?![^\n]*--iscrypted)(?:[ \t]+--(?:plaintext|allow-ssh))*[ \t]+(?P<secret>[^\s-][^\s]{2,200})"
)
_ANCHOR = re.compile(r"(?P<key>[\w.-]{1,60})[\"']?[ \t]*:[ \t]*&[\w-]{1,40}[ \t]+" + _VALUE)
# A typed declaration: ``const DB_PASS: &str = "…"``, ``val keystorePassword: String = "…"``.
_TYPED = re.compile(r"(?P<key>[A-Za-z_]\w{0,60})[ \t]*:[ \t]*&?[\w\[\]<>.'?]{1,40}[ \t]*=[ \t]*" + _QUOTED)
# The last of several string arguments of a connect or login call.
_CONNECT = re.compile(
    r"(?i:connect|dial|login|logon|signin|open_?session|bind)\w{0,20}\((?P<args>(?:[ \t]*(?:[\"'][^\"'\n]{0,200}[\"']|[\w.]{1,60})[ \t]*,){1,6})"
    r"[ \t]*" + _QUOTED + r"[ \t]*\)"
)
_SETTER = re.compile(
    r"(?i:set_?(?:password|passwd|pwd|secret|token|api_?key|credentials?|passphrase))[ \t]*\([ \t]*" + _QUOTED
)
_SETENV = re.compile(
    r"(?i:set_?env|putenv|setenvironmentvariable|env\.set)[ \t]*\([ \t]*(?P<kq>[\"'])(?P<key>[^\"'\n]{1,80})(?P=kq)"
    r"[ \t]*,[ \t]*" + _QUOTED
)
_GRAPHQL_ARG = re.compile(
    r"(?P<field>\w{0,40}(?i:pass|secret|token|pin|pwd)\w{0,40})[ \t]*:[ \t]*\$(?P<var>\w{1,40})"
)
_TABLE_ROW = re.compile(r"(?m)^(?P<key>[\w.-]{1,60})[ \t]{2,}(?P<secret>[^\s]{3,300})[ \t]*\r?$")
_WORD_DIFF = re.compile(
    r"(?P<key>[\w.-]{1,60})[\"']?[ \t]*[:=][ \t]*\[-(?P<old>[^\n]{1,200}?)-\]\{\+(?P<new>[^\n]{1,200}?)\+\}"
)


def _made(match: re.Match[str]) -> Found:
    at = match.start()
    if at and match.string[at - 1] not in " \t\n":
        return []  # inside a word or a path (``pre-set``, ``a/rp``)
    return [match.span("secret")] if made_password(match.group("secret")) else []


def _taken(match: re.Match[str]) -> Found:
    return [match.span("secret")] if taken_password(match.group("secret")) else []


def _piped(match: re.Match[str]) -> Found:
    reader = match.group("reader").rsplit("/", 1)[-1]
    if not _READS_PASSWORD.search(reader):
        return []
    return _taken(match)


def _auth_line(match: re.Match[str]) -> Found:
    value = match.group("secret")
    if value.upper() in _AUTH_MECHANISMS or (match.group("user") or "").upper() in _AUTH_MECHANISMS:
        return []
    return _taken(match)


def _directive(match: re.Match[str]) -> Found:
    key = match.group("key").lower()
    if key.startswith(("bypass", "passthrough", "passenger")) or key.endswith(
        ("type", "mode", "method", "file")
    ):
        return []
    return _taken(match)


def _answer_value(match: re.Match[str]) -> Found:
    before = match.string[max(0, match.start() - 260) : match.start()]
    return _taken(match) if _ANSWER_TAG.search(before) else []


def _keyed(match: re.Match[str]) -> Found:
    return [match.span("secret")] if slot_value(match.group("key"), match.group("secret")) else []


def _setenv(match: re.Match[str]) -> Found:
    if classify_key(match.group("key")) is None:
        return []
    return _taken(match)


def _connect(match: re.Match[str]) -> Found:
    return [match.span("secret")] if made_password(match.group("secret")) else []


def _chpasswd(match: re.Match[str]) -> Found:
    found: Found = []
    pos = match.end()
    while (line := _LIST_LINE.match(match.string, pos)) is not None:
        if taken_password(line.group("secret")) and line.group("secret").upper() not in ("R", "RANDOM"):
            found.append(line.span("secret"))
        pos = line.end()
    return found


def _word_diff(match: re.Match[str]) -> Found:
    if classify_key(match.group("key")) is None:
        return []
    return [match.span(side) for side in ("old", "new") if is_password(match.group(side).strip())]


def _table_row(match: re.Match[str]) -> Found:
    return _keyed(match) if classify_key(match.group("key")) == "password" else []


_SECRET_WORDS = ("pass", "secret", "token", "key", "cred", "pwd", "auth")
_SETTERS: tuple[str, ...] = ("set_pass", "setpass", "set_secret", "setsecret", "set_token", "settoken")
_SETTERS += ("setapikey", "set_api", "setcred", "set_cred", "set_pwd")
Finder = tuple[tuple[str, ...], str, str, re.Pattern[str], Callable[[re.Match[str]], Found], str]
# (hints, what the text must hold besides, anchor, regex, accept, kind)
_FINDERS: tuple[Finder, ...] = (
    (("-p", "-w", "-k", "-n", "-a", "-x", "-s", "/rp", "/p"), " ", "at", _SHORT_FLAG, _made, "cli-password"),
    (("-u", "-su", "--user", "user="), " ", "inline", _JOINED, _taken, "cli-password"),
    (("echo", "printf"), "|", "inline", _PIPED, _piped, "cli-password"),
    (("echo", "printf"), ";", "inline", _TWICE, _taken, "cli-password"),
    (("<<",), "\n", "at", _HERE_TWICE, _taken, "cli-password"),
    (("auth",), " ", "line", _AUTH_LINE, _auth_line, "protocol-password"),
    (("login",), " ", "line", _LOGIN_LINE, _taken, "protocol-password"),
    (("pass",), " ", "line", _PASS_LINE, _taken, "protocol-password"),
    (("set password",), "=", "at", _SET_PASSWORD, _taken, "sql-password"),
    (("pass", "auth", "secret", "psk", "community", "pwd"), " ", "line", _DIRECTIVE, _directive, "config-secret"),
    (("{plain}", "{cleartext}", "{clear}"), "}", "at", _SCHEME, _taken, "config-secret"),
    (("<value>",), "<", "at", _ANSWER_VALUE, _answer_value, "xml-secret"),
    (("chpasswd",), "|", "at", _CHPASSWD, _chpasswd, "config-secret"),
    (("rootpw",), " ", "at", _ROOTPW, _taken, "config-secret"),
    (_SECRET_WORDS, "&", "word", _ANCHOR, _keyed, "key-value"),
    (_SECRET_WORDS, "=", "word", _TYPED, _keyed, "code-secret"),
    (("connect", "dial", "login", "logon", "signin", "session", "bind"), ",", "at", _CONNECT, _connect, "call-password"),
    (_SETTERS, "(", "at", _SETTER, _taken, "call-password"),
    (("setenv", "set_env", "putenv", "setenvironmentvariable", "env.set"), ",", "at", _SETENV, _setenv, "call-password"),
    (("[-",), "{+", "inline", _WORD_DIFF, _word_diff, "key-value"),
)  # fmt: skip
_BY_HINT = index_hints(register(*hints) for hints, _, _, _, _, _ in _FINDERS)
register("variables", "value")
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def _starts(text: str, hits: Hits, hints: tuple[str, ...], anchor: str) -> list[int]:
    """Where a finder's regex is tried: each hint's place as the anchor says, each once."""
    places: set[int] = set()
    for at in hits.starts(hints):
        if anchor in ("line", "inline"):
            places.add(text.rfind("\n", 0, at) + 1)
        elif anchor == "word":
            start = at
            while start > 0 and text[start - 1] in _NAME_CHARS and at - start < 60:
                start -= 1
            places.add(start)
        else:
            places.add(at)
    return sorted(places)


def find_role_secrets(text: str, hits: Hits) -> Iterator[Span]:
    """Yield the values that play a credential's role in ``text`` (see the module's docstring)."""
    for i in hits.chosen(_BY_HINT):
        hints, needs, anchor, regex, accept, kind = _FINDERS[i]
        if needs not in text:
            continue
        for place in _starts(text, hits, hints, anchor):
            if anchor == "inline":
                end = text.find("\n", place)
                matches = list(regex.finditer(text, place, len(text) if end < 0 else end))
            else:
                found = regex.match(text, place)
                matches = [found] if found is not None else []
            for match in matches:
                for start, stop in accept(match):
                    yield start, stop, kind
    if "variables" in hits and "$" in text:
        yield from _graphql(text)
    if "\n" in text and "value" in hits and hits.any(("pass", "secret", "pwd")):
        for match in _TABLE_ROW.finditer(text):
            for start, stop in _table_row(match):
                yield start, stop, "table-secret"


def _graphql(text: str) -> Iterator[Span]:
    """A GraphQL variable bound to a password argument: its value in the request's ``variables``."""
    names = {m.group("var") for m in _GRAPHQL_ARG.finditer(text)}
    for name in names:
        bound = re.compile(r"[\"']" + re.escape(name) + r"[\"'][ \t]*:[ \t]*" + _QUOTED)
        for match in bound.finditer(text):
            if taken_password(match.group("secret")):
                yield match.start("secret"), match.end("secret"), "graphql-secret"
