"""The local live web server (``sessiontree serve``): app, routes, live updates over SSE."""
