"""The combined-regex lexer driver yields exactly the tokens of Pygments itself."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessiontree.exporter.fastlex import _fast, lex
from sessiontree.exporter.highlight import lexer_by_name

SAMPLES = {
    "python": 'def f(x: int) -> str:\n    """Doc\n    string"""\n'
    'return f"{x!r:>{w}}" + r\'\\d\' if x else b"\\x00"\n'
    "@dec\nclass A(B, metaclass=M):\n    match x:\n        case [1, *rest]: pass\n",
    "bash": "cat <<-EOF\n  $HOME ${x:-y} $(ls | wc -l)\nEOF\n"
    "for i in {1..3}; do echo \"$i\" '$no'; done # c\n",
    "typescript": "const a = `t ${b + `n ${c}`}`;\n/* multi\nline */ export interface I<T> { x?: T }\n"
    "let r = /ab+c/gi.test(s) // end\n",
    "sql": "SELECT a, COUNT(*) FROM t WHERE b LIKE 'x%' -- c\nGROUP BY a;",
    "json": '{"a": [1, 2.5e3, true, null], "b": {"c": "d\\n"}}',
    "rust": 'fn main() { let s = r#"raw "str""#; println!("{}", s); } // \'a lifetime',
    "go": "package main\nfunc main() { x := []int{1}; go f(x...) }\n",
    "yaml": "a: |\n  text\nb: [1, 2]\n# c\n",
    "html": '<div class="x" onclick="f()"><script>var a = 1 < 2;</script></div>',
    "css": "a:hover { color: #fff; margin: 0 auto !important; }",
    "c": '#include <stdio.h>\nint main(void) { printf("%d\\n", 1); return 0; }\n',
}


@pytest.mark.parametrize("lang", list(SAMPLES))
def test_same_tokens_as_pygments_on_samples(lang: str) -> None:
    lexer = lexer_by_name(lang)
    assert lexer is not None
    code = SAMPLES[lang]
    assert list(lex(lexer, code)) == list(lexer.get_tokens_unprocessed(code))


def test_common_lexers_take_the_fast_path_with_every_state_combined() -> None:
    for lang in ("python", "bash", "typescript", "javascript"):
        fast = _fast(lexer_by_name(lang))
        assert fast is not None
        big = [state for state, rules in fast.tokendefs.items() if len(rules) > 3]
        assert all(fast.matcher(state) is not None for state in big), lang


CODEISH = st.text(
    alphabet="abcdefsxyzKI_019 \n\t()[]{}<>:;,.'\"`$#@/\\*+-=|&!?%^~rfbué\u017f\u212a\u0130", max_size=120
)
LANGS = ["python", "bash", "typescript", "sql", "rust", "yaml", "html", "css", "c", "go", "powershell",
         "perl", "ruby", "ini", "diff", "make", "markdown", "json", "xml", "php"]  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(LANGS), CODEISH)
def test_same_tokens_as_pygments_on_random_text(lang: str, code: str) -> None:
    lexer = lexer_by_name(lang)
    assert list(lex(lexer, code)) == list(lexer.get_tokens_unprocessed(code))
