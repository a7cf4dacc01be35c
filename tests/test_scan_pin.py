"""scan and pin against real git repositories made here, and against a real codebase."""

from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import git, git_repository, snapshot, soup

from errdex.records.model import derive_id
from errdex.source.scan import scan_source, scan_text, template_of

FIRST = """\
import os


class Config:
    def check(self, tp, dcp):
        if tp % dcp != 0:
            raise ValueError(f"tp_size={tp} must be divisible by dcp_size={dcp}.")
        if tp > 64:
            raise ValueError("tp is too large: %d > %d" % (tp, 64))
        raise NotImplementedError("Pipeline parallelism is " + "not supported.")

    def wording(self, name):
        if not name:
            raise RuntimeError("old wording for {}".format(name))

    def doomed(self):
        raise KeyError("this error goes away")
"""

SECOND = """\
import os
import sys

# Two new lines above: every raise below moved down.


class Config:
    def check(self, tp, dcp):
        if tp % dcp != 0:
            raise ValueError(f"tp_size={tp} must be divisible by dcp_size={dcp}.")
        if tp > 64:
            raise ValueError("tp is too large: %d > %d" % (tp, 64))
        raise NotImplementedError("Pipeline parallelism is " + "not supported.")

    def wording(self, name):
        if not name:
            raise RuntimeError("new wording for {!r}".format(name))

    def added(self):
        raise TypeError("a brand new error")
"""

HELPER = """\
def load(path):
    if not path:
        raise FileNotFoundError(f"no config at {path}")
"""


@pytest.fixture
def upstream(tmp_path: Path) -> Path:
    """A repository with two tagged commits: v1, then v2 which moves, rewords, removes,
    adds and renames."""
    broken = "def broken(:\n    raise ValueError('x')\n"
    first = {"pkg/config.py": FIRST, "pkg/helpers.py": HELPER, "pkg/broken.py": broken}
    repo = git_repository(tmp_path / "upstream", ("v1", first))
    (repo / "pkg" / "config.py").write_text(SECOND)
    git(repo, "mv", "pkg/helpers.py", "pkg/loading.py")
    git(repo, "commit", "-qam", "two")
    git(repo, "tag", "v2")
    return repo


@pytest.fixture
def content_records() -> dict[str, str]:
    return {}  # scan writes them


def records(content: Path) -> dict[str, dict]:
    return {
        yaml.safe_load(p.read_text())["message"]: {**yaml.safe_load(p.read_text()), "_file": p}
        for p in sorted((content / "errors").rglob("*.yaml"))
    }


@pytest.mark.parametrize(
    ("source", "template"),
    [
        ('"plain {braces} stay literal"', "plain {{braces}} stay literal"),
        ('f"tp_size={tp} and {self.size!r:>4}"', "tp_size={tp} and {self.size}"),
        ('"implicit " "concatenation"', "implicit concatenation"),
        ('"a" + str(n) + f" b{c}"', "a{str(n)} b{c}"),
        ('"{} and {name} and {0}".format(x, name=y)', "{x} and {y} and {x}"),
        ('"{}, {}".format(*args)', "{}, {}"),
        ('"%s is %d%%" % (key, pct)', "{key} is {pct}%"),
        ('"%(a)s and %(b)s" % mapping', "{a} and {b}"),
        # A dict's string is what every message of the raise says.
        ('"%(a)s, %(b)r, %(c)d" % {"a": _("one"), "b": "two", "c": "3"}', "one, 'two', {c}"),
        ('"single %r" % value', "single {value}"),
        # A string written in the code is put in as it is, but with a spec or a repr.
        ('"{} values and {kind}".format("widths", kind="box")', "widths values and box"),
        ('"%s, %r, %5s" % ("one", "two", "three")', "one, {'two'}, {'three'}"),
        ('"{!r} and {:>5}".format("one", "two")', "{'one'} and {'two'}"),
        # After ``*args`` which argument a field takes is not told.
        ('"Bad {} value: {}".format(*parts, "reason")', "Bad {} value: {'reason'}"),
        ("message", None),
        # Every template scan makes must parse (issue #12, item 10).
        ("f\"closing {'}'} and {'{'}\"", "closing }} and {{"),
        ("f\"key {d['{']} and {d['}']}\"", "key {} and {}"),
        ('f"set { {a, b} } here"', "set { {a, b}} here"),
        ('"%(a{b)s and %(})s" % mapping', "{} and {}"),
        ('"{²} and {a}".format(x, a=y)', "{²} and {y}"),
        # A string marked for translation is the words the code writes.
        ('_("{editor}: Editing failed").format(editor=ed)', "{ed}: Editing failed"),
        ('gettext("No such file: %s") % path', "No such file: {path}"),
        ('translation.gettext_lazy("Enter a valid value.")', "Enter a valid value."),
        ('_(f"not {x}")', "not {x}"),
        ("_(message)", None),
        ('ngettext("one", "many", n)', None),
    ],
)
def test_message_expressions_become_templates(source: str, template: str | None) -> None:
    node = ast.parse(source, mode="eval").body
    assert template_of(node) == template


BRANCHED = """\
def check_host(host, domain):
    msg = "Bad host header: %r." % host
    if domain:
        msg += " Add %r to the allowed hosts." % domain
    else:
        msg += " The name is no valid domain."
    raise HostError(msg)


def reverse(name, tried):
    if tried:
        msg = "No route for %r among %d tried" % (name, len(tried))
    elif name is None:
        raise ValueError("A route needs a name")
    else:
        msg = "No route for %(name)r at all" % {"name": name}
    raise RouteError(msg)


def pick(kind, strict):
    if kind:
        msg = "Kind %r is unknown" % kind
        if strict:
            raise KeyError("unknown kind")
        else:
            raise LookupError("unknown kind")
    else:
        msg = "No kind given"
    raise PickError(msg)


def leave(kind, strict, items):
    if kind:
        msg = "Kind %r is refused" % kind
        if strict:
            raise KeyError("refused kind")
        else:
            return None
    elif items:
        msg = "Items are refused"
        for item in items:
            check(item)
    elif strict is None:
        msg = "Strictness is unset"
        sys.exit(1)
    else:
        msg = "Nothing to leave"
    raise LeaveError(msg)


def report(a, b, c):
    msg = "Failed"
    if a:
        msg += " in a"
    if b:
        msg += " in b"
    if c:
        msg += " in c"
    raise ReportError(msg)


def columns(seen, missing, moved):
    msg = "The columns differ from those seen in fit.\\n"
    if seen:
        msg += "Not seen in fit: %s.\\n" % seen
    if missing:
        msg += "Seen in fit, now missing: %s.\\n" % missing
    if moved:
        msg += "In another order.\\n"
    raise ColumnError(msg)
"""


def test_a_message_given_in_branches_makes_a_record_of_each() -> None:
    """A name given its message in an ``if`` and its ``else``, or added to there, holds
    either after them: a record of each, as of a conditional expression; a branch that
    raises or returns on every path gives none, and one that may or may not go on (a
    loop's end) leaves the name untold. More than four messages make one record of
    the start they share, to a line's end, when it has 16 letters of its own."""
    sites = scan_text(BRANCHED, "pkg/routes.py")
    assert [(s.exception, s.template) for s in sites] == [
        ("HostError", "Bad host header: {host}. Add {domain} to the allowed hosts."),
        ("HostError", "Bad host header: {host}. The name is no valid domain."),
        ("ValueError", "A route needs a name"),
        ("RouteError", "No route for {name} among {len(tried)} tried"),
        ("RouteError", "No route for {name} at all"),
        ("KeyError", "unknown kind"),
        ("LookupError", "unknown kind"),
        ("PickError", "No kind given"),
        ("KeyError", "refused kind"),
        ("ColumnError", "The columns differ from those seen in fit.\n{details}"),
    ]


STARTED = """\
def configure(a, b, c):
    msg = "Invalid configuration for the estimator."
    if a:
        msg += " Set alpha."
    if b:
        msg += " Set beta."
    if c:
        msg += " Set gamma."
    raise ValueError(msg)


def solve(p, q, r, verbose):
    msg = "The solver %r does not support this penalty. " % "lbfgs"
    if p:
        msg += "P is on."
    if q:
        msg += "Q is on."
    if r:
        msg += "R is on."
    if verbose:
        msg += "See the user guide."
    raise ValueError(msg)
"""


def test_the_start_of_a_message_built_in_many_ways_is_recorded_whole_once() -> None:
    """The start runs to where the messages part when each goes on there with no letter
    (the sentence they share, whole), keeps the quotes ``%r`` puts in, and a ``+=``
    after it is part of its ``{details}``: one record of the raise."""
    sites = scan_text(STARTED, "pkg/solve.py")
    assert [s.template for s in sites] == [
        "Invalid configuration for the estimator.{details}",
        "The solver {'lbfgs'} does not support this penalty. {details}",
    ]


VALIDATORS = """\
def validate_ipv6(value):
    if not is_ipv6(value):
        raise ValidationError(
            _("Enter a valid %(protocol)s address."),
            code="invalid",
            params={"protocol": _("IPv6"), "value": value},
        )


def validate_size(value, unit):
    if value > 10:
        raise ValidationError(_("At most 10 %(unit)s (100%%)."), params={"unit": unit})
    raise ValidationError(_("Not %(unit)s at all."))


def validate_code(value):
    raise ValidationError("[%(code)6s] is no code", params={"code": "A1"})
"""


REBOUND = """\
def walrus(get):
    msg = "Alpha"
    if (msg := get()) is None:
        pass
    else:
        msg = "Beta"
    raise ValueError(msg)


def caught(run):
    msg = "Alpha"
    try:
        run()
    except KeyError as msg:
        pass
    raise ValueError(msg)


def imported():
    msg = "Alpha"
    from errors import msg
    raise ValueError(msg)


def kept():
    msg = "Gamma"
    raise ValueError(msg)
"""


def test_a_name_bound_again_otherwise_holds_no_message_it_was_given() -> None:
    """A walrus, ``except … as``, an import (or a def) binds the name anew: a raise of it
    after that raises what it holds then, not the message given before."""
    assert [s.template for s in scan_text(REBOUND, "pkg/rebound.py")] == ["Gamma"]


DEFAULTED = """\
def check_fitted(model, *, msg=None):
    if msg is None:
        msg = "This %(name)s is not fitted yet. Call 'fit' first."
    if not fitted(model):
        raise NotFittedError(msg % {"name": type(model).__name__})


def check_ready(pool, message=None):
    if not message:
        message = "The pool {} has no worker ready" if pool else "No pool {} given"
    raise RuntimeError(message.format(pool))


def check_kind(kind, msg=None, verbose=False):
    if verbose:
        msg = "Kind %s is unknown"
    raise TypeError(msg % kind)


def check_size(size, msg=None):
    if msg is None:
        msg = "Size %s is too big"
    else:
        msg = msg.strip()
    raise ValueError(msg % size)


def check_name(name, msg=None):
    if msg is None:
        msg = "Name %s is taken"
    else:
        msg = read_message()
    raise ValueError(msg % name)
"""


def test_a_message_the_code_gives_where_the_caller_gave_none_is_recorded() -> None:
    """scikit-learn's NotFittedError: ``if msg is None: msg = "…"``, then ``raise
    NotFittedError(msg % {…})``; the raise says the caller's message or the code's own,
    and the code's is a record. A name given a message under any other test holds none
    errdex can tell; an ``else`` reads as ever (each side's message, when both hold one)."""
    sites = scan_text(DEFAULTED, "pkg/validation.py")
    assert [(s.function, s.template) for s in sites] == [
        ("check_fitted", "This {name} is not fitted yet. Call 'fit' first."),
        ("check_ready", "The pool {pool} has no worker ready"),
        ("check_ready", "No pool {pool} given"),
        ("check_size", "Size {size} is too big"),
        ("check_name", "Name {name} is taken"),
    ]


def test_a_message_added_to_a_thousand_times_loses_no_other_record_of_its_file() -> None:
    code = 'def big():\n    msg = "a"\n' + '    msg += "b"\n' * 1000
    code += '    raise ValueError(msg)\n\n\ndef fine():\n    raise KeyError("fine")\n'
    assert [s.template for s in scan_text(code, "pkg/big.py")] == ["fine"]


def test_a_message_the_class_fills_in_from_params_becomes_its_template() -> None:
    """Django's ValidationError prints ``message % params``: the ``%(name)s`` of a class
    given ``params`` are its placeholders, or the words they give; without ``params``
    the text is printed as it is."""
    sites = scan_text(VALIDATORS, "pkg/validators.py")
    assert [s.template for s in sites] == [
        "Enter a valid IPv6 address.",
        "At most 10 {unit} (100%).",
        "Not %(unit)s at all.",
        "[{code}] is no code",  # padded to six: not the words as given
    ]


MESSAGE_NAMED_FIRST = """\
def check(size, flag, parts):
    if size < 0:
        msg = f"size must be positive, got {size}"
        raise ValueError(msg)
    note = "size {} is odd".format(size)
    if size % 2:
        raise ValueError(note)
    if flag:
        text = "one way"
    else:
        text = "the other"
    raise RuntimeError(text)


def join(parts, err):
    msg = "parts: "
    msg += ", ".join(parts)
    if not parts:
        raise KeyError(msg)
    raise TypeError(err)
"""


def test_a_message_given_a_name_before_its_raise_becomes_a_record() -> None:
    """``msg = f"…"`` then ``raise ValueError(msg)`` (ruff's EM rules): the raise's
    message is what the name was last given on the way there, or added to it; each
    of two messages an ``if`` and its ``else`` give it; nothing when it is a
    parameter."""
    sites = scan_text(MESSAGE_NAMED_FIRST, "pkg/check.py")
    assert [(s.line, s.exception, s.template, s.condition) for s in sites] == [
        (4, "ValueError", "size must be positive, got {size}", "size < 0"),
        (7, "ValueError", "size {size} is odd", "size % 2"),
        (12, "RuntimeError", "one way", None),
        (12, "RuntimeError", "the other", None),
        (19, "KeyError", "parts: {', '.join(parts)}", "not parts"),
    ]


CHOSEN_MESSAGE = """\
def one(rows, raise_for_one, strict, name):
    if len(rows) > 1:
        raise LookupError(
            "Several rows were found where exactly one was asked for"
            if raise_for_one
            else "Several rows were found where one or none was asked for"
        )
    msg = f"no table {name}" if strict else ("no table" if name else name)
    raise KeyError(msg)
"""


def test_each_message_a_conditional_expression_may_give_becomes_a_record() -> None:
    """``"…" if c else "…"``: the raise gives either message, and a paste of either
    should find it; a branch that is no message (a parameter) gives none."""
    scanned = scan_source(CHOSEN_MESSAGE, "pkg/rows.py")
    assert [(s.line, s.exception, s.template) for s in scanned.sites] == [
        (3, "LookupError", "Several rows were found where exactly one was asked for"),
        (3, "LookupError", "Several rows were found where one or none was asked for"),
        (9, "KeyError", "no table {name}"),
        (9, "KeyError", "no table"),
    ]
    assert scanned.unread == []


CONTEXT_FIRST = """\
class MarkedError(Exception):
    def __init__(self, context=None, context_mark=None, problem=None, problem_mark=None):
        self.parts = context, context_mark, problem, problem_mark


def construct(node, name, options):
    if node.tag is None:
        raise MarkedError(None, None, f"no constructor for the tag {node.tag!r}", node.mark)
    if not name:
        raise MarkedError("while constructing", node.mark, "found no name", node.mark)
    if options:
        raise ValueError(options)
    raise NotImplementedError()
"""


def test_a_raise_that_gives_its_context_as_none_is_recorded_by_its_problem() -> None:
    """An exception class that takes a context before its problem (PyYAML's errors)
    prints the parts it was given: the message is the first argument that is not None.
    A raise with no message written in it (a parameter, none at all) makes no record, and
    the scan keeps where it is."""
    scanned = scan_source(CONTEXT_FIRST, "pkg/construct.py")
    assert [(s.line, s.exception, s.template) for s in scanned.sites] == [
        (8, "MarkedError", "no constructor for the tag {node.tag}"),
        (10, "MarkedError", "while constructing"),
    ]
    assert scanned.unread == ["pkg/construct.py:12", "pkg/construct.py:13"]


NAMED_FIRST = """\
class BadOptionUsage(Exception):
    def __init__(self, option_name, message, ctx=None):
        super().__init__(message)


def parse(opt, value, ctx, proc, section, msg):
    if value is not None:
        raise BadOptionUsage(opt, _("Option {name!r} does not take a value.").format(name=opt))
    if not opt:
        raise ValueError(opt, "an empty option")
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, "git")
    if not section:
        raise ConfigError(section, opt, "must be positive")
    if not msg:
        raise ConfigError(msg, "see https://example.test/config")
    raise BadOptionUsage(opt, ctx.message)
"""


def test_a_raise_that_names_what_it_is_about_first_is_recorded_by_its_message() -> None:
    """A codebase's class that takes an option's name before its message (click's
    ``BadOptionUsage``) prints the message, which the code marks for translation. Other
    arguments after a name are not read as one: a builtin given two prints both as a
    tuple, and ``CalledProcessError(code, "git")`` words its own message."""
    scanned = scan_source(NAMED_FIRST, "pkg/parser.py")
    assert [(s.line, s.exception, s.template) for s in scanned.sites] == [
        (8, "BadOptionUsage", "Option {opt} does not take a value."),
    ]
    assert scanned.unread == [f"pkg/parser.py:{n}" for n in (10, 12, 14, 16, 17)]


def test_a_scan_says_which_raises_it_could_not_record(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    source = tmp_path / "project"
    (source / "pkg").mkdir(parents=True)
    (source / "pkg" / "construct.py").write_text(CONTEXT_FIRST)
    (source / "tests").mkdir()
    (source / "tests" / "test_it.py").write_text("def test_f(x):\n    raise ValueError(x)\n")
    scan_args = ["scan", source, "--repo", "example/up", "--commit", "a" * 40, "--content", content]
    first = run_ok(run, *scan_args)
    assert "errdex scan: 2 new, 0 refreshed" in first.err
    assert (
        "errdex scan: 2 raises not recorded, no message errdex can read in them: a "
        "parameter's, or one built in a way scan does not follow "
        "(pkg/construct.py:12, pkg/construct.py:13)"
    ) in first.err
    listed = run_ok(run, *scan_args, "--dry-run", "--json")
    assert json.loads(listed.out)["not_recorded"] == ["pkg/construct.py:12", "pkg/construct.py:13"]
    assert "no constructor for the tag {node.tag}" in records(content)


def test_a_message_over_lines_is_one_line_of_the_report(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """A message may hold line breaks (``f"Bad input:\\n{msg}"``): its raise is still one
    line of the report, the breaks shown as ``\\n``, and the record keeps them."""
    source = tmp_path / "project"
    (source / "pkg").mkdir(parents=True)
    code = 'def f(msg):\n    raise ValueError(f"Bad input:\\n{msg}\\nUse another")\n'
    (source / "pkg" / "m.py").write_text(code)
    scan_args = ["scan", source, "--repo", "example/up", "--commit", "a" * 40, "--content", content]
    for extra in (["--dry-run"], []):
        said = run_ok(run, *scan_args, *extra).out.splitlines()
        assert "new: pkg/m.py:2 ValueError: Bad input:\\n{msg}\\nUse another" in said
    assert "Bad input:\n{msg}\nUse another" in records(content)


def test_pin_moves_every_message_one_raise_may_give(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """Records of one raise's messages (``a if x else b``, a name an ``if`` and its
    ``else`` give two) share its line: all move with it, none is taken for removed."""
    before, after = tmp_path / "before", tmp_path / "after"
    (before / "pkg").mkdir(parents=True)
    (before / "pkg" / "m.py").write_text(BRANCHED)
    (after / "pkg").mkdir(parents=True)
    (after / "pkg" / "m.py").write_text("import os\nimport sys\n" + BRANCHED)
    args = ["--repo", "example/up", "--content", content]
    run_ok(run, "scan", before, *args, "--commit", "a" * 40)
    said = run_ok(run, "pin", after, *args, "--commit", "b" * 40).err
    assert "errdex pin: 0 unchanged, 10 moved, 0 reworded, 0 removed" in said
    lines = {
        r["source"]["line"] for r in records(content).values() if r["exception"] == "HostError"
    }
    assert lines == {9}


def test_a_scan_of_an_unpacked_wheel_says_its_paths_may_not_be_the_repositorys(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """click's wheel holds ``click/core.py``, its repository ``src/click/core.py``: the
    pages' "View on GitHub" links of a scan of the wheel lead nowhere."""
    source = tmp_path / "wheel"
    (source / "pkg").mkdir(parents=True)
    (source / "pkg" / "construct.py").write_text(CONTEXT_FIRST)
    scan_args = ["scan", source, "--repo", "example/up", "--commit", "a" * 40, "--content", content]
    assert "installed package" not in run_ok(run, *scan_args, "--dry-run").err
    (source / "pkg-1.0.dist-info").mkdir()
    said = run_ok(run, *scan_args).err
    assert f"{source} holds pkg-1.0.dist-info, an installed package: paths are written" in said
    assert "scan a checkout of the repository, or its sdist" in said


def test_a_site_knows_its_function_condition_and_excerpt() -> None:
    sites = scan_text(FIRST, "pkg/config.py")
    assert [(s.line, s.exception) for s in sites] == [
        (7, "ValueError"),
        (9, "ValueError"),
        (10, "NotImplementedError"),
        (14, "RuntimeError"),
        (17, "KeyError"),
    ]
    first = sites[0]
    assert first.function == "Config.check"
    assert first.condition == "tp % dcp != 0"
    assert sites[2].condition is None  # after the ifs, not inside one
    (otherwise,) = scan_text("if a:\n    pass\nelse:\n    raise ValueError('b')\n", "x.py")
    assert otherwise.condition == "not (a)"
    assert first.excerpt_start == 1
    assert first.excerpt.splitlines()[first.line - first.excerpt_start].strip().startswith("raise")


def run_ok(run, *argv: object):  # type: ignore[no-untyped-def]
    result = run(*argv)
    assert result.code == 0, result.err
    return result


def test_scan_makes_a_record_per_raise_and_skips_what_does_not_parse(
    run,
    upstream: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    result = run_ok(
        run, "scan", upstream, "--repo", "example/up", "--ref", "v1", "--content", content
    )
    assert (
        "errdex scan: 6 new, 0 refreshed, 0 unchanged, 0 no longer found; 1 skipped" in result.err
    )
    assert "skipped: pkg/broken.py:1: does not parse" in result.err
    found = records(content)
    record = found["tp_size={tp} must be divisible by dcp_size={dcp}."]
    assert record["source"]["commit"] == git(upstream, "rev-parse", "v1")
    assert record["source"]["path"] == "pkg/config.py"
    assert record["source"]["line"] == 7
    assert record["source"]["condition"] == "tp % dcp != 0"
    assert "tp is too large: {tp} > {64}" in found
    out = content.parent / "public"
    run_ok(run, "build", "--content", content, "--out", out)
    assert len(list((out / "errors").glob("*/index.html"))) == 6


def test_a_first_scan_into_a_new_folder_says_how_it_becomes_a_site(
    run, upstream: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    release = run("scan", upstream, "--repo", "example/up", "--ref", "v1")
    assert release.code == 1
    assert (
        "content/site.yaml: missing; a release is listed there: `errdex init .` writes one"
        in release.err
    )
    commit = git(upstream, "rev-parse", "v1")
    # pin follows records: a folder with none is a mistyped --content, said so.
    pinned = run_ok(run, "pin", upstream, "--repo", "example/up", "--commit", commit)
    assert "skipped: content/errors: no errors/ folder with records, nor the content" in (
        pinned.err
    )
    assert "site.yaml" not in pinned.err
    scanned = run_ok(run, "scan", upstream, "--repo", "example/up", "--commit", commit)
    # No records yet is no skipped file, and the next step is told.
    assert "no errors/ folder" not in scanned.err
    assert "6 new, 0 refreshed, 0 unchanged, 0 no longer found; 1 skipped" in scanned.err
    assert (
        "errdex scan: content has no site.yaml yet, which errdex build needs: "
        "`errdex init .` writes one" in scanned.err
    )
    built = run("build")
    assert built.code == 1
    assert "content/site.yaml: cannot read file: No such file or directory; `errdex init .`" in (
        built.err
    )
    made = run("init", "--repo", "example/up", "--title", "Up", "--base-url", "https://e.test/")
    assert made.code == 0
    assert (
        made.err.splitlines()[-1] == "Next: errdex serve (the records there are built as they are)"
    )
    run_ok(run, "build")
    assert len(list((tmp_path / "public" / "errors").glob("*/index.html"))) == 6


def test_a_scan_says_how_many_raises_are_in_tests_and_can_leave_them_out(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """A checkout holds its tests too: scan says how many of its raises are there, with
    the globs that would leave out those files and no other, and ``--exclude`` leaves
    them out. A record made before, in a file now excluded, is left as it is, not called
    no longer found; a glob that matches nothing is said."""
    source = tmp_path / "project"
    for path, text in {
        "pkg/config.py": 'def f(x):\n    if x < 0:\n        raise ValueError("x is negative")\n',
        "pkg/latest_news.py": 'raise KeyError("no news")\n',
        "tests/test_config.py": 'def test_f():\n    raise RuntimeError("omg")\n',
        "pkg/tests/helpers.py": 'raise ImportError("no fixtures")\n',
        "conftest.py": 'raise ImportError("no plugin")\n',
        "pkg/m_test.py": 'raise AssertionError("yolo")\n',
        "pkg/io/tests/test_io.py": 'raise OSError("no disk")\n',
    }.items():
        (source / path).parent.mkdir(parents=True, exist_ok=True)
        (source / path).write_text(text)
    scan = ["scan", source, "--repo", "example/up", "--commit", "a" * 40, "--content", content]
    first = run_ok(run, *scan)
    assert "errdex scan: 7 new, 0 refreshed" in first.err
    # A tests/ folder in more than one package: one glob for them all.
    globs = (
        "--exclude '*/tests/*' --exclude '*_test.py' --exclude 'conftest.py' --exclude 'tests/*'"
    )
    assert f"errdex scan: 5 raises found in tests; {globs} would leave them out" in first.err
    made = records(content)["omg"]["_file"]
    before = made.read_bytes()
    excluding = [
        arg
        for glob in ("*_test.py", "conftest.py", "pkg/tests/", "*/io/tests/*", "./tests/*")
        for arg in ("--exclude", glob)
    ]
    again = run_ok(run, *scan, *excluding, "--exclude", "docs/*")
    assert "0 new, 0 refreshed, 2 unchanged, 0 no longer found, 5 excluded" in again.err
    assert "found in tests" not in again.err
    assert "errdex scan: --exclude 'docs/*' matches no Python file" in again.err
    assert made.read_bytes() == before
    fresh = tmp_path / "fresh" / "content"
    run_ok(run, *scan[:-1], fresh, *excluding)
    assert sorted(records(fresh)) == ["no news", "x is negative"]


def test_pin_through_a_release_keeps_a_record_in_an_excluded_file(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """A release's scan looks in no excluded file; a record there is still followed
    where it is (moved), not called removed."""
    raising = 'def test_f():\n    raise RuntimeError("omg")\n'
    repo = git_repository(
        tmp_path / "repo",
        ("v1", {"pkg/a.py": 'raise ValueError("x")\n', "tests/test_a.py": raising}),
        ("v2", {"tests/test_a.py": "import os\n\n" + raising}),
    )
    run_ok(run, "scan", repo, "--repo", "example/up", "--ref", "v1", "--content", content)
    pinned = run_ok(
        run,
        "pin",
        repo,
        "--repo",
        "example/up",
        "--ref",
        "v2",
        "--exclude",
        "tests/*",
        "--content",
        content,
    )
    assert "1 unchanged, 1 moved, 0 reworded, 0 removed" in pinned.err
    record = records(content)["omg"]
    assert record["source"]["line"] == 4 and "removed_in" not in record["source"]


def test_pin_says_which_removed_record_is_raised_again(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """A raise taken out in one release and put back in a later one: its record, marked
    removed, is "back" (its page no longer says "Removed upstream"), not "unchanged"."""
    raising = 'def f():\n    raise ValueError("the spool is empty")\n'
    repo = git_repository(
        tmp_path / "up",
        ("v1", {"pkg/a.py": raising}),
        ("v2", {"pkg/a.py": "def f():\n    return None\n"}),
        ("v3", {"pkg/a.py": raising}),
    )
    run_ok(run, "scan", repo, "--repo", "example/up", "--ref", "v1", "--content", content)
    (path,) = (content / "errors").rglob("*.yaml")
    for tag, summary in (("v2", "0 removed"), ("v3", "0 back")):
        said = run_ok(run, "pin", repo, "--repo", "example/up", "--ref", tag, "--content", content)
        assert summary not in said.err, said.err
    assert (
        "0 unchanged, 0 moved, 0 reworded, 0 removed, 0 still removed, 0 renamed, 0 new, 1 back"
        in said.err
    )
    assert said.out.splitlines() == [f"back: {path} at pkg/a.py:2"]
    assert "removed_in" not in yaml.safe_load(path.read_text())["source"]


def test_a_record_back_under_another_id_says_so(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """One message raised in two files, both taken out, one put back: the record of the
    one back takes the id a scan of the release gives it, and its "back" line says so."""
    raising = 'def f():\n    raise ValueError("the spool is empty")\n'
    gone = "def f():\n    return None\n"
    repo = git_repository(
        tmp_path / "up",
        ("v1", {"pkg/a.py": raising, "pkg/b.py": raising}),
        ("v2", {"pkg/a.py": gone, "pkg/b.py": gone}),
        ("v3", {"pkg/a.py": "", "pkg/b.py": raising}),
    )
    run_ok(run, "scan", repo, "--repo", "example/up", "--ref", "v1", "--content", content)
    run_ok(run, "pin", repo, "--repo", "example/up", "--ref", "v2", "--content", content)
    by_path = {
        yaml.safe_load(p.read_text())["source"]["path"]: p
        for p in (content / "errors").rglob("*.yaml")
    }
    by_path["pkg/a.py"].unlink()  # the maintainer drops the record of a.py's
    kept = by_path["pkg/b.py"]
    said = run_ok(run, "pin", repo, "--repo", "example/up", "--ref", "v3", "--content", content)
    derived = derive_id("example/up", "ValueError", "the spool is empty")
    assert said.out.splitlines() == [f"back: {kept} at pkg/b.py:2, its id now {derived}"]
    assert yaml.safe_load(kept.read_text())["id"] == derived


def test_excluded_paths_are_left_out_of_a_commit_as_of_a_folder(tmp_path: Path) -> None:
    from errdex.source.scan import Tree

    files = {"pkg/a.py": "", "pkg/tests/test_a.py": "", "tests/b.py": "", "conftest.py": ""}
    repo = git_repository(tmp_path / "repo", ("v1", files))
    commit = git(repo, "rev-parse", "v1")
    for tree in (
        Tree(repo, commit, ["tests/*", "*conftest.py"]),
        Tree(repo, None, ["tests/*", "*conftest.py"]),
    ):
        assert tree.paths() == ["pkg/a.py", "pkg/tests/test_a.py"]
    assert Tree(repo, commit, ["*tests/*"]).paths() == ["conftest.py", "pkg/a.py"]


def test_rescanning_refreshes_source_facts_and_never_touches_prose(
    run,
    upstream: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    run_ok(run, "scan", upstream, "--repo", "example/up", "--ref", "v1", "--content", content)
    path = records(content)["tp_size={tp} must be divisible by dcp_size={dcp}."]["_file"]
    prose = (
        "# Written by hand.\nmeaning: |\n  TP must split evenly over DCP ranks.\n"
        "solutions:\n  - Pick a divisor.\n"
    )
    path.write_text(path.read_text() + prose)
    again = run_ok(
        run, "scan", upstream, "--repo", "example/up", "--ref", "v2", "--content", content
    )
    # New: the reworded message and the added error; no longer found: the old wording
    # and the removed error; the renamed file's error is found by its id.
    assert "2 new, 4 refreshed, 0 unchanged, 2 no longer found" in again.err
    text = path.read_text()
    assert text.endswith(prose)
    data = yaml.safe_load(text)
    assert data["source"]["line"] == 10
    assert data["meaning"] == "TP must split evenly over DCP ranks.\n"


def test_a_page_says_every_test_that_leads_to_the_raise_not_the_last_alone(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """ "Raised when" says what is true when the error is raised: after an elif chain,
    that no branch's test held (not that the last one's did not: a value the first
    branch takes raises nothing), and inside nested ifs, every test on the way."""
    source = tmp_path / "project"
    source.mkdir()
    (source / "norm.py").write_text(
        "def make(config, ts, generation_config):\n"
        "    if config.norm == 'group':\n"
        "        return 1\n"
        "    elif config.norm == 'layer':\n"
        "        return 2\n"
        "    else:\n"
        "        raise ValueError(f'norm {config.norm} is not one we know of')\n"
        "    if ts is not None:\n"
        "        if not hasattr(generation_config, 'no_timestamps'):\n"
        "            raise ValueError('timestamps asked for, but the config has none')\n"
    )
    scan = ["scan", source, "--repo", "example/up", "--commit", "a" * 40, "--content", content]
    run_ok(run, *scan)
    out = tmp_path / "public"
    run_ok(run, "build", "--content", content, "--out", out)
    said = {}
    for page in out.glob("errors/*/index.html"):
        html = soup(page)
        dd = html.select_one("dl.when dd")
        said[html.select_one("h1 code").get_text()] = [c.get_text() for c in dd.select("code")]
    assert said["norm {config.norm} is not one we know of"] == [
        "not (config.norm == 'group' or config.norm == 'layer')",
        "make",
    ]
    assert said["timestamps asked for, but the config has none"] == [
        "ts is not None",
        "not hasattr(generation_config, 'no_timestamps')",
        "make",
    ]


def test_a_rescan_parses_only_the_files_that_changed(
    run,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    content: Path,
) -> None:
    """scan keeps what each source file gave in its cache folder (not with --dry-run),
    by the file's path and text: the next run takes an unchanged file's raises from
    there, parses a changed one again, and with --no-cache parses every file."""
    import pickle

    from errdex.source import scan

    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "config.py").write_text(FIRST)
    (tree / "pkg" / "helpers.py").write_text(HELPER)
    cache = tmp_path / "cache"
    argv = ["scan", tree, "--repo", "example/up", "--commit", "0" * 40, "--content", content]
    dry = run_ok(run, *argv, "--cache", cache, "--dry-run")
    assert "6 new" in dry.err and not list(cache.glob("scan-*.bin"))
    assert "6 new" in run_ok(run, *argv, "--cache", cache).err
    (kept,) = cache.glob("scan-*.bin")
    found = pickle.loads(kept.read_bytes())
    assert len(found) == 2
    # What the cache says of helpers.py is what a rescan believes: emptied, its raise is
    # no longer found.
    found[scan._digest("pkg/helpers.py", HELPER)] = scan.Scanned([], [], [])
    kept.write_bytes(pickle.dumps(found))
    again = run_ok(run, *argv, "--cache", cache)
    assert "0 new, 0 refreshed, 5 unchanged, 1 no longer found" in again.err
    # A file that changed is parsed again, and --no-cache parses every file.
    (tree / "pkg" / "config.py").write_text(FIRST + "\n\ndef late():\n    raise OSError('late')\n")
    again = run_ok(run, *argv, "--cache", cache)
    assert "1 new, 5 refreshed, 0 unchanged, 1 no longer found" in again.err  # its excerpts
    fresh = run_ok(run, *argv, "--no-cache")
    assert "0 new, 0 refreshed, 7 unchanged, 0 no longer found" in fresh.err


def test_a_scan_cache_that_is_damaged_or_cannot_be_kept_never_stops_a_scan(
    run,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    content: Path,
) -> None:
    """A cache file holding other values is parsed anew; a cache that cannot be written
    at the end is said, with the records written and no partial file left; only errdex's
    own cache files are removed; a dry run makes no cache folder; and the default cache
    folder, when it would lie inside the content folder, is left out with a note."""
    import pickle
    import sys

    from conftest import ROOT

    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "config.py").write_text(FIRST)
    argv = ["scan", tree, "--repo", "example/up", "--commit", "0" * 40, "--content", content]
    cache = tmp_path / "cache"
    run_ok(run, *argv, "--cache", cache, "--dry-run")
    assert not cache.exists()
    assert "5 new" in run_ok(run, *argv, "--cache", cache).err
    (kept,) = cache.glob("scan-*.bin")
    kept.write_bytes(pickle.dumps(dict.fromkeys(pickle.loads(kept.read_bytes()), 42)))
    (cache / "scan-2024.bin").write_text("somebody else's")
    again = run_ok(run, *argv, "--cache", cache)
    assert "0 new, 0 refreshed, 5 unchanged" in again.err
    assert (cache / "scan-2024.bin").read_text() == "somebody else's"
    # The cache's own name taken by a folder: said, and the scan still done.
    blocked = tmp_path / "blocked"
    (blocked / kept.name).mkdir(parents=True)
    done = run(*argv, "--cache", blocked)
    assert done.code == 0, done.err
    assert f"the parsed files were not kept in {blocked}" in done.err
    assert sorted(p.name for p in blocked.iterdir()) == [kept.name]
    # Run from inside the content folder, the default cache would land in it.
    inside = subprocess.run(
        [sys.executable, str(ROOT / "build.py"), *map(str, argv[:-1]), "."],
        cwd=content,
        capture_output=True,
        text=True,
        check=False,
    )
    assert inside.returncode == 0, inside.stderr
    assert "errdex: parsed files are not kept: --cache .errdex/cache" in inside.stderr
    assert not (content / ".errdex").exists()


def test_the_scan_caches_of_other_versions_are_kept_a_while(
    run,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    content: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two errdex or Python versions sharing a cache folder keep their own files: a scan
    removes only those of other versions beyond the three written last, or not written
    for a week, and never a file that is not a scan cache. This version's own file is
    the one read back: the next scan parses nothing."""
    import os
    import time

    from errdex.site.state import code_key
    from errdex.source import scan as scanning

    parsed: list[str] = []
    parse = scanning._parse_files

    def counted(files: list[tuple[str, str | None]], progress: object = None) -> list[object]:
        parsed.extend(path for path, _ in files)
        return parse(files)  # type: ignore[return-value]

    monkeypatch.setattr(scanning, "_parse_files", counted)

    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "config.py").write_text(FIRST)
    argv = ["scan", tree, "--repo", "example/up", "--commit", "0" * 40, "--content", content]
    cache = tmp_path / "cache"
    cache.mkdir()
    now = time.time()
    ages = {"a": 60, "b": 3600, "c": 86_400, "d": 2 * 86_400, "e": 8 * 86_400}
    for name, age in ages.items():
        other = cache / f"scan-{name * 16}.bin"
        other.write_bytes(b"another version's")
        os.utime(other, (now - age, now - age))
    (cache / "scan-notes.bin").write_text("somebody else's")
    run_ok(run, *argv, "--cache", cache)
    mine = f"scan-{code_key()[:16]}.bin"
    assert sorted(p.name for p in cache.iterdir()) == sorted(
        [
            mine,
            "scan-aaaaaaaaaaaaaaaa.bin",
            "scan-bbbbbbbbbbbbbbbb.bin",
            "scan-cccccccccccccccc.bin",
            "scan-notes.bin",
        ]
    )
    assert (cache / "scan-aaaaaaaaaaaaaaaa.bin").read_bytes() == b"another version's"
    assert parsed == ["pkg/config.py"]
    again = run_ok(run, *argv, "--cache", cache)
    assert "0 new, 0 refreshed, 5 unchanged" in again.err
    assert parsed == ["pkg/config.py"]  # read back from this version's file, not parsed


def test_a_source_file_that_starts_with_a_byte_order_mark_is_scanned(
    run,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    content: Path,
) -> None:
    """Python runs a file that starts with a UTF-8 byte order mark; scan reads it too, at
    the same lines, and its excerpt holds no mark."""
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "config.py").write_bytes(b"\xef\xbb\xbf" + FIRST.encode())
    result = run_ok(
        run, "scan", tree, "--repo", "example/up", "--commit", "0" * 40, "--content", content
    )
    assert "5 new" in result.err and "skipped: " not in result.err
    record = records(content)["tp_size={tp} must be divisible by dcp_size={dcp}."]
    assert record["source"]["line"] == 7
    assert "\ufeff" not in record["source"]["excerpt"]["code"]


def test_pin_follows_moves_rewordings_renames_and_removals(
    run,
    upstream: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    run_ok(run, "scan", upstream, "--repo", "example/up", "--ref", "v1", "--content", content)
    before = records(content)
    reworded_path = before["old wording for {name}"]["_file"]
    reworded_path.write_text(reworded_path.read_text() + "meaning: Kept.\n")
    files_before = snapshot(content)

    dry = run_ok(
        run,
        "pin",
        upstream,
        "--repo",
        "example/up",
        "--ref",
        "v2",
        "--content",
        content,
        "--dry-run",
    )
    assert "errdex pin: 0 unchanged, 4 moved, 1 reworded, 1 removed" in dry.err
    assert "(dry run: nothing written)" in dry.err
    assert snapshot(content) == files_before

    result = run_ok(
        run, "pin", upstream, "--repo", "example/up", "--ref", "v2", "--content", content
    )
    # v2 is a tag, so a release: the raise it added gets a record too, as scan writes it.
    assert (
        "errdex pin: 0 unchanged, 4 moved, 1 reworded, 1 removed, 0 still removed, 0 renamed, 1 new"
        in result.err
    )
    assert "(release v2)" in result.err
    after = records(content)
    v2 = git(upstream, "rev-parse", "v2")
    moved = after["tp_size={tp} must be divisible by dcp_size={dcp}."]["source"]
    assert (moved["line"], moved["commit"]) == (10, v2)
    renamed = after["no config at {path}"]["source"]
    assert renamed["path"] == "pkg/loading.py"
    reworded = after["new wording for {name}"]
    assert reworded["_file"] == reworded_path
    assert reworded["meaning"] == "Kept."
    old_id = reworded_path.stem  # scan names each file after its record's id
    # The id a scan of v2 would give the new words; the old one stays as an alias.
    assert reworded["id"] == derive_id("example/up", "RuntimeError", "new wording for {name}")
    assert reworded["aliases"] == [old_id]
    removed = after["this error goes away"]["source"]
    assert removed["removed_in"] == v2
    assert removed["commit"] == git(upstream, "rev-parse", "v1")

    again = run_ok(
        run, "pin", upstream, "--repo", "example/up", "--ref", "v2", "--content", content
    )
    assert (
        "errdex pin: 6 unchanged, 0 moved, 0 reworded, 0 removed, 1 still removed, 0 renamed, 0 new"
        in again.err
    )


def test_every_url_of_the_first_build_still_answers_after_a_pin(
    run,
    upstream: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    run_ok(run, "scan", upstream, "--repo", "example/up", "--ref", "v1", "--content", content)
    first = content.parent / "first"
    run_ok(run, "build", "--content", content, "--out", first)
    run_ok(run, "pin", upstream, "--repo", "example/up", "--ref", "v2", "--content", content)
    second = content.parent / "second"
    run_ok(run, "build", "--content", content, "--out", second)
    # The URL contract: error pages and their JSON (index pages follow the code).
    urls = [p.relative_to(first) for p in first.rglob("*") if p.is_file()]
    urls = [u for u in urls if u.parts[0] in ("errors", "api")]
    assert len(urls) == 2 + 6 * 3  # schema, list, and per error a page and two JSON files
    assert [u for u in urls if not (second / u).is_file()] == []
    gone = json.loads((second / "api" / "errors.json").read_text())["errors"]
    page = next(e for e in gone if e["message"] == "this error goes away")
    html = (second / "errors" / page["id"] / "index.html").read_text()
    assert "Removed upstream." in html


def test_an_alias_keeps_its_page_and_json(run, content: Path, upstream: Path) -> None:  # type: ignore[no-untyped-def]
    run_ok(run, "scan", upstream, "--repo", "example/up", "--ref", "v1", "--content", content)
    path = records(content)["this error goes away"]["_file"]
    path.write_text('aliases: ["00000000000000aa"]\n' + path.read_text())
    out = content.parent / "public"
    run_ok(run, "build", "--content", content, "--out", out)
    redirect = soup(out / "errors" / "00000000000000aa" / "index.html")
    refresh = redirect.find("meta", attrs={"http-equiv": "refresh"})
    assert str(refresh["content"]).endswith(f"url=../../errors/{path.stem}/")
    canonical = redirect.find("link", rel="canonical")["href"]
    assert canonical == f"https://errors.example.test/docs/errors/{path.stem}/"
    stub = json.loads((out / "api" / "errors" / "00000000000000aa.json").read_text())
    assert stub["moved_to"] == path.stem


def test_scan_of_a_real_codebase_builds_a_valid_site(run, content: Path) -> None:  # type: ignore[no-untyped-def]
    import pygments

    source = Path(pygments.__file__).parent
    result = run_ok(
        run,
        "scan",
        source,
        "--repo",
        "pygments/pygments",
        "--commit",
        "0" * 40,
        "--content",
        content,
    )
    new = int(result.err.split("errdex scan: ")[1].split(" new")[0])
    assert new > 50
    out = content.parent / "public"
    built = run_ok(run, "build", "--content", content, "--out", out)
    assert f"built {new} error pages" in built.err
    documents = list((out / "api" / "errors").glob("*.json"))
    assert len(documents) == new


# --- Speed without a change: the record text, the parallel scan, the condition ---------

TRICKY = [
    "plain words",
    "a: b",
    "ends with a colon:",
    "- starts like a list",
    "#not a comment",
    "it's quoted",
    "1.5",
    "true",
    "null",
    "2020-01-01",
    "0123",
    "   leading spaces",
    "trailing space ",
    "tab\there",
    "é ünïcode and 😀",
    "bom \ufeff inside",
    "line one\nline two\n",
    "  indented\n\nafter a blank\n",
    "kept breaks\n\n",
    "no final break\n  indented",
    "trailing space \nnext",
    "nel\x85inside",
    "\n",
    "",
    "x" * 9_500 + " y",
]


@pytest.mark.parametrize("text", TRICKY)
def test_record_text_is_what_pyyaml_writes_and_reads_back(text: str) -> None:
    from errdex.source.update import _Dumper, dump

    data = {
        "id": "abc",
        "repo": "owner/name",
        "message": text,
        "source": {
            "commit": "0123456789",
            "line": 7,
            "condition": text,
            "excerpt": {"start": 1, "code": text},
        },
    }
    written = dump(data)
    expected = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=10_000)
    assert written == expected
    assert yaml.safe_load(written) == data


def test_record_text_matches_pyyaml_on_every_raise_of_a_real_codebase() -> None:
    pygments = pytest.importorskip("pygments")
    from errdex.source.scan import source_data
    from errdex.source.update import _Dumper, dump

    root = Path(pygments.__file__).parent
    checked = 0
    for path in sorted(root.rglob("*.py")):
        for site in scan_text(path.read_text(encoding="utf-8"), path.name):
            data = {"repo": "o/n", "exception": site.exception, "message": site.template}
            data["source"] = source_data(site, "0" * 40)
            expected = yaml.dump(
                data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=10_000
            )
            assert dump(data) == expected
            checked += 1
    assert checked > 50


def test_many_files_scanned_on_every_core_give_what_one_process_gives() -> None:
    from errdex.source import scan

    files: list[tuple[str, str | None]] = [
        (f"pkg/m{i}.py", FIRST if i % 3 else "def broken(:\n") for i in range(450)
    ]
    files.append(("pkg/latin1.py", None))
    together = scan.scan_files(files)
    one_by_one = [scan._scan_file(path, text) for path, text in files]
    assert together == one_by_one
    assert sum(isinstance(r, str) for r in together) == 151


def test_a_raise_in_an_else_and_in_handlers_keeps_its_condition_and_function() -> None:
    code = (
        "class A:\n"
        "    def f(self, x):\n"
        "        try:\n"
        "            pass\n"
        "        except KeyError:\n"
        "            if x:\n"
        "                pass\n"
        "            else:\n"
        '                raise ValueError("in the else")\n'
        "        finally:\n"
        "            match x:\n"
        "                case 1:\n"
        '                    raise TypeError("in a case")\n'
    )
    first, second = scan_text(code, "a.py")
    assert (first.function, first.condition) == ("A.f", "not (x)")
    assert (second.function, second.condition) == ("A.f", None)


def test_raising_a_caught_exceptions_class_records_the_class_caught() -> None:
    """``raise error.__class__(…)`` (or ``type(error)(…)``) in ``except
    ModuleNotFoundError as error`` raises a ModuleNotFoundError, which is what a user sees
    printed: the record says so, not ``error.__class__`` (a page and an exception list
    named after a variable). Where the class cannot be told, nothing is recorded: a
    tuple caught, ``except Exception``, ``except*`` (a group), a name given another value
    in the handler, a name after its handler ends (Python deletes it), a function
    defined in the handler, a name no handler gave."""
    code = (
        "def f():\n"
        "    try:\n"
        "        import x\n"
        "    except ModuleNotFoundError as error:\n"
        '        raise error.__class__(f"{error}; install x to use f")\n'
        "    try:\n"
        "        import y\n"
        "    except KeyError as error:\n"
        '        raise type(error)("raised as the type of what was caught")\n'
        "    try:\n"
        "        g()\n"
        "    except (KeyError, ValueError) as error:\n"
        '        raise error.__class__("a tuple of classes was caught")\n'
        "    except Exception as error:\n"
        '        raise error.__class__("any exception at all was caught")\n'
        "    try:\n"
        "        g()\n"
        "    except* ValueError as group:\n"
        '        raise group.__class__("an exception group was caught")\n'
        "    try:\n"
        "        g()\n"
        "    except KeyError as error:\n"
        "        error = TypeError()\n"
        '        raise error.__class__("a name given another value")\n'
        "    try:\n"
        "        g()\n"
        "    except KeyError as error:\n"
        "        try:\n"
        "            h()\n"
        "        except ValueError as error:\n"
        "            pass\n"
        '        raise error.__class__("the name is gone after the inner handler")\n'
        "    try:\n"
        "        g()\n"
        "    except KeyError as error:\n"
        "        def helper(error):\n"
        '            raise error.__class__("a parameter of that name")\n'
        '    raise error.__class__("no handler gives this name here")\n'
    )
    scanned = scan_source(code, "a.py")
    assert [(s.exception, s.line) for s in scanned.sites] == [
        ("ModuleNotFoundError", 5),
        ("KeyError", 9),
    ]
    skipped = [n.split(": ", 1)[1] for n in scanned.notes]
    assert (
        skipped
        == ["'error.__class__' has no name to record; skipped"] * 2
        + ["'group.__class__' has no name to record; skipped"]
        + ["'error.__class__' has no name to record; skipped"] * 4
    )


PARSER_V1 = """\
class Parser:
    def fail(self, msg, lineno):
        if lineno < 0:
            raise ValueError("a line number cannot be negative")
        raise ValueError(msg)
"""


def test_pin_keeps_a_hand_written_record_of_a_raise_that_writes_no_message(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """``raise ValueError(msg)`` of a parameter gives scan no record: one written by hand
    says the message in words. pin finds its raise by exception and place (at its line
    while it has no excerpt, then as the same statement in its function), moves it with
    the code and keeps its words; it is removed once the raise is gone, and comes back
    with it. A record whose raise had words never takes such a raise's place."""
    repo = git_repository(tmp_path / "up", ("v1", {"pkg/parse.py": PARSER_V1}))
    for tag, text in (
        ("v2", "import os\n\n" + PARSER_V1),  # two lines above: both raises move
        ("v3", "import os\n\n" + PARSER_V1.replace("raise ValueError(msg)", "return None")),
        ("v4", "import os\n\n" + re.sub(r"  if lineno.*\n.*\n", "", PARSER_V1)),
    ):
        (repo / "pkg" / "parse.py").write_text(text)
        git(repo, "commit", "-qam", tag)
        git(repo, "tag", tag)
    run_ok(run, "scan", repo, "--repo", "example/up", "--ref", "v1", "--content", content)
    (content / "errors" / "by-hand.yaml").write_text(
        "repo: example/up\nexception: ValueError\n"
        'message: "unexpected end of template, expected {expected}"\n'
        'source:\n  commit: "0000000"\n  path: pkg/parse.py\n  line: 5\n'
        "meaning: Written by a person.\n"
    )
    mine = "unexpected end of template, expected {expected}"
    worded = "a line number cannot be negative"

    def pin(tag: str) -> str:
        said = run_ok(run, "pin", repo, "--repo", "example/up", "--ref", tag, "--content", content)
        return str(said.err)

    assert "errdex pin: 2 unchanged, 0 moved, 0 reworded, 0 removed" in pin("v1")
    assert "raise ValueError(msg)" in records(content)[mine]["source"]["excerpt"]["code"]
    assert "errdex pin: 0 unchanged, 2 moved, 0 reworded, 0 removed" in pin("v2")
    after = records(content)
    assert after[mine]["_file"].name == "by-hand.yaml"
    assert (after[mine]["source"]["line"], after[mine]["source"]["commit"]) == (
        7,
        git(repo, "rev-parse", "v2"),
    )
    assert after[mine]["meaning"] == "Written by a person."
    assert after[worded]["source"]["line"] == 6
    # A scan of the same commit finds it there too: nothing "no longer found", and its
    # raise is recorded.
    scanned = run_ok(run, "scan", repo, "--repo", "example/up", "--ref", "v2", "--content", content)
    assert "0 new, 0 refreshed, 2 unchanged, 0 no longer found" in scanned.err, scanned.err
    assert "not recorded" not in scanned.err

    assert "errdex pin: 1 unchanged, 0 moved, 0 reworded, 1 removed" in pin("v3")
    assert records(content)[mine]["source"]["removed_in"] == git(repo, "rev-parse", "v3")

    # The raise with words gone, and the one without back: each record where it belongs.
    back = run_ok(run, "pin", repo, "--repo", "example/up", "--ref", "v4", "--content", content)
    said = str(back.err)
    assert "0 reworded, 1 removed, 0 still removed, 0 renamed, 0 new, 1 back" in said, said
    # Its page no longer says "Removed upstream": the maintainer is told which came back.
    came = [line for line in back.out.splitlines() if line.startswith("back: ")]
    assert came == [f"back: {content / 'errors' / 'by-hand.yaml'} at pkg/parse.py:5"], back.out
    after = records(content)
    assert "removed_in" not in after[mine]["source"] and after[mine]["source"]["line"] == 5
    assert after[worded]["source"]["removed_in"] == git(repo, "rev-parse", "v4")

    # scan refreshes it as pin does, its words kept.
    v2 = git(repo, "rev-parse", "v2")
    scanned = run_ok(
        run, "scan", repo, "--repo", "example/up", "--commit", v2, "--content", content
    )
    assert "0 new, 2 refreshed, 0 unchanged, 0 no longer found" in scanned.err, scanned.err
    after = records(content)
    assert after[mine]["source"]["line"] == 7 and after[mine]["meaning"] == "Written by a person."


CONFIG_V1 = """\
class ConfigError(Exception):
    pass


def load(problem):
    raise ConfigError(problem)
"""


def test_pin_places_a_record_new_wrote_from_a_traceback_and_follows_a_renamed_function(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """``new`` names the class as the traceback prints it (``pkg.cfg.ConfigError``) and
    takes the line from the version the paste ran: pin still finds the one raise of
    that class that writes no message in the file. Pinned, the record follows it in
    its function."""
    repo = git_repository(tmp_path / "up", ("v1", {"pkg/cfg.py": CONFIG_V1}))
    moved = "import os\n\n" + CONFIG_V1
    (repo / "pkg" / "cfg.py").write_text(moved)
    git(repo, "commit", "-qam", "renamed")
    git(repo, "tag", "v2")
    (content / "errors").mkdir(parents=True, exist_ok=True)
    (content / "errors" / "cfg.yaml").write_text(
        "repo: example/up\nexception: pkg.cfg.ConfigError\n"
        'message: "the section {section} is missing"\n'
        'source:\n  commit: "0000000"\n  path: pkg/cfg.py\n  line: 9\n'
    )

    def pin(tag: str) -> dict:
        said = run_ok(run, "pin", repo, "--repo", "example/up", "--ref", tag, "--content", content)
        assert "1 moved, 0 reworded, 0 removed" in said.err, said.err
        return yaml.safe_load((content / "errors" / "cfg.yaml").read_text())["source"]

    first = pin("v1")
    assert (first["line"], first["function"]) == (6, "load")
    second = pin("v2")
    assert (second["line"], second["function"]) == (8, "load")


MAPPED_V1 = """\
class ConnectError(Exception):
    pass


def send(kind, message):
    mapped = {"connect": ConnectError}.get(kind, RuntimeError)
    raise mapped(message)
"""


def test_pin_follows_a_record_of_a_raise_whose_class_is_picked_as_it_runs(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """``new`` writes the class the traceback prints (``ConnectError``) for a raise that
    names none (``raise mapped(message)``): pin follows that raise, rather than saying
    the error is no longer raised."""
    repo = git_repository(tmp_path / "up", ("v1", {"pkg/net.py": MAPPED_V1}))
    (repo / "pkg" / "net.py").write_text("import os\n\n" + MAPPED_V1)
    git(repo, "commit", "-qam", "moved")
    git(repo, "tag", "v2")
    (content / "errors").mkdir(parents=True, exist_ok=True)
    (content / "errors" / "net.yaml").write_text(
        "repo: example/up\nexception: pkg.net.ConnectError\n"
        'message: "All connection attempts failed"\n'
        'source:\n  commit: "0000000"\n  path: pkg/net.py\n  line: 7\n'
    )
    for tag, line in (("v1", 7), ("v2", 9)):
        said = run_ok(run, "pin", repo, "--repo", "example/up", "--ref", tag, "--content", content)
        assert "0 removed" in said.err, said.err
        source = yaml.safe_load((content / "errors" / "net.yaml").read_text())["source"]
        assert (source["line"], source["function"]) == (line, "send")
        assert "removed_in" not in source


LOAD_V1 = """\
def load(kind, msg):
    handler = {"a": RuntimeError}.get(kind, ValueError)
    if kind == "key":
        raise KeyError(msg)
    if kind == "other":
        raise handler(msg)
"""


def test_pin_removes_a_record_whose_raise_is_gone_though_the_function_raises_another(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """A record of ``raise KeyError(msg)`` whose raise a release deletes is removed: the
    function's ``raise handler(msg)`` is no raise the record followed."""
    repo = git_repository(tmp_path / "up", ("v1", {"pkg/m.py": LOAD_V1}))
    (repo / "pkg" / "m.py").write_text(
        LOAD_V1.replace("        raise KeyError(msg)\n", "        pass\n")
    )
    git(repo, "commit", "-qam", "no KeyError")
    git(repo, "tag", "v2")
    commit = git(repo, "rev-parse", "v1^{commit}")
    (content / "errors").mkdir(parents=True, exist_ok=True)
    (content / "errors" / "key.yaml").write_text(
        "repo: example/up\nexception: KeyError\n"
        'message: "no such kind: {kind}"\n'
        f'source:\n  commit: "{commit}"\n  path: pkg/m.py\n  line: 4\n  function: load\n'
    )
    said = run_ok(run, "pin", repo, "--repo", "example/up", "--ref", "v2", "--content", content)
    assert "1 removed" in said.err, said.err


def test_pin_follows_a_raise_of_a_class_in_a_name_when_another_function_names_the_class(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    later = MAPPED_V1 + "\n\ndef connect(reason):\n    raise ConnectError(reason)\n"
    repo = git_repository(
        tmp_path / "up", ("v1", {"pkg/net.py": MAPPED_V1}), ("v2", {"pkg/net.py": later})
    )
    (content / "errors").mkdir(parents=True, exist_ok=True)
    (content / "errors" / "net.yaml").write_text(
        "repo: example/up\nexception: pkg.net.ConnectError\n"
        'message: "All connection attempts failed"\n'
        'source:\n  commit: "0000000"\n  path: pkg/net.py\n  line: 7\n'
    )
    for tag in ("v1", "v2"):
        said = run_ok(run, "pin", repo, "--repo", "example/up", "--ref", tag, "--content", content)
        assert "0 removed" in said.err, said.err
        source = yaml.safe_load((content / "errors" / "net.yaml").read_text())["source"]
        assert (source["line"], source["function"]) == (7, "send")


HELPERS_V1 = """\
def f(msg):
    raise ValueError(msg)


def g(msg):
    raise ValueError(msg)
"""


def test_pin_keeps_each_hand_written_record_at_its_own_raise_and_no_other(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """A helper's ``raise ValueError(msg)`` raises many messages, a record each; an edit
    of the statement (``from None``) keeps them there. A record whose raise is gone from
    its function is removed, not moved to another function's raise."""
    repo = git_repository(tmp_path / "up", ("v1", {"pkg/m.py": HELPERS_V1}))
    later = HELPERS_V1.replace("raise ValueError(msg)", "return None", 1)
    (repo / "pkg" / "m.py").write_text(later.replace("(msg)\n", "(msg) from None\n"))
    git(repo, "commit", "-qam", "v2")
    git(repo, "tag", "v2")
    (content / "errors").mkdir(parents=True, exist_ok=True)
    for name, line, function, words in (
        ("a", 2, "f", "the first thing went wrong"),
        ("b", 6, "g", "the second thing went wrong"),
        ("c", 6, "g", "the third thing went wrong"),
    ):
        (content / "errors" / f"{name}.yaml").write_text(
            f'repo: example/up\nexception: ValueError\nmessage: "{words}"\nsource:\n'
            f'  commit: "0000000"\n  path: pkg/m.py\n  line: {line}\n  function: {function}\n'
        )

    def pin(tag: str) -> str:
        said = run_ok(run, "pin", repo, "--repo", "example/up", "--ref", tag, "--content", content)
        return str(said.err)

    assert "errdex pin: 3 unchanged, 0 moved, 0 reworded, 0 removed" in pin("v1")
    assert "errdex pin: 2 unchanged, 0 moved, 0 reworded, 1 removed" in pin("v2")
    after = {r["message"]: r["source"] for r in records(content).values()}
    assert after["the first thing went wrong"]["removed_in"] == git(repo, "rev-parse", "v2")
    for words in ("the second thing went wrong", "the third thing went wrong"):
        assert "removed_in" not in after[words] and after[words]["line"] == 6
        assert "raise ValueError(msg) from None" in after[words]["excerpt"]["code"]


WORDED_V1 = """\
def check(x):
    if x < 0:
        msg = "x is negative"
        raise ValueError(msg)
    return x


def fail(msg):
    raise ValueError(msg)
"""


def test_a_raise_with_words_given_through_a_name_is_reworded_not_moved_to_a_helper(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """``msg = "x is negative"`` then ``raise ValueError(msg)`` has words, which scan
    reads: its record, reworded, takes the new words where it is, and the helper's
    ``raise ValueError(msg)`` below, which writes none, does not take it."""
    repo = git_repository(tmp_path / "up", ("v1", {"pkg/m.py": WORDED_V1}))
    (repo / "pkg" / "m.py").write_text(WORDED_V1.replace("x is negative", "x must be zero or more"))
    git(repo, "commit", "-qam", "v2")
    git(repo, "tag", "v2")
    run_ok(run, "scan", repo, "--repo", "example/up", "--ref", "v1", "--content", content)
    said = run_ok(
        run,
        "pin",
        repo,
        "--repo",
        "example/up",
        "--commit",
        git(repo, "rev-parse", "v2"),
        "--content",
        content,
    )
    assert "0 moved, 1 reworded, 0 removed" in said.err, said.err
    (record,) = records(content).values()
    assert record["message"] == "x must be zero or more" and record["source"]["line"] == 4


REVIEWED_V1 = """\
def fail(msg):
    raise ValueError(msg)


def check(x, msg):
    if x < 0:
        fail("x must not be negative")
    if x > 100:
        raise ValueError(f"bad {x}")
    raise ValueError(msg)
"""


def test_pin_tells_hand_written_records_by_their_raise_at_their_commit(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """Whether a record was written by hand is read from its raise at the commit it is
    pinned to, not guessed from its words: a scanned record of a raise with short words
    (``f"bad {x}"``), reworded, is reworded where it is, never moved to the
    ``raise ValueError(msg)`` below it; a hand-written record of the helper ``fail``
    stays with it, though its excerpt shows its words passed in by a caller; and a
    record stays in the function it names when another function's raise comes to its
    line."""
    repo = git_repository(tmp_path / "up", ("v1", {"pkg/m.py": REVIEWED_V1}))
    helper = "def other(msg):\n    raise ValueError(msg)\n\n\n"
    (repo / "pkg" / "m.py").write_text(helper + REVIEWED_V1.replace("bad {x}", "awful {x}"))
    git(repo, "commit", "-qam", "v2")
    v1, v2 = git(repo, "rev-parse", "HEAD~1"), git(repo, "rev-parse", "HEAD")
    run_ok(run, "scan", repo, "--repo", "example/up", "--commit", v1, "--content", content)
    (content / "errors" / "by-hand.yaml").write_text(
        "repo: example/up\nexception: ValueError\n"
        'message: "x must not be negative"\n'
        'source:\n  commit: "0000000"\n  path: pkg/m.py\n  line: 2\n  function: fail\n'
    )

    def pin(commit: str) -> str:
        said = run_ok(
            run, "pin", repo, "--repo", "example/up", "--commit", commit, "--content", content
        )
        return str(said.err)

    assert "0 removed" in pin(v1)
    said = pin(v2)
    assert "1 reworded, 0 removed" in said, said
    after = records(content)
    assert after["awful {x}"]["source"]["line"] == 13  # where it was, reworded
    mine = after["x must not be negative"]["source"]
    assert (mine["line"], mine["function"]) == (6, "fail")  # not other's raise at line 2


def test_a_raise_of_what_a_function_makes_records_the_class_it_returns() -> None:
    """``raise self._invalid(…)`` raises what ``_invalid`` returns: the record names that
    class, as the user's traceback does, not ``self._invalid``; the fields the function
    fills in (``{field}``) are placeholders. The method is the enclosing class's (another
    class's of that name is another); ``Optional[…]``, ``type[…]`` and ``@overload``
    stubs say the class too. A class's own maker without an annotation raises that class;
    a function that raises itself (``-> NoReturn``), or names no class (none, a type
    variable), makes no record, and scan says why."""
    code = (
        "E = TypeVar('E')\n"
        "class TagError(Exception):\n"
        "    @classmethod\n"
        "    def from_value(cls, msg):\n"
        "        return cls(msg)\n"
        "def from_value(msg) -> str:\n"
        "    return msg\n"
        "class Report:\n"
        "    def _invalid(self, msg) -> str:\n"
        "        return msg\n"
        "class Reader:\n"
        "    def _invalid(self, msg: str) -> InvalidTag:\n"
        "        return InvalidTag(msg.format_map({'field': repr(self.name)}))\n"
        "    def _maybe(self, msg) -> 'Optional[InvalidTag]':\n"
        "        return InvalidTag(msg)\n"
        "    @overload\n"
        "    def _either(self, msg: str) -> InvalidTag: ...\n"
        "    def _either(self, msg):\n"
        "        return InvalidTag(msg)\n"
        "    def _fail(self, msg: str) -> NoReturn:\n"
        "        raise TagError(msg)\n"
        "    def _anything(self, msg) -> E:\n"
        "        return object()\n"
        "    def read(self, value):\n"
        "        if not value:\n"
        '            raise self._invalid("{field} needs a value")\n'
        "        if value == '?':\n"
        '            raise self._invalid(f"{value!r} is no tag for {{field}}")\n'
        "        if value == '+':\n"
        '            raise self._maybe("a plus is no tag")\n'
        "        if value == '-':\n"
        '            raise self._either("a minus is no tag")\n'
        "        if value == '#':\n"
        '            raise TagError.from_value("a hash is no tag")\n'
        "        if value == '!':\n"
        '            raise self._fail("a bang is no tag")\n'
        "        if value == '*':\n"
        '            raise self._anything("a star is no tag")\n'
    )
    more = (
        "class Base:\n"
        "    @overload\n"
        "    def _bad(self, msg: str) -> BadTag: ...\n"
        "    def _bad(self, msg):\n"
        "        return BadTag(msg)\n"
        "class Child(Base):\n"
        "    def read(self, value):\n"
        '        raise self._bad(f"inherited: {value}")\n'
        "def outer():\n"
        "    def _nested(msg) -> NestedTag:\n"
        "        return NestedTag(msg)\n"
        '    raise _nested("made in a function")\n'
        "class Other:\n"
        "    def read(self):\n"
        '        raise type(self)._nested("made through type(self)")\n'
        "    def imported(self):\n"
        '        raise Elsewhere.from_value("a class of another module")\n'
        "def deep(msg) -> " + " | ".join(["None"] * 1200) + ":\n"
        "    return None\n"
    )
    scanned = scan_source(code + more, "pkg/tags.py")
    assert [(s.exception, s.template) for s in scanned.sites] == [
        ("InvalidTag", "{field} needs a value"),
        ("InvalidTag", "{value} is no tag for {field}"),
        ("InvalidTag", "a plus is no tag"),
        ("InvalidTag", "a minus is no tag"),
        ("TagError", "a hash is no tag"),
        ("BadTag", "inherited: {value}"),
        ("NestedTag", "made in a function"),
        ("NestedTag", "made through type(self)"),
        ("Elsewhere.from_value", "a class of another module"),
    ]
    said = "makes the exception raised, and its return annotation names no class errdex can read"
    assert scanned.notes == [
        f"pkg/tags.py:36: _fail() {said}; skipped",
        f"pkg/tags.py:38: _anything() {said}; skipped",
    ]


def test_a_function_of_another_module_that_makes_the_exception_is_no_class() -> None:
    """matplotlib's ``raise _api.kwarg_error("axis", kwargs)``: a function of another
    module makes a TypeError and words its message; the name of what it is about is
    no message. Python's ``socket.error`` is a class, and so is what ``error_class``
    holds."""
    code = (
        "def axis(*args, **kwargs):\n"
        "    raise _api.kwarg_error('axis', kwargs)\n\n"
        "def connect(host):\n"
        "    raise socket.error('no route to the host')\n\n"
        "def parse(self, text):\n"
        "    raise self.error_class('the text ends too soon')\n\n"
        "def login(reply):\n"
        "    raise ftplib.error_perm('530 Login incorrect')\n\n"
        "class error_proto(Exception):\n"
        "    pass\n\n"
        "def greet(reply):\n"
        "    raise error_proto('-ERR no greeting')\n"
    )
    scanned = scan_source(code, "pkg/axes.py")
    assert [(s.exception, s.template) for s in scanned.sites] == [
        ("socket.error", "no route to the host"),
        ("self.error_class", "the text ends too soon"),
        ("ftplib.error_perm", "530 Login incorrect"),
        ("error_proto", "-ERR no greeting"),
    ]
    assert scanned.notes == [
        "pkg/axes.py:2: kwarg_error() of another module makes the exception raised; skipped"
    ]


def test_a_maker_given_the_class_to_make_raises_that_class() -> None:
    """``raise _format(NotFoundError, message, response)`` of a maker whose first
    parameter is ``Type[HubError]`` raises a NotFoundError with that message (a hub
    client's commonest errors were counted as raises with no message written in them);
    with ``type[E]`` of a type variable too. Given a variable, not a class, it says so."""
    code = (
        "E = TypeVar('E', bound=Exception)\n"
        "def _format(error_type: Type[HubError], custom: str, response) -> HubError:\n"
        "    return error_type(custom + response.extra)\n"
        "def _make(kind: type[E], text: str) -> E:\n"
        "    return kind(text)\n"
        "class Client:\n"
        "    def _wrap(self, kind: Type[HubError], text):\n"
        "        return kind(text)\n"
        "    def fetch(self, response, kinds):\n"
        "        if response.status == 404:\n"
        '            message = f"{response.status} Error.\\n\\nNo such repo: {response.url}."\n'
        "            raise _format(errors.RepoNotFoundError, message, response) from None\n"
        "        if response.status == 410:\n"
        '            raise _make(GoneError, "the repo is gone")\n'
        "        if response.status == 451:\n"
        '            raise self._wrap(BlockedError, f"blocked in {response.region}")\n'
        "        if response.status == 500:\n"
        '            raise _format(kinds[0], "server trouble", response)\n'
        "        if response.status == 502:\n"
        '            raise _format(BAD_GATEWAY, "no gateway", response)\n'
    )
    # Makers that are no such thing: one that makes another class, one that warns and
    # makes a RuntimeError, one that raises itself. Neither records the class given.
    others = (
        "def _translate(expected: Type[Exception], message: str) -> Exception:\n"
        "    return UnexpectedError(message)\n"
        "def _report(category: type[Warning], text):\n"
        "    warnings.warn(text, category)\n"
        "    return RuntimeError(text)\n"
        "def _fail(error_type: Type[HubError], message):\n"
        "    raise error_type('hub: ' + message)\n"
        "def make(cls: Type[E], message) -> E:\n"
        "    return cls(message)\n"
        "class Tools:\n"
        "    @staticmethod\n"
        "    def build(cls: Type[HubError], message):\n"
        "        return cls(message)\n"
        "def use(key):\n"
        '    raise _translate(KeyError, "the key is missing from the table")\n'
        "def old():\n"
        '    raise _report(DeprecationWarning, "old() is going away, use new()")\n'
        "def fail():\n"
        '    raise _fail(NotFoundError, "no such file")\n'
        "def made():\n"
        '    raise make(QuotaError, "over the quota")\n'
        "def built():\n"
        '    raise Tools.build(LimitError, "over the limit")\n'
    )
    scanned = scan_source(code + others, "hub/http.py")
    # (``_fail``'s own ``raise error_type(…)`` is recorded as scan records a raise of any
    # name: not by this rule.)
    assert [(s.exception, s.template) for s in scanned.sites if s.exception != "error_type"] == [
        ("errors.RepoNotFoundError", "{response.status} Error.\n\nNo such repo: {response.url}."),
        ("GoneError", "the repo is gone"),
        ("BlockedError", "blocked in {response.region}"),
        ("QuotaError", "over the quota"),
        ("LimitError", "over the limit"),
    ]
    said = "makes the class given first, and no class's name is given; skipped"
    assert scanned.notes[:2] == [
        f"hub/http.py:18: _format() {said}",
        f"hub/http.py:20: _format() {said}",
    ]
    assert not any("KeyError" in s.exception or "Warning" in s.exception for s in scanned.sites)


def test_a_release_pin_writes_no_second_record_beside_one_it_cannot_read(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """A record file pin cannot read is left alone, and its raise gets no new record
    beside it (two files of one id, which the build refuses): pin says to mend it."""
    first = "def f(x):\n    if x:\n        raise ValueError('x must be false')\n"
    later = {"pkg/m.py": first, "pkg/extra.py": "def g():\n    raise KeyError('no g here')\n"}
    repo = git_repository(tmp_path / "up", ("v1", {"pkg/m.py": first}), ("v2", later))
    run_ok(run, "scan", repo, "--repo", "example/up", "--ref", "v1", "--content", content)
    (broken,) = sorted((content / "errors").rglob("*.yaml"))
    broken.write_text(broken.read_text().replace("  function: f\n", "  function: 5\n"))
    said = run_ok(run, "pin", repo, "--repo", "example/up", "--ref", "v2", "--content", content)
    assert f"{broken.name}: not read, so pkg/m.py:3 gets no record beside it" in said.err
    written = sorted(p.name for p in broken.parent.glob("*.yaml"))
    assert len(written) == 2 and broken.name in written  # and extra.py's new record
    assert not list(broken.parent.glob("*-2.yaml"))


def test_a_release_pin_numbers_a_new_record_beside_another_repositorys_file(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """A file of the new record's name that holds another repository's record (its owner
    renamed, say) is no record of this raise: the new one is written beside it."""
    first = "def f(x):\n    if x:\n        raise ValueError('x must be false')\n"
    repo = git_repository(tmp_path / "up", ("v1", {"pkg/m.py": first}))
    run_ok(run, "scan", repo, "--repo", "example/up", "--ref", "v1", "--content", content)
    (mine,) = sorted((content / "errors").rglob("*.yaml"))
    text = mine.read_text()
    mine.unlink()
    mine.write_text(text.replace("repo: example/up", "repo: example/other"))
    said = run_ok(run, "pin", repo, "--repo", "example/up", "--ref", "v1", "--content", content)
    assert "not read" not in said.err
    assert (mine.parent / f"{mine.stem}-2.yaml").is_file()


def test_a_tag_given_as_the_commit_of_a_plain_tree_says_what_to_give(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """A release unpacked from a package registry is a plain tree: its tag names no
    commit there, and ``--ref`` needs a git checkout."""
    tree = tmp_path / "unpacked"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "m.py").write_text("def f():\n    raise ValueError('no f here')\n")
    said = run("scan", tree, "--repo", "example/up", "--commit", "v1.2.0", "--content", content)
    assert said.code == 1
    assert (
        "--commit must be 7 to 40 lowercase hex digits: 'v1.2.0' (a plain tree has no git "
        "history to read a name or a tag in: give the full sha of the commit it was made "
        "from, or scan a git checkout with --ref)"
    ) in said.err
    refused = run("scan", tree, "--repo", "example/up", "--ref", "v1.2.0", "--content", content)
    assert (
        refused.code == 1
        and (
            "--ref needs a git checkout; give --commit with the full sha of the commit this "
            "tree was made from (a release's tag names it on its forge)"
        )
        in refused.err
    )


SESSION = (
    "from .. import exc as sa_exc\n"
    "from .. import exc\n"
    "from ..util import _unexpected_kw\n"
    "import numpy as np\n\n"
    "def close(self, prepared):\n"
    "    if prepared:\n"
    "        raise sa_exc.InvalidRequestError('This session is in a prepared state')\n"
    "    raise exc.InvalidRequestError('Object is already attached to a session')\n\n"
    "def returning(self, kw):\n"
    "    if kw:\n"
    "        raise _unexpected_kw('UpdateBase.returning()', kw)\n"
    "    raise self.dbapi.ProgrammingError('Cannot operate on a closed cursor')\n\n"
    "def coerce(element, exc_cls=sa_exc.ArgumentError, wrap=None):\n"
    "    if wrap:\n"
    "        raise wrap('Textual SQL expression should be declared as text()')\n"
    "    raise exc_cls('Textual SQL expression should be declared as text()')\n\n"
    "def solve(a):\n"
    "    raise np.linalg.LinAlgError('Singular matrix in this solver')\n"
)


def test_a_class_is_recorded_by_the_name_python_prints_not_the_alias_it_is_raised_by() -> None:
    """SQLAlchemy raises one class as ``sa_exc.InvalidRequestError`` in one module and
    ``exc.InvalidRequestError`` in another: three exception pages for one class, none
    named as the traceback prints it (``sqlalchemy.exc.InvalidRequestError``), and
    triage, which matches the paste's class, named none of them. A raise of a parameter
    (``exc_cls``) is of the class its default names, and one of a function of the
    package's own (``_unexpected_kw``) is no class at all."""
    scanned = scan_source(SESSION, "lib/sqlalchemy/orm/session.py")
    assert [(s.line, s.exception, s.template) for s in scanned.sites] == [
        (8, "sqlalchemy.exc.InvalidRequestError", "This session is in a prepared state"),
        (9, "sqlalchemy.exc.InvalidRequestError", "Object is already attached to a session"),
        (14, "ProgrammingError", "Cannot operate on a closed cursor"),
        (19, "sqlalchemy.exc.ArgumentError", "Textual SQL expression should be declared as text()"),
        (22, "numpy.linalg.LinAlgError", "Singular matrix in this solver"),
    ]
    assert scanned.notes == [
        "lib/sqlalchemy/orm/session.py:13: _unexpected_kw names no class: a function of its "
        "own package, which makes the exception; skipped",
        "lib/sqlalchemy/orm/session.py:18: wrap names no class: a parameter with no class as "
        "its default; skipped",
    ]
    # In the package's own __init__, ``from . import exc`` is the package's exc.
    top = scan_source("from . import exc\nraise exc.ArgumentError('bad url')\n", "pkg/__init__.py")
    assert [s.exception for s in top.sites] == ["pkg.exc.ArgumentError"]


def test_a_record_written_with_an_alias_for_its_class_is_kept_by_scan_and_pin(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """A record an earlier scan wrote as ``sa_exc.InvalidRequestError``, prose added, is
    the raise scan now says ``pkg.exc.InvalidRequestError`` of: rescanned, it is kept
    (no second record, none "no longer found"), and pin moves it with its line."""
    first = {"pkg/__init__.py": "", "pkg/exc.py": "", "pkg/orm/__init__.py": ""}
    first["pkg/orm/session.py"] = SESSION
    later = {"pkg/orm/session.py": "# a comment above it all\n" + SESSION}
    repo = git_repository(tmp_path / "up", ("v1", first), ("v2", later))
    run_ok(run, "scan", repo, "--repo", "example/up", "--ref", "v1", "--content", content)
    path = records(content)["This session is in a prepared state"]["_file"]
    text = path.read_text()
    assert "exception: pkg.exc.InvalidRequestError\n" in text
    prose = "meaning: |\n  Written by hand.\n"
    path.write_text(text.replace("exception: pkg.exc.", "exception: sa_exc.") + prose)
    before = {p.name for p in (content / "errors").rglob("*.yaml")}
    again = run_ok(run, "scan", repo, "--repo", "example/up", "--ref", "v1", "--content", content)
    assert "0 new, " in again.err and " 0 no longer found" in again.err, again.err
    assert {p.name for p in (content / "errors").rglob("*.yaml")} == before
    pinned = run_ok(run, "pin", repo, "--repo", "example/up", "--ref", "v2", "--content", content)
    assert "5 moved, 0 reworded, 0 removed" in pinned.err, pinned.err
    data = yaml.safe_load(path.read_text())
    assert data["exception"] == "sa_exc.InvalidRequestError"
    assert data["source"]["line"] == 9
    assert data["meaning"] == "Written by hand.\n"


def test_a_message_an_exception_class_gives_itself_is_recorded_where_it_is_written() -> None:
    """SQLAlchemy's best-known 2.0 error, "Not an executable object: 'SELECT 1'", is
    worded by its class (``super().__init__("…" % target)``); its raises give only the
    value (``raise exc.ObjectNotExecutableError(statement)``), and no page said it. The
    message is recorded at the ``__init__`` that writes it, by the class's printed name;
    an ``__init__`` that passes on what it was given is no raise and is not said."""
    code = (
        "class ArgumentError(Exception):\n"
        "    pass\n\n"
        "class ObjectNotExecutableError(ArgumentError):\n"
        "    def __init__(self, target):\n"
        '        super().__init__("Not an executable object: %r" % target)\n'
        "        self.target = target\n\n"
        "class CompileError(ArgumentError):\n"
        "    def __init__(self, message, code=None):\n"
        "        super().__init__(message)\n\n"
        "class LoaderStrategyException(ArgumentError):\n"
        "    def __init__(self, key, prop):\n"
        '        ArgumentError.__init__(self, f"No strategy {key} for {prop}")\n\n'
        "class Reader:\n"
        "    def __init__(self, path):\n"
        "        super().__init__('a reader is no error')\n"
    )
    scanned = scan_source(code, "lib/sqlalchemy/exc.py")
    assert [(s.line, s.exception, s.template, s.function) for s in scanned.sites] == [
        (
            6,
            "sqlalchemy.exc.ObjectNotExecutableError",
            "Not an executable object: {target}",
            "ObjectNotExecutableError.__init__",
        ),
        (
            15,
            "sqlalchemy.exc.LoaderStrategyException",
            "No strategy {key} for {prop}",
            "LoaderStrategyException.__init__",
        ),
    ]
    assert scanned.notes == [] and scanned.unread == []


def test_a_message_an_exception_class_gives_itself_passes_the_strict_check(  # type: ignore[no-untyped-def]
    run, content: Path, tmp_path: Path
) -> None:
    """The record scan writes at ``super().__init__(msg)`` has no ``raise`` on its line:
    networkx's freshly scanned site failed ``check --strict`` on its own W303."""
    package = tmp_path / "pkg" / "graphs"
    package.mkdir(parents=True)
    (package / "quality.py").write_text(
        "class NotAPartition(Exception):\n"
        "    def __init__(self, G, collection):\n"
        '        msg = f"{collection} is not a valid partition of the graph {G}"\n'
        "        super().__init__(msg)\n"
    )
    run_ok(
        run,
        "scan",
        package.parent,
        "--repo",
        "me/graphs",
        "--commit",
        "0" * 40,
        "--content",
        content,
    )
    (written,) = (content / "errors" / "me" / "graphs").glob("*.yaml")
    assert "line: 4\n" in written.read_text()
    checked = run_ok(run, "check", "--strict", "--content", content)
    assert "W303" not in checked.err


def test_a_message_given_around_the_function_that_raises_it_is_recorded() -> None:
    """networkx's most pasted error, "not implemented for directed type", is worded by a
    decorator (``errmsg = f"…"``) and raised in the function it returns; dask words some
    of its longest messages once at a module's top (``_ERR = "…"``) and raises
    ``ValueError(_ERR.format(axis))``. Neither had a record. A name bound again (in the
    function around, in the module, by ``global``, or by the raising function itself)
    holds no message scan can tell."""
    code = (
        "_ERR = 'FFT needs one chunk along axis {}'\n"
        "_TWICE = 'first'\n"
        "_TWICE = 'second'\n"
        "_MOVED = 'may move'\n\n"
        "def move():\n"
        "    global _MOVED\n"
        "    _MOVED = 'moved'\n\n"
        "def fft(axis):\n"
        "    raise ValueError(_ERR.format(axis))\n\n"
        "def twice():\n"
        "    raise ValueError(_TWICE)\n\n"
        "def moved():\n"
        "    raise ValueError(_MOVED)\n\n"
        "def not_implemented_for(*kinds):\n"
        "    errmsg = f\"not implemented for {' '.join(kinds)} type\"\n"
        "    again = 'one'\n"
        "    again = 'two'\n"
        "    def check(g):\n"
        "        if g.is_directed():\n"
        "            raise NotImplementedFor(errmsg)\n"
        "        raise NotImplementedFor(again)\n"
        "    def own(errmsg):\n"
        "        raise NotImplementedFor(errmsg)\n"
        "    return check\n"
    )
    scanned = scan_source(code, "pkg/decorators.py")
    assert [(s.line, s.template, s.function) for s in scanned.sites] == [
        (11, "FFT needs one chunk along axis {axis}", "fft"),
        (25, "not implemented for {' '.join(kinds)} type", "not_implemented_for.check"),
    ]
    assert len(scanned.unread) == 4  # _TWICE, _MOVED, again, own's parameter


def test_an_exception_made_then_raised_by_its_name_is_recorded_at_the_raise() -> None:
    """``e = sa_exc.InvalidRequestError("One or more mappers failed …")``, an attribute
    set on it, then ``raise e``: SQLAlchemy's most pasted configuration error had no
    record and was not counted as not recorded. A name a handler or a loop binds since
    holds something else."""
    code = (
        "def configure(mapper):\n"
        "    if mapper.failed:\n"
        "        e = InvalidRequestError(\n"
        '            "One or more mappers failed to initialize. Original exception was: %s"\n'
        "            % mapper.failed\n"
        "        )\n"
        "        e._configure_failed = mapper.failed\n"
        "        raise e\n"
        "    e = ValueError('a value made and never raised as such')\n"
        "    try:\n"
        "        mapper.run()\n"
        "    except KeyError as e:\n"
        "        raise e\n"
        "    for e in mapper.errors:\n"
        "        raise e\n"
    )
    scanned = scan_source(code, "pkg/mapper.py")
    assert [(s.line, s.exception, s.template) for s in scanned.sites] == [
        (
            8,
            "InvalidRequestError",
            "One or more mappers failed to initialize. Original exception was: {mapper.failed}",
        )
    ]


def test_a_checkout_with_no_remote_of_the_repo_is_said_to_give_links_that_will_not_open(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """A new user unpacked SQLAlchemy's release, made it a git repository to scan it
    with ``--ref HEAD``, and got a site whose every "View on GitHub" link named a commit
    GitHub does not have. Scan says so when no remote of the checkout is the repo."""
    repo = git_repository(tmp_path / "up", ("v1", {"pkg/m.py": "raise ValueError('no m')\n"}))
    scan = ("scan", repo, "--repo", "example/up", "--ref", "v1", "--content", content)
    said = run_ok(run, *scan).err
    assert (
        f"errdex scan: {repo} has no remote of github.com/example/up (git remote -v): unless "
        "its commits are there, the pages' links to the code will not open"
    ) in said
    git(repo, "remote", "add", "origin", "git@github.com:Example/up.git")
    assert "has no remote" not in run_ok(run, *scan).err
    git(repo, "remote", "set-url", "origin", "https://github.com/example/up-fork")
    assert "has no remote" in run_ok(run, *scan).err


CODEC_V1 = """\
class Codec:
    def encode(self, errors):
        if errors != "strict":
            raise ValueError(f"unsupported errors {errors}")

    def decode(self, errors):
        if errors != "strict":
            raise ValueError(f"unsupported errors {errors}")


class Incremental:
    def encode(self, errors):
        if errors != "strict":
            raise ValueError(f"unsupported errors {errors}")

    def decode(self, errors):
        if errors != "strict":
            raise ValueError(f"unsupported errors {errors}")
"""


def test_pin_keeps_each_record_of_a_shared_message_in_its_function_when_one_is_reworded(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """One message raised in four functions, four records; a release rewords the third
    raise only. Its record is reworded in place, and none of the others moves: the
    reworded one's old words, still raised nearby, are the other records' raises."""
    repo = git_repository(tmp_path / "up", ("v1", {"pkg/codec.py": CODEC_V1}))
    lines = CODEC_V1.splitlines(keepends=True)
    lines[13] = lines[13].replace("unsupported errors", "unsupported errors mode")
    (repo / "pkg" / "codec.py").write_text("".join(lines))
    git(repo, "commit", "-qam", "reworded")
    git(repo, "tag", "v2")
    run_ok(run, "scan", repo, "--repo", "example/up", "--ref", "v1", "--content", content)

    def placed() -> dict[str, tuple[int, str, str]]:
        found = {}
        for path in (content / "errors").rglob("*.yaml"):
            data = yaml.safe_load(path.read_text())
            source = data["source"]
            found[path.name] = (source["line"], source["function"], data["message"])
        return found

    before = placed()
    assert sorted(line for line, _, _ in before.values()) == [4, 8, 14, 18]
    said = run_ok(run, "pin", repo, "--repo", "example/up", "--ref", "v2", "--content", content)
    assert "0 moved, 1 reworded, 0 removed" in said.err, said.err
    after = placed()
    for name, (line, function, message) in before.items():
        if line == 14:
            assert after[name] == (14, function, "unsupported errors mode {errors}")
        else:
            assert after[name] == (line, function, message)


SHIFTED_V1 = """\
class Model:
    def setup(self, kind):
        if kind == "a":
            raise AttributeError("not here")
        if kind == "b":
            raise AttributeError("not here")
        if kind == "c":
            raise AttributeError("not here")
"""


def test_pin_keeps_the_order_of_one_functions_raises_of_one_message_when_lines_move(
    run,
    tmp_path: Path,
    content: Path,  # type: ignore[no-untyped-def]
) -> None:
    """Two lines added above three raises of one message, two lines apart: the nearest
    new line of each old one is its neighbour's. As many raises as records, they are
    paired in line order, whichever record is read first (as transformers' modular_blt
    raises "No need to inherit it!" three times, each its own function)."""
    repo = git_repository(tmp_path / "up", ("v1", {"pkg/model.py": SHIFTED_V1}))
    (repo / "pkg" / "model.py").write_text("import os\nimport sys\n" + SHIFTED_V1)
    git(repo, "commit", "-qam", "two imports")
    git(repo, "tag", "v2")
    run_ok(run, "scan", repo, "--repo", "example/up", "--ref", "v1", "--content", content)
    files = sorted((content / "errors").rglob("*.yaml"))
    by_line = {yaml.safe_load(p.read_text())["source"]["line"]: p for p in files}
    assert sorted(by_line) == [4, 6, 8]
    # Read last line first: the record of line 8 in a.yaml, of line 4 in c.yaml.
    for name, line in (("a", 8), ("b", 6), ("c", 4)):
        by_line[line].rename(by_line[line].with_name(f"{name}.yaml"))
    # A commit, not a release: a release would give each raise the record a scan of it
    # names by its id, whatever pin matched first.
    later = git(repo, "rev-parse", "v2")
    said = run_ok(run, "pin", repo, "--repo", "example/up", "--commit", later, "--content", content)
    assert "3 moved" in said.err, said.err
    folder = files[0].parent
    lines = {n: yaml.safe_load((folder / f"{n}.yaml").read_text())["source"]["line"] for n in "abc"}
    assert lines == {"a": 10, "b": 8, "c": 6}
