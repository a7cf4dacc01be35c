"""The URL contract: where each page and document lives. Links from GitHub issues depend on it."""

from __future__ import annotations

import ipaddress
import re
from functools import lru_cache
from urllib.parse import quote, urlencode, urlsplit

from errdex.records.model import Record, SiteConfig

# --- Names as folders -----------------------------------------------------------------
#
# Repository owners and names, exceptions, source path parts and option keys become
# folders of the site. Windows cannot hold some of them (CON, aux.py, a name ending in a
# dot, a colon), and a site must build to the same files on every system, so each is
# written in a form every file system holds; a name that needs none keeps its address.

_DEVICE = re.compile(r"(?:CON|PRN|AUX|NUL|COM[0-9¹²³]|LPT[0-9¹²³]|CONIN\$|CONOUT\$|CLOCK\$)", re.I)
"""Windows device names: with any extension (``nul.tar.gz``) they open the device."""
_NOT_IN_NAMES = re.compile(r'[<>:"|?*\x00-\x1f]')
"""What Windows refuses in a file name."""


@lru_cache(maxsize=1 << 16)
def folder_name(name: str) -> str:
    """``name`` as a folder that every file system holds, and no file system reads as
    another name.

    A character Windows refuses becomes ``%XX``; a device name (``aux.py``) and ``.git``
    get ``_`` after their stem (``aux_.py``); a name ending in a dot or a space, which
    Windows drops, gets ``_`` at the end. ``link`` refuses two names whose folders
    differ only in case, so no two names share a folder on macOS or Windows either.
    """
    name = _NOT_IN_NAMES.sub(lambda found: f"%{ord(found.group()):02X}", name)
    stem, dot, rest = name.partition(".")
    if _DEVICE.fullmatch(stem.rstrip(" ")):
        name = f"{stem}_{dot}{rest}"
    elif name.lower() == ".git":
        name += "_"
    if name.endswith((".", " ")):
        name += "_"
    return name


def page_url(record_id: str) -> str:
    return f"errors/{record_id}/"


def json_url(record_id: str) -> str:
    return f"api/errors/{record_id}.json"


def repo_url(repo: str) -> str:
    return "repos/" + "".join(folder_name(part) + "/" for part in repo.split("/"))


def exception_url(exception: str) -> str:
    return f"exceptions/{folder_name(exception)}/"


def file_url(repo: str, path: str) -> str:
    """The folder of a source file's page. Its address in a link is this quoted: the
    folder may hold ``%XX`` escapes of its own."""
    return repo_url(repo) + "files/" + "".join(folder_name(p) + "/" for p in path.split("/"))


def option_url(key: str) -> str:
    return f"options/{folder_name(key)}/"


def list_page_url(url: str, number: int) -> str:
    """Page ``number`` (from 1) of the list at ``url``: the first at the list's own
    address, the others at ``<list>/page/N/``."""
    return url if number == 1 else f"{url}page/{number}/"


_LATER_PAGE = re.compile(r"(.*/)page/[0-9]+/index\.html")


def first_page(rel: str) -> str:
    """The file of the first page of the list ``rel`` is a later page of; any other file
    as it is."""
    if "/page/" not in rel:
        return rel
    found = _LATER_PAGE.fullmatch(rel)
    return rel if found is None else found[1] + "index.html"


def github_permalink(record: Record, line: int | None = None) -> str:
    """The raising line (or ``line``) on GitHub, at the pinned commit."""
    source = record.source
    return github_line(record.repo, source.commit, source.path, line or source.line)


def github_line(repo: str, commit: str, path: str, line: int) -> str:
    return f"https://github.com/{repo}/blob/{commit}/{_quoted(path)}#L{line}"


_quoted = lru_cache(maxsize=1 << 12)(quote)
"""A path quoted for a URL, once: every line of an excerpt links to GitHub."""


def sitemap_part(number: int) -> str:
    """The sitemap that holds the ``number``th lot of the pages (from 1), when there are
    too many for one: ``sitemap.xml`` is then an index of these."""
    return f"sitemap-{number}.xml"


def is_sitemap(rel: str) -> bool:
    """Whether the file ``rel`` is one of the site's sitemaps (or their index)."""
    return rel == "sitemap.xml" or re.fullmatch(r"sitemap-[1-9][0-9]*\.xml", rel) is not None


RELEASES_FILES = ("index.html", "feed.xml")
"""The files of a repository's releases folder beside the releases' own folders: the
list of releases and their Atom feed. No release may be named so that its folder is one
of them (``validate.release_name_problem``)."""


def releases_url(repo: str) -> str:
    """The folder of a repository's releases: their list, their feed, a folder for each."""
    return repo_url(repo) + "releases/"


def release_url(repo: str, release: str) -> str:
    """A release's page: the errors it introduced, reworded and removed."""
    return releases_url(repo) + f"{folder_name(release)}/"


def report_issue_url(record: Record, config: SiteConfig) -> str:
    """A new issue on the site's own repository, titled with the error's id (every page
    carries this link, so each word costs the site a few bytes a record: the page's
    script adds its title and a link to the page, ``data-report``)."""
    query = urlencode({"title": f"[{record.id}]"})
    return f"https://github.com/{config.repository}/issues/new?{query}"


def edit_url(record: Record, config: SiteConfig) -> str | None:
    """Where the record's file is edited (``edit_url`` and its path in the content
    folder, each part encoded); None when site.yaml says nowhere."""
    if config.edit_url is None:
        return None
    return config.edit_url + quote(record.content_path)


# --- The site's own address -------------------------------------------------------------

_BASE_URL = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*):(?P<rest>.*)", re.S)
_AUTHORITY = re.compile(r"(?P<host>\[[^\]]*\]|[^:]*)(?::(?P<port>[0-9]*))?")
_DOT_SEGMENT = re.compile(r"(?:\.|%2e){1,2}", re.I)
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


PLACEHOLDER_HOST = "me.github.io"
"""The host of the base_url ``errdex init`` writes when nobody said the site's own: no
address to send anyone to."""

ERRDEX_SITE = "https://errdex.github.io/errdex/"
"""errdex's own site, which has the pages that explain problem codes, as every site does."""


def codes_site(base_url: str) -> str:
    """Where to read what problem codes mean: the site at ``base_url``; errdex's own site
    when that is refused (E205) or is still the placeholder ``errdex init`` writes
    (``https://me.github.io/NAME/``), both no address to send a reader to."""
    from errdex.records.model import normal_base_url

    if base_url_problem(base_url) or urlsplit(base_url).hostname == PLACEHOLDER_HOST:
        return ERRDEX_SITE
    return normal_base_url(base_url)


def base_url_problem(url: str, added: str = "page addresses are") -> str | None:
    """Why ``url`` cannot be a site's base URL (or the ``edit_url`` that the paths of
    record files are ``added`` to), or None.

    Every canonical, JSON and issue URL starts with it, and ``404.html`` loads its
    scripts and styles from its path: it must be an absolute http(s) URL whose path can
    only mean itself. A browser reads ``//host`` in a path as another site, ``\\`` as
    ``/``, drops tabs and line breaks, and resolves ``..``.
    """
    if any(c.isspace() or not c.isprintable() for c in url):
        return "has a space or a control character"
    if "\\" in url:
        return "has a backslash, which browsers read as '/'"
    found = _BASE_URL.fullmatch(url)
    if not found or found["scheme"].lower() not in ("http", "https"):
        hint = f"; did you mean 'https://{url.lstrip('/')}'?" if found is None and url else ""
        return f"is not an http:// or https:// URL{hint}"
    rest = found["rest"]
    if not rest.startswith("//"):
        return f"must have '//' and a host after '{found['scheme']}:'"
    authority, slash, path = rest[2:].partition("/")
    path = slash + path
    if "?" in url or "#" in url:
        return f"has a query or fragment (? or #); {added} added to its end"
    if "@" in authority:
        return "has a user name (…@) before the host"
    problem = _authority_problem(authority)
    if problem:
        return problem
    segments = path.split("/")[1:]
    if "" in segments[:-1]:
        fixed = f"{found['scheme']}://{authority}/" + "".join(s + "/" for s in segments if s)
        return f"has an empty segment ('//') in its path; did you mean {fixed!r}?"
    if any(_DOT_SEGMENT.fullmatch(s) for s in segments):
        return "has a '.' or '..' segment in its path"
    if _BAD_ESCAPE.search(path):
        return "has a '%' that does not start an escape (%XX)"
    return None


def _authority_problem(authority: str) -> str | None:
    parts = _AUTHORITY.fullmatch(authority)
    if parts is None or not parts["host"]:
        return "has no host"
    host, port = parts["host"], parts["port"]
    if port is not None and not (port.isdigit() and 0 < int(port) < 65536):
        return f"has a port that is not a number from 1 to 65535: {port!r}"
    if host.startswith("["):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return f"has a host that is not an IPv6 address: {host!r}"
        return None
    labels = host.removesuffix(".").split(".")
    for label in labels:
        if not label or label.startswith("-") or label.endswith("-"):
            return f"has a host that is not a domain name: {host!r}"
        if not all(c.isalnum() or c in "-_" for c in label):
            return f"has a host that is not a domain name: {host!r}"
    return None
