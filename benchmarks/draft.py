"""How fast errdex draft is, and how close a real model comes: ``./dev bench draft``.

Drafts RECORDS records of a real scanned codebase (the pinned transformers wheel of
``benchmarks.real``) against the fake model of ``benchmarks.fake_llm``, answering in
DELAY seconds, at each number of requests in flight; then once more with a model that
answers at once, to show the time errdex itself adds per draft (goal: at most 20 ms).
Each run drafts a fresh copy of the records, with a cache folder of its own.

``--compare`` drafts the two bundled records whose analyses people wrote with a real
model (``--model-url``, or ``$ERRDEX_MODEL_URL``: ``./dev model-test`` starts one), and
reports, field by field, what grounding refused and what it let through beside what the
people wrote: the start of a measure a maintainer with a capable model can repeat.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from benchmarks import fake_llm, real
from errdex.source import draft as draft_module
from errdex.source import grounding

ROOT = Path(__file__).resolve().parent.parent
PEOPLE = ("9c019ab65f8b8d16.yaml", "23b4373e94335665.yaml")
"""The bundled records whose analyses people wrote."""


def subset(content: Path, count: int, into: Path) -> Path:
    """A content folder of the first ``count`` records of ``content``."""
    target = into / "content"
    (target / "errors").mkdir(parents=True)
    shutil.copy(content / "site.yaml", target / "site.yaml")
    for path in sorted((content / "errors").rglob("*.yaml"))[:count]:
        shutil.copy(path, target / "errors" / path.name)
    return target


def draft(content: Path, url: str, jobs: int, cache: Path, *more: str) -> tuple[float, float, str]:
    """Wall and CPU seconds of one ``errdex draft`` run as a new process, and its last line."""
    env = {**os.environ, "OPENAI_API_KEY": "none", "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "errdex", "draft", "--content", str(content)]
    argv += ["--base-url", url, "--model", "bench", "--jobs", str(jobs), "--cache", str(cache)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([*argv, *more], env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"errdex draft failed:\n{done.stderr}")
    return wall, cpu, done.stderr.strip().splitlines()[-1]


def speed(records: int, delay: float, jobs: Sequence[int]) -> None:
    corpus = real.corpus()
    print(f"# errdex draft: {records} records of {corpus.version}, fake model at {delay:g} s")
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}"
    )
    for count in jobs:
        with tempfile.TemporaryDirectory() as folder:
            content = subset(corpus.content, records, Path(folder))
            with fake_llm.serving(fake_llm.slow(delay)) as server:
                wall, _, said = draft(content, server.url, count, Path(folder) / "cache")
            print(
                f"in flight {count:>2}: {wall:7.1f} s wall ({wall / records * 1000:.0f} ms a "
                f"record); {said}"
            )
    with tempfile.TemporaryDirectory() as folder:
        content = subset(corpus.content, records, Path(folder))
        with fake_llm.serving(fake_llm.capable) as server:
            wall, cpu, said = draft(content, server.url, 1, Path(folder) / "cache")
    print(
        f"answers at once, 1 in flight: {wall:.2f} s wall, {cpu:.2f} s CPU of errdex: "
        f"{wall / records * 1000:.1f} ms wall and {cpu / records * 1000:.1f} ms CPU a draft "
        f"(reading the site and starting included); {said}"
    )


def compare(url: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        content = Path(folder) / "content"
        shutil.copytree(ROOT / "content", content)
        people: dict[str, dict[str, Any]] = {}
        for name in PEOPLE:
            path = content / "errors" / "vllm-project" / "vllm" / name
            data = yaml.safe_load(path.read_text())
            people[name] = data
            kept = {
                k: v
                for k, v in data.items()
                if k not in ("meaning", "when", "solutions", "example_fix", "analysis")
            }
            path.write_text(yaml.safe_dump(kept, sort_keys=False, allow_unicode=True))
        rejected = Path(folder) / "rejected.json"
        ids = [people[name]["id"] for name in PEOPLE]
        wall, _, said = draft(
            content,
            url,
            1,
            Path(folder) / "cache",
            "--only",
            *ids,
            "--timeout",
            "600",
            "--keep-rejected",
            str(rejected),
        )
        print(f"# the two records people wrote, drafted again: {said} ({wall:.0f} s)")
        refused = (
            {r["id"]: r for r in json.loads(rejected.read_text())} if rejected.exists() else {}
        )
        known = _known(ROOT / "content")
        for name in PEOPLE:
            record_id = people[name]["id"]
            path = content / "errors" / "vllm-project" / "vllm" / name
            drafted = yaml.safe_load(path.read_text())
            print(f"\n## {record_id}: {people[name]['message'][:70]}")
            if record_id in refused:
                print("refused by grounding:")
                for reason in refused[record_id]["reasons"]:
                    print(f"  - {reason}")
                answer = refused[record_id]["draft"]
            else:
                print("let through by grounding (written into the record)")
                answer = drafted
            theirs_refused = grounding.refusals(
                {k: people[name][k] for k in ("meaning", "when", "solutions", "example_fix")},
                known,
            )
            print(f"grounding of what the people wrote: {theirs_refused or 'passes'}")
            for field in ("meaning", "when", "solutions", "example_fix"):
                mine = json.dumps(people[name].get(field), ensure_ascii=False)[:300]
                theirs = json.dumps(answer.get(field), ensure_ascii=False)[:300]
                print(f"- {field}:\n    people: {mine}\n    model:  {theirs}")


def _known(content: Path) -> grounding.Known:
    from errdex.site.build import Options, gather

    site, _ = gather(Options(content=content, cache=None, publishing=False))
    return draft_module.known_for(site.records, draft_module.Sources(), site.config.allow)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="./dev bench draft", description=__doc__)
    parser.add_argument("--records", type=int, default=200)
    parser.add_argument("--delay", type=float, default=2.0)
    parser.add_argument("--jobs", default="1,4,16", help="requests in flight, comma-separated")
    parser.add_argument("--compare", action="store_true")
    parser.add_argument("--model-url", default=os.environ.get("ERRDEX_MODEL_URL"))
    args = parser.parse_args(argv)
    if args.compare:
        if not args.model_url:
            parser.error("--compare needs --model-url or $ERRDEX_MODEL_URL (./dev model-test)")
        compare(args.model_url)
        return 0
    speed(args.records, args.delay, [int(j) for j in args.jobs.split(",")])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
