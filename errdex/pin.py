"""Reconcile records with a codebase: ``scan`` creates and refreshes, ``pin`` re-pins.

Only source facts are ever written, and only by replacing whole top-level blocks of a
record file (see errdex/update.py): prose a person wrote is never changed or dropped.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import update
from .files import shown_path
from .model import derive_id
from .scan import Site, Tree, scan_text, scan_tree


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


def site_ids(repo: str, sites: list[Site]) -> list[tuple[str, bool]]:
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


def scan_into(content: Path, repo: str, tree: Tree, commit: str, dry_run: bool = False) -> Report:
    report = Report()
    sites, report.skipped = scan_tree(tree)
    records, skipped = update.existing_records(content, repo)
    report.skipped += skipped
    by_id = {r.id: r for r in records}
    by_place = {
        (r.data["exception"], r.data["message"], r.data["source"]["path"]): r for r in records
    }
    matched: set[Path] = set()
    for site, (record_id, stated) in zip(sites, site_ids(repo, sites), strict=True):
        record = by_id.get(record_id) or by_place.get((site.exception, site.template, site.path))
        where = f"{site.path}:{site.line} {site.exception}: {site.template[:70]}"
        if record is None:
            path = update.file_name(content, repo, record_id)
            report.add("new", where)
            if not dry_run:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(
                    update.new_record(repo, site, commit, record_id if stated else None),
                    encoding="utf-8",
                )
            continue
        matched.add(record.path)
        source = update.source_data(site, commit)
        if source == record.data["source"]:
            report.add("unchanged")
            continue
        report.add("refreshed", where)
        if not dry_run:
            update.write_block(record.path, "source", source)
    for record in records:
        if record.path not in matched:
            report.add("no longer found", f"{shown_path(record.path)}")
    return report


def pin(content: Path, repo: str, tree: Tree, commit: str, dry_run: bool = False) -> Report:
    """Re-pin every record of ``repo`` to ``commit``: unchanged, moved, reworded or removed."""
    report = Report()
    records, report.skipped = update.existing_records(content, repo)
    files: dict[str, list[Site]] = {}
    everything: list[Site] | None = None
    # Every file the records name, read in one go (one git process, not one per file).
    wanted = sorted({str(r.data["source"]["path"]) for r in records})
    texts = dict(tree.read_all(wanted))

    def sites_in(path: str) -> list[Site]:
        if path not in files:
            text = texts[path] if path in texts else next(tree.read_all([path]))[1]
            try:
                files[path] = scan_text(text, path) if text is not None else []
            except (SyntaxError, ValueError):
                report.skipped.append(f"{path}: does not parse at {commit[:10]}; skipped")
                files[path] = []
        return files[path]

    claimed: set[tuple[str, int]] = set()
    pending = []
    for record in records:
        source = record.data["source"]
        key = (record.data["exception"], record.data["message"])
        same = [s for s in sites_in(source["path"]) if (s.exception, s.template) == key]
        if not same:
            if everything is None:
                everything, skipped = scan_tree(tree)
                report.skipped += skipped
            same = [s for s in everything if (s.exception, s.template) == key]
        same = [s for s in same if (s.path, s.line) not in claimed]
        if not same:
            pending.append(record)
            continue
        site = min(same, key=lambda s: (s.path != source["path"], abs(s.line - source["line"])))
        claimed.add((site.path, site.line))
        moved = (site.path, site.line) != (source["path"], source["line"])
        kind = "moved" if moved else "unchanged"
        report.add(kind, f"{_shown(record)} → {site.path}:{site.line}" if moved else None)
        new = update.source_data(site, commit)
        if new != source and not dry_run:
            update.write_block(record.path, "source", new)

    for record in pending:
        source = record.data["source"]
        nearby = [
            s
            for s in sites_in(source["path"])
            if (s.path, s.line) not in claimed
            and s.exception == record.data["exception"]
            and (s.function == source.get("function") or s.line == source["line"])
        ]
        if nearby:
            site = min(nearby, key=lambda s: abs(s.line - source["line"]))
            claimed.add((site.path, site.line))
            report.add("reworded", f"{_shown(record)}: {site.template[:70]}")
            if not dry_run:
                if not record.id_stated:
                    update.write_block(record.path, "id", record.id)
                update.write_block(record.path, "message", site.template)
                update.write_block(record.path, "source", update.source_data(site, commit))
            continue
        if source.get("removed_in"):
            report.add("removed", None)
            continue
        report.add("removed", f"{_shown(record)} (last seen at {str(source['commit'])[:10]})")
        if not dry_run:
            update.write_block(record.path, "source", {**_facts(source), "removed_in": commit})
    return report


def _shown(record: update.Existing) -> str:
    return shown_path(record.path)
