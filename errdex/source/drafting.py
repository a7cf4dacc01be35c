"""The ``draft`` and ``review`` commands: reading the content, choosing records, and
saying what was done (``draft`` does the drafting)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from errdex.records import files
from errdex.records.model import PROSE, Record
from errdex.site.build import Options, gather
from errdex.source import avoid, draft, grounding, update
from errdex.source.scan import SourceError, Tree, resolve_commit


def _note(ns: argparse.Namespace, text: str) -> None:
    """A line for a person on standard error that is not an error: ``-q`` leaves it out."""
    if not ns.quiet:
        print(text, file=sys.stderr)


def _full_records(ns: argparse.Namespace) -> tuple[Any, list[Record]]:
    """The linked site and its records whole (prose and excerpts)."""
    site, _warnings = gather(
        Options(content=ns.content, strict=ns.strict, cache=None, publishing=False)
    )
    return site, list(site.records)


def draft_command(ns: argparse.Namespace) -> int:
    if not ns.model and not ns.dry_run:
        print(
            "errdex draft: no model named: give --model or set ERRDEX_DRAFT_MODEL",
            file=sys.stderr,
        )
        return 1
    site, records = _full_records(ns)
    known_ids = {i for r in records for i in (r.id, *r.aliases)}
    unknown = [i for i in dict.fromkeys(ns.only) if i not in known_ids]
    if unknown:
        # As review says it: a mistyped id is not "a record that needs no draft".
        for wanted in unknown:
            print(f"errdex draft: --only {wanted}: no record has this id", file=sys.stderr)
        return 1
    choice = draft.Choice(
        only=tuple(ns.only),
        repo=ns.repo,
        exception=ns.exception,
        limit=ns.limit,
        force=tuple(ns.force),
        stale=ns.stale,
    )
    reported = site.config.reported_of
    picked = draft.chosen(records, lambda i: len(reported(i).issues), choice)
    try:
        sources = _sources(ns, picked)
    except SourceError as exc:
        print(f"errdex draft: {exc}", file=sys.stderr)
        return 1
    if ns.dry_run:
        prompt, answer = draft.estimate(picked, records, sources, ns.budget)
        _note(
            ns,
            f"errdex draft: would draft {len(picked)} record(s): about {prompt:,} prompt and "
            f"{answer:,} answer tokens (estimated); nothing sent",
        )
        return 0
    if not picked:
        _note(ns, "errdex draft: no record needs a draft")
        return 0
    kept = ns.keep_rejected
    if kept is not None and (kept.is_dir() or not kept.parent.is_dir()):
        # Said before any request is spent, not after.
        print(f"errdex draft: --keep-rejected {kept}: not a file in a folder", file=sys.stderr)
        return 1
    from errdex.source.chat import Budget, Chat, Missing

    key = os.environ.get(ns.api_key_env)
    try:
        chat = Chat(ns.base_url, key, ns.model, ns.timeout, Budget(ns.max_wait))
    except Missing as exc:
        print(f"errdex draft: {exc}", file=sys.stderr)
        return 1
    known = draft.known_for(records, sources, site.config.allow)
    cache = draft.Cache(None if ns.no_cache else ns.cache)
    paths = {r.id: Path(r.file) for r in picked}
    report = draft.run(
        picked,
        paths,
        records,
        chat,
        known,
        sources,
        cache,
        jobs=ns.jobs,
        budget=ns.budget,
        retry_refused=ns.retry_refused,
        force=ns.force,
        verbose=ns.verbose,
        progress=None if ns.quiet else draft.progress_bar(),
    )
    for line in report.lines:
        if line.startswith("failed: ") or (
            not ns.quiet and (ns.verbose or not line.startswith("drafted: "))
        ):
            print(f"errdex draft: {line}", file=sys.stderr)
    if ns.keep_rejected is not None:
        text = json.dumps(report.rejected, indent=2, ensure_ascii=True, sort_keys=True)
        try:
            files.write_atomic(ns.keep_rejected, (text + "\n").encode())
        except OSError as exc:
            print(
                f"errdex draft: cannot write {ns.keep_rejected}: {exc.strerror or exc}",
                file=sys.stderr,
            )
    kinds = ", ".join(f"{n} {kind}" for kind, n in report.reasons.most_common())
    _note(
        ns,
        f"errdex draft: {report.drafted} drafted, {report.refused} refused"
        f"{f' ({kinds})' if kinds else ''}, {report.failed} failed; {report.asked} "
        f"request(s), {report.cached} answered from the cache; {report.prompt_tokens:,} "
        f"prompt and {report.answer_tokens:,} answer tokens",
    )
    return 1 if report.failed and not report.drafted and not report.refused else 0


def _sources(ns: argparse.Namespace, picked: list[Record]) -> draft.Sources:
    code: dict[str, str] = {}
    if ns.source is not None and picked:
        root = ns.source
        commit = None
        if Tree.is_git(root):
            commits = {resolve_commit(root, r.source.commit) for r in picked}
            if len(commits) > 1:
                raise SourceError(
                    f"--source is read at one commit, and these records are pinned to "
                    f"{len(commits)}: draft them a repository or a release at a time "
                    "(--repo, --only)"
                )
            (commit,) = commits
        tree = Tree(root, commit)
        code = {path: text for path, text in tree.read_all(tree.paths()) if text is not None}
    docs = draft.read_docs(ns.docs) if ns.docs is not None else {}
    return draft.Sources(code=code, docs=docs, declared=draft.declarations(code))


# --- review ----------------------------------------------------------------------------


def review_command(ns: argparse.Namespace) -> int:
    site, records = _full_records(ns)
    by_id = {r.id: r for r in records}
    for record in records:
        for alias in record.aliases:
            by_id.setdefault(alias, record)
    if ns.next:
        return _show_next(ns, records, site.config.allow)
    if not ns.ids:
        print("errdex review: name the records to review, or give --next", file=sys.stderr)
        return 2
    # A file keeps the name of the id its record had when it was made: `new` names it
    # so, and renaming a guessed placeholder gives the record another id.
    by_name: dict[str, list[Record]] = {}
    for record in records:
        by_name.setdefault(Path(record.file).stem, []).append(record)
    problems = 0
    for wanted in ns.ids:
        found = by_id.get(wanted)
        named = by_name.get(wanted, []) if found is None else []
        if found is None and wanted.endswith((".yaml", ".yml")):
            # The path new printed, or the file's name.
            given = Path(wanted).resolve()
            named = [r for r in records if Path(r.file).resolve() == given]
            if not named and Path(wanted).name == wanted:  # a name, not a path elsewhere
                named = by_name.get(Path(wanted).stem, [])
        if len(named) > 1:
            shown = ", ".join(files.shown_path(Path(r.file)) for r in named)
            print(
                f"errdex review: {wanted} names {len(named)} files ({shown}); give the id of one",
                file=sys.stderr,
            )
            problems += 1
            continue
        if named:
            (found,) = named
            shown = files.shown_path(Path(found.file))
            if not ns.quiet:
                print(
                    f"errdex review: {wanted} is {shown}, whose id is {found.id}", file=sys.stderr
                )
        if found is None:
            print(f"errdex review: no record has the id {wanted}", file=sys.stderr)
            problems += 1
            continue
        record = found
        analysis = record.data.get("analysis")
        shown = files.shown_path(Path(record.file))
        if not analysis or analysis.get("by") != draft.BY or not analysis.get("model"):
            print(f"errdex review: {shown}: has no AI-assisted draft", file=sys.stderr)
            problems += 1
            continue
        if analysis.get("rejected"):
            print(f"errdex review: {shown}: its draft was rejected", file=sys.stderr)
            problems += 1
            continue
        if ns.reject:
            # Edited before or after a review: what a person wrote is theirs to take out.
            answer = analysis.get("answer")
            if answer and draft.digest(draft.prose_of(record.data)) != answer:
                print(
                    f"errdex review: {shown}: a person has edited its draft; take out "
                    "what you do not want by hand",
                    file=sys.stderr,
                )
                problems += 1
                continue
            blocks: dict[str, Any] = {key: update.DROP for key in PROSE}
            blocks["analysis"] = {
                "by": draft.BY,
                "date": analysis.get("date"),
                "model": analysis.get("model"),
                "rejected": True,
            }
            verb = "rejected (its draft taken out; it will not be drafted again)"
        else:
            blocks = {"analysis": {**analysis, "reviewed": True}}
            verb = "marked reviewed"
            if record.analysis and record.analysis.stale:
                # A person checked it against the code as it is now: no longer stale.
                blocks["analysis"]["basis"] = draft.basis(record)
                verb += " for the code as it is now (it was drafted for an earlier version)"
        error = update.write_blocks(Path(record.file), blocks)
        if error:
            print(f"errdex review: {error}", file=sys.stderr)
            problems += 1
        else:
            _note(ns, f"errdex review: {shown}: {verb}")
    return 1 if problems else 0


def _show_next(ns: argparse.Namespace, records: list[Record], allowed: tuple[str, ...]) -> int:
    waiting = [r for r in records if r.analysis is not None and r.analysis.unreviewed]
    if not waiting:
        _note(ns, "errdex review: no draft is waiting for review")
        return 0
    record = waiting[0]
    known = draft.known_for(records, draft.Sources(), allowed)
    prose = draft.prose_of(record.data)
    reasons = grounding.refusals(prose, known)
    found = avoid.avoid_of(record)
    out = sys.stdout
    out.write(f"{files.shown_path(Path(record.file))} ({record.id}), 1 of {len(waiting)} waiting\n")
    out.write(f"{record.exception}: {record.message.display}\n\n")
    out.write(draft.code_text(record, around=12) + "\n\n")
    if found is not None:
        if found.guards:
            tests = " and ".join(f"`{test}`" for test in avoid.anded(found.guards))
            out.write(f"Raised when: {tests}\n")
        out.write("Derived from the code:\n")
        out.writelines(f"  - {way}\n" for way in avoid.sayings(found))
        out.write("\n")
    out.write("The draft:\n")
    out.write(json.dumps(prose, indent=2, ensure_ascii=False) + "\n\n")
    if reasons:
        out.write("Grounding now finds:\n")
        out.writelines(f"  - {reason}\n" for reason in reasons)
    else:
        out.write(
            "Grounding: every flag, variable, name and file it mentions is in the code the "
            "site holds; the Python parses; no HTML and no placeholder.\n"
        )
    out.write(
        f"\nerrdex review {record.id}            to mark it reviewed\n"
        f"errdex review --reject {record.id}   to take the draft out\n"
    )
    if record.analysis and record.analysis.stale:
        out.write("Note: the code changed since it was drafted (errdex draft --stale).\n")
    return 0
