"""How a page is written: what it shows stays, the bytes that show nothing go (#41's
12 KB a record). Each test reads the pages a build writes."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import MINIMAL, OTHER, SITE_YAML, html_pages, make_content, soup

from errdex.site.render import unindent


def built(run, tmp_path: Path, site: str = SITE_YAML) -> Path:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, {"a.yaml": MINIMAL, "b.yaml": OTHER}, site=site)
    out = tmp_path / "public"
    result = run("build", "--content", content, "--out", out)
    assert result.code == 0, result.err
    return out


def error_page(out: Path, message: str) -> Path:
    return next(p for p in (out / "errors").glob("*/index.html") if message in p.read_text())


def test_no_line_of_a_page_is_indented_but_the_code_keeps_its_own(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = built(run, tmp_path)
    for page in html_pages(out):
        outside = re.sub(r"<(pre|textarea)\b.*?</\1>", "", page.read_text(), flags=re.S)
        indented = [line for line in outside.splitlines() if line[:1] in (" ", "\t")]
        assert not indented, f"{page.relative_to(out)}: {indented[:3]}"
    code = soup(error_page(out, "must be positive")).select_one(".code-view pre:not(.gutter)")
    assert code is not None
    for hidden in code.select(".visually-hidden"):  # "Raised here: ", for screen readers
        hidden.decompose()
    assert code.get_text().splitlines()[1:] == [
        "    if size <= 0:",
        '        raise ValueError(f"size={size} must be positive")',
    ]


def test_text_where_spaces_show_keeps_them() -> None:
    kept = '<pre class="x">\n  a\n</pre>\n<textarea>\n  b</textarea>\n'
    source = "<div>\n    <p>a</p>\n  " + kept.replace("\n<textarea>", "\n\t<textarea>")
    assert unindent(source) == "<div>\n<p>a</p>\n" + kept


def test_a_sites_own_template_keeps_its_indentation(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A site's spaces may matter where errdex cannot see it: here a block tag ends a line
    (and takes its line break), and only the next line's indentation parts two words."""
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "base.html").write_text(
        '{% extends "errdex/base.html" %}{% block footer %}\n'
        "<p>Built by us{% if config.title %}\n    and friends{% endif %}</p>\n"
        "{% endblock %}"
    )
    out = built(run, tmp_path)
    assert "<p>Built by us    and friends</p>" in (out / "index.html").read_text()


def test_the_hosts_headers_file_keeps_its_indented_rules(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = built(run, tmp_path, SITE_YAML + "host: cloudflare\n")
    headers = (out / "_headers").read_text()
    assert "/*\n  Content-Security-Policy: default-src 'none';" in headers
    assert "\n/api/*\n  Content-Type: application/json; charset=utf-8\n" in headers


def test_a_row_tells_its_line_exception_and_message_by_its_tags(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    page = soup(error_page(built(run, tmp_path), "must be positive"))
    rows = page.select("#more ~ .rows > li > a")
    assert [(a.small.text, a.b.text, a.code.text) for a in rows if a.small and a.b and a.code] == [
        ("L3", "ValueError", "count={count} is too large")
    ]
    assert not page.select(".rows .row-title, .rows .row-line, .rows .badge")


def test_the_search_box_is_a_combobox_only_with_the_script(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Without the script the header's box is a plain search box; errdex.js adds the
    combobox's roles, its status line and its list of results (the browser tests use them)."""
    page = soup(error_page(built(run, tmp_path), "must be positive"))
    box = page.select_one("input#q-header")
    assert (box["name"], box["type"]) == ("q", "search")
    assert page.select("[role=combobox], [role=listbox], .search-status, [aria-controls]") == []


def test_a_page_quotes_no_attribute_value_that_needs_no_quotes(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A class, an id, a role or a link within the page that is one word is written
    bare (`class=rows`): valid HTML, and two bytes a value on every page. (Addresses
    made of names from the records stay quoted.)"""
    out = built(run, tmp_path)
    for page in [error_page(out, "must be positive"), out / "index.html"]:
        text = page.read_text()
        quoted = r'\s(?:class|id|for|role|rel|aria-labelledby)="[\w-]+"|\shref="#[\w-]+"'
        assert re.findall(quoted, text) == []
        assert soup(page).select_one("main[id=main]") is not None


def test_an_error_page_leaves_its_comforts_to_the_script(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """ "On this page", the report link's title and body and the boxes for a paste's
    values are added by errdex.js (tests/test_browser.py): no page writes them."""
    page = soup(error_page(built(run, tmp_path), "must be positive"))
    assert page.select("aside.toc, .yours, .yours-avoid") == []
    (report,) = page.select("footer a[href*='/issues/new']")
    assert str(report["href"]).endswith("/issues/new?title=%5B" + page.article["data-id"] + "%5D")


def test_the_page_does_not_carry_what_its_json_says_for_the_script(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The message and how to avoid it, for a visit with a paste, come from the page's
    JSON document (at the URL contract's address, which the page also links), not from
    attributes of every page: the browser tests of a visit with a paste
    (test_browser_avoid.py) show the values read from it."""
    out = built(run, tmp_path)
    page = soup(error_page(out, "must be positive"))
    assert page.select_one("article.error[data-template], section[data-avoid]") is None
    link = page.select_one('link[rel="alternate"][type="application/json"]')
    assert link is not None and str(link["href"]).endswith(".json")


def test_a_token_of_a_type_of_its_own_takes_the_colour_of_its_kind() -> None:
    """YAML's plain scalars are ``Literal.Scalar.Plain``, which neither scheme names: they
    are coloured as literals (the dark scheme colours them), and YAML's indicators as
    punctuation, which shows as plain text, so with no element at all."""
    from errdex.site.highlight import _lexer, _pygmentize, stylesheet

    lexer = _lexer(name="yaml")
    assert lexer is not None
    html = _pygmentize("key: plain value\nlist: [a, b]\n", lexer)
    assert "<t-l>plain value</t-l>" in html
    assert "[" in html and "<t-p" not in html
    dark = stylesheet().split("@media (prefers-color-scheme: dark)")[1]
    assert ".hl t-l {" in dark


def test_each_token_element_of_the_code_has_its_colour(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = built(run, tmp_path)
    text = error_page(out, "must be positive").read_text()
    code = re.search(r"<pre><code>(.*?)</code></pre>", text, re.S)
    assert code is not None
    assert "<t-k>raise</t-k> <t-ne>ValueError</t-ne>" in code.group(1)
    assert "<span class=" not in code.group(1).replace("<span class=visually-hidden>", "")
    elements = set(re.findall(r"<(t-[a-z0-9-]+)>", code.group(1)))
    css = next((out / "static").glob("pygments.*.css")).read_text()
    assert elements and all(f".hl {e}{{" in css for e in elements), (elements, css[:200])
    assert ".hl .k" not in css


def test_the_search_page_quotes_no_other_projects_error(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A site of any project gets a search box whose example is no project's message."""
    text = (built(run, tmp_path) / "search" / "index.html").read_text()
    assert 'placeholder="ValueError: …"' in text
    assert "tp_size" not in text and "dcp_size" not in text


def test_the_home_page_offers_its_feed_once_an_error_is_analysed(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The feed lists analysed errors: a site of scanned records only has none to list,
    and its home page does not send feed readers to an empty feed (which stays at its
    address, dated 1970)."""
    analysed = MINIMAL + "meaning: It is.\nanalysis:\n  by: me\n  date: 2026-01-01\n"
    for records, offered in (({"a.yaml": MINIMAL}, False), ({"a.yaml": analysed}, True)):
        content = make_content(tmp_path / str(offered), records)
        out = tmp_path / str(offered) / "out"
        assert run("build", "--content", content, "--out", out).code == 0
        link = soup(out / "index.html").select_one('link[type="application/atom+xml"]')
        assert (link is not None) == offered
        assert (out / "feed.xml").is_file()
