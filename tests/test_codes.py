"""errdex's problem codes: every problem has one, and every code has its page."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import MINIMAL, ROOT, make_content, soup

from errdex.records.codes import CODES


def test_every_problem_errdex_reports_carries_a_known_code() -> None:
    used = set()
    for path in sorted((ROOT / "errdex").rglob("*.py")):
        source = path.read_text()
        for call in re.finditer(r"\bProblem\(", source):
            end = _closing(source, call.end() - 1)
            body = source[call.end() : end]
            if path.name == "problems.py":
                continue
            # A command's refusal (a bad --repo, an export it cannot read) is about no
            # file, and its code is null in --json (docs/commands.md#json-reports).
            if body == '"", 0, message':
                continue
            found = re.search(r'code="([EW]\d{3})"|code\b', body)
            assert found, f"{path.name}: a Problem without a code: Problem({body[:60]}…)"
            used.update(re.findall(r'"([EW]\d{3})"', body))
        used.update(re.findall(r'"([EW]\d{3})" if', source))
        used.update(re.findall(r'else "([EW]\d{3})"', source))
    assert used <= set(CODES), used - set(CODES)
    assert set(CODES) <= used, f"codes never used: {set(CODES) - used}"


def _closing(text: str, start: int) -> int:
    depth = 0
    for index in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth == 0:
            return index
    raise AssertionError("unbalanced")


def test_every_code_has_a_page_and_messages_link_to_it(
    tmp_path: Path, run, built_site: Path
) -> None:  # type: ignore[no-untyped-def]
    index = soup(built_site / "errdex" / "codes" / "index.html")
    for code in CODES:
        page = soup(built_site / "errdex" / "codes" / code / "index.html")
        assert code in page.find("h1").get_text()
        assert index.find("a", href=f"../../errdex/codes/{code}/")
    content = make_content(tmp_path, {"bad.yaml": MINIMAL.replace("  line: 3", "  line: x")})
    result = run("check", "--content", content)
    assert "errors/bad.yaml:7: source.line must be a whole number, not str [E201]" in result.err
    assert "what the codes mean: https://errors.example.test/docs/errdex/codes/E201/" in result.err


def test_a_site_whose_address_is_still_inits_placeholder_is_sent_to_errdexs_own(
    tmp_path: Path, run
) -> None:  # type: ignore[no-untyped-def]
    """``errdex init`` guesses https://me.github.io/NAME/ when nobody gives the site's
    address: no page is there, so what a code means is read on errdex's own site, by
    check and by a build that is written, until the site says its own address."""
    content = make_content(tmp_path, {"typo.yaml": MINIMAL + "solutons: []\n"})
    config = content / "site.yaml"
    text = config.read_text()
    config.write_text(text.replace("https://errors.example.test/docs/", "https://me.github.io/x/"))
    assert config.read_text() != text
    for command in ("check", "build"):
        result = run(command, "--content", content, "--out", tmp_path / "out")
        said = "what the codes mean: https://errdex.github.io/errdex/errdex/codes/W203/"
        assert said in result.err, command


def test_the_asset_budget_page_names_the_budgets_the_build_keeps() -> None:
    from errdex.site.read import CSS_BUDGET, JS_BUDGET

    said = CODES["W311"].text
    assert f"{CSS_BUDGET // 1024} KiB of CSS, {JS_BUDGET // 1024} KiB of JavaScript" in said
