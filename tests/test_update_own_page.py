"""An edit only its own page shows (its prose, a related entry, the lines its warnings are
at) renders that page alone; an edit that is refused, or whose write fails, keeps the site
as it was; and every update gives the bytes and warnings of a build from nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import make_content, snapshot
from updates import (
    builder,
    bytes_of,
    fresh_build,
    numbered_record,
    page_id,
    site,
    stated_site,
)

from errdex.records.model import derive_id

__all__ = ["site"]  # the fixture of updates.py these tests take


def test_a_prose_edit_rewrites_only_that_errors_files(site, tmp_path, run) -> None:  # type: ignore[no-untyped-def]
    content, out, build = site
    target = page_id(out, "Thing number 2")
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
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


def test_nothing_changed_writes_nothing(site) -> None:  # type: ignore[no-untyped-def]
    _, out, build = site
    before = snapshot(out)
    assert "0 rendered, 0 files written" in build()
    assert snapshot(out) == before


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


def test_warnings_keep_their_lines_over_several_edits(site, tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content, _, build = site
    path = content / "errors" / "r0.yaml"
    for extra in ("One", "One\n  Two", "One\n  Two\n  Three"):
        path.write_text(
            numbered_record(0).replace("meaning: The first", f"meaning: |\n  {extra}\n  The first")
        )
        err = build()
        assert "1 rendered" in err
        fresh = run("build", "--content", content, "--out", tmp_path / "fresh", "--no-cache")
        assert re.findall(r"^.*warning:.*$", err, re.MULTILINE) == re.findall(
            r"^.*warning:.*$", fresh.err, re.MULTILINE
        )


def test_a_related_entry_added_in_an_edit_is_an_update(site, tmp_path, run) -> None:  # type: ignore[no-untyped-def]
    content, out, build = site
    path = content / "errors" / "r0.yaml"
    path.write_text(path.read_text() + "  - Thing number 2 is wrong\n")
    assert "errdex: update: 1 record changed" in build("-v")
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


def test_a_warning_about_the_cache_is_not_kept_as_one_about_the_content(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    records = {
        f"r{n}.yaml": numbered_record(n).replace("  - A message no record has, shown as text\n", "")
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


def test_an_edit_that_breaks_a_record_says_what_a_build_from_nothing_says(
    site,
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """Records edited: one no longer loads, another names an id no record has, then a
    third takes a fourth's id. Each time the build says what a build from nothing says
    (what linking the others finds included) and keeps the site."""
    content, out, _ = site
    before = snapshot(out)
    broken = content / "errors" / "r1.yaml"
    broken.write_text(re.sub(r"  line: \d+", "  line: twelve", broken.read_text()))
    relating = content / "errors" / "r2.yaml"
    relating.write_text(relating.read_text() + "  - '0123456789abcdef'\n")
    cache = tmp_path / "cache"
    result = run("build", "--content", content, "--out", out, "--cache", cache, "-v")
    assert result.code == 1
    assert "r1.yaml:8: source.line must be a whole number" in result.err
    assert "errdex: 1 related id that no record has left unchecked" in result.err
    assert "full build" not in result.err  # an update's own check: no record read again
    assert snapshot(out) == before
    fresh = run("build", "--content", content, "--out", tmp_path / "fresh", "--no-cache")
    assert result.err == fresh.err

    twin = content / "errors" / "r3.yaml"
    first = derive_id("example/project", "ValueError", "Thing number 0 is wrong")
    twin.write_text(f"# moved down a line\nid: {first}\n" + twin.read_text())
    result = run("build", "--content", content, "--out", out, "--cache", cache)
    assert "r3.yaml:2: duplicate id" in result.err and "r0.yaml:3 has it too [E400]" in result.err
    fresh = run("build", "--content", content, "--out", tmp_path / "fresh", "--no-cache")
    assert result.err == fresh.err
    assert snapshot(out) == before


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
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


@pytest.mark.parametrize("prose", ["situations: New prose.\n", "situations: |\n  one\n  two\n"])
def test_an_update_of_two_records_warns_as_a_fresh_build_does(
    prose: str,
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """One record, whose related entry names nothing (W402), gets a prose edit (its lines
    move or not) and another a title in the same update: the update warns of that entry,
    at its line, as a build from nothing does, and so does the build after it."""
    records = stated_site(tmp_path)
    records["r0.yaml"] = records["r0.yaml"].replace(
        "related:\n", "related:\n  - A message no record has at all\n", 1
    )
    content = make_content(tmp_path, records)
    out, build = tmp_path / "public", builder(run, content, tmp_path, "-v")

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
    assert bytes_of(out) == fresh_build(content, tmp_path, run)
    assert warned(build()) == warned(fresh.err)  # nothing changed: as the state keeps them
