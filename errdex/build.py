"""The pipeline: load, validate, model, link, render, write.

Nothing is written until everything is loaded, validated and linked.

A full build reads every record, using every core for reading and for rendering, and
writes the site into a staging folder that is swapped in whole. It leaves a state in the
cache folder (``state.py``). The next build compares the record files with it: when only
the prose, code or fixes of some records changed (nothing another page shows of them), it
renders just their pages and JSON and replaces those files in place. Anything else
(a record added, removed or retitled, a template or the config edited) is a full build.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import pickle
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import state
from .files import record_stats, shown_path
from .problems import BuildError, Problem, Severity
from .theme import Theme, default_theme
from .write import (
    Staging,
    UnsafeOutput,
    WriteStats,
    changes,
    check_output,
    output_lock,
    update_in_place,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .link import Site
    from .model import Record
    from .render import Renderer

# Parsing, linking and rendering are imported where they are used: a build that finds
# nothing changed needs none of them (nor Jinja, Pygments or Markdown).


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


@dataclass(frozen=True, slots=True)
class Result:
    site: Site | None
    """The linked site; None when nothing changed (nothing was read)."""
    warnings: list[Problem]
    stats: WriteStats | None = None
    files: dict[str, bytes] | None = None
    """Every output file, from ``check`` (a build writes them instead)."""
    pages: int = 0
    """Error pages in the site."""
    rendered: int = 0
    """Error pages rendered by this build: all of them, or those whose records changed."""


Parsed = tuple[str, int, int, "Record | None", list[Problem]]
"""A record file, its change time (ns) and size, its record (None if it has errors), and
its problems."""


def _parse(items: list[tuple[str, int, int]]) -> list[Parsed]:
    from . import load, validate
    from .model import record_from

    parsed: list[Parsed] = []
    for path, mtime, size in items:
        doc, found = load.load_file(Path(path))
        record = None
        if doc is not None:
            found += validate.check_record(doc)
            if not any(p.severity is Severity.ERROR for p in found):
                record = record_from(doc)
        parsed.append((path, mtime, size, record, found))
    return parsed


PARALLEL_FROM = 400
"""Fewer records are read and rendered faster by one process than by starting more."""
CHUNK = 100


def _jobs(options: Options, count: int) -> int:
    if count < PARALLEL_FROM:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(options.jobs or cores or 1, 32))


def _pool(jobs: int) -> Any:
    import multiprocessing

    # Forked workers share the parent's loaded site and templates without copying them.
    return multiprocessing.get_context("fork").Pool(jobs)


def _parse_all(items: list[tuple[str, int, int]], jobs: int) -> list[Parsed]:
    if jobs < 2:
        return _parse(items)
    chunks = [items[i : i + CHUNK] for i in range(0, len(items), CHUNK)]
    with _pool(jobs) as pool:
        return [parsed for chunk in pool.map(_parse, chunks) for parsed in chunk]


def _config(options: Options) -> tuple[Any, list[Problem]]:
    from . import load, validate

    doc, problems = load.load_file(options.content / "site.yaml")
    if doc is not None:
        problems += validate.check_site(doc)
    return doc, problems


def _gather(options: Options, parallel: bool) -> tuple[Site, list[Problem], list[Parsed]]:
    from .link import link
    from .model import site_from

    config_doc, problems = _config(options)
    items, found = record_stats(options.content)
    problems += found
    parsed = _parse_all(items, _jobs(options, len(items)) if parallel else 1)
    for *_, found in parsed:
        problems += found
    if _failed(problems, options.strict) or config_doc is None:
        raise BuildError(sorted(problems))
    config = site_from(config_doc, options.base_url)
    site, linked = link(config, [p[3] for p in parsed if p[3] is not None])
    problems += linked
    if _failed(problems, options.strict):
        raise BuildError(sorted(problems))
    return site, sorted(problems), parsed


def gather(options: Options) -> tuple[Site, list[Problem]]:
    """Load, validate, model and link the content; raise BuildError if anything is wrong."""
    site, problems, _ = _gather(options, parallel=False)
    return site, problems


def _failed(problems: list[Problem], strict: bool) -> bool:
    return any(p.severity is Severity.ERROR or strict for p in problems)


def build(options: Options) -> Result:
    try:
        check_output(options.out, options.content)
    except UnsafeOutput as exc:
        raise BuildError(
            [Problem(str(options.out), 0, str(exc).split(": ", 1)[1], code="E500")]
        ) from exc
    key = _key(options)
    state_file = state.path_for(options.cache, options.out) if options.cache else None
    # Builds into one output take turns, from reading the state to recording what they
    # wrote, so neither works from a state the other is changing.
    with output_lock(options.out):
        previous = state.load(state_file, options.out) if state_file else None
        if previous is not None and previous.key == key:
            assert state_file is not None
            result = _incremental(options, previous, state_file)
            if result is not None:
                return result
        return _full(options, key, state_file, previous)


def _key(options: Options) -> str:
    """What shapes every page: the theme, the site config and the options."""
    theme = options.theme
    parts = [repr((options.base_url, options.strict)).encode()]
    for folder in (theme.templates, theme.static):
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                parts += [str(path.relative_to(folder)).encode(), path.read_bytes()]
    try:
        parts.append((options.content / "site.yaml").read_bytes())
    except OSError:
        parts.append(b"")
    return state.global_key(parts)


@contextlib.contextmanager
def _few_collections() -> Iterator[None]:
    """Python's cycle collector walks every object it tracks, again and again as a build
    makes hundreds of thousands of them, none of which form cycles that must go before
    the build ends. Collect rarely; what is loaded by then is frozen out of its walks
    (which also keeps forked workers from copying the pages it would touch)."""
    threshold = gc.get_threshold()
    gc.set_threshold(50_000, 50, 100)
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


def _full(
    options: Options, key: str, state_file: Path | None, previous: state.State | None
) -> Result:
    with _few_collections():
        return _full_build(options, key, state_file, previous)


def _full_build(
    options: Options, key: str, state_file: Path | None, previous: state.State | None
) -> Result:
    from . import highlight
    from .render import Renderer

    site, warnings, parsed = _gather(options, parallel=True)
    gc.freeze()
    jobs = _jobs(options, len(site.records))
    cache_warnings = _open_highlight_cache(options, read_all=True)
    if state_file:
        state.forget(state_file)
    renderer = Renderer(site, options.theme, cache=_templates_cache(options))
    staging = Staging(options.out, previous.outputs if previous else None)
    staging.open()
    try:
        outputs, written = _render(renderer, staging, jobs)
        removed = staging.commit(set(outputs))
    except BaseException:
        staging.abort()
        raise
    highlight.save_cache()
    highlight.close_cache()
    if state_file:
        state.save(state_file, _state_of(site, parsed, key, options.out, outputs, warnings))
    stats = WriteStats(written=written, unchanged=len(outputs) - written, removed=removed)
    count = len(site.records)
    return Result(site, warnings + cache_warnings, stats, pages=count, rendered=count)


_WORK: tuple[Renderer, Staging] | None = None
"""What forked render workers inherit from the parent."""


def _render_records(bounds: tuple[int, int]) -> tuple[dict[str, str], int, dict[str, str]]:
    from . import highlight

    assert _WORK is not None
    renderer, staging = _WORK
    outputs: dict[str, str] = {}
    written = 0
    for record in renderer.site.records[bounds[0] : bounds[1]]:
        for rel, data in renderer.record_files(record).items():
            outputs[rel], wrote = staging.put(rel, data)
            written += wrote
    return outputs, written, highlight.take_added()


def _render(renderer: Renderer, staging: Staging, jobs: int) -> tuple[dict[str, str], int]:
    """Render and stage every file; returns each file's digest and how many were written."""
    global _WORK
    from . import highlight

    records = renderer.site.records
    chunks = [(i, min(i + CHUNK, len(records))) for i in range(0, len(records), CHUNK)]
    bar = _progress(len(records))
    outputs: dict[str, str] = {}
    written = 0

    def take(result: tuple[dict[str, str], int, dict[str, str]], count: int) -> None:
        nonlocal written
        outputs.update(result[0])
        written += result[1]
        highlight.merge(result[2])
        bar(count)

    def stage_site_files() -> None:
        nonlocal written
        for rel, data in renderer.site_files().items():
            outputs[rel], wrote = staging.put(rel, data)
            written += wrote

    _WORK = (renderer, staging)
    try:
        if jobs < 2:
            for start, stop in chunks:
                take(_render_records((start, stop)), stop - start)
            stage_site_files()
        else:
            # Compiled once here, the templates and the Python lexer are every worker's.
            renderer.env.get_template("error.html")
            highlight.warm()
            with _pool(jobs) as pool:
                pending = [
                    (pool.apply_async(_render_records, (chunk,)), chunk[1] - chunk[0])
                    for chunk in chunks
                ]
                stage_site_files()  # the lists, indexes and search, while workers render
                for job, count in pending:
                    take(job.get(), count)
    finally:
        _WORK = None
    bar(0, done=True)
    return outputs, written


def _summary_digest(record: Record) -> str:
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


def _state_of(
    site: Site,
    parsed: list[Parsed],
    key: str,
    out: Path,
    outputs: dict[str, str],
    warnings: list[Problem],
) -> state.State:
    from .render import recent

    dump = pickle.HIGHEST_PROTOCOL
    return state.State(
        key=key,
        stamp=state.stamp(out),
        files={
            path: (mtime, size, _summary_digest(record))
            for path, mtime, size, record, _ in parsed
            if record is not None
        },
        ids={path: record.id for path, _, _, record, _ in parsed if record is not None},
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
            recent=tuple(r.id for r in recent(site)),
        ),
    )


def _site_around(records: list[Record], links: state.Links) -> tuple[Site, list[Record]]:
    """A site holding just what the pages of ``records`` show of the others: their related
    errors, backlinks and neighbours in the same file, as summaries."""
    from .link import RelatedLink, Site

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
    site = Site(
        config=links.config,
        records=(),
        by_id={},
        aliases={},
        related=related,
        by_repo={},
        by_exception={},
        by_file=by_file,
        # Pages of single errors only ask whether an option has a page.
        by_option={key: () for key in links.option_names},
        option_names=links.option_names,
        backlinks=backlinks,
    )
    return site, [get(i) for i in links.recent]


def _open_highlight_cache(options: Options, read_all: bool) -> list[Problem]:
    from . import highlight

    if options.cache is None:
        highlight.close_cache()
        return []
    where = options.cache / "highlight.sqlite"
    problem = highlight.open_cache(where, read_all)
    if problem is None:
        return []
    what = problem.split(": ", 1)[1]
    return [Problem(str(where), 0, what, Severity.WARNING, code="W501")]


def _templates_cache(options: Options) -> Path | None:
    if options.cache is None:
        return None
    folder = options.cache / "templates"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


INCREMENTAL_UP_TO = 200
"""More changed records than this are rendered faster by a full build on every core."""


def _incremental(options: Options, previous: state.State, state_file: Path) -> Result | None:
    """Render only the records whose files changed, if nothing else can show the change.
    None when a full build is needed."""
    items, found = record_stats(options.content)
    if found or len(items) != len(previous.files):
        return None
    changed = []
    for path, mtime, size in items:
        known = previous.files.get(path)
        if known is None:
            return None
        if known[:2] != (mtime, size):
            changed.append((path, mtime, size))
    if len(changed) > INCREMENTAL_UP_TO:
        return None
    if not changed:
        # Nothing to do, and the state stays true as it is.
        stats = WriteStats(written=0, unchanged=len(previous.outputs), removed=0)
        return Result(None, previous.warnings, stats, pages=len(previous.ids))
    parsed = _parse(changed)
    problems = [p for *_, found in parsed for p in found]
    shown = {shown_path(Path(p[0])) for p in parsed}
    kept = [p for p in previous.warnings if p.path not in shown]
    if any(p.severity is Severity.ERROR for p in problems):
        raise BuildError(sorted(kept + problems))
    records = []
    digests = {}
    for path, _, _, record, _ in parsed:
        assert record is not None
        digest = _summary_digest(record)
        if record.id != previous.ids.get(path) or digest != previous.files[path][2]:
            return None  # other pages show the change
        records.append(record)
        digests[path] = digest
    links = state.links(previous)
    if links is None:
        return None
    warnings = sorted(kept + problems + _relined(previous, records))
    if _failed(warnings, options.strict):
        raise BuildError(warnings)
    from . import highlight
    from .render import Renderer

    site, recently = _site_around(records, links)
    renderer = Renderer(site, options.theme, recently, _templates_cache(options))
    cache_warnings = _open_highlight_cache(options, read_all=False)
    files: dict[str, bytes] = {}
    for record in records:
        files.update(renderer.record_files(record))
    highlight.save_cache()
    highlight.close_cache()
    # Until they are written, what these files hold is unknown: a build stopped midway
    # leaves a state that has them written again.
    state.note(state_file, previous, {}, dict.fromkeys(files, ""))
    written, made = update_in_place(files, options.out)
    previous.warnings = warnings
    stats_now = {path: (mtime, size, digests[path]) for path, mtime, size, *_ in parsed}
    lines = {r.id: tuple(entry.line for entry in r.related) for r in records}
    state.note(state_file, previous, stats_now, made, lines)
    stats = WriteStats(written=written, unchanged=len(previous.outputs) - written, removed=0)
    result_warnings = sorted(warnings + cache_warnings)
    return Result(site, result_warnings, stats, pages=len(previous.ids), rendered=len(records))


def _relined(previous: state.State, records: list[Record]) -> list[Problem]:
    """The related-entry warnings of changed records, at the entries' new lines (what the
    entries resolve to cannot have changed, or the build would not be incremental)."""
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


def _progress(total: int) -> Callable[..., None]:
    """A progress bar for long builds on a terminal; nothing in CI logs or pipes."""
    if total < PROGRESS_FROM or not sys.stderr.isatty() or os.environ.get("CI"):
        return lambda count, done=False: None
    from tqdm import tqdm

    bar = tqdm(total=total, unit="page", leave=False, file=sys.stderr)

    def update(count: int, done: bool = False) -> None:
        bar.update(count)
        if done:
            bar.close()

    return update


PROGRESS_FROM = 300
"""Builds of fewer records finish before a bar would help."""


def check(options: Options) -> tuple[Result, list[str], list[str]]:
    """Everything a build does but the writing; also what a build would change in ``out``."""
    from .render import render_site

    site, warnings = gather(options)
    files = render_site(site, options.theme)
    changed, removed = changes(files, options.out)
    count = len(site.records)
    return Result(site, warnings, files=files, pages=count, rendered=count), changed, removed
