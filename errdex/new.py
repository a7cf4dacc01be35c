"""Scaffold a record from a message or a pasted traceback, every field laid out to fill in."""

from __future__ import annotations

import datetime
import json
import re
from dataclasses import dataclass
from pathlib import Path

from .model import derive_id, parse_template
from .schema import RECORD, json_schema
from .search import extract

SCHEMA_FILE = "record.schema.json"
"""The JSON Schema of record files, kept in the content folder for editors."""

# Values a message carries, most specific first: each becomes a placeholder to confirm.
_VALUES = (
    ("path", re.compile(r"(?<![\w.])(?:/[\w@+-]+(?:\.[\w@+-]+)*){2,}/?")),
    ("model", re.compile(r"(?<![\w/.-])[A-Za-z][\w.-]*/[\w.-]+(?![\w/])")),
    ("value", re.compile(r"'[^']*'|\"[^\"]*\"|\[[^\[\]]*\]|\{[^{}]*\}")),
    ("number", re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")),
)


@dataclass(frozen=True, slots=True)
class Draft:
    exception: str
    template: str
    guessed: tuple[tuple[str, str], ...]
    """(placeholder, the value it replaced) for the author to confirm."""


def draft(paste: str, exception: str | None) -> Draft:
    """The exception and a template for a paste, its values turned into placeholders."""
    found = extract(paste)
    message = found.message.strip() or paste.strip()
    text = message.replace("{", "{{").replace("}", "}}")
    guessed: list[tuple[str, str]] = []
    for name, pattern in _VALUES:

        def swap(match: re.Match[str], name: str = name) -> str:
            if "{" in match.group(0) and name != "value":
                return match.group(0)
            used = sum(1 for n, _ in guessed if n.rsplit("_", 1)[0] == name or n == name)
            label = name if not used else f"{name}_{used + 1}"
            guessed.append((label, match.group(0).replace("{{", "{").replace("}}", "}")))
            return "\x00" + label + "\x01"

        text = pattern.sub(swap, text)
    template = text.replace("\x00", "{").replace("\x01", "}")
    parse_template(template)  # a draft must be a valid template
    return Draft(exception or found.exception or "Exception", template, tuple(guessed))


def scaffold(repo: str, item: Draft, today: datetime.date) -> str:
    guesses = "".join(f"#   {{{name}}} was {value}\n" for name, value in item.guessed)
    confirm = (
        "# Placeholders guessed from the values in the paste: rename or undo them.\n" + guesses
        if guesses
        else ""
    )
    return f"""# yaml-language-server: $schema=../../../{SCHEMA_FILE}
# A new errdex record. Fill in what you know; `python build.py check` says what is left.
repo: {repo}
exception: {item.exception}
# The message; {{name}} marks a placeholder, named after the source expression.
message: {json.dumps(item.template, ensure_ascii=False)}
{confirm}source:
  commit: ""  # the commit the record is pinned to, 7 to 40 hex digits (quoted)
  path: ""  # the file that raises it, relative to the repository root
  line: 0  # the line of the raise
  # function: Class.method
  # excerpt:  # the code around the raise, so a build needs no checkout
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


def write_new(content: Path, repo: str, item: Draft, today: datetime.date) -> Path:
    """Write the scaffold; never over an existing file."""
    owner, name = repo.split("/")
    record_id = derive_id(repo, item.exception, item.template)
    path = content / "errors" / owner / name / f"{record_id}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as handle:  # "x": fails if it exists
        handle.write(scaffold(repo, item, today))
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
        path.write_text(text, encoding="utf-8")
