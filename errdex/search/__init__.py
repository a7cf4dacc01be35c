"""Search: from whatever a user pasted to the page of their error.

The same algorithm runs in the browser (static/search.js) over the index this module
writes, and here for ``python build.py lookup``. Every step is written to be ported
line for line: the shared vectors in tests/search/vectors.yaml check that both give
the same answers, and the search benchmark compares them on thousands of pastes.

1. ``readings``: what a paste may be about, most specific first (at most MAX_READINGS).
   Every line that can be an error is a candidate, each message once: the last
   MAX_BODIES ``Value error, …`` lines of a pydantic ValidationError and ``message``
   strings of a JSON or dict error body; then, MAX_CANDIDATES at most, the ``Type:
   message`` that ends each traceback, from the last; every ``Type: message`` anywhere
   else, at a line's start or inside it (quoted in a sentence, in a list item, in a
   table cell), from the paste's end; log lines at level ERROR that name no exception.
   Each candidate is read several ways: the text within its quotes, its message with
   the lines after it, its first line alone (what follows may be prose, an environment
   dump, a table). Wrappers (``See root cause above``) come after every other
   candidate; with no exception named, the whole text and the text after a log line's
   words (``Failed to load the model: …``) are read too. Log prefixes (any mix of a
   process tag, a level, a date and time and a ``file:line`` with or without brackets),
   Ray's ``[repeated 6x across cluster]``, quotes and ANSI colours are dropped.
   ``extract`` is the first reading; lookup keeps, of the first candidate whose reading
   matches a record's whole message, its most specific such reading; else the first
   reading with any match.
2. ``normalize``: lowercase, quotes and backticks dropped, whitespace collapsed; each
   character remembers where it came from, so values are cut from the user's own text.
3. Candidates: records sharing a rare word with the paste (an inverted index, split
   into shards by word hash so the browser fetches only the shards it needs).
4. Scoring: a template that matches the whole message (placeholders take any value)
   ranks first; otherwise an alignment of words in which placeholders absorb values
   scores partial, retyped or reworded pastes; last, a paste of one line may be the
   whole first line of a message of several (``first_line_match``). Below a
   threshold: no match, and a paste that is only a class's name, or whose error Python
   names with the module of code that raises it, names the pages of that exception's
   errors (``exceptions_named``).
"""

from __future__ import annotations

import base64
import bisect
import heapq
import itertools
import math
import operator
import re
import sys
from collections import Counter, deque
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, NamedTuple, Protocol

from errdex.records.history import old_wordings
from errdex.records.model import (
    SEARCH_MESSAGE_LIMIT,
    Record,
    SiteConfig,
    module_of,
    parse_template,
)
from errdex.util.pickled import as_tuple

# --- 1. Extracting the message -------------------------------------------------------

# These patterns are written into the index (meta.json) and compiled by the browser
# script too, so the two cannot drift apart: keep them to syntax both languages share.
# Python and JavaScript differ on \w, \d, \s and "." outside ASCII: the patterns spell
# their classes out. Prefixes ("tags" and "starts") carry no "^": each is tried at a
# position of its line (re's match at pos, a sticky RegExp's lastIndex), so stripping a
# thousand prefixes off one line never copies the rest of it a thousand times.
_W = "[A-Za-z0-9_]"
_LEVELS = "(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)"
# Besides Error, Exception and Warning, endings of classes people paste bare that no
# setting or count ends in (Django's ImproperlyConfigured, DoesNotExist and
# AppRegistryNotReady; never the ending alone), and Python's StopIteration. Not Found,
# Match, Timeout and the like: ``ItemsFound: 3``, ``ExactMatch: 45.2`` and ``ReadTimeout:
# 30`` are lines of settings and metrics; such a class is read named with its module
# (``sqlalchemy.exc.NoResultFound: …``), as a traceback prints it.
_NAME = (
    rf"(?:[A-Za-z_]{_W}*\.)*(?:[A-Z]{_W}*(?:Error|Exception|Warning|Exit|Interrupt|Fault"
    r"|Failure|Configured|NotExist|NotReady)|Stop(?:Async)?Iteration)"
)
EXCEPTION_NAME = _NAME
"""A name that looks like an exception's, with its module or not (for ``reports``)."""
# A class named with its module, whatever its name ends in, when a message follows it at
# a line's start: ``pydantic.errors.PydanticInvalidForJsonSchema: Cannot generate …``;
# also a class defined in another (``blog.models.Post.DoesNotExist: …``).
_QUALIFIED = rf"(?:[a-z_]{_W}*\.)+(?:[A-Z]{_W}*\.)*[A-Z]{_W}*(?=: )"
PATTERNS: dict[str, Any] = {
    # Colour codes; and, as a notebook's or a chat's copy leaves them, without their
    # escape byte (``[91mValueError[39m: …``, ``[0;31m``): not ``[10m]``.
    "ansi": r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]|\[[0-9]{1,3}(?:;[0-9]{1,3}){0,4}m(?!\])",
    # Prefixes on every line of a process's output, tracebacks included.
    "tags": [
        r"[ \t]*\[rank[0-9]+\]: ?",
        r"[ \t]*\([^()\n]*pid=[0-9]+\) ?",
        # Kubernetes (CRI) container logs: "stderr F "
        r"[ \t]*(?:stdout|stderr) [FP] ",
        # docker compose: "service-1  | "
        rf"[ \t]*(?:{_W}|[.-])+[ \t]+\| ",
        # syslog and journald: "Aug 14 12:00:37 host unit[123]: "
        rf"[ \t]*[A-Z][a-z]{{2}} +[0-9]{{1,2}} [0-9]{{2}}:[0-9]{{2}}:[0-9]{{2}} [^ \t\n]+ "
        rf"(?:{_W}|[.@-])+(?:\[[0-9]+\])?: ?",
        # A location, "[core.py:700] ", and as older releases wrote it, "engine.py:157] "
        rf"[ \t]*\[?(?:{_W}|[./\\-])+:[0-9]+\] ?",
        r"[ \t]*E {2,}",
        # Markdown quotes: "> "
        r"[ \t]*> ?",
        # An exception group's head (Python 3.11 and later), read as any traceback's
        r"[ \t]*Exception Group (?=Traceback \(most recent call last\):)",
    ],
    # The margin of an exception group's traceback ("  | ", "    | ", "  + "), taken off
    # each line that starts with "|" or "+" from a group's head on (other processes' log
    # lines may come between; a table's "| " above the head is kept).
    "margin": r"[ \t]*[|+](?: |$)",
    # A group's rule before each of its errors ("+-+---- 1 ----"): where a paste cut
    # above the head starts the group.
    "group_rule": r"^[ \t]*\+(?:-\+)?-+ [0-9]+ -+$",
    # Prefixes that start a new log record: timestamps and levels.
    "starts": [
        r"[ \t]*\[?[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?"
        r"(?:Z|[+-][0-9]{2}:?[0-9]{2})?\]? ?",
        r"[ \t]*[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)? ?",
        r"[ \t]*[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)? ?",
        r"[ \t]*\[?(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\]?(?::| -)? ",
        # Python logging: "- name - ERROR - ", "ERROR:name:"; loguru: "| ERROR | where - "
        rf"[ \t]*(?:- )?(?:{_W}|\.)+ - {_LEVELS} - ",
        rf"[ \t]*{_LEVELS}:(?:{_W}|\.)*:",
        rf"[ \t]*\| (?:{_LEVELS}|SUCCESS|TRACE) *\| [^ \t\n|]+ - ",
        # A Python file and line with no brackets: "engine.py:157 ", a warning's "x.py:12: "
        rf"[ \t]*(?:{_W}|[./\\-])*{_W}\.py:[0-9]+:? ",
        # A tool's label before the message it shows: "Error: ", "Message:      "
        r"[ \t]*(?:Error|Message|Error message):[ \t]+",
        # ComfyUI's, before the message of an error a node raised
        r"[ \t]*!!! Exception during processing !!! ?",
    ],
    # A level among a record's prefixes that says the line is an error.
    "error_level": (
        r"(?:^|[^A-Za-z_])(?:ERROR|CRITICAL|FATAL|Error|Message|Exception)(?:[^A-Za-z_]|$)"
    ),
    # Ray's note at the end of a line it printed for several workers at once.
    "repeated": r"\[repeated [0-9]+x across cluster\]",
    # What an exception group's message ends in, which no template says.
    "grouped": r" \([0-9]+ sub-exceptions?\)",
    # "Type: message" where Type looks like an exception, a line of its own (Python's own
    # Exception too: "Exception: …" starting a line is what ``raise Exception(…)`` prints)...
    "exception": rf"^({_NAME}|{_QUALIFIED}|Exception(?=: ))(?:: ?([^\n]*))?$",
    # ...or inside a line, after a blank, a quote or any mark that is not part of a name;
    # a class named with its module, whatever its name ends in, right after a colon or
    # in quotes (``upload failed: httpx.InvalidURL: …``; not ``to torch.Tensor: …``).
    "inline": rf"(^|[^A-Za-z0-9_.])({_NAME}|(?:(?<=: )|(?<=[`'\"(]))"
    rf"(?:[a-z_]{_W}*\.)+(?:[A-Z]{_W}*\.)*[A-Z]{_W}*):[ \t]+(?=[^ \t])",
    # ...and any dotted name right after a traceback's frames.
    "after_frames": rf"^((?:[A-Za-z_]{_W}*\.)*[A-Za-z_]{_W}*)(?:: ?([^\n]*))?$",
    # IPython's traceback names its error in its head ("NetworkXNoPath   Traceback (most
    # recent call last)"), and again, bare, on the line that ends it.
    "ipython_head": rf"^[ \t]*((?:[A-Za-z_]{_W}*\.)*[A-Za-z_]{_W}*)[ \t]+Traceback \(most recent",
    # The mark that closes the quote an inline exception opens with.
    "quotes": {
        '"': '"',
        "'": "'",
        "`": "`",
        "*": "*",
        "(": ")",
        "|": "|",
        "\u201c": "\u201d",
        "\u2018": "\u2019",
    },
    # A pydantic ValidationError's line for an error a validator raised.
    "pydantic": r"^(Value error|Assertion failed), ([^\n]*)$",
    # Django's debug page, as a browser copies it or its copy-and-paste view gives it:
    # "Exception Type:" and the class (then " at /path/"), then "Exception Value:" and
    # the message, on its line or the next.
    "debug_type": (
        rf"^Exception Type:[ \t]+((?:[A-Za-z_]{_W}*\.)*[A-Za-z_]{_W}*)(?:[ \t]+at[ \t]|$)"
    ),
    "debug_value": r"^Exception Value:[ \t]*([^\n]*)$",
    "debug_row": (
        r"^(?:Exception (?:Type|Value|Location)|Raised during|Python (?:Executable|Version|Path)"
        r"|Server time|Request (?:Method|URL)|Django Version):"
    ),
    # The string a JSON or dict error body gives as its message.
    "body": r"([\"'])(?:message|detail|error)\1: ?([\"'])",
    # That string as the repr of an exception: "ValueError('...')".
    "repr": rf"^((?:[A-Za-z_]{_W}*\.)*[A-Z]{_W}*(?:Error|Exception|Warning))\(([\"'])",
    # An exception's repr inside a line, as a task queue or an event loop logs it, after
    # a colon or an equals sign ("Task app.run[1f2e] raised unexpected: ValueError('…')",
    # "exception=KeyError('…')"); not a line of code a traceback shows ("raise
    # ValueError('…')", "err = KeyError('…')"), which may be another raise than the one.
    "repr_inline": rf"(?:(?<=: )|(?<==))({_NAME})\(([\"'])",
    # A traceback's frame, which names the file (and function) whose code ran: Python's
    # (also "<stdin>"); IPython's (File ~/run.py:12, in main(), which VS Code's copy makes
    # a link: File [~/run.py:12](file:///…/run.py:12), in main()); rich's (base.py:1184 in
    # check_task); IPython's older (base.py in load(), which Colab's copy makes a link:
    # [/usr/…/base.py](https://localhost:8080/#) in load(); Python's with its start lost in
    # the copy (/venv/…/modeling_utils.py", line 3030, in load). Group 1 the path, 2 the
    # function. A path is tried only where one can start, after a space, a quote or a
    # border: tried inside a run of letters too, a long line took minutes.
    "frames": [
        r"""File\s+"([^"\n]+)",?\s+line\s+\d+(?:,\s+in\s+([\w<>.]+))?""",
        r"""File\s+\[?([^\s"[\]]+\.py):\d+(?:\]\([^() \t\n\r\f\v]*\))?(?:,\s+in\s+([\w<>.]+))?""",
        r"""(?:^|[\s"'│|])([^\s"'│|]+\.py):\d+\s+in\s+([\w<>]+)""",
        r"""(?:^|[\s"'│|\[])([^\s"'│|\[\]]+\.py)(?:\]\([^() \t\n\r\f\v]*\))?\s+in\s+([\w<>]+)\(""",
        r"""(?:^|[\s"'│|])([^\s"'│|]+\.py)",\s+line\s+\d+,\s+in\s+([\w<>.]+)""",
        # pytest's short report (--tb=short): the place above each frame's code. (Names
        # as \S: the page's script reads \w as ASCII only, Python as any letter.)
        r"""(?:^|[\s"'│|])([^\s"'│|]+\.py):\d+: in (\S+)\s*$""",
    ],
    # A frame's start that a terminal's width cut inside its path ("File "/usr/…/core/al",
    # then "ignment.py", line 422, in align_indexes" on the next line): read joined.
    "cut_frame": r"""File\s+"[^"\n]*$""",
    # pytest's long report (its default) says where the error was raised under its "E"
    # lines: ``src/pkg/loader.py:188: ValueError``.
    "pytest_place": r"""(?:^|[\s"'│|])([^\s"'│|]+\.py):\d+: \S+\s*$""",
    "pytest_error": r"^[ \t]*E(?:[ \t]|$)",
    # Where looking back for an error's frame ends: another traceback's end, a blank line
    # or a line of dots (the paste leaves frames out there), pytest's line between
    # frames (its frame's place comes after the frame's code), a traceback's head (no
    # frame of its own stands under it), or the frame of IPython's cell (the error was
    # raised in code typed there: "Cell In[3], line 1", "<ipython-input-3-…> in <module>").
    "frame_stop": (
        r"During handling of|The above exception"
        r"|^[ \t]*(?:(?:_ )+_?[ \t]*|\[?(?:\.\.\.|…)\]?[ \t]*)?$"
        r"|Traceback \(most recent call last\)|^[ \t]*(?:\[?<ipython-input-|(?:Cell|Input) In ?\[)"
    ),
    # An error's line, which ends the frames of the error before it.
    "error_line": rf"^[ \t]*{_NAME}:",
    # A line of IPython's (and Jupyter's) listing of a frame's code: numbered after a
    # margin, the line that ran marked with an arrow ("---> 12     raise …", "-> 3030 …";
    # group 1 its number), or lines it left out ("(...)"). IPython prints a blank line
    # between the last one and the error. VS Code's copy makes each number a link:
    # "---> [12](file:///…/run.py:12)".
    "listing": (
        r"^[ \t]*-+>[ \t]*\[?([0-9]{1,9})(?:\]\([^() \t\n\r\f\v]*\))?(?:[ \t]|$)"
        r"|^[ \t]+\[?[0-9]+(?:\]\([^() \t\n\r\f\v]*\))?(?:[ \t]|$)|^[ \t]*\(\.\.\.\)[ \t]*$"
    ),
    # An exception that only wraps one above it ("See root cause above", "please check the
    # stack trace above", "the error above"): it is read last. Not "is above the limit".
    "wrapper": (
        r"(?:^|[^A-Za-z0-9_])(?:(?:[Ss]ee|[Cc]heck)[^A-Za-z0-9_](?:[^.\n]{0,60}[^A-Za-z0-9_])?"
        r"(?:above|root cause)|(?:[Ee]rror|[Tt]race(?:back)?|[Ee]xception|[Cc]ause)s? \(?above)"
        r"(?:[^A-Za-z0-9_]|$)|^SystemExit|RayTaskError|_RemoteTraceback|ProcessRaisedException"
    ),
    # Python's own messages, as Python prints them (lowercased, blanks collapsed; %q is a
    # name in Python's quotes): a paste that is one names a record only when the
    # record's template says it in the same words, its own (a placeholder read as a
    # name, quoted or not: a scanned template drops ``!r``), and says all of it:
    # "'NoneType' object has no attribute 'to'" is not "{cls} has no attribute {key}"
    # with "'NoneType' object" for {cls}, nor "tuple index out of range" one word off;
    # "`State` object has no attribute `x`" is no Python's.
    "pythons": [
        r"(?:%q object|type object %q|module %q) has no attribute %q",
        r"(?:list|tuple|str|string|bytearray|range|array|deque)(?: assignment)? index out of range",
        r"%q object is not (?:subscriptable|callable|iterable|an iterator)",
        r"%q object does not support item assignment",
        r"unsupported operand type\(s\) for .+",
        r"can only concatenate .+",
        r"unhashable type: %q",
        r"name %q is not defined",
        r"no module named %q",
        r"cannot import name %q from %q(?: \(.*\))?",
        r"\S+\(\) got an unexpected keyword argument %q",
        r"(?:\S+\(\) )?got multiple values for (?:keyword )?argument %q",
        r"\S+\(\) missing \d+ required (?:positional|keyword-only) arguments?: .+",
        r"\S+\(\) takes (?:from )?\d+ (?:to \d+ )?positional arguments? but \d+ (?:were|was) given",
        r"not enough values to unpack \(expected \d+, got \d+\)",
        r"too many values to unpack \(expected \d+\)",
        r"(?:integer |float )?division (?:or modulo )?by zero",
        r"invalid literal for int\(\) with base \d+: .*",
        r"maximum recursion depth exceeded.*",
        r"dictionary changed size during iteration",
    ],
    # What Python 3.10 and later add to some of its own messages: a name it suggests, or
    # (3.13) a file that hides a module of the standard library.
    "pythons_hint": r"(?:\. did you (?:mean|forget to import):? %q\?| \(consider renaming .+\))?",
    # Lines that end a message: Markdown fences, <details>, headings and tables, pydantic's
    # link, the rules of a text table and of an exception group ("+------ 2 ------"), and
    # what SQLAlchemy puts under a database's error (its statement, its parameters, its
    # link).
    "stop": (
        r"^(?:```|~~~|\"\"\"|</?details|<summary|#{1,6} |\||\+-|"
        r"For further information visit |\[SQL: |\[parameters: |\(Background on this error at: )"
    ),
    # A note a library ends a message with, in parentheses, ending in a link: "(Background
    # on this error at: https://…)", "(see https://…)".
    "note": r"[ \t]*\((?:[^()\n]*[ \t])?https?://[^ \t()\n]*\)[ \t]*$",
    # The error a wrapper names in parentheses before its message, by its module:
    # "(sqlite3.OperationalError) no such table: users".
    "wrapped": r"^\(((?:[A-Za-z_][A-Za-z0-9_]*\.)+[A-Za-z_][A-Za-z0-9_]*)\)[ \t]+([^\n]+)$",
}
_ANSI = re.compile(PATTERNS["ansi"])
_TAGS = [re.compile(p) for p in PATTERNS["tags"]]
_RECORD_STARTS = [re.compile(p) for p in PATTERNS["starts"]]
_PREFIXES = [*_TAGS, *_RECORD_STARTS]
_MARGIN = re.compile(PATTERNS["margin"])
_GROUPED_PREFIXES = [*_TAGS, _MARGIN, *_RECORD_STARTS]
_GROUP_RULE = re.compile(PATTERNS["group_rule"])
GROUP_HEAD = "Exception Group Traceback (most recent call last):"
"""The head of an exception group's traceback (Python 3.11 and later)."""
_EXCEPTION_LINE = re.compile(PATTERNS["exception"])
_INLINE = re.compile(PATTERNS["inline"])
_QUOTES: dict[str, str] = PATTERNS["quotes"]
_ERROR_LEVEL = re.compile(PATTERNS["error_level"])
_REPEATED = re.compile(PATTERNS["repeated"])
_GROUPED = re.compile(PATTERNS["grouped"])
_ANY_EXCEPTION_LINE = re.compile(PATTERNS["after_frames"])
_IPYTHON_HEAD = re.compile(PATTERNS["ipython_head"])
_PYDANTIC = re.compile(PATTERNS["pydantic"])
_REPR_INLINE = re.compile(PATTERNS["repr_inline"])
_DEBUG_TYPE = re.compile(PATTERNS["debug_type"])
_DEBUG_VALUE = re.compile(PATTERNS["debug_value"])
_DEBUG_ROW = re.compile(PATTERNS["debug_row"])
_BODY = re.compile(PATTERNS["body"])
_REPR = re.compile(PATTERNS["repr"])
_WRAPPER = re.compile(PATTERNS["wrapper"])
_STOP = re.compile(PATTERNS["stop"])
_NOTE = re.compile(PATTERNS["note"])
_WRAPPED = re.compile(PATTERNS["wrapped"])
_PYTHONS_WORDS = "(?:" + "|".join(PATTERNS["pythons"]) + ")" + PATTERNS["pythons_hint"]
_PYTHONS = re.compile(_PYTHONS_WORDS.replace("%q", "'[^']*'"))
_PYTHONS_SAID = re.compile(_PYTHONS_WORDS.replace("%q", r"\S+"))


def pythons_own(message: str) -> bool:
    """Whether ``message`` is one of Python's own messages (``PATTERNS["pythons"]``)."""
    return _PYTHONS.fullmatch(" ".join(message.split()).lower()) is not None


def _says_pythons(template: str) -> bool:
    """Whether a template says one of Python's own messages in its own words, each of
    its placeholders read as a name, its quotes left out."""
    parts = parse_template(template).parts
    said = "".join("x" if part.placeholder else part.text for part in parts)
    return _PYTHONS_SAID.fullmatch(normalized_text(said)) is not None


_PYDANTIC_TYPES = {"Value error": None, "Assertion failed": "AssertionError"}
"""``Value error`` is a ValueError or any subclass of it, which pydantic does not name."""
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
_HEX = re.compile(r"[0-9A-Fa-f]+")
_TRACEBACK = "Traceback (most recent call last):"
_CHAIN_MARKERS = (
    "During handling of the above exception",
    "The above exception was the direct cause",
)
BLANK = " \t\r\f\v"
"""What ``strip`` removes around a line, the same in both languages."""
PASTE_LIMIT = 100_000
"""Characters of a paste that search reads, from its end (where a traceback's message
is): a bot may hand ``lookup`` a whole log, and a link may carry any ``?q=``. A longer
paste is cut, and the answer says so."""
MAX_MESSAGE = SEARCH_MESSAGE_LIMIT
"""The same cut, by the name it had before templates were cut too."""
MAX_CANDIDATES = 16
"""Errors of one paste that are read, at most (each message once): a log of a thousand
lines that each name an error is read from its end."""
MAX_READINGS = 32
"""Readings of one paste that lookup tries, at most: a candidate is read up to four ways."""
MIN_WIDTH = 60
"""The narrowest terminal whose width a paste's lines are read as (``_cut_lines``):
lines of one shorter length are more often a list's than a wrap's."""
_FILLED = re.compile(r"[^ \t]$")
_GOES_ON = re.compile(r"[^ \t]")
MAX_LEADS = 3
"""Phrases a log line's words may put before its message, each ended by ``: ``, that are
taken off in turn, at most (``app.importer: insert failed: <message>``)."""
MAX_BODIES = 4
"""Pydantic error lines and error bodies that are read, at most (the last ones), besides
the MAX_CANDIDATES errors."""


@dataclass(frozen=True, slots=True)
class Extracted:
    """What a paste says: the exception type when one is named, and the message."""

    exception: str | None
    message: str
    cut: bool = False
    """The paste was longer than PASTE_LIMIT: only its end was read."""
    line: int | None = field(default=None, compare=False)
    """Where the message starts: the paste's line (from 0) it was read from (naming the
    exception, ``Value error, …``, an error body's ``message``), or None for a bare message
    (the paste's whole text)."""
    line_text: str | None = field(default=None, compare=False)
    """That line, without log prefixes and surrounding blanks."""
    candidate: int = field(default=0, compare=False)
    """Which error of the paste this is a reading of, numbered from 0: the readings of one
    error (within its quotes, with the lines after it, its first line alone) share it."""
    wrapper: bool = field(default=False, compare=False)
    """The error only wraps one above it (``See root cause above``): a report names it
    only when no other error of the paste matches."""
    whole: bool = field(default=False, compare=False)
    """Read only for a whole message: a log line's words after its second or third
    ``: `` (``… failed: key not found``) would match parts of too many messages."""


class Stripped(NamedTuple):
    """A line of a paste without its log prefixes (``strip_prefixes``): a tuple, as a paste
    of a megabyte has a hundred thousand of them."""

    text: str
    """The line without prefixes and trailing blanks (indentation kept)."""
    starts_record: bool
    """A prefix starts a new log record (a timestamp, a level)."""
    error: bool = False
    """A prefix names the level ERROR, CRITICAL or FATAL, or a tool's label ``Error:``
    or ``Message:`` stands before the message."""


def strip_prefixes(line: str, grouped: bool = False) -> Stripped:
    """A log line without timestamps, levels, locations and process tags (indentation
    kept), and without Ray's ``[repeated 6x across
    cluster]`` or a group's `` (2 sub-exceptions)`` at its end. ``grouped``: the line is
    one of an exception group's traceback, whose margin goes too."""
    starts_record = error = False
    start = 0
    changed = True
    while changed:
        changed = False
        for prefix in _GROUPED_PREFIXES if grouped else _PREFIXES:
            found = prefix.match(line, start)
            if found and found.end() > start:
                if prefix in _RECORD_STARTS:
                    starts_record = True
                    error = error or _ERROR_LEVEL.search(found.group()) is not None
                start = found.end()
                changed = True
                break
    text = line[start:].rstrip(BLANK)
    for mark, note in (("[", _REPEATED), (" (", _GROUPED)):  # Ray's, then a group's count
        at = text.rfind(mark)
        found = note.match(text, at) if at >= 0 else None
        if found and found.end() == len(text):
            text = text[:at].rstrip(BLANK)
    return Stripped(text, starts_record, error)


def extract(paste: str) -> Extracted:
    """The exception and message a paste is most likely about (its first reading)."""
    return readings(paste)[0]


def _read_part(paste: str) -> tuple[list[str], int]:
    """The lines of the end of a paste that search reads (PASTE_LIMIT), colour codes
    taken out, and how many lines come before them (``Extracted.line`` counts those)."""
    skipped = 0
    if len(paste) > PASTE_LIMIT:
        head, paste = paste[:-PASTE_LIMIT], paste[-PASTE_LIMIT:]
        breaks = head.count("\n") + head.count("\r") - head.count("\r\n")  # no list of them
        skipped = breaks - (head[-1:] == "\r" and paste[:1] == "\n")
    return paste_lines(_ANSI.sub("", paste)), skipped


def readings(paste: str) -> list[Extracted]:
    """What a paste may be about, most specific first (see the module docstring)."""
    return _readings(*_read_part(paste), len(paste) > PASTE_LIMIT)


def _readings(raw: list[str], skipped: int, cut: bool) -> list[Extracted]:
    """``readings`` of the lines ``_read_part`` gives."""
    stripped = []
    grouped = False  # from a group's head on, lines that start with "|" or "+" lose them
    for line in raw:
        plain = strip_prefixes(line)
        grouped = grouped or GROUP_HEAD in line or _GROUP_RULE.match(plain.text) is not None
        margin = grouped and _MARGIN.match(plain.text) is not None
        stripped.append(strip_prefixes(line, grouped=True) if margin else plain)
    lines = [line.text for line in stripped]
    wrapped = _cut_lines(raw)
    out: list[Extracted] = []
    wrappers: list[Extracted] = []
    candidates = itertools.count()

    def add(exception: str | None, message: str, index: int | None) -> None:
        """A candidate of its own, read as ``message``."""
        more(exception, message, index, False, next(candidates))

    def more(
        exception: str | None,
        message: str,
        index: int | None,
        wrapper: bool,
        candidate: int,
        whole: bool = False,
    ) -> None:
        """A reading of ``candidate``, unless the paste has it already."""
        at = None if index is None else skipped + index
        shown = None if index is None else lines[index].strip(BLANK)
        kept = message[:SEARCH_MESSAGE_LIMIT]
        reading = Extracted(exception, kept, cut, at, shown, candidate, wrapper, whole)
        if reading not in out and reading not in wrappers:
            (wrappers if wrapper else out).append(reading)

    # Lines read as a pydantic error or an error body: the last few of them, so a log of
    # JSON lines above a traceback leaves the traceback its readings, and the work stays
    # linear (each kept line's message is read once).
    said_at: deque[tuple[int, re.Match[str] | None, re.Match[str] | None]]
    said_at = deque(maxlen=MAX_BODIES)
    for index, line in enumerate(lines):
        said = _PYDANTIC.match(line.strip(BLANK))
        body = None if said else _BODY.search(line)
        if said or body:
            said_at.append((index, said, body))
    for index, said, body in said_at:
        if said:
            message = _message(stripped, index, said.group(2))
            kept = message.rfind(" [type=")
            add(_PYDANTIC_TYPES[said.group(1)], message[:kept] if kept >= 0 else message, index)
        elif body:
            string = string_at(lines[index], body.end(), body.group(2))
            if string is not None:
                add(*_unrepr(string[0]), index)
    debug = _debug_page(lines)
    if debug is not None:
        add(*debug)
    # Every error a line names: the lines that end tracebacks first, from the last, then
    # every other line from the paste's end; the innermost error of a line first.
    ends = sorted({*_traceback_ends(lines), *_pytest_ends(raw)})
    ending = set(ends)
    order = itertools.chain(
        reversed(ends), (i for i in range(len(lines) - 1, -1, -1) if i not in ending)
    )
    seen: set[tuple[str | None, str]] = set()
    named: set[int] = set() if debug is None else {debug[2]}
    for index in order:
        if len(seen) >= MAX_CANDIDATES:
            break
        line = lines[index].strip(BLANK)
        for exception, at, opener in reversed(_errors_in(line, index in ending)):
            named.add(index)
            key = (exception, line[at : at + SEARCH_MESSAGE_LIMIT])
            if key in seen or len(seen) >= MAX_CANDIDATES:
                continue
            seen.add(key)
            first = line[at:]
            quoted = quoted_message(first, opener)
            own = quoted[0] if quoted else first
            wrapper = _WRAPPER.search(f"{exception}: {own}") is not None
            number = next(candidates)
            messages = (*quoted, _message(stripped, index, first, wrapped), first)
            for message in messages:
                more(exception, message, index, wrapper, number)
            # A candidate of their own, next: read only when the message as written
            # matches no record whole (``Invalid URL (https://…)`` may be ``Invalid URL
            # ({url})``'s).
            beneath = next(candidates)
            for message in messages:
                for inner_exception, inner_message in _beneath(exception, message):
                    more(inner_exception, inner_message, index, wrapper, beneath)
            inner = _inner(own) if wrapper else None
            if inner:  # "Worker failed with error '<the cause>', please check … above"
                add(None, inner, index)
        # The first exception's repr on the line, its message the string it holds.
        found = _REPR_INLINE.search(line)
        held = string_at(line, found.end(), found.group(2)) if found else None
        if found and held and (found.group(1), held[0][:SEARCH_MESSAGE_LIMIT]) not in seen:
            if len(seen) >= MAX_CANDIDATES:
                break
            named.add(index)
            seen.add((found.group(1), held[0][:SEARCH_MESSAGE_LIMIT]))
            add(found.group(1), held[0], index)
    # Log lines at level ERROR that name no exception: "ERROR … Error in the engine: …"
    for index in range(len(lines) - 1, -1, -1):
        if len(seen) >= MAX_CANDIDATES:
            break
        line = lines[index].strip(BLANK)
        if not stripped[index].error or index in named or not line:
            continue
        if (None, line[:SEARCH_MESSAGE_LIMIT]) in seen or line.startswith(_TRACEBACK):
            continue
        seen.add((None, line[:SEARCH_MESSAGE_LIMIT]))
        number = next(candidates)
        for message in (_message(stripped, index, line), line):
            more(None, message, index, False, number)
        for lead, message in enumerate(_after_leads(line)):
            more(None, message, index, False, number, whole=lead > 0)
    out += wrappers
    if not named:
        message = " ".join(line.strip(BLANK) for line in lines if line.strip(BLANK))
        add(None, message, None)
        # A log line's words before its message: "Failed to load the model: <message>".
        last = len(lines) - 1
        while last > 0 and not lines[last].strip(BLANK):
            last -= 1
        number = next(candidates)
        for lead, message in enumerate(_after_leads(lines[last].strip(BLANK))):
            more(None, message, last, False, number, whole=lead > 0)
    # Readings for a whole message only come last: they never take another's place.
    out = [r for r in out if not r.whole] + [r for r in out if r.whole]
    return out[:MAX_READINGS]


def _after_leads(line: str) -> list[str]:
    """What ``line`` says after each of its first MAX_LEADS ``: ``, the nearest first:
    ``app: insert failed: Unconsumed column names: x`` may be any of the three errors.
    After the first, only words: not a value (``…parent directories): .git``); those are
    read for a whole message only (``Extracted.whole``)."""
    out: list[str] = []
    at = line.find(": ")
    while at >= 0 and len(out) < MAX_LEADS:
        after = line[at + 2 :].strip(BLANK)
        if after and (not out or " " in after):
            out.append(after)
        at = line.find(": ", at + 2)
    return out


def _debug_page(lines: Sequence[str]) -> tuple[str | None, str, int] | None:
    """The error of Django's debug page, when the paste holds one: the class its
    ``Exception Type:`` line names (right above), the message after ``Exception Value:``
    (or on the line under it, unless that is the page's next row) and the message's
    line; the last page's that has one."""
    for index in range(len(lines) - 1, -1, -1):
        value = _DEBUG_VALUE.match(lines[index].strip(BLANK))
        if value is None:
            continue
        message, at = value.group(1).strip(BLANK), index
        if not message and index + 1 < len(lines):
            message, at = lines[index + 1].strip(BLANK), index + 1
            if _DEBUG_ROW.match(message):
                continue
        if not message:
            continue
        named = _DEBUG_TYPE.match(lines[index - 1].strip(BLANK)) if index else None
        return (named.group(1) if named else None), message, at
    return None


def _traceback_ends(lines: Sequence[str]) -> list[int]:
    """The line after each traceback's frames that names what it raised, in order. A
    traceback whose header sits within the frames of one before it (indented) ends where
    that one does: each line is looked at once."""
    ends: list[int] = []
    reached = -1
    for start, line in enumerate(lines):
        head = _IPYTHON_HEAD.match(line) if start >= reached else None
        if head:  # IPython's: the line under its cells and listings that starts with the name
            name = head.group(1)
            for index in range(start + 1, len(lines)):
                if _IPYTHON_HEAD.match(lines[index]):
                    break
                found = _ANY_EXCEPTION_LINE.match(lines[index])
                if found and found.group(1) == name:
                    ends.append(index)
                    reached = index
                    break
            continue
        if start < reached or not line.strip(BLANK).startswith(_TRACEBACK):
            continue
        index = start + 1
        while index < len(lines) and (not lines[index] or lines[index][0] in " \t^~"):
            index += 1
        reached = index
        if index < len(lines) and _ANY_EXCEPTION_LINE.match(lines[index]):
            ends.append(index)
    return ends


def _pytest_ends(raw: Sequence[str]) -> list[int]:
    """The first of each run of pytest's "E" lines that its place follows (``E  KeyError:
    'a'``, a blank line, ``pkg/mod.py:188: KeyError``): the error the test raised, which
    the summary's ``FAILED …::test - KeyError: 'a'`` line below says again, placeless."""
    ends: list[int] = []
    for index, line in enumerate(raw):
        if not _PYTEST_PLACE.search(line):
            continue
        above = index - 1
        while above >= 0 and not raw[above].strip(" \t"):
            above -= 1
        top = None
        while above >= 0 and _PYTEST_ERROR.match(raw[above]):
            top, above = above, above - 1
        if top is not None:
            ends.append(top)
    return ends


def _errors_in(text: str, ends_traceback: bool) -> list[tuple[str, int, str]]:
    """The errors a line (without its surrounding blanks) names, in order: each exception's
    name, where its message starts on the line, and the mark before the name (blanks
    aside) that may open a quote around it: ``"``, a backtick, a table's ``|`` ("" for
    none). The line that ends a traceback names what it raised first, whatever its name;
    at most MAX_CANDIDATES errors, the last ones."""
    found: deque[tuple[str, int, str]] = deque(maxlen=MAX_CANDIDATES)
    position = 0
    whole = (_ANY_EXCEPTION_LINE if ends_traceback else _EXCEPTION_LINE).match(text)
    if whole:
        found.append((whole.group(1), whole.start(2) if whole.group(2) else len(text), ""))
        position = whole.end(1)
    while True:
        inline = _INLINE.search(text, position)
        if not inline:
            break
        before = inline.start(2) - 1
        while before >= 0 and text[before] in " \t":  # each run of blanks is walked once
            before -= 1
        found.append((inline.group(2), inline.end(), text[before] if before >= 0 else ""))
        position = inline.end(2) + 1
    return list(found)


def quoted_message(first: str, opener: str) -> list[str]:
    """The message of an error quoted in a sentence (``"ValueError: …" when I …``): up to
    the mark that closes the quote, the next one and the last one on the line. A mark
    right before a letter, digit or ``_`` closes nothing: it opens the message's own
    quote (``… you need to set `load_in_8bit=True` …``) or is an apostrophe."""
    closer = _QUOTES.get(opener)
    if closer is None:
        return []
    near = first.find(closer)
    while near >= 0 and _opens_word(first, near + 1):
        near = first.find(closer, near + 1)
    far = first.rfind(closer)
    return [first[:end] for end in dict.fromkeys((near, far)) if end > 0]


def _opens_word(text: str, at: int) -> bool:
    return at < len(text) and (text[at].isalnum() or text[at] == "_")


def _beneath(exception: str | None, message: str) -> list[tuple[str | None, str]]:
    """More readings of an error's message (of its first SEARCH_MESSAGE_LIMIT characters):
    without the note a library ends it with (``… cannot proceed (Background on this error
    at: https://…)``), and as the error a wrapper names before it (SQLAlchemy's
    ``StatementError: (sqlalchemy.exc.InvalidRequestError) A value is required …``)."""
    out: list[tuple[str | None, str]] = []
    message = message[:SEARCH_MESSAGE_LIMIT]
    note = _NOTE.search(message)
    if note is not None and note.start() > 0:
        message = message[: note.start()]
        out.append((exception, message))
    wrapped = _WRAPPED.match(message)
    if wrapped is not None and wrapped.group(1).rpartition(".")[2][:1].isupper():
        out.append((wrapped.group(1), wrapped.group(2)))  # a class: not ``(torch.float16)``
    return out


def _inner(message: str) -> str | None:
    """The words a wrapper quotes (``Worker failed with error '…', please check …``): from
    its first quote mark to the last of the same kind, when they hold more than a name."""
    marks = [at for at in (message.find("'"), message.find('"')) if at >= 0]
    if not marks:
        return None
    start = min(marks)
    end = message.rfind(message[start])
    inner = message[start + 1 : end].strip(BLANK)
    return inner if end > start and " " in inner else None


def _message(
    stripped: Sequence[Stripped], index: int, first: str, cut: Collection[int] = frozenset()
) -> str:
    """The message that starts on line ``index`` with ``first``: with the lines after it,
    up to a blank line, a new log record, a traceback, a fence, a Markdown heading or
    table, or a line that starts with an exception. A line of ``cut`` (``_cut_lines``)
    goes on with the next one unbroken (``the graph i`` / ``s not connected``)."""
    out = first
    for number in range(index + 1, len(stripped)):
        after = stripped[number]
        line = after.text.strip(BLANK)
        if not line or after.starts_record or line.startswith((*_CHAIN_MARKERS, _TRACEBACK)):
            break
        if _STOP.match(line) or _EXCEPTION_LINE.match(line):
            break
        out = out + line if number - 1 in cut else f"{out} {line}" if out else line
    return out


def _cut_lines(raw: Sequence[str]) -> frozenset[int]:
    """The lines of a paste that the width of the terminal it was copied from cut inside
    a word or a value: as long as its longest line (in UTF-16 units, as the page's
    script counts; MIN_WIDTH or more), with no blank on either side of the cut (a
    terminal that cuts between words leaves the space on one side), where one of those
    longest lines is a frame cut inside its path (``cut_frame``), which tells a
    terminal's width: text wrapped between words (``textwrap``, by the code) loses the
    space there, and may by chance have two lines of one length."""
    widths = [len(line.encode("utf-16-le", "surrogatepass")) // 2 for line in raw]
    widest = max(widths, default=0)
    full = [number for number, width in enumerate(widths) if width == widest]
    if widest < MIN_WIDTH or not any(_CUT_FRAME.search(raw[n]) for n in full):
        return frozenset()
    return frozenset(
        n
        for n in full
        if n + 1 < len(raw) and _FILLED.search(raw[n]) and _GOES_ON.match(raw[n + 1])
    )


def string_at(text: str, start: int, quote: str) -> tuple[str, int] | None:
    """The string literal (JSON or Python repr) whose text starts at ``start``, decoded,
    and where it ends; None when the line ends first."""
    out: list[str] = []
    index = start
    while index < len(text):
        char = text[index]
        if char == quote:
            joined = "".join(out)
            # "\ud83d\ude80" is one character, as in the browser.
            joined = joined.encode("utf-16-le", "surrogatepass").decode(
                "utf-16-le", "surrogatepass"
            )
            return joined, index + 1
        if char == "\\" and index + 1 < len(text):
            code = text[index + 1]
            size = {"x": 2, "u": 4}.get(code, 0)
            digits = text[index + 2 : index + 2 + size]
            if size and len(digits) == size and _HEX.fullmatch(digits):
                out.append(chr(int(digits, 16)))
                index += 2 + size
                continue
            out.append(_ESCAPES.get(code, code))
            index += 2
            continue
        out.append(char)
        index += 1
    return None


def _unrepr(text: str) -> tuple[str | None, str]:
    """An error body's message: ``ValueError('…')`` is a ValueError and its message."""
    match = _REPR.match(text)
    if match:
        inner = string_at(text, match.end(), match.group(2))
        if inner is not None and text[inner[1] :] == ")":
            return match.group(1), inner[0]
    return None, text


# --- 2. Normalizing ------------------------------------------------------------------

_DROPPED = set("'\"`\u2018\u2019\u201c\u201d\u200b\u200c\u200d\ufeff")
_SPACES = set(" \t\n\r\f\v\u00a0\u2028\u2029\u3000") | {chr(c) for c in range(0x2000, 0x200B)}
_TOKEN = re.compile(r"[^\W]+")
_DIGITS = re.compile(r"[0-9]+")


def normalize(text: str, lead: bool = False, trail: bool = False) -> tuple[str, list[int]]:
    """Lowercase, quotes dropped, whitespace collapsed; and where each character came from.

    Leading and trailing whitespace goes, unless ``lead`` or ``trail`` keep one space
    (a literal part of a template that meets a placeholder). An empty string as Python
    prints it (``''``, ``""``) stands between the spaces around it as a value does, so
    ``got ''`` is ``got `` and ``a '' b`` is ``a  b``: the message was printed with an
    empty value, and its template's placeholder takes one.
    """
    chars: list[str] = []
    where: list[int] = []
    space = not lead
    opened = ""  # a quote that may open an empty string
    held = -1  # where the last empty string stood in ``chars``
    for index, char in enumerate(text):
        if char in _DROPPED:
            if char == opened:
                opened, space, held = "", False, len(chars)
            else:
                opened = char if char in _PAIRED else ""
            continue
        opened = ""
        if char in _SPACES:
            if not space:
                chars.append(" ")
                where.append(index)
            space = True
            continue
        for low in char.lower():
            chars.append(low)
            where.append(index)
        space = False
    if chars and chars[-1] == " " and not trail and held != len(chars):
        chars.pop()
        where.pop()
    return "".join(chars), where


_PAIRED = ("'", '"')
"""The quotes of an empty string as Python prints one."""


_ASCII_DROPPED = str.maketrans("", "", "'\"`")
_ASCII_SPACES = re.compile(r"[ \t\n\r\f\v]+")


def normalized_text(text: str, lead: bool = False, trail: bool = False) -> str:
    """``normalize(text, lead, trail)[0]``, sooner for ASCII text (most templates)."""
    if not text.isascii() or "''" in text or '""' in text:
        return normalize(text, lead, trail)[0]
    out = _ASCII_SPACES.sub(" ", text.translate(_ASCII_DROPPED).lower())
    if not lead and out.startswith(" "):
        out = out[1:]
    if not trail and out.endswith(" "):
        out = out[:-1]
    return out


def tokens(normalized: str) -> list[str]:
    return _TOKEN.findall(normalized)


def is_digits(word: str) -> bool:
    """ASCII digits only, as the browser sees them: a number is a value, never a key word."""
    return _DIGITS.fullmatch(word) is not None


# --- The index -----------------------------------------------------------------------

COMMON_SHARE = 0.2
"""A word in more than this share of templates (on a site of 200 or more) is 'common':
it is left out of the inverted index and weighs little."""
RECORDS_PER_FILE = 16
"""Records per record file of a large site's browser index, about (see ``record_files``)."""
SHARD_TARGET = 500
"""About this many postings per word shard. Smaller shards keep what a long paste reads
small (it looks up to LOOKUP_WORDS words, each in its shard); bigger ones give the first
answer more words in its few files. Measured in chromium on the real corpus
(transformers, 6,552 records, 81 pastes): 1,500 showed 79 first answers within 8 files,
but a long GitHub issue's whole answer read 196 KB gzipped; 200 cut that to 123 KB and
showed 76; 500 reads at most 144 KB and shows 77."""
MAX_SHARDS = 1024
"""Word shards at most: a bigger site has bigger shards."""
SMALL_SITE = 8192
"""Entries of a site whose index is a few large files. A whole answer reads the records
of about 80 candidates a reading, spread over the whole index: in small files that is
some 45 requests (real corpus, 6,552 records); in SMALL_SITE_FILES word shards and as
many record files, at most 17 (docs/search.md, "How many files the index has")."""
SMALL_SITE_FILES = 8
"""Word shards, and record files, of a site of SMALL_SITE entries (fewer below it)."""
QUICK_REQUESTS = 8
"""Files the browser fetches, at most, before it shows a first answer: the head, a few
word shards chosen by the rarity sketch, and the record files of the best candidates."""


RARITY_SCALE = 16
"""Steps of the rarity sketch per doubling of a word's document frequency."""


def rarity(postings: Mapping[str, Sequence[int]]) -> bytes:
    """A sketch of every indexed word's document frequency, for the browser's first answer.

    Byte ``fnv1a(word) % len`` holds the largest frequency of the words that fall there,
    on a log scale (``round(16 * log2(1 + df))``, so up to 62,000 apart), so 0 proves a
    word is not indexed and a small value says it is rare: the browser fetches the
    shards of the rarest words of a paste first, before it knows their postings. About
    two bytes a word, at most 64 KiB.
    """
    size = 256
    while size < 2 * len(postings) and size < 1 << 16:
        size *= 2
    sketch = bytearray(size)
    for word, posting in postings.items():
        bucket = fnv1a(word) % size
        scaled = min(255, round(RARITY_SCALE * math.log2(1 + len(posting))))
        sketch[bucket] = max(sketch[bucket], scaled)
    return bytes(sketch)


@as_tuple
@dataclass(frozen=True, slots=True)
class Entry:
    """A record as search sees it."""

    index: int
    id: str
    exception: str
    repo: str
    template: str
    title: str
    literals: tuple[str, ...] = field(repr=False)
    """Normalized literal parts; placeholders sit between them."""
    names: tuple[str, ...] = field(repr=False)
    """Placeholder names, one between each pair of literals."""
    words: tuple[str, ...] = field(repr=False)
    """Word tokens with ``*`` for each placeholder."""
    cut: bool = False
    """The template is longer than SEARCH_MESSAGE_LIMIT: literals, names and words hold
    its start only, so it can match a paste in part but never as a whole message."""
    own: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    """The distinct words of ``words``."""
    old: tuple[str, str, str] | None = None
    """For an earlier wording of the record: the last release that words it so, the
    first that words it otherwise, and the record's message (its wording now)."""
    joined: str = field(default="", repr=False, compare=False)
    """``words`` between NULs (``"\0a\0b\0"``): whether some word ends or starts with a
    given text is one substring test (``"ab\0" in joined``, ``"\0ab" in joined``)."""
    literal_words: int = field(default=0, repr=False, compare=False)
    """How many of ``words`` are not placeholders."""
    file: str = ""
    """The name of the file that raises it (``modeling_bros.py``): of records that say the
    same words, a paste's traceback names the one raised there (``one_per_message``)."""
    package: str = ""
    """The top module of the file that raises it (``huggingface_hub``): an error Python
    names with that module may be this one (``exceptions_named``)."""
    shared: int = 1
    """How many entries of the index say its words (``same_message``), itself included."""
    line: int = 0
    """The line that raises it: of records that say the same words in one file, a
    traceback's frame names the one raised nearest its line."""


_AFTER_INDEX = operator.attrgetter(*(f.name for f in fields(Entry)[1:]))
"""An entry's fields but its index, in order."""


def literals_of(template: str) -> tuple[list[str], list[str]]:
    """A template's literal parts and its placeholders' names, one name between each
    two literals (``fit_placeholders`` fits a message to them). Raises TemplateError."""
    literals: list[str] = [""]
    names: list[str] = []
    for part in parse_template(template).parts:
        if part.placeholder:
            names.append(part.text)
            literals.append("")
        else:
            literals[-1] += part.text
    return literals, names


def make_entry(
    index: int,
    id: str,
    exception: str,
    repo: str,
    template: str,
    title: str,
    file: str = "",
    line: int = 0,
    package: str = "",
) -> Entry:
    literals, names, cut = _cut(*literals_of(template))
    last = len(literals) - 1
    normalized = [normalized_text(lit, i > 0, i < last) for i, lit in enumerate(literals)]
    words: list[str] = []
    for position, literal in enumerate(normalized):
        # Interned: the entries of a site share their words, in memory and in the state
        # (which unpickles them shared), and a word found in a dict is mostly found by
        # its pointer.
        words.extend(map(sys.intern, tokens(literal)))
        if position < len(names) and (not words or words[-1] != "*"):
            words.append("*")
    return Entry(
        index,
        id,
        exception,
        repo,
        template,
        title,
        tuple(normalized),
        tuple(names),
        tuple(words),
        cut,
        frozenset(words),
        joined="\0" + "\0".join(words) + "\0",
        literal_words=len(words) - words.count("*"),
        file=file,
        line=line,
        package=sys.intern(package),
    )


def _cut(literals: list[str], names: list[str]) -> tuple[list[str], list[str], bool]:
    """The first SEARCH_MESSAGE_LIMIT characters of a template, a placeholder counting as
    one, and whether that is less than all of it: the index, the candidates and the
    alignment then cost the same for a record whose message runs to 60,000 words."""
    room = SEARCH_MESSAGE_LIMIT
    for number, literal in enumerate(literals):
        if len(literal) > room or (number < len(names) and len(literal) == room):
            return [*literals[:number], literal[:room]], names[:number], True
        room -= len(literal) + 1
    return literals, names, False


def entry_of(index: int, record: Record) -> Entry:
    """``record`` as search sees it, numbered ``index``."""
    return make_entry(
        index,
        record.id,
        record.exception,
        record.repo,
        record.message.source,
        record.title,
        file_name(record.source.path),
        record.source.line,
        module_of(record.source.path),
    )


def file_name(path: str) -> str:
    """The last part of a record's ``source.path``, as a traceback's frame names it."""
    return path.rpartition("/")[2]


def entries_from(records: Sequence[Record]) -> list[Entry]:
    """``records`` as search sees them, in their order, each numbered as the index
    numbers it (``numbered``), so that building the index makes none of them again."""
    number = id_numbers(records)
    return [entry_of(number[r.id], r) for r in records]


def id_numbers(records: Iterable[Record]) -> dict[str, int]:
    """Each record's number in the search index: its place in the order of ids (the ids
    of a site's records are distinct; earlier wordings are numbered after them)."""
    return {rid: k for k, rid in enumerate(sorted(r.id for r in records))}


def old_entries(records: Sequence[Record], config: SiteConfig, start: int) -> list[Entry]:
    """An entry for each earlier wording of each record (numbered from ``start``, after
    the records' own): a user on an older release pastes the words it printed."""
    out: list[Entry] = []
    for record in records:
        for wording, since in old_wordings(record, config.releases_of(record.repo)):
            entry = make_entry(
                start + len(out),
                record.id,
                record.exception,
                record.repo,
                wording.template,
                record.title,
                file_name(record.source.path),
                package=module_of(record.source.path),
            )
            out.append(replace(entry, old=(wording.last, since, record.message.source)))
    return out


def numbered(entries: Sequence[Entry]) -> list[Entry]:
    """``entries`` numbered by record id (earlier wordings, ``Entry.old``, after all
    others, then by wording): a record keeps its number when its message, title or
    anything else changes, so the postings of the words it did not gain or lose keep
    their bytes."""
    ordered = sorted(entries, key=lambda e: (e.old is not None, e.id, e.template))
    return [_numbered(e, k) for k, e in enumerate(ordered)]


def file_counts(entries: int, postings: int) -> tuple[int, int]:
    """How many word shards and record files the browser index of ``entries`` entries
    (holding ``postings`` postings in all) has: a small site (SMALL_SITE) has one of each
    for every SMALL_SITE / SMALL_SITE_FILES entries, a power of two; a larger one about
    SHARD_TARGET postings a shard and RECORDS_PER_FILE records a file (a power of two,
    the same while the site grows or shrinks by a few records)."""
    count = 1
    if entries <= SMALL_SITE:
        while count * SMALL_SITE < entries * SMALL_SITE_FILES:
            count *= 2
        return count, count
    while count * RECORDS_PER_FILE < entries:
        count *= 2
    return max(1, min(MAX_SHARDS, round(postings / SHARD_TARGET))), count


def record_files(entries: Sequence[Entry], count: int) -> list[int]:
    """The record file, of ``count``, of each entry of the browser index.

    The browser's first answer reads a few record files of a paste's best candidates;
    those share the paste's rare words, so the records of a word that is their rarest
    share a file (RECORDS_PER_FILE of them at a time, a file holding a few such groups):
    the file is chosen by a hash of the word, not by a place in an order, so a reworded
    message moves its record and few others (what the first answer then finds is
    measured in docs/benchmarks.md, "Search")."""
    frequency = Counter(itertools.chain.from_iterable(entry.own for entry in entries))
    # Each word's place in the order of rarity, fewest records first, then by the word;
    # placeholders and numbers rank after every word (they have no place).
    words = sorted((n, w) for w, n in frequency.items() if w != "*" and not is_digits(w))
    unplaced = len(words)
    rank = dict.fromkeys(frequency, unplaced)
    rank.update((w, k) for k, (_, w) in enumerate(words))
    place = rank.__getitem__
    members: dict[str, int] = {}
    hashed: dict[tuple[str, int], int] = {}  # the file of each group, hashed once
    files = []
    for entry in entries:
        rarest = min(map(place, entry.own), default=unplaced)
        word = words[rarest][1] if rarest < unplaced else ""
        before = members.get(word, 0)
        members[word] = before + 1
        group = (word, before // RECORDS_PER_FILE)
        file = hashed.get(group)
        if file is None:
            file = hashed[group] = fnv1a(f"{word}\0{group[1]}") % count
        files.append(file)
    return files


def _numbered(entry: Entry, index: int) -> Entry:
    """``replace(entry, index=index)``, four times as fast (a site's every entry is
    numbered again whenever its index is built)."""
    if entry.index == index:
        return entry
    return Entry(index, *_AFTER_INDEX(entry))


@dataclass(frozen=True, slots=True)
class Index:
    """Entries plus document frequencies: all that lookup needs."""

    entries: tuple[Entry, ...]
    postings: dict[str, list[int]]
    """Word → indices of the entries whose template has it (common words left out)."""
    common: dict[str, int]
    """Common word → how many templates have it."""
    sizes: list[int]
    """How many words of the inverted index each entry has."""
    vocabulary: tuple[str, ...] = field(default=(), repr=False)
    """The words of ``postings``, sorted."""
    places: dict[str, list[tuple[int, int]]] = field(default_factory=dict, repr=False)
    """``place_key`` → the entries raised there and their lines, in line order (``placed``)."""

    @classmethod
    def build(cls, entries: Sequence[Entry]) -> Index:
        """The index of ``entries``, numbered anew (``numbered``)."""
        entries = numbered(entries)
        messages = [same_message(e) for e in entries]
        said = Counter(messages)
        entries = [
            e if said[m] == e.shared else replace(e, shared=said[m])
            for e, m in zip(entries, messages, strict=True)
        ]
        found: dict[str, list[int]] = {}
        for entry in entries:  # in the order of their numbers: each posting comes sorted
            for word in entry.own:
                if word in found:
                    found[word].append(entry.index)
                else:
                    found[word] = [entry.index]
        n = len(entries)
        limit = max(1, int(n * COMMON_SHARE)) if n >= 200 else n + 1
        # Placeholders and numbers are not words of the index; words in order.
        words = sorted(w for w in found if w != "*" and not is_digits(w))
        common = {w: len(found[w]) for w in words if len(found[w]) > limit}
        postings = {w: found[w] for w in words if w not in common}
        counted = Counter(itertools.chain.from_iterable(postings.values()))
        sizes = [counted[number] for number in range(n)]
        places: dict[str, list[tuple[int, int]]] = {}
        digests = {m: message_digest(m) for m, n in said.items() if n > 1}
        for entry, m in zip(entries, messages, strict=True):
            if entry.shared > 1 and entry.file and entry.old is None:
                places.setdefault(f"{digests[m]}/{entry.file}", []).append(
                    (entry.index, entry.line)
                )
        for held in places.values():
            held.sort(key=lambda placed: (placed[1], placed[0]))
        return cls(tuple(entries), postings, common, sizes, tuple(postings), places)

    def placed(self, key: str) -> list[tuple[int, int]]:
        return self.places.get(key, [])

    @property
    def exception_pages(self) -> dict[str, str]:
        return exception_pages(self.entries)

    @property
    def exception_modules(self) -> dict[str, list[str]]:
        return exception_modules(self.entries)

    def df(self, word: str) -> int:
        return len(self.postings.get(word, ())) or self.common.get(word, 0)

    def starting(self, prefix: str) -> list[str]:
        start = bisect.bisect_left(self.vocabulary, prefix)
        end = start
        while end < len(self.vocabulary) and self.vocabulary[end].startswith(prefix):
            end += 1
        return list(self.vocabulary[start:end])

    def files(self) -> dict[str, Any]:
        """The browser index: a small head, word shards and record chunks."""
        total = sum(len(p) for p in self.postings.values())
        shards, count = file_counts(len(self.entries), total)
        words: list[dict[str, list[int]]] = [{} for _ in range(shards)]
        for word in sorted(self.postings):
            words[shard_of(word, shards)][word] = self.postings[word]
        repos = sorted({e.repo for e in self.entries})
        exceptions = sorted({e.exception for e in self.entries})
        files = record_files(self.entries, count)
        out: dict[str, Any] = {
            "search/meta.json": {
                "version": INDEX_VERSION,
                "count": len(self.entries),
                "shards": shards,
                "record_files": count,
                "place_files": place_files(len(self.places)),
                "files": files,
                "common": self.common,
                "sizes": self.sizes,
                "rarity": base64.b64encode(rarity(self.postings)).decode("ascii"),
                "repos": repos,
                "exceptions": exceptions,
                "exception_pages": exception_pages(self.entries),
                "exception_modules": exception_modules(self.entries),
                "patterns": PATTERNS,
                "params": {
                    "candidates": CANDIDATES,
                    "complete_candidates": COMPLETE_CANDIDATES,
                    "unknown": UNKNOWN,
                    "skip": SKIP,
                    "min_score": MIN_SCORE,
                    "min_matched": MIN_MATCHED,
                    "min_literal": MIN_LITERAL,
                    "few_words": FEW_WORDS,
                    "vague_exact": VAGUE_EXACT,
                    "min_precision": MIN_PRECISION,
                    "min_coverage_other_type": MIN_COVERAGE_OTHER_TYPE,
                    "min_literal_share_other_type": MIN_LITERAL_SHARE_OTHER_TYPE,
                    "max_words": MAX_WORDS,
                    "lookup_words": LOOKUP_WORDS,
                    "search_message_limit": SEARCH_MESSAGE_LIMIT,
                    "paste_limit": PASTE_LIMIT,
                    "max_readings": MAX_READINGS,
                    "max_bodies": MAX_BODIES,
                    "min_width": MIN_WIDTH,
                    "max_leads": MAX_LEADS,
                    "max_candidates": MAX_CANDIDATES,
                    "max_frame_gap": MAX_FRAME_GAP,
                    "max_listing": MAX_LISTING,
                    "quick_requests": QUICK_REQUESTS,
                    "prefix": PREFIX,
                    "rarity_scale": RARITY_SCALE,
                    "align_cells": ALIGN_CELLS,
                    "fits_tried": FITS_TRIED,
                    "max_name_paste": MAX_NAME_PASTE,
                },
            }
        }
        for number, shard in enumerate(words):
            out[f"search/words/{number}.json"] = shard
        rows: list[list[Any]] = [[] for _ in range(count)]
        repo_numbers = {repo: n for n, repo in enumerate(repos)}
        exception_numbers = {exception: n for n, exception in enumerate(exceptions)}
        # A record's file tells it from records that say the same words: only theirs is
        # written, with how many say them (a paste's traceback names the file,
        # ``one_per_message``), and the places files name the record of each message
        # raised in each file (``placed``).
        places: list[dict[str, Any]] = [{} for _ in range(place_files(len(self.places)))]
        for key, held in sorted(self.places.items()):
            places[fnv1a(key) % len(places)][key] = [list(placed) for placed in held]
        for e, file in zip(self.entries, files, strict=True):
            rows[file].append(
                [e.index, e.id, exception_numbers[e.exception], repo_numbers[e.repo], e.template]
                + [[e.file, e.shared, e.line] if e.shared > 1 else ""]
                + (list(e.old) if e.old else [])
            )
        for number, held in enumerate(rows):
            out[f"search/records/{number}.json"] = held
        for number, placed in enumerate(places):
            out[f"search/places/{number}.json"] = placed
        return out


class Searchable(Protocol):
    """What lookup reads of an index: an Index built here, or one read from the files a
    build wrote (errdex/search/sources.py), shard by shard as the paste needs them."""

    @property
    def entries(self) -> Sequence[Entry]: ...
    @property
    def postings(self) -> Mapping[str, Sequence[int]]: ...
    @property
    def common(self) -> Mapping[str, int]: ...
    @property
    def sizes(self) -> Sequence[int]: ...
    def df(self, word: str) -> int: ...
    def starting(self, prefix: str) -> list[str]:
        """The indexed words (common ones aside) that start with ``prefix``, sorted."""
        ...

    def placed(self, key: str) -> list[tuple[int, int]]:
        """The entries raised at ``key`` (``place_key``) and their lines, in line order."""
        ...

    @property
    def exception_pages(self) -> Mapping[str, str]:
        """Exception → the page of its errors (``exception_pages``); none from an index
        an errdex before 2026-12-07 wrote."""
        ...

    @property
    def exception_modules(self) -> Mapping[str, Collection[str]]:
        """Exception → the top modules of the code that raises it (``exception_modules``);
        none from an index an errdex before 2026-12-07 wrote."""
        ...


def starting(words: Iterable[str], prefix: str) -> list[str]:
    return sorted(w for w in words if w.startswith(prefix))


INDEX_VERSION = 5
"""The layout of the browser index; lookup refuses another. 2: words are sharded by
their first PREFIX characters. 3: records are numbered by id, and ``files`` (in
meta.json) names the record file of each, whose rows start with their numbers. 4: a
row's fifth field is its record's file name, where another record says the same words.
5: that field is [file name, how many say them, line], and ``search/places/*.json``
name the records of each such message raised in each file, with their lines
(``place_key``)."""
PLACES_PER_FILE = 1024
"""Keys of a places file, about (a power of two files)."""


def place_files(places: int) -> int:
    """How many places files an index of ``places`` places has: none for none."""
    count = 1 if places else 0
    while count * PLACES_PER_FILE < places:
        count *= 2
    return count


def place_key(entry: Entry, file: str) -> str:
    """Where a message is raised: the digest of its words (``same_message``) and a file
    name. The places files map it to the record, the JavaScript computes it alike."""
    return f"{message_digest(same_message(entry))}/{file}"


def message_digest(message: tuple[str, ...]) -> str:
    """``same_message``'s words as the places files key them: 8 hex digits."""
    return f"{fnv1a(chr(0).join(message)):08x}"


PREFIX = 3
"""Characters of a word that choose its shard: a word cut short (the last of a piece of
a message) finds the words it starts in the shard it would be in itself."""


def shard_of(word: str, shards: int) -> int:
    return fnv1a(word[:PREFIX]) % shards


def fnv1a(word: str) -> int:
    """32-bit FNV-1a of the UTF-8 bytes: the same shard number in Python and JavaScript
    (whose encoder writes a lone surrogate, a stray byte of a paste, as U+FFFD)."""
    value = 0x811C9DC5
    for byte in _LONE_SURROGATE.sub("\ufffd", word).encode():
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


# --- 3 and 4. Candidates and scoring ------------------------------------------------

MAX_WORDS = 400
"""Words of a message the alignment looks at."""
ALIGN_CELLS = 100_000
"""Most steps (paste words + 1) x (template words + 1) of one alignment: a longer template
is aligned through the stretch of it that holds the most words of the paste."""
CANDIDATES = 40
"""Records scored in full per query: those sharing the rarest words with the paste..."""
COMPLETE_CANDIDATES = 40
"""...and those whose words the paste holds most completely."""
UNKNOWN = 1.0
"""Weight of a word the index does not have: most likely a value."""
SKIP = 0.5
"""Penalty for a template word skipped inside the matched stretch."""
MIN_SCORE = 0.5
MIN_MATCHED = 2
MIN_PRECISION = 0.45
"""A partial match must explain this share of what the paste says (see ``content``)."""
MIN_COVERAGE_OTHER_TYPE = 0.8
"""When the paste names another exception type, a partial match must cover this share of
the template's words."""
MIN_LITERAL_SHARE_OTHER_TYPE = 0.6
"""When the paste names another exception type, a whole-message match must still owe
this share of the paste's characters to the template's own text, not to its values."""
FEW_WORDS = 3
VAGUE_EXACT = 0.75
"""A whole-message match of a template with fewer than FEW_WORDS words of its own ranks
as a partial match of this score."""
MIN_LITERAL = 10
"""An exact match must explain at least this many characters of the message literally."""


@dataclass(frozen=True, slots=True)
class Match:
    """One result: an error page, how well it matched, and the values the paste filled in."""

    entry: Entry
    exact: bool
    score: float
    values: tuple[tuple[str, str], ...]
    """Placeholder name → the user's value, when the whole message matched."""
    also: tuple[str, ...] = ()
    """Ids of records with the same exception and template (raised at other places), of
    those scored: ``entry.shared`` says how many records say its words in all."""
    first_line: bool = False
    """Whether the paste is the first line of a message of several, filled in
    (``first_line_match``)."""

    @property
    def elsewhere(self) -> int:
        """How many other records say its words ("Also raised at N other places")."""
        return max(len(self.also), self.entry.shared - 1)


LOOKUP_WORDS = 64
"""Distinct words of a paste that are looked up in the index (the browser fetches their shards)."""


def lookup_words(words: Sequence[str]) -> list[str]:
    """The paste's distinct words, in order, without numbers (values, never looked up)."""
    return [w for w in dict.fromkeys(words) if not is_digits(w)][:LOOKUP_WORDS]


def weights(index: Searchable, looked_up: Sequence[str]) -> dict[str, float]:
    """Weight of each looked-up word the index has: the rarer, the heavier."""
    total = len(index.entries)
    return {w: math.log(1 + total / df) for w in looked_up if (df := index.df(w))}


def cut_short(
    index: Searchable, words: Sequence[str], looked_up: Sequence[str]
) -> dict[str, list[int]]:
    """The last word of a paste cut mid-word (a piece of a message) as the words it may
    be the start of: ``{word: the entries that have one of them}``, when the index does
    not have the word itself. A word so cut matches in the alignment too."""
    last = words[-1] if words else ""
    if len(last) < 3 or last not in looked_up or index.df(last):
        return {}
    found: set[int] = set()
    for word in index.starting(last):
        found.update(index.postings.get(word, ()))
    return {last: sorted(found)} if found else {}


def candidates(
    index: Searchable,
    looked_up: Sequence[str],
    weight: dict[str, float],
    cut: Mapping[str, Sequence[int]] | None = None,
) -> list[int]:
    """Entries sharing words with the paste: those sharing the rarest words, and those
    whose own words the paste holds most completely.

    The second list matters when the values in a paste are rare words themselves
    (model names, file names): they pull in templates that merely mention them, while
    the right template is the one all of whose words are there. ``cut`` gives the
    entries of a word cut short (``cut_short``).
    """
    scores: dict[int, float] = {}
    shared: Counter[int] = Counter()
    add = scores.get
    cut = cut or {}
    for word in sorted(looked_up):
        posting = cut.get(word) or index.postings.get(word, ())
        gained = weight.get(word, 0.0)
        for entry in posting:
            scores[entry] = add(entry, 0.0) + gained
        shared.update(posting)
    by_weight = sorted(_near_top(scores, CANDIDATES), key=lambda e: (-round(scores[e], 9), e))[
        :CANDIDATES
    ]
    ratio = {e: shared[e] / index.sizes[e] for e in scores}
    complete = sorted(
        _near_top(ratio, COMPLETE_CANDIDATES),
        key=lambda e: (-round(ratio[e], 9), -round(scores[e], 9), e),
    )[:COMPLETE_CANDIDATES]
    chosen = set(by_weight)
    return by_weight + [e for e in complete if e not in chosen]


def _near_top(values: dict[int, float], count: int) -> list[int]:
    """The keys whose value is within 1e-8 of the ``count``-th largest or above: all that
    can be among the first ``count`` when values are compared rounded to 9 places."""
    if len(values) <= count:
        return list(values)
    least = heapq.nlargest(count, values.values())[-1] - 1e-8
    return [key for key, value in values.items() if value >= least]


def exact_values(
    entry: Entry, message: str, normalized: str, where: list[int]
) -> tuple[tuple[str, str], ...] | None:
    """The user's values when ``message`` is the whole template filled in, else None.

    ``normalized`` and ``where`` are ``normalize(message)``; values are cut from
    ``message`` itself, so they keep the user's case and quotes. A cut template never
    matches as a whole: search has not read all of it.
    """
    spans = None if entry.cut else fit_placeholders(entry.literals, normalized)
    if spans is None:
        return None
    if not _agrees(entry.names, spans, normalized):
        spans = _agreeing_fit(entry.literals, entry.names, normalized) or spans
    values = []
    for (start, end), name in zip(spans, entry.names, strict=True):
        if end <= start:
            values.append((name, ""))
            continue
        first, last = where[start], where[end - 1] + 1
        if first > 0 and last < len(message):
            # Quotes of the value's own ends: ``'x', 'one', 'two'``, not ``x', 'one', 'two``.
            quote = message[first - 1]
            if quote in "'\"`" and message[last] == quote and quote in message[first:last]:
                first, last = first - 1, last + 1
        values.append((name, message[first:last].strip(BLANK + "\n")))
    return tuple(values)


def fit_placeholders(literals: Sequence[str], text: str) -> list[tuple[int, int]] | None:
    """Where the placeholders between ``literals`` sit when they fill all of ``text``.

    The first literal must start the text and the last end it; each one between goes
    at its leftmost place after the one before. That finds a fit whenever there is one,
    the same fit as a regular expression of lazy groups would, in linear time instead
    of the exponential backtracking such an expression can take. Two readings of how
    people paste: a value left empty between two spaces (``load {name} because``
    printed as ``load  because``, its spaces collapsed to one), when another value is
    there to show the message was printed (``Format is not supported`` is no printing
    of ``Format {name} is not supported``); and a closing full stop left out (a
    message quoted in a sentence, or cut at its last value), when the last value ends
    no sentence (which would make it prose that goes on).
    """
    first, last = literals[0], literals[-1]
    if len(literals) == 1:
        return [] if text == first else None
    if not text.startswith(first):
        return None
    stop = not text.endswith(last) and last.endswith(".") and text.endswith(last[:-1])
    if stop:
        last = last[:-1]
    if not text.endswith(last):
        return None
    end_limit = len(text) - len(last)
    position = len(first)
    spans = []
    collapsed = False
    for literal in literals[1:-1]:
        found = text.find(literal, _shared_space(text, position, literal), end_limit)
        if found < 0:
            return None
        collapsed |= found < position
        spans.append((position, found))
        position = found + len(literal)
    if end_limit < _shared_space(text, position, last):
        return None
    collapsed |= end_limit < position
    if stop and _SENTENCE_END.search(text, position, end_limit):
        return None
    spans.append((position, end_limit))
    if collapsed and all(end <= start for start, end in spans):
        return None
    return spans


_SENTENCE_END = re.compile(r"[.!?] ")

FITS_TRIED = 64
"""Places of a template's literals tried, at most, for a fit in which a placeholder said
twice (``{code} … /Status/{code}``) has one value."""


def _agrees(names: Sequence[str], spans: Sequence[tuple[int, int]], text: str) -> bool:
    """Whether each placeholder said more than once has one value in ``spans``."""
    seen: dict[str, str] = {}
    return all(
        seen.setdefault(name, text[start:end]) == text[start:end]
        for name, (start, end) in zip(names, spans, strict=True)
    )


def _agreeing_fit(
    literals: Sequence[str], names: Sequence[str], text: str
) -> list[tuple[int, int]] | None:
    """A fit of ``literals`` to ``text`` as ``fit_placeholders`` makes one, but where a
    literal may sit at a later place than its leftmost, in which every placeholder said
    twice has one value: the first such, each literal as far left as it can be; None
    when none is found within FITS_TRIED places. (The leftmost fit may give an adjacent
    placeholder an empty value and the next the words of both: ``{a} '{b} {c}'``.)"""
    first, last = literals[0], literals[-1]
    stop = not text.endswith(last) and last.endswith(".") and text.endswith(last[:-1])
    if stop:
        last = last[:-1]
    end_limit = len(text) - len(last)
    tries = 0

    def rest(
        index: int, position: int, spans: list[tuple[int, int]], collapsed: bool
    ) -> list[tuple[int, int]] | None:
        nonlocal tries
        if index == len(literals) - 1:
            if end_limit < _shared_space(text, position, last):
                return None
            if stop and _SENTENCE_END.search(text, position, end_limit):
                return None
            done = [*spans, (position, end_limit)]
            if (collapsed or end_limit < position) and all(end <= start for start, end in done):
                return None
            return done if _agrees(names, done, text) else None
        literal = literals[index]
        found = text.find(literal, _shared_space(text, position, literal), end_limit)
        while found >= 0 and tries < FITS_TRIED:
            tries += 1
            shared = collapsed or found < position
            fit = rest(index + 1, found + len(literal), [*spans, (position, found)], shared)
            if fit is not None:
                return fit
            found = text.find(literal, found + 1, end_limit)
        return None

    if not text.startswith(first) or not text.endswith(last):
        return None
    return rest(1, len(first), [], False)


def _shared_space(text: str, position: int, literal: str) -> int:
    """Where ``literal`` may start after a placeholder at ``position``: one back when
    the literals on both sides of an empty value share the one space left of two."""
    if literal.startswith(" ") and position > 0 and text[position - 1] == " ":
        return position - 1
    return position


def align(
    paste: Sequence[str], template: Sequence[str], weight: dict[str, float], free: bool = False
) -> tuple[float, int, float]:
    """Best alignment of the paste's words with a stretch of the template's words.

    Placeholders (``*``) absorb any number of words for free; a template word matched
    gains its weight; a paste word left over costs its weight; a template word skipped
    inside the stretch costs SKIP. The first and last paste words may be cut mid-word;
    with ``free`` (a paste that names no exception: a message, or a piece of one) they
    cost nothing left over, as what a cut left of a word tells nothing. Returns the
    score, how many template words matched and their weight.
    """
    template = _window(paste, template)
    n, m = len(paste), len(template)
    weights = [weight.get(w, UNKNOWN) for w in paste]
    star = [word == "*" for word in template]
    joined = "\0" + "\0".join(template) + "\0"
    at: dict[str, list[int]] = {}
    for j, word in enumerate(template):
        at.setdefault(word, []).append(j)
    neg = -1e18
    # score[i][j]: best for the first i paste words ending before template word j;
    # hits and gain: the template words matched on that best path, and their weight.
    # A cell is "relaxed" by a move when the move scores more, or as much with more
    # words matched; the moves are tried in a fixed order (ties keep the first).
    score = [[neg] * (m + 1) for _ in range(n + 1)]
    hits = [[0] * (m + 1) for _ in range(n + 1)]
    gain = [[0.0] * (m + 1) for _ in range(n + 1)]
    score[0] = [0.0] * (m + 1)
    for i in range(n + 1):
        row, row_hits, row_gain = score[i], hits[i], gain[i]
        more = i < n
        skips = i > 0
        if more:
            down, down_hits, down_gain = score[i + 1], hits[i + 1], gain[i + 1]
            pasted, gained_here = paste[i], weights[i]
            edge = i == 0 or i == n - 1
            cost = 0.0 if free and edge else gained_here
            # The template words this paste word matches: itself, or, cut at an edge,
            # a word it is the end (first) or the start (last) of.
            matching = set(at.get(pasted, ()))
            if len(pasted) >= 3 and edge and _cut_matches(pasted, joined, len(matching), i, n):
                matching = {
                    j
                    for j, word in enumerate(template)
                    if not star[j] and _same_word(pasted, word, i == 0, i == n - 1)
                }
        else:
            matching = set()
        for j in range(m + 1):
            here = row[j]
            if here == neg:
                continue
            matched, gained = row_hits[j], row_gain[j]
            if j < m:
                if star[j]:
                    if here > row[j + 1] or (here == row[j + 1] and matched > row_hits[j + 1]):
                        row[j + 1], row_hits[j + 1], row_gain[j + 1] = here, matched, gained
                    if more and (here > down[j] or (here == down[j] and matched > down_hits[j])):
                        down[j], down_hits[j], down_gain[j] = here, matched, gained
                else:
                    if j in matching:
                        value = here + gained_here
                        if value > down[j + 1] or (
                            value == down[j + 1] and matched + 1 > down_hits[j + 1]
                        ):
                            down[j + 1] = value
                            down_hits[j + 1] = matched + 1
                            down_gain[j + 1] = gained + gained_here
                    if skips:
                        value = here - SKIP
                        if value > row[j + 1] or (
                            value == row[j + 1] and matched > row_hits[j + 1]
                        ):
                            row[j + 1], row_hits[j + 1], row_gain[j + 1] = value, matched, gained
            if more:
                value = here - cost
                if value > down[j] or (value == down[j] and matched > down_hits[j]):
                    down[j], down_hits[j], down_gain[j] = value, matched, gained
    best, best_hits, best_gain = neg, 0, 0.0
    for j in range(m + 1):
        if score[n][j] > best or (score[n][j] == best and hits[n][j] > best_hits):
            best, best_hits, best_gain = score[n][j], hits[n][j], gain[n][j]
    return best, best_hits, best_gain


class _Bounds:
    """Bounds of any alignment of one paste with a template, for each candidate: the
    weight of the paste's words that some word of the template could match (no gain is
    higher), the best score (that weight, less the weight of the other words when the
    template has no placeholder to take them), and how many of the template's words
    some paste word could match (no alignment matches more). Alignments these bounds
    rule out are not made: the answers are the same, sooner. What depends on the paste
    alone is worked out once."""

    def __init__(self, paste: Sequence[str], weight: dict[str, float], free: bool) -> None:
        self.paste = paste
        self.said = set(paste)
        self.weights = [weight.get(word, UNKNOWN) for word in paste]
        self.last = len(paste) - 1
        self.free = free
        # The first paste word may be the end of a template word, the last one its start.
        self.head = paste[0] if len(paste[0]) >= 3 else None
        self.tail = paste[-1] if len(paste[-1]) >= 3 else None

    def of(self, entry: Entry) -> tuple[float, float, int]:
        own, head, tail, last, joined = entry.own, self.head, self.tail, self.last, entry.joined
        # Some template word ends with the head or starts with the tail: a substring test
        # of the words between NULs (a paste word never holds a NUL).
        head_ok = head is not None and head + "\0" in joined
        tail_ok = tail is not None and "\0" + tail in joined
        most = 0.0
        lost = 0.0
        for i, word in enumerate(self.paste):
            if word in own or (i == 0 and head_ok) or (i == last and tail_ok):
                most += self.weights[i]
            elif not (self.free and (i == 0 or i == last)):
                lost += self.weights[i]
        score = most if "*" in own else most - lost  # no placeholder: a word left over costs
        said = self.said
        words = entry.words
        if (head is not None and head_ok and _in_longer(joined, head, words.count(head), True)) or (
            tail is not None and tail_ok and _in_longer(joined, tail, words.count(tail), False)
        ):
            # A word other than the head itself ends with it (or one starts with the tail).
            reachable = sum(
                1
                for word in words
                if word != "*"
                and (
                    word in said
                    or (head is not None and word.endswith(head))
                    or (tail is not None and word.startswith(tail))
                )
            )
        else:  # no word is a paste word's end or start but the paste word itself
            reachable = sum(map(said.__contains__, words))
        return most, score, reachable


def _window(paste: Sequence[str], template: Sequence[str]) -> Sequence[str]:
    """The stretch of ``template`` that fits ALIGN_CELLS, placed where the most of its words
    are words of the paste (the first such place)."""
    width = max(1, ALIGN_CELLS // (len(paste) + 1) - 1)
    if len(template) <= width:
        return template
    said = set(paste)
    hits = [word in said for word in template]
    count = best = sum(hits[:width])
    start = 0
    for end in range(width, len(template)):
        count += hits[end] - hits[end - width]
        if count > best:
            best, start = count, end - width + 1
    return template[start : start + width]


def _cut_matches(pasted: str, joined: str, exact: int, i: int, n: int) -> bool:
    """Whether a template word other than ``pasted`` itself ends with it (the paste's first
    word, ``i == 0``) or starts with it (its last)."""
    return (i == 0 and _in_longer(joined, pasted, exact, True)) or (
        i == n - 1 and _in_longer(joined, pasted, exact, False)
    )


def _in_longer(joined: str, word: str, exact: int, at_end: bool) -> bool:
    """Whether a word other than ``word`` itself ends (``at_end``) or starts with it:
    ``joined`` holds the words between NULs, ``exact`` is how many of them are ``word``.
    Each word ending (starting) with it leaves one ``word + NUL`` (``NUL + word``)."""
    return joined.count(word + "\0" if at_end else "\0" + word) > exact


def _same_word(pasted: str, word: str, first: bool, last: bool) -> bool:
    if pasted == word:
        return True
    if len(pasted) < 3:
        return False
    return (first and word.endswith(pasted)) or (last and word.startswith(pasted))


def lookup(index: Searchable, paste: str, limit: int = 5) -> list[Match]:
    """The best matches for a paste, best first; empty when nothing matches well enough."""
    return find(index, paste, limit)[1]


def find(index: Searchable, paste: str, limit: int = 5) -> tuple[Extracted, list[Match]]:
    """The reading of a paste that matched and its matches: of the first candidate with a
    reading whose whole message matches a record, its most specific such reading (its
    first line alone, not its message with the prose after it that a placeholder took
    in); else the first reading with any match but a template's first line; else the
    first with that; else the first reading and none."""
    raw, skipped = _read_part(paste)
    every = _readings(raw, skipped, len(paste) > PASTE_LIMIT)
    chosen: tuple[Extracted, list[tuple[tuple[float, ...], Match]]] | None = None
    whole: tuple[Extracted, list[tuple[tuple[float, ...], Match]]] | None = None
    weak: tuple[Extracted, list[tuple[tuple[float, ...], Match]]] | None = None
    """The first reading whose best match is a template's first line: chosen last."""
    single = "\n" not in paste.strip(_TRIMMED)
    for extracted in every:
        if whole is not None and extracted.candidate != whole[0].candidate:
            break
        ranked = ranked_matches(index, extracted, first_lines=single)
        if extracted.whole and not (ranked and ranked[0][0][0] == 2):
            continue  # read for a whole message only
        if ranked and ranked[0][0][0] == 2:
            if whole is None or ranked[0][0] > whole[1][0][0]:
                whole = (extracted, ranked)
        elif ranked and chosen is None and not ranked[0][1].first_line:
            chosen = (extracted, ranked)
        elif ranked and weak is None:
            weak = (extracted, ranked)
    best = whole or chosen or weak
    if best is None:
        return every[0], []
    frame = _frame_at(raw, skipped, best[0])
    matches = one_per_message([match for _, match in best[1]], limit, frame)
    if frame is not None:
        matches = [_raised_in(index, best[0], match, frame) for match in matches]
    return best[0], matches


def _raised_in(index: Searchable, extracted: Extracted, match: Match, frame: Frame) -> Match:
    """``match``; or, when the record raised at the ``frame`` says its words but was not
    among the candidates (a message raised in more places than are scored), that
    record's, the index's places name it (of several in the frame's file, the one
    raised nearest its line)."""
    entry = match.entry
    if entry.shared <= 1 + len(match.also) or (
        entry.file == frame.file and frame.line in (None, entry.line)
    ):
        return match  # no record of the message was left out, or raised right there
    placed = index.placed(place_key(entry, frame.file))
    if not placed:
        return match
    number, _ = min(placed, key=lambda held: _distance(held[1], frame.line))
    there = index.entries[number]
    if there.id == entry.id or there.old is not None or same_message(there) != same_message(entry):
        return match
    values = match.values
    if match.exact:
        normalized, where = normalize(extracted.message)
        values = exact_values(there, extracted.message, normalized, where) or values
    also = (entry.id, *(i for i in match.also if i != there.id))
    return Match(there, match.exact, match.score, values, also, match.first_line)


def ranked_matches(
    index: Searchable, extracted: Extracted, first_lines: bool = False
) -> list[tuple[tuple[float, ...], Match]]:
    """Every candidate that matches one reading, with its rank key, best first; with
    ``first_lines`` (a paste of one line), a template's first line too."""
    message = extracted.message
    normalized, where = normalize(message)
    words = tokens(normalized)[:MAX_WORDS]
    looked_up = lookup_words(words)
    weight = weights(index, looked_up)
    free = extracted.exception is None
    cut = cut_short(index, words, looked_up)
    for word, posting in cut.items():
        weight[word] = math.log(1 + len(index.entries) / len(posting))
    known = sum(weight.get(w, 0.0) for w in words)
    # Everything the paste says that a template might explain: known words by weight,
    # other words (not numbers) as UNKNOWN each.
    content = known + UNKNOWN * sum(1 for w in words if w not in weight and not is_digits(w))
    ranked: list[tuple[tuple[float, ...], Match]] = []
    bounds = _Bounds(words, weight, free) if known > 0 else None
    pythons = pythons_own(message)

    def aligned(entry: Entry, same_type: int) -> tuple[tuple[float, ...], Match] | None:
        """The rank key and match of ``entry`` by an alignment of words, if it counts."""
        assert bounds is not None
        literal_words = entry.literal_words
        # No alignment gains more than the weight of the paste's words the template has:
        # when that cannot pass, the alignment need not be made (the same answer, sooner).
        most, best, reachable = bounds.of(entry)
        if round(best / known, 6) < MIN_SCORE or most < MIN_PRECISION * content:
            return None
        if reachable < min(MIN_MATCHED, literal_words, len(words)) or (
            same_type < 0 and reachable / max(1, literal_words) < MIN_COVERAGE_OTHER_TYPE
        ):
            return None
        raw, matched, gained = align(words, entry.words, weight, free)
        score = round(raw / known, 6)
        coverage = matched / max(1, literal_words)
        needed = min(MIN_MATCHED, literal_words, len(words))
        if score < MIN_SCORE or matched < needed or gained < MIN_PRECISION * content:
            return None
        if same_type < 0 and coverage < MIN_COVERAGE_OTHER_TYPE:
            return None
        return (1, score, coverage, same_type, -entry.index), Match(entry, False, score, ())

    for number in candidates(index, looked_up, weight, cut):
        entry = index.entries[number]
        same_type = same_exception(extracted.exception, entry.exception)
        found = whole_match(entry, same_type, message, normalized, where)
        # Python's own message: a record's whole message, or none.
        if found is None and bounds is not None and not pythons:
            found = aligned(entry, same_type)
        if found is None and first_lines and not pythons and not entry.cut:
            found = first_line_match(entry, same_type, message, normalized, where)
        if found is not None:
            ranked.append(found)
    ranked.sort(key=lambda item: item[0], reverse=True)
    return ranked


def whole_match(
    entry: Entry, same_type: int, message: str, normalized: str, where: list[int]
) -> tuple[tuple[float, ...], Match] | None:
    """The rank key and match of ``entry`` when ``message`` is its whole template filled
    in (``normalized`` and ``where`` are ``normalize(message)``), else None."""
    literal = sum(len(lit) for lit in entry.literals)
    if literal < MIN_LITERAL and entry.names:
        return None
    if not (same_type >= 0 or literal >= MIN_LITERAL_SHARE_OTHER_TYPE * len(normalized)):
        return None
    values = exact_values(entry, message, normalized, where)
    if values is None:
        return None
    if pythons_own(message) and not _says_pythons(entry.template):
        return None  # Python's own words, the record's in its placeholders (``PATTERNS``)
    if entry.names and entry.literal_words < FEW_WORDS:
        # "{name} conflicts with {other}" fits many texts: as good as a fair partial
        # match, no better.
        return (1, VAGUE_EXACT, 1.0, same_type, -entry.index), Match(
            entry, True, VAGUE_EXACT, values
        )
    # A fit that left out the closing full stop ranks as if the paste had it, below a
    # template that ends where the paste does.
    stop = int(stop_left_out(entry, normalized))
    specific = round(1.0 + (literal - stop) / max(1, len(normalized) + stop), 6)
    return (2, specific, same_type, -entry.index), Match(entry, True, specific, values)


def first_line_match(
    entry: Entry, same_type: int, message: str, normalized: str, where: list[int]
) -> tuple[tuple[float, ...], Match] | None:
    """The rank key and match of ``entry`` when ``message`` (a paste of one line) is the
    first line of its template filled in, as an issue's title or a log that keeps one
    line carries it (``{kind} '{code}' for url '{url}'`` then a line of advice); None
    when it does not fit. It ranks below every other match: such a line is often mostly
    placeholders, so that no alignment scores it, but ``Could not find {what}`` fits
    "Could not find the checkpoint … in the cache folder" too, whose own template the
    alignment finds. It fills in no values: placeholders that only quotes part (``{kind}
    '{code} {phrase}'``) fit a line more than one way once the quotes are dropped, and
    only a placeholder the whole message says twice tells which is right."""
    line = first_line(entry.template)
    if line is None:
        return None
    found = whole_match(
        make_entry(entry.index, entry.id, entry.exception, entry.repo, line, entry.title),
        same_type,
        message,
        normalized,
        where,
    )
    if found is None:
        return None
    key = (1, MIN_SCORE, 0.0, same_type, -entry.index)  # under any alignment that counts
    return key, Match(entry, False, MIN_SCORE, (), first_line=True)


def first_line(template: str) -> str | None:
    """The first line of a template that runs over several lines (leading blank lines
    skipped), as a template; None for a template of one line."""
    said: list[str] = []
    for part in parse_template(template.lstrip(" \t\r\n\f\v")).parts:
        if part.placeholder:
            said.append("{" + part.text + "}")
            continue
        text, newline, _ = part.text.partition("\n")
        said.append(text.replace("{", "{{").replace("}", "}}"))
        if newline:
            return "".join(said)
    return None


def stop_left_out(entry: Entry, normalized: str) -> bool:
    """Whether the message ``normalized`` fits ``entry`` whole only with its closing
    stop left out (``fit_placeholders``)."""
    return entry.literals[-1].endswith(".") and not normalized.endswith(".")


def exceptions_named(
    paste: str,
    exception: str | None,
    exceptions: Iterable[str],
    modules: Mapping[str, Collection[str]],
) -> list[str]:
    """The exceptions of an index that a paste whose message matches none of its errors
    names, as Python prints them: a search box can offer the list of their errors.

    Either the paste holds nothing but a class's name (``InvalidURL``, ``httpx.InvalidURL:``),
    or its error (``exception``, as search read it) is one Python names with the module
    of code that raises one of the site's exceptions of that name (``modules``):
    ``huggingface_hub.errors.RepositoryNotFoundError: 401 Client Error. (Request ID: …)``,
    whose message may hold what a server sent, on a site of huggingface_hub. Another
    package's class of the same name (``requests.exceptions.HTTPError``), or a class the
    code holds in an attribute (``self.dbapi.OperationalError``), is none of them."""
    name = "" if len(paste) > MAX_NAME_PASTE else paste.strip(BLANK + "\n").removesuffix(":")
    if _CLASS_NAME.fullmatch(name):
        return [e for e in exceptions if same_exception(name, e) > 0]
    error = exception or ""
    if "." not in error or not _CLASS_NAME.fullmatch(error):
        return []
    top = error.partition(".")[0]
    return [
        e
        for e in exceptions
        if same_exception(error, e) > 0
        and not e.startswith(("self.", "cls."))
        and top in modules.get(e, ())
    ]


def exception_modules(entries: Iterable[Entry]) -> dict[str, list[str]]:
    """Each exception → the top modules of the files that raise it (``Entry.package``):
    ``huggingface_hub.errors.RepositoryNotFoundError`` may be the RepositoryNotFoundError
    that huggingface_hub raises, not one another package's code raises."""
    found: dict[str, set[str]] = {}
    for entry in entries:
        if entry.old is None and entry.package:
            found.setdefault(entry.exception, set()).add(entry.package)
    return {name: sorted(modules) for name, modules in sorted(found.items())}


def exception_pages(entries: Iterable[Entry]) -> dict[str, str]:
    """Exception → the page, in the site, that lists its errors (``exceptions/<name>/``),
    or for one only one record raises, that error's page (a site lists no one error)."""
    from errdex.urls import exception_url, page_url

    ids: dict[str, list[str]] = {}
    for entry in entries:
        if entry.old is None:
            ids.setdefault(entry.exception, []).append(entry.id)
    return {
        name: page_url(found[0]) if len(found) == 1 else exception_url(name)
        for name, found in sorted(ids.items())
    }


_TRIMMED = (
    "\t\n\v\f\r \xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + ("\u2028\u2029\u202f\u205f\u3000\ufeff")
)
"""What the page's script's ``trim`` takes off a paste's ends (``find``'s one-line test)."""
MAX_NAME_PASTE = 1_000
"""A paste longer than this is no class's name (``exceptions_named``)."""
_CLASS_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
"""A class's name, dotted: what ``exceptions_named`` takes for a name alone."""


def same_exception(named: str | None, exception: str) -> int:
    if not named:
        return 0
    return 1 if printed_name(named) == printed_name(exception) else -1


def printed_name(exception: str) -> str:
    """The name Python prints for an exception class as code names it: its last part, and
    ``OSError`` for the old names that are that class (``raise EnvironmentError(…)``
    prints ``OSError: …``)."""
    name = exception.rsplit(".", 1)[-1]
    return PRINTED_AS.get(name, name)


def same_class(one: str, other: str) -> bool:
    """Whether two names of exception classes may name one class: the same name, or the
    same printed name (``OSError`` for ``EnvironmentError``) where one of them is bare
    (a traceback's ``yaml.parser.ParserError``, the code's ``ParserError``)."""
    if one == other:
        return True
    if "." in one and "." in other:
        # ``pkg.errors.ConfigError`` is the ``errors.ConfigError`` its package raises;
        # requests.exceptions.HTTPError is no urllib.error.HTTPError.
        return one.endswith("." + other) or other.endswith("." + one)
    return printed_name(one) == printed_name(other)


MAX_FRAME_GAP = 8
"""Lines between a traceback's last frame and its error line, at most: the code it ran,
carets, a ``raise`` spread over lines."""
MAX_LISTING = 40
"""Lines of IPython's numbered listing of that code, at most, passed over without
counting against the gap (it shows a ``raise`` spread over lines whole, and lines
around it)."""
FRAMES = tuple(re.compile(pattern) for pattern in PATTERNS["frames"])
_FRAME_STOP = re.compile(PATTERNS["frame_stop"])
_CUT_FRAME = re.compile(PATTERNS["cut_frame"])
_LISTING = re.compile(PATTERNS["listing"])
_BLANK = re.compile(r"[ \t]*$")
"""A blank line, as both this and the page's script read one (``str.strip`` and
JavaScript's ``trim`` take other characters too)."""
ERROR_LINE = re.compile(PATTERNS["error_line"])
_PYTEST_PLACE = re.compile(PATTERNS["pytest_place"])
_PYTEST_ERROR = re.compile(PATTERNS["pytest_error"])


class Frame(NamedTuple):
    """Where a traceback says its error was raised: the file's name and the function's,
    when it shows one."""

    file: str
    named: str | None
    """The function as the frame names it: ``load``, ``CacheConfig._verify_args``
    (IPython), ``pydantic.main.BaseModel.__init__`` (Cython)."""
    folders: tuple[str, ...] = ()
    """The folders of the file's path as pasted (``site-packages``, ``diffusers``)."""
    line: int | None = None
    """Its line, when it shows one."""
    compiled: bool = False
    """Whether the code it shows calls compiled code that raised the error (triage's
    ``reports._called_compiled``)."""

    @property
    def function(self) -> str | None:
        """The function's own name (``_verify_args``), as code names it."""
        return self.named.rsplit(".", 1)[-1] if self.named else None


_LINE_AFTER = re.compile(r'",?\s+line\s+([0-9]{1,9})(?![0-9])|:([0-9]{1,9})(?![0-9])')
"""A frame's line, right after its path: ``", line 188`` or ``:188``; in ASCII digits,
nine at most, as the page's script reads it (a longer one is no line a file has)."""


def _distance(line: int, wanted: int | None) -> int:
    """How far a record's ``line`` is from the frame's (0 for all when it shows none)."""
    return abs(line - wanted) if wanted is not None else 0


def raised_at(paste: str, extracted: Extracted) -> Frame | None:
    """Where ``paste`` says the error ``extracted`` was raised: the last frame above it,
    as the part of the paste read shows it (as the browser, which reads no more)."""
    return _frame_at(*_read_part(paste), extracted)


def _frame_at(lines: Sequence[str], skipped: int, extracted: Extracted) -> Frame | None:
    """``raised_at``, given the lines ``_read_part`` gives."""
    line = extracted.line
    return raising_frame(lines, None if line is None else line - skipped)


def raising_frame(lines: Sequence[str], line: int | None) -> Frame | None:
    """The last frame of the traceback that ends in the error read at ``line`` (from 0):
    the file (``modeling_utils.py``) and function whose code raised it. None when no
    frame stands in the few lines above it (or, in pytest's report, its place under it)."""
    if line is None:
        return None
    above = _frame_above(lines, line)
    if above is not None or line >= len(lines) or not _PYTEST_ERROR.match(lines[line]):
        return above
    # pytest's long report: its error's "E" lines, a blank, and the place. (Only when no
    # frame stands right above: a traceback inside the "E" lines, a task group's or a
    # worker's, names the place, and the one under it is where it was raised again.)
    for text in lines[line + 1 : line + 1 + MAX_FRAME_GAP]:
        if found := _PYTEST_PLACE.search(text):
            return _frame(found, None)
        if text.strip() and not _PYTEST_ERROR.match(text):
            break
    return None


def _frame_above(lines: Sequence[str], line: int) -> Frame | None:
    """The frame within MAX_FRAME_GAP lines above the error line, when the look back
    meets no stop first. IPython's listing of the frame's code right above the error
    (and the blank line it prints under it) is passed over whole, and the line its arrow
    marks is the frame's when the frame shows none (IPython before 8, Colab)."""
    start, arrow = _past_listing(lines, line - 1)
    for number in range(start, max(-1, start - MAX_FRAME_GAP), -1):
        # A frame line a terminal's width cut in its path is read with the line under it.
        head = number - 1 if number > 0 and _CUT_FRAME.search(lines[number - 1]) else number
        text = "".join(lines[head : number + 1])
        if _FRAME_STOP.search(text) or ERROR_LINE.match(text):
            return None  # that frame is another error's (pydantic's, above its inner one)
        for pattern in FRAMES:
            found = pattern.search(text)
            if found and _script_top(lines, head, number, found.group(1), found.group(2)):
                return None  # the paste may have left out the frames below it
            if found:
                frame = frame_of(found)
                return (
                    frame._replace(line=arrow)
                    if arrow is not None and frame.line is None
                    else frame
                )
    return None


def cell_frame(lines: Sequence[str], line: int) -> Frame | None:
    """The frame of a function typed in a notebook's cell, when it is the last frame above
    the error read at ``line`` (``Cell In[12], line 1, in <lambda>(v)``): code typed there
    raised the error, since a function it calls raises under a frame of its own below
    it. None for the cell's own top (``Cell In[3], line 1``, ``in <module>``, ``in <cell
    line: 1>()``): a paste often keeps only that frame of a longer traceback."""
    # Only its listing (and the blank line under it) may stand between it and the error:
    # any other line may be a frame this reads none of, or a cut ("<snip>").
    start, arrow = _past_listing(lines, line - 1)
    cell = _CELL_FRAME.match(lines[start]) if arrow is not None and start >= 0 else None
    if cell is None:
        return None
    function = cell.group(1)
    top = function == "<module>" or function.startswith("<cell")
    return None if top else Frame("<cell>", function)


_CELL_FRAME = re.compile(
    r"[ \t]*(?:(?:Cell|Input) In ?\[[^\]\n]*\](?:, line [0-9]+)?|\[?<ipython-input-[^>\n]*>\]?"
    r"(?:\([^()\n]*\))?),?[ \t]+in[ \t]+([^\s(]+)"
)
"""A frame in a notebook's cell that names its function, as IPython 8 (``Cell In[12],
line 1, in f(x)``), 8.0 to 8.4 (``Input In [3], in f(x)``) and older IPython
(``<ipython-input-3-…> in f(x)``) print it. Group 1 the function."""


def _past_listing(lines: Sequence[str], start: int) -> tuple[int, int | None]:
    """Where the look back from line ``start`` goes on when IPython's listing of a
    frame's code ends there (or a blank line under it does): the line above it, and the
    line the listing's arrow marks. ``start`` and None when no listing with an arrow
    ends there: numbered lines alone are no listing."""
    at = start - 1 if 0 < start < len(lines) and _BLANK.match(lines[start]) else start
    top, arrow = at, None
    while 0 <= top < len(lines) and at - top < MAX_LISTING:
        listed = _LISTING.match(lines[top])
        if listed is None:
            break
        arrow = arrow or listed.group(1)
        top -= 1
    return (top, int(arrow)) if arrow is not None else (start, None)


def frame_of(found: re.Match[str]) -> Frame:
    """The file, function and line a match of ``FRAMES`` names."""
    return _frame(found, found.group(2))


def _frame(found: re.Match[str], function: str | None) -> Frame:
    """The frame whose path is ``found``'s first group."""
    *folders, file = re.split(r"[\\/]", found.group(1))
    at = _LINE_AFTER.match(found.string, found.end(1))
    line = int(at.group(1) or at.group(2)) if at else None
    # Cython's function names are qualified: pydantic.main.ModelMetaclass.__new__
    return Frame(file, function, tuple(folders), line)


def _script_top(
    lines: Sequence[str], head: int, number: int, file: str, function: str | None
) -> bool:
    """Whether a frame (on lines ``head`` to ``number``: two where a terminal wrapped it)
    is a script's top and the first of its traceback: ``File "/usr/bin/serve", line 8, in
    <module>`` right under ``Traceback (most recent call last):``. With nothing under it,
    the paste most likely left out the frames below (code typed at the prompt,
    ``<stdin>``, raised there; a module's top further down a traceback raised while it
    was imported)."""
    if function != "<module>" or file.startswith("<") or head == 0:
        return False
    if "Traceback (most recent call last)" not in lines[head - 1]:  # behind any log tag
        return False
    # Python 3.11's carets under the frame's code mark what raised: a name, an attribute
    # or an item (``axs[i]``), not a call, raised right there, with no frame below it.
    # (Python indents the code; a paste that lost it shows nothing under what.)
    code, marks = [*lines[number + 1 : number + 3], "", ""][:2]
    start = len(marks) - len(marks.lstrip(" \t"))
    indent = len(code) - len(code.lstrip(" \t"))
    if not carets(marks) or not 0 < indent <= start:
        return True
    return "(" in code[start : len(marks.rstrip(" \t"))]


def carets(line: str) -> bool:
    """Whether ``line`` is one of Python 3.11's lines of carets under a frame's code
    (``~~~^^^``): ``~`` and ``^``, one ``^`` at least, between blanks."""
    return _CARETS.fullmatch(line) is not None and "^" in line


_CARETS = re.compile(r"[ \t]*[~^]+[ \t]*")


def paste_lines(paste: str) -> list[str]:
    """A paste's lines, whatever its line breaks: what ``Extracted.line`` counts."""
    return paste.replace("\r\n", "\n").replace("\r", "\n").split("\n")


PRINTED_AS = {"EnvironmentError": "OSError", "IOError": "OSError", "WindowsError": "OSError"}
"""Python's other names of a class, and the name a traceback prints for it."""


def same_message(entry: Entry) -> tuple[str, ...]:
    """What a reader sees of a template: its exception as Python prints it and its literal
    text. Templates that differ only in placeholder names (``{tp}`` here, ``{self.tp}``
    there), or in how the code spells the class (``NetworkXError`` where a module imports
    it, ``nx.NetworkXError`` elsewhere), are one message raised at several places."""
    return (printed_name(entry.exception), *entry.literals)


def one_per_message(matches: list[Match], limit: int, frame: Frame | None = None) -> list[Match]:
    """One result per message; the records raising it elsewhere go in ``also``. Of those,
    the one raised in the file a paste's traceback names (``frame``), nearest its line,
    comes first."""
    groups: dict[tuple[str, ...], list[Match]] = {}
    seen: set[str] = set()
    for match in matches:
        if match.entry.id in seen:
            continue  # a record matched by its wording now and an earlier one: the best
        seen.add(match.entry.id)
        groups.setdefault(same_message(match.entry), []).append(match)
    out = []
    for group in groups.values():
        there = None
        if frame is not None:
            in_file = [m for m in group if m.entry.file == frame.file]
            there = min(in_file, key=lambda m: _distance(m.entry.line, frame.line), default=None)
        if there is not None:
            group = [there, *(m for m in group if m is not there)]
        first = group[0]
        out.append(
            Match(
                first.entry,
                first.exact,
                first.score,
                first.values,
                tuple(m.entry.id for m in group[1:]),
                first.first_line,
            )
        )
    return out[:limit]
