"""Where a site is published (``host`` in site.yaml): what files that host needs, and
how close the site comes to the host's limits.

A host with rewrite rules (Cloudflare Pages, Netlify) serves the extension-less JSON
address ``/api/errors/<id>`` from ``<id>.json`` by one rule in ``_redirects``; a host
without them (GitHub Pages, a plain web server) needs a copy of each document there.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from errdex.records.problems import Problem, Severity
from errdex.urls import json_url


@dataclass(frozen=True, slots=True)
class Host:
    name: str
    title: str
    rewrites: str
    """``_redirects`` rules that serve ``api/errors/<id>`` from its ``.json`` (``{base}``
    is the site's path); empty for a host without rules, which gets a copy of each."""
    headers: bool
    """Whether the host reads ``_headers`` (security headers, JSON content type)."""
    max_files: int | None = None
    max_bytes: int | None = None
    max_file_bytes: int | None = None
    limits_from: str = ""
    """Where the limits are published."""

    @property
    def json_copies(self) -> bool:
        return not self.rewrites

    def redirects(self, base_url: str) -> bytes | None:
        """The ``_redirects`` file for a site published at ``base_url``; None without rules."""
        if not self.rewrites:
            return None
        base = urlsplit(base_url).path or "/"
        return self.rewrites.format(base=base).encode()


HOSTS = {
    host.name: host
    for host in (
        Host("plain", "a plain web server", rewrites="", headers=True),
        Host(
            "github-pages",
            "GitHub Pages",
            rewrites="",
            headers=False,
            max_bytes=1_000_000_000,
            limits_from="https://docs.github.com/en/pages/getting-started-with-github-pages/github-pages-limits",
        ),
        # Cloudflare follows a rule even where a file matches, and a placeholder takes
        # dots too: the first rule keeps each .json address to itself.
        Host(
            "cloudflare",
            "Cloudflare Pages",
            rewrites=(
                "# The JSON mirror's extension-less address (written by errdex).\n"
                "{base}api/errors/:id.json {base}api/errors/:id.json 200\n"
                "{base}api/errors/:id {base}api/errors/:id.json 200\n"
            ),
            headers=True,
            max_files=20_000,
            max_file_bytes=25 * 1024 * 1024,
            limits_from="https://developers.cloudflare.com/pages/platform/limits/",
        ),
        # Netlify applies a rule only where no file matches.
        Host(
            "netlify",
            "Netlify",
            rewrites=(
                "# The JSON mirror's extension-less address (written by errdex).\n"
                "{base}api/errors/:id {base}api/errors/:id.json 200\n"
            ),
            headers=True,
        ),
    )
}
"""Free plans' limits: Cloudflare Pages' paid plans allow 100,000 files."""

WARN_AT = 0.8
"""The share of a limit at which the build warns."""


@dataclass(frozen=True, slots=True)
class Usage:
    files: int
    bytes: int
    largest: str
    """The largest file's path in the site."""
    largest_bytes: int


def usage(out: Path) -> Usage:
    """The files of the output folder, their bytes and the largest of them."""
    files = size = largest_bytes = 0
    largest = ""
    stack = [out]
    while stack:
        folder = stack.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=False):
                    length = entry.stat(follow_symlinks=False).st_size
                    files += 1
                    size += length
                    if length > largest_bytes or (length == largest_bytes and entry.path < largest):
                        largest, largest_bytes = entry.path, length
    shown = Path(largest).relative_to(out).as_posix() if largest else ""
    return Usage(files, size, shown, largest_bytes)


def _limits(found: Usage, host: Host) -> list[tuple[str, int, int]]:
    """What the site has of each limit the host sets: (what, how much, the limit)."""
    return [
        (what, have, limit)
        for what, have, limit in (
            ("files", found.files, host.max_files),
            ("bytes", found.bytes, host.max_bytes),
            ("bytes in one file", found.largest_bytes, host.max_file_bytes),
        )
        if limit is not None
    ]


def problems(found: Usage, host: Host, config_path: str = "site.yaml") -> list[Problem]:
    """A warning (W502) for each of the host's limits the site comes within 80% of."""
    warned = []
    for what, have, limit in _limits(found, host):
        if have < WARN_AT * limit:
            continue
        where = f" ({found.largest})" if what == "bytes in one file" else ""
        share = have / limit
        state = "over" if have > limit else "near"
        warned.append(
            Problem(
                config_path,
                0,
                f"the site is {state} a limit of {host.title}, {limit:,} {what}: it has "
                f"{have:,}{where} ({share:.0%})",
                code="W502",
                severity=Severity.WARNING,
            )
        )
    return warned


def summary(found: Usage, host: Host) -> str:
    """``12,345 files, 210.3 MB`` and, for a host with limits, the share of each."""
    text = f"{found.files:,} files, {found.bytes / 1e6:.1f} MB"
    shares = [
        f"{have / limit:.0%} of {limit:,} {what}"
        for what, have, limit in _limits(found, host)
        if what != "bytes in one file"
    ]
    if shares:
        text += f" ({host.title}: {', '.join(shares)})"
    return text


def json_paths(record_id: str, host: str) -> tuple[str, ...]:
    """Where a record's JSON document is written: ``api/errors/<id>.json``, and for a host
    without rewrite rules the same bytes at ``api/errors/<id>``."""
    rel = json_url(record_id)
    return (rel, rel.removesuffix(".json")) if HOSTS[host].json_copies else (rel,)
