"""What a build keeps in its cache for the next one, and what it trusts of it: why a
build is full or an update, a damaged state or lists, a cache or content folder named
another way, an output changed behind errdex's back, the states of output folders that
are gone, and a build with nothing to do that loads no parser."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import make_content, snapshot
from updates import (
    builder,
    bytes_of,
    fresh_build,
    imported_by_build,
    numbered_record,
    site,
    stated_record,
    stated_site,
)

__all__ = ["site"]  # the fixture of updates.py these tests take


def test_verbose_says_why_a_build_is_what_it_is_and_the_state_keeps_it(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    from errdex.site import state

    content = make_content(tmp_path, {f"r{n}.yaml": numbered_record(n) for n in range(4)})
    out, cache = tmp_path / "public", tmp_path / "cache"
    build = builder(run, content, tmp_path)

    def kept() -> str:
        found = state.load(state.path_for(cache, out), out)
        assert isinstance(found, state.State), found
        return found.reason

    assert "errdex: full build: no previous state" in build("-v")
    assert kept() == "no previous state"
    for n in range(4, 7):
        (content / "errors" / f"r{n}.yaml").write_text(numbered_record(n, "Widget"))
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


class _WholeSeconds:
    """A directory entry of a file system that keeps times to the second (ext2, HFS+,
    many network mounts)."""

    def __init__(self, entry: Any) -> None:
        self.entry = entry

    def __getattr__(self, name: str) -> Any:
        return getattr(self.entry, name)

    def stat(self) -> Any:
        seen = self.entry.stat()
        whole = 1_000_000_000

        class Stat:
            st_ctime_ns = seen.st_ctime_ns // whole * whole
            st_mtime_ns = seen.st_mtime_ns // whole * whole
            st_size = seen.st_size

        return Stat()


def test_a_record_saved_again_in_the_second_the_last_build_looked_is_built(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a file system that keeps times to the second, a record saved again within the
    second the last build read it (serve rebuilds a tenth of a second after a save) keeps
    the time and size that build saw. The build after still finds the new bytes, every
    time, and a file it compared and found the same is nothing to do."""
    import time

    from errdex.records import files

    walk = files._walk
    monkeypatch.setattr(files, "_walk", lambda folder: map(_WholeSeconds, walk(folder)))
    content = make_content(tmp_path, {f"r{n}.yaml": numbered_record(n) for n in range(3)})
    path = content / "errors" / "r1.yaml"
    build = builder(run, content, tmp_path)
    build()
    time.sleep(1 - time.time() % 1)  # early in a second: both saves and a build share it
    path.write_text(path.read_text().replace("The first version", "Tha first version"))
    assert "errdex: update: 1 record changed" in build("-v")
    path.write_text(path.read_text().replace("Tha first version", "Thx first version"))
    assert "errdex: update: 1 record changed" in build("-v")  # the same size and second
    assert bytes_of(tmp_path / "public") == fresh_build(content, tmp_path, run)
    assert "errdex: nothing changed" in build("-v")


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
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


def test_an_edit_after_the_states_links_are_gone_is_a_full_build(site, tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content, out, build = site
    (links,) = (tmp_path / "cache").glob("state-*.links")
    links.unlink()
    path = content / "errors" / "r2.yaml"
    path.write_text(path.read_text() + "title: A title of its own\n")  # shown on others
    err = build("-v")
    assert "errdex: full build: the previous state's links are missing or damaged" in err
    assert bytes_of(out) == fresh_build(content, tmp_path, run)
    path.write_text(path.read_text().replace("A title of its own", "Another title"))
    assert "shown on" in build("-v")  # the full build wrote them again


def test_a_cache_named_from_another_folder_still_finds_its_links(
    tmp_path: Path, run, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, {f"r{n}.yaml": numbered_record(n) for n in range(4)})
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
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


def test_an_update_made_with_another_cache_is_not_mistaken_for_ours(
    site,
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """Two caches build into one folder (two checkouts' builds, a cache restored from an
    earlier run): an update made with the other changes a page in place, and this
    cache's state no longer describes the folder, though the folder is the same one."""
    content, out, build = site
    other = ["build", "--content", content, "--out", out, "--cache", tmp_path / "other"]
    assert run(*other).code == 0  # the folder as both states know it
    build()
    path = content / "errors" / "r0.yaml"
    first = path.read_text()
    path.write_text(first.replace("The first version", "Tha first version"))
    made = run(*other, "-v")
    assert "errdex: update: 1 record changed" in made.err, made.err
    path.write_text(first)  # back to what this cache's state last saw built
    said = build("-v")
    assert "errdex: nothing changed" not in said
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


def test_an_output_changed_behind_errdex_back_is_rebuilt(site, tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content, out, build = site
    shutil.rmtree(out)
    err = build()
    assert "rendered" not in err
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


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
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


def test_the_states_of_output_folders_that_are_gone_are_dropped(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, {f"r{n}.yaml": numbered_record(n) for n in range(2)})
    cache = tmp_path / "cache"
    outs = [tmp_path / "one", tmp_path / "two"]
    for out in outs:
        assert run("build", "--content", content, "--out", out, "--cache", cache).code == 0
    states = sorted(p.name for p in cache.glob("state-*"))
    assert len(states) == 6  # per output: the state, its links, its folder's name
    (cache / "state-0123456789abcdef.bin").write_bytes(b"an older errdex's")
    gone = next(p for p in cache.glob("state-*.out") if p.read_text() == str(outs[0].resolve()))
    # Search entries an errdex before state format 9 kept beside the state.
    gone.with_suffix(".bin.lists").write_bytes(b"entries kept apart")
    shutil.rmtree(outs[0])
    # A build with nothing to do into the other folder clears the states nothing will read.
    assert (
        "0 rendered" in run("build", "--content", content, "--out", outs[1], "--cache", cache).err
    )
    left = sorted(p.name for p in cache.glob("state-*"))
    assert len(left) == 3 and set(left) < set(states)
    (named,) = cache.glob("state-*.out")
    assert named.read_text() == str(outs[1].resolve())


def test_the_file_an_older_errdex_kept_beside_its_state_goes_with_a_full_build(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    content = make_content(tmp_path, {f"r{n}.yaml": numbered_record(n) for n in range(2)})
    cache = tmp_path / "cache"
    command = ("build", "--content", content, "--out", tmp_path / "public", "--cache", cache)
    assert run(*command).code == 0
    (state_file,) = cache.glob("state-*.bin")
    older = state_file.with_name(state_file.name + ".lists")  # search entries, before format 9
    older.write_bytes(b"entries an older errdex kept apart")
    assert run(*command, "--base-url", "https://other.example.test/").code == 0  # a full build
    assert not older.exists()


def test_a_build_with_nothing_to_do_loads_no_parser_or_renderer(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, {f"r{n}.yaml": numbered_record(n) for n in range(2)})
    argv = ["build", "--content", str(content), "--out", str(tmp_path / "public")]
    argv += ["--cache", str(tmp_path / "cache")]
    assert run(*argv).code == 0
    err, loaded = imported_by_build(argv, ["yaml", "jinja2", "pygments", "markdown_it"])
    assert "0 rendered" in err
    assert loaded == []


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
    (content.parent / "here").symlink_to(content.parent)  # a link inside, to itself
    assert said("content") == "errdex: nothing changed"
    assert said("here/content") == "errdex: nothing changed"
    assert said("here/here/content") == "errdex: nothing changed"
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

    from errdex.site import build as build_module

    collecting: list[bool] = []  # whether the collector runs as each build renders
    real_render = build_module._render

    def render(*args: Any, **kwargs: Any) -> Any:
        collecting.append(gc.isenabled())
        return real_render(*args, **kwargs)

    monkeypatch.setattr(build_module, "_render", render)
    content = make_content(tmp_path, {f"r{n}.yaml": numbered_record(n) for n in range(3)})
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


def test_an_update_stopped_while_it_wrote_and_an_edit_taken_back_is_a_full_build(
    site,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """An update notes the files it is about to write, writes them, then notes that it
    did. Stopped between the two notes, its page shows the edit while the state keeps
    the record as it was: an edit taken back must not then be "nothing changed"."""
    content, out, build = site
    path = content / "errors" / "r2.yaml"
    before = path.read_bytes()
    path.write_text(path.read_text().replace("The first version", "Another version"))
    assert "update: 1 record changed" in build("-v")
    (state_file,) = (tmp_path / "cache").glob("state-*.bin")
    blob = state_file.read_bytes()
    # The frames of the state's file: the full build's state, then the update's notes.
    from errdex.site import state

    at, ends = len(state.FORMAT), []
    while at + 40 <= len(blob):
        at += 40 + int.from_bytes(blob[at : at + 8], "big")
        ends.append(at)
    assert len(ends) == 3
    state_file.write_bytes(blob[: ends[1]])  # as if stopped before the last note
    path.write_bytes(before)  # the edit taken back
    # The files it wrote moved the marker's change time: the folder is not the one the
    # state last noted. Stopped before it wrote any, the state still says so.
    said = build("-v")
    assert f"full build: {out} changed since the last build into it" in said
    assert bytes_of(out) == fresh_build(content, tmp_path, run)
    path.write_text(path.read_text().replace("The first version", "Another version"))
    assert "update: 1 record changed" in build("-v")
    state.note(state_file, {}, {"index.html": ""}, [])  # about to write, then stopped
    path.write_bytes(before)
    assert "full build: the last update stopped while it wrote its files" in build("-v")
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


def test_serve_hands_the_links_to_its_next_build_which_reads_no_file_of_them(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """``serve`` keeps the links its last build wrote or read (``state.Store``) for its
    next one: each update in it shows what a build from nothing shows without reading
    their file, and a full build leaves its own links there, and only those."""
    from errdex.site import state
    from errdex.site.build import Options, build

    content = make_content(tmp_path, stated_site(tmp_path))
    out, cache = tmp_path / "public", tmp_path / "cache"
    store: state.Store = {}
    options = Options(content=content, out=out, cache=cache, jobs=1, quiet=True, store=store)
    links_file = Path(f"{state.path_for(cache, out)}.links")
    path = content / "errors" / "r4.yaml"
    for full in range(2):
        assert build(options).full
        # The store has the links the full build wrote: their file is not needed.
        links_file.unlink()
        for n, words in enumerate(["Part four reworded", "Part four reworded again", "Part 4 of"]):
            # A reworded message (the record states its id): every summary and search
            # entry is read, the search index made again.
            text = path.read_text()
            path.write_text(text.replace(text.split('message: "')[1].split(" the")[0], words, 1))
            assert not build(options).full
            assert bytes_of(out) == fresh_build(content, tmp_path, run), (full, n)
        # As the full build wrote them, whatever the updates since changed: each build
        # has a copy.
        (kept,) = store.values()
        assert len(kept.entries) == 1 and not kept.records_changed
        (content / "errors" / f"added{full}.yaml").write_text(
            stated_record(9 + full, [], analysed=False)
        )
    # Without the store (a new process), the links are gone: a full build, as before.
    assert build(replace(options, store=None)).full
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


def test_a_reworded_message_says_once_that_its_page_moved_and_which_alias_keeps_it(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A record without an ``id`` takes it from its message: rewording the message moves
    the page, and links to the old address (an issue's, a search engine's) get 404. The
    build after the edit says so at the message's line, with the alias to add; the
    alias added, the old address leads to the page and nothing is said."""
    import json

    from conftest import MINIMAL

    monkeypatch.chdir(tmp_path)
    content = make_content(tmp_path, {"a.yaml": MINIMAL, "b.yaml": MINIMAL.replace("size", "n")})
    build = builder(run, content, tmp_path)

    def id_of(words: str) -> str:
        listed = json.loads((tmp_path / "public" / "api" / "errors.json").read_text())
        (found,) = [e["id"] for e in listed["errors"] if words in e["message"]]
        return str(found)

    build()
    old = id_of("size={size} must be positive")
    path = content / "errors" / "a.yaml"
    path.write_text(MINIMAL.replace("must be positive", "must be at least one"))
    # `check` says it too, from the state it reads and leaves as it is (a CI runs it).
    cache = tmp_path / "cache"
    before = {p: p.stat().st_mtime_ns for p in cache.iterdir()}
    out = tmp_path / "public"
    checked = run("check", "--content", content, "--out", out, "--cache", cache)
    assert checked.code == 0, checked.err
    assert checked.err.count("[W405]") == 1, checked.err
    assert "[W405]" not in run("check", "--content", content, "--out", out, "--no-cache").err
    assert {p: p.stat().st_mtime_ns for p in cache.iterdir()} == before
    said = build()
    new = id_of("must be at least one")
    assert (
        f"content/errors/a.yaml:3: warning: its page moved from errors/{old}/ to "
        f"errors/{new}/ (its repo, exception or message changed since the last build), and "
        f'the old address now gives 404; add "{old}" to its `aliases` to keep it [W405]'
    ) in said, said
    assert said.count("[W405]") == 1  # b.yaml kept its id
    assert "W405" not in build()  # said once: the next build has nothing to do

    # Built from another working folder, the files are the same files.
    path.write_text(MINIMAL.replace("must be positive", "must be one or more"))
    monkeypatch.chdir(tmp_path.parent)
    said = build()
    assert f"its page moved from errors/{new}/ to errors/" in said, said
    monkeypatch.chdir(tmp_path)
    path.write_text(MINIMAL.replace("must be positive", "must be at least one"))
    build()

    path.write_text(path.read_text() + f'aliases: ["{old}"]\n')
    assert "W405" not in build()
    assert (tmp_path / "public" / "errors" / old / "index.html").is_file()  # leads to the page

    # A record with aliases already is told the same: one list, quoted ids (an id all
    # digits would read as a number).
    path.write_text(path.read_text().replace("at least one", "one at least"))
    assert f'add "{new}" to its `aliases` to keep it' in build()

    # A stated id changed: said so, at its line.
    path.write_text(f'id: "0123456789abcdef"\n{path.read_text()}')
    build()
    path.write_text(path.read_text().replace("0123456789abcdef", "fedcba9876543210"))
    said = build()
    assert (
        "content/errors/a.yaml:1: warning: its page moved from errors/0123456789abcdef/ to "
        "errors/fedcba9876543210/ (its id changed since the last build)"
    ) in said, said
