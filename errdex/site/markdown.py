"""Markdown from records: CommonMark with raw HTML off, unsafe links refused, code highlighted."""

from __future__ import annotations

import re
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup

from errdex.records.model import short_title
from errdex.site.highlight import highlight


def _fence(code: str, lang: str, _attrs: str) -> str:
    return str(highlight(code, lang)) if lang else ""


# "html": False escapes raw HTML.
_MD = MarkdownIt("commonmark", {"html": False, "highlight": _fence}).enable(
    ["table", "strikethrough"]
)
_UNSAFE = re.compile(r"^(?:javascript|vbscript|data|file):")


def _safe_link(url: str) -> bool:
    # markdown-it refuses javascript:, vbscript: and file: but lets data:image/… through;
    # a record's links go to pages, never to inline data. A refused link stays text.
    cleaned = "".join(c for c in url if not c.isspace() and ord(c) >= 32).lower()
    return not _UNSAFE.match(cleaned)


_MD.validateLink = _safe_link  # type: ignore[method-assign]


def _align_classes(tokens: list[Token]) -> list[Token]:
    """Table alignment as classes, not style attributes: pages keep a strict CSP."""
    for token in tokens:
        style = token.attrGet("style")
        if isinstance(style, str) and style.startswith("text-align:"):
            token.attrs.pop("style")
            token.attrSet("class", "align-" + style.removeprefix("text-align:").strip())
    return tokens


@lru_cache(maxsize=64)
def _parsed(text: str) -> tuple[Token, ...]:
    """The tokens of ``text``, parsed once for both ``render`` and ``plain`` (a page's
    description is the plain words of the meaning it then renders). ``plain`` only reads
    them; rendering sets an image's ``alt`` from its children, the same each time."""
    return tuple(_align_classes(_MD.parse(text)))


@lru_cache(maxsize=8192)
def render(text: str) -> Markup:
    return Markup(_MD.renderer.render(_parsed(text), _MD.options, {}))


@lru_cache(maxsize=8192)
def render_inline(text: str) -> Markup:
    """One paragraph without the ``<p>``: for short fields such as a trigger."""
    return Markup(_MD.renderInline(text))


_MARKUP = re.compile(
    r"[\\`*\[\]<>&~\n\r\t\f\v]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])"
    r"|^[-+#>=]|^ *[0-9]|^ |\s$"
)
"""What could make Markdown of a text other than its words: without any, it is one
paragraph of just its text (what most messages are)."""


def plain(text: str, limit: int = 160) -> str:
    """The words of some Markdown, without markup, cut at a word boundary: for descriptions."""
    if not _MARKUP.search(text):
        return short_title(text, limit)
    words: list[str] = []
    for token in _parsed(text):
        for child in token.children or ():
            if child.type in ("text", "code_inline"):
                words.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                words.append(" ")
    return short_title("".join(words), limit)
