"""Stage 6: write the site into a temporary folder, then swap it into place.

A failed or interrupted build never leaves a half-written site: the old output stays
until the new one is complete. A file whose bytes did not change is hard-linked from
the old output, so it keeps its modification time and costs no write.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath


@dataclass(frozen=True, slots=True)
class WriteStats:
    written: int
    """Files that are new or whose bytes changed."""
    unchanged: int
    removed: int


class UnsafePath(ValueError):
    """An output path that would land outside the output folder."""


def check_relative(rel: str) -> PurePosixPath:
    path = PurePosixPath(rel)
    if (
        not rel
        or path.is_absolute()
        or "\\" in rel
        or "\x00" in rel
        or any(part in ("..", ".") for part in path.parts)
        or (path.parts and ":" in path.parts[0])
    ):
        raise UnsafePath(f"refusing to write outside the output folder: {rel!r}")
    return path


def _same(old: Path, data: bytes) -> bool:
    try:
        return old.stat().st_size == len(data) and old.read_bytes() == data
    except OSError:
        return False


def changes(files: Mapping[str, bytes], out: Path) -> tuple[list[str], list[str]]:
    """Which files a write would change or add, and which it would remove."""
    changed = sorted(rel for rel, data in files.items() if not _same(out / rel, data))
    removed = sorted(set(_existing(out)) - set(files))
    return changed, removed


def _existing(out: Path) -> list[str]:
    if not out.is_dir():
        return []
    return [p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()]


class UnsafeOutput(ValueError):
    """An output folder that a build must not replace."""


def check_output(out: Path, content: Path) -> None:
    """Refuse to replace a folder that is not an earlier build: the output folder is
    swapped out whole, so pointing it at the project or the content would delete them."""
    target, here, source = out.resolve(), Path.cwd().resolve(), content.resolve()
    if target == here or here.is_relative_to(target):
        raise UnsafeOutput(f"{out}: the output folder cannot be this folder or one above it")
    if source.is_relative_to(target) or target.is_relative_to(source):
        raise UnsafeOutput(f"{out}: the output folder cannot hold, or be inside, {content}")
    if target.is_dir() and any(target.iterdir()) and not (target / SIGNATURE).is_file():
        raise UnsafeOutput(
            f"{out}: exists and is not an errdex site (it has no {SIGNATURE}); "
            "give a new or empty folder"
        )


SIGNATURE = "api/errors.json"
"""A file every build writes: a folder holding it is a site errdex may replace."""


def _remove_leftovers(out: Path) -> None:
    """Folders a killed build left beside the output (its process is gone)."""
    for folder in out.parent.glob(f".{out.name}.*-*"):
        kind, _, pid = folder.name.rpartition("-")
        if not pid.isdigit() or not kind.endswith((".new", ".old")):
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except PermissionError:
            pass  # another user's live build


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def write_site(files: Mapping[str, bytes], out: Path) -> WriteStats:
    for rel in files:
        check_relative(rel)
    out = out.absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f".{out.name}.new-{os.getpid()}"
    retired = out.parent / f".{out.name}.old-{os.getpid()}"
    _remove_leftovers(out)
    written = unchanged = 0
    try:
        for rel in sorted(files):
            data = files[rel]
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            old = out / rel
            if _same(old, data):
                try:
                    os.link(old, target)
                    unchanged += 1
                    continue
                except OSError:
                    pass
            target.write_bytes(data)
            written += 1
        removed = len(set(_existing(out)) - set(files))
        # Two builds into one output take turns at the swap, so neither finds the
        # folder gone from under it.
        with _locked(out.parent / f".{out.name}.lock"):
            if out.exists():
                os.replace(out, retired)
            os.replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if retired.exists() and not out.exists():
            os.replace(retired, out)
        raise
    shutil.rmtree(retired, ignore_errors=True)
    return WriteStats(written=written, unchanged=unchanged, removed=removed)
