"""``errdex triage``: the errors a GitHub issue pastes, matched against a published site.

The site is built once for this module and served over HTTP; a second local server
plays GitHub's REST API and records every request. The events under tests/triage/ are
shaped as GitHub sends them.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import (
    ROOT,
    QuietHandler,
    build_site,
    http_server,
    local_server,
    make_content,
    socket_server,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errdex import search
from errdex.cli import main
from errdex.github import api as github
from errdex.github.reports import Rules, fences, found_in
from errdex.github.triage import MARKER, Event, Settings, comment, outputs, summary
from errdex.search import sources

EVENTS = Path(__file__).parent / "triage"
REPO = "example/serve"
SITE = """\
title: Serve errors
base_url: https://errors.example.test/docs/
repository: example/site
releases:
  - repo: example/serve
    name: v1.0
    commit: "a111111111111111111111111111111111111111"
    date: 2026-01-05
  - repo: example/serve
    name: v1.1
    commit: "b222222222222222222222222222222222222222"
    date: 2026-03-02
"""


def record(exception: str, message: str, more: str = "") -> str:
    return f"""\
repo: example/serve
exception: {exception}
message: {json.dumps(message)}
source:
  commit: "b222222222222222222222222222222222222222"
  path: serve/config.py
  line: 2
  excerpt:
    start: 1
    code: |
      def check():
          raise {exception}("...")
{more}"""


RECORDS = {
    "example/serve/divisible.yaml": record(
        "ValueError",
        "tensor_parallel_size={tp} must be divisible by data_parallel_size={dp}.",
        """\
releases:
  - release: v1.0
    commit: "a111111111111111111111111111111111111111"
    path: serve/config.py
    line: 2
    message: "tp={tp} is not divisible by dp={dp}, give sizes that divide"
  - release: v1.1
    commit: "b222222222222222222222222222222222222222"
    path: serve/config.py
    line: 2
""",
    ),
    "example/serve/pipeline.yaml": record(
        "NotImplementedError",
        "Pipeline parallelism is not supported for this model. "
        "Supported models implement the `SupportsPP` interface.",
    ),
    "example/serve/kv-cache.yaml": record(
        "ValueError",
        "No available memory for the cache blocks. "
        "Try increasing `gpu_memory_utilization` when initializing the engine.",
    ),
    # A wrapper every crash of the engine ends with: it says nothing of the cause.
    "example/serve/engine-core.yaml": record(
        "RuntimeError",
        "Engine core initialization failed. See root cause above. Failed core proc(s): {procs}",
        "triage: false\n",
    ),
    "example/serve/unknown-dtype.yaml": record("ValueError", "Unknown dtype {dtype} for {layer}"),
    # One message raised in two files: a record each, of stated ids.
    "example/serve/closed-queue.yaml": record(
        "RuntimeError", "The request queue is closed; no request can be added to it now."
    ).replace("repo:", "id: 00000000000000a1\nrepo:"),
    "example/serve/closed-queue-2.yaml": record(
        "RuntimeError", "The request queue is closed; no request can be added to it now."
    )
    .replace("repo:", "id: 00000000000000a2\nrepo:")
    .replace("path: serve/config.py", "path: serve/queue.py\n  function: Queue.put"),
}
CLOSED = "RuntimeError: The request queue is closed; no request can be added to it now."
DIVISIBLE = (
    "Traceback (most recent call last):\n"
    '  File "/app/serve/config.py", line 2, in check\n'
    "    raise ValueError(\n"
    "ValueError: tensor_parallel_size={tp} must be divisible by data_parallel_size={dp}.\n"
)
PIPELINE = (
    "NotImplementedError: Pipeline parallelism is not supported for this model. "
    "Supported models implement the `SupportsPP` interface."
)
ENGINE = (
    "Traceback (most recent call last):\n"
    '  File "/app/serve/engine.py", line 9, in start\n'
    "    raise RuntimeError(\n"
    "RuntimeError: Engine core initialization failed. See root cause above. "
    "Failed core proc(s): {'EngineCore_0': 1}\n"
)


@dataclass
class Built:
    content: Path
    out: Path
    url: str
    paths: list[str]
    """Every path the site's server was asked for, in order."""

    def page_of(self, name: str) -> dict[str, Any]:
        """The JSON document of the record in ``RECORDS[name]``."""
        message = yaml.safe_load(RECORDS[name])["message"]
        for path in (self.out / "api" / "errors").glob("*.json"):
            document = json.loads(path.read_text())
            if document.get("message") == message:
                return document
        raise AssertionError(name)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    root = tmp_path_factory.mktemp("triage")
    content = make_content(root, RECORDS, SITE)
    out = build_site(content, root)
    paths: list[str] = []
    with http_server(out, asked=paths) as url:
        yield Built(content, out, url, paths)


@pytest.fixture(scope="module")
def source(site: Built) -> sources.Source:
    return sources.site_source(sources.WebStore(site.url, None))


def issue(paste: str) -> str:
    """``paste`` inside the body of a bug report as GitHub's issue forms write it."""
    return (
        "### Your current environment\n\n<details>\n<summary>collect_env.py</summary>\n\n"
        "```text\nPyTorch version: 2.5.1\nOS: Ubuntu 22.04\n```\n</details>\n\n"
        f"### Describe the bug\n\nIt fails at startup:\n\n```\n{paste}\n```\n\nAny idea?\n"
    )


# --- found_in: which records a body pastes ---------------------------------------------


def test_a_traceback_in_a_bug_report_finds_its_page_with_the_users_values(
    site: Built, source: sources.Source
) -> None:
    body = issue(DIVISIBLE.format(tp=8, dp=3))

    found = found_in(source, body)

    page = site.page_of("example/serve/divisible.yaml")
    assert [(f.id, f.url) for f in found] == [(page["id"], page["url"])]
    assert found[0].values == (("tp", "8"), ("dp", "3"))
    assert found[0].confidence >= 0.9
    line = body.splitlines()[found[0].line - 1]  # type: ignore[operator]
    assert line.startswith("ValueError: tensor_parallel_size=8")
    assert found[0].releases == ("v1.0", "v1.1")
    assert found[0].wording is None


def test_every_error_a_body_pastes_is_found_once_best_first(source: sources.Source) -> None:
    body = issue(DIVISIBLE.format(tp=8, dp=3)) + "\nand later:\n\n" + issue(PIPELINE)
    body += "\nagain:\n" + issue(DIVISIBLE.format(tp=6, dp=4))

    found = found_in(source, body)

    # search.find answers with one reading only: the report reads them all.
    assert len(search.find(source.index, body)[1]) == 1
    assert sorted(f.exception for f in found) == ["NotImplementedError", "ValueError"]
    assert [f.confidence for f in found] == sorted((f.confidence for f in found), reverse=True)
    assert len(found_in(source, body, Rules(limit=1))) == 1


def test_an_earlier_wording_says_which_release_printed_it(source: sources.Source) -> None:
    found = found_in(
        source, issue("ValueError: tp=8 is not divisible by dp=3, give sizes that divide")
    )

    assert len(found) == 1
    assert found[0].wording == {
        "until": "v1.0",
        "since": "v1.1",
        "now": "tensor_parallel_size={tp} must be divisible by data_parallel_size={dp}.",
    }
    assert found[0].values == (("tp", "8"), ("dp", "3"))


def test_a_bare_message_in_a_fence_of_an_issue_form_is_found(source: sources.Source) -> None:
    body = issue("tensor_parallel_size=8 must be divisible by data_parallel_size=3.")

    # The whole body is no message, and its last line is prose: only the fence is.
    assert search.find(source.index, body)[1] == []
    assert [f.values for f in found_in(source, body)] == [(("tp", "8"), ("dp", "3"))]


def test_words_raised_in_two_places_name_one_and_say_the_other_unless_a_frame_tells(
    source: sources.Source, site: Built
) -> None:
    """A bare message two records say: triage names one, and the comment and outputs
    say where else those words are raised, since nothing in the issue tells which. A
    traceback whose last frame is in one's file names that one alone."""
    (found,) = found_in(source, issue(CLOSED))
    assert found.id == "00000000000000a1" and found.elsewhere == 1
    ((where, url),) = found.also
    assert where == "serve/queue.py, in Queue.put" and url.endswith("/errors/00000000000000a2/")
    event = Event(
        "issues",
        "opened",
        REPO,
        7,
        "A closed queue",
        issue(CLOSED),
        "open",
        "u",
        False,
        (),
        False,
        None,
    )
    said = comment(event, [found], Settings())
    assert (
        "- the same words are raised at 1 other place(s) too: "
        f"[serve/queue.py, in Queue.put]({url}); nothing in the issue tells which one raised it"
    ) in said
    listed = json.loads(outputs([found])["matches"])[0]
    assert (listed["elsewhere"], listed["also"][0]["where"]) == (1, "serve/queue.py, in Queue.put")
    framed = (
        "Traceback (most recent call last):\n"
        '  File "/app/serve/queue.py", line 2, in put\n'
        "    raise RuntimeError(\n"
        f"{CLOSED}\n"
    )
    (placed,) = found_in(source, issue(framed))
    assert (placed.id, placed.elsewhere, placed.also) == ("00000000000000a2", 0, ())
    assert "same words" not in comment(event, [placed], Settings())


def test_words_raised_in_two_places_name_the_one_whose_function_the_issue_calls(
    source: sources.Source,
) -> None:
    # No traceback, but the issue shows the call that raised it: ``queue.put(request)``
    # is a call of ``Queue.put``, which raises these words in serve/queue.py. Before,
    # triage named the first record of the words, raised in serve/config.py.
    body = issue(f"{CLOSED}") + "\nMy code:\n\n```python\nqueue.put(request)\n```\n"
    (found,) = found_in(source, body)
    assert (found.id, found.called, found.elsewhere) == ("00000000000000a2", "put", 1)
    ((where, url),) = found.also
    assert where == "serve/config.py" and url.endswith("/errors/00000000000000a1/")
    event = Event("issues", "opened", REPO, 8, "t", body, "open", "u", False, (), False, None)
    said = comment(event, [found], Settings())
    assert f"[serve/config.py]({url}); the issue calls `put()`, which raises them here" in said
    assert json.loads(outputs([found])["matches"])[0]["called"] == "put"
    # A word that is no call (``put``, not ``put(``), or a call of another function
    # whose name ends alike (``output(``): nothing tells which.
    for said_so in ("I put a request on the queue.", "Calling output(request) fails."):
        (other,) = found_in(source, issue(CLOSED) + said_so)
        assert (other.id, other.called, other.elsewhere) == ("00000000000000a1", "", 1)


PLAN = "Two plans fit the request equally well; name one."
TAKEN = "The pool is closed, so take() and put() cannot run; reopen it first."


def _raised_in(path: str, function: str, line: int) -> str:
    return f"path: {path}\n  function: {function}\n  line: {line}"


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> sources.Source:
    """A site where one message is raised in three places: in ``Pool.put``, ``Pool.take``
    and ``AsyncPool.take``; and an exception whose name does not end like an error's."""
    root = tmp_path_factory.mktemp("calls")
    place = "path: serve/config.py\n  line: 2"
    records = {
        "example/serve/ambiguous-plan.yaml": record("serve.errors.AmbiguousPlan", PLAN),
        **{
            f"example/serve/taken-{n}.yaml": record("RuntimeError", TAKEN)
            .replace("repo:", f"id: 00000000000000b{n}\nrepo:")
            .replace(place, _raised_in(path, function, 2))
            for n, path, function in (
                (1, "serve/pool.py", "Pool.put"),
                (2, "serve/pool.py", "Pool.take"),
                (3, "serve/aio.py", "AsyncPool.take"),
            )
        },
    }
    out = build_site(make_content(root, records, SITE), root)
    return sources.site_source(sources.FolderStore(out))


@pytest.mark.parametrize(
    ("said", "named"),
    [
        # Two of the message's records are raised in a ``take``: the first is named.
        ("pool.take(4)", "00000000000000b2"),
        ("result = pool.put (item)", "00000000000000b1"),
        # A ``def`` is no call; a call and a mention of another of them tells nothing;
        # nor does the message, which says ``take()`` and ``put()`` itself.
        ("def take(self):\n    ...", ""),
        ("pool.take(4), though put is what I meant", ""),
        ("", ""),
    ],
)
def test_of_the_records_of_its_words_the_one_whose_function_the_issue_calls_is_named(
    calls: sources.Source, said: str, named: str
) -> None:
    body = f"```\nRuntimeError: {TAKEN}\n```\n\nMy code:\n\n```python\n{said}\n```\n"
    (found,) = found_in(calls, body)
    assert found.elsewhere == 2
    if named:
        assert (found.id, found.called) == (named, "take" if named != "00000000000000b1" else "put")
        assert named not in {url.rsplit("/", 2)[1] for _, url in found.also}
    else:
        assert (found.id, found.called) == ("00000000000000b1", "")


@pytest.mark.parametrize(
    "line",
    [
        f"AmbiguousPlan: {PLAN}",
        f"> AmbiguousPlan: {PLAN}",
        f"**AmbiguousPlan**: {PLAN}",
        f"**AmbiguousPlan:** {PLAN}",
        f"- AmbiguousPlan: {PLAN}",
        f"1. AmbiguousPlan: {PLAN}",
        f"`AmbiguousPlan`: {PLAN}",
        f"   serve.errors.AmbiguousPlan: {PLAN}",
    ],
)
def test_a_line_of_prose_that_starts_with_one_of_the_sites_exceptions_is_its_error(
    calls: sources.Source, line: str
) -> None:
    # Typed out of a screenshot, between paragraphs, with no word that says an error
    # follows. Before, only an exception whose name ends like an error's was read so.
    body = (
        "Planning fails for me.\n\n![Screenshot](https://example.test/shot.png)\n\n"
        f"The text of it:\n\n{line}\n\nWhat should I pass?\n"
    )
    (found,) = found_in(calls, body)
    assert (found.exception, found.message, found.line) == ("serve.errors.AmbiguousPlan", PLAN, 7)
    # The same line under a name the site raises no error of is prose.
    assert found_in(calls, body.replace("AmbiguousPlan", "PlanningNote")) == []


def test_a_docstrings_raises_section_in_an_issue_names_no_error(calls: sources.Source) -> None:
    # Indented as code is: a docstring's list of what a function raises, not an error.
    body = (
        "Which errors can plan() raise?\n\n```python\ndef plan(request):\n"
        f'    """Plan a request.\n\n    Raises:\n        AmbiguousPlan: {PLAN}\n    """\n```\n'
    )
    assert found_in(calls, body) == []


def test_a_feature_request_that_names_a_message_in_prose_gets_nothing(
    source: sources.Source,
) -> None:
    body = (
        "### The feature\n\nPlease say more than: no available memory for the cache blocks. "
        "I tried increasing gpu_memory_utilization"
    )

    assert search.find(source.index, body)[1], "search would guess; the report must not"
    assert found_in(source, body, Rules(min_confidence=0, min_own_text=0)) == []


def test_the_exception_a_paste_names_must_be_the_records(source: sources.Source) -> None:
    paste = issue(
        "TypeError: No available memory for the cache blocks. Try increasing "
        "`gpu_memory_utilization` when initializing the engine."
    )

    assert found_in(source, paste) == []
    assert [f.exception for f in found_in(source, paste, Rules(exception_must_agree=False))] == [
        "ValueError"
    ]


def test_a_message_with_little_text_of_its_own_is_not_reported(source: sources.Source) -> None:
    paste = issue("ValueError: Unknown dtype float7 for lm_head")

    assert search.find(source.index, paste)[1][0].exact  # "unknown", "dtype", "for": 15
    assert found_in(source, paste) == []
    assert [f.values for f in found_in(source, paste, Rules(min_own_text=15))] == [
        (("dtype", "float7"), ("layer", "lm_head"))
    ]


def test_a_partial_match_needs_a_lower_min_confidence(source: sources.Source) -> None:
    # The message's first sentence, then words of its own: no whole message, nor its start.
    paste = issue(
        "NotImplementedError: Pipeline parallelism is not supported for this model. Use one GPU."
    )

    assert found_in(source, paste) == []
    found = found_in(source, paste, Rules(min_confidence=0.5))
    assert [(f.exception, f.confidence < 0.9) for f in found] == [("NotImplementedError", True)]


def test_a_record_kept_out_of_triage_is_never_reported(site: Built, source: sources.Source) -> None:
    paste = issue(ENGINE)
    document = site.page_of("example/serve/engine-core.yaml")

    assert document["triage"] is False
    assert search.find(source.index, paste)[1][0].entry.id == document["id"]
    assert found_in(source, paste) == []
    from_yaml = sources.content_source(site.content, strict=False)
    assert search.find(from_yaml.index, paste)[1][0].entry.id == document["id"]
    assert found_in(from_yaml, paste) == []
    # Nor does a worse guess take its place.
    assert found_in(source, paste, Rules(min_confidence=0, min_own_text=0)) == []


def test_the_records_yaml_and_the_published_index_report_the_same(
    site: Built, source: sources.Source
) -> None:
    from_yaml = sources.content_source(site.content, strict=False)
    body = issue(DIVISIBLE.format(tp=2, dp=7)) + issue(PIPELINE)

    assert found_in(from_yaml, body) == found_in(source, body)


def test_fences_are_read_as_github_shows_them() -> None:
    body = "a\n````md\nx\n```\ny\n````\nz\n~~~\nopen to the end"

    assert fences(body) == [(2, "x\n```\ny"), (8, "open to the end")]


def test_a_users_value_cannot_break_out_of_the_comment() -> None:
    from errdex.github.reports import Found

    value = "`x` @admin [link](https://evil.test) <!-- -->"
    found = Found(
        "1", "https://e.test/a/", "T", "ValueError", "m {v}", 1, 1, (("v", value),), 3, value, None
    )
    event = Event("issues", "opened", REPO, 1, "t", value, "open", "u", False, (), False, None)

    text = comment(event, [found], Settings())

    said = next(line for line in text.splitlines() if line.startswith("- your values"))
    assert "``" + " `x` @admin [link](https://evil.test) <!-- --> " + "``" in said
    assert text.startswith(MARKER + "\n")


def test_an_empty_value_is_said_to_be_empty() -> None:
    """``got ''`` fills its placeholder with nothing: the comment says so, where an
    empty code span would show as a blank."""
    from errdex.github.reports import Found

    line = "ValueError: host must not be empty, got ''"
    found = Found(
        "1",
        "https://e.test/a/",
        "T",
        "ValueError",
        "host must not be empty, got {host}",
        1,
        1,
        (("host", ""),),
        3,
        line,
        None,
    )
    event = Event("issues", "opened", REPO, 1, "t", line, "open", "u", False, (), False, None)

    said = next(
        line
        for line in comment(event, [found], Settings()).splitlines()
        if line.startswith("- your values")
    )
    assert said == "- your values: `host` = (empty)"


def test_the_summary_names_the_releases_the_comment_names() -> None:
    """Of six releases, both say the latest five and count the one before: the summary
    once showed three, as if the others did not raise it."""
    from errdex.github.reports import Found

    releases = tuple(f"v1.{n}" for n in range(6))
    found = Found(
        "1",
        "https://e.test/a/",
        "T",
        "ValueError",
        "m",
        1,
        1,
        (),
        3,
        "m",
        None,
        releases=releases,
    )
    event = Event("issues", "opened", REPO, 1, "t", "m", "open", "u", False, (), False, None)
    said = "raised in v1.1, v1.2, v1.3, v1.4, v1.5 and 1 earlier"

    assert f"- {said}" in comment(event, [found], Settings())
    assert f"; {said} |" in summary(event, [found], Settings(), "1 page matches.")
    # A name Markdown would read otherwise is escaped, once, in both.
    found = replace(found, releases=("v1_0",))
    assert "- raised in v1\\_0\n" in comment(event, [found], Settings())
    assert "; raised in v1\\_0 |" in summary(event, [found], Settings(), "1 page matches.")


# --- errdex triage: the command a workflow runs, against a GitHub of our own ----------


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    """By lowercase name."""
    body: Any


@dataclass
class FakeGitHub:
    """GitHub's REST API for issues' comments and labels, recording every request."""

    url: str = ""
    requests: list[Request] = field(default_factory=list)
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    failures: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    """Answers given, in order, before any request is served."""
    next_id: int = 5000
    user: dict[str, str] | None = None
    """What ``GET /user`` answers: None for a workflow's token, which may not ask."""
    author: dict[str, str] | None = None
    """Who the comments posted are by (the bot unless set)."""

    def writes(self) -> list[Request]:
        return [r for r in self.requests if r.method != "GET"]

    def handle(self, method: str, target: str, body: Any) -> tuple[int, dict[str, str], Any]:
        if self.failures:
            status, headers = self.failures.pop(0)
            return status, headers, {"message": "API rate limit exceeded"}
        parts = urllib.parse.urlsplit(target)
        query = urllib.parse.parse_qs(parts.query)
        path = parts.path
        if m := re.fullmatch(r"/repos/example/serve/issues/(\d+)/comments", path):
            number = int(m.group(1))
            if method == "POST":
                self.next_id += 1
                made = {"id": self.next_id, "body": body["body"], "user": self.author or BOT}
                self.comments.setdefault(number, []).append(made)
                return 201, {}, made
            per_page = int(query.get("per_page", ["30"])[0])
            page = int(query.get("page", ["1"])[0])
            items = self.comments.get(number, [])
            headers = {}
            if page * per_page < len(items):
                following = f"{self.url}{path}?per_page={per_page}&page={page + 1}"
                headers["Link"] = f'<{following}>; rel="next", <{following}>; rel="last"'
            return 200, headers, items[(page - 1) * per_page : page * per_page]
        if m := re.fullmatch(r"/repos/example/serve/issues/comments/(\d+)", path):
            for items in self.comments.values():
                for item in items:
                    if item["id"] == int(m.group(1)):
                        if method == "DELETE":
                            items.remove(item)
                            return 204, {}, None
                        item["body"] = body["body"]
                        return 200, {}, item
            return 404, {}, {"message": "Not Found"}
        if path == "/user":
            if self.user is None:
                return 403, {}, {"message": "Resource not accessible by integration"}
            return 200, {}, self.user
        if re.fullmatch(r"/repos/example/serve/issues/\d+/labels(/.+)?", path):
            return 200, {}, [{"name": n} for n in (body or {}).get("labels", [])]
        return 404, {}, {"message": "Not Found"}


BOT = {"login": "github-actions[bot]", "type": "Bot"}
HUMAN = {"login": "octocat", "type": "User"}


@pytest.fixture
def api() -> Iterator[FakeGitHub]:
    fake = FakeGitHub()

    class Handler(QuietHandler):
        def _any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            headers = {name.lower(): value for name, value in self.headers.items()}
            fake.requests.append(Request(self.command, self.path, headers, body))
            status, headers, data = fake.handle(self.command, self.path, body)
            if isinstance(data, bytes):
                out = data  # sent as it is: a body that is not JSON, or not whole
            else:
                out = b"" if data is None else json.dumps(data).encode()
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            # The client may go having read enough of it (an error's body, in part).
            with contextlib.suppress(OSError):
                self.wfile.write(out)

        do_GET = do_POST = do_PATCH = do_DELETE = _any

    with local_server(Handler) as url:
        fake.url = url.rstrip("/")
        yield fake


@dataclass
class Outcome:
    code: int
    out: str
    err: str
    summary: str
    outputs: dict[str, str]
    waits: list[float]

    @property
    def matches(self) -> list[dict[str, Any]]:
        return json.loads(self.outputs["matches"])  # type: ignore[no-any-return]


@pytest.fixture
def triage(
    site: Built,
    api: FakeGitHub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
):  # type: ignore[no-untyped-def]
    """Run ``errdex triage`` on an event of tests/triage/ as a workflow step would."""
    waits: list[float] = []
    monkeypatch.setattr(github, "pause", waits.append)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_test-token")
    monkeypatch.setenv("GITHUB_API_URL", api.url)
    monkeypatch.delenv("GITHUB_EVENT_NAME", raising=False)
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)

    def call(event: str, *flags: str, site_url: str | None = None) -> Outcome:
        summary, outputs = tmp_path / "summary.md", tmp_path / "output.txt"
        for path in (summary, outputs):
            path.write_text("")
        monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
        monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
        waits.clear()
        capsys.readouterr()
        argv = ["triage", "--event", str(EVENTS / event), "--site", site_url or site.url]
        code = main([*argv, "--cache", str(tmp_path / "cache"), *flags])
        captured = capsys.readouterr()
        pairs = [line.split("=", 1) for line in outputs.read_text().splitlines()]
        return Outcome(
            code, captured.out, captured.err, summary.read_text(), dict(pairs), list(waits)
        )

    return call


def test_a_new_issue_gets_one_comment_linking_its_page_with_its_values(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub, site: Built
) -> None:
    page = site.page_of("example/serve/divisible.yaml")

    result = triage("opened.json", "--mode", "comment")

    assert result.code == 0, result.err
    # Listed first: a run again of the same event does not post twice.
    assert [(r.method, r.path) for r in api.requests] == [
        ("GET", "/repos/example/serve/issues/7/comments?per_page=100"),
        ("POST", "/repos/example/serve/issues/7/comments"),
    ]
    posted = api.requests[1]
    assert posted.headers["authorization"] == "Bearer ghs_test-token"
    assert posted.headers["accept"] == "application/vnd.github+json"
    assert posted.headers["x-github-api-version"] == "2022-11-28"
    assert posted.headers["user-agent"].startswith("errdex/")
    text = posted.body["body"]
    assert text.startswith(MARKER)
    assert f"]({page['url']})" in text
    assert "`tp` = `8`, `dp` = `3`" in text
    assert "raised in v1.0, v1.1" in text
    assert "Wrong match?" in text
    assert result.outputs["matched"] == "true"
    assert [(m["id"], m["url"]) for m in result.matches] == [(page["id"], page["url"])]
    assert result.matches[0]["confidence"] >= 0.9
    assert page["url"] in result.summary


def test_an_issue_whose_title_is_the_error_gets_its_page(  # type: ignore[no-untyped-def]
    triage, site: Built, tmp_path: Path
) -> None:
    event = json.loads((EVENTS / "opened.json").read_text())
    event["issue"]["title"] = "tensor_parallel_size=8 must be divisible by data_parallel_size=3."
    event["issue"]["body"] = "It fails at startup with my usual flags, on two nodes."
    path = tmp_path / "titled.json"
    path.write_text(json.dumps(event))

    result = triage(str(path))

    page = site.page_of("example/serve/divisible.yaml")
    assert result.code == 0, result.err
    assert [(m["id"], m["line"]) for m in result.matches] == [(page["id"], None)]


def test_an_edit_updates_the_same_comment_then_deletes_it_with_the_traceback(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub
) -> None:
    # People talked on the issue first: errdex's comment is on the second page of 100.
    api.comments[7] = [{"id": n, "body": f"me too {n}", "user": HUMAN} for n in range(1, 121)]
    assert triage("opened.json", "--mode", "comment").code == 0
    (ours,) = [c for c in api.comments[7] if c["user"] == BOT]
    api.requests.clear()

    assert triage("edited.json", "--mode", "comment").code == 0

    # A marked comment: /user says whose token this is (403: a workflow's, the bot's).
    assert [(r.method, r.path) for r in api.requests] == [
        ("GET", "/repos/example/serve/issues/7/comments?per_page=100"),
        ("GET", "/repos/example/serve/issues/7/comments?per_page=100&page=2"),
        ("GET", "/user"),
        ("PATCH", f"/repos/example/serve/issues/comments/{ours['id']}"),
    ]
    assert "`tp` = `6`, `dp` = `4`" in ours["body"]
    api.requests.clear()

    # The same edit again: the comment says so already.
    assert triage("edited.json", "--mode", "comment").code == 0
    assert api.writes() == []

    result = triage("edited-traceback-removed.json", "--mode", "comment")

    assert result.code == 0
    assert [(r.method, r.path) for r in api.writes()] == [
        ("DELETE", f"/repos/example/serve/issues/comments/{ours['id']}")
    ]
    assert [c for c in api.comments[7] if c["user"] == BOT] == []
    assert len(api.comments[7]) == 120
    assert result.outputs == {"matched": "false", "matches": "[]", "comment-id": ""}


def test_a_persons_comment_that_carries_the_marker_is_left_alone(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub
) -> None:
    api.comments[7] = [{"id": 1, "body": MARKER + " gotcha", "user": HUMAN}]

    assert triage("edited-traceback-removed.json", "--mode", "comment").code == 0
    assert triage("edited.json", "--mode", "comment").code == 0

    assert [r.method for r in api.writes()] == ["POST"]
    assert api.comments[7][0]["body"] == MARKER + " gotcha"


def test_a_comment_posted_with_a_persons_token_is_found_again_as_theirs(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub
) -> None:
    maintainer = {"login": "maint", "type": "User"}
    api.user = api.author = maintainer
    api.comments[7] = [{"id": 1, "body": MARKER + " gotcha", "user": HUMAN}]
    assert triage("opened.json", "--mode", "comment").code == 0
    (ours,) = [c for c in api.comments[7] if c["user"] == maintainer]
    api.requests.clear()

    assert triage("edited.json", "--mode", "comment").code == 0

    # The same comment is updated: not a second one, and never octocat's.
    assert [(r.method, r.path) for r in api.writes()] == [
        ("PATCH", f"/repos/example/serve/issues/comments/{ours['id']}")
    ]
    assert ("GET", "/user") in [(r.method, r.path) for r in api.requests]
    assert api.comments[7][0]["body"] == MARKER + " gotcha"


def test_a_post_that_fails_is_not_sent_again(triage, api: FakeGitHub) -> None:  # type: ignore[no-untyped-def]
    api.comments[7] = []
    # The listing answers; the POST gets a 502 (GitHub may have made the comment anyway).
    api.failures = []
    original = api.handle

    def flaky(method: str, target: str, body: Any) -> tuple[int, dict[str, str], Any]:
        if method == "POST":
            return 502, {}, {"message": "Bad Gateway"}
        return original(method, target, body)

    api.handle = flaky  # type: ignore[method-assign]
    result = triage("edited.json", "--mode", "comment")

    assert result.code == 0
    assert re.search(r"^::warning title=errdex triage::GitHub: POST .*502", result.out, re.M)
    assert [r.method for r in api.writes()] == ["POST"]
    assert result.waits == []


def test_the_label_is_added_only_when_asked(triage, api: FakeGitHub) -> None:  # type: ignore[no-untyped-def]
    assert triage("opened.json", "--mode", "comment").code == 0
    assert not any("labels" in r.path for r in api.requests)

    assert triage("edited.json", "--mode", "comment", "--label", "errdex-matched").code == 0

    labelled = [r for r in api.requests if "labels" in r.path]
    assert [(r.method, r.path, r.body) for r in labelled] == [
        ("POST", "/repos/example/serve/issues/7/labels", {"labels": ["errdex-matched"]})
    ]


def test_an_errdex_comment_asks_for_a_triage_and_other_comments_do_not(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub, site: Built
) -> None:
    assert triage("comment-chat.json", "--mode", "comment").code == 0
    assert api.requests == []

    result = triage("comment-command.json", "--mode", "comment")

    assert result.code == 0
    (posted,) = api.writes()
    assert posted.path == "/repos/example/serve/issues/9/comments"
    assert site.page_of("example/serve/pipeline.yaml")["url"] in posted.body["body"]


@pytest.mark.parametrize(
    ("event", "why"),
    [
        ("pull-request.json", "pull request"),
        ("pull-request-comment.json", "pull request"),
        ("bot.json", "is a bot"),
        ("closed-edited.json", "closed"),
        ("skip-label.json", "labelled errdex-skip"),
    ],
)
def test_pull_requests_bots_closed_and_opted_out_issues_get_no_request_at_all(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub, site: Built, event: str, why: str
) -> None:
    site.paths.clear()

    result = triage(event, "--mode", "comment", "--label", "errdex-matched")

    assert result.code == 0
    assert api.requests == []
    assert site.paths == []
    assert why in result.summary
    assert result.outputs["matched"] == "false"


@pytest.mark.parametrize("event", ["no-match.json", "feature-request.json"])
def test_an_issue_without_a_known_error_gets_no_comment(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub, event: str
) -> None:
    result = triage(event, "--mode", "comment", "--label", "errdex-matched")

    assert result.code == 0
    assert api.requests == []
    assert result.outputs == {"matched": "false", "matches": "[]", "comment-id": ""}


def test_the_default_is_a_dry_run_that_writes_the_summary_and_outputs(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub, site: Built, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN")
    page = site.page_of("example/serve/divisible.yaml")

    result = triage("opened.json")

    assert result.code == 0, result.err
    assert api.requests == []
    assert result.matches[0]["id"] == page["id"]
    assert {"id", "url", "score", "confidence", "wording", "releases"} <= set(result.matches[0])
    assert result.matches[0]["releases"] == ["v1.0", "v1.1"]
    assert f"]({page['url']})" in result.summary
    assert "nothing was posted" in result.summary
    assert result.outputs["comment-id"] == ""


@pytest.mark.parametrize(
    "limited",
    [
        (429, {"Retry-After": "3"}),
        (403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "RESET"}),
    ],
    ids=["429-retry-after", "403-ratelimit-reset"],
)
def test_a_rate_limit_is_waited_out_then_the_comment_is_posted(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub, limited: tuple[int, dict[str, str]]
) -> None:
    status, headers = limited
    headers = {k: str(int(time.time()) + 5) if v == "RESET" else v for k, v in headers.items()}
    api.failures = [(status, headers)]

    result = triage("opened.json", "--mode", "comment")

    assert result.code == 0
    assert "::warning" not in result.out
    assert [r.method for r in api.requests] == ["GET", "GET", "POST"]
    assert len(api.comments[7]) == 1
    (waited,) = result.waits
    assert waited == 3 if status == 429 else 3 <= waited <= 6


def test_a_rate_limit_longer_than_the_budget_is_a_warning_not_a_failure(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub
) -> None:
    api.failures = [(429, {"Retry-After": "600"})]

    result = triage("opened.json", "--mode", "comment")

    assert result.code == 0
    assert result.waits == []
    assert re.search(r"^::warning title=errdex triage::GitHub: .*429", result.out, re.M)
    assert 7 not in api.comments


def test_an_api_that_is_down_is_a_warning_after_bounded_retries(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub
) -> None:
    api.failures = [(500, {})] * 50

    result = triage("edited.json", "--mode", "comment")

    assert result.code == 0
    assert re.search(r"^::warning title=errdex triage::GitHub: .*500", result.out, re.M)
    assert result.waits == [1, 2, 4, 8, 16]  # 32 s more would pass the 60 s budget
    assert api.writes() == []


def test_a_site_that_cannot_be_reached_is_a_warning_and_changes_nothing(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub
) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]

    result = triage(
        "edited-traceback-removed.json", "--mode", "comment", site_url=f"http://127.0.0.1:{port}/"
    )

    assert result.code == 0
    assert re.search(r"^::warning title=errdex triage::the site's search index", result.out, re.M)
    assert api.requests == []  # the comment stays: no match is not the same as no answer


def test_only_usage_errors_fail(triage, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "garbage.json").write_text("{not json")
    assert triage("missing.json").code == 1
    assert triage(str(tmp_path / "garbage.json")).code == 1
    monkeypatch.delenv("GITHUB_TOKEN")
    result = triage("opened.json", "--mode", "comment")
    assert result.code == 1
    assert "GITHUB_TOKEN" in result.err
    with pytest.raises(SystemExit) as exited:
        main(["triage", "--site", "x", "--mode", "loud"])
    assert exited.value.code == 2


# --- The action and the documented workflow -----------------------------------------


def _runs(steps: list[dict[str, Any]]) -> list[str]:
    return [step["run"] for step in steps if "run" in step]


def test_the_action_passes_inputs_through_env_never_into_a_script() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    steps = action["runs"]["steps"]

    assert action["runs"]["using"] == "composite"
    assert {"site-url", "mode"} <= set(action["inputs"])
    assert set(action["outputs"]) == {"matched", "matches", "comment-id"}
    for script in _runs(steps):
        assert "${{" not in script, script
    assert any("actions/setup-python" in step.get("uses", "") for step in steps)
    env = {k: v for step in steps for k, v in step.get("env", {}).items()}
    assert "github.action_path" in env.get("ACTION_PATH", "")
    assert "inputs.site-url" in env["SITE_URL"]
    # Every control of the command is an input, and the script passes each on.
    from errdex.cli import _parser

    commands = next(a for a in _parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    options = {
        option
        for action in commands.choices["triage"]._actions  # type: ignore[attr-defined]
        for option in action.option_strings
        if option.startswith("--")
    }
    # Not inputs: where the event and site are (the workflow's), the cache, the timeout,
    # -q (what the log shows, not what triage does), and trying it on a text by hand.
    controls = options - {
        "--help",
        "--event",
        "--event-name",
        "--text",
        "--title",
        "--json",
        "--site",
        "--cache",
        "--timeout",
        "--quiet",
    }
    assert {f"--{name}" for name in action["inputs"]} >= controls - {"--site"}
    script = "\n".join(_runs(steps))
    assert all(flag in script for flag in controls), controls


def test_setup_python_is_pinned_by_commit_and_leaves_the_jobs_python_alone() -> None:
    text = (ROOT / "action.yml").read_text()
    steps = yaml.safe_load(text)["runs"]["steps"]
    (setup,) = [s for s in steps if s.get("uses", "").startswith("actions/setup-python@")]
    # Before: @v5, a tag its owner can move to other code.
    assert re.fullmatch(r"actions/setup-python@[0-9a-f]{40}", setup["uses"]), setup["uses"]
    assert re.search(re.escape(setup["uses"]) + r" # v5\.\d+\.\d+\n", text)
    assert setup["with"]["update-environment"] is False


# --- The action's steps, run by bash as a runner runs them ---------------------------

STUB_PYTHON = """\
#!{python}
# The Python setup-python gives, for the action's steps: each call is recorded; ``-m venv``
# makes a virtual environment of this stub, ``-m pip`` installs nothing, and ``-m errdex``
# runs the real errdex.
import json, os, sys
with open(os.environ["STUB_LOG"], "a") as log:
    call = {{"python": sys.argv[0], "argv": sys.argv[1:], "env": dict(os.environ)}}
    log.write(json.dumps(call) + "\\n")
if sys.argv[1:3] == ["-m", "venv"]:
    os.makedirs(os.path.join(sys.argv[3], "bin"))
    os.symlink({stub!r}, os.path.join(sys.argv[3], "bin", "python"))
elif sys.argv[1:3] == ["-m", "errdex"]:
    os.execv({python!r}, [{python!r}, *sys.argv[1:]])
"""
FOREIGN = """\
#!/bin/sh
# The job's own {name}: the action must not run it.
echo '{{"python": "{name}", "argv": [], "env": {{}}}}' >> "$STUB_LOG"
exit 97
"""
WORKFLOW_TOKEN = "ghs_workflow-token"


@dataclass
class ActionRun:
    setup: dict[str, str]
    """What setup-python was given."""
    calls: list[dict[str, Any]]
    """Each run of a Python: ``python`` (its path), ``argv`` and ``env``."""
    outputs: dict[str, str]
    """The action's outputs."""
    temp: Path
    """$RUNNER_TEMP."""


def _step_outputs(text: str) -> dict[str, str]:
    """A $GITHUB_OUTPUT file: ``name=value`` lines and ``name<<DELIMITER`` blocks."""
    found: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, end = line.split("<<", 1)
            found[name] = "\n".join(iter(lambda: next(lines), end))
        elif line:
            name, value = line.split("=", 1)
            found[name] = value
    return found


def run_action(
    tmp_path: Path, api: FakeGitHub, given: dict[str, str], event: str = "opened.json"
) -> ActionRun:
    """action.yml as a runner runs it: setup-python stands in as a stub Python, each
    ``run:`` step is run by bash with its ``env:`` evaluated, and outputs flow through
    $GITHUB_OUTPUT files. The job's own errdex, python and python3 are on PATH, as
    stubs that fail."""
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    bin_dir, temp, work = tmp_path / "bin", tmp_path / "runner-temp", tmp_path / "work"
    for folder in (bin_dir, temp, work):
        folder.mkdir()
    stub = tmp_path / "setup-python" / "bin" / "python3"
    stub.parent.mkdir(parents=True)
    stub.write_text(STUB_PYTHON.format(python=sys.executable, stub=str(stub)))
    stub.chmod(0o755)
    for name in ("errdex", "python", "python3"):
        (bin_dir / name).write_text(FOREIGN.format(name=name))
        (bin_dir / name).chmod(0o755)
    log = tmp_path / "calls.jsonl"
    log.touch()
    base = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "RUNNER_TEMP": str(temp),
        "GITHUB_EVENT_PATH": str(EVENTS / event),
        "GITHUB_EVENT_NAME": "issues",
        "GITHUB_API_URL": api.url,
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "STUB_LOG": str(log),
    }
    context = {
        "github.action_path": str(ROOT),
        "github.token": WORKFLOW_TOKEN,
        "runner.temp": str(temp),
    }
    steps: dict[str, dict[str, str]] = {}
    inputs: dict[str, str] = {}

    def value(text: object) -> str:
        if isinstance(text, bool):
            return str(text).lower()

        def one(found: re.Match[str]) -> str:
            expression = found[1].strip()
            if expression.startswith("inputs."):
                return inputs[expression.removeprefix("inputs.")]
            if expression.startswith("steps."):
                step, outputs, name = expression.removeprefix("steps.").split(".", 2)
                assert outputs == "outputs", expression
                return steps[step].get(name, "")
            return context[expression]

        return re.sub(r"\$\{\{(.*?)\}\}", one, str(text))

    for name, spec in action["inputs"].items():
        assert name in given or not spec.get("required"), f"{name} is required"
        inputs[name] = given[name] if name in given else value(spec.get("default", ""))
    setup: dict[str, str] = {}
    for number, step in enumerate(action["runs"]["steps"]):
        if "uses" in step:
            assert step["uses"].startswith("actions/setup-python@"), step["uses"]
            setup = {name: value(v) for name, v in step.get("with", {}).items()}
            outputs = {"python-path": str(stub), "python-version": setup["python-version"]}
        else:
            assert step["shell"] == "bash"
            script, output = tmp_path / f"step-{number}.sh", tmp_path / f"output-{number}"
            script.write_text(step["run"])
            output.touch()
            env = {name: value(v) for name, v in step.get("env", {}).items()}
            bash = shutil.which("bash") or "bash"
            done = subprocess.run(
                # How a runner runs a step of shell: bash.
                [bash, "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                env={**base, **env, "GITHUB_OUTPUT": str(output)},
                cwd=work,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 0, (step.get("name"), done.stdout, done.stderr)
            outputs = _step_outputs(output.read_text())
        if "id" in step:
            steps[step["id"]] = outputs
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    return ActionRun(
        setup,
        calls,
        {name: value(spec["value"]) for name, spec in action["outputs"].items()},
        temp,
    )


def test_the_action_passes_each_input_to_its_flag_and_keeps_its_sites_comment(  # type: ignore[no-untyped-def]
    site: Built, api: FakeGitHub, tmp_path: Path
) -> None:
    given = {
        "site-url": site.url,
        "mode": "comment",
        "min-confidence": "0.85",
        "min-own-text": "12",
        "limit": "2",
        "any-exception": "true",
        "label": "errdex-found",
        "skip-label": "wontfix",
        "max-wait": "7",
        "id": "docs",
        "python-version": "3.12",
        "github-token": "ghs_from-input",
    }
    # Every input is given here: a new one is wired and tested, or this fails.
    assert set(given) == set(yaml.safe_load((ROOT / "action.yml").read_text())["inputs"])

    ran = run_action(tmp_path, api, given)

    assert ran.setup == {"python-version": "3.12", "update-environment": "false"}
    venv, pip, errdex = ran.calls  # and neither the job's errdex, nor its python
    made = Path(venv["argv"][2])
    assert venv["argv"][:2] == ["-m", "venv"] and made.parent == ran.temp
    assert Path(pip["python"]) == made / "bin" / "python"
    # The core package only, from the action's own checkout: no extra.
    quiet = ("--quiet", "--disable-pip-version-check")
    assert pip["argv"] == ["-m", "pip", "install", *quiet, str(ROOT)]
    assert Path(errdex["python"]) == made / "bin" / "python"
    assert errdex["argv"] == [
        *("-m", "errdex", "triage"),
        *("--event", str(EVENTS / "opened.json")),
        *("--site", site.url),
        *("--mode", "comment"),
        *("--min-confidence", "0.85"),
        *("--min-own-text", "12"),
        *("--limit", "2"),
        *("--skip-label", "wontfix"),
        *("--max-wait", "7"),
        *("--label", "errdex-found"),
        "--any-exception",
        *("--id", "docs"),
    ]
    assert errdex["env"]["GITHUB_TOKEN"] == "ghs_from-input"
    # errdex ran for real: the comment carries this site's marker, and its id is an output.
    (posted,) = api.comments[7]
    assert posted["body"].startswith("<!-- errdex-triage:docs -->\n")
    assert ran.outputs["comment-id"] == str(posted["id"])
    assert ran.outputs["matched"] == "true"
    assert json.loads(ran.outputs["matches"])[0]["id"] in posted["body"]
    assert ("POST", "/repos/example/serve/issues/7/labels") in [
        (r.method, r.path) for r in api.writes()
    ]
    assert api.requests[-1].headers["authorization"] == "Bearer ghs_from-input"


def test_the_actions_defaults_are_a_dry_run_without_an_id(  # type: ignore[no-untyped-def]
    site: Built, api: FakeGitHub, tmp_path: Path
) -> None:
    ran = run_action(tmp_path, api, {"site-url": site.url})

    assert ran.setup == {"python-version": "3.11", "update-environment": "false"}
    assert ran.calls[-1]["argv"] == [
        *("-m", "errdex", "triage"),
        *("--event", str(EVENTS / "opened.json")),
        *("--site", site.url),
        *("--mode", "summary"),
        *("--min-confidence", "0.9"),
        *("--min-own-text", "16"),
        *("--limit", "3"),
        *("--skip-label", "errdex-skip"),
        *("--max-wait", "60"),
    ]
    assert ran.calls[-1]["env"]["GITHUB_TOKEN"] == WORKFLOW_TOKEN
    assert api.requests == []
    assert ran.outputs["matched"] == "true"
    assert ran.outputs["comment-id"] == ""
    assert "<!-- errdex-triage -->" in (tmp_path / "summary.md").read_text()


def test_an_issues_text_never_reaches_the_actions_shell(  # type: ignore[no-untyped-def]
    site: Built, api: FakeGitHub, tmp_path: Path
) -> None:
    sneaky = "$(touch pwned) `touch pwned` ; touch pwned"
    ran = run_action(tmp_path, api, {"site-url": site.url, "label": sneaky, "id": ""})

    assert ran.calls[-1]["argv"][-2:] == ["--label", sneaky]
    assert not list(tmp_path.rglob("pwned"))


def test_two_sites_keep_a_comment_each_by_their_id(triage, api: FakeGitHub) -> None:  # type: ignore[no-untyped-def]
    first = triage("opened.json", "--mode", "comment", "--id", "docs")
    second = triage("opened.json", "--mode", "comment", "--id", "api.v2")

    # Before: one marker for every site, so the second site's run took the first's comment.
    assert first.code == second.code == 0, second.err
    docs, v2 = api.comments[7]
    assert docs["body"].startswith("<!-- errdex-triage:docs -->\n")
    assert v2["body"].startswith("<!-- errdex-triage:api.v2 -->\n")
    assert (first.outputs["comment-id"], second.outputs["comment-id"]) == (
        str(docs["id"]),
        str(v2["id"]),
    )
    api.requests.clear()

    edited = triage("edited.json", "--mode", "comment", "--id", "docs")
    assert [(r.method, r.path) for r in api.writes()] == [
        ("PATCH", f"/repos/example/serve/issues/comments/{docs['id']}")
    ]
    assert edited.outputs["comment-id"] == str(docs["id"])
    api.requests.clear()
    again = triage("edited.json", "--mode", "comment", "--id", "docs")
    assert api.writes() == [] and again.outputs["comment-id"] == str(docs["id"])

    # A site without an id takes neither for its own.
    plain = triage("edited.json", "--mode", "comment")
    assert api.comments[7][2]["body"].startswith(MARKER + "\n")
    assert plain.outputs["comment-id"] == str(api.comments[7][2]["id"])
    api.requests.clear()

    gone = triage("edited-traceback-removed.json", "--mode", "comment", "--id", "api.v2")
    assert [(r.method, r.path) for r in api.writes()] == [
        ("DELETE", f"/repos/example/serve/issues/comments/{v2['id']}")
    ]
    assert gone.outputs["comment-id"] == ""
    assert [c["id"] for c in api.comments[7]] == [docs["id"], api.comments[7][1]["id"]]


@pytest.mark.parametrize("bad", ["", "a -->", "-x", "two words", "x" * 65, "é"])
def test_an_id_that_could_break_the_marker_is_a_usage_error(triage, bad: str) -> None:  # type: ignore[no-untyped-def]
    result = triage("opened.json", f"--id={bad}")
    assert result.code == 1
    assert "--id must be 1 to 64 letters" in result.err


def test_the_documented_workflow_gives_issues_write_to_the_comment_job_alone() -> None:
    docs = (ROOT / "docs" / "lookup-and-triage.md").read_text()
    section = docs.split("## Triage of GitHub issues", 1)[1].split("\n## ", 1)[0]
    workflow = yaml.safe_load(section.split("```yaml\n", 1)[1].split("```", 1)[0])
    jobs = workflow["jobs"]

    writers = [name for name, job in jobs.items() if job["permissions"].get("issues") == "write"]
    assert writers == ["comment"]
    assert jobs["summary"]["permissions"] == {"contents": "read"}
    for job in jobs.values():
        for script in _runs(job["steps"]):
            assert "${{" not in script, script
    assert [step["uses"] for step in jobs["comment"]["steps"]] == ["errdex/errdex@v1"]
    assert jobs["comment"]["steps"][0]["with"]["mode"] == "comment"
    assert "mode" not in jobs["summary"]["steps"][0]["with"]  # the default: a dry run


def test_the_label_goes_when_the_matches_go(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub, tmp_path: Path
) -> None:
    event = json.loads((EVENTS / "edited-traceback-removed.json").read_text())
    event["issue"]["labels"] = [{"name": "errdex-matched"}]
    labelled = tmp_path / "labelled.json"
    labelled.write_text(json.dumps(event))

    assert triage(str(labelled), "--mode", "comment", "--label", "errdex-matched").code == 0

    assert [(r.method, r.path) for r in api.writes()] == [
        ("DELETE", "/repos/example/serve/issues/7/labels/errdex-matched")
    ]


# --- Line breaks, and text no output can hold ----------------------------------------


def test_a_body_with_cr_line_breaks_is_read_by_its_own_lines(  # type: ignore[no-untyped-def]
    triage, tmp_path: Path
) -> None:
    event = json.loads((EVENTS / "edited.json").read_text())
    body = event["issue"]["body"].replace("\n", "\r")
    event["issue"]["body"] = body
    (tmp_path / "cr.json").write_text(json.dumps(event))
    line = next(n for n, text in enumerate(body.split("\r"), 1) if text.startswith("ValueError"))

    result = triage(str(tmp_path / "cr.json"))

    # Before: "read from the /errdex comment, line 13": the body counted as one line.
    assert result.matches[0]["line"] == line
    assert f"read from line {line}: `ValueError: tensor_parallel_size=6" in result.summary
    assert "/errdex comment" not in result.summary


def test_a_command_after_a_body_with_cr_line_breaks_names_its_own_line(  # type: ignore[no-untyped-def]
    triage, tmp_path: Path
) -> None:
    event = json.loads((EVENTS / "comment-command.json").read_text())
    event["issue"]["body"] = "It fails.\rLogs below.\r"
    event["comment"]["body"] = "/errdex\r\rhere it is:\r" + PIPELINE
    (tmp_path / "command.json").write_text(json.dumps(event))

    result = triage(str(tmp_path / "command.json"))

    assert "read from the /errdex comment, line 2: ``NotImplementedError" in result.summary


def test_an_action_no_utf8_can_hold_is_said_without_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    event = json.loads((EVENTS / "edited.json").read_text())
    event["action"] = "\ud800"
    path = tmp_path / "surrogate.json"
    path.write_text(json.dumps(event))  # "\ud800" as JSON writes it
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_EVENT_NAME", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)

    # Before: UnicodeEncodeError writing the summary to standard output.
    code = main(["triage", "--event", str(path), "--site", "http://127.0.0.1:9/"])

    assert code == 0
    assert "not issues ?" in capsys.readouterr().out


# --- A GitHub that answers slowly or oddly -------------------------------------------


@pytest.fixture
def trickle() -> Iterator[Any]:
    """An API that answers one byte every half second: from the status line on, or
    after whole headers; at most for 15 s."""
    with contextlib.ExitStack() as servers:

        def start(part: str) -> str:
            body = b"[]" + b" " * 100
            head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            head += b"Content-Length: %d\r\n\r\n" % len(body)

            def answer(conn: socket.socket) -> None:
                conn.recv(65536)
                slow = head + body if part == "headers" else body
                if part == "body":
                    conn.sendall(head)
                ends = time.monotonic() + 15
                for byte in slow:
                    if time.monotonic() > ends:
                        return
                    conn.sendall(bytes([byte]))
                    time.sleep(0.5)

            return f"http://127.0.0.1:{servers.enter_context(socket_server(answer))}"

        yield start


@pytest.mark.parametrize("part", ["headers", "body"])
def test_an_api_that_trickles_ends_the_run_within_the_timeout(  # type: ignore[no-untyped-def]
    triage, trickle, monkeypatch: pytest.MonkeyPatch, part: str
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", trickle(part))
    monkeypatch.setattr(github, "pause", time.sleep)  # the retry's wait is waited too
    started = time.monotonic()

    result = triage("edited.json", "--mode", "comment", "--timeout", "1", "--max-wait", "2")

    # Before: each header byte came within the socket's timeout: 15 s, the server's end.
    # Now: an attempt of 1 s, a wait of 1 s and another attempt, then the budget is spent.
    assert time.monotonic() - started < 5
    assert result.code == 0
    assert re.search(r"^::warning title=errdex triage::GitHub: GET .* failed", result.out, re.M)
    assert "GitHub could not be told" in result.summary


NESTED = b"[" * 200_000 + b"]" * 200_000


@pytest.mark.parametrize(
    "answer",
    [
        (429, {"Retry-After": "\u00b2"}, {"message": "slow down"}),
        (403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "\u00b9\u00b2"}, None),
        (429, {"Retry-After": "-5", "x-ratelimit-reset": "-1700000000"}, None),
        (429, {"Retry-After": "9" * 400}, None),
        (200, {}, NESTED),
        (502, {}, b'{"message": "' + b"[" * 60_000 + b'"}'),
        (403, {}, b'{"message": ' + b"[" * 60_000 + b"]" * 60_000 + b"}"),
        (403, {}, {"message": "no \ud800 surrogate"}),
    ],
    ids=[
        "retry-after-superscript",
        "reset-superscripts",
        "negative",
        "huge",
        "nested-list",
        "unclosed-message",
        "nested-message",
        "surrogate-message",
    ],
)
def test_an_odd_answer_is_a_warning_with_a_summary_not_a_traceback(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub, answer: tuple[int, dict[str, str], Any]
) -> None:
    status, headers, data = answer
    api.handle = lambda method, target, body: (status, headers, data)  # type: ignore[method-assign]

    # Before: ValueError from float("²"), RecursionError from json, UnicodeEncodeError.
    result = triage("edited.json", "--mode", "comment")

    assert result.code == 0, result.err
    assert re.search(r"^::warning title=errdex triage::GitHub: GET ", result.out, re.M)
    assert "GitHub could not be told" in result.summary
    assert api.writes() == []
    assert sum(result.waits) <= 60


# --- Whose comment it is ------------------------------------------------------------

MAINTAINER = {"login": "maint", "type": "User"}


def _ours(api: FakeGitHub, number: int = 7) -> list[dict[str, Any]]:
    """The comments triage posted on issue ``number``."""
    return [c for c in api.comments.get(number, []) if c["user"] == (api.author or BOT)]


@pytest.mark.parametrize("failure", ["502", "429", "hang"])
def test_a_passing_failure_of_user_posts_nothing(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub, failure: str
) -> None:
    # A person's token: its comment is found again as theirs, which /user tells.
    api.user = api.author = MAINTAINER
    assert triage("opened.json", "--mode", "comment").code == 0
    (ours,) = _ours(api)
    api.requests.clear()
    release = threading.Event()
    original = api.handle

    def user_fails(method: str, target: str, body: Any) -> tuple[int, dict[str, str], Any]:
        if target != "/user":
            return original(method, target, body)
        if failure == "502":
            return 502, {}, {"message": "Bad Gateway"}
        if failure == "429":
            return 429, {"Retry-After": "600"}, {"message": "API rate limit exceeded"}
        release.wait(20)
        return original(method, target, body)

    api.handle = user_fails  # type: ignore[method-assign]
    try:
        result = triage("edited.json", "--mode", "comment", "--timeout", "1", "--max-wait", "2")
    finally:
        release.set()

    # Before: /user failing read as "no user", so the comment was not ours: a second one.
    assert result.code == 0, result.err
    assert api.writes() == []
    assert _ours(api) == [ours]
    assert re.search(r"^::warning title=errdex triage::GitHub: GET /user ", result.out, re.M)
    assert "GitHub could not be told" in result.summary


def test_a_marker_under_another_bots_name_is_not_triages_own(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub
) -> None:
    assert triage("opened.json", "--mode", "comment").code == 0
    (ours,) = _ours(api)
    other = {"login": "helper-app[bot]", "type": "Bot"}
    # Placed first, saying what triage would say: it cannot silence triage, nor be edited.
    pasted = {"id": 1, "body": ours["body"].replace("`8`", "`6`"), "user": other}
    api.comments[7].insert(0, pasted)
    api.requests.clear()

    assert triage("edited.json", "--mode", "comment").code == 0

    # Before: any bot's marked comment was ours: the other bot's was edited, ours deleted.
    assert [(r.method, r.path) for r in api.writes()] == [
        ("PATCH", f"/repos/example/serve/issues/comments/{ours['id']}")
    ]
    assert api.comments[7][0] == pasted


def test_a_marker_alone_never_makes_a_comment_ours(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub
) -> None:
    other = {"login": "helper-app[bot]", "type": "Bot"}
    api.comments[7] = [{"id": 1, "body": MARKER + "\nnothing to see", "user": other}]

    assert triage("edited.json", "--mode", "comment").code == 0

    assert [r.method for r in api.writes()] == ["POST"]
    assert api.comments[7][0]["body"] == MARKER + "\nnothing to see"


def test_comments_past_fifty_pages_are_a_warning_not_a_second_comment(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub
) -> None:
    assert triage("opened.json", "--mode", "comment").code == 0
    (ours,) = _ours(api)
    chat = [{"id": n, "body": "me too", "user": HUMAN} for n in range(1, 5001)]
    api.comments[7] = [*chat, ours]  # ours is on page 51
    api.requests.clear()

    result = triage("edited.json", "--mode", "comment")

    # Before: the 50 pages read held no comment of ours, so a second one was posted.
    assert result.code == 0
    assert api.writes() == []
    assert re.search(
        r"^::warning title=errdex triage::GitHub: .*more than 50 pages", result.out, re.M
    )


def test_a_next_page_elsewhere_is_a_warning_not_a_second_comment(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub
) -> None:
    original = api.handle

    def elsewhere(method: str, target: str, body: Any) -> tuple[int, dict[str, str], Any]:
        status, headers, data = original(method, target, body)
        if method == "GET" and target.endswith("/comments?per_page=100"):
            headers = {"Link": '<https://elsewhere.test/comments?page=2>; rel="next"'}
        return status, headers, data

    api.handle = elsewhere  # type: ignore[method-assign]

    result = triage("edited.json", "--mode", "comment")

    # Before: the list was taken to end there, where the comment of ours may be next.
    assert result.code == 0
    assert api.writes() == []
    assert re.search(
        r"^::warning title=errdex triage::GitHub: .*next page is not at", result.out, re.M
    )


# --- A hostile GitHub: whatever it answers, triage ends quietly, with one comment ---

_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=10,
)
_USER = st.sampled_from(
    [
        BOT,
        HUMAN,
        MAINTAINER,
        {"login": "helper-app[bot]", "type": "Bot"},
        {"login": "GitHub-Actions[bot]", "type": "Bot"},
        {"login": None},
        {},
        "github-actions[bot]",
        None,
    ]
)
_COMMENT = st.fixed_dictionaries(
    {
        "id": st.one_of(st.integers(-1, 10**6), st.booleans(), st.sampled_from(["1", "1/labels"])),
        "body": st.one_of(
            st.sampled_from([MARKER, MARKER + "\nsaid before", " " + MARKER, "me too"]),
            st.text(max_size=20),
        ),
        "user": _USER,
    }
)
_OWN = st.fixed_dictionaries(
    {
        "id": st.integers(1, 10**6),
        "body": st.sampled_from([MARKER, MARKER + "\nsaid before"]),
        "user": st.sampled_from([BOT, MAINTAINER]),
    }
)
"""A comment triage may have posted (with a workflow's token, or a person's)."""
_HEADER = st.one_of(
    st.sampled_from(
        [
            "0",
            "2",
            "60",
            "\u00b2",
            "\u00b9\u00b2",
            "-1",
            "9" * 400,
            "Wed, 21 Oct 2026 07:28:00 GMT",
            "",
            '<{api}/repos/example/serve/issues/7/comments?page=2>; rel="next"',
            '<{api}/user>; rel="next"',
            '<http://elsewhere.test/x>; rel="next"',
            "<{api}/r\u00e9po>; rel=next",
            "{api}/repos/example/serve/issues/7/comments",
            "http://elsewhere.test/x",
            "/moved",
        ]
    ),
    st.text(
        st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f"),
        max_size=12,
    ),
)
_ANSWER = st.tuples(
    st.one_of(
        st.sampled_from([200, 201, 204, 301, 302, 307, 304, 401, 403, 404, 422, 429, 500, 502]),
        st.integers(100, 999),
    ),
    st.dictionaries(
        st.sampled_from(
            ["Retry-After", "x-ratelimit-remaining", "x-ratelimit-reset", "Link", "Location"]
        ),
        _HEADER,
        max_size=4,
    ),
    st.one_of(
        _JSON,
        st.lists(_COMMENT, max_size=5),
        st.binary(max_size=24),
        st.sampled_from([NESTED, b"\xff\xfe[]", b'{"message": "\\ud800"}', {"login": "maint"}]),
    ),
)
_PAGES, _LOGIN = github.GitHub.pages, github.GitHub.login


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    event=st.sampled_from(["opened.json", "edited.json", "edited-traceback-removed.json"]),
    token=st.sampled_from([None, MAINTAINER]),
    comments=st.lists(st.one_of(_OWN, _COMMENT), max_size=5),
    answers=st.lists(st.one_of(st.none(), st.none(), _ANSWER), max_size=8),
)
def test_a_hostile_github_gets_no_traceback_and_no_second_comment(  # type: ignore[no-untyped-def]
    triage,
    api: FakeGitHub,
    site: Built,
    monkeypatch: pytest.MonkeyPatch,
    event: str,
    token: dict[str, str] | None,
    comments: list[dict[str, Any]],
    answers: list[tuple[int, dict[str, str], Any] | None],
) -> None:
    """Each request gets the next of ``answers`` (None: a true one) and then true ones;
    the true ones are of a GitHub holding ``comments`` for a token of ``token`` (None: a
    workflow's)."""
    api.requests.clear()
    api.comments = {7: copy.deepcopy(comments)}
    api.user = api.author = token
    queue = list(answers)
    truthful = functools.partial(FakeGitHub.handle, api)

    def hostile(method: str, target: str, body: Any) -> tuple[int, dict[str, str], Any]:
        answer = queue.pop(0) if queue else None
        if answer is None:
            return truthful(method, target, body)
        status, headers, data = answer
        return status, {k: v.replace("{api}", api.url) for k, v in headers.items()}, data

    # What the client read, and who it took itself for: what it decides from.
    seen: list[Any] = []
    believed: list[str | None] = []

    def pages(self: github.GitHub, path: str) -> Iterator[Any]:
        for item in _PAGES(self, path):
            seen.append(item)
            yield item

    def login(self: github.GitHub) -> str | None:
        believed.append(_LOGIN(self))
        return believed[-1]

    api.handle = hostile  # type: ignore[method-assign]
    monkeypatch.setattr(github.GitHub, "pages", pages)
    monkeypatch.setattr(github.GitHub, "login", login)

    result = triage(event, "--mode", "comment", site_url=str(site.out))

    assert result.code == 0, result.err
    assert result.summary.startswith("### errdex triage of example/serve#7")
    assert "Traceback" not in result.out + result.err
    me = (believed[-1] if believed else (token or BOT)["login"]) or "github-actions[bot]"
    ours = {
        c["id"]
        for c in seen
        if isinstance(c, dict)
        and type(c.get("id")) is int
        and c["id"] > 0
        and isinstance(c.get("user"), dict)
        and str(c["user"].get("login")).lower() == me.lower()
        and isinstance(c.get("body"), str)
        and c["body"].startswith(MARKER)
    }
    posts = [r for r in api.requests if r.method == "POST"]
    edits = {(r.path, json.dumps(r.body)) for r in api.requests if r.method == "PATCH"}
    assert len(posts) + len(edits) <= 1, api.requests  # a PATCH may be tried again, alike
    assert not (posts and ours), (ours, api.requests)
    for r in api.requests:
        if r.method in ("PATCH", "DELETE"):
            assert int(r.path.rsplit("/", 1)[1]) in ours, (r.path, ours)


def test_triages_flags_default_to_the_rules_the_benchmarks_measured() -> None:
    """The command's defaults and the action's inputs are ``reports.Rules``'s, which the
    issue and thread benchmarks measure: a default changed in one place only would ship
    rules nobody measured."""
    from errdex.cli import _parser

    ns = _parser().parse_args(["triage", "--site", "public"])
    rules = Rules()
    assert (ns.min_confidence, ns.min_own_text, ns.limit) == (
        rules.min_confidence,
        rules.min_own_text,
        rules.limit,
    )
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"]
    assert float(action["min-confidence"]["default"]) == rules.min_confidence
    assert int(action["min-own-text"]["default"]) == rules.min_own_text


def test_an_issue_whose_pull_request_field_is_null_is_triaged_as_an_issue(  # type: ignore[no-untyped-def]
    triage, api: FakeGitHub, site: Built, tmp_path: Path
) -> None:
    """Some tools send an issue with ``"pull_request": null``: it is no pull request."""
    event = json.loads((EVENTS / "opened.json").read_text())
    event["issue"]["pull_request"] = None
    path = tmp_path / "null-pull-request.json"
    path.write_text(json.dumps(event))

    result = triage(str(path))

    assert result.code == 0, result.err
    assert "pull request" not in result.summary
    assert result.matches[0]["id"] == site.page_of("example/serve/divisible.yaml")["id"]


def test_of_one_message_raised_twice_in_a_file_the_traceback_names_the_nearest(
    tmp_path: Path,
) -> None:
    # A client and its async twin raise the same words in one file: the traceback's line
    # names which, in triage as in lookup.
    def at(line: int, owner: str) -> str:
        text = record("TooManyRedirects", "Exceeded maximum allowed redirects.")
        text = text.replace("  line: 2\n", f"  line: {line}\n  function: {owner}.send\n")
        return f'id: "00000000000{line:05d}"\n' + text.replace("start: 1", f"start: {line - 1}")

    content = make_content(
        tmp_path, {"sync.yaml": at(40, "Client"), "async.yaml": at(90, "AsyncClient")}, SITE
    )
    out = build_site(content, tmp_path)
    source = sources.site_source(sources.FolderStore(out))
    for line, wanted in ((41, 40), (88, 90)):
        paste = (
            "Traceback (most recent call last):\n"
            f'  File "/app/serve/config.py", line {line}, in send\n'
            "    raise TooManyRedirects(\n"
            "TooManyRedirects: Exceeded maximum allowed redirects.\n"
        )
        (found,) = found_in(source, issue(paste))
        document = json.loads((out / "api" / "errors" / f"{found.id}.json").read_text())
        assert document["source"]["line"] == wanted
        looked_up = search.find(source.index, paste)[1]
        assert looked_up[0].entry.id == found.id  # lookup names the same record


def test_of_one_message_its_files_spell_the_class_two_ways_the_traceback_names_its_file(
    tmp_path: Path,
) -> None:
    # One module imports the class (``raise GraphError``), another names it through the
    # package (``raise serve.GraphError``): one class, one message, and the frame says which.
    def at(path: str, exception: str) -> str:
        text = record(exception, "The node {n} is not in the graph.")
        return text.replace("serve/config.py", path)

    content = make_content(
        tmp_path,
        {
            "graph.yaml": 'id: "0000000000000a01"\n' + at("serve/graph.py", "GraphError"),
            "walk.yaml": 'id: "0000000000000a02"\n' + at("serve/walk.py", "serve.GraphError"),
        },
        SITE,
    )
    out = build_site(content, tmp_path)
    source = sources.site_source(sources.FolderStore(out))
    for path, wanted in (
        ("serve/graph.py", "0000000000000a01"),
        ("serve/walk.py", "0000000000000a02"),
    ):
        paste = (
            "Traceback (most recent call last):\n"
            f'  File "/venv/lib/python3.12/site-packages/{path}", line 2, in check\n'
            '    raise GraphError("...")\n'
            "serve.errors.GraphError: The node 7 is not in the graph.\n"
        )
        assert [found.id for found in found_in(source, issue(paste))] == [wanted]
        assert search.find(source.index, paste)[1][0].entry.id == wanted  # and lookup


def test_the_comment_shows_a_message_as_the_error_says_it() -> None:
    """A record writes a literal brace twice (``{{``): the comment shows it once, in the
    message and in the wording now of an earlier wording pasted."""
    from errdex.github.reports import Found

    line = "KeyError: field {name} of fetch is missing"
    wording = {"until": "v1", "since": "v2", "now": "The field {{name}} of {tool} is gone"}
    found = Found(
        "1",
        "https://e.test/a/",
        "T",
        "KeyError",
        "field {{name}} of {tool} is missing",
        1,
        1,
        (("tool", "fetch"),),
        3,
        line,
        wording,
    )
    event = Event("issues", "opened", REPO, 1, "t", line, "open", "u", False, (), False, None)

    text = comment(event, [found], Settings())

    assert "- message: `field {name} of {tool} is missing`\n" in text
    assert "it reads: `The field {name} of {tool} is gone`\n" in text


def test_an_issues_text_is_tried_without_a_workflow(  # type: ignore[no-untyped-def]
    run, site: Built, tmp_path: Path
) -> None:
    """A maintainer tries triage on an issue's text before the workflow does: it prints
    the comment it would post, or the matches as JSON, and posts nothing."""
    body = tmp_path / "issue.md"
    body.write_text(issue(DIVISIBLE.format(tp=8, dp=3)))
    page = site.page_of("example/serve/divisible.yaml")

    tried = run("triage", "--site", site.out, "--text", body, "--title", "Crash at start")
    assert tried.code == 0, tried.err
    assert tried.out.startswith("<!-- errdex-triage -->\nThe error this issue shows has a page")
    assert f"({page['url']})" in tried.out
    assert "- your values: `tp` = `8`, `dp` = `3`" in tried.out

    as_json = run("triage", "--site", site.out, "--text", body, "--json")
    assert [m["id"] for m in json.loads(as_json.out)] == [page["id"]]

    body.write_text("The docs page has a typo in its second example.")
    none = run("triage", "--site", site.out, "--text", body)
    assert (none.code, none.out) == (1, "No page matches: triage would post nothing.\n")

    unread = run("triage", "--site", site.out, "--text", tmp_path / "gone.md", "--json")
    assert (unread.code, unread.out) == (2, "")  # not "no page matches"
    refused = run("triage", "--site", site.out, "--text", body, "--mode", "comment")
    assert refused.code == 1
    assert "--text tries triage on a text: it takes no --event and posts nothing" in refused.err
