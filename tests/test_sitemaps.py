"""Sitemaps: every page a search engine should find, once, within the protocol's limits
(50,000 addresses and 50 MB a file); past them ``sitemap.xml`` is an index of sitemaps."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

import pytest
from conftest import soup

from errdex.site import render

GOLDEN = Path(__file__).parent / "golden" / "content"
BASE = "https://golden.example.test/"
NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def _build(run, out: Path) -> None:  # type: ignore[no-untyped-def]
    result = run("build", "--content", GOLDEN, "--out", out)
    assert result.code == 0, result.err


def _locs(path: Path) -> list[str]:
    return [loc.text or "" for loc in ElementTree.parse(path).iter(f"{NS}loc")]


def _pages(out: Path) -> list[str]:
    """The address of every page of ``out`` a search engine should find: all but search's
    and those that send readers from an old id to the new one."""
    pages = []
    for path in sorted(out.rglob("index.html")):
        rel = path.relative_to(out).as_posix().removesuffix("index.html")
        moved = soup(path).find("meta", attrs={"http-equiv": "refresh"}) is not None
        if not rel.startswith("search/") and not moved:
            pages.append(BASE + rel)
    return sorted(pages)


def test_a_site_within_the_limits_has_one_sitemap_of_every_page(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "public"
    _build(run, out)
    root = ElementTree.parse(out / "sitemap.xml").getroot()
    assert root.tag == f"{NS}urlset"
    assert sorted(_locs(out / "sitemap.xml")) == _pages(out)
    assert not list(out.glob("sitemap-*.xml"))


@pytest.mark.parametrize("limit", ["addresses", "bytes"])
def test_a_site_past_the_limits_gets_an_index_of_sitemaps_that_hold_each_page_once(
    limit: str,
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if limit == "addresses":
        monkeypatch.setattr(render, "SITEMAP_URLS", 10)
    else:
        monkeypatch.setattr(render, "SITEMAP_BYTES", 3_000)
    out = tmp_path / "public"
    _build(run, out)

    index = ElementTree.parse(out / "sitemap.xml").getroot()
    assert index.tag == f"{NS}sitemapindex"
    parts = _locs(out / "sitemap.xml")
    count = len(list(out.glob("sitemap-*.xml")))
    assert count > 1
    assert parts == [f"{BASE}sitemap-{n}.xml" for n in range(1, count + 1)]
    found = []
    for n in range(1, count + 1):
        part = out / f"sitemap-{n}.xml"
        assert ElementTree.parse(part).getroot().tag == f"{NS}urlset"
        urls = _locs(part)
        assert 0 < len(urls) <= render.SITEMAP_URLS
        assert len(part.read_bytes()) <= render.SITEMAP_BYTES
        found += urls
    assert found == sorted(found), "the pages in order, one sitemap after another"
    assert sorted(found) == _pages(out)  # each once
    assert (out / "robots.txt").read_text().endswith(f"Sitemap: {BASE}sitemap.xml\n")

    again = tmp_path / "again"
    _build(run, again)
    for part in ["sitemap.xml", *(f"sitemap-{n}.xml" for n in range(1, count + 1))]:
        assert (again / part).read_bytes() == (out / part).read_bytes()


def test_a_site_of_exactly_one_sitemaps_addresses_has_one_sitemap(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = tmp_path / "public"
    _build(run, out)
    pages = len(_pages(out))
    monkeypatch.setattr(render, "SITEMAP_URLS", pages)
    out = tmp_path / "as many"
    _build(run, out)
    assert ElementTree.parse(out / "sitemap.xml").getroot().tag == f"{NS}urlset"
    assert not list(out.glob("sitemap-*.xml"))

    monkeypatch.setattr(render, "SITEMAP_URLS", pages - 1)
    out = tmp_path / "one more"
    _build(run, out)
    assert _locs(out / "sitemap.xml") == [f"{BASE}sitemap-1.xml", f"{BASE}sitemap-2.xml"]
    assert len(_locs(out / "sitemap-2.xml")) == 1
