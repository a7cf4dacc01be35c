"""How to avoid an error, derived from the code: the ``if`` tests that lead to its raise,
negated, each way out said in words a user reads.

An error raised under ``a == "x" and b <= 1`` is avoided by ``a != "x"`` or by ``b > 1``:
the tests are negated (De Morgan over ``and``/``or``, ``not`` folded into comparisons)
and spread into alternatives, each a few requirements that together keep the raise from
running. A requirement the words cannot say safely (a call with effects, a long
expression) drops its alternative; a test with none left says nothing. Every way out is
right by construction, though not the only one: the code may raise something else next.

The ways are data (``Way``, ``Term``) as well as words, so that a page opened from a
pasted error, and ``lookup``, can work out values with the user's own numbers (``hints``;
static/errdex.js does the same from the same data, checked against shared vectors).
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re
import sys
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from typing import Any

from errdex.records.model import Record, module_of, package_of

MAX_WAYS = 8
"""More alternatives than this read as a puzzle, not advice: none are shown."""
MAX_TERMS = 3
"""Requirements one alternative may join."""
MAX_TEXT = 60
"""Characters of an expression shown as one operand; longer ones are not said."""
MAX_NEGATED = 8
"""Names bound to ``not`` of another followed at most, one to the next."""
MAX_PARSED = 20_000
"""Characters of code parsed as one block at most: Python takes seconds over an f-string
of thousands of fields (a record's message may be that long), and a test longer than
this is not said anyway."""
MAX_DIVISORS = 12
"""Divisors a hint lists at most (those nearest the user's value)."""
MAX_FACTORED = 10**12
"""Largest number whose divisors a hint works out (a million steps at most)."""

_PLATFORMS = {
    "cuda": "CUDA",
    "rocm": "ROCm",
    "cpu": "CPU",
    "tpu": "TPU",
    "xpu": "XPU",
    "hpu": "HPU",
    "neuron": "Neuron",
    "mps": "Apple MPS",
    "npu": "NPU",
    "out_of_tree": "an out-of-tree platform",
}
_SYSTEMS = {
    "sys.platform": {"win32": "Windows", "linux": "Linux", "darwin": "macOS", "cygwin": "Cygwin"},
    "os.name": {"nt": "Windows", "posix": "Linux or macOS"},
    "platform.system()": {
        "Windows": "Windows",
        "Linux": "Linux",
        "Darwin": "macOS",
        "CYGWIN_NT": "Cygwin",
    },
    "platform.system().lower()": {
        "windows": "Windows",
        "linux": "Linux",
        "darwin": "macOS",
        "cygwin_nt": "Cygwin",
    },
}
"""What tells the system Python runs on, and the system each of its values names
(Cygwin's ``platform.system()`` goes on with its version: ``CYGWIN_NT-10.0``)."""
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_NOT = {
    "<": ">=",
    "<=": ">",
    ">": "<=",
    ">=": "<",
    "==": "!=",
    "!=": "==",
    "is": "is not",
    "is not": "is",
    "in": "not in",
    "not in": "in",
}
_OPS = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
_PATH_METHODS = {"exists": "exists", "is_file": "isfile", "is_dir": "isdir"}
"""``pathlib.Path``'s checks, as the ``os.path`` function that makes the same one."""
_SELF = re.compile(r"\bself\.")
_CAPS = re.compile(r"^[A-Z][A-Z0-9_]*$")
_SETTING = re.compile(r"(?:^|\.)settings\.[A-Z][A-Z0-9_]*$")
"""A setting the user writes in the project's settings (Django's ``settings.DEBUG``):
true or false as they set it, unlike a module's flag in capitals."""
_HOLDS_SETTINGS = re.compile(
    r"^(?:config|configuration|cfg|conf|settings|args|arguments|options|opts|params"
    r"|hparams|hyperparams|kwargs|flags|FLAGS)$"
    r"|_(?:config|cfg|conf|settings|args|arguments|options|opts|params)$"
)
"""The names of objects that exist to hold settings (``config``, ``args``,
``model_config``): their attributes are the user's to set, as are those of an object
they are part of (``model.config.use_cache``, ``trainer.args.do_eval``)."""
_SKIPS_CHECKS = re.compile(
    r"^_?(?:shortcut|fast_?path|skip_(?:checks?|validation|verify)|no_checks?|unchecked|unsafe)$"
)
"""Flags that skip checks to go fast: true, they hide the error, they do not avoid it
(xarray's ``Variable.concat(…, shortcut=True)`` relabels a dimension it did not check)."""
_CHECKS = re.compile(r"^(?:checks?|validate|validation|verify)(?:_\w+)?$")
"""Flags that turn a check on (dask's ``assert_eq(…, check_dtype=True)``): false, they
hide the error too."""


def _hides_check(name: str, wanted: bool) -> bool:
    """Whether asking that the flag ``name`` be ``wanted`` (true or false) only hides the
    error: a skip flag turned on, or a check flag turned off."""
    return (_SKIPS_CHECKS if wanted else _CHECKS).match(name.rpartition(".")[2]) is not None


_AVAILABLE = re.compile(r"^_?is_(\w+?)_available$")


@dataclass(frozen=True, slots=True)
class Operand:
    """One side of a requirement, as the code writes it and as a user knows it."""

    text: str
    """The expression as written, ``self.`` left out (``tp``, ``len(names)``)."""
    field: str | None = None
    """The setting it reads, where it reads one (``tensor_parallel_size`` for ``tp``
    after ``tp = self.tensor_parallel_size``)."""
    env: str | None = None
    """The environment variable it reads (``os.environ["X"]``, ``envs.X``)."""
    number: str | None = None
    """Its value when it is a number written in the code."""
    literal: bool = False
    """Whether it is a constant written in the code (a number, a string, None…)."""
    length: bool = False
    """Whether it is ``len(…)`` of ``text``'s inner expression."""
    keys: tuple[str, ...] = ()
    """The names a message's placeholders may give it (``tp``, ``tensor_parallel_size``)."""
    defaulted: bool = False
    """Whether the code may put a value of its own in place of the caller's (``x = x if
    x is not None else default``): no way out may ask for it unset, false or different."""
    given: bool = False
    """Whether the caller must give it a value of their own: a parameter the signature
    in view gives no default, or a default other than None ("leave it unset" would not
    make it None)."""
    unsure: bool = False
    """Whether its setting may be a value the code works out instead: a plain name the
    excerpt neither binds nor shows the caller giving (bound above the excerpt, say).
    It is said as set only where the site knows the setting's flag."""
    star: str = ""
    """``*`` or ``**`` for the function's ``*args`` or ``**kwargs`` (the signature in
    view says so): what the caller passes is arguments, not a value of that name."""


@dataclass(frozen=True, slots=True)
class Term:
    """One requirement of a way out."""

    kind: str
    """``compare``, ``divisible``, ``not_divisible``, ``one_of``, ``none_of``, ``unset``,
    ``set``, ``true``, ``false``, ``type``, ``not_type``, ``platform``, ``not_platform``,
    ``system``, ``not_system``, ``installed``, ``python``, ``path``, ``starts``,
    ``not_starts``, ``ends``, ``not_ends``, ``contains``, ``not_contains``, ``not_path``,
    ``available``, ``has_attr``, ``no_attr`` or ``callable``."""
    subject: Operand
    op: str | None = None
    """For ``compare`` and ``python``: the comparison that must hold."""
    other: Operand | None = None
    """For ``compare``: what the subject is compared with; for ``divisible``: the divisor;
    for ``one_of``/``none_of`` of a collection the code names (``x in self.choices``):
    that collection."""
    values: tuple[Operand, ...] = ()
    """For ``one_of``/``none_of``: the values the code lists; for ``type``: the types."""


@dataclass(frozen=True, slots=True)
class Way:
    """One way out: all its terms together keep the raise from running."""

    terms: tuple[Term, ...]


@dataclass(frozen=True, slots=True)
class Avoid:
    """What a page says under "How to avoid it"."""

    guards: tuple[str, ...]
    """The tests that lead to the raise, outermost first, each as the code writes it."""
    ways: tuple[Way, ...]
    imports: tuple[str, ...] = ()
    """What the ``try`` around the raise imports, when the raise handles its failure
    (``imports_tried``): one more way out, installing them."""


class _Unsafe(Exception):
    """A requirement the words cannot say without the risk of saying something wrong."""


# --- The tests that lead to a raise ---------------------------------------------------


def guards_of(record: Record) -> tuple[str, ...]:
    """The tests that lead to ``record``'s raise, outermost first, each one true when the
    error is raised (an ``else`` branch's as ``not (…)``), but for the tests of branches
    before it that end in a raise of their own: making one true avoids nothing.

    Read from the excerpt's enclosing ``if`` statements, as scan reads them from the
    whole file; where the excerpt does not reach the recorded condition, that alone."""
    return _guards(record)[0]


def _guards(record: Record) -> tuple[tuple[str, ...], list[int | None]]:
    """``guards_of``, and the line of the excerpt whose header each is read from (None
    for a test the record states, which the excerpt does not show)."""
    source = record.source
    chain: list[str] = []
    kept: list[str] = []
    innermost: tuple[str, ...] = ()
    kept_at: list[int] = []
    if source.excerpt is not None:
        at = source.line - source.excerpt.start
        chain, kept, innermost, kept_at = _enclosing(source.excerpt.lines, at)
    recorded = source.condition
    if recorded is None or (chain and any(_same(form, recorded) for form in innermost)):
        guards = tuple(kept)
    else:
        guards = (recorded,)
    return guards, list(kept_at) if tuple(kept) == guards else [None] * len(guards)


def anded(tests: Sequence[str]) -> list[str]:
    """``tests`` as they read joined by "and": each as ``plainly`` says it, and a test
    that binds looser than ``and`` (``a or b``, ``x if c else y``) in parentheses, where
    there is more than one. ``os.name == 'nt'`` and ``p.startswith('..') or '..' in p``
    is no ``a and b or c``."""
    said = [plainly(test) for test in tests]
    if len(said) < 2:
        return said
    return [f"({test})" if _looser_than_and(test) else test for test in said]


_NEGATED_COMPARISON: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
"""Comparisons whose ``not`` is another comparison, whatever the values (``not (a < b)``
is no ``a >= b`` for a NaN)."""


def plainly(test: str) -> str:
    """A test the way a reader reads it: an ``else`` branch's ``not (x is not None)`` as
    ``x is None``, ``not (dtype == 'auto')`` as ``dtype != 'auto'``, ``not not x`` as
    ``x``; any other test as it is written."""
    if not test.lstrip().startswith(("not", "(")):
        return test  # no ``not`` at its top: most tests, not parsed on every page
    node = _parsed(test.strip()) if len(test) <= MAX_PARSED else None
    if not isinstance(node, ast.UnaryOp) or not isinstance(node.op, ast.Not):
        return test
    inner = node.operand
    if isinstance(inner, ast.UnaryOp) and isinstance(inner.op, ast.Not):
        return _unparse(inner.operand) or test
    if isinstance(inner, ast.Compare) and len(inner.ops) == 1:
        opposite = _NEGATED_COMPARISON.get(type(inner.ops[0]))
        if opposite is not None:
            flipped = ast.Compare(inner.left, [opposite()], inner.comparators)
            return _unparse(flipped) or test
    return test


def _looser_than_and(test: str) -> bool:
    test = test.strip()
    node = _parsed(test) if len(test) <= MAX_PARSED else None
    if node is None:
        return " or " in test  # not Python as written: an ``or`` in it is read as one
    if test.startswith("(") and test.endswith(")") and _parsed(test[1:-1]) is not None:
        return False  # in parentheses already
    return isinstance(node, ast.BoolOp | ast.IfExp | ast.Lambda | ast.NamedExpr) and not (
        isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And)
    )


def _at_raise(record: Record) -> tuple[Sequence[str], int] | None:
    """The lines of ``record``'s excerpt and the index of its raise's line among them;
    None without an excerpt that holds it."""
    excerpt = record.source.excerpt
    if excerpt is None:
        return None
    index = record.source.line - excerpt.start
    return (excerpt.lines, index) if 0 <= index < len(excerpt.lines) else None


def handling_of(record: Record) -> tuple[str, ...]:
    """The exceptions the ``except`` clauses around ``record``'s raise catch, innermost
    first, up to its function (``("metadata.PackageNotFoundError",)``): the raise runs
    only once the code in their ``try`` has raised one. ``except:`` catches any."""
    found = _at_raise(record)
    if found is None:
        return ()
    lines, index = found
    caught: list[str] = []
    own = _EXCEPT.match(lines[index].strip())  # ``except KeyError: raise …`` on one line
    if own is not None and own.end() < len(lines[index].strip()):
        caught.append(own.group(1).strip("() ") or "any exception")
    indent = _indent(lines[index])
    for line in reversed(lines[:index]):
        text = line.strip()
        if not text or text.startswith("#") or _indent(line) >= indent:
            continue
        header = _HEADER.match(text)
        if header is None:
            continue  # inside the brackets of a statement above
        if header.group(1) in ("def", "class") or _DEF.match(text):
            break
        if header.group(1) == "except":
            handled = _EXCEPT.fullmatch(text)
            if handled is None:
                break  # a clause that runs on over lines: what it catches is not read
            caught.append(handled.group(1).strip("() ") or "any exception")
        indent = _indent(line)
    return tuple(caught)


_EXCEPT = re.compile(r"except\*?\s*(.*?)\s*(?:\bas\s+\w+)?\s*:\s*(?:#.*)?")
"""An ``except`` clause's header on one line, with what it catches."""


def _same(a: str, b: str) -> bool:
    """Whether two expressions are one, however spaced (most are written alike: 5,506
    of 6,081 on transformers' records, and then parse neither)."""
    if a == b:
        return True
    if len(a) + len(b) > MAX_PARSED:
        return False
    try:
        return ast.dump(ast.parse(a, mode="eval")) == ast.dump(ast.parse(b, mode="eval"))
    except (SyntaxError, ValueError, RecursionError):
        return False


_HEADER = re.compile(
    r"(if|elif|else|for|while|with|try|except|finally|def|class|async|match|case)\b"
)


def enclosing_tests(lines: Sequence[str], raise_index: int) -> list[str]:
    """The tests of the ``if`` statements around line ``raise_index`` of ``lines`` (an
    excerpt: it may start and end mid-statement), outermost first, up to the function."""
    return _enclosing(lines, raise_index)[0]


def _enclosing(
    lines: Sequence[str], raise_index: int
) -> tuple[list[str], list[str], tuple[str, ...], list[int]]:
    """``enclosing_tests``; those tests less the ones of branches before the raise's own
    that end in a raise; the innermost branch's test in each form scan records it
    (``_branch_tests``); and the line of the header each kept test is read from."""
    if not 0 <= raise_index < len(lines):
        return [], [], (), []
    end = _statement_end(lines, raise_index)
    if end is None:
        return [], [], (), []
    tests: list[str] = []
    kept: list[str] = []
    kept_at: list[int] = []
    innermost: tuple[str, ...] = ()
    line = lines[raise_index]
    indent = _indent(line)
    if _starts(line, "if"):  # ``if x: raise …`` on one line
        found = _branch_tests(lines, raise_index, end)
        if found is None:
            return [], [], (), []
        tests.extend(found[0][::-1])
        kept.extend(found[1][::-1])
        kept_at.extend([raise_index] * len(found[1]))
        innermost = found[2]
    index = raise_index - 1
    while index >= 0 and indent > 0:
        line = lines[index]
        if not line.strip() or line.lstrip().startswith("#") or _indent(line) >= indent:
            index -= 1
            continue
        keyword = _HEADER.match(line.lstrip())
        if keyword is None:
            # A continuation line of a statement that spans lines: not a block's start.
            index -= 1
            continue
        word = keyword.group(1)
        if word in ("def", "class", "async"):
            break
        if word in ("if", "elif", "else"):
            found = _branch_tests(lines, index, end)
            if found is None:
                break
            tests.extend(found[0][::-1])
            kept.extend(found[1][::-1])
            kept_at.extend([index] * len(found[1]))
            innermost = innermost or found[2]
        elif word in ("match", "case"):
            break
        indent = _indent(line)
        index -= 1
    return tests[::-1], kept[::-1], innermost, kept_at[::-1]


def _function_start(lines: Sequence[str], raise_index: int) -> int:
    """The line of the ``def`` (or ``class``) whose body holds line ``raise_index``, or
    0 when the excerpt starts inside it."""
    indent = _indent(lines[raise_index])
    for index in range(raise_index - 1, -1, -1):
        line = lines[index]
        if not line.strip() or _indent(line) >= indent:
            continue
        header = _HEADER.match(line.lstrip())
        if header is None:
            continue
        if header.group(1) in ("def", "class") or _DEF.match(line.lstrip()):
            return index
        indent = _indent(line)
    return 0


def _parameters(lines: Sequence[str], start: int) -> frozenset[str] | None:
    """The words of the signature at line ``start``, when a ``def`` starts there (none
    for a class's body); None when the excerpt does not hold it."""
    text = lines[start].lstrip()
    if text.startswith("class"):
        return frozenset()
    if not _DEF.match(text):
        return None
    signature = _signature_text(lines, start)
    named = _signature_names(signature)
    # A signature that does not parse alone (a one-line body after it): any of its words.
    return named if named is not None else frozenset(_WORDS.findall(signature))


def _signature_text(lines: Sequence[str], start: int) -> str:
    """The signature of the ``def`` at line ``start``, with a body of ``pass`` to parse."""
    end = _first_logical_line(lines[start : start + 200])
    return textwrap.dedent("\n".join(lines[start : start + 1 + (end or 0)])) + "\n    pass\n"


def _signature_names(text: str) -> frozenset[str] | None:
    """The parameter names of the function ``text`` defines first; None if it does not
    parse. Defaults and annotations name no parameter (``n=size`` gives ``n``)."""
    function = _defined(text)
    return None if function is None else frozenset(arg.arg for arg in arguments_of(function))


def _defined(text: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function ``text`` defines first; None if it does not parse."""
    if len(text) > MAX_PARSED:
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    first = tree.body[0] if tree.body else None
    return first if isinstance(first, ast.FunctionDef | ast.AsyncFunctionDef) else None


def arguments_of(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    """Every parameter of ``function``: positional, keyword-only, ``*args``, ``**kwargs``."""
    args = function.args
    every = (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg)
    return [a for a in every if a is not None]


def defaults_of(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
) -> list[tuple[ast.arg, ast.expr | None]]:
    """Each named parameter of ``function`` (positional, then keyword-only) with its
    default, None where it has none."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    return [
        *zip(positional, defaults, strict=True),
        *zip(args.kwonlyargs, args.kw_defaults, strict=True),
    ]


def none_defaults(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The parameters ``function`` gives a default of None (``def f(a, b=None)``: ``b``):
    a caller who passes none of them leaves them None."""
    return {
        arg.arg
        for arg, default in defaults_of(function)
        if isinstance(default, ast.Constant) and default.value is None
    }


_DEF = re.compile(r"(async\s+)?def\b")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _starts(line: str, word: str) -> bool:
    match = _HEADER.match(line.lstrip())
    return match is not None and match.group(1) == word


def _parse_block(lines: Sequence[str]) -> ast.Module | None:
    """``lines`` parsed as statements; a line indented less than the first can only be
    inside brackets, and is moved in so that the block dedents as a whole."""
    if not lines:
        return None
    base = _indent(lines[0])
    moved = [lines[0]] + [
        line if _indent(line) >= base or not line.strip() else " " * base + line.lstrip()
        for line in lines[1:]
    ]
    text = "\n".join(moved)
    if len(text) > MAX_PARSED:
        return None
    try:
        return ast.parse(textwrap.dedent(text))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _statement_end(lines: Sequence[str], start: int) -> int | None:
    """The last line of the statement that starts at ``start``: the first from which
    the lines parse, within 40 lines. None parse before its first logical line ends."""
    stop = min(len(lines), start + 40)
    first = _first_logical_line(lines[start:stop])
    for end in range(start + (first or 0), stop):
        if _parse_block(lines[start : end + 1]) is not None:
            return end
    return None


def _simple_statement(logical: Sequence[str]) -> ast.stmt | None:
    """The statement that ``logical`` (a logical line, ``_logical_line``) is, parsed,
    when it is the whole of it; None otherwise: a block's header does not parse alone,
    and binds nothing ``_bound`` reads."""
    tree = _parse_block(logical)
    return tree.body[0] if tree is not None and len(tree.body) == 1 else None


def _logical_line(lines: Sequence[str], start: int) -> Sequence[str] | None:
    """The lines of the logical line that starts at line ``start``, when it ends within
    40 lines (``_first_logical_line``)."""
    first = _first_logical_line(lines[start : start + 40])
    return None if first is None else lines[start : start + first + 1]


class _Statements:
    """The statements of one excerpt that may bind a name the tests read, each parsed
    once.

    Most statements above a raise bind no such name, and are not parsed: those with no
    ``=`` (calls, returns), and, given ``reads`` (the words of the tests), those where
    no name before the last ``=`` ends in one of them (the last word of a name a
    statement binds, ``x`` of ``self.x``, is always there). A statement that is not all
    ASCII is always parsed: Python reads a fullwidth ``tp`` as ``tp``, and ``\u2118`` has
    no word character at all."""

    def __init__(
        self, lines: Sequence[str], reads: AbstractSet[str] | None, first: int, stop: int
    ) -> None:
        self.lines = lines
        self.reads = None if reads is None else set(reads)
        # A line inside brackets starts no statement: a parameter of a signature written
        # a line each binds nothing yet (it is the caller's value), nor an argument.
        depths = _depths(lines[first:stop])
        self.parsed: dict[int, ast.stmt | None] = {
            first + i: None for i, depth in enumerate(depths) if depth
        }

    def follow(self, name: str) -> None:
        """Parse the statements not parsed yet that may bind ``name`` too (a name copied
        into one the tests read: what it holds is what the copy holds)."""
        if self.reads is not None:
            self.reads.add(name)

    def at(self, index: int) -> ast.stmt | None:
        if index not in self.parsed:
            self.parsed[index] = self._parse(index)
        return self.parsed[index]

    def _parse(self, index: int) -> ast.stmt | None:
        logical = _logical_line(self.lines, index)
        if logical is None:
            return None
        text = "\n".join(logical)
        cut = text.rfind("=")
        if cut < 0:
            return None
        if (
            self.reads is not None
            and text.isascii()
            and self.reads.isdisjoint(_LAST_WORDS.findall(text, 0, cut))
        ):
            return None
        return _simple_statement(logical)


_LAST_WORDS = re.compile(r"[^\W\d]\w*\b(?!\s*\.\s*[^\W\d])")
"""The words that end a dotted name, as ``x`` ends ``self.x``."""
_WORDS = re.compile(r"\w+")


_SCAN = re.compile(r"'''|\"\"\"|['\"#()\[\]{}]")
"""What the scan for a logical line's end stops at outside strings: quotes, a comment's
start and brackets."""
_CLOSE = {quote: re.compile(r"\\.|" + quote) for quote in ("'", '"', "'''", '"""')}
"""What ends a string opened with each quote (an escaped character does not)."""


def scan_line(line: str, depth: int, quote: str) -> tuple[int, str]:
    """The brackets open and the string left open (its quote, or "") after ``line``,
    given those before it; comments skipped, a bracket closed that was never opened
    counted as none."""
    at = 0
    while True:
        if quote:
            found = _CLOSE[quote].search(line, at)
            if found is None:
                return depth, quote
            at = found.end()
            if found.group() == quote:
                quote = ""
            continue
        found = _SCAN.search(line, at)
        if found is None or found.group() == "#":
            return depth, quote
        at = found.end()
        token = found.group()
        if token[0] in "'\"":
            quote = token
        elif token in "([{":
            depth += 1
        else:
            depth = max(0, depth - 1)


def _first_logical_line(lines: Sequence[str]) -> int | None:
    """How many lines after the first the first logical line of ``lines`` ends: where no
    bracket, string or backslash is left open (as Python's tokenizer tells); None when it
    does not end within them, or the first line is blank or a comment."""
    if not lines or not lines[0].strip() or lines[0].lstrip().startswith("#"):
        return None
    depth, quote = 0, ""
    for number, line in enumerate(lines):
        depth, quote = scan_line(line, depth, quote)
        if len(quote) == 1 and not line.endswith("\\"):
            return None  # a one-quote string left open at the end of its line
        if not quote and not depth and not line.endswith("\\"):
            return number
    return None


def _branch_tests(
    lines: Sequence[str], header: int, end: int
) -> tuple[list[str], list[str], tuple[str, ...]] | None:
    """The tests under which the branch starting at line ``header`` runs: an ``if``'s
    own; for an ``elif``, ``not (…)`` of the tests before it, then its own; for an
    ``else``, ``not (…)`` of them all. Then the same tests but for those of branches
    before it that end in a raise: making one true raises another error, which avoids
    nothing. Then the branch's test as scan records it (``source.condition``): its own,
    or for an ``else`` ``not (…)`` of the chain's tests but those of branches that raise
    (and ``not (…)`` of the test just before it, as scan recorded it before)."""
    line = lines[header]
    indent = _indent(line)
    word = _HEADER.match(line.lstrip())
    assert word is not None
    start = header
    if word.group(1) != "if":
        # Find the ``if`` that starts the chain, above at the same indent.
        start -= 1
        while start >= 0:
            above = lines[start]
            if above.strip() and not above.lstrip().startswith("#"):
                if _indent(above) < indent:
                    return None
                found = _HEADER.match(above.lstrip()) if _indent(above) == indent else None
                # A line at the same indent that starts no block continues a header
                # that spans lines (its closing bracket): read on.
                if found is not None and found.group(1) not in ("if", "elif"):
                    return None
                if found is not None and found.group(1) == "if":
                    break
            start -= 1
        if start < 0:
            return None
    tree = _parse_block(list(lines[start : end + 1]))
    if tree is None or not tree.body or not isinstance(tree.body[0], ast.If):
        return None
    before: list[ast.expr] = []
    raising: list[bool] = []
    node: ast.stmt = tree.body[0]
    own: ast.expr | None = None
    while isinstance(node, ast.If):
        if node.lineno - 1 == header - start and word.group(1) != "else":
            own = node.test
            break
        before.append(node.test)
        raising.append(always_raises(node.body))
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) and is_elif(node):
            node = node.orelse[0]
        else:
            break
    if own is None and word.group(1) != "else":
        return None
    not_before = _none_of(before)
    not_before_kept = _none_of([t for t, r in zip(before, raising, strict=True) if not r])
    # An ``else``'s as scan records it: ``not (…)`` of the chain's tests but those whose
    # branch raises; as an errdex before 2026-12-07 recorded it, of the test before it.
    recorded = _unparse(own) if own is not None else _none_of(before[-1:])
    if not_before is None or not_before_kept is None or not recorded:
        return None
    own_test = recorded if own is not None else ""  # an ``else`` has none of its own
    tests = [t for t in (not_before, own_test) if t]
    kept = [t for t in (not_before_kept, own_test) if t]
    forms = (recorded,) if own is not None else (not_before_kept, recorded)
    return tests, kept, tuple(form for form in forms if form)


def always_raises(body: list[ast.stmt]) -> bool:
    """Whether ``body`` ends in a raise on every path through its last statement (an
    ``if`` whose branches all do, a ``with`` whose body does)."""
    last = body[-1]
    if isinstance(last, ast.If):
        return bool(last.orelse) and always_raises(last.body) and always_raises(last.orelse)
    if isinstance(last, ast.With | ast.AsyncWith):
        return always_raises(last.body)
    return isinstance(last, ast.Raise)


def _none_of(tests: list[ast.expr]) -> str | None:
    """``not (a or b)`` of ``tests``: "" for none, None for one Python cannot write."""
    if not tests:
        return ""
    text = _unparse(tests[0] if len(tests) == 1 else ast.BoolOp(op=ast.Or(), values=tests))
    return None if text is None else f"not ({text})"


def is_elif(node: ast.If) -> bool:
    inner = node.orelse[0]
    return isinstance(inner, ast.If) and inner.col_offset == node.col_offset


def _unparse(node: ast.AST) -> str | None:
    try:
        return ast.unparse(node)
    except (ValueError, RecursionError):
        return None


def aliases_of(
    record: Record,
    reads: AbstractSet[str] | None = None,
    tested: dict[str, set[int]] | None = None,
    at: int | None = None,
) -> dict[str, str | None]:
    """The names that statements on the way to the raise bind: each to the setting it
    reads (``tp = self.tensor_parallel_size``), or to None where the name no longer holds
    what the caller gave (``names = [names]``, ``size += 1``, a parameter worked out
    anew): a test of it says nothing of what the user can set.

    A name the code works out anew under a test of what it held (``if n is None: n =
    count(x)``) is None too; ``tested`` then gets the lines of the headers of those tests,
    which read the caller's ``n``, by the name. ``at``: the names as the statements above
    that line of the excerpt (a test's header) leave them, instead of the raise's.

    Only statements that run before the raise count: those of the blocks that enclose
    it, not those inside an earlier branch. Given ``reads`` (the words of the tests that
    use the names), only names whose last word is among them are sure to be found."""
    excerpt = record.source.excerpt
    if excerpt is None:
        return {}
    lines = excerpt.lines
    raise_index = record.source.line - excerpt.start if at is None else at
    if not 0 <= raise_index < len(lines):
        return {}
    found: dict[str, str | None] = {}
    indent = _indent(lines[raise_index])
    first = _function_start(lines, raise_index)
    """Where the function starts, or the excerpt where it starts above it."""
    on_path: set[int] = set()
    statements = _Statements(lines, reads, first, raise_index)
    called = False
    """Whether a call runs between a statement and the raise: it may set any attribute."""
    parameters = _parameters(lines, first)
    copies: dict[str, tuple[str, int]] = {}
    """Names bound to another plain name (``self.dim = dim``), and where: they hold what
    it held there."""
    negations: dict[str, tuple[str, int]] = {}
    """Names bound to ``not`` of another, and where."""
    worked_out: set[str] = set()
    """Names bound to a value the code works out on the way to the raise."""
    seen_at: dict[str, set[int]] = {}
    """Where the statements read bind each name."""
    for index in range(raise_index - 1, -1, -1):
        line = lines[index]
        text = line.strip()
        at = _indent(line)
        if not text or text.startswith("#") or at > indent:
            continue
        if ":=" in text:
            logical = _logical_line(lines, index) or [line]
            for name in _walrus_names(textwrap.dedent("\n".join(logical)).strip()):
                found.setdefault(name, COMPUTED)  # ``(m := compute(x))``
        if at < indent:
            header = _HEADER.match(text)
            if header is None:
                continue  # a line inside the brackets of a statement above
            if header.group(1) in ("def", "class") or _DEF.match(text):
                break  # the function's start, ``first``
            for name in _header_targets(text):
                found.setdefault(name, COMPUTED)  # a loop's item, a context, an exception
            for name in [n for n in worked_out if _says(text, n)]:
                found[name] = None
                if tested is not None:
                    tested.setdefault(name, set()).add(index)
            indent = at
            continue
        statement = statements.at(index)
        if statement is None:
            for name in _header_targets(text):
                found.setdefault(name, COMPUTED)  # bound by a block before the raise
            called = called or _calls(text)
            continue
        on_path.add(index)
        target = None
        if isinstance(statement, ast.Assign | ast.AnnAssign):
            target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target
        # ``self.x = …`` as well as ``x = …``; but an attribute holds what it was given
        # only until a call (``self._setup()``, ``setattr``) or a new object in place
        # of its own (``self.attn = …``), nearer the raise.
        single = isinstance(target, ast.Name) or (
            isinstance(target, ast.Attribute)
            and not called
            and not any(n.startswith(f"{k}.") for k in found for n in _target_names(target))
        )
        called = called or _calls(text)
        for name, value in _bound(statement):
            seen_at.setdefault(name, set()).add(index)
            if name in found:
                continue  # a nearer statement already said what it holds
            if value is not None and _fills(name, value):
                found[name] = DEFAULTED
            elif value is None or _mentions(value, name):
                found[name] = None
            elif (
                single
                and isinstance(value, ast.Name)
                and value.id not in found
                and not (_CAPS.match(value.id) and value.id not in (parameters or ()))
            ):
                # What ``value`` holds here is what its bindings above give it (one
                # nearer the raise, found already, came after the copy: then it is
                # said as the code names it).
                found[name] = value.id
                copies[name] = (value.id, index)
                statements.follow(value.id)
            elif single and isinstance(value, ast.Attribute) and (read := _dotted(value)):
                found[name] = read
                if read not in found:
                    # Bound in the excerpt above (``self.dec = not x`` then ``self.enc =
                    # self.dec``), it holds what that binding gave it: followed as a copy.
                    copies[name] = (read, index)
                    statements.follow(read.rsplit(".", 1)[-1])
            elif (
                single
                and isinstance(value, ast.BinOp)
                and isinstance(value.op, ast.FloorDiv)
                and (quotient := _unparse(value)) is not None
                and not _names(value) & found.keys()  # none rebound after it, nearer the raise
            ):
                found[name] = QUOTIENT + quotient  # ``head_dim = dim // heads``
            elif (
                single
                and isinstance(value, ast.UnaryOp)
                and isinstance(value.op, ast.Not)
                and (negated := _dotted(value.operand)) is not None
                and not _names(value.operand) & found.keys()  # none rebound nearer the raise
            ):
                found[name] = NEGATED + negated  # ``self.is_decoder = not config.is_encoder``
                negations[name] = (negated, index)
                statements.follow(negated.rsplit(".", 1)[-1])
            else:
                found[name] = COMPUTED  # worked out here (``a, b = x.shape``): no setting
                worked_out.add(name)
    for name in worked_out & (parameters or frozenset()):
        found[name] = None  # a parameter worked out anew (``count = count_of(scale)``)
    walked = dict(found)
    changes = _changes(lines, first, raise_index, on_path, statements)
    reshaped = {name for _, name, remade in changes if remade}
    defaulted = {name for _, name, remade in changes if not remade} - reshaped
    for name in reshaped:
        found[name] = None
    for name in defaulted:
        if found.get(name, "") is not None:
            found[name] = DEFAULTED
    changed = reshaped | defaulted
    # A copy holds what its name held where it was made: as the statements above it
    # left it (a setting, another copy's, or a value the code may put in place of the
    # caller's), which later bindings of that name do not change. It is said as the
    # code names it (a value worked out here) when the code reshaped the name above
    # it, changes it in place below it (``layers.append(x)``, ``layers += x``), or read
    # it from something bound anew since (``a = self.size`` … ``self.size = other``).
    held: dict[str, str | None] = {}
    for name, (copied, index) in sorted(copies.items(), key=lambda item: item[1][1]):
        above = [remade for at, bound, remade in changes if at < index and bound == copied]
        holds = held.get(copied, walked.get(copied, copied))
        if (
            holds is None
            or any(above)
            # With the signature in view, a name it does not give and no line above
            # binds is a module's (``n = default_size``): no setting of the caller's.
            or (
                parameters is not None
                and "." not in copied
                and copied not in parameters
                and copied not in walked
                and copied not in held
            )
            or _changed_in_place(lines[index + 1 : raise_index], copied)
            or _changed_in_place(lines[index + 1 : raise_index], name)
            or (not holds.startswith("\0") and holds != copied and _bound_anew(holds, walked))
        ):
            holds = COMPUTED
        elif above or holds == DEFAULTED:
            holds = f"{DEFAULTED} {copied}"  # said as the name it copies
        held[name] = holds
        if found.get(name) == copied:
            found[name] = holds
    for name, (source, index) in {**copies, **negations}.items():
        # ``if c: n = other`` below a copy into ``n``, or ``if c: dim = 0`` above the
        # copy of ``dim``: bound where no statement is read, so not followed.
        if found.get(name, "") and (
            _bound_unseen(lines, first, index, source, _seen(source, seen_at, changes))
            or _bound_unseen(lines, index + 1, raise_index, name, _seen(name, seen_at, changes))
        ):
            found[name] = COMPUTED
    for name, alias in found.items():
        if alias and alias.startswith(QUOTIENT) and _names(_parsed(alias)) & changed:
            found[name] = COMPUTED  # what it divides may not be what it was then
    return found


def _says(text: str, name: str) -> bool:
    """Whether the code ``text`` names ``name`` (``n`` or ``self.n``), outside its strings
    (``"n" in kwargs`` reads a key, not ``n``)."""
    if name not in text:
        return False
    code = _STRINGS.sub("''", text)
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", code) is not None


_STRINGS = re.compile(r"'[^'\\]*(?:\\.[^'\\]*)*'|\"[^\"\\]*(?:\\.[^\"\\]*)*\"")


def _seen(
    name: str, seen_at: Mapping[str, set[int]], changes: Sequence[tuple[int, str, bool]]
) -> set[int]:
    """The lines where the statements read bind ``name``."""
    return seen_at.get(name, set()) | {at for at, bound, _ in changes if bound == name}


_CALL = re.compile(r"(?:await\s+)?[^\W\d][\w.]*\s*\(")
_HARMLESS = ("logger.", "logging.", "warnings.", "print(", "log.")


def _calls(text: str) -> bool:
    """Whether the statement ``text`` is a call, which may change any attribute (a log
    line changes none)."""
    return bool(_CALL.match(text)) and not text.startswith(_HARMLESS)


def _names(node: ast.expr | None) -> set[str]:
    """The names and dotted attributes ``node`` reads (``self.dim`` and ``self``)."""
    if node is None:
        return set()
    return {
        dotted
        for inner in ast.walk(node)
        if isinstance(inner, ast.Name | ast.Attribute) and (dotted := _dotted(inner)) is not None
    }


def _parsed(alias: str) -> ast.expr | None:
    """The expression a ``QUOTIENT`` alias holds; None if it does not parse."""
    try:
        return ast.parse(alias.removeprefix(QUOTIENT), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


COMPUTED = "\0computed"
"""``aliases_of``'s mark of a name the code works out before the raise: no setting, so
the words name it as the code writes it (``self.heads``), with no flag."""
QUOTIENT = "\0quotient "
"""``aliases_of``'s mark of a name the code binds to ``a // b``, followed by that
expression: ``x * b != a`` then asks whether ``b`` divides ``a``."""
NEGATED = "\0not "
"""``aliases_of``'s mark of a name the code binds to ``not x``, followed by ``x``: a test
of the name is said as the opposite test of ``x``."""
DEFAULTED = "\0defaulted"
"""``aliases_of``'s mark of a name the code may give a value of its own: a way out must
not rest on the caller leaving it unset, false or merely different from something."""


def _mentions(value: ast.expr, name: str) -> bool:
    """Whether ``value`` reads ``name`` (a name, or a dotted ``self.x``)."""
    return any(
        isinstance(node, ast.Name | ast.Attribute) and _dotted(node) == name
        for node in ast.walk(value)
    )


def _changes(
    lines: Sequence[str], start: int, stop: int, on_path: set[int], statements: _Statements
) -> list[tuple[int, str, bool]]:
    """Where statements from ``start`` to ``stop`` change a name, each as (its line, the
    name, True) for one made from itself (``x = [x]``, ``x = x.flatten()``, ``x += 1``):
    the test then sees something other than what the caller gave; or (…, False) for one
    that may be given a value of the code's own in place of the caller's (``x = x if x
    is not None else default``, ``x = x or default``, or any value in a branch that may
    run): the test sees the caller's value only when the caller gives one."""
    found: list[tuple[int, str, bool]] = []
    for index in range(start, stop):
        text = lines[index].strip()
        if "=" not in text or text.startswith("#"):
            continue
        # None for a line inside brackets: an argument ``size=size,`` binds nothing.
        statement = statements.at(index)
        if statement is None:
            continue
        for name, value in _bound(statement):
            if value is not None and _fills(name, value):
                found.append((index, name, False))
            elif value is None or _mentions(value, name):
                found.append((index, name, True))
            elif index not in on_path:
                found.append((index, name, False))
    return found


def _changed_in_place(lines: Sequence[str], name: str) -> bool:
    """Whether ``lines`` may change what ``name`` holds in place: a method called on it
    (``name.append(x)``), an item or attribute set in it, an augmented assignment
    (``name += x``, which grows a list the copy shares), or a function of the standard
    library that changes the list it is given (``heapq.heappush(name, x)``)."""
    text = "\n".join(lines)
    if name not in text:
        return False
    if any(
        found.group(1) == name
        and (found.group(2) is None or _mutates(found.group(2)) or "inplace=True" in line)
        for line in lines
        if name in line
        for found in _IN_PLACE.finditer(line)
    ):
        return True
    if not _MAY_CHANGE.search(text):
        return False  # no ``del`` and none of those functions: no pattern of the name
    word = re.escape(name)
    changes = re.compile(rf"\bdel\s+{word}\s*[\[.]|{_CHANGES_ITS_LIST}\s*\(\s*{word}\s*[,)]")
    return bool(changes.search(text))  # a call may run over lines


_CHANGES_ITS_LIST = (
    r"(?<![\w.])(?:[\w.]+\.)?"
    r"(?:heappush|heappop|heapify|heapreplace|heappushpop|shuffle|insort(?:_left|_right)?)"
)
"""The functions that change the list they are given first: heapq's, bisect's insorts,
and the shuffles of random and numpy (``rng.shuffle(items)``)."""
_MAY_CHANGE = re.compile(rf"\bdel\s|{_CHANGES_ITS_LIST}\s*\(")


_IN_PLACE = re.compile(
    r"(?<![\w.])([^\W\d][\w.]*?)\s*(?:\.\s*(\w+)\s*\(|\[[^\]]*\]\s*=(?!=)"
    r"|\.\s*\w+\s*=(?!=)|(?:\*\*|//|>>|<<|[-+*/%&|^@])=)"
)
"""A name, then what may change what it holds in place: a method called (group 2), an
item or an attribute set, an augmented assignment."""
_MUTATORS = frozenset(
    [
        "append",
        "extend",
        "insert",
        "remove",
        "pop",
        "popitem",
        "clear",
        "update",
        "add",
        "discard",
        "setdefault",
        "sort",
        "reverse",
        "fill",
        "resize",
        "appendleft",
        "extendleft",
        "popleft",
        "rotate",
        "put",
        "itemset",
        "write",
        "writelines",
    ]
)


def _mutates(method: str) -> bool:
    """Whether a method of that name changes its object: a list's, dict's or set's own,
    or an in-place tensor method (``add_``, ``zero_``)."""
    return (
        method in _MUTATORS
        or method.endswith("_update")  # a set's ``difference_update``
        or (method.endswith("_") and not method.startswith("_"))
    )


def _bound_unseen(lines: Sequence[str], start: int, stop: int, name: str, seen: set[int]) -> bool:
    """Whether a line from ``start`` to ``stop`` but those of ``seen`` may bind ``name``
    (what a copy below them holds): a one-line ``if x: name = …``, ``a; name = …``, a
    walrus, an import, ``del``."""
    if "." in name:
        return False
    texts = [lines[i] for i in range(start, stop) if i not in seen and name in lines[i]]
    if not texts:
        return False
    binds = _binding(name)
    return any(binds.search(text) for text in texts)


def _binding(name: str) -> re.Pattern[str]:
    word = re.escape(name)
    return re.compile(
        rf"(?<![\w.]){word}\s*:=|(?:^|[:;])\s*(?:[\w.]+\s*,\s*)*{word}\s*(?:,[\w\s.,]*)?=(?!=)"
        rf"|\bimport\b.*(?<![\w.]){word}\b|\bdel\s+{word}\b"
    )


def _bound_anew(read: str, walked: Mapping[str, str | None]) -> bool:
    """Whether the setting ``read`` (``self.size``, ``config.dim``), or what it is read
    from, is bound in the excerpt: a copy of it may hold what it held before."""
    parts = read.split(".")
    return any(".".join(parts[:n]) in walked for n in range(1, len(parts) + 1))


def _fills(name: str, value: ast.expr) -> bool:
    """Whether ``value`` is ``name`` itself or a default in its place: ``name if … else
    d``, ``d if … else name``, ``name or d``."""
    if isinstance(value, ast.IfExp):
        sides = (value.body, value.orelse)
        mine = [isinstance(side, ast.Name) and side.id == name for side in sides]
        return any(mine) and not any(
            _mentions(side, name) for side, own in zip(sides, mine, strict=True) if not own
        )
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        first = value.values[0]
        return (
            isinstance(first, ast.Name)
            and first.id == name
            and not any(_mentions(v, name) for v in value.values[1:])
        )
    return False


def _depths(lines: Sequence[str]) -> list[int]:
    """How many brackets are open where each line starts (strings and comments skipped).
    An excerpt may start inside brackets (the arguments of a call, a signature: a
    parenthesis or square bracket is closed that it never opened), or inside a
    docstring (``_docstring_left_open``): its lines up to the docstring's end count
    one more."""
    quote = _docstring_left_open(lines)
    started, final = _counted(lines, quote)
    lowest = min([final] + [at for at, _ in started])
    if lowest < _UNOPENED:
        # Told by parentheses and square brackets only: a brace closed that was never
        # opened may end a Python 3.12 f-string's field written over two lines.
        braceless = [line.replace("{", " ").replace("}", " ") for line in lines]
        counted, last = _counted(braceless, quote)
        lowest = min([last] + [at for at, _ in counted])
    if final > lowest:
        # Brackets left open where the raise starts a statement: one was opened in
        # text the count took for code (a docstring's "(see below"). Trust none.
        return [int(inside) for _, inside in started]
    return [max(0, at - lowest) + inside for at, inside in started]


def _counted(lines: Sequence[str], quote: str) -> tuple[list[tuple[int, bool]], int]:
    """Where each line starts (brackets open, counted from ``_UNOPENED``, and whether
    inside the docstring of ``quote``), and the brackets open after the last."""
    started: list[tuple[int, bool]] = []
    depth = _UNOPENED
    in_docstring = bool(quote)
    for line in lines:
        started.append((depth, in_docstring))
        depth, quote = scan_line(line, depth, quote)
        in_docstring = in_docstring and bool(quote)
        if len(quote) == 1 and not line.endswith("\\"):
            quote = ""  # a one-quote string ends with its line, unless continued
    return started, depth


def _docstring_left_open(lines: Sequence[str]) -> str:
    """The quotes of a docstring ``lines`` start inside, or "": where the first line
    that holds triple quotes holds them alone, and the line above it does not open a
    block (a docstring's own first line would follow its ``def``)."""
    above = ""
    for line in lines:
        text = line.strip()
        if '"""' in text or "'''" in text:
            alone = text in ('"""', "'''")
            # Not after a line that opens a block, or a call, a list or a value the
            # quotes would be an argument of (``logger.warning(`` then ``"""``).
            return text if alone and above and not above.endswith(_OPENS) else ""
        if text and not text.startswith("#"):
            above = text.partition(" #")[0].rstrip()
    return ""


_OPENS = (":", "(", "[", "{", ",", "=")


_UNOPENED = 1 << 20
"""Brackets counted as open before an excerpt, so that a close it never opened counts."""


_LOOP = re.compile(r"(?:async\s+)?for\s+(.+?)\s+in\b")
_AS = re.compile(r"(?:(?:async\s+)?with|except)\b.*?\bas\s+([^\W\d]\w*)")


def _header_targets(text: str) -> list[str]:
    """The names a block's header binds: a ``for`` loop's targets (``a, (b, c)``), the
    first ``as`` name of a ``with`` or an ``except``."""
    loop = _LOOP.match(text)
    if loop is not None:
        try:
            tree = ast.parse(f"for {loop.group(1)} in ():\n    pass")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return []
        node = tree.body[0]
        return _target_names(node.target) if isinstance(node, ast.For) else []
    named = _AS.match(text)
    return [named.group(1)] if named is not None else []


def _walrus_names(text: str) -> list[str]:
    """The names a line binds with ``:=`` (none in a string, or in a lambda's own scope),
    read from the line parsed as a statement or as a block's header."""
    if len(text) > MAX_PARSED:
        return []
    for source in (text, text + "\n    pass", "if 1:\n    pass\n" + text + "\n    pass"):
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        in_lambda = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.Lambda)
            for inner in ast.walk(node.body)
        }
        return [
            node.target.id
            for node in ast.walk(tree)
            if isinstance(node, ast.NamedExpr)
            and isinstance(node.target, ast.Name)
            and id(node) not in in_lambda
        ]
    return []


def _bound(statement: ast.stmt) -> list[tuple[str, ast.expr | None]]:
    """The names a statement binds (``x``, or ``self.x`` for an attribute), each with the
    value it gives them (None for one that changes it in place, ``x += 1``). An item
    set in place (``x[0] = …``) binds nothing."""
    if isinstance(statement, ast.Assign):
        # ``a, b = value``: each name gets a part of what ``value`` works out.
        return [
            (name, statement.value)
            for target in statement.targets
            for name in _target_names(target)
        ]
    if isinstance(statement, ast.AnnAssign):
        names = _target_names(statement.target)
        return [(name, statement.value) for name in names] if statement.value else []
    if isinstance(statement, ast.AugAssign):
        return [(name, None) for name in _target_names(statement.target)]
    return []


def _target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Attribute):
        dotted = _dotted(target)
        return [dotted] if dotted else []
    if isinstance(target, ast.Tuple | ast.List):
        return [name for element in target.elts for name in _target_names(element)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return []


# --- Ways out -------------------------------------------------------------------------


def guarded(record: Record) -> tuple[tuple[str, ...], Avoid | None]:
    """``guards_of(record)`` and ``avoid_of(record)``, the excerpt's headers read once."""
    guards, headers = _guards(record)
    return guards, _avoid(record, guards, headers)


def avoid_of(record: Record) -> Avoid | None:
    """How ``record``'s error is avoided, or None where its tests cannot be said safely.
    A raise in the handling of a failed import (``try: import rjieba`` / ``except
    ImportError: raise …``) is avoided by installing what the ``try`` imports, too."""
    return guarded(record)[1]


def _avoid(record: Record, guards: tuple[str, ...], headers: list[int | None]) -> Avoid | None:
    """``avoid_of``, given ``guards_of(record)`` and the line of the header each is read
    from (``_guards``)."""
    imports = imports_tried(record)
    install = Way(tuple(Term("installed", Operand(name, literal=True)) for name in imports))
    if not guards:
        return Avoid(guards, (install,), imports) if imports else None
    tests = " ".join(guards)
    # A test written by hand may spell a name otherwise than Python reads it: no filter.
    reads = frozenset(_WORDS.findall(tests)) if tests.isascii() else None
    tested: dict[str, set[int]] = {}
    aliases = aliases_of(record, reads, tested)
    each = None
    if tested:  # the tests above where a name is worked out anew read what it held there
        above = set().union(*tested.values())
        held = {at: aliases_of(record, reads, at=at) for at in above}
        each = [held.get(at, aliases) if at is not None else aliases for at in headers]
    filled = _filled(record, aliases)
    if filled:  # the code's own bookkeeping: no test of it is the user's to pass
        aliases = {**aliases, **dict.fromkeys(filled)}
        each = [{**held, **dict.fromkeys(filled)} for held in each] if each else each
    callers = _callers(record)
    signature = _signature(record)
    ways = ways_out(
        guards,
        aliases,
        each,
        callers or frozenset(),
        private=callers is None,
        given=_given(record, callers or frozenset(), signature),
        dead=_dead_ends(record, headers),
        state=_protocol(record.source.function),
        starred=_starred(signature),
    )
    ways = (*ways, install) if imports else ways
    return Avoid(guards, ways, imports) if ways else None


def _filled(record: Record, aliases: Mapping[str, str | None]) -> list[str]:
    """The names the code binds to a new, empty collection and fills on the way to the
    raise (``dims = {}``, then ``dims[dim] = size`` in a loop): a test of what they hold,
    ``dim not in dims``, is the code's bookkeeping, which no caller's value changes."""
    found = _at_raise(record)
    if found is None:
        return []
    lines, index = found
    above = lines[_function_start(lines, index) : index]
    empty = {bound.group(1) for line in above if (bound := _EMPTY_COLLECTION.match(line))}
    return [
        name
        for name in sorted(empty)
        if aliases.get(name) == COMPUTED and _changed_in_place(above, name)
    ]


_EMPTY_COLLECTION = re.compile(
    r"^\s*(\w+)\s*(?::[^=]*)?=\s*(?:\{\}|\[\]|(?:set|dict|list|(?:collections\.)?"
    r"(?:defaultdict|OrderedDict|Counter|deque))\([^()]*\))\s*(?:#.*)?$"
)
"""A line that binds a name to a new, empty collection."""


def _protocol(function: str | None) -> bool:
    """Whether ``function`` (``Array.__bool__``) is a method Python calls for an operation
    on the object, where its attributes are its state: not one that sets it up."""
    name = (function or "").rpartition(".")[2]
    return (
        name.startswith("__")
        and name.endswith("__")
        and name not in ("__init__", "__post_init__", "__new__", "__call__", "__init_subclass__")
    )


def _dead_ends(record: Record, headers: Sequence[int | None]) -> frozenset[int]:
    """Which of the guards read from ``headers`` (the line of each, ``_guards``) are the
    own test of an ``if`` or ``elif`` that, made false, only reaches another raise: each
    branch after it in its chain raises, and so does its ``else``, or the statement after
    the chain (``if isinstance(other, GroupBy): raise TypeError(…)`` then ``raise
    NotImplementedError()``; dask's ``elif engine is None: raise …`` before ``else:
    raise ValueError(…)``)."""
    found = _at_raise(record)
    if found is None:
        return frozenset()
    lines, index = found
    indent = _indent(lines[index])
    if not any(
        _indent(line) < indent and line.lstrip().startswith(("raise", "elif", "else"))
        for line in lines[index + 1 :]
    ):
        return frozenset()  # no raise nor branch after this block: the common case, told cheaply
    # A header's own test is the last of its tests (an ``elif``'s ``not (…)`` of the
    # tests before it come first: making one true enters a branch before, not after).
    own = {header: number for number, header in enumerate(headers) if header is not None}
    return frozenset(number for header, number in own.items() if _falls_into_raise(lines, header))


def _falls_into_raise(lines: Sequence[str], at: int) -> bool:
    """Whether the ``if`` or ``elif`` at line ``at``, its test false, reaches only raises:
    every branch after it raises, and the chain has an ``else`` or the statement after it
    is a raise (a bare ``raise`` in a handler too). False where the excerpt ends first."""
    if not (_starts(lines[at], "if") or _starts(lines[at], "elif")):
        return False
    indent = _indent(lines[at])
    header = at
    while True:
        logical = _logical_line(lines, header)
        if logical is None:
            return False
        start = header + len(logical)
        end = start
        while end < len(lines):  # a statement at a time: its later lines may be any indent
            if not lines[end].strip() or lines[end].lstrip().startswith("#"):
                end += 1
                continue
            if _indent(lines[end]) <= indent:
                break
            inside = _logical_line(lines, end)
            if inside is None:
                return False
            end += len(inside)
        if header != at:
            body = _parse_block(lines[start:end])
            if body is None or not body.body or not _only_raises(body.body):
                return False
            if _starts(lines[header], "else"):
                return True
        if end >= len(lines) or _indent(lines[end]) < indent:
            return False
        if _starts(lines[end], "elif") or _starts(lines[end], "else"):
            header = end
            continue
        after = _logical_line(lines, end)
        statement = _simple_statement(after) if after is not None else None
        return isinstance(statement, ast.Raise)


def _only_raises(body: list[ast.stmt]) -> bool:
    """Whether ``body`` ends in a raise on every path and never leaves it before: no
    ``return``, ``break`` or ``continue`` of its own (``if fallback is not None: return
    fallback`` above the raise is a way out)."""
    if not always_raises(body):
        return False
    left = (ast.Return, ast.Break, ast.Continue)
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, left):
            return False
        if not isinstance(node, nested):
            stack.extend(ast.iter_child_nodes(node))
    return True


def imports_tried(record: Record) -> tuple[str, ...]:
    """The modules the ``try`` around ``record``'s raise imports, when the raise is in
    its ``except`` of ``ImportError`` or ``ModuleNotFoundError``: what is missing if the
    raise runs (``rjieba`` of ``try: import rjieba``; ``a`` of ``from a.b import c``).
    None where the clause or its ``try`` is not in the excerpt, or where it catches more
    than a failed import (``except (ImportError, AttributeError)``). Only the imports of
    the ``try``'s own block count (not of a block inside it, whose failure may be
    handled there), and none of Python's own modules nor of the record's package (its
    repository's name, or the first folder of its path: ``widgets._native``)."""
    found = _at_raise(record)
    if found is None:
        return ()
    lines, index = found
    indent = _indent(lines[index])
    at = index
    # The innermost clause around the raise: the first header above it, less indented,
    # past the ``if`` statements inside the clause (the raise runs only once the import
    # failed, whatever else they test).
    branched = False
    while at > 0:
        at -= 1
        text = lines[at].strip()
        below = text and not text.startswith("#") and _indent(lines[at]) < indent
        header = _HEADER.match(text) if below else None
        if header is None:
            continue
        if header.group(1) not in ("if", "elif", "else"):
            break
        branched = True
        indent = _indent(lines[at])
    handled = _EXCEPT.fullmatch(lines[at].strip())
    caught = handled.group(1).strip("() ").split(",") if handled is not None else [""]
    if not all(_IMPORT_ERRORS.fullmatch(name.strip()) for name in caught):
        return ()
    bound = _BOUND_ERROR.search(lines[at])
    if (
        bound is not None
        and branched
        and any(_says(line, bound.group(1)) for line in lines[at + 1 : index])
    ):
        # ``if "shard_checkpoint" in str(exc)`` (or its ``else``, or ``msg = str(exc)``
        # read below): the import failed in a way of its own, as a module that is
        # installed but broken does.
        return ()
    clause = _indent(lines[at])
    body: list[str] = []
    while at > 0:
        at -= 1
        text = lines[at].strip()
        if not text or text.startswith("#") or _indent(lines[at]) > clause:
            body.append(lines[at])
            continue
        if _indent(lines[at]) < clause or text.startswith(("def ", "class ")):
            return ()
        if text == "try:":
            break
        if not text.startswith("except"):
            return ()  # a line of the clause's own level that is no header: not a try
        body = []  # another clause of the same try, above this one: its body goes
    else:
        return ()
    level = min((_indent(line) for line in body if line.strip()), default=0)
    # Only the lines of the try's own block: an import in a block of its own (a nested
    # try) may have its failure handled there.
    modules = [m for line in reversed(body) if _indent(line) == level for m in _imported(line)]
    own = {package_of(record.repo)}
    own.add(module_of(record.source.path))
    tops = ((installed_as(module), module.partition(".")[0]) for module in modules)
    return tuple(
        dict.fromkeys(
            name
            for name, top in tops
            if top and top not in own and top.lower() not in own and top not in _STDLIB
        )
    )


def _imported(line: str) -> list[str]:
    """The modules an import statement on ``line`` imports: every one of ``import a, b as
    c``; of ``from a.b import c``, ``a.b``, but ``google.genai`` of ``from google import
    genai`` (a namespace's module, not the namespace); none for any other line."""
    text = line.strip()
    if found_from := _FROM.match(text):
        module = found_from.group(1)
        names = text[found_from.end() :].split("#")[0].strip(" ()\\")
        if module in NAMESPACES and names:
            return [f"{module}.{part.split()[0]}" for part in names.split(",") if part.strip()]
        return [module]
    if found_import := _IMPORT.match(text):
        return [part.split()[0] for part in found_import.group(1).split(",") if part.strip()]
    return []


_BOUND_ERROR = re.compile(r"\bas\s+(\w+)\s*:")
"""The name an ``except`` clause binds its exception to."""
_IMPORT_ERRORS = re.compile(r"(?:[\w.]+\.)?(?:ImportError|ModuleNotFoundError)")
_FROM = re.compile(r"from\s+([^\W\d][\w.]*)\s+import\b")
"""``from a.b import c``; not one of its own package (``from . import x``)."""
_IMPORT = re.compile(
    r"import\s+([^\W\d][\w.]*(?:\s+as\s+\w+)?(?:\s*,\s*[^\W\d][\w.]*(?:\s+as\s+\w+)?)*)\s*(?:#.*)?$"
)
"""``import a, b as c``: every module it names."""
DISTRIBUTIONS = {
    "Bio": "biopython",
    "Crypto": "pycryptodome",
    "Cryptodome": "pycryptodomex",
    "MySQLdb": "mysqlclient",
    "OpenSSL": "pyOpenSSL",
    "PIL": "Pillow",
    "attr": "attrs",
    "bs4": "beautifulsoup4",
    "cv2": "opencv-python",
    "dateutil": "python-dateutil",
    "docx": "python-docx",
    "dotenv": "python-dotenv",
    "fitz": "PyMuPDF",
    "gi": "PyGObject",
    "git": "GitPython",
    "jose": "python-jose",
    "jwt": "PyJWT",
    "google.protobuf": "protobuf",
    "magic": "python-magic",
    "nacl": "PyNaCl",
    "pkg_resources": "setuptools",
    "pptx": "python-pptx",
    "pythoncom": "pywin32",
    "pywintypes": "pywin32",
    "ruamel.yaml": "ruamel.yaml",
    "serial": "pyserial",
    "skimage": "scikit-image",
    "sklearn": "scikit-learn",
    "socks": "PySocks",
    "speech_recognition": "SpeechRecognition",
    "usb": "pyusb",
    "websocket": "websocket-client",
    "win32api": "pywin32",
    "win32con": "pywin32",
    "wx": "wxPython",
    "yaml": "PyYAML",
    "zmq": "pyzmq",
}
"""Modules whose package on PyPI has another name: "Install `Pillow` (imported as
`PIL`)", where ``pip install PIL`` finds nothing; and the modules of a namespace that
packages share (``NAMESPACES``) that one package gives. The others are installed by
their own name (``pip`` reads ``flash_attn`` as ``flash-attn``)."""
NAMESPACES = frozenset(
    {"azure", "backports", "google", "jaraco", "nvidia", "opentelemetry", "ruamel", "zope"}
)
"""Top modules that many packages share: ``google`` is protobuf's, the Google Cloud
clients', and a package named ``google`` of its own."""


def installed_as(module: str) -> str:
    """What installing gives an imported ``module``: its top module (``PIL`` of
    ``PIL.Image``), or under a shared namespace the longest part of it a package is
    known to give (``google.protobuf`` of ``google.protobuf.descriptor``), else all of
    it (``azure.storage.blob``)."""
    top, _, rest = module.partition(".")
    if top not in NAMESPACES or not rest:
        return top
    parts = module.split(".")
    for end in range(len(parts), 1, -1):
        if ".".join(parts[:end]) in DISTRIBUTIONS:
            return ".".join(parts[:end])
    return module


_STDLIB = frozenset(sys.stdlib_module_names) | {"__future__"}
"""Python's own modules: none is installed apart (``import lzma`` fails in a Python built
without it, ``import tomllib`` in one before 3.11)."""


def _callers(record: Record) -> frozenset[str] | None:
    """The names the caller gives the code around ``record``'s raise: those scan read
    from the whole function (``source.parameters``); else the parameters of its
    function, when the excerpt shows the signature; none known where it does not; None
    in a private helper (``_check``), whose arguments the code gives it."""
    excerpt = record.source.excerpt
    function = (record.source.function or "").rpartition(".")[2]
    if is_private(function):
        return None
    if record.source.parameters is not None:  # as scan read them from the whole function
        return frozenset(record.source.parameters)
    if excerpt is None:
        return frozenset()
    lines = excerpt.lines
    raise_index = record.source.line - excerpt.start
    if not 0 <= raise_index < len(lines):
        return frozenset()
    start = _function_start(lines, raise_index)
    named = _DEF_NAME.match(lines[start].lstrip())
    if named is not None and is_private(named.group(1)):
        return None  # the record may not name its function
    given = _parameters(lines, start)
    if given is None:  # the excerpt may start inside the signature, below its ``def``
        tail = _signature_tail(lines[:raise_index])
        return frozenset() if tail is None else frozenset(a.arg for a in arguments_of(tail))
    # A closure's code reads the enclosing functions' parameters too, those no line
    # between binds anew; a private one's are the code's, and a class encloses none. A
    # function defined in another is the outer code's helper: its own parameters are
    # what that code gives it, unless the outer returns it (a decorator's wrapper).
    inner = named.group(1) if named is not None else ""
    indent = _indent(lines[start])
    for index in range(start - 1, -1, -1):
        line = lines[index]
        if not line.strip() or _indent(line) >= indent:
            continue
        text = line.lstrip()
        if text.startswith("class") or not _DEF.match(text):
            break
        if inner and not _returned(lines[start:], inner, indent):
            given = frozenset()
        inner = ""
        named = _DEF_NAME.match(text)
        outer = _parameters(lines, index) or frozenset()
        if named is None or is_private(named.group(1)):
            break
        between = "\n".join(lines[index + 1 : start])
        given |= {name for name in outer if not _rebinds(between, name)}
        indent = _indent(line)
    return given


def _returned(lines: Sequence[str], name: str, indent: int) -> bool:
    """Whether ``lines`` (from a nested ``def`` on, at ``indent``) return the function
    it defines, at that indent: ``return name``."""
    wanted = f"return {name}"
    return any(
        _indent(line) == indent and line.strip().split("#")[0].strip() == wanted for line in lines
    )


def _rebinds(code: str, name: str) -> bool:
    """Whether ``code`` may bind ``name`` anew (``size = len(size)``, ``for size in``)."""
    return (
        re.search(rf"(?m)^\s*(?:for\s+)?{re.escape(name)}\b\s*(?:[^=\s]*=(?!=)|,|in\b)", code)
        is not None
    )


def _given(
    record: Record,
    callers: AbstractSet[str],
    function: ast.FunctionDef | ast.AsyncFunctionDef | None,
) -> frozenset[str]:
    """The names of ``callers`` (``_callers``) the caller must give a value of their
    own: all but those ``function`` (``_signature``, the signature in view) defaults to
    None (``def f(weight, *, mode=None)`` gives ``weight``), and those scan read as
    defaulting to None from a signature above the excerpt (``source.optional``). Of a
    name neither tells, leaving it unset may not make it None (a record written before
    scan wrote ``source.optional``): "set it to `None`" holds whatever its default."""
    unset = set(record.source.optional)
    if function is not None:
        unset |= none_defaults(function)
    return frozenset(callers) - unset


def _starred(function: ast.FunctionDef | ast.AsyncFunctionDef | None) -> dict[str, str]:
    """The names of the ``*args`` and ``**kwargs`` of ``function`` (``_signature``), each
    with its stars; none without it."""
    if function is None:
        return {}
    out = {function.args.vararg.arg: "*"} if function.args.vararg else {}
    if function.args.kwarg:
        out[function.args.kwarg.arg] = "**"
    return out


def _signature(record: Record) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The ``def`` of the function around ``record``'s raise, parsed, when the excerpt
    shows it, or the part of it an excerpt starts inside (``mode='a',`` … ``):``, parsed
    as ``def _(mode='a', …)``)."""
    found = _at_raise(record)
    if found is None:
        return None
    lines, index = found
    start = _function_start(lines, index)
    text = lines[start].lstrip()
    if _DEF.match(text):
        return _defined(_signature_text(lines, start))
    tail = None if text.startswith("class") else _signature_tail(lines[:index])
    known = record.source.parameters
    if tail is not None and known is not None:
        # A call's arguments end as a signature does (``if clash(\n a,\n b=None,\n):``).
        # A signature's tail holds, in their order, every parameter scan read from the
        # first it names to the last (scan leaves out those bound anew, which it also
        # holds); a call passes some of them, or others in another order.
        named = [arg.arg for arg in arguments_of(tail) if arg.arg in known]
        if not named or named != list(known[known.index(named[0]) :]):
            return None
    return tail


def _signature_tail(lines: Sequence[str]) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The signature an excerpt starts inside (``mode='a',`` … ``):``), read from its
    lines up to the bracket it closes, as ``def _(…)``; None when it does not so start."""
    depth, quote = 1, ""  # inside the signature's parenthesis
    for number, line in enumerate(lines[:MAX_SIGNATURE_LINES]):
        depth, quote = scan_line(line, depth, quote)
        if quote:
            return None
        if depth == 0:
            if not _ENDS_HEADER.search(line):
                return None
            return _defined("def _(\n" + "\n".join(lines[: number + 1]) + "\n    pass\n")
    return None


_ENDS_HEADER = re.compile(r"^\s*\)\s*(?:->.*)?:\s*(?:#.*)?$")
"""The line that ends a signature written a parameter a line: ``):``, ``) -> int:``."""
MAX_SIGNATURE_LINES = 60


_DEF_NAME = re.compile(r"(?:async\s+)?def\s+(\w+)")


def is_private(name: str) -> bool:
    """Whether a function's name marks it private (``_check``; not ``__init__``, nor a
    public ``clip_grad_norm_``, which works in place)."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _internal(name: str) -> bool:
    """Whether a name is the code's own by its spelling: private (``_cache``), or, as
    an attribute, one that fitting sets (``classes_``); ``__init__`` is neither, nor a
    name kept off a keyword or a builtin's name (``class_``, ``type_``, ``lambda_``)."""
    if name.startswith("__") and name.endswith("__"):
        return False
    stem = name.removesuffix("_")
    if stem != name and (keyword.iskeyword(stem) or hasattr(builtins, stem)):
        return False
    return name.startswith("_") or name.endswith("_")


def ways_out(
    guards: Sequence[str],
    aliases: Mapping[str, str | None] | None = None,
    each: Sequence[Mapping[str, str | None]] | None = None,
    callers: AbstractSet[str] | None = None,
    private: bool = False,
    given: AbstractSet[str] = frozenset(),
    dead: AbstractSet[int] = frozenset(),
    state: bool = False,
    starred: Mapping[str, str] | None = None,
) -> tuple[Way, ...]:
    """The ways out of ``guards`` all holding: each a conjunction of terms. ``each``:
    the aliases of each guard, where they differ (by default ``aliases``). ``callers``:
    the plain names that are the caller's to set (``_callers``); others are said as
    values the code works out. None: every name the code does not bind is. ``private``:
    in a private helper, no argument is the caller's, nor an attribute of one.
    ``given``: the parameters the caller must give a value of their own (``_given``).
    ``dead``: the guards whose test made false only leads into another raise
    (``_dead_ends``): no way out comes from them. ``state``: in a method Python calls for
    an operation (``__bool__``, ``__len__``), ``self``'s attributes are the object's
    state, which may be read-only, not its settings. ``starred``: the function's ``*args``
    and ``**kwargs`` (``_starred``), said as the arguments the caller passes.

    A way that asks for a test and its opposite is no way; one that asks for more than
    another way is left out (the other is enough)."""
    if sum(len(guard) for guard in guards) > MAX_PARSED:
        return ()
    try:
        tests = [ast.parse(guard, mode="eval").body for guard in guards]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    words = _Words(aliases or {}, callers, private, given, state, starred or {})
    found: list[frozenset[_Literal]] = []
    for number, test in enumerate(tests):
        if number in dead:
            continue
        if each is not None:
            words.aliases = each[number]
        try:
            found.extend(frozenset(way) for way in _dnf(test, True, words))
        except _TooMany:
            return ()
    said: list[tuple[Term, ...]] = []
    for way in dict.fromkeys(found):
        if not _possible(way) or any(term is None for _, _, term in way):
            continue
        ordered = sorted(way, key=lambda literal: words.seen[literal[0]])
        said.append(tuple(dict.fromkeys(term for _, _, term in ordered if term is not None)))
    unique = {frozenset(terms): terms for terms in reversed(said)}
    ways = [
        Way(terms)
        for terms in said
        if unique.get(frozenset(terms)) is terms
        and len(terms) <= MAX_TERMS
        and not any(other < frozenset(terms) for other in unique)
    ]
    return tuple(ways) if len(ways) <= MAX_WAYS else ()


_Literal = tuple[str, bool, "Term | None"]
"""A test (its syntax tree, dumped), whether it must hold, and the term that says so."""
_OPPOSITE = {
    ("set", "unset"),
    ("true", "false"),
    ("type", "not_type"),
    ("platform", "not_platform"),
    ("system", "not_system"),
    ("divisible", "not_divisible"),
    ("one_of", "none_of"),
    ("contains", "not_contains"),
}


def _possible(way: frozenset[_Literal]) -> bool:
    tests = {(key, holds) for key, holds, _ in way}
    if any((key, not holds) in tests for key, holds in tests):
        return False
    said = {(t.kind, t.subject, t.values, t.other) for _, _, t in way if t is not None}
    return not any(
        (opposite, subject, values, other) in said
        for kind, subject, values, other in said
        for one, opposite in _OPPOSITE
        if kind == one
    )


class _TooMany(Exception):
    pass


def _dnf(node: ast.expr, negate: bool, words: _Words) -> list[list[_Literal]]:
    """``node`` (or ``not node``) as alternatives of literals; a literal whose term is
    None cannot be said, which rules out its alternative."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _dnf(node.operand, not negate, words)
    if isinstance(node, ast.BoolOp):
        parts = [_dnf(value, negate, words) for value in node.values]
        conjunction = isinstance(node.op, ast.And) != negate
        if not conjunction:
            return [way for part in parts for way in part]
        product: list[list[_Literal]] = [[]]
        for part in parts:
            product = [way + more for way in product for more in part]
            if len(product) > 4 * MAX_WAYS:
                raise _TooMany
        return product
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitXor) and _boolean(node):
        # ``a ^ b`` of two tests: exactly one holds.
        a, b = node.left, node.right
        one = ast.BoolOp(op=ast.And(), values=[a, ast.UnaryOp(op=ast.Not(), operand=b)])
        other = ast.BoolOp(op=ast.And(), values=[ast.UnaryOp(op=ast.Not(), operand=a), b])
        return _dnf(ast.BoolOp(op=ast.Or(), values=[one, other]), negate, words)
    if (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], ast.In | ast.NotIn)
        and isinstance(node.left, ast.Constant)
        and not isinstance(node.left.value, str)
        and isinstance(node.comparators[0], ast.Tuple | ast.List | ast.Set)
    ):
        # ``None in (a, b)`` asks of each of ``a`` and ``b``, not of the constant.
        is_in = isinstance(node.ops[0], ast.In)
        none = node.left.value is None
        equal: ast.cmpop = ast.Is() if none else ast.Eq()
        unequal: ast.cmpop = ast.IsNot() if none else ast.NotEq()
        tests: list[ast.expr] = [
            ast.Compare(left=element, ops=[equal if is_in else unequal], comparators=[node.left])
            for element in node.comparators[0].elts
            if not isinstance(element, ast.Constant)
        ]
        if not tests or len(tests) != len(node.comparators[0].elts):
            return [[(ast.dump(node), not negate, None)]]  # a constant among them: unsaid
        joined = ast.BoolOp(op=ast.Or() if is_in else ast.And(), values=tests)
        return _dnf(joined, negate, words)
    if isinstance(node, ast.Compare) and len(node.ops) > 1:
        links = [
            ast.Compare(left=left, ops=[op], comparators=[right])
            for left, op, right in zip(
                [node.left, *node.comparators], node.ops, node.comparators, strict=False
            )
        ]
        return _dnf(ast.BoolOp(op=ast.And(), values=list(links)), negate, words)
    key = ast.dump(node)
    words.seen.setdefault(key, len(words.seen))
    try:
        term = words.term(node, not negate)
    except _Unsafe:
        return [[(key, not negate, None)]]
    if term.subject.defaulted and (
        term.kind in _DEFAULT_BREAKS
        or (term.kind == "compare" and (term.op == "!=" or term.subject.length))
    ):
        # Unset, false or "anything but": the code's own default may be what it gets.
        return [[(key, not negate, None)]]
    return [[(key, not negate, term)]]


_DEFAULT_BREAKS = frozenset(("unset", "false", "none_of", "not_type", "no_attr"))


class _Words:
    """Turns one test into the term that says it holds (or, ``holds=False``, that it
    does not)."""

    def __init__(
        self,
        aliases: Mapping[str, str | None],
        callers: AbstractSet[str] | None = None,
        private: bool = False,
        given: AbstractSet[str] = frozenset(),
        state: bool = False,
        starred: Mapping[str, str] | None = None,
    ) -> None:
        self.aliases = aliases
        self.state = state
        """Whether ``self``'s attributes are the object's state (``ways_out``)."""
        self.starred = starred or {}
        """The function's ``*args`` and ``**kwargs``, each name with its stars."""
        self.callers = callers
        """The plain names that are the caller's (``ways_out``); None: all are."""
        self.given = given
        """The parameters with no default of None (``_given``)."""
        self.private = private
        """Whether the test is a private helper's: no argument of it is the caller's."""
        self.seen: dict[str, int] = {}
        """Each test met, in the order the code has them: the order of a way's terms."""

    def term(self, node: ast.expr, holds: bool) -> Term:
        if isinstance(node, ast.Compare):
            return self._compare(node.left, _OPS[type(node.ops[0])], node.comparators[0], holds)
        if isinstance(node, ast.Call):
            return self._call(node, holds)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            # ``if a % b: raise`` reads as ``a % b != 0``.
            zero = ast.Constant(0)
            return self._compare(node, "!=", zero, holds)
        negated = 0
        while isinstance(node, ast.Name | ast.Attribute):
            alias = self.aliases.get(_dotted(node) or "") or ""
            if not alias.startswith(NEGATED):
                break
            # ``is_decoder = not config.is_encoder``: false when ``is_encoder`` holds.
            inner = _parsed(alias.removeprefix(NEGATED))
            negated += 1
            if inner is None or negated > MAX_NEGATED:
                raise _Unsafe  # a chain of ``not`` longer than anyone reads
            node, holds = inner, not holds
        operand = self.operand(node)
        if operand.literal:
            raise _Unsafe
        if (
            operand.env is None
            and _CAPS.match(operand.text.rsplit(".", 1)[-1])
            and not _SETTING.search(operand.text)
        ):
            raise _Unsafe  # a module's flag (``HAS_TRITON``): what sets it is unknown
        if _hides_check(operand.text, holds):
            raise _Unsafe  # ``if not shortcut:``, ``if check_dtype and …``
        return Term("true" if holds else "false", operand)

    def _compare(self, left: ast.expr, op: str, right: ast.expr, holds: bool) -> Term:
        if not holds:
            op = _NOT[op]
        if (
            op in ("is", "is not", "==", "!=")
            and isinstance(right, ast.Constant)
            and isinstance(right.value, bool)
        ):
            wanted = right.value if op in ("is", "==") else not right.value
            if _hides_check(_dotted(left) or "", wanted):
                raise _Unsafe  # ``fastpath is False``, as ``not fastpath``
        if op in ("is", "is not"):
            if isinstance(left, ast.Constant) and left.value is None:
                left, right = right, left
            if not (isinstance(right, ast.Constant) and right.value is None):
                if self._held(left) and self._held(right):
                    raise _Unsafe  # ``existing is not bindparam``: the same object, not equal
                # Identity with ``True``, ``False`` or a marker object reads as equality.
                return self._compare(left, "==" if op == "is" else "!=", right, True)
            spec = self._spec(left)
            if spec is not None:
                if op == "is not":
                    return Term("installed", Operand(spec, literal=True))
                raise _Unsafe
            return Term("unset" if op == "is" else "set", self.operand(left))
        if op in ("in", "not in"):
            if isinstance(left, ast.Constant) and isinstance(left.value, str):
                if _of_system(right):  # ``"win" in sys.platform``: "darwin" has it too
                    part = left.value
                    having = _systems_where(right, lambda value: part in value)
                    return Term("system" if op == "in" else "not_system", having)
                # ``"height" in size``: a key of a mapping, or a part of a text.
                kind = "contains" if op == "in" else "not_contains"
                return Term(kind, self.operand(right), values=(self.operand(left),))
            if isinstance(left, ast.Constant):
                raise _Unsafe  # ``None in sizes``: nothing a user sets is named
            if _of_system(left) and isinstance(right, ast.Tuple | ast.List | ast.Set):
                # ``sys.platform in ("win32", "cygwin")``: the systems to run on, or not.
                systems = [self._system(left, element) for element in right.elts]
                if not systems or not all(systems):
                    raise _Unsafe  # a system errdex has no name for: no setting to say
                kind = "system" if op == "in" else "not_system"
                named = _systems_said(s for s in systems if s)
                return Term(kind, Operand(named, literal=True))
            kind = "one_of" if op == "in" else "none_of"
            if isinstance(right, ast.Name | ast.Attribute):  # ``x in self.choices``
                subject, other = self.operand(left), self.operand(right)
                if subject.text == other.text:
                    raise _Unsafe  # ``size in self.size``: "a value not in `size`"
                return Term(kind, subject, other=other)
            return Term(kind, self.operand(left), values=self._collection(right))
        if _is_version(left):
            return Term("python", Operand("Python"), op=op, other=self._version(right))
        if _is_version(right):
            return Term("python", Operand("Python"), op=_FLIP[op], other=self._version(left))
        system = self._system(left, right)
        if system is not None and op in ("==", "!="):
            kind = "system" if op == "==" else "not_system"
            return Term(kind, Operand(system, literal=True))
        if _of_system(left) or _of_system(right):
            raise _Unsafe  # ``sys.platform == "aix"``: the system, no setting of the user's
        if self._literal(left) and not self._literal(right):
            left, right, op = right, left, _FLIP[op]
        divided = self._divided(left, right) or self._divided(right, left)
        if divided is not None and op in ("==", "!="):
            # ``dim // heads * heads != dim``: whether ``heads`` divides ``dim``.
            kind = "divisible" if op == "==" else "not_divisible"
            (a, whole), (b, factor) = divided
            return Term(kind, self._either(a, whole), other=self._either(b, factor))
        if (
            isinstance(left, ast.BinOp)
            and isinstance(left.op, ast.Mod)
            and isinstance(right, ast.Constant)
            and right.value == 0
            and type(right.value) is int
            and op in ("==", "!=")
        ):
            kind = "divisible" if op == "==" else "not_divisible"
            return Term(kind, self.operand(left.left), other=self.operand(left.right))
        subject = self.operand(left)
        other = self.operand(right)
        if subject.literal:
            raise _Unsafe  # two constants: nothing a user changes
        if subject.text == other.text:  # ``self.size != size``: both are shown ``size``
            if _as_written(subject) and not _as_written(other):
                # The object's value is shown with ``self.``: "… equal to `self.size`".
                # A message's ``{size}`` gives the caller's value, not the object's.
                other = replace(other, keys=tuple(k for k in other.keys if k not in subject.keys))
            elif _as_written(other) and not _as_written(subject):
                # The caller's value is the subject, the object's is shown with ``self.``.
                return self._compare(right, _FLIP[op], left, True)
            else:
                raise _Unsafe  # "Set `size` to `size`", or two sides each with a ``self.``
        if op in ("==", "!=") and other.literal and other.text == "None":
            return Term("unset" if op == "==" else "set", subject)
        if (
            isinstance(right, ast.Constant)
            and isinstance(right.value, bool)
            and op
            not in (
                "==",
                "!=",
            )
        ):
            raise _Unsafe
        return Term("compare", subject, op=op, other=other)

    def _held(self, node: ast.expr) -> bool:
        """Whether ``node`` is an object the code holds (``_objects``): a name it binds or
        is given, or an attribute of one; not a module's (``backref``, ``torch.float16``),
        which identity tests as a marker, the same as equality."""
        if not _objects(node):
            return False
        root = (_dotted(node) or "").partition(".")[0]
        return (
            root in ("self", "cls")
            or root in self.aliases
            or self.callers is None
            or root in self.callers
        )

    def _call(self, node: ast.Call, holds: bool) -> Term:
        function = node.func
        if (
            isinstance(function, ast.Attribute)
            and function.attr in ("startswith", "endswith")
            and _of_system(function.value)
        ):
            return self._system_affix(node, function, holds)
        name = _dotted(node.func)
        if name is None or node.keywords:
            raise _Unsafe
        last = name.rsplit(".", 1)[-1]
        args = node.args
        if last == "isinstance" and len(args) == 2:
            types = self._types(args[1])
            return Term("type" if holds else "not_type", self.operand(args[0]), values=types)
        if (
            name == "hasattr"
            and len(args) == 2
            and isinstance(args[1], ast.Constant)
            and isinstance(args[1].value, str)
        ):
            attribute = Operand(args[1].value, literal=True)
            kind = "has_attr" if holds else "no_attr"
            return Term(kind, self.operand(args[0]), values=(attribute,))
        if last == "callable" and len(args) == 1 and holds:
            return Term("callable", self.operand(args[0]))
        if name in ("os.path.exists", "os.path.isfile", "os.path.isdir") and len(args) == 1:
            return Term("path" if holds else "not_path", self.operand(args[0]), op=last)
        method = _PATH_METHODS.get(last)
        if method is not None and not args and isinstance(node.func, ast.Attribute):
            kind = "path" if holds else "not_path"
            return Term(kind, self.operand(node.func.value), op=method)
        if (
            last in ("startswith", "endswith")
            and len(args) == 1
            and isinstance(node.func, ast.Attribute)
        ):
            prefix = self.operand(args[0])
            if not prefix.literal:
                raise _Unsafe
            kind = ("" if holds else "not_") + ("starts" if last == "startswith" else "ends")
            return Term(kind, self.operand(node.func.value), values=(prefix,))
        if not args and last.startswith("is_"):
            platform = _PLATFORMS.get(last.removeprefix("is_"))
            if platform is not None and "platform" in name.lower():
                return Term("platform" if holds else "not_platform", Operand(platform))
        if name in ("torch.cuda.is_available",) and not args:
            return Term("platform" if holds else "not_platform", Operand("CUDA"))
        available = _AVAILABLE.match(last)
        if available is not None and not args and holds:
            # What the check needs may be more than the package (a device, a version):
            # the words name the check itself.
            return Term("available", Operand(available.group(1), literal=True, keys=(last,)))
        raise _Unsafe

    @staticmethod
    def _system_affix(node: ast.Call, function: ast.Attribute, holds: bool) -> Term:
        """``sys.platform.startswith("win")``, or of a tuple of starts: the systems whose
        value starts (or ends) so; the system, no setting of the user's."""
        if len(node.args) != 1 or node.keywords:
            raise _Unsafe
        given = node.args[0]
        items = given.elts if isinstance(given, ast.Tuple) else [given]
        affixes = [
            item.value
            for item in items
            if isinstance(item, ast.Constant) and isinstance(item.value, str)
        ]
        if not affixes or len(affixes) != len(items):
            raise _Unsafe  # a variable: which systems it names is not known
        starts = function.attr == "startswith"

        def fits(value: str) -> bool:
            return any(value.startswith(a) if starts else value.endswith(a) for a in affixes)

        return Term("system" if holds else "not_system", _systems_where(function.value, fits))

    def operand(self, node: ast.expr) -> Operand:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or node.value is None:
                return Operand(repr(node.value), literal=True)
            if isinstance(node.value, int | float):
                return Operand(repr(node.value), number=repr(node.value), literal=True)
            if isinstance(node.value, str) and len(node.value) <= MAX_TEXT:
                return Operand(repr(node.value), literal=True)
            raise _Unsafe
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = node.operand
            if isinstance(inner, ast.Constant) and isinstance(inner.value, int | float):
                text = "-" + repr(inner.value)
                return Operand(text, number=text, literal=True)
        if any(
            isinstance(inner, ast.Name | ast.Attribute)
            and (dotted := _dotted(inner)) is not None
            and dotted in self.aliases
            and not self.aliases[dotted]
            for inner in ast.walk(node)
        ):
            raise _Unsafe  # it reads a name no longer what the caller gave
        env = _env(node)
        if env is not None:
            return Operand(env, env=env, keys=(env,))
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name == "len" and len(node.args) == 1 and not node.keywords:
                counted = self.operand(node.args[0])
                if counted.literal:
                    raise _Unsafe
                # Only a placeholder of the length itself gives its value, not the
                # collection's text.
                return Operand(
                    counted.text,
                    field=counted.field,
                    env=counted.env,
                    length=True,
                    keys=(_SELF.sub("", ast.unparse(node)),),
                    defaulted=counted.defaulted,
                    unsure=counted.unsure,
                )
            if (
                name == "getattr"
                and len(node.args) in (2, 3)
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
                and node.args[1].value.isidentifier()
            ):
                # ``getattr(x, "a", None)`` reads ``x.a`` (or its default when x has none).
                return self.operand(ast.Attribute(value=node.args[0], attr=node.args[1].value))
            if not _measure(node):
                raise _Unsafe
        if isinstance(node, ast.Name | ast.Attribute):
            dotted = _dotted(node)
            if dotted is None:
                raise _Unsafe
            text = dotted
            if text in self.aliases and self.aliases[text] is None:
                raise _Unsafe  # no longer what the caller gave
            alias = self.aliases.get(text)
            defaulted = (alias or "").startswith(DEFAULTED)
            computed = alias == COMPUTED or (alias or "").startswith((QUOTIENT, NEGATED))
            read = text if alias == DEFAULTED or computed or alias is None else alias
            read = read.removeprefix(f"{DEFAULTED} ")  # a copy of a name the code defaults
            field = _shown(read).rsplit(".", 1)[-1]
            if field in ("self", "cls"):
                raise _Unsafe
            keys = tuple(dict.fromkeys((text, _shown(text), read, _shown(read), field)))
            whose = "computed" if computed else self._whose(read)
            if whose == "computed":
                # Not a setting: shown as written, ``self.`` kept, no flag looked up.
                return Operand(text, keys=keys)
            unsure = whose == "unsure"
            given = read in self.given and not defaulted
            star = self.starred.get(text, "") if alias is None or alias == text else ""
            return Operand(
                _shown(text),
                field=field,
                keys=keys,
                defaulted=defaulted,
                unsure=unsure,
                given=given,
                star=star,
            )
        if _plain_expression(node):
            written = ast.unparse(node)
            text = _SELF.sub("", written)
            if len(text) > MAX_TEXT:
                raise _Unsafe
            return Operand(text, keys=tuple(dict.fromkeys((written, text))))
        raise _Unsafe

    def _divided(
        self, product: ast.expr, whole: ast.expr
    ) -> tuple[tuple[ast.expr, ast.expr], tuple[ast.expr, ast.expr]] | None:
        """``((a, whole), (b, factor))`` when ``product`` is ``a // b`` times ``factor``
        (written out, or as a name the code bound to the quotient), ``factor`` holds what
        ``b`` holds and ``whole`` what ``a`` holds (``_same``)."""
        if not (isinstance(product, ast.BinOp) and isinstance(product.op, ast.Mult)):
            return None
        for quotient, factor in ((product.left, product.right), (product.right, product.left)):
            if isinstance(quotient, ast.Name | ast.Attribute):
                alias = self.aliases.get(_dotted(quotient) or "") or ""
                parsed = _parsed(alias) if alias.startswith(QUOTIENT) else None
                if parsed is None:
                    continue
                quotient = parsed
            if not (isinstance(quotient, ast.BinOp) and isinstance(quotient.op, ast.FloorDiv)):
                continue
            a, b = quotient.left, quotient.right
            if self._same(b, factor) and self._same(a, whole):
                return (a, whole), (b, factor)
        return None

    def _either(self, one: ast.expr, same: ast.expr) -> Operand:
        """``one``, said as it is, found in a paste by the names of either (a message
        may name ``self.dim`` where the quotient divides ``dim``)."""
        operand = self.operand(one)
        try:
            keys = self.operand(same).keys
        except _Unsafe:
            return operand
        return replace(operand, keys=tuple(dict.fromkeys(operand.keys + keys)))

    def _same(self, one: ast.expr, other: ast.expr) -> bool:
        """Whether two expressions hold one value: written alike, or names that hold the
        same setting (``self.dim`` after ``self.dim = dim``, and ``dim``)."""
        return ast.dump(one) == ast.dump(other) or (
            (read := self._setting(one)) is not None and read == self._setting(other)
        )

    def _whose(self, read: str, depth: int = 0) -> str:
        """Whose value the name ``read`` (a setting's, as ``operand`` follows it) is:
        "caller" for an attribute of the object (``self.size``), of a setting
        (``config.size``), a name the caller gives (``callers``) or one bound to such a
        name (``dim = size``); "computed" for a value the code works out or an attribute
        of one (``p.kind`` after ``for p in params``), and for a private name or one of
        its parts (``_check``, ``self._cache``, ``pool._is_asyncio``) or a fitted
        attribute (``self.classes_``); "unsure" for a plain name the excerpt does not
        show bound (above it, or by the caller: the signature is not in view)."""
        root, _, rest = read.partition(".")
        if is_private(root) or any(_internal(part) for part in rest.split(".") if part):
            # A private parameter (``_check``) or attribute (``pool._is_asyncio``,
            # ``self._cache``, ``self.classes_``): the code's own, whoever passes it.
            return "computed"
        if _SETTING.search(read):
            return "caller"  # Django's ``settings.DEBUG``, in a private helper too
        held = self.aliases.get(root, root)
        if held is not None and held.startswith(DEFAULTED):
            held = held.removeprefix(DEFAULTED).strip() or root  # given, or the code's default
        if (
            rest
            and (root not in ("self", "cls") or "." in rest)
            and held == root
            and not any(_HOLDS_SETTINGS.search(part) for part in read.split(".")[:-1])
        ):
            # An attribute of an object the caller passes (``graph.format`` of a sparse
            # matrix, or one the code opens when none is: dask's ``tdb.schema.sparse``),
            # or that the object holds (``self.index.is_unique`` of a pandas index), may
            # be read-only: the words ask that it be so, not that it be set.
            return "unsure"
        if self.callers is None:
            return "caller"
        if root in ("self", "cls"):
            return ("unsure" if self.state else "caller") if rest else "computed"
        alias = self.aliases.get(root, root)
        if alias is not None and alias.startswith(DEFAULTED):
            alias = alias.removeprefix(DEFAULTED).strip() or root
        if alias == root:  # not bound in the excerpt (or only defaulted there)
            if rest:  # an attribute of a setting (``config.size``), in a public function
                return "unsure" if self.private else "caller"
            return "caller" if root in self.callers else "unsure"
        if alias is None or alias.startswith("\0") or depth > MAX_NEGATED:
            return "computed"
        return self._whose(alias + (f".{rest}" if rest else ""), depth + 1)

    def _setting(self, node: ast.expr) -> str | None:
        """The setting a name reads (its alias, or itself); None for anything else."""
        dotted = _dotted(node) if isinstance(node, ast.Name | ast.Attribute) else None
        if dotted is None:
            return None
        alias = self.aliases.get(dotted, dotted)
        if not alias or alias.startswith("\0"):
            return None
        # ``config.dim`` read before ``config`` was bound anew is another value.
        return None if alias.partition(".")[0] in self.aliases else alias

    def _collection(self, node: ast.expr) -> tuple[Operand, ...]:
        if isinstance(node, ast.Tuple | ast.List | ast.Set) and 0 < len(node.elts) <= 12:
            return tuple(self.operand(element) for element in node.elts)
        raise _Unsafe

    def _types(self, node: ast.expr) -> tuple[Operand, ...]:
        elements = node.elts if isinstance(node, ast.Tuple) else [node]
        if not elements or len(elements) > 6:
            raise _Unsafe
        types = []
        for element in elements:
            name = _dotted(element)
            if name is None:
                raise _Unsafe
            types.append(Operand(name.rsplit(".", 1)[-1] if name.startswith("self.") else name))
        return tuple(types)

    def _version(self, node: ast.expr) -> Operand:
        if isinstance(node, ast.Tuple) and 0 < len(node.elts) <= 3:
            parts = [e.value for e in node.elts if isinstance(e, ast.Constant)]
            if len(parts) == len(node.elts) and all(type(p) is int for p in parts):
                return Operand(".".join(map(str, parts)), literal=True)
        raise _Unsafe

    @staticmethod
    def _spec(node: ast.expr) -> str | None:
        """The package ``importlib.util.find_spec("x")`` looks for."""
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
            name = _dotted(node.func)
            argument = node.args[0]
            if (
                name is not None
                and name.rsplit(".", 1)[-1] == "find_spec"
                and isinstance(argument, ast.Constant)
                and isinstance(argument.value, str)
            ):
                return installed_as(argument.value)
        return None

    @staticmethod
    def _system(left: ast.expr, right: ast.expr) -> str | None:
        """The system a comparison of ``sys.platform``, ``os.name`` or
        ``platform.system()`` with a string names (``Windows``); None for another."""
        for one, two in ((left, right), (right, left)):
            named = _SYSTEMS.get(_system_said(one))
            if named is not None and isinstance(two, ast.Constant):
                return named.get(str(two.value))
        return None

    @staticmethod
    def _literal(node: ast.expr) -> bool:
        return isinstance(node, ast.Constant) or (
            isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant)
        )


def _objects(node: ast.expr) -> bool:
    """Whether ``node`` names an object, not a marker (``_MISSING``, ``NOTSET``,
    ``sentinel``, ``inspect.Parameter.empty``) or a class (``int``, ``Path``): ``a is b``
    of two objects asks for the same object, which no words of equality say."""
    name = _dotted(node)
    if name is None:
        return not isinstance(node, ast.Constant | ast.Call)
    last = name.rsplit(".", 1)[-1]
    return not (
        last.startswith("_")
        or not last.islower()
        or hasattr(builtins, last)
        or _MARKER.search(last) is not None
    )


_MARKER = re.compile(r"sentinel|missing|unset|notset|default|empty|undefined|nothing")


def _of_system(node: ast.expr) -> bool:
    """Whether ``node`` is the system Python runs on: ``sys.platform``, ``os.name``,
    ``platform.system()``."""
    return _system_said(node) in _SYSTEMS


def _system_said(node: ast.expr) -> str:
    """``node`` as ``_SYSTEMS`` keys it: a dotted name, or a call of one with nothing
    given (``platform.system()``), lowercased or not (``platform.system().lower()``); ""
    for anything else."""
    if isinstance(node, ast.Call):
        if node.args or node.keywords:
            return ""
        function = node.func
        if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Call):
            inner = _system_said(function.value) if function.attr == "lower" else ""
            return f"{inner}.lower()" if inner else ""
        called = _dotted(function)
        return f"{called}()" if called else ""
    return _dotted(node) or ""


def _systems_where(node: ast.expr, fits: Callable[[str], bool]) -> Operand:
    """The systems ``node`` (``sys.platform``) tells of whose value ``fits`` (``"win32"``
    starts with ``"win"``), as an operand to say; none errdex has a name for, or all of
    them (a test that holds on any system), is ``_Unsafe``: no setting of the user's to
    say either."""
    table = _SYSTEMS[_system_said(node)]
    named = [name for value, name in table.items() if fits(value)]
    if not named or len(named) == len(table):
        raise _Unsafe  # none errdex names, or every one (``startswith("")``): no system
    return Operand(_systems_said(named), literal=True)


def _systems_said(names: Iterable[str]) -> str:
    """Systems joined with "or", once each ("Windows, Linux or macOS", though ``os.name``'s
    "posix" names "Linux or macOS" at once)."""
    return _either(list(dict.fromkeys(one for name in names for one in name.split(" or "))))


def _boolean(node: ast.BinOp) -> bool:
    """Whether both sides of ``node`` are tests (comparisons, ``not``, ``and``/``or``)."""
    return all(
        isinstance(side, ast.Compare | ast.BoolOp)
        or (isinstance(side, ast.UnaryOp) and isinstance(side.op, ast.Not))
        for side in (node.left, node.right)
    )


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for a chain of names, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _as_written(operand: Operand) -> bool:
    """Whether ``operand`` is shown as the code writes it (no ``self.`` left out)."""
    return operand.keys[:1] in ((), (operand.text,))


def _shown(text: str) -> str:
    return text.removeprefix("self.")


def _env(node: ast.expr) -> str | None:
    """The environment variable ``node`` reads, if it reads one."""
    name = _dotted(node) if isinstance(node, ast.Attribute) else None
    if name is not None and name.startswith("envs.") and _CAPS.match(name[5:]):
        return name[5:]
    if isinstance(node, ast.Subscript) and _dotted(node.value) == "os.environ":
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return key.value
    if isinstance(node, ast.Call) and node.args:
        func = _dotted(node.func)
        key = node.args[0]
        if func in ("os.environ.get", "os.getenv") and isinstance(key, ast.Constant):
            return key.value if isinstance(key.value, str) else None
    return None


def _is_version(node: ast.expr) -> bool:
    return _dotted(node) == "sys.version_info"


_MEASURES = frozenset(("size", "dim", "numel", "ndimension", "nelement"))
"""Methods that only measure a tensor or array: ``x.size(1)`` reads like ``x.shape[1]``."""


def _measure(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _MEASURES
        and _dotted(node.func.value) is not None
        and not node.keywords
        and all(isinstance(a, ast.Constant | ast.UnaryOp) for a in node.args)
    )


def _plain_expression(node: ast.expr) -> bool:
    """Arithmetic over names and numbers: something a reader can take in at a glance."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            if not _measure(inner):
                return False
        elif isinstance(inner, ast.BinOp):
            if not isinstance(inner.op, _ARITHMETIC):
                return False
        elif isinstance(inner, ast.Subscript):
            if not isinstance(inner.slice, ast.Constant | ast.UnaryOp):
                return False
        elif not isinstance(
            inner,
            ast.Name
            | ast.Attribute
            | ast.Constant
            | ast.Load
            | ast.UnaryOp
            | ast.USub
            | ast.operator
            | ast.Tuple,
        ):
            return False
    return True


# --- Words ----------------------------------------------------------------------------

Spell = Callable[[str], str | None]
"""A setting's command-line flag, where the site knows one."""


def _no_flag(field: str) -> str | None:
    return None


def flag_of(option_names: Mapping[str, Sequence[str]]) -> Spell:
    """A setting's command-line flag, where some error of the site spells it as one
    (``link.option_names_of``)."""

    def flag(key: str) -> str | None:
        return next((s for s in option_names.get(key, ()) if s.startswith("--")), None)

    return flag


def said(way: Way, spell: Spell = _no_flag) -> str:
    """One way out as a sentence of Markdown: "Set `x` (`--x`) above 1."."""
    text = ", and ".join(_said(term, spell) for term in way.terms)
    return text[:1].upper() + text[1:] + "."


def label(operand: Operand, spell: Spell = _no_flag) -> str:
    """How a hint names an operand: its flag where the site knows one, else its text."""
    if operand.env is not None:
        return operand.env
    flag = spell(operand.field) if operand.field and not operand.length else None
    return flag or operand.text


def _name(operand: Operand, spell: Spell, counted: bool = False) -> str:
    """How the words name an operand; the length of a collection as such unless the
    sentence ``counted`` its items itself ("give `x` 3 items")."""
    if operand.length and not counted:
        return "the number of items in " + _name(replace(operand, length=False), spell)
    if operand.env is not None:
        return f"the environment variable {_code(operand.env)}"
    shown = _code(operand.text)
    if operand.field and operand.field != operand.text.rsplit(".", 1)[-1]:
        shown += f" ({_code(operand.field)}"
        flag = spell(operand.field)
        shown += f", {_code(flag)})" if flag else ")"
    elif operand.field:
        flag = spell(operand.field)
        if flag:
            shown += f" ({_code(flag)})"
    return shown


_TICKS = re.compile(r"`+")


def _code(text: str) -> str:
    """``text`` as a Markdown code span, whatever backticks it holds."""
    run = max((len(ticks) for ticks in _TICKS.findall(text)), default=0)
    fence = "`" * (run + 1)
    if run or text.startswith((" ", "`")) or text.endswith((" ", "`")):
        text = f" {text} "
    return fence + text + fence


def _value(operand: Operand, spell: Spell) -> str:
    return _code(operand.text) if operand.literal else _name(operand, spell)


def _either(items: Sequence[str], word: str = "or") -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + f" {word} " + items[-1]


_MADE = {
    ">": "greater than {}",
    ">=": "at least {}",
    "<": "less than {}",
    "<=": "at most {}",
    "==": "equal to {}",
    "!=": "different from {}",
}
_COMPARED = {
    ">": "above {}",
    ">=": "to {} or more",
    "<": "below {}",
    "<=": "to {} or less",
    "==": "to {}",
    "!=": "to something other than {}",
}
_COUNTED = {
    ">": "more than {} items",
    ">=": "at least {} items",
    "<": "fewer than {} items",
    "<=": "at most {} items",
    "==": "exactly {} items",
    "!=": "a number of items other than {}",
}
_COUNTED_ONE = {">": "more than {} item", "<=": "at most {} item", "==": "exactly {} item"}
"""Where the number is 1: "at most `1` item"."""
_NONE = {
    ("<=", "0"): "no items",
    ("==", "0"): "no items",
    ("<", "1"): "no items",
    (">", "0"): "at least one item",
    (">=", "1"): "at least one item",
    ("!=", "0"): "at least one item",
}
_AS_MANY = {
    "==": "as many items as {}",
    "!=": "a number of items other than {} has",
    ">": "more items than {}",
    ">=": "at least as many items as {}",
    "<": "fewer items than {}",
    "<=": "at most as many items as {}",
}
_VERSIONED = {
    ">": "a Python newer than {}",
    ">=": "Python {} or newer",
    "<": "a Python older than {}",
    "<=": "Python {} or older",
    "==": "Python {}",
    "!=": "a Python other than {}",
}


def _said(term: Term, spell: Spell) -> str:
    subject = term.subject
    kind = term.kind
    if subject.star:
        said = _said_starred(term)
        if said is not None:
            return said
    # A setting is set, passed or given; a value the code works out is "made" so.
    settable = bool(subject.env) or bool(
        subject.field and (not subject.unsure or spell(subject.field))
    )
    if kind == "compare":
        assert term.op is not None and term.other is not None
        other = _value(term.other, spell)
        if other == _value(subject, spell):
            other = _code(term.other.keys[0]) if term.other.keys else other
        if subject.length:
            counted = _name(subject, spell, counted=True)
            give = "give" if settable else "make sure"
            counted = counted if settable else f"{counted} has"
            if term.other.number in ("0", "1") and (term.op, term.other.number) in _NONE:
                return f"{give} {counted} {_NONE[term.op, term.other.number]}"
            if term.other.length:
                other = _name(term.other, spell, counted=True)
                return f"{give} {counted} {_AS_MANY[term.op].format(other)}"
            counts = _COUNTED_ONE if term.other.number == "1" else _COUNTED
            return f"{give} {counted} {counts.get(term.op, _COUNTED[term.op]).format(other)}"
        if settable:
            return f"set {_name(subject, spell)} {_COMPARED[term.op].format(other)}"
        return f"make {_name(subject, spell)} {_MADE[term.op].format(other)}"
    if kind == "python":
        assert term.op is not None and term.other is not None
        return "use " + _VERSIONED[term.op].format(term.other.text)
    if kind in ("divisible", "not_divisible"):
        assert term.other is not None
        if subject.literal and not term.other.literal:  # ``64 % heads``: the divisor is asked
            whole = _value(subject, spell)
            divisor = _name(term.other, spell)
            mine = term.other.env or (term.other.field and not term.other.unsure)
            to = "set {} to" if mine or spell(term.other.field or "") else "make {}"
            if kind == "divisible":
                return f"{to.format(divisor)} a divisor of {whole}"
            return f"{to.format(divisor)} a number that does not divide {whole}"
        how = "divisible" if kind == "divisible" else "not divisible"
        return f"make {_name(subject, spell)} {how} by {_value(term.other, spell)}"
    named = _name(subject, spell)
    if not settable:
        made = _MADE_SO.get(kind)
        if made is not None:
            return f"make sure {named} {made(term, spell)}"
    if kind in ("one_of", "none_of"):
        if term.other is not None:  # ``x in self.choices``: what it holds is not in the code
            inside = "in" if kind == "one_of" else "not in"
            return f"set {named} to a value {inside} {_value(term.other, spell)}"
        values = [_value(value, spell) for value in term.values]
        if kind == "one_of":
            return f"set {named} to {_either(values)}"
        return f"set {named} to something other than {_either(values)}"
    if kind == "unset":
        return f"set {named} to `None`" if subject.given else f"leave {named} unset (`None`)"
    if kind == "set":
        return f"give {named} a value (not `None`)"
    if kind in ("true", "false") and not settable:
        # A value the code works out, not a setting (as ``make`` for a comparison).
        truth = "true or non-empty" if kind == "true" else "false or empty"
        return f"make {_name(subject, spell)} {truth}"
    if kind == "true":
        return f"set {_name(subject, spell)} to a true or non-empty value"
    if kind == "false":
        return f"set {_name(subject, spell)} to a false or empty value"
    if kind in ("type", "not_type"):
        types = _either([_code(t.text) for t in term.values])
        if kind == "type":
            return f"pass {_name(subject, spell)} as {types}"
        return f"pass {_name(subject, spell)} as something other than {types}"
    if kind == "platform":
        return f"run on {subject.text}"
    if kind == "not_platform":
        return f"run on a platform other than {subject.text}"
    if kind == "system":
        return f"run on {subject.text}"
    if kind == "not_system":
        return f"run on a system other than {subject.text}"
    if kind == "installed":
        package = DISTRIBUTIONS.get(subject.text)
        if package is not None and package != subject.text:  # no package is named ``PIL``
            return f"install {_code(package)} (imported as {_code(subject.text)})"
        if package is None and "." in subject.text:  # a namespace's: ``azure.storage.blob``
            return f"install the package that gives {_code(subject.text)}"
        return f"install {_code(subject.text)}"
    if kind == "available":
        return f"make {_code(subject.text)} available (what {_code(subject.keys[0] + '()')} checks)"
    if kind in ("path", "not_path"):
        what = {"exists": "an existing path", "isfile": "an existing file"}.get(
            term.op or "", "an existing folder"
        )
        if kind == "not_path":
            what = "a path that is not " + what
        return f"make {_name(subject, spell)} {what}"
    if kind in ("contains", "not_contains"):
        does = "contain" if kind == "contains" else "not contain"
        return f"make {_name(subject, spell)} {does} {_code(term.values[0].text)}"
    if kind in ("starts", "not_starts", "ends", "not_ends"):
        verb = "starts" if "starts" in kind else "ends"
        does = "does not " + verb.removesuffix("s") if kind.startswith("not_") else verb
        return f"use {_name(subject, spell)} that {does} with {_code(term.values[0].text)}"
    if kind == "has_attr":
        return f"give {_name(subject, spell)} an attribute {_code(term.values[0].text)}"
    if kind == "no_attr":
        return f"use {_name(subject, spell)} without an attribute {_code(term.values[0].text)}"
    if kind == "callable":
        return f"pass a callable as {_name(subject, spell)}"
    raise ValueError(f"no words for {kind!r}")


def _said_starred(term: Term) -> str | None:
    """A test of the function's ``*args`` or ``**kwargs`` said as what the caller passes
    ("Pass no other keyword arguments (`**kwargs`)."); None where the words are the usual
    ones (a count of items)."""
    subject = term.subject
    what = "keyword" if subject.star == "**" else "positional"
    shown = _code(subject.star + subject.text)
    if term.kind == "false":
        return f"pass no other {what} arguments ({shown})"
    if term.kind == "true":
        return f"pass at least one {what} argument ({shown})"
    if subject.star == "**" and term.kind in ("contains", "not_contains") and term.values:
        try:
            key = ast.literal_eval(term.values[0].text)
        except (ValueError, SyntaxError):
            return None
        if not isinstance(key, str):
            return None
        no = "no " if term.kind == "not_contains" else "the "
        return f"pass {no}keyword argument {_code(key)} ({shown})"
    return None


def _made_one_of(term: Term, spell: Spell) -> str:
    negated = "" if term.kind == "one_of" else " not"
    if term.other is not None:
        return f"is{negated} in {_value(term.other, spell)}"
    return f"is{negated} {_either([_value(value, spell) for value in term.values])}"


def _made_type(term: Term, spell: Spell) -> str:
    negated = "" if term.kind == "type" else " not"
    return f"is{negated} of type {_either([_code(t.text) for t in term.values])}"


def _made_affix(term: Term, spell: Spell) -> str:
    verb = "start" if "starts" in term.kind else "end"
    does = f"does not {verb}" if term.kind.startswith("not_") else f"{verb}s"
    return f"{does} with {_code(term.values[0].text)}"


_MADE_SO: dict[str, Callable[[Term, Spell], str]] = {
    "one_of": _made_one_of,
    "none_of": _made_one_of,
    "unset": lambda term, spell: "is `None`",
    "set": lambda term, spell: "is not `None`",
    "type": _made_type,
    "not_type": _made_type,
    "starts": _made_affix,
    "not_starts": _made_affix,
    "ends": _made_affix,
    "not_ends": _made_affix,
    "has_attr": lambda term, spell: f"has an attribute {_code(term.values[0].text)}",
    "no_attr": lambda term, spell: f"has no attribute {_code(term.values[0].text)}",
    "callable": lambda term, spell: "is callable",
}
"""How ``_said`` words a term of a value that may not be the caller's to set (one the
code works out, or a name the excerpt does not show the caller giving): "make sure `x`
is …", true whoever sets it, where a setting is set, passed or given."""


# --- As data, and with the user's values ---------------------------------------------


def sayings(avoid: Avoid) -> list[str]:
    """The words of each way out, each once, as a page lists them (``document``)."""
    return list(dict.fromkeys(said(way) for way in avoid.ways))


def document(avoid: Avoid, spell: Spell = _no_flag) -> dict[str, Any]:
    """``avoid`` as the JSON mirror and the page's script read it. Two ways that read
    alike (``self.data`` and the argument ``data`` are both said `data`) are one line."""
    ways: dict[str, dict[str, Any]] = {}
    for way in avoid.ways:
        text = said(way, spell)
        terms = [_term_data(t, spell) for t in way.terms]
        if text not in ways:
            ways[text] = {"text": text, "terms": terms}
            continue
        # The same words: what each reads of a pasted message is looked up by either.
        for kept, more in zip(ways[text]["terms"], terms, strict=False):
            for role in ("subject", "other"):
                if role in kept and role in more:
                    keys = kept[role].get("keys", []) + more[role].get("keys", [])
                    kept[role]["keys"] = list(dict.fromkeys(keys))
    return {
        "guards": list(avoid.guards),
        "ways": list(ways.values()),
        "imports": list(avoid.imports),
    }


def _operand_data(operand: Operand, spell: Spell) -> dict[str, Any]:
    data: dict[str, Any] = {"text": operand.text, "label": label(operand, spell)}
    if operand.number is not None:
        data["number"] = operand.number
    if operand.keys:
        data["keys"] = list(operand.keys)
    if operand.length:
        data["length"] = True
    return data


def _term_data(term: Term, spell: Spell) -> dict[str, Any]:
    data: dict[str, Any] = {"kind": term.kind, "subject": _operand_data(term.subject, spell)}
    if term.op is not None:
        data["op"] = term.op
    if term.other is not None:
        data["other"] = _operand_data(term.other, spell)
    if term.values:
        data["values"] = [_operand_data(value, spell) for value in term.values]
    return data


TERM_OPS = (">", ">=", "<", "<=", "==", "!=", "exists", "isfile", "isdir")
"""What a term's ``op`` may be: a comparison, or (for ``path``) the check made."""
_KINDS = frozenset(
    (
        *("compare", "divisible", "not_divisible", "one_of", "none_of", "unset", "set"),
        *("true", "false", "type", "not_type", "platform", "not_platform", "system"),
        *("not_system", "installed", "python", "path", "not_path", "starts", "not_starts"),
        *("ends", "not_ends", "contains", "not_contains", "callable", "available"),
        *("has_attr", "no_attr"),
    )
)


def well_formed(term: Any) -> bool:
    """Whether ``term`` is shaped as ``document`` writes one: what ``hints`` may read
    from a JSON document it did not write itself."""
    if not isinstance(term, dict) or not isinstance(term.get("kind"), str):
        return False
    if term["kind"] not in _KINDS or term.get("op", ">") not in TERM_OPS:
        return False
    if term["kind"] in ("compare", "python") and "op" not in term:
        return False
    operands = [term.get("subject"), *([term["other"]] if "other" in term else [])]
    values = term.get("values", [])
    if not isinstance(values, list):
        return False
    return all(_well_formed_operand(o) for o in [*operands, *values])


def _well_formed_operand(operand: Any) -> bool:
    if not isinstance(operand, dict):
        return False
    if not isinstance(operand.get("text"), str) or not isinstance(operand.get("label"), str):
        return False
    if "number" in operand and not isinstance(operand["number"], str):
        return False
    keys = operand.get("keys", [])
    return isinstance(keys, list) and all(isinstance(key, str) for key in keys)


_INTEGER = re.compile(r"^-?[0-9]{1,15}$", re.ASCII)


def hints(
    ways: Sequence[Sequence[Mapping[str, Any]]], values: Mapping[str, str]
) -> list[list[str]]:
    """For each way (its terms, as ``document`` writes them), what the user's values (a
    placeholder's name → the text the paste has there) make of its terms, in plain text.

    static/errdex.js's ``avoidHints`` does the same; tests/avoid/vectors.yaml holds both
    to the same answers."""
    return [[hint for term in terms if (hint := _hint(term, values)) is not None] for terms in ways]


def _lookup(operand: Mapping[str, Any] | None, values: Mapping[str, str]) -> str | None:
    if operand is None:
        return None
    if "number" in operand:
        return str(operand["number"])
    for key in operand.get("keys", ()):
        if key in values:
            return values[key]
    return None


def _integer(text: str | None) -> int | None:
    return int(text) if text is not None and _INTEGER.fullmatch(text) else None


def _hint(term: Mapping[str, Any], values: Mapping[str, str]) -> str | None:
    subject = term["subject"]
    other = term.get("other")
    mine = _lookup(subject, values) if not subject.get("length") else None
    yours = "" if mine is None or "number" in subject else f"; yours is {mine}"
    kind = term["kind"]
    if kind == "divisible" and other is not None:
        whole = _integer(mine)
        part = _integer(_lookup(other, values))
        if whole is not None and 0 < whole <= MAX_FACTORED:
            divisors = _nearest(_divisors(whole), part)
            told = "" if part is None or "number" in other else f"; yours is {part}"
            return (
                f"{other['label']}: {_either([str(d) for d in divisors])} "
                f"(the divisors of {subject['label']} = {whole}){told}"
            )
        if part is not None and part > 0 and mine is None and "number" not in other:
            return f"{subject['label']}: a multiple of {part}"
        return None
    if kind == "compare" and other is not None:
        bound = _lookup(other, values)
        if bound is None or "number" in other:
            return None
        number = _integer(bound)
        op = term["op"]
        if op not in _COMPARED:
            return None
        if number is not None:
            wanted = {
                ">": f"{number + 1} or more",
                ">=": f"{number} or more",
                "<": f"{number - 1} or less",
                "<=": f"{number} or less",
                "==": f"{number}",
                "!=": f"anything but {number}",
            }[op]
        else:
            wanted = {
                ">": f"above {bound}",
                ">=": f"{bound} or more",
                "<": f"below {bound}",
                "<=": f"{bound} or less",
                "==": bound,
                "!=": f"anything but {bound}",
            }[op]
        if subject.get("length"):
            return f"{subject['label']}: {wanted} items"
        return f"{subject['label']}: {wanted}{yours}"
    return None


def _divisors(number: int) -> list[int]:
    small: list[int] = []
    large: list[int] = []
    step = 1
    while step * step <= number:
        if number % step == 0:
            small.append(step)
            if step * step != number:
                large.append(number // step)
        step += 1
    return small + large[::-1]


def _nearest(divisors: list[int], near: int | None) -> list[int]:
    """At most ``MAX_DIVISORS`` of ``divisors``, those nearest ``near``, in order."""
    if len(divisors) <= MAX_DIVISORS:
        return divisors
    centre = near if near is not None else 0
    chosen = sorted(divisors, key=lambda d: (abs(d - centre), d))[:MAX_DIVISORS]
    return sorted(chosen)
