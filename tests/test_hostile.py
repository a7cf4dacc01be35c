"""Hostile content: a committed corpus of records that try to inject markup, scripts and
unsafe links, built and inspected page by page; records errdex must refuse; and the
hostile inputs that once broke errdex, each now refused at path:line or built."""

from __future__ import annotations

import datetime
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

import jsonschema
import pytest
import yaml
from bs4 import BeautifulSoup, Tag
from conftest import MINIMAL, ROOT, html_pages, make_content, snapshot, soup

from errdex.cli import main

HOSTILE = Path(__file__).resolve().parent / "hostile"
CONTENT = HOSTILE / "content"
REFUSED = HOSTILE / "refused"

UNSAFE_SCHEMES = ("javascript:", "vbscript:", "data:", "file:")
URL_ATTRIBUTES = (
    "href",
    "src",
    "action",
    "formaction",
    "data",
    "poster",
    "cite",
    "background",
    "longdesc",
    "ping",
    "srcset",
    "xlink:href",
)
FORBIDDEN_ELEMENTS = (
    "iframe",
    "object",
    "embed",
    "style",
    "frame",
    "frameset",
    "applet",
    "base",
)
# What a browser ignores in a URL before it reads the scheme: C0 controls, space and DEL.
_IGNORED_IN_URL = re.compile(r"[\x00-\x20\x7f]+")
_PROBLEM_LINE = re.compile(r"^(?P<path>.+?):(?P<line>[1-9][0-9]*): (?P<message>.+)$")


# --- Helpers ---------------------------------------------------------------------------


def is_unsafe_url(value: str) -> bool:
    return _IGNORED_IN_URL.sub("", value).lower().startswith(UNSAFE_SCHEMES)


def page_url(out: Path, page: Path, base_url: str) -> str:
    return base_url + page.relative_to(out).as_posix()


def base_url_of(content: Path) -> str:
    url: str = yaml.safe_load((content / "site.yaml").read_text(encoding="utf-8"))["base_url"]
    return url if url.endswith("/") else url + "/"


@functools.lru_cache(maxsize=512)
def _parsed(page: Path, mtime: int) -> BeautifulSoup:
    return BeautifulSoup(page.read_text(encoding="utf-8"), "html5lib")


def browser_soup(page: Path) -> BeautifulSoup:
    """A page parsed as a browser parses it (HTML5 tree building, html5lib)."""
    return _parsed(page, page.stat().st_mtime_ns)


def elements(page: Path) -> Iterator[Tag]:
    yield from browser_soup(page).find_all(True)


def script_violations(out: Path, base_url: str) -> list[str]:
    """Scripts other than our own static/*.js files and JSON-LD data blocks."""
    ours = {p.name for p in (out / "static").glob("*.js")}
    found = []
    for page in html_pages(out):
        here = page_url(out, page, base_url)
        for script in browser_soup(page).find_all("script"):
            where = f"{page.relative_to(out)}: {str(script)[:120]!r}"
            src = script.get("src")
            if src is not None:
                target = urljoin(here, str(src))
                name = target.removeprefix(base_url + "static/")
                if name == target or name not in ours or script.string:
                    found.append(f"{where}: not one of our static scripts")
                continue
            if script.get("type") != "application/ld+json":
                found.append(f"{where}: an inline script")
                continue
            try:
                data = json.loads(script.string or "")
            except ValueError:
                found.append(f"{where}: JSON-LD that is not JSON")
                continue
            if not isinstance(data, dict) or data.get("@context") != "https://schema.org":
                found.append(f"{where}: JSON-LD that is not schema.org data")
    return found


def attribute_violations(out: Path) -> list[str]:
    """Event handlers, style attributes and unsafe URLs, in every attribute of every page."""
    found = []
    for page in html_pages(out):
        for tag in elements(page):
            for name, value in tag.attrs.items():
                text = " ".join(value) if isinstance(value, list) else str(value)
                where = f"{page.relative_to(out)}: <{tag.name} {name}={text[:80]!r}>"
                if name.lower().startswith("on"):
                    found.append(f"{where}: event handler attribute")
                if name.lower() == "style":
                    found.append(f"{where}: style attribute")
                if name.lower() in URL_ATTRIBUTES and is_unsafe_url(text):
                    found.append(f"{where}: unsafe URL")
            if tag.name == "meta" and str(tag.get("http-equiv", "")).lower() == "refresh":
                target = str(tag.get("content", "")).partition("=")[2]
                if is_unsafe_url(target):
                    found.append(f"{page.relative_to(out)}: refresh to an unsafe URL {target!r}")
    return found


def element_violations(out: Path) -> list[str]:
    found = []
    for page in html_pages(out):
        for tag in elements(page):
            if tag.name in FORBIDDEN_ELEMENTS:
                found.append(f"{page.relative_to(out)}: <{tag.name}>")
            if tag.name == "link" and "stylesheet" in (tag.get("rel") or []):
                href = str(tag.get("href", ""))
                if not re.search(r"(^|/)static/[a-z-]+\.[0-9a-f]{10}\.css$", href):
                    found.append(f"{page.relative_to(out)}: stylesheet {href!r}")
    return found


# The record format (docs/records.md, "Error records"): a dict is a map of known fields, a list
# holds maps of known fields, None is a value kept as written.
KNOWN: dict[str, Any] = {
    "id": None,
    "aliases": None,
    "repo": None,
    "exception": None,
    "message": None,
    "title": None,
    "meaning": None,
    "source": {
        "commit": None,
        "path": None,
        "line": None,
        "function": None,
        "parameters": None,
        "condition": None,
        "removed_in": None,
        "excerpt": {"start": None, "code": None},
    },
    "solutions": None,
    "example_fix": [{"lang": None, "code": None, "caption": None}],
    "when": {"trigger": None, "situations": None},
    "related": None,
    "analysis": {"by": None, "date": None},
}
DERIVED = {
    *("id", "title", "placeholders", "url", "json_url", "permalink", "related_ids"),
    *("issues", "avoid", "review", "removed_in_release"),
    *("options", "same_function", "same_file", "linked_from", "handling"),
}


def expected_document(value: Any, spec: Any = KNOWN) -> Any:
    """A record file's data as its JSON document holds it: unknown fields left out at every
    level, dates as ISO text."""
    if isinstance(spec, dict) and isinstance(value, dict):
        return {k: expected_document(v, spec[k]) for k, v in value.items() if k in spec}
    if isinstance(spec, list) and isinstance(value, list):
        return [expected_document(item, spec[0]) for item in value]
    if isinstance(value, list):
        return [expected_document(item, None) for item in value]
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value


def document_mismatches(out: Path, content: Path) -> list[str]:
    """Every record file against its JSON document: same fields, nothing unknown."""
    base = base_url_of(content)
    documents = [
        json.loads(p.read_text(encoding="utf-8")) for p in (out / "api" / "errors").glob("*.json")
    ]
    records = [d for d in documents if "moved_to" not in d]
    found = []
    files = sorted(p for p in (content / "errors").rglob("*") if p.suffix in (".yaml", ".yml"))
    assert len(records) == len(files)
    for path in files:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        matching = [
            d
            for d in records
            if ("id" in data and d["id"] == data["id"])
            or (
                "id" not in data
                and (d["repo"], d["exception"], d["message"])
                == (data["repo"], data["exception"], data["message"])
            )
        ]
        if len(matching) != 1:
            found.append(f"{path.name}: {len(matching)} documents")
            continue
        document = matching[0]
        expected = expected_document(data)
        record_id = document["id"]
        if "id" in data and record_id != data["id"]:
            found.append(f"{path.name}: id {record_id} is not the file's {data['id']}")
        if not re.fullmatch(r"[0-9a-f]{16}", record_id):
            found.append(f"{path.name}: id {record_id!r}")
        for key, value in expected.items():
            if document.get(key) != value:
                found.append(f"{path.name}: {key} is {str(document.get(key))[:200]!r}")
        extra = set(document) - set(expected) - DERIVED
        if extra:
            found.append(f"{path.name}: fields not in the record: {sorted(extra)}")
        if document["issues"] != {"count": 0, "open": 0, "closed": 0, "reported": []}:
            found.append(f"{path.name}: issues {document['issues']!r} with no issue file")
        if document["url"] != f"{base}errors/{record_id}/":
            found.append(f"{path.name}: url {document['url']!r}")
        if document["json_url"] != f"{base}api/errors/{record_id}.json":
            found.append(f"{path.name}: json_url {document['json_url']!r}")
        bare = out / "api" / "errors" / record_id
        if bare.read_bytes() != (out / "api" / "errors" / f"{record_id}.json").read_bytes():
            found.append(f"{path.name}: api/errors/{record_id} differs from its .json")
    return found


def problem_lines(err: str) -> tuple[list[re.Match[str]], list[str]]:
    """stderr split into ``path:line: message`` lines and anything else that is not
    errdex's own summary."""
    problems, other = [], []
    for line in err.splitlines():
        found = _PROBLEM_LINE.match(line)
        if found and not line.startswith("errdex: "):
            problems.append(found)
        elif not line.startswith("errdex: "):
            other.append(line)
    return problems, other


def same_file(shown: str, path: Path) -> bool:
    return Path(shown).resolve() == path.resolve()


def assert_refused(
    result: Any, record: Path, code: str | None = None, line: int | None = None
) -> None:
    """A command refused bad input: exit 1, stderr only ``path:line: message`` lines and
    the summary, among them an error about ``record`` (``[code]``, at ``line``, if given)."""
    assert result.code == 1, result.err[-2000:]
    assert "Traceback" not in result.err
    problems, other = problem_lines(result.err)
    assert other == [], f"stderr lines not of the form path:line: message: {other[:5]}"
    lines = [
        int(p["line"])
        for p in problems
        if same_file(p["path"], record)
        and not p["message"].startswith("warning: ")
        and (code is None or p["message"].endswith(f" [{code}]"))
    ]
    assert lines and (line is None or line in lines), result.err[-2000:]
    assert "errdex: stopped with " in result.err  # the summary (a build: "nothing was written")


def assert_handled(result: Any, record: Path) -> None:
    """A command that met bad input: exit 0, or exit 1 with every problem as
    ``path:line: message`` about that record file, never a traceback."""
    assert result.code in (0, 1), result.err[-2000:]
    assert "Traceback" not in result.err
    problems, other = problem_lines(result.err)
    assert other == [], f"stderr lines not of the form path:line: message: {other[:5]}"
    if result.code == 1:
        assert any(same_file(p["path"], record) for p in problems), result.err[-2000:]


# --- The accepted corpus ----------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hostile") / "public"
    assert main(["build", "--content", str(CONTENT), "--out", str(out), "--no-cache"]) == 0
    return out


def test_the_hostile_corpus_builds_with_warnings_only(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    result = run("build", "--content", CONTENT, "--out", tmp_path / "out", "--no-cache")
    assert result.code == 0, result.err[-3000:]
    problems, other = problem_lines(result.err)
    assert other == []
    assert problems, "the corpus is meant to draw warnings (raw HTML, unknown fields…)"
    assert all(p["message"].startswith("warning: ") for p in problems)
    records = list((CONTENT / "errors").glob("*.yaml"))
    assert len(list((tmp_path / "out" / "errors").glob("*/index.html"))) >= len(records)


def test_the_only_scripts_are_our_static_files_and_json_ld(hostile_site: Path) -> None:
    assert script_violations(hostile_site, base_url_of(CONTENT)) == []


def test_no_event_handler_style_attribute_or_unsafe_url(hostile_site: Path) -> None:
    assert attribute_violations(hostile_site) == []


def test_no_frames_objects_embeds_or_style_elements(hostile_site: Path) -> None:
    assert element_violations(hostile_site) == []


def test_every_page_of_the_corpus_was_inspected(hostile_site: Path) -> None:
    pages = {p.relative_to(hostile_site).as_posix() for p in html_pages(hostile_site)}
    assert {"index.html", "404.html", "search/index.html", "options/index.html"} <= pages
    assert "errors/0000000000000001/index.html" in pages
    assert "errors/00000000000000a1/index.html" in pages  # an alias's redirect page
    assert any(p.startswith("repos/hostile-owner/hostile.repo/files/") for p in pages)
    assert any(p.startswith("exceptions/javascript/") for p in pages)
    assert any(p.startswith("options/") and p != "options/index.html" for p in pages)


def test_hostile_text_is_shown_as_written(hostile_site: Path) -> None:
    """Escaped, not dropped: the reader sees the markup and template syntax as text."""
    page = soup(hostile_site / "errors" / "0000000000000001" / "index.html")
    text = page.get_text()
    assert "<script>alert('meaning block')</script>" in text
    assert "</script><script>alert('message')</script>" in text
    assert "<script>alert('example html')</script>" in text
    assert "render</script><script>alert('function')</script>" in text
    assert page.find("h1") is not None
    assert "</title></script><script>alert('title')</script>" in (page.title.string or "")
    index = json.loads((hostile_site / "api" / "errors.json").read_text(encoding="utf-8"))
    (templated,) = [e["id"] for e in index["errors"] if e["exception"].startswith("jinja2.")]
    text = soup(hostile_site / "errors" / templated / "index.html").get_text()
    assert "{% for r in site.records %}{{ r.id }}{% endfor %}" in text
    assert "{{ config.title }} {% include 'base.html' %} {7*7}" in text


def test_unsafe_links_in_prose_are_text_and_safe_links_stay_links(hostile_site: Path) -> None:
    page = soup(hostile_site / "errors" / "0000000000000003" / "index.html")
    hrefs = [str(a.get("href")) for a in page.find_all("a")]
    assert "https://example.test/ok" in hrefs
    text = page.get_text()
    for shown in ("[ref js][js]", "<javascript:alert(1)>", "<vbscript:msgbox(1)>"):
        assert shown in text


def test_every_api_document_is_json(hostile_site: Path) -> None:
    documents = [p for p in (hostile_site / "api").rglob("*") if p.is_file()]
    assert len(documents) > 10
    for path in documents:
        json.loads(path.read_bytes().decode("utf-8"))
    for path in (hostile_site / "search").rglob("*.json"):
        json.loads(path.read_bytes().decode("utf-8"))


def test_record_documents_hold_the_record_files_fields(hostile_site: Path) -> None:
    assert document_mismatches(hostile_site, CONTENT) == []


def test_record_documents_validate_against_the_published_schema(hostile_site: Path) -> None:
    schema = json.loads((hostile_site / "api" / "schema.json").read_text(encoding="utf-8"))
    for path in (hostile_site / "api" / "errors").glob("*.json"):
        document = json.loads(path.read_text(encoding="utf-8"))
        if "moved_to" not in document:
            jsonschema.validate(document, schema)


def test_feed_and_sitemap_are_well_formed_xml(hostile_site: Path) -> None:
    for name in ("feed.xml", "sitemap.xml"):
        ElementTree.parse(hostile_site / name)


def address_violations(out: Path, base_url: str) -> list[str]:
    """Canonical URLs and sitemap entries that do not lead back to their own page."""
    base_path = unquote(urlsplit(base_url).path)
    found = []
    for page in html_pages(out):
        rel = page.relative_to(out).as_posix()
        html = soup(page)
        if rel == "404.html" or html.find("meta", attrs={"http-equiv": "refresh"}):
            continue  # served at any address; a moved id's page points to the record's
        want = base_path + rel.removesuffix("index.html")
        for link in html.find_all("link", rel="canonical"):
            parts = urlsplit(str(link.get("href")))
            if parts.query or parts.fragment or unquote(parts.path) != want:
                found.append(f"{rel}: canonical {link.get('href')!r}")
    tree = ElementTree.parse(out / "sitemap.xml")
    for loc in tree.iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc"):
        parts = urlsplit(loc.text or "")
        rel = unquote(parts.path).removeprefix(base_path)
        if parts.query or parts.fragment or not (out / rel / "index.html").is_file():
            found.append(f"sitemap: {loc.text!r}")
    return found


def test_canonical_and_sitemap_urls_lead_to_their_page(hostile_site: Path) -> None:
    assert address_violations(hostile_site, base_url_of(CONTENT)) == []


def test_the_corpus_builds_to_the_same_bytes_under_any_hash_seed(tmp_path: Path) -> None:
    """Two fresh processes with different hash seeds, content in different folders."""
    outputs = []
    for seed in ("1", "2"):
        content = tmp_path / f"content-{seed}"
        shutil.copytree(CONTENT, content)
        out = tmp_path / f"out-{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run(
            [
                *(sys.executable, str(ROOT / "build.py"), "build", "--content", str(content)),
                *("--out", str(out), "--no-cache"),
            ],
            check=True,
            capture_output=True,
            env=env,
            cwd=tmp_path,
        )
        outputs.append({rel: data for rel, (data, _) in snapshot(out).items()})
    assert outputs[0].keys() == outputs[1].keys()
    assert [rel for rel in outputs[0] if outputs[0][rel] != outputs[1][rel]] == []


# --- Records errdex refuses ------------------------------------------------------------

_REFUSED_AT = re.compile(r"^# errdex refuses line (\d+): (.+)$")


@pytest.mark.parametrize("record", sorted(REFUSED.glob("*.yaml")), ids=lambda p: p.stem)
def test_a_refused_record_stops_the_build_at_its_line(tmp_path: Path, run, record: Path) -> None:  # type: ignore[no-untyped-def]
    header = _REFUSED_AT.match(record.read_text(encoding="utf-8").splitlines()[0])
    assert header, f"{record.name} must start with '# errdex refuses line N: why'"
    line = int(header[1])
    content = tmp_path / "content"
    (content / "errors").mkdir(parents=True)
    shutil.copy(CONTENT / "site.yaml", content / "site.yaml")
    target = content / "errors" / record.name
    shutil.copy(record, target)
    out = tmp_path / "out"
    result = run("build", "--content", content, "--out", out, "--no-cache")
    assert result.code == 1, result.err
    assert "Traceback" not in result.err
    problems, other = problem_lines(result.err)
    assert other == []
    errors = [p for p in problems if not p["message"].startswith("warning: ")]
    assert len(errors) == 1, result.err  # refused for the one reason its header names
    assert same_file(errors[0]["path"], target), result.err
    assert int(errors[0]["line"]) == line, result.err
    assert not out.exists()


def test_the_refused_folder_covers_each_way_of_writing_an_unsafe_link() -> None:
    headers = [p.read_text(encoding="utf-8").splitlines()[0] for p in REFUSED.glob("*.yaml")]
    reasons = [h.partition(": ")[2] for h in headers]
    assert len(reasons) == len(set(reasons)) >= 20
    names = {p.stem for p in REFUSED.glob("*.yaml")}
    for field in ("meaning", "solution", "trigger", "situations"):
        assert any(field in reason for reason in reasons), field
    for scheme in ("javascript", "vbscript", "data", "file"):
        assert any(name.startswith(f"inline-{scheme}") for name in names), scheme


# --- Hostile input that once broke errdex -----------------------------------------------


def _build(run, tmp_path: Path, records: dict[str, str]) -> Any:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, records)
    return run("build", "--content", content, "--out", tmp_path / "out", "--no-cache")


LONG = 10_000


def _long_record(field: str) -> str:
    if field == "source.path":
        return MINIMAL.replace("src/project/config.py", "src/" + "a" * LONG + ".py")
    if field == "exception":
        return MINIMAL.replace("exception: ValueError", "exception: E" + "e" * LONG)
    if field == "repo":
        return MINIMAL.replace("repo: example/project", "repo: example/" + "p" * LONG)
    if field == "message flag":
        return MINIMAL.replace("must be positive", "must be --" + "f" * LONG)
    assert field == "message key"
    return MINIMAL.replace("must be positive", "must be size_" + "k" * LONG)


@pytest.mark.parametrize(("field", "line"), [("source.path", 6), ("exception", 2), ("repo", 1)])
def test_a_10000_character_name_is_refused_at_its_line(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    field: str,
    line: int,
) -> None:
    result = _build(run, tmp_path, {"long.yaml": _long_record(field)})
    assert_refused(result, tmp_path / "content" / "errors" / "long.yaml", line=line)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("field", ["message flag", "message key"])
def test_a_10000_character_option_in_a_message_builds_a_site_that_fits_any_disk(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    field: str,
) -> None:
    result = _build(run, tmp_path, {"long.yaml": _long_record(field)})
    assert result.code == 0, result.err[-2000:]
    problems, other = problem_lines(result.err)
    assert other == [] and all(p["message"].startswith("warning: ") for p in problems)
    out = tmp_path / "out"
    (page,) = (out / "errors").glob("*/index.html")
    assert ("f" * LONG if field == "message flag" else "k" * LONG) in soup(page).get_text()
    # docs/commands.md: no file of the site is longer than 200 bytes, so it builds on Windows.
    longest = max((p.relative_to(out).as_posix() for p in out.rglob("*")), key=len)
    assert len(longest.encode()) <= 200, longest[:120]


def _other(record: str) -> str:
    return record.replace("must be positive", "must be small")


@pytest.mark.parametrize(
    "records",
    [
        pytest.param(
            {
                "a.yaml": MINIMAL.replace("src/project/config.py", "pkg"),
                "b.yaml": _other(MINIMAL.replace("src/project/config.py", "pkg/index.html")),
            },
            id="a file and a folder",
        ),
        pytest.param(
            {"a.yaml": MINIMAL.replace("config.py", "Config.py"), "b.yaml": _other(MINIMAL)},
            id="paths that differ in case",
        ),
        pytest.param(
            {"a.yaml": MINIMAL.replace("src/project", "src/Project"), "b.yaml": _other(MINIMAL)},
            id="folders that differ in case",
        ),
        pytest.param(
            {"a.yaml": MINIMAL.replace("ValueError", "valueerror"), "b.yaml": _other(MINIMAL)},
            id="exceptions that differ in case",
        ),
        pytest.param(
            {"a.yaml": MINIMAL.replace("example/", "Example/"), "b.yaml": _other(MINIMAL)},
            id="repos that differ in case",
        ),
    ],
)
def test_source_paths_whose_pages_collide_are_refused(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    records: dict[str, str],
) -> None:
    """Two pages that one folder would hold (on macOS and Windows when names differ only
    in case): refused, never one written over the other."""
    result = _build(run, tmp_path, records)
    problems, _ = problem_lines(result.err)
    blamed = {Path(p["path"]).name for p in problems}
    assert blamed and blamed <= set(records), result.err
    assert_refused(result, tmp_path / "content" / "errors" / min(blamed))
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "char",
    [
        pytest.param(char, id=f"U+{ord(char):04X}")
        for char in ("\x01", "\x1b", "\x7f", "\x9b", "\ufffe")
    ],
)
def test_a_raw_control_character_in_a_record_is_reported_at_its_line(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    char: str,
) -> None:
    content = make_content(tmp_path, {})
    record = content / "errors" / "control.yaml"
    record.write_text(MINIMAL + f"title: before{char}after\n", encoding="utf-8")
    result = run("check", "--content", content, "--out", tmp_path / "out")
    assert_handled(result, record)
    assert result.code == 1
    problems, _ = problem_lines(result.err)
    assert [int(p["line"]) for p in problems if same_file(p["path"], record)] == [14]


def test_deeply_nested_yaml_is_reported_not_a_traceback(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    depth = 5000
    content = make_content(tmp_path, {"deep.yaml": MINIMAL + "extra: " + "[" * depth + "]" * depth})
    result = run("check", "--content", content, "--out", tmp_path / "out")
    assert_refused(result, content / "errors" / "deep.yaml", "E101")


def test_unknown_nested_fields_stay_out_of_the_json_mirror(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    record = MINIMAL.replace("  line: 3\n", "  line: 3\n  onload: alert(1)\n") + textwrap.dedent(
        """\
        when:
          trigger: x
          onclick: alert(1)
        example_fix:
          - lang: python
            code: x
            onerror: alert(1)
        analysis:
          by: me
          date: 2026-01-01
          "<script>": 1
        """
    )
    result = _build(run, tmp_path, {"nested.yaml": record})
    assert result.code == 0, result.err
    assert document_mismatches(tmp_path / "out", tmp_path / "content") == []


def test_a_data_url_in_any_link_form_never_becomes_a_link(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    record = MINIMAL + textwrap.dedent(
        """\
        meaning: |
          A [reference][png], an autolink <data:image/png;base64,AAAA>,
          an image ![image][png] and <DATA:image/gif;base64,R0lGOD>.

          [png]: data:image/png;base64,AAAA
        """
    )
    result = _build(run, tmp_path, {"data.yaml": record})
    assert result.code == 0, result.err  # only an inline link [text](data:…) is refused
    assert attribute_violations(tmp_path / "out") == []
    text = soup(next((tmp_path / "out" / "errors").glob("*/index.html"))).get_text()
    for shown in ("[reference][png]", "<data:image/png;base64,AAAA>", "![image][png]"):
        assert shown in text
    assert "[png]: data:image/png;base64,AAAA" in text


def test_an_aligned_table_gives_no_style_attribute(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    record = MINIMAL + 'meaning: "| a | b | c |\\n|:--|:-:|--:|\\n| 1 | 2 | 3 |\\n"\n'
    result = _build(run, tmp_path, {"table.yaml": record})
    assert result.code == 0, result.err
    page = next((tmp_path / "out" / "errors").glob("*/index.html"))
    assert soup(page).find("table") is not None
    assert attribute_violations(tmp_path / "out") == []


def test_feed_is_well_formed_whatever_characters_records_hold(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    """Characters a value may hold that XML may not (a form feed) or that mean something
    to XML: the feed and the sitemap stay well-formed."""
    record = MINIMAL.replace("must be positive", "must\\f be ]]> & \\U0001F600 positive")
    record += textwrap.dedent(
        """\
        title: "a\\fb <![CDATA[ x ]]>"
        meaning: x
        analysis:
          by: "x\\f\\t&amp;"
          date: 2026-01-01
        """
    )
    result = _build(run, tmp_path, {"control.yaml": record})
    assert result.code == 0, result.err
    for name in ("feed.xml", "sitemap.xml"):
        ElementTree.parse(tmp_path / "out" / name)
    feed = ElementTree.parse(tmp_path / "out" / "feed.xml")
    titles = [t.text or "" for t in feed.iter("{http://www.w3.org/2005/Atom}title")]
    assert any("<![CDATA[ x ]]>" in title for title in titles), titles


def test_a_control_character_written_as_an_escape_is_refused_at_its_line(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    record = MINIMAL.replace("must be positive", "must\\x01 be \\uFFFE positive")
    record += 'title: "a\\x02b"\n'
    result = _build(run, tmp_path, {"control.yaml": record})
    assert_refused(result, tmp_path / "content" / "errors" / "control.yaml", "E204", line=3)
    assert_refused(result, tmp_path / "content" / "errors" / "control.yaml", "E204", line=14)


def test_a_path_with_url_syntax_gets_a_canonical_url_of_its_own(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    record = MINIMAL.replace("src/project/config.py", '"src/50%41 off #1?.py"')
    # Two errors of the file, so that it has a page listing them.
    second = record.replace("must be positive", "must be even")
    result = _build(run, tmp_path, {"url.yaml": record, "url-again.yaml": second})
    assert result.code == 0, result.err
    out = tmp_path / "out"
    assert [p for p in html_pages(out) if "%41" in p.as_posix()]
    assert address_violations(out, "https://errors.example.test/docs/") == []
