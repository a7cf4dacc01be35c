"""The URL contract: where each page and document lives. Links from GitHub issues depend on it."""

from __future__ import annotations

from urllib.parse import quote, urlencode

from .model import Record, SiteConfig


def page_url(record_id: str) -> str:
    return f"errors/{record_id}/"


def json_url(record_id: str) -> str:
    return f"api/errors/{record_id}.json"


def repo_url(repo: str) -> str:
    return f"repos/{repo}/"


def exception_url(exception: str) -> str:
    return f"exceptions/{exception}/"


def file_url(repo: str, path: str) -> str:
    return f"repos/{repo}/files/{path}/"


def option_url(key: str) -> str:
    return f"options/{key}/"


def github_permalink(record: Record, line: int | None = None) -> str:
    """The raising line (or ``line``) on GitHub, at the pinned commit."""
    source = record.source
    path = quote(source.path)
    return f"https://github.com/{record.repo}/blob/{source.commit}/{path}#L{line or source.line}"


def report_issue_url(record: Record, config: SiteConfig) -> str:
    """A new issue on the site's own repository, prefilled with the page and the message."""
    page = config.base_url + page_url(record.id)
    body = (
        f"Page: {page}\n\n"
        f"Error: {record.exception}: {record.message.display}\n\n"
        "What is wrong or missing on this page?\n"
    )
    query = urlencode({"title": f"[{record.id}] {record.title}", "body": body})
    return f"https://github.com/{config.repository}/issues/new?{query}"
