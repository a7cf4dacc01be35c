"""A full build on every core gives the bytes one process gives, and keeps the records
its workers read aside only until their pages are rendered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from updates import (
    bytes_of,
)

from benchmarks import corpus
from errdex.site import highlight


def test_every_core_builds_the_same_bytes_as_one(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    small_parallel: list[int],
) -> None:
    from errdex.util import parallel

    records = corpus.generate(parallel.PARALLEL_FROM + 50, seed=3)
    corpus.write_content(tmp_path / "content", records)
    outs = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}"
        result = run(
            "build", "--content", tmp_path / "content", "--out", out, "--no-cache", "--jobs", jobs
        )
        assert result.code == 0, result.err
        outs[jobs] = bytes_of(out)
    assert outs["1"] == outs["2"]
    assert small_parallel == [1, 1, 2, 2]  # read, then render: alone, then on two


def test_records_read_on_every_core_are_kept_aside_then_gone(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
    small_parallel: list[int],
) -> None:
    """A full build on every core keeps the records its workers read in a folder of its
    own until their pages are rendered (in the cache folder, else the system's temporary
    one): the pages are the same as one process renders, with the cache and an update
    after it too, and the folder is gone afterwards, also when the build stops at a bad
    record; one a killed build left is removed by the next."""
    import tempfile

    from errdex.util import parallel

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
    assert small_parallel[-2:] == [2, 2]
    assert bytes_of(uncached) == bytes_of(alone)
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
    assert bytes_of(out) == bytes_of(alone)
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
    assert bytes_of(again) == bytes_of(alone)

    # An update after it renders from the summaries that build kept.
    target = content / corpus.record_path(7, records[7])
    target.write_text(target.read_text().replace("\nmessage: ", "\ntitle: Renamed\nmessage: ", 1))
    updated = run("build", "--content", content, "--out", out, "--cache", cache, "-v")
    assert "update: 1 record changed, shown on" in updated.err
    assert run("build", "--content", content, "--out", alone, "--no-cache", "--jobs", "1").code == 0
    assert bytes_of(out) == bytes_of(alone)

    before = bytes_of(out)
    (content / corpus.record_path(9, records[9])).write_text("repo: [unclosed\n")
    (content / "site.yaml").write_text((content / "site.yaml").read_text() + "\n")
    failed = run("build", "--content", content, "--out", out, "--cache", cache, "--jobs", "2")
    assert failed.code == 1
    assert corpus.record_path(9, records[9]) in failed.err
    assert bytes_of(out) == before
    assert list(cache.glob("records-*")) == []
    assert list(scratch.iterdir()) == []


def test_records_that_cannot_be_kept_aside_stay_in_the_build(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
    small_parallel: list[int],
) -> None:
    """No temporary folder, or no room left in it for some pieces: the build keeps those
    records itself and gives the same bytes."""
    import errno
    import tempfile

    from errdex.site import read
    from errdex.util import parallel

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
        assert bytes_of(out) == bytes_of(alone)

    written = read.Stash._write

    def full_for_some(self: read.Stash, number: int, held: list[Any]) -> None:
        if number % 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        written(self, number, held)

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setattr(read.Stash, "_write", full_for_some)
    out = tmp_path / "full"
    built = run("build", "--content", content, "--out", out, "--no-cache", "--jobs", "2")
    assert built.code == 0, built.err
    assert small_parallel[-2:] == [2, 2]
    assert bytes_of(out) == bytes_of(alone)
    assert list(scratch.iterdir()) == []
