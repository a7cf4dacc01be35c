"""Scaffold a record from a message or a pasted traceback, every field laid out to fill in."""

from __future__ import annotations

import ast
import datetime
import json
import os
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from errdex.records.files import write_atomic
from errdex.records.load import parse_yaml
from errdex.records.model import TemplateError, derive_id, parse_template
from errdex.records.problems import Severity
from errdex.records.schema import RECORD, json_schema
from errdex.records.validate import check_record
from errdex.search import (
    FRAMES,
    GROUP_HEAD,
    Extracted,
    Frame,
    exact_values,
    fit_placeholders,
    literals_of,
    make_entry,
    normalize,
    paste_lines,
    raised_at,
    readings,
    same_class,
    strip_prefixes,
)
from errdex.source.update import Existing

SCHEMA_FILE = "record.schema.json"
"""The JSON Schema of record files, kept in the content folder for editors."""

# Values a message carries, most specific first: each becomes a placeholder to confirm.
# The dict pattern takes no braces inside, so a paste full of them stays linear.
_VALUES = (
    ("path", re.compile(r"(?<![\w.])(?:/[\w@+-]+(?:\.[\w@+-]+)*){2,}/?")),
    ("model", re.compile(r"(?<![\w/.-])[A-Za-z][\w.-]*/[\w.-]+(?![\w/])")),
    ("value", re.compile(r"'[^']*'|\"[^\"]*\"|\[[^\[\]]*\]|\{[^{}]*\}")),
    # Not a part of a version (1.0.3); a number may end a sentence ("got 1.2.").
    ("number", re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?!\w|\.[\w.])")),
)
_EXCEPTION = re.compile(next(f.pattern for f in RECORD.fields if f.name == "exception") or "")
_MAX_NAME_BYTES = 200
"""The longest exception name a record may have (it becomes a folder name)."""
_FILLED_IN = {"commit": "0000000", "path": "a.py", "line": 1}
"""Stand-ins for the source facts the author fills in, to check a scaffold would build."""


class Refused(ValueError):
    """A paste that cannot become a record that builds; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class PastedError:
    exception: str
    template: str
    guessed: tuple[tuple[str, str], ...]
    """(placeholder, the value it replaced) for the author to confirm."""
    message: str = ""
    """The message as pasted, its values in it."""
    frame: Frame | None = None
    """Where a pasted traceback says the error was raised: its last frame."""
    from_raise: bool = False
    """The template is the one the traceback's raise writes: its placeholders are the
    code's, not guesses."""
    unnamed: bool = False
    """Neither the paste nor ``--exception`` named the class (a program's ``Error: …``
    line): ``exception`` is ``Exception``, for the author to replace."""


def in_repository(frame: Frame) -> str | None:
    """The raising file's path in its package's repository, as far as an installed path
    tells it (what follows ``site-packages/``), or None."""
    parts = [*frame.folders, frame.file]
    for at in range(len(parts) - 1, -1, -1):
        if parts[at] in ("site-packages", "dist-packages"):
            inside = [part for part in parts[at + 1 :] if part not in ("", ".")]
            if inside and inside[0].lower().endswith((".egg", ".zip", ".whl")):
                inside = inside[1:]  # an installed archive: the package's path is inside it
            path = "/".join(inside)
            return path if _RELATIVE.fullmatch(path) and ".." not in inside else None
    return None


_RELATIVE = re.compile(r"[\w.@+\- ]+(?:/[\w.@+\- ]+)*\.py")
"""A repository path ``new`` writes from a frame: printable, no quotes or backslashes."""
_MAX_LINE = 10_000_000


def draft(paste: str, exception: str | None) -> PastedError:
    """The exception and a template for a paste, its values turned into placeholders."""
    if _has_surrogates(paste) or (exception and _has_surrogates(exception)):
        raise Refused("the text holds bytes that are not UTF-8; paste it as UTF-8 text")
    # The most specific reading; when it says no message, one of its class that does:
    # pytest's long report ends in its place, ``…/parse.py:214: ParseError``, under the
    # error's "E" line. (Any other reading is another error, or prose.)
    read = readings(paste)
    first = read[0]
    found = next((r for r in read if r.message.strip(" \t") and _same_error(r, first)), first)
    name = exception or found.exception or "Exception"
    if not _EXCEPTION.fullmatch(name) or len(name.encode()) > _MAX_NAME_BYTES:
        given = "--exception" if exception else "the exception in the paste"
        raise Refused(
            f"{given} must be a Python name such as ValueError or torch.OutOfMemoryError "
            f"(at most {_MAX_NAME_BYTES} bytes), not {name[:80]!r}"
        )
    message = found.message.strip(" \t")
    if not message:
        # A bare exception (KeyboardInterrupt, ``ValueError:``) has no message to template;
        # what else the paste says is another error's, or prose.
        raise Refused(
            f"{found.exception or 'the paste'} carries no message, and a record needs one: "
            f"give the message as TEXT with --exception {name}"
        )
    raised = _as_raised(paste, found, message)
    template, guessed = raised or _placeholders(message)
    return PastedError(
        name,
        template,
        guessed,
        message,
        raised_at(paste, found),
        from_raise=raised is not None,
        unnamed=not (exception or found.exception),
    )


def _as_raised(
    paste: str, found: Extracted, message: str
) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """The template the traceback's own raise writes (``raise ValueError(f"got {x!r}")``,
    the code line under its last frame, right above the error but for Python's ``^``
    marks, or the one pytest marks ``>``), its placeholders named as scan names them,
    when it raises the pasted class
    and its words are the pasted message's; with the value each took. None otherwise."""
    from errdex.source.scan import exception_name, template_of

    if found.line is None or found.exception is None:
        return None
    lines = paste_lines(paste)
    grouped = GROUP_HEAD in paste
    index = found.line - 1
    while index >= 0 and _MARKS.fullmatch(strip_prefixes(lines[index], grouped).text):
        index -= 1
    if index < 1:
        return None
    code = strip_prefixes(lines[index], grouped).text.strip()
    ran = lines[index].lstrip().startswith(">")  # pytest's mark on the line that ran
    frame = strip_prefixes(lines[index - 1], grouped).text
    if not code.startswith("raise ") or not (ran or any(p.search(frame) for p in FRAMES)):
        return None
    try:
        node = ast.parse(code).body[0]
        if not (
            isinstance(node, ast.Raise)
            and isinstance(node.exc, ast.Call)
            and isinstance(node.exc.func, ast.Name | ast.Attribute)
            and node.exc.args
        ):
            return None
        raised = exception_name(node.exc.func)
        template = template_of(node.exc.args[0])
        literals, names = literals_of(template) if template is not None else ([], [])
    except (SyntaxError, ValueError, RecursionError, MemoryError, TemplateError):
        return None  # a raise over lines the traceback does not show, say
    if template is None or raised is None or not same_class(raised, found.exception):
        return None
    if not _WORD.search("".join(literals)):
        return None  # ``f"{exc}"``: no words of its own that search could find it by
    spans = fit_placeholders(literals, message)  # linear, as search fits a paste
    if spans is None:
        return None
    values = (message[start:end] for start, end in spans)
    return template, tuple(zip(names, values, strict=True))


_MARKS = re.compile(r"[ \t^~]*")
"""A line of Python's marks under the code of a frame (3.11 and later), or a blank one."""
_WORD = re.compile(r"[^\W\d_]{2}")


def _same_error(reading: Extracted, first: Extracted) -> bool:
    """Whether ``reading`` names the class ``first`` names (both name one)."""
    one, other = reading.exception, first.exception
    return one is not None and other is not None and same_class(one, other)


def already_recorded(item: PastedError, existing: Sequence[Existing]) -> Existing | None:
    """The record that already says the pasted error: of the same class (a traceback
    names it with its module, ``yaml.parser.ParserError``, where a raise and so a scanned
    record may say ``ParserError``), whose message is the paste's template or reads as
    the pasted message once its placeholders are filled in."""
    for record in existing:
        exception, message = record.data.get("exception"), record.data.get("message")
        if not isinstance(exception, str) or not isinstance(message, str):
            continue
        if not same_class(exception, item.exception):
            continue
        if message == item.template or _reads_as(message, item.message):
            return record
    return None


def _reads_as(template: str, message: str) -> bool:
    """Whether ``message`` is what ``template`` says with some values in its placeholders,
    as search matches a whole message: its case, quotes and white space aside (a paste's
    message over two lines is read as one line where a record's says a line break), each
    literal at its leftmost place (linear, whatever the paste). A template with no words
    of its own (``{problem}\n{advice}``) says no message of a paste."""
    try:
        entry = make_entry(0, "", "", "", template, "")
    except TemplateError:
        return False
    if not message or entry.cut or not _WORD.search("".join(entry.literals)):
        return False
    normalized, where = normalize(message)
    return exact_values(entry, message, normalized, where) is not None


def _has_surrogates(text: str) -> bool:
    # Undecodable bytes reach Python as lone surrogates (surrogateescape): no file holds them.
    return _SURROGATE.search(text) is not None


_SURROGATE = re.compile("[\ud800-\udfff]")


def _placeholders(message: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The message as a template, each value a pattern finds made a placeholder.

    Each pattern runs once over the whole message (linear, whatever its length); the
    values an earlier pattern took are masked from the later ones.
    """
    taken = bytearray(len(message))
    spans: list[tuple[int, int, str]] = []
    guessed: list[tuple[str, str]] = []
    used: Counter[str] = Counter()
    for name, pattern in _VALUES:
        masked = "".join("\x00" if taken[i] else char for i, char in enumerate(message))
        for match in pattern.finditer(masked):
            start, end = match.span()
            if any(taken[start:end]):
                continue
            used[name] += 1
            label = name if used[name] == 1 else f"{name}_{used[name]}"
            taken[start:end] = b"\x01" * (end - start)
            spans.append((start, end, label))
            guessed.append((label, message[start:end]))
    pieces: list[str] = []
    position = 0
    for start, end, label in sorted(spans):
        pieces.append(_literal(message[position:start]))
        pieces.append("{" + label + "}")
        position = end
    pieces.append(_literal(message[position:]))
    template = "".join(pieces)
    parse_template(template)  # a draft must be a valid template
    return template, tuple(guessed)


def _literal(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


# What a double-quoted YAML scalar cannot hold raw (JSON leaves these as they are): DEL,
# C1 controls, NEL and the Unicode line breaks YAML folds, the BOM, U+FFFE and U+FFFF.
_YAML_ESCAPE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")


def quoted(text: str) -> str:
    """``text`` as a double-quoted YAML scalar that reads back as the same string."""
    return _YAML_ESCAPE.sub(
        lambda m: f"\\u{ord(m.group()):04x}", json.dumps(text, ensure_ascii=False)
    )


_UNNAMED = "  # TODO: the paste names no class: the one the code raises"


def _name(exception: str) -> str:
    # YAML reads a few names as something else: ``Null``, ``True``, ``No``.
    return exception if yaml.safe_load(exception) == exception else quoted(exception)


def scaffold(repo: str, item: PastedError, today: datetime.date) -> str:
    guesses = "".join(f"#   {{{name}}} was {_shown(value)}\n" for name, value in item.guessed)
    confirm = (
        (
            "# Placeholders as the raise the paste shows names them, and the paste's values:\n"
            if item.from_raise
            else "# Placeholders guessed from the values in the paste: rename or undo them.\n"
        )
        + guesses
        if guesses
        else ""
    )
    return f"""# yaml-language-server: $schema=../../../{SCHEMA_FILE}
# A new errdex record. Fill in what you know; `errdex check` says what is left.
repo: {repo}
exception: {_name(item.exception)}{_UNNAMED if item.unnamed else ""}
# The message; {{name}} marks a placeholder, named after the source expression.
message: {quoted(item.template)}
{confirm}source:
  commit: ""  # the commit the record is pinned to, 7 to 40 hex digits (quoted)
{_source_place(item.frame)}  # excerpt:  # the code around the raise, so a build needs no checkout
  #   start: 1  # the line number of its first line
  #   code: |
  #     ...
# What it means, in a few sentences of Markdown.
meaning: |
  TODO
# Ways to fix it, best first.
solutions:
  - TODO
# Code showing a fix, each block in its language.
example_fix:
  - lang: bash
    code: |
      # before
      # after
when:
  trigger: TODO  # what makes the code raise it
  situations: TODO  # common situations that lead there
# Related errors: record ids or message texts.
related: []
analysis:
  by: TODO  # who or what wrote this
  date: {today.isoformat()}
"""


def _source_place(frame: Frame | None) -> str:
    """The scaffold's ``path``, ``line`` and ``function``: from the paste's last frame
    when it names an installed file (to confirm: the repository may keep it elsewhere,
    and another version at another line), else to fill in."""
    path = in_repository(frame) if frame is not None else None
    if frame is None or path is None or not 0 < (frame.line or 0) <= _MAX_LINE:
        # Named when it is a file (not ``<frozen …>`` nor ``<string>``).
        named = "" if frame is None else "/".join([*frame.folders, frame.file])
        shown = frame is not None and not frame.file.startswith("<")
        said = f"  # the paste's last frame: {_shown(named)}\n" if shown else ""
        return (
            f"{said}"
            '  path: ""  # the file that raises it, relative to the repository root\n'
            "  line: 0  # the line of the raise\n"
            "  # function: Class.method\n"
        )
    function = _function(frame)
    if function is None:
        named = "Class.method"
    elif "." in function:
        named = f"{_shown(function)}  # as the paste names it"
    else:
        named = f"{_shown(function)}  # as the paste names it (a method: Class.method)"
    return (
        f"  path: {quoted(path)}  # from the paste's last frame: confirm it in the repository\n"
        f"  line: {frame.line}  # in the version the paste ran: confirm it at the commit\n"
        f"  # function: {named}\n"
    )


def _function(frame: Frame) -> str | None:
    """The frame's function as a record names it: ``Class.method`` when the frame names
    the class (IPython: ``CacheConfig._verify_args``; Cython adds the module before it),
    else the function's own name; None for a module's top."""
    if not frame.named or frame.function == "<module>":
        return None
    parts = frame.named.split(".")
    if len(parts) > 1 and parts[-2][:1].isupper():
        return f"{parts[-2]}.{parts[-1]}"
    return parts[-1]


def _shown(value: str) -> str:
    # A line break or control character would end the comment or be refused by YAML.
    return quoted(value) if _UNSAFE_IN_COMMENT.search(value) else value


_UNSAFE_IN_COMMENT = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")


def checked(repo: str, item: PastedError, today: datetime.date) -> str:
    """The scaffold, once it is known to read back as written and to build when the author
    has filled in the source; otherwise ``Refused`` names each problem."""
    text = scaffold(repo, item, today)
    shown = f"the record for {item.exception}"
    doc, problems = parse_yaml(text, shown, Path(shown))
    data = doc.data if doc else None
    if doc is None or not isinstance(data, dict) or problems:
        raise Refused("; ".join(p.message for p in problems) or "the scaffold does not read back")
    wanted = {"repo": repo, "exception": item.exception, "message": item.template}
    if {key: data.get(key) for key in wanted} != wanted:
        raise Refused("the message does not read back from YAML as it was pasted")
    filled = replace(doc, data={**data, "source": {**data["source"], **_FILLED_IN}})
    problems = [p for p in check_record(filled) if p.severity is Severity.ERROR]
    if problems:
        raise Refused("; ".join(p.message for p in problems))
    return text


def write_new(content: Path, repo: str, item: PastedError, today: datetime.date) -> Path:
    """Write the scaffold; never over an existing file, never one that would not build."""
    text = checked(repo, item, today)
    owner, name = repo.split("/")
    record_id = derive_id(repo, item.exception, item.template)
    path = content / "errors" / owner / name / f"{record_id}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text.encode("utf-8"), exclusive=True)
    write_schema(content)
    return path


def schema_text() -> str:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "errdex record file",
        **json_schema(RECORD),
    }
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_schema(content: Path) -> None:
    """Keep ``content/record.schema.json`` as the code describes records."""
    path = content / SCHEMA_FILE
    text = schema_text()
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        write_atomic(path, text.encode("utf-8"))


def spelling_clash(
    content: Path, repo: str, exception: str, existing: Sequence[Existing]
) -> str | None:
    """Why the record would not build beside the others: its repo or exception spelt
    like one that exists but for case (their pages would share a folder on macOS and
    Windows, so the build refuses the pair, E402)."""
    from errdex.records.link import folder_key

    owner, name = repo.split("/")
    errors = content / "errors"
    for have_owner in _folders(errors):
        if folder_key(have_owner) == folder_key(owner) and have_owner != owner:
            return f"--repo {repo}: the content has the owner {have_owner!r}; spell it so"
        if have_owner == owner:
            for have in _folders(errors / have_owner):
                if folder_key(have) == folder_key(name) and have != name:
                    return f"--repo {repo}: the content has {have_owner}/{have}; spell it so"
    for record in existing:
        spelt = record.data.get("exception")
        if not isinstance(spelt, str) or spelt == exception:
            continue
        if folder_key(spelt) == folder_key(exception):
            return (
                f"{exception} is spelt {spelt!r} in {record.path.name}; "
                "give --exception that spelling"
            )
    return None


def _folders(path: Path) -> list[str]:
    try:
        return sorted(entry.name for entry in os.scandir(path) if entry.is_dir())
    except OSError:
        return []
