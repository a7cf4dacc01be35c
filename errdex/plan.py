"""The planner: what a build must do again, and why.

A full build reads every record, links them and renders every file. It leaves a state in
the cache folder (``state.py``). The next build compares the record files with it: when
only the prose, code or fixes of some records changed (nothing another page shows of
them), their pages and JSON are all it renders again. Anything else (a record added,
removed or retitled, a template or the config edited) needs a full build. Every such
reason is named here, in ``decide`` (or by ``state.load``, when there is no state to
trust); ``errdex build -v`` prints it, and the state keeps it.
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass, replace
from pathlib import Path

from . import state
from .files import record_stats, shown_path
from .problems import BuildError, Problem, Severity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .build import Options
    from .link import Site
    from .model import Record
    from .render import ErrorContext

# Parsing and rendering are imported where they are used: a build that finds nothing
# changed needs neither (nor YAML, Jinja or Pygments).


@dataclass(frozen=True, slots=True)
class Parsed:
    """A record file as this build read it."""

    path: str
    ctime: int
    """The file's change time, in ns (see ``files.record_stats``)."""
    size: int
    record: Record | None
    """None when the file has errors."""
    problems: list[Problem]


def parse(items: list[tuple[str, int, int]]) -> list[Parsed]:
    """Load, validate and model record files, given as (path, change time, size)."""
    from . import load, validate
    from .model import record_from

    parsed = []
    for path, ctime, size in items:
        doc, found = load.load_file(Path(path))
        record = None
        if doc is not None:
            found += validate.check_record(doc)
            if not any(p.severity is Severity.ERROR for p in found):
                record = record_from(doc)
        parsed.append(Parsed(path, ctime, size, record, found))
    return parsed


@dataclass(frozen=True, slots=True)
class Full:
    """Read, link, render and write everything."""

    reason: str
    previous: state.State | None = None
    """The last build's state, when it is still true of the output (its file digests
    spare reading the files that did not change)."""

    def __str__(self) -> str:
        return f"full build: {self.reason}"


@dataclass(frozen=True, slots=True)
class Partial:
    """Render the files of ``records`` again: they changed, and nothing another page shows
    of them did. Every other file stays as the last build wrote it."""

    records: tuple[Record, ...]
    context: ErrorContext
    """What their pages show of the others, as the last full build linked them."""
    files: dict[str, tuple[int, int, str]]
    """Their record files as the state keeps them (see ``state.State.files``)."""
    warnings: list[Problem]
    """The content's warnings: these records' as found now, the others' as last found."""
    previous: state.State

    def __str__(self) -> str:
        return f"update: {_count(len(self.records), 'record')} changed"


@dataclass(frozen=True, slots=True)
class UpToDate:
    """Nothing to do: the output is what the content makes."""

    previous: state.State

    def __str__(self) -> str:
        return "nothing changed"


Plan = Full | Partial | UpToDate

UPDATE_UP_TO = 200
"""More changed records than this are rendered faster by a full build on every core."""


def decide(options: Options, key: dict[str, str], previous: state.State | str) -> Plan:
    """What this build must do, given the last one's state (or why there is none)."""
    if isinstance(previous, str):
        return Full(previous)
    changed_key = [name for name in key if previous.key.get(name) != key[name]]
    if changed_key:
        return Full(f"{' and '.join(changed_key)} changed", previous)
    items, found = record_stats(options.content)
    if found:
        return Full("the record files have problems", previous)
    now = {path for path, _, _ in items}
    added, removed = len(now - previous.files.keys()), len(previous.files.keys() - now)
    if added or removed:
        counts = [f"{_count(added, 'record')} added"] if added else []
        counts += [f"{_count(removed, 'record')} removed"] if removed else []
        return Full(", ".join(counts), previous)
    changed = [item for item in items if previous.files[item[0]][:2] != item[1:]]
    if not changed:
        return UpToDate(previous)
    if len(changed) > UPDATE_UP_TO:
        return Full(f"{len(changed)} records changed, more than an update renders faster", previous)
    parsed = parse(changed)
    problems = [p for item in parsed for p in item.problems]
    shown = {shown_path(Path(item.path)) for item in parsed}
    kept = [p for p in previous.warnings if p.path not in shown]
    if any(p.severity is Severity.ERROR for p in problems):
        raise BuildError(sorted(kept + problems))
    records = []
    files = {}
    for item in parsed:
        record = item.record
        assert record is not None
        digest = summary_digest(record)
        where = shown_path(Path(item.path))
        if record.id != previous.ids.get(item.path):
            return Full(f"{where}: its id changed", previous)
        if digest != previous.files[item.path][2]:
            return Full(f"{where}: what other pages show of it changed", previous)
        records.append(record)
        files[item.path] = (item.ctime, item.size, digest)
    links = state.links(previous)
    if links is None:
        return Full("the previous state's links are missing or damaged", previous)
    warnings = sorted(kept + problems + _relined(previous, records))
    if any(p.severity is Severity.ERROR or options.strict for p in warnings):
        raise BuildError(warnings)
    return Partial(tuple(records), _context(records, links), files, warnings, previous)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def summary_digest(record: Record) -> str:
    """What other pages show of a record; lines, which only problems cite, left out (and
    the options as a sorted list: a set's order changes from one process to the next)."""
    from .model import Related

    summary = replace(
        record.summary(),
        id_line=0,
        source_line=0,
        related=tuple(Related(r.text, 0) for r in record.related),
        options=frozenset(),
    )
    text = repr((summary, sorted(record.options)))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _relined(previous: state.State, records: list[Record]) -> list[Problem]:
    """The related-entry warnings of changed records, at the entries' new lines (what the
    entries resolve to cannot have changed, or the build would not be an update)."""
    out = []
    for record in records:
        old = previous.lines.get(record.id, ())
        if len(old) != len(record.related):
            continue
        line_of = {line: entry.line for line, entry in zip(old, record.related, strict=True)}
        for problem in previous.warnings:
            if problem.path == record.file and problem.code == "W402" and problem.line in line_of:
                out.append(replace(problem, line=line_of[problem.line]))
    return out


def _context(records: list[Record], links: state.Links) -> ErrorContext:
    """What the pages of ``records`` show of the others (their related errors, backlinks
    and neighbours in the same file, as summaries), from what the last full build kept."""
    from .link import RelatedLink
    from .render import ErrorContext

    stored: dict[str, tuple[Record, tuple[tuple[str, str | None], ...], tuple[str, ...]]] = {}

    def entry(
        record_id: str,
    ) -> tuple[Record, tuple[tuple[str, str | None], ...], tuple[str, ...]]:
        if record_id not in stored:
            stored[record_id] = pickle.loads(links.records[record_id])
        return stored[record_id]

    def get(record_id: str) -> Record:
        return entry(record_id)[0]

    related = {}
    backlinks = {}
    by_file = {}
    for record in records:
        _, shown, linking = entry(record.id)
        related[record.id] = tuple(
            RelatedLink(text, get(target) if target else None) for text, target in shown
        )
        backlinks[record.id] = tuple(get(i) for i in linking)
        key = (record.repo, record.source.path)
        by_file[key] = tuple(get(i) for i in links.groups[key])
    return ErrorContext(links.config, related, backlinks, by_file, links.option_names)


def site_key(options: Options) -> dict[str, str]:
    """What shapes every page, by name (a build whose names differ from the last one's is
    a full build, and says which changed): errdex, the theme, the config, the options."""
    theme = options.theme
    files = []
    for folder in (theme.templates, theme.static):
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                files += [str(path.relative_to(folder)).encode(), path.read_bytes()]
    try:
        config = (options.content / "site.yaml").read_bytes()
    except OSError:
        config = b""
    return {
        "errdex or a library it renders with": state.code_key(),
        "the theme": state.key_of(files),
        "the site config": state.key_of([config]),
        "the build options": state.key_of([repr((options.base_url, options.strict)).encode()]),
    }


def full_state(
    site: Site,
    parsed: list[Parsed],
    key: dict[str, str],
    reason: str,
    out: Path,
    outputs: dict[str, str],
    warnings: list[Problem],
) -> state.State:
    """What the next build's ``decide`` needs to know of a full build."""
    dump = pickle.HIGHEST_PROTOCOL
    return state.State(
        key=key,
        reason=reason,
        base_url=site.config.base_url,
        out=str(out.resolve()),
        stamp=state.stamp(out),
        files={
            item.path: (item.ctime, item.size, summary_digest(item.record))
            for item in parsed
            if item.record is not None
        },
        ids={item.path: item.record.id for item in parsed if item.record is not None},
        outputs=outputs,
        warnings=warnings,
        lines={r.id: tuple(entry.line for entry in r.related) for r in site.records},
        links=state.Links(
            config=site.config,
            records={
                r.id: pickle.dumps(
                    (
                        r.summary(),
                        tuple(
                            (link.text, link.record.id if link.record else None)
                            for link in site.related[r.id]
                        ),
                        tuple(b.id for b in site.backlinks.get(r.id, ())),
                    ),
                    protocol=dump,
                )
                for r in site.records
            },
            groups={key: tuple(r.id for r in items) for key, items in site.by_file.items()},
            option_names=dict(site.option_names),
        ),
    )


def remember_update(state_file: Path, plan: Partial, outputs: dict[str, str]) -> None:
    """Add what an update rendered to the state."""
    plan.previous.warnings = plan.warnings
    lines = {r.id: tuple(entry.line for entry in r.related) for r in plan.records}
    state.note(state_file, plan.previous, plan.files, outputs, lines)
