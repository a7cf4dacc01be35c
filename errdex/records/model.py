"""Stage 3: typed records, message templates parsed into literal text and placeholders."""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from errdex.records.document import Document
from errdex.util.pickled import as_tuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from errdex.github.issues import Reported

ID_RE = re.compile(r"^[0-9a-f]{16}$")
SEARCH_MESSAGE_LIMIT = 2000
"""Characters of a message that search indexes and aligns: a paste's message is cut
here, and so is a template, counting its literal text and one for each placeholder.
Written into meta.json for the browser; validation warns about longer messages (so it
lives here, which validation imports anyway, rather than in search)."""
TITLE_LIMIT = 72
"""Short titles (``<title>``, lists) are cut at a word boundary before this many characters."""


class TemplateError(ValueError):
    """A message template that cannot be parsed; ``column`` is 0-based."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(message)
        self.column = column


@as_tuple
@dataclass(frozen=True, slots=True)
class Part:
    """A piece of a message template: literal text, or a placeholder named after its source."""

    text: str
    """The literal text, or the placeholder's name (``tp``; empty for ``{}``)."""
    placeholder: bool = False


@as_tuple
@dataclass(frozen=True, slots=True)
class Template:
    """A message with ``{name}`` placeholders; ``{{`` and ``}}`` stand for literal braces."""

    source: str
    """The template as written in the record."""
    parts: tuple[Part, ...]
    display: str
    """The message as a reader sees it: placeholders as ``{name}``, braces unescaped.
    Made once (``parse_template``): linking and every page that lists the error ask."""

    @property
    def names(self) -> tuple[str, ...]:
        """Placeholder names in order of first appearance, without repeats."""
        return tuple(dict.fromkeys(p.text for p in self.parts if p.placeholder))


_BRACE = re.compile(r"[{}]")


def display_of(source: str) -> str:
    """The message template ``source`` as a reader sees it (``{{`` as ``{``); the text
    itself where it is no template."""
    try:
        return parse_template(source).display
    except TemplateError:
        return source


def parse_template(source: str) -> Template:
    """Split a message into literal parts and placeholders.

    A placeholder runs from ``{`` to its matching ``}``, so names taken from source
    expressions such as ``{sorted({1, pcp})}`` stay whole.
    """
    parts: list[Part] = []
    literal: list[str] = []
    i = 0
    while i < len(source):
        brace = _BRACE.search(source, i)
        if brace is None:
            literal.append(source[i:])
            break
        if brace.start() > i:
            literal.append(source[i : brace.start()])
        i = brace.start()
        char = source[i]
        if source[i : i + 2] == char * 2:
            literal.append(char)
            i += 2
        elif char == "}":
            raise TemplateError("unmatched '}' (write '}}' for a literal brace)", i)
        else:
            end = _matching_brace(source, i)
            if literal:
                parts.append(Part("".join(literal)))
                literal = []
            parts.append(Part(source[i + 1 : end].strip(), placeholder=True))
            i = end + 1
    if literal:
        parts.append(Part("".join(literal)))
    display = "".join("{" + p.text + "}" if p.placeholder else p.text for p in parts)
    return Template(source=source, parts=tuple(parts), display=display)


def _matching_brace(source: str, start: int) -> int:
    depth = 0
    for index in range(start, len(source)):
        if source[index] == "{":
            depth += 1
        elif source[index] == "}":
            depth -= 1
            if depth == 0:
                return index
    raise TemplateError("unclosed '{' (write '{{' for a literal brace)", start)


def derive_id(repo: str, exception: str, message: str) -> str:
    """The id of a record that does not state one: stable across re-pins and moved lines."""
    digest = hashlib.sha256(f"{repo}\x00{exception}\x00{message}".encode()).hexdigest()
    return digest[:16]


def short_title(text: str, limit: int = TITLE_LIMIT) -> str:
    """``text`` cut at a word boundary to fit ``limit`` characters, marked with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def source_lines(text: str) -> list[str]:
    """``text`` cut into lines where Python's tokenizer and GitHub end them: at ``\\n``,
    ``\\r\\n`` and ``\\r`` only.

    ``str.splitlines`` also ends a line at a form feed, a vertical tab, ``\\x1c``-``\\x1e``,
    NEL, U+2028 and U+2029, which Python allows in strings and comments (a form feed
    even as indentation): every line after one would be numbered one too far.
    """
    # Most text has no ``\r``: a plain split then, several times quicker than the pattern.
    lines = text.split("\n") if "\r" not in text else _LINE_BREAK.split(text)
    if lines[-1] == "":
        lines.pop()
    return lines


@as_tuple
@dataclass(frozen=True, slots=True)
class Excerpt:
    """Source lines stored in the record, so a build needs no checkout."""

    start: int
    """Real line number of the first line."""
    code: str

    @property
    def lines(self) -> list[str]:
        return source_lines(self.code)

    @property
    def end(self) -> int:
        return self.start + len(self.lines) - 1


@as_tuple
@dataclass(frozen=True, slots=True)
class Source:
    """Where the error is raised, pinned to a commit."""

    commit: str
    path: str
    line: int
    """Line of the ``raise``."""
    function: str | None
    condition: str | None
    """The ``if`` test that leads to the raise."""
    removed_in: str | None
    """The commit where upstream no longer raises it; commit and excerpt are as last seen."""
    excerpt: Excerpt | None
    parameters: tuple[str, ...] | None = None
    """The names whose values at the raise are still the caller's, as scan
    read them from the whole function (``source.parameters``); None where it did not."""
    optional: tuple[str, ...] = ()
    """Those of ``parameters`` whose default is None (``source.optional``)."""

    @property
    def short_commit(self) -> str:
        return self.commit[:10]


@as_tuple
@dataclass(frozen=True, slots=True)
class Raised:
    """One release that raises a record's error (the record's ``releases``)."""

    release: str
    commit: str
    path: str
    line: int
    message: str | None
    """That release's wording, when not the record's ``message``."""
    at: int = field(default=0, repr=False, compare=False)
    """The item's line in the record file, for problems about it."""


@as_tuple
@dataclass(frozen=True, slots=True)
class FixBlock:
    """One code block of an example fix."""

    lang: str
    code: str
    caption: str | None


@as_tuple
@dataclass(frozen=True, slots=True)
class Related:
    """An entry of ``related``: a record id, or the text of an error message."""

    text: str
    line: int
    """Where the entry is written, for warnings."""


@as_tuple
@dataclass(frozen=True, slots=True)
class Analysis:
    """Who or what wrote the prose of a record, and when; for a draft, what it was made
    from and whether a person has checked it."""

    by: str
    date: str
    model: str | None = None
    commit: str | None = None
    """The commit whose code a draft was made from."""
    state: str | None = None
    """For a draft (``model`` given): ``unreviewed``, ``reviewed`` (``errdex review``),
    ``edited`` (its prose no longer matches what the model wrote) or ``rejected``."""
    stale: bool = False
    """Whether the message, excerpt or condition changed since it was drafted."""

    @property
    def unreviewed(self) -> bool:
        return self.state == "unreviewed"


@as_tuple
@dataclass(frozen=True, slots=True, eq=False)
class Record:
    """One error a codebase can raise, as the site shows it."""

    id: str
    id_stated: bool
    """Whether the file states the id (otherwise it was derived)."""
    id_line: int
    """The line that fixes the id: ``id`` when stated, else ``message``."""
    source_line: int
    """The line of ``source.path`` in the record file, for problems about it."""
    repo_line: int = field(repr=False)
    """The line of ``repo``, for problems about its name. Left out of repr, which the
    build digests: a line that moves changes no page."""
    exception_line: int = field(repr=False)
    """The line of ``exception``, for problems about its name (not in repr either)."""
    aliases: tuple[str, ...]
    repo: str
    exception: str
    message: Template
    title: str
    """Short title: the message cut at a word boundary, unless the record gives one."""
    meaning: str | None
    source: Source
    solutions: tuple[str, ...]
    example_fix: tuple[FixBlock, ...]
    trigger: str | None
    situations: str | None
    related: tuple[Related, ...]
    analysis: Analysis | None
    file: str
    """The record file, as messages show it."""
    content_path: str
    """The record file's path inside the content folder, with ``/`` between folders
    (``errors/…/name.yaml``): what its "Edit this page" link adds to ``edit_url``."""
    data: dict[str, Any]
    """The record's fields as written (dates as ISO text), for the JSON mirror."""
    has_analysis: bool
    """Whether it says anything beyond the source: meaning, solutions, fixes or when."""
    options: frozenset[tuple[str, str, bool]]
    """The flags and config keys it mentions (``options_in``)."""
    releases: tuple[Raised, ...] = ()
    """The releases that raise it, oldest first (written by ``pin``)."""

    def summary(self) -> Record:
        """This record without its prose, excerpt and data: what other pages show of it."""
        return replace(
            self,
            meaning=None,
            solutions=(),
            example_fix=(),
            trigger=None,
            situations=None,
            source=replace(self.source, excerpt=None, condition=None, parameters=None, optional=()),
            data={},
        )


def record_from(doc: Document, content: Path) -> Record:
    """Build a Record from a document the validator passed, read from the content
    folder ``content``."""
    data: dict[str, Any] = _plain(doc.data)
    # What ``new`` left TODO is no prose to show; ``data`` keeps the file's fields as
    # written (a draft compares with them), and the JSON document leaves it out too.
    written = unscaffolded(data)
    source = data["source"]
    excerpt = source.get("excerpt")
    given = source.get("parameters")
    when = written.get("when") or {}
    analysis = written.get("analysis")
    message = parse_template(data["message"])
    stated = "id" in data
    solutions = tuple(written.get("solutions", ()))
    fixes = tuple(
        FixBlock(block["lang"], block["code"], block.get("caption"))
        for block in written.get("example_fix", ())
    )
    return Record(
        id=data["id"] if stated else derive_id(data["repo"], data["exception"], data["message"]),
        id_stated=stated,
        id_line=doc.line("id" if stated else "message"),
        source_line=doc.line("source", "path"),
        repo_line=doc.line("repo"),
        exception_line=doc.line("exception"),
        aliases=tuple(data.get("aliases", ())),
        repo=data["repo"],
        exception=data["exception"],
        message=message,
        title=data.get("title") or short_title(message.display),
        meaning=written.get("meaning"),
        source=Source(
            commit=str(source["commit"]),
            path=source["path"],
            line=source["line"],
            function=source.get("function"),
            condition=source.get("condition"),
            removed_in=source.get("removed_in"),
            excerpt=Excerpt(excerpt["start"], excerpt["code"]) if excerpt else None,
            parameters=None if given is None else tuple(given),
            optional=tuple(source.get("optional", ())),
        ),
        solutions=solutions,
        example_fix=fixes,
        trigger=when.get("trigger"),
        situations=when.get("situations"),
        related=tuple(
            Related(text, doc.line("related", index))
            for index, text in enumerate(data.get("related", ()))
        ),
        analysis=analysis_of(data, message) if analysis else None,
        file=doc.shown,
        content_path=doc.path.relative_to(content).as_posix(),
        data=data,
        releases=tuple(
            Raised(
                str(r["release"]),
                str(r["commit"]),
                r["path"],
                r["line"],
                r.get("message"),
                doc.line("releases", index),
            )
            for index, r in enumerate(data.get("releases", ()))
        ),
        has_analysis=any(
            (written.get("meaning"), solutions, fixes, when.get("trigger"), when.get("situations"))
        ),
        options=options_in(
            message,
            (written.get("meaning"), when.get("trigger"), when.get("situations"), *solutions),
            data["repo"],
        ),
    )


SCAFFOLDED = "TODO"
"""What ``errdex new`` writes in each field of prose for its author to replace."""
SCAFFOLDED_FIX = "# before\n# after"
"""The example fix ``errdex new`` writes, for the author to replace."""


def unscaffolded(data: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``data`` without what ``errdex new`` wrote for its author to replace and
    is still there (W307 warns of each): the page and the JSON document say only what
    was written, and a record with nothing else written has no analysis yet."""
    data = dict(data)

    def todo(text: Any) -> bool:
        return isinstance(text, str) and text.strip() == SCAFFOLDED

    def keep(key: str, items: list[Any]) -> None:
        if len(items) == len(data[key]):
            return  # nothing left to write: as written (``[]`` too)
        if items:
            data[key] = items
        else:
            del data[key]

    if todo(data.get("meaning")):
        del data["meaning"]
    if isinstance(data.get("solutions"), list):
        keep("solutions", [s for s in data["solutions"] if not todo(s)])
    if isinstance(data.get("example_fix"), list):
        blocks = data["example_fix"]
        keep("example_fix", [b for b in blocks if str(b.get("code", "")).strip() != SCAFFOLDED_FIX])
    when = data.get("when")
    if isinstance(when, dict) and any(todo(text) for text in when.values()):
        written = {key: text for key, text in when.items() if not todo(text)}
        if written:
            data["when"] = written
        else:
            del data["when"]
    analysis = data.get("analysis")
    if isinstance(analysis, dict) and todo(analysis.get("by")):
        del data["analysis"]
    return data


PROSE = ("meaning", "when", "solutions", "example_fix")
"""The fields a person, or a draft, writes."""


def short_digest(data: Any) -> str:
    """A short hash of ``data`` as canonical JSON: how a draft remembers what it wrote and
    what it was written from."""
    import json

    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def basis_of(message: str, excerpt: str | None, condition: str | None) -> str:
    """What an analysis was written from: the message, the excerpt and the test that
    leads to the raise."""
    return short_digest([message, excerpt, condition])


def analysis_of(data: dict[str, Any], message: Template) -> Analysis:
    analysis = data["analysis"]
    model = analysis.get("model")
    state = None
    stale = False
    if model is not None or analysis.get("rejected"):
        prose = {key: data[key] for key in PROSE if key in data}
        if analysis.get("rejected"):
            state = "rejected"
        elif analysis.get("reviewed"):
            state = "reviewed"  # a person's edits and review both said
        elif analysis.get("answer") and short_digest(prose) != analysis["answer"]:
            state = "edited"
        else:
            state = "unreviewed"
        source = data["source"]
        excerpt = source.get("excerpt")
        made_from = basis_of(
            message.source, excerpt["code"] if excerpt else None, source.get("condition")
        )
        stale = analysis.get("basis") not in (None, made_from)
    return Analysis(
        analysis["by"],
        analysis["date"],
        model,
        str(analysis["commit"]) if analysis.get("commit") else None,
        state,
        stale,
    )


_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)+|[a-z]{3,}[a-z0-9]*)(?![\w-])")
_KEY = re.compile(r"(?<![\w.{])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w(])")
_CODE = re.compile(r"`([^`]+)`")
_INSTALL = re.compile(
    r"\b(?:pip3?|conda|mamba|uv pip|poetry|uv) (?:install|add)\b"
    r"(?:[ \t]+(?!(?:and|or|to|then|before|after|if|when|for|with|so|in|using|via|"
    r"instead|first|again|now|it|you|your|the|a|an)\b)"
    r"(?:-{1,2}[\w-]+(?:=[^\s`'\"]+)?|(?P<q>['\"]?)[\w*~<>=!\[\],-]+(?:\.[\w*~<>=!\[\],-]+)*(?P=q)))*",
    re.IGNORECASE,
)
"""An install command and what it names: the installer's flags and packages (a version
and extras too, quoted or not), up to a word of a sentence (``pip install tokenizers
if you need use_fast``) or anything else (``(or set x=1)``, a sentence's stop)."""
MAX_OPTION = 80
"""Longer "flags" or keys are not options anyone types."""


def _short_words(text: str) -> str:
    return " ".join(word for word in text.split() if len(word) <= MAX_OPTION)


def options_in(
    message: Template, prose: tuple[str | None, ...], repo: str = ""
) -> frozenset[tuple[str, str, bool]]:
    """Command-line flags and config keys an error mentions: (key, as written, whether a
    flag or the message itself names it).

    Flags come from the message and the prose; a snake_case key from the message's own
    text or from code in the prose. ``--tensor-parallel-size`` and
    ``tensor_parallel_size`` are one option. What an install command says (``pip install
    -U hf_transfer``: pip's flags, a package) is none, nor the name of the ``repo``'s
    package (``huggingface_hub`` of huggingface/huggingface_hub).
    """
    literal = "".join(part.text for part in message.parts if not part.placeholder)
    # Option pages are folders named after the key: keep to names a file system holds.
    literal = _short_words(_INSTALL.sub(" ", literal))
    text = _short_words(" ".join(_INSTALL.sub(" ", t) for t in prose if t))
    package = package_of(repo)
    found: set[tuple[str, str, bool]] = set()
    for words in (literal, text):
        for flag in _FLAG.findall(words):
            found.add((flag.replace("-", "_"), "--" + flag, True))
    for key in _KEY.findall(literal):
        found.add((key, key, True))
    for key in _KEY.findall(" ".join(_CODE.findall(text))):
        found.add((key, key, False))
    # The package's own name as a key (a flag of its name, ``--deepspeed``, is one).
    return frozenset(o for o in found if o[0] != package or o[1].startswith("--"))


def package_of(repo: str) -> str:
    """The name a repository's package is imported by, as most are named after their
    repository: ``huggingface_hub`` of huggingface/huggingface_hub, ``fast_fetch`` of
    example/Fast-Fetch."""
    return repo.rpartition("/")[2].lower().replace("-", "_")


def module_of(path: str) -> str:
    """The top module a file of a codebase belongs to, as Python names it in a
    traceback: ``huggingface_hub`` of ``huggingface_hub/utils/_http.py``, ``widgets`` of
    ``src/widgets/core.py`` and of ``lib/widgets/core.py`` (SQLAlchemy's layout), ``six``
    of ``six.py``."""
    for layout in ("src/", "lib/"):
        if path.startswith(layout) and "/" in path.removeprefix(layout):
            path = path.removeprefix(layout)
            break
    return path.partition("/")[0].removesuffix(".py")


def _plain(value: Any) -> Any:
    """YAML values as JSON-ready data: dates become ISO text."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def unpublished(record: Record) -> Record:
    """``record`` without the prose of its AI-assisted draft no person has reviewed: what
    every page, list and document of a site that hides them (``drafts.publish: hide``)
    shows of it."""
    analysis = record.analysis
    if analysis is None or not analysis.unreviewed:
        return record
    data = {key: value for key, value in record.data.items() if key not in (*PROSE, "analysis")}
    return replace(
        record,
        meaning=None,
        solutions=(),
        example_fix=(),
        trigger=None,
        situations=None,
        analysis=None,
        has_analysis=False,
        data=data,
        options=options_in(record.message, (), record.repo),
    )


@as_tuple
@dataclass(frozen=True, slots=True)
class SiteConfig:
    """The site's own settings, from ``content/site.yaml``."""

    title: str
    base_url: str
    """Always ends with a slash."""
    repository: str
    """The site's own GitHub repository, where 'Report an issue' opens issues."""
    description: str | None
    edit_url: str | None = None
    """What a record file's path inside the content folder is added to, for its page's
    "Edit this page" link; ends with a slash. None: no such link."""
    releases: tuple[tuple[str, tuple[Release, ...]], ...] = ()
    """Each repository's releases that records were pinned to, oldest first."""
    extra_css: tuple[str, ...] = ()
    """Stylesheets of the site's static/ folder every page loads after errdex's."""
    extra_js: tuple[str, ...] = ()
    """Scripts of the site's static/ folder every page loads."""
    host: str = "plain"
    """Where the site is published: a name of ``hosts.HOSTS``."""
    drafts: str = "show"
    """How AI-assisted analyses no person has reviewed are published: ``show`` (with a
    notice), ``noindex`` (and kept out of search engines) or ``hide``."""
    allow: tuple[str, ...] = ()
    """Names a draft may use that the code does not define (``drafts.allow``)."""
    reported: Mapping[str, Reported] = field(default_factory=dict, compare=False, hash=False)
    """Record id → the GitHub issues that paste it (``content/issues/``; see issues.py)."""

    def reported_of(self, record_id: str) -> Reported:
        found = self.reported.get(record_id)
        return _no_reports() if found is None else found

    def releases_of(self, repo: str) -> tuple[Release, ...]:
        return next((found for name, found in self.releases if name == repo), ())


@functools.cache
def _no_reports() -> Reported:
    """``issues.NONE``, imported when first asked for (``issues`` imports this module)."""
    from errdex.github.issues import NONE

    return NONE


@as_tuple
@dataclass(frozen=True, slots=True)
class Release:
    """A release of a repository: its name (a tag) and commit."""

    name: str
    commit: str
    date: str = "1970-01-01"
    """The day of its commit, YYYY-MM-DD (the Atom feed of releases dates its entries)."""


def site_from(doc: Document, base_url: str | None = None) -> SiteConfig:
    data = doc.data
    releases: dict[str, tuple[Release, ...]] = {}
    for item in data.get("releases", ()):
        one = Release(str(item["name"]), str(item["commit"]), str(item.get("date", "1970-01-01")))
        releases[item["repo"]] = (*releases.get(item["repo"], ()), one)
    return SiteConfig(
        title=data["title"],
        base_url=normal_base_url(base_url or data["base_url"]),
        repository=data["repository"],
        description=data.get("description"),
        edit_url=normal_base_url(data["edit_url"]) if "edit_url" in data else None,
        releases=tuple(releases.items()),
        extra_css=tuple(data.get("extra_css", ())),
        extra_js=tuple(data.get("extra_js", ())),
        host=data.get("host", "plain"),
        drafts=(data.get("drafts") or {}).get("publish", "show"),
        allow=tuple((data.get("drafts") or {}).get("allow", ())),
    )


def normal_base_url(url: str) -> str:
    """A valid base URL as pages use it: scheme and host in lowercase (as browsers and
    search engines compare them), ending with a slash, so page paths follow it."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    url = urlunsplit(parts._replace(scheme=parts.scheme.lower(), netloc=parts.netloc.lower()))
    return url if url.endswith("/") else url + "/"
