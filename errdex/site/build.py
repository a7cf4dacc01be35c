"""The pipeline: plan, then load, validate, model and link, then render and write.

Nothing is written until everything is loaded, validated and linked.

``plan.decide`` compares the content with what the last build into the same output left
in the cache folder, and chooses: a full build, an update of the few errors whose files
changed, or nothing; it says why. A full build reads every record and links them (a big
one reads on every core, and keeps only the records' summaries while the whole records
wait in files for the workers that render their pages, see ``_Stash``); an update has
read the records it renders. Then one path renders either: the pages of the
errors (on forked workers for a big site, see ``parallel``) and, in a full build, every
page that lists them (in an update that changed what lists show, those that show it),
into a writer. A full build's writer stages a new folder and swaps
it in whole; an update's replaces its few files in place; ``check``'s keeps them in
memory. Last, the state records what was done, for the next build's plan.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import pickle
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from errdex.records.files import record_stats, shown_path
from errdex.records.problems import BuildError, Problem, Severity, failed
from errdex.site import plan, state
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
from errdex.util.processes import alive

TYPE_CHECKING = False
if TYPE_CHECKING:
    from errdex.github.issues import Issue
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
    """Build the site into ``options.out``: decide what must be done again and why, read
    what that needs, render it, write it, and keep what was done for the next build."""
    require_output(options.out, options.content)
    key = plan.site_key(options)
    state_file = state.path_for(options.cache, options.out) if options.cache else None
    # Builds into one output take turns, from reading the state to recording what they
    # wrote, so neither works from a state the other is changing.
    with output_lock(options.out), _few_collections(), contextlib.ExitStack() as cleanup:
        if options.cache:
            state.sweep(options.cache)
            _Stash.sweep(options.cache)
        previous = state.load(state_file, options.out) if state_file else "no cache (--no-cache)"
        chosen = plan.decide(options, key, previous)
        if isinstance(chosen, plan.Partial):
            cleanup.callback(chosen.close)
        if options.verbose:
            print(f"errdex: {chosen}", file=sys.stderr)
        if isinstance(chosen, plan.UpToDate):
            if state_file and (chosen.restamped or chosen.previous.restored):
                # The same bytes under new times (a checkout, a restored cache): kept, so
                # the next build compares times again, not bytes.
                state.note(state_file, chosen.previous, chosen.restamped, {}, out=options.out)
            stats = WriteStats(written=0, unchanged=len(chosen.previous.outputs), removed=0)
            return Result(
                None,
                chosen.previous.warnings,
                stats,
                pages=len(chosen.previous.ids),
                base_url=chosen.previous.base_url,
            )

        try:
            work, stats, cache_warnings = _run(options, chosen, key, state_file)
        except _ListsChanged as exc:
            # Found only once the lists were rendered, before anything was written.
            chosen = plan.Full(str(exc), chosen.previous)
            if options.verbose:
                print(f"errdex: {chosen}", file=sys.stderr)
            work, stats, cache_warnings = _run(options, chosen, key, state_file)
    warnings = sorted(work.warnings + cache_warnings)
    return Result(
        work.site,
        warnings,
        stats,
        pages=work.pages,
        rendered=len(work.records),
        base_url=work.context.config.base_url,
        host=work.context.config.host,
        full=isinstance(chosen, plan.Full),
    )


def _run(
    options: Options,
    chosen: plan.Full | plan.Partial,
    key: dict[str, str],
    state_file: Path | None,
) -> tuple[_Work, WriteStats, list[Problem]]:
    """Read what ``chosen`` needs, render and write it, and keep what was done."""
    with _Stash(options.cache) as stash, contextlib.ExitStack() as cleanup:
        made: list[tuple[Highlighter, list[Problem], Renderer]] = []

        def prepare(warm: bool) -> None:
            """The highlighter and the compiled templates (with ``warm``, the lexers too,
            for the workers to share)."""
            highlighter, warnings = _highlighter(options, read_all=isinstance(chosen, plan.Full))
            cleanup.enter_context(contextlib.closing(highlighter))
            with _template_errors(options):
                renderer = _renderer(options, highlighter)
                if warm:
                    renderer.warm()
            made.append((highlighter, warnings, renderer))

        if isinstance(chosen, plan.Full):
            gc.enable()  # with the rare collections of ``_few_collections``
            # Made while other cores read the records, if they do.
            meanwhile = functools.partial(prepare, True)
            read = _read(options, True, stash, meanwhile=meanwhile, summaries=True)
            work = _Work.whole(*read, stash=stash)
        else:
            work = _Work.update(chosen)
        gc.freeze()
        if not made:
            prepare(False)
        highlighter, cache_warnings, renderer = made[0]
        with _template_errors(options):
            writer = _writer_for(chosen, options.out, state_file)
            stats, outputs = _render(renderer, work, writer, options.jobs, options.quiet)
        highlighter.save()
    if state_file:
        _remember(state_file, chosen, work, key, options.out, outputs, renderer.entries)
    return work, stats, cache_warnings


class _ListsChanged(Exception):
    """An update would add or remove files that list errors (search shards, say): only a
    full build removes files."""


def check(options: Options) -> tuple[Result, list[str], list[str]]:
    """Everything a build does but the writing; also what a build would change in ``out``."""
    from errdex.site.highlight import Highlighter
    from errdex.site.render import Renderer

    require_output(options.out, options.content)  # what a build refuses, check says so
    work = _Work.whole(*_read(options, parallel_read=False, summaries=True))
    writer = _Collect(options.out)
    with _template_errors(options):
        stats, _ = _render(Renderer(options.theme, Highlighter()), work, writer, 1, options.quiet)
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
    site, warnings, _ = _read(options, parallel_read)
    return site, warnings


# --- read ----------------------------------------------------------------------------


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
    site: Site | None = None
    parsed: list[plan.Parsed] = field(default_factory=list)
    """Every record file, in a full build."""
    relisted: plan.Partial | None = None
    """An update that renders the lists showing what changed (``plan.Partial.site``)."""
    stash: _Stash | None = None
    """Where the records are, whole, when ``records`` are their summaries."""

    @classmethod
    def whole(
        cls,
        site: Site,
        warnings: list[Problem],
        parsed: list[plan.Parsed],
        stash: _Stash | None = None,
    ) -> _Work:
        from errdex.site.render import ErrorContext

        context = ErrorContext.of(site)
        records: Sequence[Record] = site.records
        if stash is None or not stash.pieces:
            # The records as read, in the site's order (which may hold their summaries).
            stash = None
            whole = {item.record.id: item.record for item in parsed if item.record is not None}
            records = tuple(whole[record.id] for record in site.records)
        return cls(records, context, warnings, len(site.records), site, parsed, stash=stash)

    @classmethod
    def update(cls, update: plan.Partial) -> _Work:
        pages = len(update.previous.ids)
        return cls(update.records, update.context, update.warnings, pages, relisted=update)


class _Stash:
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
    ) -> tuple[bool, list[plan.Parsed]]:
        """``plan.parse`` of one piece of record files, in a worker: the records go to
        the folder, their summaries back to the build; or, if the piece cannot be
        written, the records themselves. Returns whether it was written, and them."""
        number, items = job
        parsed = plan.parse(content, items)
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

    def keep(self, number: int, parsed: list[plan.Parsed]) -> None:
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

    def __enter__(self) -> _Stash:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def _read(
    options: Options,
    parallel_read: bool,
    stash: _Stash | None = None,
    meanwhile: Callable[[], None] | None = None,
    summaries: bool = False,
) -> tuple[Site, list[Problem], list[plan.Parsed]]:
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
        with parallel.Tasks(functools.partial(plan.parse, options.content), jobs) as tasks:
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
    if failed(problems, options.strict) or config_doc is None:
        raise BuildError(sorted(problems))
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


def _reported(site: Site, reports: list[Issue], content: Path) -> tuple[Site, list[Problem]]:
    """The site, its config knowing which issues paste each record."""
    from errdex.github import issues

    def owner(record_id: str) -> str | None:
        record = site.by_id.get(record_id) or site.aliases.get(record_id)
        return record.id if record else None

    by_id, problems = issues.reported(reports, owner, content)
    return replace(site, config=replace(site.config, reported=by_id)), problems


def _config(options: Options) -> tuple[Any, list[Problem]]:
    from errdex.records import load, validate

    doc, problems = load.load_file(options.content / "site.yaml")
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
JS_BUDGET = 28 * 1024
"""What every page may load, uncompressed (errdex's own files are kept within it)."""


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


@contextlib.contextmanager
def _few_collections() -> Iterator[None]:
    """Python's cycle collector walks every object it tracks, again and again as a build
    makes hundreds of thousands of them, none of which form cycles that must go before
    the build ends. It does not run while the state is read and the plan made (which
    make what the build keeps), nor in an update (which makes little garbage, freed when
    it ends); a full build collects rarely (``_run``), and what it loaded by then is
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


# --- render --------------------------------------------------------------------------


def _highlighter(options: Options, read_all: bool) -> tuple[Highlighter, list[Problem]]:
    """The build's highlighter, on the cache file unless there is no cache; and a warning
    when that file was unreadable."""
    from errdex.site.highlight import Highlighter

    if options.cache is None:
        return Highlighter(), []
    where = options.cache / "highlight.sqlite"
    highlighter, problem = Highlighter.open(where, read_all)
    if problem is None:
        return highlighter, []
    return highlighter, [Problem(str(where), 0, problem, Severity.WARNING, code="W501")]


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
) -> tuple[WriteStats, dict[str, str]]:
    """Render every file of ``work`` into ``writer``, then commit it: the errors' files
    in chunks (on forked workers when ``jobs`` and the count allow, and the writer takes
    files from them), the site's own meanwhile in this process. Returns what was written,
    and each output file's digest."""
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
    try:
        with parallel.Tasks(render_chunk, jobs) as tasks:
            chunks = tasks.map(range(len(bounds) if stash is None else stash.pieces))

            def put(rel: str, data: bytes) -> None:
                nonlocal written
                outputs[rel], wrote = writer.put(rel, data)
                written += wrote

            if work.site is not None:
                renderer.site_files(work.site, put)  # each written as it is made
            elif work.relisted is not None and work.relisted.site is not None:
                for rel, data in _lists(renderer, work.relisted).items():
                    put(rel, data)
            for chunk in chunks:
                outputs.update(chunk.outputs)
                written += chunk.written
                highlighter.merge(chunk.highlighted)
                bar(chunk.count)
        bar(0, done=True)
        return writer.commit(outputs, written), outputs
    except BaseException:
        writer.abort()
        raise


def _lists(renderer: Renderer, update: plan.Partial) -> dict[str, bytes]:
    """The lists, indexes, search files and feed that show what an update changed."""
    from errdex.urls import first_page

    assert update.site is not None
    lists = update.lists
    kept = update.search_kept
    made = update.index_made.result() if update.index_made is not None else {}

    def wanted(rel: str) -> bool:
        if rel in made:
            return False
        # A long list's later pages show what its first does.
        return first_page(rel) in lists or (not kept and rel.startswith("search/"))

    files, names = renderer.some_site_files(
        update.site, wanted, update.entries, kept or tuple(sorted(made.keys() - {API_INDEX}))
    )
    if set(names) != update.listed:
        raise _ListsChanged("the files that list errors would change")
    return {**files, **made}


API_INDEX = "api/errors.json"


PROGRESS_FROM = 300
"""Builds of fewer records finish before a progress line would help."""


# --- write ---------------------------------------------------------------------------


def _writer_for(chosen: plan.Full | plan.Partial, out: Path, state_file: Path | None) -> _Writer:
    if isinstance(chosen, plan.Full):
        return _Swap(out, chosen.previous, state_file)
    return _InPlace(out, chosen.previous, state_file)


def _remember(
    state_file: Path,
    chosen: plan.Full | plan.Partial,
    work: _Work,
    key: dict[str, str],
    out: Path,
    outputs: dict[str, str],
    entries: list[Entry],
) -> None:
    """Keep what this build did for the next one's plan."""
    if isinstance(chosen, plan.Partial):
        plan.remember_update(state_file, chosen, outputs, out)
        return
    assert work.site is not None
    done = plan.full_state(
        work.site, work.parsed, key, chosen.reason, out, outputs, work.warnings, entries
    )
    state.save(state_file, done)


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
        if state_file:
            # Dropped before the output changes: a build stopped midway leaves none, and
            # the next build is a full one rather than one that trusts a stale state.
            state.forget(state_file)
        self.staging = Staging(out, previous.outputs if previous else None)
        self.staging.open()

    def put(self, rel: str, data: bytes) -> tuple[str, bool]:
        return self.staging.put(rel, data)

    def commit(self, outputs: dict[str, str], written: int) -> WriteStats:
        removed = self.staging.commit(set(outputs))
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
            state.note(self.state_file, self.previous, {}, dict.fromkeys(self.files, ""))
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
