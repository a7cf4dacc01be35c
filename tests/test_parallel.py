"""A function run aside in a forked process gives its result, or is run in the build, in
every way a fork can fail."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator

import pytest

from errdex.util import parallel


def _fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def _answer() -> tuple[int, int]:
    return os.getpid(), 42


_threads = threading.active_count


@pytest.fixture(autouse=True)
def no_leaks(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No test leaves a descriptor open or a signal blocked. Each is alone in its process
    (threads that earlier tests of this worker left behind would keep it from forking)."""
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    before, mask = _fds(), signal.pthread_sigmask(signal.SIG_BLOCK, [])
    yield
    assert _fds() <= before
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == mask


def test_a_forked_function_answers_from_another_process() -> None:
    aside = parallel.Aside(_answer)
    assert aside.pid > 0
    pid, answer = aside.result()
    assert answer == 42 and pid not in (0, os.getpid())


@pytest.mark.parametrize("call", ["pipe", "fork"])
def test_a_process_that_cannot_be_made_runs_the_function_here(
    call: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(*args: object) -> None:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, call, refused)
    aside = parallel.Aside(_answer)
    assert aside.pid == 0
    assert aside.result() == (os.getpid(), 42)


def test_no_fork_while_another_thread_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fork copies the locks other threads hold, never to be let go in the child."""
    monkeypatch.setattr(threading, "active_count", _threads)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        aside = parallel.Aside(_answer)
        assert aside.pid == 0
        assert aside.result() == (os.getpid(), 42)
    finally:
        stop.set()
        other.join()


def test_a_child_reaped_elsewhere_has_its_function_run_here() -> None:
    """Where SIGCHLD is ignored the system reaps the child itself: waitpid has none."""
    before = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        aside = parallel.Aside(_answer)
        assert aside.pid > 0
        assert aside.result() == (os.getpid(), 42)
        parallel.Aside(_answer).close()  # nor does stopping one fail
    finally:
        signal.signal(signal.SIGCHLD, before)


def test_interrupts_wait_while_the_process_forks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C between the fork and the child's try would run the build's code in the
    child: interrupts are held until each process is where it handles them."""
    real, held = os.fork, []

    def fork() -> int:
        held.append(signal.pthread_sigmask(signal.SIG_BLOCK, []))
        return real()

    monkeypatch.setattr(os, "fork", fork)
    aside = parallel.Aside(lambda: signal.pthread_sigmask(signal.SIG_BLOCK, []))
    assert held and {signal.SIGINT, signal.SIGTERM} <= held[0]
    assert aside.result() == set()  # the child takes interrupts again, as this one does
