"""Write scanned facts into record files without touching what a person wrote.

A record file is changed by replacing whole top-level blocks (``source:``, ``message:``,
``id:``) in its text: every other line, prose and comments included, keeps its bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from . import files, load
from .model import derive_id
from .scan import Site

_TOP_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:")


@dataclass(frozen=True, slots=True)
class Existing:
    """A record file of the content folder, as scan and pin see it."""

    path: Path
    data: dict[str, Any]
    id: str
    id_stated: bool


def existing_records(content: Path, repo: str) -> tuple[list[Existing], list[str]]:
    """The records of ``repo`` in ``content`` (unreadable files are reported, not fatal)."""
    paths, problems = files.record_files(content)
    found, skipped = [], [str(p) for p in problems]
    for path in paths:
        doc, problems = load.load_file(path)
        data = doc.data if doc else None
        if not isinstance(data, dict) or problems or not isinstance(data.get("message"), str):
            skipped.append(f"{files.shown_path(path)}: cannot be read; left alone")
            continue
        if data.get("repo") != repo:
            continue
        stated = isinstance(data.get("id"), str)
        record_id = data["id"] if stated else derive_id(repo, data["exception"], data["message"])
        found.append(Existing(path, data, record_id, stated))
    return found, skipped


class _Dumper(yaml.SafeDumper):
    """Multi-line text as ``|`` blocks, the way people write excerpts."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def dump(data: dict[str, Any]) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=10_000)


def source_data(site: Site, commit: str) -> dict[str, Any]:
    source: dict[str, Any] = {"commit": commit, "path": site.path, "line": site.line}
    if site.function:
        source["function"] = site.function
    if site.condition:
        source["condition"] = site.condition
    source["excerpt"] = {"start": site.excerpt_start, "code": site.excerpt}
    return source


def new_record(repo: str, site: Site, commit: str, record_id: str | None) -> str:
    data: dict[str, Any] = {}
    if record_id:
        data["id"] = record_id
    data.update(repo=repo, exception=site.exception, message=site.template)
    data["source"] = source_data(site, commit)
    return dump(data)


def replace_block(text: str, key: str, block: str) -> str:
    """``text`` with its top-level ``key:`` block replaced by ``block`` (added if absent)."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if _key(line) == key), None)
    if start is None:
        if key == "id":
            return block + text
        return text + ("" if text.endswith("\n") or not text else "\n") + block
    end = start + 1
    while end < len(lines) and (_key(lines[end]) is None or lines[end].startswith((" ", "\t"))):
        end += 1
    # Keep blank lines and comments that sit between this block and the next key.
    while end - 1 > start and (
        not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")
    ):
        end -= 1
    return "".join(lines[:start]) + block + "".join(lines[end:])


def _key(line: str) -> str | None:
    found = _TOP_KEY.match(line)
    return found.group(1) if found else None


def write_block(path: Path, key: str, value: Any) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(replace_block(text, key, dump({key: value})), encoding="utf-8")


def file_name(content: Path, repo: str, record_id: str) -> Path:
    owner, name = repo.split("/")
    return content / "errors" / owner / name / f"{record_id}.yaml"
