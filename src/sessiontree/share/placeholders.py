"""Values that stand in for a secret: placeholders, variables, masks, documentation examples, paths."""

from __future__ import annotations

import re

# Values that people write in docs and examples instead of a real secret.
_PLACEHOLDER = re.compile(
    r"""^(?:
        \[REDACTED[^\]]*\] | \[[A-Za-z_ -]*\] |   # already masked, [MASK]
        <[^>]*> | \{\{.*\}\} | \$\{[^}]*\}? | \$\(.*\)? |
        (?-i:\$[A-Z_][A-Z0-9_]* | \$[a-z_][a-z0-9_]*) |   # shell variables: one case, not a random mix
        %[A-Za-z_]+% | \$\$ | \$ |
        [.*xX•…#?-]+ |                            # ***, xxxx, ..., ---
        (?:your|example|sample|dummy|fake|placeholder|insert|enter|replace|put|add|my)(?:[-_.][a-z0-9]+)* |
        [a-z]+[-_]here |
        change[-_]?me(?:[-_.][a-z0-9]+)* |
        redacted | secret | secrets | password | passwd | pass | token | none | null |
        nil | true | false | yes | no | on | off | undefined | string | str | int | bool | bytes | any |
        optional | required | value | default | empty | todo | tbd | hidden | masked | set |
        .*(?:\.\.\.|…).* |                        # sk-..., abc…
        .*(?-i:EXAMPLE|XXXX|xxxx).*               # AKIAIOSFODNN7EXAMPLE, sk-live-XXXX
    )$""",
    re.IGNORECASE | re.VERBOSE,
)
PATH = re.compile(
    r"^(?:~|\.{1,2})?/[^\s]*$|^[A-Za-z]:\\|^file:|^[\w.-]+\.(?:json|pem|key|txt|ya?ml|env|p12|crt)$"
)
RESOURCE = re.compile(r"^[a-z0-9][a-z0-9._-]*(?:/[a-z0-9._-]+){2,}$")
URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)
NUMBER = re.compile(r"^[+-]?[0-9][0-9_.,:]*[kKmMgG]?$")


# The payload of jwt.io's example token, in most JWT documentation ("John Doe", sub 1234567890).
DOCUMENTED_JWT_PAYLOAD = "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"


def is_placeholder(value: str) -> bool:
    """Tell whether a value is an example, a variable, a type name or a mask rather than a secret."""
    return not value or bool(_PLACEHOLDER.match(value)) or DOCUMENTED_JWT_PAYLOAD in value


def not_placeholder(value: str) -> bool:
    """Tell whether a value may be a real secret (the opposite of ``is_placeholder``)."""
    return not is_placeholder(value)
