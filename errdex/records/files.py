"""Finding record files and naming them as the user would: no YAML needed, so a build
that finds nothing changed can start without loading a parser. And writing a file whole
or not at all: every file a person may have written, and every cache, goes through
``write_atomic`` (or its two halves, ``stage`` and ``place_all``)."""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from errdex.records.problems import Problem

RECORD_SUFFIXES = (".yaml", ".yml")

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
"""Not handed to a program a process starts (POSIX; Windows does that by default)."""
_BINARY = getattr(os, "O_BINARY", 0)
"""Bytes as they are (Windows; ``os.open`` there writes a line break as CR LF otherwise)."""
NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC | _BINARY
"""``os.open``'s flags for a file that must be new."""
_FLUSHED = os.O_RDWR if os.name == "nt" else os.O_RDONLY
"""How a written file is opened again to be synced: Windows syncs only a file open for
writing."""


def shown_path(path: Path) -> str:
    """A path as the user would type it: relative to the working directory when inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def record_files(content: Path) -> tuple[list[Path], list[Problem]]:
    """Every record file under ``content/errors``, sorted, none of them outside ``content``."""
    found, problems = record_stats(content)
    return [Path(path) for path, _, _ in found], problems


UNSURE = -1
"""The change time ``record_stats`` gives a file changed too lately to tell a later write
by its time: the state keeps it, so the next build compares the file's bytes."""
RACY_NS = 2_000_000_000
"""How recent a change is too recent: a file system keeps times to the nanosecond, the
second (ext2, HFS+, many network mounts) or two (FAT), and a write within the same tick
as a build's look leaves the time that build saw."""


def record_stats(content: Path) -> tuple[list[tuple[str, int, int]], list[Problem]]:
    """Like ``record_files``, with each file's change time (ns) and size.

    The change time (``st_ctime``), not the modification time: a copy, a checkout or
    ``touch -d`` can set a file's modification time back, but any write moves its change
    time on. On Windows ``st_ctime`` is when the file was made, which a write leaves as
    it was: there the later of the two is the modification time (on POSIX, never later
    than the change time). A file changed in the last ``RACY_NS`` gets ``UNSURE``."""
    recent = time.time_ns() - RACY_NS
    errors_dir = content / "errors"
    root = content.resolve()
    found: list[tuple[str, int, int]] = []
    problems: list[Problem] = []
    if not errors_dir.is_dir():
        what = "no errors/ folder with records"
        if not content.exists():
            what += ", nor the content folder (`errdex init` starts a site; `--content` names one)"
        return [], [Problem(shown_path(errors_dir), 0, what, code="E100")]
    # The walk follows no link, so only a link (or a linked errors/ folder) can lead out.
    walked_inside = errors_dir.resolve().is_relative_to(root)
    for entry in sorted(_walk(errors_dir), key=lambda e: e.path):
        inside = walked_inside
        if entry.is_symlink():
            try:
                inside = Path(entry.path).resolve(strict=True).is_relative_to(root)
            except (OSError, RuntimeError):
                what = "a link that leads nowhere (or to itself)"
                problems.append(Problem(shown_path(Path(entry.path)), 0, what, code="E100"))
                continue
        if not inside:
            what = "links outside the content folder; not read"
            problems.append(Problem(shown_path(Path(entry.path)), 0, what, code="E100"))
        elif entry.is_dir():
            what = "is a folder, not a record file"
            problems.append(Problem(shown_path(Path(entry.path)), 0, what, code="E100"))
        elif entry.is_file():
            stat = entry.stat()
            changed = max(stat.st_ctime_ns, stat.st_mtime_ns)
            found.append((entry.path, UNSURE if changed >= recent else changed, stat.st_size))
    return found, problems


def _walk(folder: Path | str) -> Iterator[os.DirEntry[str]]:
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.name.endswith(RECORD_SUFFIXES):
                yield entry
            elif entry.is_dir(follow_symlinks=False):
                yield from _walk(entry.path)


@dataclass(frozen=True, slots=True)
class Staged:
    """New bytes for a file, written whole beside it under a hidden name (``stage``) and
    not yet in its place (``place_all``)."""

    path: str
    """The file as named by the caller."""
    target: str
    """The file whose bytes are replaced: where ``path`` leads, when it is a link."""
    temp: str
    synced: bool
    """Its bytes were on the disk when it was staged."""

    def discard(self) -> None:
        with suppress(OSError):
            os.unlink(self.temp)


def write_atomic(
    path: Path | str, data: bytes, *, durable: bool = True, exclusive: bool = False
) -> None:
    """Write ``data`` as the file ``path``: a reader, a kill or a full disk sees the old
    file or the new one, never part of either; on failure the file is as it was and no
    temporary is left. A file's mode is kept (a new one gets the usual mode, the umask's).

    ``durable`` (the default, for a file a person may have written): the new bytes are
    on the disk before they take the old ones' place, so a power cut cannot leave an
    empty file either. A cache passes False: a sync costs milliseconds a file.
    ``exclusive``: never over a file that is there (FileExistsError)."""
    error = place_all([stage(path, data, sync=durable)], durable=durable, exclusive=exclusive)[0]
    if error is not None:
        raise error


def stage(path: Path | str, data: bytes, *, sync: bool = False) -> Staged:
    """The first half of ``write_atomic``: ``data`` written whole into a hidden file beside
    ``path`` (a name starting with "." and ending in ".tmp": no walk of records or issue
    files reads it), with the mode of the file it will replace. A file this process may
    not write (a record made read-only) is refused, as writing it in place would be. On
    failure nothing is left and the error names ``path``."""
    shown = os.fspath(path)
    target = os.path.realpath(shown) if os.path.islink(shown) else shown
    try:
        try:
            old: os.stat_result | None = os.stat(target)
        except FileNotFoundError:
            old = None
        if old is not None and not os.access(target, os.W_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        folder, name = os.path.split(target)
        # The pid and a random part: a temporary left by a killed run is never in the way.
        temp = os.path.join(folder, f".{name[:120]}.{os.getpid()}-{os.urandom(4).hex()}.tmp")
        fd = os.open(temp, NEW_FILE, 0o666)
    except OSError as exc:
        raise _naming(exc, shown) from None
    try:
        try:
            if old is not None:
                _keep_owner_and_mode(fd, temp, old)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException as exc:
        with suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise _naming(exc, shown) from None
        raise
    return Staged(shown, target, temp, sync)


SYNCED_ONE_BY_ONE = 32
"""Up to this many files are synced one by one (about 4 ms each); more are synced
together, with one ``os.sync`` (0.1 to 0.4 s measured, as it waits for whatever the whole
system has to write)."""


def place_all(
    staged: Sequence[Staged], *, durable: bool = True, exclusive: bool = False
) -> list[OSError | None]:
    """The second half of ``write_atomic``: each staged file put in its place, or the
    error that left its file as it was (its temporary removed). With ``durable``, the
    bytes of every one are on the disk before any takes its place (pin rewrites
    thousands of records: see ``SYNCED_ONE_BY_ONE``), and each folder is synced once
    after."""
    unsynced = sum(not one.synced for one in staged) if durable else 0
    together = unsynced > SYNCED_ONE_BY_ONE and hasattr(os, "sync")  # not on Windows
    if together:
        os.sync()
    one_by_one = unsynced > 0 and not together
    errors: list[OSError | None] = []
    try:
        for one in staged:
            errors.append(_place(one, exclusive, sync=one_by_one and not one.synced))
    except BaseException:
        for one in staged[len(errors) :]:
            one.discard()
        raise
    if durable:
        placed = zip(staged, errors, strict=True)
        for folder in sorted({os.path.dirname(s.target) for s, e in placed if e is None}):
            _sync_folder(folder)
    return errors


def _place(one: Staged, exclusive: bool, sync: bool) -> OSError | None:
    try:
        if sync:
            fd = os.open(one.temp, _FLUSHED | _CLOEXEC | _BINARY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        if not exclusive:
            os.replace(one.temp, one.target)
            return None
        try:
            # A link, unlike a rename, fails when a file (or a link) has the name.
            os.link(one.temp, one.target)
        except FileExistsError:
            raise
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.ENOSYS):
                raise
            # A file system without hard links (FAT, some network shares).
            if os.path.lexists(one.target):
                raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST)) from None
            os.replace(one.temp, one.target)
            return None
        one.discard()
        return None
    except OSError as exc:
        one.discard()
        return _naming(exc, one.path)


def _keep_owner_and_mode(fd: int, path: str, old: os.stat_result) -> None:
    new = os.fstat(fd)
    if (new.st_uid, new.st_gid) != (old.st_uid, old.st_gid) and hasattr(os, "fchown"):
        # Only root may give a file away; anyone may keep a group they are in.
        with suppress(OSError):
            os.fchown(fd, old.st_uid, old.st_gid)
        with suppress(OSError):
            os.fchown(fd, -1, old.st_gid)
    # After the owner: a change of owner clears the set-id bits.
    if hasattr(os, "fchmod"):
        os.fchmod(fd, stat.S_IMODE(old.st_mode))
    else:  # Windows before Python 3.13: by name (only the read-only bit is kept)
        os.chmod(path, stat.S_IMODE(old.st_mode))


def _sync_folder(folder: str) -> None:
    """Make a rename in ``folder`` survive a power cut. The file is in place either way;
    a file system that cannot sync a folder is no reason to say otherwise (nor Windows,
    which cannot open one)."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    with suppress(OSError):
        fd = os.open(folder or ".", os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _naming(exc: OSError, path: str) -> OSError:
    """``exc`` about ``path``, never about a temporary the caller has not heard of."""
    exc.filename, exc.filename2 = path, None
    return exc
