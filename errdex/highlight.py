"""Pygments highlighting: code blocks, excerpts split per line, and two colour schemes."""

from __future__ import annotations

from functools import lru_cache

from markupsafe import Markup, escape
from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.util import ClassNotFound

LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"
CSS_SCOPE = ".hl"

_FORMATTER = HtmlFormatter(nowrap=True)


def _lexer(name: str | None = None, filename: str | None = None) -> Lexer | None:
    # stripnl=False: a leading blank line of an excerpt must keep its line number.
    try:
        if name:
            return get_lexer_by_name(name, stripnl=False, ensurenl=True)
        if filename:
            return get_lexer_for_filename(filename, stripnl=False, ensurenl=True)
    except ClassNotFound:
        return None
    return None


@lru_cache(maxsize=4096)
def highlight(code: str, lang: str) -> Markup:
    """``code`` as HTML spans for a ``<pre>``; plain escaped text for an unknown language."""
    lexer = _lexer(name=lang)
    if lexer is None:
        return Markup(escape(code))
    return Markup(pygments_highlight(code, lexer, _FORMATTER))


@lru_cache(maxsize=4096)
def highlight_lines(code: str, filename: str) -> tuple[Markup, ...]:
    """One HTML fragment per source line, each with its spans closed.

    Pygments' HTML formatter closes and reopens spans at every newline, so the
    output splits cleanly into lines, even inside multi-line strings.
    """
    count = len(code.splitlines())
    lexer = _lexer(filename=filename)
    if lexer is None:
        return tuple(Markup(escape(line)) for line in code.splitlines())
    html = pygments_highlight(code, lexer, _FORMATTER)
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
