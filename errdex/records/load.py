"""Stage 1: read YAML files with the safe loader, remembering the line of every node."""

from __future__ import annotations

import codecs
import dataclasses
import re
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from errdex.records.document import Document, Key
from errdex.records.files import shown_path
from errdex.records.problems import Problem

MAX_FILE_BYTES = 2_000_000
"""A record is a few kilobytes; anything this large is a mistake, not content."""


class _Loader(yaml.SafeLoader):
    """The safe loader, refusing aliases: records never need them, and they allow bombs."""

    def compose_node(self, parent: Node | None, index: object) -> Node | None:
        if self.check_event(AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise yaml.MarkedYAMLError(
                problem="aliases (*name) are not allowed in errdex files; write the value out",
                problem_mark=event.start_mark,
            )
        return Composer.compose_node(self, parent, index)  # type: ignore[arg-type]


def read_text(path: Path, shown: str) -> tuple[str | None, list[Problem]]:
    """Read a file as UTF-8 (a BOM is allowed), or say why it cannot be read."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return None, [Problem(shown, 0, f"cannot read file: {exc.strerror}", code="E100")]
    return decode(raw, shown)


def decode(raw: bytes, shown: str) -> tuple[str | None, list[Problem]]:
    """A file's bytes as text (``read_text``), or say why they are not."""
    if len(raw) > MAX_FILE_BYTES:
        return None, [
            Problem(
                shown,
                0,
                f"file is {len(raw):,} bytes; the limit is {MAX_FILE_BYTES:,}",
                code="E100",
            )
        ]
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        # The decoder counts from after a BOM; the file's bytes count from its start.
        start = exc.start + (len(codecs.BOM_UTF8) if raw.startswith(codecs.BOM_UTF8) else 0)
        line = raw.count(b"\n", 0, start) + 1
        return None, [
            Problem(shown, line, f"not valid UTF-8 (byte 0x{raw[start]:02x})", code="E100")
        ]
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        return None, [Problem(shown, line, "contains a NUL byte", code="E100")]
    return text, []


# libyaml's parser when PyYAML has it: several times faster. A file it finds anything
# wrong with is parsed again by the pure-Python parser, whose messages are clearer.
_FAST: type[yaml.SafeLoader] | None = getattr(yaml, "CSafeLoader", None)


def parse_yaml(text: str, shown: str, path: Path) -> tuple[Document | None, list[Problem]]:
    """Parse one YAML document, keeping the line of every node."""
    bad = _NOT_YAML.search(text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        character = f"U+{ord(bad.group()):04X}"
        return None, [
            Problem(shown, line, f"YAML cannot hold the character {character}", code="E101")
        ]
    try:
        doc, problems = None, [Problem(shown, 0, "cannot parse", code="E101")]
        if _FAST is not None:
            doc, problems = _parse(text, shown, path, _FAST)
        if problems:
            doc, problems = _parse(text, shown, path, _Loader)
    except RecursionError:
        return None, [Problem(shown, 1, "nested too deeply to be a record", code="E101")]
    return _in_editor_lines(text, doc, problems)


# YAML also breaks lines at NEL, U+2028 and U+2029; editors and GitHub do not, so a
# line YAML names after one of them is told as the editor's.
_ODD_BREAKS = re.compile("[\x85\u2028\u2029]")
_YAML_BREAKS = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def _in_editor_lines(
    text: str, doc: Document | None, problems: list[Problem]
) -> tuple[Document | None, list[Problem]]:
    if not _ODD_BREAKS.search(text):
        return doc, problems
    editor = [1]  # YAML's line n (from 1) is the editor's editor[n - 1]
    for found in _YAML_BREAKS.finditer(text):
        editor.append(editor[-1] + (found.group() not in "\x85\u2028\u2029"))

    def told(line: int) -> int:
        return editor[line - 1] if 0 < line <= len(editor) else line

    def retold(problem: Problem) -> Problem:
        message = problem.message
        if problem.code == "E101":  # a YAML error's own "(while … on line N)"
            message = _ON_LINE.sub(lambda m: f"{m[1]}{told(int(m[2]))})", message)
        return dataclasses.replace(problem, line=told(problem.line), message=message)

    problems = [retold(p) for p in problems]
    if doc is not None:
        lines = {key: told(line) for key, line in doc.lines.items()}
        doc = dataclasses.replace(doc, lines=lines)
    return doc, problems


_ON_LINE = re.compile(r"(\(while [^()]* on line )(\d+)\)")


# Characters YAML does not allow in a stream (C0 controls but tab and line breaks, DEL,
# C1 controls but NEL, surrogates, U+FFFE and U+FFFF).
_NOT_YAML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")


_STARTED_AT = frozenset({"while scanning a simple key", "while scanning a quoted scalar"})
"""Syntax errors named at the line where what PyYAML was reading starts, not where it gave
up: a key without its colon is found out on the next line, an unclosed quote at the end
of the file, and the line to mend is the key's or the quote's."""


def _parse(
    text: str, shown: str, path: Path, parser: type[yaml.SafeLoader]
) -> tuple[Document | None, list[Problem]]:
    loader = parser(text)
    try:
        root = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if exc.context in _STARTED_AT and exc.context_mark is not None:
            mark = exc.context_mark
        line = mark.line + 1 if mark else 0
        what = exc.problem or exc.context or "cannot parse"
        if exc.context and exc.problem:
            shown_at = exc.context_mark.line + 1 if exc.context_mark else line
            what += f" ({exc.context}{'' if shown_at == line else f' on line {shown_at}'})"
        return None, [Problem(shown, line, f"YAML syntax error: {what}", code="E101")]
    except yaml.YAMLError as exc:
        return None, [Problem(shown, 0, f"YAML error: {exc}", code="E101")]
    finally:
        loader.dispose()
    if root is None:
        return None, [Problem(shown, 1, "file is empty; expected a mapping of fields", code="E103")]
    lines: dict[Key, int] = {}
    problems: list[Problem] = []
    try:
        data = _build(root, (), lines, problems, shown, _CONSTRUCTOR, set())
    except RecursionError:
        return None, [Problem(shown, 1, "nested too deeply to be a record", code="E101")]
    return Document(path=path, shown=shown, data=data, lines=lines), problems


_CONSTRUCTOR = _Loader("")


def _build(
    node: Node,
    key: Key,
    lines: dict[Key, int],
    problems: list[Problem],
    shown: str,
    constructor: yaml.SafeLoader,
    seen: set[int],
) -> Any:
    lines.setdefault(key, node.start_mark.line + 1)
    if id(node) in seen:
        problems.append(
            Problem(
                shown,
                node.start_mark.line + 1,
                "YAML syntax error: aliases (*name) are not allowed in errdex files; "
                "write the value out (the anchor is here)",
                code="E101",
            )
        )
        return None
    seen.add(id(node))
    if isinstance(node, MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            line = key_node.start_mark.line + 1
            if not isinstance(key_node, ScalarNode):
                problems.append(Problem(shown, line, "a key must be a plain value", code="E101"))
                continue
            name = _scalar(key_node, constructor, shown, problems)
            if not isinstance(name, str):
                problems.append(
                    Problem(shown, line, f"key {key_node.value!r} must be text", code="E101")
                )
                continue
            if name in result:
                first = lines[(*key, name)]
                problems.append(
                    Problem(
                        shown,
                        line,
                        f"duplicate key {name!r} (first given on line {first})",
                        code="E102",
                    )
                )
                continue
            lines[(*key, name)] = line
            result[name] = _build(
                value_node, (*key, name), lines, problems, shown, constructor, seen
            )
        return result
    if isinstance(node, SequenceNode):
        return [
            _build(item, (*key, index), lines, problems, shown, constructor, seen)
            for index, item in enumerate(node.value)
        ]
    assert isinstance(node, ScalarNode)
    return _scalar(node, constructor, shown, problems)


_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_DECIMAL = re.compile(r"[1-9][0-9]{0,17}|0")
"""An int that YAML 1.1 reads as Python does (no sign, ``_``, base prefix or leading 0)."""


def _scalar(
    node: ScalarNode, constructor: yaml.SafeLoader, shown: str, problems: list[Problem]
) -> Any:
    if node.tag == _STR:
        return node.value  # what the constructor would make of it, without its dispatch
    if node.tag == _INT and _DECIMAL.fullmatch(node.value):
        return int(node.value)  # a line number: the constructor's answer, sooner
    try:
        return constructor.construct_object(node, deep=True)
    except yaml.MarkedYAMLError as exc:
        line = node.start_mark.line + 1
        problems.append(Problem(shown, line, f"cannot read value: {exc.problem}", code="E101"))
    except Exception as exc:  # a date like 2026-13-45 raises ValueError
        line = node.start_mark.line + 1
        problems.append(
            Problem(shown, line, f"cannot read value {node.value!r}: {exc}", code="E101")
        )
    return None


def load_file(path: Path) -> tuple[Document | None, list[Problem]]:
    """Read one YAML file into a Document that knows the line of every value; None, and
    the problems, when it cannot be read or parsed."""
    shown = shown_path(path)
    text, problems = read_text(path, shown)
    if text is None:
        return None, problems
    return parse_yaml(text, shown, path)


def load_bytes(raw: bytes, path: Path) -> tuple[Document | None, list[Problem]]:
    """``load_file`` of the bytes already read from ``path``."""
    shown = shown_path(path)
    text, problems = decode(raw, shown)
    if text is None:
        return None, problems
    return parse_yaml(text, shown, path)


def site_base_url(content: Path | None) -> str:
    """The site's base_url when its config can be read (for links to the pages that
    explain problem codes), else errdex's own site (``urls.codes_site``)."""
    from errdex.urls import ERRDEX_SITE, codes_site

    try:
        data = yaml.safe_load((content or Path("content")).joinpath("site.yaml").read_text())
        url = str(data["base_url"])
    except Exception:  # an unreadable config is reported on its own; fall back
        return ERRDEX_SITE
    return codes_site(url)
