"""Write scanned facts into record files without touching what a person wrote.

A record file is changed by replacing whole top-level blocks (``source:``, ``message:``,
``id:``) in its text: every other line, prose and comments included, keeps its bytes. The
result is read back before it is written; a file it would change in any other way is left
as it is and reported. Records the tools cannot rely on are reported and left alone too.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from errdex.records import files, load
from errdex.records.document import Document
from errdex.records.model import derive_id
from errdex.records.problems import Problem, Severity
from errdex.records.schema import RECORD, Field
from errdex.records.validate import check_shape, rule_lengths, rule_source_path
from errdex.source.scan import Names, RaiseSite, source_data
from errdex.util import parallel

_IDENTITY = ("id", "repo", "exception", "message")
"""The fields an id is made of: every tool that matches records reads them."""


@dataclass(frozen=True, slots=True)
class Existing:
    """A record file of the content folder, as scan and pin see it."""

    path: Path
    data: dict[str, Any]
    id: str
    id_stated: bool


def _spec(need_source: bool) -> Field:
    """The part of the record format the tools read: only a record that has it right is
    matched, and nothing else a person may still be writing keeps it from being re-pinned."""
    wanted = (*_IDENTITY, "source") if need_source else _IDENTITY
    return replace(RECORD, fields=tuple(f for f in RECORD.fields if f.name in wanted))


def existing_records(
    content: Path, repo: str, need_source: bool = True, first: bool = False
) -> tuple[list[Existing], list[str]]:
    """The records of ``repo`` in ``content``, and each file left alone, with why.

    A file that does not load, or whose fields the tools read are missing or of the wrong
    type, is reported as ``path:line: what is wrong; left alone`` and is neither matched
    nor written. ``need_source=False`` (for ``new``) asks only for the fields of the id, so
    a scaffold whose source is still to be filled in is found too. ``first`` (for
    ``scan``, which may start a folder): a folder with no ``errors/`` has no records, and
    that is no file left alone; for ``pin`` it is, with E100 (a mistyped ``--content``).
    """
    if first and not (content / "errors").exists():
        return [], []
    paths, problems = files.record_files(content)
    found, skipped = [], [str(p) for p in problems]
    spec = _spec(need_source)

    def read(bounds: tuple[int, int]) -> list[Existing | str | None]:
        return [_existing(paths[i], repo, spec, need_source) for i in range(*bounds)]

    # Thousands of records are read on every core (each is parsed and checked).
    with parallel.Tasks(read, parallel.jobs_for(len(paths))) as tasks:
        for part in tasks.map(parallel.chunks(len(paths))):
            for one in part:
                if isinstance(one, str):
                    skipped.append(one)
                elif one is not None:
                    found.append(one)
    return found, skipped


def _existing(path: Path, repo: str, spec: Field, need_source: bool) -> Existing | str | None:
    """The record at ``path``; why it is left alone; or None for another repo's record."""
    doc, problems = load.load_file(path)
    if doc is None or problems:
        return _left_alone(problems)
    data = doc.data
    if isinstance(data, dict) and isinstance(data.get("repo"), str) and data["repo"] != repo:
        return None  # another repository's record, whatever else it holds
    problems = [p for p in check_shape(doc, spec) if p.severity is Severity.ERROR]
    if not problems and need_source:
        # Paths are read from the source tree: never one outside it.
        problems = list(rule_source_path(doc, data))
    if problems:
        return _left_alone(problems)
    stated = "id" in data
    record_id = data["id"] if stated else derive_id(repo, data["exception"], data["message"])
    return Existing(path, data, record_id, stated)


def repo_problem(repo: str) -> str | None:
    """Why records of ``repo`` (already owner/name) could not be built, or None: its names
    become folder names, and the build's own rule says how long they may be."""
    data = {"repo": repo, "exception": "Error", "source": {"path": "a.py"}}
    for problem in rule_lengths(Document(Path(), "--repo", data), data):
        return problem.message
    return None


def _left_alone(problems: list[Problem]) -> str:
    return "; ".join(str(p) for p in sorted(problems)) + "; left alone"


class _Dumper(yaml.SafeDumper):
    """Multi-line text as ``|`` blocks, the way people write excerpts."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    # YAML reads NEL, U+2028 and U+2029 as line breaks (NEL even turns into one): only
    # the escaped, double-quoted style keeps such text, and the file's line numbers, whole.
    if any(char in value for char in "\x85\u2028\u2029"):
        style = '"'
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def _names(dumper: yaml.SafeDumper, value: Names) -> yaml.SequenceNode:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=True)


_Dumper.add_representer(Names, _names)
_NAMES = ("parameters", "optional")
"""The lists of names in a record's ``source``, each written on one line."""


def dump(data: dict[str, Any]) -> str:
    """``data`` as YAML: the text PyYAML writes with ``_Dumper``, byte for byte.

    Scan writes thousands of records, and PyYAML's emitter reads every character of every
    excerpt in Python: the mappings of text and numbers the tools write are written here
    directly, and anything else (tabs, quotes that need escapes, long lines) by PyYAML.
    """
    source = data.get("source")
    if isinstance(source, dict):
        # As read from a record file: written on one line again, as scan writes them.
        names = {key: Names(source[key]) for key in _NAMES if type(source.get(key)) is list}
        data = {**data, "source": {**source, **names}} if names else data
    out: list[str] = []
    if _emit(data, 0, out):
        # A last block scalar that keeps its trailing line breaks leaves the document open.
        return "".join(out) + ("...\n" if _OPEN_END.match(out[-1]) else "")
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=10_000)


_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Text PyYAML writes as it is (no escapes): printable, no YAML line break but \n, no BOM.
_WRITABLE = re.compile(
    r"[\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010fffe]*\Z"
)
# What keeps a line of text from being written plain: an indicator where YAML reads one.
_NOT_PLAIN = re.compile(r"\A(?:[-?:](?: |\Z)|[#,\[\]{}&*!|>'\"%@`]|---|\.\.\.| )|: |:\Z| #| \Z")
_OPEN_END = re.compile(r" *[A-Za-z0-9_]+: \|[0-9]?\+\n")
_LONGEST = 8_000
"""Longer lines are left to PyYAML, which folds a line at 10,000 columns."""
_RESOLVER = yaml.resolver.Resolver()


def _emit(data: dict[str, Any], indent: int, out: list[str]) -> bool:
    """Write ``data`` as a block mapping at ``indent``; False when PyYAML must write it."""
    pad = " " * indent
    for key, value in data.items():
        if not isinstance(key, str) or not _PLAIN_KEY.match(key) or not _is_str(key):
            return False
        if isinstance(value, dict):
            if not value:
                return False
            out.append(f"{pad}{key}:\n")
            if not _emit(value, indent + 2, out):
                return False
        elif isinstance(value, Names):
            if not all(_PLAIN_KEY.match(name) for name in value):
                return False
            line = f"{pad}{key}: [{', '.join(n if _is_str(n) else repr(n) for n in value)}]"
            if len(line) > _LONGEST:
                return False  # PyYAML folds it
            out.append(line + "\n")
        elif isinstance(value, int) and not isinstance(value, bool):
            out.append(f"{pad}{key}: {value}\n")
        elif isinstance(value, str):
            scalar = _scalar(value, indent + 2)
            if scalar is None:
                return False
            out.append(f"{pad}{key}: {scalar}")
        else:
            return False
    return True


def _is_str(text: str) -> bool:
    """Whether YAML reads ``text``, written plain, as text (not a number, date or null)."""
    tag: str = _RESOLVER.resolve(ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
    return tag == "tag:yaml.org,2002:str"


def _scalar(text: str, indent: int) -> str | None:
    """``text`` as the value after ``key: ``, with its line break; None when unsure."""
    if not text or not _WRITABLE.match(text):
        return None
    if "\n" not in text:
        if len(text) > _LONGEST:
            return None
        if not _NOT_PLAIN.search(text) and _is_str(text):
            return text + "\n"
        return "'" + text.replace("'", "''") + "'\n"
    if " \n" in text or text.endswith(" "):
        return None  # PyYAML writes it double-quoted, with escapes
    hints = "2" if text[0] in " \n" else ""
    if not text.endswith("\n"):
        hints += "-"
    elif len(text) == 1 or text[-2] == "\n":
        hints += "+"
    pad = " " * indent
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    body = "".join(pad + line + "\n" if line else "\n" for line in lines)
    return f"|{hints}\n{body}"


def new_record(
    repo: str,
    site: RaiseSite,
    commit: str,
    record_id: str | None,
    releases: list[dict[str, Any]] | None = None,
) -> str:
    data: dict[str, Any] = {}
    if record_id:
        data["id"] = record_id
    data.update(repo=repo, exception=site.exception, message=site.template)
    data["source"] = source_data(site, commit)
    if releases:
        data["releases"] = releases
    return dump(data)


class Unsafe(ValueError):
    """A record file pin cannot rewrite without changing more than the blocks it owns."""

    def __init__(self, line: int, why: str) -> None:
        super().__init__(why)
        self.line = line


# YAML's line breaks, so that line numbers agree with the parser's marks.
_LINE = re.compile(
    r"[^\r\n\x85\u2028\u2029]*(?:\r\n|[\r\n\x85\u2028\u2029])|[^\r\n\x85\u2028\u2029]+\Z"
)
_COMPOSER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True, slots=True)
class _Entry:
    """Where one top-level field of a record file sits: 0-based lines."""

    key: str | None
    start: int
    """The line of its key."""
    value_end: int
    """The first line after its value."""


DROP: Any = object()
"""A value of ``rewrite``'s blocks that takes the field out of the file."""


def rewrite(text: str, blocks: dict[str, Any]) -> str:
    """``text`` with each top-level field of ``blocks`` written anew (added when absent:
    ``id`` first, others last; taken out when its value is ``DROP``); every other line
    keeps its bytes.

    Works on any record file written field below field (``write_blocks`` keeps a BOM):
    with or without a ``---`` marker, comments, quoted or explicit keys, block scalars,
    CRLF endings or a closing ``...``. Raises ``Unsafe`` when the result would not read
    back as the same record with only ``blocks`` changed, so a file is never written broken.
    """
    lines = _LINE.findall(text)
    entries, stop, before = _entries(text)
    indent = len(lines[entries[0].start]) - len(lines[entries[0].start].lstrip(" "))
    newline = next((m.group() for m in re.finditer(r"\r\n|\r|\n", text)), "\n")
    edits: list[tuple[int, int, str]] = []
    for key, value in blocks.items():
        block = "" if value is DROP else _block(key, value, indent, newline)
        at = [i for i, entry in enumerate(entries) if entry.key == key]
        if len(at) > 1:
            raise Unsafe(entries[at[1]].start + 1, f"field {key!r} is given twice")
        if at:
            i = at[0]
            end = entries[i + 1].start if i + 1 < len(entries) else stop
            kept = _kept_from(
                lines, entries[i].value_end, end, indent, drop_blank=_keeps(block, newline)
            )
            edits.append((entries[i].start, kept, block))
        elif value is DROP:
            continue  # not there: nothing to take out
        elif key == "id":
            edits.append((entries[0].start, entries[0].start, block))
        else:
            kept = _kept_from(lines, entries[-1].value_end, stop, indent, drop_blank=False)
            edits.append((kept, kept, block))
    for start, end, block in sorted(edits, reverse=True):
        if start and not _LINE_END.search(lines[start - 1]):
            lines[start - 1] += newline  # the file ended without a line break
        lines[start:end] = [block]
    result = "".join(lines)
    _verify(before, result, blocks, entries)
    return result


_LINE_END = re.compile(r"[\r\n\x85\u2028\u2029]\Z")


def _entries(text: str) -> tuple[list[_Entry], int, dict[Any, Any]]:
    """The top-level fields in order, the line where the mapping ends, and its data."""
    loader = _COMPOSER(text)
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except (yaml.YAMLError, ValueError, RecursionError) as exc:  # 2026-13-45: ValueError
        mark = getattr(exc, "problem_mark", None)
        raise Unsafe(mark.line + 1 if mark else 0, "does not read as YAML") from None
    finally:
        loader.dispose()
    if not isinstance(root, MappingNode) or not root.value or not isinstance(data, dict):
        raise Unsafe(1, "is not a mapping of fields")
    if root.flow_style:
        raise Unsafe(
            root.start_mark.line + 1,
            "is written as one flow mapping ({...}); pin rewrites only fields written one "
            "below the other",
        )
    entries: list[_Entry] = []
    for key, value in root.value:
        start = key.start_mark.line
        if entries and start < entries[-1].value_end:
            raise Unsafe(start + 1, "has a field on the same line as the one before it")
        name = key.value if isinstance(key, ScalarNode) else None
        entries.append(_Entry(name, start, _line_after(value)))
    # The mapping's own end mark is where the document ends: a ``...`` line, or the end.
    end = root.end_mark
    return entries, int(end.line) + (1 if end.column else 0), data


def _line_after(node: Node) -> int:
    """The first line after ``node``'s text. A block collection ends where its last value
    does: the parser's own end mark runs on over the comments that follow."""
    while isinstance(node, (MappingNode, SequenceNode)) and not node.flow_style and node.value:
        last = node.value[-1]
        node = last[1] if isinstance(last, tuple) else last
    return int(node.end_mark.line) + (1 if node.end_mark.column else 0)


def _kept_from(lines: list[str], value_end: int, stop: int, indent: int, drop_blank: bool) -> int:
    """Where the lines after a field's value that stay begin: top-level comments (they
    belong to what follows) and the blank lines before them. More deeply indented comments
    go with the field, as they could read as part of a new block scalar."""
    kept = next((i for i in range(value_end, stop) if _top_comment(lines[i], indent)), stop)
    while kept > value_end and not lines[kept - 1].strip():
        kept -= 1
    if drop_blank:
        # A block scalar that keeps its trailing line breaks (``|+``) would take them in.
        while kept < stop and not lines[kept].strip():
            kept += 1
    return kept


def _top_comment(line: str, indent: int) -> bool:
    text = line.lstrip(" \t")
    return text.startswith("#") and len(line) - len(text) <= indent


def _block(key: str, value: Any, indent: int, newline: str) -> str:
    pad = " " * indent
    # A document that ends in a ``|+`` scalar is closed with ``...``; here the next field,
    # or the end of the file, closes it.
    text = dump({key: value})
    if text.endswith("\n...\n"):  # the marker's own line, not a line of code ending in ...
        text = text[:-4]
    lines = text.split("\n")[:-1]
    return "".join((pad + line if line else line) + newline for line in lines)


def _keeps(block: str, newline: str) -> bool:
    """Whether ``block`` ends with a block scalar's kept trailing line break (``|+``)."""
    return block.endswith(newline * 2)


def _verify(
    before: dict[Any, Any], after: str, blocks: dict[str, Any], entries: list[_Entry]
) -> None:
    # Read back as the build reads it.
    new, problems = load.parse_yaml(after, "", Path())
    expected = {k: v for k, v in {**before, **blocks}.items() if v is not DROP}
    if new is None or problems or new.data != expected:
        line = next((e.start + 1 for e in entries if e.key in blocks), 1)
        raise Unsafe(line, "is written in a way pin cannot rewrite without changing it")


def write_blocks(path: Path, blocks: dict[str, Any], dry_run: bool = False) -> str | None:
    """Rewrite ``blocks`` of the record file at ``path`` (with ``dry_run``, only check that
    it can be done). None when done; otherwise why the file was left as it was."""
    return place_blocks([stage_blocks(path, blocks, dry_run, sync=True)])[0]


def stage_blocks(
    path: Path, blocks: dict[str, Any], dry_run: bool = False, sync: bool = False
) -> files.Staged | str | None:
    """The first half of ``write_blocks``: the file's new bytes written beside it
    (``files.stage``), for ``place_blocks`` to put in its place; or why the file is left as
    it was; or None when there is nothing to write (or ``dry_run``)."""
    shown = files.shown_path(path)
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8-sig")
        result = rewrite(text, blocks)
        data = result.encode("utf-8")
        if not dry_run and result != text:
            bom = codecs.BOM_UTF8 if raw.startswith(codecs.BOM_UTF8) else b""
            return files.stage(path, bom + data, sync=sync)
    except Unsafe as exc:
        where = f"{shown}:{exc.line}" if exc.line else shown
        return f"{where}: {exc}; left alone"
    except UnicodeError:
        return f"{shown}: not UTF-8 text; left alone"
    except OSError as exc:
        return _unwritten(path, exc)
    return None


def place_blocks(outcomes: list[files.Staged | str | None]) -> list[str | None]:
    """The second half of ``write_blocks``, for many files at once: each staged file put
    in its place, all synced to the disk first (``files.place_all``); for each outcome,
    None when done, otherwise why the file was left as it was."""
    staged = [one for one in outcomes if isinstance(one, files.Staged)]
    errors = iter(files.place_all(staged))
    said: list[str | None] = []
    for one in outcomes:
        if isinstance(one, files.Staged):
            error = next(errors)
            said.append(None if error is None else _unwritten(Path(one.path), error))
        else:
            said.append(one)
    return said


def _unwritten(path: Path, exc: OSError) -> str:
    # Every write is whole or nothing (files.stage): the file is as it was.
    what = exc.strerror or str(exc)
    return f"{files.shown_path(path)}: cannot be rewritten: {what}; the file is unchanged"


def create(path: Path, text: str, dry_run: bool = False) -> str | None:
    """Write a new record file, never over any file (with ``dry_run``, only check that it
    could be written). None when done; otherwise why not.

    Written whole (a kill or a full disk leaves no part of it) but not synced: it holds
    nothing a person wrote yet, and scan writes thousands (a sync costs about 4 ms each)."""
    shown = files.shown_path(path)
    try:
        data = text.encode("utf-8")
        if dry_run:
            if path.exists() or path.is_symlink():
                raise FileExistsError(path)
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
        files.write_atomic(path, data, durable=False, exclusive=True)
    except FileExistsError:
        return f"{shown}: a file is here already; not written over"
    except UnicodeError:
        return f"{shown}: the record cannot be written as UTF-8; not written"
    except OSError as exc:
        return f"{shown}: cannot be written: {exc.strerror or exc}; nothing was written"
    return None


def file_name(content: Path, repo: str, record_id: str) -> Path:
    owner, name = repo.split("/")
    return content / "errors" / owner / name / f"{record_id}.yaml"
