"""The ASGI app of ``sessiontree serve``: routes behind the Host/token guard, a watcher in its lifespan."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.middleware import Middleware

from sessiontree.serve.config import ServeConfig
from sessiontree.serve.routes import routes
from sessiontree.serve.security import GuardMiddleware
from sessiontree.serve.state import ServeState
from sessiontree.serve.urls import Urls


def create_app(config: ServeConfig) -> Starlette:
    """Build the app over the config's folders (the watcher starts with the app's lifespan)."""

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
    state = ServeState(config, Urls(app.router))
    app.state.serve = state
    return app
