"""Long lists split into pages: 500 errors a page, the first at the list's own address,
page N at ``<list>/page/N/``, each linked to the pages before and after it."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urljoin

import pytest
from conftest import SITE_YAML, make_content, soup

from errdex.records.model import derive_id
from errdex.site import render

RECORD = """\
repo: example/project
exception: ValueError
message: "Setting number {n} must be positive"
source:
  commit: 0123456789abcdef0123456789abcdef01234567
  path: src/project/mod{file}.py
  line: {line}
"""
SITE = "https://errors.example.test/docs/"


def _records(count: int) -> dict[str, str]:
    """``count`` ValueErrors of one repo, a hundred to a file."""
    return {
        f"r{n:04d}.yaml": RECORD.format(n=n, file=n // 100, line=n % 100 + 1) for n in range(count)
    }


def _rows(page: Path) -> list[str]:
    """The ids of the errors a list page shows, in order."""
    return [a["href"].rstrip("/").rsplit("/", 1)[1] for a in soup(page).select(".rows > li > a")]


def _links(out: Path, rel: str) -> dict[str, str]:
    """Where the pager of the page ``rel`` leads (prev, next), as files of ``out``; and
    that both of its pagers and the head agree."""
    page = soup(out / rel)
    found: dict[str, str] = {}
    for kind in ("prev", "next"):
        hrefs = {a["href"] for a in page.select(f"nav.pager a[rel={kind}]")}
        heads = {link["href"] for link in page.select(f"head link[rel={kind}]")}
        assert hrefs == heads, (rel, kind)
        if hrefs:
            (href,) = hrefs
            found[kind] = unquote(urljoin("http://x/" + rel, href).removeprefix("http://x/"))
            assert (out / found[kind] / "index.html").is_file(), found[kind]
    return found


def test_a_list_of_1201_errors_is_three_pages_of_500_500_and_201(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, _records(1201))
    out = tmp_path / "public"
    result = run("build", "--content", content, "--out", out, "--no-cache")
    assert result.code == 0, result.err

    a_file = out / "repos/example/project/files/src/project/mod0.py"
    assert len(_rows(a_file / "index.html")) == 100  # a file's list of 100 stays one page
    assert not (a_file / "page").exists()

    exceptions = "exceptions/ValueError/"
    pages = [f"{exceptions}index.html", *(f"{exceptions}page/{n}/index.html" for n in (2, 3))]
    assert sorted(p.relative_to(out).as_posix() for p in (out / exceptions).rglob("*.html")) == (
        sorted(pages)
    )
    rows = [_rows(out / page) for page in pages]
    assert [len(r) for r in rows] == [500, 500, 201]
    every = [r for page in rows for r in page]
    assert len(set(every)) == 1201  # each error once, on one page
    assert sorted(every) == sorted(p.name for p in (out / "errors").iterdir())

    for number, page in enumerate(pages, 1):
        html = soup(out / page)
        assert html.title is not None
        assert html.title.string == f"ValueError errors, page {number} of 3 · Test errors"
        assert html.select_one("h1").get_text() == "ValueError errors"
        assert "1201 errors" in html.select_one(".lede").get_text()
        pagers = html.select("nav.pager")
        assert len(pagers) == 2
        for pager in pagers:
            assert f"Page {number} of 3" in pager.get_text()
        canonical = html.select_one("link[rel=canonical]")["href"]
        assert canonical == SITE + page.removesuffix("index.html")
    assert _links(out, pages[0]) == {"next": f"{exceptions}page/2/"}
    assert _links(out, pages[1]) == {"prev": exceptions, "next": f"{exceptions}page/3/"}
    assert _links(out, pages[2]) == {"prev": f"{exceptions}page/2/"}

    # The repo's list, by file in line order, is cut at the same places.
    repo = "repos/example/project/"
    repo_rows = [
        _rows(out / f"{repo}index.html"),
        *(_rows(out / f"{repo}page/{n}/index.html") for n in (2, 3)),
    ]
    assert [len(r) for r in repo_rows] == [500, 500, 201]
    # A file's errors cut between pages (files in path order: mod0, mod1, mod10, mod11,
    # mod12, mod2: 401 errors, then mod2's) are headed by the file on both.
    headings = [
        [h.get_text() for h in soup(out / page).select("section h2")]
        for page in (f"{repo}index.html", f"{repo}page/2/index.html")
    ]
    assert headings[0][-1] == headings[1][0] == "src/project/mod2.py"

    sitemap = (out / "sitemap.xml").read_text()
    for page in pages:
        assert f"<loc>{SITE}{page.removesuffix('index.html')}</loc>" in sitemap


RELEASED = (
    RECORD
    + """\
releases:
- {{release: v1, commit: "0123456789", path: src/project/mod{file}.py, line: {line}}}
- {{release: v2, commit: abcdef0123, path: src/project/mod{file}.py, line: {line}}}
"""
)
RELEASES = """\
releases:
- {repo: example/project, name: v1, commit: "0123456789"}
- {repo: example/project, name: v2, commit: abcdef0123}
- {repo: example/project, name: v3, commit: "9876543210"}
"""


def test_a_release_that_removed_more_than_a_page_of_errors_lists_them_on_pages(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(render, "ROWS_PER_PAGE", 2)
    records = {f"r{n}.yaml": RELEASED.format(n=n, file=0, line=n + 1) for n in range(5)}
    content = make_content(tmp_path, records, SITE_YAML + RELEASES)
    out = tmp_path / "public"
    result = run("build", "--content", content, "--out", out, "--no-cache")
    assert result.code == 0, result.err
    release = "repos/example/project/releases/v3/"
    pages = [f"{release}index.html", f"{release}page/2/index.html", f"{release}page/3/index.html"]
    assert [len(_rows(out / page)) for page in pages] == [2, 2, 1]
    for number, page in enumerate(pages, 1):
        html = soup(out / page)
        assert html.title is not None
        assert f", page {number} of 3 · " in html.title.get_text()
        # Every page says how many the release removed, and heads its rows.
        assert "5 removed" in html.select_one(".lede").get_text()
        assert [h.get_text() for h in html.select("section h2")] == ["Removed in v3"]
    assert _links(out, pages[1]) == {"prev": release, "next": f"{release}page/3/"}
    # The release before removed none: one page, as before.
    assert not (out / "repos/example/project/releases/v2/page").exists()


def test_an_update_of_one_row_of_a_long_list_gives_what_a_fresh_build_gives(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A title given to an error on the third page of its lists changes that page's row,
    and an update renders just the pages that hold it; the site is a fresh build's."""
    from updates import builder, bytes_of, fresh_build

    monkeypatch.setattr(render, "ROWS_PER_PAGE", 3)
    content = make_content(tmp_path, _records(10))
    out, build = tmp_path / "public", builder(run, content, tmp_path, "-v")
    build()
    path = content / "errors" / "r0007.yaml"
    path.write_text(path.read_text() + "title: A title given on the third page\n")
    assert "update: 1 record changed" in build()
    repo = out / "repos/example/project"
    assert "A title given on the third page" in (repo / "page/3/index.html").read_text()
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


def test_an_update_that_moves_rows_of_a_long_list_gives_what_a_fresh_build_gives(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An error moved below the others of its file moves every row after its old place,
    on pages that hold no changed row: they are rendered again too."""
    from updates import builder, bytes_of, fresh_build

    monkeypatch.setattr(render, "ROWS_PER_PAGE", 3)
    content = make_content(tmp_path, _records(10))
    out, build = tmp_path / "public", builder(run, content, tmp_path, "-v")
    build()
    path = content / "errors" / "r0001.yaml"
    path.write_text(path.read_text().replace("line: 2\n", "line: 90\n"))
    assert "update: 1 record changed" in build()
    moved = _rows(out / "repos/example/project/page/4/index.html")
    assert moved == [
        derive_id("example/project", "ValueError", "Setting number 1 must be positive")
    ]
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


def test_an_update_that_respells_an_option_renders_every_page_of_its_list(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An option list's heading names every spelling errors give the option: one more
    spelling shows on each of its pages, not only on those that hold the changed row."""
    from updates import builder, bytes_of, fresh_build, stated_site

    monkeypatch.setattr(render, "ROWS_PER_PAGE", 3)
    content = make_content(tmp_path, stated_site(tmp_path))
    out, build = tmp_path / "public", builder(run, content, tmp_path, "-v")
    build()
    option = out / "options/tensor_parallel_size"
    assert (option / "page/3/index.html").is_file()
    path = content / "errors" / "r7.yaml"
    path.write_text(
        path.read_text().replace("--tensor-parallel-size check", "tensor_parallel_size check", 1)
    )
    assert "update: 1 record changed" in build()
    for page in ("index.html", "page/2/index.html", "page/3/index.html"):
        heading = soup(option / page).select_one("h1")
        assert heading is not None and "tensor_parallel_size" in heading.get_text(), page
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


REWORDED = """\
id: "{n:016x}"
repo: example/project
exception: ValueError
message: "Setting number {n} must be positive"
source:
  commit: 0123456789abcdef0123456789abcdef01234567
  path: src/project/mod0.py
  line: {line}
releases:
- {{release: v1, commit: "0123456789", path: src/project/mod0.py, line: {line}, message: "{old}"}}
- {{release: v2, commit: abcdef0123, path: src/project/mod0.py, line: {line}}}
"""


def _reworded_site(tmp_path: Path) -> Path:
    """Eleven errors each reworded in v2 (v1 said it otherwise): v2's page lists them on
    four pages of three, and as ten they still take four."""
    records = {
        f"r{n}.yaml": REWORDED.format(n=n, line=n + 1, old=f"Old setting {n} must be positive")
        for n in range(11)
    }
    return make_content(tmp_path, records, SITE_YAML + RELEASES.rsplit("- {repo", 1)[0])


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(("r8.yaml", "\n", "\ntitle: Retitled on a later page\n"), id="title"),
        # Worded as v1 had it: no longer reworded in v2, so the rows after it move up
        # (on pages that hold no changed row).
        pytest.param(
            ("r1.yaml", "Setting number 1 must", "Old setting 1 must"), id="wording of v1"
        ),
    ],
)
def test_an_update_of_an_error_a_long_release_page_lists_gives_a_fresh_build(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
    edit: tuple[str, str, str],
) -> None:
    from updates import builder, bytes_of, fresh_build

    monkeypatch.setattr(render, "ROWS_PER_PAGE", 3)
    content = _reworded_site(tmp_path)
    out, build = tmp_path / "public", builder(run, content, tmp_path, "-v")
    build()
    release = out / "repos/example/project/releases/v2"
    assert (release / "page/4/index.html").is_file()
    name, old, new = edit
    path = content / "errors" / name
    path.write_text(path.read_text().replace(old, new, 1))
    said = build()
    assert "update: 1 record changed" in said and "full build" not in said, said
    assert bytes_of(out) == fresh_build(content, tmp_path, run)


def test_rows_that_read_alike_say_their_file(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """One message raised in two files reads as two identical rows on a list of errors
    by exception or option; each then says its file, and a row that reads like no other
    stays as short as it was. An update that makes them differ gives a fresh build."""
    from updates import builder, bytes_of, fresh_build

    same = RECORD.replace("Setting number {n} must be positive", "The hidden size is wrong")
    content = make_content(
        tmp_path,
        {
            "a.yaml": "id: 00000000000000a1\n" + same.format(file="a", line=3),
            "b.yaml": "id: 00000000000000b2\n" + same.format(file="b", line=7),
            "c.yaml": RECORD.format(n=1, file="c", line=9),
        },
    )
    out, build = tmp_path / "public", builder(run, content, tmp_path, "-v")
    build()
    page = soup(out / "exceptions" / "ValueError" / "index.html")
    rows = [
        (r.select_one("code").get_text(), [m.get_text() for m in r.select(".row-meta")])
        for r in page.select("ul.rows li")
    ]
    assert sorted(rows) == [
        ("Setting number 1 must be positive", []),
        ("The hidden size is wrong", ["src/project/moda.py"]),
        ("The hidden size is wrong", ["src/project/modb.py"]),
    ]
    path = content / "errors" / "b.yaml"
    path.write_text(path.read_text().replace("is wrong", "is not right"))
    assert "update: 1 record changed" in build()
    assert bytes_of(out) == fresh_build(content, tmp_path, run)
    rows = [
        r.get_text(" ", strip=True)
        for r in soup(out / "exceptions/ValueError/index.html").select("ul.rows li")
    ]
    assert not any("src/project/mod" in r for r in rows), rows


def test_an_earlier_wording_reads_as_the_error_said_it_not_as_the_record_escapes_it(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    # The record writes a literal brace doubled (``{{``); its page, its release's page
    # and lookup show the message as the code raised it.
    old = "Old setting {{n}} for {key} must be positive"
    content = make_content(
        tmp_path,
        {"r.yaml": REWORDED.format(n=7, line=3, old=old)},
        SITE_YAML + RELEASES.rsplit("- {repo", 1)[0],
    )
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out).code == 0
    page = soup(out / "errors" / f"{7:016x}" / "index.html")
    earlier = page.select_one("p.earlier")
    assert earlier is not None
    assert earlier.get_text() == "Until v1 this read: Old setting {n} for {key} must be positive"
    release = soup(out / "repos/example/project/releases/v2/index.html").select_one("li.was")
    assert release is not None
    assert release.get_text().strip() == "until v1: Old setting {n} for {key} must be positive"
    shown = run("lookup", "ValueError: Old setting {n} for port must be positive", "--site", out)
    assert shown.code == 0, shown.err
    assert "   Old setting {n} for {key} must be positive\n" in shown.out
    assert "{{" not in shown.out


def test_a_row_says_when_upstream_no_longer_raises_the_error(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    # Pinned to a release that dropped it, an error keeps its page ("Removed upstream"):
    # the lists that show it say so too, where they read as the errors raised now.
    gone = RECORD.format(n=1, file=0, line=3).replace(
        "  line: 3\n", "  line: 3\n  removed_in: fedcba9876543210fedcba9876543210fedcba98\n"
    )
    content = make_content(
        tmp_path, {"gone.yaml": gone, "kept.yaml": RECORD.format(n=2, file=0, line=9)}
    )
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out).code == 0
    kept_id = derive_id("example/project", "ValueError", "Setting number 2 must be positive")
    pages = [
        out / "repos/example/project/index.html",
        out / "repos/example/project/files/src/project/mod0.py/index.html",
        out / "errors" / kept_id / "index.html",
    ]
    for page in pages:
        rows = {
            li.select_one("code").get_text(): li.get_text(" ", strip=True)
            for li in soup(page).select("li")
            if li.select_one("a code")
        }
        assert "removed upstream" in rows["Setting number 1 must be positive"], page
        assert "removed upstream" not in rows.get("Setting number 2 must be positive", ""), page


def test_an_update_that_marks_an_error_removed_marks_its_rows_too(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    from updates import builder, bytes_of, fresh_build

    content = make_content(
        tmp_path,
        {
            "gone.yaml": RECORD.format(n=1, file=0, line=3),
            "kept.yaml": RECORD.format(n=2, file=0, line=9),
        },
    )
    out, build = tmp_path / "public", builder(run, content, tmp_path, "-v")
    build()
    path = content / "errors" / "gone.yaml"
    path.write_text(
        path.read_text().replace(
            "  line: 3\n", "  line: 3\n  removed_in: fedcba9876543210fedcba9876543210fedcba98\n"
        )
    )
    build()
    assert "removed upstream" in (out / "repos/example/project/index.html").read_text()
    assert bytes_of(out) == fresh_build(content, tmp_path, run)
