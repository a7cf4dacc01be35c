"""``lookup`` over a built index: a site folder, a published site over HTTP, batches."""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import (
    MINIMAL,
    ROOT,
    QuietHandler,
    build_site,
    local_server,
    make_content,
    socket_server,
)
from test_search import search_content

from errdex import search
from errdex.cli import main
from errdex.search import sources

HERE = Path(__file__).parent / "search"
VECTORS: list[dict[str, Any]] = yaml.safe_load((HERE / "vectors.yaml").read_text())
TRACEBACK = VECTORS[1]["paste"]
MORE = [
    "tp_size=8 must be divisible by dcp_size=3.",
    "\x1b[31mERROR 08-14 12:00:01 [core.py:7] ValueError: tp_size=6 must be divisible\x1b[0m",
    "must be divisible by dcp_size",
    "No module named 'flash_attn'",
    "",
    "x" * 150_000 + "\nValueError: tp_size=2 must be divisible by dcp_size=7.",
]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The vectors' records (bundled plus tests/search/extra), as content and built site."""
    root = tmp_path_factory.mktemp("lookup")
    content = search_content(root)
    return content, build_site(content, root)


def batch_of(pastes: list[str]) -> str:
    return "".join(json.dumps({"id": n, "text": p}) + "\n" for n, p in enumerate(pastes))


def test_the_index_answers_what_the_records_answer(  # type: ignore[no-untyped-def]
    run, site: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    content, out = site
    pastes = [v["paste"] for v in VECTORS] + MORE
    answers = {}
    for how in (["--content", content], ["--site", out]):
        monkeypatch.setattr("sys.stdin", io.StringIO(batch_of(pastes)))
        result = run("lookup", "--batch", "--limit", "10", *how)
        assert result.code == 0, result.err
        answers[how[0]] = [json.loads(line) for line in result.out.splitlines()]
    assert len(answers["--site"]) == len(pastes)
    assert answers["--site"] == answers["--content"]
    found = [a for a in answers["--site"] if a["matches"]]
    assert len(found) > len(pastes) // 2
    assert any(m["also"] for a in found for m in a["matches"])  # addresses of other places
    # Of 48 records saying one message, the one the traceback names, found in the places
    # files although it was not scored; and how many others there are, not how many scored.
    crowd = next(v["paste"] for v in VECTORS if "names one of those not scored" in v["name"])
    one = run("lookup", crowd, "--site", out)
    assert one.out.splitlines()[2] == "   raised at vllm/crowd/m46/crowd_m46.py:9", one.out
    assert "/errors/5e1f000000000146/" in one.out.splitlines()[3], one.out
    lines = one.out.splitlines()
    at = lines.index("   also raised at 48 other place(s), among them:")
    assert lines[at + 1].endswith("/errors/5e1f000000000100/"), one.out
    pages = list(itertools.takewhile(lambda line: line.startswith("     "), lines[at + 1 :]))
    assert len(pages) == 5 and all("/errors/" in page for page in pages), one.out  # not 48
    # One paste the usual way, as text and as JSON.
    for flags in ([], ["--json"]):
        one = run("lookup", TRACEBACK, "--site", out, *flags)
        assert one.code == 0
        assert one.out == run("lookup", TRACEBACK, "--content", content, *flags).out


CROWD = "ValueError: The crowd of 6 workers cannot share a ring of 4"


def crowd_traceback(path: str, line: str) -> str:
    return f'Traceback (most recent call last):\n  File "{path}", line {line}, in join\n{CROWD}\n'


@pytest.mark.parametrize(
    "paste",
    [
        # More digits than Python turns into a number, as the page's script reads any.
        crowd_traceback("/v/vllm/crowd/m46/crowd_m46.py", "9" * 4301),
        # A byte that is not UTF-8 in a file's name: a lone surrogate once read.
        crowd_traceback("/v/vllm/crowd/m46/crowd_m\udcff.py", "9"),
    ],
    ids=["a line of 4,301 digits", "a stray byte in a file name"],
)
def test_an_odd_frame_is_answered_never_blamed_on_the_index(  # type: ignore[no-untyped-def]
    run, site: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, paste: str
) -> None:
    content, out = site
    for how in (["--content", content], ["--site", out]):
        found = run("lookup", paste, *how)
        assert found.code == 0 and "damaged" not in found.err, found.err
        assert "/errors/5e1f0000000001" in found.out
    # Nor does it end a batch: every line gets its answer.
    monkeypatch.setattr("sys.stdin", io.StringIO(batch_of([paste, CROWD])))
    found = run("lookup", "--batch", "--site", out)
    assert found.code == 0, found.err
    assert [bool(json.loads(line)["matches"]) for line in found.out.splitlines()] == [True, True]


def test_a_match_says_which_line_matched_and_how_sure_it_is(  # type: ignore[no-untyped-def]
    run, site: tuple[Path, Path]
) -> None:
    _, out = site
    document = json.loads(run("lookup", TRACEBACK, "--site", out, "--json").out)
    first = document["matches"][0]
    last = TRACEBACK.rstrip("\n").split("\n")
    assert first["matched"] == {"line": len(last), "text": last[-1]}
    assert first["exact"] and first["confidence"] >= 0.9
    partial = json.loads(run("lookup", "must be divisible by dcp", "--site", out, "--json").out)
    assert partial["matches"], "a piece of a message still finds it"
    assert all(not m["exact"] and m["confidence"] < 0.9 for m in partial["matches"])
    assert partial["matches"][0]["matched"] is None  # no line names an exception
    assert first["values"] == [] and first["url"].endswith(f"/errors/{first['id']}/")


def test_the_line_counts_what_a_long_paste_lost_at_its_start() -> None:
    head = "noise\r\n" * 30_000
    paste = head + "x" * search.PASTE_LIMIT + "\nValueError: late\n"
    found = search.extract(paste)
    assert found.cut and found.line == 30_001 and found.line_text == "ValueError: late"
    assert search.extract("a\rb\r\nKeyError: 'k'").line == 2


def test_site_lookup_loads_no_parser_renderer_or_highlighter(site: tuple[Path, Path]) -> None:
    _, out = site
    program = (
        "import sys\n"
        "from errdex.cli import main\n"
        f"code = main(['lookup', {TRACEBACK!r}, '--site', {str(out)!r}, '--json'])\n"
        "print(code, sorted({'yaml', 'jinja2', 'pygments', 'markdown_it'} & set(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.stdout.strip().splitlines()[-1] == "0 []", done.stderr


def test_an_index_older_than_the_records_is_said(  # type: ignore[no-untyped-def]
    run, tmp_path: Path
) -> None:
    content = make_content(tmp_path, {"a/b/size.yaml": MINIMAL})
    out, cache = tmp_path / "public", tmp_path / "cache"
    assert run("build", "--content", content, "--out", out, "--cache", cache).code == 0
    paste = "ValueError: size=-1 must be positive"
    fresh = run("lookup", paste, "--site", out, "--content", content, "--cache", cache)
    assert fresh.code == 0 and "size = -1" in fresh.out
    assert "older" not in fresh.err
    later = time.time() + 60
    os.utime(content / "errors" / "a" / "b" / "size.yaml", (later, later))
    stale = run("lookup", paste, "--site", out, "--content", content, "--cache", cache)
    assert stale.code == 0 and "size = -1" in stale.out
    (note,) = [line for line in stale.err.splitlines() if "older" in line]
    assert "size.yaml" in note and "--content" in note
    # A build after the edit, an update that leaves the index's own files as they were
    # (a prose edit), makes the index as new as the records again.
    record = content / "errors" / "a" / "b" / "size.yaml"
    record.write_text(record.read_text() + "situations: Edited after the build.\n")
    for path in (out, out / ".errdex-site", out / "search" / "meta.json", *cache.glob("state-*")):
        os.utime(path, (later - 120, later - 120))  # the full build, before the edit
    updated = run("build", "--content", content, "--out", out, "--cache", cache, "-v")
    assert "errdex: update: 1 record changed" in updated.err, updated.err
    os.utime(record, (time.time() - 1, time.time() - 1))  # edited before that update
    again = run("lookup", paste, "--site", out, "--content", content, "--cache", cache)
    assert again.code == 0 and "older" not in again.err, again.err


def test_without_site_or_content_public_is_read_when_it_holds_an_index(  # type: ignore[no-untyped-def]
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_content(tmp_path, {"a/b/size.yaml": MINIMAL})
    monkeypatch.chdir(tmp_path)
    paste = "ValueError: size=-1 must be positive"
    from_yaml = run("lookup", paste)  # no public/ yet: the records of content/
    assert from_yaml.code == 0 and "size = -1" in from_yaml.out
    assert run("build", "--cache", tmp_path / "cache").code == 0
    (tmp_path / "content" / "errors" / "a" / "b" / "size.yaml").unlink()
    from_index = run("lookup", paste)  # public/ is read, and its index has the record
    assert from_index.code == 0 and from_index.out == from_yaml.out


def test_batch_answers_each_line_and_names_the_bad_ones(  # type: ignore[no-untyped-def]
    run, site: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, out = site
    lines = [
        json.dumps({"id": "a", "text": TRACEBACK}),
        "not json",
        json.dumps({"id": 7, "text": 3}),
        "",
        json.dumps({"id": ["x"], "text": "No module named 'flash_attn'"}),
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    result = run("lookup", "--batch", "--site", out)
    assert result.code == 2  # lines that are not lookups: a usage error, not "no match"
    answers = [json.loads(line) for line in result.out.splitlines()]
    assert [a["id"] for a in answers] == ["a", None, 7, ["x"]]
    assert answers[0]["matches"][0]["exact"] is True
    assert "line 2" in answers[1]["error"] and "line 3" in answers[2]["error"]
    assert answers[3]["matches"] == []
    assert "2 line(s)" in result.err and "Traceback" not in result.err


def test_a_folder_that_holds_no_index_or_a_damaged_one_is_a_clear_error(  # type: ignore[no-untyped-def]
    run, site: tuple[Path, Path], tmp_path: Path
) -> None:
    result = run("lookup", "x", "--site", tmp_path)
    assert result.code == 3 and "not a site errdex built" in result.err
    broken = tmp_path / "broken"
    shutil.copytree(site[1], broken)
    (broken / "search" / "meta.json").write_text("{")
    result = run("lookup", "x", "--site", broken)
    assert result.code == 3 and "meta.json is not JSON" in result.err
    shutil.copy(site[1] / "search" / "meta.json", broken / "search" / "meta.json")
    for shard in (broken / "search" / "words").iterdir():
        shard.write_text("[1, 2]")
    result = run("lookup", TRACEBACK, "--site", broken)
    assert result.code == 3 and "not a word shard" in result.err
    assert run("lookup", "x", "--site", broken, "--timeout", "0").code == 2

    # The record files meta.json names, and the rows in them (index version 3 and after).
    shutil.rmtree(broken / "search")
    shutil.copytree(site[1] / "search", broken / "search")
    meta_path = broken / "search" / "meta.json"
    meta = json.loads(meta_path.read_text())
    for files, said in (
        ([True] * meta["count"], "names no record file for "),
        ([meta["record_files"]] * meta["count"], "names no record file for "),
        ([0], "has record files that do not fit its count"),
    ):
        meta_path.write_text(json.dumps({**meta, "files": files}))
        result = run("lookup", TRACEBACK, "--site", broken)
        assert result.code == 3 and said in result.err, (files, result.err)
        assert "Traceback" not in result.err
    meta_path.write_text(json.dumps(meta))
    for records in (broken / "search" / "records").iterdir():
        rows = json.loads(records.read_text())
        records.write_text(json.dumps([[row[0], row[1], -1, *row[3:]] for row in rows]))
    result = run("lookup", TRACEBACK, "--site", broken)
    assert result.code == 3 and "has no readable record" in result.err, result.err


# --- Exit statuses: a script tells "no page" from "no index" ---------------------------

BROKEN_RECORD = "repo: example/project\nexception: ValueError\n"  # no message: E2xx


def _not_utf8() -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(b"ValueError: \xff\xfe bad"), encoding="utf-8")


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("a match", sources.FOUND),
        ("a match, as JSON", sources.FOUND),
        ("a batch, every line a lookup", sources.FOUND),
        ("no match", sources.NOT_FOUND),
        ("no match, as JSON", sources.NOT_FOUND),
        ("a timeout of 0", sources.USAGE),
        ("standard input that is not UTF-8", sources.USAGE),
        ("a batch line that is not a lookup", sources.USAGE),
        ("a folder that holds no index", sources.UNREADABLE),
        ("a damaged index", sources.UNREADABLE),
        ("records that do not load", sources.UNREADABLE),
        ("no index and no content folder", sources.UNREADABLE),
    ],
)
def test_the_exit_status_tells_a_match_from_none_from_a_usage_error_from_no_index(  # type: ignore[no-untyped-def]
    run,
    site: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    case: str,
    expected: int,
) -> None:
    _, out = site
    broken = tmp_path / "broken"
    shutil.copytree(out / "search", broken / "search")
    (broken / "search" / "meta.json").write_text("{")
    monkeypatch.chdir(tmp_path)  # no public/ and no content/ here
    stdin = {
        "standard input that is not UTF-8": _not_utf8(),
        "a batch, every line a lookup": io.StringIO(batch_of([TRACEBACK, "nothing known"])),
        "a batch line that is not a lookup": io.StringIO(batch_of([TRACEBACK]) + "{}\n"),
    }.get(case, io.StringIO(""))
    monkeypatch.setattr("sys.stdin", stdin)
    argv = {
        "a match": ["lookup", TRACEBACK, "--site", out],
        "a match, as JSON": ["lookup", TRACEBACK, "--site", out, "--json"],
        "a batch, every line a lookup": ["lookup", "--batch", "--site", out],
        "no match": ["lookup", "No module named 'flash_attn'", "--site", out],
        "no match, as JSON": ["lookup", "No module named 'flash_attn'", "--site", out, "--json"],
        "a timeout of 0": ["lookup", TRACEBACK, "--site", out, "--timeout", "0"],
        "standard input that is not UTF-8": ["lookup", "-", "--site", out],
        "a batch line that is not a lookup": ["lookup", "--batch", "--site", out],
        "a folder that holds no index": ["lookup", TRACEBACK, "--site", tmp_path],
        "a damaged index": ["lookup", TRACEBACK, "--site", broken],
        "records that do not load": [
            "lookup",
            TRACEBACK,
            "--content",
            make_content(tmp_path / "bad", {"r.yaml": BROKEN_RECORD}),
        ],
        "no index and no content folder": ["lookup", TRACEBACK],
    }[case]

    result = run(*argv)

    # Before: 1 for no match and for an index that could not be read alike.
    assert result.code == expected, (case, result.err)
    assert "Traceback (most recent call last)" not in result.err


def test_records_that_do_not_load_stop_a_lookup_which_writes_nothing_anyway(  # type: ignore[no-untyped-def]
    run, tmp_path: Path
) -> None:
    content = make_content(tmp_path / "bad", {"r.yaml": BROKEN_RECORD})
    result = run("lookup", TRACEBACK, "--content", content)
    assert result.code == 3
    assert "r.yaml:" in result.err
    assert "errdex: stopped with 2 error(s) and 0 warning(s)\n" in result.err
    assert "nothing was written" not in result.err  # a lookup never writes


def test_a_flag_lookup_does_not_know_is_usage_status_2() -> None:
    with pytest.raises(SystemExit) as exited:
        main(["lookup", "x", "--no-such-flag"])
    assert exited.value.code == sources.USAGE


def test_the_exit_statuses_are_the_documented_ones() -> None:
    text = (ROOT / "docs" / "exit-codes.md").read_text()
    section = text.split("## errdex lookup", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| (\d) \| (.+) \|$", section, flags=re.MULTILINE))
    assert rows.keys() == {"0", "1", "2", "3"}
    assert rows[str(sources.FOUND)].startswith("a page matches")
    assert rows[str(sources.NOT_FOUND)].startswith("no page matches")
    assert rows[str(sources.USAGE)].startswith("usage:")
    assert rows[str(sources.UNREADABLE)].startswith("the index, the site or the records cannot")


# --- A published site over HTTP ------------------------------------------------------


@dataclass
class Host:
    """A static host that sends ETags and answers If-None-Match with 304, and remembers
    what it was asked."""

    root: Path
    url: str = ""
    delay: float = 0.0
    requests: list[tuple[str, str | None, int]] = field(default_factory=list)


def _handler(host: Host) -> type[QuietHandler]:
    class Handler(QuietHandler):
        def do_GET(self) -> None:
            time.sleep(host.delay)
            path = host.root / self.path.lstrip("/").split("?")[0]
            asked = self.headers.get("If-None-Match")
            if not path.is_file():
                host.requests.append((self.path, asked, 404))
                self.send_error(404)
                return
            data = path.read_bytes()
            etag = '"' + hashlib.sha256(data).hexdigest()[:16] + '"'
            code = 304 if asked == etag else 200
            host.requests.append((self.path, asked, code))
            self.send_response(code)
            self.send_header("ETag", etag)
            if code == 304:
                self.end_headers()
                return
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


@pytest.fixture
def host(site: tuple[Path, Path]) -> Iterator[Host]:
    served = Host(site[1])
    with local_server(_handler(served)) as url:
        served.url = url
        yield served


def test_a_published_site_is_read_over_http_and_kept_with_its_etags(  # type: ignore[no-untyped-def]
    run, host: Host, site: tuple[Path, Path], tmp_path: Path
) -> None:
    content, _ = site
    cache = tmp_path / "cache"
    first = run("lookup", TRACEBACK, "--site", host.url, "--json", "--cache", cache)
    assert first.code == 0, first.err
    assert first.out == run("lookup", TRACEBACK, "--content", content, "--json").out
    fetched = [path for path, asked, code in host.requests]
    assert "/search/meta.json" in fetched and all(code == 200 for *_, code in host.requests)
    assert len(fetched) == len(set(fetched)), "a file is fetched once a call"
    host.requests.clear()
    again = run("lookup", TRACEBACK, "--site", host.url, "--json", "--cache", cache)
    assert again.out == first.out
    assert host.requests and all(asked and code == 304 for _, asked, code in host.requests)
    host.requests.clear()
    run("lookup", TRACEBACK, "--site", host.url, "--json", "--no-cache")
    assert all(asked is None for _, asked, _ in host.requests)


def test_an_unreachable_site_is_a_clear_error(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    result = run("lookup", "x", "--site", f"http://127.0.0.1:{port}/", "--cache", tmp_path)
    assert result.code == 3
    assert result.err.startswith("errdex: cannot reach http://127.0.0.1:") and "Traceback" not in (
        result.err
    )


def test_a_site_that_is_not_errdex_gets_a_clear_error(  # type: ignore[no-untyped-def]
    run, host: Host, tmp_path: Path
) -> None:
    host.root = tmp_path
    result = run("lookup", "x", "--site", host.url, "--cache", tmp_path / "c")
    assert result.code == 3 and "answered 404" in result.err


def test_an_oversized_response_is_refused(  # type: ignore[no-untyped-def]
    run, host: Host, site: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    size = (site[1] / "search" / "meta.json").stat().st_size  # the first file read
    monkeypatch.setattr(sources, "MAX_BYTES", size - 1)
    result = run("lookup", "x", "--site", host.url, "--cache", tmp_path)
    assert result.code == 3 and f"larger than {size - 1:,} bytes: refused" in result.err
    largest = max(p.stat().st_size for p in site[1].rglob("*.json"))
    monkeypatch.setattr(sources, "MAX_BYTES", largest)
    result = run("lookup", TRACEBACK, "--site", host.url, "--cache", tmp_path)
    assert result.code == 0 and "refused" not in result.err


def test_a_slow_site_times_out(run, host: Host, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    host.delay = 3.0
    started = time.perf_counter()
    result = run("lookup", "x", "--site", host.url, "--timeout", "0.3", "--cache", tmp_path)
    took = time.perf_counter() - started
    assert result.code == 3 and "did not answer within 0.3 s" in result.err
    assert took < host.delay, "the timeout was not honoured"


def test_a_name_the_system_is_slow_to_look_up_times_out(  # type: ignore[no-untyped-def]
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The system's resolver waits as long as it likes (a DNS server that does not
    answer): the lookup of the site's name counts against --timeout too."""
    real = socket.getaddrinfo

    def slow(host: str, *args: object, **kwargs: object) -> object:
        if host == "errors.example.test":
            time.sleep(3)
        return real(host, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", slow)
    started = time.perf_counter()
    result = run(
        "lookup",
        "x",
        "--site",
        "http://errors.example.test/",
        "--timeout",
        "0.3",
        "--cache",
        tmp_path,
    )
    assert result.code == 3 and "did not answer within 0.3 s" in result.err, result.err
    assert time.perf_counter() - started < 2, "the timeout was not honoured"


def test_the_marker_lookup_stats_is_the_one_builds_write() -> None:
    from errdex.site.write import MARKER

    assert sources.MARKER == MARKER


def test_a_host_that_answers_what_is_not_http_is_a_clear_error(  # type: ignore[no-untyped-def]
    run, tmp_path: Path
) -> None:
    def answer(conn: socket.socket) -> None:
        conn.recv(65536)
        conn.sendall(b"SSH-2.0-not a web server\r\n\r\n")

    with socket_server(answer) as port:
        url = f"http://127.0.0.1:{port}/"
        result = run("lookup", "x", "--site", url, "--no-cache")
    assert result.code == 3
    assert result.err.startswith(f"errdex: cannot fetch {url}search/meta.json: "), result.err


def test_a_name_the_system_cannot_look_up_says_why(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A label longer than a name may have fails in the lookup itself; it is said as it
    was before the lookup ran in a thread of its own, not as a name with no address."""
    name = "a" * 64 + ".example.test"
    result = run("lookup", "x", "--site", f"http://{name}/", "--timeout", "5", "--cache", tmp_path)
    assert result.code == 3, result.err
    assert "has no address" not in result.err and "Traceback" not in result.err
    assert "label" in result.err or "idna" in result.err.lower(), result.err


def test_a_placeholder_the_message_says_twice_is_shown_once(  # type: ignore[no-untyped-def]
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    twice = MINIMAL.replace(
        'message: "size={size} must be positive"',
        'message: "size={size} must be positive, and {size} is {kind}"',
    )
    make_content(tmp_path, {"a/b/size.yaml": twice})
    monkeypatch.chdir(tmp_path)
    said = run("lookup", "ValueError: size=-1 must be positive, and -1 is negative")
    assert said.code == 0, said.err
    assert "   size = -1, kind = negative\n" in said.out, said.out
    as_json = json.loads(run("lookup", "--json", "size=-1 must be positive, and -1 is odd").out)
    assert as_json["matches"][0]["values"] == [["size", "-1"], ["size", "-1"], ["kind", "odd"]]


def test_a_message_of_two_lines_is_printed_under_its_heading(  # type: ignore[no-untyped-def]
    run, tmp_path: Path
) -> None:
    two_lines = MINIMAL.replace(
        'message: "size={size} must be positive"',
        'message: "size={size} must be positive\\nSee the sizing guide for {what}"',
    )
    content = make_content(tmp_path, {"two.yaml": two_lines})
    shown = run("lookup", "ValueError: size=3 must be positive", "--content", content)
    assert shown.code == 0, shown.err
    assert "   size={size} must be positive\n   See the sizing guide for {what}\n" in shown.out
