"""Deployment: the _headers rules, a strict CSP that the pages really live with, the workflow."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ROOT, http_server
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
    with http_server(built_site, headers={"Content-Security-Policy": csp}) as url:
        yield url


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
    assert cache["with"]["path"].split() == [".errdex/cache", "public"]
    assert any(u.startswith("actions/upload-pages-artifact@") for u in uses)
    deploy = workflow["jobs"]["deploy"]["steps"]
    assert deploy[0]["uses"].startswith("actions/deploy-pages@")


# --- Who may publish, and which runs wait for or cancel which ------------------------

_TOKEN = re.compile(r"\s*(?:('(?:[^']|'')*')|(==|!=|&&|\|\||!|\(|\)|,)|([A-Za-z_][\w.-]*))")


def _evaluate(expression: str, github: dict[str, str]) -> object:
    """A GitHub Actions expression of the few forms the workflows use: ``github.*``
    values, quoted strings, ``== != && || !``, brackets and ``format()``."""
    tokens: list[str] = []
    at = 0
    while at < len(expression.rstrip()):
        found = _TOKEN.match(expression, at)
        assert found, f"cannot read {expression[at:]!r}"
        tokens.append(next(g for g in found.groups() if g is not None))
        at = found.end()

    def take(expected: str | None = None) -> str:
        token = tokens.pop(0)
        assert expected is None or token == expected, (token, expected)
        return token

    def primary() -> object:
        token = take()
        if token == "!":
            return not primary()
        if token == "(":
            value = either()
            take(")")
            return value
        if token.startswith("'"):
            return token[1:-1].replace("''", "'")
        if token == "format":
            take("(")
            args = [either()]
            while tokens[0] == ",":
                take(",")
                args.append(either())
            take(")")
            return re.sub(r"\{(\d+)\}", lambda m: str(args[1 + int(m[1])]), str(args[0]))
        if token in ("true", "false"):
            return token == "true"
        assert token.startswith("github."), token
        return github[token.removeprefix("github.")]

    def compared() -> object:
        left = primary()
        while tokens and tokens[0] in ("==", "!="):
            op, right = take(), primary()
            left = (left == right) if op == "==" else (left != right)
        return left

    def both() -> object:
        left = compared()
        while tokens and tokens[0] == "&&":
            take()
            right = compared()
            left = left and right
        return left

    def either() -> object:
        left = both()
        while tokens and tokens[0] == "||":
            take()
            right = both()
            left = left or right
        return left

    value = either()
    assert not tokens, tokens
    return value


def _value(text: object, github: dict[str, str]) -> object:
    """A workflow value with its ``${{ }}`` expressions evaluated (a value that is one
    expression keeps its type, as in GitHub Actions)."""
    if not isinstance(text, str):
        return text
    whole = re.fullmatch(r"\$\{\{(.*?)\}\}", text.strip(), re.S)
    if whole:
        return _evaluate(whole[1], github)
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: str(_evaluate(m[1], github)), text)


def _jobs_run(workflow: dict[str, Any], github: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Each job that runs on the event ``github`` describes: its permissions and its
    concurrency group and cancel-in-progress (a job's own, or else the workflow's)."""
    runs = {}
    for name, job in workflow["jobs"].items():
        condition = job.get("if")
        if condition is not None and not _value("${{ " + condition + " }}", github):
            continue
        concurrency = job.get("concurrency", workflow.get("concurrency"))
        if isinstance(concurrency, str):
            concurrency = {"group": concurrency}
        group = cancel = None
        if concurrency is not None:
            group = _value(concurrency["group"], github)
            cancel = bool(_value(concurrency.get("cancel-in-progress", False), github))
        runs[name] = {
            "permissions": job.get("permissions", workflow.get("permissions", "write-all")),
            "group": group,
            "cancel": cancel,
        }
    return runs


PUSH = {"event_name": "push", "ref": "refs/heads/main"}
PULL = {"event_name": "pull_request", "ref": "refs/pull/7/merge"}
OTHER_PULL = {"event_name": "pull_request", "ref": "refs/pull/8/merge"}


URL, WORKFLOW = "https://acme.github.io/widgets/", ".github/workflows/errdex.yml"
WORKFLOW_NAMES = ["site.yml", "init's errdex.yml", "init's errdex.yml in a subfolder"]


def _workflows() -> dict[str, dict[str, Any]]:
    from errdex.site import init

    return {
        "site.yml": yaml.safe_load((ROOT / ".github" / "workflows" / "site.yml").read_text()),
        "init's errdex.yml": yaml.safe_load(init.workflows(URL)[WORKFLOW]),
        "init's errdex.yml in a subfolder": yaml.safe_load(init.workflows(URL, "docs/")[WORKFLOW]),
    }


def test_the_expression_reader_reads_what_github_would() -> None:
    assert _value("x-${{ github.ref }}", PULL) == "x-refs/pull/7/merge"
    assert _value("${{ github.event_name == 'pull_request' }}", PULL) is True
    assert _value("${{ github.event_name == 'pull_request' && 'a' || 'b' }}", PUSH) == "b"
    assert _value("${{ format('pr-{0}', github.ref) }}", PULL) == "pr-refs/pull/7/merge"
    assert _value("${{ !(github.ref != 'refs/heads/main') }}", PUSH) is True


@pytest.mark.parametrize("name", WORKFLOW_NAMES)
def test_only_the_deploy_job_may_publish(name: str) -> None:
    workflow = _workflows()[name]
    for event in (PUSH, PULL):
        for job, run in _jobs_run(workflow, event).items():
            permissions = run["permissions"]
            # Before: site.yml gave pages and id-token to the whole workflow, so a pull
            # request's build (which runs the pull request's code) held them too.
            assert isinstance(permissions, dict), (name, job, permissions)
            publishing = {k for k in ("pages", "id-token") if permissions.get(k) == "write"}
            if job == "deploy":
                assert publishing == {"pages", "id-token"}, (name, permissions)
            else:
                assert publishing == set(), (name, job, permissions)
                assert set(permissions.values()) <= {"read", "none"}, (name, job, permissions)
    assert "deploy" in _jobs_run(workflow, PUSH)
    assert "deploy" not in _jobs_run(workflow, PULL)


@pytest.mark.parametrize("name", WORKFLOW_NAMES)
def test_a_pull_request_never_cancels_or_queues_behind_a_deploy(name: str) -> None:
    workflow = _workflows()[name]
    push, pull, other = (_jobs_run(workflow, e) for e in (PUSH, PULL, OTHER_PULL))
    # Deploys take turns in "pages" and none cancels the one publishing.
    assert push["deploy"]["group"] == "pages" and push["deploy"]["cancel"] is False
    # Before: every run of the workflow, pull requests' included, was in "pages", so a
    # pull request's push replaced a deploy of main waiting there.
    used_by_push = {run["group"] for run in push.values()}
    for job, run in pull.items():
        assert run["group"] is not None, (name, job)
        assert run["group"] not in used_by_push, (name, job, run["group"])
        # A newer push to the pull request cancels its older build, and only its own.
        assert run["cancel"] is True, (name, job)
        assert run["group"] != other[job]["group"], (name, job)
    # Main's builds are never cancelled in progress (their deploy would not run).
    assert push["build"]["cancel"] is False
