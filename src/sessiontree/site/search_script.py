"""The index page's script for full-text search over the site's Pagefind bundle."""

from __future__ import annotations

import json
import re

from sessiontree.errors import SessiontreeError
from sessiontree.exporter.templating import read_asset

_BUNDLE = re.compile(r"pagefind-[0-9a-f]{1,64}")


def search_script(bundle: str) -> str:
    """Return ``templates/site_search.js`` pointed at the bundle folder ``bundle``."""
    if not _BUNDLE.fullmatch(bundle):
        raise SessiontreeError(f"Bad search bundle name {bundle!r}")
    return read_asset("site_search.js").replace("__BUNDLE__", json.dumps(bundle))
