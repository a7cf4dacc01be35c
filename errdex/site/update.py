"""An update: stages 3 and 4 of a build over the few records whose files changed
(``plan.Update``), with what other pages show of the others taken from the state the
last full build left (``state.Links``). docs/building.md says what each edit renders
again, and what makes an update a full build: ``plan.Full``, raised where it is found.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from operator import attrgetter
from pathlib import Path
from typing import TypeVar

from errdex.records.files import shown_path
from errdex.records.problems import BuildError, Problem, Severity, failed
from errdex.site import state
from errdex.site.plan import UPDATE_UP_TO, Full, Update
from errdex.site.read import link_errors, parse
from errdex.util import parallel
from errdex.util.words import count

TYPE_CHECKING = False
if TYPE_CHECKING:
    from errdex.records.link import Site
    from errdex.records.model import Record
    from errdex.site.build import Options
    from errdex.site.render import ErrorContext


@dataclass(frozen=True, slots=True)
class Read:
    """An update, as stage 3 reads it and stage 4 adds what to render again: the files of
    ``records``, and with ``site`` the lists that show what changed. Every other file
    stays as the last build wrote it."""

    changed: list[Record]
    """The records whose files changed, whole."""
    files: dict[str, tuple[int, int, str, str]]
    """Their record files as the state keeps them (see ``state.State.files``), and those
    whose bytes are the same under a new change time."""
    warnings: list[Problem]
    """The content's warnings: these records' as found now, the others' as last found
    (what linking warns of found again for the records linked again, with ``site``)."""
    previous: state.State
    links: state.Links
    shown_changed: list[Record]
    """Those of ``changed`` whose summaries changed (what other pages show of them)."""
    aside: parallel.Aside[dict[str, bytes]] | None = None
    """The search index, made again aside while this process links (``INDEX_ASIDE_FROM``)."""
    site: Site | None = None
    """When ``shown_changed`` has any: every record linked again, from the summaries the
    state keeps (``old``) and the changed records' own; ``touched``: those whose related
    entries or backlinks may have changed."""
    old: Mapping[str, state.Stored] = field(default_factory=dict)
    touched: set[str] = field(default_factory=set)
    # Stage 4's:
    records: tuple[Record, ...] = ()
    """The records whose files are rendered again: they changed, or show what changed."""
    context: ErrorContext | None = None
    """What their pages show of the others."""
    lists: frozenset[str] = frozenset()
    """The files of ``site`` that are not pages of single errors and show what changed (a
    list's first page stands for all its pages, ``urls.first_page``)."""
    moved: bool = False
    """Whether rows of those lists may have moved, or what every page of one shows
    changed: then all their pages are rendered, not only those with a changed row."""
    change: state.LinksChange | None = None
    """What changed in the state's links."""
    index_made: Callable[[], dict[str, bytes]] | None = None
    """What makes the search index's files again (``index_files``), called as the lists
    are rendered: ``aside``'s, when it was made. None when what search sees of every
    record is as the last build indexed it (a first analysis, a title, a related entry):
    the index's files keep their bytes, and are not made again."""

    def __str__(self) -> str:
        said = f"update: {count(len(self.changed), 'record')} changed"
        if self.site is None:
            return said
        others = len(self.records) - len(self.changed)
        said += f", shown on {count(others, 'other error page')} and {len(self.lists)} lists"
        kept = "; search index kept" if self.index_made is None else ""
        return said + ("; search index made aside" if self.aside is not None else kept)


def read(options: Options, update: Update, asides: contextlib.ExitStack) -> Read:
    """Stage 3 of an update: the changed records, checked (a record with errors stops
    the build, as it stops a full one), and, when what other pages show of them changed,
    every record linked again from the summaries the state keeps and the changed
    records' own (no other file is read). Raises ``Full`` when what changed is more than
    an update follows (an id, a repo, file or exception, an option that gets or loses
    its page, a draft on a site that hides them)."""
    from errdex.records.link import link

    previous = update.previous
    parsed = parse(options.content, list(update.changed))
    problems = [p for item in parsed for p in item.problems]
    shown = {shown_path(Path(item.path)) for item in parsed}
    kept = [p for p in previous.warnings if p.path not in shown]
    links = state.links(previous, options.store)
    if links is None:
        raise Full("the previous state's links are missing or damaged", previous)
    if any(p.severity is Severity.ERROR for p in problems):
        # As a build from nothing stops: with what linking finds wrong among the records
        # that loaded (the others as the state keeps them), without what it warns of.
        ids = {previous.ids.get(item.path) for item in parsed}
        loaded = [held[0] for rid, held in state.all_stored(links).items() if rid not in ids]
        loaded += [item.record.summary() for item in parsed if item.record is not None]
        found, note = link_errors(links.config, loaded)
        if found:
            # Named at the lines of the records as they are now, which the state's
            # summaries may not keep: a build from nothing reads them.
            raise Full("records have errors, and linking the others finds more", previous)
        # Without the warnings linking finds (an entry or an issue that names no record).
        kept = [p for p in kept if p.code not in ("W402", "W404")]
        raise BuildError(sorted(kept + problems), note)
    # The links keep the site's config as it is now: another would be another key.
    if links.config.drafts == "hide" and any(
        item.record and item.record.analysis and item.record.analysis.state is not None
        for item in parsed
    ):
        # A draft reviewed, rejected or written changes what every page that links it
        # shows of it, on a site that hides unreviewed drafts' prose. (On a noindex site
        # only its own page and the sitemaps change: an update renders those.)
        raise Full("a draft changed, and the site hides unreviewed drafts", previous)
    records, shown_changed, files = [], [], dict(update.restamped)
    for item in parsed:
        record = item.record
        assert record is not None
        if record.id != previous.ids.get(item.path):
            raise Full(f"{shown_path(Path(item.path))}: its id changed", previous)
        if item.digest != previous.files[item.path][2]:
            shown_changed.append(record)
        records.append(record)
        files[item.path] = item.kept
    aside = None
    if len(links.chunk_of) >= INDEX_ASIDE_FROM and any(
        _searched(r) != _searched(state.stored(links, r.id)[0]) for r in shown_changed
    ):
        # A message, releases or a line changed (the index keeps the lines of records that
        # say the same words): the search index is made again in a forked process.
        aside = parallel.Aside(functools.partial(index_files, links, shown_changed))
        asides.callback(aside.close)  # stopped when the build ends, if still running
    done = Read(records, files, kept + problems, previous, links, shown_changed, aside)
    if not shown_changed:
        return done
    old = state.all_stored(links)
    for record in shown_changed:
        for what in ("repo", "source.path", "exception", "aliases"):
            if attrgetter(what)(record) != attrgetter(what)(old[record.id][0]):
                raise Full(f"{record.file}: its {what.replace('.', ' ')} changed", previous)
    summaries = {rid: held[0] for rid, held in old.items()}
    summaries.update((record.id, record.summary()) for record in records)
    where = ", ".join(sorted(r.file for r in shown_changed))
    if all(
        (r.releases, r.source.line) == (old[r.id][0].releases, old[r.id][0].source.line)
        for r in shown_changed
    ):
        # A title, a first analysis, a message or a related entry: every order and list
        # is as it was, and few related entries can be other than they were (the source
        # line orders the errors of a file). Every record read again is found again:
        # the warnings of its file were dropped, a prose edit's included.
        site, linked, again, touched = linked_again(links, old, summaries, {r.id for r in records})
    else:
        site, linked = link(links.config, list(summaries.values()), check_names=False)
        again = touched = set(site.by_id)
    if any(p.severity is Severity.ERROR for p in linked):
        raise Full(f"{where}: linking it again finds errors", previous)
    if site.option_names.keys() != links.option_names.keys():
        raise Full(f"{where}: the options errors name changed", previous)
    # What linking warns of is found again for the records linked again; for the others
    # it is as it was (at the lines the state keeps).
    again_files = {site.by_id[i].file for i in again}
    kept = [p for p in done.warnings if p.code != "W402" or p.path not in again_files]
    return replace(done, site=site, old=old, touched=touched, warnings=sorted(kept + linked))


def outdated(options: Options, read: Read) -> Read:
    """Stage 4 of an update: what to render again. The changed records' pages; and with
    ``read.site``, the pages and lists that showed or now show what changed
    (docs/building.md names them). Raises ``Full`` when that is more than an update
    renders."""
    from errdex import urls
    from errdex.site.hosts import json_paths
    from errdex.site.render import ErrorContext, neighbours, unlisted

    previous, links, shown_changed = read.previous, read.links, read.shown_changed
    site, old, touched = read.site, read.old, read.touched
    if site is None:
        return _own_pages(options, read)
    shown_ids = {r.id for r in shown_changed}
    fresh = {record.id: record for record in read.changed}  # whole, by id; more read below
    changed = set(fresh)
    render = set(changed)
    relinked = {}
    # Of the others, only the errors that linked to a changed one or that it linked to
    # can show it: their related entries and backlinks are as they were.
    near = touched | changed
    for rid in shown_ids:
        near.update(old[rid][2])
        near.update(t for _, t in old[rid][1] if t)
    for r in (r for r in site.records if r.id in near):
        shown, linking = state.shown_links(site, r.id) if r.id in touched else old[r.id][1:]
        if r.id in changed or (shown, linking) != old[r.id][1:]:
            relinked[r.id] = state.pickled((r, shown, linking))
            render.add(r.id)
        elif shown_ids.intersection(t for _, t in shown) or shown_ids.intersection(linking):
            render.add(r.id)
    groups = {}
    lists = {"index.html", "options/index.html", "feed.xml"}
    for record in shown_changed:
        was = old[record.id][0]
        if unlisted(was, site.config) != unlisted(record, site.config):
            # A draft reviewed (or no longer) on a site that keeps drafts from search
            # engines: its page joins the sitemaps, or leaves them.
            lists.update(rel for rel in previous.outputs if urls.is_sitemap(rel))
        key = (record.repo, record.source.path)
        before = tuple(old[i][0] for i in links.groups[key])
        after = site.by_file[key]
        if tuple(r.id for r in after) != links.groups[key]:
            groups[key] = tuple(r.id for r in after)
        for group in (before, after):
            for other in group:
                if other.id not in render:
                    # Its page leaves out the errors its related entries list: those of
                    # the last build (had they changed, it would be rendered already).
                    listed = {t for _, t in old[other.id][1] if t}
                    same_function, nearest, _ = neighbours(other, group, listed)
                    if any(r.id == record.id for r in same_function + nearest):
                        render.add(other.id)
        # Its repo, file, exception and aliases are as they were (``read``); not its options.
        lists.add(urls.repo_url(record.repo) + "index.html")
        lists.add(urls.file_url(record.repo, record.source.path) + "index.html")
        lists.add(urls.exception_url(record.exception) + "index.html")
        lists.update(
            urls.option_url(k) + "index.html" for s in (was, record) for k, _, _ in s.options
        )
        for alias in record.aliases:
            lists.add(urls.page_url(alias) + "index.html")
            lists.update(json_paths(alias, site.config.host))
        if was.releases or record.releases:
            # Its releases' pages list it, and so may any other (one it was removed in).
            lists.update(urls.releases_url(record.repo) + name for name in urls.RELEASES_FILES)
            lists.update(
                urls.release_url(record.repo, r.name) + "index.html"
                for r in site.config.releases_of(record.repo)
            )
    # api/errors.json lists each error's id, title, message, exception and repo, in site
    # order (which changes when errors of a file change places: ``groups``).
    if groups or any(
        (r.title, r.message.display) != (old[r.id][0].title, old[r.id][0].message.display)
        for r in shown_changed
    ):
        lists.add("api/errors.json")
    respelled = {k for k, names in site.option_names.items() if names != links.option_names[k]}
    option_names = dict(site.option_names) if respelled else None
    if respelled:
        render.update(r.id for r in site.records if any(k in respelled for k, _, _ in r.options))
    if len(render) > UPDATE_UP_TO:
        raise Full(f"{len(render)} error pages show what changed, more than an update", previous)

    others = sorted(path for path, rid in previous.ids.items() if rid in render - changed)
    again_read = [(path, *previous.files[path][:2]) for path in others]
    for item in parse(options.content, again_read):
        if item.record is None or item.record.id not in render:
            raise Full(f"{shown_path(Path(item.path))} changed as it was read", previous)
        fresh[item.record.id] = item.record

    entries = b""
    index_made: Callable[[], dict[str, bytes]] | None = None
    # Unless search sees a record otherwise than the last build did, at its place and line,
    # earlier wordings included (the index's files hold no title), the entries the state
    # keeps stay true, and none is made (nor search imported).
    if groups or any(_searched(r) != _searched(old[r.id][0]) for r in shown_changed):
        from errdex.search import entry_of, id_numbers

        number = id_numbers(site.records)
        searched = {r.id: entry_of(number[r.id], r) for r in site.records if r.id in shown_ids}
        entries = state.pickled(searched)
        made_here = functools.partial(index_files, links, shown_changed)
        index_made = read.aside.result if read.aside is not None else made_here
    if failed(read.warnings, options.strict):
        raise BuildError(read.warnings)
    return replace(
        read,
        site=site,
        records=tuple(fresh[rid] for rid in sorted(render)),
        context=ErrorContext.of(site),
        lists=frozenset(lists),
        # Errors changed places in their file, an option list's heading names other
        # spellings, options or releases list an error or no longer do, or a release may
        # list it as reworded (when its wording then is not its message) or no longer.
        moved=bool(groups)
        or option_names is not None
        or any(
            r.releases
            or old[r.id][0].releases
            or sorted(k for k, _, _ in r.options) != sorted(k for k, _, _ in old[r.id][0].options)
            for r in shown_changed
        ),
        change=state.LinksChange(relinked, groups, option_names, entries),
        index_made=index_made,
    )


def _searched(record: Record) -> tuple[object, ...]:
    """What the search index holds of a record beyond its place in the site: its message,
    its releases (earlier wordings) and its line (for records that say the same words)."""
    return (record.message, record.releases, record.source.line)


INDEX_ASIDE_FROM = 2_000
"""An update that rewords a message of a site with this many records makes the search
index again in a forked process, from the entries the state keeps, while this one links
the rest (docs/building.md has the figures). Below this a fork gains too little to be
worth a process."""


def index_files(links: state.Links, changed: list[Record]) -> dict[str, bytes]:
    """The search index's files (``search.Index.files``) once what search sees of the
    records ``changed`` is made again: the entries of the others are as the state keeps
    them (an update keeps every id, and so every number), earlier wordings are found
    again for all. The index numbers its entries anew, in one order whatever theirs: it
    is the index a build of the site from nothing makes."""
    from errdex.search import Index, entry_of, old_entries
    from errdex.site import mirror

    kept = state.entries_of(links)
    fresh = {r.id: r for r in changed}
    entries = [entry_of(e.index, fresh[i]) if i in fresh else e for i, e in kept.items()]
    records: list[Record] = []
    if links.config.releases:
        records = [fresh.get(i, held[0]) for i, held in state.all_stored(links).items()]
    index = Index.build([*entries, *old_entries(records, links.config, len(entries))])
    return {rel: mirror.dumps(data) for rel, data in index.files().items()}


def linked_again(
    links: state.Links, old: dict[str, state.Stored], records: dict[str, Record], changed: set[str]
) -> tuple[Site, list[Problem], set[str], set[str]]:
    """What ``link`` makes of ``records`` when of those that ``changed`` since ``links``
    were made (``old``: their records, unpickled) no more than messages, related
    entries and options did (not releases nor lines: ``read`` checks). Orders and lists
    are read from the links; related entries are found again only where a change can
    move them: those of the changed records, of the records that link to one whose
    message changed (they show it), and of those with an entry that names such a
    message, as it was or as it is now. Then the backlinks of the errors those now link
    to, or no longer do.

    Returns the site, the problems of the entries found again, the ids of the records
    whose entries were found again, and of those whose entries or backlinks may differ."""
    from errdex.records.link import (
        STEM,
        Messages,
        RelatedLink,
        Site,
        lists_of,
        may_name,
        option_names_of,
        related_of,
    )

    ordered = tuple(records[i] for key in sorted(links.groups) for i in links.groups[key])
    by_id = {r.id: r for r in sorted(records.values(), key=lambda r: (r.file, r.id))}
    aliases = {alias: r for r in by_id.values() for alias in r.aliases}

    again = set(changed)
    named: set[str] = set()  # the messages that changed, as they were and are
    for rid in changed:
        was, now = old[rid][0].message, records[rid].message
        if was != now:
            named.update((was.display, was.source, now.display, now.source))
            again.update(old[rid][2])
    if named:
        heads = {message[:STEM] for message in named}  # a quick look first
        for record in by_id.values():
            if record.id not in again and any(
                e.text[:STEM] in heads and may_name(e.text, named) for e in record.related
            ):
                again.add(record.id)
    by_message = Messages(by_id.values())
    found: dict[str, tuple[RelatedLink, ...]] = {}
    problems: list[Problem] = []
    for rid in sorted(again):
        found[rid], said = related_of(records[rid], by_id, aliases, by_message)
        problems += said

    # Whose backlinks change: the errors the records found again link to now or did.
    after = {rid: {link.record.id for link in found[rid] if link.record} for rid in again}
    targets = set().union(*({t for _, t in old[rid][1] if t} ^ after[rid] for rid in again))
    place = {r.id: n for n, r in enumerate(ordered)}
    linking: dict[str, tuple[str, ...]] = {}
    for t in targets:
        linkers = [i for i in old[t][2] if i not in again] + [i for i in again if t in after[i]]
        linking[t] = tuple(sorted(linkers, key=place.__getitem__))

    def related(rid: str) -> tuple[RelatedLink, ...]:
        if rid in found:
            return found[rid]
        return tuple(RelatedLink(text, records[t] if t else None) for text, t in old[rid][1])

    option_names = dict(links.option_names)
    if any(old[rid][0].options != records[rid].options for rid in changed):
        option_names = option_names_of(ordered)
    by_repo, by_exception, by_file, by_option = lists_of(ordered, option_names)
    site = Site(
        config=links.config,
        records=ordered,
        by_id=by_id,
        aliases=aliases,
        related=_Made(list(by_id), related),
        by_repo=by_repo,
        by_exception=by_exception,
        by_file=by_file,
        by_option=by_option,
        option_names=option_names,
        backlinks=_Made(
            sorted(rid for rid in old if linking.get(rid, old[rid][2])),
            lambda rid: tuple(records[i] for i in linking.get(rid, old[rid][2])),
        ),
    )
    return site, problems, again, again | targets


V = TypeVar("V")


class _Made(Mapping[str, V]):
    """A mapping of the given keys, in their order, whose values are made when first
    asked for: an update asks for the related errors and backlinks of the few pages it
    renders, not of every record."""

    def __init__(self, keys: list[str], make: Callable[[str], V]) -> None:
        self._keys, self._make = dict.fromkeys(keys), functools.cache(make)

    def __getitem__(self, key: str) -> V:
        if key not in self._keys:
            raise KeyError(key)
        return self._make(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


def _own_pages(options: Options, read: Read) -> Read:
    """Stage 4 of an update that changed nothing other pages show: the changed records'
    pages, with what they show of the others (related errors, backlinks, neighbours in
    their file, and which lists the site has) from what the state keeps, and their
    related entries' warnings at the entries' new lines (what the entries resolve to
    cannot have changed, or the build would not be an update)."""
    from errdex.records.link import RelatedLink
    from errdex.site.render import ErrorContext

    links, previous = read.links, read.previous
    entry = functools.cache(functools.partial(state.stored, links))

    related, backlinks, by_file, kept = {}, {}, {}, {}
    warnings = list(read.warnings)
    for record in read.changed:
        summary, shown, linking = entry(record.id)
        related[record.id] = tuple(
            RelatedLink(text, entry(target)[0] if target else None) for text, target in shown
        )
        backlinks[record.id] = tuple(entry(i)[0] for i in linking)
        key = (record.repo, record.source.path)
        by_file[key] = tuple(entry(i)[0] for i in links.groups[key])
        # Kept as it is now: prose may have moved its related entries, and their warnings.
        kept[record.id] = state.pickled((record.summary(), shown, linking))
        line_of = {e.line: now.line for e, now in zip(summary.related, record.related, strict=True)}
        warnings += [
            replace(p, line=line_of[p.line])
            for p in previous.warnings
            if p.path == record.file and p.code == "W402" and p.line in line_of
        ]
    warnings.sort()
    if failed(warnings, options.strict):
        raise BuildError(warnings)
    context = ErrorContext(
        links.config, related, backlinks, by_file, links.option_names, previous.outputs
    )
    change = state.LinksChange(kept, {}, None, b"")
    return replace(
        read, records=tuple(read.changed), context=context, warnings=warnings, change=change
    )
