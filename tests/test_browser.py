"""The built pages in a real browser: what a reader sees, copies and reaches by keyboard."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect

MESSAGES = {
    "9c019ab65f8b8d16": "dcp_comm_backend='a2a' requires decode_context_parallel_size > 1.",
    "23b4373e94335665": (
        "Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` "
        "({tensor_parallel_size}) to be greater than the model's total number of KV heads "
        "({total_num_kv_heads}). Increase `--tensor-parallel-size` or set "
        "`--decode-context-parallel-size 1`."
    ),
}
SEEDS = list(MESSAGES)
COPY_SEED = "9c019ab65f8b8d16"
SECTIONS = {
    "meaning": "What it means",
    "solutions": "Solutions",
    "example-fix": "Example fix",
    "when": "When it happens",
    "source": "Source",
    "related": "Related errors",
}
DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 375, "height": 812}
RAISED_LINE = ".code-view code mark"
REPORT = "footer a[href*='/issues/new']"
PLAIN_LINE = ".code-view"


@dataclass
class Visit:
    page: Page
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(message.text)


Opener = Callable[..., Visit]


@pytest.fixture
def visit(browser: Browser, site_url: str) -> Iterator[Opener]:
    """Open an error page in a fresh context (options as for ``new_context``)."""
    with contextlib.ExitStack() as stack:

        def open_page(error_id: str, **options: Any) -> Visit:
            options.setdefault("viewport", DESKTOP)
            context = browser.new_context(**options)
            stack.callback(context.close)
            seen = Visit(context.new_page())
            seen.page.on("request", lambda r: seen.requests.append(r.url))
            seen.page.on("pageerror", lambda e: seen.errors.append(str(e)))
            seen.page.on("console", seen.on_console)
            seen.page.goto(f"{site_url}errors/{error_id}/", wait_until="load")
            return seen

        yield open_page


def expect_sections_visible(page: Page) -> None:
    for anchor, title in SECTIONS.items():
        heading = page.locator(f"h2#{anchor}")
        expect(heading).to_have_text(title)
        expect(heading).to_be_visible()


def background(page: Page, selector: str) -> str:
    return page.locator(selector).first.evaluate("el => getComputedStyle(el).backgroundColor")


@pytest.mark.browser
@pytest.mark.parametrize("error_id", SEEDS)
def test_desktop_page_shows_everything_cleanly(visit: Opener, error_id: str) -> None:
    seen = visit(error_id)
    page = seen.page
    expect_sections_visible(page)
    expect(page.locator("nav.crumbs")).to_be_visible()
    expect(page.locator(".site-footer")).to_be_visible()
    # Found by its role and accessible name, as a screen reader finds it.
    edit = page.locator(".site-footer").get_by_role("link", name="Edit this page", exact=True)
    expect(edit).to_be_visible()
    expect(edit).to_have_attribute(
        "href",
        "https://github.com/errdex/errdex/edit/main/content/errors/vllm-project/vllm/"
        f"{error_id}.yaml",
    )

    message = page.locator("h1.message code")
    expect(message).to_be_visible()
    expect(message).to_have_text(MESSAGES[error_id])
    assert message.evaluate("el => el.scrollWidth <= el.clientWidth"), "message is clipped"

    raised = page.locator(RAISED_LINE)
    expect(raised).to_have_count(1)
    raised.scroll_into_view_if_needed()
    expect(raised).to_be_in_viewport()
    marked, plain = background(page, RAISED_LINE), background(page, PLAIN_LINE)
    assert marked != plain, f"raising line looks like any other line ({marked})"

    assert seen.errors == []
    assert [u for u in seen.requests if urlsplit(u).hostname != "127.0.0.1"] == []


@pytest.mark.browser
def test_a_wide_screen_shows_on_this_page_with_a_link_to_each_section(visit: Opener) -> None:
    page = visit(COPY_SEED).page
    toc = page.get_by_role("navigation", name="On this page")
    expect(toc).to_be_visible()
    links = toc.get_by_role("link")
    headings = page.locator("article section > h2[id]")
    expect(links).to_have_count(headings.count())
    assert links.all_inner_texts() == headings.all_inner_texts()
    toc.get_by_role("link", name="Source", exact=True).click()
    page.wait_for_url("**#source")
    expect(page.locator("h2#source")).to_be_in_viewport()
    # A phone has no room beside the article: it shows none.
    page.set_viewport_size(PHONE)
    expect(toc).to_be_hidden()


@pytest.mark.browser
def test_report_an_issue_opens_one_titled_with_the_error_and_linking_the_page(
    visit: Opener, site_url: str
) -> None:
    link = visit(COPY_SEED).page.locator(REPORT)
    report = urlsplit(link.get_attribute("href") or "")
    query = parse_qs(report.query)
    assert (report.netloc, report.path) == ("github.com", "/errdex/errdex/issues/new")
    assert query["title"] == [f"[{COPY_SEED}] ValueError: {MESSAGES[COPY_SEED]}"]
    (body,) = query["body"]
    page_line, *rest = body.splitlines()
    assert page_line == f"Page: https://errdex.github.io/errdex/errors/{COPY_SEED}/"
    assert "What is wrong or missing on this page?" in rest
    # Without the script, the link still opens an issue titled with the error's id.
    bare = visit(COPY_SEED, java_script_enabled=False).page.locator(REPORT)
    assert parse_qs(urlsplit(bare.get_attribute("href") or "").query) == {
        "title": [f"[{COPY_SEED}]"]
    }


@pytest.mark.browser
def test_code_view_numbers_its_lines_in_a_gutter_that_copying_leaves_out(visit: Opener) -> None:
    page = visit(COPY_SEED).page
    gutter = page.locator(".code-view .gutter")
    numbers = gutter.inner_text().split()
    first = int(numbers[0])
    assert numbers == [str(n) for n in range(first, first + len(numbers))]
    assert gutter.locator("mark").inner_text().strip() in numbers
    # Each number stands beside its line, the raising line's beside the marked code.
    tops = page.locator(".code-view mark").evaluate_all(
        "els => els.map(el => Math.round(el.getBoundingClientRect().top))"
    )
    assert len(tops) == 2 and tops[0] == tops[1], tops
    # Selecting the whole code view selects its code: no number enters the copied text.
    copied = page.locator(".code-view").evaluate(
        """view => {
            const range = document.createRange();
            range.selectNodeContents(view);
            const selection = getSelection();
            selection.removeAllRanges();
            selection.addRange(range);
            return selection.toString();
        }"""
    )
    copied_lines = copied.rstrip("\n").split("\n")
    assert len(copied_lines) == len(numbers)
    assert copied_lines[0].startswith("        tp = "), copied_lines[0]


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_tokens_written_without_a_span_look_as_they_would_with_one(
    visit: Opener, scheme: str
) -> None:
    """Token elements are left out around the tokens that look like plain text (names,
    punctuation, spaces): given their element back, a token looks just the same."""
    from pygments.token import STANDARD_TYPES

    from errdex.site.highlight import _plain_types

    classes = sorted({STANDARD_TYPES[kind] for kind in _plain_types()} - {""})
    assert {"n", "p", "w"} <= set(classes)
    page = visit(COPY_SEED, color_scheme=scheme).page
    tokens = page.locator(".code-view code *").evaluate_all(
        "els => els.map(e => e.localName).filter(name => name.startsWith('t-'))"
    )
    shown = {name.removeprefix("t-") for name in tokens}
    assert "k" in shown and not shown & set(classes)  # highlighted, without those
    looks = page.locator(".code-view code").first.evaluate(
        """(line, classes) => {
            const look = el => {
                const s = getComputedStyle(el);
                return [s.color, s.fontWeight, s.fontStyle, s.backgroundColor].join(" ");
            };
            const plain = document.createElement("span");
            plain.textContent = "x";
            line.append(plain);
            const found = {plain: look(plain)};
            for (const name of classes) {
                const span = document.createElement("t-" + name);
                span.textContent = "x";
                line.append(span);
                found[name] = look(span);
            }
            return found;
        }""",
        classes,
    )
    plain = looks.pop("plain")
    # Spaces show no glyph: only a background (or a line) would show their colour.
    background = plain.split(" ", 3)[3]
    assert looks.pop("w").split(" ", 3)[3] == background
    assert looks == dict.fromkeys(set(classes) - {"w"}, plain)


@pytest.mark.browser
def test_copy_button_copies_the_fix_not_the_failing_command(visit: Opener) -> None:
    page = visit(COPY_SEED, permissions=["clipboard-read", "clipboard-write"]).page
    blocks = page.locator(".fix .copyable")
    expect(blocks).to_have_count(2)
    # The first block shows the failing command under "# before" and the fix under
    # "# after": pasted into a shell, the whole block would run the failing one first.
    first = blocks.first.locator("pre").text_content() or ""
    assert first.startswith("# before\nvllm serve model --dcp-comm-backend a2a\n# after\n")
    button = blocks.first.locator("button.copy")
    expect(button).to_have_text("Copy fix")
    button.click()
    expect(button).to_have_text("Copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == "vllm serve model --decode-context-parallel-size 2 --dcp-comm-backend a2a"
    expect(button).to_have_text("Copy fix", timeout=5000)
    # A block without before and after is copied whole, exactly as shown.
    second = blocks.nth(1)
    code = second.locator("pre").evaluate("el => el.textContent").removesuffix("\n")
    button = second.locator("button.copy")
    expect(button).to_have_text("Copy")
    button.click()
    expect(button).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == code


@pytest.mark.browser
@pytest.mark.parametrize("error_id", SEEDS)
def test_page_reads_fully_without_javascript(visit: Opener, error_id: str) -> None:
    page = visit(error_id, java_script_enabled=False).page
    expect_sections_visible(page)
    blocks = page.locator(".fix pre, .code-view pre")
    expect(blocks).to_have_count(4)  # two fixes, the excerpt's numbers and its code
    for block in blocks.all():
        expect(block).to_be_visible()
    expect(page.locator("button.copy")).to_have_count(0)


@pytest.mark.browser
@pytest.mark.parametrize("error_id", SEEDS)
def test_phone_page_does_not_scroll_sideways(visit: Opener, error_id: str) -> None:
    page = visit(error_id, viewport=PHONE).page
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"] + 1, f"page is {width}px wide on a {PHONE['width']}px screen"
    code_view = page.locator(".code-view")
    assert code_view.evaluate("el => el.scrollWidth > el.clientWidth"), "code does not scroll"


@pytest.mark.browser
@pytest.mark.parametrize(
    "path",
    [
        "options/decode_context_parallel_size/",
        "repos/vllm-project/vllm/releases/",
        "repos/vllm-project/vllm/files/vllm/config/parallel.py/",
    ],
)
def test_phone_list_page_with_a_long_name_does_not_scroll_sideways(
    browser: Browser, site_url: str, path: str
) -> None:
    """A list's heading names an option, a file or a repo whole, and the releases page
    is a table: on a phone the name breaks, and the table scrolls in its own box."""
    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        page.goto(site_url + path, wait_until="load")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"] + 1, f"{path} is {width}px wide on a phone"
    finally:
        context.close()


@pytest.mark.browser
def test_keyboard_reaches_copy_button_with_visible_focus(visit: Opener) -> None:
    page = visit(COPY_SEED).page
    page.keyboard.press("Tab")
    expect(page.locator("a.skip")).to_be_focused()
    copy = page.locator("button.copy").first
    for _ in range(60):
        page.keyboard.press("Tab")
        if copy.evaluate("el => el === document.activeElement"):
            break
    else:
        pytest.fail("60 presses of Tab never reached the Copy button")
    expect(copy).to_have_text("Copy fix")
    outline = copy.evaluate("el => getComputedStyle(el).outlineStyle")
    assert outline != "none", "focused Copy button has no outline"


@pytest.mark.browser
def test_printed_code_wraps_and_keeps_the_raising_line_marked(visit: Opener) -> None:
    """On paper nothing scrolls: a long line wraps inside the page, the numbers (which
    wrapped lines would put out of step) go, and the raising line keeps a printed edge."""
    page = visit(COPY_SEED).page
    page.evaluate(
        """() => document.querySelector('.code-view code')
            .insertAdjacentText('afterbegin', 'x = ' + 'long_name + '.repeat(40) + '\\n')"""
    )
    page.emulate_media(media="print")
    view = page.locator(".code-view")
    code = page.locator(".code-view pre:not(.gutter)")
    assert code.evaluate("el => el.scrollWidth") <= view.evaluate("el => el.clientWidth")
    assert page.locator(".code-view .gutter").evaluate("el => getComputedStyle(el).display") == (
        "none"
    )
    edge = page.locator(".code-view code mark").evaluate(
        "el => getComputedStyle(el).borderLeftWidth"
    )
    assert edge == "4px"


@pytest.mark.browser
def test_breadcrumbs_wrapped_on_a_phone_start_no_line_with_a_separator(visit: Opener) -> None:
    page = visit(COPY_SEED, viewport={"width": 320, "height": 700}).page
    # A long repository name, as real ones are, so that the crumbs wrap.
    page.locator("nav.crumbs li a").first.evaluate(
        "a => { a.textContent = 'an-organisation/a-rather-long-project-name'; }"
    )
    starts = page.locator("nav.crumbs li").evaluate_all(
        """items => items.map(li => {
            const before = getComputedStyle(li, '::before').content;
            return [li.getBoundingClientRect().left, before];
        })"""
    )
    first_left = min(left for left, _ in starts)
    # Every item that starts a line (at the left edge) shows no separator before it.
    assert all(before in ("none", "normal") for left, before in starts if left == first_left)


@pytest.mark.browser
def test_a_list_pages_heading_links_look_like_links(browser: Browser, site_url: str) -> None:
    """A section's heading links to its own place quietly (a " #" on hover); a list's
    heading that leads to another page (a repo's, a file's) keeps the links' colour."""
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        page.goto(site_url + "exceptions/ValueError/", wait_until="load")
        heading = page.locator("main h2:has(a)").first
        colour = heading.evaluate("h => getComputedStyle(h).color")
        link = heading.locator("a")
        assert link.evaluate("a => getComputedStyle(a).color") != colour
        link.hover()
        assert link.evaluate("a => getComputedStyle(a, '::after').content") in ("none", "normal")
    finally:
        context.close()
