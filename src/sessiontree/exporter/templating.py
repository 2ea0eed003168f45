"""The one Jinja environment of the exporter: autoescaped, compiled once, reused by every render."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, lru_cache
from pathlib import Path
from typing import cast

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template
from markupsafe import Markup

from sessiontree.store.titles import cut_title

TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "templates"


@lru_cache(maxsize=1)
def jinja_env() -> Environment:
    """Return the shared environment (autoescape on; templates compiled once per process)."""
    env = Environment(
        loader=FileSystemLoader(TEMPLATES_DIR),
        autoescape=True,
        auto_reload=False,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=StrictUndefined,
    )
    env.filters["cut_title"] = cut_title  # titles shown cut at a word boundary, whole on hover
    env.filters["compact_count"] = compact_count
    return env


def compact_count(n: int) -> str:
    """A token count as a reader takes it in at a glance: 950, 68.2k, 1.4M."""
    if n < 1000:
        return str(n)
    if n < 999_950:
        return f"{n / 1000:.1f}k".replace(".0k", "k")
    return f"{n / 1_000_000:.1f}M".replace(".0M", "M")


@cache
def get_template(name: str) -> Template:
    """Return a compiled template by name."""
    return jinja_env().get_template(name)


@cache
def read_asset(name: str) -> str:
    """Read a file from ``templates/`` (viewer.css, viewer/*.js) as text, once per process.

    Package data does not change while we run; a render then touches no file (as the templates,
    loaded once with ``auto_reload=False``).
    """
    return (TEMPLATES_DIR / name).read_text(encoding="utf-8")


class MacroSet:
    """Typed access to the macros of one template: ``MacroSet("macros.html.j2").entry(...)``."""

    def __init__(self, template_name: str) -> None:
        self._template_name = template_name

    def __getattr__(self, name: str) -> Callable[..., Markup]:
        macro = cast("Callable[..., Markup]", getattr(get_template(self._template_name).module, name))
        # Keep it on the instance: later look-ups skip __getattr__ (macros are called per entry).
        setattr(self, name, macro)
        return macro
