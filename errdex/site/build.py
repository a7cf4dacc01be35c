"""The build, in seven stages; ``build`` reads as them:

1. lock: builds into one output take turns, from reading the state to saving it;
2. plan: which record files changed since the last build, and so what to do and why: a
   full build, an update, or nothing (``plan.decide``, which reads no record);
3. read: every record, checked and linked (``read.every_record``); in an update, the
   changed ones, linked with what the state keeps of the others (``update.read``);
4. outdated: which pages to render: all of them, or those that show what changed
   (``update.outdated``);
5. render: those pages, on forked workers for a big site;
6. write: a full build's files into a new folder swapped in whole, an update's in place;
7. save: what was done, for the next build's plan (``state.py``).

An update that finds what it cannot follow (as it reads, as it finds what is outdated,
or as it renders the lists) raises the full build it must be instead (``plan.Full``),
which says why. Nothing is written until everything is read, checked and linked.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from errdex.records.problems import BuildError, Problem, Severity
from errdex.site import plan, state, update
from errdex.site.read import Parsed, Stash, every_record
from errdex.site.theme import Theme, default_theme
from errdex.site.write import (
    Staging,
    WriteStats,
    changes,
    digest,
    output_lock,
    require_output,
    update_in_place,
)
from errdex.util import parallel, progress

TYPE_CHECKING = False
if TYPE_CHECKING:
    from errdex.records.link import Site
    from errdex.records.model import Record
    from errdex.search import Entry
    from errdex.site.highlight import Highlighter
    from errdex.site.render import ErrorContext, Renderer

# Parsing, linking and rendering are imported where they are used: a build that finds
# nothing changed needs none of them (nor YAML, Jinja, Pygments or Markdown).


@dataclass(frozen=True, slots=True)
class Options:
    content: Path = Path("content")
    out: Path = Path("public")
    base_url: str | None = None
    """Overrides the site config's base_url."""
    strict: bool = False
    """Treat warnings as errors."""
    cache: Path | None = Path(".errdex/cache")
    """Where highlighted code and the last build's state are kept; None for neither."""
    theme: Theme = field(default_factory=default_theme)
    jobs: int = 0
    """Processes for reading and rendering: 0 for one per core, 1 for none but this one."""
    verbose: bool = False
    """Say what the build does and why (a full build, an update, nothing) on stderr."""
    quiet: bool = False
    """Say nothing on stderr but errors: no progress line."""
    publishing: bool = True
    """Whether the records are read as the site shows them (``drafts.publish: hide``
    leaves the prose of unreviewed drafts out); the source tools read them as written."""
    store: state.Store | None = field(default=None, repr=False, compare=False)
    """What a process that builds again and again (``serve``) keeps of the last state
    for its next build."""


@dataclass(frozen=True, slots=True)
class Result:
    site: Site | None
    """The linked site; None when the build read only what changed, or nothing."""
    warnings: list[Problem]
    stats: WriteStats | None = None
    files: dict[str, bytes] | None = None
    """Every output file, from ``check`` (a build writes them instead)."""
    pages: int = 0
    """Error pages in the site."""
    rendered: int = 0
    """Error pages rendered by this build: all of them, or those whose records changed."""
    base_url: str | None = None
    """The site's address, for links to the pages that explain problem codes."""
    host: str = "plain"
    """Where the site is published (``host`` in site.yaml)."""
    full: bool = False
    """Whether this build wrote the whole site (not an update, nor nothing)."""


def build(options: Options) -> Result:
    """Build the site into ``options.out``, in the seven stages above."""
    require_output(options.out, options.content)
    key = plan.site_key(options)
    state_file = state.path_for(options.cache, options.out) if options.cache else None
    with (
        output_lock(options.out),  # 1. lock
        _few_collections(),
        Stash(options.cache) as stash,
        _Tools(options) as tools,
        contextlib.ExitStack() as asides,  # what an update makes in a process aside
    ):
        previous = _previous(options, state_file)
        chosen = plan.decide(options, key, previous)  # 2. plan
        if isinstance(chosen, plan.Update) and not chosen.changed:
            return _nothing_to_do(options, chosen, state_file)
        try:
            found = _read(options, chosen, stash, tools, asides)  # 3. read
            work = _outdated(options, found)  # 4. outdated
            outputs, stats = _render_and_write(options, work, tools, state_file)  # 5, 6
        except plan.Full as full:  # raised by an update, before it wrote anything
            # The update's tools read the cache a key at a time: a full build's read it all.
            tools.close()
            work = _read_all(options, full, stash, tools, asides)
            outputs, stats = _render_and_write(options, work, tools, state_file)
        if state_file:
            _save(state_file, work, key, options, outputs, tools)  # 7. save
    return Result(
        work.site,
        sorted(work.warnings + work.moved + tools.warnings),
        stats,
        pages=work.pages,
        rendered=len(work.records),
        base_url=work.context.config.base_url,
        host=work.context.config.host,
        full=work.full,
    )


def _previous(options: Options, state_file: Path | None) -> state.State | str:
    """The last build's state, or why there is none to trust."""
    if options.cache is None or state_file is None:
        return "no cache (--no-cache)"
    state.sweep(options.cache)
    Stash.sweep(options.cache)
    return state.load(state_file, options.out)


def _nothing_to_do(options: Options, chosen: plan.Update, state_file: Path | None) -> Result:
    previous = chosen.previous
    if options.verbose:
        print("errdex: nothing changed", file=sys.stderr)
    if state_file and (chosen.restamped or previous.restored):
        # The same bytes under new times (a checkout, a restored cache): kept, so the next
        # build compares times again, not bytes.
        state.note(state_file, chosen.restamped, {}, previous.warnings, out=options.out)
    stats = WriteStats(written=0, unchanged=len(previous.outputs), removed=0)
    return Result(
        None, previous.warnings, stats, pages=len(previous.ids), base_url=previous.base_url
    )


# --- 3. read, 4. outdated -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Work:
    """What a build renders, whichever its plan: the files of ``records``, and with a
    whole ``site`` (a full build) every file that lists them."""

    records: Sequence[Record]
    context: ErrorContext
    warnings: list[Problem]
    """The content's warnings."""
    pages: int
    """Error pages in the site."""
    previous: state.State | None
    site: Site | None = None
    parsed: list[Parsed] = field(default_factory=list)
    """Every record file, in a full build."""
    update: update.Read | None = None
    """An update's: what it renders, and the lists that show what changed
    (``update.Read.site``)."""
    stash: Stash | None = None
    """Where the records are, whole, when ``records`` are their summaries."""
    reason: str = ""
    """Why a full build is one."""
    moved: list[Problem] = field(default_factory=list)
    """W405, of pages whose address changed since the last build: said once, not kept."""

    @property
    def full(self) -> bool:
        return self.update is None

    @classmethod
    def whole(
        cls,
        site: Site,
        warnings: list[Problem],
        parsed: list[Parsed],
        stash: Stash | None = None,
        previous: state.State | None = None,
        reason: str = "",
    ) -> _Work:
        from errdex.site.render import ErrorContext

        context = ErrorContext.of(site)
        records: Sequence[Record] = site.records
        if stash is None or not stash.pieces:
            # The records as read, in the site's order (which may hold their summaries).
            stash = None
            whole = {item.record.id: item.record for item in parsed if item.record is not None}
            records = tuple(whole[record.id] for record in site.records)
        pages = len(site.records)
        return cls(records, context, warnings, pages, previous, site, parsed, None, stash, reason)


def _read(
    options: Options,
    chosen: plan.Full | plan.Update,
    stash: Stash,
    tools: _Tools,
    asides: contextlib.ExitStack,
) -> _Work | update.Read:
    """Stage 3: every record, linked, for a full build (the highlighter and templates
    made meanwhile, while other cores read); for an update, the changed records
    (``asides`` stops what the update made aside)."""
    if isinstance(chosen, plan.Update):
        return update.read(options, chosen, asides)
    return _read_all(options, chosen, stash, tools, asides)


def _read_all(
    options: Options, chosen: plan.Full, stash: Stash, tools: _Tools, asides: contextlib.ExitStack
) -> _Work:
    """Stage 3 of a full build: every record, linked, while this process makes the
    highlighter and templates. What an update made aside before it found it must be a
    full build is stopped first (a forked process waiting to hand it over holds a copy
    of this one's memory)."""
    asides.close()
    if options.store is not None:
        options.store.clear()  # the last links: another set is made now
    if options.verbose:
        print(f"errdex: {chosen}", file=sys.stderr)
    gc.enable()  # with the rare collections of ``_few_collections``
    site, warnings, parsed = every_record(
        options, True, stash, meanwhile=lambda: tools.make(full=True, warm=True), summaries=True
    )
    gc.freeze()
    work = _Work.whole(site, warnings, parsed, stash, chosen.previous, chosen.reason)
    return replace(work, moved=_moved(site, parsed, chosen.previous))


def _moved(site: Site, parsed: list[Parsed], previous: state.State | None) -> list[Problem]:
    """W405 for each record file whose record has another id than in the last build (its
    repo, exception or message changed), when no record keeps the old one: the old
    address, which issues and other sites may link to, is then gone."""
    from errdex.urls import page_url

    if previous is None:
        return []
    # The state names files from the working folder of its build, which may be another.
    here = os.getcwd()
    ids = {os.path.normpath(os.path.join(previous.cwd, p)): i for p, i in previous.ids.items()}
    kept = site.by_id.keys() | site.aliases.keys()
    moved = []
    for item in parsed:
        was = ids.get(os.path.normpath(os.path.join(here, item.path)))
        record = item.record
        if record is None or was is None or was == record.id or was in kept:
            continue
        why = "its id" if record.id_stated else "its repo, exception or message"
        said = (
            f"its page moved from {page_url(was)} to {page_url(record.id)} ({why} changed "
            f'since the last build), and the old address now gives 404; add "{was}" to its '
            f"`aliases` to keep it"
        )
        moved.append(Problem(record.file, record.id_line, said, Severity.WARNING, code="W405"))
    return moved


def _outdated(options: Options, work: _Work | update.Read) -> _Work:
    """Stage 4: what to render. All of a full build; what shows what changed of an update."""
    if isinstance(work, _Work):
        return work
    found = update.outdated(options, work)
    if options.verbose:
        print(f"errdex: {found}", file=sys.stderr)
    gc.freeze()
    assert found.context is not None
    pages = len(found.previous.ids)
    return _Work(found.records, found.context, found.warnings, pages, found.previous, update=found)


def check(options: Options) -> tuple[Result, list[str], list[str]]:
    """Everything a build does but the writing; also what a build would change in ``out``."""
    from errdex.site.highlight import Highlighter
    from errdex.site.render import Renderer

    require_output(options.out, options.content)  # what a build refuses, check says so
    site, warnings, parsed = every_record(options, parallel_read=False, summaries=True)
    previous = None
    if options.cache is not None:  # read, never written: check changes nothing
        found = state.load(state.path_for(options.cache, options.out), options.out)
        previous = found if isinstance(found, state.State) else None
    work = _Work.whole(site, warnings + _moved(site, parsed, previous), parsed)
    writer = _Collect(options.out)
    renderer = Renderer(options.theme, Highlighter())
    with _template_errors(options):
        outputs, written = _render(renderer, work, writer, 1, options.quiet)
    stats = writer.commit(outputs, written)
    count = len(work.records)
    result = Result(
        work.site,
        work.warnings,
        stats,
        writer.files,
        pages=count,
        rendered=count,
        base_url=work.context.config.base_url,
        host=work.context.config.host,
    )
    return result, writer.changed, writer.removed


def gather(options: Options, parallel_read: bool = False) -> tuple[Site, list[Problem]]:
    """Load, validate, model and link the content; raise BuildError if anything is wrong.
    With ``parallel_read``, a big content folder is read on every core."""
    site, warnings, _ = every_record(options, parallel_read)
    return site, warnings


@contextlib.contextmanager
def _few_collections() -> Iterator[None]:
    """Python's cycle collector walks every object it tracks, again and again as a build
    makes hundreds of thousands of them, none of which form cycles that must go before
    the build ends. It does not run while the state is read and the plan made (which
    make what the build keeps), nor in an update (which makes little garbage, freed when
    it ends); a full build collects rarely (``_read_all``), and what it loaded by then is
    frozen out of the walks (which also keeps forked workers from copying the pages they
    would touch)."""
    threshold, enabled = gc.get_threshold(), gc.isenabled()
    gc.disable()
    gc.set_threshold(50_000, 50, 100)
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
        (gc.enable if enabled else gc.disable)()


# --- 5. render, 6. write -------------------------------------------------------------


def _highlighter(options: Options, read_all: bool) -> tuple[Highlighter, list[Problem]]:
    """The build's highlighter, on the cache file unless there is no cache; and a warning
    when that file was unreadable."""
    from errdex.site.highlight import Highlighter

    if options.cache is None:
        return Highlighter(), []
    highlighter, problem = Highlighter.open(options.cache / "highlight.sqlite", read_all)
    if problem is None:
        return highlighter, []
    return highlighter, [_cache_warning(options.cache, problem)]


def _cache_warning(cache: Path, said: str) -> Problem:
    """W501: the highlight cache in ``cache`` could not be read or written."""
    return Problem(str(cache / "highlight.sqlite"), 0, said, Severity.WARNING, code="W501")


@contextlib.contextmanager
def _template_errors(options: Options) -> Iterator[None]:
    """A site's own template that does not compile, or fails as a page is rendered, as a
    problem at its file and line (nothing is written)."""
    import jinja2

    try:
        yield
    except jinja2.TemplateError as exc:
        raise BuildError([template_problem(exc, options)]) from None
    except (RecursionError, TypeError, ValueError, AttributeError) as exc:
        # Raised inside a site's own template (a value of the wrong type, say, or a
        # template that extends itself): named at its line too. Anything else is ours.
        problem = template_problem(exc, options)
        if options.theme.site_templates is None or not problem.path.startswith("templates/"):
            raise
        raise BuildError([problem]) from None


def template_problem(exc: Exception, options: Options) -> Problem:
    """Where in a template ``exc`` happened: its file and line, as a record's problem."""
    import jinja2

    where, line = "", 0
    if isinstance(exc, jinja2.TemplateSyntaxError):
        where, line = exc.filename or exc.name or "", exc.lineno
    else:
        frame = exc.__traceback__
        while frame is not None:
            name = frame.tb_frame.f_code.co_filename
            if name.endswith((".html", ".xml", ".txt")) or "/templates/" in name:
                where, line = name, frame.tb_lineno
            frame = frame.tb_next
    shown = where
    site = options.theme.site_templates
    if where and site is not None and Path(where).resolve().is_relative_to(site.resolve()):
        shown = str(Path(where).resolve().relative_to(site.resolve().parent))
    message = getattr(exc, "message", None) or str(exc)
    if isinstance(exc, RecursionError):
        message = "it extends itself: write errdex/NAME to extend errdex's template of that name"
    if not shown:
        return Problem("templates", line, f"template error: {message}", code="E106")
    return Problem(shown, line, f"template error: {message}", code="E106")


def _renderer(options: Options, highlighter: Highlighter) -> Renderer:
    from errdex.site.render import Renderer

    templates = None
    if options.cache is not None:
        templates = options.cache / "templates"
        templates.mkdir(parents=True, exist_ok=True)
    return Renderer(options.theme, highlighter, templates)


@dataclass(frozen=True, slots=True)
class _Rendered:
    """What a chunk of errors gave: each file's digest, how many files were written, the
    code highlighted that the cache lacked, and how many errors the chunk held."""

    outputs: dict[str, str]
    written: int
    highlighted: dict[str, str]
    count: int


def _render(
    renderer: Renderer, work: _Work, writer: _Writer, jobs: int, quiet: bool = False
) -> tuple[dict[str, str], int]:
    """Stage 5: render every file of ``work`` into ``writer``: the errors' files in
    chunks (on forked workers when ``jobs`` and the count allow, and the writer takes
    files from them), the site's own meanwhile in this process. Returns each output
    file's digest, and how many files the writer wrote already."""
    records, context, highlighter = work.records, work.context, renderer.highlighter
    stash = work.stash
    bounds = parallel.chunks(len(records))

    def render_chunk(piece: int) -> _Rendered:
        outputs: dict[str, str] = {}
        written = 0
        if stash is None:
            whole: Sequence[Record] = records[bounds[piece][0] : bounds[piece][1]]
        else:
            whole = stash.take(piece)
        for record in whole:
            for rel, data in renderer.error_files(record, context).items():
                outputs[rel], wrote = writer.put(rel, data)
                written += wrote
        return _Rendered(outputs, written, highlighter.take_added(), len(whole))

    jobs = parallel.jobs_for(len(records), jobs) if writer.forks else 1
    if jobs > 1:
        renderer.warm()  # compiled once here, the templates and lexers are every worker's
    bar = progress.line(
        len(records), "rendered", "pages", shown=len(records) >= PROGRESS_FROM and not quiet
    )
    outputs: dict[str, str] = {}
    written = 0
    with parallel.Tasks(render_chunk, jobs) as tasks:
        chunks = tasks.map(range(len(bounds) if stash is None else stash.pieces))

        def put(rel: str, data: bytes) -> None:
            nonlocal written
            outputs[rel], wrote = writer.put(rel, data)
            written += wrote

        if work.site is not None:
            renderer.site_files(work.site, put)  # each written as it is made
        elif work.update is not None and work.update.site is not None:
            for rel, data in _lists(renderer, work.update).items():
                put(rel, data)
        for chunk in chunks:
            outputs.update(chunk.outputs)
            written += chunk.written
            highlighter.merge(chunk.highlighted)
            bar(chunk.count)
    bar(0, done=True)
    return outputs, written


def _lists(renderer: Renderer, update: update.Read) -> dict[str, bytes]:
    """The lists, indexes, search files and feed that show what an update changed."""
    from errdex.site.hosts import json_paths
    from errdex.urls import first_page, page_url

    assert update.site is not None
    lists, shown, previous = update.lists, {r.id for r in update.shown_changed}, update.previous
    made = update.index_made() if update.index_made is not None else {}
    kept = [] if made else sorted(rel for rel in previous.outputs if rel.startswith("search/"))

    def wanted(rel: str, shows: Sequence[Record]) -> bool:
        first = first_page(rel)
        if first not in lists:
            return not kept and rel.startswith("search/")
        # A long list's later pages show its length, as its first does, and their own
        # rows: unless rows moved, only those with a changed one are others now.
        return rel == first or update.moved or any(r.id in shown for r in shows)

    files, names = renderer.some_site_files(update.site, wanted, kept or tuple(sorted(made)))
    error_files = {page_url(rid) + "index.html" for rid in previous.ids.values()}
    error_files.update(*(json_paths(rid, update.site.config.host) for rid in previous.ids.values()))
    if set(names) != previous.outputs.keys() - error_files:  # search shards more or fewer, say
        raise plan.Full("the files that list errors would change", previous)
    return {**files, **made}


PROGRESS_FROM = 300
"""Builds of fewer records finish before a progress line would help."""


def _render_and_write(
    options: Options, work: _Work, tools: _Tools, state_file: Path | None
) -> tuple[dict[str, str], WriteStats]:
    """Stages 5 and 6: render the files of ``work`` into a writer, then write them.
    Returns each output file's digest, and what was written."""
    highlighter, renderer = tools.make(full=work.full)
    with _template_errors(options):
        if work.update is None:
            writer: _Writer = _Swap(options.out, work.previous, state_file)
        else:
            writer = _InPlace(options.out, work.update.previous, state_file)
        try:
            outputs, written = _render(renderer, work, writer, options.jobs, options.quiet)
            stats = writer.commit(outputs, written)
        except BaseException:
            writer.abort()
            raise
    unsaved = highlighter.save()
    if unsaved and options.cache is not None:
        tools.warnings.append(_cache_warning(options.cache, unsaved))
    return outputs, stats


class _Tools:
    """The build's highlighter and compiled templates, made once, when the build knows
    it renders (a full build makes them while other cores read the records)."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.warnings: list[Problem] = []
        """The cache's (an unreadable highlight cache)."""
        self._made: tuple[Highlighter, Renderer] | None = None

    def make(self, full: bool, warm: bool = False) -> tuple[Highlighter, Renderer]:
        """The highlighter (with ``full``, the whole cache read at once) and the templates
        (with ``warm``, the lexers too, for forked workers to share)."""
        if self._made is None:
            highlighter, self.warnings = _highlighter(self.options, read_all=full)
            try:
                with _template_errors(self.options):
                    renderer = _renderer(self.options, highlighter)
                    if warm:
                        renderer.warm()
            except BaseException:
                highlighter.close()
                raise
            self._made = (highlighter, renderer)
        return self._made

    @property
    def entries(self) -> list[Entry]:
        """Every record as search saw it, once the site's files are rendered."""
        assert self._made is not None
        return self._made[1].entries

    def close(self) -> None:
        """Close the highlighter; the next ``make`` makes the tools anew."""
        if self._made is not None:
            self._made[0].close()
            self._made = None

    def __enter__(self) -> _Tools:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- 7. save -------------------------------------------------------------------------


def _save(
    state_file: Path,
    work: _Work,
    key: dict[str, str],
    options: Options,
    outputs: dict[str, str],
    tools: _Tools,
) -> None:
    """Keep what this build did for the next one's plan."""
    out = options.out
    if work.update is not None:  # what it rendered, added to the state
        partial = work.update
        state.note(state_file, partial.files, outputs, partial.warnings, partial.change, out)
        return
    assert work.site is not None
    done = state.of_full_build(
        work.site, work.parsed, key, work.reason, out, outputs, work.warnings, tools.entries
    )
    state.save(state_file, done, options.store)


class _Writer(Protocol):
    """Where rendered files go."""

    @property
    def forks(self) -> bool:
        """Whether forked workers may put files (each then writes them itself)."""

    def put(self, rel: str, data: bytes) -> tuple[str, bool]:
        """Take one file; returns its digest and whether it was written already."""

    def commit(self, outputs: dict[str, str], written: int) -> WriteStats:
        """Finish, given every file's digest and how many ``put`` wrote."""

    def abort(self) -> None:
        """Undo what ``put`` did, after a failure."""


class _Swap:
    """A full build's: every file staged in a new folder beside the output, swapped in
    whole (files whose bytes did not change hard-linked from the old output)."""

    forks = True

    def __init__(self, out: Path, previous: state.State | None, state_file: Path | None) -> None:
        self.state_file = state_file
        self.staging = Staging(out, previous.outputs if previous else None)
        self.staging.open()

    def put(self, rel: str, data: bytes) -> tuple[str, bool]:
        return self.staging.put(rel, data)

    def commit(self, outputs: dict[str, str], written: int) -> WriteStats:
        # The last state is dropped right before the output changes, not before: a build
        # refused or stopped before the swap leaves the output and the state that tells
        # of it (which pages moved since, W405); one stopped in the swap leaves no state,
        # and the next build is a full one rather than one that trusts a stale state.
        file = self.state_file
        dropped = functools.partial(file.unlink, missing_ok=True) if file else None
        removed = self.staging.commit(set(outputs), dropped)
        return WriteStats(written=written, unchanged=len(outputs) - written, removed=removed)

    def abort(self) -> None:
        self.staging.abort()


class _InPlace:
    """An update's: the files of a few errors, kept until all are rendered, then written
    over their old versions in the output."""

    forks = False

    def __init__(self, out: Path, previous: state.State, state_file: Path | None) -> None:
        self.out, self.previous, self.state_file = out, previous, state_file
        self.files: dict[str, bytes] = {}

    def put(self, rel: str, data: bytes) -> tuple[str, bool]:
        made = digest(data)
        # A file the last build wrote with these bytes is left as it is, unread (errdex
        # trusts the output it built; one an update stopped midway has no digest), unless
        # it was deleted since.
        if self.previous.outputs.get(rel) != made or not os.path.lexists(self.out / rel):
            self.files[rel] = data
        return made, False

    def commit(self, outputs: dict[str, str], written: int) -> WriteStats:
        if self.state_file:
            # Until they are written, what these files hold is unknown: a build stopped
            # midway leaves a state that has them written again.
            state.note(self.state_file, {}, dict.fromkeys(self.files, ""), self.previous.warnings)
        written = update_in_place(self.files, self.out)
        unchanged = len(self.previous.outputs) - written
        return WriteStats(written=written, unchanged=unchanged, removed=0)

    def abort(self) -> None:
        pass


class _Collect:
    """``check``'s: every file kept in memory and compared with the output, which stays
    as it is."""

    forks = False

    def __init__(self, out: Path) -> None:
        self.out = out
        self.files: dict[str, bytes] = {}
        self.changed: list[str] = []
        self.removed: list[str] = []

    def put(self, rel: str, data: bytes) -> tuple[str, bool]:
        self.files[rel] = data
        return "", False

    def commit(self, outputs: dict[str, str], written: int) -> WriteStats:
        self.changed, self.removed = changes(self.files, self.out)
        unchanged = len(self.files) - len(self.changed)
        return WriteStats(written=len(self.changed), unchanged=unchanged, removed=len(self.removed))

    def abort(self) -> None:
        pass
