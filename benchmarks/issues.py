"""How well and how fast ``issues import`` links issues to errors: ``python -m benchmarks.issues``.

Quality, on the real corpus (``benchmarks.real``: transformers, cached under
.errdex/bench/): a seeded corpus of GitHub issue bodies as people write them
(``make_issues``):

- ``bug``: a bug report (System Info, Reproduction, the error, Expected behavior) that
  pastes one error in a shape of ``benchmarks.real_pastes`` (all but ``pieces``), in a
  fence, a ``<details>`` block or bare;
- ``two errors``: a bug report pasting two different errors, each as a traceback;
- negatives, which must link nothing: ``feature`` requests, ``question``s and ``docs``
  issues; ``in passing``, prose that quotes a few words of a real message ("I used to
  see "… must be divisible by …" but now …"); ``piece``, a bug report that pastes only
  a piece of a real message; ``foreign``, a bug report pasting an error of other software.

The issues go through the command itself (``build.py issues import`` in a process of its
own, on a gh-shaped export, into a fresh copy of the corpus's content folder); the issue
file it writes is scored. A link is right when it is a record whose error the issue
pastes, or one with the same message (same exception and literal text, raised at another
place), or another template that prints the pasted message whole (no reader could tell
them apart). Precision: right links / links. Recall: pasted errors linked / pasted errors.

Speed: 10,000 issues of the same generator, made from the synthetic corpus of
``benchmarks.corpus`` (10,000 records), imported by the command into a fresh content
folder, wall time from process start (target <= 60 s).
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errdex import search

from . import real, real_pastes
from . import search as bench
from .corpus import generate, write_content
from .pastes import foreign_paste

ROOT = Path(__file__).resolve().parent.parent
TARGET_PRECISION = 0.99
TARGET_RECALL = 0.90
TARGET_SECONDS = 60.0
SPEED_RECORDS = 10_000
SPEED_ISSUES = 10_000

BUG_SHAPES = tuple(s for s in real_pastes.SHAPES if s != "pieces")
"""A whole error, as bug reports paste it; a piece of one is the ``piece`` kind."""
NEGATIVE = ("feature", "question", "docs", "in passing", "piece", "foreign")
MIX: dict[tuple[str, str], int] = {
    **{("bug", shape): 100 for shape in BUG_SHAPES},
    ("two errors", "traceback"): 150,
    ("feature", ""): 100,
    ("question", ""): 100,
    ("docs", ""): 50,
    ("in passing", ""): 100,
    ("piece", ""): 100,
    ("foreign", ""): 100,
}
"""Issues of each kind (and shape) in a corpus of 1,500; other sizes keep the proportions."""
PIECE_MIN_WORDS = 6
"""A message quoted in part has at least this many words, so that a piece of it (at most
four fifths of its words, cut mid-word at both ends) is never the whole of it."""


# --- The corpus ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pasted:
    """An error an issue pastes."""

    id: str
    """The record it was made from."""
    shape: str
    template: str
    text: str
    """The paste, as put in the body."""
    printed_too: frozenset[str] = frozenset()
    """Records of other templates that print the same message whole."""


@dataclass(frozen=True, slots=True)
class Made:
    """A generated issue, and the errors it pastes (none for the negatives)."""

    number: int
    kind: str
    shape: str
    title: str
    body: str
    pasted: tuple[Pasted, ...]
    quoted: str
    """The error text as put in the body (a paste, a piece, a foreign error), for reports."""


def mix(total: int) -> list[tuple[str, str]]:
    """``total`` (kind, shape) pairs in MIX's proportions, in MIX's order."""
    base = sum(MIX.values())
    counts = {key: round(count * total / base) for key, count in MIX.items()}
    largest = max(counts, key=lambda key: counts[key])
    counts[largest] += total - sum(counts.values())
    return [key for key, count in counts.items() for _ in range(count)]


def make_issues(
    records: Mapping[str, Mapping[str, Any]], index: search.Index, total: int, seed: int
) -> list[Made]:
    """``total`` issues in MIX's proportions, numbered from 1 in a shuffled order; the
    same for the same records, index and seed."""
    rng = random.Random(seed)
    messages: dict[tuple[str, ...], list[int]] = {}
    for entry in index.entries:
        if bench.sampleable(entry) and entry.id in records:
            messages.setdefault(search.same_message(entry), []).append(entry.index)
    groups = list(messages.values())
    plan = mix(total)
    rng.shuffle(plan)

    def pick(long: bool = False) -> search.Entry:
        while True:
            places = groups[rng.randrange(len(groups))]
            entry = index.entries[places[rng.randrange(len(places))]]
            if not long or len(str(records[entry.id]["message"]).split()) >= PIECE_MIN_WORDS:
                return entry

    def paste(entry: search.Entry, shape: str) -> tuple[str, Pasted]:
        record = records[entry.id]
        message = real_pastes.fill(record, rng)
        text = real_pastes.dress(record, message, shape, rng)
        also = {o.id for o in bench.could_have_printed(index, message, entry)}
        return text, Pasted(entry.id, shape, entry.template, text, frozenset(also))

    def piece(entry: search.Entry) -> str:
        record = records[entry.id]
        return real_pastes.dress(record, real_pastes.fill(record, rng), "pieces", rng)

    made = []
    for number, (kind, shape) in enumerate(plan, 1):
        pasted: tuple[Pasted, ...] = ()
        if kind == "bug":
            entry = pick()
            quoted, one = paste(entry, shape)
            pasted = (one,)
            exception = entry.exception.rsplit(".", 1)[-1]
            title = _bug_title(rng, exception)
            body = quoted if shape == "issue" else _bug_report(rng, [quoted], shape)
        elif kind == "two errors":
            first = pick()
            second = pick()
            while search.same_message(second) == search.same_message(first):
                second = pick()
            text1, one = paste(first, shape)
            text2, two = paste(second, shape)
            pasted = (one, two)
            quoted = f"{text1}\n…\n{text2}"
            title = _bug_title(rng, second.exception.rsplit(".", 1)[-1])
            body = _bug_report(rng, [text1, text2], shape)
        elif kind == "piece":
            entry = pick(long=True)
            quoted = piece(entry)
            if rng.random() < 0.5:
                quoted = f"{entry.exception.rsplit('.', 1)[-1]}: …{quoted}…"
            title = _bug_title(rng, entry.exception.rsplit(".", 1)[-1])
            body = _bug_report(rng, [quoted], "piece")
        elif kind == "in passing":
            entry = pick(long=True)
            quoted = piece(entry)
            title, body = _in_passing(rng, quoted, entry.exception.rsplit(".", 1)[-1])
        elif kind == "foreign":
            quoted = foreign_paste(rng)
            while bench.foreign_in_corpus(index, quoted):
                quoted = foreign_paste(rng)
            title = _bug_title(rng, quoted.split(":", 1)[0].rsplit(".", 1)[-1][:40])
            body = _bug_report(rng, [quoted], "foreign")
        else:
            quoted = ""
            title, body = _QUIET[kind](rng)
        made.append(Made(number, kind, shape, title, body, pasted, quoted))
    return made


# --- Issue bodies --------------------------------------------------------------------

_ENV_DUMPS = (
    (
        "- `transformers` version: 4.57.1",
        "- Platform: Linux-6.8.0-45-generic-x86_64-with-glibc2.39",
        "- Python version: 3.12.3",
        "- Huggingface_hub version: 0.35.3",
        "- Safetensors version: 0.6.2",
        "- Accelerate version: 1.10.1",
        "- PyTorch version (accelerator?): 2.8.0+cu128 (CUDA)",
        "- Using distributed or parallel set-up in script?: no",
        "- Using GPU in script?: yes",
        "- GPU type: NVIDIA H100 80GB HBM3",
    ),
    (
        "transformers==4.57.1",
        "torch==2.8.0",
        "accelerate==1.10.1",
        "datasets==4.1.1",
        "tokenizers==0.22.1",
        "peft==0.17.1",
    ),
    (
        "- transformers 4.57.1, torch 2.7.1 (cpu), Python 3.11.9",
        "- macOS 15.1 (arm64), no GPU",
    ),
    (
        "Package            Version",
        "------------------ -----------",
        "accelerate         1.10.1",
        "huggingface-hub    0.35.3",
        "torch              2.8.0",
        "transformers       4.57.1",
    ),
)
_CODE = (
    (
        "from transformers import AutoModelForCausalLM, AutoTokenizer",
        "",
        'model_id = "{model}"',
        "tokenizer = AutoTokenizer.from_pretrained(model_id)",
        'model = AutoModelForCausalLM.from_pretrained(model_id, device_map="auto")',
        'inputs = tokenizer("Hello", return_tensors="pt").to(model.device)',
        "out = model.generate(**inputs, max_new_tokens=20)",
    ),
    (
        "from transformers import pipeline",
        "",
        'pipe = pipeline("text-generation", model="{model}")',
        'print(pipe("The capital of France is"))',
    ),
    (
        "from transformers import Trainer, TrainingArguments",
        "",
        'args = TrainingArguments(output_dir="out", per_device_train_batch_size=8, bf16=True)',
        "trainer = Trainer(model=model, args=args, train_dataset=ds)",
        "trainer.train()",
    ),
    (
        "from transformers import AutoProcessor",
        "",
        'processor = AutoProcessor.from_pretrained("{model}")',
        'batch = processor(images=image, text="describe", return_tensors="pt")',
    ),
)
_LEADS = (
    "Running the snippet above fails with:",
    "I get the following error:",
    "Full traceback:",
    "Error:",
    "This worked with 4.56 but now I get",
    "Logs:",
    "Output:",
)
_EXPECTED = (
    "The model should load and generate as it did before.",
    "No error.",
    "Training should run to the end.",
    "I would expect a clearer error message, or for this to just work.",
)
_FENCES = (
    "```\n{0}\n```",
    "```python\n{0}\n```",
    "```shell\n{0}\n```",
    "~~~\n{0}\n~~~",
    "<details>\n<summary>Full traceback</summary>\n\n```\n{0}\n```\n\n</details>",
    "{0}",
)


def _bug_title(rng: random.Random, exception: str) -> str:
    model = rng.choice(real_pastes.MODELS)
    return rng.choice(
        (
            f"{exception} when loading {model}",
            f"[BUG] {rng.choice(real_pastes.CLASSES)} raises {exception}",
            f"Training crashes with {exception} after upgrading to 4.57.1",
            f"Can't run {model}",
            "generate() fails on the latest release",
        )
    )


def _bug_report(rng: random.Random, errors: Sequence[str], shape: str) -> str:
    """A bug report from the transformers issue template, pasting each of ``errors``."""
    parts = ["### System Info", ""]
    dump = list(rng.choice(_ENV_DUMPS))
    if rng.random() < 0.4:
        parts += ["<details><summary>Environment</summary>", "", "```", *dump, "```", "</details>"]
    else:
        parts += dump
    parts += [
        "",
        "### Who can help?",
        "",
        rng.choice(("@ArthurZucker", "@Cyrilvallez", "@zucchini")),
    ]
    parts += ["", "### Reproduction", ""]
    code = "\n".join(rng.choice(_CODE)).replace("{model}", rng.choice(real_pastes.MODELS))
    parts += ["```python", code, "```", ""]
    for number, error in enumerate(errors):
        if number:
            parts += [
                rng.choice(
                    (
                        "After fixing that (I passed what it asked for), I get another one:",
                        "Then, on the second batch:",
                        "With `device_map=None` instead, a different error:",
                    )
                ),
                "",
            ]
        else:
            parts += [rng.choice(_LEADS), ""]
        # A bare paste is read line by line; http bodies and logs are usually fenced.
        fence = rng.choice(_FENCES if shape in ("traceback", "wrapper", "plain") else _FENCES[:5])
        parts += [fence.format(error), ""]
    if rng.random() < 0.8:
        parts += ["### Expected behavior", "", rng.choice(_EXPECTED)]
    return "\n".join(parts)


_FEATURES = (
    ("Support for {cls} in the ONNX export", "We deploy on CPUs behind Triton."),
    ('Add `attn_implementation="flex_attention"` to {cls}', "It is faster on long inputs."),
    ("Allow `device_map` to take a list of GPUs", "We share nodes with other jobs."),
    ("Stream tokens from `pipeline`", "A chat UI needs tokens as they come."),
    ("Load GGUF checkpoints of {model}", "Most community quantisations are GGUF now."),
    ("Return per-token log-probs from `generate`", "For calibration experiments."),
)


def _feature(rng: random.Random) -> tuple[str, str]:
    what, why = rng.choice(_FEATURES)
    what = what.format(cls=rng.choice(real_pastes.CLASSES), model=rng.choice(real_pastes.MODELS))
    parts = ["### Feature request", "", f"{what}.", "", "### Motivation", "", why]
    if rng.random() < 0.4:
        exception = rng.choice(("ValueError", "NotImplementedError", "TypeError"))
        parts += [
            "",
            f"Today this raises a {exception} and we keep a fork with the check removed.",
        ]
    if rng.random() < 0.5:
        parts += [
            "",
            "```python",
            "model.generate(**inputs, output_logits=True, stream=True)",
            "```",
        ]
    parts += ["", "### Your contribution", "", rng.choice(("I can open a PR.", "Happy to test."))]
    return what, "\n".join(parts)


_QUESTIONS = (
    "How do I fine-tune {model} with LoRA on a single 24 GB GPU?",
    "Is `use_cache=False` still needed with gradient checkpointing?",
    "What is the difference between `dtype` and `torch_dtype` in from_pretrained?",
    "Why is {cls} slower than the original implementation?",
    "Which attention implementation does {model} use by default?",
)


def _question(rng: random.Random) -> tuple[str, str]:
    question = rng.choice(_QUESTIONS).format(
        model=rng.choice(real_pastes.MODELS), cls=rng.choice(real_pastes.CLASSES)
    )
    parts = [question, "", "I read the docs and the forum but could not find an answer."]
    if rng.random() < 0.5:
        code = "\n".join(rng.choice(_CODE)).replace("{model}", rng.choice(real_pastes.MODELS))
        parts += ["", "This is what I run:", "", "```python", code, "```"]
    if rng.random() < 0.3:
        parts += [
            "",
            "It prints this warning, is that expected?",
            "",
            "```",
            f"Some weights of {rng.choice(real_pastes.CLASSES)} were not initialized from the "
            "model checkpoint and are newly initialized: ['classifier.bias', "
            "'classifier.weight']",
            "You should probably TRAIN this model on a down-stream task to be able to use it "
            "for predictions and inference.",
            "```",
        ]
    return question, "\n".join(parts)


def _docs(rng: random.Random) -> tuple[str, str]:
    cls = rng.choice(real_pastes.CLASSES)
    title = f"Docs: {cls}.from_pretrained example is out of date"
    body = "\n".join(
        [
            "### Documentation",
            "",
            f"The page https://huggingface.co/docs/transformers/main/en/model_doc/{cls.lower()} "
            "still passes `torch_dtype`, which is deprecated in favour of `dtype`.",
            "",
            "```python",
            f'model = {cls}.from_pretrained("{rng.choice(real_pastes.MODELS)}", '
            "torch_dtype=torch.float16)",
            "```",
            "",
            "Also the link to the quantization guide is broken (404).",
        ]
    )
    return title, body


_QUIET = {"feature": _feature, "question": _question, "docs": _docs}

_PASSING = (
    'I used to see "{piece}" but now nothing happens: generation just hangs.',
    "Since 4.57 the {exception} about `{piece}` is gone, but the outputs are garbage.",
    'Similar to #{n} ("{piece}"), except that here the model loads and the loss is NaN.',
    "The message ({piece}…) was fixed in #{n}; this is about the memory use after that.",
    "> {piece}\n\nThat one is fixed on main. What remains is that the tokenizer drops the BOS.",
)


def _in_passing(rng: random.Random, piece: str, exception: str) -> tuple[str, str]:
    said = rng.choice(_PASSING).format(
        piece=piece, exception=exception, n=rng.randint(30000, 40000)
    )
    code = "\n".join(rng.choice(_CODE)).replace("{model}", rng.choice(real_pastes.MODELS))
    body = "\n".join(
        [
            "### System Info",
            "",
            *rng.choice(_ENV_DUMPS),
            "",
            "### Reproduction",
            "",
            "```python",
            code,
            "```",
            "",
            said,
            "",
            "### Expected behavior",
            "",
            rng.choice(_EXPECTED),
        ]
    )
    return "Silent failure after the last fix", body


# --- Export, import, score -----------------------------------------------------------


def export(issues: Sequence[Made], repo: str) -> list[dict[str, Any]]:
    """The issues as ``gh issue list --json number,title,body,state,url,createdAt,
    closedAt,labels`` gives them."""
    out = []
    for issue in issues:
        day = datetime.date(2025, 1, 1) + datetime.timedelta(days=issue.number % 300)
        closed = issue.number % 3 == 0
        labels = {"bug": "bug", "two errors": "bug", "feature": "Feature request"}
        out.append(
            {
                "number": issue.number,
                "title": issue.title,
                "body": issue.body,
                "state": "CLOSED" if closed else "OPEN",
                "url": f"https://github.com/{repo}/issues/{issue.number}",
                "createdAt": f"{day}T10:00:00Z",
                "closedAt": f"{day + datetime.timedelta(days=7)}T10:00:00Z" if closed else None,
                "labels": [{"name": labels.get(issue.kind, "question")}],
            }
        )
    return out


@dataclass(frozen=True, slots=True)
class Imported:
    wall: float
    """Seconds from the process's start to its exit."""
    cpu: float
    """CPU seconds of the process and its workers: other work on a shared machine changes
    it far less than the wall time."""
    links: dict[int, list[str]]
    """Issue number → the record ids the issue file lists."""
    said: str


def run_import(issues: Sequence[Made], repo: str, content: Path, work: Path) -> Imported:
    """Import the issues with the command, in a process of its own started in ``work``."""
    path = work / "export.json"
    path.write_text(json.dumps(export(issues, repo)), encoding="utf-8")
    command = [sys.executable, str(ROOT / "build.py"), "issues", "import", str(path)]
    command += ["--repo", repo, "--content", str(content)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=work, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise RuntimeError(f"issues import failed ({done.returncode}): {done.stderr[-2000:]}")
    owner, name = repo.split("/")
    written = json.loads((content / "issues" / owner / f"{name}.json").read_text("utf-8"))
    links = {int(i["number"]): list(i["errors"]) for i in written["issues"]}
    return Imported(wall, cpu, links, done.stderr.strip())


@dataclass(slots=True)
class Row:
    issues: int = 0
    pasted: int = 0
    found: int = 0
    links: int = 0
    right: int = 0
    linked_issues: int = 0


@dataclass(slots=True)
class Score:
    rows: dict[str, Row] = field(default_factory=dict)
    false_links: list[tuple[Made, str]] = field(default_factory=list)
    """An issue and a record it links that it does not paste."""
    missed: list[tuple[Made, Pasted]] = field(default_factory=list)

    @property
    def total(self) -> Row:
        out = Row()
        for row in self.rows.values():
            out.issues += row.issues
            out.pasted += row.pasted
            out.found += row.found
            out.links += row.links
            out.right += row.right
            out.linked_issues += row.linked_issues
        return out


def ratio(part: int, whole: int) -> float:
    return part / whole if whole else 1.0


def label(issue: Made) -> str:
    return f"{issue.kind}/{issue.shape}" if issue.kind == "bug" else issue.kind


def score(issues: Sequence[Made], links: Mapping[int, Sequence[str]], index: search.Index) -> Score:
    """Right links and found errors per kind of issue (bugs per shape). A link is right
    when it is a pasted error's record, one with its message (``search.same_message``),
    or one of a template that prints the pasted message whole."""
    groups: dict[tuple[str, ...], set[str]] = {}
    for entry in index.entries:
        groups.setdefault(search.same_message(entry), set()).add(entry.id)
    by_id = {entry.id: entry for entry in index.entries}

    def right(pasted: Pasted) -> set[str]:
        ids = set(groups[search.same_message(by_id[pasted.id])])
        for other in pasted.printed_too:
            ids |= groups[search.same_message(by_id[other])]
        return ids

    result = Score()
    for issue in issues:
        row = result.rows.setdefault(label(issue), Row())
        linked = list(links.get(issue.number, ()))
        accepted = [right(p) for p in issue.pasted]
        row.issues += 1
        row.pasted += len(issue.pasted)
        row.links += len(linked)
        row.linked_issues += bool(linked)
        for pasted, ids in zip(issue.pasted, accepted, strict=True):
            if ids & set(linked):
                row.found += 1
            else:
                result.missed.append((issue, pasted))
        for record in linked:
            if any(record in ids for ids in accepted):
                row.right += 1
            else:
                result.false_links.append((issue, record))
    return result


# --- Report --------------------------------------------------------------------------


def report(result: Score, index: search.Index, misses: int) -> bool:
    """The table per kind, the totals against the targets, the worst misses; whether both
    targets are met."""
    print(
        f"\n{'kind':<16} {'issues':>6} {'errors':>6} {'found':>6} {'recall':>7} "
        f"{'links':>6} {'right':>6} {'precision':>9}"
    )
    for name in sorted(result.rows, key=lambda n: (n.split("/")[0] in NEGATIVE, n)):
        row = result.rows[name]
        found = f"{ratio(row.found, row.pasted):.1%}" if row.pasted else "-"
        right = f"{ratio(row.right, row.links):.1%}" if row.links else "-"
        print(
            f"{name:<16} {row.issues:>6} {row.pasted:>6} {row.found:>6} {found:>7} "
            f"{row.links:>6} {row.right:>6} {right:>9}"
        )
    total = result.total
    precision = ratio(total.right, total.links)
    recall = ratio(total.found, total.pasted)
    negatives = [r for n, r in result.rows.items() if n in NEGATIVE]
    quiet = sum(r.issues - r.linked_issues for r in negatives)
    print(
        f"{'overall':<16} {total.issues:>6} {total.pasted:>6} {total.found:>6} {recall:>7.1%} "
        f"{total.links:>6} {total.right:>6} {precision:>9.1%}"
    )
    print(
        f"\nprecision {precision:.2%} ({total.right} of {total.links} links right; target "
        f">= {TARGET_PRECISION:.0%}: {'met' if precision >= TARGET_PRECISION else 'MISSED'})"
    )
    print(
        f"recall {recall:.2%} ({total.found} of {total.pasted} pasted errors linked; target "
        f">= {TARGET_RECALL:.0%}: {'met' if recall >= TARGET_RECALL else 'MISSED'})"
    )
    print(
        f"issues that paste no error and link nothing: {quiet} of "
        f"{sum(r.issues for r in negatives)}"
    )
    by_id = {entry.id: entry for entry in index.entries}
    print(f"\nfalse links ({len(result.false_links)}; {misses} shown, in turn by kind):")
    for issue, record in _in_turn(result.false_links, misses):
        template = bench.short(by_id[record].template)
        print(f"- {label(issue)} #{issue.number}: linked {record} {template!r}")
        if issue.pasted:
            print(
                f"    pastes {', '.join(p.id for p in issue.pasted)}: {bench.excerpt(issue.quoted)}"
            )
        else:
            print(f"    quotes: {bench.excerpt(issue.quoted or issue.body)}")
    print(f"\nmissed errors ({len(result.missed)}; {misses} shown, in turn by shape):")
    for issue, pasted in _in_turn(result.missed, misses):
        print(
            f"- {label(issue)} #{issue.number} ({pasted.shape}): {pasted.id} "
            f"{bench.short(pasted.template)!r}"
        )
        print(f"    paste: {bench.excerpt(pasted.text)}")
    return precision >= TARGET_PRECISION and recall >= TARGET_RECALL


def _in_turn(items: Sequence[tuple[Made, Any]], count: int) -> list[tuple[Made, Any]]:
    """Up to ``count`` items, taken in turn from the kinds with the most."""
    by_kind: dict[str, list[tuple[Made, Any]]] = {}
    for item in items:
        by_kind.setdefault(label(item[0]), []).append(item)
    order = sorted(by_kind, key=lambda kind: -len(by_kind[kind]))
    out: list[tuple[Made, Any]] = []
    for turn in range(count):
        out += [by_kind[kind][turn] for kind in order if turn < len(by_kind[kind])]
    return out[:count]


# --- Runs ----------------------------------------------------------------------------


def quality(args: argparse.Namespace, work: Path) -> tuple[bool, float]:
    started = time.perf_counter()
    found = real.corpus()
    index = real.load_index(found)
    records = {str(r["id"]): r for r in real.load_records(found)}
    issues = make_issues(records, index, args.issues, args.seed)
    content = work / "real-content"
    shutil.copytree(found.content, content, ignore=shutil.ignore_patterns("issues"))
    prepared = time.perf_counter() - started
    print(
        f"\ncorpus: {found.version} ({len(index.entries):,} records); {len(issues):,} issues "
        f"(seed {args.seed}, {prepared:.1f}s to prepare): "
        + ", ".join(f"{n} {k}" for k, n in _kinds(issues).items())
    )
    (work / "real").mkdir()
    done = run_import(issues, real.REPO, content, work / "real")
    print(f"import: {done.said}")
    print(
        f"import of {len(issues):,} issues against {len(index.entries):,} records: "
        f"{done.wall:.1f} s wall from process start, {done.cpu:.1f} s CPU"
    )
    return report(score(issues, done.links, index), index, args.misses), done.wall


def speed(args: argparse.Namespace, work: Path) -> bool:
    started = time.perf_counter()
    records = generate(args.records, seed=args.seed)
    content = work / "synthetic-content"
    write_content(content, records)
    index = bench.build_index(records)
    by_id = {bench.record_id(r): r for r in records}
    issues = make_issues(by_id, index, args.speed_issues, args.seed)
    print(
        f"\nspeed: {len(issues):,} issues made from {len(records):,} synthetic records "
        f"(benchmarks.corpus, seed {args.seed}; {time.perf_counter() - started:.1f}s to "
        "prepare)"
    )
    (work / "synthetic").mkdir()
    done = run_import(issues, "example/bench", content, work / "synthetic")
    print(f"import: {done.said}")
    met = done.wall <= TARGET_SECONDS
    print(
        f"import of {len(issues):,} issues against {len(records):,} records: {done.wall:.1f} s "
        f"wall from process start (target <= {TARGET_SECONDS:.0f} s: "
        f"{'met' if met else 'MISSED'}); {done.cpu:.1f} s CPU in all, on "
        f"{bench.machine().split(',')[0]}"
    )
    result = score(issues, done.links, index)
    total = result.total
    print(
        f"(on these synthetic issues: precision {ratio(total.right, total.links):.1%}, "
        f"recall {ratio(total.found, total.pasted):.1%})"
    )
    return met


def _kinds(issues: Sequence[Made]) -> dict[str, int]:
    """Issues of each kind, in MIX's order."""
    counts = dict.fromkeys((kind for kind, _ in MIX), 0)
    for issue in issues:
        counts[issue.kind] += 1
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.issues", description=__doc__)
    parser.add_argument("--issues", type=int, default=1500, help="real corpus: issues (1500)")
    parser.add_argument(
        "--speed-issues", type=int, default=SPEED_ISSUES, help="speed: issues (10000)"
    )
    parser.add_argument(
        "--records", type=int, default=SPEED_RECORDS, help="speed: synthetic records (10000)"
    )
    parser.add_argument("--misses", type=int, default=15, help="misses shown of each sort (15)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="150 issues; 1,000 against 1,000")
    parser.add_argument("--no-speed", action="store_true", help="skip the 10,000-issue import")
    parser.add_argument("--no-quality", action="store_true", help="skip the real corpus")
    args = parser.parse_args(argv)
    if args.quick:
        args.issues, args.speed_issues, args.records = 150, 1000, 1000
    print(
        f"date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; machine: "
        f"{bench.machine()}; Python {platform.python_version()}"
    )
    with tempfile.TemporaryDirectory(prefix="errdex-issues-") as tmp:
        ok = True
        if not args.no_quality:
            ok &= quality(args, Path(tmp))[0]
        if not args.no_speed:
            ok &= speed(args, Path(tmp))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
