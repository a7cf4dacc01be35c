"""Stage 2, the plan: what a build must do again, and why, from the record files' names,
times, sizes and bytes against the last build's state; it reads no record.

When some record files changed (no more than ``UPDATE_UP_TO``), it is an update of
those records (``update.py``); when none did, nothing is to be done. Anything else (a
record added or removed, a template, the config or errdex itself changed, no state to
trust) needs a full build, whose reason is named here, by ``state.load`` or where an
update finds it (``Full``); ``errdex build -v`` prints it, and the state keeps it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from errdex.github import issues
from errdex.records.files import UNSURE, record_stats
from errdex.site import state
from errdex.site.write import digest
from errdex.util.words import count

TYPE_CHECKING = False
if TYPE_CHECKING:
    from errdex.site.build import Options


class Full(Exception):
    """Read, link, render and write everything: planned, or raised by an update that
    finds what it cannot follow. ``previous`` is the last build's state, when it is still
    true of the output (its file digests spare reading the files that did not change)."""

    def __init__(self, reason: str, previous: state.State | None = None) -> None:
        super().__init__(f"full build: {reason}")
        self.reason, self.previous = reason, previous


@dataclass(frozen=True, slots=True)
class Update:
    """Read the record files that changed, and render again what shows them
    (``update.read``, then ``update.outdated``); when none did, nothing is to be done."""

    changed: tuple[tuple[str, int, int], ...]
    """The record files whose bytes changed: (path, change time, size)."""
    restamped: dict[str, tuple[int, int, str, str]]
    """Record files whose change time moved but whose bytes did not, as the state should
    keep them now."""
    previous: state.State


UPDATE_UP_TO = 200
"""More changed records than this are rendered faster by a full build on every core."""


def decide(options: Options, key: dict[str, str], previous: state.State | str) -> Full | Update:
    """What this build must do, given the last one's state (or why there is none)."""
    if isinstance(previous, str):
        return Full(previous)
    changed_key = [name for name in key if previous.key.get(name) != key[name]]
    if changed_key:
        return Full(f"{' and '.join(changed_key)} changed", previous)
    if "" in previous.outputs.values():
        # An update noted the files it was about to write, and stopped before its last
        # note: what they hold is unknown, and a record taken back would find nothing to do.
        return Full("the last update stopped while it wrote its files", previous)
    if previous.cwd != os.getcwd():
        # Every path a message shows is shown from the working folder.
        return Full(f"run from another folder than the last build ({previous.cwd})", previous)
    items, found = record_stats(options.content)
    if found:
        return Full("the record files have problems", previous)
    now = {path for path, _, _ in items}
    added, removed = len(now - previous.files.keys()), len(previous.files.keys() - now)
    if added or removed:
        counts = [f"{count(added, 'record')} added"] if added else []
        counts += [f"{count(removed, 'record')} removed"] if removed else []
        return Full(", ".join(counts), previous)
    changed, restamped = [], {}
    for path, ctime, size in items:
        known = previous.files[path]
        if known[:2] == (ctime, size) and ctime != UNSURE:
            continue
        # The same bytes under a new time (a checkout or a restore), or under a time too
        # recent to go by (a write in the tick the last build looked in keeps its time).
        try:
            same = size == known[1] and digest(Path(path).read_bytes()) == known[3]
        except OSError:
            same = False
        if not same:
            changed.append((path, ctime, size))
        elif known[:2] != (ctime, size):
            restamped[path] = (ctime, size, known[2], known[3])
    if len(changed) > UPDATE_UP_TO:
        return Full(f"{len(changed)} records changed, more than an update renders faster", previous)
    return Update(tuple(changed), restamped, previous)


def site_key(options: Options) -> dict[str, str]:
    """What shapes every page, by name (a build whose names differ from the last one's is
    a full build, and says which changed): errdex, the theme, the config, the options."""
    files = []
    for folder in options.theme.folders():
        # A folder turned into a link to the same files is another key: the build refuses
        # a linked static/, and must not find the site up to date instead.
        files.append(b"a link" if folder.is_symlink() else b"a folder")
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                files += [str(path.relative_to(folder)).encode(), path.read_bytes()]
    try:
        config = (options.content / "site.yaml").read_bytes()
    except OSError:
        config = b""
    return {
        "errdex or a library it renders with": state.code_key(),
        "the theme": state.key_of(files),
        "the site config": state.key_of([config]),
        "the build options": state.key_of([repr((options.base_url, options.strict)).encode()]),
        "the GitHub issues": state.key_of(issues.key(options.content)),
    }
