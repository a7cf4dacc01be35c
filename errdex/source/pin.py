"""Reconcile records with a codebase: ``scan`` creates and refreshes, ``pin`` re-pins.

Only source facts are ever written, and only by replacing whole top-level blocks of a
record file (see errdex/source/update.py): prose a person wrote is never changed or dropped.
"""

from __future__ import annotations

import datetime
import functools
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from itertools import groupby
from pathlib import Path
from typing import Any

from errdex.records import validate
from errdex.records.files import Staged, shown_path
from errdex.records.link import Spellings
from errdex.records.model import derive_id, source_lines
from errdex.search import same_class
from errdex.source import update
from errdex.source.scan import (
    RaiseSite,
    Scanned,
    SourceError,
    Tree,
    class_like,
    glob_for_test,
    is_ancestor,
    looks_like_test,
    own_name,
    scan_cached,
    scan_tree,
    source_data,
    unread_place,
)
from errdex.util import parallel
from errdex.util.progress import Start


@dataclass
class Report:
    """What a scan or a pin did (or, with --dry-run, would do), record by record."""

    counts: Counter[str] = field(default_factory=Counter)
    lines: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    """The record files written (with --dry-run, that would be)."""
    in_tests: int = 0
    """How many of the raises a scan found are in what looks like a test file
    (``scan.looks_like_test``)."""
    test_globs: list[str] = field(default_factory=list)
    """The ``--exclude`` globs that would leave those files out (``scan.glob_for_test``)."""
    unread: list[str] = field(default_factory=list)
    """Where a raise outside the tests has no message a record could say
    (``Scanned.unread``), in path and line order."""

    def add(self, kind: str, line: str | None = None) -> None:
        self.counts[kind] += 1
        if line:
            self.lines.append(f"{kind}: {line}")


def site_ids(repo: str, sites: list[RaiseSite]) -> list[tuple[str, bool]]:
    """Each site's id, and whether it must be written into the file.

    One message raised at several places would derive one id; every place after the
    first (in path and line order) gets an id of its own, derived from its path and
    function too (and, for a second raise of it in one function, its count there), and
    stated in its file so that it never changes. A copy added elsewhere in a later
    release leaves the ids of the others as they are.
    """
    out = []
    seen: Counter[str] = Counter()
    here: Counter[tuple[str, str, str]] = Counter()
    for site in sites:
        derived = derive_id(repo, site.exception, site.template)
        seen[derived] += 1
        if seen[derived] == 1:
            out.append((derived, False))
            continue
        function = site.function or ""
        here[derived, site.path, function] += 1
        count = here[derived, site.path, function]
        place = f"{site.template}\x00{site.path}\x00{function}"
        if count > 1:
            place += f"\x00{count}"
        out.append((derive_id(repo, site.exception, place), True))
    return out


def _facts(source: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in source.items() if k != "removed_in"}


@dataclass
class _Writes:
    """Record files to rewrite, written together (on every core when there are many) once
    every record is matched; each outcome lands in the report where ``_write`` would have
    put it, so the report reads the same."""

    report: Report
    dry_run: bool
    walk: Walk | None = None
    todo: list[tuple[int, int, update.Existing, str, str | None, dict[str, Any]]] = field(
        default_factory=list
    )

    def add(
        self, record: update.Existing, kind: str, line: str | None, blocks: dict[str, Any]
    ) -> None:
        if not blocks:
            self.report.add(kind, line)
            return
        if self.walk is not None:
            self.walk.change(record, blocks)
            self.report.add(kind, line)
            return
        at = (len(self.report.skipped), len(self.report.lines))
        self.todo.append((*at, record, kind, line, blocks))

    def run(self) -> None:
        todo = self.todo

        def stage(bounds: tuple[int, int]) -> list[Staged | str | None]:
            return [
                update.stage_blocks(todo[i][2].path, todo[i][5], self.dry_run)
                for i in range(*bounds)
            ]

        # Every file's new bytes are written beside it first, then synced to the disk
        # together and put in place here: a kill leaves each record old or new.
        staged: list[Staged | str | None] = []
        try:
            with parallel.Tasks(stage, parallel.jobs_for(len(todo))) as tasks:
                for part in tasks.map(parallel.chunks(len(todo))):
                    staged += part
        except BaseException:
            for one in staged:
                if isinstance(one, Staged):
                    one.discard()
            raise
        refused = update.place_blocks(staged)
        # From the last to the first: an outcome put in never moves the places of those
        # before it, and two at one place end up in the order they were asked for.
        for (skipped_at, lines_at, record, kind, line, _blocks), why in reversed(
            list(zip(todo, refused, strict=True))
        ):
            if why:
                self.report.skipped.insert(skipped_at, why)
            else:
                self.report.files.append(record.path)
                self.report.counts[kind] += 1
                if line:
                    self.report.lines.insert(lines_at, f"{kind}: {line}")
        self.todo = []


@dataclass
class Walk:
    """Pinning through several releases in one command: the records are read once and
    carried from one release to the next in memory, and each file is written once at
    the end with every block that changed (``finish``)."""

    records: list[update.Existing] | None = None
    pending: dict[Path, dict[str, Any]] = field(default_factory=dict)
    written: list[Path] = field(default_factory=list)
    new: dict[Path, str] = field(default_factory=dict)
    _at: dict[Path, int] = field(default_factory=dict)
    cache: dict[str, Scanned | str] = field(default_factory=dict)
    """Parsed files, by git blob and path (``scan_cached``)."""

    def change(self, record: update.Existing, blocks: dict[str, Any]) -> None:
        self.pending.setdefault(record.path, {}).update(blocks)
        assert self.records is not None
        data = {**record.data, **blocks}
        now = replace(
            record,
            data=data,
            id=str(blocks.get("id", record.id)),
            id_stated=record.id_stated or "id" in blocks,
        )
        self.records[self._at[record.path]] = now

    def start(self, records: list[update.Existing]) -> None:
        self.records = records
        self._at = {r.path: n for n, r in enumerate(records)}

    def created(self, record: update.Existing, text: str) -> None:
        """A new record: written (before the blocks later releases change) by ``finish``."""
        assert self.records is not None
        self._at[record.path] = len(self.records)
        self.records.append(record)
        self.new[record.path] = text

    def finish(self, report: Report, dry_run: bool) -> None:
        """Write every new record file, then every one that changed, once each."""
        self.written = sorted(set(self.pending) | set(self.new))
        for path, text in self.new.items():
            refused = update.create(path, text, dry_run)
            if refused:
                report.skipped.append(refused)
                self.pending.pop(path, None)
                continue
            report.files.append(path)
            if dry_run:
                self.pending.pop(path, None)  # not there to rewrite: it would be
        self.new = {}
        writes = _Writes(report, dry_run)
        for path, blocks in sorted(self.pending.items()):
            record = self.records[self._at[path]] if self.records else None
            assert record is not None
            writes.todo.append((len(report.skipped), len(report.lines), record, "", None, blocks))
        writes.run()
        report.counts.pop("", None)
        self.pending = {}


def scan_into(
    content: Path,
    repo: str,
    tree: Tree,
    commit: str,
    dry_run: bool = False,
    release: str | None = None,
    cache: dict[str, Scanned | str] | None = None,
    progress: Start | None = None,
) -> Report:
    """Write a record for each new raise of ``tree``; refresh the source of the others.
    With ``release``, each record the tree raises gets it in its ``releases``.
    ``progress`` counts the files parsed."""
    report = Report()
    writes = _Writes(report, dry_run)
    scanned = _read(tree, tree.paths(), cache, progress)
    sites, report.skipped = scan_tree(tree, scanned)
    report.unread = [
        where
        for path, found in scanned.items()
        if not isinstance(found, str) and not looks_like_test(path)
        for where in found.unread
    ]
    tests = [site.path for site in sites if looks_like_test(site.path)]
    report.in_tests = len(tests)
    globs = {glob_for_test(path) for path in tests}
    # A ``tests/`` folder in each package (scikit-learn has 54): one glob says them all,
    # and leaves out nothing else (a file in such a folder is a test).
    nested = {glob for glob in globs if glob.endswith("/tests/*") and glob != "tests/*"}
    report.test_globs = sorted((globs - nested) | {"*/tests/*"} if len(nested) > 1 else globs)
    records, skipped = update.existing_records(content, repo, first=True)
    report.skipped += skipped
    earlier = _earlier_releases(content, repo, release) if release else []
    by_id = {r.id: r for r in records}
    by_place = {
        (own_name(r.data["exception"]), r.data["message"], r.data["source"]["path"]): r
        for r in records
    }
    matched: set[Path] = set()
    # Names written once must keep their spelling: two that differ only in case would
    # share a folder on macOS and Windows, and the build refuses such a pair (E402).
    exceptions, paths = Spellings(), Spellings()
    for r in records:
        exceptions.add((r.data["exception"],))
        paths.add(r.data["source"]["path"].split("/"))
    for site, (record_id, stated) in zip(sites, site_ids(repo, sites), strict=True):
        record = by_id.get(record_id) or by_place.get(
            (own_name(site.exception), site.template, site.path)
        )
        where = _where(site)
        if record is None:
            clash = _spelling_clash(site, exceptions, paths)
            if clash:
                report.skipped.append(f"{site.path}:{site.line}: {clash}; skipped")
                continue
            exceptions.add((site.exception,))
            paths.add(site.path.split("/"))
            path = update.file_name(content, repo, record_id)
            raised = _raised({"message": site.template}, release, commit, site) if release else {}
            text = update.new_record(
                repo, site, commit, record_id if stated else None, raised.get("releases")
            )
            refused = update.create(path, text, dry_run)
            if refused:
                report.skipped.append(refused)
            else:
                report.add("new", where)
                report.files.append(path)
            continue
        matched.add(record.path)
        source = source_data(site, commit)
        blocks = {"source": source} if source != record.data["source"] else {}
        if release:
            raised = _raised(record.data, release, commit, site, earlier)
            if raised["releases"] != record.data.get("releases"):
                blocks.update(raised)
        if not blocks:
            report.add("unchanged")
            continue
        writes.add(record, "refreshed", where, blocks)
    # A record written by hand for a raise whose message the code does not write is
    # found as pin finds it, and refreshed with its words kept.
    own_places: set[str] = set()
    trees: dict[str, Tree] = {}
    for record in records:
        found = scanned.get(record.data["source"]["path"])
        if record.path in matched or found is None or isinstance(found, str):
            continue
        mapped = functools.partial(_held_in_a_name, record, tree, cache, trees)
        own = _own_raise(record, found.unread_sites, anywhere=True, mapped=mapped)
        if own is None or not _written_by_hand(record, tree, cache, trees):
            continue
        own_places.add(unread_place(own.path, own.line))
        matched.add(record.path)
        site = replace(own, template=record.data["message"])
        blocks = {"source": source_data(site, commit)}
        if blocks["source"] == record.data["source"]:
            blocks = {}
        if release:
            raised = _raised(record.data, release, commit, site, earlier)
            if raised["releases"] != record.data.get("releases"):
                blocks.update(raised)
        if not blocks:
            report.add("unchanged")
            continue
        where = _where(site)
        writes.add(record, "refreshed", where, blocks)
    report.unread = [w for w in report.unread if w not in own_places]
    writes.run()
    for record in records:
        if record.path in matched:
            continue
        if tree.excluded(record.data["source"]["path"]):
            report.add("excluded", f"{shown_path(record.path)}")  # not looked for: kept
        else:
            report.add("no longer found", f"{shown_path(record.path)}")
    return report


def _spelling_clash(site: RaiseSite, exceptions: Spellings, paths: Spellings) -> str | None:
    other = exceptions.clash((site.exception,))
    if other is not None:
        return (
            f"exception {site.exception!r} differs only in case from {other!r} (macOS and "
            "Windows would write both pages into one folder)"
        )
    other = paths.clash(site.path.split("/"))
    if other is not None:
        return f"file {site.path!r} makes the same folder as {other!r} on macOS and Windows"
    return None


class _Free:
    """The sites of one group, by line, each taken at most once: finds the untaken site
    nearest a line without looking at the taken ones again (they are skipped by pointers
    that shorten as they are followed), so re-pinning stays linear however many records
    share a message."""

    def __init__(self, sites: list[RaiseSite], taken: set[tuple[str, int, str]]) -> None:
        self.sites = sorted(sites, key=lambda s: s.line)  # stable: one line keeps its order
        self.lines = [s.line for s in self.sites]
        self.taken = taken
        size = len(self.sites)
        self._up = list(range(size + 1))  # _up[i]: where to look for a free index >= i
        self._down = list(range(size + 1))  # _down[i + 1]: the same for a free index <= i

    def _is_taken(self, index: int) -> bool:
        site = self.sites[index]
        return (site.path, site.line, site.template) in self.taken

    def _first_free(self, index: int) -> int:
        """The first untaken index from ``index`` up (``len`` when none)."""
        end, hops, at = len(self.sites), [], index
        while at < end:
            if self._up[at] == at:
                if not self._is_taken(at):
                    break
                self._up[at] = at + 1
            hops.append(at)
            at = self._up[at]
        for hop in hops:
            self._up[hop] = at
        return at

    def _last_free(self, index: int) -> int:
        """The last untaken index from ``index`` down (-1 when none)."""
        hops, at = [], index
        while at >= 0:
            if self._down[at + 1] == at + 1:
                if not self._is_taken(at):
                    break
                self._down[at + 1] = at
            hops.append(at)
            at = self._down[at + 1] - 1
        for hop in hops:
            self._down[hop + 1] = at + 1
        return at

    def nearest(self, line: int) -> RaiseSite | None:
        """The untaken site nearest ``line``; of two as near, the one above (as ``min`` over
        the sites in line order would choose)."""
        split = bisect_left(self.lines, line)
        above, below = self._last_free(split - 1), self._first_free(split)
        if below < len(self.sites) and (
            above < 0 or self.lines[below] - line < line - self.lines[above]
        ):
            return self.sites[below]
        if above < 0:
            return None
        return self.sites[self._first_free(bisect_left(self.lines, self.lines[above]))]


def _grouped(
    sites: list[RaiseSite], key: Any, taken: set[tuple[str, int, str]]
) -> dict[Any, _Free]:
    groups: dict[Any, list[RaiseSite]] = {}
    for site in sites:
        groups.setdefault(key(site), []).append(site)
    return {k: _Free(v, taken) for k, v in groups.items()}


def pin(
    content: Path,
    repo: str,
    tree: Tree,
    commit: str,
    dry_run: bool = False,
    release: str | None = None,
    cache: dict[str, Scanned | str] | None = None,
    walk: Walk | None = None,
    progress: Start | None = None,
) -> Report:
    """Re-pin every record of ``repo`` to ``commit``: unchanged, moved, reworded, removed
    or back.

    With ``release`` (the commit is that release), each record that release raises gets
    it in its ``releases``, and each raise no record has gets a record, as scan would
    write it. ``cache`` (see ``scan_cached``) carries parsed files from one release to
    the next."""
    report = Report()
    if walk is not None and walk.records is not None:
        records = list(walk.records)
    else:
        records, report.skipped = update.existing_records(content, repo)
        if walk is not None:
            walk.start(list(records))
    writes = _Writes(report, dry_run, walk)
    earlier = _earlier_releases(content, repo, release) if release else []
    ids = {r.id for r in records} | {
        a for r in records for a in r.data.get("aliases", ()) if isinstance(a, str)
    }
    files: dict[str, list[RaiseSite]] = {}
    # A raise by its place and its message: one line may raise several (``a if x else
    # b``, a name an ``if`` and its ``else`` give two), each a record's.
    taken: set[tuple[str, int, str]] = set()
    by_message: dict[str, dict[tuple[str, str], _Free]] = {}
    by_function: dict[str, dict[tuple[str, str | None], _Free]] = {}
    by_line: dict[str, dict[tuple[str, int], _Free]] = {}
    by_own_function: dict[str, dict[tuple[str, str, str | None], _Free]] = {}
    anywhere: dict[tuple[str, str], list[_Free]] | None = None
    # Every file the records name, read in one go (one git process, not one per file).
    wanted = sorted({str(r.data["source"]["path"]) for r in records})
    # Parsed in one go too, on every core; a file that does not parse is reported when
    # a record first asks for it, as before.
    scanned = _read(tree, wanted, cache, progress)

    def sites_in(path: str) -> list[RaiseSite]:
        if path not in files:
            found = scanned.get(path)
            if found is None:
                found = scanned[path] = _read(tree, [path], cache)[path]
            if isinstance(found, str):
                report.skipped.append(f"{path}: does not parse at {commit[:10]}; skipped")
                files[path] = []
            else:
                files[path] = found.sites
        return files[path]

    def unread_in(path: str) -> list[RaiseSite]:
        sites_in(path)  # read, if it was not yet
        found = scanned.get(path)
        return [] if found is None or isinstance(found, str) else found.unread_sites

    def message_groups(path: str) -> dict[tuple[str, str], _Free]:
        if path not in by_message:
            by_message[path] = _grouped(
                sites_in(path), lambda s: (own_name(s.exception), s.template), taken
            )
        return by_message[path]

    def own_function_groups(path: str) -> dict[tuple[str, str, str | None], _Free]:
        if path not in by_own_function:
            by_own_function[path] = _grouped(
                sites_in(path), lambda s: (own_name(s.exception), s.template, s.function), taken
            )
        return by_own_function[path]

    pending = []
    placed: dict[Path, RaiseSite] = {}
    # First each record at a raise of its words in its own function: of a message raised
    # in several functions, one reworded, the old words still raised in the others are
    # those records' raises, not the reworded one's.
    unplaced: list[update.Existing] = []
    alike: dict[tuple[str, tuple[str, str, str | None]], list[update.Existing]] = {}
    for record in records:
        source = record.data["source"]
        said = (own_name(record.data["exception"]), record.data["message"], source.get("function"))
        alike.setdefault((source["path"], said), []).append(record)
    for (path, said), members in alike.items():
        mine = own_function_groups(path).get(said)
        if mine is not None and len(mine.sites) == len(members):
            # As many raises of these words in the function as records: in line order,
            # each its own, however far lines moved (nearest first would cross them).
            members.sort(key=lambda r: r.data["source"]["line"])
            for record, matched in zip(members, mine.sites, strict=True):
                taken.add((matched.path, matched.line, matched.template))
                placed[record.path] = matched
            continue
        for record in members:
            nearest = mine.nearest(record.data["source"]["line"]) if mine is not None else None
            if nearest is None:
                unplaced.append(record)
                continue
            taken.add((nearest.path, nearest.line, nearest.template))
            placed[record.path] = nearest
    for record in unplaced:
        source = record.data["source"]
        key = (own_name(record.data["exception"]), record.data["message"])
        site = None
        here = message_groups(source["path"]).get(key)
        if here is not None:
            site = here.nearest(source["line"])
        else:
            if anywhere is None:
                everything, skipped = scan_tree(tree, scanned)
                report.skipped += skipped
                anywhere = {}
                for _path, sites in groupby(everything, key=lambda s: s.path):
                    for k, free in _grouped(
                        list(sites), lambda s: (own_name(s.exception), s.template), taken
                    ).items():
                        anywhere.setdefault(k, []).append(free)
            # Elsewhere (a renamed file): the nearest line, the first file of equals.
            found = (free.nearest(source["line"]) for free in anywhere.get(key, ()))
            near = [s for s in found if s is not None]
            site = min(near, key=lambda s: abs(s.line - source["line"]), default=None)
        if site is None:
            pending.append(record)
            continue
        taken.add((site.path, site.line, site.template))
        placed[record.path] = site

    gone: dict[Path, tuple[str | None, dict[str, Any]]] = {}
    renamed: dict[Path, str] = {}
    said_own: set[Path] = set()
    """Records placed at a raise that writes no message (``unread_in``)."""
    trees: dict[str, Tree] = {}
    """The checkout at each commit the records are pinned to (``_written_by_hand``)."""
    for record in pending:
        source = record.data["source"]
        path, line, exception = source["path"], source["line"], record.data["exception"]
        removed = _removed(record, commit, release)
        # A raise whose message the code does not write (``raise Error(msg)`` of a
        # parameter), which a record written by hand says in its own words, kept.
        # Its commit is read only when such a raise awaits it (few do).
        own = _own_raise(record, unread_in(path))
        by_hand = own is not None and _written_by_hand(record, tree, cache, trees)
        if own is not None and by_hand:
            placed[record.path] = replace(own, template=record.data["message"])
            said_own.add(record.path)
            continue
        if removed[0] is None:
            # Removed at an earlier pin: its place is that of an older version of the
            # file, so another raise near it now is no rewording of it. Only its own
            # words found again (above) bring it back.
            gone[record.path] = removed
            continue
        if path not in by_line:
            by_line[path] = _grouped(
                sites_in(path), lambda s: (own_name(s.exception), s.line), taken
            )
            by_function[path] = _grouped(
                sites_in(path), lambda s: (own_name(s.exception), s.function), taken
            )
        # At the same place in the same function with new words: the same raise, reworded.
        at_line = by_line[path].get((own_name(exception), line))
        in_function = by_function[path].get((own_name(exception), source.get("function")))
        site = at_line.nearest(line) if at_line else None
        if site is None and in_function is not None:
            site = in_function.nearest(line)
        mapped = functools.partial(_held_in_a_name, record, tree, cache, trees)
        own = (
            None
            if site is not None
            else _own_raise(record, unread_in(path), anywhere=True, mapped=mapped)
        )
        if own is not None and (by_hand or _written_by_hand(record, tree, cache, trees)):
            placed[record.path] = replace(own, template=record.data["message"])
            said_own.add(record.path)
            continue
        if site is not None:
            taken.add((site.path, site.line, site.template))
            placed[record.path] = site
            # The id a scan would give the new words (so scanning this commit afresh
            # finds the record by it); the old id stays as an alias, whose page sends
            # readers here: no link to the record breaks. (With a release, _as_scanned
            # gives every record the id a scan of the release would.)
            new_id = derive_id(repo, exception, site.template)
            if new_id not in ids:
                ids.add(new_id)
                renamed[record.path] = new_id
            continue
        gone[record.path] = removed

    new: list[tuple[RaiseSite, str, bool, update.Existing | None]] = []
    if release:
        everything, _ = scan_tree(tree, _read(tree, tree.paths(), cache, progress))
        # (what it skipped is reported by the records that name those files, or by scan)
        # A record in an excluded file stays where the matching above put it: a scan of
        # the release, which looks there for no raise, would call it gone.
        # So does a record at a raise that writes no message: a scan gives it none.
        outside = {r.path for r in records if tree.excluded(str(r.data["source"]["path"]))}
        outside |= said_own
        kept = {path: renamed[path] for path in outside if path in renamed}
        inside = [r for r in records if r.path not in outside]
        new = _as_scanned(repo, everything, inside, placed, gone, renamed, commit, release)
        renamed.update(kept)
    # Every record's blocks, worked out whole before any is written: a record changed
    # twice (placed, then an alias taken from it) is written once.
    changes: dict[Path, tuple[str, str | None, dict[str, Any]]] = {}
    for record in records:
        if record.path in placed:
            site = placed[record.path]
            changes[record.path] = _placed(
                record, site, commit, release, renamed.get(record.path), earlier
            )
        elif record.path in gone:
            line, blocks = gone[record.path]
            # Removed at an earlier pin (no line, nothing to write): still removed.
            changes[record.path] = ("removed" if line else "still removed", line, blocks)
    # An id a record takes is no longer another's alias (a link to it now means it).
    taken_ids = {renamed[p] for p in renamed} | {record_id for _, record_id, _, _ in new}
    if taken_ids:
        for record in records:
            data = {**record.data, **changes.get(record.path, ("", None, {}))[2]}
            aliases = data.get("aliases") or []
            if any(a in taken_ids for a in aliases):
                kind, line, blocks = changes.get(record.path, ("unchanged", None, {}))
                blocks = {**blocks, "aliases": [a for a in aliases if a not in taken_ids]}
                changes[record.path] = (kind, line, blocks)
    for record in records:
        if record.path in changes:
            kind, line, blocks = changes[record.path]
            writes.add(record, kind, line, blocks)
    writes.run()
    if release:
        _create(content, repo, commit, release, new, records, report, dry_run, walk)
    return report


def _placed(
    record: update.Existing,
    site: RaiseSite,
    commit: str,
    release: str | None,
    new_id: str | None,
    earlier: Sequence[tuple[str, str]] = (),
) -> tuple[str, str | None, dict[str, Any]]:
    """What a record raised at ``site`` reports and has written: its source, its words
    when they changed (under ``new_id`` when it takes one, the old id kept as an alias),
    and with ``release``, that release's entry (``earlier``: see ``_raised``)."""
    data = record.data
    reworded = site.template != data["message"]
    blocks: dict[str, Any] = {}
    if new_id is not None and new_id != record.id:
        aliases = [a for a in data.get("aliases") or () if a != new_id]
        blocks.update(id=new_id, aliases=[*aliases, record.id])
    elif reworded and not record.id_stated:
        blocks["id"] = record.id  # new words would derive another id: this one stays
    if reworded:
        blocks["message"] = site.template
    source = source_data(site, commit)
    if reworded or source != data["source"]:
        blocks["source"] = source
    if release:
        raised = _raised(data, release, commit, site, earlier)
        if reworded or raised["releases"] != data.get("releases"):
            blocks.update(raised)
    elif reworded and data.get("releases"):
        # The releases before keep their wording, now that the message changes.
        blocks["releases"] = _reworded(data, site.template)
    if reworded:
        return "reworded", f"{_shown(record)}: {_one_line(site.template[:70])}", blocks
    if data["source"].get("removed_in"):  # its page says "Removed upstream" no more
        renamed = f", its id now {blocks['id']}" if "id" in blocks else ""
        return "back", f"{_shown(record)} at {site.path}:{site.line}{renamed}", blocks
    if (site.path, site.line) != (data["source"]["path"], data["source"]["line"]):
        return "moved", f"{_shown(record)} → {site.path}:{site.line}", blocks
    if "id" in blocks:
        return "renamed", f"{_shown(record)} → {blocks['id']}", blocks
    return "unchanged", None, blocks


def _read(
    tree: Tree,
    paths: list[str],
    cache: dict[str, Scanned | str] | None,
    progress: Start | None = None,
) -> dict[str, Scanned | str]:
    return scan_cached(tree, paths, cache if cache is not None else {}, progress)


def _raised(
    data: dict[str, Any],
    release: str,
    commit: str,
    site: RaiseSite,
    earlier: Sequence[tuple[str, str]] = (),
) -> dict[str, Any]:
    """The ``releases`` block of a record that ``release`` raises at ``site``: the entries
    before, this one added (or put in place of the one of that name), each with the
    wording of its release unless it is the record's message from now on. ``earlier``:
    the releases the site lists before ``release`` (name, commit), for a record pinned to
    one of them that lists none (``_pinned_release``)."""
    data = _pinned_release(data, release, earlier)
    entries = _reworded(data, site.template, drop=release)
    entries.append({"release": release, "commit": commit, "path": site.path, "line": site.line})
    return {"releases": entries}


def _pinned_release(
    data: dict[str, Any], release: str, earlier: Sequence[tuple[str, str]]
) -> dict[str, Any]:
    """``data``, with the entry of the release whose commit it is pinned to when it lists
    none yet and that release comes before ``release`` (``new`` writes a record at the
    commit a traceback ran, and lists no release): raised there, as its source says."""
    source = data.get("source")
    if data.get("releases") or not isinstance(source, dict):
        return data
    pinned = str(source.get("commit") or "")
    for name, commit in earlier:
        if name != release and len(pinned) >= 7 and commit.startswith(pinned):
            entry: dict[str, Any] = {"release": name, "commit": commit}
            entry.update(path=source.get("path"), line=source.get("line"))
            return {**data, "releases": [entry]}
    return data


def _earlier_releases(content: Path, repo: str, release: str | None) -> list[tuple[str, str]]:
    """The releases ``site.yaml`` lists for ``repo`` before ``release`` (all of them when
    it lists none of that name), oldest first: (name, commit)."""
    listed = [
        (str(r.get("name")), str(r.get("commit")))
        for r in _site_releases(content)
        if r.get("repo") == repo and r.get("name") and r.get("commit")
    ]
    names = [name for name, _ in listed]
    return listed[: names.index(release)] if release in names else listed


def _reworded(data: dict[str, Any], message: str, drop: str | None = None) -> list[dict[str, Any]]:
    """The record's ``releases`` entries (but the one named ``drop``) once its message is
    ``message``: each keeps the wording of its release, stated unless it is ``message``."""
    current = str(data["message"])
    entries = []
    for entry in data.get("releases", ()):
        if not isinstance(entry, dict) or entry.get("release") == drop:
            continue
        kept = dict(entry)
        if kept.get("message", current) == message:
            kept.pop("message", None)
        else:
            kept["message"] = kept.get("message", current)
        entries.append(kept)
    return entries


def _as_scanned(
    repo: str,
    everything: list[RaiseSite],
    records: list[update.Existing],
    placed: dict[Path, RaiseSite],
    gone: dict[Path, tuple[str | None, dict[str, Any]]],
    renamed: dict[Path, str],
    commit: str,
    release: str,
) -> list[tuple[RaiseSite, str, bool, update.Existing | None]]:
    """Give every raise of the release the record a scan of it would give it, so that
    scanning an old release and pinning forward ends where scanning the new one does.

    A record whose id a scan gives a raise holds that raise (its URL keeps showing that
    message). Any other raise stays with the record matched to its place, which takes
    the scan's id and keeps its own as an alias; a raise left without a record gets a new
    one, with the releases of the record that held its place before. ``placed``,
    ``gone`` and ``renamed`` are changed to say so; the new records are returned (raise,
    id, whether the id is stated, the record whose place it was)."""
    fresh = site_ids(repo, everything)
    by_id = {r.id: r for r in records}
    by_path = {r.path: r for r in records}
    holder = {(s.path, s.line, s.template): path for path, s in placed.items()}
    owned: dict[Path, RaiseSite] = {}
    for site, (record_id, _) in zip(everything, fresh, strict=True):
        owner = by_id.get(record_id)
        if owner is not None:
            owned[owner.path] = site
    final = dict(owned)
    ids: dict[Path, str] = {}
    new = []
    for site, (record_id, stated) in zip(everything, fresh, strict=True):
        if record_id in by_id:
            continue
        was = holder.get((site.path, site.line, site.template))
        if was is not None and was not in owned:
            final[was] = site
            ids[was] = record_id
        else:
            new.append((site, record_id, stated, by_path[was] if was is not None else None))
    renamed.clear()
    renamed.update(ids)
    for record in records:
        if record.path in final:
            placed[record.path] = final[record.path]
            gone.pop(record.path, None)
        elif record.path in placed:
            # Its place is held by the record whose id a scan gives it.
            del placed[record.path]
            gone[record.path] = _removed(record, commit, release)
    return new


def _own_raise(
    record: update.Existing,
    sites: list[RaiseSite],
    anywhere: bool = False,
    mapped: Callable[[], bool | None] | None = None,
) -> RaiseSite | None:
    """The raise of ``sites`` (raises that write no message) that is ``record``'s, if the
    record was written by hand for one (``_written_by_hand``, asked after): of its class,
    the nearest in the function it names; for a record that names none (``new`` writes
    none), the one at its line, or with ``anywhere`` the only one in the file. Several
    records may say the messages of one such raise (a helper's ``raise ValueError(msg)``).
    Where none of its class is there, a raise of a class held in a name (``raise
    mapped_exc(msg)``, which may raise any) is, when ``mapped`` says the record's raise
    was one (``_held_in_a_name``), or cannot tell and the record names no function."""
    source = record.data["source"]
    line, function = source["line"], source.get("function")
    exception = str(record.data["exception"])
    found = [
        s
        for s in sites
        if (same_class(s.exception, exception) or own_name(s.exception) == own_name(exception))
        and function in (None, s.function)
    ]
    if not found and mapped is not None:
        said = mapped()
        if said or (said is None and function is None):
            found = [
                s for s in sites if not class_like(s.exception) and function in (None, s.function)
            ]
    if function is not None:
        return min(found, key=lambda s: abs(s.line - line), default=None)
    here = [s for s in found if s.line == line]
    if here:
        return here[0]
    return found[0] if anywhere and len(found) == 1 else None


_RAISE_CALL = re.compile(r"\s*raise\s+([A-Za-z_][A-Za-z0-9_.]*)\s*\(")


def _held_in_a_name(
    record: update.Existing,
    tree: Tree,
    cache: dict[str, Scanned | str] | None,
    trees: dict[str, Tree],
) -> bool | None:
    """Whether ``record``'s raise makes a class held in a name (``raise mapped(msg)``):
    as its excerpt shows the raise, else as its commit's file has it; None when neither
    tells (never pinned, a commit the checkout lacks)."""
    source = record.data["source"]
    excerpt = source.get("excerpt")
    if isinstance(excerpt, dict) and isinstance(excerpt.get("code"), str):
        lines = source_lines(str(excerpt["code"]))
        at = int(source["line"]) - int(excerpt.get("start") or 1)
        shown = _RAISE_CALL.match(lines[at]) if 0 <= at < len(lines) else None
        if shown is not None:
            return not class_like(shown.group(1))
    pinned = _pinned_unread(record, tree, cache, trees)
    if pinned is None:
        return None
    return any(s.line == source["line"] and not class_like(s.exception) for s in pinned)


def _pinned_unread(
    record: update.Existing,
    tree: Tree,
    cache: dict[str, Scanned | str] | None,
    trees: dict[str, Tree],
) -> list[RaiseSite] | None:
    """The raises that write no message in ``record``'s file at the commit it is pinned
    to, read from the checkout as scan reads it; None when the checkout lacks it."""
    source = record.data["source"]
    commit = source.get("commit")
    if not tree.commit or not isinstance(commit, str) or not commit:
        return None
    try:
        pinned = trees.setdefault(commit, Tree(tree.root, commit))  # read once a run
        found = _read(pinned, [str(source["path"])], cache).get(source["path"])
    except SourceError:
        return None  # a commit this checkout does not have
    if found is None or isinstance(found, str):
        return None
    return found.unread_sites


def _written_by_hand(
    record: update.Existing,
    tree: Tree,
    cache: dict[str, Scanned | str] | None,
    trees: dict[str, Tree],
) -> bool:
    """Whether ``record`` says in its own words the messages of a raise that writes none:
    at the commit it is pinned to, the raise at its line is one (read from the
    checkout, as scan reads it); or it was never pinned (no excerpt: written by hand).
    A record whose commit the checkout lacks, or whose raise had words, is not."""
    source = record.data["source"]
    if not isinstance(source.get("excerpt"), dict):
        return True
    pinned = _pinned_unread(record, tree, cache, trees)
    return pinned is not None and any(site.line == source["line"] for site in pinned)


def _removed(
    record: update.Existing, commit: str, release: str | None
) -> tuple[str | None, dict[str, Any]]:
    """What a record no longer raised reports and has written: ``removed_in``, and the
    entry of ``release`` dropped when that release is pinned again at another commit."""
    source = record.data["source"]
    stale = release is not None and any(
        isinstance(e, dict) and e.get("release") == release for e in record.data.get("releases", ())
    )
    if source.get("removed_in") and not stale:
        return None, {}
    blocks: dict[str, Any] = {
        "source": {**_facts(source), "removed_in": source.get("removed_in") or commit}
    }
    if stale:
        blocks["releases"] = [
            e
            for e in record.data["releases"]
            if not (isinstance(e, dict) and e.get("release") == release)
        ]
    return f"{_shown(record)} (last seen at {str(source['commit'])[:10]})", blocks


def _create(
    content: Path,
    repo: str,
    commit: str,
    release: str,
    new: list[tuple[RaiseSite, str, bool, update.Existing | None]],
    records: list[update.Existing],
    report: Report,
    dry_run: bool = False,
    walk: Walk | None = None,
) -> None:
    """A record for each raise of the release that no record has, as scan writes them."""
    exceptions, paths = Spellings(), Spellings()
    for r in records:
        exceptions.add((r.data["exception"],))
        paths.add(r.data["source"]["path"].split("/"))
    readable = {r.path for r in records}
    used = set(readable)
    for site, record_id, stated, was in new:
        clash = _spelling_clash(site, exceptions, paths)
        if clash:
            report.skipped.append(f"{site.path}:{site.line}: {clash}; skipped")
            continue
        exceptions.add((site.exception,))
        paths.add(site.path.split("/"))
        before = was.data if was is not None else {"message": site.template}
        releases = _raised(before, release, commit, site)["releases"]
        text = update.new_record(repo, site, commit, record_id if stated else None, releases)
        # A record that took another id keeps its file: a new one beside it is numbered.
        path = update.file_name(content, repo, record_id)
        if path not in readable and _unread_here(path, repo):
            # The file of this id, which pin could not read (said above): most likely
            # this raise's record, to mend rather than write again beside it.
            report.skipped.append(
                f"{shown_path(path)}: not read, so {site.path}:{site.line} gets no record "
                "beside it; mend it and pin again"
            )
            continue
        number = 2
        while path in used or path.exists() or path.is_symlink():
            path = path.with_name(f"{record_id}-{number}.yaml")
            number += 1
        used.add(path)
        where = _where(site)
        if walk is not None:
            # Written with the rest at the end of the walk (Walk.finish).
            data: dict[str, Any] = {"id": record_id} if stated else {}
            data.update(repo=repo, exception=site.exception, message=site.template)
            data.update(source=source_data(site, commit), releases=releases)
            walk.created(update.Existing(path, data, record_id, stated), text)
            report.add("new", where)
            continue
        refused = update.create(path, text, dry_run)
        if refused:
            report.skipped.append(refused)
            continue
        report.add("new", where)
        report.files.append(path)


def _unread_here(path: Path, repo: str) -> bool:
    """Whether ``path`` is a record file of ``repo`` pin could not read: there, and not
    YAML of a mapping, or one that names this repository (a record of another one, its
    owner renamed, say, is no record of this raise)."""
    import yaml

    if not (path.exists() or path.is_symlink()):
        return False
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, ValueError, yaml.YAMLError):
        return True
    return not isinstance(data, dict) or data.get("repo") == repo


def _shown(record: update.Existing) -> str:
    return shown_path(record.path)


def _where(site: RaiseSite) -> str:
    """A raise as the report names it: its place, class and the start of its message."""
    return _one_line(f"{site.path}:{site.line} {site.exception}: {site.template[:70]}")


def _one_line(text: str) -> str:
    """``text`` on one line of the report: its line breaks, and any other character a
    terminal would act on, shown as escapes (``\\n``), as a message may hold them."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def release_name_problem(repo: str, release: str) -> str | None:
    """Why ``release`` cannot name a page of ``repo``'s releases, whatever the others
    are named (the build's own rule, so a release pinned is one the build accepts)."""
    found = validate.release_name_problem(repo, release)
    return found[0] if found else None


def release_problem(
    content: Path,
    repo: str,
    release: str,
    commit: str = "",
    checkout: Path | None = None,
    earlier: Sequence[str] = (),
) -> str | None:
    """Why ``release`` cannot be pinned now, if it cannot: releases are pinned oldest
    first, so a release recorded before the newest one is refused, and so is a new one
    whose commit comes before the newest one's in the ``checkout``'s history (pinning
    the newest again is fine). A release whose page would be the folder of another
    (pinned already, or among ``earlier``, those given before it in this command) is
    refused too."""
    mine = [r for r in _site_releases(content) if r.get("repo") == repo]
    names = [str(r.get("name")) for r in mine]
    others = dict.fromkeys(names, "pinned already")
    for name in earlier:
        others.setdefault(name, "given before it")
    clash = validate.release_clash(repo, release, others)
    if clash:
        return clash
    older = (
        f"release {release} of {repo} is older than {names[-1]}, the newest one pinned: "
        "pin releases oldest first (errdex does not insert a release before others)"
        if names
        else ""
    )
    if release in names and release != names[-1]:
        return older
    if names and release not in names and checkout is not None and commit:
        newest = str(mine[-1].get("commit", ""))
        try:
            if newest != commit and is_ancestor(checkout, commit, newest):
                return older
        except SourceError:
            pass  # the newest release's commit is not in this checkout: nothing to compare
    return None


def record_release(
    content: Path,
    repo: str,
    release: str,
    commit: str,
    date: str | None = None,
    dry_run: bool = False,
) -> str | None:
    """Add ``release`` (or its new commit) to site.yaml's ``releases``; None when done,
    else why site.yaml was left as it was."""
    before = _site_releases(content)
    entries = [dict(r) for r in before]
    mine = [r for r in entries if r.get("repo") == repo]
    entry: dict[str, Any] = {"repo": repo, "name": release, "commit": commit}
    if date:
        entry["date"] = datetime.date.fromisoformat(date)
    if mine and mine[-1].get("name") == release:
        mine[-1].clear()
        mine[-1].update(entry)
    else:
        entries.append(entry)
    if entries == before:
        return None
    return update.write_blocks(content / "site.yaml", {"releases": entries}, dry_run)


def _site_releases(content: Path) -> list[dict[str, Any]]:
    import yaml

    try:
        data = yaml.safe_load((content / "site.yaml").read_text(encoding="utf-8"))
    except (OSError, UnicodeError, yaml.YAMLError):
        return []
    found = data.get("releases") if isinstance(data, dict) else None
    return [r for r in found if isinstance(r, dict)] if isinstance(found, list) else []
