"""The pages' script for full-text search over the site's Pagefind bundles and their router."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

from sessiontree.errors import SessiontreeError
from sessiontree.exporter.templating import read_asset
from sessiontree.site.search_router import LIST_NAMES, bundles_digest

_BUNDLE = re.compile(r"pagefind-[0-9a-f]{1,64}")


def search_script(bundles: Sequence[str], routes: Mapping[str, object] | None = None) -> str:
    """Return ``templates/site_search.js`` over the bundle folders ``bundles`` (merged in the page):
    their count, the first one's name and the digest of their list (``search_router``), not the list;
    and the list's ``routes`` (``search_router.read_routes``: the shards' names), so that a query's
    shard is asked for at once, with Pagefind's module (None: the page fetches them first)."""
    for bundle in bundles:
        if not _BUNDLE.fullmatch(bundle):
            raise SessiontreeError(f"Bad search bundle name {bundle!r}")
    script = read_asset("site_search.js").replace("__BUNDLES__", json.dumps(len(bundles)))
    script = script.replace("__FIRST__", json.dumps(bundles[0] if bundles else ""))
    script = script.replace("__LIST_NAMES__", json.dumps(LIST_NAMES))
    script = script.replace("__ROUTES__", json.dumps(routes, separators=(",", ":")))
    return script.replace("__ROUTER__", json.dumps(bundles_digest(bundles)))
