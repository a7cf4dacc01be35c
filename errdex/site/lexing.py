"""Pygments' regex lexers, one regular expression per lexer state.

A Pygments ``RegexLexer`` finds each token by trying the rules of its current state one
after another, each a call of its own regular expression: the Python lexer makes about 33
calls a token, most of the time a build spends highlighting. ``faster`` gives a lexer a
tokenizer that joins the rules of each state into one alternation, so one call finds the
rule that matches first, as trying them in order would (an alternation tries its branches
in order at the same place, and nothing follows a branch). The winning rule's own
expression runs again only when its action reads the match (``bygroups``, ``using``).
An alternation still tries its branches one by one, so each state also keeps, for each
ASCII character, the join of only the rules that can start with it (read from each
rule's parsed expression, case folding included; a rule that can start with anything,
or match nothing at all, is in every one). Letters and the underscore share one join,
as digits do: one join per letter would cost more to compile than it saves. In
Python's root state: 40 of 56 rules at a letter, 6 at a digit, at most 4 elsewhere.

The tokens are Pygments' own, one for one: the state changes and the line-end recovery
are those of ``RegexLexer.get_tokens_unprocessed``. A state whose rules cannot be joined
(a back-reference, rules with other flags, a name two rules give a group) is tried rule
by rule, as Pygments does; a lexer that tokenizes in its own way is left as it is. The
tests compare the two on every excerpt and fix of the synthetic corpus.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from re import _compiler, _constants, _parser  # type: ignore[attr-defined]
from typing import Any

from pygments.lexer import Lexer, RegexLexer
from pygments.token import Error, Whitespace, _TokenType

Rule = tuple[Callable[[str, int], "re.Match[str] | None"], Any, Any]
"""One processed rule of a state: its expression's ``match``, its action, its next state."""

_BACK_REFERENCE = re.compile(r"\\[1-9]|\(\?P=|\(\?\(")


class _Joined:
    """The rules of one state as one expression, and the rule each branch stands for;
    with ``first``, the same for each ASCII character a token may start with: only the
    rules that can match there, in their order (each join made when first needed)."""

    __slots__ = ("_made", "_starts", "_tree", "first", "match", "rules")

    def __init__(self, match: Callable[[str, int], re.Match[str] | None], rules: dict[int, int]):
        self.match = match
        self.rules = rules
        """Group number of a branch → the number of its rule in the state."""
        self.first: list[_Joined | None] | None = None
        """By code point below 128: the join of the rules that can match at that character
        (``_starts``), None until first needed; the list is None when every character
        needs them all."""
        self._tree: Any = None
        """The whole join as parsed: the joins for single characters are made of its
        branches, parsed once."""
        self._starts: list[frozenset[int] | None] = []
        self._made: dict[tuple[int, ...], _Joined] = {}
        """The joins made so far, by the rules they hold: characters share them."""

    def at(self, code: int) -> _Joined:
        """The join to try at a character below 128 (made now if it was not yet). Letters
        and the underscore share one, as do digits: the rules that can start with any of
        them (more rules than one character needs, never fewer; far fewer joins)."""
        assert self.first is not None
        near = _SHARED.get(code, (code,))
        chosen = tuple(
            n for n, start in enumerate(self._starts) if start is None or not start.isdisjoint(near)
        )
        found = self._made.get(chosen)
        if found is None:
            made = self if len(chosen) == len(self._starts) else _part(self._tree, chosen)
            found = self._made[chosen] = made or self
        self.first[code] = found
        return found


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
        branches.append(f"(?P<{_GROUP}{number}>{scoped})")
    try:
        # Parsed once: the expressions of the state and of its joins for single
        # characters are made of this, and each rule's first characters read from it.
        tree = _parser.parse("|".join(branches), base)
        whole = _part(tree, range(len(patterns)))
    except (re.error, OverflowError, RecursionError):
        return None
    if whole is None:
        return None
    starts = [_starts(branch, tree.state.flags) for branch in _branches(tree)]
    if any(start is not None for start in starts):
        whole.first = [None] * _ASCII
        whole._tree, whole._starts = tree, starts
    return whole


_GROUP = "_r"
"""The name of the group of rule n in a join: ``_r<n>``."""


def _branches(tree: Any) -> list[Any]:
    """The branches of a parsed join, one a rule, in order."""
    if len(tree.data) == 1 and tree.data[0][0] is _constants.BRANCH:
        return list(tree.data[0][1][1])
    return [tree.data]  # a join of one rule has no branch


def _part(tree: Any, chosen: Sequence[int]) -> _Joined | None:
    """The join of the rules numbered ``chosen`` (in that order) of the parsed join
    ``tree``: its branches compiled, not parsed again (none: a join that never matches);
    None when it cannot be compiled."""
    if not chosen:
        return _Joined(_NEVER.match, {})
    branches = _branches(tree)
    picked = [branches[n] for n in chosen]
    part = _parser.SubPattern(tree.state)
    if len(picked) == 1:
        part.data = list(picked[0])
    else:
        part.data = [(_constants.BRANCH, (None, picked))]
    try:
        # What re.compile does after parsing. Groups of the rules left out stay
        # numbered, and never match.
        joined = _compiler.compile(part, tree.state.flags)
    except (re.error, OverflowError, RecursionError):
        return None
    groups = tree.state.groupdict
    return _Joined(joined.match, {groups[f"{_GROUP}{n}"]: n for n in chosen})


_NEVER = re.compile(r"(?!)")
_ASCII = 128
_WORDS = frozenset(ord(c) for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_DIGITS = frozenset(ord(c) for c in "0123456789")
_SHARED = {code: group for group in (_WORDS, _DIGITS) for code in group}
"""The characters that share one join (``_Joined.at``)."""


def _starts(items: list[Any], flags: int) -> frozenset[int] | None:
    """The ASCII characters a match of the parsed expression ``items`` can start with
    under ``flags`` (more, never fewer); None when it can start with any, or match
    nothing at all."""
    try:
        start, empty = _sequence(list(items), flags)
    except Exception:  # anything the reading below does not know
        return None
    return None if empty or start is None else frozenset(start)


def _sequence(items: list[Any], flags: int) -> tuple[set[int] | None, bool]:
    """What a sequence can start with (None: anything), and whether it can match empty."""
    found: set[int] = set()
    for op, av in items:
        start, empty = _item(op, av, flags)
        if start is None:
            return None, False
        found |= start
        if not empty:
            return found, False
    return found, True


_EVERY = frozenset(range(_ASCII))


def _item(op: Any, av: Any, flags: int) -> tuple[set[int] | None, bool]:
    """What one node of a parsed expression can start with, and whether it can match
    empty; None for a node this does not know."""
    c = _constants
    folded = bool(flags & re.IGNORECASE)
    if op is c.LITERAL:
        if av >= _ASCII:  # under IGNORECASE, K (U+212A) matches k
            return (None if folded else set()), False
        char = chr(av)
        return ({ord(char.lower()), ord(char.upper())} if folded else {av}), False
    if op in (c.NOT_LITERAL, c.ANY):
        return set(_EVERY), False
    if op is c.IN:
        return _in(av, flags), False
    if op is c.BRANCH:
        found: set[int] = set()
        empty = False
        for branch in av[1]:
            start, can = _sequence(list(branch), flags)
            if start is None:
                return None, False
            found |= start
            empty = empty or can
        return found, empty
    if op is c.SUBPATTERN:
        _, add, remove, inner = av
        return _sequence(list(inner), (flags | add) & ~remove)
    if op is c.ATOMIC_GROUP:
        return _sequence(list(av), flags)
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
        low, _, inner = av
        start, empty = _sequence(list(inner), flags)
        return start, empty or low == 0
    if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
        return set(), True  # matches no character itself: what follows starts the match
    return None, False


def _in(items: list[Any], flags: int) -> set[int] | None:
    """The ASCII characters of a character class, asked of the class rebuilt as an
    expression under the same flags."""
    c = _constants
    parts: list[str] = []
    for op, av in items:
        if op is c.NEGATE:
            parts.insert(0, "^")
        elif op is c.LITERAL:
            parts.append(re.escape(chr(av)))
        elif op is c.RANGE:
            parts.append(f"{re.escape(chr(av[0]))}-{re.escape(chr(av[1]))}")
        elif op is c.CATEGORY and av in _CATEGORIES:
            parts.append(_CATEGORIES[av])
        else:
            return None
    cls = re.compile(f"[{''.join(parts)}]", flags & (re.IGNORECASE | re.ASCII | re.LOCALE))
    return {code for code in range(_ASCII) if cls.fullmatch(chr(code))}


_CATEGORIES = {
    _constants.CATEGORY_DIGIT: r"\d",
    _constants.CATEGORY_NOT_DIGIT: r"\D",
    _constants.CATEGORY_SPACE: r"\s",
    _constants.CATEGORY_NOT_SPACE: r"\S",
    _constants.CATEGORY_WORD: r"\w",
    _constants.CATEGORY_NOT_WORD: r"\W",
}


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
            if one.first is not None and pos < len(text) and (code := ord(text[pos])) < _ASCII:
                one = one.first[code] or one.at(code)
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
