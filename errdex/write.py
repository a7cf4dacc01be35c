"""Stage 6: write the site into a temporary folder, then swap it into place.

A failed or interrupted build never leaves a half-written site: the old output stays
until the new one is complete. A file whose bytes did not change is hard-linked from
the old output, so it keeps its modification time and costs no write.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
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
    """Hold the lock file at ``path``; a process that holds it already goes on."""
    key = str(path.absolute())
    if key in _held:
        yield
        return
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        _held.add(key)
        try:
            yield
        finally:
            _held.discard(key)
            fcntl.flock(handle, fcntl.LOCK_UN)


_held: set[str] = set()


def output_lock(out: Path) -> contextlib.AbstractContextManager[None]:
    """The lock builds into ``out`` take turns with: one build reads the last build's
    state, writes the output and records what it wrote before the next begins."""
    out = out.absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    return _locked(out.parent / f".{out.name}.lock")


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class Staging:
    """A new output folder beside the old one, filled file by file (from several processes
    at once if need be), then swapped into place whole.

    A file whose bytes did not change is hard-linked from the old output, so it keeps its
    modification time and costs no write. ``previous`` (output file → digest, from the
    last build's state) says which are unchanged without reading them; without it, the
    old file is read and compared.
    """

    def __init__(self, out: Path, previous: Mapping[str, str] | None = None) -> None:
        self.out = out.absolute()
        self.folder = self.out.parent / f".{self.out.name}.new-{os.getpid()}"
        self.previous = previous
        self._folders: set[str] = set()

    def open(self) -> None:
        self.out.parent.mkdir(parents=True, exist_ok=True)
        _remove_leftovers(self.out)
        self.folder.mkdir()

    def put(self, rel: str, data: bytes) -> tuple[str, bool]:
        """Stage one file; returns its digest and whether it was written (not linked)."""
        check_relative(rel)
        made = digest(data)
        target = os.path.join(self.folder, rel)
        parent = os.path.dirname(target)
        if parent not in self._folders:
            os.makedirs(parent, exist_ok=True)
            self._folders.add(parent)
        old = os.path.join(self.out, rel)
        if self._unchanged(rel, old, data, made):
            try:
                os.link(old, target)
                return made, False
            except OSError:
                pass
        Path(target).write_bytes(data)
        return made, True

    def _unchanged(self, rel: str, old: str, data: bytes, made: str) -> bool:
        if self.previous is None or rel not in self.previous:
            return _same(Path(old), data)
        try:
            return self.previous[rel] == made and os.stat(old).st_size == len(data)
        except OSError:
            return False

    def commit(self, kept: set[str]) -> int:
        """Swap the staged folder in; returns how many old files are gone."""
        old = set(self.previous) if self.previous is not None else set(_existing(self.out))
        retired = self.out.parent / f".{self.out.name}.old-{os.getpid()}"
        try:
            # Two builds into one output take turns at the swap, so neither finds the
            # folder gone from under it.
            with _locked(self.out.parent / f".{self.out.name}.lock"):
                if self.out.exists():
                    os.replace(self.out, retired)
                os.replace(self.folder, self.out)
        except BaseException:
            if retired.exists() and not self.out.exists():
                os.replace(retired, self.out)
            raise
        shutil.rmtree(retired, ignore_errors=True)
        return len(old - kept)

    def abort(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def update_in_place(files: Mapping[str, bytes], out: Path) -> tuple[int, dict[str, str]]:
    """Write the files of ``files`` whose bytes differ from those in ``out`` (an existing
    output). Returns how many were written, and every file's digest.

    Every new file is written beside its old one first; only when all are written do they
    take the old ones' places (renames, which cannot run out of space). A failed write
    leaves the output as it was.
    """
    for rel in files:
        check_relative(rel)
    out = out.absolute()
    staged: list[tuple[Path, Path]] = []
    with _locked(out.parent / f".{out.name}.lock"):
        try:
            for rel in sorted(files):
                target = out / rel
                if _same(target, files[rel]):
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                partial = target.with_name(f".{target.name}.{os.getpid()}")
                staged.append((partial, target))
                partial.write_bytes(files[rel])
        except BaseException:
            for partial, _ in staged:
                partial.unlink(missing_ok=True)
            raise
        for partial, target in staged:
            os.replace(partial, target)
    return len(staged), {rel: digest(data) for rel, data in files.items()}
