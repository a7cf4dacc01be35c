"""Problems found in the input, reported as ``path:line: message``."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from errdex.util.pickled import as_tuple


class Severity(Enum):
    ERROR = "error"
    WARNING = "warning"


@as_tuple
@dataclass(frozen=True, slots=True, order=True)
class Problem:
    """One thing wrong with the input, tied to the place a user must edit."""

    path: str
    """The file, as the user named it (relative to the working directory when possible)."""
    line: int
    """1-based line of the offending node; 0 when the whole file is at fault."""
    message: str
    severity: Severity = Severity.ERROR
    code: str = ""
    """A stable code (``E201``); errdex/records/codes.py explains each, and the site has a page."""

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        label = "" if self.severity is Severity.ERROR else "warning: "
        code = f" [{self.code}]" if self.code else ""
        return f"{where}: {label}{self.message}{code}"


def annotation(problem: Problem) -> str:
    """``problem`` as a GitHub Actions workflow command, which GitHub shows on the file and
    line: ``::error file=PATH,line=N::message [CODE]`` (``::warning`` for a warning), each
    part escaped as GitHub reads it (actions/toolkit, ``command.ts``)."""
    kind = "error" if problem.severity is Severity.ERROR else "warning"
    where = [f"file={_property(problem.path)}"] if problem.path else []
    if problem.line:
        where.append(f"line={problem.line}")
    code = f" [{problem.code}]" if problem.code else ""
    return f"::{kind}{' ' if where else ''}{','.join(where)}::{_data(problem.message + code)}"


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


class BuildError(Exception):
    """Raised to stop a command because the input has errors; carries all of them."""

    def __init__(self, problems: list[Problem], note: str = "") -> None:
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = problems
        self.note = note
        """What the problems do not say: a check left for a later run, and why."""


def failed(problems: list[Problem], strict: bool) -> bool:
    """Whether ``problems`` stop a build: any error, or any problem at all with --strict."""
    return any(p.severity is Severity.ERROR or strict for p in problems)


def as_json(problem: Problem) -> dict[str, object]:
    """``problem`` for ``--json``: its fields, ``path`` as ``file``; null for no file, no
    line (the whole file is at fault) and no code."""
    return {
        "file": problem.path or None,
        "line": problem.line or None,
        "message": problem.message,
        "severity": problem.severity.value,
        "code": problem.code or None,
    }
