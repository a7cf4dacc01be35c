"""errdex draft: AI-assisted analyses for the records that have none, grounded in the code.

For each record chosen (the most reported first), the model is given what the code says
of the error (``evidence``: the message, the excerpt with its raise marked, the tests
that lead there and the ways out derived from them, the function's other errors, the
settings those tests read, related errors, the docs' lines about them), cut to a prompt
budget. Its answer must be one JSON object of the prose fields; it is checked against the
record schema and grounded (``grounding.refusals``: no name the code and docs do not have,
no HTML, no placeholder left in …). A draft that passes is written into the record file
at once, whole (``update.write_blocks``), with its provenance in ``analysis``; one that
does not is reported, and kept only in ``--keep-rejected``.

Every answer, refused ones too, is kept in the cache by a hash of what the model was
given: a run over unchanged records asks nothing again, and a run stopped half way goes
on where it stopped (the records it drafted have prose now, and are not chosen again).
"""

from __future__ import annotations

import concurrent.futures
import datetime
import json
import os
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from errdex.records import files, load, validate
from errdex.records.model import PROSE, Record, basis_of, short_digest
from errdex.source import avoid, grounding, update
from errdex.source.chat import Answer, Chat, ChatError, Unusable

BY = "AI-assisted"
"""``analysis.by`` of a draft."""
BUDGET = 3000
"""Tokens of evidence a prompt holds at most (estimated, ``tokens``)."""
ANSWER_TOKENS = 900
"""Tokens an answer is estimated at, for ``--dry-run``."""
JOBS = 4
"""Requests in flight at once."""

ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["meaning", "trigger", "situations", "solutions", "example_fix"],
    "properties": {
        "meaning": {"type": "string", "description": "What the error means, 1-3 sentences."},
        "trigger": {"type": "string", "description": "What makes the code raise it."},
        "situations": {"type": "string", "description": "Common situations that lead there."},
        "solutions": {
            "type": "array",
            "items": {"type": "string"},
            "minItems": 1,
            "maxItems": 6,
            "description": "Ways to fix it, one line each, most likely first.",
        },
        "example_fix": {
            "type": "array",
            "maxItems": 3,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["lang", "code"],
                "properties": {"lang": {"type": "string"}, "code": {"type": "string"}},
            },
        },
    },
}

SYSTEM = """\
You write one entry of an error reference: what an error means, when it happens and how \
to fix it, for the person who just saw it. Use only what the evidence shows: the code, \
the tests that lead to the raise and the ways out derived from them. Name settings, \
command-line flags, environment variables, functions and files exactly as the evidence \
spells them, and never one it does not show. Write names as Markdown code (`name`). No \
HTML. Leave no {placeholder} in: say "the value" instead. Solutions: one line each, an \
instruction, most likely first. example_fix: at most two short blocks (lang "bash" or \
"python"), each showing the fix; a python block must be valid Python. Answer with one \
JSON object with the fields meaning, trigger, situations, solutions and example_fix."""


# --- What the model is given ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    text: str
    keep: int
    """How much it matters: the sections of least ``keep`` are cut first."""


@dataclass(frozen=True, slots=True)
class Evidence:
    sections: tuple[Section, ...]
    cut: tuple[str, ...]
    """What the budget left out, for ``-v``."""

    def text(self) -> str:
        return "\n\n".join(f"## {s.title}\n{s.text}" for s in self.sections)


def tokens(text: str) -> int:
    """An estimate of the tokens of ``text``: about four characters a token in English
    and code, for any model's tokenizer."""
    return (len(text) + 3) // 4


@dataclass(frozen=True, slots=True)
class Sources:
    """What draft knows of the code beyond the records: the source tree's files at the
    records' commit, and the project's docs."""

    code: Mapping[str, str] = field(default_factory=dict)
    """Path → text of each Python file (empty without ``--source``)."""
    declared: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """``declarations`` of the code."""
    docs: Mapping[str, str] = field(default_factory=dict)
    """Path → text of each doc file (``--docs``)."""


def evidence(
    record: Record, site_records: Sequence[Record], sources: Sources, budget: int = BUDGET
) -> Evidence:
    """What the model is given of ``record``, cut to ``budget`` tokens."""
    sections = [
        Section("Error", _error_text(record), 10),
        Section("Code", code_text(record), 9),
    ]
    found = avoid.avoid_of(record)
    if found is not None and found.guards:
        guards = "\n".join(f"- `{g}`" for g in found.guards)
        sections.append(Section("Raised when (all of these hold)", guards, 8))
    elif record.source.condition:
        sections.append(Section("Raised when", f"`{record.source.condition}`", 8))
    if found is not None:
        ways = "\n".join(f"- {way}" for way in avoid.sayings(found))
        sections.append(Section("How to avoid it, derived from the code (facts)", ways, 8))
    names = _names(record, found)
    declared = _declared(names, sources.declared)
    if declared:
        sections.append(Section("Where the code declares the names in those tests", declared, 5))
    neighbours = [
        r
        for r in site_records
        if r.id != record.id
        and r.repo == record.repo
        and r.source.path == record.source.path
        and r.source.function
        and r.source.function == record.source.function
    ]
    if neighbours:
        text = "\n".join(f"- {r.exception}: {r.message.display}" for r in neighbours[:8])
        sections.append(Section("Other errors raised in the same function", text, 4))
    related = [r for r in site_records if r.id in {e.text for e in record.related}]
    related_text = [f"- {r.exception}: {r.title}" for r in related]
    related_text += [
        f"- {e.text}" for e in record.related if not any(r.id == e.text for r in related)
    ]
    if related_text:
        sections.append(Section("Related errors", "\n".join(related_text[:8]), 3))
    doc_lines = _doc_lines(names, sources.docs)
    if doc_lines:
        sections.append(Section("The project's docs on those names", doc_lines, 2))
    return _cut(sections, budget)


def _error_text(record: Record) -> str:
    lines = [
        f"Repository: {record.repo}",
        f"Exception: {record.exception}",
        f"Message (placeholders in braces): {record.message.display}",
    ]
    if record.message.names:
        lines.append("Placeholders: " + ", ".join(record.message.names))
    return "\n".join(lines)


def code_text(record: Record, around: int | None = None) -> str:
    """Where ``record`` is raised and its excerpt as a numbered Python block, the raise
    marked ``>>``; with ``around``, only the lines that near it."""
    source = record.source
    head = f"{source.path}:{source.line} at commit {source.short_commit}"
    if source.function:
        head += f", in {source.function}"
    excerpt = source.excerpt
    if excerpt is None:
        return head
    lines = excerpt.lines
    numbered = []
    for number, line in enumerate(lines, excerpt.start):
        if around is not None and abs(number - source.line) > around:
            continue
        mark = ">>" if number == source.line else "  "
        numbered.append(f"{mark}{number:5} | {line}")
    return head + "\n```python\n" + "\n".join(numbered) + "\n```"


def _names(record: Record, found: avoid.Avoid | None) -> list[str]:
    """The settings and names the tests read, most specific first."""
    seen: dict[str, None] = {}
    if found is not None:
        for way in found.ways:
            for term in way.terms:
                for operand in (term.subject, term.other, *term.values):
                    if operand is None or operand.literal:
                        continue
                    for name in (operand.field, operand.env):
                        if name and len(name) > 2:
                            seen.setdefault(name)
    return list(seen)


def declarations(code: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    """Each name the code declares (``name: type = default``, ``name = …`` at the start
    of a line, a quoted ``--flag``) → the lines that do, ``path:line: text``, read once
    for every prompt of a run."""
    found: dict[str, list[str]] = {}
    for path in sorted(code):
        for number, line in enumerate(code[path].splitlines(), 1):
            text = line.strip()
            if text.startswith(("if ", "elif ", "return", "#", "assert ")):
                continue
            head = text.split(":", 1)[0].split("=", 1)[0].strip()
            shown = f"{path}:{number}: {text[:160]}"
            if head.isidentifier() and (":" in text or "=" in text):
                found.setdefault(head, []).append(shown)
            for flag in _QUOTED_FLAG.findall(text):
                found.setdefault(flag.removeprefix("--").replace("-", "_"), []).append(shown)
    return {name: tuple(lines[:4]) for name, lines in found.items()}


_QUOTED_FLAG = re.compile(r"""["'](--[a-z][a-z0-9-]{1,60})["']""")


def _declared(names: Sequence[str], declared: Mapping[str, Sequence[str]]) -> str:
    """Lines of the code that declare ``names``: a field with its default, a flag."""
    lines = [line for name in names for line in declared.get(name, ())]
    return "\n".join(dict.fromkeys(lines[:12]))


def _doc_lines(names: Sequence[str], docs: Mapping[str, str]) -> str:
    if not names or not docs:
        return ""
    spelled = [n for n in names] + ["--" + n.replace("_", "-") for n in names]
    found: list[str] = []
    for path in sorted(docs):
        for number, line in enumerate(docs[path].splitlines(), 1):
            if any(name in line for name in spelled):
                found.append(f"{path}:{number}: {line.strip()[:200]}")
                if len(found) >= 20:
                    return "\n".join(found)
    return "\n".join(found)


def _cut(sections: list[Section], budget: int) -> Evidence:
    cut: list[str] = []
    total = sum(tokens(s.text) for s in sections)
    for section in sorted(sections, key=lambda s: s.keep):
        if total <= budget or section.keep >= 9:
            continue
        total -= tokens(section.text)
        sections = [s for s in sections if s is not section]
        cut.append(f"{section.title.lower()} ({tokens(section.text):,} tokens)")
    if total > budget:
        # Only the code is left to cut: keep the lines nearest the raise.
        for index, section in enumerate(sections):
            if section.title == "Code":
                record_text = section.text
                lines = record_text.splitlines()
                kept = [line for line in lines if not line.startswith("  ") or ">>" in line]
                shorter = _nearest_lines(lines, max(10, len(lines) // 3))
                sections[index] = Section("Code", shorter if shorter else "\n".join(kept), 9)
                saved = tokens(record_text) - tokens(sections[index].text)
                cut.append(f"excerpt lines far from the raise ({saved:,} tokens)")
    return Evidence(tuple(sections), tuple(cut))


def _nearest_lines(lines: list[str], keep: int) -> str:
    """The code section with only the ``keep`` excerpt lines nearest the raise."""
    at = next((i for i, line in enumerate(lines) if line.startswith(">>")), None)
    if at is None:
        return ""
    body = [i for i, line in enumerate(lines) if "|" in line[:10]]
    chosen = set(sorted(body, key=lambda i: abs(i - at))[:keep])
    return "\n".join(line for i, line in enumerate(lines) if i not in body or i in chosen)


def messages(found: Evidence) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": found.text()},
    ]


def digest(data: Any) -> str:
    """A short hash of ``data`` as canonical JSON."""
    return short_digest(data)


def prose_of(data: Mapping[str, Any]) -> dict[str, Any]:
    """The prose fields of a record's data, as a draft writes them."""
    return {key: data[key] for key in PROSE if key in data}


def basis(record: Record) -> str:
    """What an analysis was written from (``model.basis_of``): when pin moves the record
    to code where it changed, the page says the analysis is stale."""
    excerpt = record.source.excerpt
    return basis_of(
        record.message.source, excerpt.code if excerpt else None, record.source.condition
    )


# --- Which records ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Choice:
    only: tuple[str, ...] = ()
    repo: str | None = None
    exception: str | None = None
    limit: int | None = None
    force: tuple[str, ...] = ()
    """Prose fields a draft may write over."""
    stale: bool = False
    """Draft again the unreviewed drafts whose code changed since."""


def chosen(
    records: Sequence[Record], reported: Callable[[str], int], choice: Choice
) -> list[Record]:
    """The records to draft, in the order to draft them: the most reported in imported
    GitHub issues first, then those whose message is raised at the most places, then in
    file order."""
    places = Counter((r.repo, r.message.source) for r in records)
    wanted = set(choice.only)
    picked = []
    for order, record in enumerate(records):
        if wanted and record.id not in wanted and not set(record.aliases) & wanted:
            continue
        if choice.repo and record.repo != choice.repo:
            continue
        if choice.exception and record.exception != choice.exception:
            continue
        if needs_draft(record, choice):
            picked.append(
                (-reported(record.id), -places[(record.repo, record.message.source)], order, record)
            )
    picked.sort(key=lambda item: item[:3])
    found = [item[3] for item in picked]
    return found[: choice.limit] if choice.limit is not None else found


def needs_draft(record: Record, choice: Choice) -> bool:
    analysis = record.data.get("analysis") or {}
    if analysis.get("rejected"):
        return False  # a person refused its draft
    written = prose_of(record.data)
    if choice.stale:
        # Only the drafts whose code changed: the records with no prose yet wait for a
        # run without --stale (a maintainer refreshing a release's drafts does not ask
        # for every other record to be drafted, and paid for).
        if not written or analysis.get("by") != BY or analysis.get("reviewed"):
            return False
        edited = analysis.get("answer") and digest(written) != analysis.get("answer")
        return not edited and analysis.get("basis") not in (None, basis(record))
    if not written:
        return True
    return bool(choice.force) and any(key in written for key in choice.force)


# --- One draft -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Outcome:
    record: Record
    status: str
    """``drafted``, ``refused`` or ``failed``."""
    reasons: tuple[str, ...] = ()
    fields: Mapping[str, Any] = field(default_factory=dict)
    prompt_tokens: int = 0
    answer_tokens: int = 0
    asked: bool = True
    """Whether a request was sent (False: the answer came from the cache)."""


def fields_of(answer: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The record fields of an answer, and what is wrong with its shape."""
    problems: list[str] = []
    for key in ANSWER_SCHEMA["required"]:
        if key not in answer:
            problems.append(f"the answer has no {key}")
    extra = sorted(set(answer) - set(ANSWER_SCHEMA["properties"]))
    if extra:
        problems.append("the answer has fields no record has: " + ", ".join(map(str, extra))[:200])
    if problems:
        return {}, problems
    fixes = answer["example_fix"]
    found: dict[str, Any] = {
        "meaning": answer["meaning"],
        "when": {"trigger": answer["trigger"], "situations": answer["situations"]},
        "solutions": answer["solutions"],
        "example_fix": [
            {"lang": b.get("lang"), "code": b.get("code")} if isinstance(b, dict) else b
            for b in fixes
        ]
        if isinstance(fixes, list)
        else fixes,
    }
    return found, []


def checked(
    record: Record, path: Path, fields: dict[str, Any], known: grounding.Known
) -> list[str]:
    """Why ``fields`` cannot go into ``record``'s file: grounding, then the record
    schema and rules as a build reads them."""
    reasons = grounding.refusals(fields, known)
    if reasons:
        return reasons
    try:
        text = path.read_bytes().decode("utf-8-sig")
        after = update.rewrite(text, {**fields, "analysis": {"by": BY, "date": "2000-01-01"}})
    except (OSError, UnicodeError, update.Unsafe) as exc:
        return [f"the record file cannot take it: {exc}"]
    doc, problems = load.parse_yaml(after, files.shown_path(path), path)
    if doc is not None:
        problems += validate.check_record(doc)
    return [f"line {p.line}: {p.message}" if p.line else p.message for p in problems]


def provenance(
    record: Record, model: str, prompt: str, fields: Mapping[str, Any], today: str
) -> dict[str, Any]:
    return {
        "by": BY,
        "model": model,
        "date": today,
        "commit": record.source.commit,
        "reviewed": False,
        "prompt": prompt,
        "answer": digest(dict(fields)),
        "basis": basis(record),
    }


# --- The run ---------------------------------------------------------------------------


@dataclass
class Report:
    drafted: int = 0
    refused: int = 0
    failed: int = 0
    cached: int = 0
    asked: int = 0
    prompt_tokens: int = 0
    answer_tokens: int = 0
    lines: list[str] = field(default_factory=list)
    reasons: Counter[str] = field(default_factory=Counter)
    rejected: list[dict[str, Any]] = field(default_factory=list)


class Cache:
    """Answers by the hash of what the model was given, refused ones too."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder / "drafts" if folder else None

    def get(self, key: str) -> dict[str, Any] | None:
        if self.folder is None:
            return None
        try:
            data = json.loads((self.folder / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return None
        return data if isinstance(data, dict) else None

    def put(self, key: str, data: dict[str, Any]) -> None:
        if self.folder is None:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            text = json.dumps(data, sort_keys=True, ensure_ascii=True, indent=1)
            files.write_atomic(self.folder / f"{key}.json", text.encode(), durable=False)
        except (OSError, ValueError):
            pass  # a cache that cannot be kept costs a request next time, nothing more


@dataclass(frozen=True, slots=True)
class Job:
    record: Record
    path: Path
    found: Evidence
    key: str
    asked: list[dict[str, str]]


def run(
    records: Sequence[Record],
    paths: Mapping[str, Path],
    all_records: Sequence[Record],
    chat: Chat,
    known: grounding.Known,
    sources: Sources,
    cache: Cache,
    *,
    jobs: int = JOBS,
    budget: int = BUDGET,
    retry_refused: bool = False,
    force: Sequence[str] = (),
    today: str | None = None,
    verbose: bool = False,
    progress: Callable[[Report, int], None] | None = None,
) -> Report:
    """Draft ``records`` (in this order), writing each finished draft into its file."""
    report = Report()
    day = today or _today()
    work: list[Job] = []
    for record in records:
        found = evidence(record, all_records, sources, budget)
        asked = messages(found)
        key = digest(
            {
                "server": chat.base_url,
                "model": chat.model,
                "messages": asked,
                "schema": ANSWER_SCHEMA,
            }
        )
        if verbose and found.cut:
            report.lines.append(f"{record.id}: cut from the prompt: {', '.join(found.cut)}")
        work.append(Job(record, paths[record.id], found, key, asked))

    def finish(job: Job, outcome: Outcome) -> None:
        report.prompt_tokens += outcome.prompt_tokens
        report.answer_tokens += outcome.answer_tokens
        report.asked += outcome.asked
        report.cached += not outcome.asked
        if outcome.status == "drafted":
            prose = dict(outcome.fields)
            written = {key: prose[key] for key in PROSE if key in prose}
            existing = prose_of(job.record.data)
            analysis = job.record.analysis
            # The model's own prose, unedited and unreviewed, is drafted again whole
            # (--stale); a field a person wrote only when --force names it.
            redraft = analysis is not None and analysis.state == "unreviewed"
            blocks = {
                k: v for k, v in written.items() if k not in existing or k in force or redraft
            }
            # The hash of all the model wrote: a record that keeps a person's field in
            # place of the model's reads as edited by a person, which --stale and
            # review --reject leave alone.
            blocks["analysis"] = provenance(job.record, chat.model, job.key, written, day)
            error = _still(job.path, existing) or update.write_blocks(job.path, blocks)
            if error is None:
                report.drafted += 1
                report.lines.append(f"drafted: {files.shown_path(job.path)} ({job.record.id})")
            else:
                report.failed += 1
                report.lines.append(f"failed: {error}")
        elif outcome.status == "refused":
            report.refused += 1
            for reason in outcome.reasons:
                report.reasons[_kind(reason)] += 1
            shown = "; ".join(outcome.reasons)
            report.lines.append(f"refused: {files.shown_path(job.path)} ({job.record.id}): {shown}")
            report.rejected.append(
                {
                    "id": job.record.id,
                    "file": files.shown_path(job.path),
                    "reasons": list(outcome.reasons),
                    "draft": dict(outcome.fields),
                }
            )
        else:
            report.failed += 1
            why = "; ".join(outcome.reasons)
            report.lines.append(f"failed: {files.shown_path(job.path)} ({job.record.id}): {why}")
        if progress is not None:
            progress(report, len(work))

    def ask(job: Job) -> Outcome:
        try:
            answer = chat.ask(job.asked, ANSWER_SCHEMA)
        except Unusable as exc:
            # The model's answer, not the server: refused like any other bad draft.
            why = f"the answer is not one JSON object: {exc}"
            cache.put(job.key, {"status": "refused", "answer": None, "reasons": [why]})
            shown = {"answer": exc.text[:2000]}
            return Outcome(
                job.record, "refused", (why,), shown, exc.prompt_tokens, exc.answer_tokens
            )
        except ChatError as exc:
            return Outcome(job.record, "failed", (str(exc),))
        return judged(job, answer)

    def judged(job: Job, answer: Answer) -> Outcome:
        fields, problems = fields_of(answer.data)
        if not problems:
            problems = checked(job.record, job.path, fields, known)
        outcome = Outcome(
            job.record,
            "refused" if problems else "drafted",
            tuple(problems),
            fields or dict(answer.data),
            answer.prompt_tokens,
            answer.answer_tokens,
        )
        cache.put(
            job.key,
            {"status": outcome.status, "answer": answer.data, "reasons": list(problems)},
        )
        return outcome

    pending: list[Job] = []
    for job in work:
        kept = cache.get(job.key)
        if kept is None or (kept.get("status") == "refused" and retry_refused):
            pending.append(job)
        elif isinstance(kept.get("answer"), dict):
            outcome = judged(job, Answer(kept["answer"], "", 0, 0))
            again = Outcome(outcome.record, outcome.status, outcome.reasons, outcome.fields)
            finish(job, replace(again, asked=False))
        elif kept.get("status") == "refused":
            reasons = tuple(str(r) for r in kept.get("reasons") or ["refused before"])
            finish(job, Outcome(job.record, "refused", reasons, asked=False))
        else:
            pending.append(job)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(ask, job): job for job in pending}
        try:
            for future in concurrent.futures.as_completed(futures):
                finish(futures[future], future.result())
        except KeyboardInterrupt:
            for future in futures:
                future.cancel()
            raise
    return report


def _still(path: Path, prose: Mapping[str, Any]) -> str | None:
    """Why ``path`` is left alone: a person changed its prose while the run went on."""
    try:
        now = load.load_file(path)[0]
    except OSError as exc:
        return f"{files.shown_path(path)}: cannot be read: {exc.strerror or exc}"
    if now is None or not isinstance(now.data, dict) or prose_of(now.data) != prose:
        return f"{files.shown_path(path)}: changed while the run went on; left alone"
    return None


def _kind(reason: str) -> str:
    """A reason without its particulars, to count refusals by kind."""
    text = reason.split(": ", 1)[-1].lower()
    for said, kind in _KINDS:
        if said in text:
            return kind
    return "other"


_KINDS = (
    ("flag", "flag"),
    ("environment variable", "environment variable"),
    ("file", "file"),
    ("placeholder", "placeholder"),
    ("html", "HTML"),
    ("parse", "parse"),
    ("empty", "empty"),
    ("no words", "no words"),
    ("more than the", "too long"),
    ("json", "not JSON"),
    ("links to", "link"),
    ("module", "module"),
    ("attribute", "name"),
    ("keyword argument", "name"),
    ("name", "name"),
    ("missing", "missing"),
)
"""What a reason says → the kind the run's summary counts it as, the first that fits."""


def _today() -> str:
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.isdigit():
        return datetime.datetime.fromtimestamp(int(epoch), datetime.UTC).date().isoformat()
    return datetime.date.today().isoformat()


def estimate(
    records: Sequence[Record], all_records: Sequence[Record], sources: Sources, budget: int = BUDGET
) -> tuple[int, int]:
    """Estimated prompt and answer tokens of drafting ``records``, for ``--dry-run``."""
    prompt = sum(
        tokens(SYSTEM) + tokens(evidence(r, all_records, sources, budget).text()) for r in records
    )
    return prompt, ANSWER_TOKENS * len(records)


def read_docs(folder: Path) -> dict[str, str]:
    """The text of every Markdown, reStructuredText and text file under ``folder``."""
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if path.suffix.lower() in (".md", ".rst", ".txt", ".markdown") and path.is_file():
            try:
                found[path.relative_to(folder).as_posix()] = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
    return found


def known_for(
    records: Iterable[Record], sources: Sources, allowed: Iterable[str]
) -> grounding.Known:
    """What a draft may name: the source tree when given, else the records' excerpts and
    messages (all the code the site holds), with the docs and the allow-list."""
    code: list[tuple[str, str]] = list(sources.code.items())
    for record in records:
        excerpt = record.source.excerpt
        code.append((record.source.path, excerpt.code if excerpt else ""))
    return grounding.known_from(code, sources.docs.items(), allowed)


def progress_bar() -> Callable[[Report, int], None]:
    """A one-line progress report on a terminal: done, refused, failed, tokens, time left."""
    started = time.monotonic()

    def show(report: Report, total: int) -> None:
        stream = sys.stderr
        if not getattr(stream, "isatty", lambda: False)():
            return
        done = report.drafted + report.refused + report.failed
        spent = time.monotonic() - started
        left = spent / done * (total - done) if done else 0.0
        stream.write(
            f"\rerrdex draft: {done}/{total} · {report.drafted} drafted · {report.refused} refused"
            f" · {report.failed} failed · {report.prompt_tokens + report.answer_tokens:,} tokens"
            f" · about {_duration(left)} left  "
        )
        if done == total:
            stream.write("\n")
        stream.flush()

    return show


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min"
