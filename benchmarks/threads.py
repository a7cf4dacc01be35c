"""Triage on real GitHub issue threads, labelled by hand: ``./dev bench threads [CORPORA]``.

The threads are others' writing, so they live outside the repository, one folder per
project under CORPORA (default /work/corpora/threads): each thread's text as posted
(title, body and comments) in a file, and ``labels.yaml``, written by a person who read
each thread::

    threads:
      - file: owner__repo__123.md
        error: "ValueError: the line a person would pick"
        record: 0123abcd4567ef89   # the site's record raising it; null when it has none
        shapes: [inside prose, cut short]

A thread's error counts as "no record" when the scan of the project's pinned wheel has
no record raising it: raised by compiled code, by another project, or built where the
scan cannot see it (a message kept in a module constant), or worded otherwise by an
older release. A message the release raises with words added after the pasted ones (a
sentence of advice appended since) is the same error: its record. ``also`` lists the
records of other errors the thread pastes (the cause a chained traceback shows, a second
error), found by reading the thread: an answer naming one is right, and recall still
asks for ``record``.

Each project's site is the pinned wheel of ``PROJECTS``, downloaded, scanned and built
once with a fresh build cache by ``benchmarks.real`` under ``--cache`` (default
CORPORA/../threads-cache) and reused after. Each thread's text goes through
``reports.found_in`` with triage's rules, the reading ``errdex triage`` and ``issues
import`` give an issue. An answer is right when it is the labelled record or a record
with the same exception and words, however spaced and whatever its placeholders are
named (``search.same_message``: no reader could tell them apart, and search shows them
as one answer).

Precision: right answers / answers. Recall: threads whose labelled record is among the
answers / threads whose error the site has. Both per project and per shape (a thread
counts under each shape it has). Goals: precision >= 99% and recall >= 90% per project.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from errdex import search
from errdex.github import reports
from errdex.github.triage import Event, text_of
from errdex.search import sources

from . import real
from .search import machine

CORPORA = Path("/work/corpora/threads")
TARGET_PRECISION = 0.99
TARGET_RECALL = 0.90

PROJECTS: dict[str, real.Wheel] = {
    "transformers": real.TRANSFORMERS,
    "pydantic": real.Wheel(
        "pydantic",
        "2.12.5",
        "e561593fccf61e8a20fc46dfc2dfe075b8be7d0188df33f221ad1f0139180f9d",
        "pydantic/pydantic",
    ),
    "datasets": real.Wheel(
        "datasets",
        "3.6.0",
        "25000c4a2c0873a710df127d08a202a06eab7bf42441a6bc278b499c2f72cd1b",
        "huggingface/datasets",
    ),
    "fastapi": real.Wheel(
        "fastapi",
        "0.121.3",
        "0c78fc87587fcd910ca1bbf5bc8ba37b80e119b388a7206b39f0ecc95ebf53e9",
        "fastapi/fastapi",
    ),
    "diffusers": real.Wheel(
        "diffusers",
        "0.42.1",
        "9154faa704ce00e0b77f568e0d64786064368528aab5fc14eeea92f87d788014",
        "huggingface/diffusers",
    ),
    "accelerate": real.Wheel(
        "accelerate",
        "1.16.0",
        "180885b6d7b05a19dc2dd6f722c5ce930f615e81e9e5f79d3ca910ddb9e6859e",
        "huggingface/accelerate",
    ),
    "peft": real.Wheel(
        "peft",
        "0.21.2",
        "106ab6077ff72c54d21577f9af5970e34bac7582cb14209f7b2b511e322a4eae",
        "huggingface/peft",
    ),
}
"""The folder name of each project's threads → the wheel its site is scanned from."""

SHAPES = (
    "plain",
    "log prefix",
    "inside prose",
    "wrapper",
    "cut short",
    "module-qualified",
    "another project",
)
"""How a thread pastes its error; ``plain`` is a bare line or a whole traceback."""


@dataclass(frozen=True, slots=True)
class Thread:
    file: str
    text: str
    error: str
    record: str | None
    shapes: tuple[str, ...]
    also: tuple[str, ...] = ()
    """Records of other errors the thread pastes (a chained cause, a second error)."""


@dataclass(frozen=True, slots=True)
class Scored:
    thread: Thread
    answers: tuple[str, ...]
    right: int
    """Answers that are the labelled record (or say its very message)."""
    pasted: int = 0
    """Answers that name another error the thread pastes (its ``also``)."""

    @property
    def found(self) -> bool:
        return self.right > 0

    @property
    def good(self) -> int:
        """Answers that name an error the thread pastes: precision counts these."""
        return self.right + self.pasted


def read_threads(folder: Path) -> list[Thread]:
    """The labelled threads of one project folder, in the order of its labels."""
    data = yaml.safe_load((folder / "labels.yaml").read_text(encoding="utf-8"))
    threads = []
    for item in data["threads"]:
        shapes = tuple(item.get("shapes") or ("plain",))
        unknown = set(shapes) - set(SHAPES)
        if unknown:
            raise SystemExit(f"{folder}/labels.yaml: {item['file']}: unknown shape {unknown}")
        text = (folder / item["file"]).read_text(encoding="utf-8")
        also = tuple(item.get("also") or ())
        threads.append(Thread(item["file"], text, item["error"], item.get("record"), shapes, also))
    return threads


def site_of(wheel: real.Wheel, cache: Path) -> sources.Source:
    """The project's built site as triage reads it, its index held in memory."""
    made = real.corpus(cache, pinned=wheel)
    source = sources.site_source(sources.FolderStore(made.site))
    return replace(source, index=real.load_index(made))


def _event(thread: Thread) -> Event:
    """The thread as an issue: its title, and a body that is all the rest of its text
    (from the description on, comments too)."""
    title, body = split(thread.text)
    return Event("issues", "opened", "", 0, title, body, "open", "", False, (), False, None)


def split(text: str) -> tuple[str, str]:
    """A thread file's title (its ``# `` line after the repository's and any labels')
    and the text after the title, or after the description's ``author · description ·
    date`` line."""
    lines = text.split("\n")
    heading = next((n for n in range(1, min(3, len(lines))) if lines[n].startswith("# ")), 0)
    title = lines[heading][2:].strip() if heading else ""
    start = heading + 1
    for number, line in enumerate(lines[start:], start):
        if " · description · " in line:
            start = number + 1
            break
    return title, "\n".join(lines[start:])


def score(source: sources.Source, threads: list[Thread]) -> list[Scored]:
    entries = source.index.entries
    # Messages that differ only in their blanks (a line break for a space) or in their
    # placeholders' names read alike.
    message = {e.id: search.same_message(e) for e in entries}
    scored = []
    for thread in threads:
        event = _event(thread)
        found = reports.found_in(source, text_of(event), title=event.title)
        answers = tuple(f.id for f in found)
        wanted = message.get(thread.record) if thread.record else None
        if thread.record and wanted is None:
            raise SystemExit(f"{thread.file}: labelled record {thread.record} is not on the site")
        right = sum(1 for a in answers if wanted is not None and message[a] == wanted)
        pasted = {message[a] for a in thread.also if a in message}
        if len(pasted) != len(thread.also):
            raise SystemExit(f"{thread.file}: a record it also pastes is not on the site")
        scored.append(Scored(thread, answers, right, sum(message[a] in pasted for a in answers)))
    return scored


def _ratio(part: int, whole: int) -> str:
    return f"{part / whole:6.1%} ({part}/{whole})" if whole else "     - (0/0)"


def row(name: str, scored: list[Scored]) -> str:
    answers = sum(len(s.answers) for s in scored)
    right = sum(s.good for s in scored)
    has = [s for s in scored if s.thread.record]
    found = sum(1 for s in has if s.found)
    return (
        f"  {name:<18} threads {len(scored):4}  site has {len(has):4}  "
        f"precision {_ratio(right, answers):<18} recall {_ratio(found, len(has))}"
    )


def report(project: str, version: str, scored: list[Scored], misses: bool) -> bool:
    answers = sum(len(s.answers) for s in scored)
    right = sum(s.good for s in scored)
    has = [s for s in scored if s.thread.record]
    found = sum(1 for s in has if s.found)
    precision = right / answers if answers else 1.0
    recall = found / len(has) if has else 1.0
    met = precision >= TARGET_PRECISION and recall >= TARGET_RECALL
    if not has:
        said = "no thread pastes an error its site has: recall not measured"
    else:
        said = "goals met" if met else "goals NOT met"
    print(f"\n{project} ({version}): {said}")
    print(row("all", scored))
    for shape in SHAPES:
        some = [s for s in scored if shape in s.thread.shapes]
        if some:
            print(row(shape, some))
    if misses:
        for s in scored:
            wrong = len(s.answers) - s.good
            if wrong or (s.thread.record and not s.found):
                said = ", ".join(s.answers) or "nothing"
                print(f"    miss {s.thread.file}: labelled {s.thread.record}, answered {said}")
    return met or not has


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.threads", description=__doc__)
    parser.add_argument("corpora", nargs="?", type=Path, default=CORPORA)
    parser.add_argument("--cache", type=Path, help="the sites (default CORPORA/../threads-cache)")
    parser.add_argument("--misses", action="store_true", help="name each miss and wrong answer")
    args = parser.parse_args(argv)
    corpora: Path = args.corpora.resolve()
    cache: Path = args.cache or corpora.parent / "threads-cache"
    folders = sorted(p.parent for p in corpora.glob("*/labels.yaml"))
    if not folders:
        print(f"no */labels.yaml under {corpora}", file=sys.stderr)
        return 1
    print(
        f"date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; machine: "
        f"{machine()}; Python {platform.python_version()}"
    )
    every: list[Scored] = []
    ok = True
    for folder in folders:
        wheel = PROJECTS.get(folder.name)
        if wheel is None:
            print(f"{folder.name}: no pinned wheel in PROJECTS, skipped", file=sys.stderr)
            continue
        scored = score(site_of(wheel, cache), read_threads(folder))
        ok &= report(folder.name, f"{wheel.package}=={wheel.version}", scored, args.misses)
        every += scored
    print("\nevery project, per shape:")
    print(row("all", every))
    for shape in SHAPES:
        some = [s for s in every if shape in s.thread.shapes]
        if some:
            print(row(shape, some))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
