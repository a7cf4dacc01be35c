"""Lookup over a built search index: a site folder, or a published site over HTTP.

``python build.py lookup --site DIR|URL`` reads the files the build writes for the
browser (``search/meta.json``, then only the word shards the paste's words fall in and
the record files of its candidates, as static/search.js does) and runs the matching of
errdex/search/__init__.py over them: the same answers as from the YAML, without reading it.
Nothing here imports a YAML parser, the renderer or a highlighter.

Fetched files are kept on disk with their ``ETag`` (and ``Last-Modified``); the next
call asks for them with ``If-None-Match`` and re-uses them on ``304 Not Modified``. Each
fetch is held to ``--timeout`` as a deadline (errdex/util/fetch.py), and every value read from
an index is checked before it is used (``SiteIndex``): a damaged or hostile index is a
message naming its file, never a traceback, and never a file read outside the site.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, TextIO, TypeGuard, overload

from errdex import __version__, search
from errdex.records.files import write_atomic
from errdex.records.model import ID_RE, source_lines
from errdex.source import avoid

MAX_BYTES = 64 * 1024 * 1024
"""Largest file of an index read or fetched: a bigger one is refused, not read."""
TIMEOUT = 10.0
"""Seconds a fetch of a published site may take, in all, before lookup gives up
(``--timeout``)."""
RUN_TIMEOUTS = 3
"""All the fetches of one lookup together may take this many times ``--timeout``."""
MARKER = ".errdex-site"
"""errdex.site.write.MARKER, without importing the writer: the file every build leaves."""

# The exit statuses of ``errdex lookup`` (docs/exit-codes.md): a script tells "no page
# explains this" from "the index could not be asked".
FOUND = 0
"""A page matches (with ``--batch``: every line was a lookup, each answered)."""
NOT_FOUND = 1
"""No page matches."""
USAGE = 2
"""The command was given wrong: a flag or value (argparse's own status), standard input
that is not UTF-8 text, ``--batch`` lines that are not lookups."""
UNREADABLE = 3
"""The index, the site or the records cannot be read: missing, damaged, refused,
unreachable or too slow."""


class Unavailable(Exception):
    """The index cannot be read; the message says why, for the user."""


class Store(Protocol):
    """Where the files of a built site are read from."""

    name: str

    def read(self, rel: str) -> bytes: ...


class FolderStore:
    """A site folder on disk."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.name = str(root)

    def read(self, rel: str) -> bytes:
        _check_rel(self, rel)
        path = self.root / rel
        try:
            with path.open("rb") as file:
                data = file.read(MAX_BYTES + 1)
        except FileNotFoundError:
            raise Unavailable(
                f"{path} is missing: {self.root} is not a site errdex built "
                "(build it, or give --content)"
            ) from None
        except OSError as exc:
            raise Unavailable(f"cannot read {path}: {exc.strerror or exc}") from None
        if len(data) > MAX_BYTES:
            raise Unavailable(f"{path} is larger than {MAX_BYTES:,} bytes: refused")
        return data


class WebStore:
    """A published site: files fetched over HTTP(S), kept in ``cache`` with their ETag.

    ``timeout`` bounds each fetch as a whole, from connecting to the last byte, and
    RUN_TIMEOUTS times it all the fetches of one lookup (``renew`` starts the next's):
    a server that answers a byte at a time cannot hold a run for longer."""

    def __init__(self, base: str, cache: Path | None, timeout: float = TIMEOUT) -> None:
        self.base = base if base.endswith("/") else base + "/"
        self.name = self.base
        self.cache = cache
        self.timeout = timeout
        self.renew()

    def renew(self) -> None:
        """Start the time the fetches of one lookup share."""
        self.run_ends = time.monotonic() + RUN_TIMEOUTS * self.timeout

    def _kept(self, url: str) -> tuple[Path, Path] | None:
        if self.cache is None:
            return None
        key = hashlib.sha256(url.encode()).hexdigest()[:32]
        folder = self.cache / "lookup"
        return folder / f"{key}.body", folder / f"{key}.head"

    def read(self, rel: str) -> bytes:
        # Imported here: they cost a call on a site folder more than all else it loads.
        import http.client
        import urllib.error
        import urllib.request

        from errdex.util import fetch

        _check_rel(self, rel)
        url = self.base + rel
        kept = self._kept(url)
        headers = {"User-Agent": f"errdex/{__version__}", "Accept-Encoding": "identity"}
        old: bytes | None = None
        if kept:
            try:
                old = kept[0].read_bytes()
                head = json.loads(kept[1].read_bytes())
                if head.get("etag"):
                    headers["If-None-Match"] = str(head["etag"])
                if head.get("last_modified"):
                    headers["If-Modified-Since"] = str(head["last_modified"])
            except (OSError, ValueError, AttributeError, RecursionError):  # a damaged cache
                old = None
                headers = {k: v for k, v in headers.items() if not k.startswith("If-")}
        request = urllib.request.Request(url, headers=headers)
        own_ends = time.monotonic() + self.timeout
        ends = min(own_ends, self.run_ends)
        if ends < own_ends:
            late = (
                f"{self.base} did not answer within {RUN_TIMEOUTS * self.timeout:g} s, the time "
                f"all the files of one lookup get ({RUN_TIMEOUTS} times --timeout; {url} last)"
            )
        else:
            late = f"{url} did not answer within {self.timeout:g} s"
        try:
            with fetch.opener(ends).open(request) as response:
                length = response.headers.get("Content-Length")
                if length and length.isdigit() and int(length) > MAX_BYTES:
                    raise Unavailable(f"{url} is larger than {MAX_BYTES:,} bytes: refused")
                data: bytes = response.read(MAX_BYTES + 1)
                if len(data) > MAX_BYTES:
                    raise Unavailable(f"{url} is larger than {MAX_BYTES:,} bytes: refused")
                etag = response.headers.get("ETag")
                modified = response.headers.get("Last-Modified")
        except urllib.error.HTTPError as exc:
            if exc.code == 304 and old is not None:
                return old
            raise Unavailable(
                f"{url} answered {exc.code} {exc.reason}: is {self.base} an errdex site?"
            ) from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, TimeoutError):
                raise Unavailable(late) from None
            raise Unavailable(f"cannot reach {url}: {reason}") from None
        except TimeoutError:
            raise Unavailable(late) from None
        except (OSError, ValueError, http.client.HTTPException) as exc:
            # A dropped connection, a malformed answer.
            raise Unavailable(f"cannot fetch {url}: {exc}") from None
        if kept and (etag or modified):
            self._keep(kept, data, {"etag": etag, "last_modified": modified})
        return data

    @staticmethod
    def _keep(kept: tuple[Path, Path], data: bytes, head: dict[str, str | None]) -> None:
        """Write the body, then its headers: a head never names a body it does not go with.
        A cache that cannot be written is only slower."""
        body, meta = kept
        try:
            body.parent.mkdir(parents=True, exist_ok=True)
            for path, content in ((body, data), (meta, json.dumps(head).encode())):
                write_atomic(path, content, durable=False)  # a cache: never synced
        except OSError:
            pass


META = "search/meta.json"
_FILES = re.compile(
    r"search/meta\.json|search/(?:words|records|places)/\d{1,9}\.json|api/errors/[0-9a-f]{16}\.json"
)
"""The files lookup reads of a site, and no others."""


def _check_rel(store: Store, rel: str) -> None:
    """Refuse a path that is not one of the index's files: none is read outside the site."""
    if not _FILES.fullmatch(rel):
        raise Unavailable(f"{store.name}: {_shown(rel)} is not a file of a search index: refused")


def _damaged(store: Store, rel: str, why: str) -> Unavailable:
    return Unavailable(f"{store.name}: {rel} {why}: not a search index this errdex can read")


def _shown(value: Any) -> str:
    """A value of a damaged index as a message shows it: ASCII, short, and a list or an
    object by its kind (written out, one nested deeply would be too deep to write)."""
    if isinstance(value, list | dict):
        return "a list" if isinstance(value, list) else "an object"
    text = ascii(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _json(store: Store, rel: str) -> Any:
    data = store.read(rel)
    try:
        return json.loads(data, parse_constant=_no_constant)
    except RecursionError:
        raise _damaged(store, rel, "is nested too deeply") from None
    except (ValueError, UnicodeDecodeError):
        raise _damaged(store, rel, "is not JSON") from None


def _text(value: Any) -> bool:
    """A string that can be printed: JSON can hold half of a surrogate pair, a terminal
    cannot."""
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _number(value: Any, least: int, most: int | None = None) -> TypeGuard[int]:
    """A whole number (not a boolean) from ``least`` to ``most``."""
    return type(value) is int and value >= least and (most is None or value <= most)


class _Entries(Sequence[search.Entry]):
    """The index's records, read a record file at a time and made into entries when first
    used."""

    def __init__(self, index: SiteIndex) -> None:
        self.site = index
        self.made: dict[int, search.Entry] = {}

    def __len__(self) -> int:
        return self.site.count

    @overload
    def __getitem__(self, number: int) -> search.Entry: ...
    @overload
    def __getitem__(self, number: slice) -> Sequence[search.Entry]: ...
    def __getitem__(self, number: int | slice) -> search.Entry | Sequence[search.Entry]:
        if isinstance(number, slice):
            return [self[i] for i in range(*number.indices(len(self)))]
        if number < 0:
            number += len(self)
        if not 0 <= number < len(self):
            raise IndexError(number)
        entry = self.made.get(number)
        if entry is None:
            entry = self.made[number] = self.site.entry(number)
        return entry

    def __iter__(self) -> Iterator[search.Entry]:
        return (self[i] for i in range(len(self)))


class _Postings(Mapping[str, list[int]]):
    """Word → entries, read a word shard at a time (common words are never in one)."""

    def __init__(self, index: SiteIndex) -> None:
        self.site = index

    def __getitem__(self, word: str) -> list[int]:
        if word in self.site.common:
            raise KeyError(word)
        return self.site.posting(word)

    def __iter__(self) -> Iterator[str]:
        for number in range(self.site.shards):
            yield from self.site.shard(number)

    def __len__(self) -> int:
        return sum(len(self.site.shard(n)) for n in range(self.site.shards))


class SiteIndex:
    """The browser's search index, read lazily: what ``search.lookup`` needs of an Index.

    Every value is checked before it is used, its type and its range, and a value that
    fails is a damaged index, named by its file and field: the head's when it is read, a
    posting when its word is first looked up, a record's row when its entry is made. Ids
    are 16 hexadecimal digits, so no file is read outside the site."""

    def __init__(self, store: Store) -> None:
        self.store = store
        meta = _json(store, META)
        if not isinstance(meta, dict):
            raise _damaged(store, META, "is not a JSON object")
        version = meta.get("version")
        if type(version) is not int:
            raise _damaged(store, META, 'has no "version" number')
        if version != search.INDEX_VERSION:
            raise Unavailable(
                f"{store.name}: its search index is of another errdex release (version "
                f"{_shown(version)}, this one reads {search.INDEX_VERSION}): build the "
                "site again with this errdex, or give --content"
            )
        self.count = self._number(meta, "count", 0)
        self.shards = self._number(meta, "shards", 1, search.MAX_SHARDS)
        self.record_files = self._number(meta, "record_files", 1, max(1, self.count))
        self.place_files = self._number(meta, "place_files", 0, max(1, self.count))
        self._places: dict[int, dict[str, Any]] = {}
        # Each item of these two is checked when it is read: a record file's number when
        # its entry is made, a size with each posting that names its record.
        self.files: list[Any] = self._list(meta, "files")
        self.sizes: list[Any] = self._list(meta, "sizes")
        if len(self.sizes) != self.count:
            raise _damaged(store, META, "has sizes that do not fit its count")
        if len(self.files) != self.count:
            raise _damaged(store, META, "has record files that do not fit its count")
        common = meta.get("common")
        if not isinstance(common, dict) or not all(
            _number(n, 1, self.count) for n in common.values()
        ):
            raise _damaged(store, META, f'has no "common" words, each in 1 to {self.count} records')
        self.common: dict[str, int] = common
        self.repos: list[str] = self._texts(meta, "repos")
        self.exceptions: list[str] = self._texts(meta, "exceptions")
        self.exception_pages: dict[str, str] = self._exception_pages(meta)
        self.exception_modules: dict[str, list[str]] = self._exception_modules(meta)
        self._shards: dict[int, dict[str, Any]] = {}
        self._postings: dict[str, list[int]] = {}
        self._rows: dict[int, dict[int, list[Any]]] = {}
        self.entries = _Entries(self)
        self.postings = _Postings(self)

    def _number(self, meta: dict[str, Any], key: str, least: int, most: int | None = None) -> int:
        found = meta.get(key)
        if not _number(found, least, most):
            span = f"of {least} or more" if most is None else f"from {least} to {most}"
            raise _damaged(self.store, META, f'has no "{key}" {span}')
        return found

    def _list(self, meta: dict[str, Any], key: str) -> list[Any]:
        found = meta.get(key)
        if not isinstance(found, list):
            raise _damaged(self.store, META, f'has no "{key}" list')
        return found

    def _exception_pages(self, meta: dict[str, Any]) -> dict[str, str]:
        """The page of each exception's errors: its list's, or its one error's; none in
        an index an errdex before 2026-12-07 wrote."""
        from errdex.urls import exception_url

        pages = meta.get("exception_pages", {})
        named = set(self.exceptions)
        if not isinstance(pages, dict) or not all(
            name in named
            and isinstance(path, str)
            and (path == exception_url(name) or _ERROR_PAGE.fullmatch(path) is not None)
            for name, path in pages.items()
        ):
            raise _damaged(
                self.store, META, 'has "exception_pages" that are not its exceptions\' pages'
            )
        return pages

    def _exception_modules(self, meta: dict[str, Any]) -> dict[str, list[str]]:
        """The top modules of the code that raises each exception; none in an index an
        errdex before 2026-12-07 wrote."""
        modules = meta.get("exception_modules", {})
        named = set(self.exceptions)
        if not isinstance(modules, dict) or not all(
            name in named and isinstance(found, list) and all(map(_text, found))
            for name, found in modules.items()
        ):
            raise _damaged(
                self.store, META, 'has "exception_modules" that are not its exceptions\' modules'
            )
        return modules

    def _texts(self, meta: dict[str, Any], key: str) -> list[str]:
        found = self._list(meta, key)
        if not all(map(_text, found)):
            raise _damaged(self.store, META, f'has "{key}" that are not all text')
        return found

    def df(self, word: str) -> int:
        return len(self.postings.get(word, ())) or self.common.get(word, 0)

    def starting(self, prefix: str) -> list[str]:
        return search.starting(self.shard(search.shard_of(prefix, self.shards)), prefix)

    def placed(self, key: str) -> list[tuple[int, int]]:
        if not self.place_files:
            return []
        number = search.fnv1a(key) % self.place_files
        found = self._places.get(number)
        if found is None:
            rel = f"search/places/{number}.json"
            found = _json(self.store, rel)
            if not isinstance(found, dict) or not all(
                isinstance(held, list)
                and all(
                    isinstance(p, list)
                    and len(p) == 2
                    and _number(p[0], 0, self.count - 1)
                    and _number(p[1], 0)
                    for p in held
                )
                for held in found.values()
            ):
                raise _damaged(self.store, rel, "is not a places file of records and lines")
            self._places[number] = found
        return [(n, line) for n, line in found.get(key, [])]

    def shard(self, number: int) -> dict[str, Any]:
        found = self._shards.get(number)
        if found is None:
            rel = f"search/words/{number}.json"
            found = _json(self.store, rel)
            if not isinstance(found, dict):
                raise _damaged(self.store, rel, "is not a word shard")
            self._shards[number] = found
        return found

    def posting(self, word: str) -> list[int]:
        """The entries that have ``word`` (KeyError when its shard has none), checked when
        first read: record numbers below the count, each with a size of 1 or more (the
        share of a record's words a paste holds is divided by it)."""
        found = self._postings.get(word)
        if found is not None:
            return found
        number = search.shard_of(word, self.shards)
        posting = self.shard(number)[word]
        if not (
            isinstance(posting, list)
            and set(map(type, posting)) <= {int}
            and (not posting or (min(posting) >= 0 and max(posting) < self.count))
        ):
            raise _damaged(
                self.store,
                f"search/words/{number}.json",
                f"has a posting of {_shown(word)} that is not a list of record numbers "
                f"below {self.count}",
            )
        sizes = [self.sizes[e] for e in posting]
        if not (set(map(type, sizes)) <= {int} and min(sizes, default=1) >= 1):
            bad = next(e for e in posting if not _number(self.sizes[e], 1))
            raise _damaged(
                self.store,
                META,
                f'has "sizes" {_shown(self.sizes[bad])} for record {bad}, which '
                f"search/words/{number}.json lists",
            )
        self._postings[word] = posting
        return posting

    def entry(self, number: int) -> search.Entry:
        file = self.files[number]
        if not _number(file, 0, self.record_files - 1):
            raise _damaged(self.store, META, f"names no record file for {number}")
        rel = f"search/records/{file}.json"
        rows = self._rows.get(file)
        if rows is None:
            held = _json(self.store, rel)
            if not isinstance(held, list) or not all(
                isinstance(row, list) and row and _number(row[0], 0) for row in held
            ):
                raise _damaged(self.store, rel, "is not a record file")
            rows = self._rows[file] = {row[0]: row[1:] for row in held}
        row = rows.get(number)
        if row is None:
            raise _damaged(self.store, rel, f"has no readable record {number}: it has no row")
        why = self._unreadable(row)
        if why is None:
            id, exception, repo, template, place, *old = row
            file, shared, line = place or ("", 1, 0)
            try:
                entry = search.make_entry(
                    number,
                    id,
                    self.exceptions[exception],
                    self.repos[repo],
                    template,
                    "",
                    file,
                    line,
                )
            except ValueError:  # a message that is not a template: an unmatched brace
                why = "its message is not a template"
            else:
                if old:
                    until, since, now = old
                    entry = replace(entry, old=(until, since, now))
                return replace(entry, shared=shared) if shared > 1 else entry
        raise _damaged(self.store, rel, f"has no readable record {number}: {why}")

    def _unreadable(self, row: list[Any]) -> str | None:
        """What is wrong with a record's row (id, exception, repo, message, file and, for
        an earlier wording, its last release, the next and the wording now), if anything."""
        if len(row) not in (5, 8):
            return f"it has {len(row) + 1} fields, not 6 or 9"
        id, exception, repo, template, place, *old = row
        if not isinstance(id, str) or not _is_id(id):
            return f"its id {_shown(id)} is not a record id (16 lowercase hex digits)"
        if not _number(exception, 0, len(self.exceptions) - 1):
            return f"its exception {_shown(exception)} is none of {META}'s"
        if not _number(repo, 0, len(self.repos) - 1):
            return f"its repository {_shown(repo)} is none of {META}'s"
        if not _text(template):
            return "its message is not text"
        if place != "" and not (
            isinstance(place, list)
            and len(place) == 3
            and _text(place[0])
            and _number(place[1], 2)
            and _number(place[2], 0)
        ):
            return f"its place {_shown(place)} is not [file name, records that say it, line]"
        if not all(map(_text, old)):
            return "its earlier wording is not text"
        return None


_ERROR_PAGE = re.compile(r"errors/[0-9a-f]{16}/")
"""An error's page in a site (``urls.page_url``)."""


def _is_id(text: str) -> bool:
    """Whether ``text`` is a record id (model.ID_RE): the index names no file but by one."""
    return ID_RE.fullmatch(text) is not None


# --- What a match is, for a reader and for a bot ---------------------------------------


@dataclass(frozen=True, slots=True)
class Page:
    """What the site says of a record: its title and addresses."""

    title: str
    url: str
    json_url: str
    triage: bool = True
    """False when the record says ``triage: false``: ``errdex triage`` never names it."""
    releases: tuple[str, ...] = ()
    """The releases that raise the record, oldest first, when it lists them."""
    ways: tuple[tuple[str, tuple[dict[str, Any], ...]], ...] = ()
    """How to avoid the error, derived from the code: each way's words and its terms
    (``avoid.document``), for hints with the paste's values."""
    paths: tuple[str, ...] = ()
    """The files of the code that raises it: ``source.path``, then each release's."""
    function: str | None = None
    """The function that raises it (``source.function``: ``Class.method``)."""
    raised: str = ""
    """The code of the raise, as the record's excerpt shows it: its line and the few
    after it (a raise spread over lines)."""
    line: int | None = None
    """The line of ``paths[0]`` that raises it (``source.line``)."""


@dataclass
class Source:
    """An index to search and how to name the pages of its records."""

    index: search.Searchable
    page: Callable[[str], Page]
    """Record id → its title and addresses."""
    page_url: Callable[[str], str]
    """Record id → its page's address (for ``also``, without reading its record)."""
    where: str
    """What was read, for messages: a folder, a URL, a content folder."""
    checking: Callable[[], str | None] | None = None
    """Whether the index is older than the records: worked out meanwhile (a stat walk of
    the records, while the index is read), said with the first answer."""
    renew: Callable[[], None] | None = None
    """Gives the next lookup a time of its own to fetch files in (``WebStore.renew``)."""

    def say_notes(self) -> None:
        if self.checking is not None:
            note, self.checking = self.checking(), None
            if note:
                print(f"errdex: note: {note}", file=sys.stderr)


def site_source(store: Store) -> Source:
    from errdex.urls import page_url as relative_page

    index = SiteIndex(store)
    base: list[str] = []
    seen: dict[str, Page] = {}

    def page(record_id: str) -> Page:
        if record_id in seen:
            return seen[record_id]
        if not _is_id(record_id):  # entries' ids are checked: this is the last guard
            raise Unavailable(
                f"{store.name}: the search index names a record {_shown(record_id)}, which "
                "is not a record id: not a search index this errdex can read"
            )
        rel = f"api/errors/{record_id}.json"
        document = _json(store, rel)
        if not isinstance(document, dict):
            raise _damaged(store, rel, "is not a JSON object")
        for key in ("title", "url", "json_url"):
            if not _text(document.get(key)):
                raise _damaged(store, rel, f'has no "{key}" text')
        releases = _release_names(document.get("releases"))
        if releases is None:
            raise _damaged(store, rel, 'has "releases" named by what is not text')
        found = Page(
            document["title"],
            document["url"],
            document["json_url"],
            document.get("triage", True) is not False,
            releases,
            _ways(document.get("avoid")),
            _source_paths(document),
            _source_function(document),
            _raised(document),
            _source_line(document),
        )
        own = relative_page(record_id)
        if not base and found.url.endswith(own):
            base.append(found.url[: -len(own)])
        seen[record_id] = found
        return found

    def page_url(record_id: str) -> str:
        return (base[0] if base else "") + relative_page(record_id)

    return Source(index, page, page_url, store.name, renew=getattr(store, "renew", None))


def _source_paths(document: dict[str, Any]) -> tuple[str, ...]:
    """The files a record document says raise it: ``source.path``, then each release's
    ``path`` (a file may move); those that are text."""
    source = document.get("source")
    releases = document.get("releases")
    found = [source.get("path")] if isinstance(source, dict) else []
    if isinstance(releases, list):
        found += [r.get("path") for r in releases if isinstance(r, dict)]
    return tuple(dict.fromkeys(p for p in found if isinstance(p, str) and p))


def _raised(document: dict[str, Any]) -> str:
    source = document.get("source")
    if not isinstance(source, dict) or not isinstance(source.get("excerpt"), dict):
        return ""
    excerpt = source["excerpt"]
    code, start, line = excerpt.get("code"), excerpt.get("start"), source.get("line")
    if not (isinstance(code, str) and isinstance(start, int) and isinstance(line, int)):
        return ""
    return raised_code(source_lines(code), line - start)


def raised_code(lines: list[str], at: int) -> str:
    """The raise at ``lines[at]`` and the few lines after it."""
    return "\n".join(lines[at : at + RAISE_LINES]) if 0 <= at < len(lines) else ""


RAISE_LINES = 4


def _source_function(document: dict[str, Any]) -> str | None:
    source = document.get("source")
    function = source.get("function") if isinstance(source, dict) else None
    return function if isinstance(function, str) and function else None


def _source_line(document: dict[str, Any]) -> int | None:
    source = document.get("source")
    line = source.get("line") if isinstance(source, dict) else None
    return line if type(line) is int and line > 0 else None


def _release_names(releases: Any) -> tuple[str, ...] | None:
    """The names in a record document's ``releases``; none when it has no such list, and
    None when a name is not text."""
    if not isinstance(releases, list):
        return ()
    names = [r["release"] for r in releases if isinstance(r, dict) and "release" in r]
    return tuple(names) if all(map(_text, names)) else None


def _ways(avoided: Any) -> tuple[tuple[str, tuple[dict[str, Any], ...]], ...]:
    """The ways of a record document's ``avoid``; none where it has none, or where it
    is not shaped as errdex writes it (a hint is no reason to refuse the answer)."""
    if not isinstance(avoided, dict) or not isinstance(avoided.get("ways"), list):
        return ()
    found = []
    for way in avoided["ways"]:
        if not isinstance(way, dict) or not isinstance(way.get("text"), str):
            return ()
        terms = way.get("terms")
        if not isinstance(terms, list) or not all(avoid.well_formed(t) for t in terms):
            return ()
        found.append((way["text"], tuple(terms)))
    return tuple(found)


def content_source(content: Path, strict: bool) -> Source:
    """The records of a content folder, read from their YAML (the way before --site)."""
    from errdex.site.build import Options, gather
    from errdex.urls import json_url, page_url

    site, _warnings = gather(Options(content=content, strict=strict), parallel_read=True)
    entries = search.entries_from(site.records)
    index = search.Index.build(
        [*entries, *search.old_entries(site.records, site.config, len(entries))]
    )
    base = site.config.base_url
    records = {r.id: r for r in site.records}
    flag = avoid.flag_of(site.option_names)

    def page(record_id: str) -> Page:
        record = records[record_id]
        excerpt = record.source.excerpt
        found = avoid.avoid_of(record)
        ways = _ways(avoid.document(found, flag)) if found else ()
        return Page(
            record.title,
            base + page_url(record_id),
            base + json_url(record_id),
            record.data.get("triage", True) is not False,
            tuple(r.release for r in record.releases),
            ways,
            tuple(dict.fromkeys([record.source.path, *(r.path for r in record.releases)])),
            record.source.function,
            raised_code(excerpt.lines, record.source.line - excerpt.start) if excerpt else "",
            record.source.line,
        )

    return Source(index, page, lambda i: base + page_url(i), str(content))


def confidence(match: search.Match, better: search.Match | None = None) -> float:
    """How sure the answer is, from 0 to 1, for a bot to threshold on: 0.9 and up when the
    whole message matched its template (higher the more of it is the template's own text),
    at most 0.85 for a partial match or one of a template with hardly any words of its own,
    or for one ranked below ``better``, a whole match that scores higher: a paste is one
    error, and that one says more of it (``… index {coord_name}`` taking in the next
    sentence, under ``… index {coord_name}. Try setting the `method` …``)."""
    if match.exact and match.score >= 1.0:
        sure = round(0.9 + 0.1 * min(1.0, match.score - 1.0), 4)
        if better is not None and better.exact and better.score > match.score:
            return 0.85
        return sure
    return round(0.85 * min(1.0, match.score), 4)


def raised_at(page: Page) -> dict[str, Any] | None:
    """Where the code raises a match's error: the file in its repository, the line and
    the function (null where the record names no file)."""
    if not page.paths:
        return None
    return {"path": page.paths[0], "line": page.line, "function": page.function}


def answer(source: Source, paste: str, limit: int) -> tuple[search.Extracted, dict[str, Any]]:
    """The extracted query and the JSON document of its matches (what ``--json`` prints)."""
    try:
        extracted, matches = search.find(source.index, paste, limit=limit)
        described = [(m, source.page(m.entry.id)) for m in matches]
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise Unavailable(f"{source.where}: the search index is damaged ({exc!r})") from None
    matched = None
    if extracted.line is not None:
        matched = {"line": extracted.line + 1, "text": extracted.line_text}
    document = {
        "query": {"exception": extracted.exception, "message": extracted.message},
        "matches": [
            {
                "id": m.entry.id,
                "exception": m.entry.exception,
                "repo": m.entry.repo,
                "message": m.entry.template,
                "title": page.title,
                "url": page.url,
                "json_url": page.json_url,
                "raised_at": raised_at(page),
                "exact": m.exact,
                "first_line": m.first_line,
                "score": round(m.score, 4),
                "confidence": confidence(m, described[0][0] if rank else None),
                "matched": matched,
                "values": [list(pair) for pair in m.values],
                "also": [source.page_url(i) for i in m.also],
                "elsewhere": m.elsewhere,
                "wording": earlier_wording(m.entry),
                "avoid": _avoid_hints(page, m.values),
            }
            for rank, (m, page) in enumerate(described)
        ],
    }
    if not matches:
        # A class's name, and no message or one that matches none of its errors: the
        # lists of that exception's errors.
        pages = source.index.exception_pages
        document["exceptions"] = [
            {"name": name, "path": pages[name], "single": pages[name].startswith("errors/")}
            for name in search.exceptions_named(
                paste, extracted.exception, pages, source.index.exception_modules
            )
        ]
    source.say_notes()
    return extracted, document


def _avoid_hints(page: Page, values: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
    """How to avoid the matched error, each way with what the paste's values make of it."""
    found = avoid.hints([terms for _, terms in page.ways], dict(values))
    return [
        {"text": text, "hints": hints} for (text, _), hints in zip(page.ways, found, strict=True)
    ]


def earlier_wording(entry: search.Entry) -> dict[str, str] | None:
    """For a match on an earlier wording: its last release, the first release that
    words it otherwise, and the wording now."""
    if entry.old is None:
        return None
    until, since, now = entry.old
    return {"until": until, "since": since, "now": now}


# --- Which index, and is it older than the records ------------------------------------


def is_url(text: str) -> bool:
    return re.match(r"(?i)https?://", text) is not None


def has_index(folder: Path) -> bool:
    return (folder / "search" / "meta.json").is_file()


def newest_record(content: Path) -> tuple[float, Path] | None:
    """The most recently changed record file of ``content`` (and site.yaml): stats only."""
    best: tuple[float, Path] | None = None
    stack = [content / "errors"]
    site = content / "site.yaml"
    with contextlib.suppress(OSError):
        best = (site.stat().st_mtime, site)
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as found:
                for item in found:
                    if item.is_dir(follow_symlinks=False):
                        stack.append(Path(item.path))
                    elif item.name.endswith((".yaml", ".yml")):
                        when = item.stat().st_mtime
                        if best is None or when > best[0]:
                            best = (when, Path(item.path))
        except OSError:
            continue
    return best


def built_at(site: Path, cache: Path | None) -> float:
    """When the index in ``site`` was last built, as near as the files tell: a build
    keeps the time of a file whose bytes did not change, so this is the newest of the
    folder, its marker, the index's head and the build state the cache keeps for it
    (which each update adds to)."""
    from errdex.site.state import path_for

    paths = [site, site / MARKER, site / "search" / "meta.json"]
    if cache is not None:
        paths.append(path_for(cache, site))
    times = []
    for path in paths:
        with contextlib.suppress(OSError):
            times.append(path.stat().st_mtime)
    return max(times, default=0.0)


def staleness(site: Path, content: Path, cache: Path | None) -> str | None:
    """A one-line note when a record in ``content`` changed after ``site`` was built."""
    newest = newest_record(content)
    if newest is None or newest[0] <= built_at(site, cache):
        return None
    return (
        f"the index in {site} may be older than the records: {newest[1]} changed after "
        f"the last build; build again, or look up with --content {content}"
    )


def choose(
    site: str | None, content: Path | None, cache: Path | None, timeout: float, strict: bool
) -> Source:
    """The index ``lookup`` reads: ``site`` (a folder or a URL), else ``public/`` when a
    build left an index there, else the records of ``content`` (``content/``). A local
    index older than the records gets a note on standard error."""
    if site is None and content is None and has_index(Path("public")):
        site = "public"
    if site is None:
        return content_source(content or Path("content"), strict)
    if is_url(site):
        return site_source(WebStore(site, cache, timeout))
    folder = Path(site)
    source = site_source(FolderStore(folder))
    records = content or Path("content")
    if content is not None or records.is_dir():
        source.checking = _meanwhile(lambda: staleness(folder, records, cache))
    return source


def _meanwhile(work: Callable[[], str | None]) -> Callable[[], str | None]:
    """Run ``work`` in a thread (it waits on the file system more than it computes);
    return what waits for its answer."""
    import threading

    answer: list[str | None] = []
    thread = threading.Thread(target=lambda: answer.append(work()), daemon=True)
    thread.start()

    def wait() -> str | None:
        thread.join()
        return answer[0] if answer else None

    return wait


def batch(source: Source, lines: Iterable[str], out: TextIO, limit: int) -> int:
    """One JSON result a line for each ``{"id": ..., "text": ...}`` line; a line that is
    not one gets ``{"id": ..., "error": ...}`` and makes the exit status ``USAGE``."""
    bad = 0
    try:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            request: Any = None
            with contextlib.suppress(ValueError):
                request = json.loads(line)
            ident = request.get("id") if isinstance(request, dict) else None
            text = request.get("text") if isinstance(request, dict) else None
            if isinstance(text, str):
                document = {"id": ident, **answer(source, text, limit)[1]}
                if source.renew is not None:
                    source.renew()
            else:
                bad += 1
                why = f'line {number} is not a JSON object with a "text" string'
                document = {"id": ident, "error": why}
            # ASCII: a reader splitting at U+2028 or U+0085 still gets one result a line.
            out.write(json.dumps(document) + "\n")
            out.flush()
    except UnicodeDecodeError:
        print("errdex: standard input is not UTF-8 text", file=sys.stderr)
        return USAGE
    if bad:
        print(f"errdex: {bad} line(s) of standard input were not lookups", file=sys.stderr)
    return USAGE if bad else FOUND
