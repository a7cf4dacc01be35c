"""The pipeline: load, validate, model, link, render, write.

Nothing is written until everything is loaded, validated and linked.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from . import highlight, load, validate
from .link import Site, link
from .model import Record, record_from, site_from
from .problems import BuildError, Problem, Severity
from .render import Theme, default_theme, render_site
from .write import UnsafeOutput, WriteStats, changes, check_output, write_site


@dataclass(frozen=True, slots=True)
class Options:
    content: Path = Path("content")
    out: Path = Path("public")
    base_url: str | None = None
    """Overrides the site config's base_url."""
    strict: bool = False
    """Treat warnings as errors."""
    cache: Path | None = Path(".errdex/cache")
    """Where highlighted code is kept between builds; None for no cache."""
    theme: Theme = field(default_factory=default_theme)


@dataclass(frozen=True, slots=True)
class Result:
    site: Site
    files: dict[str, bytes]
    warnings: list[Problem]
    stats: WriteStats | None = None


def gather(options: Options) -> tuple[Site, list[Problem]]:
    """Load, validate, model and link the content; raise BuildError if anything is wrong."""
    problems: list[Problem] = []
    config_path = options.content / "site.yaml"
    config_doc, found = load.load_file(config_path)
    problems += found
    if config_doc is not None:
        problems += validate.check_site(config_doc)

    paths, found = load.record_files(options.content)
    problems += found
    docs = []
    for path in paths:
        doc, found = load.load_file(path)
        problems += found
        if doc is not None:
            checked = validate.check_record(doc)
            problems += checked
            if not any(p.severity is Severity.ERROR for p in found + checked):
                docs.append(doc)

    if _failed(problems, options.strict) or config_doc is None:
        raise BuildError(sorted(problems))
    config = site_from(config_doc, options.base_url)
    site, linked = link(config, [record_from(doc) for doc in docs])
    problems += linked
    if _failed(problems, options.strict):
        raise BuildError(sorted(problems))
    return site, sorted(problems)


def _failed(problems: list[Problem], strict: bool) -> bool:
    return any(p.severity is Severity.ERROR or strict for p in problems)


def build(options: Options) -> Result:
    try:
        check_output(options.out, options.content)
    except UnsafeOutput as exc:
        raise BuildError(
            [Problem(str(options.out), 0, str(exc).split(": ", 1)[1], code="E500")]
        ) from exc
    site, warnings = gather(options)
    cache_file = options.cache / "highlight.json" if options.cache else None
    if cache_file:
        problem = highlight.load_cache(cache_file)
        if problem:
            warnings.append(
                Problem(
                    str(cache_file), 0, problem.split(": ", 1)[1], Severity.WARNING, code="W501"
                )
            )
    files = render_site(site, options.theme, _progress(len(site.records)))
    stats = write_site(files, options.out)
    if cache_file:
        highlight.save_cache(cache_file)
    return Result(site, files, warnings, stats)


def _progress(total: int) -> Callable[[Iterable[Record]], Iterable[Record]]:
    """A progress bar for long builds on a terminal; nothing in CI logs or pipes."""
    if total < PROGRESS_FROM or not sys.stderr.isatty() or os.environ.get("CI"):
        return iter
    from tqdm import tqdm

    def bar(records: Iterable[Record]) -> Iterable[Record]:
        return tqdm(records, total=total, unit="page", leave=False, file=sys.stderr)

    return bar


PROGRESS_FROM = 300
"""Builds of fewer records finish before a bar would help."""


def check(options: Options) -> tuple[Result, list[str], list[str]]:
    """Everything a build does but the writing; also what a build would change in ``out``."""
    site, warnings = gather(options)
    files = render_site(site, options.theme)
    changed, removed = changes(files, options.out)
    return Result(site, files, warnings), changed, removed
