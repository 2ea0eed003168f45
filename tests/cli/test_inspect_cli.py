from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessiontree.cli import cli


def test_inspect_real_v1(real_v1: Path) -> None:
    result = CliRunner().invoke(cli, ["inspect", str(real_v1)])
    assert result.exit_code == 0, result.output
    assert "v1 (migrated v1->v2, v2->v3 in memory" in result.output
    assert "Messages  914: assistant 453, toolResult 373, user 88" in result.output
    assert "Cost      $" in result.output


def test_inspect_json_counts_match_the_file(gen_session) -> None:  # type: ignore[no-untyped-def]
    path = gen_session(40)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    result = CliRunner().invoke(cli, ["inspect", "--json", str(path)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["entries"] == len(lines) - 1
    assert sum(data["entry_types"].values()) == len(lines) - 1
    assert data["branch_points"] >= 1 and data["labels"] == sum(1 for x in lines if x["type"] == "label")
    total_output = sum(
        x["message"]["usage"]["output"] for x in lines if x.get("message", {}).get("role") == "assistant"
    )
    assert data["tokens"]["output"] == total_output
    assert data["bad_lines"] == [] and data["missing_blobs"] == []


def test_inspect_reports_bad_lines_and_missing_blobs(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    ref = "blob:sha256:" + "e" * 64
    path.write_text(
        '{"type":"session","id":"s","version":3}\n'
        "garbage\n"
        '{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":'
        f'[{{"type":"image","data":"{ref}","mimeType":"image/png"}}]}}}}\n'
    )
    result = CliRunner().invoke(cli, ["inspect", str(path)])
    assert result.exit_code == 0, result.output
    assert "Bad lines 1 skipped: 2 (" in result.output
    assert f"Missing   1 blob(s): {ref}" in result.output


def test_inspect_errors_are_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    for args, expected in [
        ([str(tmp_path / "nope.jsonl")], f"Error: File not found: {tmp_path / 'nope.jsonl'}\n"),
        ([str(tmp_path)], f"Error: Not a session file: {tmp_path} (it is a directory)\n"),
    ]:
        result = runner.invoke(cli, ["inspect", *args])
        assert result.exit_code == 1
        assert result.output == expected
    (tmp_path / "x.jsonl").write_text("hello\n")
    result = runner.invoke(cli, ["inspect", str(tmp_path / "x.jsonl")])
    assert (
        result.exit_code == 1 and "Not a session file" in result.output and "Traceback" not in result.output
    )
