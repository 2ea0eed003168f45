"""Secrets in cookies: a ``Cookie:`` / ``Set-Cookie:`` header, ``curl --cookie``, a cookie jar.

A cookie's value is masked when its name says session, auth, token, secret, sid or csrf, whatever
the site calls it (``PHPSESSID``, ``connect.sid``, ``__Host-auth``, ``ledger_sess``,
``ASP.NET_SessionId``): the names are read by their words, not looked up in a list. The other
cookies (``theme=dark``) and a ``Set-Cookie``'s attributes (``Path``, ``Expires``) are kept. A
Netscape ``cookies.txt`` line (seven tab-separated fields) is read the same way; a JSON cookie
export is a name/value object, which ``slots.py`` reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sessiontree.share.keyvalue import classify_key
from sessiontree.share.scan import Hits, register
from sessiontree.share.slots import is_password

Span = tuple[int, int, str]

# From a hit of "cookie": the header (any case, quoted as in a JSON or HAR dump, after curl's
# "< ") or curl's --cookie, then the rest of the line: "name=value" pairs separated by ";".
_COOKIE_AT = re.compile(
    r"cookie(?:[\"']?[ \t]*:|(?<=--cookie)(?:[ \t]+|=))[ \t]*[\"']?(?P<pairs>[^\n\r]{1,4000})", re.IGNORECASE
)
_CURL_B_AT = re.compile(r"-b(?:[ \t]+|=)[ \t]*[\"']?(?P<pairs>[^\n\r]{1,4000})")
_PAIR = re.compile(r"(?P<name>[^\s=;,\"']{1,100})[ \t]*=[ \t]*(?P<value>[^;\s\"',]{1,1000})")
# A cookie jar's line: domain, subdomains flag, path, secure flag, expiry, name, value.
_JAR_LINE = re.compile(
    r"(?:#HttpOnly_)?[^\s#][^\t\n]{0,253}\t(?i:TRUE|FALSE)\t[^\t\n]{1,500}\t(?i:TRUE|FALSE)\t-?[0-9]{1,20}"
    r"\t(?P<name>[^\t\n]{1,200})\t(?P<value>[^\t\n\r]{1,4000})"
)
_MAX_JAR_LINE = 1000
# The words of a session's or a credential's cookie name: any of them inside a word of the name.
_SESSION_WORD = re.compile(
    r"(?i)sess|csrf|xsrf|auth|token|secret|jwt|login|remember|(?:^|[^a-z])s?sid(?![a-z])"
)
COOKIE_HINTS = register("cookie", "-b ", "-b=", "\ttrue\t", "\tfalse\t")
_JAR_HINTS = ("\ttrue\t", "\tfalse\t")


def secret_cookie_name(name: str) -> bool:
    """Tell whether a cookie's name says it holds a session, a credential or a CSRF token."""
    if _SESSION_WORD.search(name) is not None:
        return "author" not in name.lower()
    return classify_key(name) is not None


def _secret_value(value: str) -> bool:
    value = value.strip()
    if len(value) < 6 or not is_password(value) or value.lower() in ("deleted", "null", "undefined"):
        return False
    return not (value.isalpha() and value.islower()) and not (value.isdigit() and len(value) < 10)


def _glued(text: str, at: int) -> bool:
    """Tell whether a name found at ``at`` is the end of a longer one (``my-cookie:``, ``ab-b``)."""
    return at > 0 and (text[at - 1].isalnum() or text[at - 1] in "_-")


def _cookie_lines(text: str, hits: Hits) -> Iterator[tuple[int, str]]:
    for at in hits.at("cookie"):
        match = _COOKIE_AT.match(text, at)
        if match is None:
            continue
        start = at - 4 if text[max(0, at - 4) : at].lower() == "set-" else at
        if text[at - 2 : at] == "--" or not _glued(text, start):
            yield match.start("pairs"), match.group("pairs")
    for at in (*hits.at("-b "), *hits.at("-b=")):
        match = _CURL_B_AT.match(text, at)
        if match is not None and not _glued(text, at):
            yield match.start("pairs"), match.group("pairs")


def find_cookie_secrets(text: str, hits: Hits) -> Iterator[Span]:
    """Yield the values of the cookies whose names say session, auth, token, secret, sid or csrf.

    Each header or option is read from its hit in the one scan (called when one of ``COOKIE_HINTS``
    is in the text).
    """
    for base, pairs in _cookie_lines(text, hits):
        for pair in _PAIR.finditer(pairs):
            if secret_cookie_name(pair.group("name")) and _secret_value(pair.group("value")):
                yield base + pair.start("value"), base + pair.end("value"), "cookie-secret"
    heads = {
        text.rfind("\n", max(0, at - _MAX_JAR_LINE), at) + 1 for hint in _JAR_HINTS for at in hits.at(hint)
    }
    for head in sorted(heads):
        match = _JAR_LINE.match(text, head)
        if (
            match is not None
            and secret_cookie_name(match.group("name"))
            and _secret_value(match.group("value"))
        ):
            yield match.start("value"), match.end("value"), "cookie-secret"
