"""Shared fixtures: the bundled site built once, a CLI runner, and small content folders."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import textwrap
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup

from errdex.cli import main

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"

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


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """Call the CLI in-process, as a user would from a shell; return code and output."""

    def call(*argv: str | Path) -> Run:
        capsys.readouterr()
        code = main([str(a) for a in argv])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return call


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled content, built once for the whole session."""
    out = tmp_path_factory.mktemp("site") / "public"
    assert main(["build", "--content", str(CONTENT), "--out", str(out)]) == 0
    return out


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


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


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder`` with its bytes and modification time."""
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def http_server(root: Path) -> Iterator[str]:
    """Serve ``root`` on a free localhost port, as a static host would; yield the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


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


# Property tests run the same generated examples on every machine: a CI run checks what
# the developer's run checked, and a failure always reproduces.
try:
    from hypothesis import settings as _hypothesis_settings

    _hypothesis_settings.register_profile("errdex", derandomize=True, database=None)
    _hypothesis_settings.load_profile("errdex")
except ImportError:  # pragma: no cover - hypothesis comes with the test extras
    pass
