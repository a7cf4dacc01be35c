"""What the update tests share: a small site built once with a cache, the records they
edit, and the bytes a build from nothing makes, to hold each update to."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import make_content, snapshot

from errdex.records.model import derive_id

RECORD = """\
repo: example/project
exception: ValueError
message: "{what} number {n} is wrong"
meaning: The first version of the prose.
source:
  commit: 0123456789abcdef0123456789abcdef01234567
  path: src/project/config.py
  line: {line}
  function: check_{n}
  excerpt:
    start: {start}
    code: |
      def check_{n}(value):
          if value < 0:
              raise ValueError(f"{what} number {n} is wrong")
related:
  - "{what} number {other} is wrong"
  - A message no record has, shown as text
"""


def numbered_record(n: int, what: str = "Thing") -> str:
    start = 10 * n + 1
    return RECORD.format(what=what, n=n, other=(n + 1) % 4, line=start + 2, start=start)


def builder(run, content: Path, tmp_path: Path, *always: str) -> Callable[..., str]:  # type: ignore[no-untyped-def]
    """A build of ``content`` into tmp_path/public with a cache of its own, with the
    options ``always`` and those of the call: it must succeed, and gives what it said."""
    out, cache = tmp_path / "public", tmp_path / "cache"

    def build(*extra: str | Path) -> str:
        result = run("build", "--content", content, "--out", out, "--cache", cache, *always, *extra)
        assert result.code == 0, result.err
        return str(result.err)

    return build


def imported_by_build(argv: list[str], modules: list[str]) -> tuple[str, list[str]]:
    """Build with ``argv`` in a new Python process: what it said, and which of ``modules``
    it imported."""
    program = (
        "import sys\n"
        "from errdex.cli import main\n"
        f"assert main({argv!r}) == 0\n"
        f"print(sorted(set({modules!r}) & set(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=60
    )
    loaded: list[str] = ast.literal_eval(done.stdout)
    return done.stderr, loaded


@pytest.fixture
def site(tmp_path: Path, run):  # type: ignore[no-untyped-def]
    """Four records raised in one file, relating to each other, built once with a cache."""
    content = make_content(tmp_path, {f"r{n}.yaml": numbered_record(n) for n in range(4)})
    build = builder(run, content, tmp_path)
    build()
    return content, tmp_path / "public", build


def fresh_build(content: Path, tmp_path: Path, run) -> dict[str, bytes]:  # type: ignore[no-untyped-def]
    """What a build from nothing (no cache, no output) makes of ``content``."""
    out = tmp_path / "fresh"
    shutil.rmtree(out, ignore_errors=True)
    result = run("build", "--content", content, "--out", out, "--no-cache")
    assert result.code == 0, result.err
    return {rel: data for rel, (data, _) in snapshot(out).items()}


def bytes_of(out: Path) -> dict[str, bytes]:
    return {rel: data for rel, (data, _) in snapshot(out).items()}


def page_id(out: Path, name: str) -> str:
    """The id of the record whose message starts with ``name``."""
    del out
    return derive_id("example/project", "ValueError", f"{name} is wrong")


STATED = """\
id: "{id}"
repo: {repo}
exception: {exception}
message: "{message}"
{prose}source:
  commit: 0123456789abcdef0123456789abcdef01234567
  path: {path}
  line: {line}
  function: f_{n}
  excerpt:
    start: {start}
    code: |
      def f_{n}(value):
          if value < 0:
              raise {exception}("{message}")
related:
{related}"""


ANALYSED = """\
meaning: What it means, with `--max-model-len` in it.
analysis:
  by: AI-assisted
  date: 2026-0{month}-1{n}
"""


def stated_record(n: int, related: list[str], analysed: bool = True) -> str:
    """Record ``n`` with an id of its own (so its message can change), in one of two repos
    and three files; the even ones analysed."""
    repo = "example/project" if n < 6 else "other/tool"
    return STATED.format(
        id=f"{n:016x}",
        repo=repo,
        exception="ValueError" if n % 3 else "KeyError",
        message=f"Part {n} of the --tensor-parallel-size check failed",
        prose=ANALYSED.format(month=1 + n % 3, n=n) if analysed else "",
        path=f"src/mod{n % 3}.py",
        line=10 * n + 3,
        n=n,
        start=10 * n + 1,
        related="".join(f'  - "{entry}"\n' for entry in related) or "  []\n",
    )


def stated_site(tmp_path: Path) -> dict[str, str]:
    records = {
        f"r{n}.yaml": stated_record(
            n,
            [
                f"Part {(n + 1) % 9} of the --tensor-parallel-size check failed",
                f"{(n + 4) % 9:016x}",
            ],
            analysed=n % 2 == 0,
        )
        for n in range(9)
    }
    # An old id: its page and JSON stub name the record's title.
    records["r6.yaml"] = 'aliases: ["00000000000000aa"]\n' + records["r6.yaml"]
    return records


def write_issues(content: Path) -> None:
    """GitHub issues that paste records 2, 3 (not analysed) and 6 (another repo)."""
    for repo, pasted in (("example/project", [2, 3, 3, 2, 3]), ("other/tool", [6])):
        rows = ",\n".join(
            json.dumps(
                {
                    "number": number,
                    "title": f"Issue {number}",
                    "state": "open" if number % 2 else "closed",
                    "url": f"https://github.com/{repo}/issues/{number}",
                    "created": f"2026-05-{10 + number:02d}T08:00:00Z",
                    "closed": None,
                    "labels": [],
                    "errors": [f"{n:016x}"],
                }
            )
            for number, n in enumerate(pasted, 1)
        )
        path = content / "issues" / f"{repo}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'{{"repo": "{repo}", "issues": [\n{rows}\n]}}\n')
