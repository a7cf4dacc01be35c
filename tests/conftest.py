"""Shared fixtures and helpers: the bundled site built once, a CLI runner, a content folder,
git repositories with tagged releases, a local HTTP server and a chromium page.

Every build a test makes keeps its cache in a temporary folder (``run`` adds ``--cache``
when a build names none), so a local run renders from as cold a cache as CI does; a test
that writes into the checkout's ``.errdex/cache`` fails (see ``pytest_runtest_teardown``).
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote, urljoin, urlsplit

import compiled_once
import pytest
from bs4 import BeautifulSoup

from errdex.cli import main

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"
CHECKOUT_CACHE = ROOT / ".errdex" / "cache"
"""The cache a build from the checkout uses by default: never a test's."""

SITE_YAML = """\
title: Test errors
base_url: https://errors.example.test/docs/
repository: example/site
"""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite tests/golden/expected from the current build instead of comparing",
    )


@dataclass
class Run:
    code: int
    out: str
    err: str


def with_cache(argv: list[str], cache: Path) -> list[str]:
    """``argv`` with ``--cache cache`` added when it is a build, serve, scan or pin that
    names no cache (nor ``--no-cache``): the default would be the checkout's own
    ``.errdex/cache``."""
    implied = not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version"))
    command = "build" if implied else argv[0]
    if command in ("build", "serve", "scan", "pin") and not {"--cache", "--no-cache"} & set(argv):
        return [*argv, "--cache", str(cache)]
    return argv


@pytest.fixture(autouse=True, scope="session")
def _templates_compiled_once() -> Iterator[None]:
    """See compiled_once.py."""
    from errdex.site import render

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(render, "make_env", compiled_once.sharing(render.make_env))
        yield


@pytest.fixture
def own_template_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Builds keep compiled templates as errdex does, in their cache folder's
    ``templates/`` (not compiled_once's memory)."""
    from errdex.site import render

    monkeypatch.setattr(render, "make_env", render.make_env.__wrapped__)


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """Call the CLI in-process, as a user would from a shell; return code and output.
    Builds share one cache folder of this test's own, empty when the test starts."""
    cache = tmp_path_factory.mktemp("cache")

    def call(*argv: str | Path) -> Run:
        capsys.readouterr()
        code = main(with_cache([str(a) for a in argv], cache))
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return call


_WORKER = """\
import contextlib, io, json, sys, traceback
sys.path.insert(0, sys.argv[1])  # this folder
import compiled_once
from errdex.cli import main
from errdex.site import render
render.make_env = compiled_once.sharing(render.make_env)
print(json.dumps(hash("errdex")), flush=True)
for line in sys.stdin:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(json.loads(line))
        except BaseException:
            traceback.print_exc()
            code = -1
    print(json.dumps([code, out.getvalue(), err.getvalue()]), flush=True)
"""


class OtherProcess:
    """errdex's CLI in a second Python process with another hash seed, kept for the whole
    session: what a build there writes must be what one here writes."""

    DEADLINE = 300
    """Seconds a command may take before it counts as hung."""

    def __init__(self, cwd: Path) -> None:
        seed = "1" if os.environ.get("PYTHONHASHSEED") == "0" else "0"
        self.process = subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(Path(__file__).parent)],
            cwd=cwd,
            env={**os.environ, "PYTHONHASHSEED": seed},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        assert json.loads(self._reply()) != hash("errdex"), "the same hash seed as this one"

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put("")

    def _reply(self) -> str:
        try:
            line = self.lines.get(timeout=self.DEADLINE)
        except queue.Empty:
            self.process.kill()
            pytest.fail(f"errdex in the other process took more than {self.DEADLINE} s")
        assert line, "errdex in the other process exited"
        return line

    def __call__(self, argv: list[str]) -> Run:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(argv) + "\n")
        self.process.stdin.flush()
        code, out, err = json.loads(self._reply())
        return Run(code, out, err)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


@pytest.fixture(scope="session")
def _other_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OtherProcess]:
    other = OtherProcess(tmp_path_factory.mktemp("elsewhere"))
    yield other
    other.close()


@pytest.fixture
def run_elsewhere(
    _other_process: OtherProcess, tmp_path_factory: pytest.TempPathFactory
) -> Callable[..., Run]:
    """Like ``run``, in another process under another hash seed, with a cache folder of
    its own (so its builds render cold, not from what this process highlighted)."""
    cache = tmp_path_factory.mktemp("cache-elsewhere")

    def call(*argv: str | Path) -> Run:
        return _other_process(with_cache([str(a) for a in argv], cache))

    return call


def build_site(content: Path, root: Path) -> Path:
    """Build ``content`` into ``root/public`` with its cache in ``root/cache``; the output."""
    out = root / "public"
    argv = ["build", "--content", str(content), "--out", str(out), "--cache", str(root / "cache")]
    assert main(argv) == 0
    return out


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled content, built once for the whole session."""
    return build_site(CONTENT, tmp_path_factory.mktemp("site"))


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def html_pages(site: Path) -> list[Path]:
    """Every HTML page of a built site, in order; a site without one is a failure."""
    pages = sorted(p for p in site.rglob("*.html") if p.is_file())
    assert pages, f"no HTML pages under {site}"
    return pages


def ctrl_c_stops() -> None:
    """For ``subprocess.Popen(preexec_fn=...)``: the process takes SIGINT as a terminal's
    Ctrl-C, whatever this one does with it (a suite started in the background of a
    shell, ``./dev test &``, ignores SIGINT, and so would every process it starts)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def make_content(root: Path, records: dict[str, str], site: str = SITE_YAML) -> Path:
    """A content folder with ``site.yaml`` and the given record files (name → YAML text)."""
    content = root / "content"
    (content / "errors").mkdir(parents=True, exist_ok=True)
    (content / "site.yaml").write_text(site, encoding="utf-8")
    for name, text in records.items():
        path = content / "errors" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return content


MINIMAL = """\
repo: example/project
exception: ValueError
message: "size={size} must be positive"
source:
  commit: 0123456789abcdef0123456789abcdef01234567
  path: src/project/config.py
  line: 3
  excerpt:
    start: 1
    code: |
      def check(size):
          if size <= 0:
              raise ValueError(f"size={size} must be positive")
"""
OTHER = MINIMAL.replace("size={size} must be positive", "count={count} is too large")
"""A second valid record, raised at the same line of the same file."""


@pytest.fixture
def content_records() -> dict[str, str]:
    """The record files the ``content`` fixture writes (file name → YAML text). A test file
    whose content needs other records defines its own ``content_records``."""
    return {"a.yaml": MINIMAL, "b.yaml": OTHER}


@pytest.fixture
def content(tmp_path: Path, content_records: dict[str, str]) -> Path:
    """``tmp_path/content``: the test site's ``site.yaml`` and ``content_records``."""
    return make_content(tmp_path, content_records)


@pytest.fixture
def bundled_content(tmp_path: Path) -> Path:
    """A copy of the bundled content in ``tmp_path/content``, for a test to change."""
    return Path(shutil.copytree(CONTENT, tmp_path / "content"))


@pytest.fixture
def small_parallel(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Builds go on every core from 40 records, 10 a task: a test of the parallel path
    writes a hundred records, not the 400 that make it worth a process. Returns the
    number of processes each ``parallel.Tasks`` was started with, in order."""
    from errdex.util import parallel

    monkeypatch.setattr(parallel, "PARALLEL_FROM", 40)
    monkeypatch.setattr(parallel, "RECORDS_PER_TASK", 10)
    started: list[int] = []
    init = parallel.Tasks.__init__

    def counted(self: Any, func: Callable[[Any], Any], jobs: int) -> None:
        started.append(jobs)
        init(self, func, jobs)

    monkeypatch.setattr(parallel.Tasks, "__init__", counted)
    return started


@pytest.fixture
def in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test runs in ``tmp_path``, so problems and files are named from there
    (``content/errors/…``), as a user who runs errdex in their site's folder sees them."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def git(repo: Path, *args: str) -> str:
    """``git -C repo args``; its standard output, stripped."""
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def git_repository(folder: Path, *releases: tuple[str, dict[str, str]]) -> Path:
    """A git repository at ``folder``; each release, in order, writes its files (path →
    text) over the last one's and is committed and tagged with its name."""
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q")
    git(folder, "config", "user.email", "dev@example.test")
    git(folder, "config", "user.name", "Dev")
    for tag, files in releases:
        for name, text in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text)
        git(folder, "add", "-A")
        git(folder, "commit", "-qm", tag)
        git(folder, "tag", tag)
    return folder


def least_cpu_time(work: Callable[[], object], runs: int = 3) -> float:
    """The least CPU time of ``runs`` calls of ``work``: this process's own time, which
    tests run beside it on the other cores do not add to (for ratios of sizes, never
    for absolute limits)."""
    best = float("inf")
    for _ in range(runs):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder`` with its bytes and modification time."""
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up mid-answer (lookup giving up on a damaged file or a slow
        # host) is no error of the server: socketserver would print its traceback into the
        # test's captured stderr.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class QuietHandler(http.server.BaseHTTPRequestHandler):
    """A request handler that logs nothing into the test's output."""

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def local_server(handler: Callable[..., http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """Answer with ``handler`` on a free localhost port, in threads of their own; yield the
    base URL (``http://127.0.0.1:PORT/``). The server is shut down when the block ends."""
    server = _QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def socket_server(answer: Callable[[socket.socket], None]) -> Iterator[int]:
    """Accept connections on a free localhost port and give each to ``answer`` in a thread
    of its own, for a host that sends raw bytes (slowly, or what is not HTTP); a client
    that hangs up ends the answer quietly. Yields the port."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve(conn: socket.socket) -> None:
        with contextlib.suppress(OSError), conn:
            answer(conn)

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()


class _FileHandler(http.server.SimpleHTTPRequestHandler):
    delay = 0.0
    extra_headers: ClassVar[dict[str, str]] = {}
    asked: list[str] | None = None

    def log_message(self, format: str, *args: object) -> None:
        pass

    def send_head(self):  # type: ignore[no-untyped-def]
        if self.asked is not None:
            self.asked.append(self.path)
        if self.delay:
            time.sleep(self.delay)  # one round trip of a distant host, per request
        return super().send_head()

    def end_headers(self) -> None:
        for name, value in self.extra_headers.items():
            self.send_header(name, value)
        super().end_headers()


@contextlib.contextmanager
def http_server(
    root: Path,
    delay: float = 0.0,
    headers: dict[str, str] | None = None,
    asked: list[str] | None = None,
) -> Iterator[str]:
    """Serve the files under ``root`` as a static host would; yield the base URL. ``delay``
    (seconds) holds back every answer, as a round trip to a distant host does; ``headers``
    go with every answer; ``asked``, when given, gets the path of every file asked for."""
    handler = type(
        "_Handler",
        (_FileHandler,),
        {"delay": delay, "extra_headers": headers or {}, "asked": asked},
    )
    with local_server(functools.partial(handler, directory=str(root))) as url:
        yield url


CHROMIUM = os.environ.get("ERRDEX_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    """The bundled site served on localhost."""
    with http_server(built_site) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's chromium through Playwright, once for the whole run."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A chromium page of 1280 by 900 px in a context of its own; the test fails if the
    page's script throws or logs an error."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield page
    context.close()
    assert errors == []


# Property tests run the same generated examples on every machine: a CI run checks what
# the developer's run checked, and a failure always reproduces.
try:
    from hypothesis import settings as _hypothesis_settings

    _hypothesis_settings.register_profile("errdex", derandomize=True, database=None)
    _hypothesis_settings.load_profile("errdex")
except ImportError:  # pragma: no cover - hypothesis comes with the test extras
    pass


# The guard: a build that falls back on the default cache folder writes into the
# checkout's, and the next local run renders from it warm while CI renders cold.
_CACHE_BEFORE = pytest.StashKey[dict[str, tuple[int, int]]]()


def _checkout_cache() -> dict[str, tuple[int, int]]:
    found = {}
    for path in CHECKOUT_CACHE.rglob("*"):
        with contextlib.suppress(FileNotFoundError):
            stat = path.stat()
            if path.is_file():
                found[path.relative_to(CHECKOUT_CACHE).as_posix()] = (
                    stat.st_size,
                    stat.st_mtime_ns,
                )
    return found


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    item.stash[_CACHE_BEFORE] = _checkout_cache()
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    result = yield
    before = item.stash.get(_CACHE_BEFORE, None)
    if before is not None:
        after = _checkout_cache()
        changed = sorted(n for n in before.keys() | after.keys() if before.get(n) != after.get(n))
        if changed:
            pytest.fail(
                f"a build wrote into the checkout's {CHECKOUT_CACHE}: {', '.join(changed[:5])}; "
                "build through the run fixture, or pass --cache with a temporary folder",
                pytrace=False,
            )
    return result


def broken_links(out: Path) -> list[str]:
    """Relative links of every page that lead to no file of the site."""
    site = "https://site.example.test/"
    found = []
    for page in sorted(out.rglob("*.html")):
        here = site + page.relative_to(out).as_posix()
        html = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for tag in html.find_all(["a", "link", "script"]):
            value = tag.get("href") or tag.get("src")
            if (
                not isinstance(value, str)
                or re.match(r"^[a-z]+:|^#", value)
                or page.name == "404.html"
            ):
                continue
            target = unquote(urlsplit(urljoin(here, value)).path).removeprefix("/")
            path = out / (target + "index.html" if target.endswith("/") or not target else target)
            if not path.is_file():
                found.append(f"{page.relative_to(out)}: {value!r}")
    return found
