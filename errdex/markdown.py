"""Markdown from records: CommonMark with raw HTML off, unsafe links refused, code highlighted."""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from markupsafe import Markup

from .highlight import highlight
from .model import short_title


def _fence(code: str, lang: str, _attrs: str) -> str:
    return str(highlight(code, lang)) if lang else ""


# "html": False escapes raw HTML; markdown-it's validateLink already refuses
# javascript:, vbscript:, file: and non-image data: URLs, which then stay as text.
_MD = MarkdownIt("commonmark", {"html": False, "highlight": _fence}).enable(
    ["table", "strikethrough"]
)


@lru_cache(maxsize=8192)
def render(text: str) -> Markup:
    return Markup(_MD.render(text))


@lru_cache(maxsize=8192)
def render_inline(text: str) -> Markup:
    """One paragraph without the ``<p>``: for short fields such as a trigger."""
    return Markup(_MD.renderInline(text))


def plain(text: str, limit: int = 160) -> str:
    """The words of some Markdown, without markup, cut at a word boundary: for descriptions."""
    words: list[str] = []
    for token in _MD.parse(text):
        for child in token.children or ():
            if child.type in ("text", "code_inline"):
                words.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                words.append(" ")
    return short_title("".join(words), limit)
