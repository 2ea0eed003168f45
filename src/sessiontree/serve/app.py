"""The ASGI app of ``sessiontree serve``: routes behind the Host/token guard, a watcher in its lifespan."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware

from sessiontree.serve.routes import routes
from sessiontree.serve.security import GuardMiddleware
from sessiontree.serve.state import ServeConfig, ServeState
from sessiontree.store.paths import default_agent_dir


def blob_dirs(root: Path, agent_dir: Path | None) -> tuple[Path, ...]:
    """Blob stores a served folder's images come from: the agent's, the folder's agent dir's, its own."""
    candidates = [(agent_dir or default_agent_dir()) / "blobs"]
    if root.name == "sessions":
        candidates.append(root.parent / "blobs")
    candidates.append(root / "blobs")
    unique: list[Path] = []
    for path in candidates:
        if path not in unique:
            unique.append(path)
    return tuple(unique)


def create_app(config: ServeConfig) -> Starlette:
    """Build the app for one served folder (the watcher starts with the app's lifespan)."""
    root = config.root.expanduser().resolve()
    more = tuple(r.expanduser().resolve() for r in config.more_roots)
    blobs = config.blob_dirs or blob_dirs(root, config.agent_dir)
    config = replace(config, root=root, more_roots=more, blob_dirs=blobs)
    state = ServeState(config)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await state.start()
        try:
            yield
        finally:
            await state.stop()

    app = Starlette(
        routes=routes(),
        middleware=[Middleware(GuardMiddleware, bound_host=config.host, token=config.token)],
        lifespan=lifespan,
    )
    app.state.serve = state
    return app
