"""The static site builder: a sessions folder as index pages plus one page per session."""

from __future__ import annotations

from sessiontree.site.build import BuildOptions, BuildResult, build_site

__all__ = ["BuildOptions", "BuildResult", "build_site"]
