from __future__ import annotations

from click.testing import CliRunner

from sessiontree.cli import cli, rewrite_legacy_args


def test_legacy_export_flag_becomes_subcommand() -> None:
    assert rewrite_legacy_args(["--export", "a.jsonl", "b.html"]) == ["export", "a.jsonl", "b.html"]
    assert rewrite_legacy_args(["--agent-dir", "x", "list"]) == ["--agent-dir", "x", "list"]
    assert rewrite_legacy_args(["dump", "--export"]) == ["dump", "--export"]


def test_help_lists_the_tool() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    assert "coding-agent sessions" in result.output
