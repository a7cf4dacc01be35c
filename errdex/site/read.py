"""Stage 3, the read: load, validate and model the record files, and link the records.

A full build reads every record (a big content folder on every core, keeping only the
records' summaries while the whole records wait in files for the workers that render
their pages: ``Stash``) and links them. An update reads the records that changed
(``update.read``), with ``parse`` as here, and takes the others' summaries from the state.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import shlex
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from errdex.records.files import record_stats, shown_path
from errdex.records.problems import BuildError, Problem, Severity, failed
from errdex.util import parallel
from errdex.util.processes import alive
from errdex.util.words import count

TYPE_CHECKING = False
if TYPE_CHECKING:
    from errdex.github.issues import Issue
    from errdex.records.link import Site
    from errdex.records.model import Record, SiteConfig
    from errdex.site.build import Options

# Parsing and linking are imported where they are used: a build that finds nothing
# changed needs neither (nor YAML).


@dataclass(frozen=True, slots=True)
class Parsed:
    """A record file as this build read it."""

    path: str
    ctime: int
    """The file's change time, in ns, or ``files.UNSURE`` (see ``files.record_stats``)."""
    size: int
    record: Record | None
    """None when the file has errors."""
    problems: list[Problem]
    digest: str = ""
    """``summary_digest`` of the record (made where it was read, on any core)."""
    content: str = ""
    """``write.digest`` of the file's bytes: a file whose change time moved but whose bytes
    did not (a fresh checkout, a cache restored in CI) is not read again."""

    @property
    def kept(self) -> tuple[int, int, str, str]:
        """What the state keeps of the file (``state.State.files``)."""
        return (self.ctime, self.size, self.digest, self.content)


def parse(content: Path, items: list[tuple[str, int, int]]) -> list[Parsed]:
    """Load, validate and model record files of the content folder ``content``, given as
    (path, change time, size)."""
    from errdex.records import load, validate
    from errdex.records.model import record_from
    from errdex.site.write import digest as content_digest

    parsed = []
    for path, ctime, size in items:
        try:
            raw = Path(path).read_bytes()
        except OSError:  # load_file says why
            raw = None
        if raw is None:
            doc, found = load.load_file(Path(path))
        else:
            doc, found = load.load_bytes(raw, Path(path))
        record = None
        if doc is not None:
            found += validate.check_record(doc)
            if not any(p.severity is Severity.ERROR for p in found):
                record = record_from(doc, content)
        digest = "" if record is None else summary_digest(record)
        held = "" if raw is None else content_digest(raw)
        parsed.append(Parsed(path, ctime, size, record, found, digest, held))
    return parsed


def summary_digest(record: Record) -> str:
    """What other pages show of a record; lines, which only problems cite, left out (and
    the options as a sorted list: a set's order changes from one process to the next)."""
    from errdex.records.model import Related

    summary = replace(
        record.summary(),
        id_line=0,
        source_line=0,
        related=tuple(Related(r.text, 0) for r in record.related),
        options=frozenset(),
    )
    text = repr((summary, sorted(record.options)))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class Stash:
    """Records read on other cores, kept whole in files until their pages are rendered.

    The build keeps only their summaries, which is all the lists and the links need: the
    workers that render the pages are forked from it, and every page a process touches
    (a reference count changing is enough) is copied for that process, so records kept
    in the build would be held about twice over the workers' run. A worker reads each
    piece back, renders it and lets it go. A piece that cannot be written (no room in
    the temporary folder, no such folder) stays whole in the build, as all of them did."""

    PREFIX = "records-"
    """The folder's name in the cache folder: ``records-<pid>-<random>``."""

    def __init__(self, cache: Path | None) -> None:
        self.cache = cache
        """Where the folder goes: the cache folder, so that the next build removes it if
        this one is killed; the system's temporary folder without one."""
        self.folder: Path | None = None
        self.pieces = 0
        """How many pieces there are (0: none, the records are in the build)."""
        self.held: dict[int, list[Record]] = {}
        """The pieces that stayed in the build, whole."""

    def start(self) -> None:
        """Make the folder, before the workers that write to it are forked."""
        try:
            if self.cache is None:
                self.folder = Path(tempfile.mkdtemp(prefix="errdex-records-"))
            else:
                self.cache.mkdir(parents=True, exist_ok=True)
                prefix = f"{self.PREFIX}{os.getpid()}-"
                self.folder = Path(tempfile.mkdtemp(prefix=prefix, dir=self.cache))
        except OSError:
            self.folder = None

    @classmethod
    def sweep(cls, cache: Path) -> None:
        """Remove the folders of builds that were killed (their process is gone)."""
        for folder in cache.glob(f"{cls.PREFIX}*-*"):
            pid = folder.name.removeprefix(cls.PREFIX).partition("-")[0]
            if not pid.isdigit() or int(pid) == os.getpid() or alive(int(pid)):
                continue
            shutil.rmtree(folder, ignore_errors=True)

    def parse(
        self, content: Path, job: tuple[int, list[tuple[str, int, int]]]
    ) -> tuple[bool, list[Parsed]]:
        """``parse`` of one piece of record files, in a worker: the records go to
        the folder, their summaries back to the build; or, if the piece cannot be
        written, the records themselves. Returns whether it was written, and them."""
        number, items = job
        parsed = parse(content, items)
        try:
            self._write(number, [item.record for item in parsed if item.record is not None])
        except OSError:
            return False, parsed
        summaries = [
            item if item.record is None else replace(item, record=item.record.summary())
            for item in parsed
        ]
        return True, summaries

    def _write(self, number: int, records: list[Record]) -> None:
        if self.folder is None:
            raise FileNotFoundError("no folder for the records")
        path = self.folder / str(number)
        try:
            with open(path, "wb") as file:
                pickle.dump(records, file, protocol=pickle.HIGHEST_PROTOCOL)
        except OSError:
            path.unlink(missing_ok=True)
            raise

    def keep(self, number: int, parsed: list[Parsed]) -> None:
        """Hold piece ``number`` in the build: it could not be written."""
        self.held[number] = [item.record for item in parsed if item.record is not None]

    def take(self, number: int) -> list[Record]:
        """The records of piece ``number``, whole; given once."""
        if number in self.held:
            return self.held.pop(number)
        assert self.folder is not None
        path = self.folder / str(number)
        with open(path, "rb") as file:
            records: list[Record] = pickle.load(file)
        path.unlink()
        return records

    def __enter__(self) -> Stash:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def every_record(
    options: Options,
    parallel_read: bool,
    stash: Stash | None = None,
    meanwhile: Callable[[], object] | None = None,
    summaries: bool = False,
) -> tuple[Site, list[Problem], list[Parsed]]:
    """Load, validate, model and link every record (on every core for a big site when
    ``parallel_read``); raise BuildError if anything is wrong. Returns the linked site,
    its warnings and every record file as read. With ``stash``, records read on other
    cores are kept there whole, and the site and the files as read hold their summaries;
    ``meanwhile`` is then called while they read (a BuildError it raises is raised once
    the records are found to have none). With ``summaries``, the site is linked from
    every record's summary however it was read, so the pages that list records show the
    same whether one core read them or several (the records as read stay in the files
    returned)."""
    from errdex.github import issues
    from errdex.records.link import link
    from errdex.records.model import site_from, unpublished

    config_doc, problems = _config(options)
    config_ok = not any(p.severity is Severity.ERROR for p in problems)
    reports, found = issues.read_all(options.content)
    problems += found
    items, found = record_stats(options.content)
    problems += found
    jobs = parallel.jobs_for(len(items), options.jobs) if parallel_read else 1
    deferred: BuildError | None = None
    pieces = [items[start:stop] for start, stop in parallel.chunks(len(items))]
    shown: list[Record] = []
    """What the site is linked from: with ``summaries``, every record's summary."""
    if stash is None or jobs < 2:
        with parallel.Tasks(functools.partial(parse, options.content), jobs) as tasks:
            parsed = [item for piece in tasks.map(pieces) for item in piece]
        shown = [item.record for item in parsed if item.record is not None]
        if summaries:
            shown = [record.summary() for record in shown]
    else:
        stash.start()
        parsed = []
        with parallel.Tasks(functools.partial(stash.parse, options.content), jobs) as tasks:
            results = tasks.map(enumerate(pieces))
            if meanwhile is not None:
                try:
                    meanwhile()
                except BuildError as exc:
                    deferred = exc
            for number, (written, piece) in enumerate(results):
                records = [item.record for item in piece if item.record is not None]
                if not written:
                    stash.keep(number, piece)
                    if summaries:
                        records = [record.summary() for record in records]
                parsed += piece
                shown += records
        stash.pieces = len(pieces)
    for item in parsed:
        problems += item.problems
    if config_doc is None or not config_ok:  # site.yaml's errors: nothing to link with
        raise BuildError(sorted(problems))
    if any(item.record is None for item in parsed):
        found, note = link_errors(site_from(config_doc, options.base_url), shown)
        raise BuildError(sorted(problems + found), note)
    # Every record loaded: what linking finds is read as in any build (``--strict`` stops
    # at its warnings too, named with the others).
    config = site_from(config_doc, options.base_url)
    if config.drafts == "hide" and options.publishing:
        # Lists, options, the feed and search see none of a hidden draft's prose.
        shown = [unpublished(record) for record in shown]
    site, linked = link(config, shown)
    problems += linked
    if reports:
        site, found = _reported(site, reports, options.content)
        problems += found
    if failed(problems, options.strict):
        raise BuildError(sorted(problems))
    if deferred is not None:
        raise deferred
    return site, sorted(problems), parsed


def link_errors(config: SiteConfig, loaded: list[Record]) -> tuple[list[Problem], str]:
    """What linking finds wrong among the records that loaded, when others did not (so
    that one run names every problem it can): an id two records have, a release
    site.yaml does not list, names that clash as folders; and a note of how many related
    ids match no record, which are named once every record loads (one may be the id of a
    record that did not load). Linking's warnings are left out."""
    from errdex.records.link import link

    found = [p for p in link(config, loaded)[1] if p.severity is Severity.ERROR]
    left = sum(p.code == "E401" for p in found)
    note = (
        f"{count(left, 'related id')} that no record has left unchecked: records did not "
        "load, and it may be one of theirs (related ids are checked once every record loads)"
        if left
        else ""
    )
    return [p for p in found if p.code != "E401"], note


def _reported(site: Site, reports: list[Issue], content: Path) -> tuple[Site, list[Problem]]:
    """The site, its config knowing which issues paste each record."""
    from errdex.github import issues

    def owner(record_id: str) -> str | None:
        record = site.by_id.get(record_id) or site.aliases.get(record_id)
        return record.id if record else None

    by_id, problems = issues.reported(reports, owner, content)
    return replace(site, config=replace(site.config, reported=by_id)), problems


def init_hint(content: Path) -> str:
    """How a content folder with records but no site.yaml gets one (a scan's, say)."""
    if content.name == "content":
        folder = shlex.quote(shown_path(content.parent))
        return f"`errdex init {folder}` writes one (the site's title, address and repository)"
    return "write one: docs/records.md lists its fields (title, base_url, repository)"


def _config(options: Options) -> tuple[Any, list[Problem]]:
    from errdex.records import load, validate

    path = options.content / "site.yaml"
    doc, problems = load.load_file(path)
    if doc is None and not path.exists() and (options.content / "errors").is_dir():
        hint = init_hint(options.content)
        problems = [replace(p, message=f"{p.message}; {hint}") for p in problems]
    problems += _linked_static(options)
    if doc is not None:
        problems += validate.check_site(doc)
    if doc is not None and not problems:
        problems += _extra_assets(doc, options)
    return doc, problems


def _linked_static(options: Options) -> list[Problem]:
    """A site's static/ folder that is a link: all of wherever it leads (a home folder,
    another project) would be published, so it is refused, as links inside it are."""
    static = options.theme.site_static
    if static is None or not static.is_symlink():
        return []
    what = (
        f"is a link (to {os.readlink(static)}); a site's static files are published only "
        "from a folder of the site folder: make static/ a folder and copy the files into it"
    )
    return [Problem(shown_path(static), 0, what, code="E100")]


CSS_BUDGET = 20 * 1024
JS_BUDGET = 48 * 1024
"""What every page may load, uncompressed: errdex's own files are kept within it
(tests/test_quality.py), and a site's ``extra_css`` or ``extra_js`` that takes a page
past it gets W311."""


def _extra_assets(doc: Any, options: Options) -> list[Problem]:
    """The site's extra stylesheets and scripts must be files of its static/ folder; a
    page that loads more than the budget gets a warning."""
    listed = [
        (key, index, name)
        for key in ("extra_css", "extra_js")
        for index, name in enumerate(doc.data.get(key, ()))
    ]
    if not listed:
        return []  # without importing the renderer, before the readers are forked
    from errdex.site.render import hashed_assets, site_asset_names

    mine = site_asset_names(options.theme)
    problems = []
    named: dict[str, list[str]] = {}
    for key, index, name in listed:
        # A name as the site's static/ folder has it: a relative path, no dot files.
        if name not in mine:
            folder = options.content.resolve().parent / "static"
            problems.append(
                Problem(
                    doc.shown,
                    doc.line(key, index),
                    f"{key} names {name!r}, which is not a file of {folder} (give its "
                    "path there, such as site.css or css/site.css)",
                    code="E207",
                )
            )
        named.setdefault(key, []).append(name)
    if problems:
        return problems
    assets = hashed_assets(options.theme)
    for key, ours, budget in (
        ("extra_css", ["errdex.css", "pygments.css"], CSS_BUDGET),
        ("extra_js", ["search.js", "errdex.js"], JS_BUDGET),
    ):
        size = sum(len(assets[n][1]) for n in [*ours, *named.get(key, [])] if n in assets)
        if key in named and size > budget:
            problems.append(
                Problem(
                    doc.shown,
                    doc.line(key),
                    f"with {key}, every page loads {size:,} bytes of "
                    f"{'CSS' if key == 'extra_css' else 'JavaScript'}, over the "
                    f"{budget // 1024} KiB budget",
                    Severity.WARNING,
                    code="W311",
                )
            )
    return problems
