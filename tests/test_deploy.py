"""Deployment: the _headers rules, a strict CSP that the pages really live with, the workflow."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from conftest import ROOT
from playwright.sync_api import Browser, expect


def header_rules(site: Path) -> dict[str, dict[str, str]]:
    rules: dict[str, dict[str, str]] = {}
    current = ""
    for line in (site / "_headers").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if not line.startswith(" "):
            current = line.strip()
            rules[current] = {}
        else:
            name, value = line.strip().split(": ", 1)
            rules[current][name] = value
    return rules


def test_headers_set_json_types_long_caching_and_a_strict_csp(built_site: Path) -> None:
    rules = header_rules(built_site)
    assert rules["/api/*"]["Content-Type"].startswith("application/json")
    assert "immutable" in rules["/static/*"]["Cache-Control"]
    csp = rules["/*"]["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "style-src 'self'" in csp
    assert "unsafe-inline" not in csp


@pytest.fixture
def strict_site(built_site: Path) -> Iterator[str]:
    """The built site served with the Content-Security-Policy of its _headers file."""
    csp = header_rules(built_site)["/*"]["Content-Security-Policy"]

    class Handler(http.server.SimpleHTTPRequestHandler):
        def end_headers(self) -> None:
            self.send_header("Content-Security-Policy", csp)
            super().end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(built_site))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()
    server.server_close()


@pytest.mark.browser
def test_pages_work_under_the_strict_csp(browser: Browser, strict_site: str) -> None:
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(strict_site)
    page.get_by_label("Paste an error message, a traceback or a log line").fill(
        "tp_size=8 must be divisible by dcp_size=3."
    )
    expect(page.locator("#results-main [role=option]").first).to_contain_text("tp_size")
    page.goto(strict_site + "errors/9c019ab65f8b8d16/")
    page.locator("button.copy").first.click()
    expect(page.locator("button.copy").first).to_have_text("Copied")
    context.close()
    assert problems == []


def test_the_pages_workflow_checks_builds_caches_and_publishes() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "site.yml").read_text())
    steps = workflow["jobs"]["build"]["steps"]
    runs = [step.get("run", "") for step in steps]
    uses = [step.get("uses", "") for step in steps]
    assert "errdex check" in runs and "errdex build --out public" in runs
    assert any(u.startswith("actions/cache@") for u in uses)
    cache = next(s for s in steps if s.get("uses", "").startswith("actions/cache@"))
    assert cache["with"]["path"] == ".errdex/cache"
    assert any(u.startswith("actions/upload-pages-artifact@") for u in uses)
    deploy = workflow["jobs"]["deploy"]["steps"]
    assert deploy[0]["uses"].startswith("actions/deploy-pages@")
