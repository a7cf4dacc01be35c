"""The search index in an update: kept when the edit changes no message and no order,
made aside in a forked process when a message is reworded, made in the build when that
process dies; always the index a build from nothing makes."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from conftest import make_content, snapshot
from updates import (
    builder,
    bytes_of,
    fresh_build,
    imported_by_build,
    stated_record,
    stated_site,
)


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every update that rewords a message makes its search index aside, whatever the
    site's size; the process ids of the forks made aside, in order (0: run in this one)."""
    from errdex.site import update
    from errdex.util import parallel

    monkeypatch.setattr(update, "INDEX_ASIDE_FROM", 0)
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
    content = make_content(tmp_path, stated_site(tmp_path))
    out, build = tmp_path / "public", builder(run, content, tmp_path, "-v")
    build()
    errors = content / "errors"

    def change(name: str, old: str, new: str) -> None:
        path = errors / name
        path.write_text(path.read_text().replace(old, new, 1))

    if edit == "message":
        change("r2.yaml", "Part 2 of the", "Part two of the")
    elif edit == "message another names":  # r1's entry names nothing, then r7
        (errors / "r1.yaml").write_text(stated_record(1, ["Part twenty is gone"]))
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
    after = bytes_of(out)
    assert after == fresh_build(content, tmp_path, run)
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
    from errdex.site import update

    parent = os.getpid()
    real = update.index_files

    def dies_if_forked(*args):  # type: ignore[no-untyped-def]
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*args)

    monkeypatch.setattr(update, "index_files", dies_if_forked)
    content = make_content(tmp_path, stated_site(tmp_path))
    out, build = tmp_path / "public", builder(run, content, tmp_path, "-v")
    build()
    path = content / "errors" / "r2.yaml"
    path.write_text(path.read_text().replace("Part 2 of the", "Part two of the", 1))
    assert "; search index made aside" in build()
    assert forks[0] > 0
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


def test_an_index_made_aside_for_a_plan_that_needs_none_is_stopped(
    forks: list[int],
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """A reworded message whose update turns out to be a full build (here it gives an
    option its page) leaves no process behind."""
    content = make_content(tmp_path, stated_site(tmp_path))
    out, build = tmp_path / "public", builder(run, content, tmp_path, "-v")
    build()
    path = content / "errors" / "r4.yaml"
    path.write_text(path.read_text().replace("--tensor-parallel-size check", "--new-knob check", 1))
    said = build()
    assert "full build: " in said and "the options errors name changed" in said, said
    assert len(forks) == 1 and forks[0] > 0
    with pytest.raises(ChildProcessError):
        os.waitpid(forks[0], os.WNOHANG)  # reaped: no such child any more
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


def test_after_errors_change_places_the_next_update_still_keeps_the_search_index(
    tmp_path: Path, run
) -> None:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, stated_site(tmp_path))
    out, build = tmp_path / "public", builder(run, content, tmp_path, "-v")

    build()
    r0, r7 = content / "errors" / "r0.yaml", content / "errors" / "r7.yaml"
    r0.write_text(
        r0.read_text().replace("  line: 3\n", "  line: 40\n").replace("start: 1\n", "start: 38\n")
    )
    assert "search index kept" not in build()  # r0 and r3 change places
    r7.write_text(r7.read_text().replace("source:", "meaning: Explained at last.\nsource:", 1))
    assert "; search index kept" in build()  # the places the last update gave are kept
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


def test_a_prose_edit_after_a_reworded_message_reads_no_search_entries(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    """The journal keeps what the rewording changed in the links, search's entries among
    them; a prose edit after it reads no links, and imports nothing of search."""
    content = make_content(tmp_path, stated_site(tmp_path))
    argv = ["build", "--content", str(content), "--out", str(tmp_path / "public")]
    argv += ["--cache", str(tmp_path / "cache"), "-v"]
    assert run(*argv).code == 0
    path = content / "errors" / "r2.yaml"
    path.write_text(path.read_text().replace("Part 2 of the", "Part two of the", 1))
    assert "update: 1 record changed, shown on" in run(*argv).err
    path = content / "errors" / "r4.yaml"
    path.write_text(path.read_text().replace("What it means", "What it says", 1))
    err, loaded = imported_by_build(argv, ["errdex.search"])
    assert "errdex: update: 1 record changed\n" in err, err
    assert loaded == []


def test_a_line_moved_of_a_message_said_twice_in_one_file_is_in_the_updated_index(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """Of records that say the same words in one file, the index keeps each one's line (a
    traceback's frame names the nearest): an update that moves one makes the index again."""
    said = 'exception: ValueError\nmessage: "The spool holds {n} reels"\n'
    records = {
        f"{name}.yaml": f"id: {rid}\nrepo: example/project\n{said}"
        f"source: {{commit: abcdef1, path: src/spool.py, line: {line}}}\n"
        for name, rid, line in (("a", "5e1f000000000010", 10), ("b", "5e1f000000000011", 20))
    }
    content = make_content(tmp_path, records)
    build = builder(run, content, tmp_path)
    build()
    out = tmp_path / "public"
    path = content / "errors" / "b.yaml"
    path.write_text(path.read_text().replace("line: 20", "line: 30"))
    err = build("-v")
    assert "update: 1 record changed" in err and "search index kept" not in err, err
    assert bytes_of(out) == fresh_build(content, tmp_path, run)
    paste = 'File "/venv/src/spool.py", line 29, in wind\nValueError: The spool holds 2 reels'
    found = run("lookup", paste, "--site", out)
    assert "/errors/5e1f000000000011/" in found.out, found.out
