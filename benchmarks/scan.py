"""How fast scan and pin are on a codebase the size of vllm: ``python -m benchmarks.scan``.

Writes a git repository of FILES Python files (about 300 lines each) holding RAISES raise
statements in the forms scan reads, then times ``scan`` into an empty content folder and
``pin`` of every record to a second commit where a tenth of the raises moved.

``--source DIR`` times a real codebase instead (a plain source tree, such as an unpacked
sdist or wheel); ``--real`` uses the pinned transformers wheel of ``benchmarks.real``
(downloaded and unpacked once). It times ``scan --dry-run``, ``scan`` into an empty
content folder, a rescan with nothing new, and ``pin`` to a copy of the tree where every
tenth file has two lines more at its top (its raises moved).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from errdex.cli import main as errdex

FORMS = (
    'raise ValueError(f"{name}={{value}} must be divisible by {other}={{limit}}.")',
    'raise NotImplementedError("{name} is not supported " "with {other} yet.")',
    'raise RuntimeError("Cannot load {name} from %s: %s" % (path, reason))',
    'raise TypeError("Expected {name} to be {{}}, got {{}}".format(kind, type(value)))',
    'raise KeyError("Unknown {name} " + repr(key) + " for {other}")',
)
WORDS = [
    "config",
    "model",
    "cache",
    "tensor",
    "pipeline",
    "expert",
    "lora",
    "prefix",
    "block",
    "token",
    "rank",
    "device",
]


def write_codebase(root: Path, files: int, raises: int, seed: int, shift: bool) -> None:
    rng = random.Random(seed)
    per_file = [raises // files + (1 if i < raises % files else 0) for i in range(files)]
    for number, count in enumerate(per_file):
        lines = ["import os", ""] + (["# moved down", ""] if shift and number % 10 == 0 else [])
        for index in range(count):
            name, other = rng.choice(WORDS), rng.choice(WORDS)
            form = FORMS[(number + index) % len(FORMS)].format(
                name=f"{name}_{number}_{index}", other=other
            )
            lines += [
                f"def check_{index}(value, limit, path, reason, kind, key):",
                f"    if value > limit + {index}:",
                f"        {form}",
                "    return value",
                "",
            ]
        lines += [
            f"CONSTANT_{i} = {i}  # filler, as real modules have" for i in range(300 - len(lines))
        ]
        path = root / "pkg" / f"module_{number // 100}" / f"file_{number}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n")


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def timed(argv: list[str]) -> float:
    started = time.perf_counter()
    assert errdex(argv) == 0
    return time.perf_counter() - started


def _content(folder: Path) -> Path:
    (folder / "errors").mkdir(parents=True)
    (folder / "site.yaml").write_text(
        "title: Bench\nbase_url: https://bench.example.test/\nrepository: example/site\n"
    )
    return folder


def _load() -> str:
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def real(source: Path) -> int:
    """Scan, rescan and pin a real source tree; 1 when a target of issue #16 is missed."""
    with tempfile.TemporaryDirectory() as tmp:
        moved = Path(tmp) / "moved"
        shutil.copytree(source, moved)
        files = sorted(moved.rglob("*.py"))
        for path in files[::10]:
            path.write_bytes(b"# moved down\n\n" + path.read_bytes())
        commit, later = "0123456789abcdef0123456789abcdef01234567", "1" * 40
        # A cache folder of this run's own: the rescan and the pin find what the scan
        # kept there, as a maintainer's next runs would.
        common = ["--repo", "example/real", "--cache", str(Path(tmp) / "cache")]
        print(f"real codebase {source}: {len(files):,} Python files; {_load()}", file=sys.stderr)
        dry = _content(Path(tmp) / "dry")
        dry_time = timed(
            ["scan", str(source), *common, "--commit", commit, "--content", str(dry), "--dry-run"]
        )
        content = _content(Path(tmp) / "content")
        scan = ["scan", str(source), *common, "--commit", commit, "--content", str(content)]
        scan_time = timed(scan)
        rescan_time = timed(scan)
        pin_time = timed(["pin", str(moved), *common, "--commit", later, "--content", str(content)])
    met = {
        "scan": (scan_time, 30.0),
        "rescan": (rescan_time, 10.0),
        "pin": (pin_time, 15.0),
    }
    said = ", ".join(
        f"{name} {took:.1f}s ({'met' if took <= limit else 'MISSED'}: <= {limit:.0f} s)"
        for name, (took, limit) in met.items()
    )
    print(f"\nscan --dry-run {dry_time:.1f}s, {said}; {_load()}")
    return 0 if all(took <= limit for took, limit in met.values()) else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scan", description=__doc__)
    parser.add_argument("--files", type=int, default=3200)
    parser.add_argument("--raises", type=int, default=7800)
    parser.add_argument("--source", type=Path, help="time this real source tree instead")
    parser.add_argument(
        "--real", action="store_true", help="time the pinned transformers wheel (benchmarks.real)"
    )
    parser.add_argument(
        "--releases",
        action="store_true",
        help="time scan and a pin through ten transformers releases (benchmarks.releases)",
    )
    args = parser.parse_args(argv)
    if args.releases:
        from benchmarks import releases

        print(f"corpus: {releases.PACKAGE} {', '.join(v for v, _ in releases.RELEASES)}")
        return 0 if releases.walk(releases.checkout()) else 1
    if args.real:
        from benchmarks.real import corpus

        return real(corpus(build=False).source)
    if args.source:
        return real(args.source)
    with tempfile.TemporaryDirectory() as tmp:
        repo, content = Path(tmp) / "repo", _content(Path(tmp) / "content")
        repo.mkdir()
        git(repo, "init", "-q")
        for shift, tag in ((False, "one"), (True, "two")):
            write_codebase(repo, args.files, args.raises, seed=1, shift=shift)
            git(repo, "add", "-A")
            git(repo, "-c", "user.name=b", "-c", "user.email=b@example.test", "commit", "-qm", tag)
            git(repo, "tag", tag)
        common = ["--repo", "example/big", "--content", str(content)]
        common += ["--cache", str(content.parent / "cache")]  # this run's own
        scan_time = timed(["scan", str(repo), "--ref", "one", *common])
        rescan_time = timed(["scan", str(repo), "--ref", "one", *common])
        pin_time = timed(["pin", str(repo), "--ref", "two", *common])
    print(
        f"\nscan of {args.files:,} files with {args.raises:,} raises: {scan_time:.1f}s "
        f"(target under 30 s: {'met' if scan_time < 30 else 'MISSED'}); "
        f"rescan with nothing new: {rescan_time:.1f}s; pin to a commit where a tenth moved: "
        f"{pin_time:.1f}s; {_load()}"
    )
    return 0 if scan_time < 30 else 1


if __name__ == "__main__":
    sys.exit(main())
