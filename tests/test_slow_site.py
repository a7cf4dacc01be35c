"""``--timeout`` is a deadline: a published site that answers a byte at a time, or keeps
every file just within the timeout, cannot hold ``lookup`` or ``triage`` for long.

Each command runs in a process of its own, as a user or a workflow runs it, and is
timed from start to exit: the bounds are generous (several times what the deadline
allows), since a loaded machine starts Python slowly; without the deadline these runs
take hours.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import MINIMAL, ROOT, build_site, http_server, make_content, socket_server

from errdex import search

PASTE = "ValueError: size=-1 must be positive"
STALLED = 60
"""Seconds after which a command counts as hung (it would run for hours)."""


def errdex(*argv: str, env: dict[str, str] | None = None) -> tuple[int, str, float]:
    """Run errdex in a process of its own: exit status, standard error, seconds taken."""
    started = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, str(ROOT / "build.py"), *argv],
            capture_output=True,
            text=True,
            timeout=STALLED,
            cwd=ROOT,
            env={**os.environ, **(env or {})},
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"errdex {' '.join(argv)} was still running after {STALLED} s")
    return done.returncode, done.stderr, time.monotonic() - started


@contextlib.contextmanager
def trickling(what: str, wrap: ssl.SSLContext | None = None) -> Iterator[str]:
    """A host that sends every answer a byte each half second: its ``head`` (status line
    and headers) and body, or its ``body`` only after a prompt head. Yields its URL."""
    body = b'{"version": %d, "count": 0' % search.INDEX_VERSION + b" " * 4096 + b"}"
    head = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body)
    stop = threading.Event()

    def answer(conn: socket.socket) -> None:
        if wrap is not None:
            conn = wrap.wrap_socket(conn, server_side=True)
        conn.recv(65536)
        slow = head + body if what == "head" else body
        if what == "body":
            conn.sendall(head)
        for byte in range(len(slow)):
            if stop.is_set():
                return
            conn.sendall(slow[byte : byte + 1])
            time.sleep(0.5)

    scheme = "http" if wrap is None else "https"
    try:
        with socket_server(answer) as port:
            yield f"{scheme}://127.0.0.1:{port}/"
    finally:
        stop.set()


@pytest.mark.parametrize("what", ["head", "body"])
def test_a_site_that_sends_a_byte_at_a_time_is_given_up_on_at_the_deadline(
    what: str, tmp_path: Path
) -> None:
    with trickling(what) as url:
        code, err, took = errdex("lookup", PASTE, "--site", url, "--timeout", "1", "--no-cache")
    assert code == 3, err
    assert err == f"errdex: {url}search/meta.json did not answer within 1 s\n"
    assert took < 8, f"--timeout 1 held lookup for {took:.1f} s"


def test_a_secure_site_is_held_to_the_same_deadline(tmp_path: Path) -> None:
    """The TLS handshake and every read of an https:// site wait until the same moment."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl makes the test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    made = "req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1"
    made += " -addext subjectAltName=IP:127.0.0.1"
    argv = ["openssl", *made.split(), "-keyout", str(key), "-out", str(cert)]
    subprocess.run(argv, check=True, capture_output=True)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    with trickling("body", context) as url:
        argv = ("lookup", PASTE, "--site", url, "--timeout", "1", "--no-cache")
        code, err, took = errdex(*argv, env={"SSL_CERT_FILE": str(cert)})
        assert code == 3 and err == f"errdex: {url}search/meta.json did not answer within 1 s\n"
        assert took < 8, f"--timeout 1 held lookup for {took:.1f} s"
        # Without the certificate trusted, the site is refused: the context checks it.
        code, err, _ = errdex(*argv)
        assert code == 3 and "CERTIFICATE_VERIFY_FAILED" in err, err


@contextlib.contextmanager
def slow_host(root: Path, delay: float) -> Iterator[tuple[str, list[str]]]:
    """Answers each file after ``delay`` seconds, within the timeout; lists the files."""
    asked: list[str] = []
    with http_server(root, delay, asked=asked) as url:
        yield url, asked


NAMES = ("size", "width", "height", "depth", "count")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Five records of one shape: ``NAME={NAME} must be positive``."""
    root = tmp_path_factory.mktemp("slow")
    records = {
        f"a/b/{name}.yaml": MINIMAL.replace("size", name).replace("config.py", f"{name}.py")
        for name in NAMES
    }
    return build_site(make_content(root, records), root)


def test_the_files_of_one_lookup_get_three_timeouts_in_all(site: Path) -> None:
    """Each file comes within the timeout, but more of them than three timeouts hold."""
    paste = "must be positive"  # a piece of all five messages: a page each
    with slow_host(site, 0) as (url, asked):
        code, err, _ = errdex("lookup", paste, "--site", url, "--no-cache")
    assert code == 0, err
    files = len(asked)
    assert files >= 7, asked  # the head, a word shard, a record file, five pages
    with slow_host(site, 0.5) as (url, asked):
        code, err, took = errdex("lookup", paste, "--site", url, "--timeout", "1", "--no-cache")
    assert code == 3, err
    assert err.startswith(f"errdex: {url} did not answer within 3 s, the time all the files")
    assert len(asked) < files
    assert took < 6, f"--timeout 1 held lookup for {took:.1f} s"


def test_each_line_of_a_batch_gets_the_time_of_one_lookup(site: Path) -> None:
    """Five lookups take longer than the time of one, and each is answered."""
    lines = "".join(
        json.dumps({"id": name, "text": f"ValueError: {name}=-1 must be positive"}) + "\n"
        for name in NAMES
    )
    argv = ["lookup", "--batch", "--limit", "1", "--timeout", "1", "--no-cache"]
    with slow_host(site, 0.45) as (url, asked):
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, str(ROOT / "build.py"), *argv, "--site", url],
            input=lines,
            capture_output=True,
            text=True,
            timeout=STALLED,
            cwd=ROOT,
        )
        took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["matches"][0]["message"].split("=")[0] for a in answers] == list(NAMES)
    assert len(asked) >= 8 and took > 3, (asked, took)  # more than one lookup's time


def test_triage_of_a_site_that_sends_a_byte_at_a_time_is_a_warning_at_the_deadline(
    tmp_path: Path,
) -> None:
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs.txt"
    env = {"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(outputs)}
    event = str(ROOT / "tests" / "triage" / "opened.json")
    with trickling("body") as url:
        argv = ("triage", "--event", event, "--site", url, "--timeout", "1")
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, str(ROOT / "build.py"), *argv],
            capture_output=True,
            text=True,
            timeout=STALLED,
            cwd=ROOT,
            env={k: v for k, v in {**os.environ, **env}.items() if k != "GITHUB_TOKEN"},
        )
        took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert "::warning title=errdex triage::the site's search index could not be read" in (
        done.stdout
    )
    assert f"{url}search/meta.json did not answer within 1 s" in done.stdout
    assert took < 8, f"--timeout 1 held triage for {took:.1f} s"
