"""Debian's Chromium as every browser test launches it (Playwright's own browsers cannot be fetched here)."""

from __future__ import annotations

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    # Without these Chromium keeps trying hosts this closed network refuses.
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
