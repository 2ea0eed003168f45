"""``/api/sessions/window``: the window of the sessions pane a page shows, filtered and counted by
the server from the listing's pane index (``pages.pane_window``, made once per listing version).
"""

from __future__ import annotations

from typing import Any

import anyio
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from sessiontree.pages.pane_window import MAX_WINDOW, ModelLists, PaneIndex, PaneQuery
from sessiontree.pages.sessions_data import DATA_VERSION, pane_order, session_record
from sessiontree.serve.listing import ListingView
from sessiontree.store.discovery import SessionInfo

NO_STORE = {"Cache-Control": "no-store"}
MAX_TEXT = 4096
MAX_MS = 2**53
MAX_OFFSET = 10_000_000


def _number(params: QueryParams, name: str, low: int, high: int) -> int | None:
    text = params.get(name)
    if text is None or text == "":
        return None
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{name} must be a whole number") from None  # the 400's one line
    if not low <= value <= high:
        raise ValueError(f"{name} must be from {low} to {high}")
    return value


def _text(params: QueryParams, name: str) -> str:
    text = params.get(name, "")
    if len(text) > MAX_TEXT:
        raise ValueError(f"{name} is longer than {MAX_TEXT} characters")
    return text


def read_query(params: QueryParams) -> PaneQuery:
    """The pane's query from a request's parameters (``ValueError`` when one cannot be read)."""
    limit = _number(params, "limit", 1, MAX_WINDOW)
    return PaneQuery(
        project=_text(params, "project") or None,
        of=_text(params, "of") or None,
        agent=_text(params, "agent"),
        model=_text(params, "model"),
        since=_number(params, "since", 0, MAX_MS),
        until=_number(params, "until", 0, MAX_MS),
        offset=_number(params, "offset", 0, MAX_OFFSET) or 0,
        limit=100 if limit is None else limit,
        around=_text(params, "around") or None,
        mark=_number(params, "mark", 0, MAX_MS),
    )


def _models(index: PaneIndex, state: Any) -> ModelLists:
    """The model filter's lists of this listing version and usage store generation, each made when
    first asked (the usage rows are written as files are read, after they are listed)."""
    tag, keys = state.listing.usage_generation(), state.listing.model_keys
    return lambda project, agent, model: index.model_positions(tag, model, project, agent, keys)


def _index(entries: list[SessionInfo]) -> PaneIndex:
    return PaneIndex(pane_order(entries))


def _answer(view: ListingView, state: Any, query: PaneQuery, choices: bool) -> bytes:
    index = view.made("pane index", _index)
    found = index.window(query, _models(index, state) if query.model else None)
    shown_models = state.listing.session_models([e.key for e in found.sessions]) or {}
    rows = [session_record(e, state.urls.session(e.key), shown_models.get(e.key, ())) for e in found.sessions]
    data: dict[str, Any] = {
        "v": DATA_VERSION,
        "state": view.state,
        "all": len(index.ordered),
        "total": found.total,
        "offset": found.offset,
        "at": found.at,
        "fresh": found.fresh,
        "sessions": rows,
    }
    if choices:
        data["choices"] = {
            "projects": index.projects,
            "agents": index.agents,
            "models": state.listing.model_names() or [],
        }
    return bytes(JSONResponse(data).body)


async def sessions_window_api(request: Request) -> Response:
    """``/api/sessions/window``: the sessions a filter keeps (``project`` or ``of`` a session's,
    ``agent``, ``model``, last activity ``since``/``until`` in epoch ms), newest activity first,
    counted (``total``), a window of ``limit`` from ``offset`` or ``around`` a session (``at``: where
    it is), how many changed after ``mark`` (``fresh``), the filters' ``choices`` when asked."""
    try:
        query = read_query(request.query_params)
    except ValueError as exc:
        return JSONResponse({"error": str(exc)}, status_code=400, headers=NO_STORE)
    state = request.app.state.serve
    view = await state.listing.view()
    choices = request.query_params.get("choices") == "1"
    body = await anyio.to_thread.run_sync(_answer, view, state, query, choices)
    return Response(body, media_type="application/json", headers=NO_STORE)
