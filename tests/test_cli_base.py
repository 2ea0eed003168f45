from __future__ import annotations

from pathlib import Path

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


def test_every_command_is_known_to_the_lazy_loader() -> None:
    import importlib
    import pkgutil

    import sessiontree.cli as package
    from sessiontree.cli.base import LAZY_COMMANDS

    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"sessiontree.cli.{module.name}")
    assert set(cli.commands) == set(LAZY_COMMANDS)
    for name, module_name in LAZY_COMMANDS.items():
        assert cli.commands[name].callback is not None
        assert cli.commands[name].callback.__module__ == module_name


def test_a_command_loads_only_its_own_module() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from sessiontree.cli import main\n"
        "try:\n    main(['inspect', '--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('pygments', 'httpx', 'jinja2', 'sqlite3'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


# What a search on a warm index has no use for: the loader and its session model, the line
# kinds, prices, usage, the history's writer thread, the database copier, logging and the
# archive modules shutil brings (each module here was on the path before: 118 -> 93 ms CPU).
NOT_FOR_A_WARM_SEARCH = (
    "sessiontree.store.session",
    "sessiontree.store.load",
    "sessiontree.store.kinds",
    "sessiontree.store.summary",
    "sessiontree.store.pricing",
    "sessiontree.store.persist",
    "sessiontree.store.blobs",
    "sessiontree.store.history",
    "sessiontree.store.migrate",
    "sessiontree.store.claude_markup",
    "sessiontree.archive.usage",
    "sessiontree.readers.database_copy",
    "decimal",
    "logging",
    "shutil",
    "tempfile",
    "secrets",
    # The listing's catalog and line scans, the index's file reader (its tail reader) and
    # OpenSSL's hashes: a warm search walks the folders and stats the files, it reads none.
    "sessiontree.archive.catalog",
    "sessiontree.archive.line_scan",
    "sessiontree.store.tail",
    "sessiontree.archive.index_file",
    "hashlib",
)


def test_a_search_on_a_warm_index_loads_only_what_it_reads(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from tests.archive.sessions import make_session

    folder = tmp_path / "sessions"
    path, _lines = make_session(folder, "s", seed=1, turns=6, title="Warm")
    os.utime(path, (1e9, 1e9))  # written long ago: a warm index takes its stat as final (no racy re-read)
    args = ["search", "fsync", "--root", str(folder), "--cache-dir", str(tmp_path / "cache")]
    code = (
        "import sys; from sessiontree.cli import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
        f"print('loaded', sorted(m for m in sys.modules if m in {NOT_FOR_A_WARM_SEARCH!r}))"
    )
    run = [sys.executable, "-c", code]
    first = subprocess.run(run, capture_output=True, text=True, check=True).stdout  # builds the index
    assert "Warm" in first  # the file was indexed (and read: the loader's modules may load then)
    out = subprocess.run(run, capture_output=True, text=True, check=True).stdout
    assert "Warm\t" in out, out
    assert out.strip().splitlines()[-1] == "loaded []"


def test_error_lines_carry_no_escape_sequences_from_session_text(tmp_path: Path) -> None:
    # A session id prefix is echoed back in the "not found" error: it comes from the user or a file.
    hostile = "ab\x1b]52;c;aGVsbG8=\x07cd\x1b[2J"
    result = CliRunner().invoke(cli, ["export", hostile, str(tmp_path / "out.html")])
    assert result.exit_code != 0
    assert "Error:" in result.stderr
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
