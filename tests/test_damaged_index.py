"""A damaged or hostile search index: ``lookup`` answers, or says which file of the index
is wrong and what is wrong in it, with exit status 1; never a traceback, and never a
file read from outside the site.

A small site is built once; each test damages one file of it, in a folder and served
over HTTP, and puts the file back.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import MINIMAL, http_server, make_content

from errdex import lookup
from errdex.cli import main

NAMES = ("size", "width", "count")
EXACT = "ValueError: width=-1 must be positive"


@dataclass(frozen=True)
class Site:
    root: Path
    out: Path
    url: str
    """The same folder served over HTTP: ``{url}public/``."""
    read: tuple[str, ...]
    """The index's files the lookups of these tests read."""
    page: str
    """The page of the record EXACT finds (``api/errors/<id>.json``)."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    root = tmp_path_factory.mktemp("damaged")
    records = {
        f"a/b/{name}.yaml": MINIMAL.replace("size", name).replace("config.py", f"{name}.py")
        for name in NAMES
    }
    content = make_content(root, records)
    out = root / "public"
    argv = ["build", "--content", str(content), "--out", str(out), "--cache", str(root / "c")]
    assert main(argv) == 0
    pages = [f"api/errors/{p.name}" for p in sorted((out / "api" / "errors").glob("*.json"))]
    read = ["search/meta.json", "search/words/0.json", "search/records/0.json", *pages]
    assert all((out / rel).is_file() for rel in read)
    rows = json.loads((out / "search" / "records" / "0.json").read_bytes())
    width = next(row[1] for row in rows if row[4].startswith("width="))
    with http_server(root) as url:
        yield Site(root, out, url, tuple(read), f"api/errors/{width}.json")


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str


def errdex(*argv: str, stdin: str = "") -> Outcome:
    """The CLI in this process, its output written as to a terminal: UTF-8, strictly."""
    out, err = (io.TextIOWrapper(io.BytesIO(), encoding="utf-8") for _ in range(2))
    before = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
    finally:
        sys.stdin = before
    texts = []
    for stream in (out, err):
        stream.flush()
        texts.append(stream.buffer.getvalue().decode())
    return Outcome(code, *texts)


@contextlib.contextmanager
def damaged(site: Site, rel: str, data: bytes | None) -> Iterator[None]:
    """``rel`` of the site holds ``data`` (None: it is gone) until the block ends."""
    path = site.out / rel
    kept = path.read_bytes()
    try:
        if data is None:
            path.unlink()
        else:
            path.write_bytes(data)
        yield
    finally:
        path.write_bytes(kept)


# --- Ids: no file outside the site ----------------------------------------------------


ROWS = "search/records/0.json"
OUT_OF_SITE = "../../../elsewhere/secret"
"""From ``public/api/errors/``: ``elsewhere/secret.json`` beside the site folder (and, over
HTTP, the same file of a host that serves both)."""


@pytest.fixture
def led_out(site: Site) -> Iterator[int]:
    """The width record's id is ``OUT_OF_SITE``, where a file is planted; yields its row's
    number."""
    secret = site.root / "elsewhere" / "secret.json"
    secret.parent.mkdir()
    planted = {
        "title": "The planted secret",
        "url": "https://planted.example/secret/",
        "json_url": "https://planted.example/secret.json",
    }
    secret.write_text(json.dumps(planted))
    rows = json.loads((site.out / ROWS).read_bytes())
    width = next(row for row in rows if f"api/errors/{row[1]}.json" == site.page)
    rows = [[r[0], OUT_OF_SITE, *r[2:]] if r is width else r for r in rows]
    try:
        with damaged(site, ROWS, json.dumps(rows).encode()):
            yield width[0]
    finally:
        shutil.rmtree(secret.parent)


def test_an_id_that_leads_out_of_the_site_is_refused_never_followed(
    site: Site, led_out: int
) -> None:
    for where in (str(site.out), f"{site.url}public/"):
        for flags in ([], ["--json"]):
            outcome = errdex("lookup", EXACT, "--site", where, "--no-cache", *flags)
            assert "planted" not in outcome.out + outcome.err, outcome
            assert outcome.code == 1, outcome
            assert outcome.err == (
                f"errdex: {where}: {ROWS} has no readable record {led_out}: its id "
                f"'{OUT_OF_SITE}' is not a record id (16 lowercase hex digits): not a search "
                "index this errdex can read\n"
            ), outcome


def test_triage_names_no_page_of_an_id_that_leads_out_of_the_site(
    site: Site, led_out: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    event = tmp_path / "event.json"
    body = f"It fails:\n\n```\n{EXACT}\n```\n"
    issue = {"number": 3, "title": "Fails", "body": body, "user": {"login": "someone"}}
    event.write_text(
        json.dumps(
            {"action": "opened", "issue": issue, "repository": {"full_name": "example/project"}}
        )
    )
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs.txt"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    for name in ("GITHUB_TOKEN", "GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH"):
        monkeypatch.delenv(name, raising=False)
    for where in (str(site.out), f"{site.url}public/"):
        outcome = errdex("triage", "--event", str(event), "--site", where, "--min-own-text", "5")
        written = summary.read_text() + outputs.read_text()
        assert "planted" not in outcome.out + outcome.err + written, outcome
        assert outcome.code == 0, outcome
        assert "its id '../../../elsewhere/secret' is not a record id" in outcome.out, outcome
        assert "matched=false" in outputs.read_text()


def test_a_site_is_read_only_for_the_files_of_its_index(site: Site) -> None:
    """The last guard, whatever names the file: no path leads out of the site."""
    stores = (lookup.FolderStore(site.out), lookup.WebStore(f"{site.url}public/", None))
    for store in stores:
        for rel in ("../elsewhere/x.json", "api/errors/../../x.json", "/etc/hostname", "a.json"):
            with pytest.raises(lookup.Unavailable, match="is not a file of a search index"):
                store.read(rel)
        assert json.loads(store.read("search/meta.json"))["count"] == len(NAMES)
