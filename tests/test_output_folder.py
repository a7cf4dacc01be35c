"""The output folder and the cache folder, against what a user can point them at: a
folder of other files, a file, a link, the cache inside the site, an empty or too-wide
--cache, and ``check`` pointed at a folder errdex did not build."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import MINIMAL, make_content, snapshot

MARKER = ".errdex-site"


def everything(folder: Path) -> dict[str, bytes | str]:
    """Every entry under ``folder`` (itself included): a file's bytes, a link's target,
    and folders as such, so a folder swapped for another or a link for a folder shows."""
    found: dict[str, bytes | str] = {}
    for path in sorted([folder, *folder.rglob("*")]):
        rel = path.relative_to(folder.parent).as_posix()
        if path.is_symlink():
            found[rel] = "link to " + os.readlink(path)
        elif path.is_dir():
            found[rel] = "folder"
        elif path.is_file():
            found[rel] = path.read_bytes()
        else:
            found[rel] = "other"
    return found


def refused(result, *names: str) -> None:  # type: ignore[no-untyped-def]
    assert result.code == 1, result.err
    assert "Traceback" not in result.err
    assert "nothing was written" in result.err
    for name in names:
        assert name in result.err, result.err


# --- The output folder is errdex's alone (item 2) ------------------------------------


def test_hand_written_files_beside_an_index_are_never_deleted(
    tmp_path: Path,
    content: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    docs = tmp_path / "docs"
    (docs / "api").mkdir(parents=True)
    (docs / "api" / "errors.json").write_text('{"errors": []}')
    (docs / "guide").mkdir()
    (docs / "guide" / "intro.md").write_text("# Written by hand\n")
    (docs / "CNAME").write_text("errors.example.org\n")
    before = everything(docs)
    result = run("build", "--content", content, "--out", docs, "--no-cache")
    refused(result, "[E500]", "CNAME", "guide/intro.md")
    assert everything(docs) == before
    # check writes nothing, yet it refuses the folder in the build's very words (and
    # does not say it wrote nothing: it never writes).
    check = run("check", "--content", content, "--out", docs)
    said = result.err.replace("; nothing was written", "")
    assert (check.code, check.out, check.err) == (1, "", said) and said != result.err
    assert everything(docs) == before


def test_a_file_added_to_a_built_site_stops_every_build_and_check(
    tmp_path: Path,
    content: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    # A CNAME dropped into the built site, as GitHub Pages users do: the next full build
    # would replace the folder whole, so no build writes into it (not even an update,
    # which would leave it), and check says so first.
    out, cache = tmp_path / "public", tmp_path / "cache"
    assert run("build", "--content", content, "--out", out, "--cache", cache).code == 0
    (out / "CNAME").write_text("errors.example.org\n")
    (out / "drafts").mkdir()  # an empty folder errdex did not make either
    before = everything(out)
    refused(run("build", "--content", content, "--out", out, "--cache", cache), "CNAME", "drafts/")
    record = content / "errors" / "a.yaml"
    record.write_text(record.read_text() + "meaning: Written after the CNAME.\n")
    refused(run("build", "--content", content, "--out", out, "--cache", cache), "CNAME", "drafts/")
    (content / "errors" / "b.yaml").unlink()  # a change that removes errdex's own pages
    result = run("build", "--content", content, "--out", out, "--no-cache")
    refused(result, "[E500]", "CNAME", "drafts/")
    assert everything(out) == before
    check = run("check", "--content", content, "--out", out)
    said = result.err.replace("; nothing was written", "")
    assert (check.code, check.out, check.err) == (1, "", said)
    (out / "CNAME").unlink()
    (out / "drafts").rmdir()
    check = run("check", "--content", content, "--out", out)
    assert check.code == 0 and "would remove" in check.out  # errdex's own stale pages


def test_a_file_added_inside_a_built_sites_folders_stops_a_full_build_and_check(
    tmp_path: Path,
    content: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    # An update looks at the top level of the output only (walking a large site would
    # cost it more than its edit); a full build and check read it all.
    out, cache = tmp_path / "public", tmp_path / "cache"
    assert run("build", "--content", content, "--out", out, "--cache", cache).code == 0
    page = next(p for p in (out / "errors").iterdir() if p.is_dir())
    (page / "notes.txt").write_text("mine\n")
    record = content / "errors" / "a.yaml"
    record.write_text(record.read_text() + "meaning: An update leaves the notes be.\n")
    assert run("build", "--content", content, "--out", out, "--cache", cache).code == 0
    assert (page / "notes.txt").read_text() == "mine\n"
    check = run("check", "--content", content, "--out", out)
    assert check.code == 1 and f"errors/{page.name}/notes.txt" in check.err, check.err
    before = everything(out)
    result = run("build", "--content", content, "--out", out, "--no-cache")
    refused(result, "[E500]", f"errors/{page.name}/notes.txt")
    assert everything(out) == before


def test_a_refused_full_build_keeps_the_state_that_says_which_page_moved(
    tmp_path: Path,
    content: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    # A reworded message moves its page (a new id); the build refused for a CNAME must not
    # forget the last build's pages, or the build after it loses the warning (W405) that
    # names the old address to keep.
    out, cache = tmp_path / "public", tmp_path / "cache"
    assert run("build", "--content", content, "--out", out, "--cache", cache).code == 0
    record = content / "errors" / "a.yaml"
    record.write_text(record.read_text().replace("must be positive", "must be at least one"))
    (out / "CNAME").write_text("errors.example.org\n")
    refused(run("build", "--content", content, "--out", out, "--cache", cache), "CNAME")
    (out / "CNAME").unlink()
    # Refused after rendering every page (a file that appears while a full build runs).
    (out / "errors" / "notes.txt").write_text("mine\n")
    refused(run("build", "--content", content, "--out", out, "--cache", cache), "notes.txt")
    (out / "errors" / "notes.txt").unlink()
    assert "[W405]" in run("check", "--content", content, "--out", out, "--cache", cache).err
    result = run("build", "--content", content, "--out", out, "--cache", cache)
    assert result.code == 0 and result.err.count("[W405]") == 1, result.err


def test_a_build_removes_its_own_stale_files_and_names_them_in_its_marker(
    tmp_path: Path,
    content: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out, "--no-cache").code == 0
    listed = json.loads((out / MARKER).read_text())["files"]
    assert listed == sorted(rel for rel in snapshot(out) if rel != MARKER)
    pages = {rel for rel in listed if rel.startswith("errors/")}
    (content / "errors" / "b.yaml").unlink()
    check = run("check", "--content", content, "--out", out)
    gone = [
        line.removeprefix(f"would remove {out}/")
        for line in check.out.splitlines()
        if line.startswith("would remove")
    ]
    assert gone and set(gone) <= set(listed)
    result = run("build", "--content", content, "--out", out, "--no-cache")
    assert result.code == 0, result.err
    assert f"{len(gone)} removed" in result.err
    now = json.loads((out / MARKER).read_text())["files"]
    assert now == sorted(rel for rel in snapshot(out) if rel != MARKER)
    assert len(pages - set(now)) == 1


def test_the_marker_has_the_same_bytes_from_any_build_of_the_same_content(
    tmp_path: Path,
    content: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    assert run("build", "--content", content, "--out", one, "--no-cache").code == 0
    assert run("build", "--content", content, "--out", two, "--cache", tmp_path / "c").code == 0
    before = (one / MARKER).stat().st_mtime_ns
    assert run("build", "--content", content, "--out", one, "--no-cache").code == 0
    assert (one / MARKER).read_bytes() == (two / MARKER).read_bytes()
    assert (one / MARKER).stat().st_mtime_ns == before  # unchanged bytes keep their time


def test_a_folder_without_a_readable_marker_is_never_replaced(
    tmp_path: Path,
    content: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    # A user's own folder that happens to hold the files a build writes (an index.html and
    # an api/errors.json) is not errdex's to replace; nor is one with an empty marker.
    out = tmp_path / "docs"
    (out / "api").mkdir(parents=True)
    (out / "api" / "errors.json").write_text('{"mine": 1}')
    (out / "index.html").write_text("<h1>My home</h1>")
    result = run("build", "--content", content, "--out", out, "--no-cache")
    assert result.code == 1
    assert "[E500]" in result.err and "delete the folder once" in result.err
    assert (out / "index.html").read_text() == "<h1>My home</h1>"
    assert (out / "api" / "errors.json").read_text() == '{"mine": 1}'
    (out / MARKER).write_text("")
    result = run("build", "--content", content, "--out", out, "--no-cache")
    assert result.code == 1 and "[E500]" in result.err
    assert (out / "index.html").read_text() == "<h1>My home</h1>"


def test_what_an_interrupted_update_left_does_not_stop_a_build(
    tmp_path: Path,
    content: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out, "--no-cache").code == 0
    page = next(out.glob("errors/*/index.html"))
    partial = page.with_name(".index.html.4242")  # an in-place update killed midway
    partial.write_bytes(b"half")
    result = run("build", "--content", content, "--out", out, "--no-cache")
    assert result.code == 0, result.err
    assert not partial.exists()


@pytest.mark.parametrize("kind", ["link out", "file", "dangling link", "link to itself"])
def test_an_update_never_writes_through_what_took_a_page_folders_place(
    tmp_path: Path,
    content: Path,
    run,  # type: ignore[no-untyped-def]
    kind: str,
) -> None:
    # An update writes a page's files in place: where its folder became a link, that
    # would write outside the site; where it became a file, it cannot write at all.
    out, cache = tmp_path / "public", tmp_path / "cache"
    assert run("build", "--content", content, "--out", out, "--cache", cache).code == 0
    page = next(out.glob("errors/*/index.html")).parent
    record = next(p for p in (content / "errors").glob("*.yaml") if page.name in _built_ids(out, p))
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "index.html").write_text("my own page\n")
    shutil.rmtree(page)
    if kind == "link out":
        page.symlink_to(mine)
    elif kind == "file":
        page.write_text("a file now\n")
    elif kind == "dangling link":
        page.symlink_to(tmp_path / "nowhere")
    else:
        page.symlink_to(page)
    record.write_text(record.read_text() + "meaning: Written after the folder went.\n")
    before = everything(out)
    result = run("build", "--content", content, "--out", out, "--cache", cache)
    refused(result, "[E500]", f"errors/{page.name}/")
    assert (mine / "index.html").read_text() == "my own page\n"
    assert everything(out) == before


def _built_ids(out: Path, record: Path) -> set[str]:
    """The ids of the pages whose JSON says they were built from ``record``'s message."""
    import yaml

    message = yaml.safe_load(record.read_text())["message"]
    listed = json.loads((out / "api" / "errors.json").read_text())["errors"]
    return {e["id"] for e in listed if e["message"] == message}


def test_a_link_in_place_of_one_of_errdexs_files_is_replaced_by_the_file(
    tmp_path: Path,
    content: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    # The same size and a digest the state holds: the file is still no file of ours.
    out, cache = tmp_path / "public", tmp_path / "cache"
    assert run("build", "--content", content, "--out", out, "--cache", cache).code == 0
    robots = out / "robots.txt"
    theirs = tmp_path / "theirs.txt"
    theirs.write_bytes(b"Z" * robots.stat().st_size)
    kept = robots.read_bytes()
    robots.unlink()
    robots.symlink_to(theirs)
    (content / "site.yaml").write_text((content / "site.yaml").read_text() + "\n")
    (content / "errors" / "b.yaml").unlink()  # a full build
    assert run("build", "--content", content, "--out", out, "--cache", cache).code == 0
    assert not robots.is_symlink() and robots.read_bytes() == kept
    assert theirs.read_bytes() == b"Z" * len(kept)


def test_a_page_folder_a_person_emptied_is_errdexs_and_filled_again(
    tmp_path: Path,
    content: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out, "--no-cache").code == 0
    page = next(out.glob("errors/*/index.html"))
    kept = page.read_bytes()
    page.unlink()
    check = run("check", "--content", content, "--out", out)
    assert check.code == 0 and f"would write {page}" in check.out, check.err
    assert run("build", "--content", content, "--out", out, "--no-cache").code == 0
    assert page.read_bytes() == kept


def test_folders_nested_deeper_than_python_recurses_are_refused_by_name(
    tmp_path: Path,
    content: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    # Deeper than the recursion limit, lowered here for the commands: a tree deep enough
    # for the usual limit would break the removal of old test folders, which recurses.
    import inspect
    import sys

    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out, "--no-cache").code == 0
    deep = os.path.join(out, "errors")
    for _ in range(200):
        deep = os.path.join(deep, "d")
        os.mkdir(deep)
    with open(os.path.join(deep, "notes.txt"), "w") as notes:
        notes.write("mine\n")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 150)
    try:
        check = run("check", "--content", content, "--out", out)
        build = run("build", "--content", content, "--out", out, "--no-cache")
    finally:
        sys.setrecursionlimit(limit)
    assert check.code == 1 and "[E500]" in check.err and "notes.txt" in check.err
    assert "Traceback" not in check.err
    refused(build, "notes.txt")


def test_ctrl_c_stops_a_build_with_a_word_not_a_traceback(tmp_path: Path, content: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    from conftest import ROOT, ctrl_c_stops

    for number in range(400):  # enough records that the build is still running
        (content / "errors" / f"n{number}.yaml").write_text(
            (content / "errors" / "a.yaml").read_text().replace("must be positive", f"no {number}")
        )
    out = tmp_path / "public"
    command = [sys.executable, str(ROOT / "build.py"), "build", "--content", str(content)]
    command += ["--out", str(out), "--no-cache", "--jobs", "1"]
    process = subprocess.Popen(
        command,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_stops,
    )
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".public.new-*")) and time.monotonic() < deadline:
        time.sleep(0.01)  # until it writes pages
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "errdex: stopped (Ctrl-C)" in err and "Traceback" not in err
    assert not out.exists() and not list(tmp_path.glob(".public.new-*"))


# --- A file is never replaced by a site (item 3) ---------------------------------------


def _not_a_folder(tmp_path: Path, kind: str) -> Path:
    readme = tmp_path / "README.md"
    readme.write_text("# My project\n")
    if kind == "file":
        return readme
    if kind == "fifo":
        os.mkfifo(tmp_path / "pipe")
        return tmp_path / "pipe"
    if kind == "link to a file":
        (tmp_path / "notes").symlink_to(readme)
        return tmp_path / "notes"
    return readme / "site"  # below a file


@pytest.mark.parametrize("kind", ["file", "fifo", "link to a file", "below a file"])
def test_an_output_that_is_not_a_folder_is_refused_and_kept(
    kind: str,
    tmp_path: Path,
    content: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    out = _not_a_folder(tmp_path, kind)
    before = everything(tmp_path)
    result = run("build", "--content", content, "--out", out, "--no-cache")
    refused(result, f"{out}: ", "[E500]")
    assert everything(tmp_path) == before  # no site, and no hidden .README.md.old-<pid>


# --- A link is written through (item 4) ------------------------------------------------


def test_a_linked_output_updates_the_folder_it_leads_to(
    tmp_path: Path,
    content: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    www = tmp_path / "srv" / "www"
    www.mkdir(parents=True)  # the web server's folder, empty so far
    public = tmp_path / "public"
    public.symlink_to(www, target_is_directory=True)
    cache = tmp_path / "cache"
    assert run("build", "--content", content, "--out", public, "--cache", cache).code == 0
    assert public.is_symlink() and os.readlink(public) == str(www)
    assert (www / "api" / "errors.json").is_file()
    record = content / "errors" / "a.yaml"
    # A prose edit is written in place, a new title swaps in a new folder: both reach www.
    for field_name, text in (("meaning", "A prose edit."), ("title", "A retitled error")):
        record.write_text(record.read_text() + f"{field_name}: {text}\n")
        assert run("build", "--content", content, "--out", public, "--cache", cache).code == 0
        assert public.is_symlink() and os.readlink(public) == str(www)
        pages = "".join(p.read_text() for p in www.glob("errors/*/index.html"))
        assert text in pages
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".public")]


@pytest.mark.parametrize("target", ["nowhere", "itself"])
def test_a_link_that_leads_nowhere_is_refused(
    target: str,
    tmp_path: Path,
    content: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    public = tmp_path / "public"
    public.symlink_to(tmp_path / ("nowhere" if target == "nowhere" else "public"))
    before = everything(tmp_path)
    refused(run("build", "--content", content, "--out", public, "--no-cache"), "public: is a link")
    assert everything(tmp_path) == before


# --- The cache folder (item 18) --------------------------------------------------------


@pytest.mark.parametrize(
    "where",
    ["inside the output", "the output", "a file", "below a file", "/proc", "inside the content"],
)
def test_a_cache_folder_errdex_cannot_keep_is_refused_before_any_work(
    where: str,
    tmp_path: Path,
    content: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out, "--no-cache").code == 0
    (tmp_path / "README.md").write_text("# My project\n")
    if where == "/proc" and not Path("/proc/self").is_dir():
        pytest.skip("no /proc here")
    cache = {
        "inside the output": out / "cache",
        "the output": out,
        "a file": tmp_path / "README.md",
        "below a file": tmp_path / "README.md" / "cache",
        "/proc": Path("/proc/nope"),
        "inside the content": content / ".cache",
    }[where]
    record = content / "errors" / "a.yaml"
    record.write_text(record.read_text() + "meaning: Changed.\n")
    before = everything(tmp_path)
    result = run("build", "--content", content, "--out", out, "--cache", cache)
    refused(result, f"--cache {cache}: ")
    assert everything(tmp_path) == before  # neither the site nor a cache folder in it


def test_an_output_that_cannot_be_made_is_refused(tmp_path: Path, content: Path, run) -> None:  # type: ignore[no-untyped-def]
    if not Path("/proc/self").is_dir():
        pytest.skip("no /proc here")
    refused(run("build", "--content", content, "--out", "/proc/nope", "--no-cache"), "[E500]")


def test_an_empty_or_enclosing_cache_folder_is_refused(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch,  # type: ignore[no-untyped-def]
    capsys,  # type: ignore[no-untyped-def]
) -> None:
    content = make_content(tmp_path, {"a.yaml": MINIMAL})
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        run("build", "--content", content, "--out", tmp_path / "out", "--cache", "")
    assert stopped.value.code == 2
    assert "--cache: must name a folder, not be empty" in capsys.readouterr().err
    for given in (".", str(tmp_path.parent)):
        result = run("build", "--content", content, "--out", tmp_path / "out", "--cache", given)
        assert result.code == 1, given
        assert "Traceback" not in result.err
        assert "cannot be this folder or one above it" in result.err, result.err
    assert not (tmp_path / "out").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["content"]


def test_check_refuses_an_output_a_build_would_refuse_without_walking_it(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    content = make_content(tmp_path, {"a.yaml": MINIMAL})
    result = run("check", "--content", content, "--out", "/proc")
    assert result.code == 1
    assert "Traceback" not in result.err
    assert "/proc: exists and is not an errdex site" in result.err, result.err
    assert "[E500]" in result.err


@pytest.mark.parametrize(
    "rel",
    ["", "/etc/passwd", "../outside", "errors/../../x", "a\\b", "a\x00b", "c:/x", MARKER],
)
def test_a_file_name_that_leaves_the_output_is_refused(rel: str) -> None:
    """Every file a build writes goes through this check, whatever made its name (a
    theme's template, a record's path in a file page's address)."""
    from errdex.site.write import UnsafePath, check_relative

    with pytest.raises(UnsafePath, match="refusing to write outside the output folder"):
        check_relative(rel)


@pytest.mark.parametrize(
    "rel", ["index.html", "errors/abc/index.html", "repos/o/r/files/a/./b.py/index.html"]
)
def test_a_file_name_inside_the_output_is_taken(rel: str) -> None:
    from errdex.site.write import check_relative

    check_relative(rel)
