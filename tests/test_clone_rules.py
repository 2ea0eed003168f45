"""Only conftest reaches the shared folder; the clone test knows which modules touch real files."""

from __future__ import annotations

import pytest

from tests.clone_rules import ROOT, RULE_KEEPERS, module_files, real_file_test_modules, shared_path_builders

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
