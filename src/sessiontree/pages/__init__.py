"""The many-session pages (the index of sessions folders, the usage page) on one page shell.

Serve and build make them through here; ``exporter`` makes the page of one session. Each page
inlines the one palette (``templates/palette.css``) before its own stylesheet and gets its
policy from the exporter's one CSP builder (``exporter.csp``).
"""
