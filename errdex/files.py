"""Finding record files and naming them as the user would: no YAML needed, so a build
that finds nothing changed can start without loading a parser."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from .problems import Problem

RECORD_SUFFIXES = (".yaml", ".yml")


def shown_path(path: Path) -> str:
    """A path as the user would type it: relative to the working directory when inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def record_files(content: Path) -> tuple[list[Path], list[Problem]]:
    """Every record file under ``content/errors``, sorted, none of them outside ``content``."""
    found, problems = record_stats(content)
    return [Path(path) for path, _, _ in found], problems


def record_stats(content: Path) -> tuple[list[tuple[str, int, int]], list[Problem]]:
    """Like ``record_files``, with each file's change time (ns) and size.

    The change time (``st_ctime``), not the modification time: a copy, a checkout or
    ``touch -d`` can set a file's modification time back, but any write moves its change
    time on."""
    errors_dir = content / "errors"
    root = content.resolve()
    found: list[tuple[str, int, int]] = []
    problems: list[Problem] = []
    if not errors_dir.is_dir():
        return [], [
            Problem(shown_path(errors_dir), 0, "no errors/ folder with records", code="E100")
        ]
    # The walk follows no link, so only a link (or a linked errors/ folder) can lead out.
    walked_inside = errors_dir.resolve().is_relative_to(root)
    for entry in sorted(_walk(errors_dir), key=lambda e: e.path):
        inside = walked_inside
        if entry.is_symlink():
            try:
                inside = Path(entry.path).resolve(strict=True).is_relative_to(root)
            except (OSError, RuntimeError):
                what = "a link that leads nowhere (or to itself)"
                problems.append(Problem(shown_path(Path(entry.path)), 0, what, code="E100"))
                continue
        if not inside:
            what = "links outside the content folder; not read"
            problems.append(Problem(shown_path(Path(entry.path)), 0, what, code="E100"))
        elif entry.is_dir():
            what = "is a folder, not a record file"
            problems.append(Problem(shown_path(Path(entry.path)), 0, what, code="E100"))
        elif entry.is_file():
            stat = entry.stat()
            found.append((entry.path, stat.st_ctime_ns, stat.st_size))
    return found, problems


def _walk(folder: Path | str) -> Iterator[os.DirEntry[str]]:
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.name.endswith(RECORD_SUFFIXES):
                yield entry
            elif entry.is_dir(follow_symlinks=False):
                yield from _walk(entry.path)
