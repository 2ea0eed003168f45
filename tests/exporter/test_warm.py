"""A fresh server's warm-up: afterwards a page's code, markdown and templates compile nothing."""

from __future__ import annotations

import subprocess
import sys

from sessiontree.exporter.warm import COMMON_LANGUAGES

# In a fresh interpreter: count the regular expressions compiled (not found in re's cache) while
# markdown with a fence of each common language is rendered and the page's templates looked up.
_COUNT = """
import re._compiler, sys
from sessiontree.exporter.markdown import render_markdown
from sessiontree.exporter.templating import get_template
from sessiontree.exporter.warm import COMMON_LANGUAGES, warm_up
if sys.argv[1] == "warm":
    warm_up()
compiled = []
real = re._compiler.compile
re._compiler.compile = lambda *a, **k: compiled.append(a[0]) or real(*a, **k)
for lang in COMMON_LANGUAGES:
    render_markdown(f"See *this*:\\n\\n```{lang}\\nx = [1, 'a'] # c\\n```\\n")
get_template("page.html.j2")
print(len(compiled))
"""


def compiled(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", _COUNT, mode], capture_output=True, text=True, check=True)
    return int(done.stdout)


def test_after_the_warm_up_a_page_of_common_code_compiles_no_regex() -> None:
    assert compiled("cold") > len(COMMON_LANGUAGES)  # each lexer compiles its rules when first made
    assert compiled("warm") == 0
