"""The two seed pages of the site we rebuild: every element of theirs is on ours."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from bs4 import BeautifulSoup, Tag
from conftest import MINIMAL, make_content, soup

from errdex.site.render import fix_to_copy

SEEDS = Path(__file__).parent / "seeds"
HEADINGS = (
    "Error message",
    "What it means",
    "Source",
    "Solutions",
    "Example fix",
    "When it happens",
    "Related errors",
)


@dataclass
class Seed:
    """A seed page, read from its plain-text form."""

    id: str
    crumbs: list[str]
    message: str
    meaning: str
    thrown_at: str
    excerpt: list[str]
    pinned: str
    solutions: list[str]
    example_fix: str
    trigger: str
    situations: str
    related: list[str]
    provenance: str


def read_seed(path: Path) -> Seed:
    text = path.read_text(encoding="utf-8")
    body, _, footer = text.rpartition("\n\n")
    crumbs, _, rest = body.partition("\n\n")
    sections: dict[str, str] = {}
    pattern = "^(" + "|".join(HEADINGS) + ")$"
    parts = re.split(pattern, rest, flags=re.MULTILINE)
    for name, content in zip(parts[1::2], parts[2::2], strict=True):
        sections[name] = content.strip("\n")
    source = sections["Source"].split("\n")
    when = dict(
        line.split(": ", 1) for line in sections["When it happens"].split("\n\n") if line.strip()
    )
    return Seed(
        id=re.search(r"/api/errors/([0-9a-f]{16})", footer).group(1),
        crumbs=crumbs.split(" · "),
        message=sections["Error message"],
        meaning=sections["What it means"],
        thrown_at=source[0],
        excerpt=source[2:-2],
        pinned=source[-1],
        solutions=[re.sub(r"^\d+\. ", "", s) for s in sections["Solutions"].split("\n")],
        example_fix=sections["Example fix"],
        trigger=when["Trigger"],
        situations=when["Common situations"],
        related=[s.removeprefix("• ") for s in sections["Related errors"].split("\n")],
        provenance=footer.split(". Data as JSON")[0] + ".",
    )


SEED_PAGES = [read_seed(p) for p in sorted(SEEDS.glob("*.txt"))]


def words(node: Tag | str) -> str:
    """Visible text with whitespace collapsed and Markdown code marks gone, for comparison."""
    text = node if isinstance(node, str) else node.get_text()
    return " ".join(text.replace("`", "").split())


def section(page: BeautifulSoup, anchor: str) -> Tag:
    heading = page.find("h2", id=anchor)
    assert heading is not None, f"no section #{anchor}"
    parent = heading.find_parent("section")
    assert isinstance(parent, Tag)
    return parent


@pytest.fixture(params=SEED_PAGES, ids=lambda s: s.id)
def seed(request: pytest.FixtureRequest) -> Seed:
    return request.param


@pytest.fixture
def page(seed: Seed, built_site: Path) -> BeautifulSoup:
    return soup(built_site / "errors" / seed.id / "index.html")


def test_both_seed_pages_are_built(built_site: Path) -> None:
    assert {s.id for s in SEED_PAGES} == {"9c019ab65f8b8d16", "23b4373e94335665"}
    for s in SEED_PAGES:
        assert (built_site / "errors" / s.id / "index.html").is_file()


def test_breadcrumb_links_repo_and_exception(seed: Seed, page: BeautifulSoup) -> None:
    crumbs = page.select("nav.crumbs li")
    assert [words(li) for li in crumbs] == seed.crumbs
    assert crumbs[0].a["href"] == "../../repos/vllm-project/vllm/"
    assert crumbs[2].a["href"] == "../../exceptions/ValueError/"


def test_heading_is_the_full_message_with_marked_placeholders(
    seed: Seed, page: BeautifulSoup
) -> None:
    h1 = page.find("h1")
    assert words(h1.code) == words(seed.message)
    marked = [var.get_text() for var in h1.select("var.ph")]
    assert marked == re.findall(r"\{[a-z_]+\}", seed.message)


def test_what_it_means(seed: Seed, page: BeautifulSoup) -> None:
    body = section(page, "meaning")
    assert words(" ".join(p.get_text() for p in body.find_all("p"))) == words(seed.meaning)


def test_source_excerpt_has_real_line_numbers_and_marks_the_raise(
    seed: Seed, page: BeautifulSoup
) -> None:
    body = section(page, "source")
    assert words(body.select_one(".thrown")) == seed.thrown_at
    _, line = seed.thrown_at.removeprefix("Thrown at ").split(":")
    code = body.select_one(".code-view pre:not(.gutter)")
    # The text of the code view is the code alone: copying it takes no line numbers.
    assert code.get_text().replace("Raised here: ", "") == "".join(
        line + "\n" for line in seed.excerpt
    )
    # The numbers, in a gutter of their own, are the file's own.
    gutter = body.select_one(".code-view .gutter")
    assert gutter["aria-hidden"] == "true"
    numbers = [int(number) for number in gutter.get_text().split()]
    assert numbers == list(range(numbers[0], numbers[0] + len(seed.excerpt)))
    assert gutter.select_one("mark").get_text().strip() == line
    (raised,) = code.select("mark")
    said = raised.get_text().removeprefix("Raised here: ")
    assert said == seed.excerpt[int(line) - numbers[0]] + "\n"
    assert "raise" in said
    assert raised.select_one("t-k")  # highlighted by Pygments: the keyword raise


def test_view_on_github_is_pinned(seed: Seed, page: BeautifulSoup) -> None:
    link = section(page, "source").select_one(".permalink a")
    assert words(link) == seed.pinned
    path, line = seed.thrown_at.removeprefix("Thrown at ").split(":")
    assert link["href"] == f"https://github.com/vllm-project/vllm/blob/c794754062/{path}#L{line}"
    # The file and line under the message lead to the excerpt, where this link is.
    where = page.select_one("header p.where a")
    assert (words(where), where["href"]) == (f"{path}:{line}", "#source")


def test_solutions_in_order(seed: Seed, page: BeautifulSoup) -> None:
    items = section(page, "solutions").select("ol > li")
    assert [words(li) for li in items] == seed.solutions


def test_example_fix_blocks_are_highlighted_in_their_language(
    seed: Seed, page: BeautifulSoup
) -> None:
    blocks = section(page, "example-fix").select("figure.fix")
    codes = [b.select_one("pre").get_text().rstrip("\n") for b in blocks]
    assert "\n\n".join(codes) == seed.example_fix
    assert [words(b.select_one(".lang")) for b in blocks] == ["bash", "python"]
    for block in blocks:
        assert [e for e in block.select("pre *") if e.name.startswith("t-")], "no Pygments tokens"


def test_a_before_and_after_fix_copies_its_after_part(seed: Seed, page: BeautifulSoup) -> None:
    """The bash fix shows the failing command under "# before", the fix under "# after":
    its Copy button copies the fix alone (the browser test clicks it)."""
    first, second = section(page, "example-fix").select(".copyable")
    shown = first.select_one("pre").get_text()
    assert shown.startswith("# before") and "\n# after\n" in shown
    assert first["data-copy"] == shown.split("# after\n", 1)[1].rstrip("\n")
    assert not second.has_attr("data-copy")  # copied whole


@pytest.mark.parametrize(
    ("code", "copied"),
    [
        ("# before\nrun --bad\n# after\nrun --good\n", "run --good"),
        ("// Before:\nf(1);\n\n// After: pass two\nf(2);\ng();\n", "f(2);\ng();"),
        ("-- before\nSELECT 1\n-- after\nSELECT 2\n# before\nx\n# after\ny", "SELECT 2\ny"),
        ("# after\nonly an after\n", ""),  # nothing to leave out: copied whole
        ("before = 1\nafter = 2\n", ""),  # names, not comments
        ("pip install x\n", ""),
    ],
)
def test_what_a_fix_copies(code: str, copied: str) -> None:
    assert fix_to_copy(code) == copied


def test_when_it_happens(seed: Seed, page: BeautifulSoup) -> None:
    """The seed's trigger and situations, after what the code says: the tests of the
    excerpt that lead to the raise (the seed pages have no such line; ours says more)."""
    body = section(page, "when")
    terms = [words(dt) for dt in body.select("dt")]
    assert terms == ["Raised when", "Trigger", "Common situations"]
    details = [words(dd) for dd in body.select("dd")]
    assert details[1:] == [words(seed.trigger), words(seed.situations)]
    assert "decode_context_parallel_size" in details[0]


def test_related_errors_are_the_seeds_we_have_pages_for(
    seed: Seed, page: BeautifulSoup, built_site: Path
) -> None:
    """The seed's related errors that the bundled content holds, in the seed's order, each
    a link to its page. (The others are errors of vllm the bundled content has no record
    of: it lists them nowhere, so that its build warns of nothing.)"""
    rows = section(page, "related").select("li")
    left = iter(seed.related)
    for row in rows:
        link = row.select_one("a")
        assert link is not None, words(row)
        shown = words(link.select_one("code"))
        assert any(shown.startswith(words(entry).removesuffix("…")) for entry in left), shown
        target = built_site / "errors" / seed.id / link["href"] / "index.html"
        assert target.resolve().is_file()
    # Three related errors of seed 000 and one of seed 001 are in the bundled content.
    assert len(rows) == {"9c019ab65f8b8d16": 3, "23b4373e94335665": 1}[seed.id]


def test_footer_provenance_json_and_report_link(seed: Seed, page: BeautifulSoup) -> None:
    footer = page.select_one("footer")
    assert words(footer.select_one(".provenance")) == seed.provenance
    json_link = footer.find("a", string=re.compile("/api/errors/"))
    assert json_link["href"] == f"../../api/errors/{seed.id}.json"
    report = footer.find("a", string="GitHub")
    url = urlsplit(report["href"])
    assert (url.netloc, url.path) == ("github.com", "/errdex/errdex/issues/new")
    # Titled with the id; the page's script adds the rest (tests/test_browser.py).
    assert parse_qs(url.query) == {"title": [f"[{seed.id}]"]}


def test_head_has_title_description_and_canonical(seed: Seed, page: BeautifulSoup) -> None:
    title = page.title.get_text()
    assert title.startswith(seed.message[:40])
    assert "ValueError" in title
    description = page.find("meta", attrs={"name": "description"})["content"]
    assert words(seed.meaning).startswith(description.removesuffix("…"))
    canonical = page.find("link", rel="canonical")["href"]
    assert canonical == f"https://errdex.github.io/errdex/errors/{seed.id}/"


def test_a_record_without_analysis_still_gets_a_useful_page(built_site: Path) -> None:
    pages = [soup(p) for p in sorted((built_site / "errors").glob("*/index.html"))]
    bare = [p for p in pages if "PCP does not support data parallelism yet." in words(p.find("h1"))]
    assert len(bare) == 1
    page = bare[0]
    assert "No analysis yet" in words(page.select_one(".notice"))
    assert page.find("h2", id="meaning") is None
    assert page.select(".code-view code mark")
    assert len(section(page, "related").select("li a")) >= 2
    assert "No analysis yet" in words(page.select_one("footer .provenance"))


# The vllm releases the bundled records are pinned across (docs/releases.md), each with
# the commit its sdist on PyPI was built from: setuptools-scm's `__commit_id__` in the
# sdist's vllm/_version.py (`'g2cf0a6915'` for v0.28.0). GitHub has each tag and commit.
VLLM_RELEASES = {
    "v0.17.1": "95c0f928c",
    "v0.18.0": "bcf2be961",
    "v0.18.1": "a26e8dc7f",
    "v0.19.0": "2a69949bd",
    "v0.19.1": "b1388b1fb",
    "v0.20.0": "b8160878f",
    "v0.20.1": "f98b2747f",
    "v0.20.2": "bc150f502",
    "v0.21.0": "9da56fd18",
    "v0.22.0": "0b3ba88f1",
    "v0.22.1": "0decac0d9",
    "v0.23.0": "91df0fad4",
    "v0.24.0": "ee0da84ab",
    "v0.25.0": "dd10e03f9",
    "v0.25.1": "752a3a504",
    "v0.26.0": "f2654939e",
    "v0.27.0": "4bdc8a788",
    "v0.27.1": "6e448d0ea",
    "v0.28.0": "2cf0a6915",
    "v0.29.0": "98dff2a81",
    "v0.30.0": "ced6857af",
    "v0.31.0": "db9527a46",
    "v0.32.0": "5df63a720",
    "v0.33.0": "4ba787ec9",
}
GITHUB_BLOB = "https://github.com/vllm-project/vllm/blob/"


def test_the_a2a_page_says_in_which_release_it_was_removed(built_site: Path) -> None:
    page = soup(built_site / "errors" / "9c019ab65f8b8d16" / "index.html")
    body = section(page, "releases")
    assert words(body.select_one(".raised")) == "Raised in v0.18.0 to v0.28.0; removed in v0.29.0."
    # Where each release raises it, newest first, as each release's own file has it.
    lines = {"v0.18": 423, "v0.19": 398, "v0.20": 479, "v0.21": 481, "v0.22": 485}
    lines |= {"v0.23": 494, "v0.24": 510, "v0.25": 510, "v0.26": 523, "v0.27": 542}
    lines |= {"v0.28": 542}
    raising = [r for r in VLLM_RELEASES if r.rpartition(".")[0] in lines]
    places = body.select(".places li")
    assert [words(li.a) for li in places] == raising[::-1]
    for li, release in zip(places, raising[::-1], strict=True):
        line = lines[release.rpartition(".")[0]]
        code = li.select("a")[1]
        assert words(code) == f"vllm/config/parallel.py:{line}"
        commit = VLLM_RELEASES[release]
        assert code["href"] == f"{GITHUB_BLOB}{commit}/vllm/config/parallel.py#L{line}"
    assert places[0].a["href"] == "../../repos/vllm-project/vllm/releases/v0.28.0/"
    # The source stays where the seed page has it: the commit the analysis read.
    permalink = section(page, "source").select_one(".permalink a")["href"]
    assert permalink.startswith(f"{GITHUB_BLOB}c794754062/")


def test_every_bundled_github_link_names_a_real_commit(built_site: Path) -> None:
    """Each link to vllm's code names the commit the records were analysed at, or the
    commit of the release it is listed under (its sdist's commit, never a synthetic one)."""
    said = {}
    for path in sorted((built_site / "errors").glob("*/index.html")):
        page = soup(path)
        if page.find("h2", id="releases") is None:
            continue
        said[path.parent.name] = words(section(page, "releases").select_one(".raised"))
        for li in section(page, "releases").select(".places li"):
            release, code = words(li.a), li.select("a")[1]["href"]
            assert code.startswith(f"{GITHUB_BLOB}{VLLM_RELEASES[release]}/vllm/"), code
        for link in page.select(f'a[href^="{GITHUB_BLOB}"]'):
            commit = link["href"].removeprefix(GITHUB_BLOB).split("/")[0]
            assert commit in {"c794754062", *VLLM_RELEASES.values()}, link["href"]
    assert said["23b4373e94335665"] == "Raised since v0.27.0."
    assert len(said) == 7


def test_a_record_with_prose_and_no_analysis_block_is_not_said_unanalysed(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    # Prose written by hand without saying who wrote it: the home page counts it
    # analysed, and its page says nowhere that it has no analysis.
    written = MINIMAL + "meaning: The size must be one or more.\n"
    content = make_content(tmp_path, {"written.yaml": written})
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out).code == 0
    (page_file,) = (out / "errors").glob("*/index.html")
    page = soup(page_file)
    assert "No analysis yet" not in words(page)
    assert words(page.select_one("footer .provenance")).startswith("Source pinned to ")
    assert "1 analysed" in words(soup(out / "index.html"))
