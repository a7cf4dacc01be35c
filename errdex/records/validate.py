"""Stage 2: check every document against the format and the content rules; collect all problems."""

from __future__ import annotations

import datetime
import difflib
import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

from pygments.lexers import find_lexer_class_by_name
from pygments.util import ClassNotFound

from errdex.records.document import Document, Key
from errdex.records.model import (
    SCAFFOLDED,
    SCAFFOLDED_FIX,
    SEARCH_MESSAGE_LIMIT,
    TemplateError,
    parse_template,
    source_lines,
)
from errdex.records.problems import Problem, Severity
from errdex.records.schema import RECORD, SITE, Field
from errdex.urls import (
    RELEASES_FILES,
    base_url_problem,
    exception_url,
    file_url,
    folder_name,
    release_url,
    releases_url,
)

MAX_EXCERPT_LINES = 1000
"""An excerpt is the code around a raise, not a whole file."""
MAX_OUTPUT_PATH = 200
"""Bytes of the longest file a record makes, relative to the output folder: with 60
characters for that folder, the site still fits Windows' 260-character paths."""
REFUSED_CHARACTERS = "".join(
    [chr(c) for c in range(0x20) if chr(c) not in "\t\n\x0c\r"]
    + [chr(c) for c in range(0x7F, 0xA0)]
    + [chr(c) for c in range(0xFDD0, 0xFDF0)]
    + [chr(plane << 16 | low) for plane in range(17) for low in (0xFFFE, 0xFFFF)]
)
"""What no value may hold, though YAML writes any of it as an escape ("\\x00"): control
characters but HTML's whitespace (tab, line breaks, and the form feed Python source may
hold), and noncharacters. HTML calls them parse errors, XML refuses most, and a terminal
obeys ESC and CSI when ``lookup`` prints a message."""
# Two classes: in one class, each of the 32 characters beyond the first plane is compared
# in turn with every character read (the rest are one table lookup), which made this
# check several times slower on every value a build reads. Those 32 are looked for only
# in values that are not all ASCII, and only before the first other refused character.
_REFUSED = re.compile(
    "[" + re.escape("".join(c for c in REFUSED_CHARACTERS if c < "\U00010000")) + r"\ud800-\udfff]"
)
_REFUSED_ASTRAL = re.compile(
    "[" + re.escape("".join(c for c in REFUSED_CHARACTERS if c >= "\U00010000")) + "]"
)


def refused(value: str) -> re.Match[str] | None:
    """The first character of ``value`` that no value may hold (REFUSED_CHARACTERS or a
    lone surrogate), or None."""
    found = _REFUSED.search(value)
    if value.isascii():
        return found
    return _REFUSED_ASTRAL.search(value, 0, found.start() if found else len(value)) or found


def escape_refused(value: str) -> str:
    """``value`` with each character ``refused`` finds written as a Python escape of it:
    ``\\x1b``, ``\\ud800``."""

    def escaped(found: re.Match[str]) -> str:
        return found.group().encode("unicode_escape").decode()

    value = _REFUSED.sub(escaped, value)
    return value if value.isascii() else _REFUSED_ASTRAL.sub(escaped, value)


_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_UNSAFE_LINK_RE = re.compile(r"\]\(\s*<?\s*(javascript|vbscript|data|file)\s*:", re.IGNORECASE)
_HTML_TAG_RE = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(\s[^<>]*)?/?>")


def check_shape(doc: Document, spec: Field) -> list[Problem]:
    """Types, required fields and unknown keys, for every node of the document."""
    return list(_shape(doc, spec, doc.data, ()))


def _shape(doc: Document, spec: Field, value: Any, key: Key) -> Iterator[Problem]:
    # Most values are valid text: they pass without their place being worked out.
    if (
        type(value) is str
        and spec.kind in ("text", "markdown")
        and value.strip()
        and not refused(value)
        and (spec.pattern is None or re.fullmatch(spec.pattern, value))
    ) or (
        type(value) is int
        and spec.kind == "int"
        and (spec.minimum is None or value >= spec.minimum)
    ):
        return
    if spec.kind in ("list", "map") and type(value) is (list if spec.kind == "list" else dict):
        # A well-shaped list or mapping: its own place is needed only for a missing field.
        yield from _container(doc, spec, value, key)
        return
    line = doc.line(*key)
    where = ".".join(str(k) for k in key) or "the file"

    def wrong(expected: str) -> Problem:
        got = "nothing" if value is None else type(value).__name__
        hint = "; put it in quotes" if expected.startswith("text") and value is not None else ""
        return Problem(doc.shown, line, f"{where} must be {expected}, not {got}{hint}", code="E201")

    if spec.kind in ("text", "markdown"):
        if not isinstance(value, str):
            yield wrong("text")
        elif found := refused(value):
            yield Problem(
                doc.shown,
                line,
                f"{where} holds the character U+{ord(found.group()):04X} at position "
                f"{found.start() + 1}, which no page may carry",
                code="E204",
            )
        elif not value.strip():
            yield Problem(doc.shown, line, f"{where} must not be empty", code="E201")
        elif spec.pattern and not re.fullmatch(spec.pattern, value):
            yield Problem(
                doc.shown, line, f"{where} must be {spec.pattern_hint}, not {value!r}", code="E202"
            )
    elif spec.kind == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            yield wrong("a whole number")
        elif spec.minimum is not None and value < spec.minimum:
            yield Problem(
                doc.shown,
                line,
                f"{where} must be at least {spec.minimum}, not {value}",
                code="E201",
            )
    elif spec.kind == "bool":
        if not isinstance(value, bool):
            yield wrong("true or false")
    elif spec.kind == "date":
        is_date = isinstance(value, datetime.date) and not isinstance(value, datetime.datetime)
        if not is_date and not (isinstance(value, str) and _DATE_RE.match(value)):
            yield Problem(
                doc.shown, line, f"{where} must be a date as YYYY-MM-DD, not {value!r}", code="E201"
            )
    elif spec.kind == "list":
        if not isinstance(value, list):
            yield wrong("a list")
        else:
            yield from _container(doc, spec, value, key)
    elif not isinstance(value, dict):
        yield wrong("a mapping of fields")
    else:
        yield from _container(doc, spec, value, key)


_KNOWN: dict[int, tuple[Field, dict[str, Field]]] = {}


def _known(spec: Field) -> dict[str, Field]:
    """A mapping's fields by name, worked out once for each field of the schema. Kept by
    identity (a frozen Field as a key would hash all it holds); the Field is kept too, so
    its id is never another's."""
    found = _KNOWN.get(id(spec))
    if found is None or found[0] is not spec:
        found = _KNOWN[id(spec)] = (spec, {f.name: f for f in spec.fields})
    return found[1]


def _container(doc: Document, spec: Field, value: Any, key: Key) -> Iterator[Problem]:
    """The problems of a list's items, or of a mapping's fields."""
    if spec.kind == "list":
        assert spec.items is not None
        for index, item in enumerate(value):
            yield from _shape(doc, spec.items, item, (*key, index))
        return
    known = _known(spec)
    for name, item in value.items():
        if name in known:
            yield from _shape(doc, known[name], item, (*key, name))
            continue
        close = difflib.get_close_matches(str(name), known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        yield Problem(
            doc.shown,
            doc.line(*key, name),
            f"unknown field {'.'.join(str(k) for k in (*key, name))!r}{hint}",
            Severity.WARNING,
            code="W203",
        )
    for field in spec.fields:
        if field.required and field.name not in value:
            missing = ".".join(str(k) for k in (*key, field.name))
            yield Problem(
                doc.shown, doc.line(*key), f"missing required field {missing!r}", code="E200"
            )


Rule = Callable[[Document, dict[str, Any]], Iterator[Problem]]


def rule_message(doc: Document, data: dict[str, Any]) -> Iterator[Problem]:
    try:
        template = parse_template(data["message"])
    except TemplateError as exc:
        yield Problem(
            doc.shown,
            doc.line("message"),
            f"message: {exc} at column {exc.column + 1}",
            code="E300",
        )
        return
    # Counted as search counts it: literal text, and one for each placeholder.
    size = sum(1 if part.placeholder else len(part.text) for part in template.parts)
    if size > SEARCH_MESSAGE_LIMIT:
        yield Problem(
            doc.shown,
            doc.line("message"),
            f"message is {size:,} characters long; search reads only its first "
            f"{SEARCH_MESSAGE_LIMIT:,} and never matches it as a whole message",
            Severity.WARNING,
            code="W308",
        )


def rule_release_messages(doc: Document, data: dict[str, Any]) -> Iterator[Problem]:
    """Each release's wording is a template, as the message is: search reads it so."""
    for index, item in enumerate(data.get("releases", ())):
        if not isinstance(item, dict) or "message" not in item:
            continue
        try:
            parse_template(item["message"])
        except TemplateError as exc:
            yield Problem(
                doc.shown,
                doc.line("releases", index, "message"),
                f"releases[{index}].message: {exc} at column {exc.column + 1}",
                code="E300",
            )


def rule_aliases(doc: Document, data: dict[str, Any]) -> Iterator[Problem]:
    seen: set[str] = set()
    for index, alias in enumerate(data.get("aliases", ())):
        if alias == data.get("id"):
            yield Problem(
                doc.shown,
                doc.line("aliases", index),
                f"alias {alias} is the record's id",
                code="E400",
            )
        elif alias in seen:
            yield Problem(
                doc.shown, doc.line("aliases", index), f"alias {alias} is listed twice", code="E400"
            )
        seen.add(alias)


def rule_optional(doc: Document, data: dict[str, Any]) -> Iterator[Problem]:
    """``source.optional`` names names of ``source.parameters``, each once: "How to
    avoid it" says each may be left unset to be None."""
    parameters = data["source"].get("parameters")
    seen: set[str] = set()
    for index, name in enumerate(data["source"].get("optional", ())):
        if name in seen:
            why = "is listed twice"
        elif parameters is None:
            why = "is listed, but the record has no source.parameters"
        elif name not in parameters:
            why = "is not one of source.parameters"
        else:
            seen.add(name)
            continue
        line = doc.line("source", "optional", index)
        yield Problem(doc.shown, line, f"source.optional: {name} {why}", code="E202")


def rule_source_path(doc: Document, data: dict[str, Any]) -> Iterator[Problem]:
    path: str = data["source"]["path"]
    line = doc.line("source", "path")
    if path.startswith("/") or re.match(r"^[A-Za-z]:", path):
        yield Problem(
            doc.shown,
            line,
            f"source.path must be relative to the repository: {path!r}",
            code="E301",
        )
    elif "\\" in path or any(ord(c) < 32 for c in path):
        yield Problem(
            doc.shown,
            line,
            f"source.path has a backslash or control character: {path!r}",
            code="E301",
        )
    elif any(part in ("", ".", "..") for part in path.split("/")):
        yield Problem(
            doc.shown, line, f"source.path has an empty, '.' or '..' part: {path!r}", code="E301"
        )


def rule_excerpt(doc: Document, data: dict[str, Any]) -> Iterator[Problem]:
    source = data["source"]
    excerpt = source.get("excerpt")
    if not excerpt:
        return
    start, lines = excerpt["start"], source_lines(excerpt["code"])
    if len(lines) > MAX_EXCERPT_LINES:
        yield Problem(
            doc.shown,
            doc.line("source", "excerpt", "code"),
            f"source.excerpt.code has {len(lines):,} lines; at most {MAX_EXCERPT_LINES:,} "
            "are shown, keep the lines around the raise",
            code="E302",
        )
        return
    end = start + len(lines) - 1
    raise_line = source["line"]
    if not start <= raise_line <= end:
        yield Problem(
            doc.shown,
            doc.line("source", "line"),
            f"source.line {raise_line} is outside the excerpt (lines {start}-{end})",
            code="E302",
        )
    elif not _raises(lines[raise_line - start], source.get("function")):
        yield Problem(
            doc.shown,
            doc.line("source", "line"),
            f"line {raise_line} of the excerpt has no 'raise': "
            f"{lines[raise_line - start].strip()!r}",
            Severity.WARNING,
            code="W303",
        )


def _raises(line: str, function: object) -> bool:
    """Whether an excerpt's line may be where its record raises: a ``raise``, or, in an
    exception class's ``__init__``, the call that gives the message each raise of the
    class prints (``super().__init__(msg)``, which scan records as that class's raise)."""
    if "raise" in line:
        return True
    return isinstance(function, str) and function.endswith(".__init__") and "__init__(" in line


@functools.lru_cache(maxsize=256)
def _known_language(name: str) -> bool:
    # Pygments' own lexers are named in its table: known without importing them (a
    # build that renders one page from the highlight cache needs no lexer). Anything
    # else may be a plugin's, which Pygments finds.
    if name.lower() in _builtin_aliases():
        return True
    try:
        find_lexer_class_by_name(name)
    except ClassNotFound:
        return False
    return True


@functools.cache
def _builtin_aliases() -> frozenset[str]:
    from pygments.lexers._mapping import LEXERS

    return frozenset(alias for _, _, aliases, _, _ in LEXERS.values() for alias in aliases)


def rule_example_fix(doc: Document, data: dict[str, Any]) -> Iterator[Problem]:
    """Each block in a language errdex highlights, and not the scaffold's own."""
    for index, block in enumerate(data.get("example_fix", ())):
        if not _known_language(block["lang"]):
            yield Problem(
                doc.shown,
                doc.line("example_fix", index, "lang"),
                f"unknown language {block['lang']!r}; the block is shown without highlighting",
                Severity.WARNING,
                code="W304",
            )
        if block["code"].strip() == SCAFFOLDED_FIX:
            what = f"example_fix.{index}.code is still the scaffold's '# before' and '# after'"
            line = doc.line("example_fix", index, "code")
            yield Problem(doc.shown, line, what, Severity.WARNING, code="W307")


def rule_analysis_by(doc: Document, data: dict[str, Any]) -> Iterator[Problem]:
    """Who wrote the analysis, not the scaffold's TODO (prose has ``markdown_rule``)."""
    if str(data.get("analysis", {}).get("by", "")).strip() == SCAFFOLDED:
        line = doc.line("analysis", "by")
        yield Problem(doc.shown, line, "analysis.by is still TODO", Severity.WARNING, code="W307")


def markdown_rule(field: str) -> Rule:
    """The rule of one field of prose (``meaning``, ``solutions``, ``when``): no link of
    an unsafe scheme, no TODO left, no raw HTML."""

    def rule(doc: Document, data: dict[str, Any]) -> Iterator[Problem]:
        for key, text in _markdown_fields(data, field):
            line = doc.line(*key)
            name = ".".join(str(k) for k in key)
            found = _UNSAFE_LINK_RE.search(text)
            if found:
                yield Problem(
                    doc.shown,
                    line,
                    f"{name}: link with unsafe scheme {found.group(1)!r}:",
                    code="E305",
                )
            if text.strip() == SCAFFOLDED:
                yield Problem(
                    doc.shown, line, f"{name} is still TODO", Severity.WARNING, code="W307"
                )
            if _HTML_TAG_RE.search(text):
                yield Problem(
                    doc.shown,
                    line,
                    f"{name}: raw HTML is shown as text, not rendered; use Markdown",
                    Severity.WARNING,
                    code="W306",
                )

    return rule


def _markdown_fields(data: dict[str, Any], field: str) -> Iterator[tuple[Key, str]]:
    if field == "meaning" and "meaning" in data:
        yield ("meaning",), data["meaning"]
    if field == "solutions":
        for index, text in enumerate(data.get("solutions", ())):
            yield ("solutions", index), text
    if field == "when":
        for name in ("trigger", "situations"):
            if name in data.get("when", {}):
                yield ("when", name), data["when"][name]


def rule_lengths(doc: Document, data: dict[str, Any]) -> Iterator[Problem]:
    """Names become folders: each file a record makes must fit every file system."""
    yield from rule_repo_length(doc, data)
    yield from rule_exception_page(doc, data)
    yield from rule_file_page(doc, data)


def rule_repo_length(doc: Document, data: dict[str, Any]) -> Iterator[Problem]:
    owner, name = data["repo"].split("/")
    for what, text, limit in (("repo owner", owner, 39), ("repo name", name, 100)):
        if len(text.encode()) > limit:
            yield Problem(
                doc.shown,
                doc.line("repo"),
                f"{what} {text[:40]!r}… is longer than {limit} bytes, more than GitHub allows",
                code="E206",
            )


def rule_exception_page(doc: Document, data: dict[str, Any]) -> Iterator[Problem]:
    yield from _page_length(doc, ("exception",), exception_url(data["exception"]))


def rule_file_page(doc: Document, data: dict[str, Any]) -> Iterator[Problem]:
    folder = file_url(data["repo"], data["source"]["path"])
    yield from _page_length(doc, ("source", "path"), folder)


def _page_length(doc: Document, key: Key, folder: str) -> Iterator[Problem]:
    longest = folder + "index.html"
    size = len(longest.encode())
    if size > MAX_OUTPUT_PATH:
        yield Problem(
            doc.shown,
            doc.line(*key),
            f"{'.'.join(str(k) for k in key)} makes the file {longest[:60]!r}… {size:,} bytes "
            f"long; at most {MAX_OUTPUT_PATH} fit every file system",
            code="E206",
        )


def release_name_problem(repo: str, name: str) -> tuple[str, str] | None:
    """Why ``name`` cannot name a page of ``repo``'s releases whatever the others are
    named, and the problem's code; or None. Its folder must not be a file the releases
    folder holds (``RELEASES_FILES``, in any case), and its page must fit the bound
    every other page fits."""
    from errdex.records.link import folder_key

    folder = folder_key(folder_name(name))
    for own in RELEASES_FILES:
        if folder == folder_key(own):
            return (
                f"release {name!r} of {repo} would be written over the releases page's own "
                f"file {releases_url(repo) + own!r}",
                "E402",
            )
    longest = release_url(repo, name) + "index.html"
    size = len(longest.encode())
    if size > MAX_OUTPUT_PATH:
        return (
            f"release {name!r} of {repo} makes the file {longest[:60]!r}… {size:,} bytes "
            f"long; at most {MAX_OUTPUT_PATH} fit every file system",
            "E206",
        )
    return None


def release_clash(repo: str, name: str, others: dict[str, str]) -> str | None:
    """How ``name`` would share its page's folder with another release of ``repo``,
    or None. ``others`` maps each release before it to where it is given (``line 14``,
    ``pinned already``). Names written so Windows holds them (``aux`` as ``aux_``, ``v1.``
    as ``v1._``) can be another name's folder, and two folders that differ only in case
    are one on macOS and Windows."""
    from errdex.records.link import folder_key

    folder = folder_name(name)
    key = folder_key(folder)
    for other, where in others.items():
        theirs = folder_name(other)
        if other == name or folder_key(theirs) != key:
            continue
        if folder_key(other) == folder_key(name):
            return (
                f"release {name!r} of {repo} differs only in case from {other!r} ({where}): "
                "macOS and Windows would write both pages into one folder"
            )
        if theirs == folder:
            return (
                f"release {name!r} of {repo} makes the same folder as {other!r} ({where}): "
                f"both are written {releases_url(repo) + folder + '/'!r}, so one page would "
                "overwrite the other"
            )
        return (
            f"release {name!r} of {repo} makes the same folder as {other!r} ({where}) on "
            f"macOS and Windows: {folder + '/'!r} and {theirs + '/'!r} differ only in case, "
            "so one page would overwrite the other"
        )
    return None


def rule_releases(doc: Document, data: dict[str, Any]) -> Iterator[Problem]:
    """site.yaml's releases: each may name a page of its own, and none another's."""
    from errdex.records.link import folder_key

    # The first release of each folder, by repository: one look-up a release, however
    # many a repository has.
    first: dict[str, dict[str, tuple[str, str]]] = {}
    for index, item in enumerate(data.get("releases", ())):
        repo, name = item["repo"], str(item["name"])
        line = doc.line("releases", index, "name")
        key = folder_key(folder_name(name))
        other, where = first.setdefault(repo, {}).setdefault(key, (name, f"line {line}"))
        problem = release_name_problem(repo, name)
        if problem is not None:
            yield Problem(doc.shown, line, problem[0], code=problem[1])
            continue
        clash = release_clash(repo, name, {other: where})
        if clash is not None:
            yield Problem(doc.shown, line, clash, code="E402")


RULES: tuple[tuple[tuple[Key, ...], Rule], ...] = (
    ((("repo",),), rule_repo_length),
    ((("exception",),), rule_exception_page),
    ((("repo",), ("source", "path")), rule_file_page),
    ((("message",),), rule_message),
    ((("releases",),), rule_release_messages),
    # An id of the wrong type is no alias's: the aliases alone are read.
    ((("aliases",),), rule_aliases),
    ((("source", "path"),), rule_source_path),
    ((("source", "optional"), ("source", "parameters")), rule_optional),
    ((("source", "excerpt"), ("source", "line")), rule_excerpt),
    ((("example_fix",),), rule_example_fix),
    ((("analysis",),), rule_analysis_by),
    ((("meaning",),), markdown_rule("meaning")),
    ((("solutions",),), markdown_rule("solutions")),
    ((("when",),), markdown_rule("when")),
)
"""Content rules, in the order their problems are reported, each with the fields it reads:
it runs when they are well shaped, so a record's wrong type elsewhere (an unquoted
commit) does not hide the problem it finds (a path that leaves the repository)."""


def check_record(doc: Document) -> list[Problem]:
    problems = check_shape(doc, RECORD)
    shaped = not any(p.severity is Severity.ERROR for p in problems)
    for reads, rule in RULES:
        if shaped or all(_well_shaped(doc, key) for key in reads):
            problems.extend(rule(doc, doc.data))
    return problems


def _well_shaped(doc: Document, key: Key) -> bool:
    """Whether the record's field at ``key`` is well shaped, or left out where it may be."""
    spec, value = RECORD, doc.data
    for name in key:
        if not isinstance(value, dict):
            return False
        spec = _known(spec)[str(name)]
        if name not in value:
            return not spec.required
        value = value[name]
    return not any(p.severity is Severity.ERROR for p in _shape(doc, spec, value, key))


def check_site(doc: Document) -> list[Problem]:
    problems = check_shape(doc, SITE)
    if not problems and isinstance(doc.data, dict):
        seen: set[tuple[str, str]] = set()
        for index, item in enumerate(doc.data.get("releases", ())):
            key = (item["repo"], str(item["name"]))
            if key in seen:
                problems.append(
                    Problem(
                        doc.shown,
                        doc.line("releases", index),
                        f"release {key[1]!r} of {key[0]} is listed twice",
                        code="E403",
                    )
                )
            seen.add(key)
        problems += rule_releases(doc, doc.data)
    if problems or not isinstance(doc.data, dict):
        return problems
    url = doc.data.get("base_url")
    problem = base_url_problem(url) if isinstance(url, str) else None
    if problem:
        what = f"base_url {url!r} {problem}"
        problems.append(Problem(doc.shown, doc.line("base_url"), what, code="E205"))
    url = doc.data.get("edit_url")
    problem = (
        base_url_problem(url, "the paths of record files are") if isinstance(url, str) else None
    )
    if problem:
        what = f"edit_url {url!r} {problem}"
        problems.append(Problem(doc.shown, doc.line("edit_url"), what, code="E208"))
    return problems
