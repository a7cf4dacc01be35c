"""Find every ``raise X("message")`` in a Python codebase: the facts a record's source holds.

A source tree is a git checkout read at a commit (``git cat-file``, so the checkout is
never switched) or a plain folder (an unpacked sdist or wheel).

Whatever scan finds becomes a record file that ``build`` must accept: a raise whose facts
a record cannot hold is simplified (a placeholder named ``{}``, the exception's own name,
a cut message) or skipped, and each such change is reported with its file and line.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import fnmatch
import hashlib
import pickle
import re
import stat
import string
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from errdex.records import validate
from errdex.records.document import Document
from errdex.records.files import write_atomic
from errdex.records.load import MAX_FILE_BYTES
from errdex.records.model import (
    SEARCH_MESSAGE_LIMIT,
    TemplateError,
    module_of,
    parse_template,
    source_lines,
)
from errdex.records.problems import Severity
from errdex.search import PATTERNS as SEARCH_PATTERNS
from errdex.source.avoid import (
    always_raises,
    arguments_of,
    defaults_of,
    is_elif,
    is_private,
    none_defaults,
)
from errdex.util.progress import Start, silent

EXCERPT_CONTEXT = 15
"""Lines kept above and below a raise in its excerpt."""
MAX_TEMPLATE_CHARS = SEARCH_MESSAGE_LIMIT
"""Longer messages are cut, counted as search counts them (literal text, and one for each
placeholder): search reads no further, and one template of 60,000 words would slow it."""
_ANSI = re.compile(SEARCH_PATTERNS["ansi"])


@dataclass(frozen=True, slots=True)
class RaiseSite:
    """One raise statement whose message is a string the scanner can read."""

    exception: str
    template: str
    """The message as an errdex template: placeholders named after source expressions."""
    path: str
    line: int
    """Line of the ``raise``."""
    function: str | None
    """Qualified name of the enclosing function (``ParallelConfig._verify``)."""
    condition: str | None
    """The test of the innermost ``if`` that leads to the raise."""
    excerpt_start: int
    excerpt: str
    parameters: tuple[str, ...] | None = None
    """The names whose values at the raise are still the caller's, where the
    excerpt does not tell (``_Finder._callers_values``)."""
    optional: tuple[str, ...] = ()
    """Those of ``parameters`` whose default is None: a caller who passes none leaves
    them None (``_Finder._left_none``)."""


@dataclass(frozen=True, slots=True)
class Scanned:
    """What one file gave: its sites, and what was simplified or skipped (``path:line: …``)."""

    sites: list[RaiseSite]
    notes: list[str]
    unread: list[str]
    """Where a raise makes an exception with no message written in it (``raise
    Error(name)`` of a parameter, ``raise Error()``): no record can say it (``path:line``)."""
    unread_sites: list[RaiseSite] = dataclasses.field(default_factory=list)
    """Those raises whose exception has a name, each with an empty ``template``: where
    ``pin`` finds a record written by hand for one (its message said in words)."""


class SourceError(Exception):
    """A source tree that cannot be read: not a folder, or a commit git does not know."""


class Unreadable(ValueError):
    """A file that parses as Python but is too deeply nested for scan to walk."""


def looks_like_test(path: str) -> bool:
    """Whether ``path`` looks like a test's, as pytest finds them: in a ``tests/`` folder,
    or a ``test_*.py``, ``*_test.py`` or ``conftest.py`` file. (A ``test/`` folder may be
    a library's own module: Django's test client.)"""
    *folders, name = path.split("/")
    return (
        "tests" in folders
        or name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
    )


def glob_for_test(path: str) -> str:
    """An ``--exclude`` glob that leaves out ``path``, a test's (``looks_like_test``), and
    the tests like it: its ``tests/`` folder, else its kind of file, no other."""
    *folders, name = path.split("/")
    if "tests" in folders:
        return "/".join(folders[: folders.index("tests") + 1]) + "/*"
    if name == "conftest.py" or name.startswith("test_"):
        kind = name if name == "conftest.py" else "test_*.py"
        return f"*/{kind}" if folders else kind
    return "*_test.py"  # its '*' matches across folders


class Tree:
    """Python files of a codebase, read from a folder or from a git commit."""

    def __init__(self, root: Path, commit: str | None = None, exclude: Sequence[str] = ()) -> None:
        self.root = root
        self.commit = commit
        self.exclude = tuple(exclude)
        """Globs of paths whose raises are not looked for (``excluded``)."""
        self._blobs: dict[str, str] | None = None
        self._files: list[str] | None = None
        if not root.is_dir():
            raise SourceError(f"{root}: not a folder")

    def excluded(self, path: str) -> bool:
        """Whether ``path`` (from the tree's root, with ``/``) matches a glob of ``exclude``;
        a ``*`` there matches across folders too (``tests/*``: all below ``tests/``)."""
        return any(fnmatch.fnmatchcase(path, glob) for glob in self.exclude)

    def unmatched(self) -> list[str]:
        """The globs of ``exclude`` that match no Python file of the tree."""
        if not self.exclude:
            return []
        every = self._python_files()
        return [g for g in self.exclude if not any(fnmatch.fnmatchcase(p, g) for p in every)]

    @staticmethod
    def is_git(root: Path) -> bool:
        return (root / ".git").exists()

    def paths(self) -> list[str]:
        """The Python files of the tree, but those ``exclude`` names."""
        return [p for p in self._python_files() if not self.excluded(p)]

    def _python_files(self) -> list[str]:
        """Every Python file of the tree, found once (``paths`` and ``unmatched`` ask)."""
        if self._files is None:
            if self.commit:
                found = (p for p in self._objects() if p.endswith(".py"))
            else:
                found = (
                    p.relative_to(self.root).as_posix()
                    for p in self.root.rglob("*.py")
                    if p.is_file() and ".git" not in p.relative_to(self.root).parts
                )
            self._files = sorted(found)
        return self._files

    def _objects(self) -> dict[str, str]:
        """Path → blob id of every file at the commit (links and submodules left out).

        Names come NUL-separated and files are fetched by blob id: a name may hold a
        newline, which would split a newline-separated request into two wrong ones.
        """
        if self._blobs is None:
            assert self.commit
            listing = _git_bytes(self.root, "ls-tree", "-r", "-z", "--full-tree", self.commit)
            self._blobs = {}
            for entry in listing.split(b"\0"):
                info, tab, name = entry.partition(b"\t")
                fields = info.split()
                if tab and len(fields) == 3 and fields[1] == b"blob" and fields[0] != b"120000":
                    # Names that are not UTF-8 are kept as escapes, and refused by name.
                    path = name.decode("utf-8", "surrogateescape")
                    self._blobs[path] = fields[2].decode()
        return self._blobs

    def read_all(self, paths: list[str]) -> Iterator[tuple[str, str | None]]:
        """(path, text) for each path; text is None when the file is missing or not UTF-8."""
        if not self.commit:
            for path in paths:
                try:
                    yield path, (self.root / path).read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError, ValueError):
                    yield path, None
            return
        blobs = self._objects()
        wanted = [blobs[p] for p in paths if p in blobs]
        # One git process for every file: thousands of `git show` calls would take minutes.
        output = b""
        if wanted:
            output = subprocess.run(
                ["git", "-C", str(self.root), "cat-file", "--batch"],
                input="".join(f"{blob}\n" for blob in wanted).encode(),
                capture_output=True,
                check=True,
            ).stdout
        position = 0
        for path in paths:
            if path not in blobs:
                yield path, None
                continue
            end = output.index(b"\n", position)
            header = output[position:end].split()
            position = end + 1
            if header[-1] == b"missing":
                yield path, None
                continue
            size = int(header[2])
            data = output[position : position + size]
            position += size + 1
            try:
                yield path, data.decode("utf-8")
            except UnicodeDecodeError:
                yield path, None


def resolve_commit(root: Path, ref: str) -> str:
    """The full sha of a commit, branch or tag of the git checkout at ``root``."""
    return _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").strip()


def has_remote(root: Path, repo: str) -> bool:
    """Whether a remote of the git checkout at ``root`` is ``repo`` (owner/name) on
    GitHub: its commits may be there, and a page's link to the code then opens."""
    try:
        urls = _git(root, "remote", "-v").split()
    except SourceError:
        return False
    wanted = repo.lower()
    for url in urls:
        path = url.lower().removesuffix("/").removesuffix(".git")
        if re.search(rf"github\.com[:/]{re.escape(wanted)}$", path):
            return True
    return False


def commit_date(root: Path, commit: str) -> str:
    """The day of a commit, YYYY-MM-DD (its committer date, in its own time zone)."""
    return _git(root, "show", "-s", "--format=%cs", commit).strip()


@dataclass(frozen=True, slots=True)
class Tag:
    """A tag of a git checkout, read by its full name (``refs/tags/NAME``): a branch
    of the same name is another ref, never this one."""

    name: str
    """Its name under ``refs/tags/`` (bytes that are not UTF-8 kept as escapes)."""
    commit: str | None
    """The commit it names, through any annotated tags; None when it names no commit."""
    names: str
    """What it names in the end: ``commit``, ``tree``, ``blob``, or ``missing`` (an
    object the checkout does not have)."""

    @property
    def no_commit(self) -> str:
        """What it names instead of a commit, as a reason to leave it out."""
        if self.names == "missing":
            return "names an object this checkout does not have, not a commit"
        return f"names a {self.names}, not a commit"


def tags(root: Path) -> dict[str, Tag]:
    """The tags of the git checkout at ``root``, by name, oldest version first."""
    listing = _git_bytes(
        root, "for-each-ref", "--sort=version:refname", "--format=%(refname)", "refs/tags/"
    )
    refs = [ref for ref in listing.split(b"\n") if ref.startswith(b"refs/tags/")]
    if not refs:
        return {}
    # One git process peels them all (``^{}``: through every annotated tag to what it
    # names). A ref name holds no space or line break, so a line is one ref.
    try:
        peeled = subprocess.run(
            ["git", "-C", str(root), "cat-file", "--batch-check=%(objectname) %(objecttype)"],
            input=b"".join(ref + b"^{}\n" for ref in refs),
            capture_output=True,
            check=True,
        ).stdout.split(b"\n")
    except FileNotFoundError as exc:
        raise SourceError("git is not installed") from exc
    except subprocess.CalledProcessError as exc:
        error = exc.stderr.decode("utf-8", "replace").strip() or "failed"
        raise SourceError(f"git cat-file: {error}") from exc
    found = {}
    for ref, line in zip(refs, peeled, strict=False):
        name = ref.removeprefix(b"refs/tags/").decode("utf-8", "surrogateescape")
        fields = line.decode("utf-8", "replace").split()
        known = len(fields) == 2 and fields[1] in ("commit", "tree", "blob")
        kind = fields[1] if known else "missing"
        found[name] = Tag(name, fields[0] if kind == "commit" else None, kind)
    return found


def tag_range(
    root: Path, tags: dict[str, Tag], ref: str
) -> tuple[list[Tag], list[tuple[str, str]]]:
    """The tags of ``A..B``: A, then the tags on the commits after it up to B (as
    ``git rev-list A..B`` has them, oldest first; tags on one commit in version order);
    and each tag left out for a reason other than being outside the range (it names no
    commit), with the reason."""
    first, _, last = ref.partition("..")
    ends = []
    for name in (first, last):
        tag = tags.get(name)
        if tag is None:
            raise SourceError(f"{ref}: {name!r} is not a tag of the checkout")
        if tag.commit is None:
            raise SourceError(f"{ref}: tag {name!r} {tag.no_commit}")
        ends.append(tag)
    if not is_ancestor(root, ends[0].commit or "", ends[1].commit or ""):
        raise SourceError(f"{ref}: {first} is not an ancestor of {last}; give the older tag first")
    span = f"{ends[0].commit}..{ends[1].commit}"
    order = {c: n for n, c in enumerate(_git(root, "rev-list", "--reverse", span).split())}
    inside = [t for t in tags.values() if t.commit in order and t.name != first]
    inside.sort(key=lambda t: order[t.commit or ""])  # stable: version order on one commit
    skipped = [(t.name, t.no_commit) for t in tags.values() if t.commit is None]
    return [ends[0], *inside], skipped


def is_ancestor(root: Path, older: str, newer: str) -> bool:
    """Whether commit ``older`` is ``newer`` or comes before it in its history."""
    done = subprocess.run(
        ["git", "-C", str(root), "merge-base", "--is-ancestor", older, newer],
        capture_output=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise SourceError(f"git merge-base: {done.stderr.decode('utf-8', 'replace').strip()}")
    return done.returncode == 0


def _git(root: Path, *args: str) -> str:
    return _git_bytes(root, *args).decode("utf-8", "replace")


def _git_bytes(root: Path, *args: str) -> bytes:
    try:
        result = subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=True)
    except FileNotFoundError as exc:
        raise SourceError("git is not installed") from exc
    except subprocess.CalledProcessError as exc:
        error = exc.stderr.decode("utf-8", "replace").strip() or "failed"
        raise SourceError(f"git {' '.join(args[:2])}: {error}") from exc
    return result.stdout


def scan_text(text: str, path: str) -> list[RaiseSite]:
    """Every readable raise in one file; raises SyntaxError when it does not parse, and
    Unreadable when it is nested too deeply to walk."""
    return scan_source(text, path).sites


def scan_source(text: str, path: str) -> Scanned:
    """``scan_text``, with a note for each raise that was simplified or skipped."""
    # A byte order mark, as Python reads a file: before its first line, not in it.
    text = text.removeprefix("\ufeff")
    try:
        tree = ast.parse(text, filename=path)
    except (RecursionError, MemoryError):
        # Python's own parser gives up on a few hundred thousand terms in one expression,
        # and runs out of memory on ten thousand `not`s or `lambda:`s in a row.
        raise Unreadable("nested too deeply to read") from None
    finder = _Finder(path, source_lines(text), _factories(tree), Imports.of(tree, path), tree)
    try:
        finder.visit(tree)
    except RecursionError:
        # A thousand `"a" + "a"` terms parse, but walking them takes a frame each.
        raise Unreadable("nested too deeply to read") from None
    return Scanned(finder.sites, finder.notes, finder.unread, finder.unread_sites)


def scan_tree(
    tree: Tree, known: dict[str, Scanned | str] | None = None
) -> tuple[list[RaiseSite], list[str]]:
    """All sites of a tree, in path and line order, and what was skipped or simplified.
    ``known`` holds what ``scan_files`` gave for some of its files already."""
    known = known or {}
    sites: list[RaiseSite] = []
    skipped: list[str] = []
    paths = []
    for path in tree.paths():
        refused = _bad_path(path)
        if refused:
            skipped.append(f"{_shown(path)}: {refused}; skipped")
        else:
            paths.append(path)
    fresh = iter(scan_files(list(tree.read_all([p for p in paths if p not in known]))))
    for scanned in (known[p] if p in known else next(fresh) for p in paths):
        if isinstance(scanned, str):
            skipped.append(scanned)
            continue
        sites.extend(scanned.sites)
        skipped.extend(scanned.notes)
    return sites, skipped


def scan_cached(
    tree: Tree,
    paths: list[str],
    cache: dict[str, Scanned | str] | None = None,
    progress: Start | None = None,
) -> dict[str, Scanned | str]:
    """What each of ``paths`` gives (a path the tree lacks gives no sites). ``cache`` keeps
    what each file gave, by git blob id and path, across commits of one checkout: walking
    releases, only the files a release changed are read and parsed again."""
    blobs = tree._objects() if tree.commit else {}
    out: dict[str, Scanned | str] = {}
    todo = []
    for path in paths:
        if tree.commit and path not in blobs:
            out[path] = Scanned([], [], [])
        elif cache is not None and f"{blobs.get(path)}\0{path}" in cache:
            out[path] = cache[f"{blobs[path]}\0{path}"]
        else:
            todo.append(path)
    read = list(tree.read_all(todo))
    for (path, _text), found in zip(read, scan_files(read, progress), strict=True):
        out[path] = found
        if cache is not None and path in blobs:
            cache[f"{blobs[path]}\0{path}"] = found  # the sites name their path
    return out


FILES_PER_TASK = 50
"""Files a worker scans at a time: parsing one takes a few milliseconds."""


_kept: dict[bytes, Scanned | str] | None = None
"""What files gave, by ``_digest`` of their path and text, while ``parses_kept`` is open."""
_used: dict[bytes, Scanned | str] = {}
"""What the files of this run gave: what ``parses_kept`` keeps for the next."""


@contextmanager
def parses_kept(folder: Path | None, save: bool = True) -> Iterator[None]:
    """While open, ``scan_files`` parses only the files that are not as a run before found
    them (by a digest of each file's path and text, kept in ``folder``): a rescan with
    nothing new, or a pin to a commit that changed a tenth of the files, parses that
    much. The file is errdex's code's and Python's own (``scan-<key>.bin``); with
    ``save``, what this run's files gave replaces it at the end. Without a folder, every
    file is parsed."""
    global _kept, _used
    if folder is None:
        yield
        return
    from errdex.site.state import code_key

    path = folder / f"scan-{code_key()[:16]}.bin"
    _kept = {}
    try:
        if path.is_file():  # not a pipe, say, that would never end
            found = pickle.loads(path.read_bytes())
            if isinstance(found, dict) and all(
                isinstance(value, (Scanned, str)) for value in found.values()
            ):
                _kept = found
    except Exception:  # damaged: parsed again
        pass
    _used = {}
    try:
        yield
        if save and _used:
            _save(folder, path)
    finally:
        _kept, _used = None, {}


_KEPT_NAME = re.compile(r"scan-[0-9a-f]{16}\.bin")
"""The names of the files ``parses_kept`` keeps: only such a file is ever removed."""


def _save(folder: Path, path: Path) -> None:
    """Keep what this run's files gave in ``path``, in place of an earlier errdex's file.
    A cache that cannot be written is said on stderr: the records are written already."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        data = pickle.dumps(_used, protocol=pickle.HIGHEST_PROTOCOL)
        write_atomic(path, data, durable=False)  # a cache: never synced
        _forget_others(folder, path)
    except OSError as exc:
        print(
            f"errdex: the parsed files were not kept in {folder} ({exc.strerror or exc}); "
            "the next run parses them again",
            file=sys.stderr,
        )


OTHERS_KEPT = 3
"""The files of other errdex or Python versions kept beside this one's, newest first: two
versions that share a cache (a pinned one in CI, a newer one at hand) keep their own."""
OTHERS_KEPT_FOR = 7 * 24 * 3600
"""Seconds since another version last wrote its file, after which it is removed."""


def _forget_others(folder: Path, path: Path) -> None:
    """Remove the files of other versions (an earlier errdex's, another Python's) but the
    ``OTHERS_KEPT`` newest, and any not written for ``OTHERS_KEPT_FOR`` seconds."""
    others = []
    for other in folder.iterdir():
        if other != path and _KEPT_NAME.fullmatch(other.name):
            with suppress(OSError):
                seen = other.lstat()
                if stat.S_ISREG(seen.st_mode):
                    others.append((seen.st_mtime, other))
    others.sort(reverse=True)
    now = time.time()
    for rank, (written, other) in enumerate(others):
        if rank >= OTHERS_KEPT or now - written > OTHERS_KEPT_FOR:
            other.unlink(missing_ok=True)


def _digest(path: str, text: str) -> bytes:
    both = path.encode("utf-8", "surrogateescape") + b"\0" + text.encode("utf-8", "surrogatepass")
    return hashlib.blake2b(both, digest_size=16).digest()


def scan_files(
    files: list[tuple[str, str | None]], progress: Start | None = None
) -> list[Scanned | str]:
    """What each (path, text) gave, or why it was skipped (``path: …; skipped``), in order;
    while ``parses_kept`` is open, as a run before found it when the file is the same.
    ``progress``, given how many files are parsed, counts them as they are."""
    if _kept is None:
        return _parse_files(files, progress)
    keys = [None if text is None else _digest(path, text) for path, text in files]
    known = [_kept.get(key) if key else None for key in keys]
    todo = [item for item, found in zip(files, known, strict=True) if found is None]
    parsed = iter(_parse_files(todo, progress))
    done = [next(parsed) if found is None else found for found in known]
    _used.update((key, found) for key, found in zip(keys, done, strict=True) if key)
    return done


def _parse_files(
    files: list[tuple[str, str | None]], progress: Start | None = None
) -> list[Scanned | str]:
    """What each (path, text) gave, parsed now.

    Many files are parsed on every core: parsing is most of a scan. Workers are forked
    once the texts are read, so only the bounds of each task and its sites travel.
    """
    from errdex.util.parallel import Tasks, chunks, jobs_for

    def task(bounds: tuple[int, int]) -> list[Scanned | str]:
        return [_scan_file(*files[i]) for i in range(*bounds)]

    shown = progress(len(files)) if progress else silent
    parsed: list[Scanned | str] = []
    with Tasks(task, jobs_for(len(files))) as tasks:
        for part in tasks.map(chunks(len(files), FILES_PER_TASK)):
            parsed += part
            shown(len(part))
    shown(0, done=True)
    return parsed


def _scan_file(path: str, text: str | None) -> Scanned | str:
    if text is None:
        return f"{path}: not UTF-8 text; skipped"
    try:
        return scan_source(text, path)
    except Unreadable as exc:
        return f"{path}: {exc}; skipped"
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        where = f"{path}:{line}" if line else path
        return f"{where}: does not parse ({getattr(exc, 'msg', exc)}); skipped"


def unread_place(path: str, line: int) -> str:
    """How ``Scanned.unread`` names the place of a raise: ``path:line``."""
    return f"{_shown(path)}:{line}"


def _shown(path: str) -> str:
    """A path for a one-line report: quoted and escaped when it holds a line break."""
    return path if path.isprintable() else repr(path)


def _bad_path(path: str) -> str | None:
    """Why no record can name ``path`` as its source, or None."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return "name is not UTF-8"
    refused = validate.refused(path)
    if refused:
        return f"name holds the character U+{ord(refused.group()):04X}, which no page may carry"
    # The validator's own rules, so a path scan accepts is one build accepts.
    data = {"repo": "scan/check", "exception": "Error", "source": {"path": path}}
    doc = Document(Path(path), path, data)
    for rule in (validate.rule_source_path, validate.rule_lengths):
        for problem in rule(doc, data):
            return problem.message
    return None


class Names(list[str]):
    """A list of names, written on one line (``parameters: [input_ids, mask]``)."""


def source_data(site: RaiseSite, commit: str) -> dict[str, Any]:
    """The ``source`` block of the record for ``site``, pinned to ``commit``."""
    source: dict[str, Any] = {"commit": commit, "path": site.path, "line": site.line}
    if site.function:
        source["function"] = site.function
    if site.parameters is not None:
        source["parameters"] = Names(site.parameters)
    if site.optional:
        source["optional"] = Names(site.optional)
    if site.condition:
        source["condition"] = site.condition
    source["excerpt"] = {"start": site.excerpt_start, "code": site.excerpt}
    return source


_CHECK_COMMIT = "0" * 40
"""The commit of the records checked before they are written: any valid one will do."""


def _refused(site: RaiseSite) -> list[str]:
    """What a build would refuse in the record scan writes for ``site`` (errors only)."""
    data = {
        "repo": "scan/check",
        "exception": site.exception,
        "message": site.template,
        "source": source_data(site, _CHECK_COMMIT),
    }
    doc = Document(Path(site.path), site.path, data)
    refused = [p.message for p in validate.check_record(doc) if p.severity is Severity.ERROR]
    # A record file takes at least the UTF-8 bytes of its text, and at most 10 bytes a
    # character (``\U0010FFFF``): only a record between the two is written out to measure.
    # A tenth of the limit is left for the prose a person adds.
    limit = MAX_FILE_BYTES * 9 // 10
    texts = [site.template, site.condition or "", site.excerpt]
    least = sum(len(text.encode()) for text in texts)
    if least <= limit < 10 * sum(len(text) for text in texts):
        from errdex.source.update import dump  # update builds on scan: imported when needed

        least = len(dump(data).encode())
    if least > limit:
        refused.append(
            f"the record would be {least:,} bytes; scan writes none over {limit:,} "
            f"(a build refuses files over {MAX_FILE_BYTES:,})"
        )
    return refused


class _Finder:
    """Walks the statements of a module (a raise is a statement: expressions hold none),
    keeping the enclosing function and the ``if`` tests that lead to each raise."""

    def __init__(
        self,
        path: str,
        lines: list[str],
        factories: dict[str, str | None] | None = None,
        imports: Imports | None = None,
        module: ast.Module | None = None,
    ) -> None:
        self.path = str(PurePosixPath(path))
        self.module = module
        self.constants: dict[str, ast.expr] | None = None
        """The module's messages its functions read by name (``_constants``), read when
        first needed: a raise of a name no statement before it gives a message."""
        self.around: list[list[dict[str, ast.expr | None]]] = []
        """For each function or class around the statement walked now, ``named`` where
        it is defined, innermost last (``_closure``)."""
        self.lines = lines
        self.factories = factories or {}
        """The module's functions that a raise may call to make its exception: each
        with the class it returns (``_factories``)."""
        self.imports = imports or Imports({}, frozenset(), frozenset())
        """What the module imports and the classes it defines (``Imports.of``)."""
        self.class_defs: list[ast.ClassDef] = []
        """The class statements around the statement walked now, innermost last."""
        self.classes: list[str] = []
        """The classes around the statement walked now, innermost last (``A``, ``A.B``)."""
        self.scope: list[str] = []
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef | None] = []
        """The functions around the statement walked now, innermost last (None for a class)."""
        self.bindings: dict[int, list[tuple[int, str]]] = {}
        """Each function's own bindings (``bindings``), found once: keyed by its ``id``."""
        self.conditions: list[tuple[ast.If, bool]] = []
        """The innermost ``if`` tests: each with whether the raise is in its ``else``."""
        self.sites: list[RaiseSite] = []
        self.notes: list[str] = []
        self.unread: list[str] = []
        self.unread_sites: list[RaiseSite] = []
        self.caught: dict[str, str | None] = {}
        """The names ``except X as name`` gives the exception it caught, in the handlers
        that lead here: ``raise name.__class__(…)`` and ``raise type(name)(…)`` raise an
        ``X`` (None: a class that cannot be told, or a name bound to something else)."""
        self.star = False
        """Whether the handlers walked now are ``except*``'s (which catch a group)."""
        self.named: list[dict[str, ast.expr | None]] = [{}]
        """The message each name was last given in the blocks that lead here
        (``msg = f"…"`` before ``raise ValueError(msg)``), innermost last; None for a
        name given something else since."""

    def visit(self, node: ast.AST) -> None:
        self._rebound(node)
        if isinstance(node, ast.Raise):
            self.visit_Raise(node)
        elif isinstance(node, ast.If):
            self.conditions.append((node, False))
            body = self._block(node.body, forget=False)
            self.conditions[-1] = (node, True)
            orelse = self._block(node.orelse, forget=False)
            self.conditions.pop()
            self._merged(node, body, orelse)
        elif isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            self.scope.append(node.name)
            self.functions.append(None if isinstance(node, ast.ClassDef) else node)
            outer_classes = self.classes
            outer_defs = self.class_defs
            if isinstance(node, ast.ClassDef):  # ``A.B`` for a class in a class, as keyed
                self.classes = [*self.classes, ".".join(self.scope)]
                self.class_defs = [*self.class_defs, node]
            outer, self.conditions = self.conditions, []
            outer_named, self.named = self.named, [{}]
            self.around.append(outer_named)
            outer_caught, self.caught = self.caught, {}
            self._statements(node.body)
            self.conditions, self.named, self.caught = outer, outer_named, outer_caught
            self.around.pop()
            self.classes, self.class_defs = outer_classes, outer_defs
            self.functions.pop()
            self.scope.pop()
        else:
            if isinstance(node, ast.Expr):
                self._message_given(node)
            self._assigned(node)
            star = type(node).__name__ == "TryStar"
            # Every other statement: its blocks in the order of its fields (try, then its
            # handlers, its else and its finally; each case of a match).
            for name in node._fields:
                value = getattr(node, name)
                if isinstance(value, list) and value and not isinstance(value[0], ast.expr):
                    self.star = star and name == "handlers"
                    self._block(value)
                    self.star = False

    def _message_given(self, node: ast.Expr) -> None:
        """``super().__init__("Not an executable object: %r" % target)`` in the
        ``__init__`` of an exception class: the message each raise of the class prints,
        whose raises give only its values (``raise exc.ObjectNotExecutableError(stmt)``).
        Recorded where it is written, as a raise of the class, by the name Python prints
        (``sqlalchemy.exc.ObjectNotExecutableError``); one whose message scan cannot read
        (``super().__init__(msg)`` of a parameter) is no raise, and is not said."""
        call = node.value
        function = self.functions[-1] if self.functions else None
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "__init__"
            and function is not None
            and function.name == "__init__"
            and len(self.functions) >= 2
            and self.functions[-2] is None  # a method of the class itself
            and self.class_defs
            and _an_exception(self.class_defs[-1])
        ):
            return
        args = list(call.args)
        base = call.func.value
        if isinstance(base, ast.Call) and isinstance(base.func, ast.Name):
            if base.func.id != "super":
                return
        elif isinstance(base, ast.Name | ast.Attribute) and args:
            # ``Base.__init__(self, "…")``
            if not (isinstance(args[0], ast.Name) and args[0].id == "self"):
                return
            args = args[1:]
        else:
            return
        if not args:
            return
        printed = f"{module_path(self.path)}.{self.classes[-1]}"
        try:
            named = ast.parse(printed, mode="eval").body
        except SyntaxError:  # a file name Python could not import (``my-module.py``)
            named = ast.Name(id=self.classes[-1].rpartition(".")[2])
        raised = ast.copy_location(
            ast.Raise(exc=ast.Call(func=named, args=args, keywords=call.keywords)), node
        )
        kept = len(self.unread), len(self.unread_sites), len(self.notes)
        self.visit_Raise(raised)
        del self.unread[kept[0] :], self.unread_sites[kept[1] :], self.notes[kept[2] :]

    def _block(self, nodes: list[Any], forget: bool = True) -> dict[str, ast.expr | None]:
        """A block's statements: the names it gives a message are forgotten after it (a
        loop's body may run or not; ``try``'s may stop anywhere), unless ``forget`` is
        false (an ``if``'s branches, ``_merged`` after both). Returns what it gave them."""
        self.named.append({})
        self._statements(nodes)
        given = self.named.pop()
        if forget:
            for name in given:
                self.named[-1][name] = None
        return given

    def _merged(
        self, node: ast.If, body: dict[str, ast.expr | None], orelse: dict[str, ast.expr | None]
    ) -> None:
        """The messages the names hold after an ``if``: where both of its branches go on
        past it and give a name two messages, either (``a if test else b``, a record
        each); where one branch ends (a raise, a return), the other's."""
        ends = _ends(node.body), _ends(node.orelse) if node.orelse else False
        for name in dict.fromkeys([*body, *orelse]):
            before = self._held(name)
            one, two = body.get(name, before), orelse.get(name, before)
            if None in ends:  # a branch that may end or go on: what it gives is not told
                value = None
            elif ends[0]:
                value = two
            elif ends[1]:
                value = one
            elif two is None and one is not None and _defaults(node, name):
                value = one  # ``if msg is None: msg = "…"``: the message the code gives
            elif one is None or two is None:
                value = None
            else:
                value = one if one is two else ast.IfExp(test=node.test, body=one, orelse=two)
            if value is not None and len(_branches(value)) > MOST_MESSAGES:
                # ``if a: msg += …`` three times over: eight messages, one record of the
                # start they share.
                value = _started(value)
            self.named[-1][name] = value

    def _held(self, name: str) -> ast.expr | None:
        """The message ``name`` holds here, or None (none known)."""
        for layer in reversed(self.named):
            if name in layer:
                return layer[name]
        return None

    def _rebound(self, node: ast.AST) -> None:
        """Forget the message of a name a statement binds otherwise than ``_assigned``
        reads: a walrus in its expressions (an ``if``'s test), a function or class it
        defines, a name it imports."""
        named = self.named[-1]
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            named[node.name] = None
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                named[(alias.asname or alias.name).split(".")[0]] = None
        for field in node._fields:
            value = getattr(node, field)
            for part in value if isinstance(value, list) else [value]:
                if isinstance(part, ast.expr):
                    for inner in ast.walk(part):
                        if isinstance(inner, ast.NamedExpr) and isinstance(inner.target, ast.Name):
                            named[inner.target.id] = None

    def _assigned(self, node: ast.AST) -> None:
        """Remember ``name = "…"`` (or an f-string, ``%`` or ``.format``); any other
        assignment to a name makes what it holds unknown."""
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets = node.targets
            if len(targets) == 1 and isinstance(targets[0], ast.Name):
                value = node.value
        elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
            targets = [node.target]
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                value = node.value
            elif (
                isinstance(node, ast.AugAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(node.op, ast.Add | ast.Mod)
                and (held := self._held(node.target.id)) is not None
            ):
                # ``msg += " You may need to …"``, ``message %= (…)``: the message goes on.
                value = _combined(held, node.op, node.value)
        elif isinstance(node, ast.With | ast.AsyncWith):
            targets = [item.optional_vars for item in node.items if item.optional_vars]
        else:
            return
        named = self.named[-1]
        for target in targets:
            if isinstance(target, ast.Name):
                named[target.id] = value
            elif isinstance(target, ast.Tuple | ast.List | ast.Starred):  # binds names
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                        named[name.id] = None
            for name in ast.walk(target):  # a caught exception's name given another value
                if isinstance(name, ast.Name) and name.id in self.caught:
                    self.caught[name.id] = None

    def _message_of(self, argument: ast.expr) -> ast.expr:
        """The expression a raise's message argument stands for: for a name, the message
        it was last given in the blocks that lead to the raise (ruff's EM rules ask for
        ``msg = f"…"`` then ``raise ValueError(msg)``)."""
        if isinstance(argument, ast.BinOp) and isinstance(argument.op, ast.Mod):
            # ``msg % {"name": …}``: the message the name holds, filled in.
            held = self._message_of(argument.left)
            if held is not argument.left:
                right = argument.right
                return _each(held, lambda message: ast.BinOp(message, ast.Mod(), right))
        if (
            isinstance(argument, ast.Call)
            and isinstance(argument.func, ast.Attribute)
            and argument.func.attr == "format"
        ):
            held = self._message_of(argument.func.value)  # ``msg.format(name)``
            if held is not argument.func.value:
                call = argument
                return _each(
                    held,
                    lambda message: ast.Call(
                        ast.Attribute(message, "format", ast.Load()), call.args, call.keywords
                    ),
                )
        if not isinstance(argument, ast.Name):
            return argument
        for layer in reversed(self.named):
            if argument.id in layer:
                return layer[argument.id] or argument
        function = self.functions[-1] if self.functions else None
        if function is None:  # a module's or a class's own statement
            return argument
        return self._closure(function, self.around[-1]).get(argument.id) or argument

    def _statements(self, nodes: list[Any]) -> None:
        for node in nodes:
            if isinstance(node, ast.stmt):
                self.visit(node)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                self.named[-1][node.name] = None  # ``except KeyError as msg``
                outer, star = dict(self.caught), self.star
                self.caught[node.name] = None if star else _caught_name(node.type)
                self.star = False
                self._block(node.body)
                self.caught, self.star = outer, star
                if node.name in outer:
                    self.caught[node.name] = None  # Python deletes the name at the end
            elif isinstance(node, ast.ExceptHandler | ast.match_case):
                self._block(node.body)

    def _condition(self) -> str | None:
        """The test of the innermost ``if`` that leads here; in its ``else``, ``not (…)`` of
        the tests of its chain (``if a: … elif b: … else:``) but those whose branch ends in
        a raise (making one true raises that error instead), as ``avoid`` reads them."""
        if not self.conditions:
            return None
        node, otherwise = self.conditions[-1]
        if not otherwise:
            return _unparse(node.test) or None
        chain = [node]
        for outer, outer_otherwise in reversed(self.conditions[:-1]):
            if not outer_otherwise or outer.orelse != [chain[0]] or not is_elif(outer):
                break
            chain.insert(0, outer)
        tests = [n.test for n in chain if not always_raises(n.body)]
        if not tests:
            return None
        text = _unparse(tests[0] if len(tests) == 1 else ast.BoolOp(op=ast.Or(), values=tests))
        return f"not ({text})" if text else None

    def visit_Raise(self, node: ast.Raise) -> None:
        call = node.exc
        if isinstance(call, ast.Name) and call.id not in self.caught:
            # ``e = InvalidRequestError("…")``, an attribute set on it, then ``raise e``.
            held = self._held(call.id)
            if (
                isinstance(held, ast.Call)
                and isinstance(held.func, ast.Name | ast.Attribute)
                and class_like(exception_name(held.func) or "")
            ):
                call = held
        if not isinstance(call, ast.Call):
            return  # ``raise``, ``raise error``, ``raise Error``: nothing new with a message
        where = unread_place(self.path, node.lineno)
        # A class that takes a context before its problem (PyYAML's errors: context, its
        # mark, problem, its mark) prints the parts given: the first that is not None.
        given = list(call.args)
        while given and isinstance(given[0], ast.Constant) and given[0].value is None:
            given.pop(0)
        func = call.func
        if isinstance(func, ast.Name | ast.Attribute):
            exception = exception_name(func)
            if exception is not None and exception.endswith(".__class__"):
                # ``raise error.__class__(…)`` in ``except KeyError as error``: a KeyError.
                exception = self.caught.get(exception.removesuffix(".__class__"))
        else:
            typed = _type_of_name(func)  # ``raise type(error)(…)``: as error.__class__
            if typed is None:
                if not given:
                    self.unread.append(where)
                return
            exception = self.caught.get(typed)
        made = False
        maker = self._maker(exception) if exception is not None else None
        if exception is not None and maker is not None:
            # ``raise self._invalid(msg)``: a function of this module makes the exception.
            returned = self.factories[maker]
            owner = exception.rpartition(".")[0]
            head = given[0] if given else None
            first = exception_name(head) if isinstance(head, ast.Name | ast.Attribute) else None
            if returned == _GIVEN:
                # ``raise _format(NotFoundError, message, response)``: the class given.
                if not (first and class_like(first)) or first.rpartition(".")[2].isupper():
                    called = exception.rpartition(".")[2]
                    self.notes.append(
                        f"{where}: {called}() makes the class given first, and no class's "
                        "name is given; skipped"
                    )
                    return
                returned, given = first, given[1:]
            if returned == _SELF or (returned is None and owner and class_like(owner)):
                returned = owner if owner not in ("self", "cls") else None
            if returned is None or not class_like(returned):
                called = exception.rpartition(".")[2]
                self.notes.append(
                    f"{where}: {called}() makes the exception raised, and its return "
                    "annotation names no class errdex can read; skipped"
                )
                return
            exception, made = returned, True
        if exception is not None and not made and _made_elsewhere(exception):
            # ``raise _api.kwarg_error(name, kwargs)``: a function of another module makes
            # the exception, and words its message; its arguments are not the message.
            called = exception.rpartition(".")[2]
            self.notes.append(
                f"{where}: {called}() of another module makes the exception raised; skipped"
            )
            return
        if exception is not None and not made:
            exception, unknown = self._spelled(exception)
            if unknown:
                self.notes.append(f"{where}: {exception} names no class: {unknown}; skipped")
                return
        # ``"… exactly one …" if one else "… one or none …"``: each message it may raise.
        params = next((k.value for k in call.keywords if k.arg == "params"), None)
        templates = (
            [
                found
                for branch in _branches(self._message_of(given[0]))
                if (found := _filled(branch, params)) is not None
            ]
            if given
            else []
        )
        if given and not templates and exception is not None and not _builtin(exception):
            # ``BadOptionUsage(option_name, _("…"))``: a class of the codebase that takes
            # what the message is about first (a builtin's would print the tuple).
            templates = [t for t in [_message_after_names(given)] if t is not None]
        if made:
            # Braces the code wrote for the function to fill in (``"{field} is required"``,
            # ``f"{x} is invalid for {{field}}"``) are placeholders of what it prints.
            templates = [_FIELD.sub(r"{\1}", template) for template in templates]
        templates = list(dict.fromkeys(t for t in templates if t.strip()))
        if not templates:
            self.unread.append(where)
            if exception is not None:
                self.unread_sites.append(self._site(node, exception, ""))
            return
        if exception is None:
            self.notes.append(f"{where}: {_unparse(call.func)!r} has no name to record; skipped")
            return
        for template in templates:
            self._record(node, where, exception, validate.escape_refused(template))

    def _spelled(self, exception: str) -> tuple[str, str]:
        """The class a raise names, as Python prints it where the code says: a module
        imported under another name said by its own (``sa_exc.InvalidRequestError`` is
        ``sqlalchemy.exc.InvalidRequestError`` after ``from .. import exc as sa_exc``),
        a class an instance holds by its name alone (``self.dbapi.Error`` is ``Error``).
        A parameter is the class its default names (``exc_cls=exc.ArgumentError``). Or
        why a name in lower case names no class: a parameter with no class as its
        default, a function imported from the module's own package (``raise
        _unexpected(kw)``), which makes the exception and words its message."""
        head, _, rest = exception.partition(".")
        if rest:
            if head in ("self", "cls"):
                last = rest.rpartition(".")[2]
                return (last, "") if class_like(last) else (exception, "")
            imported = self.imports.imported.get(head)
            return (f"{imported}.{rest}" if imported else exception), ""
        if class_like(exception) or _builtin(exception) or exception in self.imports.classes:
            return exception, ""
        for function in reversed(self.functions):
            if function is None:
                continue
            default = _default_of(function, exception)
            if default is None:
                continue
            # ``def f(…, exc_cls=exc.ArgumentError)``: the class it raises unless told.
            named = (
                exception_name(default) if isinstance(default, ast.Name | ast.Attribute) else None
            )
            if named is None or not class_like(named):
                return exception, "a parameter with no class as its default"
            return self._spelled(named)
        if exception in self.imports.own:
            return exception, "a function of its own package, which makes the exception"
        return exception, ""

    def _record(self, node: ast.Raise, where: str, exception: str, template: str) -> None:
        """A raise of ``exception`` with the message ``template``, unless refused."""
        size = _search_size(template)
        if size > MAX_TEMPLATE_CHARS:
            self.notes.append(
                f"{where}: message of {size:,} characters cut to its first "
                f"{MAX_TEMPLATE_CHARS:,} (search reads no further)"
            )
            template = _cut(template, MAX_TEMPLATE_CHARS)
        site = self._site(node, exception, template)
        refused = _refused(site)
        if refused:
            self.notes.append(f"{where}: {'; '.join(refused)}; skipped")
            return
        self.sites.append(site)

    def _maker(self, called: str) -> str | None:
        """The name ``_factories`` gives what a raise calls: ``self.x`` and ``cls.x`` are the
        enclosing class's (``Reader.x``), a dotted name its class's; else any function of
        the module named so (``\0x``); None for none."""
        head, _, rest = called.partition(".")
        if head in ("self", "cls") and rest and "." not in rest and self.classes:
            key = f"{self.classes[-1]}.{rest}"
        else:
            key = called
        if key in self.factories:
            return key
        owner, _, name = called.rpartition(".")
        if owner and class_like(owner):
            return None  # another module's class's maker: its name is the record's
        return f"\0{name}" if f"\0{name}" in self.factories else None

    def _site(self, node: ast.Raise, exception: str, template: str) -> RaiseSite:
        end = node.end_lineno or node.lineno
        start = max(1, node.lineno - EXCERPT_CONTEXT)
        # A raise that spans more lines than an excerpt may hold is shown from its start.
        stop = min(len(self.lines), end + EXCERPT_CONTEXT, start + validate.MAX_EXCERPT_LINES - 1)
        parameters = self._callers_values(start, node.lineno)
        left_none = self._left_none() if parameters else set()
        return RaiseSite(
            exception=exception,
            template=template,
            path=self.path,
            line=node.lineno,
            function=".".join(self.scope) or None,
            condition=self._condition(),
            excerpt_start=start,
            excerpt=validate.escape_refused("\n".join(self.lines[start - 1 : stop]) + "\n"),
            parameters=parameters,
            optional=tuple(name for name in parameters or () if name in left_none),
        )

    def _left_none(self) -> set[str]:
        """The parameters of the functions around the raise (up to a class's body) whose
        default is None, each read from the innermost function that takes it."""
        none: dict[str, bool] = {}
        for function in reversed(self.functions):
            if function is None:
                break
            defaulted = none_defaults(function)
            for arg, _ in defaults_of(function):
                none.setdefault(arg.arg, arg.arg in defaulted)
        return {name for name, is_none in none.items() if is_none}

    def _callers_values(self, start: int, line: int) -> tuple[str, ...] | None:
        """The names whose values at line ``line`` (a raise) are those the caller of the
        innermost function gave: its parameters, when its signature lies above line
        ``start`` (the excerpt's first); for a function defined in another (a helper the outer code
        calls), the outer's, and its own only when the outer returns it (a decorator's
        wrapper, a factory's function). None where the excerpt tells as much."""
        chain = []
        for function in reversed(self.functions):
            if function is None:
                break  # a class's body: its methods' callers are the class's users
            chain.append(function)
        if not chain:
            return None
        inner = chain[0]
        if len(chain) == 1:
            if inner.lineno >= start:
                return None  # the excerpt shows the signature
            return callers_values(inner, start, line, self._bindings(inner)) or None
        given: list[str] = []
        shadowed: set[str] = set()
        for depth, function in enumerate(chain):
            parent = chain[depth + 1] if depth + 1 < len(chain) else None
            bound = self._bindings(function)
            # A function's parameters are its caller's when it is no helper of the code
            # around it: the outermost, or one its parent returns.
            if not is_private(function.name) and (
                parent is None or _returns(parent, function.name)
            ):
                if function is inner:
                    values = callers_values(inner, start, line, bound, shown=True)
                else:
                    names = {name for _, name in bound}
                    values = tuple(a.arg for a in arguments_of(function) if a.arg not in names)
                given += [v for v in values if v not in shadowed and v not in ("self", "cls")]
            # A name a nested function binds or takes is its own all through it.
            shadowed |= {a.arg for a in arguments_of(function)} | {n for _, n in bound}
        return tuple(dict.fromkeys(given))

    def _closure(
        self,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        outer: list[dict[str, ast.expr | None]],
    ) -> dict[str, ast.expr | None]:
        """The messages ``function`` (the innermost one walked now; ``outer``: ``named``
        where it is defined) reads by name from the scopes around it: a name the function
        right around it binds once, to a message given above the ``def`` (``errmsg =
        f"not implemented for {…} type"``, then a nested ``def`` that raises
        ``NetworkXNotImplemented(errmsg)``), and the module's ``_constants`` that no
        function around it binds; none that ``function`` binds or takes itself."""
        own = {name for _, name in self._bindings(function)}
        own |= {a.arg for a in arguments_of(function)}
        if self.constants is None:
            self.constants = _constants(self.module) if self.module is not None else {}
        found: dict[str, ast.expr | None] = dict(self.constants)
        around = self.functions[-2] if len(self.functions) > 1 else None
        for enclosing in self.functions[:-1]:
            if enclosing is not None:  # its names hide the module's, known or not
                for _, name in self._bindings(enclosing):
                    found.pop(name, None)
        if around is not None:  # a class's body in between is no scope of the function's
            counts = Counter(name for _, name in self._bindings(around))
            held: dict[str, ast.expr | None] = {}
            for layer in outer:
                held.update(layer)
            for name, count in counts.items():
                if count == 1 and held.get(name) is not None:
                    found[name] = held[name]
        return {name: value for name, value in found.items() if name not in own}

    def _bindings(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[int, str]]:
        if id(function) not in self.bindings:
            self.bindings[id(function)] = bindings(function)
        return self.bindings[id(function)]


def _own_statements(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.stmt]:
    """The statements of ``function``'s body, at any depth of its blocks, but not those
    of a function or class defined in it (their own)."""
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(node, ast.stmt):
            yield node
        if isinstance(node, ast.stmt | ast.excepthandler | ast.match_case):
            stack.extend(ast.iter_child_nodes(node))


def _returns(outer: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether ``outer`` returns the function it defines as ``name``, as it is or wrapped
    (``return wrapper``, ``return functools.wraps(func)(wrapper)``); not what a call of
    it gives (``return inner(mode)``)."""
    for node in _own_statements(outer):
        if isinstance(node, ast.Return) and node.value is not None:
            called = {id(n.func) for n in ast.walk(node.value) if isinstance(n, ast.Call)}
            if any(
                isinstance(part, ast.Name) and part.id == name and id(part) not in called
                for part in ast.walk(node.value)
            ):
                return True
    return False


def callers_values(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    start: int,
    line: int,
    bound: Sequence[tuple[int, str]] | None = None,
    shown: bool = False,
) -> tuple[str, ...]:
    """The parameters of ``function`` whose values are still those its caller gave at
    line ``line`` (a raise): those no line of the function above it binds anew (``x = x
    or 0``, ``for x in``, ``with … as x``, ``del x``, a ``match`` capture), nor a line
    of a loop around it (run again before it); none when its
    ``def`` is at or below ``start`` (the excerpt's first line, which then shows them),
    unless ``shown``. ``self`` and ``cls`` are none: the caller names no such thing.
    ``bound``: ``bindings(function)``."""
    if function.lineno >= start and not shown:
        return ()
    bound = bindings(function) if bound is None else bound
    # A loop around the raise runs its lines below the raise before it again.
    loops = _loops_around(function, line)
    taken = {
        name for at, name in bound if at < line or any(first <= at <= last for first, last in loops)
    }
    return tuple(
        arg.arg
        for arg in arguments_of(function)
        if arg.arg not in taken and arg.arg not in ("self", "cls")
    )


def _loops_around(
    function: ast.FunctionDef | ast.AsyncFunctionDef, line: int
) -> list[tuple[int, int]]:
    """The lines (first, last) of the body of each ``for`` or ``while`` of ``function``
    that holds line ``line``: its body, run again and again; not its ``else``, run once
    after it."""
    found = []
    for node in _own_statements(function):
        if isinstance(node, ast.For | ast.AsyncFor | ast.While):
            first, last = node.body[0].lineno, node.body[-1].end_lineno or 0
            if first <= line <= last:
                found.append((first, last))
    return found


def _constants(tree: ast.Module) -> dict[str, ast.expr]:
    """The module's names bound once, by a statement of its own, to a string
    (``_NOT_FOUND = "no file {!r} in {}"``): what its functions raise when they raise
    ``ValueError(_NOT_FOUND.format(name, folder))``. None that a function declares
    ``global``: it may bind them again."""
    counts = Counter(name for _, name in bindings(tree))
    rebound = {
        name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names
    }
    found: dict[str, ast.expr] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign | ast.AnnAssign)
            and (target := node.targets[0] if isinstance(node, ast.Assign) else node.target)
            and isinstance(target, ast.Name)
            and (isinstance(node, ast.AnnAssign) or len(node.targets) == 1)
            and counts[target.id] == 1
            and target.id not in rebound
            and isinstance(node.value, ast.Constant | ast.JoinedStr)
            and (not isinstance(node.value, ast.Constant) or isinstance(node.value.value, str))
        ):
            found[target.id] = node.value
    return found


def bindings(
    function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Module,
) -> list[tuple[int, str]]:
    """Each name the body of ``function`` binds in its own scope, with the line where it
    does: assigned, deleted, a loop's or a ``with``'s target, an import, a caught
    exception, a match's capture, a function or class defined. A nested function's or
    class's body and a comprehension's own targets bind in scopes of their own."""
    found: list[tuple[int, str]] = []
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.append((line, node.name))
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.comprehension):
            stack += [node.iter, *node.ifs]  # a walrus there binds here
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.append((line, node.id))
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found.append((line, node.name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            found += [(line, (alias.asname or alias.name).split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            found.append((line, node.name))
        elif isinstance(node, ast.MatchMapping) and node.rest:
            found.append((line, node.rest))
        stack.extend(ast.iter_child_nodes(node))
    return found


_SELF = "\0Self"
"""``_factories``' mark of a function annotated to return ``Self``."""
_GIVEN = "\0given"
"""``_factories``' mark of a function that makes the class its first argument names:
``def _format(error_type: Type[HTTPError], message: str, …) -> HTTPError``."""


@dataclass(frozen=True, slots=True)
class Imports:
    """What a module's raises may name: what it imports, as Python names it, and the
    classes it defines."""

    imported: dict[str, str]
    """Each name an import binds to what it imports under another name or from a
    package (``sa_exc``: ``sqlalchemy.exc``); a name imported as two things is left out."""
    own: frozenset[str]
    """The names imported from the module's own package (a relative import, or one from
    its top module)."""
    classes: frozenset[str]
    """The classes the module defines."""

    @classmethod
    def of(cls, tree: ast.Module, path: str) -> Imports:
        parts = module_path(path).split(".")
        # What ``from . import x`` imports from: the package of a module, or the package
        # an ``__init__.py`` is.
        package = parts if PurePosixPath(path).name == "__init__.py" else parts[:-1]
        found: dict[str, set[str]] = {}
        own: set[str] = set()
        classes = set()
        for node in _statements_in(tree.body):
            if isinstance(node, ast.ClassDef):
                classes.add(node.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        found.setdefault(alias.asname, set()).add(alias.name)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    if node.level > len(package):
                        continue  # above the top package: no module Python imports
                    base = package[: len(package) - node.level + 1]
                else:
                    base = []
                module = ".".join([*base, *([node.module] if node.module else [])])
                if not module:
                    continue
                for alias in node.names:
                    if alias.name == "*":
                        continue
                    name = alias.asname or alias.name
                    found.setdefault(name, set()).add(f"{module}.{alias.name}")
                    if node.level or (package and module.split(".")[0] == package[0]):
                        own.add(name)
        imported = {name: next(iter(each)) for name, each in found.items() if len(each) == 1}
        return cls(imported, frozenset(own), frozenset(classes))


def _statements_in(body: Sequence[ast.AST]) -> Iterator[ast.AST]:
    """Every statement of a block and of the blocks inside it (an ``except`` clause and a
    ``case`` too), without walking their expressions: an import and a class statement
    are statements, and walking every node of a module cost scan a third more time."""
    for node in body:
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from _statements_in(inner)


def module_path(path: str) -> str:
    """The dotted name Python imports a file of a codebase by: ``sqlalchemy.orm.session``
    of ``lib/sqlalchemy/orm/session.py`` (the ``src/`` and ``lib/`` layouts as
    ``module_of`` reads them), ``pkg`` of ``pkg/__init__.py``."""
    top = module_of(path)
    parts = path.removesuffix(".py").split("/")
    parts = parts[parts.index(top) :] if top in parts else parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _factories(tree: ast.Module) -> dict[str, str | None]:
    """The functions a module defines and the methods of its classes, by the name a raise
    calls them by (``make_error``, ``Reader._invalid``, ``Error.from_value``), each with
    the class its return annotation names (``-> InvalidMetadata``, ``-> "errors.Invalid"``,
    ``-> Optional[Invalid]``, ``-> type[Invalid]``; ``_SELF`` for ``Self``; ``_GIVEN``
    for one whose first parameter is annotated ``Type[X]``, which returns a call of it
    and is annotated to return that ``X`` or nothing), or None: no class, a type
    variable, ``NoReturn``, or one name defined twice to return two.
    A definition without an annotation keeps what one before it said (``@overload``)."""
    typevars = {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and _last_name(node.value.func) == "TypeVar"
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found: dict[str, str | None] = {}

    def note(key: str, node: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> None:
        if node.returns is None and key in found:
            return  # ``@overload`` stubs said it, the body does not
        named = _returned_safely(node.returns, typevars)
        given = _class_given(node, method)
        if given is not None and (
            node.returns is None
            or named == given
            or (isinstance(node.returns, ast.Name) and node.returns.id == given)  # ``-> T``
        ):
            named = _GIVEN
        found[key] = named if found.get(key, named) == named else None

    def walk(body: list[Any], within: str | None, in_class: bool = False) -> None:
        """The statements of ``body``, and of the blocks they hold (not their
        expressions: no definition is one); ``within``, ``Class.`` where a definition
        is a method of a module's class, ``""`` at the module's top, else None;
        ``in_class``, whether a definition there is a method of any class."""
        for node in body:
            if isinstance(node, ast.ClassDef):
                walk(node.body, None if within is None else f"{within}{node.name}.", True)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                static = any(_last_name(d) == "staticmethod" for d in node.decorator_list)
                method = in_class and not static
                if within is not None:
                    note(within + node.name, node, method)
                # Any definition by its bare name too: a maker a class inherits, one in
                # a function or under ``if``/``try``, ``type(self).make``.
                note(f"\0{node.name}", node, method)
                walk(node.body, None)
            else:
                for field in ("body", "orelse", "finalbody"):
                    walk(getattr(node, field, None) or [], None, in_class)
                for inner in (*getattr(node, "handlers", ()), *getattr(node, "cases", ())):
                    walk(inner.body, None, in_class)

    walk(tree.body, "")
    return found


def _class_given(node: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> str | None:
    """The ``X`` of ``Type[X]`` (or ``type[X]``) that annotates the first parameter of
    ``node`` (after ``self`` or ``cls`` of a ``method``), a type variable's name too,
    when ``node`` returns a call of that parameter: the class it is given to make (a
    function that makes another class, or raises, is no such maker); None."""
    params = [*node.args.posonlyargs, *node.args.args][1 if method else 0 :]
    annotation = params[0].annotation if params else None
    if not isinstance(annotation, ast.Subscript) or _last_name(annotation.value) not in (
        "Type",
        "type",
    ):
        return None
    given = params[0].arg
    made = any(
        isinstance(n, ast.Return)
        and isinstance(n.value, ast.Call)
        and isinstance(n.value.func, ast.Name)
        and n.value.func.id == given
        for n in _own_statements(node)
    )
    inner = annotation.slice
    named = exception_name(inner) if isinstance(inner, ast.Name | ast.Attribute) else None
    return named if made else None


def _returned_safely(node: ast.expr | None, typevars: set[str]) -> str | None:
    """``_returned``, None for an annotation too deep to walk (a thousand ``| None``s)."""
    try:
        return _returned(node, typevars)
    except RecursionError:
        return None


def _returned(node: ast.expr | None, typevars: set[str]) -> str | None:
    """The class a return annotation names (see ``_factories``), or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # ``Invalid | None``
        sides = [n for n in (node.left, node.right) if not _is_none(n)]
        return _returned(sides[0], typevars) if len(sides) == 1 else None
    if isinstance(node, ast.Subscript):
        wrapper = _last_name(node.value)
        return _returned(node.slice, typevars) if wrapper in ("Optional", "type", "Type") else None
    if not isinstance(node, ast.Name | ast.Attribute):
        return None
    named = exception_name(node)
    last = (named or "").rpartition(".")[2]
    if last == "Self":
        return _SELF
    if last in ("NoReturn", "Never") or named in typevars:
        return None  # it raises, itself, what it makes; or any class its caller gives
    return named


def _last_name(node: ast.expr) -> str:
    """``TypeVar`` of ``typing.TypeVar``; "" for what is no name."""
    if isinstance(node, ast.Name | ast.Attribute):
        return (exception_name(node) or "").rpartition(".")[2]
    return ""


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _made_elsewhere(called: str) -> bool:
    """Whether a raise calls a function of another module that makes the exception:
    a module's (``_api.kwarg_error``), named as such functions are, ``…_error``,
    ``…_exception``, ``make_…``, ``build_…``, ``create_…``. Python's own classes in
    lower case are no such name (``socket.error``, ``ftplib.error_perm``), nor is a
    class's own constructor (``Error.from_value``) or what ``self.error_class`` holds."""
    owner, _, last = called.rpartition(".")
    last = last.lstrip("_")
    module = owner.split(".")[-1].lstrip("_")
    return (
        bool(module)
        and module.islower()
        and module not in ("self", "cls")
        and last.islower()
        and (
            last.endswith(("_error", "_exception"))
            or last.startswith(("make_", "build_", "create_"))
        )
    )


def _an_exception(node: ast.ClassDef) -> bool:
    """Whether a class is written as an exception is: its name, or a base's, ends in
    ``Error``, ``Exception`` or ``Warning``."""
    names = [
        node.name,
        *(exception_name(b) or "" for b in node.bases if isinstance(b, ast.Name | ast.Attribute)),
    ]
    return any(n.rpartition(".")[2].endswith(("Error", "Exception", "Warning")) for n in names)


def _default_of(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> ast.expr | None:
    """The default of ``function``'s parameter ``name``: a Constant None where it has
    none (``*args`` and ``**kwargs`` too), None where ``function`` has no such parameter."""
    if name not in {arg.arg for arg in arguments_of(function)}:
        return None
    default = next((d for arg, d in defaults_of(function) if arg.arg == name), None)
    return default if default is not None else ast.Constant(None)


def own_name(exception: str) -> str:
    """A class's own name, which every spelling of it ends with: scan and pin match a
    record to its raise by it, however either spells the class (a record written when
    scan said ``sa_exc.InvalidRequestError``, a raise it now says
    ``sqlalchemy.exc.InvalidRequestError`` of)."""
    return exception.rpartition(".")[2]


def class_like(name: str) -> bool:
    """Whether the last part of a dotted name is written as a class is (``InvalidName``)."""
    last = name.rpartition(".")[2].lstrip("_")
    return last[:1].isupper()


_FIELD = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}")
"""A field written in braces that a template keeps as text (``{{field}}``)."""


def _unparse(node: ast.AST) -> str | None:
    try:
        return ast.unparse(node)
    except ValueError:
        # An integer literal of more than 4,300 digits has no decimal text by default.
        return None


def _type_of_name(node: ast.expr) -> str | None:
    """``error`` for ``type(error)``; None for anything else."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "type"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Name)
        and not node.keywords
    ):
        return node.args[0].id
    return None


def _caught_name(node: ast.expr | None) -> str | None:
    """The exception class an ``except`` clause names, when it names one (not a tuple)."""
    if isinstance(node, ast.Name | ast.Attribute):
        name = exception_name(node)
        # Any exception at all: which one was raised cannot be told.
        return None if name in ("Exception", "BaseException") else name
    return None


def exception_name(func: ast.Name | ast.Attribute) -> str | None:
    """The dotted name raised; for ``make_errors().Failure``, the part that is a name."""
    parts: list[str] = []
    node: ast.expr = func
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts)) or None


def _search_size(template: str) -> int:
    try:
        parts = parse_template(template).parts
    except TemplateError:
        return len(template)
    return sum(1 if part.placeholder else len(part.text) for part in parts)


def _cut(template: str, limit: int) -> str:
    """The longest start of ``template`` that search counts as at most ``limit``
    characters, ellipsis included, and that is still a whole template (no placeholder or
    ``{{`` cut in two); cut at a space when one is near."""
    try:
        parts = parse_template(template).parts
    except TemplateError:
        return template[:limit]  # not a template: the record check refuses it
    out: list[str] = []
    room = limit - 1
    for part in parts:
        if part.placeholder:
            if room < 1:
                break
            out.append(_placeholder(part.text))
            room -= 1
            continue
        if len(part.text) > room:
            text = part.text[:room]
            space = text.rfind(" ")
            out.append(_braces(text[:space] if space > len(text) // 2 else text))
            break
        out.append(_braces(part.text))
        room -= len(part.text)
    return "".join(out).rstrip() + "…"


def _braces(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _escape(text: str) -> str:
    """Literal message text as template text: colour codes dropped (search drops them from
    a paste too), braces doubled."""
    return _braces(_ANSI.sub("", text))


def _field(node: ast.expr) -> str:
    text = _unparse(node)
    return _placeholder(text) if text is not None else "{}"


def _placeholder(name: str) -> str:
    """``{name}``, or ``{}`` when the braces in ``name`` would end the placeholder early
    (``d['}']``) or never (``d['{']``): a record's template must parse."""
    depth = 0
    for char in name:
        depth += char == "{"
        depth -= char == "}"
        if depth < 0:
            return "{}"
    if depth:
        return "{}"
    # `{{` reads as a literal brace: a name that opens with one (a set or dict) is spaced.
    return "{ " + name + "}" if name.startswith("{") else "{" + name + "}"


MOST_MESSAGES = 4
"""The messages a name may hold after ``if`` statements give it others, at most: a raise
of it is recorded once for each; of one that may say more, the start they share
(``_started``)."""


def _defaults(node: ast.If, name: str) -> bool:
    """Whether ``node`` gives ``name`` a value of the code's own where the caller gave
    none: ``if msg is None:`` (or ``if not msg:``) with no ``else``. The raise below may
    say the caller's message or this one; this one is the code's, and a record."""
    test = node.test
    if node.orelse:
        return False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
        return isinstance(test, ast.Name) and test.id == name
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == name
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    )


def _ends(body: list[ast.stmt]) -> bool | None:
    """Whether a block never goes on past its end (it raises, returns or leaves its loop
    on every path), goes on (False), or may do either as far as its last statement
    tells (None: a loop, a ``try``, a ``match``)."""
    last = body[-1]
    if isinstance(last, ast.Raise | ast.Return | ast.Continue | ast.Break):
        return True
    if isinstance(last, ast.Assert):
        return isinstance(last.test, ast.Constant) and not last.test.value  # assert False
    if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call):
        func = last.value.func
        return isinstance(func, ast.Name | ast.Attribute) and exception_name(func) in _EXITS
    if isinstance(last, ast.If):
        if not last.orelse:
            return False if _ends(last.body) is not None else None
        both = _ends(last.body), _ends(last.orelse)
        return None if None in both else both[0] and both[1]
    if isinstance(last, ast.With | ast.AsyncWith):
        return _ends(last.body)
    if any(
        isinstance(value, list) and value and not isinstance(value[0], ast.expr)
        for value in (getattr(last, name) for name in last._fields)
    ):
        return None  # a statement with blocks of its own: a loop, a try, a match
    return False


_EXITS = frozenset({"sys.exit", "exit", "quit", "os._exit", "os.abort"})
"""Calls that end the program: a block that ends in one goes on no further."""


def _combined(message: ast.expr, op: ast.operator, value: ast.expr) -> ast.expr | None:
    """``message`` (each message it may be) with ``value`` added (``+=``) or put in
    (``%=``); None past MOST_PARTS parts (a thousand ``msg += …`` lines)."""
    if isinstance(message, _Written):
        return message  # its ``{details}`` holds whatever is added to it
    if isinstance(message, ast.IfExp):
        body, orelse = _combined(message.body, op, value), _combined(message.orelse, op, value)
        if body is None or orelse is None:
            return None
        return ast.IfExp(test=message.test, body=body, orelse=orelse)
    depth, left = 1, message
    while isinstance(left, ast.BinOp):
        depth, left = depth + 1, left.left
    return ast.BinOp(left=message, op=op, right=value) if depth < MOST_PARTS else None


MOST_PARTS = 64
"""Parts a message added to again and again may have, at most: one of more is no
message of its own (and parsing it would go too deep)."""


def _started(message: ast.expr) -> ast.expr | None:
    """The start that every message ``message`` may give shares, then ``{details}`` for
    the rest: scikit-learn's "The feature names should match those that were passed
    during fit.\n{details}", where three ``if``s add to it in eight ways. The start runs
    to where the messages part, when each goes on there with no letter (or ends), else
    to the end of the last line or sentence they share. None when that start holds
    fewer than MIN_START letters and digits of its own."""
    found = [template_of(branch) for branch in _branches(message)]
    templates = [t for t in found if t is not None]
    if not templates or len(templates) < len(found):
        return None
    if any(_STARTED in t for t in templates):
        return None  # started already, and branching again: no start is told
    first, last = min(templates), max(templates)  # what they share, these two share
    pairs = enumerate(zip(first, last, strict=False))  # min starts max, or parts first
    size = next((i for i, (a, b) in pairs if a != b), len(first))
    common = first[:size]
    if any(t[size : size + 1].isalnum() for t in templates):  # they part inside a word
        size = max(common.rfind("\n") + 1, common.rfind(". ") + 2, 0)
    start = common[:size]
    try:
        parts = parse_template(start).parts  # cut inside a placeholder: none
    except TemplateError:
        return None
    own = sum(char.isalnum() for part in parts if not part.placeholder for char in part.text)
    return _Written(start + _STARTED) if own >= MIN_START else None


_STARTED = "{details}"
"""The placeholder that stands for the rest of a message built in many ways."""


class _Written(ast.expr):
    """A message already written as a template (``_started``'s): ``template_of`` gives it
    as it is, and what the code adds to it after is in its ``{details}``."""

    _fields = ()

    def __init__(self, template: str) -> None:
        super().__init__()
        self.template = template


MIN_START = 16
"""Letters and digits of its own the start of a message built in many ways must have
to be recorded (as triage's ``--min-own-text`` asks of a paste)."""


def _each(node: ast.expr, made: Callable[[ast.expr], ast.expr]) -> ast.expr:
    """``node`` with ``made`` of each message a conditional expression may give."""
    if isinstance(node, ast.IfExp):
        return ast.IfExp(node.test, _each(node.body, made), _each(node.orelse, made))
    return made(node)


def _branches(node: ast.expr) -> list[ast.expr]:
    """The messages a conditional expression may give (``a if c else b``, nested), in
    order; any other expression alone."""
    if isinstance(node, ast.IfExp):
        return [*_branches(node.body), *_branches(node.orelse)]
    return [node]


def template_of(node: ast.expr) -> str | None:
    """The message of a raise as a template, or None when it is not built from strings.

    Literals, f-strings, implicit and ``+`` concatenation, ``"...".format(...)`` and
    ``"..." % (...)`` are understood, each also of a string marked for translation
    (``_("...")``, ``gettext("...")``: the words the code writes, which the users of a
    program that is not translated see); placeholders are named after their expressions.
    """
    node = _untranslated(node)
    if isinstance(node, _Written):
        return node.template
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _escape(node.value)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(_escape(str(value.value)))
            elif isinstance(value, ast.FormattedValue):
                inner = value.value
                plain = value.conversion == -1 and value.format_spec is None
                if plain and isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                    # f"closing {'}'}" says a literal brace, not a placeholder.
                    parts.append(_escape(inner.value))
                else:
                    parts.append(_field(inner))
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = template_of(node.left), template_of(node.right)
        if left is None and right is None:
            return None
        return (left if left is not None else _field(node.left)) + (
            right if right is not None else _field(node.right)
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        text = _untranslated(node.left)
        if isinstance(text, ast.Constant) and isinstance(text.value, str):
            return _percent(text.value, node.right)
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        text = _untranslated(node.func.value)
        if node.func.attr == "format" and isinstance(text, ast.Constant):
            return _format(text.value, node) if isinstance(text.value, str) else None
    return None


def _filled(message: ast.expr, params: ast.expr | None) -> str | None:
    """``template_of(message)``; for a class given ``params`` (Django's
    ``ValidationError(_("Enter a valid %(protocol)s address."), params={…})``), a literal
    message read as that class prints it, its ``%(name)s`` filled in from them."""
    text = _untranslated(message)
    if (
        params is not None
        and isinstance(text, ast.Constant)
        and isinstance(text.value, str)
        and "%(" in text.value
    ):
        return _percent(text.value, params)
    return template_of(message)


def _builtin(exception: str) -> bool:
    """Whether a raise's class is Python's own (``ValueError``, ``builtins.KeyError``)."""
    return isinstance(getattr(builtins, exception.removeprefix("builtins."), None), type)


def _message_after_names(given: list[ast.expr]) -> str | None:
    """The template of a raise's second argument, after a plain name (``opt``), when the
    code marks it for translation (``_("Option {name!r} does not take a value.")``, its
    ``.format`` or ``%``): a message for people, as ``CalledProcessError(code, "git")``'s
    second argument is not (that class words its own message). None otherwise."""
    if len(given) < 2 or not isinstance(given[0], ast.Name) or not _marked(given[1]):
        return None
    return template_of(given[1])


def _marked(node: ast.expr) -> bool:
    """Whether ``node`` is a string marked for translation, or one formatted from it."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        node = node.left
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
    ):
        node = node.func.value
    return _untranslated(node) is not node


_GETTEXT = frozenset(
    ("_", "gettext", "gettext_lazy", "gettext_noop", "ugettext", "ugettext_lazy", "lazy_gettext")
)
"""The names a codebase marks a string for translation with (``_("No such option.")``)."""


def _untranslated(node: ast.expr) -> ast.expr:
    """The string ``node`` marks for translation (``_("...")``, ``gettext("...")``,
    ``translation.gettext_lazy("...")``), else ``node`` itself."""
    if (
        isinstance(node, ast.Call)
        and len(node.args) == 1
        and not node.keywords
        and (
            isinstance(node.args[0], ast.JoinedStr)
            or (isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str))
        )
    ):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name in _GETTEXT:
            return node.args[0]
    return node


def _format(text: str, call: ast.Call) -> str | None:
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    out = []
    auto = 0
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        return None
    for literal, field, spec, conversion in parsed:
        out.append(_escape(literal))
        if field is None:
            continue
        argument: ast.expr | None = None
        if field == "" or (field.isascii() and field.isdigit()):
            index = auto if field == "" else int(field)
            auto += 1
            argument = call.args[index] if index < len(call.args) else None
            if argument is None or isinstance(argument, ast.Starred):
                out.append("{}")
                continue
        else:
            name = field.split(".")[0].split("[")[0]
            if name not in keywords:
                out.append(_placeholder(field))
                continue
            argument = keywords[name] if name == field else None
            if argument is None:
                out.append(_field(keywords[name]))
                continue
        plain = not spec and conversion in (None, "s")
        # After ``*args`` the argument a field takes is not told: no words put in.
        starred = any(isinstance(a, ast.Starred) for a in call.args)
        words = _words_of(argument) if plain and not starred else None
        out.append(_escape(words) if words is not None else _field(argument))
    return "".join(out)


def _words_of(value: ast.expr) -> str | None:
    """The text a string written in the code puts into a message as it is (``"{}
    values".format("widths")`` says ``widths values``); None for anything else."""
    value = _untranslated(value)
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value
    return None


def _percent(text: str, right: ast.expr) -> str:
    """``text % right`` as a template: each conversion a placeholder named after its
    value (``%(name)s`` after its key), or the words a dict gives its key as a string
    (``{"protocol": _("IPv6")}``: what every message of that raise says)."""
    values = right.elts if isinstance(right, ast.Tuple) else [right]
    said: dict[str, str] = {}
    if isinstance(right, ast.Dict):
        for key, value in zip(right.keys, right.values, strict=True):
            value = _untranslated(value)
            if (
                isinstance(key, ast.Constant)
                and isinstance(key.value, str)
                and isinstance(value, ast.Constant)
                and isinstance(value.value, str)
            ):
                said[key.value] = value.value
    out = []
    literal: list[str] = []  # escaped a run at a time, so a colour code is seen whole
    position = 0
    index = 0
    while position < len(text):
        char = text[position]
        if char != "%" or text[position : position + 2] == "%%":
            literal.append(char)
            position += 1 if char != "%" else 2
            continue
        out.append(_escape("".join(literal)))
        literal = []
        end = position + 1
        name = None
        if end < len(text) and text[end] == "(":
            close = text.find(")", end)
            name = text[end + 1 : close] if close > 0 else None
            end = close + 1 if close > 0 else end
        while end < len(text) and text[end] in "#0- +123456789.*hlL":
            end += 1
        end += 1  # the conversion letter
        # A value put in as it is: ``%(name)s`` or ``%(name)r``, no width or flags.
        plain = name is not None and text[position + len(name) + 3 : end] in ("s", "r")
        if name is not None and name in said and plain:
            out.append(_escape(said[name] if text[end - 1] == "s" else repr(said[name])))
        elif name is not None:
            out.append(_placeholder(name))
        elif index < len(values) and not isinstance(right, ast.Dict):
            starred = any(isinstance(v, ast.Starred) for v in values)
            plain = text[position + 1 : end] == "s" and not starred
            words = _words_of(values[index]) if plain else None
            out.append(_escape(words) if words is not None else _field(values[index]))
        else:
            out.append("{}")
        index += 1
        position = end
    return "".join(out) + _escape("".join(literal))
