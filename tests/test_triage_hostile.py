"""Hostile input for ``triage`` and a hostile server for its GitHub client: odd events and
comments, mentions, redirects to other hosts, trickling and broken answers. Each test
names what went wrong before."""

from __future__ import annotations

import contextlib
import http.server
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import QuietHandler, local_server

from errdex.cli import main
from errdex.github import api as github
from errdex.github import triage
from errdex.github.reports import Found

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
    with contextlib.ExitStack() as servers:

        def start(handler: Handler) -> tuple[str, list[dict[str, str]]]:
            seen: list[dict[str, str]] = []

            class Answer(QuietHandler):
                def do_GET(self) -> None:
                    seen.append({k.lower(): v for k, v in self.headers.items()})
                    handler(self)

                do_POST = do_PATCH = do_DELETE = do_GET

            return servers.enter_context(local_server(Answer)).rstrip("/"), seen

        yield start


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
