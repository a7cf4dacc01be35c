"""A damaged or hostile search index: ``lookup`` answers, or says which file of the index
is wrong and what is wrong in it, with exit status 3 (the index cannot be read); never
a traceback, and never a file read from outside the site.

A small site is built once; each test damages one file of it, in a folder and served
over HTTP, and puts the file back.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import MINIMAL, build_site, http_server, make_content
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errdex.cli import main
from errdex.search import sources

NAMES = ("size", "width", "count")
EXACT = "ValueError: width=-1 must be positive"
PIECE = "count must be posi"  # a piece of a message, cut mid-word


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
    out = build_site(make_content(root, records), root)
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


def lookups(site: Site) -> list[Outcome]:
    """What a person and a bot would run, on the folder and on the published site."""
    folder = str(site.out)
    url = f"{site.url}public/"
    batch = "".join(json.dumps({"id": n, "text": p}) + "\n" for n, p in enumerate([EXACT, PIECE]))
    return [
        errdex("lookup", EXACT, "--site", folder),
        errdex("lookup", PIECE, "--site", folder, "--json"),
        errdex("lookup", "--batch", "--site", url, "--no-cache", stdin=batch),
        errdex("lookup", EXACT, "--site", url, "--no-cache", "--json"),
    ]


_FILE = r"(search/meta\.json|search/(words|records)/\d+\.json|api/errors/[0-9a-f]{16}\.json)"


def said_cleanly(site: Site, outcome: Outcome) -> bool:
    """An answer (exit status 0 or 1), or exit status 3 and one line that names the
    damaged file (or the one missing)."""
    lines = [line for line in outcome.err.splitlines() if not line.startswith("errdex: note:")]
    if outcome.code in (0, 1):
        return not lines
    if outcome.code != 3 or len(lines) != 1:
        return False
    where = f"({re.escape(str(site.out))}|{re.escape(site.url)}public/)"
    return any(
        re.fullmatch(pattern, lines[0])
        for pattern in (
            rf"errdex: {where}: {_FILE} .+: not a search index this errdex can read",
            rf"errdex: {where}: its search index is of another errdex release .+",
            rf"errdex: {where}/{_FILE} is missing: .+",
            rf"errdex: {where}{_FILE} answered 404 .+",
        )
    )


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


def edited(site: Site, rel: str, edit: Callable[[Any], Any]) -> bytes:
    return json.dumps(edit(json.loads((site.out / rel).read_bytes()))).encode()


# --- The damage found by hand --------------------------------------------------------


def _set(key: str, value: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda document: {**document, key: value(document[key])}


@pytest.mark.parametrize(
    ("rel", "edit", "said"),
    [
        (
            "search/meta.json",
            _set("sizes", lambda sizes: [0] * len(sizes)),
            'search/meta.json has "sizes" 0 for record ',
        ),
        (
            "search/meta.json",
            _set("exceptions", lambda names: [None] * len(names)),
            'search/meta.json has "exceptions" that are not all text',
        ),
        (
            "search/meta.json",
            _set("exception_pages", lambda pages: {"ValueError": "../../etc/passwd"}),
            'search/meta.json has "exception_pages" that are not its exceptions\' pages',
        ),
        (
            "search/meta.json",
            _set("exception_pages", lambda pages: {"NoSuchError": "errors/0123456789abcdef/"}),
            'search/meta.json has "exception_pages" that are not its exceptions\' pages',
        ),
        (
            "search/meta.json",
            _set("exception_modules", lambda modules: {"ValueError": "vllm"}),
            'search/meta.json has "exception_modules" that are not its exceptions\' modules',
        ),
        (
            "search/meta.json",
            _set("count", lambda count: -count),
            'search/meta.json has no "count" of 0 or more',
        ),
        (
            "search/meta.json",
            _set("shards", lambda shards: 10**40),
            'search/meta.json has no "shards" from 1 to 1024',
        ),
        (
            "search/meta.json",
            _set("common", lambda common: {"must": -1}),
            'search/meta.json has no "common" words',
        ),
        (
            "search/words/0.json",
            lambda shard: {word: [-1, True, "0"] for word in shard},
            "search/words/0.json has a posting of '",
        ),
        (
            "search/records/0.json",
            lambda rows: [[*row[:4], None, *row[5:]] for row in rows],
            "its message is not text",
        ),
        (
            "search/records/0.json",
            lambda rows: [[*row[:5], 7, *row[6:]] for row in rows],
            "its place 7 is not [file name, records that say it, line]",
        ),
        (
            "search/records/0.json",
            lambda rows: [[*row[:5], ["a.py", 1], *row[6:]] for row in rows],
            "its place a list is not [file name, records that say it, line]",
        ),
        (
            "search/records/0.json",
            lambda rows: [[*row, "v1", "v2", "\ud800"] for row in rows],
            "its earlier wording is not text",
        ),
        (
            "search/records/0.json",
            lambda rows: [[*row[:2], 2**64, *row[3:]] for row in rows],
            "its exception 18446744073709551616 is none of search/meta.json's",
        ),
    ],
)
def test_a_damaged_field_is_named_with_its_file(
    site: Site, rel: str, edit: Callable[[Any], Any], said: str
) -> None:
    with damaged(site, rel, edited(site, rel, edit)):
        outcomes = lookups(site)
    for outcome in outcomes:
        assert outcome.code == 3 and said in outcome.err, outcome
        assert f": {rel} " in outcome.err, outcome
        assert outcome.err.endswith(": not a search index this errdex can read\n"), outcome


@pytest.mark.parametrize("rel", ["search/meta.json", "search/records/0.json", "page"])
def test_json_nested_too_deeply_is_damage(site: Site, rel: str) -> None:
    rel = site.page if rel == "page" else rel
    deep = b"[" * 100_000 + b"]" * 100_000
    with damaged(site, rel, deep):
        outcomes = lookups(site)
    for outcome in outcomes:
        assert outcome.code == 3, outcome
        assert f"{rel} is nested too deeply: not a search index" in outcome.err, outcome


def test_a_page_whose_title_is_not_text_is_damage(site: Site) -> None:
    rel = site.page
    for title in (None, ["a"], {"x": 1}, "\udc80"):
        with damaged(site, rel, edited(site, rel, _set("title", lambda _, t=title: t))):
            outcome = errdex("lookup", EXACT, "--site", str(site.out), "--json")
        assert outcome.code == 3 and f'{rel} has no "title" text' in outcome.err, outcome


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
            assert outcome.code == 3, outcome
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
    stores = (sources.FolderStore(site.out), sources.WebStore(f"{site.url}public/", None))
    for store in stores:
        for rel in ("../elsewhere/x.json", "api/errors/../../x.json", "/etc/hostname", "a.json"):
            with pytest.raises(sources.Unavailable, match="is not a file of a search index"):
                store.read(rel)
        assert json.loads(store.read("search/meta.json"))["count"] == len(NAMES)


# --- Any damage, in any file the lookups read -----------------------------------------

_ODD = st.sampled_from(
    [
        "../../../elsewhere/secret",
        "0123456789ABCDEF",
        "0123456789abcdef\n",
        "\ud800",
        "",
        "{",
        "size={",
        2**63,
        -1,
        0,
        1,
        10**300,
        1.5,
        float("nan"),
    ]
)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6) | _ODD,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
_DEEP = "\x00deep\x00"
"""A value replaced by nesting too deep to write with json.dumps: put in afterwards."""


def _paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every value in a JSON document, the document's own first."""
    found = [at]
    items: list[tuple[Any, Any]] = []
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    for key, inner in items:
        found += _paths(inner, (*at, key))
    return found


def _changed(value: Any, path: tuple[Any, ...], change: Callable[[Any], Any]) -> Any:
    """A copy of ``value`` with the value at ``path`` made ``change(it)``."""
    if not path:
        return change(value)
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _changed(value[path[0]], path[1:], change)
    return copy


def _without(container: Any, key: Any) -> Any:
    if isinstance(container, dict):
        return {k: v for k, v in container.items() if k != key}
    return container[:key] + container[key + 1 :]


def damage(data: st.DataObject, original: bytes) -> bytes | None:
    """``original`` (a JSON document) damaged one way: a value of another type or range
    at any place, a key or item dropped, an item added, nesting too deep, or the file cut
    short, emptied, garbled or gone (None)."""
    document = json.loads(original)
    kind = data.draw(
        st.sampled_from(["value", "value", "value", "drop", "add", "deep", "cut", "bytes", "gone"])
    )
    if kind == "cut":
        return original[: data.draw(st.integers(0, len(original) - 1))]
    if kind == "bytes":
        return data.draw(st.binary(max_size=40))
    if kind == "gone":
        return None
    paths = _paths(document)
    if kind == "drop" and len(paths) > 1:
        path = data.draw(st.sampled_from(paths[1:]))
        document = _changed(document, path[:-1], lambda parent: _without(parent, path[-1]))
    elif kind == "add" and any(isinstance(_at(document, p), list) for p in paths):
        path = data.draw(st.sampled_from([p for p in paths if isinstance(_at(document, p), list)]))
        new = data.draw(_VALUES)
        where = data.draw(st.integers(0, len(_at(document, path))))
        document = _changed(document, path, lambda items: [*items[:where], new, *items[where:]])
    else:
        path = data.draw(st.sampled_from(paths))
        new = _DEEP if kind == "deep" else data.draw(_VALUES)
        document = _changed(document, path, lambda _: new)
    text = json.dumps(document)
    depth = data.draw(st.sampled_from([900, 5_000, 200_000]))
    return text.replace(json.dumps(_DEEP), "[" * depth + "]" * depth).encode()


def _at(document: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        document = document[key]
    return document


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_any_damage_to_the_index_is_an_answer_or_a_message_naming_the_file(
    site: Site, data: st.DataObject
) -> None:
    rel = data.draw(st.sampled_from(site.read))
    with damaged(site, rel, damage(data, (site.out / rel).read_bytes())):
        outcomes = lookups(site)
    for outcome in outcomes:
        assert said_cleanly(site, outcome), (rel, outcome)


def test_a_damaged_cache_is_fetched_again(site: Site, tmp_path: Path) -> None:
    """The headers kept beside each fetched file are the cache's, not the index's: when
    they cannot be read, the file is fetched again."""
    url = f"{site.url}public/"
    first = errdex("lookup", EXACT, "--site", url, "--cache", str(tmp_path))
    assert first.code == 0, first
    heads = list(tmp_path.rglob("*.head"))
    assert heads
    for head in heads:
        head.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    assert errdex("lookup", EXACT, "--site", url, "--cache", str(tmp_path)) == first
