"""GitHub issues on every error page: ``errdex issues import`` and what a build shows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.conftest import snapshot, soup

A2A = "9c019ab65f8b8d16"
"""The bundled record of ``dcp_comm_backend='a2a' requires decode_context_parallel_size > 1.``"""
TP = "6d978e90b462139e"
"""The bundled record of ``tp_size={tp} must be divisible by dcp_size={dcp}.``"""
REPO = "vllm-project/vllm"


def _gh(number: int, body: str, state: str = "OPEN", day: int = 1, **more: Any) -> dict[str, Any]:
    """An issue as ``gh issue list --json number,title,body,state,url,createdAt,…`` gives it."""
    return {
        "number": number,
        "title": more.get("title", f"Problem {number}"),
        "body": body,
        "state": state,
        "url": f"https://github.com/{REPO}/issues/{number}",
        "createdAt": f"2026-10-{day:02d}T10:00:00Z",
        "closedAt": "2026-11-01T10:00:00Z" if state == "CLOSED" else None,
        "labels": [{"name": "bug"}],
    }


TRACEBACK = """I start the server and it dies:

```
Traceback (most recent call last):
  File "/usr/bin/vllm", line 8, in <module>
    sys.exit(main())
ValueError: dcp_comm_backend='a2a' requires decode_context_parallel_size > 1.
```

<details><summary>pip list</summary>

torch 2.9.0
vllm 0.11.0
</details>
"""
PLAIN = "Got this:\n\n    ValueError: tp_size=8 must be divisible by dcp_size=3.\n"
FEATURE = "It would be nice if the a2a backend worked with a single DCP rank as well."


def _export(tmp_path: Path, issues: list[dict[str, Any]], name: str = "export.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(issues))
    return path


def _import(run, content: Path, export: Path, *more: str):  # type: ignore[no-untyped-def]
    return run("issues", "import", export, "--repo", REPO, "--content", content, *more)


def _file(content: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((content / "issues" / f"{REPO}.json").read_text())
    return data


def test_an_import_links_each_issue_to_the_error_it_pastes(run, bundled_content, tmp_path) -> None:  # type: ignore[no-untyped-def]
    export = _export(tmp_path, [_gh(101, TRACEBACK), _gh(102, PLAIN, "CLOSED"), _gh(103, FEATURE)])
    result = _import(run, bundled_content, export)
    assert result.code == 0, result.err
    assert "3 issue(s) read, 2 paste an error a record explains" in result.err
    issues = {i["number"]: i for i in _file(bundled_content)["issues"]}
    assert issues[101]["errors"] == [A2A]
    assert issues[102]["errors"] == [TP]
    assert issues[102]["state"] == "closed" and issues[102]["closed"] == "2026-11-01T10:00:00Z"
    # A feature request that names the error's words, but pastes no error, links nothing.
    assert issues[103]["errors"] == []
    assert issues[101]["labels"] == ["bug"]


def test_an_issue_whose_title_is_the_error_is_linked(run, bundled_content, tmp_path) -> None:  # type: ignore[no-untyped-def]
    titled = _gh(104, "Happens on every start, see the title.", title=PLAIN.split(": ")[-1])
    result = _import(run, bundled_content, _export(tmp_path, [titled]))
    assert result.code == 0, result.err
    assert [i["errors"] for i in _file(bundled_content)["issues"]] == [[TP]]


def test_the_error_page_and_its_json_list_the_issues_that_paste_it(
    run, bundled_content, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    pasted = [_gh(n, TRACEBACK, "CLOSED" if n % 3 == 0 else "OPEN", day=n) for n in range(1, 8)]
    _import(run, bundled_content, _export(tmp_path, [*pasted, _gh(20, PLAIN)]))
    out = tmp_path / "public"
    result = run("build", "--content", bundled_content, "--out", out)
    assert result.code == 0, result.err

    page = soup(out / "errors" / A2A / "index.html")
    section = page.find("section", class_="reported")
    assert section is not None
    assert section.find("h2").get_text(strip=True) == "Reported in GitHub issues"
    said = section.find("p").get_text(" ", strip=True)
    assert said == "7 issues pasted this error: 5 open, 2 closed. The newest 5:"
    rows = section.find_all("li")
    assert [r.find(class_="row-line").get_text() for r in rows] == ["#7", "#6", "#5", "#4", "#3"]
    assert rows[0].find("a")["href"] == f"https://github.com/{REPO}/issues/7"
    assert "Problem 7" in rows[0].get_text()
    assert "open" in rows[0].find(class_="row-meta").get_text()
    assert "closed" in rows[1].find(class_="row-meta").get_text()  # #6
    assert rows[0].find("time")["datetime"] == "2026-10-07"
    assert page.find("a", href="#issues") is not None  # its heading's own link

    document = json.loads((out / "api" / "errors" / f"{A2A}.json").read_text())
    assert document["issues"]["count"] == 7
    assert (document["issues"]["open"], document["issues"]["closed"]) == (5, 2)
    assert [i["number"] for i in document["issues"]["reported"]] == [7, 6, 5, 4, 3, 2, 1]
    schema = json.loads((out / "api" / "schema.json").read_text())
    jsonschema.validate(document, schema)
    other = json.loads((out / "api" / "errors" / f"{TP}.json").read_text())
    assert other["issues"]["count"] == 1

    # Where a maintainer should write next: the home page and the repository's page.
    for rel in ("index.html", f"repos/{REPO}/index.html"):
        listed = soup(out / rel).find("section", attrs={"aria-labelledby": "most-reported"})
        assert listed is not None, rel
        rows = listed.find_all("li")
        assert [r.find("a")["href"].rstrip("/").rsplit("/", 1)[-1] for r in rows] == [A2A, TP]
        assert "7 issues (5 open)" in rows[0].get_text()


def test_the_most_reported_list_without_an_analysis_leaves_out_analysed_errors(
    run,  # type: ignore[no-untyped-def]
    bundled_content: Path,
    tmp_path: Path,
) -> None:
    # The a2a record is analysed; the tp record (tp-divisible-by-dcp.yaml) is not yet.
    issues = [_gh(1, TRACEBACK), _gh(2, TRACEBACK), _gh(3, PLAIN)]
    _import(run, bundled_content, _export(tmp_path, issues))
    out = tmp_path / "public"
    assert run("build", "--content", bundled_content, "--out", out).code == 0
    for rel in ("index.html", f"repos/{REPO}/index.html"):
        page = soup(out / rel)
        most = page.find("section", attrs={"aria-labelledby": "most-reported"})
        unanalysed = page.find("section", attrs={"aria-labelledby": "most-reported-unanalysed"})
        assert most is not None and unanalysed is not None, rel
        ids = [a["href"].rstrip("/").rsplit("/", 1)[-1] for a in most.find_all("a")]
        assert ids == [A2A, TP]
        ids = [a["href"].rstrip("/").rsplit("/", 1)[-1] for a in unanalysed.find_all("a")]
        assert ids == [TP]
        heading = unanalysed.find("h2").get_text(strip=True)
        assert heading == "Most reported errors without an analysis yet"


def test_importing_again_merges_by_number_and_never_loses_an_issue(
    run, bundled_content, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    _import(run, bundled_content, _export(tmp_path, [_gh(101, TRACEBACK), _gh(102, PLAIN)]))
    later = [_gh(102, PLAIN, "CLOSED"), _gh(104, FEATURE)]
    result = _import(run, bundled_content, _export(tmp_path, later, "later.json"))
    assert result.code == 0, result.err
    assert "2 issue(s) read" in result.err and "1 new, 1 kept from before" in result.err
    issues = {i["number"]: i for i in _file(bundled_content)["issues"]}
    assert sorted(issues) == [101, 102, 104]
    assert issues[101]["errors"] == [A2A]  # not in the second export: kept as it was
    assert issues[102]["state"] == "closed"  # in both: the newer export wins
    # One issue a line, by number: a person can read the diff.
    lines = (bundled_content / "issues" / f"{REPO}.json").read_text().splitlines()
    assert [json.loads(line.rstrip(","))["number"] for line in lines[1:-1]] == [101, 102, 104]


def test_the_rest_apis_shape_is_read_and_its_pull_requests_left_out(
    run, bundled_content, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    rest = [
        {
            "number": 7,
            "title": "Crash",
            "body": TRACEBACK,
            "state": "open",
            "html_url": f"https://github.com/{REPO}/issues/7",
            "url": f"https://api.github.com/repos/{REPO}/issues/7",
            "created_at": "2026-09-01T00:00:00Z",
            "closed_at": None,
            "labels": [{"name": "bug", "color": "d73a4a"}],
        },
        {
            "number": 8,
            "title": "Fix the crash",
            "body": TRACEBACK,
            "state": "open",
            "html_url": f"https://github.com/{REPO}/pull/8",
            "created_at": "2026-09-02T00:00:00Z",
            "closed_at": None,
            "labels": [],
            "pull_request": {"url": f"https://api.github.com/repos/{REPO}/pulls/8"},
        },
    ]
    result = _import(run, bundled_content, _export(tmp_path, rest))
    assert result.code == 0, result.err
    [issue] = _file(bundled_content)["issues"]
    assert (issue["number"], issue["url"], issue["errors"]) == (
        7,
        f"https://github.com/{REPO}/issues/7",
        [A2A],
    )


def test_a_dry_run_writes_nothing(run, bundled_content, tmp_path) -> None:  # type: ignore[no-untyped-def]
    result = _import(run, bundled_content, _export(tmp_path, [_gh(1, TRACEBACK)]), "--dry-run")
    assert result.code == 0, result.err
    assert "1 paste an error" in result.err and "would write" in result.err
    assert not (bundled_content / "issues").exists()


@pytest.mark.parametrize(
    ("export", "said"),
    [
        ("{not json", "is not a JSON export of issues"),
        ('{"issues": 1}', "must hold a JSON list of issues"),
    ],
)
def test_an_export_that_is_not_a_list_of_issues_is_refused(
    run,  # type: ignore[no-untyped-def]
    bundled_content: Path,
    tmp_path: Path,
    export: str,
    said: str,
) -> None:
    path = tmp_path / "export.json"
    path.write_text(export)
    result = _import(run, bundled_content, path)
    assert result.code == 1
    assert said in result.err
    assert not (bundled_content / "issues").exists()


@pytest.mark.parametrize("repo", ["vllm", "../vllm", "vllm-project/..", "a/b/c"])
def test_a_repo_that_is_not_owner_name_is_refused_before_anything_is_written(
    run,  # type: ignore[no-untyped-def]
    bundled_content: Path,
    tmp_path: Path,
    repo: str,
) -> None:
    # Issues whose addresses name that repo: only the check of --repo itself stops them.
    issue = {**_gh(1, TRACEBACK), "url": f"https://github.com/{repo}/issues/1"}
    before = snapshot(bundled_content)
    result = run(
        "issues", "import", _export(tmp_path, [issue]), "--repo", repo, "--content", bundled_content
    )
    assert result.code == 1
    assert result.err == f"errdex: --repo must be owner/name, not {repo!r}\n"
    assert snapshot(bundled_content) == before


def test_an_export_of_another_repository_is_refused_and_its_issues_skipped(
    run,  # type: ignore[no-untyped-def]
    bundled_content: Path,
    tmp_path: Path,
) -> None:
    other = {**_gh(1, TRACEBACK), "url": "https://github.com/someone/fork/issues/1"}
    result = _import(run, bundled_content, _export(tmp_path, [other]))
    assert result.code == 1
    assert (
        "item 0 (#1): url must be the issue's address, "
        "https://github.com/vllm-project/vllm/issues/1; nothing was written" in result.err
    )
    assert not (bundled_content / "issues").exists()

    # Among the repository's own issues, one of another repository is skipped by name.
    result = _import(
        run, bundled_content, _export(tmp_path, [_gh(2, PLAIN), {**other, "number": 3}])
    )
    assert result.code == 0, result.err
    assert "skipped item 1 (#3): url must be the issue's address" in result.err
    assert [i["number"] for i in _file(bundled_content)["issues"]] == [2]


def test_an_issue_file_that_names_another_repository_is_refused_at_its_line(
    run,  # type: ignore[no-untyped-def]
    bundled_content: Path,
    tmp_path: Path,
) -> None:
    row = ROW.format(n=1, state="open", errors=f'"{A2A}"').replace(REPO, "someone/fork")
    path = _issue_file(bundled_content, '{"repo": "someone/fork", "issues": [\n' + row + "\n]}")
    said = (
        "content/issues/vllm-project/vllm.json:1: \"repo\" must be 'vllm-project/vllm', "
        "the folder and file it is in, not 'someone/fork'"
    )
    before = path.read_bytes()
    result = _import(run, bundled_content, _export(tmp_path, [_gh(2, PLAIN)]))
    assert result.code == 1
    assert said in result.err
    assert path.read_bytes() == before

    result = run("build", "--content", bundled_content, "--out", tmp_path / "public")
    assert result.code == 1
    assert said in result.err
    assert not (tmp_path / "public").exists()


def _issue_file(content: Path, text: str) -> Path:
    path = content / "issues" / "vllm-project" / "vllm.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


ROW = (
    '{{"number": {n}, "title": "T", "state": "{state}", "url": '
    '"https://github.com/vllm-project/vllm/issues/{n}", "created": "2026-01-01", '
    '"closed": null, "labels": [], "errors": [{errors}]}}'
)


def test_a_bad_issue_file_is_named_at_its_line_and_the_site_is_kept(
    run, bundled_content, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "public"
    assert run("build", "--content", bundled_content, "--out", out).code == 0
    before = snapshot(out)
    rows = [
        ROW.format(n=1, state="open", errors=f'"{A2A}"'),
        ROW.format(n=2, state="reopened", errors=""),
        ROW.format(n=3, state="open", errors='"not-an-id"'),
    ]
    _issue_file(
        bundled_content, '{"repo": "vllm-project/vllm", "issues": [\n' + ",\n".join(rows) + "\n]}"
    )
    result = run("build", "--content", bundled_content, "--out", out)
    assert result.code == 1
    assert "content/issues/vllm-project/vllm.json:3: issues[1] (#2): state must be" in result.err
    assert "content/issues/vllm-project/vllm.json:4: issues[2] (#3): errors must be" in result.err
    assert snapshot(out) == before

    _issue_file(bundled_content, '{"repo": "vllm-project/vllm", "issues": [\n{"number": 1,,}\n]}')
    result = run("build", "--content", bundled_content, "--out", out)
    assert result.code == 1
    assert "vllm.json:2: is not valid JSON" in result.err and "[E101]" in result.err
    assert snapshot(out) == before


def test_an_issue_linking_an_error_no_record_has_is_a_warning_at_its_line(
    run, bundled_content, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    rows = [ROW.format(n=5, state="open", errors=f'"{A2A}", "00000000000000ff"')]
    _issue_file(bundled_content, '{"repo": "vllm-project/vllm", "issues": [\n' + rows[0] + "\n]}")
    out = tmp_path / "public"
    result = run("build", "--content", bundled_content, "--out", out)
    assert result.code == 0, result.err
    assert (
        "content/issues/vllm-project/vllm.json:2: warning: issue #5 links '00000000000000ff', "
        "which no record has" in result.err
    )
    assert "[W404]" in result.err
    document = json.loads((out / "api" / "errors" / f"{A2A}.json").read_text())
    assert [i["number"] for i in document["issues"]["reported"]] == [5]
    assert run("build", "--content", bundled_content, "--out", out, "--strict").code == 1


def test_a_changed_issue_file_rebuilds_what_it_shows(run, bundled_content, tmp_path) -> None:  # type: ignore[no-untyped-def]
    out, cache = tmp_path / "public", tmp_path / "cache"
    build = ("build", "--content", bundled_content, "--out", out, "--cache", cache, "-v")
    assert run(*build).code == 0
    assert "Reported in GitHub issues" not in (out / "errors" / A2A / "index.html").read_text()
    _issue_file(
        bundled_content,
        '{"repo": "vllm-project/vllm", "issues": [\n'
        + ROW.format(n=9, state="open", errors=f'"{A2A}"')
        + "\n]}",
    )
    result = run(*build)
    assert result.code == 0, result.err
    assert "the GitHub issues" in result.err
    assert "Reported in GitHub issues" in (out / "errors" / A2A / "index.html").read_text()
    fresh = tmp_path / "fresh"
    assert run("build", "--content", bundled_content, "--out", fresh, "--no-cache").code == 0
    assert {p: d for p, (d, _) in snapshot(out).items()} == {
        p: d for p, (d, _) in snapshot(fresh).items()
    }


def test_whole_messages_are_found_by_a_word_no_value_runs_into() -> None:
    from errdex import search
    from errdex.github.reports import Wholes, _fixed_words

    templates = [
        "You cannot specify both {prefix}input_ids and {prefix}inputs_embeds at the same time",
        "{a}{b}",  # no word of its own: checked against every reading
        "{name}s must be set before training starts",
        "Unknown dtype {dtype} for layer {layer}",
    ]
    entries = [
        search.make_entry(i, f"{i:016x}", "ValueError", "o/r", t, "")
        for i, t in enumerate(templates)
    ]
    index = search.Index.build(entries)
    # A value runs into "input_ids" and "s": neither files the record.
    fixed = ["you", "cannot", "specify", "both", "and", "at", "the", "same", "time"]
    assert _fixed_words(entries[0]) == fixed
    assert _fixed_words(entries[2]) == ["must", "be", "set", "before", "training", "starts"]
    wholes = Wholes(index)
    assert [index.entries[n].template for n in wholes.loose] == ["{a}{b}"]
    for paste, expected in [
        (
            "ValueError: You cannot specify both decoder_input_ids and decoder_inputs_embeds at "
            "the same time",
            0,
        ),
        ("ValueError: warmup_steps must be set before training starts", 2),
        ("ValueError: Unknown dtype fp8 for layer 3", 3),
    ]:
        reading = search.readings(paste)[0]
        fast = [(key, m.entry.id, m.values) for key, m in wholes.ranked(reading)]
        assert fast[0][1] == f"{expected:016x}", paste
        # The same whole matches, in the same order, as search ranks them.
        slow = [
            (key, m.entry.id, m.values)
            for key, m in search.ranked_matches(index, reading)
            if m.exact
        ]
        assert fast == slow, paste


def test_every_whole_match_search_ranks_is_among_those_found_by_word() -> None:
    """On an index big enough that search ranks only its best candidates, the records
    filed by word hold every whole match search finds, with the same key and values."""
    import random

    from benchmarks.corpus import generate
    from benchmarks.real_pastes import fill
    from errdex import search
    from errdex.github.reports import Wholes

    records = generate(2000, seed=3)
    entries = [
        search.make_entry(i, f"{i:016x}", r["exception"], r["repo"], r["message"], "")
        for i, r in enumerate(records)
    ]
    index = search.Index.build(entries)
    wholes = Wholes(index)
    rng = random.Random(3)
    checked = 0
    for record in rng.sample(records, 150):
        reading = search.readings(f"{record['exception']}: {fill(record, rng)}")[0]
        ranked = [
            (k, m.entry.id, m.values) for k, m in search.ranked_matches(index, reading) if m.exact
        ]
        by_word = {m.entry.id: (k, m.entry.id, m.values) for k, m in wholes.ranked(reading)}
        for found in ranked:
            assert by_word.get(found[1]) == found, (record["message"], found)
        checked += bool(ranked)
    assert checked > 100  # most pastes are whole messages search finds


ARABIC_INDIC = "\u0662\u0660\u0662\u0667-10-09T10:00:00Z"
"""2027-10-09 in Arabic-Indic digits: ``\\d`` matches them, and they sort after every date."""


def test_an_issue_dated_in_other_digits_or_off_the_calendar_is_skipped_by_name(  # type: ignore[no-untyped-def]
    run, bundled_content, tmp_path
) -> None:
    export = _export(
        tmp_path,
        [
            {**_gh(1, TRACEBACK), "createdAt": ARABIC_INDIC},
            {**_gh(2, TRACEBACK), "createdAt": "2026-02-30T10:00:00Z"},
            {**_gh(3, TRACEBACK, "CLOSED"), "closedAt": "2026-11-\u0660\u0661T10:00:00Z"},
            _gh(4, TRACEBACK, day=2),
            _gh(5, TRACEBACK, day=3),
        ],
    )
    result = _import(run, bundled_content, export)
    assert result.code == 0, result.err
    # Before: #1 was imported, listed first as the newest and shown as
    # <time datetime="٢٠٢٧-10-09">, which no browser or crawler reads as a date.
    assert (
        "skipped item 0 (#1): created must be a date of ASCII digits, YYYY-MM-DD or ISO 8601, "
        "not '\\u0662\\u0660\\u0662\\u0667-10-09T10:00:00Z'" in result.err
    )
    assert "skipped item 1 (#2): created must be a date of ASCII digits" in result.err
    assert "skipped item 2 (#3): closed must be a date of ASCII digits" in result.err
    assert [i["number"] for i in _file(bundled_content)["issues"]] == [4, 5]
    out = tmp_path / "public"
    assert run("build", "--content", bundled_content, "--out", out).code == 0
    rows = soup(out / "errors" / A2A / "index.html").find("section", class_="reported")("li")
    assert [r.find("time")["datetime"] for r in rows] == ["2026-10-03", "2026-10-02"]

    # An issue file edited by hand is held to the same dates, at its line.
    _issue_file(
        bundled_content,
        '{"repo": "vllm-project/vllm", "issues": [\n'
        + ROW.format(n=1, state="open", errors="").replace("2026-01-01", ARABIC_INDIC[:10])
        + "\n]}",
    )
    built = run("build", "--content", bundled_content, "--out", out)
    assert built.code == 1
    assert "vllm.json:2: issues[0] (#1): created must be a date of ASCII digits" in built.err
