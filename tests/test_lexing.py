"""errdex's tokenizer for Pygments' regex lexers gives Pygments' own tokens, one for one:
what every page shows as code depends on it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments.lexers import get_lexer_by_name

from benchmarks import corpus
from errdex import lexing

TRICKY = [
    'x = f"{a!r:>{width}} and {b}"\n',
    "s = \"\"\"starts here\n  and runs on\n\"\"\" + '''more'''\n",
    "@decorator(1)\nasync def f(*, a: int = 0x1F, **kw) -> None:\n    yield from g()\n",
    "class A(B, metaclass=M):\n    '''doc'''\n    def __init__(self): pass\n",
    "import a.b as c\nfrom . import (d,\n    e)\n",
    "match x:\n    case [1, *rest] if rest:\n        print(rest)\n",
    "value = r'\\d+' b'\\x00' rb\"\\n\" u'é ünïcode' 1_000.5e-3j\n",
    "line with a stray ` backtick and $ dollar ? mark\n",
    "if a:\\\n    b\n",
    "# only a comment, no newline at the end",
    "",
    "\n\n\t\n",
]


def _same(lang: str, text: str) -> None:
    slow = get_lexer_by_name(lang, stripnl=False, ensurenl=True)
    fast = lexing.faster(get_lexer_by_name(lang, stripnl=False, ensurenl=True))
    assert list(fast.get_tokens(text)) == list(slow.get_tokens(text)), (lang, text)


def test_every_excerpt_and_fix_of_the_corpus_gets_pygments_tokens() -> None:
    records = corpus.generate(600, seed=21)
    for record in records:
        excerpt = record["source"].get("excerpt")
        if excerpt:
            _same("python", excerpt["code"])
        for fix in record.get("example_fix", ()):
            _same(fix["lang"], fix["code"])


@pytest.mark.parametrize("text", TRICKY)
@pytest.mark.parametrize("lang", ["python", "bash", "yaml", "json", "toml", "text", "console"])
def test_odd_code_gets_pygments_tokens_in_every_language_fixes_use(lang: str, text: str) -> None:
    _same(lang, text)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab1 \n\t\"'#()[]{}:=\\fr.@*-+$`é")), max_size=80))
def test_any_text_gets_pygments_tokens(text: str) -> None:
    _same("python", text)
    _same("bash", text)


def test_lexers_that_make_their_states_from_their_options_keep_them_apart() -> None:
    text = "class ñame { }\n"
    for level in ("none", "full", "basic"):
        slow = get_lexer_by_name("csharp", unicodelevel=level)
        fast = lexing.faster(get_lexer_by_name("csharp", unicodelevel=level))
        assert list(fast.get_tokens(text)) == list(slow.get_tokens(text)), level


def test_a_lexer_with_a_tokenizer_of_its_own_is_left_as_it_is() -> None:
    lexer = get_lexer_by_name("python")
    assert lexing.faster(lexer) is lexer
    assert "get_tokens_unprocessed" in vars(lexer)  # a plain regex lexer: sped up
    own = get_lexer_by_name("pycon")  # tokenizes line by line itself
    assert "get_tokens_unprocessed" not in vars(lexing.faster(own))
