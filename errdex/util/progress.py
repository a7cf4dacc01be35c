"""One progress line on a terminal for the commands that can run long: build, scan, pin
and ``issues import`` (``errdex: rendered 120/320 pages``)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

Progress = Callable[..., None]
"""``progress(count)`` adds ``count`` done; ``progress(0, done=True)`` wipes the line."""

EVERY = 0.1
"""Seconds between two redraws: a terminal is not a log."""
AFTER = 2.0
"""Seconds a scan, a pin or an import runs before its line shows: a shorter run is over
before a line would help."""


def silent(count: int, done: bool = False) -> None:
    """The progress of a run that shows none."""


def line(total: int, doing: str, unit: str, after: float = 0.0, shown: bool = True) -> Progress:
    """``errdex: {doing} {done}/{total} {unit}`` on standard error, redrawn at most every
    ``EVERY`` seconds once ``after`` seconds have passed, and wiped at the end, where the
    command's own line follows. Nothing unless ``shown`` and standard error is a
    terminal outside CI: a log or a pipe never gets it."""
    if not shown or not sys.stderr.isatty() or os.environ.get("CI"):
        return silent
    started = time.monotonic()
    count_done = 0
    drawn = 0.0
    width = 0

    def update(count: int, done: bool = False) -> None:
        nonlocal count_done, drawn, width
        count_done += count
        now = time.monotonic()
        if done and not width:
            return  # over before its line showed
        if not done and (now - started < after or now - drawn < EVERY):
            return
        drawn = now
        text = f"errdex: {doing} {count_done}/{total} {unit}"
        width = max(width, len(text))
        wipe = "\r" + " " * width + "\r" if done else ""
        sys.stderr.write(f"\r{text}{wipe}")
        sys.stderr.flush()

    return update


Start = Callable[[int], Progress]
"""Given how many there are to do, the line that counts them (``line`` with the rest
of its arguments given)."""
