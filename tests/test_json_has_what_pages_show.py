"""The JSON mirror carries all an error page shows: each section of the page is found,
item by item, in the record's JSON document."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag
from conftest import make_content, soup

from errdex.source import avoid

SCANNED = """\
repo: example/project
exception: ValueError
message: "{message}"
source:
  commit: 0123456789abcdef0123456789abcdef01234567
  path: src/project/config.py
  line: {line}
  function: {function}
  condition: "{condition}"
"""
"""A record as scan writes it: the function and the test that lead to the raise."""

RECORDS = {
    "scanned/size.yaml": SCANNED.format(
        message="--batch-size={size} must be positive",
        line=10,
        function="Config.check",
        condition="self.batch_size <= 0",
    )
    + "related:\n  - 'workers={n} is more than the cores'\n",
    "scanned/workers.yaml": SCANNED.format(
        message="workers={n} is more than the cores",
        line=14,
        function="Config.check",
        condition="self.workers > os.cpu_count()",
    ),
    "scanned/path.yaml": SCANNED.format(
        message="no such file: {path}",
        line=40,
        function="load",
        condition="not os.path.exists(path)",
    ),
}


def ids_of(rows: Tag) -> list[str]:
    links = rows.select(".rows > li > a")
    # An error page links its neighbours as its siblings (``../<id>/``).
    return [re.search(r"(?:errors|\.\.)/([0-9a-f]{16})/", a["href"])[1] for a in links]


def words(node: Tag) -> str:
    return " ".join(node.get_text(" ").split())


def check_more(section: Tag, doc: dict[str, Any]) -> None:
    """Each list of "More to look at" against its field of the document. The page lists
    each error once: the errors of the same function and file are those the related
    errors do not list (so is the document's), and of those that link here it leaves out
    the ones listed above (the document keeps them all)."""
    seen = set()
    above = set(doc["related_ids"])
    assert not above & set(doc["same_function"] + doc["same_file"])
    for field in ("same_function", "same_file", "linked_from"):
        shown = [i for i in doc[field] if i not in above]
        for heading in section.select("h3"):
            title = words(heading)
            if (field, title) in {
                ("same_function", f"Also raised in {doc['source'].get('function')}"),
                ("linked_from", "Errors that link here"),
            } or (field, title.split(" (")[0]) == ("same_file", "Also raised in this file"):
                assert ids_of(heading.find_next_sibling("ul")) == shown, field
                seen.add(field)
        if field not in seen:
            assert shown == [], field
        above.update(shown)
    for heading in section.select("h3"):
        items = heading.find_next_sibling("ul")
        title = words(heading)
        if title == "Options this error is about":
            # A chip links the option's page, when more than this error make one.
            chips = [(li.a["href"] if li.a else None, words(li)) for li in items.select("li")]
            want = [(o["url"], " / ".join(o["names"])) for o in doc["options"]]
            assert len(chips) == len(want)
            for (href, shown_as), (url, names) in zip(chips, want, strict=True):
                assert shown_as == names
                assert (href, url) == (None, None) or url.endswith(href.lstrip("./"))
            seen.add("options")
        elif not title.startswith("Also raised in ") and title != "Errors that link here":
            raise AssertionError(f"a list of More to look at the test does not know: {title}")
    if "options" not in seen:
        assert doc["options"] == []


def check_page(page: BeautifulSoup, doc: dict[str, Any]) -> list[str]:
    """Find each section of ``page`` in ``doc``; return the sections checked."""
    checked = []
    for section in page.select("article.error section[aria-labelledby]"):
        name = section["aria-labelledby"]
        if name == "meaning":
            assert doc["meaning"]
        elif name == "solutions":
            assert len(section.select("ol.solutions > li")) == len(doc["solutions"])
        elif name == "avoid":
            # The tests it negates are those "When it happens" says (checked there).
            assert section.select_one('.derived-note a[href="#when"]') is not None
            assert doc["avoid"]["guards"]
            assert len(section.select("li.derived")) == len(doc["avoid"]["ways"])
        elif name == "example-fix":
            assert len(section.select("figure.fix")) == len(doc["example_fix"])
        elif name == "when":
            terms = [words(dt) for dt in section.select("dt")]
            if "Raised when" in terms:
                dd = section.select("dd")[terms.index("Raised when")]
                tests = [words(c) for c in dd.select("code")]
                if doc["source"].get("function"):
                    assert tests.pop() == doc["source"]["function"]
                said = doc["avoid"]["guards"] if doc["avoid"] else [doc["source"]["condition"]]
                # The page says each test plainly (``pcp != 1`` for ``not (pcp == 1)``).
                assert tests == avoid.anded(said)
            assert ("Trigger" in terms) == bool(doc.get("when", {}).get("trigger"))
        elif name == "source":
            thrown = words(section.select_one(".thrown code"))
            assert thrown == f"{doc['source']['path']}:{doc['source']['line']}"
            assert section.select_one(".permalink a")["href"] == doc["permalink"]
        elif name == "related":
            assert ids_of(section) == doc["related_ids"]
            for row in section.select("li.unlinked .row-title"):
                assert words(row) in doc["related"]
        elif name == "issues":
            assert len(section.select("li")) == min(5, doc["issues"]["count"])
        elif name == "releases":
            assert doc["releases"]
        elif name == "more":
            check_more(section, doc)
        else:
            raise AssertionError(f"a section the test does not know: {name}")
        checked.append(name)
    return checked


def pages_and_documents(site: Path) -> list[tuple[BeautifulSoup, dict[str, Any]]]:
    return [
        (soup(page), json.loads((site / "api/errors" / f"{page.parent.name}.json").read_text()))
        for page in sorted((site / "errors").glob("*/index.html"))
        if (site / "api/errors" / f"{page.parent.name}.json").is_file()
        and "moved_to" not in (site / "api/errors" / f"{page.parent.name}.json").read_text()
    ]


def test_every_section_of_the_bundled_pages_is_in_their_json(built_site: Path) -> None:
    checked = set()
    for page, doc in pages_and_documents(built_site):
        checked.update(check_page(page, doc))
    assert {"meaning", "solutions", "example-fix", "when", "source", "related", "more"} <= checked


def test_a_scanned_pages_options_and_neighbours_are_in_its_json(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, RECORDS)
    result = run("build", "--content", content, "--out", tmp_path / "public")
    assert result.code == 0, result.err
    documents = {}
    for page, doc in pages_and_documents(tmp_path / "public"):
        assert "more" in check_page(page, doc)
        documents[doc["message"]] = doc
    size = documents["--batch-size={size} must be positive"]
    workers = documents["workers={n} is more than the cores"]
    path = documents["no such file: {path}"]
    # size lists workers as a related error: its neighbours leave it out.
    assert size["related_ids"] == [workers["id"]] and size["same_function"] == []
    assert workers["same_function"] == [size["id"]]
    assert size["same_file"] == [path["id"]]
    assert workers["linked_from"] == [size["id"]]
    assert [o["key"] for o in size["options"]] == ["batch_size"]
    assert size["options"][0]["names"] == ["--batch-size"]
    # No other error is about it: no page lists it.
    assert size["options"][0]["url"] is None


@pytest.mark.parametrize("field", ["options", "same_function", "same_file", "linked_from"])
def test_the_schema_describes_what_more_to_look_at_lists(built_site: Path, field: str) -> None:
    schema = json.loads((built_site / "api/schema.json").read_text())
    assert field in schema["required"]
    assert schema["properties"][field]["description"]


def test_an_error_page_lists_each_other_error_once(built_site: Path) -> None:
    """The bundled errors of vllm/config/parallel.py name each other as related errors:
    "More to look at" does not list them again under their file, nor as linking here."""
    for page, doc in pages_and_documents(built_site):
        main = page.select_one("main")
        linked = [re.search(r"\.\./([0-9a-f]{16})/", a["href"]) for a in main.select("a[href]")]
        ids = [m[1] for m in linked if m]
        assert len(ids) == len(set(ids)), (doc["id"], ids)
    seed = soup(built_site / "errors/9c019ab65f8b8d16/index.html")
    assert len(seed.select("#related ~ ul.rows > li")) >= 3
    more = seed.select_one("section[aria-labelledby=more]")
    assert more is None or "Errors that link here" not in words(more)


def test_the_nearest_errors_of_the_file_are_those_not_listed_as_related(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """Nine errors of one file, one 40 lines apart from the next: the page of the
    first relates to its three nearest, and lists the five nearest after them."""
    records = {
        f"r{n}.yaml": SCANNED.format(
            message=f"check number {n} failed",
            line=10 + 40 * n,
            function=f"check_{n}",
            condition=f"value != {n}",
        )
        for n in range(9)
    }
    records["r0.yaml"] += "related:\n" + "".join(
        f"  - 'check number {n} failed'\n" for n in (1, 2, 3)
    )
    content = make_content(tmp_path, records)
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out).code == 0, "build"
    documents = {doc["message"]: (page, doc) for page, doc in pages_and_documents(out)}
    page, doc = documents["check number 0 failed"]
    check_page(page, doc)
    number = {d["id"]: int(m.split()[2]) for m, (_, d) in documents.items()}
    assert [number[i] for i in doc["related_ids"]] == [1, 2, 3]
    assert [number[i] for i in doc["same_file"]] == list(range(4, 9))
    heading = next(h for h in page.select("h3") if words(h).startswith("Also raised in"))
    assert words(heading) == "Also raised in this file"  # all of them shown
