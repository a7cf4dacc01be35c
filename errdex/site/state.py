"""What the last build read and wrote, kept in the cache folder so the next build redoes
only what changed.

A state belongs to one output folder and is keyed by everything that shapes every page:
errdex's code, the versions of the libraries that render, the theme, the site config and
the build options. A state that is missing, truncated, corrupt, from another key or for
an output folder that changed since is ignored: the build is then a full one (``plan``
says which and why).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from itertools import chain
from pathlib import Path
from typing import Any, TypeAlias

from errdex.records.files import write_atomic
from errdex.records.problems import Problem
from errdex.site import write

TYPE_CHECKING = False
if TYPE_CHECKING:
    from errdex.records.link import Site
    from errdex.records.model import Record, SiteConfig
    from errdex.search import Entry
    from errdex.site.read import Parsed

FORMAT = b"errdex-state-10\n"
RENDERERS = ("Jinja2", "MarkupSafe", "markdown-it-py", "Pygments", "PyYAML", "rjsmin", "rcssmin")
"""The libraries whose versions shape the output."""


Stored: TypeAlias = "tuple[Record, tuple[tuple[str, str | None], ...], tuple[str, ...]]"
"""A record as the links keep it: its summary (``Record.summary``), its related entries
as shown (text, the id linked to or None), and the ids of the records that link to it."""


@dataclass(slots=True)
class Links:
    """What the pages of single errors show of the others; only a full build changes it."""

    config: SiteConfig
    chunks: list[bytes] = field(repr=False)
    """Each record's ``Stored``, SUMMARIES_PER_CHUNK records in site order to a pickled
    tuple of (id, that): a build that renders one error reads just the chunks of what its
    page shows, and one that links every record again reads all of them a third faster
    than a pickle a record. Read through ``stored`` and ``all_stored``."""
    chunk_of: dict[str, int] = field(repr=False)
    """Record id → its chunk."""
    groups: dict[tuple[str, str], tuple[str, ...]]
    """(repo, path) → the ids raised in that file, in line order."""
    option_names: dict[str, tuple[str, ...]]
    entries: list[bytes] = field(default_factory=list, repr=False)
    """Record id → how search sees it (``search.Entry``), pickled as one dict, then the
    entries updates replaced since (``LinksChange.entries``), in order: an update that
    changed what other pages show of a few records builds the search index again from
    these rather than from every message."""
    records_changed: dict[str, bytes] = field(default_factory=dict, repr=False)
    """The records updates replaced since (``LinksChange.records``), a pickle each."""
    unpickled: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    """The full build's part as objects: every ``Stored`` (``all_stored``) and search entry
    (``entries_of``), unpickled once or kept by the build that wrote them. Never saved;
    shared by the copies ``links`` makes, as that part never changes."""


@dataclass(slots=True)
class State:
    key: dict[str, str]
    """What shapes every page (errdex, the theme, the config, the options) → its digest."""
    reason: str
    """Why the full build that made this state was a full one; for debugging."""
    base_url: str
    """The site's address, for messages of a build that reads nothing else."""
    out: str
    """The output folder, resolved."""
    stamp: tuple[int, int, int, int]
    """The output folder's inode and its marker's inode, modification time and size, when
    the build ended (``stamp``)."""
    files: dict[str, tuple[int, int, str, str]]
    """Record file → (change time in ns, size, digest of its record's summary, digest of
    its bytes). The time is ``files.UNSURE`` for a file changed just before the build
    looked: the next build compares its bytes."""
    ids: dict[str, str]
    """Record file → the id of its record."""
    outputs: dict[str, str]
    """Every output file → digest of its bytes."""
    warnings: list[Problem]
    """The problems the content has (not those of the cache)."""
    links: Links | None
    """Kept in a file of its own (``*.links``), written by full builds only, and read
    only when needed (``links``)."""
    links_digest: bytes = b""
    """The digest of that file, as last written."""
    links_file: str = ""
    relinked: list[LinksChange] = field(default_factory=list)
    """What updates changed in the links since the full build wrote them, applied in
    order when the links are read."""
    cwd: str = field(default_factory=os.getcwd)
    """The working folder of the build that made it: the paths its problems and the
    records it keeps name are shown from there."""
    restored: bool = False
    """Set by ``load`` when the output folder is not the one this state's build left
    (another inode: a cache restored in CI, a copy) but holds its files byte for byte:
    the state is true of it, and the next note keeps its new ``stamp``."""


@dataclass(frozen=True, slots=True)
class LinksChange:
    """What an update changed in the links: the records it stored anew (each pickled
    ``Stored``), the files whose errors changed places, the new option spellings when
    they changed, and search's entries."""

    records: dict[str, bytes]
    groups: dict[tuple[str, str], tuple[str, ...]]
    option_names: dict[str, tuple[str, ...]] | None
    entries: bytes
    """Record id → its entry as search sees it now, pickled on its own: a build that
    reads the links but no entries (a prose edit) unpickles none, nor imports search;
    b"" when the update made none (it kept the search index)."""


SUMMARIES_PER_CHUNK = 32
"""Records to a chunk of ``Links.chunks``: most of the gain of one pickle for all, and a
prose edit reads a few hundred records at most."""


def stored(links: Links, record_id: str) -> Stored:
    """What the links keep of one record (``Links.chunks``)."""
    if record_id in links.records_changed:
        held: Stored = pickle.loads(links.records_changed[record_id])
    else:
        held = dict(pickle.loads(links.chunks[links.chunk_of[record_id]]))[record_id]
    return held


def all_stored(links: Links) -> dict[str, Stored]:
    """What the links keep of every record, in site order (a new dict each time)."""
    if "stored" not in links.unpickled:
        links.unpickled["stored"] = dict(chain.from_iterable(map(pickle.loads, links.chunks)))
    out = dict(links.unpickled["stored"])
    out.update((record_id, pickle.loads(blob)) for record_id, blob in links.records_changed.items())
    return out


def entries_of(links: Links) -> dict[str, Entry]:
    """Every record as search saw it (``Links.entries``), by id (a new dict each time)."""
    if "entries" not in links.unpickled:
        links.unpickled["entries"] = pickle.loads(links.entries[0])
    out = dict(links.unpickled["entries"])
    for blob in links.entries[1:]:  # those updates replaced, in order
        out.update(pickle.loads(blob) if blob else {})  # b"": the update made none
    return out


def pickled(value: Any) -> bytes:
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def code_key() -> str:
    """A digest of errdex's own code, of Python's version and of the libraries that render."""
    parts = [FORMAT, repr([sys.version, *_installed()]).encode()]
    package = Path(__file__).resolve().parent.parent  # the whole errdex package
    for path in sorted(package.rglob("*.py")):
        parts += [path.name.encode(), path.read_bytes()]
    return key_of(parts)


def key_of(parts: list[bytes]) -> str:
    """A digest of ``parts``, each told apart from the next."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


def _installed() -> list[str]:
    """The libraries that render, as their metadata folders are named
    (``jinja2-3.1.6.dist-info``): another version is another name. Reading folder names
    is much quicker than importing the libraries or their metadata."""
    wanted = {_normal(name) for name in RENDERERS}
    found = set()
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            if name.endswith(".dist-info") and _normal(name.split("-")[0]) in wanted:
                found.add(name)
    return sorted(found)


def _normal(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def stamp(out: Path) -> tuple[int, int, int, int]:
    """Which output folder this is, as last written: a full build swaps in a new folder
    (a new inode), and an update that changes a file puts a copy of its marker in place
    (another inode), so what a build made without this state (``--no-cache``, another
    cache) is told apart."""
    try:
        folder = out.stat()
        marker = (out / write.MARKER).stat()
    except OSError:
        return (0, 0, 0, 0)
    return (folder.st_ino, marker.st_ino, marker.st_mtime_ns, marker.st_size)


def path_for(cache: Path, out: Path) -> Path:
    """One state file per output folder."""
    name = hashlib.sha256(str(out.resolve()).encode()).hexdigest()[:16]
    return cache / f"state-{name}.bin"


def load(path: Path, out: Path) -> State | str:
    """The state, or why there is none that can be trusted for this build."""
    if not path.exists():
        return "no previous state"
    frames = _frames(path)
    try:
        state = pickle.loads(next(frames)[1])  # none (StopIteration): damaged
        if not isinstance(state, State):
            return "the previous state is damaged or from another errdex"
        for _, entry in frames:  # what each update since changed (``note``), in order
            files, outputs, state.warnings, change, stamped = pickle.loads(entry)
            state.files.update(files)
            state.outputs.update(outputs)
            state.relinked += [change] if change is not None else []
            state.stamp = stamped or state.stamp
    except Exception:
        return "the previous state is damaged or from another errdex"
    state.links_file = f"{path}.links"
    if state.stamp != stamp(out):
        if not holds(out, state.outputs):
            why = "removed, or built without this cache"
            return f"{out} changed since the last build into it ({why})"
        state.restored = True
    return state


def holds(out: Path, outputs: dict[str, str]) -> bool:
    """Whether ``out`` holds just the files of ``outputs``, each with the bytes it names the
    digest of: a site restored from a cache with its state (as CI does between runs), or
    copied, is the site the state describes, though its files are new ones."""
    if write.read_marker(out) != outputs.keys():
        return False
    for rel, wanted in outputs.items():
        try:
            data = (out / rel).read_bytes()
        except OSError:
            return False
        if not wanted or write.digest(data) != wanted:
            return False
    return True


Store: TypeAlias = "dict[bytes, Links]"
"""The links a process that builds one site again and again (``serve``) last wrote or
read, by the digest the state keeps of their file: its next update reads neither the
file nor every summary and search entry (0.4 s of a reworded message at 10,000 records)."""


def links(state: State, store: Store | None = None) -> Links | None:
    """The state's links, read now if need be (from ``store`` when it has them); None if
    their file is missing, damaged or not the one this state was saved with (whose
    digest it keeps: then it unpickles)."""
    if state.links is None:
        base = None if store is None else store.get(state.links_digest)
        if base is None:
            read = next(_frames(Path(state.links_file)), None)
            if read is None or read[0] != state.links_digest:
                return None
            base = pickle.loads(read[1])
            if store is not None:
                store.clear()  # the last full build's only
                store[state.links_digest] = base
        # A copy for this build, to apply what updates changed since (``base`` stays as a
        # full build wrote it: without records changed, with its entries only).
        found = replace(
            base, groups=dict(base.groups), entries=list(base.entries), records_changed={}
        )
        for change in state.relinked:
            found.records_changed.update(change.records)
            found.groups.update(change.groups)
            found.entries.append(change.entries)
            if change.option_names is not None:
                found.option_names = change.option_names
        state.links = found
    return state.links


def save(path: Path, state: State, store: Store | None = None) -> None:
    """Write the whole state (after a full build); ``store`` then holds its links."""
    assert state.links is not None
    # Before the state itself: ``sweep`` takes a state without one for an old errdex's.
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path.with_suffix(".out"), state.out.encode(), durable=False)  # never synced
    state.links_digest = _write(Path(f"{path}.links"), pickled(replace(state.links, unpickled={})))
    _write(path, pickled(replace(state, links=None)))  # the links have a file of their own
    for older in (".journal", ".lists"):  # what an errdex before state format 10 kept
        path.with_name(path.name + older).unlink(missing_ok=True)
    if store is not None:
        store[state.links_digest] = state.links


def note(
    path: Path,
    files: dict[str, tuple[int, int, str, str]],
    outputs: dict[str, str],
    warnings: list[Problem],
    links: LinksChange | None = None,
    out: Path | None = None,
) -> None:
    """Add what an incremental build changed to the state's file (its journal), rather
    than writing the whole state again. ``load`` reads the entries back in order; one
    that was cut short, and all after it, are left out (the files they name are then
    redone)."""
    stamped = None if out is None else stamp(out)  # an update's writes made a new marker
    entry = (files, outputs, warnings, links, stamped)
    with path.open("ab") as journal:
        journal.write(_framed(pickled(entry)))


def sweep(cache: Path) -> None:
    """Drop the states of output folders that are gone (a test's temporary folder, say):
    no build will read them again. Each state names its folder in a small file of its
    own, so this reads no state."""
    for stem in {path.name.partition(".")[0] for path in cache.glob("state-*")}:
        named = cache / f"{stem}.out"
        try:
            out = named.read_text(encoding="utf-8")
        except OSError:
            out = ""  # written by an errdex before this one: its key never matches ours
        if out and Path(out).exists():
            continue
        # Its folder's name last: until then, the rest is found.
        for path in sorted(cache.glob(f"{stem}.*"), key=named.__eq__):
            path.unlink(missing_ok=True)


def _framed(payload: bytes) -> bytes:
    """``payload`` as a frame of a state's file: its size, its digest (only a whole,
    undamaged frame is unpickled), itself."""
    return len(payload).to_bytes(8, "big") + hashlib.sha256(payload).digest() + payload


def _frames(path: Path) -> Iterator[tuple[bytes, memoryview]]:
    """The frames of a file ``_write`` wrote (and ``note`` added to): each one's digest
    and payload, up to the first that is cut short or damaged; none when the file is
    missing or another errdex's."""
    try:
        blob = path.read_bytes()
    except OSError:
        return
    if not blob.startswith(FORMAT):
        return
    view = memoryview(blob)  # views, not copies: the links of a large site are big
    at = len(FORMAT)
    while at + 40 <= len(view):
        size = int.from_bytes(view[at : at + 8], "big")
        digest, payload = bytes(view[at + 8 : at + 40]), view[at + 40 : at + 40 + size]
        if len(payload) != size or hashlib.sha256(payload).digest() != digest:
            return
        yield digest, payload
        at += 40 + size


def _write(path: Path, payload: bytes) -> bytes:
    """Write atomically (a reader sees the old file or the new one); returns the digest."""
    framed = _framed(payload)
    write_atomic(path, FORMAT + framed, durable=False)
    return framed[8:40]


def shown_links(
    site: Site, record_id: str
) -> tuple[tuple[tuple[str, str | None], ...], tuple[str, ...]]:
    """A record's ``Stored`` but its summary: what its page shows of the others."""
    related = tuple(
        (link.text, link.record.id if link.record else None) for link in site.related[record_id]
    )
    return related, tuple(b.id for b in site.backlinks.get(record_id, ()))


def of_full_build(
    site: Site,
    parsed: list[Parsed],
    key: dict[str, str],
    reason: str,
    out: Path,
    outputs: dict[str, str],
    warnings: list[Problem],
    entries: list[Entry],
) -> State:
    """What the next build's ``decide`` needs to know of a full build (``entries``: every
    record as search saw it). A full build links ``site`` from the records' summaries
    (``read.every_record``), so they are kept as they are, and as a ``Store`` would
    unpickle them."""
    stored = [(r.id, (r, *shown_links(site, r.id))) for r in site.records]
    by_id = {e.id: e for e in entries}
    return State(
        key=key,
        reason=reason,
        base_url=site.config.base_url,
        out=str(out.resolve()),
        stamp=stamp(out),
        files={item.path: item.kept for item in parsed if item.record is not None},
        ids={item.path: item.record.id for item in parsed if item.record is not None},
        outputs=outputs,
        warnings=warnings,
        links=Links(
            config=site.config,
            chunks=[
                pickled(tuple(stored[start : start + SUMMARIES_PER_CHUNK]))
                for start in range(0, len(stored), SUMMARIES_PER_CHUNK)
            ],
            chunk_of={r.id: n // SUMMARIES_PER_CHUNK for n, r in enumerate(site.records)},
            groups={key: tuple(r.id for r in items) for key, items in site.by_file.items()},
            option_names=dict(site.option_names),
            entries=[pickled(by_id)],
            unpickled={"stored": dict(stored), "entries": by_id},
        ),
    )
