"""errdex's tokenizer for Pygments' regex lexers gives Pygments' own tokens, one for one:
what every page shows as code depends on it."""

from __future__ import annotations

from pathlib import Path
from re import _parser  # type: ignore[attr-defined]
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments.lexer import RegexLexer
from pygments.lexers import get_lexer_by_name
from pygments.token import Keyword, Name, Text, Whitespace

from benchmarks import corpus
from errdex.site import lexing

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


def test_real_python_gets_pygments_tokens() -> None:
    """errdex's own source, every module of every package: real code, whole files (each
    state's rules are tried only where they can match the next character; the tokens
    must not change)."""
    root = Path(__file__).parent.parent
    paths = sorted(root.glob("errdex/**/*.py"))
    assert len(paths) > 50
    for path in paths:
        _same("python", path.read_text(encoding="utf-8"))


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["sql", "ini", "dockerfile", "javascript", "c", "rust", "html", "diff"]),
    st.text(
        alphabet=st.sampled_from(list("aZk_1 \n\t\"'#()[]{}<>:;=\\/.@*-+$`éK\u212a")), max_size=80
    ),
)
def test_any_text_gets_pygments_tokens_in_other_languages(lang: str, text: str) -> None:
    """Languages with case-blind rules and other character classes than Python's: the
    rules tried at a character come from each rule's expression, case folding included
    (the Kelvin sign matches k when case is ignored)."""
    _same(lang, text)


@pytest.mark.parametrize(
    ("pattern", "starts"),
    [
        (r"def\b", "d"),
        (r"(?i)select", "sS"),
        (r"(?i)\u212a", None),  # the Kelvin sign matches k and K when case is ignored
        (r"[a-c]+|_", "abc_"),
        (r"\s*x", " \t\n\r\x0b\x0cx"),
        (r"(?=a)[a-c]", "a"),  # more than can match is allowed, never fewer
        (r"x?", None),  # matches nothing at all
    ],
)
def test_the_first_characters_of_a_rule_include_every_one_it_can_start_with(
    pattern: str, starts: str | None
) -> None:
    tree = _parser.parse(pattern)
    found = lexing._starts(list(tree), tree.state.flags)
    if starts is None:
        assert found is None
    else:
        assert found is not None
        assert {ord(c) for c in starts} <= found
        assert not any(chr(c) in "qQ" for c in found)  # no rule here starts with q


class _Mixed(RegexLexer):
    """A state of rules that ignore case and rules that do not, as SQL lexers have."""

    name = "mixed-case test"
    tokens: ClassVar[dict[str, Any]] = {
        "root": [
            (r"select\b", Keyword),
            (r"(?i)from\b", Name.Builtin),
            (r"(?i:where)\b", Name.Function),
            (r"\s+", Whitespace),
            (r"[A-Za-z_]\w*", Name),
            (r".", Text),
        ]
    }


def test_a_state_of_rules_with_and_without_case_keeps_each_rules_case() -> None:
    """Joined into one expression, each rule keeps its own flags: FROM and from are the
    rule that ignores case, Select is a name (its rule minds case)."""
    text = "select Select SELECT from FROM From where WHERE fromage x\n"
    fast = lexing.faster(_Mixed(stripnl=False, ensurenl=True))
    tokens = list(fast.get_tokens(text))
    assert tokens == list(_Mixed(stripnl=False, ensurenl=True).get_tokens(text))
    kinds = {value: kind for kind, value in tokens}
    assert (kinds["select"], kinds["Select"], kinds["SELECT"]) == (Keyword, Name, Name)
    assert kinds["from"] is kinds["FROM"] is kinds["From"] is Name.Builtin
    assert kinds["where"] is kinds["WHERE"] is Name.Function
    assert kinds["fromage"] is Name
