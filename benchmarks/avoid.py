"""How many errors of a real codebase get a "How to avoid it", and a sample to check by
hand: ``./dev bench avoid``.

Reads the records of a scanned codebase (the pinned transformers wheel of
``benchmarks.real``, or ``--content DIR``), counts those with a condition and those that
get a derived section (goal: 85%), and with ``--sample N`` writes N of them, chosen at
random with ``--seed``, to ``--out`` (outside the checkout): each with its raise's
file and line, the tests errdex read and the ways it derived, for a person to judge
right or wrong against the code (goal: at most 2% wrong).
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from pathlib import Path

from errdex.records.load import load_file
from errdex.records.model import Record, record_from
from errdex.source import avoid


def records(content: Path) -> list[Record]:
    found = []
    for path in sorted((content / "errors").rglob("*.yaml")):
        doc, _ = load_file(path)
        if doc is not None:
            found.append(record_from(doc, content))
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="./dev bench avoid", description=__doc__)
    parser.add_argument("--content", type=Path, help="a scanned content folder")
    parser.add_argument("--sample", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("/tmp/errdex-avoid-sample.md"))
    parser.add_argument("--source", default="", help="where the sample's paths are found")
    args = parser.parse_args(argv)
    if args.content is None:
        from benchmarks import real

        corpus = real.corpus()
        args.content = corpus.content
        args.source = args.source or str(corpus.source / real.PACKAGE)
        print(f"# {corpus.version}")
    every = records(args.content)
    guarded = [r for r in every if r.source.condition]
    derived = [(r, a) for r in guarded if (a := avoid.avoid_of(r)) is not None]
    share = len(derived) / len(guarded) if guarded else 0.0
    print(
        f"{len(every):,} records, {len(guarded):,} with a condition; "
        f"{len(derived):,} get a derived section ({share:.1%}; goal 85%)"
    )
    if args.sample:
        picked = list(derived)
        random.Random(args.seed).shuffle(picked)
        lines = []
        for number, (record, found) in enumerate(picked[: args.sample], 1):
            where = f"{args.source}/{record.source.path}" if args.source else record.source.path
            lines.append(f"## S{number:03d} {where}:{record.source.line}  ({record.exception})")
            lines.append(f"message: {record.message.display[:200]}")
            lines.append("guards: " + "  &&  ".join(f"`{g}`" for g in found.guards))
            lines.extend(f"  - {avoid.said(way)}" for way in found.ways)
            lines.append("")
        args.out.write_text("\n".join(lines), encoding="utf-8")
        print(f"wrote {min(args.sample, len(picked))} sections to {args.out} to judge by hand")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
