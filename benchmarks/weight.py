"""What a site weighs on each host: ``./dev bench weight [--project NAME ...] [--synthetic N]``.

For each pinned real wheel (``--project``; transformers and vllm by default), scanned once
into ``--cache`` like the other real-code benchmarks, for one site of all of them together
(vllm's wheel alone gives about 1,800 records; with transformers, about 8,300), and for a
synthetic corpus of N records (``--synthetic``), it builds the site once per ``host``
setting, each into a fresh output folder with a fresh build cache, and reports:

- per record, the median bytes of the files of one error: its page, its JSON document
  and, for a host without rewrite rules, the extension-less copy (goal: 12 KB, so about
  80,000 records fit GitHub Pages' 1 GB);
- the site's files and bytes, its largest file and largest error page, and each host's
  limits (goal: a vllm-sized scan of about 8,000 records under Cloudflare Pages' 20,000
  files);
- for the first host, the cold build's time and its peak memory (measured in a build of
  its own, as ``benchmarks.build`` does), the sitemap files and the list pages.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from errdex.site import hosts

from . import corpus, real
from .build import peak_memory

ROOT = Path(__file__).resolve().parent.parent
GOAL_PER_RECORD = 12_000

VLLM = real.Wheel(
    "vllm",
    "0.11.0",
    "3861c75ff2b12e24f6d179ff5c084d791b42ded8675d76c8706697c79f68cd62",
    "vllm-project/vllm",
    tag="cp38-abi3-manylinux1_x86_64",
)
PROJECTS = {"transformers": real.TRANSFORMERS, "vllm": VLLM}


@dataclass(frozen=True, slots=True)
class Weighed:
    host: str
    records: int
    per_record: float
    """The median bytes of one error's files."""
    page: float
    """The median error page's bytes."""
    document: float
    files: int
    bytes: int
    largest: str
    largest_bytes: int
    largest_page: int


def weigh(out: Path, host: str) -> Weighed:
    ids = sorted(p.name for p in (out / "errors").iterdir() if (p / "index.html").is_file())
    pages = [(out / "errors" / i / "index.html").stat().st_size for i in ids]
    documents = [(out / "api" / "errors" / f"{i}.json").stat().st_size for i in ids]
    copies = [
        (out / "api" / "errors" / i).stat().st_size if (out / "api" / "errors" / i).is_file() else 0
        for i in ids
    ]
    found = hosts.usage(out)
    return Weighed(
        host=host,
        records=len(ids),
        per_record=statistics.median(
            p + d + c for p, d, c in zip(pages, documents, copies, strict=True)
        ),
        page=statistics.median(pages),
        document=statistics.median(documents),
        files=found.files,
        bytes=found.bytes,
        largest=found.largest,
        largest_bytes=found.largest_bytes,
        largest_page=max(pages),
    )


def with_host(content: Path, host: str, into: Path) -> Path:
    """A copy of ``content`` whose site.yaml names ``host`` (links would be followed)."""
    copy = into / "content"
    shutil.copytree(content, copy, symlinks=False)
    config = copy / "site.yaml"
    lines = [line for line in config.read_text().splitlines() if not line.startswith("host:")]
    config.write_text("\n".join([*lines, f"host: {host}"]) + "\n")
    return copy


def build(content: Path, work: Path) -> tuple[Path, float]:
    out, cache = work / "public", work / "cache"
    command = [sys.executable, str(ROOT / "build.py"), "build", "-q"]
    command += ["--content", str(content), "--out", str(out), "--cache", str(cache)]
    started = time.perf_counter()
    subprocess.run(command, check=True, cwd=work)
    return out, time.perf_counter() - started


def measure(name: str, content: Path, host_names: list[str]) -> None:
    print(f"\n{name}")
    print(
        f"  {'host':<13} {'records':>7} {'per record':>10} {'page':>8} {'JSON':>7} "
        f"{'files':>8} {'MB':>8}  limits"
    )
    for number, host in enumerate(host_names):
        with tempfile.TemporaryDirectory(prefix="errdex-weight-") as temp:
            work = Path(temp)
            site_content = with_host(content, host, work)
            out, seconds = build(site_content, work)
            found = weigh(out, host)
            limits = hosts.summary(hosts.usage(out), hosts.HOSTS[host]).partition(" (")[2]
            print(
                f"  {host:<13} {found.records:>7,} {found.per_record / 1000:>8.1f}KB "
                f"{found.page / 1000:>6.1f}KB {found.document / 1000:>5.1f}KB "
                f"{found.files:>8,} {found.bytes / 1e6:>8.1f}  {limits.rstrip(')') or '-'}"
            )
            if number == 0:
                sitemaps = sorted(p.name for p in out.glob("sitemap*.xml"))
                lists = sum(1 for p in out.rglob("index.html") if "errors" not in p.parts)
                shutil.rmtree(out)
                shutil.rmtree(work / "cache")
                peak = peak_memory(
                    [
                        sys.executable,
                        str(ROOT / "build.py"),
                        "build",
                        "-q",
                        "--content",
                        str(site_content),
                        "--out",
                        str(out),
                        "--cache",
                        str(work / "cache"),
                    ],
                    work,
                )
                print(
                    f"    cold build {seconds:.1f} s, peak memory {peak:,.0f} MB; largest file "
                    f"{found.largest} ({found.largest_bytes / 1e6:.2f} MB), largest error page "
                    f"{found.largest_page / 1000:.1f} KB; {len(sitemaps)} sitemap file(s); "
                    f"{lists:,} list pages"
                )
    print(f"  goal: {GOAL_PER_RECORD / 1000:.0f} KB per record at the median")


def synthetic(n: int, folder: Path) -> Path:
    content = folder / f"synthetic-{n}"
    if not (content / ".written").exists():
        if content.exists():
            shutil.rmtree(content)
        corpus.write_content(content, corpus.generate_many(n, seed=1))
        (content / ".written").touch()
    return content


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", action="append", choices=sorted(PROJECTS))
    parser.add_argument("--synthetic", type=int, action="append", default=[])
    parser.add_argument(
        "--hosts", default="github-pages,cloudflare,netlify,plain", help="comma-separated"
    )
    parser.add_argument("--cache", type=Path, default=real.CACHE)
    ns = parser.parse_args(argv)
    host_names = ns.hosts.split(",")
    projects = ns.project if ns.project is not None else ([] if ns.synthetic else sorted(PROJECTS))
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    print(
        f"errdex page weight, {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, "
        f"commit {commit}, {platform.machine()} {platform.processor() or ''}, "
        f"Python {platform.python_version()}"
    )
    scans = [real.corpus(ns.cache, build=False, pinned=PROJECTS[name]) for name in projects]
    for made in scans:
        measure(f"{made.version} (scanned)", made.content, host_names)
    if len(scans) > 1:
        with tempfile.TemporaryDirectory(prefix="errdex-weight-") as temp:
            together = Path(temp) / "content"
            shutil.copytree(scans[0].content, together)
            for made in scans[1:]:
                shutil.copytree(made.content / "errors", together / "errors", dirs_exist_ok=True)
            names = " + ".join(made.version for made in scans)
            measure(f"{names} (scanned, one site)", together, host_names)
    for n in ns.synthetic:
        measure(f"synthetic, {n:,} records", synthetic(n, ns.cache), host_names)
    return 0


if __name__ == "__main__":
    sys.exit(main())
