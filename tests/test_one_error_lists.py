"""A file, option or exception of one error gets no page listing it (#41): that list
would be the error's own page again, and a site of thousands of files would carry a
file more for each. Links that would lead to it lead to the error, or are left out."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import Run, broken_links, make_content, soup

RECORD = """\
repo: example/project
exception: {exception}
message: "{message}"
source:
  commit: 0123456789abcdef0123456789abcdef01234567
  path: {path}
  line: {line}
"""
RECORDS = {
    "short.yaml": RECORD.format(
        exception="ValueError",
        message="`--max-len` must be positive, got {n}",
        path="src/project/config.py",
        line=10,
    ),
    "long.yaml": RECORD.format(
        exception="ValueError",
        message="`--max-len` must not pass the model's context of {limit}",
        path="src/project/config.py",
        line=20,
    ),
    "alone.yaml": RECORD.format(
        exception="KeyError",
        message="`--batch-size` needs a scheduler that takes batches, not {name}",
        path="src/project/sched.py",
        line=5,
    ),
}
FILES = "repos/example/project/files/src/project/"


def build(run: Run, content: Path, out: Path) -> None:
    result = run("build", "--content", content, "--out", out)
    assert result.code == 0, result.err


def page_of(out: Path, message_start: str) -> Path:
    (found,) = [
        p for p in out.glob("errors/*/index.html") if message_start in soup(p).h1.get_text()
    ]
    return found


def test_only_lists_of_two_errors_or_more_are_made(tmp_path: Path, run: Run) -> None:
    out = tmp_path / "public"
    build(run, make_content(tmp_path, RECORDS), out)
    assert (out / FILES / "config.py/index.html").is_file()
    assert (out / "exceptions/ValueError/index.html").is_file()
    assert (out / "options/max_len/index.html").is_file()
    assert not (out / FILES / "sched.py").exists()
    assert not (out / "exceptions/KeyError").exists()
    assert not (out / "options/batch_size").exists()
    assert broken_links(out) == []
    sitemap = (out / "sitemap.xml").read_text(encoding="utf-8")
    assert "options/max_len/" in sitemap and "options/batch_size/" not in sitemap


def test_the_page_of_an_error_alone_in_its_lists_links_none_of_them(
    tmp_path: Path, run: Run
) -> None:
    out = tmp_path / "public"
    build(run, make_content(tmp_path, RECORDS), out)
    alone = soup(page_of(out, "--batch-size"))
    assert "all errors in this file" not in alone.get_text()
    assert alone.select_one("nav.crumbs li:last-child a") is None
    assert alone.select_one("nav.crumbs li:last-child").get_text() == "KeyError"
    (chip,) = alone.select("ul.chips li")
    assert chip.get_text() == "--batch-size" and chip.a is None

    shared = soup(page_of(out, "must be positive"))
    where = shared.select_one("p.where")
    assert "all 2 errors in this file" in where.get_text()
    assert shared.select_one("nav.crumbs li:last-child a")["href"].endswith(
        "exceptions/ValueError/"
    )
    (chip,) = shared.select("ul.chips li")
    assert chip.a is not None and chip.a["href"].endswith("options/max_len/")


def test_an_index_links_an_error_alone_in_its_list_to_the_error(tmp_path: Path, run: Run) -> None:
    out = tmp_path / "public"
    build(run, make_content(tmp_path, RECORDS), out)
    alone = page_of(out, "--batch-size").parent.name
    home = soup(out / "index.html")
    (key_error,) = [a for a in home.select("ul.chips a") if "KeyError" in a.get_text()]
    assert key_error["href"] == f"errors/{alone}/"
    options = soup(out / "options/index.html")
    hrefs = {a.get_text(): a["href"] for a in options.select(".rows > li > a")}
    assert hrefs["--batch-size"].endswith(f"errors/{alone}/")
    assert hrefs["--max-len"].endswith("options/max_len/")
    # The repository's list names the file of one error without a link to a list.
    heading = soup(out / "repos/example/project/index.html").find(
        "h2", string=lambda text: text is not None and "sched.py" in text
    )
    assert heading is not None and heading.a is None


def test_the_json_of_an_error_alone_under_an_option_gives_it_no_url(
    tmp_path: Path, run: Run
) -> None:
    out = tmp_path / "public"
    build(run, make_content(tmp_path, RECORDS), out)
    for start, url in (("--batch-size", None), ("must be positive", "options/max_len/")):
        record_id = page_of(out, start).parent.name
        document = json.loads((out / f"api/errors/{record_id}.json").read_text("utf-8"))
        (option,) = document["options"]
        if url is None:
            assert option["url"] is None
        else:
            assert option["url"].endswith(url)


def test_an_edit_that_gives_a_list_its_second_error_makes_its_page(
    tmp_path: Path, run: Run
) -> None:
    content = make_content(tmp_path, RECORDS)
    out = tmp_path / "public"
    build(run, content, out)
    second = RECORD.format(
        exception="KeyError",
        message="`--batch-size` of {size} is more than the queue holds",
        path="src/project/sched.py",
        line=9,
    )
    (content / "errors/second.yaml").write_text(second, encoding="utf-8")
    build(run, content, out)
    assert (out / "exceptions/KeyError/index.html").is_file()
    assert (out / FILES / "sched.py/index.html").is_file()
    assert (out / "options/batch_size/index.html").is_file()
    alone = soup(page_of(out, "needs a scheduler"))
    assert alone.select_one("nav.crumbs li:last-child a") is not None
    assert "all 2 errors in this file" in alone.select_one("p.where").get_text()
    assert broken_links(out) == []

    (content / "errors/second.yaml").unlink()
    build(run, content, out)
    assert not (out / "exceptions/KeyError").exists()
    assert not (out / FILES / "sched.py").exists()
    assert broken_links(out) == []
