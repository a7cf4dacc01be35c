"""A small client of GitHub's REST API: what ``errdex triage`` asks of it, and no more.

Every answer that is not a success, after the waits below, is one exception type,
``GitHubError``, whose message says what went wrong for a log line; whatever GitHub (or
anything answering in its place) sends, nothing else escapes. Each request must be
answered whole (connection, headers and body) within ``timeout`` seconds, however slowly
the bytes come. Rate limits (429, or 403 with ``x-ratelimit-remaining: 0``, a
``Retry-After`` or a message naming a rate limit) are waited out as GitHub says
(``Retry-After``, else until ``x-ratelimit-reset``), and 5xx answers, timeouts and
unreachable hosts are tried again after 1, 2, 4 … seconds, all within one budget
(``max_wait``) that the waits and the time of the attempts that failed come out of: a
wait that would go past it gives up at once, so a run never hangs on GitHub.
"""

from __future__ import annotations

import functools
import http.client
import io
import json
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import Message
from typing import Any

from errdex import __version__

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

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        """The status of a refusal that asking again would not change (a 403 that is no
        rate limit, a 404); None when there was no answer, or one that may pass (a 5xx, a
        rate limit, a timeout) was given up on."""


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
        moved = super().redirect_request(req, fp, code, msg, headers, newurl)
        if moved is None or not isinstance(req, _Request):
            return moved
        # The redirect is part of the same request: it keeps its deadline.
        return _Request(
            moved.full_url,
            req.deadline,
            headers=dict(moved.header_items()),
            origin_req_host=moved.origin_req_host,
            unverifiable=True,
            method=moved.get_method(),
        )


class _Request(urllib.request.Request):
    """A request with the time (``time.monotonic``) by which its answer must be in."""

    def __init__(self, url: str, deadline: float, **kwargs: Any) -> None:
        super().__init__(url, **kwargs)
        self.deadline = deadline


def _deadline(req: urllib.request.Request) -> float:
    if isinstance(req, _Request):
        return req.deadline
    return time.monotonic() + (req.timeout or TIMEOUT)


def _left(deadline: float) -> float:
    """Seconds left before ``deadline``; a TimeoutError once none are."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("no whole answer within the timeout")
    return left


class _Clocked(io.RawIOBase):
    """A socket read with a deadline: each read may wait only the time left, so an
    answer that trickles (a byte every half second, headers or body) still ends on time,
    where the socket's own timeout bounds each wait alone."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self._sock = sock
        self._io = sock.makefile("rb", buffering=0)
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        self._sock.settimeout(_left(self._deadline))
        return self._io.readinto(buffer)

    def close(self) -> None:
        self._io.close()
        super().close()


class _Response(http.client.HTTPResponse):
    """An answer whose status line, headers and body are read by ``deadline``."""

    def __init__(self, sock: socket.socket, *args: Any, deadline: float, **kwargs: Any) -> None:
        super().__init__(sock, *args, **kwargs)
        self.fp.close()
        self.fp = io.BufferedReader(_Clocked(sock, deadline))


class _Deadlined(http.client.HTTPConnection):
    """A connection made, and its answer read, by ``deadline``."""

    def __init__(self, *args: Any, deadline: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.deadline = deadline
        # http.client calls it as response_class(sock, method=…): a partial serves.
        self.response_class = functools.partial(_Response, deadline=deadline)  # type: ignore[assignment]

    def connect(self) -> None:
        self.timeout = _left(self.deadline)  # connecting, and a TLS handshake, wait at most this
        super().connect()
        _left(self.deadline)


class _DeadlinedTLS(_Deadlined, http.client.HTTPSConnection):
    pass


class _HTTP(urllib.request.HTTPHandler):
    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(functools.partial(_Deadlined, deadline=_deadline(req)), req)


class _HTTPS(urllib.request.HTTPSHandler):
    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        connection = functools.partial(_DeadlinedTLS, deadline=_deadline(req))
        return self.do_open(connection, req, context=self._context)  # type: ignore[attr-defined]


_opener = urllib.request.build_opener(_SameOrigin, _HTTP, _HTTPS)


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
        """Seconds spent so far on retries (waits, and attempts that failed), out of
        ``max_wait``."""
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
            started = time.monotonic()
            deadline = started + self.timeout
            try:
                request = _Request(url, deadline, data=data, headers=headers, method=method)
                with _opener.open(request, timeout=self.timeout) as response:
                    raw = _read(response, deadline)
                    return Answer(response.status, response.headers, _json(raw, method, url))
            except urllib.error.HTTPError as exc:
                said = f"{method} {_shown(url)} answered {exc.code} {exc.reason}"
                message = _message(exc)
                wait = self._wait(exc.code, exc.headers, message, tries, method)
                if wait is None:
                    said += f": {message}" if message else ""
                    raise GitHubError(said, exc.code) from None
            except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                reason = getattr(exc, "reason", exc)
                said = f"{method} {_shown(url)} failed: {reason}"
                if method == "POST":
                    # It may have been done before the answer was lost: sent again, it
                    # would post a second comment.
                    raise GitHubError(said + "; not sent again") from None
                wait = _backoff(tries)
            except ValueError as exc:
                # An address http.client refuses to send (a Link header's, with a
                # character no request line may hold), or a chunk size that is no number.
                raise GitHubError(f"{method} {_shown(url)} failed: {exc}") from None
            # The attempt that failed took time too: a server that answers nothing in
            # time spends the budget as waits do, so the whole run stays bounded.
            self.waited += time.monotonic() - started
            if self.waited + wait > self.max_wait:
                raise GitHubError(
                    f"{said}; gave up rather than wait {wait:.0f} s more "
                    f"(spent {self.waited:.0f} of at most {self.max_wait:.0f} s on retries)"
                )
            self.waited += wait
            pause(wait)

    def _wait(
        self, status: int, headers: Message, message: str, tries: int, method: str
    ) -> float | None:
        """Seconds to wait before asking again, or None when asking again cannot help (or,
        for a POST that may have been done despite its error, could do it twice)."""
        retry_after = _seconds(headers.get("Retry-After"))
        limited = status == 429 or (
            status == 403
            and (
                headers.get("x-ratelimit-remaining") == "0"
                or (headers.get("Retry-After") or "").strip()
                or "rate limit" in message.lower()
            )
        )
        if limited:
            if retry_after is not None:
                return retry_after
            reset = _seconds(headers.get("x-ratelimit-reset"))
            if reset is not None:
                return max(1.0, reset - time.time())
            return 60.0  # GitHub's advice for a secondary limit that names no time
        if status >= 500 and method != "POST":
            return _backoff(tries)
        return None

    def login(self) -> str | None:
        """The login the token acts as (a personal token's user), or None when GitHub
        refuses to say (a workflow's or an app's token may not ask ``/user``: 403). Any
        other failure, one that may pass, is a ``GitHubError``: a guess would take the
        token's own comment for someone else's."""
        try:
            data = self.request("GET", "/user").data
        except GitHubError as exc:
            if exc.status in (403, 404):
                return None
            raise
        login = data.get("login") if isinstance(data, dict) else None
        if not isinstance(login, str) or not login:
            raise GitHubError("GET /user answered no login")
        return login

    def pages(self, path: str) -> Iterator[Any]:
        """Every item of a list, following the Link header's ``next`` page by page (only
        to addresses of this API: a token is never sent elsewhere). A list that goes on
        past ``MAX_PAGES``, or elsewhere, is a GitHubError: its rest is unread, and
        whatever is looked for in it may be there."""
        url = path
        for _ in range(MAX_PAGES):
            answer = self.request("GET", url)
            if not isinstance(answer.data, list):
                raise GitHubError(f"GET {_shown(url)} did not answer a list")
            yield from answer.data
            found = _NEXT.search(answer.headers.get("Link") or "")
            if found is None:
                return
            url = found.group(1)
            if not url.startswith(self.api + "/"):
                raise GitHubError(f"GET {_shown(path)}: the next page is not at {self.api}")
        raise GitHubError(f"GET {_shown(path)}: more than {MAX_PAGES} pages")


def _read(response: Any, deadline: float) -> bytes:
    """The body, up to one byte more than ``MAX_BYTES``, read by ``deadline`` (a
    monotonic time)."""
    chunks: list[bytes] = []
    size = 0
    while size <= MAX_BYTES:
        _left(deadline)
        chunk = response.read1(min(64 * 1024, MAX_BYTES + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


_DIGITS = re.compile(r"[0-9]+")
"""Seconds as headers give them: ASCII digits only (``str.isdigit`` takes ``²``)."""


def _seconds(value: str | None) -> float | None:
    """A header's whole number of seconds (a wait, or a time since 1970), 10¹² at most;
    None for anything else (a date, a sign, other digits)."""
    value = (value or "").strip()
    return min(float(value), 1e12) if _DIGITS.fullmatch(value) else None


def _backoff(tries: int) -> float:
    return float(2 ** (tries - 1))


def _json(raw: bytes, method: str, url: str) -> Any:
    if len(raw) > MAX_BYTES:
        raise GitHubError(f"{method} {_shown(url)} answered more than {MAX_BYTES:,} bytes")
    if not raw.strip():
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # RecursionError: arrays nested thousands deep
        raise GitHubError(f"{method} {_shown(url)} answered something other than JSON") from None


def _message(exc: urllib.error.HTTPError) -> str:
    """GitHub's own words on a refusal (``{"message": …}``), when it gave any."""
    try:
        said = json.loads(exc.read(64 * 1024)).get("message")
    except (OSError, ValueError, AttributeError, RecursionError, http.client.HTTPException):
        return ""
    return " ".join(said.split())[:200] if isinstance(said, str) else ""


def _shown(url: str) -> str:
    """The address without its host, for messages: ``/repos/o/r/issues/1/comments``."""
    parts = urllib.parse.urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")
