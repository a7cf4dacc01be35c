"""Releases: pin through tagged releases, and what pages, search and JSON say of them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from conftest import SITE_YAML, git, git_repository, snapshot, soup

from errdex.records.history import History, Span
from errdex.records.model import derive_id
from errdex.records.validate import MAX_OUTPUT_PATH

REPO = "example/up"

V1 = """def check(size, name):
    if size < 0:
        raise ValueError(f"size must be positive, got {size}")
    if size > 9:
        raise ValueError("size is too big")
    return name
"""
V2 = """def check(size, name):
    if size < 0:
        raise ValueError(f"size must be non-negative, got {size}")
    if size > 9:
        raise ValueError("size is too big")
    if name == "five":
        raise KeyError("five is taken")
    return name
"""
V3 = """def check(size, name):
    if size < 0:
        raise ValueError(f"size must be non-negative, got {size}")
    if name == "five":
        raise KeyError("five is taken")
    return name
"""
OLD = "size must be positive, got {size}"
NEW = "size must be non-negative, got {size}"


@pytest.fixture
def upstream(tmp_path: Path) -> Path:
    """Three tagged releases: v1.1 rewords an error and adds one, v1.2 removes one."""
    releases = ((V1, "v1.0"), (V2, "v1.1"), (V3, "v1.2"))
    return git_repository(
        tmp_path / "upstream", *((tag, {"pkg/check.py": text}) for text, tag in releases)
    )


@pytest.fixture
def content_records() -> dict[str, str]:
    return {}  # scan writes them


def records(content: Path) -> dict[str, dict]:  # type: ignore[type-arg]
    out = {}
    for path in sorted((content / "errors").rglob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        data["_file"] = path
        out[data["message"]] = data
    return out


def walk(run, upstream: Path, content: Path):  # type: ignore[no-untyped-def]
    scanned = run("scan", upstream, "--repo", REPO, "--ref", "v1.0", "--content", content)
    assert scanned.code == 0, scanned.err
    pinned = run("pin", upstream, "--repo", REPO, "--ref", "v1.1..v1.2", "--content", content)
    assert pinned.code == 0, pinned.err
    return pinned


def test_pin_through_releases_writes_each_records_history(run, upstream, content) -> None:  # type: ignore[no-untyped-def]
    pinned = walk(run, upstream, content)
    assert (
        "1 unchanged, 0 moved, 1 reworded, 0 removed, 0 still removed, 0 renamed, 1 new"
        in pinned.err
    )
    assert "(release v1.1)" in pinned.err and "(release v1.2)" in pinned.err
    site = yaml.safe_load((content / "site.yaml").read_text())
    assert [(r["repo"], r["name"]) for r in site["releases"]] == [
        (REPO, "v1.0"),
        (REPO, "v1.1"),
        (REPO, "v1.2"),
    ]
    assert site["releases"][2]["commit"] == git(upstream, "rev-parse", "v1.2")
    found = records(content)
    reworded = found[NEW]
    assert [r["release"] for r in reworded["releases"]] == ["v1.0", "v1.1", "v1.2"]
    assert reworded["releases"][0]["message"] == OLD
    assert "message" not in reworded["releases"][1]
    # The id of the new words; the old one kept as an alias.
    assert reworded["id"] == derive_id(REPO, "ValueError", NEW)
    assert reworded["aliases"] == [derive_id(REPO, "ValueError", OLD)]
    gone = found["size is too big"]
    assert [r["release"] for r in gone["releases"]] == ["v1.0", "v1.1"]
    assert gone["source"]["removed_in"] == git(upstream, "rev-parse", "v1.2")
    added = found["five is taken"]
    assert [(r["release"], r["line"]) for r in added["releases"]] == [("v1.1", 7), ("v1.2", 5)]


@pytest.mark.parametrize("command", ["pin", "scan"])
def test_a_record_pinned_to_a_release_that_lists_none_keeps_that_release(  # type: ignore[no-untyped-def]
    run, upstream, content, tmp_path: Path, command: str
) -> None:
    """``new`` writes a record at the commit a traceback ran, with no ``releases``: when
    that commit is a release the site lists, pinning (or scanning) the next release keeps
    it, rather than saying the error came in with the next one."""
    first = run("scan", upstream, "--repo", REPO, "--ref", "v1.0", "--content", content)
    assert first.code == 0, first.err
    path = records(content)["size is too big"]["_file"]
    text = path.read_text()
    path.write_text(text[: text.index("releases:")])  # as ``new`` writes it
    again = run(command, upstream, "--repo", REPO, "--ref", "v1.1", "--content", content)
    assert again.code == 0, again.err
    kept = records(content)["size is too big"]
    assert [r["release"] for r in kept["releases"]] == ["v1.0", "v1.1"]
    assert kept["releases"][0]["commit"] == git(upstream, "rev-parse", "v1.0^{commit}")
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out).code == 0
    page = text_of(out / "errors" / derive_id(REPO, "ValueError", "size is too big") / "index.html")
    assert "Raised in every release pinned, v1.0 to v1.1." in page


def test_scanning_old_and_pinning_forward_matches_scanning_the_newest(  # type: ignore[no-untyped-def]
    run, upstream, content, tmp_path: Path
) -> None:
    walk(run, upstream, content)
    fresh = tmp_path / "fresh"
    (fresh / "errors").mkdir(parents=True)
    (fresh / "site.yaml").write_text(SITE_YAML)
    assert run("scan", upstream, "--repo", REPO, "--ref", "v1.2", "--content", fresh).code == 0
    walked = {m: r for m, r in records(content).items() if "removed_in" not in r["source"]}
    direct = records(fresh)
    assert set(walked) == set(direct)
    for message, record in direct.items():
        ours = walked[message]
        assert ours.get("id", ours["_file"].stem) == record.get("id", record["_file"].stem)
        assert ours["source"] == record["source"]


def test_a_record_removed_on_the_way_counts_once_as_removed(run, upstream, content) -> None:  # type: ignore[no-untyped-def]
    # v1.3 changes nothing that v1.2 removed: "size is too big" is gone at both, removed
    # once (at v1.2), then still removed; the totals over the steps say so.
    git(upstream, "commit", "-q", "--allow-empty", "-m", "v1.3")
    git(upstream, "tag", "v1.3")
    scanned = run("scan", upstream, "--repo", REPO, "--ref", "v1.0", "--content", content)
    assert scanned.code == 0, scanned.err
    pinned = run(
        "pin", upstream, "--repo", REPO, "--ref", "v1.1..v1.3", "--content", content, "--json"
    )
    assert pinned.code == 0, pinned.err
    document = json.loads(pinned.out)
    steps = [
        (s["release"], s["counts"]["removed"], s["counts"]["still_removed"])
        for s in document["steps"]
    ]
    assert steps == [("v1.1", 0, 0), ("v1.2", 1, 0), ("v1.3", 0, 1)]
    assert (document["counts"]["removed"], document["counts"]["still_removed"]) == (1, 1)
    [last] = [line for line in pinned.err.splitlines() if "(release v1.3)" in line]
    assert "0 reworded, 0 removed, 1 still removed, 0 renamed" in last, pinned.err


def test_an_older_release_is_refused(run, upstream, content) -> None:  # type: ignore[no-untyped-def]
    walk(run, upstream, content)
    before = (content / "site.yaml").read_text()
    result = run("pin", upstream, "--repo", REPO, "--ref", "v1.1", "--content", content)
    assert result.code == 1
    assert "release v1.1 of example/up is older than v1.2, the newest one pinned" in result.err
    assert (content / "site.yaml").read_text() == before
    again = run("pin", upstream, "--repo", REPO, "--ref", "v1.2", "--content", content)
    assert again.code == 0, again.err
    assert (
        "errdex pin: 2 unchanged, 0 moved, 0 reworded, 0 removed, 1 still removed, 0 renamed, 0 new"
        in again.err
    )


def test_pages_say_which_releases_raise_each_error(run, upstream, content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    walk(run, upstream, content)
    out = tmp_path / "public"
    built = run("build", "--content", content, "--out", out)
    assert built.code == 0, built.err
    new_id = derive_id(REPO, "ValueError", NEW)
    page = text_of(out / "errors" / new_id / "index.html")
    # v1.0 is the oldest release pinned: the error may be older, so no "since".
    assert "Raised in every release pinned, v1.0 to v1.2." in page and "Raised since" not in page
    taken = text_of(out / "errors" / derive_id(REPO, "KeyError", "five is taken") / "index.html")
    assert "Raised since v1.1." in taken  # v1.0 did not raise it
    assert f"Until v1.0 this read: {OLD}" in page
    assert "v1.2 : pkg/check.py:3" in page
    gone = text_of(out / "errors" / derive_id(REPO, "ValueError", "size is too big") / "index.html")
    assert "Raised in v1.0 to v1.1; removed in v1.2." in gone
    assert "no longer raises this error as of release v1.2" in gone
    # The JSON says what the page says: the removing release, beside the commit.
    gone_id = derive_id(REPO, "ValueError", "size is too big")
    document = json.loads((out / "api" / "errors" / f"{gone_id}.json").read_text())
    assert document["removed_in_release"] == "v1.2"
    assert [r["release"] for r in document["releases"]] == ["v1.0", "v1.1"]
    raised = json.loads((out / "api" / "errors" / f"{new_id}.json").read_text())
    assert raised["removed_in_release"] is None
    # The old id still answers: it redirects to the page of the new words.
    moved = (out / "errors" / derive_id(REPO, "ValueError", OLD) / "index.html").read_text()
    assert f"errors/{new_id}/" in moved
    release = text_of(out / "repos" / "example" / "up" / "releases" / "v1.1" / "index.html")
    assert "compared with v1.0 : 1 introduced, 1 reworded, 0 removed" in release
    assert "five is taken" in release and f"until v1.0: {OLD}" in release
    last = text_of(out / "repos" / "example" / "up" / "releases" / "v1.2" / "index.html")
    assert "0 introduced, 0 reworded, 1 removed" in last and "size is too big" in last
    listing = text_of(out / "repos" / "example" / "up" / "releases" / "index.html")
    assert "3 releases pinned" in listing
    # The oldest release pinned has no release before it to count changes against.
    rows = soup(out / "repos" / "example" / "up" / "releases" / "index.html").select("tbody tr")
    cells = [[td.get_text() for td in row.select("td")] for row in rows]
    assert cells == [
        ["2", "0", "0", "1"],
        ["3", "1", "1", "0"],
        ["2", "the first pinned: nothing to compare with"],
    ]
    feed = (out / "repos" / "example" / "up" / "releases" / "feed.xml").read_text()
    assert feed.index("v1.2: 0 introduced") < feed.index("v1.1: 1 introduced")
    assert f"Reworded: ValueError: {OLD} → {NEW}" in feed
    repo_page = text_of(out / "repos" / "example" / "up" / "index.html")
    assert "What each of 3 releases changed" in repo_page
    document = json.loads((out / "api" / "errors" / f"{new_id}.json").read_text())
    assert [r["release"] for r in document["releases"]] == ["v1.0", "v1.1", "v1.2"]


def test_release_names_a_commit_or_renames_a_tag_for_scan_and_pin(  # type: ignore[no-untyped-def]
    run, upstream, content, tmp_path: Path
) -> None:
    # Commits by their sha, which no tag names: only --release makes each one a release.
    first, second = (git(upstream, "rev-parse", f"{tag}^{{commit}}") for tag in ("v1.0", "v1.1"))
    steps = [
        ("scan", "--commit", first, "--release", "r1"),
        ("pin", "--commit", second, "--release", "r2"),
        ("pin", "--ref", "v1.2", "--release", "r3"),
    ]
    for command, *given in steps:
        done = run(command, upstream, "--repo", REPO, *given, "--content", content)
        assert done.code == 0, done.err

    site = yaml.safe_load((content / "site.yaml").read_text())
    assert [(r["name"], r["commit"]) for r in site["releases"]] == [
        ("r1", first),
        ("r2", second),
        ("r3", git(upstream, "rev-parse", "v1.2^{commit}")),
    ]
    found = records(content)
    assert [r["release"] for r in found[NEW]["releases"]] == ["r1", "r2", "r3"]
    assert [r["release"] for r in found["size is too big"]["releases"]] == ["r1", "r2"]
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out).code == 0
    page = text_of(out / "errors" / derive_id(REPO, "ValueError", NEW) / "index.html")
    assert "Raised in every release pinned, r1 to r3." in page
    assert f"Until r1 this read: {OLD}" in page
    releases = out / "repos" / "example" / "up" / "releases"
    assert sorted(p.name for p in releases.iterdir() if p.is_dir()) == ["r1", "r2", "r3"]
    assert "3 releases pinned" in text_of(releases / "index.html")


def test_lookup_finds_an_old_wording_and_says_so(run, upstream, content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    walk(run, upstream, content)
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out).code == 0
    paste = "ValueError: size must be positive, got -3"
    shown = run("lookup", paste, "--site", out)
    assert shown.code == 0, shown.err
    assert f"You pasted the wording of v1.0; since v1.1 it reads: {NEW}" in shown.out
    assert "size = -3" in shown.out
    as_json = run("lookup", paste, "--site", out, "--json")
    first = json.loads(as_json.out)["matches"][0]
    assert first["id"] == derive_id(REPO, "ValueError", NEW)
    assert first["wording"] == {"until": "v1.0", "since": "v1.1", "now": NEW}
    now = json.loads(run("lookup", "size must be non-negative, got 4", "--site", out, "--json").out)
    assert now["matches"][0]["wording"] is None
    assert len({m["id"] for m in now["matches"]}) == len(now["matches"])
    from_yaml = run("lookup", paste, "--content", content)
    assert f"since v1.1 it reads: {NEW}" in from_yaml.out


def test_a_release_site_yaml_does_not_list_is_an_error_at_its_line(
    run, upstream, content, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    walk(run, upstream, content)
    path = records(content)[NEW]["_file"]
    text = path.read_text()
    path.write_text(text.replace("release: v1.1", "release: v9.9"))
    line = path.read_text().splitlines().index("- release: v9.9") + 1
    result = run("build", "--content", content, "--out", tmp_path / "public")
    assert result.code == 1
    expected = f"{path.name}:{line}: release 'v9.9' is not among site.yaml's releases of {REPO}"
    assert f"{expected} [E403]" in result.err, result.err
    assert not (tmp_path / "public").exists()
    path.write_text(text)
    site = content / "site.yaml"
    site.write_text(site.read_text() + "- repo: example/up\n  name: v1.0\n  commit: 'abcdef1'\n")
    result = run("build", "--content", content, "--out", tmp_path / "public")
    assert result.code == 1
    assert "site.yaml:17: release 'v1.0' of example/up is listed twice [E403]" in result.err


def text_of(path: Path) -> str:
    html = path.read_text()
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace(" .", ".")


@pytest.mark.browser
def test_an_old_wording_pasted_in_the_browser_finds_its_page_with_the_values(  # type: ignore[no-untyped-def]
    run, upstream, content, tmp_path: Path, browser
) -> None:
    from conftest import http_server
    from playwright.sync_api import expect

    walk(run, upstream, content)
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out).code == 0
    with http_server(out) as url:
        page = browser.new_page()
        page.goto(url)
        box = page.get_by_label("Paste an error message, a traceback or a log line")
        box.fill("ValueError: size must be positive, got -3")
        first = page.locator("#results-main [role=option]").first
        expect(first).to_contain_text(f"You pasted the wording of v1.0; since v1.1 it reads: {NEW}")
        expect(first).to_contain_text("size = -3")
        box.press("Enter")
        page.wait_for_url(f"**/errors/{derive_id(REPO, 'ValueError', NEW)}/?q=*")
        yours = page.locator(".yours")
        expect(yours).to_be_visible()
        expect(yours.locator("mark.value")).to_have_text(["-3"])
        expect(page.locator("section.releases")).to_contain_text("Until v1.0 this read")
        page.close()


@pytest.mark.parametrize(
    "edit",
    [
        ("title: Size is negative\n", "a title"),
        ("related:\n- five is taken\n", "a related entry"),
        ("meaning: Sizes count things.\n", "prose"),
    ],
    ids=lambda e: e[1] if isinstance(e, tuple) else e,
)
def test_an_edit_of_a_record_with_releases_builds_what_a_fresh_build_does(  # type: ignore[no-untyped-def]
    run, upstream, content, tmp_path: Path, edit: tuple[str, str]
) -> None:
    from conftest import snapshot

    walk(run, upstream, content)
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out).code == 0
    path = records(content)[NEW]["_file"]
    path.write_text(path.read_text() + edit[0])
    assert run("build", "--content", content, "--out", out).code == 0
    fresh = tmp_path / "fresh"
    assert run("build", "--content", content, "--out", fresh, "--no-cache").code == 0
    ours = {rel: data for rel, (data, _) in snapshot(out).items()}
    theirs = {rel: data for rel, (data, _) in snapshot(fresh).items()}
    assert ours.keys() == theirs.keys()
    assert [rel for rel in ours if ours[rel] != theirs[rel]] == []


@pytest.mark.parametrize(
    "wording", ["size must be zero or more, got {size}", OLD], ids=["anew", "as it read until v1.0"]
)
def test_a_reworded_record_with_releases_is_indexed_as_a_fresh_build_indexes_it(  # type: ignore[no-untyped-def]
    run, upstream, content, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wording: str
) -> None:
    """An update that rewords a message makes the search index aside, earlier wordings
    and all: reworded as it read in an earlier release, that wording is no longer an
    earlier one."""
    from conftest import snapshot

    from errdex.site import update

    monkeypatch.setattr(update, "INDEX_ASIDE_FROM", 0)  # however small the site
    walk(run, upstream, content)
    out = tmp_path / "public"
    command = ("build", "--content", content, "--out", out, "--cache", tmp_path / "cache", "-v")
    assert run(*command).code == 0
    path = records(content)[NEW]["_file"]
    text = path.read_text()
    assert f"\nmessage: {NEW}\n" in text
    path.write_text(text.replace(f"\nmessage: {NEW}\n", f"\nmessage: {wording}\n"))
    built = run(*command)
    assert built.code == 0, built.err
    assert "update: 1 record changed" in built.err and "search index made aside" in built.err
    fresh = tmp_path / "fresh"
    assert run("build", "--content", content, "--out", fresh, "--no-cache").code == 0
    ours = {rel: data for rel, (data, _) in snapshot(out).items()}
    theirs = {rel: data for rel, (data, _) in snapshot(fresh).items()}
    assert ours.keys() == theirs.keys()
    assert [rel for rel in ours if ours[rel] != theirs[rel]] == []


def test_a_walk_through_releases_writes_what_one_pin_at_a_time_does(  # type: ignore[no-untyped-def]
    run, upstream, tmp_path: Path
) -> None:
    from conftest import snapshot

    made = []
    said = []
    for name, refs in (("walk", [["v1.1..v1.2"]]), ("steps", [["v1.1"], ["v1.2"]])):
        folder = tmp_path / name / "content"
        (folder / "errors").mkdir(parents=True)
        (folder / "site.yaml").write_text(SITE_YAML)
        assert run("scan", upstream, "--repo", REPO, "--ref", "v1.0", "--content", folder).code == 0
        for ref in refs:
            done = run("pin", upstream, "--repo", REPO, "--ref", *ref, "--content", folder)
            assert done.code == 0, done.err
            said.append(done.err)
        made.append({rel: data for rel, (data, _) in snapshot(folder).items()})
    assert "errdex pin: 3 record files written once for all 2 commits" in said[0]
    assert made[0] == made[1]


def test_a_rewording_pin_that_is_no_release_keeps_the_earlier_wordings(  # type: ignore[no-untyped-def]
    run, upstream, content
) -> None:
    assert run("scan", upstream, "--repo", REPO, "--ref", "v1.0", "--content", content).code == 0
    branch = git(upstream, "rev-parse", "v1.1")
    git(upstream, "branch", "work", branch)
    done = run("pin", upstream, "--repo", REPO, "--ref", "work", "--content", content)
    assert done.code == 0 and "(release" not in done.err
    reworded = records(content)[NEW]
    assert reworded["releases"] == [
        {
            "release": "v1.0",
            "commit": git(upstream, "rev-parse", "v1.0"),
            "path": "pkg/check.py",
            "line": 3,
            "message": OLD,
        }
    ]


def test_a_release_before_the_newest_in_history_is_refused(run, upstream, content) -> None:  # type: ignore[no-untyped-def]
    assert run("scan", upstream, "--repo", REPO, "--ref", "v1.2", "--content", content).code == 0
    before = (content / "site.yaml").read_text()
    older = run("pin", upstream, "--repo", REPO, "--ref", "v1.0", "--content", content)
    assert older.code == 1
    assert "release v1.0 of example/up is older than v1.2, the newest one pinned" in older.err
    backwards = run(
        "pin", upstream, "--repo", REPO, "--ref", "v1.2", "--ref", "v1.1", "--content", content
    )
    assert backwards.code == 1 and "give releases oldest first" in backwards.err
    assert (content / "site.yaml").read_text() == before


def test_a_range_of_tags_follows_history(run, upstream, content) -> None:  # type: ignore[no-untyped-def]
    # A tag on a side branch sorts between the two, but is not in their history.
    git(upstream, "checkout", "-q", "-b", "side", "v1.0")
    (upstream / "pkg" / "side.py").write_text("x = 1\n")
    git(upstream, "add", "-A")
    git(upstream, "commit", "-qm", "side")
    git(upstream, "tag", "v1.0.5")
    assert run("scan", upstream, "--repo", REPO, "--ref", "v1.0", "--content", content).code == 0
    done = run(
        "pin", upstream, "--repo", REPO, "--ref", "v1.0..v1.2", "--content", content, "--dry-run"
    )
    assert done.code == 0, done.err
    assert "(release v1.0.5)" not in done.err
    assert "(release v1.1)" in done.err and "(release v1.2)" in done.err
    assert "skipped:" not in done.err  # a record the walk would create is not "skipped"


def test_an_error_removed_earlier_is_not_reworded_into_a_later_raise_near_it(  # type: ignore[no-untyped-def]
    run, upstream, content
) -> None:
    # v1.3 adds a raise to the function v1.2 removed "size is too big" from: a new error,
    # not that one reworded (its line is one of an older version of the file).
    added = '    if not name:\n        raise ValueError("no name")\n    return name\n'
    (upstream / "pkg" / "check.py").write_text(V3.replace("    return name\n", added))
    git(upstream, "add", "-A")
    git(upstream, "commit", "-qm", "v1.3")
    git(upstream, "tag", "v1.3")
    walk(run, upstream, content)
    done = run("pin", upstream, "--repo", REPO, "--ref", "v1.3", "--content", content)
    assert done.code == 0, done.err
    assert (
        "errdex pin: 2 unchanged, 0 moved, 0 reworded, 0 removed, 1 still removed, 0 renamed, 1 new"
        in done.err
    )
    found = records(content)
    gone = found["size is too big"]
    assert gone["source"]["removed_in"] == git(upstream, "rev-parse", "v1.2")
    assert [r["release"] for r in gone["releases"]] == ["v1.0", "v1.1"]
    assert [(r["release"], r["line"]) for r in found["no name"]["releases"]] == [("v1.3", 7)]


COPY_V1 = {"pkg/m.py": 'def load(n):\n    if n < 0:\n        raise ValueError("bad size")\n'}
COPY_V2 = {
    **COPY_V1,
    # A copy in a file that sorts first: a scan of this release gives it the message's id.
    "pkg/a.py": 'def read(n):\n    if n < 0:\n        raise ValueError("bad size")\n',
    "pkg/z.py": 'def save(n):\n    if n < 0:\n        raise ValueError("bad size")\n',
}
COPY_V3 = {
    **COPY_V2,
    # One more copy between the others: the ids of those after it stay as they were.
    "pkg/b.py": 'def make(n):\n    if n < 0:\n        raise ValueError("bad size")\n',
    "pkg/m.py": COPY_V1["pkg/m.py"] + '\n\ndef again(n):\n    raise ValueError("bad size")\n',
}


def current(content: Path) -> dict[str, tuple[str, str, int]]:
    """Each record still raised: its id → (message, path, line)."""
    out = {}
    for path in (content / "errors").rglob("*.yaml"):
        data = yaml.safe_load(path.read_text())
        if "removed_in" not in data["source"]:
            facts = (data["message"], data["source"]["path"], data["source"]["line"])
            out[data.get("id", path.stem)] = facts
    return out


def every_id(content: Path) -> set[str]:
    out = set()
    for path in (content / "errors").rglob("*.yaml"):
        data = yaml.safe_load(path.read_text())
        out |= {data.get("id", path.stem), *data.get("aliases", ())}
    return out


def test_copies_of_a_message_get_the_ids_a_scan_of_the_newest_gives(  # type: ignore[no-untyped-def]
    run, tmp_path: Path, content: Path
) -> None:
    # One message raised at one place, then at three, then at five: the walk from the
    # first release ends with the records a scan of the last one writes, every id an
    # earlier build had still answers, and the prose written on the first record stays
    # on its page (that of the message's own id).
    releases = ((COPY_V1, "v1.0"), (COPY_V2, "v1.1"), (COPY_V3, "v1.2"))
    repo = git_repository(tmp_path / "copies", *((tag, files) for files, tag in releases))
    assert run("scan", repo, "--repo", REPO, "--ref", "v1.0", "--content", content).code == 0
    plain = derive_id(REPO, "ValueError", "bad size")
    [first] = (content / "errors").rglob("*.yaml")
    first.write_text(first.read_text() + "meaning: The size is below zero.\n")
    ids = every_id(content)
    for tag in ("v1.1", "v1.2"):
        pinned = run("pin", repo, "--repo", REPO, "--ref", tag, "--content", content)
        assert pinned.code == 0, pinned.err
        fresh = tmp_path / f"fresh-{tag}"
        (fresh / "errors").mkdir(parents=True)
        (fresh / "site.yaml").write_text(SITE_YAML)
        assert run("scan", repo, "--repo", REPO, "--ref", tag, "--content", fresh).code == 0
        assert current(content) == current(fresh), tag
        assert ids <= every_id(content), f"{tag}: an id of an earlier build is gone"
        ids = every_id(content)
    assert len(current(content)) == 5
    kept = yaml.safe_load(first.read_text())
    assert kept["meaning"] == "The size is below zero."
    assert "id" not in kept and kept["source"]["path"] == "pkg/a.py"
    # The record that now holds m.py's raise carries the releases it was raised there.
    [at_m] = [
        r
        for r in map(yaml.safe_load, map(Path.read_text, (content / "errors").rglob("*.yaml")))
        if r["source"]["path"] == "pkg/m.py" and r["source"]["line"] == 3
    ]
    assert [(e["release"], e["path"]) for e in at_m["releases"]] == [
        ("v1.0", "pkg/m.py"),
        ("v1.1", "pkg/m.py"),
        ("v1.2", "pkg/m.py"),
    ]
    assert (
        "errdex pin: 3 unchanged, 0 moved, 0 reworded, 0 removed, 0 still removed, 0 renamed, 2 new"
        in pinned.err
    )
    out = tmp_path / "public"
    built = run("build", "--content", content, "--out", out)
    assert built.code == 0, built.err
    page = text_of(out / "errors" / plain / "index.html")
    assert "The size is below zero." in page and "pkg/a.py" in page


# --- Tags of a range ---------------------------------------------------------------------


def test_a_range_skips_a_tag_that_cannot_be_a_release_and_says_why(  # type: ignore[no-untyped-def]
    run, upstream, content
) -> None:
    git(upstream, "tag", "index.html", "v1.1")
    git(upstream, "tag", "rc/1.1", "v1.1")
    git(upstream, "tag", "sources", "v1.1^{tree}")
    assert run("scan", upstream, "--repo", REPO, "--ref", "v1.0", "--content", content).code == 0
    done = run("pin", upstream, "--repo", REPO, "--ref", "v1.0..v1.2", "--content", content)
    assert done.code == 0, done.err
    assert (
        "errdex: skipped tag 'index.html': release 'index.html' of example/up would be "
        f"written over the releases page's own file '{FOLDERS}index.html'\n"
    ) in done.err
    assert (
        "errdex: skipped tag 'rc/1.1': it cannot name a release page: a release name is at "
        "most 100 letters, digits, '.', '-', '_' and '+', starting with a letter or digit\n"
    ) in done.err
    assert "errdex: skipped tag 'sources': it names a tree, not a commit\n" in done.err
    site = yaml.safe_load((content / "site.yaml").read_text())
    assert [r["name"] for r in site["releases"]] == ["v1.0", "v1.1", "v1.2"]
    given = run("pin", upstream, "--repo", REPO, "--ref", "sources", "--content", content)
    assert given.code == 1
    assert "errdex: tag 'sources' names a tree, not a commit\n" in given.err


def test_a_tag_that_shares_its_name_with_a_branch_is_a_release(  # type: ignore[no-untyped-def]
    run, upstream, content
) -> None:
    """A range skipped it, silently: ``refname:short`` calls such a tag ``tags/v1.1``."""
    # Branches named as the tags, at other commits: the tags are the releases.
    git(upstream, "branch", "v1.1", "v1.0")
    git(upstream, "branch", "v1.2", "v1.0")
    git(upstream, "tag", "-a", "-m", "the second release, annotated", "v1.1.1", "v1.1")
    assert run("scan", upstream, "--repo", REPO, "--ref", "v1.0", "--content", content).code == 0
    done = run("pin", upstream, "--repo", REPO, "--ref", "v1.0..v1.2", "--content", content)
    assert done.code == 0, done.err
    for name in ("v1.1", "v1.1.1", "v1.2"):
        assert f"(release {name})" in done.err, done.err
    assert "skipped tag" not in done.err
    site = yaml.safe_load((content / "site.yaml").read_text())
    assert [(r["name"], r["commit"]) for r in site["releases"]] == [
        (name, git(upstream, "rev-parse", f"refs/tags/{name}^{{commit}}"))
        for name in ("v1.0", "v1.1", "v1.1.1", "v1.2")
    ]
    assert records(content)["five is taken"]["releases"][-1]["line"] == 5  # v1.2's file


# --- Release names: each must name a folder of its own, within the bound -----------------


def releases_listed(content: Path, *names: str, repo: str = REPO) -> dict[str, int]:
    """``names`` added to site.yaml's releases of ``repo``, as a hand or an older errdex
    might have listed them; the line of each one's ``name:``."""
    site = content / "site.yaml"
    text = site.read_text()
    if "\nreleases:\n" not in text:
        text += "releases:\n"
    for name in names:
        text += f"- repo: {repo}\n  name: '{name}'\n  commit: '{'a' * 40}'\n"
    site.write_text(text)
    lines = site.read_text().splitlines()
    return {n: lines.index(f"  name: '{n}'") + 1 for n in names}


def line_of_name(content: Path, name: str) -> int:
    return (content / "site.yaml").read_text().splitlines().index(f"  name: {name}") + 1


FOLDERS = "repos/example/up/releases/"


@pytest.mark.parametrize(
    ("first", "second", "says"),
    [
        (
            "aux",
            "aux_",
            "makes the same folder as 'aux' ({line}): both are written "
            f"'{FOLDERS}aux_/', so one page would overwrite the other",
        ),
        (
            "v2.",
            "v2._",
            "makes the same folder as 'v2.' ({line}): both are written "
            f"'{FOLDERS}v2._/', so one page would overwrite the other",
        ),
        (
            "Con",
            "CON_",
            "makes the same folder as 'Con' ({line}) on macOS and Windows: 'CON_/' and "
            "'Con_/' differ only in case, so one page would overwrite the other",
        ),
        (
            "v1.0",
            "V1.0",
            "differs only in case from 'v1.0' ({line}): macOS and Windows would write both "
            "pages into one folder",
        ),
    ],
    ids=["device name", "final dot", "device name in another case", "case"],
)
def test_two_releases_that_make_one_folder_are_refused_by_check_at_the_second(  # type: ignore[no-untyped-def]
    run, upstream, content, tmp_path: Path, first: str, second: str, says: str
) -> None:
    """The build died with FileExistsError (or wrote one page over the other)."""
    assert run("scan", upstream, "--repo", REPO, "--ref", "v1.0", "--content", content).code == 0
    if first == "v1.0":
        lines = {first: line_of_name(content, first), **releases_listed(content, second)}
    else:
        lines = releases_listed(content, first, second)
    out = tmp_path / "public"
    expected = (
        f"site.yaml:{lines[second]}: release {second!r} of {REPO} "
        + says.format(line=f"line {lines[first]}")
        + " [E402]"
    )
    for command in ("check", "build"):
        result = run(command, "--content", content, "--out", out)
        assert result.code == 1 and "Traceback" not in result.err, result.err
        assert expected in result.err, result.err
        assert result.err.count("[E402]") == 1
    assert not out.exists()


@pytest.mark.parametrize("name", ["index.html", "feed.xml", "Feed.XML"])
def test_a_release_named_as_a_file_of_the_releases_page_is_refused_by_check(  # type: ignore[no-untyped-def]
    run, upstream, content, tmp_path: Path, name: str
) -> None:
    assert run("scan", upstream, "--repo", REPO, "--ref", "v1.0", "--content", content).code == 0
    line = releases_listed(content, name)[name]
    out = tmp_path / "public"
    own = f"{FOLDERS}{name.lower()}"
    for command in ("check", "build"):
        result = run(command, "--content", content, "--out", out)
        assert result.code == 1 and "Traceback" not in result.err, result.err
        assert (
            f"site.yaml:{line}: release {name!r} of {REPO} would be written over the releases "
            f"page's own file {own!r} [E402]"
        ) in result.err, result.err
    assert not out.exists()


def test_the_releases_folder_holds_no_file_a_release_could_be_named(  # type: ignore[no-untyped-def]
    run, upstream, content, tmp_path: Path
) -> None:
    """A file the releases page gains must be one no release can be named (RELEASES_FILES)."""
    from errdex.urls import RELEASES_FILES

    walk(run, upstream, content)
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out).code == 0
    folder = out / FOLDERS
    assert sorted(p.name for p in folder.iterdir() if p.is_file()) == sorted(RELEASES_FILES)
    assert sorted(p.name for p in folder.iterdir() if p.is_dir()) == ["v1.0", "v1.1", "v1.2"]


@pytest.mark.parametrize(
    ("tags", "command", "says"),
    [
        (
            {"aux": "v1.1", "aux_": "v1.2"},
            ["pin", "--ref", "aux", "--ref", "aux_"],
            "release 'aux_' of example/up makes the same folder as 'aux' (given before it): "
            f"both are written '{FOLDERS}aux_/', so one page would overwrite the other",
        ),
        (
            {"V1.0": "v1.1"},
            ["pin", "--ref", "V1.0"],
            "release 'V1.0' of example/up differs only in case from 'v1.0' (pinned already): "
            "macOS and Windows would write both pages into one folder",
        ),
        (
            {"nul_": "v1.1"},
            ["pin", "--commit", "v1.2", "--release", "NUL"],
            "release 'NUL' of example/up makes the same folder as 'nul_' (pinned already) on "
            "macOS and Windows: 'NUL_/' and 'nul_/' differ only in case, so one page would "
            "overwrite the other",
        ),
        (
            {"index.html": "v1.1"},
            ["pin", "--ref", "index.html"],
            "tag 'index.html': release 'index.html' of example/up would be written over the "
            f"releases page's own file '{FOLDERS}index.html'",
        ),
        (
            {},
            ["pin", "--commit", "v1.1", "--release", "feed.xml"],
            "--release 'feed.xml': release 'feed.xml' of example/up would be written over the "
            f"releases page's own file '{FOLDERS}feed.xml'",
        ),
        (
            {"FEED.XML": "v1.1"},
            ["scan", "--ref", "FEED.XML"],
            "tag 'FEED.XML': release 'FEED.XML' of example/up would be written over the "
            f"releases page's own file '{FOLDERS}feed.xml'",
        ),
    ],
    ids=["device name", "case", "device name in another case", "index", "feed", "scan"],
)
def test_a_release_whose_page_would_collide_is_refused_at_pin_and_scan(  # type: ignore[no-untyped-def]
    run, upstream, content, tags: dict[str, str], command: list[str], says: str
) -> None:
    for tag, at in tags.items():
        git(upstream, "tag", tag, at)
    earlier = [] if command[0] == "scan" else [["scan", "--ref", "v1.0"]]
    if "nul_" in tags:
        earlier.append(["pin", "--ref", "nul_"])
    for first, *rest in earlier:
        assert run(first, upstream, "--repo", REPO, *rest, "--content", content).code == 0
    before = snapshot(content)
    result = run(command[0], upstream, "--repo", REPO, *command[1:], "--content", content)
    assert result.code == 1, result.err
    assert f"errdex: {says}\n" in result.err, result.err
    assert snapshot(content) == before


# --- Release pages within the bound every other page keeps --------------------------------

LONG_REPO = f"{'o' * 39}/{'n' * 100}"
"""The longest repository GitHub allows."""
ROOM = MAX_OUTPUT_PATH - len(f"repos/{LONG_REPO}/releases//index.html")
"""The longest release name of LONG_REPO whose page fits."""


def test_the_longest_release_of_the_longest_repo_fits_and_one_more_byte_is_refused(  # type: ignore[no-untyped-def]
    run, upstream, content, tmp_path: Path
) -> None:
    """A release page's path was 257 bytes, past the bound docs/commands.md promises."""
    fits, over = "v" + "1" * (ROOM - 1), "v" + "1" * ROOM
    git(upstream, "tag", fits, "v1.1")
    git(upstream, "tag", over, "v1.2")
    scanned = run("scan", upstream, "--repo", LONG_REPO, "--ref", fits, "--content", content)
    assert scanned.code == 0, scanned.err
    before = snapshot(content)
    refused = run("pin", upstream, "--repo", LONG_REPO, "--ref", over, "--content", content)
    assert refused.code == 1
    longest = f"repos/{LONG_REPO}/releases/{over}/index.html"
    assert (
        f"errdex: tag {over!r}: release {over!r} of {LONG_REPO} makes the file "
        f"{longest[:60]!r}… 201 bytes long; at most 200 fit every file system\n"
    ) in refused.err
    assert snapshot(content) == before
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out).code == 0
    written = [p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()]
    assert f"repos/{LONG_REPO}/releases/{fits}/index.html" in written
    assert max(len(p.encode()) for p in written) == MAX_OUTPUT_PATH


@pytest.mark.parametrize(
    "name", ["v" + "1" * ROOM, "v" + "1" * (ROOM - 2) + "."], ids=["long", "long once written"]
)
def test_a_release_whose_page_is_past_the_bound_is_refused_by_check(  # type: ignore[no-untyped-def]
    run, content, tmp_path: Path, name: str
) -> None:
    line = releases_listed(content, "v1", name, repo=LONG_REPO)[name]
    result = run("check", "--content", content, "--out", tmp_path / "public")
    assert result.code == 1
    folder = name + ("_" if name.endswith(".") else "")
    longest = f"repos/{LONG_REPO}/releases/{folder}/index.html"
    assert (
        f"site.yaml:{line}: release {name!r} of {LONG_REPO} makes the file "
        f"{longest[:60]!r}… 201 bytes long; at most 200 fit every file system [E206]"
    ) in result.err, result.err
    assert result.err.count("[E206]") == 1


@pytest.mark.parametrize(
    ("spans", "said"),
    [
        ([Span("v1", "v3", None, oldest=True)], "Raised in every release pinned, v1 to v3"),
        ([Span("v1", "v1", None, oldest=True)], "Raised in v1, the only release pinned"),
        ([Span("v2", "v3", None)], "Raised since v2"),
        (
            [Span("v1", "v2", "v3", oldest=True), Span("v5", "v6", None)],
            "Raised in v1 to v2; removed in v3; again since v5",
        ),
    ],
)
def test_a_page_says_since_only_of_a_release_after_the_oldest(spans, said) -> None:  # type: ignore[no-untyped-def]
    """The oldest release pinned may not be the first to raise the error."""
    assert History(tuple(spans), (), ()).said() == said
