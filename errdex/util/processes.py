"""Other processes, on POSIX and on Windows alike: taking turns with them at a lock file,
and telling whether one that left files behind still runs.

POSIX locks a file with ``fcntl``, which Windows does not have (there ``msvcrt`` locks a
byte of it); ``os.kill(pid, 0)`` asks after a process on POSIX, and ends it on Windows."""

from __future__ import annotations

import errno
import os
import sys

try:
    import fcntl
except ImportError:  # Windows
    import msvcrt

    def lock(fd: int) -> None:
        """Wait until no other process holds the lock of the open file ``fd``, and take
        it. It is let go by ``unlock``, or when the process ends."""
        os.lseek(fd, 0, os.SEEK_SET)
        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_LOCK, 1)  # type: ignore[attr-defined]
                return
            except OSError as exc:
                # Held elsewhere: LK_LOCK tries ten times a second apart, then gives up.
                if exc.errno not in (errno.EDEADLOCK, errno.EACCES):
                    raise

    def unlock(fd: int) -> None:
        """Let the lock of ``fd`` go."""
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]

else:

    def lock(fd: int) -> None:
        """Wait until no other process holds the lock of the open file ``fd``, and take
        it. It is let go by ``unlock``, or when the process ends."""
        fcntl.flock(fd, fcntl.LOCK_EX)

    def unlock(fd: int) -> None:
        """Let the lock of ``fd`` go."""
        fcntl.flock(fd, fcntl.LOCK_UN)


def alive(pid: int) -> bool:
    """Whether the process ``pid`` runs (another user's counts)."""
    if sys.platform == "win32":
        return _alive_on_windows(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's
    return True


if sys.platform == "win32":
    import ctypes

    _QUERY_LIMITED_INFORMATION = 0x1000
    _ACCESS_DENIED = 5
    _STILL_ACTIVE = 259

    def _alive_on_windows(pid: int) -> bool:
        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        handle = kernel32.OpenProcess(_QUERY_LIMITED_INFORMATION, False, pid)
        if not handle:
            # No such process, or one this user may not look at (which runs).
            return ctypes.get_last_error() == _ACCESS_DENIED
        try:
            code = ctypes.c_ulong()
            if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
                return True
            return code.value == _STILL_ACTIVE
        finally:
            kernel32.CloseHandle(handle)
