"""A parsed record or config file as the later stages see it: plain data and the line of
each value. It knows no YAML (``load`` makes it) and no file system beyond a path to show."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

Key = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Document:
    """One parsed YAML file: plain Python data plus the line of each node."""

    path: Path
    """Where the file is on disk."""
    shown: str
    """The path as messages show it."""
    data: Any
    """Plain dicts, lists and scalars, as the safe loader builds them."""
    lines: Mapping[Key, int] = field(default_factory=dict)
    """1-based line of each node, keyed by its path from the root (``("source", "line")``)."""

    def line(self, *key: str | int) -> int:
        """The line of ``key``, or of its nearest ancestor the file has."""
        path: Key = tuple(key)
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.lines.get((), 1)
