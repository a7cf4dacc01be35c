"""A small client of GitHub's REST API: what ``errdex triage`` asks of it, and no more.

Every answer that is not a success, after the waits below, is one exception type,
``GitHubError``, whose message says what went wrong for a log line. Rate limits (429, or
403 with ``x-ratelimit-remaining: 0``) are waited out as GitHub says (``Retry-After``,
else until ``x-ratelimit-reset``), and 5xx answers and unreachable hosts are tried again
after 1, 2, 4 … seconds, all within one budget of waiting (``max_wait``): a wait that
would go past it gives up at once, so a run never hangs on GitHub.
"""

from __future__ import annotations

import http.client
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import Message
from typing import Any

from . import __version__

API = "https://api.github.com"
"""The API's address when ``GITHUB_API_URL`` does not name another (GitHub Enterprise)."""
TIMEOUT = 10.0
"""Seconds one request may take."""
MAX_WAIT = 60.0
"""Seconds of waiting (rate limits and retries) one run may spend in all."""
MAX_BYTES = 16 * 1024 * 1024
"""Largest answer read."""
MAX_PAGES = 50
"""Pages of a list followed at most (5,000 comments at 100 a page)."""
_NEXT = re.compile(r'<([^<>]+)>\s*;\s*rel="?next"?')


class GitHubError(Exception):
    """GitHub did not do what was asked; the message says what it answered."""


class _SameOrigin(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to the scheme, host and port it came from: urllib would
    send the ``Authorization`` header, the token, to any host a redirect names."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: Any,
        code: int,
        msg: str,
        headers: http.client.HTTPMessage,
        newurl: str,
    ) -> urllib.request.Request | None:
        old, new = urllib.parse.urlsplit(req.full_url), urllib.parse.urlsplit(newurl)
        if (old.scheme, old.netloc) != (new.scheme, new.netloc):
            raise urllib.error.HTTPError(
                req.full_url, code, f"redirected to another host ({new.netloc})", headers, fp
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_opener = urllib.request.build_opener(_SameOrigin)


def pause(seconds: float) -> None:
    """Wait: a function of its own so that tests can record the waits instead."""
    time.sleep(seconds)


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    headers: Message
    data: Any
    """The JSON body, or None for an empty one (204 No Content)."""


class GitHub:
    """The REST API at ``api`` as the holder of ``token``."""

    def __init__(
        self, api: str, token: str, timeout: float = TIMEOUT, max_wait: float = MAX_WAIT
    ) -> None:
        self.api = api.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.waited = 0.0
        """Seconds waited so far, out of ``max_wait``."""
        self.max_wait = max_wait

    def request(self, method: str, path: str, body: Any = None) -> Answer:
        """``method`` on ``path`` (``/repos/…``, or a whole URL of this API from a Link
        header) with ``body`` as JSON; the answer once it is a success."""
        url = path if path.startswith(self.api + "/") else self.api + path
        headers = {
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {self.token}",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": f"errdex/{__version__}",
        }
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        tries = 0
        while True:
            tries += 1
            request = urllib.request.Request(url, data=data, headers=headers, method=method)
            try:
                with _opener.open(request, timeout=self.timeout) as response:
                    raw = _read(response, time.monotonic() + self.timeout)
                    return Answer(response.status, response.headers, _json(raw, method, url))
            except urllib.error.HTTPError as exc:
                wait = self._wait(exc.code, exc.headers, tries, method)
                said = f"{method} {_shown(url)} answered {exc.code} {exc.reason}"
                if wait is None:
                    raise GitHubError(said + _message(exc)) from None
            except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                reason = getattr(exc, "reason", exc)
                said = f"{method} {_shown(url)} failed: {reason}"
                if method == "POST":
                    # It may have been done before the answer was lost: sent again, it
                    # would post a second comment.
                    raise GitHubError(said + "; not sent again") from None
                wait = _backoff(tries)
            if self.waited + wait > self.max_wait:
                raise GitHubError(
                    f"{said}; gave up rather than wait {wait:.0f} s more "
                    f"(waited {self.waited:.0f} of at most {self.max_wait:.0f} s)"
                )
            self.waited += wait
            pause(wait)

    def _wait(self, status: int, headers: Message, tries: int, method: str) -> float | None:
        """Seconds to wait before asking again, or None when asking again cannot help (or,
        for a POST that may have been done despite its error, could do it twice)."""
        retry_after = headers.get("Retry-After", "")
        limited = status == 429 or (
            status == 403 and (headers.get("x-ratelimit-remaining") == "0" or retry_after)
        )
        if limited:
            if retry_after.strip().isdigit():
                return float(retry_after.strip())
            reset = headers.get("x-ratelimit-reset", "")
            if reset.strip().isdigit():
                return max(1.0, float(reset) - time.time())
            return 60.0  # GitHub's advice for a secondary limit that names no time
        if status >= 500 and method != "POST":
            return _backoff(tries)
        return None

    def login(self) -> str | None:
        """The login the token acts as (a personal token's user), or None when the API
        does not say (a workflow's or an app's token may not ask ``/user``)."""
        try:
            data = self.request("GET", "/user").data
        except GitHubError:
            return None
        login = data.get("login") if isinstance(data, dict) else None
        return login if isinstance(login, str) and login else None

    def pages(self, path: str) -> Iterator[Any]:
        """Every item of a list, following the Link header's ``next`` page by page (only
        to addresses of this API: a token is never sent elsewhere)."""
        url: str | None = path
        for _ in range(MAX_PAGES):
            if url is None:
                return
            answer = self.request("GET", url)
            if not isinstance(answer.data, list):
                raise GitHubError(f"GET {_shown(url)} did not answer a list")
            yield from answer.data
            found = _NEXT.search(answer.headers.get("Link", ""))
            url = found.group(1) if found and found.group(1).startswith(self.api + "/") else None


def _read(response: Any, deadline: float) -> bytes:
    """The body, up to one byte more than ``MAX_BYTES``, read by ``deadline`` (a
    monotonic time): the socket's timeout bounds each wait, not a body that trickles."""
    chunks: list[bytes] = []
    size = 0
    while size <= MAX_BYTES:
        if time.monotonic() > deadline:
            raise TimeoutError("the answer took longer than the timeout to arrive")
        chunk = response.read1(min(64 * 1024, MAX_BYTES + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _backoff(tries: int) -> float:
    return float(2 ** (tries - 1))


def _json(raw: bytes, method: str, url: str) -> Any:
    if len(raw) > MAX_BYTES:
        raise GitHubError(f"{method} {_shown(url)} answered more than {MAX_BYTES:,} bytes")
    if not raw.strip():
        return None
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise GitHubError(f"{method} {_shown(url)} answered something other than JSON") from None


def _message(exc: urllib.error.HTTPError) -> str:
    """GitHub's own words on a refusal (``{"message": …}``), when it gave any."""
    try:
        said = json.loads(exc.read(64 * 1024)).get("message")
    except (OSError, ValueError, AttributeError):
        return ""
    return f": {str(said)[:200]}" if said else ""


def _shown(url: str) -> str:
    """The address without its host, for messages: ``/repos/o/r/issues/1/comments``."""
    parts = urllib.parse.urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")
