"""Pygments' regex lexers, one regular expression per lexer state.

A Pygments ``RegexLexer`` finds each token by trying the rules of its current state one
after another, each a call of its own regular expression: the Python lexer makes about 33
calls a token, most of the time a build spends highlighting. ``faster`` gives a lexer a
tokenizer that joins the rules of each state into one alternation, so one call finds the
rule that matches first, as trying them in order would (an alternation tries its branches
in order at the same place, and nothing follows a branch). The winning rule's own
expression runs again only when its action reads the match (``bygroups``, ``using``).

The tokens are Pygments' own, one for one: the state changes and the line-end recovery
are those of ``RegexLexer.get_tokens_unprocessed``. A state whose rules cannot be joined
(a back-reference, rules with other flags, a name two rules give a group) is tried rule
by rule, as Pygments does; a lexer that tokenizes in its own way is left as it is. The
tests compare the two on every excerpt and fix of the synthetic corpus.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from pygments.lexer import Lexer, RegexLexer
from pygments.token import Error, Whitespace, _TokenType

Rule = tuple[Callable[[str, int], "re.Match[str] | None"], Any, Any]
"""One processed rule of a state: its expression's ``match``, its action, its next state."""

_BACK_REFERENCE = re.compile(r"\\[1-9]|\(\?P=|\(\?\(")


class _Joined:
    """The rules of one state as one expression, and the rule each branch stands for."""

    __slots__ = ("match", "rules")

    def __init__(self, match: Callable[[str, int], re.Match[str] | None], rules: dict[int, int]):
        self.match = match
        self.rules = rules
        """Group number of a branch → the number of its rule in the state."""


def _join(rules: list[Rule]) -> _Joined | None:
    """The rules of a state joined, or None when they cannot be."""
    patterns: list[re.Pattern[str]] = []
    for match, _, _ in rules:
        pattern = getattr(match, "__self__", None)
        if not isinstance(pattern, re.Pattern) or not isinstance(pattern.pattern, str):
            return None
        patterns.append(pattern)
    if not patterns:
        return None
    if any(_BACK_REFERENCE.search(p.pattern) for p in patterns):
        return None
    base = patterns[0].flags
    branches = []
    for number, pattern in enumerate(patterns):
        scoped = _scoped(pattern, base)
        if scoped is None:
            return None
        branches.append(f"(?P<_r{number}>{scoped})")
    try:
        joined = re.compile("|".join(branches), base)
    except (re.error, OverflowError, RecursionError):
        return None
    return _Joined(joined.match, {joined.groupindex[f"_r{n}"]: n for n in range(len(rules))})


_LETTERS = {re.IGNORECASE: "i", re.MULTILINE: "m", re.DOTALL: "s", re.VERBOSE: "x"}
_GLOBAL_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")


def _scoped(pattern: re.Pattern[str], base: int) -> str | None:
    """``pattern``'s source, to be matched under ``base``'s flags as it is under its own:
    flags it sets at its start (``(?i)``), or has otherwise, scoped to it; None when
    that cannot be said in a group's flags."""
    source = pattern.pattern
    while (lead := _GLOBAL_FLAGS.match(source)) is not None:
        source = source[lead.end() :]
    added, removed = pattern.flags & ~base, base & ~pattern.flags
    if (added | removed) & ~sum(_LETTERS):
        return None
    if not added and not removed:
        return source
    on = "".join(letter for flag, letter in _LETTERS.items() if added & flag)
    off = "".join(letter for flag, letter in _LETTERS.items() if removed & flag)
    return f"(?{on}{'-' + off if off else ''}:{source})"


_STATES: dict[int, tuple[object, dict[str, _Joined | None]]] = {}
"""Per table of states (a lexer class's, or an instance's own: some lexers make theirs
from their options): the table, and each state's rules joined (made when a state is
first entered)."""


def _joined_of(lexer: RegexLexer) -> dict[str, _Joined | None]:
    table = lexer._tokens  # type: ignore[attr-defined]
    found = _STATES.get(id(table))
    if found is None or found[0] is not table:
        found = _STATES[id(table)] = (table, {})
    return found[1]


def faster(lexer: Lexer) -> Lexer:
    """``lexer``, tokenizing with each state's rules joined when it is a plain
    ``RegexLexer`` (whose tokens it keeps); any other lexer as it is."""
    kind = type(lexer)
    if isinstance(lexer, RegexLexer) and (
        kind.get_tokens_unprocessed is RegexLexer.get_tokens_unprocessed
    ):
        lexer.get_tokens_unprocessed = partial(_tokens, lexer)  # type: ignore[method-assign]
    return lexer


def join_all(lexer: Lexer) -> None:
    """Join the rules of every state of ``lexer``'s class now, not as each is first
    entered: a build does it once before it forks its workers, which then share them."""
    if isinstance(lexer, RegexLexer):
        joined = _joined_of(lexer)
        for state, rules in lexer._tokens.items():  # type: ignore[attr-defined]
            if state not in joined:
                joined[state] = _join(rules)


def _tokens(
    lexer: RegexLexer, text: str, stack: tuple[str, ...] = ("root",)
) -> Iterator[tuple[int, Any, str]]:
    """``RegexLexer.get_tokens_unprocessed``, a state's rules tried in one call."""
    definitions: dict[str, list[Rule]] = lexer._tokens  # type: ignore[attr-defined]
    joined = _joined_of(lexer)
    states = list(stack)
    pos = 0
    while True:
        state = states[-1]
        rules = definitions[state]
        if state not in joined:
            joined[state] = _join(rules)
        one = joined[state]
        found: re.Match[str] | None = None
        if one is not None:
            whole = one.match(text, pos)
            if whole is not None:
                branch = whole.lastindex
                assert branch is not None
                match, action, next_state = rules[one.rules[branch]]
                if action is not None:
                    if type(action) is _TokenType:
                        yield pos, action, whole.group(branch)
                    else:
                        found = match(text, pos)
                        assert found is not None
                        yield from action(lexer, found)
                end = whole.end(branch)
            else:
                next_state = None
                end = -1
        else:
            end = -1
            next_state = None
            for match, action, then in rules:
                found = match(text, pos)
                if found is not None:
                    if action is not None:
                        if type(action) is _TokenType:
                            yield pos, action, found.group()
                        else:
                            yield from action(lexer, found)
                    end, next_state = found.end(), then
                    break
        if end >= 0:
            pos = end
            if next_state is not None:
                _move(states, next_state)
            continue
        # No rule matched: a line end starts the root state again; anything else is an
        # error token of one character.
        if pos >= len(text):
            return
        if text[pos] == "\n":
            states[:] = ["root"]
            yield pos, Whitespace, "\n"
        else:
            yield pos, Error, text[pos]
        pos += 1


def _move(states: list[str], next_state: Any) -> None:
    """Change the state stack as a rule says (as processed by Pygments: a tuple of names,
    ``#pop`` and ``#push``; a negative number of states to pop; ``#push``)."""
    if isinstance(next_state, tuple):
        for name in next_state:
            if name == "#pop":
                if len(states) > 1:
                    states.pop()
            elif name == "#push":
                states.append(states[-1])
            else:
                states.append(name)
    elif isinstance(next_state, int):
        # Pops, keeping the first state.
        if abs(next_state) >= len(states):
            del states[1:]
        else:
            del states[next_state:]
    elif next_state == "#push":
        states.append(states[-1])
    else:
        raise AssertionError(f"wrong state def: {next_state!r}")
