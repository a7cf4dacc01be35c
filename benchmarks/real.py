"""A pinned real corpus: the raise sites of a released PyPI package, scanned and built.

``corpus()`` downloads the pinned wheel once (``pip download``, hash checked), unpacks
its package tree, scans it into an errdex content folder with ``build.py scan`` and
builds the site once with a fresh cache. Everything lives under ``.errdex/bench/real/``
(gitignored) and is reused by later runs; each step leaves a stamp file, so a run that
was stopped half way redoes only the step it was in.

``load_records(corpus)`` reads the scanned records back as plain dicts (with their id);
``load_index(corpus)`` is the search index exactly as the built site serves it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from errdex import search
from errdex.records.model import derive_id

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".errdex" / "bench" / "real"


@dataclass(frozen=True, slots=True)
class Wheel:
    """A pinned pure-Python wheel of a released package, scanned as its project's site."""

    package: str
    """The import name, the folder of the wheel that is scanned."""
    version: str
    sha256: str
    repo: str
    """The project's GitHub repository, which its records name."""
    tag: str = "py3-none-any"
    """The wheel's platform tag (a compiled project's wheel is one platform's)."""

    @property
    def file(self) -> str:
        return f"{self.package}-{self.version}-{self.tag}.whl"

    @property
    def commit(self) -> str:
        """A fixed stand-in commit: the wheel is a plain source tree, not a checkout."""
        digits = "".join(f"{int(part):03d}" for part in self.version.split(".")[:3])
        return digits.rjust(40, "0")


TRANSFORMERS = Wheel(
    "transformers",
    "4.57.1",
    "b10d05da8fa67dc41644dbbf9bc45a44cb86ae33da6f9295f5fbf5b7890bd267",
    "huggingface/transformers",
)
PACKAGE = TRANSFORMERS.package
VERSION = TRANSFORMERS.version
REPO = TRANSFORMERS.repo


@dataclass(frozen=True, slots=True)
class Corpus:
    version: str
    """What was scanned, ``transformers==4.57.1``."""
    source: Path
    """The unpacked source tree (holds ``transformers/``)."""
    content: Path
    """The errdex content folder the scan wrote."""
    site: Path
    """The site built from it."""


def _say(text: str) -> None:
    print(f"real corpus: {text}", file=sys.stderr, flush=True)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download(folder: Path, pinned: Wheel) -> Path:
    wheel = folder / pinned.file
    if wheel.exists() and _sha256(wheel) == pinned.sha256:
        return wheel
    folder.mkdir(parents=True, exist_ok=True)
    _say(f"downloading {pinned.package}=={pinned.version}")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--only-binary",
            ":all:",
            f"{pinned.package}=={pinned.version}",
            "-d",
            str(folder),
        ],
        check=True,
    )
    got = _sha256(wheel)
    if got != pinned.sha256:
        raise RuntimeError(f"{wheel.name}: sha256 {got}, expected {pinned.sha256}")
    return wheel


def _step(stamp: Path, target: Path) -> bool:
    """Whether the step that makes ``target`` still has to run; clears a half-done one."""
    if stamp.exists():
        return False
    if target.exists():
        shutil.rmtree(target)
    return True


def corpus(
    cache: Path = CACHE, build: bool = True, jobs: int = 2, pinned: Wheel = TRANSFORMERS
) -> Corpus:
    """The pinned corpus, made on first use: download, unpack, scan, build."""
    package = pinned.package
    base = cache / f"{package}-{pinned.version}"
    source, content, site = base / "src", base / "content", base / "public"
    wheel = _download(cache / "downloads", pinned)
    if _step(base / ".unpacked", source):
        _say(f"unpacking {wheel.name}")
        with zipfile.ZipFile(wheel) as archive:
            for name in archive.namelist():
                if name.startswith(f"{package}/"):
                    archive.extract(name, source)
        (base / ".unpacked").touch()
    if _step(base / ".scanned", content):
        _say(f"scanning {source} (about 30 s)")
        (content / "errors").mkdir(parents=True)
        (content / "site.yaml").write_text(
            f"title: errdex bench ({package})\n"
            "base_url: https://bench.example.test/\n"
            "repository: example/bench\n"
        )
        _errdex(
            "scan",
            str(source),
            "--repo",
            pinned.repo,
            "--commit",
            pinned.commit,
            "--content",
            str(content),
        )
        (base / ".scanned").touch()
    if build and _step(base / ".built", site):
        _say("building the site with a fresh cache (about 20 s)")
        fresh = base / "build-cache"
        if fresh.exists():
            shutil.rmtree(fresh)
        _errdex(
            "build",
            "--content",
            str(content),
            "--out",
            str(site),
            "--cache",
            str(fresh),
            "--jobs",
            str(jobs),
        )
        (base / ".built").touch()
    return Corpus(f"{package}=={pinned.version}", source, content, site)


def _errdex(*args: str) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "build.py"), *args],
        check=True,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )


def load_records(found: Corpus) -> list[dict[str, Any]]:
    """The scanned records as dicts, each with its ``id``, in file order."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    records = []
    for path in sorted((found.content / "errors").rglob("*.yaml")):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
        if not isinstance(data, dict):
            continue
        data.setdefault("id", derive_id(data["repo"], data["exception"], data["message"]))
        records.append(data)
    return records


def load_index(found: Corpus) -> search.Index:
    """The search index as the built site serves it (``search/meta.json`` and the record
    files)."""
    folder = found.site / "search"
    meta = json.loads((folder / "meta.json").read_text())
    entries: list[search.Entry] = []
    for file in range(int(meta["record_files"])):
        for number, id, exception, repo, template, *old in json.loads(
            (folder / "records" / f"{file}.json").read_text()
        ):
            entry = search.make_entry(
                number, id, meta["exceptions"][exception], meta["repos"][repo], template, ""
            )
            entries.append(replace(entry, old=tuple(old)) if old else entry)
    return search.Index.build(sorted(entries, key=lambda e: e.index))


if __name__ == "__main__":
    made = corpus()
    print(f"{made.version}: {made.source}\n  content {made.content}\n  site {made.site}")
