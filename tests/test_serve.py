"""serve for real: a browser sees an edit at once, a broken record as an overlay, and the fix."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import MINIMAL, ROOT, ctrl_c_stops, make_content
from playwright.sync_api import Browser, expect

pytestmark = pytest.mark.browser


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path, Path]]:
    content = make_content(tmp_path, {"a.yaml": MINIMAL})
    out = tmp_path / "served"
    process = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "build.py"),
            "serve",
            "--port",
            "0",
            "--content",
            str(content),
            "--out",
            str(out),
            "--no-cache",
        ],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_stops,
    )
    assert process.stderr is not None
    url = ""
    for line in process.stderr:
        if "serving" in line:
            url = line.split(" at ")[1].split()[0]
            break
    assert url, "serve did not start"
    yield url, content, out
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=10) == 0


def test_an_edit_reloads_the_page_and_a_broken_record_shows_an_overlay(
    browser: Browser, served: tuple[str, Path, Path]
) -> None:
    url, content, out = served
    page = browser.new_page()
    (entry,) = json.loads((out / "api" / "errors.json").read_text())["errors"]
    page.goto(url + f"errors/{entry['id']}/")
    expect(page.locator("h1")).to_contain_text("must be positive")
    record = content / "errors" / "a.yaml"

    record.write_text(MINIMAL + "meaning: Sizes count items, so they start at one.\n")
    expect(page.locator("#meaning")).to_be_visible(timeout=10_000)
    expect(page.locator("main")).to_contain_text("Sizes count items")

    record.write_text(MINIMAL + "meaning: [unclosed\n")
    overlay = page.locator("#errdex-overlay")
    expect(overlay).to_be_visible(timeout=10_000)
    expect(overlay).to_contain_text("a.yaml:")
    expect(page.locator("main")).to_contain_text("Sizes count items")  # the last good page

    record.write_text(MINIMAL + "meaning: Fixed for good.\n")
    expect(page.locator("main")).to_contain_text("Fixed for good.", timeout=10_000)
    expect(overlay).to_have_count(0)

    for built in out.rglob("*.html"):
        assert "__errdex" not in built.read_text(), f"{built} carries the live-reload script"


def test_the_terminal_says_what_each_rebuild_redid_why_and_how_fast(tmp_path: Path) -> None:
    other = MINIMAL.replace("ValueError", "KeyError").replace("example/project", "other/tool")
    content = make_content(tmp_path, {"a.yaml": MINIMAL, "b.yaml": other})
    command = [sys.executable, str(ROOT / "build.py"), "serve", "--port", "0"]
    command += ["--content", str(content), "--out", str(tmp_path / "served")]
    command += ["--cache", str(tmp_path / "cache")]
    process = subprocess.Popen(
        command, cwd=tmp_path, stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_stops
    )
    lines = _lines_of(process)

    def said(text: str) -> list[str]:
        return _said(lines, text)

    try:
        said("errdex: serving")
        (first,) = said("errdex: built in ")
        assert re.search(r"built in \d+\.\d\ds: 2 of 2 error pages rendered;", first), first
        assert said("errdex: full build: ")  # the planner says why everything was built

        (content / "errors" / "a.yaml").write_text(MINIMAL + "meaning: Sizes count items.\n")
        (again,) = said("errdex: rebuilt in ")
        assert re.search(
            r"rebuilt in \d+\.\d\ds: 1 of 2 error pages re-rendered \(changed: a\.yaml\)", again
        ), "".join(lines)
        assert said("errdex: update: 1 record changed")  # why: the planner's own word

        (content / "errors" / "a.yaml").write_text(MINIMAL + "solutions:\n- {a: 1}\n")
        (codes,) = said("errdex: what the codes mean: ")
        served = said("errdex: serving")[0].split(" at ")[1].split()[0]
        assert f"{served}errdex/codes/E201/" in codes, codes  # the page served right here

        # Put back as the last good build had it: nothing to redo, and serve says so.
        (content / "errors" / "a.yaml").write_text(MINIMAL + "meaning: Sizes count items.\n")
        (back,) = said("errdex: checked in ")
        assert back.rstrip().endswith("the site is as it was (saved: a.yaml), 0 warning(s)"), back
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0
    assert "Traceback" not in "".join(lines)


def _lines_of(process: subprocess.Popen[str]) -> list[str]:
    """The lines ``process`` writes on standard error, as it writes them."""
    assert process.stderr is not None
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(process.stderr or ()), daemon=True)
    reader.start()
    return lines


def _said(lines: list[str], text: str) -> list[str]:
    """The lines that say ``text``, once one does (within a minute)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = [line for line in list(lines) if text in line]
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"serve never said {text!r}:\n{''.join(lines)}")


def test_serve_started_on_a_built_site_reads_its_state_before_the_first_edit(
    tmp_path: Path,
) -> None:
    """The first edit in serve is as quick as the next: what an update reads of the last
    build's links (every summary and search entry) is read before the user edits. With
    their file then gone, the edit is still an update, not a full build."""
    content = make_content(tmp_path, {"a.yaml": MINIMAL})
    folders = ["--content", str(content), "--out", str(tmp_path / "out")]
    folders += ["--cache", str(tmp_path / "cache")]
    with socket.socket() as probe:  # a free port: the site is built for serve's address
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    build = [sys.executable, str(ROOT / "build.py")]
    address = ["--base-url", f"http://127.0.0.1:{port}/"]
    subprocess.run([*build, "build", *folders, *address], cwd=tmp_path, check=True)
    process = subprocess.Popen(
        [*build, "serve", "--port", str(port), *folders],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_stops,
    )
    lines = _lines_of(process)
    try:
        _said(lines, "errdex: serving")
        assert _said(lines, "errdex: nothing changed")
        (links,) = (tmp_path / "cache").glob("state-*.links")
        links.unlink()
        (content / "errors" / "a.yaml").write_text(MINIMAL + "title: Sizes must match\n")
        assert _said(lines, "errdex: update: 1 record changed")
        _said(lines, "errdex: rebuilt in ")
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0
    assert "full build" not in "".join(lines), "".join(lines)
    assert "Traceback" not in "".join(lines)


def test_an_override_saved_while_serving_is_built_and_shown(
    browser: Browser, served: tuple[str, Path, Path]
) -> None:
    """The site folder's own templates/ and static/ are watched too, even when they are
    made after serve started."""
    url, content, _out = served
    page = browser.new_page()
    page.goto(url)
    expect(page.locator("footer")).to_contain_text("Built with errdex")
    site = content.parent
    (site / "static").mkdir(exist_ok=True)
    (site / "static" / "ours.css").write_text(".ours { color: rgb(1, 2, 3); }\n")
    (site / "templates").mkdir(exist_ok=True)
    (site / "templates" / "base.html").write_text(
        '{% extends "errdex/base.html" %}\n'
        '{% block footer %}<p class="ours">Served as ours.</p>{% endblock %}\n'
    )
    with (content / "site.yaml").open("a") as handle:
        handle.write("extra_css:\n- ours.css\n")
    ours = page.locator("p.ours")
    expect(ours).to_have_text("Served as ours.", timeout=15_000)
    expect(ours).to_have_css("color", "rgb(1, 2, 3)")


def test_serve_stops_on_sigterm_as_on_ctrl_c(tmp_path: Path) -> None:
    """``kill`` (or a container stopping) sends SIGTERM: serve stops as Ctrl-C stops it,
    saying so, with status 0."""
    content = make_content(tmp_path, {"a.yaml": MINIMAL})
    command = [sys.executable, str(ROOT / "build.py"), "serve", "--port", "0"]
    command += ["--content", str(content), "--out", str(tmp_path / "served"), "--no-cache"]
    process = subprocess.Popen(
        command, cwd=tmp_path, stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_stops
    )
    assert process.stderr is not None
    for line in process.stderr:
        if "serving" in line:
            break
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0
    assert "errdex: stopped" in process.stderr.read()


def test_a_command_rewriting_many_records_is_said_in_one_short_line(tmp_path: Path) -> None:
    """pin rewrote 60 records while serve ran, each written aside first: serve listed the
    hidden files too, on one line of several KB. Now five names, then how many more."""
    names = [f"r{n:02d}.yaml" for n in range(8)]
    records = {name: MINIMAL.replace("size=", f"size{n}=") for n, name in enumerate(names)}
    content = make_content(tmp_path, records)
    command = [sys.executable, str(ROOT / "build.py"), "serve", "--port", "0"]
    command += ["--content", str(content), "--out", str(tmp_path / "served"), "--no-cache"]
    process = subprocess.Popen(
        command, cwd=tmp_path, stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_stops
    )
    lines = _lines_of(process)
    try:
        _said(lines, "errdex: built in ")
        # As pin writes them: each staged beside its record, then all put in place.
        folder = content / "errors"
        for name in names:
            text = (folder / name).read_text() + "meaning: Rewritten.\n"
            (folder / f".{name}.1-ab.tmp").write_text(text)
        for name in names:
            os.replace(folder / f".{name}.1-ab.tmp", folder / name)
        (changed,) = _said(lines, "errdex: changed: ")
        assert ".tmp" not in changed, changed
        assert re.search(r"changed: r0\d\.yaml(, r0\d\.yaml){4} and 3 more; rebuilding", changed)
        (rebuilt,) = _said(lines, "errdex: rebuilt in ")
        assert "(changed: r00.yaml, r01.yaml, r02.yaml, r03.yaml, r04.yaml and 3 more)" in rebuilt
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0
