"""Rebuilds: an edit re-renders only what shows it, and the site is always the one a
build from nothing gives, byte for byte."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from conftest import make_content, snapshot

from benchmarks import corpus
from errdex import highlight
from errdex.model import derive_id

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


def _record(n: int, what: str = "Thing") -> str:
    start = 10 * n + 1
    return RECORD.format(what=what, n=n, other=(n + 1) % 4, line=start + 2, start=start)


@pytest.fixture
def site(tmp_path: Path, run):  # type: ignore[no-untyped-def]
    """Four records raised in one file, relating to each other, built once with a cache."""
    content = make_content(tmp_path, {f"r{n}.yaml": _record(n) for n in range(4)})
    out, cache = tmp_path / "public", tmp_path / "cache"

    def build(*extra: str | Path) -> str:
        result = run("build", "--content", content, "--out", out, "--cache", cache, *extra)
        assert result.code == 0, result.err
        return str(result.err)

    build()
    return content, out, build


def _fresh(content: Path, tmp_path: Path, run) -> dict[str, bytes]:  # type: ignore[no-untyped-def]
    """What a build from nothing (no cache, no output) makes of ``content``."""
    out = tmp_path / "fresh"
    shutil.rmtree(out, ignore_errors=True)
    result = run("build", "--content", content, "--out", out, "--no-cache")
    assert result.code == 0, result.err
    return {rel: data for rel, (data, _) in snapshot(out).items()}


def _bytes(out: Path) -> dict[str, bytes]:
    return {rel: data for rel, (data, _) in snapshot(out).items()}


def _page_id(out: Path, name: str) -> str:
    """The id of the record whose message starts with ``name``."""
    del out
    return derive_id("example/project", "ValueError", f"{name} is wrong")


def test_a_prose_edit_rewrites_only_that_errors_files(site, tmp_path, run) -> None:  # type: ignore[no-untyped-def]
    content, out, build = site
    target = _page_id(out, "Thing number 2")
    before = snapshot(out)
    path = content / "errors" / "r2.yaml"
    path.write_text(path.read_text().replace("The first version", "A better version"))
    err = build()
    assert "1 rendered, 3 files written" in err
    after = snapshot(out)
    touched = sorted(rel for rel in after if after[rel] != before.get(rel))
    assert touched == [
        f"api/errors/{target}",
        f"api/errors/{target}.json",
        f"errors/{target}/index.html",
    ]
    assert "A better version of the prose." in (out / touched[-1]).read_text()
    # Every other file keeps its bytes and its modification time.
    assert set(after) == set(before)
    assert _bytes(out) == _fresh(content, tmp_path, run)


def test_nothing_changed_writes_nothing(site) -> None:  # type: ignore[no-untyped-def]
    _, out, build = site
    before = snapshot(out)
    assert "0 rendered, 0 files written" in build()
    assert snapshot(out) == before


@pytest.mark.parametrize(
    "edit",
    [
        "message",  # shown on the other pages: their lists and related links change
        "add",
        "remove",
        "rename",
        "config",
    ],
)
def test_every_other_change_gives_the_site_a_fresh_build_gives(
    edit: str,
    site,
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    content, out, build = site
    errors = content / "errors"
    if edit == "message":
        path = errors / "r1.yaml"
        path.write_text(path.read_text().replace("Thing number 1", "Gadget number 1"))
    elif edit == "add":
        (errors / "r9.yaml").write_text(_record(9, "Widget"))
    elif edit == "remove":
        (errors / "r3.yaml").unlink()
    elif edit == "rename":
        (errors / "sub").mkdir()
        (errors / "r0.yaml").rename(errors / "sub" / "r0.yaml")
    elif edit == "config":
        site_yaml = content / "site.yaml"
        site_yaml.write_text(site_yaml.read_text().replace("Test errors", "Other errors"))
    err = build()
    assert "rendered" not in err  # a full build
    assert _bytes(out) == _fresh(content, tmp_path, run)
    if edit == "message":
        listing = (out / "repos" / "example" / "project" / "index.html").read_text()
        assert "Gadget number 1" in listing


def test_a_template_edit_renders_every_page_again(tmp_path: Path) -> None:
    from errdex.build import Options, build
    from errdex.theme import Theme, default_theme

    bundled = default_theme()
    theme = Theme(tmp_path / "templates", tmp_path / "static")
    shutil.copytree(bundled.templates, theme.templates)
    shutil.copytree(bundled.static, theme.static)
    content = make_content(tmp_path, {f"r{n}.yaml": _record(n) for n in range(4)})
    options = Options(content=content, out=tmp_path / "public", cache=tmp_path / "c", theme=theme)
    assert build(options).rendered == 4
    assert build(options).rendered == 0
    base = theme.templates / "base.html"
    base.write_text(base.read_text().replace("</body>", "<!-- edited --></body>"))
    assert build(options).rendered == 4
    pages = list((tmp_path / "public").rglob("*.html"))
    assert pages and all("<!-- edited -->" in p.read_text() for p in pages)


def test_a_damaged_state_is_ignored(site, tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content, out, build = site
    cache = tmp_path / "cache"
    for state_file in cache.glob("state-*.bin*"):
        data = bytearray(state_file.read_bytes())
        data[len(data) // 2] ^= 0xFF
        state_file.write_bytes(bytes(data))
    path = content / "errors" / "r2.yaml"
    path.write_text(path.read_text().replace("The first version", "Another version"))
    err = build()
    assert "rendered" not in err  # not trusted: a full build
    assert _bytes(out) == _fresh(content, tmp_path, run)


def test_a_prose_edit_reads_no_lists_and_an_edit_that_needs_them_finds_them_gone(
    site, tmp_path: Path, run
) -> None:  # type: ignore[no-untyped-def]
    content, out, build = site
    (lists,) = (tmp_path / "cache").glob("state-*.lists")
    lists.unlink()
    path = content / "errors" / "r2.yaml"
    path.write_text(path.read_text().replace("The first version", "Another version"))
    assert "errdex: update: 1 record changed\n" in build("-v")  # prose: its page alone
    path.write_text(path.read_text() + "title: A title of its own\n")  # shown on others
    err = build("-v")
    assert "errdex: full build: the previous state's lists are missing or damaged" in err
    assert _bytes(out) == _fresh(content, tmp_path, run)
    path.write_text(path.read_text().replace("A title of its own", "Another title"))
    assert "shown on" in build("-v")  # the full build wrote them again


def test_a_cache_named_from_another_folder_still_finds_its_lists(
    tmp_path: Path, run, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, {f"r{n}.yaml": _record(n) for n in range(4)})
    folder = tmp_path / "site"
    folder.mkdir()
    argv = ["build", "--content", content, "--out", tmp_path / "public", "-v"]
    monkeypatch.chdir(folder)
    assert run(*argv, "--cache", ".errdex/cache").code == 0
    path = content / "errors" / "r2.yaml"
    path.write_text(path.read_text() + "title: A title of its own\n")  # shown on others
    # The same cache, named another way.
    err = run(*argv, "--cache", f"../{folder.name}/.errdex/cache").err
    assert "errdex: update: 1 record changed, shown on" in err, err


def test_an_output_changed_behind_errdex_back_is_rebuilt(site, tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content, out, build = site
    shutil.rmtree(out)
    err = build()
    assert "rendered" not in err
    assert _bytes(out) == _fresh(content, tmp_path, run)


def test_an_update_writes_only_files_whose_bytes_changed_and_puts_back_deleted_ones(
    site,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """A retitled error renders its lists and feed again; those whose bytes are as the
    last build wrote them keep their modification time, and one deleted by hand since
    comes back."""
    content, out, build = site
    (out / "feed.xml").unlink()
    before = snapshot(out)
    path = content / "errors" / "r2.yaml"
    path.write_text(path.read_text() + "title: Retitled by the test\n")
    err = build("-v")
    assert "update: 1 record changed" in err, err
    after = snapshot(out)
    assert "feed.xml" in after
    assert after["index.html"] == before["index.html"]  # rendered again, the same bytes
    assert _bytes(out) == _fresh(content, tmp_path, run)


def test_warnings_follow_their_lines_in_a_prose_edit(site, tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content, _, build = site
    path = content / "errors" / "r0.yaml"
    text = path.read_text()
    first = build()
    assert "r0.yaml:18: warning: no record has the message" in first
    # Two lines more prose above the related entries move the warning down two lines.
    path.write_text(text.replace("meaning: The first", "meaning: |\n  Two\n  lines. The first"))
    again = build()
    assert "1 rendered" in again
    assert "r0.yaml:20: warning: no record has the message" in again
    fresh = run("build", "--content", content, "--out", tmp_path / "fresh", "--no-cache")
    warned = re.findall(r"^.*warning:.*$", fresh.err, re.MULTILINE)
    assert warned == re.findall(r"^.*warning:.*$", again, re.MULTILINE)


def test_an_error_in_an_edit_stops_the_build_and_keeps_the_site(site, tmp_path, run) -> None:  # type: ignore[no-untyped-def]
    content, out, _ = site
    before = snapshot(out)
    path = content / "errors" / "r1.yaml"
    path.write_text(re.sub(r"  line: \d+", "  line: twelve", path.read_text()))
    result = run("build", "--content", content, "--out", out, "--cache", tmp_path / "cache")
    assert result.code == 1
    assert "r1.yaml:8: source.line must be a whole number" in result.err
    assert snapshot(out) == before
    # It says what a build from nothing says: the error, without what linking warns of.
    fresh = run("build", "--content", content, "--out", tmp_path / "fresh", "--no-cache")
    assert fresh.code == 1
    assert result.err == fresh.err


def test_a_write_that_fails_in_an_edit_leaves_the_site_as_it_was(
    site,
    tmp_path: Path,
    run,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    content, out, build = site
    before = snapshot(out)
    path = content / "errors" / "r2.yaml"
    path.write_text(path.read_text().replace("The first version", "A failed version"))
    real_write = Path.write_bytes
    calls: list[Path] = []

    def failing_write(self: Path, data: bytes) -> int:
        calls.append(self)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real_write(self, data)

    monkeypatch.setattr(Path, "write_bytes", failing_write)
    with pytest.raises(OSError, match="No space left"):
        run("build", "--content", content, "--out", out, "--cache", tmp_path / "cache")
    monkeypatch.undo()
    assert snapshot(out) == before
    assert not list(out.rglob(".*.*"))  # no partial files left behind
    # The next build finishes the job.
    build()
    assert _bytes(out) == _fresh(content, tmp_path, run)


def test_only_the_nearest_errors_of_a_big_file_are_listed(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    records = {
        f"r{n}.yaml": _record(n).replace("function: check_", "function: f_") for n in range(15)
    }
    content = make_content(tmp_path, records)
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out, "--no-cache").code == 0
    page = BeautifulSoup(
        (out / "errors" / _page_id(out, "Thing number 7") / "index.html").read_text(), "html.parser"
    )
    heading = next(h for h in page.find_all("h3") if "Also raised in" in h.get_text())
    assert (
        heading.get_text(" ", strip=True) == "Also raised in src/project/config.py (the 10 nearest)"
    )
    rows = heading.find_next("ul").find_all("li")
    lines = [int(li.find(class_="row-line").get_text()[1:]) for li in rows]
    assert lines == [23, 33, 43, 53, 63, 83, 93, 103, 113, 123]  # 5 either side of line 73
    more = heading.find_next("p", class_="more-link")
    assert more.get_text(" ", strip=True) == "All 15 errors raised in src/project/config.py"
    assert more.a["href"] == "../../repos/example/project/files/src/project/config.py/"


def test_every_core_builds_the_same_bytes_as_one(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    from errdex import parallel

    records = corpus.generate(parallel.PARALLEL_FROM + 50, seed=3)
    corpus.write_content(tmp_path / "content", records)
    outs = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}"
        result = run(
            "build", "--content", tmp_path / "content", "--out", out, "--no-cache", "--jobs", jobs
        )
        assert result.code == 0, result.err
        outs[jobs] = _bytes(out)
    assert outs["1"] == outs["2"]


def test_records_read_on_every_core_are_kept_aside_then_gone(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A full build on every core keeps the records its workers read in a folder of its
    own until their pages are rendered (in the cache folder, else the system's temporary
    one): the pages are the same as one process renders, with the cache and an update
    after it too, and the folder is gone afterwards, also when the build stops at a bad
    record; one a killed build left is removed by the next."""
    import tempfile

    from errdex import parallel

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    records = corpus.generate(parallel.PARALLEL_FROM + 50, seed=4)
    content = tmp_path / "content"
    corpus.write_content(content, records)
    alone = tmp_path / "alone"
    assert run("build", "--content", content, "--out", alone, "--no-cache", "--jobs", "1").code == 0
    uncached = tmp_path / "uncached"
    built = run("build", "--content", content, "--out", uncached, "--no-cache", "--jobs", "2")
    assert built.code == 0, built.err
    assert _bytes(uncached) == _bytes(alone)
    assert list(scratch.iterdir()) == []

    cache = tmp_path / "cache"
    killed = cache / "records-999999999-abc"  # no such process
    killed.mkdir(parents=True)
    (killed / "0").write_bytes(b"left by a build that was killed")
    running = cache / "records-1-abc"  # a process that runs
    running.mkdir()
    out = tmp_path / "public"
    built = run("build", "--content", content, "--out", out, "--cache", cache, "--jobs", "2", "-v")
    assert built.code == 0, built.err
    assert "full build" in built.err
    assert _bytes(out) == _bytes(alone)
    assert sorted(p.name for p in cache.glob("records-*")) == ["records-1-abc"]
    running.rmdir()

    # What the workers highlighted reached the cache file: one process renders it all
    # again from there, highlighting nothing.
    def no_pygments(*args: object) -> str:
        raise AssertionError("highlighted again")

    with monkeypatch.context() as patched:
        patched.setattr(highlight, "_pygmentize", no_pygments)
        again = tmp_path / "again"
        again_built = run(
            "build", "--content", content, "--out", again, "--cache", cache, "--jobs", "1"
        )
        assert again_built.code == 0, again_built.err
    assert _bytes(again) == _bytes(alone)

    # An update after it renders from the summaries that build kept.
    target = content / corpus.record_path(7, records[7])
    target.write_text(target.read_text().replace("\nmessage: ", "\ntitle: Renamed\nmessage: ", 1))
    updated = run("build", "--content", content, "--out", out, "--cache", cache, "-v")
    assert "update: 1 record changed, shown on" in updated.err
    assert run("build", "--content", content, "--out", alone, "--no-cache", "--jobs", "1").code == 0
    assert _bytes(out) == _bytes(alone)

    before = _bytes(out)
    (content / corpus.record_path(9, records[9])).write_text("repo: [unclosed\n")
    (content / "site.yaml").write_text((content / "site.yaml").read_text() + "\n")
    failed = run("build", "--content", content, "--out", out, "--cache", cache, "--jobs", "2")
    assert failed.code == 1
    assert corpus.record_path(9, records[9]) in failed.err
    assert _bytes(out) == before
    assert list(cache.glob("records-*")) == []
    assert list(scratch.iterdir()) == []


def test_records_that_cannot_be_kept_aside_stay_in_the_build(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No temporary folder, or no room left in it for some pieces: the build keeps those
    records itself and gives the same bytes."""
    import errno
    import tempfile

    from errdex import build, parallel

    records = corpus.generate(parallel.PARALLEL_FROM + 150, seed=6)
    content = tmp_path / "content"
    corpus.write_content(content, records)
    alone = tmp_path / "alone"
    assert run("build", "--content", content, "--out", alone, "--no-cache", "--jobs", "1").code == 0
    with monkeypatch.context() as patched:
        patched.setattr(tempfile, "tempdir", str(tmp_path / "no such folder"))
        out = tmp_path / "no-folder"
        built = run("build", "--content", content, "--out", out, "--no-cache", "--jobs", "2")
        assert built.code == 0, built.err
        assert _bytes(out) == _bytes(alone)

    written = build._Stash._write

    def full_for_some(self: build._Stash, number: int, held: list[Any]) -> None:
        if number % 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        written(self, number, held)

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setattr(build._Stash, "_write", full_for_some)
    out = tmp_path / "full"
    built = run("build", "--content", content, "--out", out, "--no-cache", "--jobs", "2")
    assert built.code == 0, built.err
    assert _bytes(out) == _bytes(alone)
    assert list(scratch.iterdir()) == []


def test_excerpts_highlighted_line_by_line_match_highlighting_them_whole() -> None:
    records = corpus.generate(300, seed=5)
    excerpts = [r["source"]["excerpt"]["code"] for r in records if r["source"].get("excerpt")]
    excerpts += [
        'def f(x):\n    if x:\n        raise ValueError(f"{x!r} is bad")\n'
        '    return {"a": [1, 2]}\n',
        "@decorator\nclass A(B, metaclass=M):\n    x: int = 0x1F  # note\n",
        "    except (KeyError, IndexError) as exc:\n        raise RuntimeError('no') from exc\n",
    ]
    lexer = highlight._lexer(suffix=".py")
    assert lexer is not None
    highlighter = highlight.Highlighter()
    checked = 0
    for code in excerpts:
        if highlight._SPANS_LINES.search(code):
            continue
        whole = highlight._pygmentize(code, lexer).split("\n")[: len(code.splitlines())]
        assert highlighter._by_line(code.splitlines(), ".py") == whole, code
        checked += 1
    assert checked > 250


def test_excerpts_with_strings_over_lines_highlighted_by_runs_match_them_whole() -> None:
    """Runs of lines (a docstring whole, other lines alone, each cached) give the bytes
    of the whole excerpt highlighted at once, on windows of real code cut anywhere."""
    import os
    import random

    import pygments

    from errdex.model import source_lines

    rng = random.Random(11)
    files = sorted(Path(os.path.dirname(pygments.__file__)).rglob("*.py"))
    excerpts = [
        '    """Starts in a docstring\n    and ends here."""\n    x = 1\n',
        'def f():\n    """A docstring with \\""" an escaped quote,\n    and \'\'\' inside."""\n'
        "    raise ValueError('no')\n",
        'x = \'"""\'  # a one-line string that holds triple quotes\ny = 2\n',
        '# a comment with """ in it\ny = """two\nlines"""\nz = 3\n',
        'r = r"""raw\\"""\ns = f"""{x}\nmore"""\n',
        "def \\\n  f(): pass\nclass\nA: pass\n",
        'a = 1\n#!/usr/bin/env python\nb = """x\ny"""\n',
        # a raw docstring is read like any docstring: to the next three quotes
        'def f():\n    r"""Matches \\d+ and \\""" ends it\n    here."""\n    raise E()\n',
        '    Rb"""a\n    b""" + x  # then code\nmatch = 1\n',
        '    x = r"""not a docstring \\"""\n    still"""\n',
        '    fr"""formatted {x}\n    raw"""\n',
    ]
    for path in rng.sample(files, 60):
        lines = path.read_text(encoding="utf-8").split("\n")
        for _ in range(4):
            start = rng.randrange(max(1, len(lines) - 30))
            excerpts.append("\n".join(lines[start : start + rng.randrange(3, 40)]) + "\n")
    lexer = highlight._lexer(suffix=".py")
    assert lexer is not None
    highlighter = highlight.Highlighter()
    by_runs = 0
    for code in excerpts:
        lines = source_lines(code)
        whole = highlight._pygmentize(code, lexer).split("\n")[: len(lines)]
        assert [str(h) for h in highlighter.highlight_lines(code, "x.py")] == whole, code
        by_runs += highlight._SPANS_LINES.search(code) is not None and (
            highlight._runs(lines) is not None
        )
    assert by_runs > 60


def test_the_quick_look_for_a_line_that_carries_on_agrees_with_the_pattern() -> None:
    """``_carries_on`` skips the pattern where it cannot match: on every line of
    Pygments' own code, and on lines made to end each way, it answers as the pattern."""
    import os

    import pygments

    lines = [
        "x = 1 \\",
        "    def",
        "class\t",
        "from  ",
        "import",
        "match",
        'f"{x',
        'rb"{',
        "y = {1: 2}",
        "a_def",
        "matches",
    ]
    for path in sorted(Path(os.path.dirname(pygments.__file__)).rglob("*.py"))[:80]:
        lines += path.read_text(encoding="utf-8").split("\n")
    found = 0
    for line in lines:
        expected = highlight._CARRIES_ON.search(line) is not None
        assert highlight._carries_on(line) == expected, line
        found += expected
    assert found > 10
    # And so does the look for an excerpt that spans lines, on excerpts cut from them.
    spans = []
    for start in range(0, len(lines), 7):
        code = "\n".join(lines[start : start + 9])
        expected = highlight._SPANS_LINES.search(code) is not None
        assert highlight._spans_lines(code) == expected, code
        spans.append(expected)
        assert highlight._spans_lines("#!/bin/sh\n" + code)
    assert 100 < sum(spans) < len(spans) - 100


def test_a_raw_docstring_is_cut_into_runs_like_any_other() -> None:
    """Raw docstrings are common (transformers has hundreds around its raises): their
    excerpts are highlighted a run at a time, not each whole, and still match."""
    from errdex.model import source_lines

    code = 'def f():\n    r"""Raw \\d.\n\n    More."""\n    raise X()\n'
    assert highlight._runs(source_lines(code)) == [(0, 1), (1, 4), (4, 5)]
    assert highlight._runs(source_lines('    y = f"""{a}\n    b"""\n')) is None
    assert highlight._runs(source_lines('    y = r"""a\n    b"""\n')) is None


def test_a_docstring_excerpt_is_highlighted_whole() -> None:
    code = 'def f():\n    """A docstring\n    over lines."""\n    raise X()\n'
    lines = highlight.Highlighter().highlight_lines(code, "m.py")
    assert 'class="sd"' in lines[2]  # the second line of the docstring is still a string


def test_a_related_entry_added_in_an_edit_is_an_update(site, tmp_path, run) -> None:  # type: ignore[no-untyped-def]
    content, out, build = site
    path = content / "errors" / "r0.yaml"
    path.write_text(path.read_text() + "  - Thing number 2 is wrong\n")
    assert "errdex: update: 1 record changed" in build("-v")
    assert _bytes(out) == _fresh(content, tmp_path, run)


def test_a_build_without_the_cache_in_between_is_not_mistaken_for_ours(
    site,
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    content, out, build = site
    path = content / "errors" / "r0.yaml"
    first = path.read_text()
    path.write_text(first.replace("The first version", "A second version"))
    assert run("build", "--content", content, "--out", out, "--no-cache").code == 0
    path.write_text(first)  # back to what the cached state last saw built
    build()
    assert _bytes(out) == _fresh(content, tmp_path, run)


def test_warnings_keep_their_lines_over_several_edits(site, tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content, _, build = site
    path = content / "errors" / "r0.yaml"
    for extra in ("One", "One\n  Two", "One\n  Two\n  Three"):
        path.write_text(
            _record(0).replace("meaning: The first", f"meaning: |\n  {extra}\n  The first")
        )
        err = build()
        assert "1 rendered" in err
        fresh = run("build", "--content", content, "--out", tmp_path / "fresh", "--no-cache")
        assert re.findall(r"^.*warning:.*$", err, re.MULTILINE) == re.findall(
            r"^.*warning:.*$", fresh.err, re.MULTILINE
        )


def test_a_warning_about_the_cache_is_not_kept_as_one_about_the_content(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    records = {
        f"r{n}.yaml": _record(n).replace("  - A message no record has, shown as text\n", "")
        for n in range(4)
    }
    content = make_content(tmp_path, records)
    out, cache = tmp_path / "public", tmp_path / "cache"
    cache.mkdir()
    (cache / "highlight.sqlite").write_bytes(b"not a database")
    first = run("build", "--content", content, "--out", out, "--cache", cache, "--strict")
    assert first.code == 0, first.err
    assert "highlight cache is unreadable" in first.err
    path = content / "errors" / "r1.yaml"
    path.write_text(path.read_text().replace("The first version", "Another version"))
    again = run("build", "--content", content, "--out", out, "--cache", cache, "--strict")
    assert again.code == 0, again.err
    assert "1 rendered" in again.err and "0 warning(s)" in again.err


def test_a_replacement_field_left_open_does_not_colour_other_lines() -> None:
    # Python 3.12 lets an f-string's replacement field run over lines: the next line is
    # inside it. Such an excerpt is highlighted whole, and lines highlighted before it do
    # not change how it looks.
    open_field = 'msg = f"bad {\n    value!r}"\nraise ValueError(msg)\n'
    seen = highlight.Highlighter()
    seen.highlight_lines('    value!r}"\nraise ValueError(msg)\n', "m.py")
    after = seen.highlight_lines(open_field, "m.py")
    alone = highlight.Highlighter().highlight_lines(open_field, "m.py")
    assert after == alone
    assert '<span class="k">raise</span>' in alone[2]


def test_verbose_says_why_a_build_is_what_it_is_and_the_state_keeps_it(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    from errdex import state

    content = make_content(tmp_path, {f"r{n}.yaml": _record(n) for n in range(4)})
    out, cache = tmp_path / "public", tmp_path / "cache"

    def build(*extra: str) -> str:
        result = run("build", "--content", content, "--out", out, "--cache", cache, *extra)
        assert result.code == 0, result.err
        return str(result.err)

    def kept() -> str:
        found = state.load(state.path_for(cache, out), out)
        assert isinstance(found, state.State), found
        return found.reason

    assert "errdex: full build: no previous state" in build("-v")
    assert kept() == "no previous state"
    for n in range(4, 7):
        (content / "errors" / f"r{n}.yaml").write_text(_record(n, "Widget"))
    assert "errdex: full build: 3 records added\n" in build("-v")
    assert kept() == "3 records added"
    path = content / "errors" / "r2.yaml"
    path.write_text(path.read_text().replace("The first version", "A better version"))
    assert "errdex: update: 1 record changed\n" in build("-v")
    assert kept() == "3 records added"  # the reason of the full build the state is from
    assert "errdex: nothing changed\n" in build("-v")
    path.write_text(path.read_text() + "  - Thing number 0 is wrong\n")
    # Its page, those of the errors beside it in its file and the lists that show it.
    assert "errdex: update: 1 record changed, shown on 6 other error pages and " in build("-v")
    assert kept() == "3 records added"
    path.write_text(path.read_text().replace("src/project/config.py", "src/project/other.py"))
    err = build("-v").replace(str(content), "content")
    assert "errdex: full build: content/errors/r2.yaml: its source path changed" in err
    path.write_text(path.read_text().replace("Thing number 2", "Gadget number 2"))
    err = build("-v").replace(str(content), "content")
    assert "errdex: full build: content/errors/r2.yaml: its id changed" in err
    site_yaml = content / "site.yaml"
    site_yaml.write_text(site_yaml.read_text().replace("Test errors", "Other errors"))
    assert "errdex: full build: the site config changed\n" in build("-v")
    assert "full build" not in build()  # said only when asked


def test_the_states_of_output_folders_that_are_gone_are_dropped(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, {f"r{n}.yaml": _record(n) for n in range(2)})
    cache = tmp_path / "cache"
    outs = [tmp_path / "one", tmp_path / "two"]
    for out in outs:
        assert run("build", "--content", content, "--out", out, "--cache", cache).code == 0
    states = sorted(p.name for p in cache.glob("state-*"))
    assert len(states) == 8  # per output: the state, its links and lists, its folder's name
    (cache / "state-0123456789abcdef.bin").write_bytes(b"an older errdex's")
    shutil.rmtree(outs[0])
    # A build with nothing to do into the other folder clears the states nothing will read.
    assert (
        "0 rendered" in run("build", "--content", content, "--out", outs[1], "--cache", cache).err
    )
    left = sorted(p.name for p in cache.glob("state-*"))
    assert len(left) == 4 and set(left) < set(states)
    (named,) = cache.glob("state-*.out")
    assert named.read_text() == str(outs[1].resolve())


def test_a_build_with_nothing_to_do_loads_no_parser_or_renderer(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    content = make_content(tmp_path, {f"r{n}.yaml": _record(n) for n in range(2)})
    argv = ["build", "--content", str(content), "--out", str(tmp_path / "public")]
    argv += ["--cache", str(tmp_path / "cache")]
    assert run(*argv).code == 0
    program = (
        "import sys\n"
        "from errdex.cli import main\n"
        f"assert main({argv!r}) == 0\n"
        "print(sorted({'yaml', 'jinja2', 'pygments', 'markdown_it'} & set(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=60
    )
    assert "0 rendered" in done.stderr
    assert done.stdout.strip() == "[]"


def test_a_prose_edit_after_a_reworded_message_reads_no_search_entries(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    """The journal keeps what the rewording changed in the links, search's entries among
    them; a prose edit after it reads no links, and imports nothing of search."""
    import subprocess
    import sys

    content = make_content(tmp_path, _stated_site(tmp_path))
    argv = ["build", "--content", str(content), "--out", str(tmp_path / "public")]
    argv += ["--cache", str(tmp_path / "cache"), "-v"]
    assert run(*argv).code == 0
    path = content / "errors" / "r2.yaml"
    path.write_text(path.read_text().replace("Part 2 of the", "Part two of the", 1))
    assert "update: 1 record changed, shown on" in run(*argv).err
    path = content / "errors" / "r4.yaml"
    path.write_text(path.read_text().replace("What it means", "What it says", 1))
    program = (
        "import sys\n"
        "from errdex.cli import main\n"
        f"assert main({argv!r}) == 0\n"
        "print('errdex.search' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=60
    )
    assert "errdex: update: 1 record changed\n" in done.stderr, done.stderr
    assert done.stdout.strip() == "False"


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


def _stated(n: int, related: list[str], analysed: bool = True) -> str:
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


def _stated_site(tmp_path: Path) -> dict[str, str]:
    records = {
        f"r{n}.yaml": _stated(
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


def _verbose_builds(run, content: Path, tmp_path: Path) -> Callable[[], str]:  # type: ignore[no-untyped-def]
    """A build of ``content`` into tmp_path/public with a cache of its own, ``-v``: it
    must succeed, and gives what it said."""
    out, cache = tmp_path / "public", tmp_path / "cache"

    def build() -> str:
        result = run("build", "--content", content, "--out", out, "--cache", cache, "-v")
        assert result.code == 0, result.err
        return str(result.err)

    return build


def _issues(content: Path) -> None:
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


@pytest.mark.parametrize(
    "edit",
    [
        "first analysis",  # a scanned record gets its meaning: counts and lists change
        "first analysis, dated",  # and an analysis date: the feed and recent lists too
        "analysis removed",
        "message",  # the related entries that named it by its message no longer do
        "message another names",  # an entry that named nothing now names it
        "title",
        "related added",
        "related removed",
        "line",  # its place among the errors of its file
        "line, reordered",  # past another error of its file: the order of every list
        "option",  # an option its message names
        "two records",
    ],
)
@pytest.mark.parametrize("per_page", [500, 2], ids=["lists on one page", "lists on pages"])
def test_an_edit_of_what_other_pages_show_is_an_update_that_gives_a_fresh_builds_bytes(
    edit: str,
    per_page: int,
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With lists on pages of two errors too: an error whose line moves it past another
    moves it to another page of its lists, and every page of those is rendered again."""
    from errdex import render

    monkeypatch.setattr(render, "ROWS_PER_PAGE", per_page)
    content = make_content(tmp_path, _stated_site(tmp_path))
    _issues(content)
    out, cache = tmp_path / "public", tmp_path / "cache"

    def build() -> str:
        result = run("build", "--content", content, "--out", out, "--cache", cache, "-v")
        assert result.code == 0, result.err
        return str(result.err)

    build()
    before = snapshot(out)
    # The lists of most reported errors are there to be kept true by the edit.
    assert "Most reported errors without an analysis yet" in before["index.html"][0].decode()
    errors = content / "errors"

    def change(name: str, old: str, new: str) -> None:
        path = errors / name
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new, 1))

    if edit == "first analysis":
        change("r3.yaml", "source:", "meaning: Now it is explained.\nsource:")
    elif edit == "first analysis, dated":
        change("r5.yaml", "source:", ANALYSED.format(month=9, n=9) + "source:")
    elif edit == "analysis removed":
        change("r4.yaml", ANALYSED.format(month=1 + 4 % 3, n=4), "")
    elif edit == "message":
        change("r2.yaml", "Part 2 of the", "Part two of the")
    elif edit == "message another names":
        (errors / "r1.yaml").write_text(_stated(1, ["Part twenty is gone"]))
        build()
        before = snapshot(out)
        change(
            "r7.yaml", "Part 7 of the --tensor-parallel-size check failed", "Part twenty is gone"
        )
    elif edit == "title":
        change("r6.yaml", "source:", "title: A title of its own\nsource:")
    elif edit == "related added":
        change("r1.yaml", "related:\n", "related:\n  - Part 6 of the --tensor\n")
    elif edit == "related removed":
        change("r8.yaml", f'  - "{(8 + 4) % 9:016x}"\n', "")
    elif edit == "line":
        change("r3.yaml", "line: 33", "line: 32")
        change("r3.yaml", "start: 31", "start: 30")
    elif edit == "line, reordered":
        change("r0.yaml", "  line: 3\n", "  line: 40\n")
        change("r0.yaml", "    start: 1\n", "    start: 38\n")
    elif edit == "option":
        change("r0.yaml", "Part 0 of the --tensor-parallel-size", "Part 0 of the --max-model-len")
    elif edit == "two records":
        change("r3.yaml", "source:", "meaning: Now it is explained.\nsource:")
        change("r6.yaml", "Part 6 of the", "Part six of the")
    err = build()
    assert "errdex: update: " in err, err  # not a full build
    # Lists of two a page: an edit that gives an option an error, or takes one from it,
    # adds a page to its list, or removes one, which only a full build does.
    repaged = per_page == 2 and edit in ("analysis removed", "message another names", "option")
    if repaged:
        assert "errdex: full build: the files that list errors would change" in err, err
    elif edit != "two records":  # on most sites, not every page: those that show the edit
        assert "rendered, " in err
    # Search's files hold the messages alone (and the order of the errors): an edit of
    # neither keeps its index.
    kept = edit in ("first analysis", "first analysis, dated", "analysis removed", "line")
    kept |= edit in ("related added", "related removed", "title")
    assert ("; search index kept" in err) == kept, err
    after = snapshot(out)
    assert (set(after) == set(before)) != repaged
    assert _bytes(out) == _fresh(content, tmp_path, run)
    # What did not change kept its modification time.
    fresh = _fresh(content, tmp_path, run)
    for rel, (data, mtime) in after.items():
        if before[rel][0] == data:
            assert before[rel][1] == mtime, rel
    del fresh


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every update that rewords a message makes its search index aside, whatever the
    site's size; the process ids of the forks made aside, in order (0: run in this one)."""
    from errdex import parallel, plan

    monkeypatch.setattr(plan, "INDEX_ASIDE_FROM", 0)
    # A thread an earlier test of this worker left behind would keep the fork from being made.
    monkeypatch.setattr(parallel.threading, "active_count", lambda: 1)
    made: list[int] = []
    real = parallel.Aside.__init__

    def recording(self, func, fork=True):  # type: ignore[no-untyped-def]
        real(self, func, fork)
        made.append(self.pid)

    monkeypatch.setattr(parallel.Aside, "__init__", recording)
    return made


@pytest.mark.parametrize("edit", ["message", "message another names", "two records", "back"])
def test_a_search_index_made_aside_is_the_one_a_fresh_build_makes(
    edit: str,
    forks: list[int],
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """A reworded message's index is made by a forked process from the entries the state
    keeps, while the build links and renders the rest: the site is a fresh build's."""
    content = make_content(tmp_path, _stated_site(tmp_path))
    out, build = tmp_path / "public", _verbose_builds(run, content, tmp_path)
    build()
    errors = content / "errors"

    def change(name: str, old: str, new: str) -> None:
        path = errors / name
        path.write_text(path.read_text().replace(old, new, 1))

    if edit == "message":
        change("r2.yaml", "Part 2 of the", "Part two of the")
    elif edit == "message another names":  # r1's entry names nothing, then r7
        (errors / "r1.yaml").write_text(_stated(1, ["Part twenty is gone"]))
        build()
        forks.clear()
        change("r7.yaml", "Part 7 of the --tensor-parallel-size check", "Part twenty is gone")
    elif edit == "two records":
        change("r3.yaml", "source:", "meaning: Now it is explained.\nsource:")
        change("r6.yaml", "Part 6 of the", "Part six of the")
    elif edit == "back":  # reworded, then as it was: the second index is the first's
        change("r2.yaml", "Part 2 of the", "Part two of the")
        build()
        forks.clear()
        change("r2.yaml", "Part two of the", "Part 2 of the")
    before = snapshot(out)
    said = build()
    assert "update: " in said and "; search index made aside" in said, said
    assert len(forks) == 1 and forks[0] > 0  # forked, not run in this process
    after = _bytes(out)
    assert after == _fresh(content, tmp_path, run)
    # The index changed, and the files it kept kept their times.
    index = [rel for rel in after if rel.startswith("search/words/")]
    assert any(after[rel] != before[rel][0] for rel in index)
    now = snapshot(out)
    assert all(now[rel][1] == before[rel][1] for rel in index if after[rel] == before[rel][0])


def test_a_search_index_whose_fork_fails_is_made_in_the_build(
    forks: list[int],
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A forked process that dies (out of memory, say) costs time, not the index: the
    build makes it itself, the same."""
    from errdex import plan

    parent = os.getpid()
    real = plan.index_files

    def dies_if_forked(*args):  # type: ignore[no-untyped-def]
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*args)

    monkeypatch.setattr(plan, "index_files", dies_if_forked)
    content = make_content(tmp_path, _stated_site(tmp_path))
    out, build = tmp_path / "public", _verbose_builds(run, content, tmp_path)
    build()
    path = content / "errors" / "r2.yaml"
    path.write_text(path.read_text().replace("Part 2 of the", "Part two of the", 1))
    assert "; search index made aside" in build()
    assert forks[0] > 0
    assert _bytes(out) == _fresh(content, tmp_path, run)


def test_an_index_made_aside_for_a_plan_that_needs_none_is_stopped(
    forks: list[int],
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """A reworded message whose update turns out to be a full build (here it gives an
    option its page) leaves no process behind."""
    content = make_content(tmp_path, _stated_site(tmp_path))
    out, build = tmp_path / "public", _verbose_builds(run, content, tmp_path)
    build()
    path = content / "errors" / "r4.yaml"
    path.write_text(path.read_text().replace("--tensor-parallel-size check", "--new-knob check", 1))
    said = build()
    assert "full build: " in said and "the options that have pages changed" in said, said
    assert len(forks) == 1 and forks[0] > 0
    with pytest.raises(ChildProcessError):
        os.waitpid(forks[0], os.WNOHANG)  # reaped: no such child any more
    assert _bytes(out) == _fresh(content, tmp_path, run)


def test_updates_of_what_other_pages_show_build_on_one_another(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    """Each update keeps what it changed in the links for the next one, and a prose edit
    after it renders from them."""
    content = make_content(tmp_path, _stated_site(tmp_path))
    out, build = tmp_path / "public", _verbose_builds(run, content, tmp_path)

    build()
    errors = content / "errors"
    edits = [
        ("r2.yaml", "Part 2 of the", "Part two of the"),
        ("r1.yaml", "source:", "title: Its own title\nsource:"),
        ("r3.yaml", "source:", "meaning: Explained at last.\nsource:"),
        ("r2.yaml", "Part two of the", "Part 2 of the"),
        ("r1.yaml", "With `--max-model-len`", "With `--max-model-len` and more"),
        ("r0.yaml", "With `--max-model-len`", "With prose only"),
    ]
    for name, old, new in edits:
        path = errors / name
        text = path.read_text()
        if old not in text:
            old, new = "source:", f"situations: {new}\nsource:"
        path.write_text(text.replace(old, new, 1))
        assert "errdex: update: " in build(), (name, old)
        assert _bytes(out) == _fresh(content, tmp_path, run), (name, old)


def test_after_errors_change_places_the_next_update_still_keeps_the_search_index(
    tmp_path: Path, run
) -> None:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, _stated_site(tmp_path))
    out, build = tmp_path / "public", _verbose_builds(run, content, tmp_path)

    build()
    r0, r7 = content / "errors" / "r0.yaml", content / "errors" / "r7.yaml"
    r0.write_text(
        r0.read_text().replace("  line: 3\n", "  line: 40\n").replace("start: 1\n", "start: 38\n")
    )
    assert "search index kept" not in build()  # r0 and r3 change places
    r7.write_text(r7.read_text().replace("source:", "meaning: Explained at last.\nsource:", 1))
    assert "; search index kept" in build()  # the places the last update gave are kept
    assert _bytes(out) == _fresh(content, tmp_path, run)


def test_an_edit_that_gives_an_option_its_page_is_a_full_build(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, _stated_site(tmp_path))
    out, cache = tmp_path / "public", tmp_path / "cache"

    def build() -> str:
        result = run("build", "--content", content, "--out", out, "--cache", cache, "-v")
        assert result.code == 0, result.err
        return str(result.err).replace(str(content), "content")

    build()
    path = content / "errors" / "r4.yaml"
    path.write_text(path.read_text().replace("--tensor-parallel-size check", "--new-knob check", 1))
    err = build()
    assert "errdex: full build: content/errors/r4.yaml: the options that have pages changed" in err
    assert (out / "options" / "new_knob" / "index.html").exists()
    assert _bytes(out) == _fresh(content, tmp_path, run)


@pytest.mark.parametrize("enabled", [True, False], ids=["collector on", "collector off"])
def test_a_build_leaves_the_cycle_collector_as_it_found_it(
    enabled: bool,
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Builds turn Python's cycle collector off while they read the state and in updates,
    and collect rarely in full builds: serve, which builds again and again in one
    process, finds it as it was after each, and nothing stays frozen."""
    import gc

    from errdex import build as build_module

    collecting: list[bool] = []  # whether the collector runs as each build renders
    real_render = build_module._render

    def render(*args: Any, **kwargs: Any) -> Any:
        collecting.append(gc.isenabled())
        return real_render(*args, **kwargs)

    monkeypatch.setattr(build_module, "_render", render)
    content = make_content(tmp_path, {f"r{n}.yaml": _record(n) for n in range(3)})
    command = ("build", "--content", content, "--out", tmp_path / "public", "-v")
    threshold = (700, 10, 10)
    gc.set_threshold(*threshold)
    (gc.enable if enabled else gc.disable)()
    try:
        for edit in ("", "title: Retitled\n"):
            path = content / "errors" / "r1.yaml"
            path.write_text(path.read_text() + edit)
            collecting.clear()
            result = run(*command)
            assert result.code == 0, result.err
            assert collecting == ["full build" in result.err], result.err
            assert (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()) == (
                enabled,
                threshold,
                0,
            )
    finally:
        gc.enable()
        gc.set_threshold(*threshold)


def _linked_shape(site: Any) -> dict[str, Any]:
    """What a linked site holds, by record id."""

    def ids(records: Any) -> list[str]:
        return [r.id for r in records]

    return {
        "records": ids(site.records),
        "by_id": list(site.by_id),
        "aliases": {alias: r.id for alias, r in site.aliases.items()},
        "related": {
            rid: [(s.text, s.record.id if s.record else None) for s in shown]
            for rid, shown in site.related.items()
        },
        "backlinks": {rid: ids(records) for rid, records in site.backlinks.items()},
        **{
            name: {key: ids(records) for key, records in getattr(site, name).items()}
            for name in ("by_repo", "by_exception", "by_file", "by_option")
        },
        "option_names": site.option_names,
    }


def test_an_update_links_again_only_what_its_change_can_move_and_gets_what_linking_gives(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An update that changes no more than messages and related entries (a title, a
    first analysis, a message, an entry) takes every order and list from the state and
    finds again only the related entries the change can move, instead of linking all the
    records again: it has what linking them all gives, problems included, options a
    reworded message names or no longer names too. Another change (a line) links them
    all."""

    from errdex import link as link_module
    from errdex import plan, state
    from errdex.model import Related, parse_template

    records = corpus.generate(300, seed=5)
    content = tmp_path / "content"
    corpus.write_content(content, records)
    out, cache = tmp_path / "public", tmp_path / "cache"
    command = ("build", "--content", content, "--out", out, "--cache", cache, "-v")
    assert run(*command).code == 0
    found = state.load(state.path_for(cache, out), out)
    assert not isinstance(found, str)
    links = state.links(found)
    assert links is not None
    old = state.all_stored(links)
    summaries = {rid: value[0] for rid, value in old.items()}

    def agrees(now: dict[str, Any], changed: set[str]) -> set[str]:
        """Whether linking again gets what linking every record gets; what it found again."""
        linked, problems = link_module.link(links.config, list(now.values()), check_names=False)
        site, said, again, _ = plan.linked_again(links, old, now, changed)
        assert _linked_shape(site) == _linked_shape(linked)
        assert all(site.by_id[rid] is summary for rid, summary in now.items())
        files = {now[rid].file for rid in again}
        assert sorted(said) == sorted(p for p in problems if p.path in files)
        return again

    shape = _linked_shape(link_module.link(links.config, list(summaries.values()))[0])
    # The corpus has what there is to get wrong.
    assert all(shape[name] for name in ("related", "backlinks", "by_option", "option_names"))
    assert len(shape["by_file"]) < len(shape["records"])
    assert agrees(summaries, set()) == set()
    linked_to = next(rid for rid, value in old.items() if len(value[2]) > 1)
    linking = next(rid for rid, value in old.items() if value[1] and rid != linked_to)
    # Another error that others name by its message: given that message too, both are
    # named ambiguously.
    named = next(
        rid
        for rid, value in old.items()
        if rid != linked_to
        and any(
            e.text == value[0].message.display for other in value[2] for e in old[other][0].related
        )
    )
    optioned = next(rid for rid, value in old.items() if value[0].options)
    key, spelling, _ = sorted(old[optioned][0].options)[0]
    for rid, change in (
        (linked_to, {"message": parse_template("Reworded by the test")}),
        (linked_to, {"message": summaries[named].message}),
        (linking, {"related": ()}),
        (linking, {"related": (*summaries[linking].related, Related(linked_to, 900))}),
        (linking, {"title": "Retitled by the test"}),
        # Options a reworded message names or no longer names: an option's list, its
        # spellings, an option that gets a page or loses it.
        (optioned, {"options": frozenset()}),
        (linked_to, {"options": frozenset({(key, spelling.upper(), True)})}),
        (linked_to, {"options": frozenset({("made_by_the_test", "--made-by-the-test", True)})}),
    ):
        now = {**summaries, rid: replace(summaries[rid], **change)}
        again = agrees(now, {rid})
        assert rid in again and len(again) < len(now) // 4, change
        if "message" in change:  # those that linked to it are found again
            assert set(old[rid][2]) <= again
    # Those that named the other error's message are found again, and name two now.
    now = {**summaries, linked_to: replace(summaries[linked_to], message=summaries[named].message)}
    assert set(old[named][2]) <= agrees(now, {linked_to})
    problems = link_module.link(links.config, list(now.values()))[1]
    assert any("2 records have the message" in p.message for p in problems)

    linkings = []
    real_link = link_module.link

    def counting(*args: Any, **kwargs: Any) -> Any:
        linkings.append(True)
        return real_link(*args, **kwargs)

    monkeypatch.setattr(link_module, "link", counting)

    def path(i: int) -> Path:
        return content / corpus.record_path(i, records[i])

    untitled = next(i for i, r in enumerate(records) if not r.get("title"))
    unexplained = next(i for i, r in enumerate(records) if not r.get("meaning"))
    stated = [i for i, r in enumerate(records) if r.get("id") and i != untitled]
    message = [
        next(x for x in path(i).read_text().splitlines() if x.startswith("message: "))
        for i in stated[:2]
    ]
    line = next(x for x in path(stated[2]).read_text().splitlines() if x.startswith("  line: "))
    for i, old_text, new_text, links_all in (
        (stated[2], line, f"  line: {int(line.split()[1]) - 1}", True),
        (untitled, "\nsource:", "\ntitle: Retitled by the test\nsource:", False),
        (unexplained, "\nsource:", "\nmeaning: Explained by the test.\nsource:", False),
        (stated[0], message[0], "message: Reworded by the test", False),
        (stated[1], message[1], "message: Reworded with --max-model-len by the test", False),
    ):
        text = path(i).read_text()
        assert old_text in text
        path(i).write_text(text.replace(old_text, new_text, 1))
        linkings.clear()
        result = run(*command)
        assert "errdex: update: 1 record changed, shown on" in result.err, result.err
        assert bool(linkings) == links_all, i
        assert _bytes(out) == _fresh(content, tmp_path, run), i


def test_the_content_folder_spelled_another_way_names_the_same_records(
    site,  # type: ignore[no-untyped-def]
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``content``, ``./content`` and the folder's absolute path are one folder: a build
    after one spelled another way finds nothing changed (it was a full build of every
    record 'added' and 'removed')."""
    content, out, _ = site
    monkeypatch.chdir(content.parent)
    cache = content.parent / "cache"

    def said(spelled: str | Path) -> str:
        result = run("build", "--content", spelled, "--out", out, "--cache", cache, "-v")
        assert result.code == 0, result.err
        return str(result.err.splitlines()[0])

    said("content")
    assert said("./content") == "errdex: nothing changed"
    assert said(content) == "errdex: nothing changed"
    assert said(Path("..") / content.parent.name / "content") == "errdex: nothing changed"
    # From another folder, each path a message shows is shown from there: a full build.
    monkeypatch.chdir(content.parent.parent)
    result = run("build", "--content", content, "--out", out, "--cache", cache, "-v")
    assert result.err.startswith("errdex: full build: run from another folder"), result.err
    warned = [line.split(":")[0] for line in result.err.splitlines() if ": warning: " in line]
    assert warned and all(Path(path).is_file() for path in warned), result.err
    assert warned[0].startswith(f"{content.parent.name}/content/errors/"), warned
    # Through a link to the working folder, and not through a link's ``..``.
    linked_here = content.parent.parent / "linked-here"
    linked_here.symlink_to(content.parent)
    monkeypatch.chdir(linked_here)
    assert said("content").startswith("errdex: full build: run from another folder")
    assert said(linked_here / "content") == "errdex: nothing changed"
    monkeypatch.chdir(content.parent)
    (content.parent / "sub" / "deeper").mkdir(parents=True)
    (content.parent / "elsewhere").symlink_to(content.parent / "sub" / "deeper")
    decoy = content.parent / "sub" / "content"
    shutil.copytree(content, decoy)  # what elsewhere/../content names, not ./content
    decoyed = content.parent / "decoy-out"
    result = run("build", "--content", "elsewhere/../content", "--out", decoyed, "--no-cache")
    assert result.code == 0 and "elsewhere/../content/errors/" in result.err, result.err
    # A folder outside the working one is shown as it was typed.
    beside = content.parent.parent / "beside"
    beside.mkdir()
    monkeypatch.chdir(beside)
    result = run("build", "--content", f"../{content.parent.name}/content", "--out", out)
    assert f"\n../{content.parent.name}/content/errors/r0.yaml:" in "\n" + result.err, result.err


@pytest.mark.parametrize("prose", ["situations: New prose.\n", "situations: |\n  one\n  two\n"])
def test_an_update_of_two_records_warns_as_a_fresh_build_does(
    prose: str,
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """One record, whose related entry names nothing (W402), gets a prose edit (its lines
    move or not) and another a title in the same update: the update warns of that entry,
    at its line, as a build from nothing does, and so does the build after it."""
    records = _stated_site(tmp_path)
    records["r0.yaml"] = records["r0.yaml"].replace(
        "related:\n", "related:\n  - A message no record has at all\n", 1
    )
    content = make_content(tmp_path, records)
    out, build = tmp_path / "public", _verbose_builds(run, content, tmp_path)

    def warned(err: str) -> list[str]:
        return sorted(line for line in err.splitlines() if ": warning: " in line)

    assert "A message no record has at all" in "".join(warned(build()))
    for name, old, new in (
        ("r0.yaml", "source:", prose + "source:"),
        ("r3.yaml", "source:", "title: A title of its own\nsource:"),
    ):
        path = content / "errors" / name
        path.write_text(path.read_text().replace(old, new, 1))
    err = build()
    assert "errdex: update: 2 records changed, shown on" in err, err
    fresh = run("build", "--content", content, "--out", tmp_path / "fresh", "--no-cache")
    assert warned(err) == warned(fresh.err)
    assert any("A message no record has at all" in line for line in warned(err))
    assert _bytes(out) == _fresh(content, tmp_path, run)
    assert warned(build()) == warned(fresh.err)  # nothing changed: as the state keeps them


@pytest.mark.parametrize("per_sitemap", [50_000, 4])
def test_reviewing_a_draft_that_search_engines_were_kept_from_puts_it_in_the_sitemap(
    per_sitemap: int,
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a site that publishes drafts with ``noindex``, an update that reviews one gives
    the sitemaps a fresh build gives: one, or an index of several."""
    from errdex import render

    monkeypatch.setattr(render, "SITEMAP_URLS", per_sitemap)
    records = _stated_site(tmp_path)
    records["r0.yaml"] = records["r0.yaml"].replace(
        "  by: AI-assisted\n", "  by: AI-assisted\n  model: a-model\n", 1
    )
    content = make_content(tmp_path, records)
    site = content / "site.yaml"
    site.write_text(site.read_text() + "drafts:\n  publish: noindex\n")
    out, build = tmp_path / "public", _verbose_builds(run, content, tmp_path)
    build()
    page = f"errors/{0:016x}/"
    sitemaps = "".join(p.read_text() for p in sorted(out.glob("sitemap*.xml")))
    assert page not in sitemaps
    draft = content / "errors" / "r0.yaml"
    draft.write_text(
        draft.read_text().replace("model: a-model\n", "model: a-model\n  reviewed: true\n")
    )
    err = build()
    if per_sitemap == 50_000:
        assert "errdex: update: " in err, err
    sitemaps = "".join(p.read_text() for p in sorted(out.glob("sitemap*.xml")))
    assert page in sitemaps
    assert _bytes(out) == _fresh(content, tmp_path, run)


@pytest.mark.parametrize("edit", ["message", "line"])
def test_an_update_writes_the_json_of_the_neighbours_it_renders_again(
    site,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    edit: str,
) -> None:
    """Each JSON document lists the other errors of its file (``same_file``), as its page
    does: an update that renders a neighbour's page again writes its JSON too, and both
    are what a build from nothing makes."""
    content, out, build = site
    neighbour = _page_id(out, "Thing number 1")
    moved = _page_id(out, "Thing number 0")
    path = content / "errors" / "r0.yaml"
    # Its id stated, so that a new message keeps it (and the edit is an update).
    path.write_text(f'id: "{moved}"\n' + path.read_text())
    build()
    if edit == "message":
        path.write_text(path.read_text().replace('"Thing number 0', '"Item number 0'))
    else:
        # Below the others: first in line order before, last after.
        text = path.read_text().replace("line: 3\n", "line: 60\n")
        path.write_text(text.replace("start: 1\n", "start: 58\n"))
    before = json.loads((out / f"api/errors/{neighbour}.json").read_bytes())
    page_before = (out / f"errors/{neighbour}/index.html").read_text()
    err = build("-v")
    assert "errdex: update: " in err, err
    after = json.loads((out / f"api/errors/{neighbour}.json").read_bytes())
    page_after = (out / f"errors/{neighbour}/index.html").read_text()
    if edit == "line":
        assert before["same_file"][0] == moved and after["same_file"][-1] == moved
    else:
        assert after["same_file"] == before["same_file"] and moved in after["same_file"]
        assert "Item number 0" in page_after and "Item number 0" not in page_before
    fresh = _fresh(content, tmp_path, run)
    for rel in (
        f"api/errors/{neighbour}.json",
        f"api/errors/{neighbour}",
        f"errors/{neighbour}/index.html",
    ):
        assert (out / rel).read_bytes() == fresh[rel], rel
