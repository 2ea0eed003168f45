"""Command line entry point: ``sessiontree`` and ``python -m sessiontree``."""

from __future__ import annotations

import sys

from sessiontree.cli.base import cli

# The reference agent's flag forms, rewritten to subcommands before click parses them.
LEGACY_FLAGS = {"--export": "export"}


def rewrite_legacy_args(argv: list[str]) -> list[str]:
    """Turn ``--export FILE [OUT]`` into ``export FILE [OUT]`` (the reference's form)."""
    for i, arg in enumerate(argv):
        if arg in LEGACY_FLAGS:
            return [*argv[:i], LEGACY_FLAGS[arg], *argv[i + 1 :]]
        if not arg.startswith("-"):
            break
    return argv


def main(argv: list[str] | None = None) -> None:
    """Run the CLI."""
    args = rewrite_legacy_args(list(sys.argv[1:] if argv is None else argv))
    cli.main(args=args, prog_name="sessiontree")


__all__ = ["cli", "main", "rewrite_legacy_args"]
