"""How to avoid it in chromium: the page's script against the shared vectors, and a
scanned page opened from a paste that works out the values that avoid its error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import yaml
from conftest import build_site, http_server, make_content, soup
from playwright.sync_api import Page, expect

from errdex.cli import main

HERE = Path(__file__).resolve().parent
VECTORS: list[dict[str, Any]] = yaml.safe_load((HERE / "avoid" / "vectors.yaml").read_text())
HEADS = """\
class Config:
    def verify(self, heads, tp):
        self.heads = heads
        if heads % tp != 0:
            raise ValueError(
                f"Total number of attention heads ({heads}) must be divisible by "
                f"tensor parallel size ({tp})."
            )
"""
PASTE = (
    "ValueError: Total number of attention heads (52) must be divisible by "
    "tensor parallel size (8)."
)


@pytest.fixture(scope="module")
def scanned_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    root = tmp_path_factory.mktemp("scanned")
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "config.py").write_text(HEADS)
    content = make_content(root, {})
    scan = ["scan", str(root / "src"), "--repo", "example/heads", "--commit", "1" * 40]
    assert main([*scan, "--content", str(content), "--cache", str(root / "cache")]) == 0
    out = build_site(content, root)
    with http_server(out) as url:
        yield url, out


def only_record(out: Path) -> str:
    (document,) = (out / "api" / "errors").glob("*.json")
    return document.stem


@pytest.mark.browser
def test_the_page_script_gives_the_shared_vectors_answers(
    page: Page, scanned_site: tuple[str, Path]
) -> None:
    url, out = scanned_site
    page.goto(f"{url}errors/{only_record(out)}/")
    got = page.evaluate(
        "(vectors) => vectors.map((v) => window.errdexAvoid.hints(v.ways, v.values))", VECTORS
    )
    assert got == [vector["hints"] for vector in VECTORS]


@pytest.mark.browser
def test_a_scanned_modulo_page_opened_from_a_paste_lists_the_values_that_work(
    page: Page, scanned_site: tuple[str, Path], run: Any
) -> None:
    url, out = scanned_site
    record_id = only_record(out)
    page.goto(f"{url}errors/{record_id}/?q={quote(PASTE)}")
    box = page.locator("section.avoid .yours-avoid")
    expect(box).to_be_visible()
    expected = "tp: 1, 2, 4, 13, 26 or 52 (the divisors of heads = 52); yours is 8"
    expect(box.locator("li")).to_have_text([expected])
    expect(page.locator("section.avoid ul.ways li")).to_have_text(["Make heads divisible by tp."])
    # lookup answers the same from the same page data.
    result = run("lookup", "--site", out, "--json", PASTE)
    (top, *_) = json.loads(result.out)["matches"]
    assert top["id"] == record_id
    assert [h for way in top["avoid"] for h in way["hints"]] == [expected]


def scanned_with_template(tmp_path: Path, error_html: str) -> Path:
    """HEADS scanned into a site whose own templates/error.html is ``error_html``,
    built; returns its output folder."""
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "config.py").write_text(HEADS)
    content = make_content(tmp_path, {})
    scan = ["scan", str(tmp_path / "src"), "--repo", "example/heads", "--commit", "1" * 40]
    assert main([*scan, "--content", str(content), "--cache", str(tmp_path / "cache")]) == 0
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "error.html").write_text(error_html)
    return build_site(content, tmp_path)


@pytest.mark.browser
def test_a_site_that_writes_its_own_head_still_shows_a_pastes_values(
    page: Page, tmp_path: Path
) -> None:
    """The script reads the page's message and ways out from its JSON document at the
    address the URL contract gives, not from a link in the head a site may replace."""
    out = scanned_with_template(
        tmp_path,
        '{% extends "errdex/error.html" %}'
        '{% block meta %}<meta name="description" content="{{ description }}">{% endblock %}',
    )
    record_id = only_record(out)
    assert soup(out / "errors" / record_id / "index.html").find("link", rel="alternate") is None
    with http_server(out) as url:
        page.goto(f"{url}errors/{record_id}/?q={quote(PASTE)}")
        expect(page.locator(".yours .yours-message")).to_have_text(
            "Total number of attention heads (52) must be divisible by tensor parallel size (8)."
        )
        expect(page.locator("section.avoid .yours-avoid li")).to_have_count(1)


@pytest.mark.browser
def test_a_site_template_without_the_message_heading_still_shows_how_to_avoid_it(
    page: Page, tmp_path: Path
) -> None:
    """The boxes for a paste's values are made by the script where the page has their
    places: a site's own error page without the message heading gets the ways out with
    the user's values, and no error."""
    out = scanned_with_template(
        tmp_path,
        '{% extends "errdex/error.html" %}{% block main %}'
        '<article class="error" data-id="{{ record.id }}"><section class="avoid">'
        '<ul class="ways">{% for way in avoid.ways %}<li>{{ way.text }}</li>{% endfor %}</ul>'
        "</section></article>{% endblock %}",
    )
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    with http_server(out) as url:
        page.goto(f"{url}errors/{only_record(out)}/?q={quote(PASTE)}")
        expect(page.locator("section.avoid .yours-avoid li")).to_have_text(
            ["tp: 1, 2, 4, 13, 26 or 52 (the divisors of heads = 52); yours is 8"]
        )
    assert errors == []
    assert page.locator(".yours").count() == 0


@pytest.mark.browser
def test_without_a_paste_the_page_shows_the_ways_and_no_values(
    page: Page, scanned_site: tuple[str, Path]
) -> None:
    url, out = scanned_site
    page.goto(f"{url}errors/{only_record(out)}/")
    expect(page.locator("section.avoid ul.ways li")).to_have_count(1)
    expect(page.locator("section.avoid .yours-avoid")).to_be_hidden()


LONG_NAMES = """\
def check(names, seen):
    missing = [n for n in names if n not in seen]
    if missing:
        raise TypeError(
            f"These fields lack a type: {', '.join(sorted(missing, key=lambda n: seen.get(n, 0)))}."
        )
"""


@pytest.mark.browser
def test_a_long_placeholder_name_keeps_a_phone_page_from_scrolling_sideways(
    browser: Any, tmp_path: Path
) -> None:
    """A scanned placeholder is named after its expression, however long: the values
    shown under the pasted message give way on a narrow screen."""
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "fields.py").write_text(LONG_NAMES)
    content = make_content(tmp_path, {})
    scan = ["scan", str(tmp_path / "src"), "--repo", "example/fields", "--commit", "2" * 40]
    assert main([*scan, "--content", str(content), "--cache", str(tmp_path / "cache")]) == 0
    out = build_site(content, tmp_path)
    with http_server(out) as url:
        page = browser.new_page(viewport={"width": 375, "height": 812})
        paste = "TypeError: These fields lack a type: width, height."
        page.goto(f"{url}errors/{only_record(out)}/?q={quote(paste)}")
        expect(page.locator(".yours-values")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 376
        page.close()
