"""Stage 5: every output file as bytes — pages through Jinja, the JSON mirror, assets."""

from __future__ import annotations

import hashlib
import heapq
import json
import re
from collections import Counter
from collections.abc import Callable, Container, Iterable, Mapping, MutableMapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from functools import cache, partial
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import jinja2
import rcssmin  # type: ignore[import-untyped]
import rjsmin  # type: ignore[import-untyped]
from markupsafe import Markup, escape

from errdex.github.issues import most_reported
from errdex.records.codes import CODES
from errdex.records.history import ReleaseChanges, changes, history
from errdex.records.link import RelatedLink, Site
from errdex.records.model import (
    Record,
    SiteConfig,
    Template,
    TemplateError,
    parse_template,
    short_title,
    unpublished,
)
from errdex.site import markdown, mirror
from errdex.site.highlight import Highlighter, stylesheet
from errdex.site.hosts import HOSTS, json_paths
from errdex.site.theme import Theme
from errdex.source import avoid
from errdex.urls import (
    edit_url,
    exception_url,
    file_url,
    github_line,
    github_permalink,
    json_url,
    list_page_url,
    option_url,
    page_url,
    release_url,
    releases_url,
    repo_url,
    report_issue_url,
    sitemap_part,
)
from errdex.util.words import count

TYPE_CHECKING = False
if TYPE_CHECKING:
    from errdex.search import Entry


@dataclass(frozen=True, slots=True)
class CodeLine:
    """One line of a source excerpt as the code view shows it."""

    number: int
    html: Markup
    is_raise: bool


@dataclass(frozen=True, slots=True)
class ErrorContext:
    """What the page and the JSON document of an error show besides the error itself.

    A full build fills it from the linked site; a build that renders a few pages again
    fills it from the last full build's state, with what those pages show of the others.
    """

    config: SiteConfig
    related: Mapping[str, tuple[RelatedLink, ...]]
    """Record id → its related entries as shown."""
    backlinks: Mapping[str, tuple[Record, ...]]
    """Record id → the records whose related errors link to it."""
    by_file: Mapping[tuple[str, str], tuple[Record, ...]]
    """(repo, path) → its errors in line order."""
    option_names: Mapping[str, tuple[str, ...]]
    """Option key → how errors write it, for every option errors name."""
    lists: Container[str] = frozenset()
    """The pages listing the errors of an option or an exception that the site has
    (``options/…/index.html``): those of more than one error (``has_list``)."""

    @classmethod
    def of(cls, site: Site) -> ErrorContext:
        listed = [option_url(k) for k, rs in site.by_option.items() if has_list(rs)]
        listed += [exception_url(e) for e, rs in site.by_exception.items() if has_list(rs)]
        lists = frozenset(url + "index.html" for url in listed)
        return cls(
            site.config, site.related, site.backlinks, site.by_file, site.option_names, lists
        )


def has_list(records: Sequence[Record]) -> bool:
    """Whether a file, option or exception gets a page listing its errors: only when it
    has more than one. The list of one error would be that error's page again, and on a
    site of thousands of files it would be a file of the site's own for each (a host
    counts files: Cloudflare Pages takes 20,000)."""
    return len(records) > 1


class _Environment(jinja2.Environment):
    """Each template's globals in one dict of their own, not a chain over the
    environment's: Jinja compares them with the page's at every ``{% from … import %}``
    (twice a page), a lookup through the chain for each global. So every global is
    set before the first template is loaded (``Renderer.__init__``)."""

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        return {**self.globals, **(d or {})}


def make_env(
    theme: Theme, highlighter: Highlighter, cache: Path | None = None
) -> jinja2.Environment:
    """The one Jinja environment: autoescaped, and strict about undefined names.

    With ``cache``, compiled templates are kept there (keyed by their source), so a build
    that renders a few pages does not compile the templates again."""
    env = _Environment(
        loader=template_loader(theme),
        bytecode_cache=jinja2.FileSystemBytecodeCache(str(cache)) if cache else None,
        autoescape=True,
        # One environment a build: its templates cannot change under it, so a template
        # is not looked at on disk again each time a page asks for it.
        auto_reload=False,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    # Data for the page's script, in an attribute of every page that has it: no spaces.
    env.policies["json.dumps_kwargs"] = {"sort_keys": True, "separators": (",", ":")}
    env.filters.update(
        markdown=markdown.render,
        markdown_inline=markdown.render_inline,
        message=message_html,
        highlight=highlighter.highlight,
        code_rows=code_rows,
        code_gutter=code_gutter,
        fix_to_copy=fix_to_copy,
        anded=avoid.anded,
        count=count,
        xml_text=xml_text,
    )
    env.globals.update(
        page_url=page_url,
        repo_url=repo_url,
        exception_url=exception_url,
        json_url=json_url,
        file_url=lambda repo, path: quote(file_url(repo, path)),
        option_url=option_url,
        release_url=lambda repo, release: quote(release_url(repo, release)),
        github_line=github_line,
        has_list=has_list,
    )
    return env


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml_text(text: str) -> str:
    """Text without the characters XML 1.0 cannot hold (a feed must stay well-formed)."""
    return _NOT_XML.sub("", text)


def message_html(template: Template | str) -> Markup:
    """The message with each placeholder marked, so a reader sees what varies; given as
    written in a record (an earlier wording), read as a template first. Blanks and line
    breaks at its ends are left out: shown as written (``white-space: pre-wrap``), a
    message that starts with a line break started with an empty line."""
    if isinstance(template, str):
        written = template
        try:
            template = parse_template(written)
        except TemplateError:
            return escape(written.strip())
    last = len(template.parts) - 1
    # Joined once: adding Markup to Markup copies it, so a message of many placeholders
    # would cost time in the square of its length.
    return Markup("").join(
        Markup("<var class=ph>{{{}}}</var>").format(part.text)
        if part.placeholder
        else escape(_trimmed(part.text, number == 0, number == last))
        for number, part in enumerate(template.parts)
    )


def _trimmed(text: str, first: bool, last: bool) -> str:
    text = text.lstrip() if first else text
    return text.rstrip() if last else text


def code_rows(lines: Iterable[CodeLine]) -> Markup:
    """The code view's lines, the raising one marked. Made here rather than in a
    template loop: it is the longest part of a page, and a loop of its own in Jinja
    costs more than the rest of the page."""
    rows = []
    for line in lines:
        if line.is_raise:
            hidden = "<span class=visually-hidden>Raised here: </span>"
            rows.append(f"<mark>{hidden}{line.html}\n</mark>")
        else:
            rows.append(f"{line.html}\n")
    return Markup("".join(rows))


def code_gutter(lines: Iterable[CodeLine]) -> Markup:
    """The numbers of the code view's lines, a column of their own beside the code: copying
    the code leaves them out, and a number costs a page a few bytes, not a wrapper
    around each line."""
    return Markup(
        "".join(f"<mark>{n.number}\n</mark>" if n.is_raise else f"{n.number}\n" for n in lines)
    )


_BEFORE_AFTER = re.compile(r"\s*(?:#|//|--|;|%|<!--|rem\b)\s*(before|after)\b", re.IGNORECASE)


def fix_to_copy(code: str) -> str:
    """What an example fix's Copy button copies, when not the whole block: of a block that
    shows the failing code under a ``# before`` line and the fix under ``# after`` (in the
    comment of any common language), the lines under each ``after``. "" for any other
    block, which is copied whole: pasted into a shell, a before-and-after block would run
    the failing command first."""
    parts: list[str] = []
    seen: set[str] = set()
    keep = False
    for line in code.splitlines():
        marker = _BEFORE_AFTER.match(line)
        if marker:
            side = marker.group(1).lower()
            seen.add(side)
            keep = side == "after"
        elif keep:
            parts.append(line)
    if seen != {"before", "after"}:
        return ""
    return "\n".join(parts).strip("\n")


def code_lines(record: Record, highlighter: Highlighter) -> list[CodeLine]:
    excerpt = record.source.excerpt
    if excerpt is None:
        return []
    raised_at = record.source.line - excerpt.start
    fragments = highlighter.highlight_lines(excerpt.code, record.source.path, raised_at)
    return [
        CodeLine(
            number=number,
            html=html,
            is_raise=number == record.source.line,
        )
        for number, html in enumerate(fragments, start=excerpt.start)
    ]


def _minified(name: str, data: bytes) -> bytes:
    """Scripts and stylesheets without comments and spare whitespace."""
    if name.endswith(".js"):
        return rjsmin.jsmin(data.decode()).encode()  # type: ignore[no-any-return]
    if name.endswith(".css"):
        return rcssmin.cssmin(data.decode()).encode()  # type: ignore[no-any-return]
    return data


TEMPLATE_SUFFIXES = (".html", ".xml", ".txt")
"""The files of a site's templates/ folder read as templates (others are left alone)."""


def template_loader(theme: Theme) -> jinja2.BaseLoader:
    """The site's own templates first, then errdex's, which stay reachable as
    ``errdex/<name>`` (so an override can extend the one it replaces)."""
    own = _Unindented(jinja2.FileSystemLoader(theme.templates))
    loaders: list[jinja2.BaseLoader] = []
    if theme.site_templates is not None:
        loaders.append(jinja2.FileSystemLoader(theme.site_templates))
    loaders += [jinja2.PrefixLoader({"errdex": own}), own]
    return jinja2.ChoiceLoader(loaders)


class _Unindented(jinja2.BaseLoader):
    """errdex's HTML templates, read without the indentation of their lines, which shows
    nowhere in them but costs a page about a third of a kilobyte; text inside ``<pre>``
    and ``<textarea>``, where spaces show, keeps its own. Other templates (XML, the
    hosts' ``_headers``, where indentation is syntax) are read as written, and so are a
    site's own: their spaces may matter where errdex cannot see it (a Markdown filter,
    a script, a line a block tag ends)."""

    def __init__(self, loader: jinja2.BaseLoader) -> None:
        self.loader = loader

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        source, filename, uptodate = self.loader.get_source(environment, template)
        if template.endswith(".html"):
            source = unindent(source)
        return source, filename, uptodate

    def list_templates(self) -> list[str]:
        return self.loader.list_templates()


_SPACES_SHOW = re.compile(r"<(pre|textarea)\b.*?</\1\s*>", re.S | re.I)
_INDENT = re.compile(r"^[ \t]+", re.M)


def unindent(source: str) -> str:
    """``source`` with no spaces or tabs at the start of a line, but where they show."""
    kept, start = [], 0
    for shown in _SPACES_SHOW.finditer(source):
        kept += [_INDENT.sub("", source[start : shown.start()]), shown.group()]
        start = shown.end()
    return "".join([*kept, _INDENT.sub("", source[start:])])


def site_asset_names(theme: Theme) -> set[str]:
    """The files of the site's static/ folder that are published, by their path there:
    no dot files or folders, and nothing a link leads to outside the folder (nor anything
    when the folder itself is a link: the build refuses it)."""
    static = theme.site_static
    if static is None or static.is_symlink():
        return set()
    root = static.resolve()
    names = set()
    for path in static.rglob("*"):
        rel = path.relative_to(static)
        if any(part.startswith(".") for part in rel.parts) or not path.is_file():
            continue
        if path.resolve().is_relative_to(root):
            names.add(rel.as_posix())
    return names


PAGE_CSS, PAGE_JS = "errdex-page.css", "errdex-page.js"
"""The stylesheet and the script every page loads, made of errdex's (or the site's own
``errdex.css``, ``pygments.css``, ``search.js`` and ``errdex.js``)."""


def hashed_assets(theme: Theme) -> dict[str, tuple[str, bytes]]:
    """Static files under names that carry their content hash, so no deploy serves a stale
    one: errdex's own, then the site's (by their path in its ``static/``)."""
    files = {
        p.name: _minified(p.name, p.read_bytes())
        for p in sorted(theme.static.iterdir())
        if p.is_file()
    }
    files["pygments.css"] = _minified("pygments.css", stylesheet().encode())
    if theme.site_static is not None:
        for name in sorted(site_asset_names(theme)):
            data = (theme.site_static / name).read_bytes()
            # A site's scripts are published as written: a minifier can change what one
            # does (rjsmin reads a regular expression right after "=>" as a division and
            # drops its spaces). Its stylesheets lose comments and spare whitespace.
            files[name] = data if name.endswith(".js") else _minified(name, data)
    # What every page loads, as one stylesheet and one script (base.html): the code's
    # colours after the site's styles, the search before the page's script, which uses
    # it. The parts stay published under their names, for templates that link them, and
    # a site's own file of the bundle's name is used as it is. The script starts with an
    # empty statement: a part's "use strict" then holds for no other part (errdex's own
    # say it inside their functions).
    files.setdefault(PAGE_CSS, files["errdex.css"] + b"\n" + files["pygments.css"])
    files.setdefault(PAGE_JS, b";" + files["search.js"] + b"\n;" + files["errdex.js"])
    return {
        name: ("static/" + hashed_name(name, hashlib.sha256(data).hexdigest()[:10]), data)
        for name, data in files.items()
    }


def hashed_name(name: str, digest: str) -> str:
    """``name`` (a path in ``static/``) with ``digest`` in its file's own name: before
    the extension (``css/site.css`` → ``css/site.<digest>.css``), or after a name that
    has none (``LICENSE`` → ``LICENSE.<digest>``, never a dot file). The folders keep
    their names, dots and all (``v1.2/logo`` → ``v1.2/logo.<digest>``)."""
    folder, slash, file = name.rpartition("/")
    stem, _, suffix = file.rpartition(".")
    return folder + slash + (f"{stem}.{digest}.{suffix}" if stem else f"{file}.{digest}")


class Renderer:
    """Renders pages with one theme: those of single errors, and the files of a whole site."""

    def __init__(self, theme: Theme, highlighter: Highlighter, cache: Path | None = None) -> None:
        self.highlighter = highlighter
        self.env = make_env(theme, highlighter, cache)
        # An error is listed on many pages (its file's, its neighbours', those it relates
        # to): its row is rendered once per kind of row and reused.
        rows: dict[tuple[str, str, bool, bool, str | None, bool], Markup] = {}
        macro: Any = None  # the macro that renders a row, loaded once the globals are set

        def row(
            r: Record,
            root: str,
            show_line: bool = False,
            show_repo: bool = True,
            beside: str | None = None,
            show_path: bool = False,
        ) -> Markup:
            key = (r.id, root, show_line, show_repo, beside, show_path)
            found = rows.get(key)
            if found is None:
                found = rows[key] = macro(
                    r,
                    root,
                    show_line=show_line,
                    show_repo=show_repo,
                    beside=beside,
                    show_path=show_path,
                )
            return found

        def rows_of(
            records: Iterable[Record],
            root: str,
            show_line: bool = False,
            show_repo: bool = True,
            indent: int = 0,
        ) -> Markup:
            """``row`` of each record, one a line, the lines after the first indented by
            ``indent`` spaces (none, as errdex's own templates are written): a list of
            8,000 errors in one call rather than a loop. Rows that would read alike (one
            exception and title, raised in several files) say their file."""
            between = "\n" + " " * indent
            records = list(records)
            said = Counter((r.exception, r.title) for r in records)

            def doubled(r: Record) -> bool:
                return said[r.exception, r.title] > 1

            return Markup(
                between.join(
                    [
                        row(r, root, show_line, show_repo, None, doubled(r) and not show_line)
                        for r in records
                    ]
                )
            )

        self.env.globals["row"] = row
        self.env.globals["rows"] = rows_of
        if theme.site_templates is not None:
            # The site's own templates, compiled now: one that does not is named at its
            # line before anything is rendered.
            for path in sorted(theme.site_templates.rglob("*")):
                if path.is_file() and path.suffix in TEMPLATE_SUFFIXES:
                    name = path.relative_to(theme.site_templates).as_posix()
                    if name.startswith("."):
                        continue
                    try:
                        self.env.get_template(name)
                    except UnicodeDecodeError:
                        raise jinja2.TemplateSyntaxError(
                            "not UTF-8 text", 1, name, str(path)
                        ) from None
        self.assets = hashed_assets(theme)
        macro = self.env.get_template("_macros.html").module.error_row  # type: ignore[attr-defined]
        self.entries: list[Entry] = []

    def warm(self) -> None:
        """Compile the error page and load the lexers now: forked workers then share them."""
        self.env.get_template("error.html")
        self.highlighter.warm()

    def page(
        self, template: str, path: str, config: SiteConfig, root: str | None = None, **context: Any
    ) -> bytes:
        """Render ``template`` as the file ``path``; every link in it is relative to that file.

        ``root`` overrides the relative prefix, for a page served at any address (404).
        """
        if root is None:
            # As many steps up as the path has folders (its steps "" and "." are none).
            root = "../" * (sum(part not in ("", ".") for part in path.split("/")) - 1)
        # Source paths become part of some addresses: encode them as URLs.
        canonical = config.base_url + quote(
            path.removesuffix("index.html") if path.endswith("index.html") else path
        )

        def asset(name: str) -> str:
            # Encoded: a file's name may hold what a URL reads otherwise (?, #, %, space).
            return root + quote(self.assets[name][0])

        html = self.env.get_template(template).render(
            config=config, root=root, asset=asset, canonical=canonical, **context
        )
        return html.encode()

    def error_page(
        self,
        record: Record,
        context: ErrorContext,
        avoided: dict[str, Any] | None,
        near: _Near,
        handling: tuple[str, ...] = (),
    ) -> bytes:
        # By id: a build of a few pages shows a fresh record among the summaries of the others.
        in_file = context.by_file[(record.repo, record.source.path)]
        same_function, nearest, others = near
        # Each error is listed once: "More to look at" leaves out those listed above it.
        listed = related_ids(context.related[record.id]) | {r.id for r in same_function + nearest}
        backlinks = [r for r in context.backlinks.get(record.id, ()) if r.id not in listed]
        options = page_options(record, context)
        return self.page(
            "error.html",
            page_url(record.id) + "index.html",
            context.config,
            record=record,
            related=context.related[record.id],
            code=code_lines(record, self.highlighter),
            permalink=github_permalink(record),
            report_url=report_issue_url(record, context.config),
            edit_url=edit_url(record, context.config),
            description=_description(record),
            same_function=same_function,
            same_file=nearest,
            more_in_file=others > NEARBY,
            # Every error in the file, this one included: the file's page lists them all.
            in_file=len(in_file),
            backlinks=backlinks,
            options=options,
            option_names=context.option_names,
            lists=context.lists,
            json_ld=_json_ld(record, context.config),
            history=history(record, context.config.releases_of(record.repo)),
            reported=context.config.reported_of(record.id),
            avoid=avoided,
            handling=handling,
            noindex=unlisted(record, context.config),
        )

    def error_files(self, record: Record, context: ErrorContext) -> dict[str, bytes]:
        """The files of one error: its page and its JSON document (at two addresses)."""
        record = shown(record, context.config)
        # The tests that lead to the raise: what "Raised when" says, and what "How to
        # avoid it" negates, where it can (``ways`` is then not empty).
        guards, found = avoid.guarded(record)
        found = found or (avoid.Avoid(guards, ()) if guards else None)
        avoided = avoid.document(found, avoid.flag_of(context.option_names)) if found else None
        handling = avoid.handling_of(record)
        near = neighbours(
            record,
            context.by_file[(record.repo, record.source.path)],
            related_ids(context.related[record.id]),
        )
        same_function, nearest, _ = near
        # What "More to look at" shows, as data: each option with how errors write it,
        # the other errors as ids. A page rendered again is written with its document.
        more = {
            "options": [
                {
                    "key": key,
                    "names": list(context.option_names[key]),
                    "url": context.config.base_url + option_url(key)
                    if option_url(key) + "index.html" in context.lists
                    else None,
                }
                for key in page_options(record, context)
            ],
            "same_function": [r.id for r in same_function],
            "same_file": [r.id for r in nearest],
            "linked_from": [r.id for r in context.backlinks.get(record.id, ())],
            "handling": list(handling),
        }
        document = mirror.dumps(
            mirror.record_document(
                record,
                context.config.base_url,
                context.related[record.id],
                context.config.reported_of(record.id),
                avoided,
                _removed_in(record, context.config),
                more,
            )
        )
        page = self.error_page(record, context, avoided, near, handling)
        files = {page_url(record.id) + "index.html": page}
        files.update(dict.fromkeys(json_paths(record.id, context.config.host), document))
        return files

    def site_files(
        self, site: Site, emit: Callable[[str, bytes], None] | None = None
    ) -> dict[str, bytes]:
        """Every file but those of single errors: assets, lists, indexes, search, feeds.
        With ``emit``, each is handed to it as soon as it is made, and none is kept: the
        lists of a big site run to hundreds of megabytes."""
        return self.some_site_files(site, None, emit=emit)[0]

    def some_site_files(
        self,
        site: Site,
        wanted: Callable[[str, Sequence[Record]], bool] | None,
        search_kept: Sequence[str] = (),
        emit: Callable[[str, bytes], None] | None = None,
    ) -> tuple[dict[str, bytes], list[str]]:
        """The files of ``site_files`` that ``wanted`` names (all of them without it), and
        the names of all of them: an update renders only the lists that show its errors.
        ``wanted`` is given each file's name and, for a page of a list, the records of
        its rows. The records as search sees them are kept in ``entries``.
        ``search_kept`` names the search index's files when they are
        as the last build wrote them (not made again). ``emit``: as for ``site_files``."""
        recent = _recent(site, RECENT)
        names: list[str] = []
        out: dict[str, bytes] = {}

        def put(rel: str, make: Callable[[], bytes], shows: Sequence[Record] = ()) -> None:
            names.append(rel)
            if wanted is None or wanted(rel, shows):
                if emit is None:
                    out[rel] = make()
                else:
                    emit(rel, make())

        def page(template: str, path: str, root: str | None = None, **context: Any) -> bytes:
            return self.page(template, path, site.config, root, site=site, recent=recent, **context)

        def reported(records: Iterable[Record]) -> dict[str, Any]:
            """The most reported errors among ``records``, and those without an analysis."""
            if not site.config.reported:
                return {"most_reported": [], "most_reported_unanalysed": []}
            records = list(records)
            return {
                "most_reported": most_reported(records, site.config.reported),
                "most_reported_unanalysed": most_reported(
                    [r for r in records if not r.has_analysis], site.config.reported
                ),
            }

        def list_page(
            url: str, heading: str, records: Sequence[Record], group: str = "repo", **context: Any
        ) -> None:
            """The list at ``url``, on as many pages as it takes (``ROWS_PER_PAGE``)."""
            by = (lambda r: r.source.path) if group == "path" else (lambda r: r.repo)
            groups = cache(partial(_group, records, by))

            def make(rel: str, pager: Pager, rows: slice) -> bytes:
                shown = _group(records[rows], by)
                return page(
                    "list.html",
                    rel,
                    heading=heading,
                    groups=groups(),
                    shown=shown,
                    group=group,
                    pager=pager,
                    **context,
                )

            for pager, rows in _pages(url, len(records)):
                rel = list_page_url(url, pager.number) + "index.html"
                put(rel, partial(make, rel, pager, rows), records[rows])

        def release_page(
            rel: str, repo: str, change: ReleaseChanges, rows: list[tuple[str, Any]], pager: Pager
        ) -> bytes:
            shown = _release_page(change, rows)
            return page("release.html", rel, repo=repo, change=change, shown=shown, pager=pager)

        for rel, data in self.assets.values():
            put(rel, partial(bytes, data))
        put("index.html", lambda: page("home.html", "index.html", **reported(site.records)))
        # A host serves 404.html at whatever address was missing, so its links start at the
        # site's own path rather than being relative.
        site_path = urlsplit(site.config.base_url).path or "/"
        put("404.html", partial(page, "404.html", "404.html", root=site_path))
        put("search/index.html", partial(page, "search.html", "search/index.html"))
        for alias, record in sorted(site.aliases.items()):
            url = page_url(alias) + "index.html"
            put(url, partial(page, "moved.html", url, alias=alias, record=record))
            # One document at both addresses, made at most once.
            stub = cache(partial(_alias_json, alias, record, site))
            for rel in json_paths(alias, site.config.host):
                put(rel, stub)
        for repo, records in site.by_repo.items():
            list_page(
                repo_url(repo),
                f"Errors raised by {repo}",
                records,
                repo=repo,
                group="path",
                releases=len(site.config.releases_of(repo)),
                **reported(records),
            )
        for (repo, path), records in site.by_file.items():
            if not has_list(records):
                continue
            list_page(
                file_url(repo, path),
                f"Errors raised in {path}",
                records,
                group="path",
                repo=repo,
            )
        for repo, releases in site.config.releases:
            if repo not in site.by_repo:
                continue
            changelog = changes(releases, site.by_repo[repo])
            folder = releases_url(repo)  # its files: urls.RELEASES_FILES
            put(
                folder + "index.html",
                partial(page, "releases.html", folder + "index.html", repo=repo, log=changelog),
            )
            put(
                folder + "feed.xml",
                partial(page, "releases.xml", folder + "feed.xml", repo=repo, log=changelog),
            )
            for one in changelog:
                url = release_url(repo, one.release.name)
                rows = _release_rows(one)
                for pager, piece in _pages(url, len(rows)):
                    rel = list_page_url(url, pager.number) + "index.html"
                    # A reworded row is the error and the wording it had before.
                    shows = [r[0] if kind == "reworded" else r for kind, r in rows[piece]]
                    put(rel, partial(release_page, rel, repo, one, rows[piece], pager), shows)
        for key, records in site.by_option.items():
            if not has_list(records):
                continue
            names_of = " / ".join(site.option_names[key])
            list_page(option_url(key), f"Errors about {names_of}", records)
        put("options/index.html", lambda: page("options.html", "options/index.html"))
        put(
            "errdex/codes/index.html",
            lambda: page(
                "codes.html", "errdex/codes/index.html", codes=list(CODES.values()), code=None
            ),
        )
        for code in CODES.values():
            rel = f"errdex/codes/{code.code}/index.html"
            put(rel, partial(page, "codes.html", rel, codes=[code], code=code))
        for exception, records in site.by_exception.items():
            if not has_list(records):
                continue
            list_page(exception_url(exception), f"{exception} errors", records, exception=exception)
        from errdex import search

        if search_kept:
            names.extend(search_kept)
        elif wanted is None or wanted("search/meta.json", ()):
            self.entries = entries = search.entries_from(site.records)
            index = search.Index.build(
                [*entries, *search.old_entries(site.records, site.config, len(entries))]
            )
            for rel, data in index.files().items():
                put(rel, partial(mirror.dumps, data))
        else:
            names.append("search/meta.json")
        put("api/errors.json", lambda: mirror.dumps(mirror.index_document(site)))

        # What search engines are given: every page but search's, the old ids' and the
        # hidden drafts'. Counted in any build; quoted and sorted when a sitemap is made
        # (an update makes none).
        indexed = site.records
        if site.config.drafts == "noindex":
            indexed = tuple(r for r in indexed if not unlisted(r, site.config))
        ids = [r.id for r in indexed]
        lists = [
            rel.removesuffix("index.html")
            for rel in names
            if rel.endswith("index.html")
            and not rel.startswith("search/")
            and not _is_alias(rel, site)
        ]
        urls = cache(lambda: sorted([quote(page_url(i)) for i in ids] + [quote(p) for p in lists]))
        count = len(ids) + len(lists)
        per_file = _sitemap_size([page_url(max(ids, key=len, default="")), *lists], site.config)

        def sitemap(name: str, start: int = 0) -> bytes:
            return page("sitemap.xml", name, urls=urls()[start : start + per_file])

        if count <= per_file:
            put("sitemap.xml", partial(sitemap, "sitemap.xml"))
        else:
            # Past one sitemap's limits, sitemap.xml (which robots.txt names) is an index.
            parts = [sitemap_part(n) for n in range(1, -(-count // per_file) + 1)]
            put("sitemap.xml", lambda: page("sitemapindex.xml", "sitemap.xml", sitemaps=parts))
            for n, name in enumerate(parts):
                put(name, partial(sitemap, name, n * per_file))
        put("robots.txt", lambda: page("robots.txt", "robots.txt"))
        host = HOSTS[site.config.host]
        if host.headers:
            put("_headers", lambda: page("_headers", "_headers"))
        redirects = host.redirects(site.config.base_url)
        if redirects is not None:
            put("_redirects", partial(bytes, redirects))
        put("feed.xml", lambda: page("feed.xml", "feed.xml", entries=_recent(site, 50)))
        schema = partial(mirror.schema_document, site.config.base_url, NEARBY)
        put("api/schema.json", lambda: mirror.dumps(schema()))
        return out, names


def _removed_in(record: Record, config: SiteConfig) -> str | None:
    """The release that no longer raises the error, as the page's history says it."""
    found = history(record, config.releases_of(record.repo))
    return found.removed_in if found else None


SITEMAP_URLS = 50_000
"""Addresses one sitemap holds at most (the protocol's limit): past it, ``sitemap.xml`` is
an index of ``sitemap-1.xml``, ``sitemap-2.xml``, … that hold them in order."""
SITEMAP_BYTES = 50 * 1024 * 1024
"""Bytes one sitemap holds at most, uncompressed (the protocol's limit)."""
_SITEMAP_ENTRY = len("  <url><loc></loc></url>\n")
_SITEMAP_FRAME = 1024
"""Bytes kept for what a sitemap holds besides its entries (its head and tail)."""


def _sitemap_size(paths: Sequence[str], config: SiteConfig) -> int:
    """How many pages one sitemap holds: ``SITEMAP_URLS``, or fewer when that many
    pages at the longest of ``paths`` (from the site's root, not yet quoted) would pass
    ``SITEMAP_BYTES``. Made from their lengths, so that a build that makes no sitemap
    (an update) quotes none."""
    longest = max(map(len, paths), default=0)
    if not "".join(paths).isascii():
        longest *= 4  # UTF-8 bytes a character at most
    # Quoting makes a byte three at most (%XX); the base URL is written escaped.
    entry = _SITEMAP_ENTRY + len(str(escape(config.base_url)).encode()) + 3 * longest
    return max(1, min(SITEMAP_URLS, (SITEMAP_BYTES - _SITEMAP_FRAME) // entry))


def unlisted(record: Record, config: SiteConfig) -> bool:
    """Whether search engines are kept from ``record``'s page: an unreviewed draft of a
    site that publishes them with ``noindex``."""
    return config.drafts == "noindex" and _unreviewed(record)


def _unreviewed(record: Record) -> bool:
    return record.analysis is not None and record.analysis.unreviewed


def shown(record: Record, config: SiteConfig) -> Record:
    """``record`` as its page shows it: without the prose of an unreviewed draft, on a
    site that hides them (``drafts.publish: hide``)."""
    return unpublished(record) if config.drafts == "hide" else record


def _alias_json(alias: str, record: Record, site: Site) -> bytes:
    return mirror.dumps(mirror.alias_document(alias, record, site))


NEARBY = 5
"""How many other errors of the same file an error page lists (the nearest ones); a
file's page lists them all (each of those is listed on the page of every error of the file:
five keep a page of a big file light)."""


def page_options(record: Record, context: ErrorContext) -> list[str]:
    """The keys of the options an error's page shows (those errors name), sorted; it
    links those with a list page (``has_list``)."""
    return sorted({key for key, _, _ in record.options if key in context.option_names})


_Near = tuple[list[Record], list[Record], int]
"""``neighbours``: the errors of a page's function, the nearest of its file, and how many
others its file has; its page and its JSON document list the same."""


def neighbours(
    record: Record, in_file: Iterable[Record], listed: AbstractSet[str] = frozenset()
) -> _Near:
    """What the page of ``record`` lists of the other errors of its file (``in_file``,
    in line order), but those its related errors list (``listed``): those raised in the
    same function, the nearest of the others, and how many others there are."""
    same_file = [r for r in in_file if r.id != record.id and r.id not in listed]
    function = record.source.function
    same_function = [r for r in same_file if function and r.source.function == function]
    others = [r for r in same_file if not (function and r.source.function == function)]
    return same_function, _nearest(others, record.source.line, NEARBY), len(others)


def related_ids(related: Iterable[RelatedLink]) -> set[str]:
    """The ids of the errors a page's related entries link to."""
    return {link.record.id for link in related if link.record is not None}


def _nearest(records: list[Record], line: int, count: int) -> list[Record]:
    """The ``count`` records raised nearest ``line``, in line order."""
    if len(records) <= count:
        return records
    near = sorted(records, key=lambda r: (abs(r.source.line - line), r.source.line, r.id))
    return sorted(near[:count], key=lambda r: (r.source.line, r.id))


def _group(records: Iterable[Record], key: Callable[[Record], str]) -> Mapping[str, list[Record]]:
    groups: dict[str, list[Record]] = {}
    for record in records:
        groups.setdefault(key(record), []).append(record)
    return groups


def _is_alias(rel: str, site: Site) -> bool:
    parts = rel.split("/")
    return len(parts) == 3 and parts[0] == "errors" and parts[1] in site.aliases


ROWS_PER_PAGE = 500
"""Errors one page of a list shows at most (a repo's, an exception's, a file's, an
option's, a release's): a repo of 8,000 errors is listed on 16 pages, the first at the
list's own address, page N at ``<list>/page/N/`` (``urls.list_page_url``)."""


@dataclass(frozen=True, slots=True)
class Pager:
    """Where one page of a list is among the list's pages."""

    number: int
    """This page's, from 1."""
    count: int
    """How many pages the list has (1: all of it is on this page)."""
    previous: str | None
    """The page before's address from the site's root, quoted; None on the first."""
    following: str | None
    """The page after's address from the site's root, quoted; None on the last."""


def _pages(url: str, rows: int) -> list[tuple[Pager, slice]]:
    """The pages of a list at ``url`` of ``rows`` rows: each one's pager, and its rows."""
    count = max(1, -(-rows // ROWS_PER_PAGE))

    def address(number: int) -> str | None:
        return quote(list_page_url(url, number)) if 1 <= number <= count else None

    return [
        (
            Pager(number, count, address(number - 1), address(number + 1)),
            slice((number - 1) * ROWS_PER_PAGE, number * ROWS_PER_PAGE),
        )
        for number in range(1, count + 1)
    ]


def _release_rows(change: ReleaseChanges) -> list[tuple[str, Any]]:
    """The rows of a release's page, in order: each kind of change, and the error."""
    return [
        *(("introduced", r) for r in change.introduced),
        *(("reworded", r) for r in change.reworded),
        *(("removed", r) for r in change.removed),
    ]


def _release_page(change: ReleaseChanges, rows: list[tuple[str, Any]]) -> ReleaseChanges:
    """``change`` with only the errors of ``rows`` (one page of its rows)."""
    return replace(
        change,
        introduced=tuple(r for kind, r in rows if kind == "introduced"),
        reworded=tuple(r for kind, r in rows if kind == "reworded"),
        removed=tuple(r for kind, r in rows if kind == "removed"),
    )


RECENT = 10
"""Recently analysed errors the home page lists."""


def _recent(site: Site, count: int) -> list[Record]:
    """Analysed errors, the most recently analysed first."""
    dated = [r for r in site.records if r.analysis]
    # Ids are distinct, so no two keys are equal: the first of sorting them all.
    return heapq.nlargest(count, dated, key=lambda r: (r.analysis.date if r.analysis else "", r.id))


def _json_ld(record: Record, config: SiteConfig) -> Markup:
    """schema.org data for the page, safe inside a script element. What the page's other
    elements already say (its description, its canonical URL, the site's name) is not
    said again."""
    data: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "TechArticle",
        "headline": record.title,
        "about": {"@type": "Thing", "name": record.exception},
        # The code it explains (TechArticle has no ``codeRepository``: that is
        # SoftwareSourceCode's).
        "isBasedOn": f"https://github.com/{record.repo}",
    }
    if record.analysis and record.analysis.state != "rejected":
        # A rejected draft was taken out: what prose the page shows, a person wrote since.
        data["dateModified"] = record.analysis.date
        data["author"] = {"@type": "Organization", "name": record.analysis.by}
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


DESCRIPTION_LIMIT = 160
"""Characters of a page's description at most (cut at a word, as titles are)."""


def _description(record: Record) -> str:
    """The page's description: the words of its meaning; without one, the error as the
    page heads it, word for word (a message is not Markdown: ``__init__`` and ``*args``
    keep their marks)."""
    if record.meaning:
        return markdown.plain(record.meaning, DESCRIPTION_LIMIT)
    where = f"{record.source.path}:{record.source.line}"
    return short_title(
        f"{record.exception}: {record.message.display} (raised at {where} in {record.repo})",
        DESCRIPTION_LIMIT,
    )
