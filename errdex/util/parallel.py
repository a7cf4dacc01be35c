"""Work spread over forked processes.

A worker is forked from the build, so it starts with everything the build has loaded (the
linked site, the compiled templates, the highlight cache) instead of a copy sent to it; only
the arguments of each task and its results travel between processes.
"""

from __future__ import annotations

import os
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


def chunks(count: int, size: int = RECORDS_PER_TASK) -> list[tuple[int, int]]:
    """``range(count)`` cut into (start, stop) pieces of ``size``."""
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
