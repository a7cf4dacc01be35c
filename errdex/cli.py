"""The command line: ``python build.py [build|check|serve] …`` and the ``errdex`` script."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Any

from errdex import __version__
from errdex.records.problems import BuildError, Problem, Severity
from errdex.util import words

TYPE_CHECKING = False
if TYPE_CHECKING:
    from errdex.site.build import Options
    from errdex.source.pin import Report

# The rest is imported by the commands that need it: a build with nothing to do starts
# without loading the renderer, Pygments or the search index.

DEFAULT_CACHE = Path(".errdex/cache")
"""The cache folder of every command that keeps one, unless ``--cache`` says otherwise."""

DOCS_URL = "https://github.com/errdex/errdex/blob/main/"
"""Where each command's ``--help`` sends for more: the repository's README and docs/,
which an installed errdex does not carry."""


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 up, not {text!r}")
    return int(text)


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"must be a port from 0 to 65535, not {text!r}")
    return int(text)


def _path(text: str) -> Path:
    # Path("") is the working folder: an empty --out or --cache is a slip, never a wish.
    if not text.strip():
        raise argparse.ArgumentTypeError("must name a folder, not be empty")
    return Path(text)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="errdex",
        description="Build a static error-reference site from YAML error records.\n\n"
        "Example: errdex build --content content --out public (errdex COMMAND --help "
        f"for each command)\nDocs: {DOCS_URL}docs/commands.md",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"errdex {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(
        under: argparse._SubParsersAction[argparse.ArgumentParser],
        name: str,
        summary: str,
        example: str,
        page: str,
    ) -> argparse.ArgumentParser:
        """A command whose ``--help`` opens with what it does in one line, an example and
        its docs page; ``summary`` is also its line in the list of commands."""
        made = under.add_parser(
            name,
            help=summary,
            description=f"{summary[0].upper()}{summary[1:]}.\n\nExample: {example}\n"
            f"Docs: {DOCS_URL}{page}",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        made.set_defaults(said_by=made)  # the deepest command's: ``main`` says its usage
        return made

    def talk_options(cmd: argparse.ArgumentParser, verbose: str | None = None) -> None:
        """``-q`` on every command; ``-v``, saying what ``verbose`` says, on some."""
        said = cmd.add_mutually_exclusive_group()
        said.add_argument(
            "-q", "--quiet", action="store_true", help="say nothing on standard error but errors"
        )
        if verbose:
            said.add_argument("-v", "--verbose", action="store_true", help=verbose)

    def json_option(cmd: argparse.ArgumentParser) -> None:
        cmd.add_argument(
            "--json",
            action="store_true",
            help="print one JSON object on standard output at the end: counts, problems, "
            "files (docs/commands.md#json-reports)",
        )

    def content_options(cmd: argparse.ArgumentParser) -> None:
        cmd.add_argument(
            "--content", type=_path, default=Path("content"), help="content folder (content)"
        )
        cmd.add_argument("--strict", action="store_true", help="treat warnings as errors")

    def output_options(cmd: argparse.ArgumentParser) -> None:
        cmd.add_argument("--out", type=_path, default=Path("public"), help="output folder (public)")
        cmd.add_argument("--base-url", help="override the site config's base_url")
        cmd.add_argument(
            "--cache",
            type=_path,
            default=DEFAULT_CACHE,
            help="keep highlighted code and the last build's state here (.errdex/cache)",
        )
        cmd.add_argument("--no-cache", action="store_true", help="use and write no cache")

    cmd = command(
        commands,
        "build",
        "validate the records and write the site into the output folder (the default command)",
        "errdex build --content content --out public",
        "docs/building.md",
    )
    content_options(cmd)
    output_options(cmd)
    cmd.add_argument(
        "--jobs",
        type=_positive,
        default=0,
        help="processes for a full build of many records (one per core)",
    )
    json_option(cmd)
    talk_options(cmd, verbose="say what the build redoes and why")

    cmd = command(
        commands,
        "check",
        "validate and render without writing; say what a build would change",
        "errdex check --strict --format github",
        "docs/commands.md#what-a-build-reports",
    )
    content_options(cmd)
    cmd.add_argument("--out", type=_path, default=Path("public"), help="output to compare with")
    cmd.add_argument(
        "--cache",
        type=_path,
        default=DEFAULT_CACHE,
        help="read the last build's state here, to say which pages would move (W405); "
        "nothing is written (.errdex/cache)",
    )
    cmd.add_argument("--no-cache", action="store_true", help="read no state")
    cmd.add_argument(
        "--format",
        choices=("text", "github"),
        default="text",
        help="github: also each problem as a GitHub Actions annotation on standard output, "
        "::error file=PATH,line=N::message (text)",
    )
    json_option(cmd)
    talk_options(cmd)

    cmd = command(
        commands,
        "lookup",
        "find the error page for a pasted message, traceback or log line",
        "errdex lookup --site public < traceback.txt",
        "docs/lookup-and-triage.md#lookup-from-the-command-line",
    )
    cmd.add_argument("text", nargs="?", default="-", help="the paste; - or nothing reads stdin")
    cmd.add_argument(
        "--site",
        help="a built site's folder or a published site's URL to read the search index of "
        "(default: public/ when it holds one, else the records of --content)",
    )
    cmd.add_argument(
        "--content",
        type=_path,
        help="read the records' YAML instead (content); with --site, only to tell whether "
        "the index is older than them",
    )
    cmd.add_argument("--strict", action="store_true", help="treat warnings as errors")
    cmd.add_argument("--json", action="store_true", help="print the matches as JSON")
    cmd.add_argument("--limit", type=_positive, default=5, help="matches to show at most (5)")
    cmd.add_argument(
        "--batch",
        action="store_true",
        help='read JSON Lines {"id": ..., "text": ...} on stdin; write one JSON result a line',
    )
    cmd.add_argument(
        "--cache",
        type=_path,
        default=DEFAULT_CACHE,
        help="keep files fetched from a --site URL here (.errdex/cache)",
    )
    cmd.add_argument("--no-cache", action="store_true", help="keep no fetched files")
    cmd.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        help="seconds each file of a --site URL may take in all; a lookup's files, 3 times it (10)",
    )
    talk_options(cmd)

    cmd = command(
        commands,
        "triage",
        "in a GitHub workflow: find the error pages a new issue pastes",
        "errdex triage --site https://errdex.github.io/errdex/ --mode summary",
        "docs/lookup-and-triage.md#triage-of-github-issues",
    )
    cmd.add_argument(
        "--event",
        type=_path,
        help="the event payload: an issues or issue_comment event ($GITHUB_EVENT_PATH)",
    )
    cmd.add_argument(
        "--event-name", help="the event's name ($GITHUB_EVENT_NAME, else told from the payload)"
    )
    cmd.add_argument(
        "--text",
        help="try it on an issue's text instead (a file, or - for standard input): print the "
        "comment it would post, or with --json the matches; exit 1 when none",
    )
    cmd.add_argument("--title", default="", help="with --text: the issue's title")
    cmd.add_argument("--json", action="store_true", help="with --text: print the matches as JSON")
    cmd.add_argument(
        "--site", required=True, help="the published site's URL (or a built site's folder)"
    )
    cmd.add_argument(
        "--mode",
        choices=("summary", "comment"),
        default="summary",
        help="summary: write the job summary and outputs only (the default); comment: also "
        "keep one comment on the issue (needs GITHUB_TOKEN)",
    )
    cmd.add_argument(
        "--min-confidence",
        type=float,
        default=0.9,
        help="least confidence of a match, 0 to 1 (0.9: a whole message)",
    )
    cmd.add_argument(
        "--min-own-text",
        type=int,
        default=16,
        help="least letters of the record's own message text the paste holds (16)",
    )
    cmd.add_argument("--limit", type=_positive, default=3, help="pages named at most (3)")
    cmd.add_argument(
        "--any-exception",
        action="store_true",
        help="match records of another exception type than the paste names",
    )
    cmd.add_argument("--label", help="add this label to an issue with matches (none)")
    cmd.add_argument(
        "--skip-label",
        default="errdex-skip",
        help="leave issues with this label alone (errdex-skip; '' for none)",
    )
    cmd.add_argument(
        "--id",
        help="this site's name among several errdex sites that triage one repository: "
        "its comment is marked <!-- errdex-triage:ID --> and only that one is kept (none)",
    )
    cmd.add_argument("--cache", type=_path, help="keep files fetched from --site here (none)")
    cmd.add_argument(
        "--timeout", type=float, default=10.0, help="seconds to wait for the site (10)"
    )
    cmd.add_argument(
        "--max-wait",
        type=float,
        default=60.0,
        help="seconds to wait out GitHub's rate limits and errors in all (60)",
    )
    talk_options(cmd)

    for name, help_text, example in (
        (
            "scan",
            "create records for every raise in a codebase; refresh their source facts",
            "errdex scan ../myproject --repo me/myproject --ref HEAD",
        ),
        (
            "pin",
            "re-pin every record of a repo to another commit: moved, reworded, removed",
            "errdex pin ../myproject --repo me/myproject --ref v1.1..v1.4",
        ),
    ):
        cmd = command(commands, name, help_text, example, "docs/scan-and-pin.md")
        cmd.add_argument("source", type=_path, help="a git checkout or a plain source tree")
        cmd.add_argument("--repo", required=True, help="the GitHub repository, owner/name")
        pinned = cmd.add_mutually_exclusive_group(required=True)
        pinned.add_argument("--commit", help="the commit to pin to (full sha preferred)")
        pinned.add_argument(
            "--ref",
            action="append",
            help="a branch or tag of the git checkout, resolved to its sha; a tag is a "
            "release"
            + (
                ". Give several (oldest first), or a range of tags A..B, to pin through "
                "each release in turn"
                if name == "pin"
                else ""
            ),
        )
        cmd.add_argument(
            "--release",
            help="the name of the release the commit is (a tag names its own release)",
        )
        cmd.add_argument(
            "--content", type=_path, default=Path("content"), help="content folder (content)"
        )
        cmd.add_argument("--dry-run", action="store_true", help="report, write nothing")
        cmd.add_argument(
            "--exclude",
            action="append",
            default=[],
            metavar="GLOB",
            help="look for no new raises in the files whose path matches GLOB ('*' "
            "matches across folders: 'tests/*'; give it again for more)"
            + (
                ": their records are left as they are"
                if name == "scan"
                else ": a record there is still re-pinned"
            ),
        )
        cmd.add_argument(
            "--cache",
            type=_path,
            help="keep what each source file gave here, for the next run (.errdex/cache)",
        )
        cmd.add_argument("--no-cache", action="store_true", help="parse every file, keep none")
        json_option(cmd)
        talk_options(cmd)

    cmd = command(
        commands,
        "init",
        "start a site folder of your own",
        "errdex init mysite --repo me/myproject",
        "README.md#your-own-site",
    )
    cmd.add_argument("folder", nargs="?", type=_path, default=Path("."), help="where (.)")
    cmd.add_argument("--title", help="the site's name (asked for on a terminal)")
    cmd.add_argument("--repo", help="your GitHub repository, owner/name (asked for)")
    cmd.add_argument("--base-url", help="where the site will be published (asked for)")
    cmd.add_argument(
        "--triage",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also write a workflow that links new issues to their error pages (asked for)",
    )
    cmd.add_argument(
        "--no-workflows",
        action="store_true",
        help="write no GitHub workflow (they go in the git repository's root .github/)",
    )
    talk_options(cmd)

    cmd = command(
        commands,
        "new",
        "scaffold a record from a message or a pasted traceback",
        "errdex new --repo me/myproject < traceback.txt",
        "docs/records.md#error-records",
    )
    cmd.add_argument("text", nargs="?", default="-", help="the message; - or nothing reads stdin")
    cmd.add_argument("--repo", required=True, help="the GitHub repository, owner/name")
    cmd.add_argument("--exception", help="the exception type, when the paste does not name it")
    cmd.add_argument(
        "--content", type=_path, default=Path("content"), help="content folder (content)"
    )
    talk_options(cmd)

    cmd = command(
        commands,
        "issues",
        "link GitHub issues to the errors they paste",
        "errdex issues import issues.json --repo me/myproject",
        "docs/issues.md",
    )
    issue_commands = cmd.add_subparsers(dest="issues_command", metavar="ACTION", required=True)
    cmd = command(
        issue_commands,
        "import",
        "read an export of a repo's issues and keep which errors each one pastes in "
        "content/issues/OWNER/NAME.json",
        "errdex issues import issues.json --repo me/myproject",
        "docs/issues.md",
    )
    cmd.add_argument(
        "file",
        type=_path,
        help="the export, a JSON list: gh issue list --state all --json number,title,body,"
        "state,url,createdAt,closedAt,labels > issues.json, or the REST API's; - reads stdin",
    )
    cmd.add_argument("--repo", required=True, help="the GitHub repository, owner/name")
    cmd.add_argument(
        "--content", type=_path, default=Path("content"), help="content folder (content)"
    )
    cmd.add_argument("--strict", action="store_true", help="treat warnings as errors")
    cmd.add_argument("--dry-run", action="store_true", help="report, write nothing")
    cmd.add_argument(
        "--jobs", type=_positive, default=0, help="processes matching issues (one per core)"
    )
    json_option(cmd)
    talk_options(cmd)

    cmd = command(
        commands,
        "draft",
        "draft the prose of records that have none with a language model, grounded "
        "in the code (pip install 'errdex[draft]')",
        "errdex draft --limit 20 --model gpt-4o-mini",
        "docs/drafts.md#analyses-for-every-error",
    )
    cmd.add_argument(
        "--content", type=_path, default=Path("content"), help="content folder (content)"
    )
    cmd.add_argument(
        "--base-url",
        default=os.environ.get("OPENAI_BASE_URL"),
        help="the API address of a server that speaks OpenAI's chat completions (OpenAI, "
        "vLLM, llama.cpp, Ollama, LiteLLM), e.g. http://127.0.0.1:8000/v1 "
        "($OPENAI_BASE_URL; OpenAI's when neither is set)",
    )
    cmd.add_argument(
        "--model",
        default=os.environ.get("ERRDEX_DRAFT_MODEL"),
        help="the model to ask ($ERRDEX_DRAFT_MODEL)",
    )
    cmd.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        help="the environment variable that holds the API key (OPENAI_API_KEY); the key "
        "is never written to a file, a log or a message",
    )
    cmd.add_argument("--only", nargs="+", default=(), metavar="ID", help="only these records")
    cmd.add_argument("--repo", help="only records of this repository, owner/name")
    cmd.add_argument("--exception", help="only records of this exception type")
    cmd.add_argument("--limit", type=_positive, help="draft at most this many records")
    cmd.add_argument(
        "--force",
        action="append",
        default=[],
        choices=("meaning", "when", "solutions", "example_fix"),
        help="draft this field even where a person wrote it (may be repeated)",
    )
    cmd.add_argument(
        "--stale",
        action="store_true",
        help="draft again only the unreviewed drafts whose message, code or condition changed",
    )
    cmd.add_argument(
        "--retry-refused", action="store_true", help="ask again where the last answer was refused"
    )
    cmd.add_argument(
        "--keep-rejected", type=_path, help="write the refused drafts and why to this JSON file"
    )
    cmd.add_argument(
        "--source", type=_path, help="the codebase (a git checkout, read at each record's commit)"
    )
    cmd.add_argument("--docs", type=_path, help="the project's docs (Markdown, rst or text)")
    cmd.add_argument("--jobs", type=_positive, default=4, help="requests in flight at once (4)")
    cmd.add_argument(
        "--budget", type=_positive, default=3000, help="tokens of evidence a prompt holds (3000)"
    )
    cmd.add_argument(
        "--timeout", type=float, default=120.0, help="seconds one request may take (120)"
    )
    cmd.add_argument(
        "--max-wait",
        type=float,
        default=300.0,
        help="seconds of waiting on rate limits and retries, for the whole run (300)",
    )
    cmd.add_argument(
        "--dry-run",
        action="store_true",
        help="send nothing: say how many records and about how many tokens",
    )
    cmd.add_argument(
        "--cache", type=_path, default=DEFAULT_CACHE, help="keep answers here (.errdex/cache)"
    )
    cmd.add_argument("--no-cache", action="store_true", help="keep no answers")
    cmd.add_argument("--strict", action="store_true", help="treat warnings as errors")
    talk_options(cmd, verbose="say what each prompt left out")

    cmd = command(
        commands,
        "review",
        "mark AI-assisted drafts as reviewed, show the next one, or reject one",
        "errdex review --next, then errdex review ID (or --reject ID)",
        "docs/drafts.md#analyses-for-every-error",
    )
    cmd.add_argument("ids", nargs="*", metavar="ID", help="the records to mark reviewed")
    cmd.add_argument(
        "--content", type=_path, default=Path("content"), help="content folder (content)"
    )
    cmd.add_argument(
        "--next", action="store_true", help="show the next unreviewed draft with its evidence"
    )
    cmd.add_argument(
        "--reject",
        action="store_true",
        help="remove the drafts of these records and keep them from being drafted again",
    )
    cmd.add_argument("--strict", action="store_true", help="treat warnings as errors")
    talk_options(cmd)

    cmd = command(
        commands,
        "serve",
        "build, then serve the site on localhost, rebuilding on every change",
        "errdex serve --port 8000",
        "docs/commands.md",
    )
    content_options(cmd)
    # Served pages carry localhost URLs, so they go to their own folder, never into public/.
    cmd.add_argument(
        "--out", type=_path, default=Path(".errdex/serve"), help="output folder (.errdex/serve)"
    )
    cmd.add_argument(
        "--cache", type=_path, default=DEFAULT_CACHE, help="cache folder (.errdex/cache)"
    )
    cmd.add_argument("--no-cache", action="store_true", help="use and write no cache")
    cmd.add_argument("--port", type=_port, default=8000, help="port (8000; 0 picks a free one)")
    cmd.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    cmd.add_argument(
        "--no-watch", action="store_true", help="serve only: no rebuilds, no live reload"
    )
    talk_options(cmd)
    return parser


def run() -> None:
    """The ``errdex`` command: ``main``, then out at once. Python's own exit frees every
    object one by one (0.07 s after an update of a 10,000-record site, 5% of it) and
    has nothing else left to do: every file is written and closed, every worker joined
    and every lock released when ``main`` returns. Under a profiler or a tracer, which
    write their findings at exit, it exits as Python does. Output read by a command that
    stops early (``| head``) ends it quietly, as other commands end."""
    try:
        code = main()
    except BrokenPipeError:
        os._exit(1)
    except KeyboardInterrupt:
        # Ctrl-C: a person is told so, not shown a traceback. (A full build swaps its
        # site in whole or not at all; the next build redoes what an update left.)
        print("errdex: stopped (Ctrl-C)", file=sys.stderr)
        os._exit(130)
    if sys.getprofile() is not None or sys.gettrace() is not None:
        sys.exit(code)  # a profiler, a debugger or coverage writes what it found at exit
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:  # None: closed when the command started (``>&-``)
                stream.flush()
        except (OSError, ValueError):  # a closed pipe (``| head``), or a closed stream
            code = code or 1
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or (args[0].startswith("-") and args[0] not in ("-h", "--help", "--version")):
        args.insert(0, "build")
    parser = _parser()
    ns, unknown = parser.parse_known_args(args)
    if unknown:
        # With the usage of the command they were given to, not errdex's own.
        getattr(ns, "said_by", parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    if getattr(ns, "json", False) and getattr(ns, "format", "text") == "github":
        parser.error("--json and --format github both write to standard output: give one")
    told = Told()
    try:
        code = _command(ns, told)
    except BuildError as exc:
        _stopped(exc, ns, writes=ns.command != "check")  # check never writes
        told.problems += exc.problems
        code = 1
    if getattr(ns, "json", False) and ns.command not in ("lookup", "triage"):  # their own
        print(told.dumps(ns, code))
    return code


def _command(ns: argparse.Namespace, told: Told) -> int:
    if ns.command == "check":
        return _check(ns, told)
    if ns.command == "lookup":
        return _lookup(ns)
    if ns.command == "triage":
        return _triage(ns)
    if ns.command in ("scan", "pin"):
        return _reconcile(ns, told)
    if ns.command == "new":
        return _new(ns)
    if ns.command == "init":
        return _init(ns)
    if ns.command == "issues":
        return _issues_import(ns, told)
    if ns.command == "serve":
        return _serve(ns)
    if ns.command == "draft":
        from errdex.source.drafting import draft_command

        return draft_command(ns)
    if ns.command == "review":
        from errdex.source.drafting import review_command

        return review_command(ns)
    return _build(ns, told)


@dataclass
class Told:
    """What a command did, for ``--json``: one object on standard output once it ends
    (docs/commands.md#json-reports). The lines for a person go to standard error as
    without it."""

    counts: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    more: dict[str, Any] = field(default_factory=dict)
    """The command's own keys: the files it wrote, what it skipped …"""

    def refuse(self, message: str) -> int:
        """Stop the command with ``errdex: message`` (a problem of no file): exit status 1."""
        print(f"errdex: {message}", file=sys.stderr)
        self.problems.append(Problem("", 0, message))
        return 1

    def dumps(self, ns: argparse.Namespace, code: int) -> str:
        from errdex.records.problems import as_json

        problems = sorted(set(self.problems))
        errors = sum(p.severity is Severity.ERROR for p in problems)
        document = {
            "command": " ".join(filter(None, (ns.command, getattr(ns, "issues_command", "")))),
            "exit": code,
            "counts": {**self.counts, "errors": errors, "warnings": len(problems) - errors},
            "problems": [as_json(p) for p in problems],
            **self.more,
        }
        return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False)


def _note(ns: argparse.Namespace, text: str) -> None:
    """A line for a person on standard error that is not an error: ``-q`` leaves it out."""
    if not ns.quiet:
        print(text, file=sys.stderr)


def _stopped(exc: BuildError, ns: argparse.Namespace, writes: bool = True) -> None:
    """Say why the input stopped the command: every problem, then how many (and, for a
    command that ``writes``, that it wrote nothing)."""
    report(exc.problems, ns)
    errors = sum(p.severity is Severity.ERROR for p in exc.problems)
    warned = len(exc.problems) - errors
    strict = " (--strict: warnings count as errors)" if ns.strict and warned else ""
    if exc.note:
        print(f"errdex: {exc.note}", file=sys.stderr)
    unwritten = "; nothing was written" if writes else ""
    print(
        f"errdex: stopped with {errors} error(s) and {warned} warning(s){strict}{unwritten}",
        file=sys.stderr,
    )


def _one_name(folder: Path) -> Path:
    """One name for a folder inside the working one however it is spelled (``content``,
    ``./content``, its absolute path, through a link to the working folder): the last
    build's state names record files so, and messages show them so. Any other keeps
    its spelling (``../content``), and so does one whose ``..`` would lead elsewhere
    once written away (after a link)."""
    from errdex.records.files import shown_path

    spelled = os.path.abspath(folder)
    head, name = os.path.split(spelled)
    # Where it really is first: ``here/content``, ``here`` a link to the working folder.
    for candidate in (os.path.join(os.path.realpath(head), name), spelled):
        inside = shown_path(Path(candidate))
        if not os.path.isabs(inside):
            try:
                if os.path.samefile(inside, folder):
                    return Path(inside)
            except OSError:
                pass  # missing: the build says so, as the user wrote it
    return folder


def _options(ns: argparse.Namespace, base_url: str | None = None) -> Options:
    from errdex.site.build import Options
    from errdex.site.theme import site_theme

    content = _one_name(ns.content)
    return Options(
        content=content,
        theme=site_theme(content),
        out=ns.out,
        base_url=base_url or getattr(ns, "base_url", None),
        strict=ns.strict,
        cache=None if getattr(ns, "no_cache", True) else ns.cache,
        # serve answers requests from threads meanwhile: it builds in its one process.
        jobs=getattr(ns, "jobs", 1),
        verbose=getattr(ns, "verbose", False),
        quiet=ns.quiet,
    )


def _base_url_ok(url: str | None, told: Told) -> bool:
    """Whether ``--base-url`` (when given) can be the site's address; says so when not."""
    if url is None:
        return True  # without importing urls: a build with nothing to do loads no YAML
    from errdex.urls import base_url_problem

    problem = base_url_problem(url)
    if problem:
        print(f"errdex: --base-url {url!r} {problem} [E205]; nothing was written", file=sys.stderr)
        told.problems.append(Problem("", 0, f"--base-url {url!r} {problem}", code="E205"))
    return problem is None


def _folders_ok(ns: argparse.Namespace, told: Told) -> bool:
    """Refuse, before any work, an output folder a build must not replace (E500, raised)
    and a cache folder it could not keep (said here, naming --cache)."""
    from errdex.site.write import UnsafeCache, check_cache, require_output

    require_output(ns.out, ns.content)
    if ns.no_cache:
        return True
    try:
        check_cache(ns.cache, ns.out, ns.content)
    except UnsafeCache as exc:
        told.refuse(f"{exc}; nothing was written")
        return False
    return True


def _build(ns: argparse.Namespace, told: Told) -> int:
    from errdex.site.build import build

    told.more["out"] = str(ns.out)
    if not _base_url_ok(ns.base_url, told) or not _folders_ok(ns, told):
        return 1
    from errdex.site import hosts

    started = time.perf_counter()
    result = build(_options(ns))
    # The site's size, measured once it is written whole: an update changes it little,
    # and walking every file of a big site would cost an edit a quarter of a second.
    host = hosts.HOSTS[result.host]
    size = hosts.usage(ns.out) if result.full else None
    warnings = list(result.warnings)
    if size is not None:
        warnings += hosts.problems(size, host, str(ns.content / "site.yaml"))
    report(warnings, ns, result.base_url)
    told.problems += warnings
    stats = result.stats
    assert stats is not None
    told.counts.update(
        records=result.pages,
        rendered=result.rendered,
        written=stats.written,
        unchanged=stats.unchanged,
        removed=stats.removed,
    )
    measured = ""
    if size is not None:
        told.counts.update(files=size.files, bytes=size.bytes)
        told.more.update(
            host=host.name, largest={"path": size.largest, "bytes": size.largest_bytes}
        )
        measured = f"; the site is {hosts.summary(size, host)}"
    rendered = "" if result.rendered == result.pages else f"{result.rendered} rendered, "
    _note(
        ns,
        f"errdex: built {words.count(result.pages, 'error page')} into {ns.out}/ ({rendered}"
        f"{stats.written} files written, {stats.unchanged} unchanged, {stats.removed} removed) "
        f"in {time.perf_counter() - started:.2f}s, {len(warnings)} warning(s){measured}",
    )
    return 0


def _issues_import(ns: argparse.Namespace, told: Told) -> int:
    from errdex.github import issues, reports
    from errdex.records.files import shown_path
    from errdex.search.sources import Unavailable, content_source
    from errdex.util import progress

    told.more.update(dry_run=ns.dry_run, files=[], skipped=[])
    if not _repo_ok(ns.repo, told):
        return 1
    try:
        raw = sys.stdin.buffer.read() if str(ns.file) == "-" else ns.file.read_bytes()
        data = json.loads(raw)
    except OSError as exc:
        return told.refuse(f"cannot read {ns.file}: {exc.strerror or exc}")
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        return told.refuse(f"{ns.file} is not a JSON export of issues: {exc}")
    exported, skipped = issues.from_export(data, ns.repo)
    if not exported and skipped:
        return told.refuse(f"{ns.file}: {skipped[0]}; nothing was written")
    source = content_source(ns.content, ns.strict)  # BuildError: said by main
    rules = reports.Rules()

    def match(title: str, body: str) -> list[str]:
        return [found.id for found in reports.found_in(source, body, rules, title)]

    matching = progress.line(len(exported), "matched", "issues", progress.AFTER, not ns.quiet)
    try:
        done = issues.import_issues(
            exported, ns.repo, ns.content, match, ns.jobs, ns.dry_run, skipped, matching
        )
    except Unavailable as exc:  # matching failed: nothing is written, no link is lost
        return told.refuse(f"{exc}; nothing was written")
    for line in done.skipped:
        _note(ns, f"errdex: {ns.file}: skipped {line}")
    told.counts.update(
        read=done.read,
        linked=done.linked,
        links=done.links,
        new=done.new,
        kept=done.kept,
        skipped=len(done.skipped),
        files=1,
    )
    told.more.update(files=[shown_path(done.path)], skipped=done.skipped)
    verb = "would write" if ns.dry_run else "wrote"
    _note(
        ns,
        f"errdex: {done.read} issue(s) read, {done.linked} paste an error a record explains "
        f"({done.links} link(s)); {done.new} new, {done.kept} kept from before; "
        f"{verb} {done.path}",
    )
    return 0


def _new(ns: argparse.Namespace) -> int:
    import datetime

    from errdex.records.files import shown_path
    from errdex.records.model import derive_id
    from errdex.source import new, update

    if not _repo_ok(ns.repo, Told()):
        return 1
    try:
        paste = sys.stdin.read() if ns.text == "-" else ns.text
    except UnicodeDecodeError:
        print("errdex: standard input is not UTF-8 text; nothing was written", file=sys.stderr)
        return 1
    if not paste.strip():
        print("errdex: give a message, or paste a traceback on standard input", file=sys.stderr)
        return 1
    try:
        item = new.draft(paste, ns.exception)
        record_id = derive_id(ns.repo, item.exception, item.template)
        # Only the fields that make an id are needed: a scaffold not yet filled in counts.
        existing, _ = update.existing_records(ns.content, ns.repo, need_source=False)
        same = next((r for r in existing if r.id == record_id), None)
        same = same or new.already_recorded(item, existing)
        if same:
            print(f"errdex: {shown_path(same.path)} already has this error", file=sys.stderr)
            return 1
        clash = new.spelling_clash(ns.content, ns.repo, item.exception, existing)
        if clash:
            print(f"errdex: cannot make a record: {clash}; nothing was written", file=sys.stderr)
            return 1
        path = new.write_new(ns.content, ns.repo, item, datetime.date.today())
    except new.Refused as exc:
        print(f"errdex: cannot make a record: {exc}; nothing was written", file=sys.stderr)
        return 1
    except FileExistsError as exc:
        print(f"errdex: {exc.filename} exists; nothing was written", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"errdex: cannot write {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 1
    print(path)
    _note(ns, f"errdex: wrote {shown_path(path)}: {item.exception}: {item.template}")
    if item.unnamed:
        _note(
            ns,
            "errdex: the paste names no exception class: wrote Exception; replace it with "
            "the class the code raises, or give it with --exception",
        )
    for name, value in item.guessed:
        if item.from_raise:
            _note(ns, f"errdex: placeholder {{{name}}} as the pasted raise names it, was {value!r}")
        else:
            _note(ns, f"errdex: guessed placeholder {{{name}}} from {value!r}; confirm it")
    return 0


def _init(ns: argparse.Namespace) -> int:
    from errdex.site.init import (
        InitError,
        cd_argument,
        defaults,
        init,
        readable,
        written_setting,
    )

    def ask(question: str, default: str) -> str:
        try:
            return input(f"{question} [{default}]: ").strip()
        except EOFError:
            return ""

    asking = ask if sys.stdin.isatty() and sys.stdout.isatty() else None
    try:
        done = init(
            ns.folder,
            ns.title,
            ns.base_url,
            ns.repo,
            asking,
            triage=ns.triage,
            workflows_too=not ns.no_workflows,
        )
    except InitError as exc:
        print(f"errdex: {readable(str(exc))}", file=sys.stderr)
        return 1
    except OSError as exc:
        where = readable(str(exc.filename))
        print(f"errdex: cannot write {where}: {exc.strerror}", file=sys.stderr)
        return 1
    for what, path in done:
        print(f"{what} {readable(str(path))}" + (" (already there)" if what == "kept" else ""))
    if ns.repo is None and asking is None:
        # Nobody was asked: the repository (and the address made from it) is a guess.
        guessed = defaults(ns.folder)
        said = f"repository: {guessed['repo']} is a placeholder"
        if ns.base_url is None:
            said = f"repository: {guessed['repo']} and base_url: {guessed['base_url']} are "
            said += "placeholders"
        site = readable(str(ns.folder / "content" / "site.yaml"))
        _note(
            ns,
            f"errdex: in {site}, {said}: put your own there ('Report an issue' links "
            "and the site's address come from them)",
        )
    elif asking is None and (ns.title is None or ns.base_url is None):
        # The repository was given; what was made from it and the folder's name was not.
        made = [
            f"{key}: {written_setting(ns.folder, key)} ({why})"
            for key, given, why in (
                ("title", ns.title, "from the folder's name"),
                ("base_url", ns.base_url, f"the GitHub Pages address of {ns.repo}"),
            )
            if given is None
        ]
        site = readable(str(ns.folder / "content" / "site.yaml"))
        _note(ns, f"errdex: in {site}, {' and '.join(made)}: change them there if they are not so")
    where = "" if ns.folder.resolve() == Path.cwd() else f"cd {cd_argument(str(ns.folder))} && "
    repo = ns.repo or "OWNER/NAME"
    if ns.repo is None and asking is not None:  # the repository typed at init's question
        repo = written_setting(ns.folder, "repository") or repo
    if any((ns.folder / "content" / "errors").glob("**/*.yaml")):
        _note(ns, f"Next: {where}errdex serve (the records there are built as they are)")
        return 0
    _note(
        ns,
        f"Next: {where}errdex scan PROJECT --repo {repo} --ref HEAD (a plain tree, not a git "
        "checkout: --commit SHA), then errdex serve",
    )
    return 0


def _site_kept(out: Path) -> bool:
    """Whether serve has a site to go on serving when a build fails: none before the
    first build of its folder succeeds."""
    from errdex.site.write import read_marker

    return read_marker(out) is not None


def _serve(ns: argparse.Namespace) -> int:
    from errdex.site import state
    from errdex.site.serve import serve
    from errdex.site.theme import site_theme

    store: state.Store = {}  # the links read by one build, for the next

    def build_for(url: str, changed: list[str]) -> list[str]:
        """Build for ``url``; say what was redone, why (the planner's word) and how fast."""
        import dataclasses

        from errdex.site.build import build

        try:
            if not _folders_ok(ns, Told()):
                return ["the build was refused; its reason is in serve's terminal"]
            started = time.perf_counter()
            options = dataclasses.replace(_options(ns, url), verbose=not ns.quiet, store=store)
            result = build(options)
            report(result.warnings, ns, result.base_url)
            stats = result.stats
            counts = (stats.written, stats.unchanged, stats.removed) if stats else None
            seconds = time.perf_counter() - started
            said = _rebuilt(result.rendered, result.pages, counts, changed, seconds)
            _note(ns, f"{said}, {len(result.warnings)} warning(s)")
            if not store and options.cache is not None:
                # Nothing to do on a site built before: what the first edit reads of the
                # state (every summary and search entry) is read now, before one is made.
                found = state.load(state.path_for(options.cache, options.out), options.out)
                links = state.links(found, store) if isinstance(found, state.State) else None
                if links is not None:
                    state.all_stored(links)
                    state.entries_of(links)
        except BuildError as exc:
            kept = _site_kept(ns.out)
            # The codes' pages as served here, when a site is; else as published.
            report(exc.problems, ns, url if kept else None)
            said = "not rebuilt; the last good one is served" if kept else "not built"
            print(f"errdex: the site was {said}", file=sys.stderr)
            return [str(p) for p in sorted(exc.problems)]
        except OSError as exc:  # a full disk, a folder taken away: serving goes on
            said = "the last good site is served" if _site_kept(ns.out) else "no site was built"
            print(f"errdex: the build failed: {exc}; {said}", file=sys.stderr)
            return [f"the build failed: {exc}"]
        return []

    if not ns.no_watch and not _watcher_installed():
        print(
            "errdex: serve watches for edits with watchfiles, which is not installed: "
            "pip install 'errdex[serve]' (or serve without rebuilds: errdex serve --no-watch)",
            file=sys.stderr,
        )
        return 1
    # Checked before listening: a refused folder is never served.
    if not _folders_ok(ns, Told()):
        return 1

    theme = site_theme(ns.content)
    site = ns.content.resolve().parent
    # The site's own templates/ and static/ too, even before they exist.
    watched = (
        []
        if ns.no_watch
        else list(
            dict.fromkeys([ns.content, *theme.folders(), site / "templates", site / "static"])
        )
    )
    return serve(ns.out, ns.host, ns.port, build_for, watched, ns.quiet)


def _watcher_installed() -> bool:
    """Whether serve's watch can run: watchfiles is the ``serve`` extra, not a dependency."""
    import importlib.util

    return importlib.util.find_spec("watchfiles") is not None


def _rebuilt(
    rendered: int,
    pages: int,
    files: tuple[int, int, int] | None,
    changed: list[str],
    seconds: float,
) -> str:
    """serve's line after a build: ``errdex: rebuilt in 0.31s: 1 of 42 error pages
    re-rendered (changed: r1.yaml); 3 files written, …`` (the first build says ``built``).
    The planner's line before it says why (``errdex: update: 1 record changed``)."""
    done, again = ("rebuilt", "re-rendered") if changed else ("built", "rendered")
    records = [name for name in changed if name.endswith((".yaml", ".yml"))]
    cause = f" (changed: {words.listed(records)})" if records else ""
    if changed and not rendered and (files is None or (files[0], files[2]) == (0, 0)):
        # The planner said "nothing changed": a file saved as it was, or put back.
        saved = f" (saved: {words.listed(records)})" if records else ""
        return f"errdex: checked in {seconds:.2f}s: the site is as it was{saved}"
    written = ""
    if files is not None:
        written = f"; {files[0]} files written, {files[1]} unchanged, {files[2]} removed"
    plural = "s" if pages != 1 else ""
    shown = f"{rendered} of {pages} error page{plural} {again}{cause}{written}"
    return f"errdex: {done} in {seconds:.2f}s: {shown}"


CHECK_SHOWN = 20
"""Files ``check`` names of each kind (written, removed); a new site of 10,000 records
would write 31,000."""


def _check(ns: argparse.Namespace, told: Told) -> int:
    from errdex.site.build import check
    from errdex.util.words import count

    told.more.update(out=str(ns.out), would_write=[], would_remove=[])
    result, changed, removed = check(_options(ns))
    report(result.warnings, ns, result.base_url)
    told.problems += result.warnings
    told.counts.update(records=result.pages, would_write=len(changed), would_remove=len(removed))
    told.more.update(
        would_write=[str(ns.out / rel) for rel in changed],
        would_remove=[str(ns.out / rel) for rel in removed],
    )
    if not ns.json:
        for verb, rels in (("write", changed), ("remove", removed)):
            shown = rels if len(rels) <= CHECK_SHOWN + 1 else rels[:CHECK_SHOWN]
            for rel in shown:
                print(f"would {verb} {ns.out / rel}")
            if len(rels) > len(shown):
                print(f"… and {len(rels) - len(shown)} more to {verb} (--json lists each)")
    _note(
        ns,
        f"errdex: {count(result.pages, 'record')} {'is' if result.pages == 1 else 'are'} valid; "
        "a build would write "
        f"{len(changed)} and remove {len(removed)} file(s), {len(result.warnings)} warning(s)",
    )
    return 0


def _repo_ok(repo: str, told: Told) -> bool:
    """Whether ``--repo`` is owner/name; says so when it is not."""
    from errdex.records.schema import REPO_PATTERN

    if re.fullmatch(REPO_PATTERN, repo):
        return True
    told.refuse(f"--repo must be owner/name, not {repo!r}")
    return False


def _reconcile(ns: argparse.Namespace, told: Told) -> int:
    from errdex.source import pin, scan, update

    told.more.update(
        dry_run=ns.dry_run, files=[], skipped=[], changes=[], steps=[], not_recorded=[]
    )
    if not _repo_ok(ns.repo, told):
        return 1
    too_long = update.repo_problem(ns.repo)
    if too_long:
        # Every record written would fail the build, or not be written at all.
        return told.refuse(f"--repo: {too_long}")
    try:
        git = scan.Tree.is_git(ns.source)
        steps = _releases(ns, git, told)
        if git and ns.ref and not scan.has_remote(Path(ns.source), ns.repo):
            # An unpacked release made a repository here: its commit is on no GitHub, and
            # every "View on GitHub" link of the site would 404.
            _note(
                ns,
                f"errdex {ns.command}: {ns.source} has no remote of github.com/{ns.repo} "
                "(git remote -v): unless its commits are there, the pages' links to the "
                f"code will not open; scan a clone of github.com/{ns.repo}, or give "
                "--commit with the commit there this tree was made from",
            )
        wheel = None if git else next(Path(ns.source).glob("*.dist-info"), None)
        if wheel is not None:
            # A wheel holds the package without the repository's layout (``src/``, say):
            # paths from it may name no file on GitHub, and "View on GitHub" would 404.
            _note(
                ns,
                f"errdex {ns.command}: {ns.source} holds {wheel.name}, an installed package: "
                "paths are written from there, and may not be the repository's (src/…); "
                "scan a checkout of the repository, or its sdist, for links that work",
            )
        for n, (commit, release) in enumerate(steps):
            earlier = [r for _c, r in steps[:n] if r]
            refused = release and pin.release_problem(
                ns.content, ns.repo, release, commit, ns.source if git else None, earlier
            )
            if refused:
                raise scan.SourceError(refused)
            if release and not (ns.content / "site.yaml").is_file():
                from errdex.site.read import init_hint

                raise scan.SourceError(
                    f"{ns.content / 'site.yaml'}: missing; a release is listed there: "
                    f"{init_hint(ns.content)}"
                )
    except scan.SourceError as exc:
        return told.refuse(str(exc))
    from errdex.site.write import UnsafeCache, check_cache

    kept = None if ns.no_cache else (ns.cache or DEFAULT_CACHE)
    if kept is not None and ns.dry_run:
        kept = kept if kept.is_dir() else None  # read when there, never made
    elif kept is not None:
        try:
            check_cache(kept, None, ns.content)
        except UnsafeCache as exc:
            if ns.cache is not None:
                return told.refuse(f"{exc}; nothing was written")
            # The default one (run from inside the content folder, say): parse every file.
            _note(ns, f"errdex: parsed files are not kept: {exc}")
            kept = None
    with scan.parses_kept(kept, save=not ns.dry_run):
        return _reconciled(ns, steps, git, told)


def _globs(given: list[str]) -> list[str]:
    """``--exclude`` globs as paths from the source's root are written: no leading ``./``,
    and a folder (``tests/``) for all below it."""
    out = []
    for glob in given:
        while glob.startswith("./"):
            glob = glob[2:]
        out.append(glob + "*" if glob.endswith("/") else glob)
    return out


def _reconciled(
    ns: argparse.Namespace, steps: list[tuple[str, str | None]], git: bool, told: Told
) -> int:
    """``_reconcile`` once its arguments and the source tree are found good."""
    from errdex.source import pin, scan
    from errdex.util import progress

    # Several releases: the records stay in memory from one to the next (and the files
    # parsed, by blob), and each record file is written once at the end.
    walk = pin.Walk() if ns.command == "pin" and len(steps) > 1 else None
    recorded: list[tuple[str, str, str | None]] = []
    cache: dict[str, scan.Scanned | str] = walk.cache if walk else {}

    def parsing(total: int) -> progress.Progress:
        return progress.line(total, "parsed", "files", progress.AFTER, shown=not ns.quiet)

    for commit, release in steps:
        started = time.perf_counter()
        try:
            tree = scan.Tree(ns.source, commit if git else None, _globs(ns.exclude))
            if ns.command == "scan":
                report = pin.scan_into(
                    ns.content, ns.repo, tree, commit, ns.dry_run, release, cache, parsing
                )
            else:
                report = pin.pin(
                    ns.content, ns.repo, tree, commit, ns.dry_run, release, cache, walk, parsing
                )
        except scan.SourceError as exc:
            return told.refuse(str(exc))
        if release:
            date = scan.commit_date(ns.source, commit) if git else None
            if walk is not None:
                recorded.append((release, commit, date))  # once the records are written
            else:
                refused = pin.record_release(ns.content, ns.repo, release, commit, date, ns.dry_run)
                if refused:
                    report.skipped.append(refused)
        _reported(ns, told, report)
        scanned = ("new", "refreshed", "unchanged", "no longer found")
        kinds = (
            ((*scanned, "excluded") if ns.exclude else scanned)
            if ns.command == "scan"
            else (
                "unchanged",
                "moved",
                "reworded",
                "removed",
                "still removed",
                *(("renamed", "new") if release else ()),
                "back",
            )
        )
        summary = ", ".join(f"{report.counts[k]} {k}" for k in kinds)
        would = " (dry run: nothing written)" if ns.dry_run else ""
        at = f" (release {release})" if release else ""
        _note(
            ns,
            f"errdex {ns.command}: {summary}; {len(report.skipped)} skipped, "
            f"{time.perf_counter() - started:.1f}s{would}{at}",
        )
        for glob in tree.unmatched():
            _note(ns, f"errdex {ns.command}: --exclude {glob!r} matches no Python file")
        if report.in_tests:
            globs = report.test_globs
            shown = " ".join(f"--exclude '{glob}'" for glob in globs[:4])
            _note(
                ns,
                f"errdex scan: {words.count(report.in_tests, 'raise')} found in tests; "
                f"{shown}{' …' if len(globs) > 4 else ''} would leave them out",
            )
        told.more["not_recorded"] += report.unread
        if report.unread:
            more = len(report.unread) > 3
            places = ", ".join(report.unread[:3]) + (", …; --json lists each" if more else "")
            _note(
                ns,
                f"errdex scan: {words.count(len(report.unread), 'raise')} not recorded, no "
                f"message errdex can read in them: a parameter's, or one built in a way scan "
                f"does not follow ({places})",
            )
        counts = {_key(k): report.counts[k] for k in kinds}
        told.more["steps"].append({"commit": commit, "release": release, "counts": counts})
        for key, count in counts.items():
            told.counts[key] = told.counts.get(key, 0) + count
    if walk is not None:
        started = time.perf_counter()
        report = pin.Report()
        walk.finish(report, ns.dry_run)
        for release, commit, date in recorded:
            refused = pin.record_release(ns.content, ns.repo, release, commit, date, ns.dry_run)
            if refused:
                report.skipped.append(refused)
        _reported(ns, told, report)
        done = "checked" if ns.dry_run else "written"
        _note(
            ns,
            f"errdex pin: {len(walk.written)} record files {done} once for all "
            f"{len(steps)} commits, {time.perf_counter() - started:.1f}s",
        )
    if ns.command == "scan" and not ns.dry_run and not (ns.content / "site.yaml").exists():
        from errdex.records.files import shown_path
        from errdex.site.read import init_hint

        _note(
            ns,
            f"errdex {ns.command}: {shown_path(ns.content)} has no site.yaml yet, which "
            f"errdex build needs: {init_hint(ns.content)}",
        )
    told.counts["skipped"] = len(told.more["skipped"])
    told.counts["files"] = len(told.more["files"])
    return 0


def _reported(ns: argparse.Namespace, told: Told, report: Report) -> None:
    """What a scan or a pin skipped, on standard error, and what it changed: on standard
    output, or with ``--json`` kept for the end."""
    from errdex.records.files import shown_path

    for line in report.skipped:
        _note(ns, f"skipped: {line}")
    told.more["skipped"] += report.skipped
    told.more["files"] = sorted({*told.more["files"], *map(shown_path, report.files)})
    if not ns.json:
        for line in report.lines:
            print(line)
    for line in report.lines:
        kind, what = line.split(": ", 1)
        told.more["changes"].append({"kind": _key(kind), "what": what})


def _key(kind: str) -> str:
    """A kind of change as a JSON key: ``no longer found`` → ``no_longer_found``."""
    return kind.replace(" ", "_")


def _releases(ns: argparse.Namespace, git: bool, told: Told) -> list[tuple[str, str | None]]:
    """The commits to pin to, in order, each with the release it is (None for a commit
    or branch that is not one): tags name their releases, ``--release`` names one.

    A tag is read by its full name (``refs/tags/NAME``), so a branch of the same name
    is never taken for it. A tag of a range that cannot be a release (its name cannot
    name a page, or it names no commit) is skipped, and said so with why; one given by
    name is refused."""
    from errdex.source import scan

    refs: list[str] = ns.ref or []
    if refs and not git:
        raise scan.SourceError(
            f"{ns.source}: --ref needs a git checkout; give --commit with the full sha of "
            "the commit this tree was made from (a release's tag names it on its forge)"
        )
    if ns.command == "scan" and len(refs) > 1:
        raise scan.SourceError("scan reads one commit: give one --ref, then pin the others")
    if ns.release and len(refs) > 1:
        raise scan.SourceError("--release names one commit: give one --ref or --commit")
    if ns.release is not None:
        why = _release_name_problem(ns.repo, ns.release)
        if why:
            raise scan.SourceError(f"--release {ns.release!r}: {why}")
    steps: list[tuple[str, str | None]] = []
    if not refs:
        commit = ns.commit
        if git:
            try:
                commit = scan.resolve_commit(ns.source, ns.commit)
            except scan.SourceError:
                raise scan.SourceError(f"{ns.source}: no commit {ns.commit!r} there") from None
        if not re.fullmatch(r"[0-9a-f]{7,40}", commit or ""):
            # A tag's name given for a plain tree (a release unpacked from PyPI, say).
            how = (
                ""
                if git
                else (
                    " (a plain tree has no git history to read a name or a tag in: give the "
                    "full sha of the commit it was made from, or scan a git checkout with --ref)"
                )
            )
            raise scan.SourceError(
                f"--commit must be 7 to 40 lowercase hex digits: {commit!r}{how}"
            )
        return [(commit, ns.release)]
    tags = scan.tags(ns.source)
    for ref in refs:
        ranged = ".." in ref
        if ranged:
            found, skipped = scan.tag_range(ns.source, tags, ref)
            for name, why in skipped:
                _skipped_tag(ns, told, f"tag {name!r}: it {why}")
            named: list[tuple[str, scan.Tag | None]] = [(t.name, t) for t in found]
        else:
            named = [(ref, tags.get(ref))]
        for name, tag in named:
            if tag is not None and tag.commit is None:
                raise scan.SourceError(f"tag {name!r} {tag.no_commit}")
            commit = tag.commit if tag is not None else scan.resolve_commit(ns.source, name)
            release = ns.release or (name if tag is not None else None)
            why = None if ns.release or release is None else _release_name_problem(ns.repo, release)
            if why:
                if ranged:
                    _skipped_tag(ns, told, f"tag {release!r}: {why}")
                    continue
                raise scan.SourceError(f"tag {release!r}: {why}")
            assert commit
            if (
                steps
                and scan.is_ancestor(ns.source, commit, steps[-1][0])
                and commit != steps[-1][0]
            ):
                raise scan.SourceError(
                    f"{name} comes before the commit given ahead of it: give releases oldest first"
                )
            steps.append((commit, release))
    given = [r for _c, r in steps if r]
    if len(set(given)) != len(given):
        raise scan.SourceError("a release is given twice")
    return steps


def _skipped_tag(ns: argparse.Namespace, told: Told, why: str) -> None:
    _note(ns, f"errdex: skipped {why}")
    told.more["skipped"].append(why)


def _release_name_problem(repo: str, name: str) -> str | None:
    """Why ``name`` cannot name a release page of ``repo``, or None."""
    from errdex.records.schema import RELEASE_PATTERN
    from errdex.source import pin

    if not re.fullmatch(RELEASE_PATTERN, name):
        return (
            "it cannot name a release page: a release name is at most 100 letters, digits, "
            "'.', '-', '_' and '+', starting with a letter or digit"
        )
    return pin.release_name_problem(repo, name)


def _lookup(ns: argparse.Namespace) -> int:
    """Exit status: 0 a page matches, 1 none does, 2 a usage error, 3 the index, site or
    records cannot be read (``sources.FOUND`` …, docs/exit-codes.md)."""
    from errdex.records.model import display_of
    from errdex.search import PASTE_LIMIT
    from errdex.search import sources as finder

    if not 0 < ns.timeout <= 3600:
        print(
            f"errdex: --timeout must be seconds above 0, up to 3600: {ns.timeout}", file=sys.stderr
        )
        return finder.USAGE
    try:
        source = finder.choose(
            ns.site, ns.content, None if ns.no_cache else ns.cache, ns.timeout, ns.strict
        )
        if ns.quiet:
            source.checking = None  # whether the index is older than the records: a note
        if ns.batch:
            return finder.batch(source, sys.stdin, sys.stdout, ns.limit)
    except finder.Unavailable as exc:
        print(f"errdex: {exc}", file=sys.stderr)
        return finder.UNREADABLE
    except BuildError as exc:  # the records read instead of an index do not load
        _stopped(exc, ns, writes=False)
        return finder.UNREADABLE
    try:
        paste = sys.stdin.read() if ns.text == "-" else ns.text
    except UnicodeDecodeError:
        print("errdex: standard input is not UTF-8 text", file=sys.stderr)
        return finder.USAGE
    try:
        extracted, document = finder.answer(source, paste, ns.limit)
    except finder.Unavailable as exc:
        print(f"errdex: {exc}", file=sys.stderr)
        return finder.UNREADABLE
    if extracted.cut:
        _note(
            ns,
            f"errdex: the paste is longer than {PASTE_LIMIT:,} characters: "
            f"only its last {PASTE_LIMIT:,} were read",
        )
    matches = document["matches"]
    if ns.json:
        print(json.dumps(document, indent=2, ensure_ascii=False))
        return finder.FOUND if matches else finder.NOT_FOUND
    if not matches:
        said = extracted.message or extracted.exception or ""
        print(f"No error in this index matches: {said[:200]!r}")
        for named in document.get("exceptions", ()):
            # A class's name (alone, or of an error whose message matches nothing): the
            # page of its errors.
            if named["single"]:
                print(f"   The one error raised as {named['name']} is at {named['path']}")
            else:
                print(f"   The site lists the errors raised as {named['name']} at {named['path']}")
        return finder.NOT_FOUND
    for rank, m in enumerate(matches, start=1):
        how = (
            "whole message matches"
            if m["exact"]
            else "first line matches"
            if m["first_line"]
            else f"partial match, confidence {m['confidence']:.2f}"
        )
        print(f"{rank}. {m['exception']} · {m['repo']} · {how}")
        # As a reader sees it (``{{`` as ``{``), each line under the one before.
        print("   " + display_of(m["message"]).replace("\n", "\n   "))
        where = m["raised_at"]
        if where:
            line = f":{where['line']}" if where["line"] else ""
            function = f", in {where['function']}" if where["function"] else ""
            print(f"   raised at {where['path']}{line}{function}")
        if m["wording"]:
            w = m["wording"]
            since = f"since {w['since']} it reads: {display_of(w['now'])}"
            print(f"   You pasted the wording of {w['until']}; {since}")
        print(f"   {m['url']}")
        if m["values"]:
            print(
                "   "
                + ", ".join(  # a placeholder said twice with one value is shown once
                    f"{name} = {value or '(empty)'}"
                    for name, value in dict.fromkeys(tuple(pair) for pair in m["values"])
                )
            )
        if m["elsewhere"]:
            # The pages of a few, a line each (an id alone says nothing); --json has all.
            shown = m["also"][:ALSO_SHOWN]
            among = ", among them:" if m["elsewhere"] > len(shown) else ":"
            print(f"   also raised at {m['elsewhere']} other place(s){among if shown else ''}")
            for url in shown:
                print(f"     {url}")
    return finder.FOUND


ALSO_SHOWN = 5
"""How many of the other places raising a message ``lookup`` names, a page address each."""


def _triage(ns: argparse.Namespace) -> int:
    import os

    from errdex.github import triage
    from errdex.github.reports import Rules
    from errdex.search import sources

    env = dict(os.environ)
    problem = None
    if not 0 <= ns.min_confidence <= 1:
        problem = f"--min-confidence must be from 0 to 1: {ns.min_confidence}"
    elif ns.min_own_text < 0:
        problem = f"--min-own-text must be 0 or more: {ns.min_own_text}"
    elif not 0 < ns.timeout <= 3600 or not 0 <= ns.max_wait <= 3600:
        problem = "--timeout and --max-wait must be seconds, up to 3600"
    elif ns.text is not None and (ns.event is not None or ns.mode == "comment"):
        problem = "--text tries triage on a text: it takes no --event and posts nothing"
    elif ns.text is None and (ns.title or ns.json):
        problem = "--title and --json go with --text"
    elif ns.mode == "comment" and not env.get("GITHUB_TOKEN"):
        problem = "--mode comment needs a token in the GITHUB_TOKEN environment variable"
    elif ns.text is None and ns.event is None and not env.get("GITHUB_EVENT_PATH"):
        problem = (
            "give --event FILE (or run in a workflow, which sets GITHUB_EVENT_PATH), or "
            "--text FILE to try it on an issue's text"
        )
    elif ns.id is not None:
        problem = triage.id_problem(ns.id)
    if problem:
        print(f"errdex: {problem}", file=sys.stderr)
        return 1
    settings = triage.Settings(
        mode=ns.mode,
        rules=Rules(ns.min_confidence, ns.min_own_text, ns.limit, not ns.any_exception),
        label=ns.label or None,
        skip_label=ns.skip_label,
        site_id=ns.id,
        quiet=ns.quiet,
    )

    def source() -> sources.Source:
        if sources.is_url(ns.site):
            return sources.site_source(sources.WebStore(ns.site, ns.cache, ns.timeout))
        return sources.site_source(sources.FolderStore(Path(ns.site)))

    if ns.text is not None:
        try:
            body = sys.stdin.read() if ns.text == "-" else Path(ns.text).read_text("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            print(f"errdex: {ns.text}: cannot be read: {exc}", file=sys.stderr)
            return sources.USAGE  # not "no page matches"
        try:
            return triage.try_text(body, ns.title, settings, source, as_json=ns.json)
        except sources.Unavailable as exc:
            print(f"errdex: {exc}", file=sys.stderr)
            return sources.UNREADABLE
    try:
        event = triage.read_event(
            ns.event or Path(env["GITHUB_EVENT_PATH"]),
            ns.event_name or env.get("GITHUB_EVENT_NAME") or None,
        )
    except triage.EventError as exc:
        print(f"errdex: {exc}", file=sys.stderr)
        return 1
    return triage.run(event, settings, source, env, ns.max_wait, ns.timeout)


def report(
    problems: list[Problem], ns: argparse.Namespace | None = None, base: str | None = None
) -> None:
    """Every problem as ``path:line: message [code]``, grouped by file, then where each
    code is explained (on the site at ``base``, when the build knows it). With
    ``--format github``, each is also an annotation on standard output. ``-q`` leaves
    out the warnings that do not stop the command, and where the codes are explained."""
    from errdex.records.codes import docs_url
    from errdex.records.problems import annotation

    github = getattr(ns, "format", "text") == "github"
    quiet = getattr(ns, "quiet", False)
    strict = getattr(ns, "strict", False)
    for _path, group in groupby(sorted(problems), key=lambda p: p.path):
        for problem in group:
            if not quiet or strict or problem.severity is Severity.ERROR:
                print(problem, file=sys.stderr)
            if github:
                print(annotation(problem))
    used = sorted({p.code for p in problems if p.code})
    if used and not quiet:
        from errdex.urls import codes_site

        base = base or getattr(ns, "base_url", None)
        if base is None:
            from errdex.records.load import site_base_url

            base = site_base_url(getattr(ns, "content", None))  # codes_site's already
        else:
            base = codes_site(base)
        print(
            "errdex: what the codes mean: " + ", ".join(docs_url(base, code) for code in used),
            file=sys.stderr,
        )
