"""The build benchmark's own machinery, on a corpus small enough for the test suite."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from benchmarks import build as bench
from benchmarks import corpus, restored


@pytest.fixture(autouse=True)
def _no_sync(monkeypatch: pytest.MonkeyPatch) -> None:
    """The benchmarks flush the machine's writes before each timed step; here nothing is
    timed, and each flush waited on what the tests beside it wrote (74 s of 80 for one
    test with a worker on each core)."""
    monkeypatch.setattr(os, "sync", lambda: None)


def test_the_benchmark_times_errdex_and_sees_only_the_edited_files_change(
    tmp_path: Path,
) -> None:
    records = corpus.generate(40, seed=1)
    runs = bench.bench_errdex(records, tmp_path)
    assert [run.mode for run in runs] == ["cold", "warm", "edit"]
    assert all(run.seconds > 0 for run in runs)
    # The peak memory is the cold build's, measured in a build of its own (not timed):
    # sampling the memory of the timed builds slowed them.
    assert [run.peak_mb is not None and run.peak_mb > 0 for run in runs] == [True, False, False]
    assert (tmp_path / "memory-out" / "index.html").is_file()
    edit = runs[-1]
    # The error's page and JSON (two addresses), and the folder's marker, put anew by
    # an update that writes (its bytes and times as they were).
    assert edit.note.startswith("4 of ") and ": .errdex-site, " in edit.note
    assert edit.note.count("api/errors/") == 2 and edit.note.count("/index.html") == 1


def test_a_ci_run_with_the_cache_restored_builds_the_edit_as_an_update(
    tmp_path: Path, capsys: Any
) -> None:
    restored.run(40, tmp_path)
    said = capsys.readouterr().out.splitlines()
    assert said[1].endswith("errdex: update: 1 record changed"), said
    assert said[2].endswith("errdex: nothing changed"), said


def test_the_edit_benchmark_makes_each_kind_of_edit_and_its_page_shows_it(
    tmp_path: Path, capsys: Any
) -> None:
    # Block meanings that hold ': '; records for three rounds of edits, each of another.
    records = corpus.generate_many(40, seed=1)
    bench.bench_errdex(records, tmp_path)
    capsys.readouterr()
    edits = bench._edits(records, tmp_path / "content")
    # Five records, none the one bench_errdex edited: no edit undoes another.
    assert len({path for _, path, _, _, _ in edits}) == 5
    assert bench._prose_target(records) not in {
        n
        for n in range(40)
        if tmp_path / "content" / corpus.record_path(n, records[n])
        in {path for _, path, _, _, _ in edits}
    }
    bench.bench_edits(records, tmp_path)
    shown = capsys.readouterr().out
    kinds = re.findall(r"^  (\w[\w ]*?) +\d+\.\d\d s \(target <= ([\d.]+) s", shown, re.M)
    each = [
        ("prose", "0.5"),
        ("first analysis", "1.0"),
        ("message", "1.0"),
        ("title", "1.0"),
        ("related added", "1.0"),
    ]
    served = [("prose", "0.3"), *each[1:]]
    assert kinds == each * 3 + served * 3  # as new processes, then saved while serve runs
    processes, in_serve = shown.split("saved while serve runs:")
    # The slowest of each kind's three, after each's lines.
    for part in (processes, in_serve):
        (slowest,) = [line for line in part.splitlines() if "slowest of 3: " in line]
        assert re.findall(r"(\w[\w ]*?) [\d.]+ s \(median [\d.]+\)", slowest) == [
            kind for kind, _ in each
        ]
    # Each is an update, not a full build, and says what it rendered.
    lines = [line for line in processes.splitlines() if "target <=" in line]
    assert all("update: 1 record changed" in line for line in lines), lines
    for line in lines:  # prose shows nowhere else; every other kind does
        assert ("shown on" in line) == (not line.startswith("  prose ")), line
    # serve says what it re-rendered: the edited record, of another five.
    served = [line for line in in_serve.splitlines() if "target <=" in line]
    assert all(re.search(r" \d of 40 error pages re-rendered \(changed: ", x) for x in served)
    assert len({line.split("(changed: ")[1].split(")")[0] for line in served}) == 15


def test_the_report_gives_errdex_ratio_to_each_peer(capsys) -> None:  # type: ignore[no-untyped-def]
    runs = [
        bench.Run("errdex", "cold", 100, 1.0, 50),
        bench.Run("errdex", "warm", 100, 0.1, 20),
        bench.Run("errdex", "edit", 1, 0.2, 20, "3 of 300 files rewritten: a, b, c"),
        bench.Run("hugo", "cold", 100, 2.0, 80),
        bench.Run("hugo", "warm", 100, 3.0, 80),
    ]
    bench.report(100, runs)
    shown = capsys.readouterr().out
    assert "errdex vs hugo: cold 2.00x the pages/s" in shown
    assert "rebuild with nothing changed 30.0x as fast" in shown
    assert "one-record edit 0.20 s against 3.00 s" in shown
    assert "pelican" not in shown  # a peer that did not run is not compared


def test_the_peers_pages_are_the_records_in_markdown() -> None:
    records = corpus.generate(30, seed=2)
    pages = corpus.markdown_pages(records)
    linked = {slug for page in pages.values() for slug in re.findall(r"\]\(\.\./(\w+)/\)", page)}
    assert linked and linked <= set(pages)  # every related link leads to a page
    record = next(r for r in records if r.get("meaning") and r["source"].get("excerpt"))
    page = pages[corpus.page_slug(record)]
    assert page.startswith("---\ntitle: ")
    assert "```python\n" in page and record["source"]["excerpt"]["code"].splitlines()[0] in page


# --- The search benchmark's real-corpus pastes (no download: hand-made records) ---------

REAL_RECORDS: list[dict[str, Any]] = [
    {
        "id": "a1",
        "repo": "example/lib",
        "exception": "ValueError",
        "message": "The hidden size ({config.hidden_size}) is not a multiple of the number of "
        "attention heads ({config.num_attention_heads})",
        "source": {"path": "lib/models/attention.py", "line": 120, "function": "Attn.__init__"},
    },
    {
        "id": "b2",
        "repo": "example/lib",
        "exception": "OSError",
        "message": "Can't load tokenizer for '{pretrained_model_name_or_path}'. Make sure the "
        "path is right and holds a tokenizer file",
        "source": {"path": "lib/tokenization.py", "line": 2040, "function": "from_pretrained"},
    },
    {
        "id": "c3",
        "repo": "example/lib",
        "exception": "KeyError",
        "message": "Unknown attention implementation {attn_implementation!r}; expected one of "
        "{sorted(ATTENTION_FUNCTIONS)}",
        "source": {"path": "lib/modeling.py", "line": 77, "function": "get_attention"},
    },
]

SHAPE_MARKS = {
    "plain": ("multiple of the number of attention heads",),
    "traceback": ("Traceback (most recent call last):", "line 120, in __init__"),
    "log": ("ERROR",),
    "pydantic": ("validation error", "Value error, The hidden size", "errors.pydantic.dev"),
    "http": ("Error code:", '"message"', '"error"', '"detail"'),
    "wrapper": (
        "See root cause above",
        "RayTaskError(ValueError)",
        "_RemoteTraceback",
        "ProcessRaisedException",
        "During handling of the above exception",
    ),
    "issue": ("### Reproduction", "```", "~~~", "<details>", "> Traceback"),
    "everyday": ("----> 1", "E   ValueError", "pid=", "[rank", "ERROR:app.worker"),
}


def test_real_pastes_come_in_every_shape_with_values_of_the_right_kind() -> None:
    import random

    from benchmarks import real_pastes

    record = REAL_RECORDS[0]
    for shape in real_pastes.SHAPES:
        seen = set()
        for seed in range(150):
            rng = random.Random(seed)
            message = real_pastes.fill(record, rng)
            assert "{" not in message and "hidden size (" in message
            paste = real_pastes.dress(record, message, shape, rng)
            assert paste.strip()
            if shape == "pieces":
                words = paste.split()
                assert len(words) >= 4
                assert paste.lower() == paste or not set("`'\"") & set(paste)
                continue
            seen |= {mark for mark in SHAPE_MARKS[shape] if mark in paste}
        if shape != "pieces":
            assert seen == set(SHAPE_MARKS[shape]), (shape, set(SHAPE_MARKS[shape]) - seen)
    rng = random.Random(3)
    assert real_pastes.value_for("config.hidden_size", rng).lstrip("-").isdigit()
    assert real_pastes.value_for("x.shape", rng).startswith(("torch.Size([", "("))
    assert real_pastes.value_for("weights.dtype", rng) in real_pastes.DTYPES
    assert "/" in real_pastes.value_for("resolved_file", rng) or "\\" in real_pastes.value_for(
        "resolved_file", rng
    )
    assert real_pastes.value_for("name!r", rng)[0] == "'"


def test_real_cases_expect_the_record_and_leave_foreign_errors_unmatched() -> None:
    from benchmarks import real_pastes
    from benchmarks import search as bench_search

    index = bench_search.build_index(REAL_RECORDS)
    records = {r["id"]: r for r in REAL_RECORDS}
    cases, _ = bench_search.make_real_cases(records, index, 3, seed=1)
    kinds = [case.kind for case in cases]
    assert kinds == [s for s in real_pastes.SHAPES for _ in range(3)] + ["foreign"] * 3
    for case in cases:
        if case.kind == "foreign":
            assert not case.expected
        else:
            assert case.expected and case.expected <= set(records) and case.template
    report, answers = bench_search.accuracy(index, cases)
    assert set(report["rows"]) == {*real_pastes.SHAPES, "foreign"} and len(answers) == len(cases)


# --- The issue import benchmark's corpus and score (hand-made records, no import) ------

SAME_AS_A1: dict[str, Any] = {
    "id": "d4",
    "repo": "example/lib",
    "exception": "ValueError",
    "message": "The hidden size ({hidden_size}) is not a multiple of the number of attention "
    "heads ({num_heads})",
    "source": {"path": "lib/models/other.py", "line": 33, "function": "Other.__init__"},
}


def test_the_issue_corpus_is_the_same_for_a_seed_and_pastes_what_it_says() -> None:
    from benchmarks import issues as bench_issues
    from benchmarks import search as bench_search
    from errdex import search

    records = {r["id"]: r for r in [*REAL_RECORDS, SAME_AS_A1]}
    index = bench_search.build_index(list(records.values()))
    by_id = {entry.id: entry for entry in index.entries}
    made = bench_issues.make_issues(records, index, 30, seed=1)
    assert made == bench_issues.make_issues(records, index, 30, seed=1)
    assert [i.body for i in made] != [
        i.body for i in bench_issues.make_issues(records, index, 30, 2)
    ]
    assert sorted(i.number for i in made) == list(range(1, 31))
    assert {i.kind for i in made} == {"bug", "two errors", *bench_issues.NEGATIVE}
    for issue in made:
        if issue.kind in bench_issues.NEGATIVE:
            assert not issue.pasted
        else:
            assert issue.pasted and all(p.text in issue.body for p in issue.pasted)
        if issue.kind == "two errors":  # two different messages
            messages = {search.same_message(by_id[p.id]) for p in issue.pasted}
            assert len(messages) == 2
        if issue.kind in ("in passing", "piece"):
            assert issue.quoted.strip("…") and issue.quoted in issue.body


def test_the_issue_score_takes_a_same_message_record_as_right_and_prose_links_as_wrong() -> None:
    from benchmarks import issues as bench_issues
    from benchmarks import search as bench_search

    index = bench_search.build_index([*REAL_RECORDS, SAME_AS_A1])
    template = str(REAL_RECORDS[0]["message"])
    error = (
        "ValueError: The hidden size (768) is not a multiple of the number of attention heads (7)"
    )
    pasted = bench_issues.Pasted("a1", "plain", template, error)
    bug = bench_issues.Made(1, "bug", "plain", "Crash", f"```\n{error}\n```", (pasted,), error)
    prose = bench_issues.Made(2, "in passing", "", "Hangs", "I used to see it", (), "multiple of")

    result = bench_issues.score([bug, prose], {1: ["d4"], 2: ["b2"]}, index)
    assert (result.rows["bug/plain"].found, result.rows["bug/plain"].right) == (1, 1)
    assert result.rows["in passing"].right == 0 and result.false_links == [(prose, "b2")]
    assert (result.total.right, result.total.links) == (1, 2) and not result.missed

    wrong = bench_issues.score([bug], {1: ["c3"]}, index)
    assert wrong.total.right == 0 and wrong.missed == [(bug, pasted)]
    assert wrong.false_links == [(bug, "c3")]


def test_over_turns_each_tool_is_compared_by_its_fastest_runs(capsys) -> None:  # type: ignore[no-untyped-def]
    def turn(*seconds: float) -> list[bench.Run]:
        """A turn's runs: errdex cold, warm and edit, then hugo cold and warm."""
        kinds = [("errdex", "cold"), ("errdex", "warm"), ("errdex", "edit")]
        kinds += [("hugo", "cold"), ("hugo", "warm")]
        return [bench.Run(t, m, 100, s, 50) for (t, m), s in zip(kinds, seconds, strict=True)]

    first = turn(3.0, 0.1, 0.2, 2.0, 2.0)
    second = turn(1.0, 0.2, 0.3, 4.0, 3.0)
    second = [replace(run, peak_mb=None) for run in second]  # measured in the first turn
    fastest = bench.best([first, second])
    assert {(r.tool, r.mode): r.seconds for r in fastest} == {
        ("errdex", "cold"): 1.0,
        ("errdex", "warm"): 0.1,
        ("errdex", "edit"): 0.2,
        ("hugo", "cold"): 2.0,
        ("hugo", "warm"): 2.0,
    }
    assert all(run.peak_mb == 50 for run in fastest)
    bench.report(100, fastest, "the fastest of 2 turns")
    bench.report(100, second, "turn 2 of 2")
    shown = capsys.readouterr().out
    assert "== 100 records, the fastest of 2 turns ==" in shown
    assert "errdex   cold      1.00       100       50" in shown
    assert "errdex   cold      1.00       100        -" in shown  # turn 2 measured none
    assert "errdex vs hugo: cold 2.00x the pages/s" in shown


def test_a_corpus_larger_than_one_generation_builds_without_a_dangling_related_id(
    tmp_path: Path, monkeypatch: Any, run: Any
) -> None:
    """Past ``GENERATED`` records, each further part is raised by repositories of its own,
    which gives its records other ids: their related entries name the new ones."""
    monkeypatch.setattr(corpus, "GENERATED", 100)
    records = corpus.generate_many(250, seed=1)
    assert len({corpus.page_slug(r) for r in records}) == 250
    content = tmp_path / "content"
    corpus.write_content(content, records)
    result = run("build", "--content", content, "--out", tmp_path / "public", "--strict")
    assert result.code == 0, result.err[-2000:]
