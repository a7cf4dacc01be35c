"""``errdex triage``: the pages a new GitHub issue pastes the errors of, for a workflow.

Reads the event payload a workflow gets (``issues`` opened or edited, or an
``issue_comment`` starting with ``/errdex``), finds the errors its body pastes in the
published site's search index (``reports.found_in``), and writes them to the job summary
and the step outputs; ``--mode comment`` also keeps one comment on the issue that links
them, updated when the issue is edited and deleted when the matches go away (one comment
a site: ``--id`` tells apart several errdex sites that triage one repository).

It fails quietly and honestly: a site that cannot be read, GitHub's rate limits and
errors end the run with a ``::warning::`` line and exit status 0, so the issue's author
never sees a failed run for what they wrote. Only a usage error (a bad flag, an event
file that cannot be read) exits with 1.
"""

from __future__ import annotations

import json
import re
import sys
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errdex.github.api import API, TIMEOUT, GitHub, GitHubError
from errdex.github.reports import Found, Rules, found_in
from errdex.records.model import display_of
from errdex.search.sources import Source, Unavailable

MARKER = "<!-- errdex-triage -->"
"""How the comment errdex keeps on an issue is found again: its first line (without an
``--id``; see ``marker``)."""
ID_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"
"""An ``--id``: it goes inside the marker, an HTML comment, and no ``>`` may end that early."""
COMMAND = "/errdex"
"""A comment starting with this asks for a triage of its issue."""
WORKFLOW_LOGIN = "github-actions[bot]"
"""Who a workflow's token comments as; it may not ask ``GET /user`` who it is."""
ACTIONS = {"issues": ("opened", "edited"), "issue_comment": ("created",)}
"""The events and actions triage reads; any other is skipped."""


class EventError(Exception):
    """The event file cannot be read as a GitHub event: a usage error."""


@dataclass(frozen=True, slots=True)
class Event:
    """What triage reads of a webhook payload."""

    name: str
    """``issues``, ``issue_comment``, ``pull_request`` …"""
    action: str
    repo: str
    """owner/name."""
    number: int
    title: str
    body: str
    state: str
    author: str
    """Who triggered the event: the comment's author for a comment, else the issue's."""
    author_is_bot: bool
    labels: tuple[str, ...]
    pull_request: bool
    """The issue is a pull request (GitHub sends pull requests' comments as issue events)."""
    command: str | None
    """For a comment: its text."""


@dataclass(frozen=True, slots=True)
class Settings:
    mode: str = "summary"
    rules: Rules = field(default_factory=Rules)
    label: str | None = None
    """Added to an issue a comment names matches on (only when asked)."""
    skip_label: str = "errdex-skip"
    """An issue labelled so is left alone ("" for none)."""
    site_id: str | None = None
    """Tells this site's comment from another errdex site's on the same issue (``--id``):
    each finds, updates and deletes only the comment of its own marker."""
    quiet: bool = False
    """No lines on standard error (``-q``); warnings stay annotations in the log."""


def marker(site_id: str | None) -> str:
    """The first line of the comment triage keeps for the site ``site_id``:
    ``<!-- errdex-triage:ID -->``, or ``MARKER`` for a site without an id."""
    return MARKER if site_id is None else f"<!-- errdex-triage:{site_id} -->"


def id_problem(site_id: str) -> str | None:
    """Why ``site_id`` cannot be an ``--id``, or None."""
    if re.fullmatch(ID_PATTERN, site_id):
        return None
    return (
        f"--id must be 1 to 64 letters, digits, '.', '-' and '_', starting with a letter or "
        f"digit, not {site_id!r}"
    )


def read_event(path: Path, name: str | None) -> Event:
    """The event in ``path`` (``$GITHUB_EVENT_PATH``); ``name`` is ``$GITHUB_EVENT_NAME``,
    or None to tell it from the payload."""
    try:
        payload = json.loads(path.read_bytes())
    except OSError as exc:
        raise EventError(f"cannot read the event file {path}: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise EventError(f"the event file {path} is not JSON") from None
    if not isinstance(payload, dict):
        raise EventError(f"the event file {path} is not a JSON object")
    if name is None:
        name = next((key for key in ("comment", "pull_request", "issue") if key in payload), "")
        name = {"comment": "issue_comment", "issue": "issues"}.get(name, name)
    issue = payload.get("issue") or payload.get("pull_request")
    try:
        repo = _utf8(str(payload["repository"]["full_name"]))
        if not isinstance(issue, dict):
            raise KeyError("issue")
        comment = payload.get("comment") if name == "issue_comment" else None
        who = comment["user"] if isinstance(comment, dict) else issue["user"]
        number = issue["number"]
        if not isinstance(number, int) or isinstance(number, bool) or repo.count("/") != 1:
            raise ValueError(number)
        return Event(
            name=_utf8(name),
            action=_utf8(str(payload.get("action") or "")),
            repo=repo,
            number=number,
            title=_utf8(str(issue.get("title") or "")),
            body=_utf8(str(issue.get("body") or "")),
            state=_utf8(str(issue.get("state") or "open")),
            author=_utf8(str(who.get("login") or "")),
            author_is_bot=who.get("type") == "Bot" or str(who.get("login")).endswith("[bot]"),
            labels=tuple(_utf8(str(label.get("name"))) for label in issue.get("labels") or ()),
            pull_request=name.startswith("pull_request") or bool(issue.get("pull_request")),
            command=_utf8(str(comment.get("body") or "")) if isinstance(comment, dict) else None,
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        raise EventError(
            f"the event file {path} is not a GitHub issues or issue_comment event "
            "(it needs repository.full_name, and issue.number and issue.user)"
        ) from None


def _utf8(text: str) -> str:
    """``text`` without halves of surrogate pairs (JSON's ``"\\ud800"``, or a name in the
    environment that is not UTF-8), which no UTF-8 summary, output or log can hold: each
    becomes ``?``."""
    return text if text.isascii() else text.encode("utf-8", "replace").decode("utf-8")


# --- Which events are left alone: one rule a function, in the order they are asked ---


def _pull_request(event: Event, settings: Settings) -> str | None:
    return "it is a pull request" if event.pull_request else None


def _other_event(event: Event, settings: Settings) -> str | None:
    if event.action in ACTIONS.get(event.name, ()):
        return None
    return f"triage reads issues opened or edited and {COMMAND} comments, not {event.name} " + (
        event.action or "events"
    )


def _no_command(event: Event, settings: Settings) -> str | None:
    if event.command is None or _command_text(event.command) is not None:
        return None
    return f"the comment does not start with {COMMAND}"


def _closed(event: Event, settings: Settings) -> str | None:
    return "the issue is closed" if event.state != "open" else None


def _bot(event: Event, settings: Settings) -> str | None:
    return f"{event.author or 'its author'} is a bot" if event.author_is_bot else None


def _skip_label(event: Event, settings: Settings) -> str | None:
    if settings.skip_label and settings.skip_label in event.labels:
        return f"the issue is labelled {settings.skip_label}"
    return None


SKIPS: tuple[Callable[[Event, Settings], str | None], ...] = (
    _pull_request,
    _other_event,
    _no_command,
    _closed,
    _bot,
    _skip_label,
)


def skipped(event: Event, settings: Settings) -> str | None:
    """Why triage leaves this event alone, or None when it reads it."""
    return next((why for rule in SKIPS if (why := rule(event, settings))), None)


def _command_text(comment: str) -> str | None:
    """What follows ``/errdex`` at the start of a comment, or None when it does not start so."""
    text = comment.lstrip()
    if not text.startswith(COMMAND):
        return None
    rest = text[len(COMMAND) :]
    return rest if not rest or rest[0].isspace() else None


def text_of(event: Event) -> str:
    """What is searched: the issue's body, and a /errdex comment's own text after it,
    with every line break ``\n`` (search counts ``\r\n``, ``\r`` and ``\n`` as one each,
    and a body's last ``\r`` would join the ``\n`` after it)."""
    more = (_command_text(event.command or "") or "").strip()
    return _lines(event.body) + ("\n\n" + _lines(more) if more else "")


def _lines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


# --- What is written: the summary, the outputs, the comment --------------------------


def outputs(found: list[Found], comment_id: int | None = None) -> dict[str, str]:
    """The step's outputs: ``matched``, ``matches`` (one line of JSON) and ``comment-id``
    (the comment triage keeps on the issue, empty when there is none)."""
    matches = [
        {
            "id": f.id,
            "url": f.url,
            "title": f.title,
            "exception": f.exception,
            "message": f.message,
            "score": f.score,
            "confidence": f.confidence,
            "line": f.line,
            "values": [list(pair) for pair in f.values],
            "wording": f.wording,
            "releases": list(f.releases),
            "elsewhere": f.elsewhere,
            "also": [{"where": where, "url": url} for where, url in f.also],
            "called": f.called,
        }
        for f in found
    ]
    return {
        "matched": "true" if found else "false",
        "matches": json.dumps(matches),
        "comment-id": "" if comment_id is None else str(comment_id),
    }


def comment(event: Event, found: list[Found], settings: Settings) -> str:
    """The comment naming the pages: first the marker that finds it again."""
    lines = [
        marker(settings.site_id),
        "The error this issue shows has a page that may help:"
        if len(found) == 1
        else "The errors this issue shows have pages that may help:",
        "",
    ]
    body_lines = _lines(event.body).count("\n") + 1
    for f in found:
        lines.append(f"**[{_text(f.exception)}: {_text(f.title)}]({_link(f.url)})**")
        lines.append(f"- message: {_code(display_of(f.message))}")
        if f.values:
            said = ", ".join(
                f"{_code(name)} = {_code(value) if value else '(empty)'}"
                for name, value in f.values
            )
            lines.append(f"- your values: {said}")
        if f.line is not None and f.line_text:
            where = (
                f"the {COMMAND} comment, line {f.line - body_lines - 1}"
                if f.line > body_lines + 1 and event.command is not None
                else f"line {f.line}"
            )
            lines.append(f"- read from {where}: {_code(f.line_text)}")
        if f.releases:
            lines.append(f"- raised in {_text(_releases(f.releases))}")
        if f.elsewhere:
            pages = ", ".join(f"[{_text(where)}]({_link(url)})" for where, url in f.also)
            more = f.elsewhere - len(f.also)
            listed = pages + (f" and {more} more" if pages and more > 0 else "")
            lines.append(
                f"- the same words are raised at {f.elsewhere} other place(s) too"
                + (f": {listed}" if listed else "")
                + (
                    f"; the issue calls {_code(f.called + '()')}, which raises them here"
                    if f.called
                    else "; nothing in the issue tells which one raised it"
                )
            )
        if f.wording:
            w = f.wording
            lines.append(
                f"- you pasted the wording of {_text(w['until'])}; since {_text(w['since'])} "
                f"it reads: {_code(display_of(w['now']))}"
            )
        lines.append("")
    skip = (
        f", or add the label {_code(settings.skip_label)} to keep this bot away"
        if settings.skip_label
        else ""
    )
    lines.append(
        f"<sub>Wrong match? Tell us in a comment{skip}. This comment follows edits of the "
        "issue: it changes with them, and goes when no error matches.</sub>"
    )
    return "\n".join(lines) + "\n"


SHOWN_RELEASES = 5
"""The latest releases named of those that raise an error; the rest are counted."""


def _releases(releases: Sequence[str]) -> str:
    """``v1.2, v1.3 and 4 earlier``: the latest releases that raise an error (as text,
    for the caller to escape once)."""
    earlier = len(releases) - SHOWN_RELEASES
    shown = ", ".join(releases[-SHOWN_RELEASES:])
    return shown + (f" and {earlier} earlier" if earlier > 0 else "")


def summary(event: Event, found: list[Found], settings: Settings, said: str) -> str:
    """The job summary: what was found in which issue, and what was done."""
    head = f"### errdex triage of {_text(event.repo)}#{event.number}\n\n{_text(said)}\n"
    if not found:
        return head
    rows = [
        "| page | exception | confidence | score | line | wording, releases |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for f in found:
        older = f"wording of {f.wording['until']}" if f.wording else "current wording"
        releases = f"; raised in {_releases(f.releases)}" if f.releases else ""
        rows.append(
            f"| [{_text(f.id)}]({_link(f.url)}) | {_text(f.exception)} | {f.confidence:.4f} "
            f"| {f.score:.4f} | {f.line or ''} | {_text(older + releases)} |"
        )
    preview = comment(event, found, settings)
    quoted = "\n".join("> " + line if line else ">" for line in preview.splitlines())
    return f"{head}\n" + "\n".join(rows) + f"\n\nThe comment:\n\n{quoted}\n"


def _code(text: str, limit: int = 300) -> str:
    """``text`` as inline code that nothing in it can end early (a value is the user's)."""
    text = " ".join(text.split())
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    ticks = "`" * (_longest_run(text, "`") + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _longest_run(text: str, char: str) -> int:
    best = run = 0
    for c in text:
        run = run + 1 if c == char else 0
        best = max(best, run)
    return best


_SPECIAL = set("\\`*_[]<>!|~&")
"""What can start markup inside a line of Markdown (a link, HTML, emphasis)."""
_REFERENCES = {"@": "@\u200b", "#": "#\u200b"}
"""What GitHub links after Markdown, where no backslash reaches (``\\@name`` still pings
``name``): a zero-width space after it keeps ``@name`` and ``#123`` plain text."""


def _text(text: str) -> str:
    """Plain text in Markdown: every character Markdown could read otherwise escaped
    (links, HTML), and ``@name`` mentions and ``#123`` references broken."""
    text = " ".join(text.split())
    return "".join("\\" + c if c in _SPECIAL else _REFERENCES.get(c, c) for c in text)


def _link(url: str) -> str:
    """A link target: only http(s), with what would end it encoded."""
    if not url.lower().startswith(("https://", "http://")):
        return "#"
    return urllib.parse.quote(url, safe=":/?#[]@!$&'*+,;=%~-._")


# --- Running -------------------------------------------------------------------------


def warn(message: str) -> None:
    """A warning in the workflow's log (an annotation), as one line."""
    escaped = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    _say(sys.stdout, f"::warning title=errdex triage::{escaped}\n")


def _log(message: str) -> None:
    _say(sys.stderr, f"errdex triage: {' '.join(message.split())}\n")


def _say(stream: Any, text: str) -> None:
    """Write ``text`` however little of it the stream's encoding can hold: what GitHub
    or the event says may be anything, and a log line never ends the run."""
    text = _utf8(text)
    try:
        stream.write(text)
    except UnicodeEncodeError:
        encoding = stream.encoding or "ascii"
        stream.write(text.encode(encoding, "replace").decode(encoding))
    stream.flush()


def run(
    event: Event,
    settings: Settings,
    source: Callable[[], Source],
    env: Mapping[str, str],
    max_wait: float,
    timeout: float = TIMEOUT,
) -> int:
    """Triage one event: find, summarize, and in comment mode keep the comment. Each
    request to GitHub is answered within ``timeout`` seconds or given up; retries and
    rate limits spend at most ``max_wait`` more."""
    log = (lambda message: None) if settings.quiet else _log
    why = skipped(event, settings)
    if why is not None:
        log(f"skipped {event.repo}#{event.number}: {why}")
        _write(env, event, [], settings, f"Skipped: {why}.")
        return 0
    try:
        found = found_in(source(), text_of(event), settings.rules, event.title)
    except Unavailable as exc:
        warn(f"the site's search index could not be read, nothing was done: {exc}")
        _write(env, event, [], settings, "The site's search index could not be read.")
        return 0
    pages = ", ".join(f.id for f in found) or "none"
    log(f"{event.repo}#{event.number}: {len(found)} page(s) match: {pages}")
    said = f"{len(found)} page(s) match."
    kept = None
    if settings.mode == "comment":
        try:
            kept = keep_comment(
                GitHub(_api(env), env["GITHUB_TOKEN"], timeout, max_wait), event, found, settings
            )
            said += " " + kept.said
        except GitHubError as exc:
            warn(f"GitHub: {exc}")
            said += " GitHub could not be told: see the warning in the log."
        log(said)
    else:
        said += " Dry run (--mode summary): nothing was posted."
    _write(env, event, found, settings, said, kept.comment_id if kept else None)
    return 0


def try_text(
    body: str,
    title: str,
    settings: Settings,
    source: Callable[[], Source],
    as_json: bool = False,
) -> int:
    """Triage an issue's text, as a maintainer tries it before the workflow does: print
    the comment it would post (or the matches, as the ``matches`` output's JSON); 0 when
    a page matches, 1 when none does. Raises ``Unavailable``."""
    event = Event("issues", "opened", "", 0, title, body, "open", "", False, (), False, None)
    found = found_in(source(), text_of(event), settings.rules, title)
    if as_json:
        print(json.dumps(json.loads(outputs(found)["matches"]), indent=2, ensure_ascii=False))
    elif found:
        print(comment(event, found, settings), end="")
    else:
        print("No page matches: triage would post nothing.")
    return 0 if found else 1


def _api(env: Mapping[str, str]) -> str:
    return env.get("GITHUB_API_URL") or API


@dataclass(frozen=True, slots=True)
class Kept:
    """What ``keep_comment`` did."""

    said: str
    """For the log and the summary: ``Posted comment 5001.``, ``Nothing to post.`` …"""
    comment_id: int | None
    """The comment of this site's on the issue now (posted, updated or already right);
    None when there is none."""


def keep_comment(client: GitHub, event: Event, found: list[Found], settings: Settings) -> Kept:
    """Post, update or delete this site's comment on the issue so it names ``found``; add
    or take away ``settings.label``."""
    issue = f"/repos/{event.repo}/issues/{event.number}"
    if not found and event.action == "opened":
        return Kept("Nothing to post.", None)  # a new issue has no comment of errdex's yet
    first_line = marker(settings.site_id)
    comments = client.pages(f"{issue}/comments?per_page=100")
    marked = [c for c in comments if _marked(c, first_line)]
    ours = []
    if marked:
        # Whose they are decides, never the marker alone: anyone can paste it. A token
        # that may not ask who it is (403) is a workflow's. /user failing otherwise ends
        # the run (GitHubError): taking our comment for another's would post a second.
        me = (client.login() or WORKFLOW_LOGIN).lower()
        ours = [c for c in marked if _login(c).lower() == me]
    done = []
    kept = None
    if found:
        body = comment(event, found, settings)
        if not ours:
            posted = client.request("POST", f"{issue}/comments", {"body": body})
            done.append(f"Posted comment {_id(posted.data)}.")
            made = posted.data.get("id") if isinstance(posted.data, dict) else None
            kept = made if _is_id(made) else None
        elif ours[0].get("body") != body:
            client.request(
                "PATCH", f"/repos/{event.repo}/issues/comments/{ours[0]['id']}", {"body": body}
            )
            done.append(f"Updated comment {ours[0]['id']}.")
            kept = ours[0]["id"]
        else:
            done.append(f"Comment {ours[0]['id']} already says so.")
            kept = ours[0]["id"]
        stale = ours[1:]
        if settings.label and settings.label not in event.labels:
            client.request("POST", f"{issue}/labels", {"labels": [settings.label]})
            done.append(f"Added the label {settings.label}.")
    else:
        stale = ours
        if settings.label and settings.label in event.labels:
            name = urllib.parse.quote(settings.label, safe="")
            client.request("DELETE", f"{issue}/labels/{name}")
            done.append(f"Took away the label {settings.label}.")
    for old in stale:
        client.request("DELETE", f"/repos/{event.repo}/issues/comments/{old['id']}")
        done.append(f"Deleted comment {old['id']}.")
    return Kept(" ".join(done) or "Nothing to post.", kept)


def _marked(comment: Any, first_line: str) -> bool:
    """A comment as GitHub gives one (an id, a body, a user) whose first line is
    ``first_line``, this site's marker: errdex's when the token's user wrote it."""
    return (
        isinstance(comment, dict)
        and _is_id(comment.get("id"))
        and isinstance(comment.get("user"), dict)
        and isinstance(comment.get("body"), str)
        and comment["body"].startswith(first_line)
    )


def _login(comment: dict[str, Any]) -> str:
    login = comment["user"].get("login")
    return login if isinstance(login, str) else ""


def _is_id(value: Any) -> bool:
    """A comment's id as GitHub gives it: a whole number (it goes into a request's path)."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _id(data: Any) -> str:
    return str(data.get("id")) if isinstance(data, dict) else "?"


def _write(
    env: Mapping[str, str],
    event: Event,
    found: list[Found],
    settings: Settings,
    said: str,
    comment_id: int | None = None,
) -> None:
    """The summary into ``$GITHUB_STEP_SUMMARY`` (else standard output) and the outputs
    into ``$GITHUB_OUTPUT``. A file that cannot be written is a warning."""
    text = summary(event, found, settings, said)
    values = outputs(found, comment_id)
    lines = "".join(f"{name}={value}\n" for name, value in values.items())
    for variable, content in (("GITHUB_STEP_SUMMARY", text), ("GITHUB_OUTPUT", lines)):
        path = env.get(variable)
        if not path:
            if variable == "GITHUB_STEP_SUMMARY":
                _say(sys.stdout, content)
            continue
        try:
            with open(path, "a", encoding="utf-8", errors="replace") as file:
                file.write(content)
        except OSError as exc:
            warn(f"cannot write ${variable} ({path}): {exc.strerror or exc}")
