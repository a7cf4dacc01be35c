"""The JSON mirror: one document per record, a list of all records, and their JSON Schema."""

from __future__ import annotations

import json
from typing import Any

from .issues import Reported
from .link import RelatedLink, Site
from .model import Record
from .schema import RECORD, Field, json_schema
from .urls import github_permalink, json_url, page_url


def dumps(data: Any) -> bytes:
    """JSON with sorted keys and fixed separators: the same data always gives the same bytes."""
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, indent=2, allow_nan=False)
    return (text + "\n").encode()


def dumps_compact(data: Any) -> bytes:
    """As ``dumps``, without whitespace: for the search index, fetched by every search."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def record_document(
    record: Record, base_url: str, related: tuple[RelatedLink, ...], reported: Reported
) -> dict[str, Any]:
    """Every field of the record as written, plus what the site derived from it (its
    ``related`` entries as linked, the GitHub issues that paste it)."""
    return {
        # Unknown fields (a warning at build time) stay out: the schema has no room for them.
        **known_only(record.data, RECORD),
        "id": record.id,
        "title": record.title,
        "placeholders": list(record.message.names),
        "url": base_url + page_url(record.id),
        "json_url": base_url + json_url(record.id),
        "permalink": github_permalink(record),
        "related_ids": [link.record.id for link in related if link.record],
        "issues": reported.document(),
    }


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


def schema_document(base_url: str) -> dict[str, Any]:
    """The JSON Schema every record document validates against."""
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
    schema["properties"].update(derived)
    schema["required"] = sorted({*schema["required"], "id", *derived})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": base_url + "api/schema.json",
        "title": "errdex error record",
        **schema,
    }
