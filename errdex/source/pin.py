"""Reconcile records with a codebase: ``scan`` creates and refreshes, ``pin`` re-pins.

Only source facts are ever written, and only by replacing whole top-level blocks of a
record file (see errdex/source/update.py): prose a person wrote is never changed or dropped.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Any

from .. import parallel
from ..files import shown_path
from ..link import Spellings
from ..model import derive_id
from . import update
from .scan import RaiseSite, Scanned, Tree, scan_files, scan_tree, source_data


@dataclass
class Report:
    """What a scan or a pin did (or, with --dry-run, would do), record by record."""

    counts: Counter[str] = field(default_factory=Counter)
    lines: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def add(self, kind: str, line: str | None = None) -> None:
        self.counts[kind] += 1
        if line:
            self.lines.append(f"{kind}: {line}")


def site_ids(repo: str, sites: list[RaiseSite]) -> list[tuple[str, bool]]:
    """Each site's id, and whether it must be written into the file.

    One message raised at several places would derive one id; every place after the
    first (in path and line order) gets an id of its own, derived from its path and
    function too, and stated in its file so that it never changes.
    """
    out = []
    seen: Counter[str] = Counter()
    for site in sites:
        derived = derive_id(repo, site.exception, site.template)
        seen[derived] += 1
        if seen[derived] == 1:
            out.append((derived, False))
            continue
        place = f"{site.template}\x00{site.path}\x00{site.function or ''}\x00{seen[derived]}"
        out.append((derive_id(repo, site.exception, place), True))
    return out


def _facts(source: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in source.items() if k != "removed_in"}


def _write(
    report: Report,
    record: update.Existing,
    kind: str,
    line: str | None,
    blocks: dict[str, Any],
    dry_run: bool,
) -> None:
    """Count ``kind`` once the record's blocks are written (or, dry, known to be writable)."""
    refused = update.write_blocks(record.path, blocks, dry_run) if blocks else None
    if refused:
        report.skipped.append(refused)
    else:
        report.add(kind, line)


@dataclass
class _Writes:
    """Record files to rewrite, written together (on every core when there are many) once
    every record is matched; each outcome lands in the report where ``_write`` would have
    put it, so the report reads the same."""

    report: Report
    dry_run: bool
    todo: list[tuple[int, int, update.Existing, str, str | None, dict[str, Any]]] = field(
        default_factory=list
    )

    def add(
        self, record: update.Existing, kind: str, line: str | None, blocks: dict[str, Any]
    ) -> None:
        if not blocks:
            self.report.add(kind, line)
            return
        at = (len(self.report.skipped), len(self.report.lines))
        self.todo.append((*at, record, kind, line, blocks))

    def run(self) -> None:
        todo = self.todo

        def write(bounds: tuple[int, int]) -> list[str | None]:
            return [
                update.write_blocks(todo[i][2].path, todo[i][5], self.dry_run)
                for i in range(*bounds)
            ]

        with parallel.Tasks(write, parallel.jobs_for(len(todo))) as tasks:
            refused = [one for part in tasks.map(parallel.chunks(len(todo))) for one in part]
        # From the last to the first: an outcome put in never moves the places of those
        # before it, and two at one place end up in the order they were asked for.
        for (skipped_at, lines_at, _record, kind, line, _blocks), why in reversed(
            list(zip(todo, refused, strict=True))
        ):
            if why:
                self.report.skipped.insert(skipped_at, why)
            else:
                self.report.counts[kind] += 1
                if line:
                    self.report.lines.insert(lines_at, f"{kind}: {line}")
        self.todo = []


def scan_into(content: Path, repo: str, tree: Tree, commit: str, dry_run: bool = False) -> Report:
    """Write a record for each new raise of ``tree``; refresh the source of the others."""
    report = Report()
    sites, report.skipped = scan_tree(tree)
    records, skipped = update.existing_records(content, repo)
    report.skipped += skipped
    by_id = {r.id: r for r in records}
    by_place = {
        (r.data["exception"], r.data["message"], r.data["source"]["path"]): r for r in records
    }
    matched: set[Path] = set()
    # Names written once must keep their spelling: two that differ only in case would
    # share a folder on macOS and Windows, and the build refuses such a pair (E402).
    exceptions, paths = Spellings(), Spellings()
    for r in records:
        exceptions.add((r.data["exception"],))
        paths.add(r.data["source"]["path"].split("/"))
    for site, (record_id, stated) in zip(sites, site_ids(repo, sites), strict=True):
        record = by_id.get(record_id) or by_place.get((site.exception, site.template, site.path))
        where = f"{site.path}:{site.line} {site.exception}: {site.template[:70]}"
        if record is None:
            clash = _spelling_clash(site, exceptions, paths)
            if clash:
                report.skipped.append(f"{site.path}:{site.line}: {clash}; skipped")
                continue
            exceptions.add((site.exception,))
            paths.add(site.path.split("/"))
            path = update.file_name(content, repo, record_id)
            text = update.new_record(repo, site, commit, record_id if stated else None)
            refused = update.create(path, text, dry_run)
            if refused:
                report.skipped.append(refused)
            else:
                report.add("new", where)
            continue
        matched.add(record.path)
        source = source_data(site, commit)
        if source == record.data["source"]:
            report.add("unchanged")
            continue
        _write(report, record, "refreshed", where, {"source": source}, dry_run)
    for record in records:
        if record.path not in matched:
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

    def __init__(self, sites: list[RaiseSite], taken: set[tuple[str, int]]) -> None:
        self.sites = sorted(sites, key=lambda s: s.line)  # stable: one line keeps its order
        self.lines = [s.line for s in self.sites]
        self.taken = taken
        size = len(self.sites)
        self._up = list(range(size + 1))  # _up[i]: where to look for a free index >= i
        self._down = list(range(size + 1))  # _down[i + 1]: the same for a free index <= i

    def _is_taken(self, index: int) -> bool:
        site = self.sites[index]
        return (site.path, site.line) in self.taken

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


def _grouped(sites: list[RaiseSite], key: Any, taken: set[tuple[str, int]]) -> dict[Any, _Free]:
    groups: dict[Any, list[RaiseSite]] = {}
    for site in sites:
        groups.setdefault(key(site), []).append(site)
    return {k: _Free(v, taken) for k, v in groups.items()}


def pin(content: Path, repo: str, tree: Tree, commit: str, dry_run: bool = False) -> Report:
    """Re-pin every record of ``repo`` to ``commit``: unchanged, moved, reworded or removed."""
    report = Report()
    records, report.skipped = update.existing_records(content, repo)
    writes = _Writes(report, dry_run)
    files: dict[str, list[RaiseSite]] = {}
    taken: set[tuple[str, int]] = set()
    by_message: dict[str, dict[tuple[str, str], _Free]] = {}
    by_function: dict[str, dict[tuple[str, str | None], _Free]] = {}
    by_line: dict[str, dict[tuple[str, int], _Free]] = {}
    anywhere: dict[tuple[str, str], list[_Free]] | None = None
    # Every file the records name, read in one go (one git process, not one per file).
    wanted = sorted({str(r.data["source"]["path"]) for r in records})
    read = list(tree.read_all(wanted))
    texts = dict(read)
    # Parsed in one go too, on every core; a file that does not parse is reported when
    # a record first asks for it, as before.
    scanned = dict(zip(wanted, scan_files(read), strict=True))

    def sites_in(path: str) -> list[RaiseSite]:
        if path not in files:
            text = texts[path] if path in texts else next(tree.read_all([path]))[1]
            found = scanned.get(path) if text is not None else Scanned([], [])
            if found is None:
                found = scan_files([(path, text)])[0]
            if isinstance(found, str):
                report.skipped.append(f"{path}: does not parse at {commit[:10]}; skipped")
                files[path] = []
            else:
                files[path] = found.sites
        return files[path]

    def message_groups(path: str) -> dict[tuple[str, str], _Free]:
        if path not in by_message:
            by_message[path] = _grouped(sites_in(path), lambda s: (s.exception, s.template), taken)
        return by_message[path]

    pending = []
    for record in records:
        source = record.data["source"]
        key = (record.data["exception"], record.data["message"])
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
                        list(sites), lambda s: (s.exception, s.template), taken
                    ).items():
                        anywhere.setdefault(k, []).append(free)
            # Elsewhere (a renamed file): the nearest line, the first file of equals.
            found = (free.nearest(source["line"]) for free in anywhere.get(key, ()))
            near = [s for s in found if s is not None]
            site = min(near, key=lambda s: abs(s.line - source["line"]), default=None)
        if site is None:
            pending.append(record)
            continue
        taken.add((site.path, site.line))
        moved = (site.path, site.line) != (source["path"], source["line"])
        new = source_data(site, commit)
        writes.add(
            record,
            "moved" if moved else "unchanged",
            f"{_shown(record)} → {site.path}:{site.line}" if moved else None,
            {"source": new} if new != source else {},
        )

    for record in pending:
        source = record.data["source"]
        path, line, exception = source["path"], source["line"], record.data["exception"]
        if path not in by_line:
            by_line[path] = _grouped(sites_in(path), lambda s: (s.exception, s.line), taken)
            by_function[path] = _grouped(sites_in(path), lambda s: (s.exception, s.function), taken)
        # At the same place in the same function with new words: the same raise, reworded.
        at_line = by_line[path].get((exception, line))
        in_function = by_function[path].get((exception, source.get("function")))
        site = at_line.nearest(line) if at_line else None
        if site is None and in_function is not None:
            site = in_function.nearest(line)
        if site is not None:
            taken.add((site.path, site.line))
            blocks: dict[str, Any] = {} if record.id_stated else {"id": record.id}
            blocks.update(message=site.template, source=source_data(site, commit))
            writes.add(record, "reworded", f"{_shown(record)}: {site.template[:70]}", blocks)
            continue
        if source.get("removed_in"):
            report.add("removed", None)
            continue
        gone = f"{_shown(record)} (last seen at {str(source['commit'])[:10]})"
        blocks = {"source": {**_facts(source), "removed_in": commit}}
        writes.add(record, "removed", gone, blocks)
    writes.run()
    return report


def _shown(record: update.Existing) -> str:
    return shown_path(record.path)
