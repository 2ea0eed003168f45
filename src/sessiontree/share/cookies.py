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

# The header (any case, quoted as in a JSON or HAR dump, after curl's "< ") or curl's option,
# then the rest of the line: "name=value" pairs separated by ";".
_COOKIE_LINE = re.compile(
    r"(?i:(?<![\w-])(?:set-)?cookie[\"']?[ \t]*:|(?<![\w-])(?:--cookie|-b)(?:[ \t]+|=))[ \t]*[\"']?"
    r"(?P<pairs>[^\n\r]{1,4000})"
)
_PAIR = re.compile(r"(?P<name>[^\s=;,\"']{1,100})[ \t]*=[ \t]*(?P<value>[^;\s\"',]{1,1000})")
# A cookie jar's line: domain, subdomains flag, path, secure flag, expiry, name, value.
_JAR_LINE = re.compile(
    r"(?m)^(?:#HttpOnly_)?[^\s#][^\t\n]{0,253}\t(?i:TRUE|FALSE)\t[^\t\n]{1,500}\t(?i:TRUE|FALSE)\t-?[0-9]{1,20}"
    r"\t(?P<name>[^\t\n]{1,200})\t(?P<value>[^\t\n\r]{1,4000})"
)
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


def find_cookie_secrets(text: str, hits: Hits) -> Iterator[Span]:
    """Yield the values of the cookies whose names say session, auth, token, secret, sid or csrf.

    Only called when one of ``COOKIE_HINTS`` is in the text.
    """
    if "cookie" in hits or "-b " in hits or "-b=" in hits:
        for line in _COOKIE_LINE.finditer(text):
            base = line.start("pairs")
            for pair in _PAIR.finditer(line.group("pairs")):
                if secret_cookie_name(pair.group("name")) and _secret_value(pair.group("value")):
                    yield base + pair.start("value"), base + pair.end("value"), "cookie-secret"
    if hits.any(_JAR_HINTS):
        for match in _JAR_LINE.finditer(text):
            if secret_cookie_name(match.group("name")) and _secret_value(match.group("value")):
                yield match.start("value"), match.end("value"), "cookie-secret"
