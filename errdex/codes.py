"""errdex's own problem codes: each has a page in every site errdex builds (/errdex/codes/)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Code:
    code: str
    title: str
    text: str
    """What it means and how to fix it (Markdown)."""


CODES = {
    c.code: c
    for c in (
        Code(
            "E100",
            "A file cannot be read",
            "The file is missing, larger than 2 MB, not UTF-8, holds a NUL byte, is a link "
            "that leads nowhere or outside the content folder, or is a folder named like a "
            "record. Save records as UTF-8 text files inside `content/errors/`.",
        ),
        Code(
            "E101",
            "YAML syntax error",
            "The file is not valid YAML, or uses what errdex refuses: aliases (`*name`), "
            "keys that are not text, values YAML cannot read (a date like 2026-13-45), or "
            "nesting too deep to be a record. The message names the line; indent with spaces, "
            "quote text that holds `: ` or starts with a special character.",
        ),
        Code(
            "E102",
            "Duplicate key",
            "A key is given twice in one mapping; YAML would silently keep the last one. Keep one.",
        ),
        Code("E103", "Empty file", "A record file must hold a mapping of fields."),
        Code(
            "E200",
            "Missing required field",
            "Every record needs `repo`, `exception`, `message` and `source` with `commit`, "
            "`path` and `line`; the site config needs `title`, `base_url` and `repository`.",
        ),
        Code(
            "E201",
            "Wrong type or empty value",
            "A field has the wrong type (text where a number is needed, or the reverse), is "
            "empty, is below its minimum, or is not a YYYY-MM-DD date. A commit or id that "
            "YAML reads as a number must be put in quotes.",
        ),
        Code(
            "E202",
            "Value in the wrong format",
            "The value does not have the form its field needs: ids are 16 lowercase hex "
            "digits, commits 7 to 40, repositories `owner/name`, exceptions Python names.",
        ),
        Code(
            "W203",
            "Unknown field",
            "errdex does not know this field and ignores it (it stays out of the JSON "
            "mirror). Often a typo: the message suggests the closest known field.",
        ),
        Code(
            "E300",
            "Message template does not parse",
            "A `{` without its `}` or the reverse. Placeholders are `{name}`; write `{{` and "
            "`}}` for literal braces.",
        ),
        Code(
            "E301",
            "Unsafe source path",
            "`source.path` becomes part of URLs and file names: it must be relative to the "
            "repository, without `..`, backslashes or control characters.",
        ),
        Code(
            "E302",
            "Excerpt does not fit",
            "`source.line` must fall inside the excerpt (`start` to its last line), and an "
            "excerpt holds at most 1,000 lines: keep the code around the raise.",
        ),
        Code(
            "W303",
            "No raise on the raising line",
            "The excerpt line at `source.line` has no `raise`: the line number or the "
            "excerpt's `start` is probably off.",
        ),
        Code(
            "W304",
            "Unknown language",
            "Pygments does not know this `lang`; the block is shown without highlighting. "
            "Use a Pygments name such as `python`, `bash`, `yaml` or `text`.",
        ),
        Code(
            "E305",
            "Unsafe link",
            "A Markdown link to a `javascript:`, `vbscript:`, `data:` or `file:` URL is "
            "refused: link to http(s) pages only.",
        ),
        Code(
            "W306",
            "Raw HTML in Markdown",
            "Raw HTML is shown as text, never rendered. Write Markdown instead.",
        ),
        Code(
            "W307",
            "Prose still TODO",
            "A scaffolded field still says TODO; write it or remove the field.",
        ),
        Code(
            "E400",
            "Duplicate id",
            "Two records have the same id (stated, or derived from the same repo, exception "
            "and message), or an alias is another record's id. Give one record its own `id`.",
        ),
        Code(
            "E401",
            "Related id matches no record",
            "A `related` entry that is an id must be the id (or an alias) of a record.",
        ),
        Code(
            "W402",
            "Related message matches no record",
            "A `related` entry given as message text matches no record (or several, or the "
            "record itself); it is shown as plain text, never as a dead link. Add the record, "
            "or write its id.",
        ),
        Code(
            "E500",
            "Output folder refused",
            "The build replaces its output folder whole, so it refuses the working folder, "
            "one above it, the content folder, and any folder that is not an earlier errdex "
            "build. Choose a new or empty folder, or `public/`.",
        ),
        Code(
            "W501",
            "Cache ignored",
            "The highlight cache file is corrupt or not errdex's: it is ignored and rebuilt. "
            "Deleting `.errdex/cache/` is always safe.",
        ),
    )
}


def docs_url(base_url: str, code: str) -> str:
    return f"{base_url}errdex/codes/{code}/"
