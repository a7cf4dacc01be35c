"""The build benchmark's own machinery, on a corpus small enough for the test suite."""

from __future__ import annotations

import re
from pathlib import Path

from benchmarks import build as bench
from benchmarks import corpus


def test_the_benchmark_times_errdex_and_sees_only_the_edited_files_change(
    tmp_path: Path,
) -> None:
    records = corpus.generate(40, seed=1)
    runs = bench.bench_errdex(records, tmp_path)
    assert [run.mode for run in runs] == ["cold", "warm", "edit"]
    assert all(run.seconds > 0 and run.peak_mb > 0 for run in runs)
    edit = runs[-1]
    assert edit.note.startswith("3 of ")
    assert edit.note.count("api/errors/") == 2 and edit.note.count("/index.html") == 1


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
