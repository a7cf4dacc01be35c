"""``-q`` on every command leaves standard error to errors; ``-v`` and ``-q`` are one
choice; scan, pin and ``issues import`` draw a progress line on a terminal once they
run long, and never in a pipe or with ``-q`` (docs/commands.md#quiet-verbose-and-progress).
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import MINIMAL, ROOT, git_repository, make_content
from test_readme import leaf_commands, subcommands

from errdex.cli import main
from errdex.util import progress

MESSAGE = "the checkpoint at {path} was written by a newer release of the project"
RECORD = MINIMAL.replace('"size={size} must be positive"', f'"{MESSAGE}"') + "colour: blue\n"
"""Valid, with a warning (an unknown field): a loud run has something to say."""
PASTE = "ValueError: the checkpoint at /tmp/ck was written by a newer release of the project\n"
SOURCE = """\
def load(path):
    raise ValueError(f"no checkpoint at {path}")
"""


def site_folder(root: Path) -> None:
    """In ``root``: content/ (one record, with a warning), a git repository upstream/
    tagged v1 and v2 (a raise moved, a file that does not parse) and an issue export."""
    make_content(root, {"r.yaml": RECORD})
    git_repository(
        root / "upstream",
        ("v1", {"io.py": SOURCE, "broken.py": "def broken(:\n"}),
        ("v2", {"io.py": "import os\n" + SOURCE}),
    )
    issue = {
        "number": 1,
        "title": "It broke",
        "body": PASTE,
        "state": "OPEN",
        "url": "https://github.com/example/project/issues/1",
        "createdAt": "2026-10-01T10:00:00Z",
        "closedAt": None,
        "labels": [],
    }
    second = {**issue, "number": 2, "body": "hi", "url": issue["url"][:-1] + "2"}
    (root / "export.json").write_text(json.dumps([issue, second]))


RUNS: dict[str, list[str]] = {
    "build": ["build", "--no-cache"],
    "check": ["check"],
    "lookup": ["lookup", "--content", "content", "x" * 100_001 + "\n" + PASTE],
    "triage": ["triage", "--event", str(ROOT / "tests" / "triage" / "bot.json"), "--site", "."],
    "scan": ["scan", "upstream", "--repo", "me/up", "--ref", "v1", "--no-cache"],
    "pin": ["pin", "upstream", "--repo", "me/up", "--ref", "v1..v2", "--dry-run", "--no-cache"],
    "init": ["init", "mine", "--title", "Mine", "--repo", "me/up", "--base-url", "https://e.test/"],
    "new": ["new", "KeyError: the store at /srv/data is read-only", "--repo", "me/up"],
    "issues import": ["issues", "import", "export.json", "--repo", "example/project"],
    "draft": ["draft", "--dry-run", "--no-cache"],
    "review": ["review", "--next"],
}
"""A run of each command that works and has something to say on standard error. serve
runs until stopped: its -q is in test_serve.py's reach, not here."""


def run_in(root: Path, argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(argv)
    captured = capsys.readouterr()
    # The folders differ, the words must not.
    return code, captured.out.replace(str(root), "ROOT"), captured.err


def test_every_command_but_serve_has_a_quiet_run_here() -> None:
    assert set(RUNS) | {"serve"} == set(leaf_commands())


@pytest.mark.parametrize("command", sorted(RUNS))
def test_quiet_leaves_standard_error_empty_and_standard_output_as_it_was(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "output.txt"))
    results = []
    for name, flags in (("loud", []), ("quiet", ["-q"])):
        root = tmp_path / name
        root.mkdir()
        site_folder(root)
        monkeypatch.chdir(root)
        if command == "pin":  # records to pin
            assert main([*RUNS["scan"], "-q"]) == 0
        results.append(run_in(root, [*RUNS[command], *flags], capsys))
    loud, quiet = results
    assert loud[2], f"{command} says nothing without -q: this run tests nothing"
    assert quiet[2] == "", quiet[2]
    assert quiet[:2] == loud[:2]


def test_quiet_still_says_the_errors_that_stop_a_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    site_folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "content" / "errors" / "broken.yaml").write_text("repo: example/project\n")

    code, _out, err = run_in(tmp_path, ["build", "--no-cache", "-q"], capsys)

    assert code == 1
    assert "content/errors/broken.yaml:1: missing required field 'exception' [E200]" in err
    assert "errdex: stopped with 3 error(s) and 1 warning(s); nothing was written" in err
    assert "unknown field" not in err  # a warning that stops nothing
    assert "what the codes mean" not in err

    code, _out, err = run_in(
        tmp_path, ["scan", "upstream", "--repo", "bad", "--commit", "v1", "-q"], capsys
    )
    assert code == 1
    assert err == "errdex: --repo must be owner/name, not 'bad'\n"


def test_with_strict_a_warning_is_an_error_and_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    site_folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, _out, err = run_in(tmp_path, ["check", "--strict", "-q"], capsys)
    assert code == 1
    assert "content/errors/r.yaml:14: warning: unknown field 'colour' [W203]" in err


@pytest.mark.parametrize(
    "command", [name for name, sub in subcommands() if "-v" in sub._option_string_actions]
)
def test_quiet_and_verbose_are_one_choice(command: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main([*command.split(), "-q", "-v"])
    assert exited.value.code == 2


def test_verbose_is_on_the_commands_that_say_more() -> None:
    verbose = {name: sub for name, sub in subcommands() if "-v" in sub._option_string_actions}
    assert sorted(verbose) == ["build", "draft"]
    for sub in verbose.values():
        assert sub._option_string_actions["-v"] is sub._option_string_actions["--verbose"]


# --- Progress ---------------------------------------------------------------------------


class Terminal(io.StringIO):
    """Standard error as a terminal would be."""

    def isatty(self) -> bool:
        return True


PROGRESS: dict[str, tuple[list[str], str]] = {
    "scan": (RUNS["scan"], "errdex: parsed 2/2 files"),
    "pin": (RUNS["pin"], "errdex: parsed 1/1 files"),
    "issues import": (RUNS["issues import"], "errdex: matched 2/2 issues"),
}


def progress_of(
    command: str,
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
    stderr: io.StringIO,
    *flags: str,
) -> str:
    site_folder(root)
    monkeypatch.chdir(root)
    if command == "pin":
        assert main([*RUNS["scan"], "-q"]) == 0
    monkeypatch.setattr(sys, "stderr", stderr)
    assert main([*PROGRESS[command][0], *flags]) == 0
    monkeypatch.setattr(sys, "stderr", sys.__stderr__)
    return stderr.getvalue()


@pytest.fixture
def long_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run counts as long, outside CI."""
    monkeypatch.setattr(progress, "AFTER", 0.0)
    monkeypatch.delenv("CI", raising=False)


@pytest.mark.parametrize("command", sorted(PROGRESS))
def test_a_long_run_on_a_terminal_shows_its_progress_line(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, long_runs: None
) -> None:
    err = progress_of(command, tmp_path, monkeypatch, Terminal())
    line = PROGRESS[command][1]
    # Drawn in place, then wiped before the command's own line.
    assert f"\r{line}\r{' ' * len(line)}\r" in err, err


@pytest.mark.parametrize("command", sorted(PROGRESS))
@pytest.mark.parametrize(
    ("stderr", "flags"),
    [(io.StringIO, ()), (Terminal, ("-q",))],
    ids=["a-pipe", "quiet"],
)
def test_a_pipe_or_quiet_gets_no_progress_line(
    command: str,
    stderr: Callable[[], io.StringIO],
    flags: tuple[str, ...],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    long_runs: None,
) -> None:
    err = progress_of(command, tmp_path, monkeypatch, stderr(), *flags)
    assert "\r" not in err and PROGRESS[command][1] not in err


@pytest.mark.parametrize("command", sorted(PROGRESS))
def test_a_short_run_is_over_before_its_line_would_show(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)
    err = progress_of(command, tmp_path, monkeypatch, Terminal())
    assert "\r" not in err


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (["check", "--contnet", "x"], "usage: errdex check "),
        (["issues", "import", "f.json", "--repo", "a/b", "--bog"], "usage: errdex issues import"),
        (["--contnet", "x"], "usage: errdex build "),
    ],
)
def test_a_mistyped_option_shows_the_usage_of_its_command(
    argv: list[str], usage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(usage)
    assert f"error: unrecognized arguments: {argv[-2] if argv[-1] == 'x' else argv[-1]}" in err
