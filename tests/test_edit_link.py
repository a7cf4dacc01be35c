"""Each error page's "Edit this page" link to its record file, where site.yaml says."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CONTENT, MINIMAL, SITE_YAML, make_content, soup

from errdex.records.model import derive_id

EDIT = "https://github.com/example/site/edit/main/docs/errors-site/"
"""A site whose content folder is docs/errors-site/ of its repository, on main."""


def edit_link(site: Path, record_id: str) -> tuple[str, str] | None:
    """The href and the visible text of a page's edit link, if it has one."""
    page = soup(site / "errors" / record_id / "index.html")
    link = page.select_one("footer").find("a", string="Edit this page")
    if link is None:
        return None
    return link["href"], " ".join(link.parent.get_text(" ").split())


MESSAGE_ID = derive_id("example/project", "ValueError", "size={size} must be positive")


def test_each_page_links_its_record_file_in_a_subfolder_encoded(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    # Without its final slash: the record's path is still added after one.
    content = make_content(
        tmp_path,
        {"team a/größe #1.yaml": MINIMAL},
        SITE_YAML + f"edit_url: {EDIT.removesuffix('/')}\n",
    )
    result = run("build", "--content", content, "--out", tmp_path / "public")
    assert result.code == 0, result.err
    href, text = edit_link(tmp_path / "public", MESSAGE_ID)
    assert href == EDIT + "errors/team%20a/gr%C3%B6%C3%9Fe%20%231.yaml"
    assert text == "Edit this page ( errors/team a/größe #1.yaml )"


def test_no_setting_no_link(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, {"a.yaml": MINIMAL})
    assert run("build", "--content", content, "--out", tmp_path / "public").code == 0
    assert edit_link(tmp_path / "public", MESSAGE_ID) is None
    assert (
        "Edit this page" not in (tmp_path / "public/errors" / MESSAGE_ID / "index.html").read_text()
    )


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("github.com/example/site/edit/main/", "is not an http:// or https:// URL"),
        (
            "https://github.com/example/site/edit/main/?plain=1",
            "has a query or fragment (? or #); the paths of record files are added to its end",
        ),
        ("https://github.com//example/site/", "has an empty segment ('//') in its path"),
        ("javascript:alert(1)//", "is not an http:// or https:// URL"),
    ],
)
def test_a_bad_edit_url_is_refused_at_its_line(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    url: str,
    says: str,
) -> None:
    content = make_content(tmp_path, {"a.yaml": MINIMAL}, SITE_YAML + f'edit_url: "{url}"\n')
    for command in ("check", "build"):
        result = run(command, "--content", content, "--out", tmp_path / "public")
        assert result.code == 1
        assert f"site.yaml:4: edit_url {url!r} {says}" in result.err
        assert "[E208]" in result.err
    assert not (tmp_path / "public").exists()


def test_the_bundled_pages_link_their_records_on_github(built_site: Path) -> None:
    href, _ = edit_link(built_site, "9c019ab65f8b8d16")
    assert href == (
        "https://github.com/errdex/errdex/edit/main/content/errors/vllm-project/vllm/"
        "9c019ab65f8b8d16.yaml"
    )
    assert (CONTENT / href.rpartition("/edit/main/content/")[2]).is_file()
