"""How good and how fast search is, on a synthetic corpus: ``python -m benchmarks.search``.

Accuracy: for each kind of paste (bare, traceback, chained, log, multiline, partial,
retyped), pastes made from random records must put that record first (top-1) or in the
first three (top-3); pastes of errors from other software must get "no match".
Speed: in chromium, the page's own script answers the same pastes; the benchmark prints
the time per query and the bytes fetched before the first result, and checks that the
browser and Python agree on every answer.
"""

from __future__ import annotations

import argparse
import gzip
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from errdex import search
from errdex.mirror import dumps_compact
from errdex.model import derive_id

from .corpus import generate
from .pastes import KINDS, foreign_paste, make_paste

ROOT = Path(__file__).resolve().parent.parent
TARGET_TOP1 = 0.98
TARGET_KIND = 0.95
TARGET_FOREIGN = 0.90


@dataclass(frozen=True, slots=True)
class Case:
    kind: str
    paste: str
    expected: frozenset[str]
    """Ids that count as right: the record and those with its exception and template."""


def record_id(record: dict[str, Any]) -> str:
    return str(
        record.get("id") or derive_id(record["repo"], record["exception"], record["message"])
    )


def build_index(records: Sequence[dict[str, Any]]) -> search.Index:
    entries = [
        search.make_entry(i, record_id(r), r["exception"], r["repo"], r["message"], "")
        for i, r in enumerate(records)
    ]
    return search.Index.build(entries)


def vague(entry: search.Entry) -> bool:
    """A message with too little text of its own to tell where it came from (``{} has no
    {}``): fewer than two words, or fewer than MIN_LITERAL characters, outside its values."""
    literal = sum(len(lit.strip()) for lit in entry.literals)
    return sum(1 for w in entry.words if w != "*") < 2 or literal < search.MIN_LITERAL


def make_cases(
    records: Sequence[dict[str, Any]], index: search.Index, per_kind: int, seed: int
) -> list[Case]:
    """Pastes of every kind from random records that a reader could tell apart.

    A template with fewer than two words of its own (``{}: {}``) says nothing about
    where it came from: no paste can identify it, so none is sampled from it.
    """
    rng = random.Random(seed)
    groups: dict[tuple[str, ...], set[str]] = {}
    for entry in index.entries:
        groups.setdefault(search.same_message(entry), set()).add(entry.id)
    sampled = [number for number, entry in enumerate(index.entries) if not vague(entry)]
    cases = []
    for kind in KINDS:
        made = 0
        while made < per_kind:
            number = sampled[rng.randrange(len(sampled))]
            entry = index.entries[number]
            expected = set(groups[search.same_message(entry)])
            paste = make_paste(records[number], kind, rng)
            if kind == "partial" and own_words(index, paste, entry) < PIECE_WORDS:
                continue
            made += 1
            if kind == "partial":
                for other in could_have_written(index, paste):
                    expected |= groups[search.same_message(other)]
            cases.append(Case(kind, paste, frozenset(expected)))
    for _ in range(per_kind):
        cases.append(Case("foreign", foreign_paste(rng), frozenset()))
    return cases


PIECE_WORDS = 4
"""A piece of a message is long enough when it holds this many words of the message's own
text: a piece that is nearly all values ("is not supported on", "rank 16: CUDA error")
says nothing about which error it came from."""


def own_words(index: search.Index, piece: str, entry: search.Entry) -> int:
    words = search.tokens(search.normalize(piece)[0])
    weight = search.weights(index, search.lookup_words(words))
    return search.align(words, entry.words, weight)[1]


def could_have_written(index: search.Index, piece: str) -> list[search.Entry]:
    """Templates that this piece of a message could have come from, word for word.

    A piece cut from "ngram speculative decoding does not support torch.compile." may
    read "speculative decoding does not support", which three templates could have
    written: for such a piece any of them is a right first answer.
    """
    words = search.tokens(search.normalize(piece)[0])
    looked_up = search.lookup_words(words)
    weight = search.weights(index, looked_up)
    scores: dict[int, float] = {}
    for word in looked_up:
        for number in index.postings.get(word, ()):
            scores[number] = scores.get(number, 0.0) + weight[word]
    found = []
    for number in sorted(scores, key=lambda n: -scores[n])[:300]:
        entry = index.entries[number]
        raw, matched, gained = search.align(words, entry.words, weight)
        if matched and abs(raw - gained) < 1e-9:
            found.append(entry)
    return found


def answer_ids(matches: Sequence[search.Match]) -> list[set[str]]:
    return [{m.entry.id, *m.also} for m in matches]


def accuracy(index: search.Index, cases: Sequence[Case]) -> tuple[dict[str, Any], list[Any]]:
    rows: dict[str, dict[str, float]] = {}
    answers = []
    started = time.perf_counter()
    for case in cases:
        found = answer_ids(search.lookup(index, case.paste, limit=3))
        answers.append([sorted(ids) for ids in found])
        row = rows.setdefault(case.kind, {"n": 0, "top1": 0, "top3": 0})
        row["n"] += 1
        if not case.expected:
            row["top1"] += not found
            row["top3"] += not found
            continue
        row["top1"] += bool(found and case.expected & found[0])
        row["top3"] += any(case.expected & ids for ids in found)
    elapsed = time.perf_counter() - started
    return {"rows": rows, "ms_per_query": 1000 * elapsed / len(cases)}, answers


def browser_run(index: search.Index, cases: Sequence[Case]) -> dict[str, Any]:
    """Serve the index with the page script; time every query in chromium."""
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import CHROMIUM, CHROMIUM_ARGS, http_server  # type: ignore[import-not-found]
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp)
        for rel, data in index.files().items():
            path = site / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(dumps_compact(data))
        shutil.copy(ROOT / "static" / "search.js", site / "search.js")
        (site / "index.html").write_text(
            '<!doctype html><html lang="en" data-root=""><head><meta charset="utf-8">'
            '<title>bench</title><script src="search.js"></script></head><body></body></html>'
        )
        with http_server(site) as url, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            fetched: list[str] = []
            page.on("request", lambda r: fetched.append(r.url.removeprefix(url)))
            page.goto(url)
            first = cases[0].paste
            page.evaluate("(t) => window.errdexSearch.lookup(t, 3)", first)
            first_bytes = sum(
                len(gzip.compress((site / rel).read_bytes(), 9))
                for rel in fetched
                if rel and rel != "index.html"
            )
            first_files = len(fetched) - 1
            result = page.evaluate(
                """async (pastes) => {
                    const times = [], answers = [];
                    for (const paste of pastes) {
                        const t0 = performance.now();
                        const r = await window.errdexSearch.lookup(paste, 3);
                        times.push(performance.now() - t0);
                        answers.push(r.matches.map((m) => [m.id, ...m.also].sort()));
                    }
                    return {times, answers};
                }""",
                [c.paste for c in cases],
            )
            browser.close()
    times = sorted(result["times"])
    return {
        "first_bytes": first_bytes,
        "first_files": first_files,
        "p50": statistics.median(times),
        "p95": times[int(0.95 * (len(times) - 1))],
        "answers": result["answers"],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.search", description=__doc__)
    parser.add_argument("--records", type=int, default=10_000, help="corpus size (10000)")
    parser.add_argument("--per-kind", type=int, default=300, help="pastes per kind (300)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-browser", action="store_true", help="skip the chromium part")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    records = generate(args.records, seed=args.seed)
    index = build_index(records)
    cases = make_cases(records, index, args.per_kind, args.seed)
    unsampled = sum(1 for e in index.entries if vague(e))
    print(
        f"corpus: {len(records):,} records ({time.perf_counter() - started:.1f}s to generate "
        f"and index), {len(cases):,} pastes; {unsampled} records whose message has too little "
        "text of its own to identify are not sampled"
    )
    report, python_answers = accuracy(index, cases)
    print(f"\n{'kind':<10} {'pastes':>7} {'top-1':>8} {'top-3':>8}  target")
    ok = True
    total = hits = 0
    for kind, row in report["rows"].items():
        top1, top3 = row["top1"] / row["n"], row["top3"] / row["n"]
        target = TARGET_FOREIGN if kind == "foreign" else TARGET_KIND
        label = "no match" if kind == "foreign" else "top-1"
        met = top1 >= target
        ok &= met
        print(
            f"{kind:<10} {row['n']:>7} {top1:>8.1%} {top3:>8.1%}  "
            f"{label} >= {target:.0%} {'met' if met else 'MISSED'}"
        )
        if kind != "foreign":
            total += int(row["n"])
            hits += int(row["top1"])
    overall = hits / total
    ok &= overall >= TARGET_TOP1
    print(
        f"{'overall':<10} {total:>7} {overall:>8.1%} {'':>8}  top-1 >= {TARGET_TOP1:.0%} "
        f"{'met' if overall >= TARGET_TOP1 else 'MISSED'}"
    )
    print(f"\nPython lookup: {report['ms_per_query']:.1f} ms per query")
    if not args.no_browser:
        speed = browser_run(index, cases)
        disagree = sum(1 for a, b in zip(python_answers, speed["answers"], strict=True) if a != b)
        print(
            f"chromium: p50 {speed['p50']:.1f} ms, p95 {speed['p95']:.1f} ms per query "
            f"(target p95 <= 30 ms: {'met' if speed['p95'] <= 30 else 'MISSED'})"
        )
        print(
            f"chromium: first result after {speed['first_files']} files, "
            f"{speed['first_bytes'] / 1024:.1f} KB gzipped "
            f"(target <= 150 KB: {'met' if speed['first_bytes'] <= 150 * 1024 else 'MISSED'})"
        )
        print(f"chromium and Python disagree on {disagree} of {len(cases)} pastes")
        ok &= speed["p95"] <= 30 and speed["first_bytes"] <= 150 * 1024 and disagree == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
