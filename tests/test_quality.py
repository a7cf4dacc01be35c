"""Quality gates on the built site: valid HTML, size budgets, CSP-ready markup, accessibility."""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import html5lib
import pytest
from bs4 import BeautifulSoup, Tag
from conftest import html_pages, http_server

from errdex.site.read import CSS_BUDGET, JS_BUDGET

KB = 1024  # budgets are in KiB of uncompressed bytes, as Lighthouse budgets count them
HTML_BUDGET = 40 * KB
# search.js: paste shapes, a first answer from 8 files, release wordings, every error a
# GitHub issue names (#39: 3 KiB), of records that say the same words the one a
# traceback's frame names (1 KiB), pytest's reports of where an error was raised (0.3
# KiB), that record from the index's places when more say the words than are scored (1
# KiB), and the one nearest the frame's line of those in its file (0.9 KiB); errdex.js:
# how to avoid an error worked out with a paste's values, and an error page's "On this
# page" and report link (1.2 KiB), which every page wrote itself before (about 400 bytes
# each: 3.5 MB of a 6,556-record site); then notebooks' tracebacks, exception groups'
# margins and counts, values printed as empty strings (1.1 KiB), and a result opened in
# a new tab as a link is (0.2 KiB): 43 KiB; then values that agree where a placeholder
# is said twice (0.5 KiB): 44 KiB; then the first line of a message of several, pasted
# alone (0.5 KiB): 45 KiB; then a package's error whose message matches nothing, which
# offers its exception's errors, and a message read without the note that ends it in a
# link and as the error a wrapper names (846 bytes in all, 46,844 of 47,104): 46 KiB;
# then Django's debug page, read as the error it shows (525 bytes, 47,369), and an
# exception's repr inside a log line (312 bytes, 47,681; 47,774 with a page's empty
# value row read as none): 47 KiB; then the error pytest's long report places, read
# before its summary's placeless "FAILED" line (411 bytes, 48,185), and a script's
# only frame whose carets mark no call (149 bytes, 48,334; 48,416 as a review left
# it): 48 KiB.
# The budgets are errdex/site/read.py's, which a site's own extra_css and extra_js are
# held to (W311).

DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 375, "height": 812}
ERROR_ID = "9c019ab65f8b8d16"
FOCUSABLE = "a[href], button, input, textarea, .code-view"
# <script> types the browser never runs (JSON-LD structured data): CSP does not cover them.
DATA_BLOCKS = {"application/ld+json", "application/json"}


def error_pages(site: Path) -> list[Path]:
    pages = sorted((site / "errors").rglob("*.html"))
    assert pages, "no pages under errors/"
    return pages


def parse(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def local_file(site: Path, page: Path, url: str) -> Path:
    """The built file a page's ``href``/``src`` points at (relative or from the site root)."""
    parts = urlsplit(url)
    assert not parts.scheme and not parts.netloc, f"{page}: {url} is not served by the site"
    page_url = "/" + page.relative_to(site).as_posix()
    target = Path(urljoin(page_url, parts.path).lstrip("/"))
    path = site / target
    assert path.is_file(), f"{page.relative_to(site)}: {url} resolves to no built file"
    return path


# --- valid HTML5 -------------------------------------------------------------------------


def test_every_page_is_valid_html5(built_site: Path) -> None:
    problems = []
    for page in html_pages(built_site):
        parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
        try:
            parser.parse(page.read_bytes(), transport_encoding="utf-8")
        except html5lib.html5parser.ParseError as error:
            where = ""
            if parser.errors:
                (line, col), code, _ = parser.errors[-1]
                where = f":{line}:{col} ({code})"
            problems.append(f"{page.relative_to(built_site)}{where}: {error}")
    assert not problems, "HTML5 parse errors:\n" + "\n".join(problems)


# --- budgets -----------------------------------------------------------------------------


def test_error_page_html_budget(built_site: Path) -> None:
    over = [
        f"{page.relative_to(built_site)}: {page.stat().st_size} bytes"
        for page in error_pages(built_site)
        if page.stat().st_size > HTML_BUDGET
    ]
    assert not over, f"error pages over {HTML_BUDGET} bytes of HTML:\n" + "\n".join(over)


def stylesheets(site: Path, page: Path) -> list[Path]:
    links = parse(page).find_all("link", rel="stylesheet")
    return [local_file(site, page, str(link["href"])) for link in links]


def scripts(site: Path, page: Path) -> list[Path]:
    tags = parse(page).find_all("script", src=True)
    return [local_file(site, page, str(tag["src"])) for tag in tags]


def test_error_page_css_budget(built_site: Path) -> None:
    over = []
    for page in error_pages(built_site):
        sheets = stylesheets(built_site, page)
        for sheet in sheets:
            assert "@import" not in sheet.read_text(encoding="utf-8"), f"{sheet} imports CSS"
        total = sum(sheet.stat().st_size for sheet in sheets)
        if total > CSS_BUDGET:
            names = ", ".join(f"{s.name} {s.stat().st_size}" for s in sheets)
            over.append(f"{page.relative_to(built_site)}: {total} bytes ({names})")
    assert not over, f"error pages loading over {CSS_BUDGET} bytes of CSS:\n" + "\n".join(over)


def test_our_js_budget(built_site: Path) -> None:
    """What an error page loads: errdex-page.js, the search and the page's script."""
    problems = []
    for page in error_pages(built_site):
        loaded = scripts(built_site, page)
        for js in loaded:
            if js.parent != built_site / "static":
                problems.append(f"{page.relative_to(built_site)}: loads {js}, not our static JS")
        size = sum(js.stat().st_size for js in loaded)
        if size > JS_BUDGET:
            problems.append(f"{page.relative_to(built_site)}: loads {size} bytes of JS")
    assert not problems, f"over the {JS_BUDGET}-byte JS budget:\n" + "\n".join(problems)


# --- nothing inline: a strict Content-Security-Policy is possible ---------------------------


def inline_code(tag: Tag) -> list[str]:
    found = []
    if tag.name == "script" and str(tag.get("type", "")).strip().lower() in DATA_BLOCKS:
        # A data block is never run, so CSP does not apply to it; it must still be data.
        try:
            json.loads(tag.get_text())
        except ValueError as error:
            found.append(f"{tag['type']} data block that is not JSON ({error})")
        if tag.get("src"):
            found.append(f"{tag['type']} data block with src")
    elif tag.name == "script" and (not tag.get("src") or tag.get_text().strip()):
        found.append("inline <script>")
    if tag.name == "style":
        found.append("<style> element")
    for name, value in tag.attrs.items():
        is_url = name in {"href", "src", "action", "formaction"}
        script_url = is_url and str(value).strip().lower().startswith("javascript:")
        if name == "style" or name.startswith("on") or script_url:
            found.append(f"{name}={value!r}")
    return [f"<{tag.name}> {what}" for what in found]


def test_checks_catch_what_they_look_for() -> None:
    page = BeautifulSoup(
        '<script>x()</script><script src="a.js">y()</script><script src="b.js"></script>'
        '<style>p{}</style><p style="color:red" onclick="x()"><a href="javascript:x()">a</a>'
        '<script type="application/ld+json">{"a": 1}</script>'
        '<script type="application/ld+json">{oops</script>',
        "html.parser",
    )
    found = [p for tag in page.find_all(True) for p in inline_code(tag)]
    assert len(found) == 7, found
    with pytest.raises(html5lib.html5parser.ParseError):
        html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(
            "<!doctype html><title>t</title><p>a</div>"
        )


def test_no_inline_scripts_or_styles(built_site: Path) -> None:
    problems = []
    for page in html_pages(built_site):
        for tag in parse(page).find_all(True):
            problems += [f"{page.relative_to(built_site)}: {p}" for p in inline_code(tag)]
    assert not problems, "inline code a strict CSP would block:\n" + "\n".join(problems)


# --- axe-core ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def not_found_url(built_site: Path, site_url: str) -> Iterator[str]:
    """404.html where a host serves it: under the path of base_url, which its links use."""
    html = parse(built_site / "404.html").find("html")
    assert isinstance(html, Tag)
    root = str(html.get("data-root", "/")).strip("/")
    if not root:
        yield f"{site_url}404.html"
        return
    with tempfile.TemporaryDirectory() as tmp:
        mount = Path(tmp, *root.split("/"))
        mount.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(built_site, mount, target_is_directory=True)
        with http_server(Path(tmp)) as url:
            yield f"{url}{root}/404.html"


AXE_PAGES = {
    "home": "",
    "error": f"errors/{ERROR_ID}/",
    "repo": "repos/vllm-project/vllm/",
    "exception": "exceptions/ValueError/",
    "search": "search/?q=parallelism",
    "404": None,
}


@pytest.fixture(scope="module")
def axe() -> Any:
    from axe_playwright_python.sync_playwright import Axe

    return Axe()


def axe_cases() -> list[Any]:
    cases = []
    for name in AXE_PAGES:
        for viewport in (PHONE, DESKTOP):
            for scheme in ("light", "dark"):
                case_id = f"{name}-{viewport['width']}-{scheme}"
                cases.append(pytest.param(name, viewport, scheme, id=case_id))
    return cases


@pytest.mark.browser
@pytest.mark.parametrize(("name", "viewport", "scheme"), axe_cases())
def test_axe_finds_no_violation(
    browser: Any,
    site_url: str,
    not_found_url: str,
    axe: Any,
    name: str,
    viewport: dict[str, int],
    scheme: str,
) -> None:
    path = AXE_PAGES[name]
    url = not_found_url if path is None else site_url + path
    context = browser.new_context(viewport=viewport, color_scheme=scheme)
    try:
        page = context.new_page()
        response = page.goto(url, wait_until="networkidle")
        assert response is not None and response.ok, f"{url}: {response and response.status}"
        if name == "search":
            page.locator("#results-main li.result").first.wait_for(state="visible")
        results = axe.run(page)
    finally:
        context.close()
    bad = results.response["violations"]  # minor ones too
    lines = [
        f"{v['id']} ({v['impact']}, {len(v['nodes'])} node(s)): "
        f"first {', '.join(map(str, v['nodes'][0]['target']))} — {v['help']}"
        for v in bad
    ]
    assert not bad, f"axe on {name} ({viewport['width']}px, {scheme}):\n" + "\n".join(lines)


# --- keyboard only -----------------------------------------------------------------------

WALK_SETUP = """
(selector) => {
  const visible = (el) => {
    const style = getComputedStyle(el);
    // What a closed <details> holds is shown (and reached) once its summary opens it.
    const folded = el.closest("details:not([open])");
    if (folded && !el.closest("summary")) return false;
    return el.getClientRects().length > 0 && style.visibility !== "hidden"
      && !(el.type === "hidden") && !el.disabled;
  };
  window.__qaTargets = [...document.querySelectorAll(selector)].filter(visible);
  return window.__qaTargets.map((el) => describe(el));
  function describe(el) {
    const label = (el.getAttribute("aria-label") || el.textContent || el.name || "")
      .trim().replace(/\\s+/g, " ").slice(0, 40);
    const cls = el.className && typeof el.className === "string"
      ? "." + el.className.trim().split(/\\s+/).join(".") : "";
    const href = el.getAttribute("href");
    return `<${el.tagName.toLowerCase()}${cls}>` + (href ? ` href=${href.slice(0, 60)}` : "")
      + (label ? ` "${label}"` : "");
  }
}
"""

WALK_STEP = """
() => {
  const el = document.activeElement;
  if (!el || el === document.body || el === document.documentElement) return null;
  const style = getComputedStyle(el);
  const label = (el.getAttribute("aria-label") || el.textContent || el.name || "")
    .trim().replace(/\\s+/g, " ").slice(0, 40);
  const cls = el.className && typeof el.className === "string"
    ? "." + el.className.trim().split(/\\s+/).join(".") : "";
  const href = el.getAttribute("href");
  return {
    index: window.__qaTargets.indexOf(el),
    name: `<${el.tagName.toLowerCase()}${cls}>` + (href ? ` href=${href.slice(0, 60)}` : "")
      + (label ? ` "${label}"` : ""),
    outlineStyle: style.outlineStyle,
    outlineWidth: style.outlineWidth,
    boxShadow: style.boxShadow,
  };
}
"""


def focus_walk(browser: Any, site_url: str, viewport: dict[str, int]) -> dict[str, Any]:
    context = browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        page.goto(f"{site_url}errors/{ERROR_ID}/", wait_until="networkidle")
        page.locator("button.copy").first.wait_for(state="attached")
        targets: list[str] = page.evaluate(WALK_SETUP, FOCUSABLE)
        steps = []
        for _ in range(200):
            page.keyboard.press("Tab")
            step = page.evaluate(WALK_STEP)
            if step is None:
                break
            steps.append(step)
    finally:
        context.close()
    return {"targets": targets, "steps": steps}


@pytest.fixture(scope="module")
def walks(browser: Any, site_url: str) -> dict[int, dict[str, Any]]:
    return {vp["width"]: focus_walk(browser, site_url, vp) for vp in (PHONE, DESKTOP)}


@pytest.mark.browser
@pytest.mark.parametrize("width", [PHONE["width"], DESKTOP["width"]])
def test_keyboard_reaches_every_control(walks: dict[int, dict[str, Any]], width: int) -> None:
    walk = walks[width]
    assert walk["targets"], "no focusable elements found"
    assert walk["steps"], "Tab focused nothing"
    reached = {step["index"] for step in walk["steps"]}
    missed = [name for i, name in enumerate(walk["targets"]) if i not in reached]
    assert len(walk["steps"]) < 200, "focus never left the page after 200 presses of Tab"
    assert not missed, (
        f"Tab never focused {len(missed)} of {len(walk['targets'])} visible controls "
        f"at {width}px:\n" + "\n".join(missed)
    )


def focus_visible(step: dict[str, Any]) -> bool:
    outline = step["outlineStyle"] != "none" and step["outlineWidth"] not in {"0px", ""}
    return outline or step["boxShadow"] not in {"none", ""}


@pytest.mark.browser
@pytest.mark.parametrize("width", [PHONE["width"], DESKTOP["width"]])
def test_keyboard_focus_is_always_visible(walks: dict[int, dict[str, Any]], width: int) -> None:
    steps = walks[width]["steps"]
    assert steps, "Tab focused nothing"
    failing = sorted(
        {
            f"{s['name']}: outline {s['outlineStyle']} {s['outlineWidth']}, "
            f"box-shadow {s['boxShadow']}"
            for s in steps
            if not focus_visible(s)
        }
    )
    assert not failing, f"focused with no visible indicator at {width}px:\n" + "\n".join(failing)


_REGEX_LITERAL = re.compile(
    r"(?:[=(,:\[!&|?{;]|=>|\breturn)\s*(/(?![/*])(?:\\.|\[(?:\\.|[^\]\\\n])*\]|[^/\\\n\[])+/[a-z]*)"
)
"""A regular expression literal, where JavaScript reads one (after an operator, an
opening bracket or ``return``; not after a name or ``)``, where ``/`` divides)."""


@pytest.mark.parametrize("name", ["errdex.js", "search.js"])
def test_the_page_scripts_regular_expressions_survive_minifying(name: str) -> None:
    # rjsmin reads a "/" right after "=>" as division and drops the spaces of a literal
    # there: `(i) => /[^ \t]$/.test(s)` shipped as `/[^\t]$/`.
    from errdex.site.render import _minified

    source = (Path(__file__).parent.parent / "static" / name).read_text(encoding="utf-8")
    minified = _minified(name, source.encode()).decode()
    literals = [found.group(1) for found in _REGEX_LITERAL.finditer(source)]
    assert literals, "no regular expression literal found"
    assert [found.group(1) for found in _REGEX_LITERAL.finditer(minified)] == literals
