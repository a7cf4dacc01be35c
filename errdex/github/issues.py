"""GitHub issues that paste an error: ``errdex issues import`` and the files a build reads.

``errdex issues import FILE --repo OWNER/NAME`` reads the issues of a repository as
``gh issue list --state all --json number,title,body,state,url,createdAt,closedAt,labels``
or GitHub's REST API (``GET /repos/{owner}/{repo}/issues``) give them, finds the errors
each one pastes (``reports.found_in``, the rules triage answers by) and keeps the links in
``content/issues/OWNER/NAME.json``: one issue a line, by number. Importing again merges by
number: an issue in the new export takes its new title, state and links; one that is not
in it stays as it was. No issue is ever lost.

A build reads those files (``read_all``): every error page lists the issues that pasted
it, and the home and repository pages the most reported errors.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeGuard

from errdex.records.problems import Problem, Severity
from errdex.util.pickled import as_tuple
from errdex.util.progress import Progress

FOLDER = "issues"
"""The content folder's subfolder of issue files: ``issues/OWNER/NAME.json``."""
SHOWN = 5
"""Issues an error page lists (the newest); its JSON document has them all."""
MAX_FILE = 64 * 1024 * 1024
"""Largest issue file a build reads."""
_ID = re.compile(r"^[0-9a-f]{16}$")
_WHEN = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9:.]+(Z|[+-][0-9]{2}:?[0-9]{2})?)?")
"""A date as GitHub gives one, in ASCII digits: ``\\d`` would take any script's digits
(``٢٠٢٦``), which sort after every ASCII date and are no ``<time datetime>``."""
_UNSHOWN = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""What a title or label loses: control characters, bidi overrides (which would reorder
the rest of a page's line) and halves of surrogate pairs (which no UTF-8 file can hold)."""


@as_tuple
@dataclass(frozen=True, slots=True)
class Issue:
    """One GitHub issue and the errors it pastes."""

    repo: str
    number: int
    title: str
    state: str
    """``open`` or ``closed``."""
    url: str
    created: str
    """When it was opened, as GitHub gives it (ISO 8601)."""
    closed: str | None
    labels: tuple[str, ...]
    errors: tuple[str, ...]
    """Ids of the records it pastes, best match first."""

    @property
    def day(self) -> str:
        """The day it was opened, YYYY-MM-DD."""
        return self.created[:10]

    def document(self) -> dict[str, Any]:
        """As the issue file and a record's JSON document hold it."""
        return {
            "number": self.number,
            "title": self.title,
            "state": self.state,
            "url": self.url,
            "created": self.created,
            "closed": self.closed,
            "labels": list(self.labels),
            "errors": list(self.errors),
        }


def newest_first(issues: Iterable[Issue]) -> list[Issue]:
    return sorted(issues, key=lambda i: (i.created, i.number), reverse=True)


@as_tuple
@dataclass(frozen=True, slots=True)
class Reported:
    """The issues that paste one error, newest first."""

    issues: tuple[Issue, ...]

    @property
    def open(self) -> int:
        return sum(i.state == "open" for i in self.issues)

    @property
    def closed(self) -> int:
        return len(self.issues) - self.open

    @property
    def newest(self) -> tuple[Issue, ...]:
        return self.issues[:SHOWN]

    def document(self) -> dict[str, Any]:
        """The ``issues`` block of a record's JSON document."""
        return {
            "count": len(self.issues),
            "open": self.open,
            "closed": self.closed,
            "reported": [
                {k: v for k, v in issue.document().items() if k != "errors"}
                for issue in self.issues
            ],
        }


NONE = Reported(())


# --- The files a build reads ---------------------------------------------------------


def files(content: Path) -> list[Path]:
    """The issue files of a content folder, in order (links are not followed, and a file
    that is a link to outside the content folder is not one: see ``listed``)."""
    return listed(content)[0]


def listed(content: Path) -> tuple[list[Path], list[Problem]]:
    """The issue files of a content folder, and a problem for each link among them that
    leads outside it (or nowhere): such a file is never read."""
    from errdex.records.files import shown_path

    folder = content / FOLDER
    linked = "is a link; issue files are read only from folders of the content folder"
    if folder.is_symlink():
        return [], [Problem(shown_path(folder), 0, linked, code="E100")]
    if not folder.is_dir():
        return [], []
    found: list[Path] = []
    problems: list[Problem] = []
    for owner in sorted(folder.iterdir()):
        if owner.is_symlink() and owner.is_dir():
            problems.append(Problem(shown_path(owner), 0, linked, code="E100"))
        elif owner.is_dir():
            for path in sorted(owner.glob("*.json")):
                if path.is_symlink() and not _inside(content, path):
                    what = "links outside the content folder (or nowhere); not read"
                    problems.append(Problem(shown_path(path), 0, what, code="E100"))
                elif path.is_file():
                    found.append(path)
    return found, problems


def _inside(content: Path, path: Path) -> bool:
    """Whether ``path``, its links followed, is inside ``content`` (False for a link that
    leads nowhere or to itself)."""
    try:
        return path.resolve(strict=path.is_symlink()).is_relative_to(content.resolve())
    except (OSError, RuntimeError):
        return False


def path_of(content: Path, repo: str) -> Path:
    owner, name = repo.split("/")
    return content / FOLDER / owner / f"{name}.json"


def _lines(text: str) -> dict[int, int]:
    """Issue number → the line of the file where its entry starts."""
    lines: dict[int, int] = {}
    line, last = 1, 0
    for found in re.finditer(r'"number"\s*:\s*(\d{1,30})\b', text):
        # Counted on from the last match: a file of 50,000 issues is read in linear time.
        line += text.count("\n", last, found.start())
        last = found.start()
        lines.setdefault(int(found.group(1)), line)
    return lines


def read_file(path: Path, shown: str) -> tuple[str | None, list[Issue], list[Problem]]:
    """The repository and issues of one issue file, and what is wrong with it (an entry
    with a problem is left out; the others are kept)."""
    problems: list[Problem] = []

    def problem(line: int, message: str, code: str = "E201") -> None:
        problems.append(Problem(shown, line, message, code=code))

    try:
        data = path.read_bytes()
        if len(data) > MAX_FILE:
            problem(0, f"is larger than {MAX_FILE:,} bytes", "E100")
            return None, [], problems
        text = data.decode("utf-8")
        doc = json.loads(text)
    except OSError as exc:
        problem(0, f"cannot be read: {exc.strerror or exc}", "E100")
        return None, [], problems
    except UnicodeDecodeError:
        problem(0, "is not UTF-8 text", "E100")
        return None, [], problems
    except json.JSONDecodeError as exc:
        problem(exc.lineno, f"is not valid JSON: {exc.msg} at column {exc.colno}", "E101")
        return None, [], problems
    except (ValueError, RecursionError) as exc:  # a number of 5,000 digits, nesting too deep
        why = "nesting too deep" if isinstance(exc, RecursionError) else str(exc)
        problem(1, f"is not valid JSON: {why}", "E101")
        return None, [], problems
    expected = f"{path.parent.name}/{path.stem}"
    if not isinstance(doc, dict) or not isinstance(doc.get("issues"), list):
        problem(1, 'must be an object with "repo" and a list "issues"')
        return None, [], problems
    repo = doc.get("repo")
    if repo != expected:
        problem(1, f'"repo" must be {expected!r}, the folder and file it is in, not {repo!r}')
        return None, [], problems
    at = _lines(text)
    issues: list[Issue] = []
    seen: set[int] = set()
    for index, item in enumerate(doc["issues"]):
        number = item.get("number") if isinstance(item, dict) else None
        line = at.get(number, 1) if isinstance(number, int) else 1
        where = f"issues[{index}]"
        if not isinstance(item, dict):
            problem(line, f"{where} must be an object")
            continue
        issue, why = _issue(repo, item)
        if issue is None:
            problem(line, f"{where} (#{number}): {why}")
        elif issue.number in seen:
            problem(line, f"{where}: issue #{issue.number} is listed twice", "E400")
        else:
            seen.add(issue.number)
            issues.append(issue)
    return repo, issues, problems


def _when(value: object) -> TypeGuard[str]:
    """Whether ``value`` is a date (or date and time) of the calendar, as GitHub gives it."""
    if not isinstance(value, str) or not _WHEN.fullmatch(value):
        return False
    try:
        datetime.date.fromisoformat(value[:10])
    except ValueError:  # 2026-02-30
        return False
    return True


def _issue(repo: str, item: Mapping[str, Any]) -> tuple[Issue | None, str]:
    number, title, state, url = (item.get(k) for k in ("number", "title", "state", "url"))
    created, closed = item.get("created"), item.get("closed")
    labels, errors = item.get("labels", []), item.get("errors", [])
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        return None, "number must be a whole number from 1 up"
    if not isinstance(title, str):
        return None, "title must be text"
    if state not in ("open", "closed"):
        return None, f'state must be "open" or "closed", not {state!r}'
    if url != f"https://github.com/{repo}/issues/{number}":
        return None, f"url must be the issue's address, https://github.com/{repo}/issues/{number}"
    # Shown as ascii(): a date in another script's digits reads like an ASCII one.
    when = "a date of ASCII digits, YYYY-MM-DD or ISO 8601"
    if not _when(created):
        return None, f"created must be {when}, not {_shown(created)}"
    if closed is not None and not _when(closed):
        return None, f"closed must be {when} or null, not {_shown(closed)}"
    if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
        return None, "labels must be a list of text"
    if not isinstance(errors, list) or not all(
        isinstance(x, str) and _ID.fullmatch(x) for x in errors
    ):
        return None, "errors must be a list of record ids (16 lowercase hex digits)"
    return Issue(
        repo,
        number,
        _UNSHOWN.sub("", title),
        state,
        url,
        created,
        closed,
        tuple(_UNSHOWN.sub("", label) for label in labels),
        tuple(dict.fromkeys(errors)),
    ), ""


def _shown(value: object) -> str:
    """A value of an issue, cut short, each character outside ASCII as its escape."""
    text = ascii(value)
    return text if len(text) <= 60 else text[:57] + "..."


def read_all(content: Path) -> tuple[list[Issue], list[Problem]]:
    """Every issue of the content folder's issue files, and what is wrong with them."""
    from errdex.records.files import shown_path

    issues: list[Issue] = []
    paths, problems = listed(content)
    for path in paths:
        _repo, found, wrong = read_file(path, shown_path(path))
        issues += found
        problems += wrong
    return issues, problems


def key(content: Path) -> list[bytes]:
    """What a build's plan compares: every issue file's name and bytes."""
    out: list[bytes] = []
    for path in files(content):
        try:
            out += [str(path.relative_to(content)).encode(), path.read_bytes()]
        except OSError:
            out.append(str(path).encode())
    return out


def reported(
    issues: Sequence[Issue],
    owner_of: Callable[[str], str | None],
    content: Path,
) -> tuple[dict[str, Reported], list[Problem]]:
    """Record id → the issues that paste it; ``owner_of`` maps an id or alias to the
    record's id (None: no record). An issue that links no record is a warning."""
    from errdex.records.files import shown_path

    by_id: dict[str, list[Issue]] = {}
    seen: set[tuple[str, str, int]] = set()
    problems: list[Problem] = []
    lines: dict[str, dict[int, int]] = {}
    for issue in issues:
        for error in issue.errors:
            owner = owner_of(error)
            if owner is None:
                path = path_of(content, issue.repo)
                if issue.repo not in lines:
                    try:
                        lines[issue.repo] = _lines(path.read_text(encoding="utf-8"))
                    except OSError:
                        lines[issue.repo] = {}
                problems.append(
                    Problem(
                        shown_path(path),
                        lines[issue.repo].get(issue.number, 0),
                        f"issue #{issue.number} links {error!r}, which no record has (import "
                        "the issues again to link them anew)",
                        Severity.WARNING,
                        code="W404",
                    )
                )
            elif (owner, issue.repo, issue.number) not in seen:
                # Once an issue: it may link a record by its id and by an old id.
                seen.add((owner, issue.repo, issue.number))
                by_id.setdefault(owner, []).append(issue)
    return {i: Reported(tuple(newest_first(found))) for i, found in by_id.items()}, problems


def most_reported(
    records: Iterable[Any], reports: Mapping[str, Reported], count: int = 10
) -> list[tuple[Any, Reported]]:
    """The records most issues paste, most first (then newest report, then id)."""
    pairs = sorted(((r, reports[r.id]) for r in records if r.id in reports), key=lambda p: p[0].id)
    pairs.sort(key=lambda p: p[1].issues[0].created, reverse=True)  # stable: ids stay in order
    pairs.sort(key=lambda p: len(p[1].issues), reverse=True)
    return pairs[:count]


# --- Import ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Exported:
    """One issue as an export gives it, with its body."""

    issue: Issue
    body: str


def from_export(data: Any, repo: str) -> tuple[list[Exported], list[str]]:
    """The issues of ``gh issue list --json …`` or the REST API's list, and what could not
    be read (one line each). Pull requests (REST lists them with the issues) are left out."""
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        data = data["items"]  # the search API's shape
    if not isinstance(data, list):
        return [], ["the file must hold a JSON list of issues (gh issue list --json, or the API)"]
    out: list[Exported] = []
    wrong: list[str] = []
    # Issue number → the item that gave it: an export that lists one twice (a page of
    # the API that shifted while it was read) keeps the first.
    first: dict[int, int] = {}
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            wrong.append(f"item {index} is not an object")
            continue
        if item.get("pull_request") or item.get("isPullRequest"):
            continue
        number = item.get("number")
        state = str(item.get("state", "")).lower()
        url = item.get("url") if "html_url" not in item else item.get("html_url")
        created = item.get("createdAt", item.get("created_at"))
        closed = item.get("closedAt", item.get("closed_at")) or None
        given = item.get("labels") or []
        labels = [
            label.get("name") if isinstance(label, dict) else label
            for label in (given if isinstance(given, list) else [])
        ]
        title = item.get("title")
        body = item.get("body") or ""
        issue, why = _issue(
            repo,
            {
                "number": number,
                "title": title,
                "state": state,
                "url": url,
                "created": created,
                "closed": closed,
                "labels": [x for x in labels if isinstance(x, str)],
                "errors": [],
            },
        )
        if issue is None or not isinstance(body, str):
            wrong.append(f"item {index} (#{number}): {why or 'body must be text'}")
            continue
        if issue.number in first:
            wrong.append(
                f"item {index} (#{number}): listed again (item {first[issue.number]} kept)"
            )
            continue
        first[issue.number] = index
        out.append(Exported(issue, body))
    return out, wrong


def merged(old: Sequence[Issue], new: Sequence[Issue]) -> list[Issue]:
    """The issues of both, by number: a new one replaces the old one of its number."""
    by_number = {i.number: i for i in old}
    by_number.update({i.number: i for i in new})
    return [by_number[n] for n in sorted(by_number)]


def dumps(repo: str, issues: Sequence[Issue]) -> bytes:
    """An issue file: one issue a line, by number (diffs stay small, lines name issues)."""
    rows = [json.dumps(i.document(), ensure_ascii=False, sort_keys=True) for i in issues]
    body = ",\n".join(rows)
    head = json.dumps(repo, ensure_ascii=False)
    return f'{{"repo": {head}, "issues": [\n{body}\n]}}\n'.encode()


def _write(path: Path, data: bytes) -> None:
    """Written whole and synced, then moved over the old file (``files.write_atomic``): a
    stopped import leaves one or the other, and never its temporary (a hidden name no
    build reads)."""
    from errdex.records.files import shown_path, write_atomic
    from errdex.records.problems import BuildError

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, data)
    except OSError as exc:
        what = f"cannot be written: {exc.strerror or exc}"
        raise BuildError([Problem(shown_path(path), 0, what, code="E100")]) from None


@dataclass(frozen=True, slots=True)
class Imported:
    """What an import did."""

    path: Path
    read: int
    """Issues in the export (pull requests left out)."""
    linked: int
    """Of them, those that paste at least one error a record explains."""
    links: int
    new: int
    """Issues the file did not have."""
    kept: int
    """Issues of the file that the export does not have: kept as they were."""
    skipped: list[str]
    """Items of the export that could not be read."""


def import_issues(
    exported: Sequence[Exported],
    repo: str,
    content: Path,
    match: Callable[[str, str], list[str]],
    jobs: int = 0,
    dry_run: bool = False,
    skipped: Sequence[str] = (),
    progress: Progress | None = None,
) -> Imported:
    """Link each exported issue to the records ``match`` finds in its title and body, merge
    them into the repo's issue file and write it (unless ``dry_run``). ``jobs``
    processes share the matching of a big export (0: one a core); a file that cannot
    be read stops the import before any work. ``progress`` counts the issues matched."""
    from errdex.records.files import shown_path
    from errdex.records.problems import BuildError
    from errdex.util import parallel

    path = path_of(content, repo)
    if not _inside(content, path):
        what = "is a link (or in a folder that is a link) to outside the content folder"
        raise BuildError([Problem(shown_path(path), 0, what, code="E100")])
    old: list[Issue] = []
    if path.exists() or path.is_symlink():
        _repo, old, wrong = read_file(path, shown_path(path))
        if wrong:
            raise BuildError(wrong)

    def link(piece: tuple[int, int]) -> list[tuple[str, ...]]:
        return [tuple(match(one.issue.title, one.body)) for one in exported[piece[0] : piece[1]]]

    pieces = parallel.chunks(len(exported), 50)
    found: list[tuple[str, ...]] = []
    with parallel.Tasks(link, parallel.jobs_for(len(exported), jobs)) as tasks:
        for piece in tasks.map(pieces):
            found += piece
            if progress:
                progress(len(piece))
    if progress:
        progress(0, done=True)
    new = [replace(one.issue, errors=ids) for one, ids in zip(exported, found, strict=True)]
    numbers = {i.number for i in new}
    before = {i.number for i in old}
    issues = merged(old, new)
    if not dry_run:
        _write(path, dumps(repo, issues))
    return Imported(
        path=path,
        read=len(new),
        linked=sum(1 for i in new if i.errors),
        links=sum(len(i.errors) for i in new),
        new=len(numbers - before),
        kept=len(before - numbers),
        skipped=list(skipped),
    )
