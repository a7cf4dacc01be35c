"""Hostile input and a hostile environment for ``issues import``, the issue files a build
reads, and ``triage`` with its GitHub client. Each test names what went wrong before."""

from __future__ import annotations

import http.server
import json
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from errdex import github, issues, triage
from errdex.cli import main
from errdex.reports import Found
from tests.conftest import ROOT

REPO = "vllm-project/vllm"
A2A = "9c019ab65f8b8d16"
TRACEBACK = (
    '```\nTraceback (most recent call last):\n  File "x", line 1, in f\n'
    "ValueError: dcp_comm_backend='a2a' requires decode_context_parallel_size > 1.\n```\n"
)


def _gh(number: Any, **more: Any) -> dict[str, Any]:
    item = {
        "number": number,
        "title": f"Problem {number}",
        "body": TRACEBACK,
        "state": "OPEN",
        "url": f"https://github.com/{REPO}/issues/{number}",
        "createdAt": "2026-10-01T10:00:00Z",
        "closedAt": None,
        "labels": [{"name": "bug"}],
    }
    return {**item, **more}


@pytest.fixture
def content(tmp_path: Path) -> Path:
    folder = tmp_path / "content"
    shutil.copytree(ROOT / "content", folder, ignore=shutil.ignore_patterns("issues"))
    return folder


def _import(run, content: Path, items: list[Any], *more: str):  # type: ignore[no-untyped-def]
    export = content.parent / "export.json"
    export.write_text(json.dumps(items))
    return run("issues", "import", export, "--repo", REPO, "--content", content, *more)


def _numbers(content: Path) -> list[int]:
    data = json.loads((content / "issues" / "vllm-project" / "vllm.json").read_text())
    return [i["number"] for i in data["issues"]]


# --- issues import ---------------------------------------------------------------------


def test_a_title_with_half_a_surrogate_pair_or_bidi_controls_is_imported_clean(  # type: ignore[no-untyped-def]
    run, content: Path
) -> None:
    # Before: UnicodeEncodeError from writing the file, a traceback and nothing written.
    hostile = "a\ud800b \u202egnp.exe\u2069 \x85c"
    result = _import(run, content, [_gh(1, title=hostile, labels=[{"name": "x\ud800"}])])

    assert result.code == 0, result.err
    (issue,) = json.loads((content / "issues" / "vllm-project" / "vllm.json").read_text())["issues"]
    assert issue["title"] == "ab gnp.exe c"
    assert issue["labels"] == ["x"]


@pytest.mark.parametrize(
    "url",
    [
        f"https://github.com/{REPO}/../../evil/repo",  # another repository of github.com
        f"https://github.com/{REPO}/issues/99",  # another issue
        f"https://github.com/{REPO}/issues/1 onmouseover=alert(1)",
        f"https://github.com/{REPO}/issues/1/../../../../attacker/x",
    ],
)
def test_an_issue_url_is_only_ever_the_issues_own_address(  # type: ignore[no-untyped-def]
    run, content: Path, url: str
) -> None:
    # Before: anything starting with https://github.com/OWNER/NAME/ was linked.
    result = _import(run, content, [_gh(1, url=url), _gh(2)])

    assert result.code == 0, result.err
    assert "skipped item 0 (#1): url must be the issue's address" in result.err
    assert _numbers(content) == [2]
    text = (content / "issues" / "vllm-project" / "vllm.json").read_text()
    (content / "issues" / "vllm-project" / "vllm.json").write_text(
        text.replace(f"https://github.com/{REPO}/issues/2", url.replace("/1", "/2", 1))
    )
    built = run("build", "--content", content, "--out", content.parent / "public")
    assert built.code == 1
    assert "vllm.json:2: issues[0] (#2): url must be the issue's address" in built.err


def test_an_issue_listed_twice_in_one_export_is_said_and_counted_once(  # type: ignore[no-untyped-def]
    run, content: Path
) -> None:
    # Before: the second silently replaced the first, and "2 issue(s) read" for one issue.
    result = _import(run, content, [_gh(8, title="first"), _gh(8, title="second")])

    assert result.code == 0, result.err
    assert "skipped item 1 (#8): listed again (item 0 kept)" in result.err
    assert "1 issue(s) read" in result.err
    data = json.loads((content / "issues" / "vllm-project" / "vllm.json").read_text())
    assert [i["title"] for i in data["issues"]] == ["first"]


def test_a_write_that_fails_leaves_no_partial_file_and_the_old_one_whole(  # type: ignore[no-untyped-def]
    run, content: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _import(run, content, [_gh(1)]).code == 0
    folder = content / "issues" / "vllm-project"
    before = (folder / "vllm.json").read_bytes()

    def read_only(*args: Any) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", read_only)
    # Before: PermissionError escaped as a traceback and .vllm.json.<pid> stayed behind.
    result = _import(run, content, [_gh(2)])

    assert result.code == 1
    assert "vllm.json: cannot be written: Permission denied" in result.err
    assert sorted(p.name for p in folder.iterdir()) == ["vllm.json"]
    assert (folder / "vllm.json").read_bytes() == before


def test_an_issues_folder_that_is_a_file_is_said_not_a_traceback(  # type: ignore[no-untyped-def]
    run, content: Path
) -> None:
    (content / "issues").write_text("not a folder")

    # Before: FileExistsError from mkdir, a traceback.
    result = _import(run, content, [_gh(1)])

    assert result.code == 1
    assert "cannot be written" in result.err


def test_an_issue_file_or_folder_that_links_outside_the_content_folder_is_refused(  # type: ignore[no-untyped-def]
    run, content: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (content / "issues").symlink_to(outside)

    # Before: the import wrote into the folder the link leads to.
    result = _import(run, content, [_gh(1)])

    assert result.code == 1
    assert "content/issues: is a link" in result.err
    assert list(outside.iterdir()) == []

    (content / "issues").unlink()
    (content / "issues" / "vllm-project").mkdir(parents=True)
    elsewhere = outside / "vllm.json"
    elsewhere.write_text(
        json.dumps(
            {
                "repo": REPO,
                "issues": [
                    issues.Issue(
                        REPO,
                        5,
                        "secret",
                        "open",
                        f"https://github.com/{REPO}/issues/5",
                        "2026-10-01",
                        None,
                        (),
                        (A2A,),
                    ).document()
                ],
            }
        )
    )
    (content / "issues" / "vllm-project" / "vllm.json").symlink_to(elsewhere)

    # Before: a build read the file outside and showed it.
    built = run("build", "--content", content, "--out", tmp_path / "public")

    assert built.code == 1
    assert "vllm.json: links outside the content folder (or nowhere); not read [E100]" in built.err
    assert not (tmp_path / "public").exists()

    # A build never skips a linked issues/ folder (or owner folder) without a word.
    shutil.rmtree(content / "issues")
    (content / "issues").symlink_to(outside)
    built = run("build", "--content", content, "--out", tmp_path / "public")
    assert built.code == 1
    assert "content/issues: is a link; issue files are read only from folders" in built.err


@pytest.mark.parametrize(
    "hostile",
    ['{"repo": "x/y", "issues": [{"number": ' + "1" * 5000 + "}]}", "[" * 100_000 + "]" * 100_000],
    ids=["5000-digit-number", "nesting-too-deep"],
)
def test_an_issue_file_json_cannot_read_is_a_problem_at_its_line(
    tmp_path: Path, hostile: str
) -> None:
    path = tmp_path / "x" / "y.json"
    path.parent.mkdir()
    path.write_text(hostile)

    # Before: ValueError or RecursionError escaped the build.
    repo, found, problems = issues.read_file(path, "y.json")

    assert (repo, found) == (None, [])
    assert [(p.line, p.code) for p in problems] == [(1, "E101")]


def test_the_lines_of_an_issue_file_of_50000_issues_are_found_in_linear_time() -> None:
    rows = [
        json.dumps({"number": n, "title": "t" * 150, "errors": [A2A]}) for n in range(1, 50_001)
    ]
    text = '{"repo": "x/y", "issues": [\n' + ",\n".join(rows) + "\n]}\n"

    started = time.perf_counter()
    lines = issues._lines(text)

    # Before: each issue counted the lines from the file's start, minutes for this file.
    assert time.perf_counter() - started < 5
    assert (lines[1], lines[50_000]) == (2, 50_001)


# --- triage: the event and what is written --------------------------------------------


def _event(tmp_path: Path, login: str, body: str) -> Path:
    payload = {
        "action": "opened",
        "issue": {
            "number": 3,
            "title": "t",
            "body": body,
            "state": "open",
            "user": {"login": login, "type": "Bot"},
            "labels": [],
        },
        "repository": {"full_name": "example/serve"},
    }
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload))  # ensure_ascii: a lone surrogate as \\ud800
    return path


def test_half_a_surrogate_pair_in_an_event_does_not_crash_the_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "output.txt"))
    event = _event(tmp_path, "x\ud800[bot]", "body \ud800")

    # Before: UnicodeEncodeError from writing the summary, exit 1 with a traceback.
    code = main(["triage", "--event", str(event), "--site", "http://127.0.0.1:9/"])

    assert code == 0
    assert "is a bot" in summary.read_text(encoding="utf-8")
    assert "\ud800" not in triage.read_event(event, None).body


def test_an_event_nested_too_deep_is_a_usage_error_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)

    # Before: RecursionError escaped main.
    assert main(["triage", "--event", str(path), "--site", "http://127.0.0.1:9/"]) == 1


def test_a_mention_or_reference_in_the_comment_pings_nobody() -> None:
    # GitHub links @name and #123 after Markdown: a backslash does not stop it.
    title = "Use @torch.compile, see #1234"
    found = Found("1", "https://e.test/a/", title, "ValueError", "m", 1, 1, (), None, None, None)
    event = triage.Event(
        "issues", "opened", "o/r", 1, "t", "b", "open", "u", False, (), False, None
    )

    text = triage.comment(event, [found], triage.Settings())

    head = text.splitlines()[3]
    assert "@torch" not in head and "#1234" not in head  # before: "\\@torch", "#1234"
    assert "@\u200btorch" in head and "#\u200b1234" in head


class _Client:
    def __init__(self, comments: list[Any]) -> None:
        self.comments = comments
        self.requests: list[tuple[str, str]] = []

    def pages(self, path: str) -> Iterator[Any]:
        yield from self.comments

    def request(self, method: str, path: str, body: Any = None) -> Any:
        self.requests.append((method, path))
        return github.Answer(200, None, {"id": 1})  # type: ignore[arg-type]


def test_comments_of_an_odd_shape_are_never_ours_to_edit_or_delete() -> None:
    comments = [
        {"id": 1, "body": triage.MARKER, "user": "github-actions[bot]"},
        {"id": "../../../labels", "body": triage.MARKER, "user": {"type": "Bot"}},
        {"id": True, "body": triage.MARKER, "user": {"type": "Bot"}},
    ]
    client = _Client(comments)
    event = triage.Event(
        "issues", "edited", "o/r", 1, "t", "b", "open", "u", False, (), False, None
    )

    # Before: AttributeError on the user that is a string; then a DELETE of ../../../labels.
    said = triage.keep_comment(client, event, [], triage.Settings())  # type: ignore[arg-type]

    assert said.said == "Nothing to post." and said.comment_id is None
    assert client.requests == []


# --- the GitHub client against a hostile server ---------------------------------------


Handler = Callable[[http.server.BaseHTTPRequestHandler], None]


@pytest.fixture
def serve() -> Iterator[Callable[[Handler], tuple[str, list[dict[str, str]]]]]:
    """Start servers that answer with ``handler``; each records the headers it was sent."""
    servers: list[http.server.ThreadingHTTPServer] = []

    def start(handler: Handler) -> tuple[str, list[dict[str, str]]]:
        seen: list[dict[str, str]] = []

        class Answer(http.server.BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                seen.append({k.lower(): v for k, v in self.headers.items()})
                handler(self)

            do_POST = do_PATCH = do_DELETE = do_GET

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answer)
        servers.append(server)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{server.server_port}", seen

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _json(data: Any, status: int = 200) -> Handler:
    def answer(h: http.server.BaseHTTPRequestHandler) -> None:
        out = json.dumps(data).encode()
        h.send_response(status)
        h.send_header("Content-Length", str(len(out)))
        h.end_headers()
        h.wfile.write(out)

    return answer


def test_a_redirect_to_another_host_never_carries_the_token(serve) -> None:  # type: ignore[no-untyped-def]
    other, seen = serve(_json([]))

    def moved(h: http.server.BaseHTTPRequestHandler) -> None:
        h.send_response(301)
        h.send_header("Location", other + "/stolen")
        h.send_header("Content-Length", "0")
        h.end_headers()

    api, _ = serve(moved)
    client = github.GitHub(api, "ghs_secret", timeout=2, max_wait=0)

    # Before: urllib followed the redirect with the Authorization header.
    with pytest.raises(github.GitHubError, match="301"):
        client.request("GET", "/repos/o/r/issues/1/comments")

    assert all("ghs_secret" not in str(headers) for headers in seen)


def test_a_redirect_within_the_api_is_still_followed(serve) -> None:  # type: ignore[no-untyped-def]
    holder: dict[str, str] = {}

    def answer(h: http.server.BaseHTTPRequestHandler) -> None:
        if h.path.startswith("/old"):
            h.send_response(301)
            h.send_header("Location", holder["api"] + "/new")
            h.send_header("Content-Length", "0")
            h.end_headers()
        else:
            _json([1])(h)

    holder["api"], seen = serve(answer)
    client = github.GitHub(holder["api"], "ghs_secret", timeout=2, max_wait=0)

    assert client.request("GET", "/old").data == [1]
    assert seen[-1]["authorization"] == "Bearer ghs_secret"


def test_an_answer_that_trickles_is_given_up_after_the_timeout(serve) -> None:  # type: ignore[no-untyped-def]
    def trickle(h: http.server.BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Length", "100")
        h.end_headers()
        try:
            for _ in range(100):
                h.wfile.write(b" ")
                h.wfile.flush()
                time.sleep(0.2)
        except OSError:
            pass

    api, _ = serve(trickle)
    client = github.GitHub(api, "t", timeout=1, max_wait=0)
    started = time.perf_counter()

    # Before: each byte came within the socket's timeout, so the read took 20 s.
    with pytest.raises(github.GitHubError, match="failed"):
        client.request("GET", "/repos/o/r/issues/1/comments")

    assert time.perf_counter() - started < 5


def test_an_answer_that_is_not_http_is_a_github_error_not_a_traceback(serve) -> None:  # type: ignore[no-untyped-def]
    def garbage(h: http.server.BaseHTTPRequestHandler) -> None:
        h.wfile.write(b"HTTP/1.1 two hundred\r\n\r\n<html>")
        h.wfile.flush()
        h.close_connection = True

    api, _ = serve(garbage)
    client = github.GitHub(api, "t", timeout=2, max_wait=0)

    # Before: http.client.BadStatusLine escaped (an HTTPException, not an OSError).
    with pytest.raises(github.GitHubError, match="failed"):
        client.request("GET", "/repos/o/r/issues/1/comments")


def test_a_value_with_a_line_break_at_its_end_is_not_an_id_or_a_date() -> None:
    from errdex import issues

    row = {
        "number": 3,
        "title": "T",
        "state": "open",
        "url": "https://github.com/o/r/issues/3",
        "created": "2026-01-01",
        "closed": None,
        "labels": [],
        "errors": ["0123456789abcdef"],
    }
    assert issues._issue("o/r", row)[0] is not None
    assert issues._issue("o/r", {**row, "created": "2026-01-01\n"})[0] is None
    assert issues._issue("o/r", {**row, "errors": ["0123456789abcdef\n"]})[0] is None
    # An export whose labels are one text is read as no labels, never as its letters.
    [one], _ = issues.from_export(
        [{**row, "url": row["url"], "createdAt": "2026-01-01", "labels": "bug", "body": ""}],
        "o/r",
    )
    assert one.issue.labels == ()
