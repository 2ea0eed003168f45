"""The combined-regex lexer driver yields exactly the tokens of Pygments itself."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments.lexers import get_all_lexers, get_lexer_by_name

from sessiontree.exporter import fastlex
from sessiontree.exporter.fastlex import (
    ENV,
    FastRegexLexer,
    _fast,
    _is_plain_regex_lexer,
    enabled,
    lex,
)
from sessiontree.exporter.highlight import lexer_by_name as find_lexer
from tests.conftest import REAL


def lexer_by_name(name: str) -> Any:
    """The lexer the exporter uses for ``name`` (every name here has one)."""
    lexer = find_lexer(name)
    assert lexer is not None
    return lexer


@pytest.fixture(autouse=True)
def fast_from_the_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests compare the fast driver itself: no warm-up through Pygments' loop first."""
    monkeypatch.setattr(fastlex, "_bulk", True)


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


@pytest.fixture
def fresh_cache() -> Iterator[None]:
    _fast.cache_clear()
    yield
    _fast.cache_clear()


def test_the_switch_turns_the_driver_off(monkeypatch: pytest.MonkeyPatch, fresh_cache: None) -> None:
    def broken(self: FastRegexLexer, text: str) -> Iterator[Any]:
        raise AssertionError("the fast driver ran")

    monkeypatch.setattr(FastRegexLexer, "tokens", broken)
    monkeypatch.setenv(ENV, "0")
    lexer = lexer_by_name("python")
    code = SAMPLES["python"]
    assert not enabled()
    assert list(lex(lexer, code)) == list(lexer.get_tokens_unprocessed(code))
    monkeypatch.setenv(ENV, "1")
    assert enabled()


def test_a_driver_that_disagrees_at_first_use_falls_back(
    monkeypatch: pytest.MonkeyPatch, fresh_cache: None, caplog: pytest.LogCaptureFixture
) -> None:
    real = FastRegexLexer.tokens

    def off_by_one(self: FastRegexLexer, text: str) -> Iterator[Any]:
        tokens = list(real(self, text))
        return iter(tokens[:-1])  # as if Pygments' loop had changed under us

    monkeypatch.setattr(FastRegexLexer, "tokens", off_by_one)
    lexer = lexer_by_name("bash")
    code = SAMPLES["bash"]
    assert _fast(lexer) is None
    assert list(lex(lexer, code)) == list(lexer.get_tokens_unprocessed(code))
    assert "gives other tokens than Pygments" in caplog.text


def test_a_fresh_process_lexes_through_pygments_until_the_driver_pays(
    monkeypatch: pytest.MonkeyPatch, fresh_cache: None
) -> None:
    monkeypatch.setattr(fastlex, "_bulk", False)
    monkeypatch.setattr(fastlex, "_seen", {})
    driven: list[str] = []
    real = FastRegexLexer.tokens

    def counted(self: FastRegexLexer, text: str) -> Iterator[Any]:
        driven.append(text)
        return real(self, text)

    monkeypatch.setattr(FastRegexLexer, "tokens", counted)
    lexer = lexer_by_name("python")
    code = SAMPLES["python"]
    lexed = 0
    while lexed < fastlex.FAST_AFTER_CHARS:
        assert list(lex(lexer, code)) == list(lexer.get_tokens_unprocessed(code))
        lexed += len(code)
    assert driven == []  # no combined pattern compiled for a first screen's worth of code
    assert list(lex(lexer, code)) == list(lexer.get_tokens_unprocessed(code))
    assert driven[-1] == code  # past the threshold the fast driver lexes


def test_a_bulk_render_takes_the_driver_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastlex, "_bulk", False)
    monkeypatch.setattr(fastlex, "_seen", {})
    fastlex.expect_bulk()
    assert fastlex._bulk
    lexer = lexer_by_name("bash")
    assert getattr(lex(lexer, "ls\n"), "__qualname__", "") == "FastRegexLexer.tokens"


def test_the_probe_reaches_many_states() -> None:
    fast = _fast(lexer_by_name("python"))
    assert fast is not None and len(fast.states) >= 3  # states entered while checking the probe


def _accepted_lexers() -> Iterator[Any]:
    for _, aliases, _, _ in get_all_lexers():
        if not aliases:
            continue
        try:
            lexer = get_lexer_by_name(aliases[0], stripnl=False, ensurenl=False)
        except Exception:  # lexers that need options or plugins
            continue
        if _is_plain_regex_lexer(lexer):
            yield lexer


@pytest.mark.slow(seconds=100)
@pytest.mark.timeout(1200)  # ~20 s of CPU over 427 lexers: the default 300 s is too close on a busy machine
def test_every_lexer_it_accepts_gives_pygments_tokens(fresh_cache: None) -> None:
    # The probe itself was compared at first use; these take the lexers elsewhere (non-ASCII too).
    texts = ["\n".join(SAMPLES.values()), "x" * 50 + "\n\n" + "é" * 5 + "\n", ""]
    accepted = refused = 0
    mismatched: list[str] = []
    for lexer in _accepted_lexers():
        if _fast(lexer) is None:
            refused += 1  # the first-use check sent it to Pygments
            continue
        accepted += 1
        for text in texts:
            if list(lex(lexer, text)) != list(lexer.get_tokens_unprocessed(text)):
                mismatched.append(type(lexer).__name__)
                break
    assert accepted > 300, (accepted, refused)
    assert mismatched == []


def test_the_internals_it_reads_are_as_it_expects() -> None:
    # Pinned and checked here: a Python or Pygments release that moves them fails this test
    # (at run time the driver would step aside: every rule tried, or Pygments' own loop).
    import pygments
    from pygments.lexer import RegexLexer

    assert int(pygments.__version__.split(".")[0]) == 2
    parsed = re._parser.parse("ab|c", 0)  # type: ignore[attr-defined]
    assert [op for op, _ in parsed.data] and hasattr(parsed, "state")
    python = lexer_by_name("python")
    assert isinstance(python, RegexLexer) and "root" in python._tokens
    assert type(python).get_tokens_unprocessed is RegexLexer.get_tokens_unprocessed
    assert _fast(python) is not None


FENCE = re.compile(r"^```([A-Za-z0-9_+-]+)\n(.*?)^```", re.M | re.S)


def test_same_tokens_as_pygments_on_the_real_fixtures_code() -> None:
    # The code the real sessions carry (fenced in their messages), every block compared.
    blocks = []
    for path in sorted(REAL.rglob("*.jsonl")):
        text = path.read_text(encoding="utf-8", errors="replace").replace("\\n", "\n")
        blocks += [(lang, code) for lang, code in FENCE.findall(text) if find_lexer(lang) is not None]
    assert len(blocks) >= 20
    for lang, code in blocks:
        lexer = lexer_by_name(lang)
        assert list(lex(lexer, code)) == list(lexer.get_tokens_unprocessed(code)), lang
