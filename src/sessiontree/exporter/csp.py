"""The one Content-Security-Policy builder and hash of every page (a session's, the index, usage)."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence


def csp_hash(text: str) -> str:
    """The CSP source value (``sha256-...``) of an inline script's or style's exact text."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def build_csp(
    directives: Mapping[str, Sequence[str]], more: Mapping[str, Sequence[str]] | None = None
) -> str:
    """A policy that loads nothing from the network: ``default-src 'none'``, the page's own
    ``directives``, the sources ``more`` adds (an added source replaces a lone ``'none'``), and
    no ``<base>`` or form target.
    """
    policy: dict[str, list[str]] = {"default-src": ["'none'"]}
    policy.update((name, list(sources)) for name, sources in directives.items())
    for name, added in (more or {}).items():
        if not added:
            continue
        known = policy.setdefault(name, [])
        if known == ["'none'"]:
            known.clear()  # 'none' stands alone
        known.extend(s for s in added if s not in known)
    policy["base-uri"] = ["'none'"]
    policy["form-action"] = ["'none'"]
    return "; ".join(f"{name} {' '.join(sources)}" for name, sources in policy.items())
