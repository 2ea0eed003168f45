"""The models sessions used, from serve's usage store (``archive.usage_db``): queries over its
indexes whose cost follows what they answer, not the number of stored sessions.

- ``model_names``: every model counted, a skip over the index of rows by model (one seek per
  model): 5 models at 100,000 sessions is 6 seeks, where a dict of every session's models was
  made before (3.1 s and +65 MiB on a settled server's first choices).
- ``model_sessions``: the sessions that used a model, from the same index (the pane's model filter).
- ``session_models``: the models of a few sessions, found by their ids (a pane window's 100 rows
  looked up by the key's index; a pass over every message and row before: 435 ms at 100,000).

A model counts for a session when one of its messages of that model is not a copy counted in an
earlier file (``_LATER``, ``usage_db``'s rule for totals).
"""

from __future__ import annotations

import io
import json
import sqlite3
from collections.abc import Sequence

from sessiontree.store.surrogates import shown_name

MODEL_INDEX = "CREATE INDEX IF NOT EXISTS rows_model ON rows(model);\n"
"""The rows by model (and session, the rows' key): ``model_names`` and ``model_sessions``."""

LATER = """
WITH dups AS (SELECT ckey FROM dup_keys),
later AS (
    SELECT m.session, m.row, count(*) AS n, sum(m.input) AS i, sum(m.output) AS o,
        sum(m.cache_read) AS r, sum(m.cache_write) AS w, total(m.cost) AS c, count(m.cost) AS cc,
        sum(m.estimated) AS e, sum(m.unpriced) AS u
    FROM {source} JOIN sessions s ON s.id = m.session
    WHERE {where} AND EXISTS (
        SELECT 1 FROM messages m2 JOIN sessions s2 ON s2.id = m2.session
        WHERE m2.ckey = m.ckey
        AND (s2.modified, s2.key, s2.root, m2.row, m2.seq) < (s.modified, s.key, s.root, m.row, m.seq)
    )
    GROUP BY m.session, m.row
)
"""
"""Per row, its messages counted in an earlier file (or earlier in this one): what it leaves out.
``source``: every session's (``ALL``: only the messages whose copy key is held twice are looked at,
0.68 -> 0.27 s at 18,000 sessions; those keys kept in ``dup_keys`` as rows are written, not found by
a pass over every message: 0.49 s at 21,000 sessions) or a few sessions' (``SOME``, with ``where``
naming their ids: a pane's rows)."""
# CROSS JOIN: the keys held twice first (a plain JOIN let SQLite scan every message instead).
ALL = "dups d CROSS JOIN messages m ON m.ckey = d.ckey"
SOME = "messages m"
_MODELS = """
SELECT s.root, s.key, r.model, r.messages - coalesce(l.n, 0)
FROM sessions s JOIN rows r ON r.session = s.id
LEFT JOIN later l ON l.session = r.session AND l.row = r.seq
WHERE {where}
"""
_BY_SESSION = """
SELECT s.root, s.key, r.model, sum(r.messages - coalesce(l.n, 0))
FROM sessions s JOIN rows r ON r.session = s.id
LEFT JOIN later l ON l.session = r.session AND l.row = r.seq
GROUP BY s.root, s.key, r.model ORDER BY s.root, s.key
"""
_NAMES = """
WITH RECURSIVE names(model) AS (
    SELECT (SELECT min(model) FROM rows WHERE model > x'')
    UNION ALL
    SELECT (SELECT min(model) FROM rows WHERE model > names.model) FROM names WHERE names.model IS NOT NULL
)
SELECT model FROM names WHERE model IS NOT NULL
"""
# The sessions with rows of the model, less those whose messages of it were all counted earlier
# (copies): the copies looked at are only those whose key is held twice (``dup_keys``), taken first
# (CROSS JOIN: SQLite put every row of the model first, then every held key for each).
_SESSIONS = """
WITH own AS (SELECT session, sum(messages) AS n FROM rows WHERE model = ?1 GROUP BY session),
copied AS (
    SELECT m.session, count(*) AS n
    FROM dup_keys d CROSS JOIN messages m ON m.ckey = d.ckey
    CROSS JOIN rows r ON r.session = m.session AND r.seq = m.row
    CROSS JOIN sessions s ON s.id = m.session
    WHERE r.model = ?1 AND EXISTS (
        SELECT 1 FROM messages m2 JOIN sessions s2 ON s2.id = m2.session
        WHERE m2.ckey = m.ckey
        AND (s2.modified, s2.key, s2.root, m2.row, m2.seq) < (s.modified, s.key, s.root, m.row, m.seq)
    )
    GROUP BY m.session
)
SELECT s.root, s.key FROM own JOIN sessions s ON s.id = own.session
LEFT JOIN copied c ON c.session = own.session
WHERE own.n > coalesce(c.n, 0)
"""


def _dec(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


def model_names(conn: sqlite3.Connection) -> list[str]:
    """Every model of the stored rows, sorted (a row's messages are its model's: a copy has its
    original's model, so each model here is counted in some session)."""
    return sorted(_dec(model) for (model,) in conn.execute(_NAMES))


def model_sessions(conn: sqlite3.Connection, model: str) -> list[tuple[int, str]]:
    """The stored sessions (root, key) that used ``model``."""
    found = conn.execute(_SESSIONS, (model.encode("utf-8", "surrogatepass"),))
    return [(root, _dec(key)) for root, key in found]


def session_models(
    conn: sqlite3.Connection, keys: Sequence[tuple[int, str]] | None
) -> dict[tuple[int, str], list[str]]:
    """The models of these sessions (root, key), or of every stored one, most messages first (its
    messages counted once, as in ``usage_db.records``)."""
    if keys is None:
        sql, args = LATER.format(source=ALL, where="1") + _MODELS.format(where="1"), []
    else:
        ids = [
            found[0]
            for root, key in keys
            if (
                found := conn.execute(
                    "SELECT id FROM sessions WHERE root = ? AND key = ?",
                    (root, key.encode("utf-8", "surrogatepass")),
                ).fetchone()
            )
            is not None
        ]
        if not ids:
            return {}
        listed = ", ".join("?" * len(ids))
        later = LATER.format(source=SOME, where=f"m.session IN ({listed})")
        sql, args = later + _MODELS.format(where=f"r.session IN ({listed})"), ids * 2
    counts: dict[tuple[int, str], dict[str, int]] = {}
    for root, key, model, messages in conn.execute(sql, args):
        if messages > 0 and model:
            per = counts.setdefault((root, _dec(key)), {})
            per[_dec(model)] = per.get(_dec(model), 0) + messages
    return {at: sorted(per, key=lambda m: (-per[m], m)) for at, per in counts.items()}


def models_json(conn: sqlite3.Connection, labels: Sequence[str]) -> bytes:
    """``{"models": {key: [model, ...]}}`` of every stored session (``labels``: each root's, the
    keys' prefixes), written as the query gives one session after another: no dict of every
    session's models (+80 MiB at 100,000 sessions before). Of a key stored under two roots of one
    label, the first root's (as ``session_models`` of every one has it)."""
    prefixes = [f"{label}/" if label else "" for label in labels]
    shared = {n for n, label in enumerate(labels) if labels.count(label) > 1}
    seen: set[str] = set()
    out = io.StringIO()
    out.write('{"models":{')
    first = True

    def write(root: int, key: bytes, per: dict[str, int]) -> None:
        nonlocal first
        shown = shown_name(prefixes[root] + _dec(key))
        if root in shared:
            if shown in seen:
                return
            seen.add(shown)
        if not first:
            out.write(",")
        first = False
        models = sorted(per, key=lambda m: (-per[m], m))
        out.write(json.dumps(shown, ensure_ascii=False) + ":" + json.dumps(models, ensure_ascii=False))

    at: tuple[int, bytes] | None = None
    per: dict[str, int] = {}
    for root, key, model, messages in conn.execute(LATER.format(source=ALL, where="1") + _BY_SESSION):
        if (root, key) != at:
            if at is not None and per:
                write(*at, per)
            at, per = (root, key), {}
        if messages > 0 and model:
            per[_dec(model)] = messages
    if at is not None and per:
        write(*at, per)
    out.write("}}")
    return out.getvalue().encode("utf-8", "surrogatepass")
