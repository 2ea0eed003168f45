"""Only conftest reaches the shared folder; the clone test knows which modules touch real files."""

from __future__ import annotations

import pytest

from tests.clone_rules import (
    ROOT,
    RULE_KEEPERS,
    RealFileUse,
    module_files,
    real_file_test_modules,
    shared_path_builders,
    tainted_names,
)

# What tests/mutants.py held when a clone without ../shared failed three tests (issue 33).
MUTANTS_BEFORE = """
from tests.archive.sessions import generate
from tests.conftest import SHARED

REAL = SHARED / "fixtures" / "real"
CLAUDE_BASE = REAL / "claude" / "x.jsonl"
"""


def test_no_test_module_builds_its_own_path_to_the_shared_folder() -> None:
    offenders = {
        str(path.relative_to(ROOT)): found
        for path in module_files().values()
        if str(path.relative_to(ROOT)) not in RULE_KEEPERS
        and (found := shared_path_builders(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}


@pytest.mark.parametrize(
    "source",
    [
        MUTANTS_BEFORE,
        "import tests.conftest as c\nbase = c.SHARED / 'fixtures'\n",
        "from pathlib import Path\nREAL = Path(__file__).parents[2] / 'shared' / 'fixtures'\n",
        "from pathlib import Path\nREAL = Path('../shared/fixtures/real')\n",
        "import os\nroot = os.environ['SESSIONTREE_SHARED']\n",
        "from tests.conftest import SHARED_ENV\n",
    ],
)
def test_the_rule_catches_each_way_of_building_that_path(source: str) -> None:
    assert shared_path_builders(source)


def test_the_rule_leaves_prose_and_look_alike_strings_alone() -> None:
    source = '"""Needs ../shared beside the clone."""\nname = "2026-11-04_shared"\nword = "Session shared"\n'
    assert shared_path_builders(source) == []


def test_every_module_that_touches_a_real_file_is_found_through_its_helpers() -> None:
    found = {str(path.relative_to(ROOT)) for path in real_file_test_modules()}
    # through tests.mutants (the three that failed in a clone), through tests.readers.helpers,
    # through tests.browser.pages, and directly
    assert {
        "tests/cli/test_archive_bad_input.py",
        "tests/serve/test_bad_input_process.py",
        "tests/readers/test_commands.py",
        "tests/browser/test_exports.py",
        "tests/cli/test_real_pi_files.py",
    } <= found
    assert "tests/store/test_tree.py" not in found
    assert all(path.name.startswith("test_") for path in real_file_test_modules())


def test_names_that_hold_a_real_file_are_followed_through_the_module() -> None:
    source = (
        "import pytest\n"
        "from tests.conftest import REAL as R, ROOT\n"
        "FILES = sorted(R.glob('*.jsonl'))\n"
        "FIRST = FILES[0]\n"
        "SHIPPED = ROOT / 'tests'\n"
        "def _real(root):\n    return FIRST\n"
        "def _made(root):\n    return root\n"
        "LAYOUTS = {'real': _real, 'made': _made}\n"
        "@pytest.mark.parametrize('path', FILES)\ndef test_each(path): ...\n"
        "def test_plain(): ...\n"
    )
    tainted, tests, whole = tainted_names(source)
    assert {"R", "FILES", "FIRST", "_real", "LAYOUTS"} <= tainted
    assert not {"SHIPPED", "_made", "ROOT", "test_plain"} & tainted
    assert tests == {"test_each"} and not whole
    marked = (
        "from tests.conftest import HAVE_SHARED\nimport pytest\n"
        "pytestmark = pytest.mark.skipif(not HAVE_SHARED, reason='x')\n"
    )
    assert tainted_names(marked)[2]
    imported = tainted_names(
        "from tests.readers.helpers import CODEX_FILES, TOUR\n", lambda m, n: n == "CODEX_FILES"
    )
    assert imported[0] == {"CODEX_FILES"}


def test_the_tests_that_touch_a_real_file_are_told_from_those_that_do_not() -> None:
    from tests.exporter import test_claude_subagents
    from tests.readers import test_codex
    from tests.store import test_tree

    uses = RealFileUse()
    # through a table of layouts naming a helper that calls real_file
    assert uses.function(test_claude_subagents.test_an_export_keeps_the_subagent_inline_without_a_link)
    # through a helper module's list built from REAL (parametrized: the decorator names it)
    assert "test_every_codex_file_counts_match_the_raw_json" in uses._module("tests.readers.test_codex")[1]
    # shipped fixtures only, and a module far from any real file
    assert not uses.function(test_codex.test_the_old_format_with_crlf_and_argv_shell)
    assert not uses.function(test_tree.test_labels_last_wins_and_empty_clears)
