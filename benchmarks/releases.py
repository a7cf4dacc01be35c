"""Releases on real code: ``python -m benchmarks.releases``.

Ten consecutive minor releases of transformers from PyPI (pinned wheels, hash checked,
cached under .errdex/bench/releases/) become ten tagged commits of one git repository,
as a maintainer's checkout has them. Then, each in a fresh content folder:

- speed: ``scan`` the oldest release, then ``pin`` through the other nine in one command
  (target: the pins take <= 2 minutes on this machine);
- the same ids: scanning the oldest of the last three releases and pinning forward gives
  the current records (ids, messages, places) that scanning the newest gives directly;
- old wordings: every message the oldest of those three raised that the newest no longer
  raises as it did (reworded or removed), pasted as that release printed it, must put its
  record first (target >= 98%), with a note that it is an old wording.
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from errdex import search
from errdex.records.history import history
from errdex.site.build import Options, gather

from . import real_pastes
from .real import _sha256
from .search import Case, machine

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".errdex" / "bench" / "releases"
PACKAGE = "transformers"
REPO = "huggingface/transformers"
RELEASES = (
    ("4.48.3", "78697f990f5ef350c23b46bf86d5081ce96b49479ab180b2de7687267de8fd36"),
    ("4.49.0", "6b4fded1c5fee04d384b1014495b4235a2b53c87503d7d592423c06128cbbe03"),
    ("4.50.3", "6111610a43dec24ef32c3df0632c6b25b07d9711c01d9e1077bdd2ff6b14a38c"),
    ("4.51.3", "fd3279633ceb2b777013234bbf0b4f5c2d23c4626b05497691f00cfda55e8a83"),
    ("4.52.4", "203f5c19416d5877e36e88633943761719538a25d9775977a24fe77a1e5adfc7"),
    ("4.53.3", "5aba81c92095806b6baf12df35d756cf23b66c356975fb2a7fa9e536138d7c75"),
    ("4.54.1", "c89965a4f62a0d07009d45927a9c6372848a02ab9ead9c318c3d082708bab529"),
    ("4.55.4", "df28f3849665faba4af5106f0db4510323277c4bb595055340544f7e59d06458"),
    ("4.56.2", "79c03d0e85b26cb573c109ff9eafa96f3c8d4febfd8a0774e8bba32702dd6dde"),
    ("4.57.1", "b10d05da8fa67dc41644dbbf9bc45a44cb86ae33da6f9295f5fbf5b7890bd267"),
)
TARGET_SECONDS = 120.0
TARGET_OLD = 0.98
SITE_YAML = (
    "title: releases bench\nbase_url: https://bench.example.test/\nrepository: example/bench\n"
)


def _say(text: str) -> None:
    print(f"releases: {text}", file=sys.stderr, flush=True)


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
    return done.stdout.decode()


def checkout() -> Path:
    """The git repository of the ten releases, made once (tags ``v4.48.3`` …)."""
    repo = CACHE / "repo"
    stamp = CACHE / ".repo-done"
    if stamp.exists():
        return repo
    downloads = CACHE / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    if repo.exists():
        shutil.rmtree(repo)
    repo.mkdir(parents=True)
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "bench@example.test")
    _git(repo, "config", "user.name", "errdex bench")
    for version, sha256 in RELEASES:
        wheel = downloads / f"{PACKAGE}-{version}-py3-none-any.whl"
        if not wheel.exists() or _sha256(wheel) != sha256:
            _say(f"downloading {PACKAGE}=={version}")
            subprocess.run(
                [
                    *(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"),
                    *("--only-binary", ":all:", f"{PACKAGE}=={version}", "-d", str(downloads)),
                ],
                check=True,
            )
            if _sha256(wheel) != sha256:
                raise RuntimeError(f"{wheel.name}: not the pinned file")
        _say(f"committing {version}")
        shutil.rmtree(repo / PACKAGE, ignore_errors=True)
        with zipfile.ZipFile(wheel) as archive:
            for name in archive.namelist():
                if name.startswith(f"{PACKAGE}/"):
                    archive.extract(name, repo)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", f"{PACKAGE} {version}", "--date", "2025-01-01T00:00:00")
        _git(repo, "tag", f"v{version}")
    stamp.touch()
    return repo


def errdex(*args: str | Path) -> float:
    """Seconds one errdex command took (its own process, from start to exit)."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, str(ROOT / "build.py"), *map(str, args)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    return time.perf_counter() - started


def fresh_content(folder: Path) -> Path:
    content = folder / "content"
    (content / "errors").mkdir(parents=True)
    (content / "site.yaml").write_text(SITE_YAML)
    return content


def current(content: Path) -> dict[str, tuple[str, str, int]]:
    """Each record still raised: id → (message, path, line)."""
    out = {}
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for path in (content / "errors").rglob("*.yaml"):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
        source = data["source"]
        if "removed_in" not in source:
            out[str(data.get("id", path.stem))] = (data["message"], source["path"], source["line"])
    return out


def old_wording_cases(content: Path, oldest: str, seed: int) -> tuple[search.Index, list[Any]]:
    """The index a build writes (wordings of every release included), and a paste of each
    message ``oldest`` raised that the newest no longer raises as it did."""
    site, _ = gather(Options(content=content))
    entries = search.entries_from(site.records)
    index = search.Index.build(
        [*entries, *search.old_entries(site.records, site.config, len(entries))]
    )
    rng = random.Random(seed)
    cases = []
    for record in site.records:
        found = history(record, site.config.releases_of(record.repo))
        first = record.releases[0] if record.releases else None
        if found is None or first is None or first.release != oldest:
            continue
        then = first.message or record.message.source
        if then == record.message.source and found.removed_in is None:
            continue  # raised as it was: not an old wording
        printed = real_pastes.fill({"message": then}, rng)
        kind = "removed" if found.removed_in else "reworded"
        cases.append((kind, f"{record.exception}: {printed}", record.id, then))
    return index, cases


def with_history(records: list[dict[str, Any]], share: float, seed: int) -> list[dict[str, Any]]:
    """The records raised in three releases, a ``share`` of them worded otherwise in the
    first (an extra word at the front), as three pins would leave them."""
    rng = random.Random(seed)
    out = []
    for record in records:
        source = record["source"]
        place = {"commit": source["commit"], "path": source["path"], "line": source["line"]}
        releases: list[dict[str, Any]] = [{"release": v, **place} for v in ("v1", "v2", "v3")]
        if rng.random() < share:
            releases[0]["message"] = "Earlier: " + str(record["message"])
        out.append({**record, "releases": releases})
    return out


def history_cost(size: int, seed: int, turns: int = 3) -> float:
    """A cold build of ``size`` synthetic records with three releases of history, against
    the same records without; prints both and returns the ratio of the fastest of each.

    The two builds take turns, ``turns`` times each, every one in fresh folders (its own
    output and cache) and after the disk has caught up with the last one's writes: this
    machine's speed drifts by a tenth between builds, and creating files costs it twice
    as much at some times as at others, so one build of each says little. The CPU time
    of each build's processes is printed beside its wall time."""
    from .corpus import generate, write_content

    records = generate(size, seed=seed)
    walls: dict[str, list[float]] = {"without": [], "with": []}
    cpus: dict[str, list[float]] = {"without": [], "with": []}
    with tempfile.TemporaryDirectory() as tmp:
        corpora = {"without": records, "with": with_history(records, 0.03, seed)}
        for label, corpus in corpora.items():
            content = Path(tmp) / label / "content"
            write_content(content, corpus)
            if label == "with":
                _site_yaml_releases(content, records)
        for turn in range(turns):
            # Each pair in the other order from the last: neither build always follows
            # the other's writes.
            for label in sorted(corpora, reverse=turn % 2 == 1):
                content = Path(tmp) / label / "content"
                out, cache = Path(tmp) / f"public-{turn}", Path(tmp) / f"cache-{turn}-{label}"
                # The last build's half a gigabyte of pages reaches the disk first, so
                # that writing it back does not slow the build timed now.
                os.sync()
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                seconds = errdex("build", "--content", content, "--out", out, "--cache", cache)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                walls[label].append(seconds)
                cpus[label].append(
                    after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                )
                shutil.rmtree(out)
                shutil.rmtree(cache)
    for label in walls:
        print(
            f"  {label:8} history: wall {', '.join(f'{s:.1f}' for s in walls[label])} s; "
            f"CPU {', '.join(f'{s:.1f}' for s in cpus[label])} s"
        )
    ratio = min(walls["with"]) / min(walls["without"])
    cpu = min(cpus["with"]) / min(cpus["without"])
    print(
        f"history at {size:,} synthetic records (three releases each, 3% worded otherwise in "
        f"the first): cold build {min(walls['with']):.1f} s against "
        f"{min(walls['without']):.1f} s without (the fastest of {turns} of each, taken in "
        f"turns), {100 * (ratio - 1):+.1f}% (target <= +10%: "
        f"{'met' if ratio <= 1.10 else 'MISSED'}); CPU time {100 * (cpu - 1):+.1f}%"
    )
    return ratio


def _site_yaml_releases(content: Path, records: list[dict[str, Any]]) -> None:
    """List the three releases of ``with_history`` in ``site.yaml``, for every repo."""
    site = content / "site.yaml"
    site.write_text(
        site.read_text()
        + "releases:\n"
        + "".join(
            f"- {{repo: {r}, name: {v}, commit: '0123456789'}}\n"
            for r in sorted({str(x["repo"]) for x in records})
            for v in ("v1", "v2", "v3")
        )
    )


def history_bytes(size: int, seed: int, sample: int = 90) -> bool:
    """What the first query of a fresh page reads, in chromium, from the search index of
    ``size`` synthetic records with three releases of history, against the same records
    without (the index as a build makes it: every wording, read through ``gather``).
    Target: <= 150 KB gzipped with history. Returns whether it is met."""
    from errdex.site.build import Options, gather

    from .corpus import generate, write_content
    from .search import build_index, first_query_run, make_cases, record_id, spread

    records = generate(size, seed=seed)
    cases = spread(make_cases(records, build_index(records), max(1, sample // 6), seed), sample)
    # The earlier wordings too, as the first release printed them.
    worded = [r for r in with_history(records, 0.03, seed) if "message" in r["releases"][0]]
    rng = random.Random(seed)
    earlier = [
        Case(
            "earlier",
            f"{r['exception']}: {real_pastes.fill({'message': r['releases'][0]['message']}, rng)}",
            frozenset({record_id(r)}),
        )
        for r in worded[: max(1, sample // 6)]
    ]
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, corpus in (("without", records), ("with", with_history(records, 0.03, seed))):
            content = Path(tmp) / label / "content"
            write_content(content, corpus)
            if label == "with":
                _site_yaml_releases(content, records)
            site, _ = gather(Options(content=content))
            entries = search.entries_from(site.records)
            index = search.Index.build(
                [*entries, *search.old_entries(site.records, site.config, len(entries))]
            )
            runs[label] = first_query_run(index, [*cases, *earlier], 0.0, False)
    for label, run in runs.items():
        print(
            f"first query at {size:,} synthetic records, {label} three releases of history "
            f"({len(cases)} pastes of every kind and {len(earlier)} earlier wordings, a fresh "
            f"page each): the first answer reads at most {run['bytes_max'] / 1024:.1f} KB "
            f"gzipped; the whole answer median {run['whole_bytes_p50'] / 1024:.1f} KB, at "
            f"most {run['whole_bytes_max'] / 1024:.1f} KB"
        )
    most = float(runs["with"]["whole_bytes_max"])
    met = most <= 150 * 1024
    print(
        f"with history, the most any first query reads: {most / 1024:.1f} KB gzipped "
        f"(target <= 150 KB: {'met' if met else 'MISSED'})"
    )
    return met


def walk(repo: Path) -> bool:
    """Time ``scan`` of the oldest release and one ``pin`` through the other nine, in a
    fresh content folder; print both and return whether the pins took <= 2 minutes.
    (``./dev bench scan --releases`` runs this alone.)"""
    tags = [f"v{v}" for v, _ in RELEASES]
    with tempfile.TemporaryDirectory() as tmp:
        content = fresh_content(Path(tmp) / "walk")
        scanned = errdex(
            "scan", repo, "--repo", REPO, "--ref", tags[0], "--content", content, "--no-cache"
        )
        pinned = errdex(
            "pin",
            repo,
            "--repo",
            REPO,
            "--ref",
            f"{tags[1]}..{tags[-1]}",
            "--content",
            content,
            "--no-cache",
        )
    met = pinned <= TARGET_SECONDS
    print(
        f"scan {tags[0]}: {scanned:.1f} s; pin through the other {len(tags) - 1} releases: "
        f"{pinned:.1f} s (target <= {TARGET_SECONDS:.0f} s: {'met' if met else 'MISSED'})"
    )
    return met


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.releases", description=__doc__)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--cost-only", action="store_true", help="only the cost of history to a cold build"
    )
    parser.add_argument(
        "--bytes-only",
        action="store_true",
        help="only what a first query reads from an index with history",
    )
    args = parser.parse_args(argv)
    if args.cost_only:
        return 0 if history_cost(10_000, args.seed) <= 1.10 else 1
    if args.bytes_only:
        return 0 if history_bytes(10_000, args.seed) else 1
    repo = checkout()
    print(f"date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; machine: {machine()}")
    print(f"python {sys.version.split()[0]}; load average {os.getloadavg()[0]:.1f}")
    tags = [f"v{v}" for v, _ in RELEASES]
    print(f"corpus: {PACKAGE} {', '.join(v for v, _ in RELEASES)} as ten tagged commits")
    ok = walk(repo)
    with tempfile.TemporaryDirectory() as tmp:
        walked = fresh_content(Path(tmp) / "walk")
        errdex("scan", repo, "--repo", REPO, "--ref", tags[-3], "--content", walked, "--no-cache")
        errdex(
            "pin",
            repo,
            "--repo",
            REPO,
            "--ref",
            tags[-2],
            "--ref",
            tags[-1],
            "--content",
            walked,
            "--no-cache",
        )
        direct = fresh_content(Path(tmp) / "direct")
        errdex("scan", repo, "--repo", REPO, "--ref", tags[-1], "--content", direct, "--no-cache")
        ours, theirs = current(walked), current(direct)
        same = sum(1 for i, facts in theirs.items() if ours.get(i) == facts)
        ok &= same == len(theirs) == len(ours)
        print(
            f"scan {tags[-3]} and pin to {tags[-1]}, against scanning {tags[-1]}: {same:,} of "
            f"{len(theirs):,} current records with the same id, message and place "
            f"({len(ours):,} records still raised after the walk)"
        )
        index, cases = old_wording_cases(walked, tags[-3], args.seed)
        first = 0
        noted = 0
        misses = []
        for kind, paste, record_id, then in cases:
            _, matches = search.find(index, paste, 3)
            top = matches[0] if matches else None
            if top is not None and record_id in (top.entry.id, *top.also):
                first += 1
                noted += top.entry.old is not None
            else:
                misses.append((kind, then, top.entry.template if top else None))
        share = first / max(1, len(cases))
        ok &= share >= TARGET_OLD
        kinds = {k: sum(1 for c in cases if c[0] == k) for k in ("reworded", "removed")}
        print(
            f"old wordings of {tags[-3]} ({kinds['reworded']} reworded since, "
            f"{kinds['removed']} removed since): {first} of {len(cases)} put their record "
            f"first, {share:.1%} (target >= {TARGET_OLD:.0%}: "
            f"{'met' if share >= TARGET_OLD else 'MISSED'}); {noted} of them say it is the "
            "wording of an older release"
        )
        for kind, then, got in misses[:10]:
            print(f"  miss ({kind}): {then[:90]!r} -> {got[:70] if got else None!r}")
    ok &= history_cost(10_000, args.seed) <= 1.10
    ok &= history_bytes(10_000, args.seed)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
