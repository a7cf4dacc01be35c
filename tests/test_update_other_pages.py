"""An edit other pages show (a message, a title, an analysis, a line, an option, a record
added, removed or moved, the config, a template) renders those pages again, or the whole
site, and the site is the one a build from nothing gives, byte for byte."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from conftest import make_content, snapshot
from updates import (
    ANALYSED,
    builder,
    bytes_of,
    fresh_build,
    numbered_record,
    page_id,
    site,
    stated_record,
    stated_site,
    write_issues,
)

from benchmarks import corpus

__all__ = ["site"]  # the fixture of updates.py these tests take


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
        (errors / "r9.yaml").write_text(numbered_record(9, "Widget"))
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
    assert bytes_of(out) == fresh_build(content, tmp_path, run)
    if edit == "message":
        listing = (out / "repos" / "example" / "project" / "index.html").read_text()
        assert "Gadget number 1" in listing


def test_a_template_edit_renders_every_page_again(tmp_path: Path) -> None:
    from errdex.site.build import Options, build
    from errdex.site.theme import Theme, default_theme

    bundled = default_theme()
    theme = Theme(tmp_path / "templates", tmp_path / "static")
    shutil.copytree(bundled.templates, theme.templates)
    shutil.copytree(bundled.static, theme.static)
    content = make_content(tmp_path, {f"r{n}.yaml": numbered_record(n) for n in range(4)})
    options = Options(content=content, out=tmp_path / "public", cache=tmp_path / "c", theme=theme)
    assert build(options).rendered == 4
    assert build(options).rendered == 0
    base = theme.templates / "base.html"
    base.write_text(base.read_text().replace("</body>", "<!-- edited --></body>"))
    assert build(options).rendered == 4
    pages = list((tmp_path / "public").rglob("*.html"))
    assert pages and all("<!-- edited -->" in p.read_text() for p in pages)


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
    from errdex.site import render

    monkeypatch.setattr(render, "ROWS_PER_PAGE", per_page)
    content = make_content(tmp_path, stated_site(tmp_path))
    write_issues(content)
    out, build = tmp_path / "public", builder(run, content, tmp_path, "-v")
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
        (errors / "r1.yaml").write_text(stated_record(1, ["Part twenty is gone"]))
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
    # Search's files hold the messages, the order of the errors and, of those that say the
    # same words, their lines: an edit of none of these keeps its index.
    kept = edit in ("first analysis", "first analysis, dated", "analysis removed")
    kept |= edit in ("related added", "related removed", "title")
    assert ("; search index kept" in err) == kept, err
    after = snapshot(out)
    assert (set(after) == set(before)) != repaged
    assert bytes_of(out) == fresh_build(content, tmp_path, run)
    # What did not change kept its modification time.
    fresh = fresh_build(content, tmp_path, run)
    for rel, (data, mtime) in after.items():
        if before[rel][0] == data:
            assert before[rel][1] == mtime, rel
    del fresh


def test_updates_of_what_other_pages_show_build_on_one_another(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    """Each update keeps what it changed in the links for the next one, and a prose edit
    after it renders from them."""
    content = make_content(tmp_path, stated_site(tmp_path))
    out, build = tmp_path / "public", builder(run, content, tmp_path, "-v")

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
        assert bytes_of(out) == fresh_build(content, tmp_path, run), (name, old)


def test_an_edit_that_gives_an_option_its_page_is_a_full_build(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, stated_site(tmp_path))
    out, cache = tmp_path / "public", tmp_path / "cache"

    def build() -> str:
        result = run("build", "--content", content, "--out", out, "--cache", cache, "-v")
        assert result.code == 0, result.err
        return str(result.err).replace(str(content), "content")

    build()
    path = content / "errors" / "r4.yaml"
    path.write_text(path.read_text().replace("--tensor-parallel-size check", "--new-knob check", 1))
    err = build()
    assert "errdex: full build: content/errors/r4.yaml: the options errors name changed" in err
    # One error is about it: its chip names it, and no page lists it alone.
    assert not (out / "options" / "new_knob").exists()
    assert "--new-knob" in (out / "options" / "index.html").read_text(encoding="utf-8")
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


@pytest.mark.parametrize("per_sitemap", [50_000, 4])
def test_reviewing_a_draft_that_search_engines_were_kept_from_puts_it_in_the_sitemap(
    per_sitemap: int,
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a site that publishes drafts with ``noindex``, an update that reviews one gives
    the sitemaps a fresh build gives: one, or an index of several."""
    from errdex.site import render

    monkeypatch.setattr(render, "SITEMAP_URLS", per_sitemap)
    records = stated_site(tmp_path)
    records["r0.yaml"] = records["r0.yaml"].replace(
        "  by: AI-assisted\n", "  by: AI-assisted\n  model: a-model\n", 1
    )
    content = make_content(tmp_path, records)
    site = content / "site.yaml"
    site.write_text(site.read_text() + "drafts:\n  publish: noindex\n")
    out, build = tmp_path / "public", builder(run, content, tmp_path, "-v")
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
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


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
    neighbour = page_id(out, "Thing number 1")
    moved = page_id(out, "Thing number 0")
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
    fresh = fresh_build(content, tmp_path, run)
    for rel in (
        f"api/errors/{neighbour}.json",
        f"api/errors/{neighbour}",
        f"errors/{neighbour}/index.html",
    ):
        assert (out / rel).read_bytes() == fresh[rel], rel


def test_only_the_nearest_errors_of_a_big_file_are_listed(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    records = {
        f"r{n}.yaml": numbered_record(n).replace("function: check_", "function: f_")
        for n in range(15)
    }
    content = make_content(tmp_path, records)
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out, "--no-cache").code == 0
    page = BeautifulSoup(
        (out / "errors" / page_id(out, "Thing number 7") / "index.html").read_text(), "html.parser"
    )
    heading = next(h for h in page.find_all("h3") if "Also raised in" in h.get_text())
    assert heading.get_text(" ", strip=True) == "Also raised in this file (the 5 nearest)"
    rows = heading.find_next("ul").find_all("li")
    lines = [int(li.find("small").get_text()[1:]) for li in rows]
    assert lines == [43, 53, 63, 83, 93]  # the nearest of line 73; a tie goes to the earlier
    more = heading.find_next("p", class_="more-link")
    assert more.get_text(" ", strip=True) == "All 15 errors raised in this file"
    assert more.a["href"] == "../../repos/example/project/files/src/project/config.py/"
    # The JSON's schema says as many as the page lists.
    schema = json.loads((out / "api" / "schema.json").read_text())
    assert "the 5 nearest" in schema["properties"]["same_file"]["description"]


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

    from errdex.records import link as link_module
    from errdex.records.model import Related, parse_template
    from errdex.site import state, update

    records = corpus.generate(150, seed=5)
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
        site, said, again, _ = update.linked_again(links, old, now, changed)
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
        assert bytes_of(out) == fresh_build(content, tmp_path, run), i


def test_an_update_that_turns_into_a_full_build_reads_the_cache_as_a_full_build(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An update that finds only as it renders the lists that it must add a page is
    redone as a full build, with a full build's highlighter: the whole cache read at once
    (forked workers then ask the cache file nothing), not the update's."""
    from errdex.site import render
    from errdex.site.highlight import Highlighter

    monkeypatch.setattr(render, "ROWS_PER_PAGE", 2)
    content = make_content(tmp_path, stated_site(tmp_path))
    out, build = tmp_path / "public", builder(run, content, tmp_path, "-v")
    build()
    opened: list[bool] = []
    real_open = Highlighter.open.__func__  # type: ignore[attr-defined]

    def recording_open(cls, path: Path, read_all: bool):  # type: ignore[no-untyped-def]
        opened.append(read_all)
        return real_open(cls, path, read_all)

    monkeypatch.setattr(Highlighter, "open", classmethod(recording_open))
    path = content / "errors" / "r0.yaml"
    text = path.read_text()
    path.write_text(
        text.replace("Part 0 of the --tensor-parallel-size", "Part 0 of the --max-model-len")
    )
    err = build()
    assert "errdex: full build: the files that list errors would change" in err, err
    assert opened == [False, True]
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


def test_a_reworded_error_is_renamed_on_a_page_that_lists_it_in_place_of_related_ones(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """Nine errors of one file: the page of the first relates to its three nearest,
    so its five nearest of the file are the 4th to the 8th. Rewording the 8th is an
    update that renders that page too."""
    from updates import STATED

    def record(n: int, message: str, related: list[str]) -> str:
        return STATED.format(
            id=f"{n:016x}",
            repo="example/project",
            exception="ValueError",
            message=message,
            prose="",
            path="src/one.py",
            line=10 * n + 3,
            n=n,
            start=10 * n + 1,
            related="".join(f'  - "{entry}"\n' for entry in related) or "  []\n",
        )

    records = {f"r{n}.yaml": record(n, f"Check {n} failed", []) for n in range(1, 9)}
    records["r0.yaml"] = record(0, "Check 0 failed", [f"{n:016x}" for n in (1, 2, 3)])
    content = make_content(tmp_path, records)
    out, build = tmp_path / "public", builder(run, content, tmp_path, "-v")
    build()
    (content / "errors" / "r8.yaml").write_text(record(8, "Check eight failed", []))
    said = build()
    assert "update: 1 record changed" in said, said
    page = (out / "errors" / f"{0:016x}" / "index.html").read_text()
    assert "Check eight failed" in page
    assert bytes_of(out) == fresh_build(content, tmp_path, run)
