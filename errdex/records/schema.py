"""The record and site-config formats: one description drives validation, JSON Schema and docs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["text", "markdown", "int", "bool", "date", "list", "map"]

ID_PATTERN = r"^[0-9a-f]{16}$"
REPO_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9-]*/(?!\.\.?$)[A-Za-z0-9_.-]+$"
"""GitHub's owner/name; "." and ".." are refused because the repo becomes part of a path."""
RELEASE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,99}$"
"""A release name: a tag as git allows it, safe in a URL and a file name."""


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a YAML file."""

    name: str
    kind: Kind
    doc: str
    """One sentence for docs/records.md and the JSON Schema."""
    required: bool = False
    pattern: str | None = None
    """A regular expression the text must match."""
    pattern_hint: str | None = None
    """What the pattern means, for messages."""
    minimum: int | None = None
    items: Field | None = None
    """The type of each item of a list."""
    fields: tuple[Field, ...] = ()
    """The fields of a map."""


def _commit(name: str, doc: str, required: bool = False) -> Field:
    return Field(
        name,
        "text",
        doc,
        required,
        pattern=r"^[0-9a-f]{7,40}$",
        pattern_hint="7 to 40 lowercase hex digits, in quotes",
    )


def _id(name: str, doc: str, required: bool = False) -> Field:
    return Field(name, "text", doc, required, ID_PATTERN, "16 lowercase hex digits")


RECORD = Field(
    "record",
    "map",
    "One error a codebase can raise.",
    fields=(
        _id("id", "The record's id; derived from repo, exception and message when left out."),
        Field(
            "aliases",
            "list",
            "Earlier ids of this record; each keeps a page that sends readers here.",
            items=_id("alias", "An earlier id."),
        ),
        Field(
            "repo",
            "text",
            "The GitHub repository that raises the error, as owner/name.",
            required=True,
            pattern=REPO_PATTERN,
            pattern_hint="owner/name",
        ),
        Field(
            "exception",
            "text",
            "The exception type raised, e.g. ValueError.",
            required=True,
            pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$",
            pattern_hint="a Python name such as ValueError or torch.OutOfMemoryError",
        ),
        Field(
            "message",
            "text",
            "The message template; {name} marks a placeholder, {{ and }} literal braces.",
            required=True,
        ),
        Field("title", "text", "A short title; the message cut at a word boundary if left out."),
        Field("meaning", "markdown", "What the error means (Markdown)."),
        Field(
            "source",
            "map",
            "Where the error is raised, pinned to a commit.",
            required=True,
            fields=(
                _commit(
                    "commit",
                    "The commit the record is pinned to (7 to 40 hex digits; 40 preferred).",
                    required=True,
                ),
                Field("path", "text", "The file, relative to the repository root.", True),
                Field("line", "int", "The line of the raise statement.", True, minimum=1),
                Field("function", "text", "The function or method that raises it."),
                Field(
                    "parameters",
                    "list",
                    "Written by `scan` where the excerpt cannot tell: the names whose "
                    "values at the raise are still the caller's (the parameters of "
                    "`function` when its signature lies above the excerpt; of the outer "
                    "function for one defined in another).",
                    items=Field(
                        "parameter",
                        "text",
                        "A parameter's name.",
                        pattern=r"^[^\W\d]\w*$",
                        pattern_hint="a Python name such as input_ids",
                    ),
                ),
                Field(
                    "optional",
                    "list",
                    "Written by `scan` with `parameters`: those of them whose default is "
                    "None, which a caller leaves None by not passing them.",
                    items=Field(
                        "parameter",
                        "text",
                        "A parameter's name.",
                        pattern=r"^[^\W\d]\w*$",
                        pattern_hint="a Python name such as attention_mask",
                    ),
                ),
                Field(
                    "condition",
                    "text",
                    "The test of the `if` that leads to the raise, as in the source.",
                ),
                _commit(
                    "removed_in", "The commit where the raise is gone; the rest stays as last seen."
                ),
                Field(
                    "excerpt",
                    "map",
                    "The source around the raise, stored so a build needs no checkout.",
                    fields=(
                        Field("start", "int", "Line number of the first line.", True, minimum=1),
                        Field("code", "text", "The lines, exactly as in the file.", True),
                    ),
                ),
            ),
        ),
        Field(
            "releases",
            "list",
            "Written by `pin`: each release that raises it, oldest first (see site.yaml's "
            "releases).",
            items=Field(
                "release",
                "map",
                "One release that raises it.",
                fields=(
                    Field("release", "text", "The release's name, as site.yaml lists it.", True),
                    _commit("commit", "The release's commit.", required=True),
                    Field("path", "text", "The file that raises it in that release.", True),
                    Field("line", "int", "The line of the raise in that release.", True, minimum=1),
                    Field(
                        "message",
                        "text",
                        "The message as that release words it, when not as `message` does.",
                    ),
                ),
            ),
        ),
        Field(
            "solutions",
            "list",
            "Ways to fix it, best first (Markdown each).",
            items=Field("solution", "markdown", "One way to fix it."),
        ),
        Field(
            "example_fix",
            "list",
            "Code blocks showing a fix, each highlighted in its language.",
            items=Field(
                "block",
                "map",
                "One code block.",
                fields=(
                    Field("lang", "text", "A Pygments language name: bash, python, yaml…", True),
                    Field("code", "text", "The code.", True),
                    Field("caption", "text", "A line shown above the block."),
                ),
            ),
        ),
        Field(
            "when",
            "map",
            "When it happens.",
            fields=(
                Field("trigger", "markdown", "What makes the code raise it (Markdown)."),
                Field("situations", "markdown", "Common situations that lead there (Markdown)."),
            ),
        ),
        Field(
            "related",
            "list",
            "Related errors, each a record id or the text of an error message.",
            items=Field("entry", "text", "A record id or message text."),
        ),
        Field(
            "triage",
            "bool",
            "false keeps the error out of the answers `errdex triage` posts on GitHub issues "
            "(for a message too generic to name one cause); true when left out.",
        ),
        Field(
            "analysis",
            "map",
            "Who or what wrote the prose, and when.",
            fields=(
                Field("by", "text", "Who or what wrote it, e.g. AI-assisted or a name.", True),
                Field("date", "date", "When, as YYYY-MM-DD.", True),
                Field("model", "text", "Written by `draft`: the model that drafted it."),
                _commit("commit", "Written by `draft`: the commit whose code it was drafted from."),
                Field(
                    "reviewed",
                    "bool",
                    "Written by `draft` (false) and `review` (true): whether a person has "
                    "checked the draft against the code.",
                ),
                Field(
                    "prompt",
                    "text",
                    "Written by `draft`: a hash of what the model was given.",
                    pattern=r"^[0-9a-f]{16}$",
                    pattern_hint="16 hex digits",
                ),
                Field(
                    "answer",
                    "text",
                    "Written by `draft`: a hash of the prose it wrote; prose that no longer "
                    "matches it was edited by a person.",
                    pattern=r"^[0-9a-f]{16}$",
                    pattern_hint="16 hex digits",
                ),
                Field(
                    "basis",
                    "text",
                    "Written by `draft`: a hash of the message, excerpt and condition it was "
                    "drafted from; when they change, the page says the analysis is stale.",
                    pattern=r"^[0-9a-f]{16}$",
                    pattern_hint="16 hex digits",
                ),
                Field(
                    "rejected",
                    "bool",
                    "Written by `review --reject`: a person refused the draft; `draft` leaves "
                    "the record alone.",
                ),
            ),
        ),
    ),
)

SITE = Field(
    "site",
    "map",
    "The site config, content/site.yaml.",
    fields=(
        Field("title", "text", "The site's name, shown in the header and page titles.", True),
        # No pattern: validate checks it with urls.base_url_problem, which says what is
        # wrong, where a pattern could only say "no".
        Field(
            "base_url",
            "text",
            "Where the site is published, an http(s) URL; canonical URLs start with it.",
            True,
        ),
        Field(
            "repository",
            "text",
            "The site's own GitHub repository (owner/name); 'Report an issue' opens issues there.",
            True,
            pattern=REPO_PATTERN,
            pattern_hint="owner/name",
        ),
        Field("description", "text", "One sentence about the site, for the home page."),
        # No pattern either: checked as base_url is (urls.base_url_problem).
        Field(
            "edit_url",
            "text",
            "Where record files are edited, an http(s) URL that each record's path in the "
            "content folder is added to; error pages then link 'Edit this page' there.",
        ),
        Field(
            "host",
            "text",
            "Where the site is published: plain (any web server; the default), "
            "github-pages, cloudflare or netlify. Hosts with rewrite rules get one rule "
            "for the JSON mirror's extension-less addresses instead of a copy of each "
            "document, and the build warns as the site nears the host's limits.",
            pattern=r"^(plain|github-pages|cloudflare|netlify)$",
            pattern_hint="plain, github-pages, cloudflare or netlify",
        ),
        Field(
            "drafts",
            "map",
            "How AI-assisted analyses no person has reviewed are published, and what they "
            "may name.",
            fields=(
                Field(
                    "publish",
                    "text",
                    "show (with a notice; the default), noindex (shown, kept out of search "
                    "engines and the sitemap) or hide (not shown until reviewed).",
                    pattern=r"^(show|noindex|hide)$",
                    pattern_hint="show, noindex or hide",
                ),
                Field(
                    "allow",
                    "list",
                    "Names a draft may use that the code does not define (other tools, "
                    "environment variables), besides errdex's own list.",
                    items=Field("name", "text", "A command, flag or variable name."),
                ),
            ),
        ),
        Field(
            "extra_css",
            "list",
            "Stylesheets of the site's static/ folder that every page loads after errdex's.",
            items=Field("path", "text", "A file's path in static/, e.g. site.css."),
        ),
        Field(
            "extra_js",
            "list",
            "Scripts of the site's static/ folder that every page loads (deferred).",
            items=Field("path", "text", "A file's path in static/, e.g. site.js."),
        ),
        Field(
            "releases",
            "list",
            "Written by `pin`: the releases of each repository that records were pinned to, "
            "oldest first.",
            items=Field(
                "release",
                "map",
                "One release.",
                fields=(
                    Field(
                        "repo",
                        "text",
                        "The repository, owner/name.",
                        True,
                        pattern=REPO_PATTERN,
                        pattern_hint="owner/name",
                    ),
                    Field(
                        "name",
                        "text",
                        "The release's name, its tag (e.g. v0.31.0).",
                        True,
                        pattern=RELEASE_PATTERN,
                        pattern_hint="letters, digits, '.', '-', '_' and '+', as a tag is",
                    ),
                    _commit("commit", "The release's commit.", required=True),
                    Field("date", "date", "The day of the release's commit, YYYY-MM-DD."),
                ),
            ),
        ),
    ),
)


def json_schema(field: Field) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12 vocabulary) of a field, as a record document holds it."""
    schema: dict[str, Any] = {"description": field.doc}
    if field.kind in ("text", "markdown"):
        schema["type"] = "string"
        if field.pattern:
            schema["pattern"] = field.pattern
    elif field.kind == "date":
        schema.update(type="string", format="date", pattern=r"^\d{4}-\d{2}-\d{2}$")
    elif field.kind == "bool":
        schema["type"] = "boolean"
    elif field.kind == "int":
        schema["type"] = "integer"
        if field.minimum is not None:
            schema["minimum"] = field.minimum
    elif field.kind == "list":
        assert field.items is not None
        schema.update(type="array", items=json_schema(field.items))
    else:
        schema.update(
            type="object",
            properties={f.name: json_schema(f) for f in field.fields},
            required=[f.name for f in field.fields if f.required],
            additionalProperties=False,
        )
    return schema
