"""The built bundled site as a whole: links, the JSON mirror, determinism, safety."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import jsonschema
import pytest
import yaml
from conftest import CONTENT, MINIMAL, ROOT, html_pages, make_content, snapshot, soup

from errdex import cli

GOLDEN_OUTPUT = Path(__file__).parent / "golden" / "expected"


@pytest.mark.parametrize("which", ["bundled", "golden"])
def test_every_internal_link_and_asset_resolves(which: str, built_site: Path) -> None:
    """Every href and src on every page reaches a file of the site (or an id on the page)."""
    site = built_site if which == "bundled" else GOLDEN_OUTPUT
    checked = 0
    for page in html_pages(site):
        if page.name == "404.html":
            continue  # its links start at the site's path on the host; checked below
        doc = soup(page)
        ids = {tag["id"] for tag in doc.select("[id]")}
        for tag in doc.select("[href], [src]"):
            url = tag.get("href") or tag.get("src")
            parts = urlsplit(url)
            if parts.scheme or url.startswith("//"):
                continue
            if not parts.path:
                assert parts.fragment in ids, f"{page}: no #{parts.fragment}"
                continue
            target = (page.parent / unquote(parts.path)).resolve()
            if url.endswith("/"):
                target = target / "index.html"
            assert target.is_file(), f"{page.relative_to(site)}: {url} does not resolve"
            assert target.is_relative_to(site.resolve())
            checked += 1
    assert checked > 50


def test_the_bundled_content_builds_without_a_warning(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    """A newcomer's first build of the bundled site says it built, and nothing else."""
    result = run("build", "--content", CONTENT, "--out", tmp_path / "public", "--strict")
    assert result.code == 0, result.err
    lines = result.err.splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith("errdex: built ") and ", 0 warning(s); the site is " in lines[0]


def test_404_page_links_from_the_site_root(built_site: Path) -> None:
    """Served at any address, the 404 page reaches its styles, scripts and the home page
    only through links from the site's path (/errdex/), never relative ones."""
    doc = soup(built_site / "404.html")
    checked = []
    for tag in doc.select("[href], [src]"):
        url = tag.get("href") or tag.get("src")
        parts = urlsplit(url)
        if parts.scheme or not parts.path:
            continue  # the canonical URL, and #main on the page itself
        assert url.startswith("/errdex/"), url
        target = built_site / unquote(parts.path).removeprefix("/errdex/")
        if url.endswith("/"):
            target = target / "index.html"
        assert target.is_file(), url
        checked.append(tag.name)
    assert {"link", "script", "a"} <= set(checked) and len(checked) >= 5, checked


def records_in_content() -> dict[str, dict]:
    return {p.name: yaml.safe_load(p.read_text()) for p in (CONTENT / "errors").rglob("*.yaml")}


def test_json_mirror_validates_and_holds_every_field(built_site: Path) -> None:
    schema = json.loads((built_site / "api" / "schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    index = json.loads((built_site / "api" / "errors.json").read_text())
    assert index["count"] == len(records_in_content()) == 7
    by_message = {}
    for entry in index["errors"]:
        path = built_site / "api" / "errors" / f"{entry['id']}.json"
        document = json.loads(path.read_text())
        validator.validate(document)
        assert (path.parent / entry["id"]).read_bytes() == path.read_bytes()
        assert document["url"] == f"https://errdex.github.io/errdex/errors/{entry['id']}/"
        assert entry["url"] == document["url"]
        by_message[document["message"]] = document
    for record in records_in_content().values():
        document = by_message[record["message"]]
        for key, value in record.items():
            expected = value
            if key == "analysis":
                expected = {**value, "date": value["date"].isoformat()}
            assert document[key] == expected, key


def test_seed_json_document_has_what_the_site_derived(built_site: Path) -> None:
    document = json.loads((built_site / "api/errors/23b4373e94335665.json").read_text())
    assert document["placeholders"] == ["tensor_parallel_size", "total_num_kv_heads"]
    assert document["permalink"] == (
        "https://github.com/vllm-project/vllm/blob/c794754062/vllm/config/model.py#L1390"
    )
    assert (
        document["json_url"] == "https://errdex.github.io/errdex/api/errors/23b4373e94335665.json"
    )
    assert document["title"].endswith("…") and len(document["title"]) <= 72
    assert len(document["related_ids"]) == 1


def test_a_document_that_breaks_the_schema_is_rejected(built_site: Path) -> None:
    schema = json.loads((built_site / "api" / "schema.json").read_text())
    document = json.loads((built_site / "api/errors/9c019ab65f8b8d16.json").read_text())
    document["source"]["line"] = "542"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, schema)


def test_two_builds_give_the_same_bytes_and_the_second_writes_nothing(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    run_elsewhere,  # type: ignore[no-untyped-def]
) -> None:
    """The second build runs in another process, under another hash seed."""
    first, second = tmp_path / "a", tmp_path / "b"
    assert run("build", "--content", CONTENT, "--out", first).code == 0
    elsewhere = run_elsewhere("build", "--content", CONTENT, "--out", second)
    assert elsewhere.code == 0, elsewhere.err
    files = {k: v[0] for k, v in snapshot(first).items()}
    assert files == {k: v[0] for k, v in snapshot(second).items()}
    before = snapshot(first)
    again = run("build", "--content", CONTENT, "--out", first)
    site_files = len(before) - 1  # all but .errdex-site, errdex's list of them
    assert f"0 files written, {site_files} unchanged, 0 removed" in again.err
    assert snapshot(first) == before  # same bytes and same modification times


def test_an_errors_json_at_its_two_addresses_is_one_file_written_once(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cold build makes a file per error fewer: the extension-less address of its JSON
    is a hard link to the .json. Where links cannot be made, both are written."""
    import os

    out = tmp_path / "linked"
    assert run("build", "--content", CONTENT, "--out", out).code == 0
    documents = sorted((out / "api" / "errors").glob("*.json"))
    assert documents
    for document in documents:
        bare = document.with_suffix("")
        assert bare.read_bytes() == document.read_bytes()
        assert os.path.samefile(bare, document)

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", refuse)
    copied = tmp_path / "copied"
    assert run("build", "--content", CONTENT, "--out", copied, "--no-cache").code == 0
    assert snapshot(copied).keys() == snapshot(out).keys()
    for document in sorted((copied / "api" / "errors").glob("*.json")):
        bare = document.with_suffix("")
        assert bare.read_bytes() == document.read_bytes()
        assert not os.path.samefile(bare, document)


def test_editing_one_record_rewrites_only_what_shows_it(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    other = MINIMAL.replace("must be positive", "must be even")
    content = make_content(tmp_path, {"a.yaml": MINIMAL, "b.yaml": other})
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out).code == 0
    before = snapshot(out)
    (content / "errors" / "b.yaml").write_text(other + "meaning: Sizes must be even here.\n")
    assert run("build", "--content", content, "--out", out).code == 0
    after = snapshot(out)
    changed = {name for name in after if after[name] != before.get(name)}
    record_id = next(n for n in changed if n.endswith(".json")).split("/")[-1].removesuffix(".json")
    other = next(n.split("/")[1] for n in after if n.startswith("errors/") and record_id not in n)
    assert changed == {
        f"errors/{record_id}/index.html",
        f"api/errors/{record_id}.json",
        f"api/errors/{record_id}",
        # The pages that list it, since they say whether it has an analysis:
        "index.html",
        "repos/example/project/index.html",
        "exceptions/ValueError/index.html",
        "repos/example/project/files/src/project/config.py/index.html",
        f"errors/{other}/index.html",  # lists it as raised in the same file
    }


def test_check_says_what_a_build_would_change_and_writes_nothing(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    content = make_content(tmp_path, {"a.yaml": MINIMAL})
    out = tmp_path / "public"
    first = run("check", "--content", content, "--out", out)
    assert first.code == 0
    assert not out.exists()
    # A new site: the first 20 files named, then how many more (a scanned site of
    # 10,000 records would name 31,000).
    named = re.findall(r"^would write (\S+)$", first.out, re.M)
    assert named[:2] == [str(out / "404.html"), str(out / "_headers")] and len(named) == 20
    more = re.findall(r"^… and (\d+) more to write \(--json lists each\)$", first.out, re.M)
    total = re.findall(r"a build would write (\d+) and remove 0 file", first.err)
    assert len(more) == 1 and int(more[0]) + 20 == int(total[0]) > 40
    assert "errdex: 1 record is valid; a build would write" in first.err
    # One more than it names is named, not counted.
    monkeypatch.setattr(cli, "CHECK_SHOWN", int(total[0]) - 1)
    every = run("check", "--content", content, "--out", out).out
    assert len(re.findall(r"^would write (\S+)$", every, re.M)) == int(total[0])
    assert "more to write" not in every
    monkeypatch.undo()
    assert run("build", "--content", content, "--out", out).code == 0
    (content / "errors" / "a.yaml").write_text(MINIMAL + "meaning: Changed.\n")
    result = run("check", "--content", content, "--out", out)
    assert result.code == 0
    # Its page, its JSON at two addresses, the home page and the repository's list (a
    # file or exception of one error has no list of its own).
    assert result.out.count("would write") == 5
    assert "a build would write 5 and remove 0 file(s)" in result.err


HOSTILE = (
    MINIMAL.replace(
        'message: "size={size} must be positive"',
        """message: "</script><script>alert(1)</script> {{ 7*7 }} \\" onmouseover=\\"alert(1)\"""",
    )
    + """\
title: "<img src=x onerror=alert(1)>"
meaning: |
  <script>alert("meaning")</script> and <b onclick="x()">bold</b>
  {% raw %}{{ config }}{% endraw %} and [a link](https://example.org)
solutions:
  - "<iframe src='https://evil.example'></iframe>"
example_fix:
  - lang: "python\\"><script>alert(1)</script>"
    code: "</code></pre><script>alert(2)</script>"
related:
  - "<a href='javascript:alert(1)'>x</a>"
"""
)


def test_hostile_markdown_and_fields_render_inert(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, {"evil.yaml": HOSTILE})
    out = tmp_path / "public"
    result = run("build", "--content", content, "--out", out)
    assert result.code == 0, result.err
    assert "raw HTML is shown as text" in result.err
    page = next((out / "errors").glob("*/index.html"))
    doc = soup(page)
    scripts = [s for s in doc.find_all("script") if s.get("type") != "application/ld+json"]
    ours = {"../../" + p.relative_to(out).as_posix() for p in out.glob("static/errdex-page.*.js")}
    assert {s.get("src") for s in scripts} == ours  # our one file, nothing inline
    assert all(not s.get_text().strip() for s in scripts)
    (data,) = doc.find_all("script", type="application/ld+json")  # data, never run
    structured = json.loads(data.get_text())
    assert structured["@type"] == "TechArticle"
    # Only properties schema.org gives a TechArticle (a validator names any other).
    article = {"headline", "url", "about", "isPartOf", "isBasedOn", "dateModified", "author"}
    assert set(structured) - {"@context", "@type"} <= article, structured
    assert structured["isBasedOn"] == "https://github.com/example/project"
    assert "</script>" not in data.get_text() and "<script>" not in data.get_text()
    assert not doc.find_all(["iframe", "img", "b"])
    for tag in doc.find_all(True):
        assert not [a for a in tag.attrs if a.lower().startswith("on")], tag
        for attr in ("href", "src"):
            assert not str(tag.get(attr, "")).lower().startswith(("javascript:", "data:"))
    text = doc.get_text()
    assert '<script>alert("meaning")</script>' in text
    assert "{{ config }}" in text  # template syntax in content is text, never evaluated
    assert "{{ 7*7 }}" in doc.find("h1").get_text() or "{ 7*7 }" in doc.find("h1").get_text()
    assert doc.find("a", string="a link")["href"] == "https://example.org"


@pytest.mark.parametrize("how", [(), ("--no-cache",)], ids=["update", "full build"])
def test_a_write_that_fails_midway_leaves_the_old_site_intact(
    how: tuple[str, ...],
    tmp_path: Path,
    run,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    content = make_content(tmp_path, {"a.yaml": MINIMAL})
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out).code == 0
    before = snapshot(out)
    (content / "errors" / "a.yaml").write_text(MINIMAL + "meaning: Changed.\n")
    from errdex.site import write

    real_write, real_new = Path.write_bytes, write._write_new
    written: list[object] = []

    def failing(real):  # type: ignore[no-untyped-def]
        def call(path, data: bytes):  # type: ignore[no-untyped-def]
            if len(written) == 2:
                raise OSError(28, "No space left on device")
            written.append(path)
            return real(path, data)

        return call

    # An update writes beside the old files (Path.write_bytes), a full build into a
    # folder of its own (write._write_new): the third file fails either way.
    monkeypatch.setattr(Path, "write_bytes", failing(real_write))
    monkeypatch.setattr(write, "_write_new", failing(real_new))
    with pytest.raises(OSError, match="No space left"):
        run("build", "--content", content, "--out", out, *how)
    assert len(written) == 2
    assert snapshot(out) == before
    # Nothing half-written beside it either (the lock file is how builds take turns).
    assert sorted(p.name for p in tmp_path.iterdir()) == [".public.lock", "content", "public"]


def test_a_page_without_a_meaning_is_described_by_its_message_word_for_word(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """A scanned record has no meaning: its description (the search result's snippet) is
    the message as raised, whose underscores and asterisks are not Markdown."""
    message = "__init__ got *args and **kwargs; use `load_[x]` or   a_b_"
    record = MINIMAL.replace('"size={size} must be positive"', repr(message))
    content = make_content(tmp_path, {"plain.yaml": record})
    out = tmp_path / "public"
    result = run("build", "--content", content, "--out", out)
    assert result.code == 0, result.err
    doc = soup(next((out / "errors").glob("*/index.html")))
    described = doc.find("meta", attrs={"name": "description"})["content"]
    expected = (
        "ValueError: __init__ got *args and **kwargs; use `load_[x]` or a_b_ "
        "(raised at src/project/config.py:3 in example/project)"
    )
    assert described == expected
    assert doc.find("meta", property="og:description")["content"] == expected


def test_build_py_without_arguments_builds_content_into_public(tmp_path: Path) -> None:
    shutil.copytree(CONTENT, tmp_path / "content")
    result = subprocess.run(
        [sys.executable, str(ROOT / "build.py")], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "built 7 error pages into public/" in result.stderr
    assert (tmp_path / "public" / "errors" / "9c019ab65f8b8d16" / "index.html").is_file()


def test_the_errdex_console_script_runs_the_same_commands(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("errdex")
    result = subprocess.run(
        [str(script), "check", "--content", str(CONTENT), "--out", str(tmp_path / "none")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "7 records are valid" in result.stderr


def test_unknown_fields_stay_out_of_the_json_mirror(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, {"a.yaml": MINIMAL + "extra: .nan\nnotes: [1, 2]\n"})
    out = tmp_path / "public"
    result = run("build", "--content", content, "--out", out)
    assert result.code == 0
    assert "unknown field 'extra'" in result.err
    schema = json.loads((out / "api" / "schema.json").read_text())
    (document,) = [json.loads(p.read_text()) for p in (out / "api" / "errors").glob("*.json")]
    jsonschema.validate(document, schema)
    assert "extra" not in document and "notes" not in document


@pytest.mark.parametrize(
    "cache_text",
    [
        b"not a database at all",
        b"SQLite format 3\x00" + b"\x00" * 200,  # a header and nothing behind it
        "foreign version",
        "foreign tables",
    ],
)
def test_a_corrupt_or_foreign_cache_is_never_trusted(
    cache_text: bytes | str,
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    content = make_content(tmp_path, {"a.yaml": MINIMAL})
    clean, cached = tmp_path / "clean", tmp_path / "cached"
    assert run("build", "--content", content, "--out", clean, "--no-cache").code == 0
    cache = tmp_path / "cache"
    cache.mkdir()
    db_file = cache / "highlight.sqlite"
    if isinstance(cache_text, bytes):
        db_file.write_bytes(cache_text)
    elif cache_text == "foreign version":
        # A cache of another errdex or Pygments, with an entry under every key this
        # page needs: trusted, it would show its stale HTML as the code.
        warm = run("build", "--content", content, "--out", tmp_path / "warm", "--cache", cache)
        assert warm.code == 0
        with sqlite3.connect(db_file) as db:
            db.execute("UPDATE meta SET version = 'errdex-highlight-0 pygments-0'")
            assert db.execute("UPDATE entries SET html = '<b>stale</b>'").rowcount > 0
        db.close()
    else:
        with sqlite3.connect(db_file) as db:
            db.execute("CREATE TABLE meta (v INTEGER)")
            db.execute("CREATE TABLE entries (a, b, c)")
        db.close()
    result = run("build", "--content", content, "--out", cached, "--cache", cache)
    assert result.code == 0
    if cache_text in (b"not a database at all", "foreign tables"):
        assert "highlight cache is unreadable; ignored and rebuilt" in result.err
    assert {k: v[0] for k, v in snapshot(clean).items()} == {
        k: v[0] for k, v in snapshot(cached).items()
    }
    again = run("build", "--content", content, "--out", cached, "--cache", cache)
    assert "0 files written" in again.err  # the rebuilt cache gives the same bytes


def test_a_highlight_cache_that_cannot_be_written_at_the_end_is_a_warning(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The highlight cache is written last, once the site is: a cache SQLite cannot
    write then (a full disk, a file turned read-only) is said as W501, and the build
    succeeds with every page as a build without a cache makes it."""
    from errdex.site import highlight

    content = make_content(tmp_path, {"r.yaml": MINIMAL})
    cache, out = tmp_path / "cache", tmp_path / "public"
    assert run("build", "--content", content, "--out", out, "--cache", cache).code == 0
    path = content / "errors" / "r.yaml"
    path.write_text(path.read_text().replace("if size <= 0:", "if size < 1:"))
    connect = sqlite3.connect
    monkeypatch.setattr(
        highlight.sqlite3,
        "connect",
        lambda where, **kw: connect(f"file:{where}?mode=ro", uri=True, **kw),
    )
    result = run("build", "--content", content, "--out", out, "--cache", cache)
    assert result.code == 0, result.err
    said = "highlight.sqlite: warning: the highlight cache cannot be written (attempt to write a"
    assert said in result.err
    assert "[W501]" in result.err and "Traceback" not in result.err
    fresh = tmp_path / "fresh"
    assert run("build", "--content", content, "--out", fresh, "--no-cache").code == 0
    assert {k: v[0] for k, v in snapshot(fresh).items()} == {
        k: v[0] for k, v in snapshot(out).items()
    }


def test_a_highlight_cache_damaged_after_a_full_build_is_a_warning_in_an_update(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """An update looks the excerpts it renders up in the highlight cache, one by one: a
    file that opens but cannot answer (replaced by another program's, damaged since the
    full build) is W501, and the page is highlighted anew, as without a cache; under
    serve, every edit after it built none."""
    from errdex.site.highlight import _CACHE_VERSION

    content = make_content(tmp_path, {"r.yaml": MINIMAL, "s.yaml": MINIMAL.replace("size", "n")})
    cache, out = tmp_path / "cache", tmp_path / "public"
    assert run("build", "--content", content, "--out", out, "--cache", cache).code == 0
    (cache / "highlight.sqlite").unlink()
    with contextlib.closing(sqlite3.connect(cache / "highlight.sqlite")) as db, db:
        db.execute("CREATE TABLE meta (version TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES (?)", (_CACHE_VERSION,))
        db.execute("CREATE TABLE entries (key TEXT PRIMARY KEY, other TEXT)")
    path = content / "errors" / "r.yaml"
    path.write_text(path.read_text().replace("if size <= 0:", "if size < 1:"))
    result = run("build", "--content", content, "--out", out, "--cache", cache, "-v")
    assert result.code == 0, result.err
    assert "errdex: update: 1 record changed" in result.err
    said = "highlight.sqlite: warning: the highlight cache cannot be read (no such column: html)"
    assert said in result.err and "[W501]" in result.err, result.err
    fresh = tmp_path / "fresh"
    assert run("build", "--content", content, "--out", fresh, "--no-cache").code == 0
    assert {k: v[0] for k, v in snapshot(fresh).items()} == {
        k: v[0] for k, v in snapshot(out).items()
    }


def test_a_cache_file_another_user_left_is_refused_before_any_work(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cache folder this user may write, holding a file it may not (a state or the
    highlight cache made by another user, or by root): the build says which, and
    writes nothing, rather than a traceback once the output has changed."""
    from errdex.site import write

    content = make_content(tmp_path, {"r.yaml": MINIMAL})
    cache, out = tmp_path / "cache", tmp_path / "public"
    assert run("build", "--content", content, "--out", out, "--cache", cache).code == 0
    (cache / "scan-older.bin").write_bytes(b"")  # replaced whole when written, never in place
    denied = ["scan-older.bin"]
    access = os.access
    monkeypatch.setattr(
        write.os,
        "access",
        lambda where, mode: (
            access(where, mode) and not (str(where).endswith(tuple(denied)) and mode & os.W_OK)
        ),
    )
    assert run("build", "--content", content, "--out", out, "--cache", cache).code == 0
    denied.append("highlight.sqlite")
    before = snapshot(out)
    path = content / "errors" / "r.yaml"
    path.write_text(path.read_text().replace("if size <= 0:", "if size < 1:"))
    result = run("build", "--content", content, "--out", out, "--cache", cache)
    assert result.code == 1
    assert (
        f"--cache {cache}: its file highlight.sqlite cannot be written (Permission denied); "
        "delete it"
    ) in result.err
    assert snapshot(out) == before


def test_the_command_exits_with_its_status_once_all_it_says_is_out(tmp_path: Path) -> None:
    """``build.py`` (and the ``errdex`` command) leave without Python's teardown: each
    exits with the build's status, after every line it prints is out, piped or not."""
    out = tmp_path / "public"

    def errdex(*argv: str | Path) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, str(ROOT / "build.py"), *map(str, argv)]
        return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120)

    built = errdex("build", "--content", CONTENT, "--out", out, "--no-cache")
    assert built.returncode == 0, built.stderr
    assert built.stderr.rstrip().splitlines()[-1].startswith("errdex: built 7 error pages into")
    found = errdex("lookup", "must be divisible by dcp", "--site", out, "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["matches"], found.stdout  # the whole document came out
    # Its output closed as it starts (``>&-``): the build is done all the same.
    argv = ["build", "--content", str(CONTENT), "--out", str(tmp_path / "closed"), "--no-cache"]
    closed = subprocess.run(
        [sys.executable, str(ROOT / "build.py"), *argv],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.close(1),
        timeout=120,
    )
    assert closed.returncode == 0, closed.stderr
    assert (tmp_path / "closed" / "index.html").is_file()
    # Read by a command that stops before it ends (``| head -c 1``): no traceback.
    piped = subprocess.Popen(
        [sys.executable, str(ROOT / "build.py"), "lookup", "must be divisible", "--site", out],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert piped.stdout is not None and piped.stderr is not None
    piped.stdout.close()  # gone before it writes
    assert piped.wait(timeout=120) == 1
    assert b"Traceback" not in piped.stderr.read()
    broken = make_content(tmp_path / "broken", {"bad.yaml": "repo: [unclosed\n"})
    failed = errdex("build", "--content", broken, "--out", tmp_path / "other", "--no-cache")
    assert failed.returncode == 1
    assert failed.stderr.startswith("broken/content/errors/bad.yaml:2: YAML syntax error")
    assert failed.stderr.rstrip().endswith("nothing was written")


def test_the_command_under_a_profiler_leaves_it_its_findings(tmp_path: Path) -> None:
    """``python -m cProfile -o FILE build.py …`` (as ``./dev bench build`` profiles a
    cold build) writes its profile: the quick exit waits for a profiler to finish."""
    stats = tmp_path / "build.prof"
    command = [sys.executable, "-m", "cProfile", "-o", str(stats), str(ROOT / "build.py")]
    command += ["build", "--content", str(CONTENT), "--out", str(tmp_path / "public"), "--no-cache"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert stats.stat().st_size > 1000


def test_rows_mark_the_errors_whose_page_explains_them() -> None:
    """A row says "explained" when its error's page has an analysis, and nothing when it
    has none: on a scanned site most have none, and a mark on each would be noise."""
    marks: dict[str, set[str]] = {}
    for page in html_pages(GOLDEN_OUTPUT / "errors"):
        for item in soup(page).select(".rows > li"):
            link = item.select_one("a")
            if link is None or "../" not in link["href"]:
                continue
            meta = item.select_one(".row-meta")
            said = " ".join(meta.get_text(" ").split()) if meta else ""
            marks.setdefault(link["href"].rstrip("/").rsplit("/", 1)[-1], set()).add(said)
    assert marks["ffffffffffffffff"] == {"example/loader · explained"}  # has an analysis
    assert marks["fb88be0a61d45572"] <= {"example/trainer", ""}  # has none
