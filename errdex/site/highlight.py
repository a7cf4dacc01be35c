"""Pygments highlighting: code blocks, excerpts split per line, and two colour schemes.

Highlighting is most of the cost of a build. A ``Highlighter`` belongs to one build: it
keeps what it made in memory and, opened on a cache file, between builds, in SQLite, keyed
by the code and its language (the file is for one Pygments version). A full build reads every
entry at once; a build that renders a few pages looks up just their code, and needs no
lexer when it was all seen before.
"""

from __future__ import annotations

import re
import sqlite3
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import pygments
from markupsafe import Markup, escape

from errdex.records.model import source_lines
from errdex.source.avoid import scan_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from pygments.lexer import Lexer
    from pygments.token import _TokenType

LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"
CSS_SCOPE = ".hl"


def _pygmentize(code: str, lexer: Lexer) -> str:
    """``code`` as HTML for a ``<pre>``: each token Pygments colours in an element named
    for its class, ``<t-k>if</t-k>`` (a custom element, inline and valid HTML, at 11 bytes
    a token against a ``<span class=k>``'s 21), closed at the end of each line so that the
    lines split cleanly. Tokens of one class that only spaces part share one element.

    None around the tokens both schemes show as plain text (names, punctuation, spaces:
    most of a line of Python), nor around the dot of ``self.name``: an operator to
    Pygments, shown as plain text by the code views people know."""
    from pygments.token import Operator

    out: list[str] = []
    shown = ""  # the element open now, "" for none
    gap = ""  # spaces after it: inside it if the same element follows, else after it
    for kind, text in lexer.get_tokens(code):
        tag = "" if kind is Operator and text == "." else _element(kind)
        for number, part in enumerate(text.translate(_ESCAPES).split("\n")):
            if number:
                out.append(f"</{shown}>{gap}\n" if shown else f"{gap}\n")
                shown = gap = ""
            if not part:
                continue
            if tag == shown:
                out.append(gap + part)
                gap = ""
            elif shown and not tag and not part.strip(" \t"):
                gap += part
            else:
                out.append(f"</{shown}>{gap}" if shown else gap)
                out.append(f"<{tag}>{part}" if tag else part)
                shown, gap = tag, ""
    out.append(f"</{shown}>{gap}" if shown else gap)
    return "".join(out)


_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


@cache
def _element(kind: _TokenType) -> str:
    """The element of a token type: ``t-`` and the Pygments class of the nearest type, of
    it and its parents, that Pygments names or a colour scheme styles (``t-s2`` for
    ``String.Double``; ``t-l`` for YAML's ``Literal.Scalar.Plain``, coloured as a
    literal); "" for one that shows as plain text."""
    from pygments.token import STANDARD_TYPES

    styled = _styled_types()
    while kind not in styled:
        parent = kind.parent
        assert parent is not None, "Token, the root of every type, is a standard type"
        kind = parent
    if kind in _plain_types():
        return ""
    suffix = ""
    while kind not in STANDARD_TYPES:
        suffix = f"-{kind[-1]}{suffix}"
        parent = kind.parent
        assert parent is not None, "Token, the root of every type, is a standard type"
        kind = parent
    return f"t-{STANDARD_TYPES[kind]}{suffix}".lower()


@lru_cache(maxsize=1)
def _styled_types() -> frozenset[_TokenType]:
    """The token types Pygments names (``STANDARD_TYPES``) and those either colour scheme
    gives a style of their own (GitHub's dark scheme underlines ``Generic.Underline``)."""
    from pygments.styles import get_style_by_name
    from pygments.token import STANDARD_TYPES

    found = set(STANDARD_TYPES)
    for name in (LIGHT_STYLE, DARK_STYLE):
        found.update(kind for kind, _ in get_style_by_name(name))
    return frozenset(found)


@lru_cache(maxsize=1)
def _plain_types() -> frozenset[_TokenType]:
    """The token types that look like plain text in both colour schemes: the same colour,
    weight and slant as text, or whitespace with no background or line to show."""
    from pygments.styles import get_style_by_name
    from pygments.token import STANDARD_TYPES, Text, Whitespace

    def plain(kind: _TokenType) -> bool:
        for name in (LIGHT_STYLE, DARK_STYLE):
            style = get_style_by_name(name)
            found, text = style.style_for_token(kind), style.style_for_token(Text)
            if Whitespace in kind.split():  # spaces show no colour
                if (found["bgcolor"], found["underline"], found["border"]) != (
                    text["bgcolor"],
                    text["underline"],
                    text["border"],
                ):
                    return False
            elif found != text:
                return False
        return True

    return frozenset(kind for kind in STANDARD_TYPES if plain(kind))


@lru_cache(maxsize=256)
def _lexer(name: str | None = None, suffix: str | None = None) -> Lexer | None:
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
    from pygments.util import ClassNotFound

    from errdex.site.lexing import faster

    # stripnl=False: a leading blank line of an excerpt must keep its line number.
    options: dict[str, Any] = {"stripnl": False, "ensurenl": True}
    try:
        if name:
            found = get_lexer_by_name(name, **options)
        elif suffix in _BY_SUFFIX:
            found = get_lexer_by_name(_BY_SUFFIX[suffix], **options)
        elif suffix:
            found = get_lexer_for_filename("x" + suffix, **options)
        else:
            return None
    except ClassNotFound:
        return None
    return faster(found)


_BY_SUFFIX = {".py": "python", ".pyi": "python"}
"""Pygments finds a lexer for a file name by trying every lexer's patterns; the suffixes
most excerpts have are looked up directly."""


def highlight(code: str, lang: str) -> Markup:
    """``code`` as HTML spans for a ``<pre>``; plain escaped text for an unknown language.

    Kept in no cache: for the rare code block inside a record's prose (Markdown renders
    each text once per process). Builds highlight through their ``Highlighter``."""
    lexer = _lexer(name=lang)
    return Markup(escape(code) if lexer is None else _pygmentize(code, lexer))


_CACHE_VERSION = f"errdex-highlight-8 pygments-{pygments.__version__}"


MERGED_AT_ONCE = 5_000
"""Entries a build that merges its workers' entries holds before writing them."""


def _cache_key(kind: str, lang: str, code: str) -> str:
    """The code itself, not a digest of it: an excerpt of twenty lines is twenty
    lookups, and a dict or SQLite finds the text as well as its digest."""
    return f"{kind}\x00{lang}\x00{code}"


class Highlighter:
    """Highlights the code of one build, each piece once.

    A full build on several processes forks with it: each worker highlights what the
    parent had not, and sends that back (``take_added``, ``merge``) for the cache file.
    """

    def __init__(self) -> None:
        self._cache: dict[str, str] = {}
        """Entries in memory: read from the cache file, or made by this build."""
        self._added: dict[str, str] = {}
        """Entries made since the last ``take_added``: what a worker sends back, and what
        the parent writes to the file."""
        self._db: sqlite3.Connection | None = None
        self._all_read = False
        """Whether every entry of the file is in ``_cache`` (so a miss needs no lookup)."""
        self._unread: str | None = None
        """Why the file could not be read as an update looked entries up, if it could not."""

    @classmethod
    def open(cls, path: Path, read_all: bool) -> tuple[Highlighter, str | None]:
        """A highlighter that keeps its work in the cache file at ``path`` (made if
        missing): every entry read now when ``read_all``, else each when asked for. A file
        that is not a cache of this errdex and Pygments version is emptied; one SQLite
        cannot read is replaced. Also returns what to warn of, or None."""
        highlighter = cls()
        warning = None
        for _ in range(2):
            db = None
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(path, timeout=60)
                db.execute("CREATE TABLE IF NOT EXISTS meta (version TEXT NOT NULL)")
                db.execute("CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, html TEXT)")
                row = db.execute("SELECT version FROM meta").fetchone()
                if row is None or row[0] != _CACHE_VERSION:
                    with db:
                        db.execute("DELETE FROM entries")
                        db.execute("DELETE FROM meta")
                        db.execute("INSERT INTO meta VALUES (?)", (_CACHE_VERSION,))
                if read_all:
                    highlighter._cache.update(
                        db.execute("SELECT key, html FROM entries WHERE html NOT NULL")
                    )
                highlighter._db, highlighter._all_read = db, read_all
                return highlighter, warning
            except sqlite3.DatabaseError:
                warning = "the highlight cache is unreadable; ignored and rebuilt"
                if db is not None:
                    db.close()
                path.unlink(missing_ok=True)
        return highlighter, warning

    def save(self) -> str | None:
        """Add this build's new entries to the cache file, if there is one; what to warn
        of when they cannot be (a full disk): the site is written by then."""
        if self._db is None or not self._added:
            return self._unread
        try:
            with self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO entries VALUES (?, ?)", self._added.items()
                )
        except sqlite3.Error as exc:
            return f"the highlight cache cannot be written ({exc}); this build's part is not kept"
        self._added.clear()
        return None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
        self._db, self._all_read = None, False

    def warm(self) -> None:
        """Make the formatter and the lexers most excerpts need now (before forking)."""
        from errdex.site.lexing import join_all

        for suffix in _BY_SUFFIX:
            lexer = _lexer(suffix=suffix)
            if lexer is not None:
                join_all(lexer)

    def take_added(self) -> dict[str, str]:
        """The entries made since the last call (in a worker: what the parent lacks)."""
        added = dict(self._added)
        self._added.clear()
        return added

    def merge(self, entries: dict[str, str]) -> None:
        """Add entries a worker made, for the cache file: written a few thousand at a
        time and then forgotten (the build that merges renders no code itself), so they
        are not all held at once. An entry is true whatever becomes of the build, so one
        written before the build fails does no harm."""
        if self._db is None:
            return
        self._added.update(entries)
        if len(self._added) >= MERGED_AT_ONCE:
            self.save()

    def highlight(self, code: str, lang: str) -> Markup:
        """``code`` as HTML spans for a ``<pre>``; plain escaped text for an unknown language."""
        html = self._cached(_cache_key("block", lang, code), lambda: _lexer(name=lang), code)
        return Markup(escape(code) if html is None else html)

    def highlight_lines(
        self, code: str, filename: str, raised_at: int | None = None
    ) -> tuple[Markup, ...]:
        """One HTML fragment per source line, each with its spans closed.

        ``_pygmentize`` closes and reopens its elements at every newline, so the
        output splits cleanly into lines, even inside multi-line strings. ``raised_at``
        is the index of a line known to be code (the raise): an excerpt of Python that,
        read from its first line, has that line inside a triple-quoted string starts
        inside one (a docstring cut in two), and is highlighted as if it were opened
        above the excerpt.
        """
        lines = source_lines(code)
        suffix = _suffix(filename)
        if raised_at is not None and suffix in _LINE_BY_LINE:
            opened = _opened_above(lines, raised_at)
            if opened is not None:
                return self.highlight_lines(f"{opened}\n{code}", filename)[1:]
        if suffix in _LINE_BY_LINE:
            if not _spans_lines(code):
                return tuple(Markup(html) for html in self._by_line(lines, suffix))
            runs = _runs(lines)
            if runs is not None:
                return tuple(Markup(html) for html in self._by_runs(lines, runs, suffix))
        html = self._cached(_cache_key("lines", suffix, code), lambda: _lexer(suffix=suffix), code)
        if html is None:
            return tuple(Markup(escape(line)) for line in lines)
        return tuple(Markup(line) for line in html.split("\n")[: len(lines)])

    def _lookup(self, keys: list[str]) -> None:
        """Bring the entries of ``keys`` that the file has into memory."""
        wanted = [key for key in dict.fromkeys(keys) if key not in self._cache]
        if not wanted or self._db is None or self._all_read:
            return
        try:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                marks = ",".join("?" * len(chunk))
                query = f"SELECT key, html FROM entries WHERE key IN ({marks})"
                self._cache.update(self._db.execute(query, chunk))
        except sqlite3.Error as exc:  # damaged since it was opened: this build goes without
            self._unread = f"the highlight cache cannot be read ({exc}); not used by this build"
            self.close()

    def _cached(self, key: str, lexer: Callable[[], Lexer | None], code: str) -> str | None:
        """The HTML of ``code`` under ``key``, from the cache or made now; None when there
        is no lexer for it."""
        self._lookup([key])
        if key not in self._cache:
            found = lexer()
            if found is None:
                return None
            self._cache[key] = self._added[key] = _pygmentize(code, found)
        return self._cache[key]

    def _by_runs(self, lines: list[str], runs: list[tuple[int, int]], suffix: str) -> list[str]:
        """``lines`` highlighted a run at a time (see ``_runs``): a run of one line as
        ``_by_line`` does, a longer one (a docstring, say) whole, each kept in the cache."""
        single = iter(self._by_line([lines[a] for a, b in runs if b - a == 1], suffix))
        out: list[str] = []
        for start, stop in runs:
            if stop - start == 1:
                out.append(next(single))
                continue
            text = "\n".join(lines[start:stop]) + "\n"
            html = self._cached(
                _cache_key("lines", suffix, text), lambda: _lexer(suffix=suffix), text
            )
            assert html is not None, suffix
            out += html.split("\n")[: stop - start]
        return out

    def _by_line(self, lines: list[str], suffix: str) -> list[str]:
        keys = [_cache_key("line", suffix, line) for line in lines]
        self._lookup(keys)
        cache = self._cache
        missing = {key: line for key, line in zip(keys, lines, strict=True) if key not in cache}
        if missing:
            lexer = _lexer(suffix=suffix)
            assert lexer is not None, suffix
            # The new lines do not depend on each other: highlight them in one call.
            text = "\n".join(missing.values()) + "\n"
            made = dict(zip(missing, _pygmentize(text, lexer).split("\n"), strict=False))
            cache.update(made)
            self._added.update(made)
        return [cache[key] for key in keys]


def _suffix(filename: str) -> str:
    """``PurePosixPath(filename).suffix``, without making a path for every excerpt."""
    name = filename.rpartition("/")[2]
    if name in ("", "."):  # a path's empty and "." steps are none of its own
        name = next((part for part in reversed(filename.split("/")) if part not in ("", ".")), "")
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


# Excerpts of one codebase share most of their lines: the same file is quoted around
# every raise in it, and code repeats its idioms. In Python, a line that starts at the top
# state of Pygments' lexer ends there too, unless a string or statement runs on to the next
# line; such excerpts are highlighted whole. Every other excerpt is highlighted a line at
# a time, and a line seen before costs a lookup.
_LINE_BY_LINE = {".py", ".pyi"}
_SPANS_LINES = re.compile(
    r"\"\"\"|'''"  # a triple-quoted string can run over lines
    r"|\\[ \t]*$"  # so can anything after a backslash
    r"|^[ \t]*#!"  # a hashbang is one only on the first line
    r"|\b(?:def|class|import|from|case|match)[ \t]*$"  # a name may follow on the next line
    # an f-string (or any prefixed string) whose replacement field runs past the line
    r"|\b[fFrRbB]{1,2}[\"'][^\n]*\{[^}\n]*$",
    re.MULTILINE,
)


_CARRIES_ON = re.compile(
    r"\\[ \t]*$|\b(?:def|class|import|from|case|match)[ \t]*$"
    r"|\b[fFrRbB]{1,2}[\"'][^\n]*\{[^}\n]*$"
)
"""A line after which Pygments' state may not be its top one, a string aside (the
patterns of _SPANS_LINES but the triple quotes, which ``_runs`` follows)."""


_LAST_WORDS = ("\\", "def", "class", "import", "from", "case", "match")


def _spans_lines(code: str) -> bool:
    """``_SPANS_LINES.search(code)``, a line at a time and only where it can match: the
    pattern's alternatives that follow a word boundary cost most excerpts a tenth of a
    millisecond, and match none of them."""
    if '"""' in code or "'''" in code:
        return True
    return any(
        _carries_on(line) or line.lstrip(" \t").startswith("#!") for line in code.split("\n")
    )


def _carries_on(line: str) -> bool:
    """``_CARRIES_ON.search(line)``, looked for only where it can match: each of its
    patterns needs a brace, or one of ``_LAST_WORDS`` at the line's end."""
    if "{" not in line and not line.rstrip(" \t").endswith(_LAST_WORDS):
        return False
    return _CARRIES_ON.search(line) is not None


def _runs(lines: list[str]) -> list[tuple[int, int]] | None:
    """The excerpt cut into runs of lines (start, stop) that Pygments' Python lexer
    begins and ends at its top state: a line on its own, or a triple-quoted string with
    the lines it spans. Each run highlighted alone gives what the whole excerpt gives
    (tests check it on real code), and the runs recur: a docstring is quoted around
    every raise of its function. None when a formatted triple-quoted string is there,
    or a raw one that does not start its line (a docstring, which may be raw): those
    excerpts are highlighted whole."""
    out: list[tuple[int, int]] = []
    start = 0
    quote: str | None = None  # the triple quote a string that spans lines opened
    # Pygments reads a triple-quoted string that starts a line as a docstring, to the
    # next three quotes whatever comes before them; any other one this follows (not raw,
    # not formatted) minds backslashes.
    escapes = True
    for number, line in enumerate(lines):
        at, end = 0, len(line)
        if quote is None and "'" not in line and '"' not in line:
            end = 0  # no string starts or ends here; a comment changes nothing either
        while at < end:
            char = line[at]
            if quote is not None:
                if char == "\\" and escapes:
                    at += 2
                elif line.startswith(quote, at):
                    quote, at = None, at + 3
                else:
                    at += 1
            elif char == "#":
                break
            elif char in "\"'":
                prefix = at
                while prefix > 0 and line[prefix - 1] in "rRbBuUfF":
                    prefix -= 1
                if line.startswith(char * 3, at):
                    affix = line[prefix:at].lower()
                    escapes = bool(line[:prefix].strip())
                    # At a line's start, any prefix but f (and at most two letters) is
                    # a docstring's, read to the next three quotes like an unprefixed one.
                    if (escapes or len(affix) > 2 or "f" in affix) and set(affix) & {"r", "f"}:
                        return None
                    quote = char * 3
                    at += 3
                    continue
                at += 1  # a one-line string: to its closing quote, or the line's end
                while at < end and line[at] != char:
                    at += 2 if line[at] == "\\" else 1
                at += 1
            else:
                at += 1
        following = lines[number + 1] if number + 1 < len(lines) else ""
        if quote is None and not _carries_on(line) and not following.lstrip().startswith("#!"):
            out.append((start, number + 1))
            start = number + 1
    if start < len(lines):
        out.append((start, len(lines)))
    return out


def _opened_above(lines: list[str], index: int) -> str | None:
    """The triple quote that opens a string above ``lines``, when line ``index`` (code)
    is inside a string as the lines read from the first, and outside one when that quote
    opens a string before them; None when it is code as they read."""
    above = lines[:index]
    if not any('"""' in line or "'''" in line for line in above):
        return None  # most excerpts: no string above the raise can span lines
    if len(_string_left_open(above, "")) != 3:
        return None
    # The kind of quote the lines close first is the one most likely open above them.
    text = "\n".join(above)
    for quote in sorted(('"""', "'''"), key=lambda q: (q not in text, text.find(q))):
        if not _string_left_open(above, quote):
            return quote
    return None


def _string_left_open(lines: list[str], quote: str) -> str:
    """The triple quote of the string still open after ``lines`` of Python (or ""), read
    with ``quote`` open before the first; a one-quote string ends with its line (in an
    excerpt, an apostrophe of a docstring cut above it, often)."""
    for line in lines:
        quote = scan_line(line, 0, quote)[1]
        if len(quote) == 1:
            quote = ""
    return quote


@lru_cache(maxsize=1)
def stylesheet() -> str:
    """Token colours for the light scheme, and for the dark one when the system asks for it."""
    # Token colours only: backgrounds come from errdex.css, so code sits on the page's own tones.
    light = "\n".join(_token_css(LIGHT_STYLE))
    dark = _token_css(DARK_STYLE)
    indented = "\n".join("  " + line for line in dark)
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{indented}\n}}\n"


def _token_css(style: str) -> list[str]:
    """Pygments' rules for ``style``, each for the element ``_pygmentize`` names: ``.hl .k``
    becomes ``.hl t-k``."""
    from pygments.formatters import HtmlFormatter

    rules: list[str] = HtmlFormatter(style=style).get_token_style_defs(CSS_SCOPE)  # type: ignore[no-untyped-call]
    return [_CLASS_RULE.sub(lambda m: f"{CSS_SCOPE} t-{m[1].lower()}", rule) for rule in rules]


_CLASS_RULE = re.compile(rf"^{re.escape(CSS_SCOPE)} \.([\w-]+)")
