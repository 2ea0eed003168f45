"""Secrets by their slot in a syntax, whatever the vendor: the place says "password", not the shape.

A password is the argument a tool's usage names a password (``smbclient -U user%pw``,
``htpasswd -b file user pw``, ``7z -ppw``, ``ldapsearch -w pw``, ``echo pw | sudo -S``), the
content of an XML element or attribute under a secret's name, a Groovy property, an ipsec
``: PSK "…"``, the second argument of a credential call (``Credential("user", "pw")``), a
column of a SQL ``INSERT`` or ``IDENTIFIED BY``, the password of a DSN without a scheme
(``user:pw@tcp(host)``), or what prose says it is ("the default password is 'x'").

Every regex starts at a literal (a keyword, a tool name, a marker), so it runs in linear time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from sessiontree.share.entropy import looks_random_value, reads_as_words
from sessiontree.share.keyvalue import classify_key
from sessiontree.share.placeholders import PATH, URL, is_placeholder
from sessiontree.share.scan import Hits, index_hints, register

Span = tuple[int, int, str]

_ARG = r"(?P<q>[\"']?)(?P<secret>[^\s\"'`|;&<>]{3,300})"
_QUOTED = r"(?P<q>[\"'])(?P<secret>[^\"'\n]{1,300})(?P=q)"


def is_password(value: str) -> bool:
    """Tell whether a value in a password's slot may be a real one (not a variable, path or example)."""
    value = value.strip()
    if len(value) < 3 or is_placeholder(value) or PATH.match(value) or URL.match(value):
        return False
    return not value.startswith(("-", "$", "%", "{{"))


def _not_word(value: str) -> bool:
    """Tell a password from a plain word of prose (``stored``, ``required``)."""
    if not is_password(value):
        return False
    return not (value.isalpha() and (value.islower() or reads_as_words(value)))


# Tools that take a password as an argument, by flag or by position (from their usage text).
# Each starts at its tool's literal name, so the scan jumps from one occurrence to the next.
_CLI: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (hint, re.compile(pattern + _ARG))
    for hint, pattern in (
        # smbclient, rpcclient, net, smbmap: -U user%password
        ("-u", r"-U(?<![\w-]-U)[ \t]+[\"']?[^\s%\"']{1,100}%"),
        # 7z, rar: -p<password> glued
        ("7z", r"7z[ar]?\b[^\n|;&]{0,200}?[ \t]-p(?=[^\s-])"),
        ("rar", r"rar\b[^\n|;&]{0,200}?[ \t]-p(?=[^\s-])"),
        # ldap tools: -w password
        ("ldap", r"ldap[a-z]*\b[^\n|;&]{0,300}?[ \t]-w[ \t]+"),
        # zip, sqlcmd, bcp, ipmitool, osql, isql: -P password
        ("zip", r"zip\b[^\n|;&]{0,300}?[ \t]-P[ \t]*"),
        ("sql", r"(?<![\w-])(?:sqlcmd|osql|isql)\b[^\n|;&]{0,300}?[ \t]-P[ \t]*"),
        ("bcp", r"bcp\b[^\n|;&]{0,300}?[ \t]-P[ \t]*"),
        ("ipmitool", r"ipmitool\b[^\n|;&]{0,300}?[ \t]-P[ \t]*"),
        # mongo shells and tools: -p password
        ("mongo", r"mongo(?:sh|dump|restore|export|import)?\b[^\n|;&]{0,300}?[ \t]-p[ \t]+"),
        # openssl -passin pass:...
        ("pass:", r"pass:(?<![\w-]pass:)"),
        # composer config http-basic.host user password
        ("http-basic", r"http-basic\.[^\s]+[ \t]+[^\s]+[ \t]+"),
        # gh secret set NAME --body value
        ("secret", r"secrets?[ \t]+set\b[^\n|;&]{0,200}?(?:--body|-b)(?:[ \t]+|=)"),
        # rabbitmqctl add_user / change_password user password; net user name password
        ("rabbitmqctl", r"rabbitmqctl[ \t]+(?:add_user|change_password)[ \t]+[^\s]+[ \t]+"),
        ("net ", r"net(?<![\w-]net)[ \t]+user[ \t]+[^\s/]+[ \t]+"),
        # mysqladmin ... password NEW
        ("mysqladmin", r"mysqladmin\b[^\n|;&]{0,200}?[ \t]password[ \t]+"),
    )
)
# A value piped into a command that reads a password from stdin.
_PIPED = re.compile(
    r"(?:echo|printf)[ \t]+(?:-[neE]+[ \t]+)?" + _ARG + r"(?P=q)[ \t]*\|[ \t]*(?:sudo\b[^\n|]{0,80}?[ \t]-S"
    r"|[^\n|]{0,200}?(?:--password-stdin|--stdin|chpasswd|passwd))"
)
# A value sent into any program's input: piped from echo or printf, a here-string, a one-line
# here-document, an expect script's answer to a password prompt. Any program may read a password
# so: the value must be one (no word, no variable, letters and digits mixed).
_PIPED_ANY = re.compile(
    r"(?:echo|printf)[ \t]+(?:-[neE]+[ \t]+)?" + _ARG + r"(?P=q)[ \t]*\|[ \t]*[A-Za-z_./-]"
)
_HERE_STRING = re.compile(r"<<<[ \t]*" + _ARG + r"(?P=q)[ \t]*(?:$|[\n;|&)])")
_HERE_DOC = re.compile(
    r"<<-?[ \t]*[\"']?(?P<tag>[A-Z_]{2,20})[\"']?[^\n]*\n"
    r"[ \t]*(?P<secret>[^\s]{3,300})[ \t]*\n[ \t]*(?P=tag)\b"
)
_EXPECT = re.compile(
    r"(?i:expect)[ \t]+[\"'][^\"'\n]{0,40}(?i:pass|pin|secret|token)[^\"'\n]{0,40}[\"'][ \t]*\r?\n[ \t]*"
    r"send[ \t]+(?:--[ \t]+)?[\"'](?P<secret>[^\"'\n\\]{3,300})"
)
# PowerShell: the plain text a secure string is made from.
_SECURE_STRING = re.compile(r"(?i:convertto-securestring)[ \t]+(?:-string[ \t]+)?" + _QUOTED)
# A bare "password" word then a value in a command (nmcli ... password X, net use ... /user:u X).
_WORD_THEN_VALUE = re.compile(
    r"(?:(?<=[ \t])(?:password|passwd|psk)[ \t]+|/user:[^\s]+[ \t]+|(?<=[ \t])-u[ \t]+[^\s,]{1,60},)" + _ARG
)
# A name/value object in a list (HTTP archives, Kubernetes env, API clients, tag lists): the
# value is the secret of the name ({"name": "X-Auth-Token", "value": "..."}, - name: DB_PASS).
_NAME_VALUE = re.compile(
    r"[\"']?(?:name|key|Name|Key|NAME|KEY)[\"']?[ \t]*[:=][ \t]*[\"']?(?P<key>[A-Za-z_][\w.-]{0,80})[\"']?"
    r"[ \t]*(?:,[ \t]*|\r?\n[ \t]*)[\"']?(?:value|Value|VALUE)[\"']?[ \t]*[:=][ \t]*"
    r"(?P<q>[\"']?)(?P<secret>[^\"'\n,}]{1,300})"
)
# Key material in JSON: a JSON Web Key's private members, a Tink keyset's secret key data.
_JWK_PRIVATE = re.compile(r"\"(?:d|k|p|q|dp|dq|qi)\"[ \t]*:[ \t]*\"(?P<secret>[A-Za-z0-9_-]{16,})\"")
_TINK_KEY = re.compile(
    r"\"value\"[ \t]*:[ \t]*\"(?P<secret>[A-Za-z0-9+/=_-]{16,})\"[ \t]*,[ \t]*"
    r"\"keyMaterialType\"[ \t]*:[ \t]*\"(?:SYMMETRIC|ASYMMETRIC_PRIVATE)\""
)
# htpasswd -b[flags] file user password, or -nb user password.
_HTPASSWD = re.compile(r"htpasswd(?P<flags>(?:[ \t]+-[a-zA-Z]+)+)(?P<args>(?:[ \t]+[^\s-][^\s|;&]*){2,3})")


# A name holding a secret's word (the lookahead that keeps a scan from judging every tag or line).
_NAMES_SECRET = r"(?i:pass|secret|token|key|cred|pwd|auth)"
# XML: <password>pw</password>, <add key="ApiSecret" value="..."/>, <property name="x" value="..."/>.
_XML_ELEMENT = re.compile(
    r"<(?=[\w:.-]{0,60}?" + _NAMES_SECRET + r")(?P<tag>[A-Za-z_][\w:.-]{0,60})(?:[ \t][^<>\n]{0,200})?>"
    r"(?P<secret>[^<>\n]{1,300})</(?P=tag)>"
)
_XML_PAIR = re.compile(
    r"(?:key|name|id)[ \t]*=[ \t]*\"(?P<key>[^\"\n]{1,80})\"[ \t]+(?:[\w:-]+=\"[^\"\n]{0,80}\"[ \t]+)?"
    r"value[ \t]*=[ \t]*\"(?P<secret>[^\"\n]{1,300})\""
)
# Groovy/Gradle and other "name value" properties: storePassword "pw", password 'pw'.
# Found from the key's secret word in the lowercased text, then matched from the key's start.
_GROOVY_HIT = re.compile(r"(?:pass|secret|token|key|cred|pwd)[\w.]{0,60}[ \t]+[\"']")
_GROOVY = re.compile(r"(?m)(?P<key>[A-Za-z_][\w.]{0,60})[ \t]+" + _QUOTED + r"[ \t]*(?:[;}]|$)")
# ipsec.secrets and the like: ": PSK "secret"", "%any : XAUTH pw".
_IPSEC = re.compile(
    r":[ \t]*(?:PSK|XAUTH|EAP|NTLM|PIN|RSA[ \t]+[^\s]+)[ \t]+(?:" + _QUOTED + r"|(?P<bare>[^\s\"']{3,300}))"
)
# A credential call's password argument: Credential("user", "pw"), HTTPBasicAuth('u', 'pw').
_CALL = re.compile(
    r"(?i:cred|auth|login|passw|basic|sign_?in|digest)\w{0,40}\([ \t]*"
    r"(?P<uq>[\"'])[^\"'\n]{0,100}(?P=uq)[ \t]*,[ \t]*" + _QUOTED
)
_AUTH_TUPLE = re.compile(
    r"auth[ \t]*=[ \t]*[(\[][ \t]*(?P<uq>[\"'])[^\"'\n]{0,100}(?P=uq)[ \t]*,[ \t]*" + _QUOTED
)
# SQL: CREATE/ALTER USER ... IDENTIFIED BY 'pw', WITH [ENCRYPTED] PASSWORD 'pw'.
_SQL_PASSWORD = re.compile(
    r"(?i:identified[ \t]+(?:with[ \t]+\w+[ \t]+)?by|(?<![\w-])password)[ \t]+" + _QUOTED
)
_SQL_INSERT = re.compile(
    r"(?i:insert[ \t]+into)[ \t]+[\w.\"`\[\]]{1,100}[ \t]*\((?P<cols>[^()\n]{1,500})\)[ \t\n]*"
    r"(?i:values)[ \t\n]*\((?P<vals>[^()\n]{1,2000})\)"
)
_SQL_VALUE = re.compile(r"[ \t]*(?:'(?P<s>(?:[^'\n]|'')*)'|\"(?P<d>[^\"\n]*)\"|(?P<b>[^,\n]*))[ \t]*(?:,|$)")
# A DSN without a scheme: user:pw@tcp(host:3306)/db, user:pw@host:5432/db.
_DSN = re.compile(
    r"(?<![\w/:.@%+-])[\w.%+-]{1,64}:(?P<secret>[^\s:@/\"'<>]{3,200})@(?=(?:tcp|udp|unix)\(|[\w.-]{1,253}:[0-9]{2,5}(?![0-9]))"
)
# Prose: "the default password is 'x'", "password was hunter2", "the API key: X".
_PROSE = re.compile(
    r"(?i:pass(?:word|phrase|wd)?|secret|api[ \t]key|token|pin|passcode)"
    r"(?:[ \t]+(?:for|of)[ \t]+[^\s]{1,40})?"
    r"[ \t]+(?i:is|was|will[ \t]be|becomes|set[ \t]to|changed[ \t]to|reset[ \t]to)[ \t]+(?i:now[ \t]+)?"
    r"(?:(?P<q>[\"'`\u2018\u201c])(?P<qv>[^\"'`\u2019\u201d\n]{3,200})[\"'`\u2019\u201d]|(?P<bv>[^\s\"'`]{4,200}))"
)


Found = tuple[int, int] | None


def _secret(match: re.Match[str], group: str = "secret") -> tuple[int, int]:
    return match.start(group), match.end(group)


# The same, lowercase only: run over the lowercased text (its alternation of literals is found
# faster than a case-blind one), each hit matched again on the text itself.
_PROSE_LOWER = re.compile(_PROSE.pattern.replace("(?i:", "(?:"))
_DSN_HOST = re.compile(r"@(?:tcp|udp|unix)\(|@[\w.-]{1,253}:[0-9]{2,5}")


def _cli(match: re.Match[str]) -> Found:
    return _secret(match) if is_password(match.group("secret")) else None


_CALLEE = re.compile(r"[A-Za-z_][\w.]{0,60}$")
_CALLEE_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")
_CREDENTIAL_CALLS = frozenset(
    {"credential", "credentials", "cred", "creds", "password", "passwd", "login", "signin", "auth"}
    | {"basic", "digest", "authenticate", "authentication"}
)


def _call(match: re.Match[str]) -> Found:
    """Accept the second argument of a call named for a credential (``HTTPBasicAuth``)."""
    head = match.string[max(0, match.start() - 60) : match.string.index("(", match.start())]
    callee = _CALLEE.search(head)
    words = {w.lower() for w in _CALLEE_WORDS.findall(callee.group() if callee else "")}
    if not words & _CREDENTIAL_CALLS:
        return None
    return _cli(match)


def _xml_element(match: re.Match[str]) -> Found:
    tag = match.group("tag").rsplit(":", 1)[-1]
    return _secret(match) if slot_value(tag, match.group("secret")) else None


def _xml_pair(match: re.Match[str]) -> Found:
    return _secret(match) if slot_value(match.group("key"), match.group("secret")) else None


def slot_value(key: str, value: str) -> bool:
    """Tell whether a value under a key is that key's secret (any password; a generated token)."""
    key_class = classify_key(key)
    if key_class is None:
        return False
    if key_class == "token":
        return is_password(value) and looks_random_value(value)
    return is_password(value)


def _groovy(match: re.Match[str]) -> Found:
    key = match.group("key").rsplit(".", 1)[-1]
    return _secret(match) if slot_value(key, match.group("secret")) else None


def _ipsec(match: re.Match[str]) -> Found:
    group = "secret" if match.group("secret") is not None else "bare"
    return _secret(match, group) if is_password(match.group(group)) else None


def _secret_of(match: re.Match[str]) -> Found:
    return _secret(match)


def _sent(match: re.Match[str]) -> Found:
    value = match.group("secret")
    # Any program may read it: only a value that looks generated (not "v1.2.3", "hello").
    return _secret(match) if _not_word(value) and looks_random_value(value) else None


def _word_then_value(match: re.Match[str]) -> Found:
    value = match.group("secret")
    if not _not_word(value) or not any(c.isdigit() for c in value) or value.startswith("/"):
        return None
    return _secret(match)


def _prose(match: re.Match[str]) -> Found:
    if match.group("qv") is not None:
        value = match.group("qv")
        return _secret(match, "qv") if is_password(value) and " " not in value.strip() else None
    value = match.group("bv").rstrip(".,;:!?)")
    if any(c in value for c in "()[]{}") or (
        _DOTTED.fullmatch(value) and reads_as_words(value.replace(".", ""))
    ):
        return None  # code: process.argv[2], settings.SECRET_KEY
    if not _not_word(value) or not (any(c.isdigit() for c in value) or not value.isalnum()):
        return None
    return match.start("bv"), match.start("bv") + len(value)


def _htpasswd(match: re.Match[str]) -> Found:
    flags = match.group("flags")
    if "b" not in flags:
        return None
    args = list(re.finditer(r"[^\s]+", match.group("args")))
    index = 1 if "n" in flags else 2
    if index >= len(args) or not is_password(args[index].group()):
        return None
    start = match.start("args") + args[index].start()
    return start, start + len(args[index].group())


_DOTTED = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+")


Finder = tuple[tuple[str, ...], re.Pattern[str], Callable[[re.Match[str]], Found], str]
_CALL_HINTS = ("cred", "auth", "login", "passw", "basic", "signin", "sign_in", "digest")
_FINDERS: tuple[Finder, ...] = (
    *(((hint,), regex, _cli, "cli-password") for hint, regex in _CLI),
    (("echo", "printf"), _PIPED, _cli, "cli-password"),
    (("value",), _NAME_VALUE, _xml_pair, "name-value-secret"),
    (('"kty"',), _JWK_PRIVATE, _secret_of, "private-key"),
    (("keymaterialtype",), _TINK_KEY, _secret_of, "private-key"),
    (("echo", "printf"), _PIPED_ANY, _sent, "sent-secret"),
    (("<<<",), _HERE_STRING, _sent, "sent-secret"),
    (("<<",), _HERE_DOC, _sent, "sent-secret"),
    (("expect",), _EXPECT, _sent, "sent-secret"),
    (("convertto-securestring",), _SECURE_STRING, _cli, "cli-password"),
    (("password", "passwd", "psk", "/user:", "-u "), _WORD_THEN_VALUE, _word_then_value, "cli-password"),
    (("</",), _XML_ELEMENT, _xml_element, "xml-secret"),
    (('value="', "value =", "value= "), _XML_PAIR, _xml_pair, "xml-secret"),
    (("htpasswd",), _HTPASSWD, _htpasswd, "cli-password"),
    ((": psk", ":psk", ": xauth", ": eap", ": ntlm", ": pin", ": rsa"), _IPSEC, _ipsec, "ipsec-secret"),
    (_CALL_HINTS, _CALL, _call, "call-password"),
    (("auth=", "auth ="), _AUTH_TUPLE, _cli, "call-password"),
    (("identified", "password '", 'password "'), _SQL_PASSWORD, _cli, "sql-password"),
)  # fmt: skip
# Where a prose secret may start (what _PROSE's first group matches), and its verbs.
_PROSE_STARTS = register("pass", "secret", "api key", "api\tkey", "token", "pin")
# Its verbs: only whether one is there matters (a plain "in" test, not the scan's many hits).
_PROSE_VERBS = (" is ", " was ", " be ", " to ", " becomes ")
_GROOVY_HINTS = register("pass", "secret", "token", "key", "cred", "pwd")
_FINDERS_BY_HINT = index_hints(register(*hints) for hints, _, _, _ in _FINDERS)
register("insert", "values")


def find_slot_secrets(text: str, hits: Hits) -> Iterator[Span]:
    """Yield values standing in a password's slot of a command, a config language, a call or prose."""
    lowered = hits.lowered
    for i in hits.chosen(_FINDERS_BY_HINT):
        _, regex, accept, kind = _FINDERS[i]
        yield from _found(regex, text, accept, kind)
    if hits.any(_GROOVY_HINTS):
        yield from _properties(text, hits)
    if "@" in text and _DSN_HOST.search(text):
        yield from _found(_DSN, text, _cli, "dsn-password")
    if any(verb in lowered for verb in _PROSE_VERBS):
        done = -1
        for start in hits.starts(_PROSE_STARTS):  # _PROSE from each place it may start
            hit = _PROSE_LOWER.match(lowered, start) if start >= done else None
            match = _PROSE.match(text, start) if hit is not None else None
            found = _prose(match) if match is not None else None
            if match is not None:
                done = match.end()
            if found is not None:
                yield found[0], found[1], "prose-password"
    if "insert" in hits and "values" in hits:
        yield from _sql_inserts(text)


_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.")


def _properties(text: str, hits: Hits) -> Iterator[Span]:
    """Yield ``name "value"`` properties (Groovy, Gradle) whose name holds a secret's word."""
    done = -1
    last_hit = -1
    for at in hits.starts(_GROOVY_HINTS):
        hit = _GROOVY_HIT.match(hits.lowered, at) if at >= last_hit else None
        if hit is None:
            continue
        last_hit = hit.end()
        start = hit.start()
        while start > 0 and text[start - 1] in _KEY_CHARS and hit.start() - start < 60:
            start -= 1
        if start <= done:
            continue
        before = text[text.rfind("\n", 0, start) + 1 : start].strip(" \t")
        if before not in ("", "{", ";") and not before.endswith(("{", ";")):
            continue
        match = _GROOVY.match(text, start)
        found = _groovy(match) if match is not None else None
        if found is not None:
            done = found[1]
            yield found[0], found[1], "property-secret"


def _found(
    regex: re.Pattern[str], text: str, accept: Callable[[re.Match[str]], Found], kind: str
) -> Iterator[Span]:
    for match in regex.finditer(text):
        found = accept(match)
        if found is not None:
            yield found[0], found[1], kind


def _sql_inserts(text: str) -> Iterator[Span]:
    for match in _SQL_INSERT.finditer(text):
        columns = [c.strip(' \t"`[]') for c in match.group("cols").split(",")]
        secret_columns = {i for i, c in enumerate(columns) if classify_key(c) is not None}
        if not secret_columns:
            continue
        pos, end = match.start("vals"), match.end("vals")
        for i in range(len(columns)):
            value = _SQL_VALUE.match(text, pos, end)
            if value is None or value.end() == pos:
                break
            name = next(g for g in ("s", "d", "b") if value.group(g) is not None)
            if i in secret_columns and is_password(value.group(name)):
                yield value.start(name), value.end(name), "sql-password"
            pos = value.end()
