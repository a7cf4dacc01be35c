"""Pygments highlighting: code blocks, excerpts split per line, and two colour schemes."""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path, PurePosixPath

import pygments
from markupsafe import Markup, escape
from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.util import ClassNotFound

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"
CSS_SCOPE = ".hl"

_FORMATTER = HtmlFormatter(nowrap=True)


@lru_cache(maxsize=256)
def _lexer(name: str | None = None, suffix: str | None = None) -> Lexer | None:
    # stripnl=False: a leading blank line of an excerpt must keep its line number.
    try:
        if name:
            return get_lexer_by_name(name, stripnl=False, ensurenl=True)
        if suffix:
            return get_lexer_for_filename("x" + suffix, stripnl=False, ensurenl=True)
    except ClassNotFound:
        return None
    return None


# Highlighting is most of the cost of a build. What was highlighted before is kept in a
# cache file between builds, keyed by the code, its language and the Pygments version.
_CACHE_VERSION = f"errdex-highlight-1 pygments-{pygments.__version__}"
_cache: dict[str, str] = {}
_cache_dirty = False


def _cached(kind: str, lang: str, code: str, make: Callable[[], str]) -> str:
    global _cache_dirty
    key = hashlib.sha256(f"{kind}\x00{lang}\x00{code}".encode()).hexdigest()
    found = _cache.get(key)
    if found is None:
        found = _cache[key] = make()
        _cache_dirty = True
    return found


def load_cache(path: Path) -> str | None:
    """Read the cache file; a missing one is fine, a corrupt or foreign one is ignored.
    Returns a warning to show, or None."""
    global _cache_dirty
    _cache.clear()
    _cache_dirty = False
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return f"{path}: the highlight cache is unreadable; ignored and rebuilt"
    if not isinstance(data, dict) or data.get("version") != _CACHE_VERSION:
        return None  # another errdex or Pygments version: start afresh
    entries = data.get("entries")
    if not isinstance(entries, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in entries.items()
    ):
        return f"{path}: the highlight cache is not errdex's; ignored and rebuilt"
    _cache.update(entries)
    return None


def save_cache(path: Path) -> None:
    """Write the cache when it grew, atomically (a reader never sees half a file)."""
    if not _cache_dirty:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    document = {"version": _CACHE_VERSION, "entries": _cache}
    partial.write_text(json.dumps(document, separators=(",", ":")), encoding="utf-8")
    os.replace(partial, path)


@lru_cache(maxsize=4096)
def highlight(code: str, lang: str) -> Markup:
    """``code`` as HTML spans for a ``<pre>``; plain escaped text for an unknown language."""
    lexer = _lexer(name=lang)
    if lexer is None:
        return Markup(escape(code))
    return Markup(_cached("block", lang, code, lambda: pygments_highlight(code, lexer, _FORMATTER)))


@lru_cache(maxsize=4096)
def highlight_lines(code: str, filename: str) -> tuple[Markup, ...]:
    """One HTML fragment per source line, each with its spans closed.

    Pygments' HTML formatter closes and reopens spans at every newline, so the
    output splits cleanly into lines, even inside multi-line strings.
    """
    count = len(code.splitlines())
    suffix = PurePosixPath(filename).suffix
    lexer = _lexer(suffix=suffix)
    if lexer is None:
        return tuple(Markup(escape(line)) for line in code.splitlines())
    html = _cached("lines", suffix, code, lambda: pygments_highlight(code, lexer, _FORMATTER))
    lines = html.split("\n")[:count]
    return tuple(Markup(line) for line in lines)


def stylesheet() -> str:
    """Token colours for the light scheme, and for the dark one when the system asks for it."""
    # Token colours only: backgrounds come from errdex.css, so code sits on the page's own tones.
    light = "\n".join(_token_css(LIGHT_STYLE))
    dark = _token_css(DARK_STYLE)
    indented = "\n".join("  " + line for line in dark)
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{indented}\n}}\n"


def _token_css(style: str) -> list[str]:
    rules: list[str] = HtmlFormatter(style=style).get_token_style_defs(CSS_SCOPE)  # type: ignore[no-untyped-call]
    return rules
