"""An error's life across releases: which releases raise it, and how each words it.

``pin`` writes the facts (site.yaml's ``releases`` for each repo, in order, and each
record's ``releases``); this module reads them as pages, search and the JSON show them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from errdex.records.model import Raised, Record, Release


@dataclass(frozen=True, slots=True)
class Span:
    """Releases in a row that raise the error."""

    first: str
    last: str
    removed_in: str | None
    """The next release, which no longer raises it (None: the newest pinned raises it)."""
    oldest: bool = False
    """Whether it starts at the oldest release pinned: the error may be older."""


@dataclass(frozen=True, slots=True)
class Wording:
    """How releases in a row word the error."""

    template: str
    """The message template those releases raise."""
    first: str
    last: str
    current: bool
    """Whether this is the record's message (the newest wording)."""


@dataclass(frozen=True, slots=True)
class History:
    spans: tuple[Span, ...]
    wordings: tuple[Wording, ...]
    """Oldest first; the last one is the current wording."""
    places: tuple[Raised, ...]
    """Where each release raises it, newest first."""

    @property
    def since(self) -> str:
        return self.spans[0].first

    @property
    def removed_in(self) -> str | None:
        return self.spans[-1].removed_in

    @property
    def earlier(self) -> tuple[Wording, ...]:
        """The wordings before the current one, newest first."""
        return tuple(w for w in reversed(self.wordings) if not w.current)

    def said(self) -> str:
        """'Raised since v2', 'Raised in v1 to v3; removed in v4', as the page says it.
        What the oldest release pinned raises may be older: not "since" it, but 'in every
        release pinned, v1 to v3' (or 'in v1, the only release pinned')."""
        parts = []
        for span in self.spans:
            between = span.first if span.first == span.last else f"{span.first} to {span.last}"
            if span.removed_in is not None:
                parts.append(f"in {between}; removed in {span.removed_in}")
            elif not span.oldest:
                parts.append(f"since {span.first}")
            elif span.first == span.last:
                parts.append(f"in {span.first}, the only release pinned")
            else:
                parts.append(f"in every release pinned, {between}")
        return "Raised " + "; again ".join(parts)


def history(record: Record, releases: tuple[Release, ...]) -> History | None:
    """The record's history over its repo's ``releases`` (oldest first), or None when
    no release of it is recorded."""
    order = {r.name: n for n, r in enumerate(releases)}
    raised = [r for r in record.releases if r.release in order]
    if not raised:
        return None
    spans = []
    start = previous = order[raised[0].release]
    for entry in raised[1:]:
        at = order[entry.release]
        if at != previous + 1:
            spans.append(
                Span(releases[start].name, releases[previous].name, releases[previous + 1].name)
            )
            start = at
        previous = at
    removed = releases[previous + 1].name if previous + 1 < len(releases) else None
    spans.append(Span(releases[start].name, releases[previous].name, removed))
    spans[0] = replace(spans[0], oldest=order[raised[0].release] == 0)
    wordings: list[Wording] = []
    current = record.message.source
    for entry in raised:
        template = entry.message or current
        if wordings and wordings[-1].template == template:
            wordings[-1] = Wording(template, wordings[-1].first, entry.release, False)
        else:
            wordings.append(Wording(template, entry.release, entry.release, False))
    last = wordings[-1]
    wordings[-1] = Wording(last.template, last.first, last.last, last.template == current)
    return History(tuple(spans), tuple(wordings), tuple(reversed(raised)))


def old_wordings(record: Record, releases: tuple[Release, ...]) -> list[tuple[Wording, str]]:
    """Each earlier wording of the record, newest first, with the first release that
    words it otherwise (search finds a record by its old wordings too)."""
    found = history(record, releases)
    if found is None:
        return []
    wordings = found.wordings
    return [
        (wording, wordings[n + 1].first)
        for n, wording in reversed(list(enumerate(wordings[:-1])))
        if wording.template != record.message.source
    ]


@dataclass(frozen=True, slots=True)
class ReleaseChanges:
    """What one release changed in a repo's errors: the changelog its page shows."""

    release: Release
    previous: Release | None
    following: Release | None
    raised: int
    """How many recorded errors the release raises."""
    introduced: tuple[Record, ...]
    reworded: tuple[tuple[Record, str], ...]
    """Each reworded record, with the wording of the release before."""
    removed: tuple[Record, ...]


def changes(releases: tuple[Release, ...], records: Sequence[Record]) -> list[ReleaseChanges]:
    """Each release of a repo (oldest first) with the errors it introduced, reworded and
    removed. A release introduces what the release before did not raise; the first one
    recorded introduces nothing (it is where the record begins)."""
    order = {r.name: n for n, r in enumerate(releases)}
    raised = [0] * len(releases)
    introduced: list[list[Record]] = [[] for _ in releases]
    reworded: list[list[tuple[Record, str]]] = [[] for _ in releases]
    removed: list[list[Record]] = [[] for _ in releases]
    for record in records:
        entries = [e for e in record.releases if e.release in order]
        before: Raised | None = None
        for entry in entries:
            at = order[entry.release]
            raised[at] += 1
            wording = entry.message or record.message.source
            if before is None or order[before.release] != at - 1:
                if at > 0:
                    introduced[at].append(record)
                if before is not None:
                    removed[order[before.release] + 1].append(record)
            elif wording != (before.message or record.message.source):
                reworded[at].append((record, before.message or record.message.source))
            before = entry
        if before is not None and order[before.release] + 1 < len(releases):
            removed[order[before.release] + 1].append(record)
    return [
        ReleaseChanges(
            release,
            releases[n - 1] if n else None,
            releases[n + 1] if n + 1 < len(releases) else None,
            raised[n],
            tuple(introduced[n]),
            tuple(reworded[n]),
            tuple(removed[n]),
        )
        for n, release in enumerate(releases)
    ]
