"""The JSON mirror: one document per record, a list of all records, and their JSON Schema."""

from __future__ import annotations

import json
from typing import Any

from errdex.github.issues import Reported
from errdex.records.link import RelatedLink, Site
from errdex.records.model import Record, unscaffolded
from errdex.records.schema import RECORD, Field, json_schema
from errdex.source.avoid import TERM_OPS
from errdex.urls import github_permalink, json_url, page_url


def dumps(data: Any) -> bytes:
    """JSON with sorted keys and no whitespace, one line: the same data always gives the
    same bytes, and a site of many records stays small (browsers and ``jq`` indent it)."""
    text = json.dumps(
        data, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    return (text + "\n").encode()


def record_document(
    record: Record,
    base_url: str,
    related: tuple[RelatedLink, ...],
    reported: Reported,
    avoided: dict[str, Any] | None = None,
    removed_in: str | None = None,
    more: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Every field of the record as written, plus what the site derived from it (its
    ``related`` entries as linked, the GitHub issues that paste it, how to avoid it as
    ``avoid.document`` says it, and ``more``: what its page's "More to look at" lists,
    its ``options``, ``same_function``, ``same_file`` and ``linked_from``)."""
    return {
        # Unknown fields (a warning at build time) stay out: the schema has no room for them.
        **known_only(unscaffolded(record.data), RECORD),
        "id": record.id,
        "title": record.title,
        "placeholders": list(record.message.names),
        "url": base_url + page_url(record.id),
        "json_url": base_url + json_url(record.id),
        "permalink": github_permalink(record),
        "related_ids": [link.record.id for link in related if link.record],
        "issues": reported.document(),
        "avoid": avoided,
        "review": _review(record),
        "removed_in_release": removed_in,
        **(more or {}),
    }


def _review(record: Record) -> dict[str, Any] | None:
    """Where an AI-assisted draft stands, as its page says it."""
    analysis = record.analysis
    if analysis is None or analysis.state is None:
        return None
    return {"state": analysis.state, "stale": analysis.stale}


def known_only(value: Any, spec: Field) -> Any:
    """``value`` with every field the format does not know left out, at every depth."""
    if spec.kind == "map" and isinstance(value, dict):
        fields = {f.name: f for f in spec.fields}
        return {k: known_only(v, fields[k]) for k, v in value.items() if k in fields}
    if spec.kind == "list" and isinstance(value, list) and spec.items:
        return [known_only(item, spec.items) for item in value]
    return value


def alias_document(alias: str, record: Record, site: Site) -> dict[str, Any]:
    """What an old id's JSON URL answers: where the record lives now."""
    base = site.config.base_url
    return {
        "id": alias,
        "moved_to": record.id,
        "url": base + page_url(record.id),
        "json_url": base + json_url(record.id),
    }


def index_document(site: Site) -> dict[str, Any]:
    base = site.config.base_url
    return {
        "count": len(site.records),
        "errors": [
            {
                "id": r.id,
                "title": r.title,
                "message": r.message.display,
                "exception": r.exception,
                "repo": r.repo,
                "url": base + page_url(r.id),
                "json_url": base + json_url(r.id),
            }
            for r in site.records
        ],
    }


_OPERAND_SCHEMA = {
    "type": "object",
    "required": ["text", "label"],
    "additionalProperties": False,
    "properties": {
        "text": {"type": "string", "description": "The expression as the code writes it."},
        "label": {
            "type": "string",
            "description": "How a hint names it: its command-line flag where the site knows "
            "one, its environment variable, else its text.",
        },
        "number": {"type": "string", "description": "Its value, where the code writes a number."},
        "keys": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Names a placeholder of the message may give its value under.",
        },
        "length": {"type": "boolean", "description": "Whether it is the length of `text`."},
    },
}
_AVOID_SCHEMA = {
    "type": ["object", "null"],
    "description": "The tests that lead to the error's raise (what its page says it is "
    "raised when), and how to avoid it, derived from them (negated) and from a failed "
    "import the raise handles: `ways` is empty where no way out can be said safely; null "
    "where no test leads to the raise and it handles no failed import.",
    "required": ["guards", "ways", "imports"],
    "additionalProperties": False,
    "properties": {
        "guards": {
            "type": "array",
            "items": {"type": "string"},
            "description": "The tests that lead to the raise, outermost first.",
        },
        "imports": {
            "type": "array",
            "items": {"type": "string"},
            "description": "What the `try` around the raise imports, when the raise is in "
            "its `except ImportError` (or `ModuleNotFoundError`): installing them is a way "
            "out too.",
        },
        "ways": {
            "type": "array",
            "description": "Ways out: any one keeps the error from being raised there.",
            "items": {
                "type": "object",
                "required": ["text", "terms"],
                "additionalProperties": False,
                "properties": {
                    "text": {"type": "string", "description": "The way out, in Markdown."},
                    "terms": {
                        "type": "array",
                        "description": "What must all hold, as data.",
                        "items": {
                            "type": "object",
                            "required": ["kind", "subject"],
                            "additionalProperties": False,
                            "properties": {
                                "kind": {"type": "string"},
                                "op": {"enum": list(TERM_OPS)},
                                "subject": _OPERAND_SCHEMA,
                                "other": _OPERAND_SCHEMA,
                                "values": {"type": "array", "items": _OPERAND_SCHEMA},
                            },
                        },
                    },
                },
            },
        },
    },
}


def schema_document(base_url: str, nearby: int) -> dict[str, Any]:
    """The JSON Schema every record document validates against (``nearby``: how many
    errors of its file a page lists, ``render.NEARBY``)."""
    schema = json_schema(RECORD)
    derived = {
        "title": {"type": "string", "description": "The short title the site shows."},
        "placeholders": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Placeholder names of the message, in order.",
        },
        "url": {"type": "string", "format": "uri", "description": "The record's page."},
        "json_url": {"type": "string", "format": "uri", "description": "This document."},
        "permalink": {
            "type": "string",
            "format": "uri",
            "description": "The raising line on GitHub at the pinned commit.",
        },
        "related_ids": {
            "type": "array",
            "items": {"type": "string", "pattern": r"^[0-9a-f]{16}$"},
            "description": "Ids of the related errors that have records.",
        },
        "issues": {
            "type": "object",
            "description": "The GitHub issues that paste this error (errdex issues import).",
            "required": ["count", "open", "closed", "reported"],
            "additionalProperties": False,
            "properties": {
                "count": {"type": "integer", "minimum": 0},
                "open": {"type": "integer", "minimum": 0},
                "closed": {"type": "integer", "minimum": 0},
                "reported": {
                    "type": "array",
                    "description": "Every such issue, newest first.",
                    "items": {
                        "type": "object",
                        "required": ["number", "title", "state", "url", "created", "closed"],
                        "additionalProperties": False,
                        "properties": {
                            "number": {"type": "integer", "minimum": 1},
                            "title": {"type": "string"},
                            "state": {"enum": ["open", "closed"]},
                            "url": {"type": "string", "format": "uri"},
                            "created": {"type": "string"},
                            "closed": {"type": ["string", "null"]},
                            "labels": {"type": "array", "items": {"type": "string"}},
                        },
                    },
                },
            },
        },
    }
    derived["removed_in_release"] = {
        "type": ["string", "null"],
        "description": "The first release of the site's releases that no longer raises the "
        "error, after the last one that did (the page's 'removed in'); null when the newest "
        "release still raises it or the record lists no release. source.removed_in names the "
        "commit.",
    }
    ids = {"type": "array", "items": {"type": "string", "pattern": r"^[0-9a-f]{16}$"}}
    derived["options"] = {
        "type": "array",
        "description": "The command-line flags and config keys the error is about, as its "
        "page's 'More to look at' shows them, by key.",
        "items": {
            "type": "object",
            "required": ["key", "names", "url"],
            "additionalProperties": False,
            "properties": {
                "key": {"type": "string", "description": "The option's key (snake_case)."},
                "names": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "How errors write it (--tensor-parallel-size, "
                    "tensor_parallel_size), as the page shows it.",
                },
                "url": {
                    "type": ["string", "null"],
                    "format": "uri",
                    "description": "The option's page, which lists its errors; null when "
                    "this error is its only one (no list is made of one error).",
                },
            },
        },
    }
    derived["same_function"] = {
        **ids,
        "description": "The other errors raised in source.function, in line order, but "
        "those related_ids lists.",
    }
    derived["same_file"] = {
        **ids,
        "description": f"Errors raised elsewhere in source.path, in line order: the {nearby} "
        "nearest the raise of those related_ids does not list, as its page lists them (the "
        "file's page lists all).",
    }
    derived["linked_from"] = {
        **ids,
        "description": "The errors whose related errors link to this one.",
    }
    derived["handling"] = {
        "type": "array",
        "items": {"type": "string"},
        "description": "What the except clauses around the raise catch, innermost first, as "
        "the page's 'Raised while handling' says it ('KeyError, IndexError'; 'any "
        "exception' for a bare except): the raise runs once the code in their try raised "
        "one. Empty when no except clause the excerpt shows holds it.",
    }
    derived["avoid"] = _AVOID_SCHEMA
    derived["review"] = {
        "type": ["object", "null"],
        "description": "For an AI-assisted draft: whether a person has reviewed it "
        "(unreviewed, reviewed, edited: its prose was changed since, rejected), and whether "
        "the code it was drafted from has changed since (stale); null for prose a person "
        "wrote.",
        "required": ["state", "stale"],
        "additionalProperties": False,
        "properties": {
            "state": {"enum": ["unreviewed", "reviewed", "edited", "rejected"]},
            "stale": {"type": "boolean"},
        },
    }
    schema["properties"].update(derived)
    schema["required"] = sorted({*schema["required"], "id", *derived})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": base_url + "api/schema.json",
        "title": "errdex error record",
        **schema,
    }
