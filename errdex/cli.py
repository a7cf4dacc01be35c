"""The command line: ``python build.py [build|check|serve] …`` and the ``errdex`` script."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from itertools import groupby
from pathlib import Path

from . import __version__
from .build import Options, build, check
from .problems import BuildError, Problem, Severity


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="errdex",
        description="Build a static error-reference site from YAML error records.",
    )
    parser.add_argument("--version", action="version", version=f"errdex {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def content_options(cmd: argparse.ArgumentParser) -> None:
        cmd.add_argument(
            "--content", type=Path, default=Path("content"), help="content folder (content)"
        )
        cmd.add_argument("--strict", action="store_true", help="treat warnings as errors")

    def output_options(cmd: argparse.ArgumentParser) -> None:
        cmd.add_argument("--out", type=Path, default=Path("public"), help="output folder (public)")
        cmd.add_argument("--base-url", help="override the site config's base_url")

    cmd = commands.add_parser("build", help="build the site (the default command)")
    content_options(cmd)
    output_options(cmd)

    cmd = commands.add_parser(
        "check", help="validate and render without writing; say what a build would change"
    )
    content_options(cmd)
    cmd.add_argument("--out", type=Path, default=Path("public"), help="output to compare with")

    cmd = commands.add_parser("serve", help="build, then serve the site on localhost")
    content_options(cmd)
    # Served pages carry localhost URLs, so they go to their own folder, never into public/.
    cmd.add_argument(
        "--out", type=Path, default=Path(".errdex/serve"), help="output folder (.errdex/serve)"
    )
    cmd.add_argument("--port", type=int, default=8000, help="port (8000; 0 picks a free one)")
    cmd.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or (args[0].startswith("-") and args[0] not in ("-h", "--help", "--version")):
        args.insert(0, "build")
    ns = _parser().parse_args(args)
    try:
        if ns.command == "check":
            return _check(ns)
        if ns.command == "serve":
            from .serve import serve

            return serve(ns.out, ns.host, ns.port, lambda url: _build(ns, base_url=url))
        return _build(ns)
    except BuildError as exc:
        report(exc.problems)
        errors = sum(p.severity is Severity.ERROR for p in exc.problems)
        warned = len(exc.problems) - errors
        strict = " (--strict: warnings count as errors)" if ns.strict and warned else ""
        print(
            f"errdex: stopped with {errors} error(s) and {warned} warning(s){strict}; "
            "nothing was written",
            file=sys.stderr,
        )
        return 1


def _options(ns: argparse.Namespace, base_url: str | None = None) -> Options:
    return Options(
        content=ns.content,
        out=ns.out,
        base_url=base_url or getattr(ns, "base_url", None),
        strict=ns.strict,
    )


def _build(ns: argparse.Namespace, base_url: str | None = None) -> int:
    started = time.perf_counter()
    result = build(_options(ns, base_url))
    report(result.warnings)
    stats = result.stats
    assert stats is not None
    print(
        f"errdex: built {len(result.site.records)} error pages into {ns.out}/ "
        f"({stats.written} files written, {stats.unchanged} unchanged, {stats.removed} removed) "
        f"in {time.perf_counter() - started:.2f}s, {len(result.warnings)} warning(s)",
        file=sys.stderr,
    )
    return 0


def _check(ns: argparse.Namespace) -> int:
    result, changed, removed = check(_options(ns))
    report(result.warnings)
    for rel in changed:
        print(f"would write {ns.out / rel}")
    for rel in removed:
        print(f"would remove {ns.out / rel}")
    print(
        f"errdex: {len(result.site.records)} records are valid; a build would write "
        f"{len(changed)} and remove {len(removed)} file(s), {len(result.warnings)} warning(s)",
        file=sys.stderr,
    )
    return 0


def report(problems: list[Problem]) -> None:
    """Every problem as ``path:line: message``, grouped by file."""
    for _path, group in groupby(sorted(problems), key=lambda p: p.path):
        for problem in group:
            print(problem, file=sys.stderr)
