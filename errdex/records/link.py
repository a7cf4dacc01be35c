"""Stage 4: resolve ids, aliases and related errors; build the indexes the pages list."""

from __future__ import annotations

import bisect
import unicodedata
from collections import defaultdict
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass

from errdex.records.model import ID_RE, Record, SiteConfig
from errdex.records.problems import Problem, Severity
from errdex.urls import folder_name
from errdex.util.pickled import as_tuple


@as_tuple
@dataclass(frozen=True, slots=True)
class RelatedLink:
    """A related entry as shown: linked to its record, or plain text when we have none."""

    text: str
    record: Record | None


@dataclass(frozen=True, slots=True)
class Site:
    """Everything the renderer needs, fully linked."""

    config: SiteConfig
    records: tuple[Record, ...]
    """Sorted by repo, path, line, id."""
    by_id: Mapping[str, Record]
    aliases: Mapping[str, Record]
    """Each alias id → the record that now owns it."""
    related: Mapping[str, tuple[RelatedLink, ...]]
    by_repo: Mapping[str, tuple[Record, ...]]
    by_exception: Mapping[str, tuple[Record, ...]]
    by_file: Mapping[tuple[str, str], tuple[Record, ...]]
    """(repo, path) → its errors in line order."""
    by_option: Mapping[str, tuple[Record, ...]]
    """Option key (``tensor_parallel_size``) → the errors that mention it."""
    option_names: Mapping[str, tuple[str, ...]]
    """Option key → how errors write it (``--tensor-parallel-size``, ``tensor_parallel_size``)."""
    backlinks: Mapping[str, tuple[Record, ...]]
    """Record id → the records whose related errors link to it."""


def _order(record: Record) -> tuple[str, str, int, str]:
    return (record.repo, record.source.path, record.source.line, record.id)


def link(
    config: SiteConfig, records: list[Record], check_names: bool = True
) -> tuple[Site, list[Problem]]:
    """Resolve ids, aliases and related entries across ``records`` and build the indexes
    the pages list; also every problem found doing so (a duplicate id, a related id that
    matches no record, …). Without ``check_names``, names that would clash as folders are
    not looked for: an update that changed no repo, exception or path cannot add any."""
    problems: list[Problem] = []
    by_id: dict[str, Record] = {}
    for record in sorted(records, key=lambda r: (r.file, r.id)):
        other = by_id.get(record.id)
        if other is not None:
            how = "" if record.id_stated else " (derived from repo, exception and message)"
            problems.append(
                Problem(
                    record.file,
                    record.id_line,
                    f"duplicate id {record.id}{how}; {other.file}:{other.id_line} has it too",
                    code="E400",
                )
            )
            continue
        by_id[record.id] = record

    aliases: dict[str, Record] = {}
    for record in by_id.values():
        for alias in record.aliases:
            owner = by_id.get(alias) or aliases.get(alias)
            if owner is not None:
                what = f"{owner.file}'s id" if alias in by_id else f"an alias of {owner.file}"
                problems.append(
                    Problem(
                        record.file,
                        record.id_line,
                        f"alias {alias} is also {what}",
                        code="E400",
                    )
                )
            else:
                aliases[alias] = record

    problems += _release_problems(config, list(by_id.values()))
    by_message = Messages(by_id.values())
    related: dict[str, tuple[RelatedLink, ...]] = {}
    for record in by_id.values():
        related[record.id], found = related_of(record, by_id, aliases, by_message)
        problems += found

    ordered = tuple(sorted(by_id.values(), key=_order))
    backlinks: dict[str, list[Record]] = defaultdict(list)
    # Records come in order, so a record already listed is the last one of its list
    # (compared by identity: a record's equality compares every field).
    for record in ordered:
        for shown in related[record.id]:
            if shown.record is not None:
                linking = backlinks[shown.record.id]
                if not linking or linking[-1] is not record:
                    linking.append(record)
    option_names = option_names_of(ordered)
    by_repo, by_exception, by_file, by_option = lists_of(ordered, option_names)
    if check_names:
        problems += _path_clashes(by_file)
        problems += _folder_clashes(list(by_id.values()))  # filled in (file, id) order
    site = Site(
        config=config,
        records=ordered,
        by_id=by_id,
        aliases=aliases,
        related=related,
        by_repo=by_repo,
        by_exception=by_exception,
        by_file=by_file,
        by_option=by_option,
        option_names=option_names,
        backlinks={key: tuple(items) for key, items in sorted(backlinks.items())},
    )
    return site, problems


def option_names_of(records: Iterable[Record]) -> dict[str, tuple[str, ...]]:
    """The options errors name, each with its spellings, in the order of their keys (a
    page lists the errors of each named by more than one: ``render.has_list``).
    A snake_case name seen only in prose code (a function, a variable) is an option only
    if some message or flag names it too."""
    spellings: dict[str, set[str]] = defaultdict(set)
    named: set[str] = set()
    for record in records:
        for key, spelling, strong in record.options:
            spellings[key].add(spelling)
            if strong:
                named.add(key)
    return {key: tuple(sorted(spellings[key])) for key in sorted(named)}


Lists = tuple[
    dict[str, tuple[Record, ...]],
    dict[str, tuple[Record, ...]],
    dict[tuple[str, str], tuple[Record, ...]],
    dict[str, tuple[Record, ...]],
]


def lists_of(ordered: Iterable[Record], options: Container[str]) -> Lists:
    """The errors of each repo, exception, file and option (those of ``options``), each
    list in the order of ``ordered`` and the lists in the order of their names."""
    by_repo: dict[str, list[Record]] = {}
    by_exception: dict[str, list[Record]] = {}
    by_file: dict[tuple[str, str], list[Record]] = {}
    by_option: dict[str, list[Record]] = {}
    for record in ordered:
        by_repo.setdefault(record.repo, []).append(record)
        by_exception.setdefault(record.exception, []).append(record)
        by_file.setdefault((record.repo, record.source.path), []).append(record)
        for key in {key for key, _, _ in record.options}:
            if key in options:
                by_option.setdefault(key, []).append(record)
    return (
        {name: tuple(items) for name, items in sorted(by_repo.items())},
        {name: tuple(items) for name, items in sorted(by_exception.items())},
        {key: tuple(items) for key, items in sorted(by_file.items())},
        {key: tuple(items) for key, items in sorted(by_option.items())},
    )


class Messages(dict[str, list[Record]]):
    """Each message (as shown, and as written when that differs) → the records that
    have it; and the messages, sorted (``sorted``), for entries that cut one short."""

    def __init__(self, records: Iterable[Record]) -> None:
        super().__init__()
        for record in records:
            self.setdefault(record.message.display, []).append(record)
            if record.message.source != record.message.display:
                self.setdefault(record.message.source, []).append(record)
        self.sorted = sorted(self)


REPEATED = "it links the same record as an entry above; entry ignored"


def related_of(
    record: Record,
    by_id: Mapping[str, Record],
    aliases: Mapping[str, Record],
    by_message: Messages,
) -> tuple[tuple[RelatedLink, ...], list[Problem]]:
    """The related entries of ``record`` as shown, each linked to the record it names
    when there is one, and what to say of those that name none (or itself, or a record
    an entry above already links: both left out)."""
    links: list[RelatedLink] = []
    problems = []
    linked: set[str] = set()
    for entry in record.related:
        target, problem = _resolve(record, entry.text, by_id, aliases, by_message)
        repeated = target is not None and target is not record and target.id in linked
        if repeated:
            problem = (REPEATED, Severity.WARNING)
        if problem:
            message, severity = problem
            code = "E401" if severity is Severity.ERROR else "W402"
            problems.append(Problem(record.file, entry.line, message, severity, code))
        if target is record or repeated:
            continue
        if target is not None:
            linked.add(target.id)
        links.append(RelatedLink(target.message.display if target else entry.text, target))
    return tuple(links), problems


def may_name(text: str, messages: Iterable[str]) -> bool:
    """Whether a related entry written ``text`` could name a record with one of
    ``messages``: it is one of them, or the start of one (``_by_text``). Either way
    the message starts with the entry's first ``STEM`` characters."""
    if ID_RE.fullmatch(text):
        return False
    stem = _stem(text)
    return any(m == text or (stem is not None and m.startswith(stem)) for m in messages)


def _path_clashes(by_file: Mapping[tuple[str, str], Sequence[Record]]) -> list[Problem]:
    """A source path that is also a folder of another one (``pkg`` and ``pkg/a.py``): their
    file pages cannot both exist, and no real tree holds both."""
    problems = []
    by_repo: dict[str, list[str]] = defaultdict(list)
    for repo, path in by_file:
        by_repo[repo].append(path)
    for repo, paths in by_repo.items():
        paths.sort()
        for path in paths:
            at = bisect.bisect_left(paths, path + "/")
            if at < len(paths) and paths[at].startswith(path + "/"):
                record = by_file[(repo, path)][0]
                problems.append(
                    Problem(
                        record.file,
                        record.source_line,
                        f"source.path {path!r} is a file here and a folder of {paths[at]!r} "
                        "in another record",
                        code="E301",
                    )
                )
    return problems


def _folder_clashes(records: list[Record]) -> list[Problem]:
    """Names that differ, but not to macOS and Windows: those ignore case and how an
    accented letter is composed, so ``Acme/Web`` and ``acme/web``, or ``aux.py`` and
    ``aux_.py`` (its folder), would be one folder there and one page would overwrite the
    other. A site must build the same on every system, so both are refused."""
    repos: list[_Name] = []
    exceptions: list[_Name] = []
    files: dict[str, list[_Name]] = defaultdict(list)
    for r in records:
        repos.append(_Name(tuple(r.repo.split("/")), "repo", r.file, r.repo_line))
        exceptions.append(_Name((r.exception,), "exception", r.file, r.exception_line))
        # Within one repo as written: repos that clash are reported as repos.
        path = tuple(r.source.path.split("/"))
        files[r.repo].append(_Name(path, "source.path", r.file, r.source_line))
    problems = _clashes(repos) + _clashes(exceptions)
    for names in files.values():
        problems += _clashes(names)
    return problems


@dataclass(frozen=True, slots=True)
class _Name:
    """A name that becomes folders: its parts as written, and where it is written."""

    parts: tuple[str, ...]
    field: str
    file: str
    line: int


def folder_key(part: str) -> str:
    """The name a case-insensitive file system sees: Unicode's canonical caseless form."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", part).casefold())


class Spellings:
    """The first spelling of each folder that names make, to tell a later name that
    would share a folder with an earlier one on macOS or Windows (for tools that write
    records, so that what they write builds)."""

    def __init__(self) -> None:
        self.first: dict[tuple[str, ...], tuple[str, ...]] = {}

    def clash(self, parts: Sequence[str]) -> str | None:
        """The earlier name that ``parts`` would share a folder with, if any."""
        for depth in range(1, len(parts) + 1):
            written = tuple(parts[:depth])
            other = self.first.get(tuple(folder_key(folder_name(p)) for p in written))
            if other is not None and other != written:
                return "/".join(other)
        return None

    def add(self, parts: Sequence[str]) -> None:
        for depth in range(1, len(parts) + 1):
            written = tuple(parts[:depth])
            self.first.setdefault(tuple(folder_key(folder_name(p)) for p in written), written)


def _clashes(names: Iterable[_Name]) -> list[Problem]:
    """Each name whose folders clash with an earlier name's is reported, naming that one;
    the earlier one is reported once for each spelling it clashes with: either may be the
    one to rename."""
    problems = []
    first: dict[tuple[str, ...], _Name] = {}
    answered: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    for name in names:
        for depth in range(1, len(name.parts) + 1):
            written = name.parts[:depth]
            folded = tuple(folder_key(folder_name(part)) for part in written)
            other = first.setdefault(folded, name)
            if other.parts[:depth] == written:
                continue
            problems.append(_clash(name, other, depth))
            if (folded, written) not in answered:
                answered.add((folded, written))
                problems.append(_clash(other, name, depth))
            break
    return problems


def _clash(name: _Name, other: _Name, depth: int) -> Problem:
    mine, theirs = name.parts[:depth], other.parts[:depth]
    how = (
        "differs only in case from"
        if [folder_key(p) for p in mine] == [folder_key(p) for p in theirs]
        else "makes the same folder as"
    )
    part = "" if depth == len(name.parts) else f": {'/'.join(mine)!r}"
    return Problem(
        name.file,
        name.line,
        f"{name.field} {'/'.join(name.parts)!r}{part} {how} {'/'.join(theirs)!r} in "
        f"{other.file}:{other.line}; macOS and Windows would write both pages into one folder",
        code="E402",
    )


def _resolve(
    record: Record,
    text: str,
    by_id: Mapping[str, Record],
    aliases: Mapping[str, Record],
    by_message: Messages,
) -> tuple[Record | None, tuple[str, Severity] | None]:
    """Find the record a related entry names, and what to say if it names none or itself."""
    if ID_RE.fullmatch(text):
        target = by_id.get(text) or aliases.get(text)
        if target is None:
            return None, (f"related id {text} matches no record", Severity.ERROR)
    else:
        matches = _by_text(record, text, by_message)
        if len(matches) != 1:
            what = "no record has" if not matches else f"{len(matches)} records have"
            return None, (
                f"{what} the message {text!r}; it is shown as plain text",
                Severity.WARNING,
            )
        target = matches[0]
    if target is record:
        return target, ("a record cannot be related to itself; entry ignored", Severity.WARNING)
    return target, None


def _by_text(record: Record, text: str, by_message: Messages) -> list[Record]:
    """Records with exactly this message, else those whose message starts with it.

    Related entries are often copied from a list that cuts messages short, with or
    without an ellipsis; a cut entry still links when only one message fits.
    """
    candidates = by_message.get(text)
    if not candidates:
        stem = _stem(text)
        if stem is None:
            return []
        # The messages in order: those starting with the stem are one run of them.
        messages = by_message.sorted
        at = bisect.bisect_left(messages, stem)
        candidates = []
        while at < len(messages) and messages[at].startswith(stem):
            candidates += by_message[messages[at]]
            at += 1
    same_repo = [r for r in candidates if r.repo == record.repo] or candidates
    return list({id(r): r for r in same_repo}.values())


STEM = 12
"""Characters a related entry that cuts a message short must keep of it, at least."""


def _stem(text: str) -> str | None:
    """What a related entry that cuts a message short keeps of it (None: too little to
    tell one message from another)."""
    stem = text.rstrip().removesuffix("…").removesuffix("...").rstrip()
    return stem if len(stem) >= STEM else None


def _release_problems(config: SiteConfig, records: list[Record]) -> list[Problem]:
    """A record's releases must be releases site.yaml lists for its repo, once each and
    in that order."""
    problems = []
    for record in records:
        if not record.releases:
            continue
        order = {r.name: n for n, r in enumerate(config.releases_of(record.repo))}
        last = -1
        for raised in record.releases:
            where = order.get(raised.release)
            if where is None:
                why = (
                    f"release {raised.release!r} is not among site.yaml's releases of {record.repo}"
                )
            elif where <= last:
                why = f"release {raised.release!r} is listed twice or out of order"
            else:
                last = where
                continue
            problems.append(Problem(record.file, raised.at, why, code="E403"))
    return problems
