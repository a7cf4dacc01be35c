"""Work spread over forked processes.

A worker is forked from the build, so it starts with everything the build has loaded (the
linked site, the compiled templates, the highlight cache) instead of a copy sent to it; only
the arguments of each task and its results travel between processes.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

PARALLEL_FROM = 400
"""Fewer records are read and rendered faster by one process than by starting more."""
RECORDS_PER_TASK = 100
"""Records per task: enough to outweigh sending a task, few enough to share work evenly."""


def jobs_for(count: int, requested: int = 0) -> int:
    """How many processes should work on ``count`` records; ``requested`` 0 is one per core.
    One where the system cannot fork (Windows): a worker must start with what the build
    has loaded."""
    if count < PARALLEL_FROM or not hasattr(os, "fork"):
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(requested or cores or 1, 32))


def chunks(count: int, size: int = 0) -> list[tuple[int, int]]:
    """``range(count)`` cut into (start, stop) pieces of ``size`` (0: RECORDS_PER_TASK)."""
    size = size or RECORDS_PER_TASK
    return [(start, min(start + size, count)) for start in range(0, count, size)]


class Tasks(Generic[T, R]):
    """One function run over many arguments, on ``jobs`` forked processes, or in this
    one when ``jobs`` is below 2. The function may be a closure: workers inherit it."""

    def __init__(self, func: Callable[[T], R], jobs: int) -> None:
        self.func = func
        self.pool: Any = None
        if jobs > 1:
            import multiprocessing

            # Handed over by fork, not pickled: see _adopt.
            self.pool = multiprocessing.get_context("fork").Pool(
                jobs, initializer=_adopt, initargs=(func,)
            )

    def map(self, args: Iterable[T]) -> Iterator[R]:
        """The results in the order of ``args``. Workers start on every task at once; in
        this process each runs only when its result is asked for, so the caller can do
        other work between the call and reading the results either way."""
        if self.pool is None:
            return map(self.func, args)
        return iter(self.pool.imap(_run, args))

    def __enter__(self) -> Tasks[T, R]:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()


_task: Callable[[Any], Any] | None = None
"""In a worker only: the function it runs. A pool's initializer and its arguments reach a
forked worker in memory, never pickled, so the function keeps whatever it closes over."""


def _adopt(func: Callable[[Any], Any]) -> None:
    global _task
    _task = func


def _run(arg: Any) -> Any:
    assert _task is not None
    return _task(arg)


class Aside(Generic[R]):
    """One function run in a forked process while this one goes on; ``result`` reads what
    it returned back through a pipe. Without ``fork`` (where the system has none, cannot
    make another process now, or this process runs other threads, whose locks a fork
    would copy held) it runs in this process when its result is asked for, and so it does
    should the forked one fail in any way: what fails is then raised here, as it would
    have been.

    Fork it before this process holds much that it will change: each page either process
    writes to after the fork is copied, and Python writes to every object it reads (its
    count of references). ``close`` stops a forked process whose result is not wanted."""

    def __init__(self, func: Callable[[], R], fork: bool = True) -> None:
        self.func = func
        self.pid = 0
        self.pipe = -1
        if fork and hasattr(os, "fork") and threading.active_count() == 1:
            self._fork()

    def _fork(self) -> None:
        try:
            read, write = os.pipe()
        except OSError:  # no descriptors left: the function runs here
            return
        # Interrupts wait until each process is where it handles them: a KeyboardInterrupt
        # raised in the child before its try would run this process's code in it.
        held = _block(signal.SIG_BLOCK)
        try:
            pid = os.fork()
        except OSError:  # no process to be had
            os.close(read)
            os.close(write)
            _block(signal.SIG_SETMASK, held)
            return
        if pid == 0:  # the forked process: whatever happens, it ends here
            code = 1
            try:
                _block(signal.SIG_SETMASK, held)
                os.close(read)
                with os.fdopen(write, "wb") as pipe:
                    pickle.dump(self.func(), pipe, protocol=pickle.HIGHEST_PROTOCOL)
                code = 0
            finally:
                os._exit(code)
        os.close(write)
        self.pid, self.pipe = pid, read
        _block(signal.SIG_SETMASK, held)

    def result(self) -> R:
        if not self.pid:
            return self.func()
        try:
            with os.fdopen(self.pipe, "rb") as pipe:
                self.pipe = -1
                data = pipe.read()
            status = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        except OSError:  # the child reaped elsewhere (SIGCHLD ignored), say
            status = 1
        self.pid = 0
        if status != 0:
            return self.func()
        value: R = pickle.loads(data)
        return value

    def close(self) -> None:
        """Stop the forked process, if it runs, and forget it."""
        if self.pipe >= 0:
            os.close(self.pipe)
            self.pipe = -1
        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = 0


_INTERRUPTS = {signal.SIGINT, signal.SIGTERM}


def _block(how: int, mask: Iterable[int] = _INTERRUPTS) -> set[int]:
    """``signal.pthread_sigmask`` where there is one; the mask before."""
    if not hasattr(signal, "pthread_sigmask"):
        return set()
    return {int(s) for s in signal.pthread_sigmask(how, mask)}
