"""Search in chromium: the page's own script against the shared vectors, and the search box."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import MINIMAL, build_site, http_server, make_content
from playwright.sync_api import Browser, Page, Response, expect
from test_search import VECTORS, as_plain, check_vector, index, search_content, vector_content

from errdex import search

__all__ = ["index", "vector_content"]  # module fixtures shared with test_search

pytestmark = pytest.mark.browser

TRACEBACK = VECTORS[3]["paste"]  # chained, message over several lines
TRACEBACK_ID = "23b4373e94335665"


@pytest.fixture(scope="module")
def vector_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("vectors")
    with http_server(build_site(search_content(root), root)) as url:
        yield url


def run_vectors(page: Page) -> list[dict[str, Any]]:
    return page.evaluate(
        """async (vectors) => {
            const out = [];
            for (const v of vectors) {
                const result = await window.errdexSearch.lookup(v.paste);
                out.push(result.matches.map((m) => ({
                    id: m.id, template: m.template, exception: m.exception, values: m.values,
                    first_line: m.firstLine, also: m.also, elsewhere: m.elsewhere,
                })));
            }
            return out;
        }""",
        VECTORS,
    )


def test_every_vector_gives_the_same_answer_in_the_browser(
    page: Page, vector_site: str, index: search.Index
) -> None:
    page.goto(vector_site)
    results = run_vectors(page)
    for vector, matches in zip(VECTORS, results, strict=True):
        check_vector(vector, matches)
        # Not only the first answer: every result, in order, with every value.
        python = as_plain(search.lookup(index, vector["paste"]))
        assert matches == python, vector["name"]


def test_a_message_raised_in_many_files_opens_the_framed_one_and_counts_them_all(
    page: Page, vector_site: str
) -> None:
    """48 records say one message; the traceback's file is one of those not scored."""
    crowd = next(v["paste"] for v in VECTORS if "names one of those not scored" in v["name"])
    page.goto(vector_site)
    page.get_by_label("Paste an error message, a traceback or a log line").fill(crowd)
    first = page.locator("#results-main [role=option]").first
    expect(first).to_contain_text("Also raised at 48 other places")
    expect(first).to_have_attribute("data-href", re.compile(r"errors/5e1f000000000146/\?q="))


def test_a_traceback_pasted_on_the_home_page_opens_its_page_with_the_values(
    page: Page, site_url: str
) -> None:
    page.goto(site_url)
    box = page.get_by_label("Paste an error message, a traceback or a log line")
    box.fill(TRACEBACK)
    first = page.locator("#results-main [role=option]").first
    expect(first).to_contain_text("Decode context parallelism for GQA/MQA requires")
    expect(first).to_contain_text("tensor_parallel_size = 8")
    box.press("Enter")
    page.wait_for_url(f"**/errors/{TRACEBACK_ID}/?q=*")
    yours = page.locator(".yours")
    expect(yours).to_be_visible()
    expect(yours.locator("mark.value")).to_have_text(["8", "8"])
    expect(yours.locator("dt")).to_have_text(["tensor_parallel_size", "total_num_kv_heads"])


def test_pasting_a_traceback_into_the_header_box_keeps_its_lines(page: Page, site_url: str) -> None:
    page.goto(site_url + "errors/9c019ab65f8b8d16/")
    box = page.locator("#q-header")
    box.focus()
    # A real paste event: an <input> would drop the line breaks of a plain fill.
    page.evaluate(
        """(text) => {
            const data = new DataTransfer();
            data.setData("text/plain", text);
            const options = {clipboardData: data, bubbles: true, cancelable: true};
            document.activeElement.dispatchEvent(new ClipboardEvent("paste", options));
        }""",
        TRACEBACK,
    )
    expect(box).to_have_value(
        "Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` (8) to be "
        "greater than the model's total number of KV heads (8). Increase "
        "`--tensor-parallel-size` or set `--decode-context-parallel-size 1`."
    )
    options = page.locator("#results-header [role=option]")
    expect(options.first).to_contain_text("Decode context parallelism")


def test_keyboard_slash_focuses_arrows_move_and_enter_opens(page: Page, site_url: str) -> None:
    page.goto(site_url + "errors/9c019ab65f8b8d16/")
    page.keyboard.press("/")
    box = page.locator("#q-header")
    expect(box).to_be_focused()
    box.type("parallelism")
    options = page.locator("#results-header [role=option]")
    # The whole answer to the last keystroke, not the first one it replaces nor the answer
    # to a shorter prefix typed before a slow keystroke (the keys below count its options).
    expect(options.first).to_have_attribute("data-href", re.compile(r"\?q=parallelism$"))
    expect(page.locator("#results-header")).to_have_attribute("aria-busy", "false")
    count = options.count()
    assert count >= 2
    box.press("ArrowDown")
    box.press("ArrowDown")
    expect(options.nth(1)).to_have_attribute("aria-selected", "true")
    expect(box).to_have_attribute("aria-activedescendant", "results-header-1")
    href = options.nth(1).get_attribute("data-href")
    box.press("Enter")
    page.wait_for_url("**/" + href.replace("../", ""))


def test_the_option_chosen_with_the_arrows_stays_chosen_when_the_answer_is_shown_again(
    page: Page, site_url: str
) -> None:
    """The whole answer replaces the first one while the user may already be choosing
    with the arrow keys: the option chosen stays chosen in the new list."""
    page.goto(site_url + "errors/9c019ab65f8b8d16/")
    box = page.locator("#q-header")
    box.focus()
    # One input event, so no answer to a shorter query lands after the arrows are pressed.
    box.fill("parallelism")
    expect(page.locator("#results-header")).to_have_attribute("aria-busy", "false")
    box.press("ArrowDown")
    box.press("ArrowDown")
    chosen = page.locator("#results-header [aria-selected=true]")
    href = chosen.get_attribute("data-href")
    assert href
    # The same answer shown again, as the whole one follows the first: new options.
    page.evaluate(
        """() => {
            document.querySelectorAll("#results-header [role=option]")
                .forEach((o) => o.setAttribute("data-before", ""));
            document.querySelector("#q-header").dispatchEvent(new Event("input"));
        }"""
    )
    expect(page.locator("#results-header [data-before]")).to_have_count(0)
    expect(page.locator("#results-header")).to_have_attribute("aria-busy", "false")
    expect(chosen).to_have_count(1)
    expect(chosen).to_have_attribute("data-href", href)
    expect(box).to_have_attribute("aria-activedescendant", chosen.get_attribute("id") or "")


def test_a_foreign_error_says_nothing_matches(page: Page, site_url: str) -> None:
    page.goto(site_url)
    page.get_by_label("Paste an error message, a traceback or a log line").fill(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
    )
    expect(page.locator("#q-main ~ .search-status, .search-main .search-status")).to_contain_text(
        "No error in this index matches"
    )
    expect(page.locator("#results-main")).to_be_hidden()


def test_search_makes_no_request_outside_the_site(browser: Browser, site_url: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    hosts: set[str] = set()
    page.on("request", lambda r: hosts.add(r.url.split("/")[2]))
    page.goto(site_url)
    page.get_by_label("Paste an error message, a traceback or a log line").fill(TRACEBACK)
    expect(page.locator("#results-main [role=option]").first).to_be_visible()
    context.close()
    assert hosts == {site_url.split("/")[2]}


def test_record_files_of_an_earlier_build_are_fetched_again(page: Page, site_url: str) -> None:
    """A browser that kept the index's files of an earlier build (search/ is cached for a
    while) finds a record file without the rows meta.json puts there: every file is
    fetched again past the cache, once, and the search answers as on a fresh visit."""
    asked: list[str] = []

    def earlier(route: Any) -> None:
        asked.append(route.request.url)
        if len(asked) == 1:
            route.fulfill(status=200, content_type="application/json", body="[]")
        else:
            route.continue_()

    page.route("**/search/records/*.json", earlier)
    page.goto(site_url)
    page.get_by_label("Paste an error message, a traceback or a log line").fill(TRACEBACK)
    first = page.locator("#results-main [role=option]").first
    expect(first).to_contain_text("Decode context parallelism for GQA/MQA requires")
    assert asked.count(asked[0]) == 2, asked  # the file of the earlier build, then again


def test_a_search_index_gone_even_past_the_cache_says_so(page: Page, site_url: str) -> None:
    """When a record file lacks its rows even fetched again, search says it failed (once),
    rather than showing a wrong page."""
    page.route(
        "**/search/records/*.json",
        lambda route: route.fulfill(status=200, content_type="application/json", body="[]"),
    )
    page.goto(site_url)
    said = page.evaluate(
        "(paste) => window.errdexSearch.lookup(paste).then(() => 'answered', (e) => e.message)",
        TRACEBACK,
    )
    assert said.startswith("search index: records/") and "has no" in said, said


def test_the_search_page_reads_its_query(page: Page, site_url: str) -> None:
    page.goto(site_url + "search/?q=" + "PCP%20does%20not%20support%20data%20parallelism%20yet.")
    expect(page.locator("#results-main [role=option]").first).to_contain_text(
        "PCP does not support data parallelism yet."
    )


def test_index_files_are_what_the_browser_fetches(
    page: Page, site_url: str, built_site: Path
) -> None:
    """A search in the page fetches the index head, word shards and record chunks: each
    one a file of the built site, served whole."""
    fetched: list[Response] = []
    page.on("response", lambda r: fetched.append(r) if "/search/" in r.url else None)
    page.goto(site_url)
    page.get_by_label("Paste an error message, a traceback or a log line").fill(TRACEBACK)
    first = page.locator("#results-main [role=option]").first
    expect(first).to_contain_text("Decode context parallelism for GQA/MQA requires")
    files = {}
    for response in fetched:
        name = response.url.removeprefix(site_url + "search/")
        if name.endswith(".json"):
            assert response.status == 200, name
            files[name] = response.body()
    assert "meta.json" in files
    assert [n for n in files if n.startswith("words/")], files.keys()
    assert [n for n in files if n.startswith("records/")], files.keys()
    for name, body in files.items():
        assert body == (built_site / "search" / name).read_bytes(), name


def test_a_fresh_page_shows_a_first_answer_after_a_few_files(browser: Browser) -> None:
    """On a 3,000-record index the first query of a fresh page gets a first answer from
    at most QUICK_REQUESTS files (the head included); the whole answer, Python's, follows,
    from the head and at most its four word shards and four record files."""
    from benchmarks import search as bench
    from benchmarks.corpus import generate
    from benchmarks.pastes import make_paste

    records = generate(3000, seed=7)
    index = bench.build_index(records)
    chosen = random.Random(7).sample(records, 6)
    pastes = [
        make_paste(record, kind, random.Random(number))
        for number, record in enumerate(chosen)
        for kind in ("traceback", "log")
    ]
    quick = 0
    with bench.served_index(index) as site, http_server(site) as url:
        for paste in pastes:
            context = browser.new_context()
            page = context.new_page()
            page.goto(url)
            run = page.evaluate(bench.FIRST_QUERY, paste)
            context.close()
            _, python = search.find(index, paste, 3)
            assert run["whole"]["top"] == (python[0].entry.id if python else None)
            assert run["whole"]["requests"] <= 9, paste
            if run["first"]["requests"] <= search.QUICK_REQUESTS:
                quick += 1
                assert run["first"]["top"] == run["whole"]["top"], paste
                assert run["whole"]["requests"] >= run["first"]["requests"], paste
    # A message whose own words are all common is found by its values alone: the whole
    # answer, later. The benchmark measures how often, on a real corpus.
    assert quick >= 0.8 * len(pastes)


def test_focusing_the_search_box_fetches_the_index_head(page: Page, site_url: str) -> None:
    heads: list[str] = []
    page.on("request", lambda r: heads.append(r.url) if "/search/" in r.url else None)
    page.goto(site_url)
    page.wait_for_load_state("networkidle")
    assert heads == []
    page.locator(".search-main textarea").focus()
    page.wait_for_load_state("networkidle")
    expect(page.locator(".search-main textarea")).to_be_focused()
    assert [h.removeprefix(site_url) for h in heads] == ["search/meta.json"]


def test_a_places_file_that_cannot_be_read_leaves_the_answer_as_scored(
    browser: Browser, tmp_path: Path
) -> None:
    """The places files name a record none of the scored ones is; without them (a host
    that lost one), the page still answers, with the first record it scored."""
    out = build_site(search_content(tmp_path), tmp_path)
    for path in (out / "search" / "places").glob("*.json"):
        path.unlink()
    crowd = next(v["paste"] for v in VECTORS if "names one of those not scored" in v["name"])
    with http_server(out) as url:
        context = browser.new_context()
        try:
            page = context.new_page()
            page.goto(url)
            found = page.evaluate(
                "async (p) => (await window.errdexSearch.lookup(p)).matches.map((m) => m.id)",
                crowd,
            )
        finally:
            context.close()
    assert found[:1] == ["5e1f000000000100"]


def test_a_result_opens_in_a_new_tab_as_a_link_would(page: Page, site_url: str) -> None:
    """A result is an option, not a link (no link may sit inside an option), but opens as
    one does: a Ctrl-click or a middle click in a new tab, leaving the search as it was."""
    page.goto(site_url + "errors/9c019ab65f8b8d16/")
    box = page.locator("#q-header")
    box.fill("parallelism")
    expect(page.locator("#results-header")).to_have_attribute("aria-busy", "false")
    first = page.locator("#results-header [role=option]").first
    href = first.get_attribute("data-href")
    assert href
    for how in ({"modifiers": ["Control"]}, {"button": "middle"}):
        with page.context.expect_page() as opened:
            first.click(**how)
        tab = opened.value
        tab.wait_for_load_state()
        assert tab.url.endswith(href.replace("../", "")), (how, tab.url)
        tab.close()
        assert page.url.endswith("errors/9c019ab65f8b8d16/")
        expect(box).to_have_value("parallelism")


def _long_paste(last_line: str) -> str:
    """A traceback of some 4,000 characters, more than an address carries."""
    frames = "".join(
        f'  File "/srv/app/step_{n}.py", line {n}, in run_{n}\n    run_{n + 1}(config)\n'
        for n in range(60)
    )
    return "Traceback (most recent call last):\n" + frames + last_line + "\n"


def test_the_search_button_answers_a_long_paste_without_leaving_the_page(
    page: Page, site_url: str
) -> None:
    """The button sent the paste in the address (GET ?q=…), and a long traceback with
    no match got the server's "414 Request-URI Too Long" instead of the answer."""
    paste = _long_paste("KeyError: 'no_such_setting_anywhere'")
    assert len(paste) > 3000
    page.goto(site_url + "search/")
    page.locator("#q-main").fill(paste)
    page.get_by_role("button", name="Find my error").click()
    expect(page.locator(".search-main .search-status")).to_contain_text(
        "No error in this index matches"
    )
    assert page.url == site_url + "search/#pasted"  # kept in the tab, for a reload
    page.reload()
    expect(page.locator("#q-main")).to_have_value(paste)
    expect(page.locator(".search-main .search-status")).to_contain_text(
        "No error in this index matches"
    )
    # A short one goes in the address, as a link to the answer.
    page.locator("#q-main").fill("KeyError: 'no_such_setting_anywhere'")
    page.get_by_role("button", name="Find my error").click()
    expect(page).to_have_url(site_url + "search/?q=KeyError%3A%20%27no_such_setting_anywhere%27")
    # Then a long one again: the address keeps no stale ?q= that a reload would answer.
    page.locator("#q-main").fill(paste)
    page.get_by_role("button", name="Find my error").click()
    expect(page).to_have_url(site_url + "search/#pasted")
    page.reload()
    expect(page.locator("#q-main")).to_have_value(paste)


def test_a_long_paste_in_the_header_box_is_handed_to_the_search_page(
    page: Page, site_url: str
) -> None:
    paste = _long_paste("KeyError: 'no_such_setting_anywhere'")
    page.goto(site_url + "errors/9c019ab65f8b8d16/")
    box = page.locator("#q-header")
    box.fill(paste)
    expect(page.locator(".search-header .search-status")).to_contain_text(
        "No error in this index matches"
    )
    box.press("Enter")
    page.wait_for_url(site_url + "search/#pasted")
    expect(page.locator("#q-main")).to_have_value(paste.replace("\n", " ").strip())
    expect(page.locator(".search-main .search-status")).to_contain_text(
        "No error in this index matches"
    )
    # The paste kept for this page leaks into no other: the home page's box is empty.
    page.goto(site_url)
    page.wait_for_timeout(300)
    expect(page.locator("#q-main")).to_have_value("")


def test_a_paste_long_once_encoded_is_handed_over_too(page: Page, site_url: str) -> None:
    """1,500 Chinese characters are 13,500 in an address, which servers refuse."""
    page.goto(site_url + "errors/9c019ab65f8b8d16/")
    box = page.locator("#q-header")
    box.fill("错误" * 750)
    expect(page.locator(".search-header .search-status")).to_contain_text("No error")
    box.press("Enter")
    page.wait_for_url(site_url + "search/#pasted")


def test_enter_in_the_big_box_starts_a_new_line(page: Page, site_url: str) -> None:
    page.goto(site_url + "search/")
    box = page.locator("#q-main")
    box.click()
    page.keyboard.type("KeyError: 'zz_none'")
    expect(page.locator(".search-main .search-status")).to_contain_text("No error")
    page.keyboard.press("Enter")
    page.keyboard.type("more")
    expect(box).to_have_value("KeyError: 'zz_none'\nmore")


def test_a_result_shows_a_placeholder_the_message_says_twice_once(
    page: Page, tmp_path: Path
) -> None:
    twice = MINIMAL.replace(
        'message: "size={size} must be positive"',
        'message: "size={size} must be positive, and {size} is {kind}"',
    )
    content = make_content(tmp_path, {"size.yaml": twice})
    with http_server(build_site(content, tmp_path)) as url:
        page.goto(url + "search/")
        page.locator("#q-main").fill("ValueError: size=-1 must be positive, and -1 is odd")
        values = page.locator("#results-main [role=option] .result-values").first
        expect(values).to_have_text("size = -1, kind = odd")
        # The page it opens lists the user's values once each too.
        page.locator("#results-main [role=option]").first.click()
        expect(page.locator("dl.yours-values dt")).to_have_text(["size", "kind"])


@pytest.mark.parametrize("width", [1280, 1024, 375])
def test_the_header_results_stay_inside_the_window(page: Page, site_url: str, width: int) -> None:
    """At 1280 pixels the header's list of results ended at x=1356: cut off, and the page
    scrolled sideways."""
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(site_url + "errors/9c019ab65f8b8d16/")
    page.locator("#q-header").fill("parallelism")
    results = page.locator("#results-header")
    expect(results.locator("[role=option]").first).to_be_visible()
    box = results.bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, (box, width)
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_a_result_shows_a_literal_brace_once(page: Page, vector_site: str) -> None:
    # The record writes a brace of the message twice (``{{name}}``): the reader sees it
    # as the error says it.
    page.goto(vector_site + "search/")
    page.get_by_label("Paste an error message, a traceback or a log line").fill(
        "KeyError: The field {name} of the schema for fetch is missing"
    )
    first = page.locator("#results-main [role=option]").first
    expect(first.locator(".result-title")).to_have_text(
        "The field {name} of the schema for {tool} is missing"
    )


def test_a_first_line_pasted_says_so_in_the_results(page: Page, vector_site: str) -> None:
    page.goto(vector_site + "search/")
    page.locator(".search-main textarea").fill(
        "Server fault '503 Service Unavailable' for link 'https://models.test/w'"
    )
    option = page.locator("#results-main [role=option]").first
    expect(option).to_contain_text("first line matches")
    expect(option).to_contain_text("for link")


def test_a_packaged_error_of_no_matching_message_offers_its_errors(
    page: Page, vector_site: str
) -> None:
    page.goto(vector_site + "search/")
    box = page.locator(".search-main textarea")
    box.fill("vllm.looms.errors.ShuttleJam: 409 Conflict. (Request: 7f3a-22c1)")
    status = page.locator(".search-main .search-status")
    expect(status).to_contain_text("No error matches: the errors of the exception")
    options = page.locator("#results-main [role=option]")
    expect(options).to_have_count(1)
    expect(options.first).to_contain_text("The one error raised as ShuttleJam")
    # Printed without its module, it may be a built-in exception: nothing is offered.
    box.fill("ShuttleJam: 409 Conflict. (Request: 7f3a-22c1)")
    expect(status).to_contain_text("No error in this index matches")
    expect(options).to_have_count(0)


NAMED = [
    "OSError",
    " loom.ShuttleJam:",
    "vllm.looms.errors.ShuttleJam: 409 Conflict. (Request: 7f3a-22c1)",
    "ShuttleJam: 409 Conflict.",
    "requests.exceptions.ShuttleJam: 409 Conflict.",
    "foo.ValueError: 409 Conflict",
    "builtins.OSError: nothing like this anywhere",
    "Traceback (most recent call last):\n"
    '  File "/srv/app.py", line 3, in <module>\n'
    "vllm.looms.errors.ShuttleJam: 409 Conflict.\n\n"
    "During handling of the above exception, another exception occurred:\n\n"
    "Traceback (most recent call last):\n"
    '  File "/srv/app.py", line 5, in <module>\n'
    "RuntimeError: the worker died\n",
]


def test_the_page_offers_the_exceptions_lookup_offers(
    page: Page, vector_site: str, index: search.Index
) -> None:
    page.goto(vector_site)
    named = page.evaluate(
        """async (pastes) => {
            const out = [];
            for (const p of pastes) {
                const r = await window.errdexSearch.lookup(p);
                out.push(r.matches.length ? null : r.named);
            }
            return out;
        }""",
        NAMED,
    )
    for paste, offered in zip(NAMED, named, strict=True):
        extracted, matches = search.find(index, paste)
        assert not matches, paste
        python = search.exceptions_named(
            paste, extracted.exception, index.exception_pages, index.exception_modules
        )
        assert offered == python, paste
    assert named[2] == ["ShuttleJam"] and named[4:] == [[], [], [], []]


def test_a_class_name_alone_offers_the_list_of_its_errors(page: Page, vector_site: str) -> None:
    page.goto(vector_site + "search/")
    page.locator(".search-main textarea").fill("OSError")
    status = page.locator(".search-main .search-status")
    expect(status).to_contain_text("No error matches: the errors of the exception")
    options = page.locator("#results-main [role=option]")
    expect(options).to_have_count(2)  # EnvironmentError prints as OSError: both
    expect(options.nth(0)).to_contain_text("Every error raised as EnvironmentError")
    expect(options.nth(1)).to_contain_text("The one error raised as OSError")
    options.nth(0).click()
    page.wait_for_url("**/exceptions/EnvironmentError/")
    expect(page.locator("h1")).to_contain_text("EnvironmentError")
    page.go_back()
    page.locator(".search-main textarea").fill("OSError")
    page.locator("#results-main [role=option]").nth(1).click()
    page.wait_for_url("**/errors/e48091ef8303f677/**")
