"""Stage 6: write the site into a temporary folder, then swap it into place.

A failed or interrupted build never leaves a half-written site: the old output stays
until the new one is complete. A file whose bytes did not change is hard-linked from
the old output, so it keeps its modification time and costs no write.

The output folder is errdex's alone. Every build leaves a marker in it (``MARKER``)
naming the files it wrote; a later build replaces the folder only when everything in it
is one of those, and otherwise stops and names what else is there. A file errdex did not
write is never removed.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import shutil
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from errdex.records.files import NEW_FILE
from errdex.records.problems import BuildError, Problem
from errdex.util.processes import alive, lock, unlock


@dataclass(frozen=True, slots=True)
class WriteStats:
    written: int
    """Files that are new or whose bytes changed."""
    unchanged: int
    removed: int


class UnsafePath(ValueError):
    """An output path that would land outside the output folder."""


def check_relative(rel: str) -> None:
    """Refuse a path that could leave the output folder or name errdex's marker: empty,
    absolute, with ``..``, a backslash, a NUL or a drive. Empty and ``.`` steps are
    dropped first, as a path does (``a/./b`` is ``a/b``)."""
    parts = [part for part in rel.split("/") if part not in ("", ".")]
    if (
        not rel
        or rel == MARKER
        or rel.startswith("/")
        or "\\" in rel
        or "\x00" in rel
        or ".." in parts
        or (parts and ":" in parts[0])
    ):
        raise UnsafePath(f"refusing to write outside the output folder: {rel!r}")


MARKER = ".errdex-site"
"""Written into the output folder by every build: the files that build wrote (JSON). A
folder holding it is errdex's, and the files it names are the only ones a build may
remove. One dot only, so it never looks like a partial file (``.name.<pid>``)."""

LEGACY_SIGNATURE = "api/errors.json"
"""A file every build writes: a folder holding it but no marker may be a site built by a
release before the marker; it is refused all the same, with a word on what to do."""


def marker_bytes(files: Iterable[str]) -> bytes:
    document = {
        "about": "The files errdex wrote into this folder. Each build replaces the folder "
        "whole, and refuses to when it holds anything else.",
        "files": sorted(files),
    }
    return (json.dumps(document, indent=1, ensure_ascii=False, sort_keys=True) + "\n").encode()


def read_marker(folder: Path) -> set[str] | None:
    """The files named by the marker in ``folder``; None when it has no readable one.

    A build reads it up to three times (the checks of the output folder, then the update
    or the swap): a marker whose file is as it was when last read is not read again."""
    path = folder / MARKER
    try:
        seen = os.stat(path)
    except OSError:
        return None
    stamp = (seen.st_dev, seen.st_ino, seen.st_mtime_ns, seen.st_ctime_ns, seen.st_size)
    known = _markers.get(stamp)
    if known is not None:
        return set(known)
    try:
        files = json.loads(path.read_bytes())["files"]
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if not isinstance(files, list) or not all(isinstance(name, str) for name in files):
        return None
    _markers.clear()  # one output folder at a time is all a build reads
    _markers[stamp] = frozenset(files)
    return set(files)


_markers: dict[tuple[int, ...], frozenset[str]] = {}
"""The marker last read, by its file's device, inode, times and size."""


def _write_new(path: str, data: bytes) -> None:
    """Write ``data`` into the new file ``path`` (one already there is an error: it may
    be a link to another file): three system calls, where ``Path.write_bytes`` makes six
    (it asks whether the file is a terminal, and where it stands)."""
    fd = os.open(path, NEW_FILE, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _same(old: Path, data: bytes) -> bool:
    """Whether ``old`` is a file (not a link to one) holding ``data``."""
    try:
        seen = os.lstat(old)
        return stat.S_ISREG(seen.st_mode) and seen.st_size == len(data) and old.read_bytes() == data
    except OSError:
        return False


def changes(files: Mapping[str, bytes], out: Path) -> tuple[list[str], list[str]]:
    """Which files a write would change or add, and which of errdex's it would remove.
    Refused (E500) as a full build is, when ``out`` holds anything errdex did not write."""
    shown, out = out, output_target(out)
    changed = sorted(rel for rel, data in files.items() if not _same(out / rel, data))
    listed = read_marker(out) or set()
    entries = _entries(out)
    foreign = _foreign(entries, listed)
    if foreign:
        raise refusal(shown, _holds(foreign))
    removed = sorted(set(entries) & listed - set(files))
    return changed, removed


def _entries(folder: Path) -> list[str]:
    """Everything in ``folder`` but the folders that hold something: files, links (never
    followed) and empty folders (with a trailing slash), relative, in name order at
    each level. Walked with a stack, not by recursion: a user's folders may nest deeper
    than Python recurses."""
    found: list[str] = []
    if not folder.is_dir() or folder.is_symlink():
        return found
    walking = [(iter(_listed(str(folder))), "")]  # the entries left of each open folder
    while walking:
        items, prefix = walking[-1]
        entry = next(items, None)
        if entry is None:
            walking.pop()
        elif not entry.is_dir(follow_symlinks=False):
            found.append(prefix + entry.name)
        else:
            inner = _listed(entry.path)
            if inner:
                walking.append((iter(inner), f"{prefix}{entry.name}/"))
            else:
                found.append(f"{prefix}{entry.name}/")
    return found


def _listed(path: str) -> list[os.DirEntry[str]]:
    with os.scandir(path) as listing:
        return sorted(listing, key=lambda entry: entry.name)


_PARTIAL = re.compile(r"(?P<folder>(?:.*/)?)\.(?P<name>[^/]+)\.[0-9]+")


def _partial(entry: str, ours: set[str]) -> bool:
    """Whether ``entry`` is what an interrupted in-place update left of one of our files."""
    found = _PARTIAL.fullmatch(entry)
    if found is None:
        return False
    name = found["folder"] + found["name"]
    return name in ours or name == MARKER


def _foreign(entries: list[str], listed: set[str]) -> list[str]:
    """The entries of an output folder (``_entries``) that errdex did not write: neither
    its marker nor a file the marker (``listed``) names, nor what an interrupted update
    left of one, nor a folder of errdex's that a person emptied."""
    found = [e for e in entries if e != MARKER and e not in listed and not _partial(e, listed)]
    if any(e.endswith("/") for e in found):
        ours = {rel[: at + 1] for rel in listed for at, c in enumerate(rel) if c == "/"}
        found = [e for e in found if e not in ours]
    return found


def _foreign_at_top(folder: Path, listed: set[str]) -> list[str]:
    """``_foreign`` of the top level of ``folder`` alone: its files, and its folders (with a
    trailing slash) that hold none of the files ``listed`` names."""
    found, folders = [], set()
    with os.scandir(folder) as listing:
        for entry in listing:
            if entry.is_dir(follow_symlinks=False):
                folders.add(entry.name)
            else:
                found.append(entry.name)
    for rel in listed:  # ``folders`` keeps those no file of the marker is in
        head, slash, _ = rel.partition("/")
        if slash and head in folders:
            folders.discard(head)
            if not folders:
                break
    found += [name + "/" for name in folders]
    return _foreign(sorted(found), listed)


def _holds(foreign: list[str]) -> str:
    return (
        f"holds files errdex did not write: {_few(foreign)}; each build replaces the "
        "folder whole: move them out, or build into another folder"
    )


def _few(names: list[str]) -> str:
    shown = ", ".join(names[:3])
    return shown + (f" and {len(names) - 3} more" if len(names) > 3 else "")


class UnsafeOutput(ValueError):
    """An output folder that a build must not replace."""

    def __init__(self, out: Path, reason: str) -> None:
        super().__init__(f"{out}: {reason}")
        self.reason = reason


def refusal(out: Path, reason: str) -> BuildError:
    """The error that stops a build whose output folder is refused."""
    return BuildError([Problem(str(out), 0, reason, code="E500")])


def output_target(out: Path) -> Path:
    """The folder a build into ``out`` writes. A link is followed: the folder it leads to
    is updated and the link stays, so whatever serves that folder by its name sees the
    new site (swapping the link for a folder would leave it serving the old one)."""
    return _real(out)


def _real(path: Path) -> Path:
    """``path`` with every link resolved; unlike ``Path.resolve`` never raises (a link
    loop is left as it is, for the checks to refuse)."""
    return Path(os.path.realpath(path))


def require_output(out: Path, content: Path) -> None:
    """``check_output``, refusing as a build does: a BuildError naming the folder (E500)."""
    try:
        check_output(out, content)
    except UnsafeOutput as exc:
        raise refusal(out, exc.reason) from exc


def check_output(out: Path, content: Path) -> None:
    """Refuse an output a build must not replace: it is swapped out whole, so pointing it
    at the project, the content, a file or a folder of other files would delete them."""
    try:
        _check_output(out, content)
    except OSError as exc:  # a name too long, a folder errdex may not read
        raise UnsafeOutput(out, f"cannot be used: {exc.strerror or exc}") from exc


def _check_output(out: Path, content: Path) -> None:
    if out.is_symlink() and not out.exists():
        raise UnsafeOutput(
            out,
            f"is a link to {os.readlink(out)}, which does not exist (or leads back to "
            "itself); make that folder, or give another",
        )
    target, here, source = output_target(out), Path.cwd().resolve(), _real(content)
    if target == here or here.is_relative_to(target):
        raise UnsafeOutput(out, "the output folder cannot be this folder or one above it")
    if source.is_relative_to(target) or target.is_relative_to(source):
        raise UnsafeOutput(out, f"the output folder cannot hold, or be inside, {content}")
    if os.path.lexists(target) and not target.is_dir():
        what = "a file" if target.is_file() else "not a folder"
        raise UnsafeOutput(out, f"is {what}; the site needs a folder: give a new or empty one")
    blocker = next((p for p in target.parents if os.path.lexists(p)), None)
    if blocker is not None and not blocker.is_dir():
        raise UnsafeOutput(out, f"cannot be made: {blocker} is a file, not a folder")
    if not target.is_dir():
        return
    listed = read_marker(target)
    if listed is not None:
        # Its top level only, which costs no walk of the site: a full build finds what
        # else is there too (``Staging.commit``), and ``check`` (``changes``).
        foreign = _foreign_at_top(target, listed)
        if foreign:
            raise UnsafeOutput(out, _holds(foreign))
        return
    with os.scandir(target) as listing:
        held = any(listing)
    if held:
        raise UnsafeOutput(out, _unmarked(target))


def _unmarked(target: Path) -> str:
    """Why a folder without a readable marker is refused. A folder that looks like a
    site from a release before the marker is still refused: its files cannot be told
    from ones a person put there with the same names."""
    held = _first_files(target)
    if (target / LEGACY_SIGNATURE).is_file():
        return (
            f"has no readable {MARKER} (errdex writes one into every site it builds, and "
            f"replaces only such folders) and holds {_few(held)}; if errdex built it before "
            "it wrote one, delete the folder once and build again; otherwise give a new or "
            "empty folder"
        )
    return (
        f"exists and is not an errdex site (it has no readable {MARKER}, and holds "
        f"{_few(held)}); give a new or empty folder"
    )


def _first_files(folder: Path, enough: int = 50) -> list[str]:
    """Some of what ``folder`` holds, for a message: a walk that stops early, since the
    folder may be large."""
    found: list[str] = []
    for root, folders, names in os.walk(folder):
        folders.sort()
        rel = os.path.relpath(root, folder)
        prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        found += sorted(prefix + name for name in names)
        if len(found) >= enough:
            break
    found.sort(key=lambda name: (name == LEGACY_SIGNATURE, name))  # theirs first
    return found


class UnsafeCache(ValueError):
    """A cache folder a build could not keep its files in."""


def check_cache(cache: Path, out: Path | None, content: Path) -> None:
    """Refuse a cache folder a build would lose or could not write, and make it: a cache
    that cannot be made is said before any work, never as a traceback at the end."""
    target, here = _real(cache), Path.cwd().resolve()
    if not str(cache) or target == here or here.is_relative_to(target):
        raise UnsafeCache(
            f"--cache {str(cache)!r}: cannot be this folder or one above it (the cache's "
            "files would land among the project's); give a folder of its own"
        )
    if out is not None and target.is_relative_to(output_target(out)):
        raise UnsafeCache(
            f"--cache {cache}: is inside the output folder {out}, which every build "
            "replaces; keep the cache elsewhere (.errdex/cache by default)"
        )
    site = next((f for f in (target, *target.parents) if os.path.isfile(f / MARKER)), None)
    if site is not None:
        # scan and pin know no output folder: any site errdex built is one.
        raise UnsafeCache(
            f"--cache {cache}: is inside {site}, a site errdex built, which every build "
            "replaces; keep the cache elsewhere (.errdex/cache by default)"
        )
    if target.is_relative_to(_real(content)):
        raise UnsafeCache(
            f"--cache {cache}: is inside the content folder {content} (serve would take "
            "each write to it for an edit); keep the cache elsewhere"
        )
    if os.path.lexists(target) and not target.is_dir():
        raise UnsafeCache(f"--cache {cache}: is a file, not a folder")
    try:
        target.mkdir(parents=True, exist_ok=True)
        if not os.access(target, os.W_OK | os.X_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
    except OSError as exc:
        raise UnsafeCache(f"--cache {cache}: cannot be made or written: {exc.strerror}") from exc
    if out is not None:
        # The files a build writes into where they are (the rest are replaced whole), made
        # by another user: said now, not once the output has changed.
        from errdex.site.state import path_for  # which imports this module

        for path in (target / "highlight.sqlite", path_for(target, out)):
            if os.path.lexists(path) and not os.access(path, os.W_OK):
                raise UnsafeCache(
                    f"--cache {cache}: its file {path.name} cannot be written "
                    f"({os.strerror(errno.EACCES)}); delete it (a cache only spares work)"
                )


def _remove_leftovers(out: Path) -> None:
    """Folders a killed build left beside the output (its process is gone)."""
    for folder in out.parent.glob(f".{out.name}.*-*"):
        kind, _, pid = folder.name.rpartition("-")
        if not pid.isdigit() or not kind.endswith((".new", ".old")):
            continue
        if folder.is_symlink() or not folder.is_dir():
            continue  # never errdex's: it only leaves folders
        if not alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def _locked(path: Path, out: Path) -> Iterator[None]:
    """Hold the lock file at ``path`` (of the output ``out``); a process that holds it
    already goes on."""
    key = str(path.absolute())
    if key in _held:
        yield
        return
    try:
        handle = path.open("a")
    except OSError as exc:
        raise refusal(out, f"cannot write beside it: {exc.strerror}") from exc
    with handle:
        lock(handle.fileno())
        _held.add(key)
        try:
            yield
        finally:
            _held.discard(key)
            unlock(handle.fileno())


_held: set[str] = set()


def _lock_path(target: Path) -> Path:
    return target.parent / f".{target.name}.lock"


def output_lock(out: Path) -> contextlib.AbstractContextManager[None]:
    """The lock builds into ``out`` take turns with: one build reads the last build's
    state, writes the output and records what it wrote before the next begins."""
    target = output_target(out)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise refusal(out, f"cannot be made: {exc.strerror}") from exc
    return _locked(_lock_path(target), out)


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
        self.shown = out
        self.out = output_target(out)
        self.folder = self.out.parent / f".{self.out.name}.new-{os.getpid()}"
        self.retired = self.out.parent / f".{self.out.name}.old-{os.getpid()}"
        self.previous = previous
        self._folders: set[str] = set()
        self._old = False
        """Whether there is an old output to take unchanged files from."""
        self._last: tuple[str, int, str] | None = None
        """The digest, size and staged path of the file this process wrote last: the next
        file, when it has the same bytes (an error's JSON at its second address, right
        after the first), is a hard link to it."""

    def open(self) -> None:
        try:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            _remove_leftovers(self.out)
            # Process ids are reused: folders named for ours are a killed build's.
            for leftover in (self.folder, self.retired):
                shutil.rmtree(leftover, ignore_errors=True)
            self.folder.mkdir()
            self._old = os.path.isdir(self.out)
        except OSError as exc:
            raise refusal(self.shown, f"cannot write beside it: {exc.strerror}") from exc

    def put(self, rel: str, data: bytes) -> tuple[str, bool]:
        """Stage one file; returns its digest and whether it is new (written, or linked
        to its twin just written) rather than linked from the old output."""
        check_relative(rel)
        made = digest(data)
        target = os.path.join(self.folder, rel)
        parent = os.path.dirname(target)
        if parent not in self._folders:
            try:  # most folders are new, under one made before (errors/<id>/)
                os.mkdir(parent)
            except OSError:
                os.makedirs(parent, exist_ok=True)
            self._folders.add(parent)
        if self._old:
            old = os.path.join(self.out, rel)
            if self._unchanged(rel, old, data, made):
                try:
                    os.link(old, target)
                    return made, False
                except OSError:
                    pass
        last = self._last
        if last is not None and last[:2] == (made, len(data)):
            try:
                os.link(last[2], target)
                return made, True
            except OSError:
                pass
        _write_new(target, data)
        self._last = (made, len(data), target)
        return made, True

    def _unchanged(self, rel: str, old: str, data: bytes, made: str) -> bool:
        if self.previous is None or rel not in self.previous:
            return _same(Path(old), data)
        try:
            seen = os.lstat(old)  # a link in its place is no file of ours, whatever it holds
        except OSError:
            return False
        return (
            stat.S_ISREG(seen.st_mode) and self.previous[rel] == made and seen.st_size == len(data)
        )

    def commit(self, kept: set[str], swapping: Callable[[], None] | None = None) -> int:
        """Swap the staged folder in; returns how many of errdex's old files are gone.
        Refused, changing nothing, when the output holds anything errdex did not write.
        ``swapping`` is called once the swap is sure to be tried, right before it."""
        retired = self.retired
        try:
            # Two builds into one output take turns at the swap, so neither finds the
            # folder gone from under it.
            with _locked(_lock_path(self.out), self.shown):
                ours = self._claim(kept)
                self._put_marker(kept)
                if swapping is not None:
                    swapping()
                if os.path.lexists(self.out):
                    os.replace(self.out, retired)
                os.replace(self.folder, self.out)
        except BaseException:
            if retired.exists() and not os.path.lexists(self.out):
                os.replace(retired, self.out)
            raise
        shutil.rmtree(retired, ignore_errors=True)
        return len(ours - kept)

    def _claim(self, kept: set[str]) -> set[str]:
        """The files in the output that are errdex's to remove; refuses the build when
        anything else is there."""
        if not os.path.lexists(self.out):
            return set()
        if self.out.is_symlink() or not self.out.is_dir():
            raise refusal(self.shown, "is not a folder; the site needs a folder of its own")
        listed = read_marker(self.out)
        entries = _entries(self.out)
        if listed is None:
            if entries:  # made since the check: only a marked folder is errdex's
                raise refusal(self.shown, _unmarked(self.out))
            return set()
        foreign = _foreign(entries, listed)
        if foreign:
            raise refusal(self.shown, _holds(foreign))
        return {e for e in entries if e in listed}

    def _put_marker(self, kept: set[str]) -> None:
        data = marker_bytes(kept)
        old, target = self.out / MARKER, self.folder / MARKER
        if _same(old, data):
            try:
                os.link(old, target)
                return
            except OSError:
                pass
        target.write_bytes(data)

    def abort(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def update_in_place(files: Mapping[str, bytes], out: Path) -> int:
    """Write the files of ``files`` whose bytes differ from those in ``out`` (an existing
    output). Returns how many were written.

    Every new file is written beside its old one first; only when all are written do they
    take the old ones' places (renames, which cannot run out of space). A failed write
    leaves the output as it was.
    """
    for rel in files:
        check_relative(rel)
    shown, out = out, output_target(out)
    staged: list[tuple[Path, Path]] = []
    with _locked(_lock_path(out), shown):
        for rel in sorted(files):
            wrong = _not_our_place(out, rel)
            if wrong:
                raise refusal(shown, wrong)
        try:
            for rel in sorted(files):
                target = out / rel
                if _same(target, files[rel]):
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                partial = target.with_name(f".{target.name}.{os.getpid()}")
                staged.append((partial, target))
                partial.write_bytes(files[rel])
            written = len(staged)
            # The marker must keep naming every file of ours, or the next full build
            # would take a new one for somebody else's.
            listed = read_marker(out)
            if listed is not None and not listed.issuperset(files):
                marker = out / MARKER
                partial = marker.with_name(f".{MARKER}.{os.getpid()}")
                staged.append((partial, marker))
                partial.write_bytes(marker_bytes(listed | set(files)))
        except BaseException:
            for partial, _ in staged:
                partial.unlink(missing_ok=True)
            raise
        for partial, target in staged:
            os.replace(partial, target)
        if written:
            _mark_changed(out / MARKER)
    return written


def _not_our_place(out: Path, rel: str) -> str | None:
    """Why the file ``rel`` cannot be written in place in ``out`` (a real folder): one of
    its folders there is a link (writing through it would write outside the site), or a
    file; or it is a folder itself. A full build would replace them, and refuses them
    first (E500); an update does not walk the site, so it finds them here."""
    folder, _, name = rel.rpartition("/")
    expected = os.path.join(out, folder) if folder else str(out)
    deepest = expected  # the deepest of its folders that is there
    while not os.path.lexists(deepest) and deepest != str(out):
        deepest = os.path.dirname(deepest)
    if os.path.realpath(expected) != expected or not os.path.isdir(deepest):
        shown = (deepest.removeprefix(str(out)).strip("/") or folder) + "/"
        return f"holds {shown} as a link or a file, where errdex keeps a folder" + _MOVE
    target = os.path.join(expected, name)
    if os.path.isdir(target) and not os.path.islink(target):
        return f"holds {rel} as a folder, where errdex keeps a file" + _MOVE
    return None


_MOVE = "; move it out, or build into another folder"


def _mark_changed(marker: Path) -> None:
    """Put a copy of the marker in its place, with its bytes and times: the state of
    another cache that built into this folder notes the marker's inode, and no longer
    takes the folder for the one it describes (``state.stamp``); what copies by time and
    size (rsync) copies no more."""
    partial = marker.with_name(f".{MARKER}.{os.getpid()}")
    try:
        seen = marker.stat()
        partial.write_bytes(marker.read_bytes())
        os.utime(partial, ns=(seen.st_atime_ns, seen.st_mtime_ns))
        os.replace(partial, marker)
    except OSError:  # no marker (not errdex's folder), a full disk: the state's check
        with contextlib.suppress(OSError):  # finds the folder out, or the copy was made
            partial.unlink(missing_ok=True)
