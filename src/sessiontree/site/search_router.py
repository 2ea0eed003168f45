"""Which search bundles can hold a word: the small router the search reads before Pagefind.

Every bundle the page merges costs Pagefind two requests and an instance in its worker, so a
search that merged them all grew with the archive (10,000 sessions, 1,250 bundles: 11.8 s until
a rare word's hits). Each bundle keeps the three-character prefixes of its words (``KEYS_FILE``,
part of the bundle); the build gathers them by their first two characters into shards
``search-router/<xy>-<hash of its content>.json`` (``{"keys": {"xyz": [bundle numbers]}, "names":
{"xyz": [bundle names, for a key of at most NAMED bundles]}, "meta": {name: its metadata's hash}}``)
and the page merges only the bundles its words can be in. A named bundle's metadata file (whose
name is in its entry file, kept in its keys file as ``meta=<hash>``) is named too: the page asks
for a rare word's entry and metadata files of every bundle at once, not one after the other. A
shard past ``SPLIT_BYTES`` (its keys in many bundles: it grows with the archive) is ``{"split":
{"xyz": <hash>}}``, each of its keys in ``search-router/<xyz>-<hash>.json`` of the shards' form: a
rare word's router files stay of its few bundles whatever the archive's size.

Pagefind matches a query word's stem as the prefix of an indexed word, so a bundle's prefixes
are kept generously: of every alphanumeric run, of each whitespace word with its punctuation
removed, of camelCase parts, diacritics folded, and the stemmer's changes of a third letter
(``variants``). The page loads every bundle for a word it cannot key (see site_search.js).

The pages carry no list of the bundles (12,000 names at 100,000 sessions): only the router's
digest, their count and the first one's name. The list is in ``search-router/list-<digest>-<n>.json``
files of ``LIST_NAMES`` names each, fetched for the numbers a query's shards name (every one for a
word the router cannot key), and ``list-<digest>-routes.json`` names its shards (``{"v": <digest>,
"always": [numbers of bundles without keys], "shards": {"xy": <hash>}, "meta0": the first bundle's
metadata hash}``): the pages carry what it says (``read_routes``: at most 1,296 names, whatever the
archive's size) and ask for a query's shard in their first round trip, with Pagefind's module and
the first bundle's files, which Pagefind runs on (a page without them reads the file first; a
shard it does not name holds no key), so a page never reads a shard of another list. A shard is
named by its content and numbers bundles in the router's order (by their first session: the build's
``router_order``), not by name, so one new session changes the shards of its batch's words only and
the others are not written again (at 10,000 sessions every shard was rewritten whenever the list
changed: 139 renames and 154 fsyncs). A build removes another list's files and the shards its own
routes do not name once its pages are in place (``remove_old_lists``), so a page of the build
before still finds its own, and a killed build leaves the last complete router.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sessiontree.site.layout import write_atomic

__all__ = [
    "KEYS_FILE",
    "LIST_NAMES",
    "ROUTER_DIR",
    "SPLIT_BYTES",
    "bundles_digest",
    "entry_meta",
    "keys_file",
    "read_routes",
    "remove_old_lists",
    "router_written",
    "word_keys",
    "write_router",
]

KEYS_FILE = "sessiontree-keys.txt"
ROUTER_DIR = "search-router"
LIST_NAMES = 1000
"""Bundle names per file of the list (about 19 kB)."""
NAMED = 8
"""A key held by at most this many bundles names them in its shard (``names``), not by number."""
SPLIT_BYTES = 4096
"""A shard past this size (its two letters' keys are in many bundles: 40 kB for "de" at 10,000
sessions, growing with the archive) is written as one file per key, which it names: a rare word's
key then costs a file of at most ``NAMED`` bundles' names, not every bundle of its two letters."""
_LIST = "list-{}-{}.json"
_ROUTES = "list-{}-routes.json"
"""The list's shards by their content's hash, and its bundles without keys (read by the page first)."""
_SHARD = "{}-{}.json"
_SHARD_HASH = 12
_KEY_HASH = re.compile(r"[a-z0-9]{2}[0-9a-f]{1,64}")
_META = "meta="
_META_NAME = re.compile(r"[a-z0-9_-]{1,80}")
_WRITERS = 8
_RUN_START = re.compile(r"(?<![a-z0-9])[a-z0-9]{3}")
_GLUE = re.compile(r"[^\w\s]|_")
_CAMEL = re.compile(r"[A-Z][a-z]{2}|(?<=[0-9])[a-z]{3}|(?<=[a-z])[0-9]{3}")
_VARIANTS = {"dyi": "die", "lyi": "lie", "tyi": "tie", "ski": "sky", "sky": "ski"}
"""The English stemmer's changes of a word's first three letters (dying -> die, skies -> sky)."""


def variants(key: str) -> tuple[str, ...]:
    """``key`` and what the stemmer may make of it (a final y becomes i: cry -> cri)."""
    extra = _VARIANTS.get(key)
    if key.endswith("y"):
        return (key, key[:2] + "i") + ((extra,) if extra else ())
    return (key, extra) if extra else (key,)


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def word_keys(text: str, into: set[str]) -> None:
    """Add to ``into`` the prefix keys of every word of ``text``."""
    if not text.isascii():
        text = text + " " + _fold(text)
    low = text.lower()
    found = set(_RUN_START.findall(low))
    found.update(_RUN_START.findall(_GLUE.sub("", low)))
    found.update(k.lower() for k in _CAMEL.findall(text))
    for key in found:
        into.update(variants(key))


def keys_file(keys: Iterable[str], meta: str = "") -> bytes:
    """The bytes of a bundle's ``KEYS_FILE``: its keys, after the name of its metadata file's
    language hash (``meta=en_<hash>``, what its ``pagefind-entry.json`` says) when known."""
    head = [f"{_META}{meta}"] if _META_NAME.fullmatch(meta) else []
    return "\n".join(head + sorted(keys)).encode("ascii")


def entry_meta(entry: bytes) -> str:
    """The hash naming the metadata file (``pagefind.<hash>.pf_meta``) Pagefind loads for an
    English page from a bundle's ``pagefind-entry.json`` (its language's, else the largest's, as
    Pagefind's own choice), or "" if it does not say."""
    try:
        languages = json.loads(entry)["languages"]
        chosen = languages.get("en") or max(languages.values(), key=lambda lang: lang.get("page_count", 0))
        meta = chosen["hash"]
    except (ValueError, KeyError, TypeError, AttributeError):
        return ""
    return meta if isinstance(meta, str) and _META_NAME.fullmatch(meta) else ""


def bundles_digest(bundles: Sequence[str]) -> str:
    """Names the bundle list a router was written for (the page and its router must agree)."""
    return hashlib.sha256("\n".join(bundles).encode("ascii")).hexdigest()[:16]


def _read_keys(site: Path, bundle: str) -> tuple[list[str], str] | None:
    """A bundle's keys and its metadata's hash ("" for a bundle written before it was kept)."""
    try:
        words = (site / bundle / KEYS_FILE).read_text(encoding="ascii").split()
    except (OSError, UnicodeDecodeError):
        return None
    if words and words[0].startswith(_META):
        return words[1:], words[0].removeprefix(_META)
    return words, ""


def write_router(site: Path, bundles: Sequence[str]) -> None:
    """Write ``search-router/`` for ``bundles`` (in the router's order, the one ``order`` gives):
    the shards whose content is new, then the list's route file, then its list files (last:
    ``router_written``). A shard already on disk under its content's name is not written again."""
    shards: dict[str, dict[str, list[int]]] = {}
    always: list[int] = []
    metas: dict[int, str] = {}
    for number, bundle in enumerate(bundles):
        read = _read_keys(site, bundle)
        if read is None:
            always.append(number)
            continue
        keys, metas[number] = read
        for key in keys:
            shards.setdefault(key[:2], {}).setdefault(key, []).append(number)
    folder = site / ROUTER_DIR
    digest = bundles_digest(bundles)
    files: dict[str, bytes] = {}
    routes: dict[str, str] = {}
    for name, table in sorted(shards.items()):
        # A rare key's few bundles by name: its search fetches no list file (one round trip less).
        named = {
            k: [bundles[i].removeprefix("pagefind-") for i in v] for k, v in table.items() if len(v) <= NAMED
        }
        keyed = {k: v for k, v in table.items() if len(v) > NAMED}
        # ...and the name of each one's metadata file: the page asks for it with the bundle's entry.
        meta = {
            bundles[i].removeprefix("pagefind-"): metas[i]
            for v in table.values()
            if len(v) <= NAMED
            for i in v
            if metas.get(i)
        }
        data = _json({"keys": keyed, "names": named, "meta": meta})
        if len(data) > SPLIT_BYTES:  # a shard of one file per key, named by the shard
            data = _json({"split": _split(table, bundles, metas, files)})
        routes[name] = hashlib.sha256(data).hexdigest()[:_SHARD_HASH]
        files[_SHARD.format(name, routes[name])] = data
    folder.mkdir(parents=True, exist_ok=True)
    # Named by content, a shard on disk is the one this list needs (written whole, or not at all):
    # after one new session, only the shards of the words its batch gained or lost are new.
    _write_all(folder, {n: d for n, d in files.items() if not (folder / n).is_file()})
    # ...and the first bundle's metadata file: the search page asks for it at once (Pagefind runs on it).
    first = {"meta0": metas[0]} if metas.get(0) else {}
    _write_all(
        folder, {_ROUTES.format(digest): _json({"v": digest, "always": always, "shards": routes, **first})}
    )
    lists: dict[str, bytes] = {}
    for n, at in enumerate(range(0, len(bundles), LIST_NAMES)):
        names = [b.removeprefix("pagefind-") for b in bundles[at : at + LIST_NAMES]]
        lists[_LIST.format(digest, n)] = _json({"v": digest, "names": names})
    _write_all(folder, lists)  # last: router_written


def _split(
    table: Mapping[str, list[int]], bundles: Sequence[str], metas: Mapping[int, str], files: dict[str, bytes]
) -> dict[str, str]:
    """Put each key of ``table`` in a file of its own (into ``files``); return their hashes by key."""
    hashes: dict[str, str] = {}
    for key, numbers in sorted(table.items()):
        if len(numbers) > NAMED:
            data = _json({"keys": {key: numbers}, "names": {}, "meta": {}})
        else:
            names = [bundles[i].removeprefix("pagefind-") for i in numbers]
            meta = {bundles[i].removeprefix("pagefind-"): metas[i] for i in numbers if metas.get(i)}
            data = _json({"keys": {}, "names": {key: names}, "meta": meta})
        hashes[key] = hashlib.sha256(data).hexdigest()[:_SHARD_HASH]
        files[_SHARD.format(key, hashes[key])] = data
    return hashes


def _json(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("ascii")


def _write_all(folder: Path, files: Mapping[str, bytes]) -> None:
    """Write each of ``files`` (name -> bytes) atomically, several at once: each waits on its own
    fsync, which lets the others run (134 shards at 10,000 sessions, one after another: most of
    the router's 0.4-0.7 s at load 3-6)."""

    def write(name: str) -> None:
        write_atomic(folder / name, files[name])

    with ThreadPoolExecutor(max_workers=_WRITERS, thread_name_prefix="router") as pool:
        list(pool.map(write, files))


def router_written(site: Path, bundles: Sequence[str]) -> bool:
    """Whether the router of ``bundles`` is in place (its list's first file says so: written last)."""
    last, digest = max(0, len(bundles) - 1) // LIST_NAMES, bundles_digest(bundles)
    # ...and its routes (a router of an earlier sessiontree, with shards of another form, has none).
    folder = site / ROUTER_DIR
    return (folder / _LIST.format(digest, last)).is_file() and (folder / _ROUTES.format(digest)).is_file()


def read_routes(site: Path, bundles: Sequence[str]) -> dict[str, object] | None:
    """The routes of the list of ``bundles`` as its pages carry them (``{"always": [...], "shards":
    {"xy": hash}, "meta0": the first bundle's metadata hash}``: at most 36 x 36 shards, about 19
    bytes each, whatever the archive's size), or None when its routes file is missing or of another
    form (the page then fetches it)."""
    digest = bundles_digest(bundles)
    try:
        routes = json.loads((site / ROUTER_DIR / _ROUTES.format(digest)).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(routes, dict) or routes.get("v") != digest:
        return None
    shards, always = routes.get("shards"), routes.get("always")
    if not isinstance(shards, dict) or not isinstance(always, list):
        return None
    if not all(
        isinstance(k, str) and isinstance(h, str) and _KEY_HASH.fullmatch(k + h) for k, h in shards.items()
    ):
        return None
    meta0 = routes.get("meta0")
    first = {"meta0": meta0} if isinstance(meta0, str) and _META_NAME.fullmatch(meta0) else {}
    return {"always": [n for n in always if isinstance(n, int)], "shards": shards, **first}


def remove_old_lists(site: Path, bundles: Sequence[str]) -> None:
    """Delete the bundle lists of other builds and the shards this one's routes do not name (once
    the pages naming this one are in place: a page loaded before still found its own until now)."""
    digest = bundles_digest(bundles)
    folder = site / ROUTER_DIR
    for path in folder.glob(_LIST.format("*", "*")):
        if not path.name.startswith(f"list-{digest}-"):
            path.unlink(missing_ok=True)
    try:
        routes = json.loads((folder / _ROUTES.format(digest)).read_bytes())["shards"]
    except (OSError, ValueError, KeyError, TypeError):
        return  # no routes of this list: nothing tells which shards it needs
    keep = {_SHARD.format(name, h) for name, h in routes.items()}
    for name in list(keep):  # ...and the key files of a split shard
        try:
            split = json.loads((folder / name).read_bytes()).get("split") or {}
        except (OSError, ValueError, AttributeError):
            continue
        keep.update(_SHARD.format(key, h) for key, h in split.items() if isinstance(h, str))
    for path in folder.glob("??*.json"):
        if not path.name.startswith("list-") and path.name not in keep:
            path.unlink(missing_ok=True)
