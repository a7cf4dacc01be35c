"""Which records a report explains: the errors an issue body pastes, matched with care.

``lookup`` answers a person who pasted one error and reads the answers; here nobody reads
them first. A bot posts them on a GitHub issue, or an import files the issue under a
record, so a wrong answer costs more than none: ``found_in`` reads every error a body
pastes (each traceback, each line naming an error anywhere in the text, each pydantic
line and error body, as ``search.readings`` finds them), keeps for each the best match
that passes ``Rules``, and stays silent otherwise. A wrapper (``Engine core
initialization failed. See root cause above.``) is named only when no other error of the
body matches: the cause is the answer. A line naming an exception may hold only the
start of a message (a title cut at its length, a first sentence quoted alone): that
names the record when it starts no other message as well (``start_of``). Quiet prose (a
feature request naming no exception) matches only when a whole message of a record is
there, word for word. When the traceback shows the frame that raised an error, the
record must be raised in that file and function (``Fits``): the same words raised by
another project's code are its message, not the record's.
"""

from __future__ import annotations

import ast
import builtins
import functools
import itertools
import re
import sys
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from errdex import search
from errdex.records.model import module_of, parse_template
from errdex.search import (
    ERROR_LINE,
    FRAMES,
    Frame,
    frame_of,
    paste_lines,
    raising_frame,
)
from errdex.search.sources import Page, Source, Unavailable, confidence, earlier_wording


@dataclass(frozen=True, slots=True)
class Rules:
    """What a match must have for a report to name it. The defaults favour silence: on
    the benchmark corpus no foreign error and no prose passes them (see docs/lookup-and-triage.md,
    "Triage of GitHub issues")."""

    min_confidence: float = 0.9
    """``sources.confidence`` of the match: 0.9 and up only for a whole message matching
    its template; partial matches score at most 0.85."""
    min_own_text: int = 16
    """Letters and digits of the template's own words (its text outside placeholders)
    that the pasted message must hold: ``{name} is not {what}`` has 5, too few to tell
    one error from another."""
    limit: int = 3
    """Records reported at most."""
    exception_must_agree: bool = True
    """When the paste names an exception type, the record's must be the same (by its
    last dotted part: ``openai.BadRequestError`` is ``BadRequestError``)."""


@dataclass(frozen=True, slots=True)
class Found:
    """A record a report pastes the error of, and what the paste says of it."""

    id: str
    url: str
    title: str
    exception: str
    message: str
    """The template the paste matched (an earlier wording's, when ``wording`` is set)."""
    score: float
    confidence: float
    values: tuple[tuple[str, str], ...]
    """Placeholder name → the value in the paste (a whole-message match only)."""
    line: int | None
    """The line of the body (from 1) the error was read from; None for the whole body or
    the title."""
    line_text: str | None
    """That line, without log prefixes."""
    wording: dict[str, str] | None
    """For a match on an earlier wording: ``until``, ``since`` and ``now``, as in
    ``lookup --json``."""
    releases: tuple[str, ...] = ()
    """The releases that raise the record, oldest first, when its document lists them."""
    elsewhere: int = 0
    """How many other records say the same words, when nothing in the paste tells which
    one raised it (no frame in the record's file): the page named may be another's."""
    also: tuple[tuple[str, str], ...] = ()
    """The first ``ALSO_SHOWN`` of those: where each is raised (its file, and its
    function where the record names one) and its page's address."""
    called: str = ""
    """The named record's function (its own name) when the paste shows no frame, and its
    text calls that function and names no other of theirs (``nx.is_connected(H)``): that
    chose it (``_called_first``)."""


def found_in(source: Source, body: str, rules: Rules = Rules(), title: str = "") -> list[Found]:
    """Every error the body (or the title) pastes that an index record explains, best
    first, at most rules.limit, one per record, none for a piece of an error already
    answered."""
    best: dict[str, tuple[tuple[bool, float, float, int], Found, str, bool]] = {}
    index = source.index
    # Only whole messages can pass: every record that may be one is checked, sooner.
    wholes = _wholes(index) if rules.min_confidence > PARTIAL_MOST else None
    least = rules.min_own_text // 2  # the fewest own words a record takes (``Fits``)
    # Words quoted in a sentence name a record only as its whole message: prose quotes
    # a few words of an error in passing ("I used to see "… must be set" but now …").
    in_passing = in_prose(body, least)
    whole_only = {reading for reading in in_passing if reading.exception is None}
    every = _readings(body, title, least, in_passing, named(body, index.exception_pages))
    lines = paste_lines(body)
    # The title's error is the body's when the body pastes the same message: raised
    # where the body's frames say. Each line's frames are read once.
    said_at = {
        search.normalized_text(reading.message): reading.line
        for reading in reversed(every)
        if reading.line is not None
    }
    frames_at = functools.cache(lambda line: raising_frames(lines, line))
    try:
        # The errors a body pastes, then, only when none of them matches, the wrappers
        # ("See root cause above"): a wrapper names no cause.
        for wrappers in (False, True):
            for order, reading in enumerate(every):
                if reading.wrapper != wrappers or _letters(reading.message) < least:
                    continue  # a heading such as "Environment" holds too little to be named
                line = reading.line
                if line is None:
                    line = said_at.get(search.normalized_text(reading.message))
                frames = frames_at(line)
                fits = Fits(source, reading, rules, frames)
                chosen = _best(index, wholes, reading, rules, fits)
                if chosen is None:
                    continue
                match, start = chosen
                placed = fits.shown(match)
                if start and (
                    reading in whole_only or _goes_on_otherwise(match.entry, reading, lines)
                ):
                    continue
                called = ""
                if not frames:
                    match, called = _called_first(source, match, f"{title}\n{body}", reading)
                # The reading's best match: a record kept out of triage silences the
                # reading rather than let a worse guess through.
                found = _found(source, reading, match, placed, called)
                if found is not None:
                    # A record pasted whole somewhere is read there, before its start.
                    key = (start, -found.confidence, -found.score, order)
                    if found.id not in best or key < best[found.id][0]:
                        said = search.normalized_text(reading.message)
                        best[found.id] = (key, found, said, bool(frames))
            if best:
                break
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise Unavailable(f"{source.where}: the search index is damaged ({exc!r})") from None
    kept = sorted(best.values(), key=lambda item: item[0])
    # A reading that is a piece of another answered one names no error of its own: a
    # message ending in a placeholder fits the first sentence of a longer one, and an
    # error's message may quote the one it was raised from. One under frames of its own
    # is a traceback's error, pasted whole (the cause, before the error that quotes it).
    saids = [said for _, _, said, _ in kept]
    out = [
        found
        for _, found, said, framed in kept
        if framed or not any(said != other and said in other for other in saids)
    ]
    return out[: rules.limit]


def _best(
    index: search.Searchable,
    wholes: Wholes | None,
    reading: search.Extracted,
    rules: Rules,
    fits: Fits,
) -> tuple[search.Match, bool] | None:
    """The reading's best match that passes the rules (``_passes``, then ``fits``: the
    rules that read the record's page), and whether the reading is only the start of its
    message; None when no match passes, or when the best is a start that another
    message's start fits alike."""
    ranked = search.ranked_matches(index, reading) if wholes is None else wholes.ranked(reading)
    # A paste that is some record's whole message is the start of another's only when
    # that one's own words explain more of it.
    whole = max((key for key, match in ranked if match.exact), default=())
    maybe = None if wholes is None else wholes.starting(reading)
    starts = [item for item in _starts(index, reading, maybe) if item[0] > whole]
    # Of records that match alike (a key's last item is the record's number), the one
    # whose message the paste spells out first: search drops quotes and blanks.
    ranked = sorted(
        [*ranked, *starts],
        key=lambda item: (
            item[0][:-1],
            _spelled(item[1].entry.template, reading.message),
            item[0][-1],
        ),
        reverse=True,
    )
    cut = {match.entry.id for _, match in starts}
    grouped = search.one_per_message(_fitting_first([m for _, m in ranked], fits), len(ranked))
    passing = [m for m in map(fits.sure, grouped) if _passes(reading, m, rules) and fits(m)]
    if not passing:
        return None
    best = passing[0]
    if best.entry.id in cut and any(
        other.score == best.score and other.entry.id != best.entry.id and fits.where(other)
        for other in grouped
    ):
        # A piece that starts two messages alike names neither, even when the other's own
        # words are too few to be named: ``Directory /data/ca`` starts ``Directory {p}
        # not found`` as much as ``Directory {p} is neither …``; unless the traceback
        # says where it was raised.
        return None
    if (
        best.entry.id not in cut
        and reading.exception is None
        and best.values
        and best.entry.literals[-1] == "."
        and search.stop_left_out(best.entry, search.normalized_text(reading.message))
    ):
        # A title or a bare line that ends in a message's last value, its closing stop
        # left out, may as well be cut short there: it names the record only when that
        # value cannot have taken in the prose after it (it holds no blank) and the
        # words before it start no other message. (From an error's line, the starts of
        # longer messages rank above such a fit: ``search.whole_match``.)
        last = best.values[-1][1]
        if _blank(last):
            return None
        before = reading.message[: reading.message.rstrip().rfind(last)]
        if _starts_another(index, reading, best.entry, before):
            return None
    if best.values and _ELIDED.match(best.values[-1][1]):
        # "… at ....." leaves out what may be the rest of a longer message: the words
        # before it must start no other.
        before = reading.message[: reading.message.rstrip().rfind(best.values[-1][1])]
        if _starts_another(index, reading, best.entry, before):
            return None
    return best, best.entry.id in cut


def _starts_another(
    index: search.Searchable, reading: search.Extracted, entry: search.Entry, words: str
) -> bool:
    """Whether ``words``, a reading's up to where it may have been cut, start a message
    other than ``entry``'s."""
    alike = search.same_message(entry)
    others = _starts(index, replace(reading, message=words.rstrip()))
    return any(search.same_message(m.entry) != alike for _, m in others)


def _goes_on_otherwise(entry: search.Entry, reading: search.Extracted, lines: list[str]) -> bool:
    """Whether a line that starts the message, stopping inside one of the message's
    sentences, goes on in the next line of the paste with other words than the
    message's: ``… values that mismatch`` then ``TrainingArguments values:`` is not
    ``… values that mismatch kwargs values:`` cut short, but another project's message.
    A message without its last stop, a sentence or a first line pasted whole
    (``first_line_of``) may be followed by anything."""
    if reading.line is None or reading.line + 1 >= len(lines):
        return False
    if reading.message.rstrip()[-1:] in (".", "!", "?", ":"):
        return False
    normalized = _normalize(reading.message)[0]
    placed = start_of(entry.literals, normalized)
    if placed is None or first_line_of(entry.template, normalized) is not None:
        return False
    expected = re.match(r"\s*(\w+)", placed[2])
    next_line = search.strip_prefixes(lines[reading.line + 1]).text
    if _NOT_PROSE.match(next_line) or any(p.search(next_line) for p in FRAMES):
        return False  # a traceback, a fence or a list after it says nothing of its words
    following = re.match(r"\s*([A-Za-z]\w*)", next_line)
    return bool(expected and following and expected.group(1) != following.group(1))


def _fitting_first(matches: list[search.Match], fits: Fits) -> list[search.Match]:
    """The matches with, of records that say the same, the one raised where the paste's
    traceback says first (nearest its line), and one that fits the paste before one that
    does not (a lazy module's unquoted words and a migration's quoted ones):
    ``one_per_message`` keeps the first of each message."""
    groups: dict[tuple[str, ...], list[search.Match]] = {}
    for match in matches:
        groups.setdefault(search.same_message(match.entry), []).append(match)
    out = []
    for group in groups.values():
        if len(group) > 1:
            if fits.frames:
                # In the file a frame names, the one nearest its line, as lookup chooses.
                group.sort(key=lambda match: (not fits.shown(match), fits.distance(match)))
            if not fits(group[0]):
                fitting = next((m for m in group[1:] if fits(m)), None)
                if fitting is not None:
                    group.remove(fitting)
                    group.insert(0, fitting)
        out += group
    return out


_ELIDED = re.compile(r"^(?:\.{3,}|…)")
"""A value that starts by saying something was left out: ``...``, ``.....``, ``…``."""


PARTIAL_MOST = 0.85
"""The highest confidence a match of less than a whole message gets (sources.confidence)."""


class Wholes:
    """Every record whose whole message a reading may be, for an index held in memory.

    A whole message holds each word of its template's own text, so each record is filed
    under one of them: the rarest word that no value can run into (not next to a
    placeholder without a space or a stop between). A reading then checks the records
    filed under its words, and the few with no such word, against its whole message
    (``search.whole_match``), in place of ranking the best candidates of the index by
    their words and aligning them: the whole matches come out the same, or more when a
    whole match was not among those candidates.
    """

    def __init__(self, index: search.Index) -> None:
        self.index = index
        self.filed: dict[str, list[int]] = {}
        """Word → the records filed under it."""
        self.loose: list[int] = []
        self.opening: dict[str, list[int]] = {}
        """The first word of a message that starts with its own text → the records: a
        start of it starts with that word (or holds too little of it to be named)."""
        self.first: dict[str, list[int]] = {}
        """For a message that starts with a value, the first word of its own text that
        no value runs into → the records: a start of it long enough holds that word."""
        for number, entry in enumerate(index.entries):
            fixed = _fixed_words(entry)
            opening = search.tokens(entry.literals[0])[:1]
            if opening:
                self.opening.setdefault(opening[0], []).append(number)
            elif fixed:
                self.first.setdefault(fixed[0], []).append(number)
            if entry.cut:
                continue  # never a whole message: search has not read all of it
            anchors = [w for w in fixed if w in index.postings]
            if anchors:
                word = min(anchors, key=lambda w: (len(index.postings[w]), w))
                self.filed.setdefault(word, []).append(number)
            else:
                self.loose.append(number)

    def starting(self, reading: search.Extracted) -> list[int]:
        """The records whose message the reading may be the start of."""
        words = search.tokens(_normalize(reading.message)[0])
        found = {n for w in set(words) for n in self.first.get(w, ())}
        return sorted(found.union(self.opening.get(words[0], ()) if words else ()))

    def ranked(self, reading: search.Extracted) -> list[tuple[tuple[float, ...], search.Match]]:
        """The reading's whole matches with their rank keys, best first (as ``ranked_matches``)."""
        message = reading.message
        normalized, where = _normalize(message)
        filed = {n for w in set(search.tokens(normalized)) for n in self.filed.get(w, ())}
        ranked = []
        for number in sorted(filed.union(self.loose)):
            entry = self.index.entries[number]
            same = search.same_exception(reading.exception, entry.exception)
            found = search.whole_match(entry, same, message, normalized, where)
            if found is not None:
                ranked.append(found)
        ranked.sort(key=lambda item: item[0], reverse=True)
        return ranked


def _starts(
    index: search.Searchable, reading: search.Extracted, numbers: list[int] | None = None
) -> list[tuple[tuple[float, ...], search.Match]]:
    """The records whose message the reading is the start of, cut short, each as a whole
    match ranked below a whole message that says as much: of ``numbers``, or of the
    reading's best candidates.

    A paste often holds only the start of a message: a title cut at its length, an
    excerpt or a log line that ends in the middle of a word, a message's first line or
    sentence quoted alone, its final stop left out. Such a paste names the record as
    surely as its whole message would. The rules (``Rules``) ask it for the same own
    text; a reading that names no exception (a title, a bare line) must end in the
    message's own words, not in a value that would take in the prose after it.
    """
    message = reading.message
    normalized, where = _normalize(message)
    if search.pythons_own(message):
        return []  # Python's own message is a record's whole message or none (``search``)
    if numbers is None:  # the best candidates by their words (``Wholes.starting`` has all)
        words = search.tokens(normalized)[: search.MAX_WORDS]
        looked_up = search.lookup_words(words)
        weight = search.weights(index, looked_up)
        cut = search.cut_short(index, words, looked_up)
        numbers = search.candidates(index, looked_up, weight, cut)
    out: list[tuple[tuple[float, ...], search.Match]] = []
    for number in numbers:
        entry = index.entries[number]
        placed = None
        if reading.exception is not None:  # the first line whole, then an older wording
            placed = first_line_of(entry.template, normalized)
        if placed is None:
            placed = start_of(entry.literals, normalized)
        same = search.same_exception(reading.exception, entry.exception)
        if placed is None or same < 0:
            continue
        spans, literal, rest = placed
        if reading.exception is None and (
            (spans and spans[-1][1] == len(normalized))
            or _WORD.match(normalized[-1:] + rest)
            or (
                not rest
                and (reading.line is None or any(_blank(normalized[a:b]) for a, b in spans))
            )
        ):
            # The text ends in a value (prose may go on in it) or a word's middle; or it is
            # the whole message, then sentences: of a title, which may be a longer message
            # cut at its length, or with a value of words that may be the reporter's own
            # (``Unknown strategy in the docs. Which one…``).
            continue
        named = list(zip(entry.names, spans, strict=False))
        said: dict[str, str] = {}
        if any(said.setdefault(name, normalized[a:b]) != normalized[a:b] for name, (a, b) in named):
            continue  # one placeholder, two values: ``{cls} … `{cls}.load``` is one class
        values = tuple(
            (name, message[where[a] : where[b - 1] + 1].strip(search.BLANK + "\n") if b > a else "")
            for name, (a, b) in named
        )
        specific = round(1.0 + literal / max(1, len(normalized)) - CUT_BEHIND, 6)
        match = search.Match(entry, True, specific, values)
        out.append(((2, specific, same, -entry.index), match))
    return out


def first_line_of(template: str, text: str) -> tuple[list[tuple[int, int]], int, str] | None:
    """As ``start_of``, when ``text`` (normalized) holds the whole first line of a
    message of several lines and then goes on otherwise: a message's later lines (its
    advice) are reworded from one release to the next, its first line says what went
    wrong. Only for a first line of 16 letters of its own or more."""
    found = _first_line(template)
    if found is None:
        return None
    pattern, own = found
    match = pattern.match(text)
    if match is None:
        return None
    return [match.span(n) for n in range(1, (pattern.groups or 0) + 1)], own, ""


def _first_line(template: str) -> tuple[re.Pattern[str], int] | None:
    """A pattern for a template's first line, its placeholders any words, and what
    follows it (a blank, then more); and how many letters of its own it has."""
    first, newline, rest = template.strip().partition("\n")
    if not newline or not rest.strip():
        return None
    pattern, own = "", 0
    for part in parse_template(first).parts:
        if part.placeholder:
            pattern += "(.+?)"
            continue
        literal = search.normalized_text(part.text, lead=True, trail=True)
        own += sum(char.isalnum() for char in literal)
        pattern += re.escape(literal)
    if own < _FIRST_LINE_OWN:
        return None
    return re.compile(pattern.rstrip() + r" (?=\S)"), own


_FIRST_LINE_OWN = Rules().min_own_text
"""Letters of its own a first line needs to name its record alone: the rules' own text."""


def _says_next(value: str, literal: str) -> bool:
    """Whether a value says the first two words of the literal after it (6 letters or
    more) but not the whole literal: the paste went on with the message's own words, then
    otherwise, which a message cut short does not."""
    words = re.findall(r"\w+", literal)[:2]
    if len(words) < 2 or len("".join(words)) < _NEXT_LETTERS or literal in value:
        return False
    pattern = rf"(?<!\w){re.escape(words[0])}\W+{re.escape(words[1])}(?!\w)"
    return re.search(pattern, value) is not None


_NEXT_LETTERS = 6
CUT_BEHIND = 1e-6
"""How far a message cut short ranks below a whole message that says as much (another
record's message may be the very words that start this one)."""
_SENTENCE_END = re.compile(r"[.!?] ")
_WORDS_ONLY = re.compile(r"[a-z]+(?: [a-z]+)+")
_PROSE_VALUE = re.compile(
    r"(?:or|and|nor|of|to|for|in|on|at|by|with|from|but|than) [^\n]*|[a-z]+(?: [a-z]+){2,}"
)
_WORD = re.compile(r"\w\w")


def start_of(literals: Sequence[str], text: str) -> tuple[list[tuple[int, int]], int, str] | None:
    """Where the placeholders' values sit when ``text`` (normalized) is the start of the
    template of ``literals`` filled in, stopping short of its end, how many of its
    characters are the template's own, and the rest of the literal it stops in; None
    when it is not.

    Each literal goes at its leftmost place after the one before, as for a whole message
    (``search.fit_placeholders``). The text ends inside a literal or a value; the value the cut
    falls in or after ends no sentence: ``Can't load {x}. If you …`` does not start
    ``Can't load x. Make sure …`` nor ``Can't load x.``, older wordings; nor does it say
    the next literal's first words, going on otherwise after them. Or the text is
    the whole message, ending a sentence, and then sentences of its own (the rest "").
    """
    if not (text.startswith(literals[0]) or literals[0].startswith(text)):
        return None  # most records: the text does not start as the message does
    spans: list[tuple[int, int]] = []
    position = literal = 0
    for number, part in enumerate(literals):
        last = number == len(literals) - 1
        if number == 0 and text.startswith(part) and not last:
            position = literal = len(part)
            continue
        if last and _SENTENCE_END.match(part[-1:] + " "):
            # The whole message, then sentences of the paste's own: "… `@model_validator`.
            # For further information visit …", "… in class `Secret`. How do I fix it?"
            more = text.find(part + " ", position)
            if more >= 0 and (number or more == 0):
                spans.append((position, more))
                return spans, literal + len(part), ""
        found = -1 if last or number == 0 else text.find(part, position)
        if found >= 0:
            spans.append((position, found))
            position = found + len(part)
            literal += len(part)
            continue
        # The cut: in the value before this literal, or in the literal (its start ends the
        # text, not all of it).
        earliest = max(position, len(text) - len(part) + 1)
        ends = range(earliest, len(text) + 1) if number else range(earliest, 1)
        end = next((k for k in ends if part.startswith(text[k:])), -1)
        if end < 0 or _SENTENCE_END.search(text[position:end] + " "):
            return None
        if number and _says_next(text[position:end], part):
            # The value goes on with this literal's own first words, and then not as the
            # literal does: ``… or `pip install accelerate -U``` is an older wording of
            # ``… or `pip install 'accelerate>={version}'``, not a cut.
            return None
        if number:
            spans.append((position, end))
        return spans, literal + len(text) - end, part[len(text) - end :]
    return None


def _fixed_words(entry: search.Entry) -> list[str]:
    """The words of a template's own text that are whole words of any message it makes:
    not at a literal's edge where a placeholder's value could run into them."""
    out: list[str] = []
    last = len(entry.literals) - 1
    for position, literal in enumerate(entry.literals):
        words = search.tokens(literal)
        if not words:
            continue
        open_start = position > 0 and bool(search.tokens(literal[:1]))
        open_end = position < last and bool(search.tokens(literal[-1:]))
        keep = words[1 if open_start else 0 : len(words) - 1 if open_end else len(words)]
        out += [w for w in keep if not search.is_digits(w)]
    return out


_WHOLES: list[Wholes] = []
"""The ``Wholes`` of the last index asked for (an import asks of one index)."""


def _wholes(index: search.Searchable) -> Wholes | None:
    """The ``Wholes`` of an index held in memory, made once; None for one read from a
    site's files (it would have to read every word shard)."""
    if not isinstance(index, search.Index):
        return None
    if not _WHOLES or _WHOLES[0].index is not index:
        _WHOLES[:] = [Wholes(index)]
    return _WHOLES[0]


MAX_FENCES = 10
"""Fenced blocks of a body read on their own, at most (the first ones)."""
MAX_HEADINGS = 10
"""Markdown headings of a body read on their own, at most (the first ones)."""
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")


def _readings(
    body: str,
    title: str = "",
    least: int = 1,
    prose: Sequence[search.Extracted] = (),
    site_named: Sequence[search.Extracted] = (),
) -> list[search.Extracted]:
    """The readings of the whole body, then those of each fenced block and each heading
    read on its own, then those of the title (at no line): a bare message in a fence amid
    the prose of an issue template is a whole message there, and so is a heading's or a
    title's that names no exception. Lines are the body's (from 0). A block with fewer
    than ``least`` letters and digits is not read (``Environment``). ``prose`` are the
    readings of its prose (``in_prose``), read last; ``site_named`` those of lines that
    start with an exception of the site's (``named``), with the lines that raise one."""
    out = search.readings(body)
    title = _TAGS.sub("", title)
    blocks = [*fences(body)[:MAX_FENCES], *headings(body)[:MAX_HEADINGS], (None, title)]
    for start, text in blocks:
        for reading in search.readings(text) if _letters(text) >= least else ():
            if reading.line is not None:
                line = None if start is None else start + reading.line
                reading = replace(reading, line=line)
            if reading not in out:
                out.append(reading)
    more = [
        *raised(body)[:MAX_RAISED],
        *(replace(r, line=None) for r in raised(title)),
        *site_named[:MAX_RAISED],
    ]
    for reading in [*more, *introduced(body, title), *prose]:
        if reading not in out:
            out.append(reading)
    return out


_NOT_PROSE = re.compile(
    r" {0,3}(?:`{3,}|~{3,}|#{1,6}[ \t]|[-*+|<>][ \t]?|\d+[.)][ \t])|[ \t]*Traceback \(most recent"
)
"""A paragraph's first line that says it is no message written out: a fence, a
traceback, a heading, a list item, a table's row, HTML or a quote."""
_INTRODUCING = re.compile(r"\b(?:error|exception)\b[^\n]{0,60}[:.]?[ \t]*$", re.IGNORECASE)
"""A line that says an error follows: ``I am getting error:``, ``Error message:``, ``the
code throws an error.``, ComfyUI's ``Error occurred when executing Tagger:``."""
_SAYS = re.compile(
    r"\b(?:gets?|got|getting|says?|said|fail(?:s|ed|ing)? with|outputs?|following|raises?"
    r"|raised|throws?|threw|shows?|showed|gives?|gave|prints?|printed)\b[^\n]{0,20}:[ \t]*$",
    re.IGNORECASE,
)
"""A line that says what the code did, ending in a colon, which may be an error or not:
``I get:``, ``It says:``, ``but it fails with:``, ``Output:``. Read after the lines of
``_INTRODUCING``, so that a report's other output takes none of their readings."""
_NAME_ALONE = re.compile(rf"^[ \t]*({search.EXCEPTION_NAME})[ \t]*:?[ \t]*$")


def introduced(body: str, title: str = "") -> list[search.Extracted]:
    """The paragraph after a line that says an error follows (``I get this error:``),
    and the body's first paragraph (a report that starts with the error), each read as a
    bare message, and so is each of their lines; the first paragraph as the message of
    the title's exception when the title is an exception's name alone
    (``PydanticImportError:``)."""
    lines = paste_lines(body)
    alone = _NAME_ALONE.match(_TAGS.sub("", title))
    out = []
    starts = [(0, alone.group(1) if alone else None, False)] if lines else []
    for lead in (_INTRODUCING, _SAYS):
        starts += [
            (n + 1, None, True)
            for n, line in enumerate(lines)
            if lead.search(line)
            and not ERROR_LINE.match(line)
            and (lead is _INTRODUCING or not _INTRODUCING.search(line))
        ]
    for start, exception, after in starts:
        while start < len(lines) and not lines[start].strip():
            start += 1
        if start < len(lines) and _NOT_PROSE.match(lines[start]):
            continue  # a fence, a traceback, a heading, a list or a table: read on its own
        # The paragraph, up to a blank line or one that starts no prose: a traceback
        # pasted right under the message is read on its own.
        paragraph = lines[start : start + 1] + list(
            itertools.takewhile(_prose, lines[start + 1 : start + MAX_LINES])
        )
        message = " ".join(part.strip() for part in paragraph)
        if message:
            line_text = lines[start].strip()
            out.append(search.Extracted(exception, message, line=start, line_text=line_text))
        if after and len(paragraph) > 1:  # or one of its lines, amid a tool's output
            for number, text in enumerate(paragraph, start):
                said = text.strip()
                out.append(search.Extracted(None, said, line=number, line_text=said))
    return out[:MAX_RAISED]


def _prose(line: str) -> bool:
    """Whether ``line`` goes on a paragraph: not blank, and no fence, traceback, heading,
    list item, table row, HTML or quote starts there."""
    return bool(line.strip()) and not _NOT_PROSE.match(line)


_OPENS_QUOTE = re.compile(r"(?:^|(?<=[\s:]))([\"'`\u201c\u2018])(?=[A-Za-z])")
"""A mark that opens a quote in a sentence, typed or curly (“…”, as editors and phones
write them): after a blank or a colon, before a letter (an apostrophe follows a letter;
a string after a bracket is code's)."""
_CODE_LINE = re.compile(r"(?: {4}|\t)|.*\b(?:raise|assert)\b")
"""A line of code, not prose: indented as Markdown's code blocks are, raising or
asserting."""


def in_prose(body: str, least: int = 1) -> list[search.Extracted]:
    """Each message quoted in a sentence of the body's prose (``I get the same error
    'No file named x found in directory y'``), up to the mark that closes it, and each
    error's repr amid a line (a log's ``… err=OSError("…\\n…"), …``), read as messages;
    not on lines of code: fenced blocks (read on their own), indented, raising or
    asserting ones.
    At most ``MAX_RAISED`` readings, and ``MAX_QUOTES`` quotes a line."""
    lines = paste_lines(body)
    fenced = {
        number
        for start, text in fences(body)
        for number in range(start - 1, start + text.count("\n") + 2)
    }
    out: list[search.Extracted] = []
    for number, line in enumerate(lines):
        if number in fenced or _CODE_LINE.match(line):
            continue
        said = line.strip()
        found = _REPR_IN_LINE.search(line)
        string = None if found is None else search.string_at(line, found.end(), found.group(2))
        if found is not None and string is not None and string[0].strip():
            out.append(search.Extracted(found.group(1), string[0], line=number, line_text=said))
        for mark in itertools.islice(_OPENS_QUOTE.finditer(line), MAX_QUOTES):
            rest, opener = line[mark.end() :], mark.group(1)
            quote = search.quoted_message(rest, opener)[:1]  # to its mark: past it is prose
            after = number + 1
            if not quote and opener == "`" and after < len(lines) and _prose(lines[after]):
                # Inline code runs on over a line break, as GitHub shows it.
                quote = search.quoted_message(rest + "\n" + lines[after], opener)[:1]
            for message in quote:
                if " " not in message.strip() or _letters(message) < least:
                    continue
                out += [replace(r, line=number, line_text=said) for r in search.readings(message)]
        if len(out) >= MAX_RAISED:
            break
    return out[:MAX_RAISED]


MAX_QUOTES = 8
"""Quotes of one line read as messages, at most (the first ones): a line of a thousand
quote marks is no sentence quoting an error."""
_REPR_IN_LINE = re.compile(rf"(?<=[\s=(:])({search.EXCEPTION_NAME})\(([\"'])")
"""An error's repr amid a line, as a log prints it: ``… err=OSError("… \\n …"), …``."""


MAX_RAISED = 10
"""Lines of a body that call an exception with a string, read at most (the first ones)."""
# At a line's start, in a heading, or after the arrow a traceback marks the line it ran
# with ("-> 1039 "): not on the lines around it, which a traceback may show too.
_CALL = re.compile(
    rf"^[ \t]*(?:#{{1,6}}[ \t]+)?(?:(?:-+>|\u2771)[ \t]*[0-9]*[ \t]+)?(?:raise[ \t]+)?"
    rf"({search.EXCEPTION_NAME})\(f?([\"'])"
)


def named(text: str, exceptions: Collection[str]) -> list[search.Extracted]:
    """The message of each line that starts with the name of one of ``exceptions`` (the
    site's, by the last part of a dotted name) and a colon, as prose writes it: after
    at most three blanks (more make a code block, where a docstring's ``Raises:`` lists
    names so), a quote's ``>``, a list's marker or emphasis (``**AmbiguousSolution**:``,
    ``- AmbiguousSolution: …``). This reads networkx's ``AmbiguousSolution: Disconnected
    graph: …``, typed out of a screenshot, which no other reading takes for an error: its
    name does not end like an error's. A line that reading reads (``ValueError: …``) is
    left to it."""
    known = {exception.rpartition(".")[2] for exception in exceptions}
    out = []
    for number, line in enumerate(paste_lines(text)):
        if line[:4].startswith(("    ", "\t")) or ERROR_LINE.match(line):
            continue
        rest = line[_MARKERS.match(line).end() :].lstrip("*_`")  # type: ignore[union-attr]
        found = _NAMED.match(rest)
        if found is not None and found.group(1).rpartition(".")[2] in known:
            message = found.group(2).rstrip(" \t`*_")
            out.append(
                search.Extracted(found.group(1), message, line=number, line_text=line.strip())
            )
    return out


_MARKERS = re.compile(r"[ ]{0,3}(?:(?:>|[-+*]|[0-9]{1,9}[.)])[ \t]{1,4}|>){0,8}")
"""What may start a line of prose before its words: blanks, quotes' ``>`` and a list's
markers, eight at most (none nests deeper; a bound keeps a line of a million linear)."""
_NAMED = re.compile(r"([A-Za-z][\w.]{0,200}?)[*_`]{0,4}:[*_`]{0,4}[ \t]+(\S.*)")
"""A name (emphasis or a code span closing after it, or after its colon), a colon, a
message."""


def raised(text: str) -> list[search.Extracted]:
    """The message of each line that names an exception apart from its message: a call
    with a string, as a traceback's ``raise KeyError(f"No layer {name}")`` on the line it
    ran or a title's ``KeyError('No layer conv9')`` (a string the line cuts short is read
    to the line's end, the start of a message); a line ending in the name, as a
    debugger's ``Exception has occurred: KeyError``, whose message is on the lines after
    it, up to a blank one."""
    out = []
    lines = paste_lines(text)
    for number, line in enumerate(lines):
        found = _CALL.match(line) or _LAST.search(line)
        if found is None:
            continue
        if found.re is _CALL:
            string = search.string_at(line, found.end(), found.group(2))
            message = line[found.end() :].rstrip() if string is None else string[0]
        else:
            after = itertools.takewhile(str.strip, lines[number + 1 : number + 1 + MAX_LINES])
            message = " ".join(part.strip() for part in after)
        if message:
            out.append(
                search.Extracted(found.group(1), message, line=number, line_text=line.strip())
            )
    return out


MAX_LINES = 10
"""Lines after a line ending in an exception's name read as its message, at most."""
_LAST = re.compile(rf"[ \t:]({search.EXCEPTION_NAME})[ \t]*$")


def headings(body: str) -> list[tuple[int, str]]:
    """Each Markdown heading of a body: its line (from 0) and its words, without the tags
    a title starts with."""
    lines = paste_lines(body)
    found = [(number, _HEADING.match(line)) for number, line in enumerate(lines)]
    return [(number, _TAGS.sub("", match.group(1))) for number, match in found if match]


_TAGS = re.compile(r"^(?:\[[^\]\n]*\]:?[ \t]*|:[a-z0-9_+-]+:[ \t]*)+")
"""The tags a title may start with: ``[Bug]: ``, ``[BUG] ``, ``:bug: ``."""


def fences(body: str) -> list[tuple[int, str]]:
    """Each fenced code block of a Markdown body: the line (from 0) its text starts on,
    and the text. A fence left open runs to the end, as GitHub shows it."""
    found: list[tuple[int, str]] = []
    lines = paste_lines(body)
    opened: tuple[int, str] | None = None
    for number, line in enumerate(lines):
        fence = _FENCE.match(line)
        if opened is None:
            if fence:
                opened = (number + 1, fence.group(1))
        elif fence and fence.group(1).startswith(opened[1]) and not line[fence.end() :].strip():
            found.append((opened[0], "\n".join(lines[opened[0] : number])))
            opened = None
    if opened is not None:
        found.append((opened[0], "\n".join(lines[opened[0] :])))
    return found


def raising_frames(lines: Sequence[str], line: int | None) -> tuple[Frame, ...]:
    """The frames that raised the error read at ``line``, wherever the paste shows it
    (a worker's traceback, then the same error raised again in the parent's): none
    when one of them shows no frame, since then it may have been raised anywhere. A
    function typed in a notebook's cell is a frame of a file named ``<cell>``, which
    no record is raised in."""
    if line is None or line >= len(lines):
        return ()
    text = lines[line].strip()
    frames = []
    for number, other in enumerate(lines):
        if other.strip() == text:
            frame = (
                raising_frame(lines, number)
                or _frame_below(lines, number)
                or search.cell_frame(lines, number)
            )
            if frame is None:
                return ()
            if _called_compiled(lines, number):
                frame = frame._replace(compiled=True)
            frames.append(frame)
    return tuple(dict.fromkeys(frames))


def _called_compiled(lines: Sequence[str], line: int) -> bool:
    """Whether the last frame above the error at ``line`` shows a return or an assignment
    of a call (``return arr.astype(dtype, copy=True)``: Python's frame, its code right
    under it, then any carets): compiled code it called raised the error, since a
    ``raise`` shows itself and a function written in Python shows a frame of its own
    below. (An older Python printed a statement's last line, and a raise over lines
    ends in an argument, ``msg.format(name=name)``: a bare call tells nothing, nor does
    ``name=f(x)``, a keyword written as PEP 8 writes it.)"""
    at = line - 1
    if at >= 0 and search.carets(lines[at]):
        at -= 1
    if at < 1 or not _PYTHON_FRAME.search(lines[at - 1]):
        return False
    code = lines[at].strip()
    if len(code) > MAX_CODE or not (code.startswith("return ") or " = " in code):
        return False
    try:
        body = ast.parse(code).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    statement = body[0] if len(body) == 1 else None
    value = statement.value if isinstance(statement, ast.Return | ast.Assign) else None
    value = value.value if isinstance(value, ast.Await) else value
    return isinstance(value, ast.Call)


_PYTHON_FRAME = re.compile(r'File "[^"\n]+", line \d+, in [^\s,]+\s*$')
"""A frame as Python prints it: its code on the line under it."""
MAX_CODE = 1000
"""Characters of a frame's code line parsed at most."""


_NODE_FAILED = re.compile(r"Error occurred when executing [^\n:]+:\s*$")


def _frame_below(lines: Sequence[str], line: int) -> Frame | None:
    """The raising frame of ComfyUI's older report, which says ``Error occurred when
    executing SomeNode:``, then the message, then the traceback's frames (no header, no
    last line): the last frame of the run under the message, when the code it shows is
    a ``raise`` (else the paste may have left the frames below it out)."""
    if not any(_NODE_FAILED.search(lines[n]) for n in range(max(0, line - 3), line)):
        return None
    last, code = None, ""
    for text in lines[line + 1 : line + 1 + MAX_FRAMES_BELOW]:
        if not text.strip():
            if last is not None:
                break
            continue
        found = next((f for f in (p.search(text) for p in FRAMES) if f), None)
        if found:
            last, code = frame_of(found), ""
        elif last is None:
            return None  # words of their own before any frame: another paste's frames
        elif not code:
            code = text.strip()
    return last if code.startswith("raise ") else None


MAX_FRAMES_BELOW = 200
"""Lines under the message read for its frames, at most."""


class Fits:
    """The rules that read a record's page, for a reading. ``where``: when the paste's
    tracebacks show the frames that raised the error, the record is raised in one's file
    (and function, when both name one); a record that names no file may be any. And,
    called: that, and the message holds enough of the template's own words, half as
    many when the paste names the exception with the record's own package
    (``pydantic.errors.PydanticImportError`` for a record of ``pydantic/_migration.py``):
    another project does not raise its errors; or when a frame that raised it names the
    record's file and function."""

    def __init__(
        self,
        source: Source,
        reading: search.Extracted,
        rules: Rules,
        frames: Sequence[Frame] = (),
    ) -> None:
        self.source, self.reading, self.rules, self.frames = source, reading, rules, frames
        self._known: dict[str, bool] = {}

    def where(self, match: search.Match) -> bool:
        page = self.source.page(match.entry.id)
        return not self.frames or self._raised_there(page, match.entry.template)

    def distance(self, match: search.Match) -> int:
        """How far the record's line is from the nearest line a frame in its file shows
        (0 where none shows one)."""
        entry = match.entry
        lines = [f.line for f in self.frames if f.file == entry.file and f.line is not None]
        return min((abs(entry.line - line) for line in lines), default=0)

    def shown(self, match: search.Match) -> bool:
        """Whether a frame of the paste is in the record's file (and function)."""
        return bool(self.frames) and self._in_file(self.source.page(match.entry.id))

    def _raised_there(self, page: Page, template: str) -> bool:
        if not self.frames or not page.paths:
            return True
        # Python raises its own words anywhere: a file of the package that now raises
        # no such record is where Python raised them.
        return self._in_file(page) or (self._moved(page) and not _PYTHONS_LIKE.match(template))

    def _in_file(self, page: Page) -> bool:
        files, _, function = _where(page)
        return any(
            frame.file in files and (not frame.function or function in (None, frame.function))
            for frame in self.frames
        )

    def _moved(self, page: Page) -> bool:
        """Whether a frame is in a function (not a module's top, which raises while
        imported) of another file of the record's own package: the paste may have run an
        older release, whose code was laid out otherwise (diffusers' modeling_utils.py
        then, utils/hub_utils.py now), so that tells nothing. A frame in the record's own
        file but another function does tell: that file raised it elsewhere."""
        files, packages, _ = _where(page)
        return any(
            frame.file not in files
            and frame.function != "<module>"
            and not frame.compiled
            and packages.intersection(frame.folders)
            for frame in self.frames
        )

    def _pythons(self, match: search.Match, page: Page) -> bool:
        """Whether a record in Python's own words for a missing attribute fits: one whose
        code quotes the names (or takes their ``repr``) prints what Python prints of any
        object, so only a frame in its file tells, or, for a module, the paste naming a
        module of the record's own package (``module 'pydantic.fields' has no attribute
        …``, not ``module 'numpy' …``); one whose code leaves them unquoted did not print
        a paste that quotes them."""
        if "'" in match.entry.template or not page.raised or _QUOTES_NAMES.search(page.raised):
            module = _MODULE_NAMED.search(self.reading.message)
            own = {_package(path) for path in page.paths}
            return bool(self.frames and page.paths and self._in_file(page)) or bool(
                module and module.group(1).split(".")[0] in own
            )
        return not _PYTHON_QUOTES.search(self.reading.message)

    def __call__(self, match: search.Match) -> bool:
        # Asked twice of a record (``_fitting_first``, then ``_best``): answered once.
        known = self._known.get(match.entry.id)
        if known is None:
            known = self._known[match.entry.id] = self._fits(match)
        return known

    def _fits(self, match: search.Match) -> bool:
        page = self.source.page(match.entry.id)
        if not self._raised_there(page, match.entry.template):
            return False
        if _PYTHONS_LIKE.match(match.entry.template) and not self._pythons(match, page):
            return False
        packages = {part for path in page.paths for part in path.split("/")[:-1]}
        exception = self.reading.exception or ""
        if _elsewhere(exception, match.entry.exception, page.paths):
            return False
        if not exception and (
            any(_SENTENCE_END.search(value) and not _literal(value) for _, value in match.values)
            or any(_WORDS_ONLY.fullmatch(value) for value in _inner_values(match))
        ):
            # Prose with no exception named: a value that takes in sentences (but for a
            # literal's repr, a tuple or a string), or one amid the message's words that
            # is words of prose ("class to wrap in the model"), where code puts a name, a
            # number or a path.
            return False
        if any(
            _PROSE_VALUE.fullmatch(value) and not _quoted(value, self.reading.message)
            for value in _inner_values(match)
        ):
            # Amid the message's words, a value that starts with a joining word ("or
            # multi-index levels ['height']") or is three words or more of prose: the
            # paste is another message (an older wording) that this one's words frame.
            return False
        least = self.rules.min_own_text
        if _own(exception, packages) or self._confirmed(page):
            least //= 2
        values = [value for _, value in match.values]
        return own_text(self.reading.message, match.entry, values) >= least

    def sure(self, match: search.Match) -> search.Match:
        """``match``, as sure as a whole message gets where it is one of a template with
        hardly any words of its own (``Unknown projection {name}``, ranked as a fair
        partial match) and a frame that raised the error names the record's file and
        function: the traceback says where it was raised."""
        if not match.exact or match.score >= 1.0:
            return match
        return (
            replace(match, score=1.0)
            if self._confirmed(self.source.page(match.entry.id))
            else match
        )

    def _confirmed(self, page: Page) -> bool:
        """Whether a frame that raised the error names the record's file and function,
        in a folder of the record's package (``base.py`` and ``__init__`` name files
        and functions of every project)."""
        files, packages, function = _where(page)
        return function is not None and any(
            frame.file in files
            and frame.function == function
            and packages.intersection(frame.folders)
            and not frame.compiled  # compiled code it called raised the error
            for frame in self.frames
        )


_PYTHONS_LIKE = re.compile(
    r"(?:type object '?\{[^{}]*\}'?|'?\{[^{}]*\}'? object|module '?\{[^{}]*\}'?) "
    r"has no attribute '?\{[^{}]*\}'?\Z"
)
"""A template that words its error as Python itself words a missing attribute, for
any class, object or module (``type object '{cls}' has no attribute {name}``), its
quotes in the template or left to the values (``{name!r}``, which a scanned template
does not keep)."""


_PYTHON_QUOTES = re.compile(
    r"(?:(?:type object|module) '[^'\n]+'|'[^'\n]+' object) has no attribute '[^'\n]+'"
)
"""Python's own words for a missing attribute, the names in quotes as it writes them."""


_QUOTES_NAMES = re.compile(r"!r\b|repr\(|'\{|'%s'|%r|'%\(")
"""Code that quotes the names it puts in a message, or takes their ``repr`` (which a
scanned template does not keep: ``{name!r}`` becomes ``{name}``)."""
_MODULE_NAMED = re.compile(r"module '([\w.]+)' has no attribute")


def _blank(value: str) -> bool:
    """Whether a value holds a blank: words, not one name, path or number."""
    return any(char.isspace() for char in value)


def _quoted(value: str, message: str) -> bool:
    """Whether the paste's message says ``value`` in quotes (``No variable named 'sea
    surface temperature'``): words a user typed, which code quotes as they are."""
    return any(f"{mark}{value}{mark}" in message for mark in "'\"`")


def _literal(value: str) -> bool:
    """Whether a value is written as Python writes a tuple, list, dict or string."""
    return len(value) > 1 and value[0] + value[-1] in ("()", "[]", "{}", "''", '""')


def _where(page: Page) -> tuple[set[str], set[str], str | None]:
    """Where a record is raised, as a frame names it: the names of its files, the
    packages they are in and its function's own name."""
    files = {path.rsplit("/", 1)[-1] for path in page.paths}
    packages = {_package(path) for path in page.paths} - {""}
    function = page.function.rsplit(".", 1)[-1] if page.function else None
    return files, packages, function


def _package(path: str) -> str:
    """The package a record's file is in, as a traceback's paths name it: its first
    folder past a ``src/`` or ``lib/`` layout's (SQLAlchemy's ``lib/sqlalchemy/…`` is
    ``sqlalchemy``, not the ``lib`` of every ``…/lib/python3.11/…``), or the module
    itself when it stands alone (``six.py``)."""
    return module_of(path)


def _inner_values(match: search.Match) -> list[str]:
    """The values of a match but one that ends its message (a reason, which code often
    words as a phrase: ``… for the next batch: queue is closed``)."""
    values = [value for _, value in match.values]
    ends_in_value = match.entry.template.rstrip(" .!?:").endswith("}")
    whole = len(values) == len(match.entry.names)  # a start cut short has fewer
    return values[:-1] if ends_in_value and whole else values


def _elsewhere(named: str, raised: str, paths: Sequence[str]) -> bool:
    """Whether the paste names the record's exception class with the module of another
    package: ``smolagents.tools.DocstringParsingException`` is not the class
    ``transformers/utils/chat_template_utils.py`` raises under that name. Not for
    Python's own exceptions and modules, nor a class the record names with a module."""
    if "." not in named or not paths:
        return False
    top, name = named.split(".", 1)[0], named.rsplit(".", 1)[-1]
    if "." in raised or name in _BUILTIN_NAMES or top in sys.stdlib_module_names:
        return False
    ours = {_package(path) for path in paths} - {""}
    return not any(top == p or top.startswith(p + "_") or p.startswith(top + "_") for p in ours)


_BUILTIN_NAMES = frozenset(name for name in dir(builtins) if name[:1].isupper())


def _own(exception: str, packages: set[str]) -> bool:
    """Whether an exception's name says it is one of ``packages``' (the folders of a
    record's file): by its module (``pydantic.errors.PydanticImportError``) or, named
    alone, by a class name that starts with the package's (``PydanticImportError``)."""
    if "." in exception:
        return exception.split(".")[0] in packages
    name = exception.lower()
    return any(len(p) >= 4 and name.startswith(p.lower()) for p in packages)


def _passes(reading: search.Extracted, match: search.Match, rules: Rules) -> bool:
    entry = match.entry
    if reading.exception is None and not match.exact:
        return False  # prose: only a whole message, word for word
    if rules.exception_must_agree and search.same_exception(reading.exception, entry.exception) < 0:
        return False
    return confidence(match) >= rules.min_confidence and _quotes_agree(entry, reading.message)


def _quotes_agree(entry: search.Entry, message: str) -> bool:
    """Whether the paste quotes as the template does where it says the same words:
    ``Unknown split 'val'`` is not ``Unknown split "{split}"`` but another project's
    message (search reads both alike). Where the paste quotes with marks of its own
    (curly ones), or words the part otherwise, this says nothing."""
    for part in parse_template(entry.template).parts:
        if part.placeholder or not any(q in part.text for q in _ASCII_QUOTES):
            continue
        loose, exact = _quoted_pattern(part.text)
        if loose.search(message) and not exact.search(message):
            return False
    return True


_ASCII_QUOTES = "'\""


def _quoted_pattern(text: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Patterns for a literal part of a template, blanks read as any blanks: one that
    takes any quote mark where the part has one, and one that takes only its own."""
    loose, exact = [], []
    for word in re.split(r"(\s+)", text.strip()):
        if not word:
            continue
        if word.isspace():
            loose.append(r"\s+")
            exact.append(r"\s+")
            continue
        for char in word:
            exact.append(re.escape(char))
            loose.append(
                "[" + re.escape(_ASCII_QUOTES) + "]" if char in _ASCII_QUOTES else re.escape(char)
            )
    return re.compile("".join(loose)), re.compile("".join(exact))


ALSO_SHOWN = 3
"""The other records of the same words a report links to, at most."""


def _place(page: Page) -> tuple[str, str]:
    """Where a record is raised, as a report names it (``pkg/a.py, in load``), and its
    page's address."""
    where = page.paths[0] if page.paths else page.title
    return (f"{where}, in {page.function}" if page.function else where), page.url


def _called_first(
    source: Source, match: search.Match, text: str, reading: search.Extracted
) -> tuple[search.Match, str]:
    """``match``, or the record of its words raised in the function ``text`` calls, when
    it calls one of theirs and names none of the others (``nx.is_connected(H)``, of
    ``is_connected``, ``is_strongly_connected`` …): with no traceback to say where the
    words were raised, the call the issue shows does. Also that function's name (""
    when none chose). What the error itself says is not the issue's: the line the
    reading is from and the template's own text are left out (a message may quote a
    call, ``DataArray.argmin() returns a dict``), and so is a ``def``."""
    if not match.also:
        return match, ""
    lines = search.paste_lines(text)
    if reading.line is not None and reading.line + 1 < len(lines):
        lines[reading.line + 1] = ""  # ``text`` is the title's line, then the body's
    text = "\n".join(lines)
    for part in parse_template(match.entry.template).parts:
        if not part.placeholder and len(part.text) >= _QUOTED:
            text = text.replace(part.text, " ")
    ids = (match.entry.id, *match.also)
    functions = {number: _where(source.page(number))[2] for number in ids}
    said = {f for f in functions.values() if f and re.search(rf"(?<!\w){re.escape(f)}(?!\w)", text)}
    called = {f for f in said if re.search(rf"(?<!\w)(?<!def ){re.escape(f)}\s*\(", text)}
    if len(said) != 1 or len(called) != 1:
        return match, ""
    (function,) = called
    chosen = next(number for number in ids if functions[number] == function)
    if chosen == match.entry.id:
        return match, function
    index = source.index
    paths = source.page(chosen).paths
    if not paths:
        return match, ""
    placed = index.placed(search.place_key(match.entry, search.file_name(paths[0])))
    entry = next((index.entries[n] for n, _ in placed if index.entries[n].id == chosen), None)
    if entry is None or entry.template != match.entry.template:
        return match, ""  # worded with other placeholders: the values read are not its
    also = tuple(number for number in ids if number != chosen)
    chosen_match = search.Match(
        entry, match.exact, match.score, match.values, also, match.first_line
    )
    return chosen_match, function


_QUOTED = 8
"""Characters of a template's own text, at least, that are left out of what an issue
says of the calls it made (shorter ones are words an issue may say too)."""


def _found(
    source: Source,
    reading: search.Extracted,
    match: search.Match,
    placed: bool = False,
    called: str = "",
) -> Found | None:
    """The match as a Found; None for a record whose document says ``triage: false``.
    ``placed``: a frame of the paste is in the record's file, which tells it from the
    other records of its words; ``called``: the issue calls its function (``Found``)."""
    entry = match.entry
    page = source.page(entry.id)
    if not page.triage:
        return None
    others = () if placed else tuple(i for i in match.also if i != entry.id)
    return Found(
        id=entry.id,
        url=page.url,
        title=page.title,
        exception=entry.exception,
        message=entry.template,
        score=round(match.score, 4),
        confidence=confidence(match),
        values=match.values,
        line=None if reading.line is None else reading.line + 1,
        line_text=reading.line_text,
        wording=earlier_wording(entry),
        releases=page.releases,
        elsewhere=0 if placed else match.elsewhere,
        also=tuple(_place(source.page(i)) for i in others[:ALSO_SHOWN]),
        called=called if others else "",
    )


@functools.lru_cache(maxsize=64)
def _normalize(message: str) -> tuple[str, list[int]]:
    """``search.normalize``, once for the few places that read one reading."""
    return search.normalize(message)


def _letters(message: str) -> int:
    """Letters and digits of a message's words: its own text is at most that."""
    return sum(map(len, search.tokens(_normalize(message)[0])))


def _spelled(template: str, message: str) -> int:
    """Characters of the template's own text that ``message`` spells as it does, quotes,
    case and blanks kept: ``pip install 'kit[plot]'`` or ``pip install kit[plot]``, a
    message on one line or over three, which search reads alike."""
    parts = parse_template(template).parts
    return sum(len(p.text) for p in parts if not p.placeholder and p.text in message)


def own_text(message: str, entry: search.Entry, values: Sequence[str] = ()) -> int:
    """Letters and digits of the template's own words that ``message`` holds: each word
    of the template outside its placeholders, counted once per place it has there that
    the message says it too (a name said once is not two of the template's words), but
    for the words of the ``values`` read into its placeholders: those are the paste's
    (``Length of values does not match length of index`` read as ``Length of
    '{name}' …`` cut short says only ``Length of`` of that template)."""
    said = Counter(search.tokens(search.normalize(message)[0]))
    for value in values:
        said.subtract(search.tokens(search.normalize(value)[0]))
    total = 0
    for word in entry.words:
        if word != "*" and said[word] > 0:
            said[word] -= 1
            total += len(word)
    return total
