"""The error a GitHub issue pastes, wherever it sits in the text people post (#39).

What triage and ``issues import`` report (``reports.found_in``): a log line of an older
release, an error amid prose, after an environment dump or in a table, the cause of a
crash rather than its wrapper; and nothing for another project's error. Each body is read
from the records' YAML and from the index a build wrote, and both report the same.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from conftest import build_site, make_content

from errdex import search
from errdex.github import reports
from errdex.github.reports import Found, found_in
from errdex.search import sources


def record(exception: str, message: str, path: str = "serve/engine.py") -> str:
    return f"""\
repo: example/serve
exception: {exception}
message: {json.dumps(message)}
source:
  commit: "b222222222222222222222222222222222222222"
  path: {path}
  line: 2
  excerpt:
    start: 1
    code: |
      def start():
          raise {exception}("...")
"""


BLOCKS = (
    "No available memory for the cache blocks. "
    "Try increasing `gpu_memory_utilization` when initializing the engine."
)
DIVISIBLE = "tensor_parallel_size={tp} must be divisible by data_parallel_size={dp}."
WRAPPER = "Engine core initialization failed. See root cause above. Failed core proc(s): {procs}"
DEAD = "EngineCore encountered an issue. See stack trace (above) for the root cause."
RECORDS = {
    "example/serve/divisible.yaml": record("ValueError", DIVISIBLE, "serve/engine/core.py"),
    "example/serve/blocks.yaml": record("ValueError", BLOCKS),
    # Wrappers, kept in triage here: they are named when nothing else is.
    "example/serve/engine-core.yaml": record("RuntimeError", WRAPPER, "serve/engine/client.py"),
    "example/serve/dead.yaml": record("EngineDeadError", DEAD),
    # Words of a foreign message, raised here with other words around them.
    "example/serve/graph-memory.yaml": record(
        "RuntimeError",
        "CUDA out of memory while capturing the graph of batch size {size}. "
        "Lower `max_num_seqs` and start again.",
    ),
}
WEIGHTS = "No weights file named {name} in the folder {folder}."
RECORDS["example/serve/weights.yaml"] = record("EnvironmentError", WEIGHTS, "serve/weights.py")
LOST = "The scheduler lost track of request {rid} while draining the queue."
RECORDS["example/serve/lost.yaml"] = record("Exception", LOST, "serve/scheduler.py")
DROPPED = "The scheduler dropped request {rid} from the waiting queue: {reason}"
RECORDS["example/serve/dropped.yaml"] = record("RuntimeError", DROPPED, "serve/scheduler.py")
SAID = "ValueError: tensor_parallel_size=8 must be divisible by data_parallel_size=3."


def source_of(read_from: str, root: Path, records: dict[str, str]) -> sources.Source:
    """The records as triage reads them: from their YAML, or from a site built of them."""
    content = make_content(root, records)
    if read_from == "records":
        return sources.content_source(content, strict=False)
    return sources.site_source(sources.FolderStore(build_site(content, root)))


@pytest.fixture(scope="module", params=["records", "built index"])
def source(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> sources.Source:
    return source_of(request.param, tmp_path_factory.mktemp("issue-text"), RECORDS)


def messages(found: list[Found]) -> list[str]:
    return [f.message for f in found]


# --- log lines of older releases ----------------------------------------------------------


def test_an_older_releases_log_line_names_its_record_with_the_values(
    source: sources.Source,
) -> None:
    body = (
        "The server stops right after loading the weights:\n\n"
        "INFO 10-11 16:03:02 llm_engine.py:237] Initializing an LLM engine (v0.6.1)\n"
        f"ERROR 10-11 16:03:09 engine.py:157] {SAID}\n"
        "INFO 10-11 16:03:09 launcher.py:12] Shutting down\n"
    )
    (found,) = found_in(source, body)
    assert found.message == DIVISIBLE
    assert found.values == (("tp", "8"), ("dp", "3"))
    assert (found.line, found.line_text) == (4, SAID)


def test_a_workers_line_repeated_across_a_cluster_names_its_record(
    source: sources.Source,
) -> None:
    body = (
        "With Ray on two nodes:\n"
        f"(RayWorkerWrapper pid=5120) ERROR 08-27 05:12:18 worker_base.py:382] {SAID}"
        " [repeated 6x across cluster]\n"
    )
    (found,) = found_in(source, body)
    assert found.values == (("tp", "8"), ("dp", "3"))
    assert found.confidence >= 0.9  # a whole message, the note of Ray's left out


def test_a_node_error_in_comfyuis_log_names_its_record(source: sources.Source) -> None:
    body = (
        "The workflow stops at the loader node:\n\n```\ngot prompt\n"
        "!!! Exception during processing !!! No available memory for the cache blocks. "
        "Try increasing `gpu_memory_utilization` when initializing the engine.\n"
        "Traceback (most recent call last):\n"
        '  File "/app/execution.py", line 151, in recursive_execute\n```\n'
    )
    assert messages(found_in(source, body)) == [BLOCKS]


def test_a_class_python_prints_by_another_name_names_its_record(source: sources.Source) -> None:
    """``raise EnvironmentError(…)`` prints ``OSError: …``: the same class."""
    said = "No weights file named model.bin in the folder ./checkpoints."
    assert messages(found_in(source, f"Loading fails with\n\nOSError: {said}\n")) == [WEIGHTS]
    assert found_in(source, f"Loading fails with\n\nKeyError: {said}\n") == []


def test_a_line_starting_with_exception_names_a_record_raising_that_class_alone(
    source: sources.Source,
) -> None:
    """``raise Exception(…)`` prints ``Exception: …``: no record raising another class
    printed that line, whatever its words."""
    lost = "Exception: The scheduler lost track of request 7 while draining the queue."
    assert messages(found_in(source, f"The server logs\n\n{lost}\n")) == [LOST]
    other = SAID.replace("ValueError", "Exception")
    assert found_in(source, f"The server logs\n\n{other}\n") == []


def test_a_line_cut_inside_a_sentence_then_other_words_names_nothing(
    source: sources.Source,
) -> None:
    """A line that stops inside the message's sentence and goes on, on the next line,
    in other words is another message; stopping there at the paste's end, it is cut."""
    start = "ValueError: No available memory for the cache"
    assert messages(found_in(source, f"It stops with\n\n{start}\n")) == [BLOCKS]
    other = f"It stops with\n\n{start}\npool of the draft model; lower its size.\n"
    assert found_in(source, other) == []
    traceback_after = f"It stops with\n\n{start}\nTraceback (most recent call last):\n"
    assert messages(found_in(source, traceback_after)) == [BLOCKS]


# --- the error amid what people write around it -------------------------------------------

AROUND = {
    "between numbered questions": (
        "1. How do I spread one model over 8 GPUs? Starting it I get an error\n"
        f"{SAID}\n"
        "2. Why is the first request slower than the others.\n"
    ),
    "quoted in a sentence": f'Starting it prints "{SAID}" and stops.',
    "in inline code in a list": f"- what fails: `{SAID}` on start\n- what works: one GPU\n",
    "after a heading, before an environment dump": (
        f"### Describe the bug\n{SAID}\nCollecting environment information...\n"
        "PyTorch version: 2.5.1\nIs debug build: False\nOS: Ubuntu 22.04.4 LTS (x86_64)\n"
    ),
    "before the packages": f"{SAID}\nnumpy==1.26.4\ntorch==2.5.1\ntransformers==4.46.0\n",
    "before a Markdown table": f"{SAID}\n| GPUs | result |\n| --- | --- |\n| 8 | fails |\n",
    "in a table cell": f"| GPUs | result |\n| --- | --- |\n| 8 | {SAID} |\n| 4 | runs |\n",
    "in bold at the end of a sentence": f"The log ends with **{SAID}**",
}


@pytest.mark.parametrize("body", AROUND.values(), ids=AROUND.keys())
def test_an_error_amid_prose_names_its_record_with_the_values(
    source: sources.Source, body: str
) -> None:
    found = found_in(source, body)
    assert [(f.message, f.values) for f in found] == [(DIVISIBLE, (("tp", "8"), ("dp", "3")))]


# --- causes before wrappers ---------------------------------------------------------------

CAUSE_THEN_WRAPPER = (
    "Traceback (most recent call last):\n"
    '  File "/opt/serve/engine/core.py", line 700, in run_engine_core\n'
    "    engine = EngineCore(config)\n"
    f"{SAID}\n\n"
    "The above exception was the direct cause of the following exception:\n\n"
    "Traceback (most recent call last):\n"
    '  File "/opt/serve/engine/client.py", line 95, in make_client\n'
    "    return cls(config)\n"
    "RuntimeError: Engine core initialization failed. See root cause above. "
    "Failed core proc(s): {'EngineCore_0': 1}\n"
)


def test_the_cause_is_named_not_the_wrapper_after_it(source: sources.Source) -> None:
    assert messages(found_in(source, CAUSE_THEN_WRAPPER)) == [DIVISIBLE]
    logged = (
        f"(EngineCore_DP0 pid=812) ERROR 11-02 09:14:03 [core.py:708] {SAID}\n"
        "(APIServer pid=640) ERROR 11-02 09:14:05 [launcher.py:99] RuntimeError: Engine core "
        "initialization failed. See root cause above. Failed core proc(s): {}\n"
    )
    assert messages(found_in(source, logged)) == [DIVISIBLE]
    two = CAUSE_THEN_WRAPPER + (
        "\nand on every request after it:\n\n"
        "Traceback (most recent call last):\n"
        '  File "/opt/serve/entrypoints/api.py", line 40, in generate\n'
        "    async for out in stream:\n"
        f"serve.v1.engine.exceptions.EngineDeadError: {DEAD}\n"
    )
    assert messages(found_in(source, two)) == [DIVISIBLE]


def test_a_wrapper_is_named_when_no_cause_is_known(source: sources.Source) -> None:
    oom = CAUSE_THEN_WRAPPER.replace(
        SAID, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
    )
    assert messages(found_in(source, oom)) == [WRAPPER]
    dead = f"Every request fails with\nserve.v1.engine.exceptions.EngineDeadError: {DEAD}\n"
    assert [(f.exception, f.message) for f in found_in(source, dead)] == [("EngineDeadError", DEAD)]


def test_a_wrapper_that_quotes_its_cause_names_the_cause(source: sources.Source) -> None:
    body = (
        "RuntimeError: Worker failed with error 'tensor_parallel_size=8 must be divisible by "
        "data_parallel_size=3.', please check the stack trace above for the root cause\n"
    )
    found = found_in(source, body)
    assert [(f.message, f.values) for f in found] == [(DIVISIBLE, (("tp", "8"), ("dp", "3")))]


# --- other projects' errors ---------------------------------------------------------------

FOREIGN = {
    "a module-qualified torch error in prose": (
        "Loading fails with torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
        "1.50 GiB. GPU 0 has a total capacity of 23.68 GiB of which 1.02 GiB is free.\n"
        "What should I lower?"
    ),
    "NCCL in a worker's line": (
        "(RayWorkerWrapper pid=901) ERROR 05-14 10:22:31 worker_base.py:382] "
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
        "NCCLUtils.hpp:275, unhandled system error, NCCL version 2.20.5 "
        "[repeated 7x across cluster]"
    ),
    "CUDA in a log line": (
        "ERROR 10-11 16:03:09 engine.py:157] RuntimeError: CUDA error: an illegal memory "
        "access was encountered\nCUDA kernel errors might be asynchronously reported at some "
        "other API call, so the stacktrace below might be incorrect."
    ),
    "pip": (
        "ERROR: Could not find a version that satisfies the requirement serve-kernels==0.9 "
        "(from versions: none)\nERROR: No matching distribution found for serve-kernels==0.9"
    ),
    "a validation error of another library": (
        "pydantic_core._pydantic_core.ValidationError: 1 validation error for ChatRequest\n"
        "messages\n  Field required [type=missing, input_value={}, input_type=dict]"
    ),
    "a tokenizer's error quoted": (
        "I get \"OSError: Can't load tokenizer for 'org/model'. If you were trying to load "
        "it from 'https://huggingface.co/models', make sure you don't have a local directory "
        'with the same name." with any model.'
    ),
}


@pytest.mark.parametrize("body", FOREIGN.values(), ids=FOREIGN.keys())
def test_another_projects_error_names_no_record(source: sources.Source, body: str) -> None:
    assert found_in(source, body) == []


def test_every_error_line_of_a_long_log_is_read_from_its_end(source: sources.Source) -> None:
    """A log naming many errors: each message is read once, the last ones first, within
    MAX_CANDIDATES; the one that matters is found among the noise after it."""
    noise = "".join(
        f"(Worker pid={n}) ERROR 08-27 05:12:{n % 60:02d} worker.py:1] KeyError: 'slot{n}'\n"
        for n in range(search.MAX_CANDIDATES - 2)
    )
    repeated = "ERROR 08-27 05:13:00 worker.py:1] RuntimeError: heartbeat missed\n" * 500
    found = found_in(source, f"ERROR 08-27 05:11:59 engine.py:157] {SAID}\n{noise}{repeated}")
    assert messages(found) == [DIVISIBLE]


# --- the start of a message printed over several lines ------------------------------------

LAYOUT = (
    "Unknown layout class {layout} for this kind of Loader: {loader}.\n"
    "Loader type should be one of {choices}."
)
SCHEMA_SHORT = "Cannot build a checker for {kind}."
SCHEMA = (
    "Cannot build a checker for {kind}. Set `allow_anything=True` in the options to skip "
    "this check, or give your class a `__checker__` hook.\n\n"
    "If you called the hook of another class yourself, call `make(<that class>)` instead."
)
FIELDS = (
    "An attribute without a type was found: `{name} = {value}`. Every field needs a type; "
    "if `{name}` is no field, mark it `Fixed` or list it in `options['skipped']`."
)
REPO_HINT = "{where}\nIf the store is private, sign in with `store-cli login`."
SCRIPT = (
    "Could not find a loader script at {path} or any file beside it. "
    "Could not find '{name}' in the store either: {kind}: {why}"
)
LAYOUT_GRID = "Unknown layout class {layout} to build a grid.\nPick one of {choices}."
MADE_WITH = "{cls} is made with `{cls}.create(name)` alone, never called directly: see the guide."
NO_LAYER = "Layer {name} not found"
PLOT_QUOTED = "The plotting extra is not installed, run `pip install 'kit[plot]'` first"
PLOT_BARE = "The plotting extra is not installed, run `pip install kit[plot]` first"
CAST_LINES = "Cannot cast the column of type\n{found}\nto\n{wanted}"
CAST_LINE = "Cannot cast the column of type {found} to {wanted}"
NO_LAYER_LONG = "Layer {name} not found. Look the layer up in the layer table first."
KIT = "kit/checks.py"  # the pastes name its classes with their module, kit.errors
LINES = {
    "example/serve/layout.yaml": record("ValueError", LAYOUT),
    "example/serve/schema-short.yaml": record("CheckerError", SCHEMA_SHORT, KIT),
    "example/serve/schema.yaml": record("CheckerError", SCHEMA, KIT),
    "example/serve/fields.yaml": record("UserError", FIELDS, KIT),
    "example/serve/repo-hint.yaml": record("FileNotFoundError", REPO_HINT),
    "example/serve/script.yaml": record("FileNotFoundError", SCRIPT),
    "example/serve/layout-grid.yaml": record("ValueError", LAYOUT_GRID),
    "example/serve/made-with.yaml": record("TypeError", MADE_WITH),
    "example/serve/no-layer.yaml": record("KeyError", NO_LAYER),
    "example/serve/no-layer-long.yaml": record("KeyError", NO_LAYER_LONG),
    "example/serve/plot-quoted.yaml": record("ImportError", PLOT_QUOTED),
    "example/serve/plot-bare.yaml": record("ImportError", PLOT_BARE),
    "example/serve/cast-lines.yaml": record("TypeError", CAST_LINES),
    "example/serve/cast-line.yaml": record("TypeError", CAST_LINE),
}


@pytest.fixture(scope="module", params=["records", "built index"])
def lines_source(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> sources.Source:
    return source_of(request.param, tmp_path_factory.mktemp("message-lines"), LINES)


FIRST_LINES = {
    "a title that keeps the first line": (
        "# ValueError: Unknown layout class <class 'kit.layouts.GridLayout'> for this kind of "
        "Loader: TileLoader.\n\n### Environment\nkit==2.1\n"
    ),
    "a paste whose list was cut off": (
        "ValueError: Unknown layout class <class 'kit.layouts.GridLayout'> for this kind of "
        "Loader: TileLoader.\nLoader type should be one of FlatLayout, StackLayout, Sta"
    ),
}


@pytest.mark.parametrize("body", FIRST_LINES.values(), ids=FIRST_LINES.keys())
def test_the_first_line_of_a_longer_message_names_its_record(
    lines_source: sources.Source, body: str
) -> None:
    (found,) = found_in(lines_source, body)
    assert found.message == LAYOUT
    assert found.confidence >= 0.9
    assert dict(found.values)["loader"] == "TileLoader"


def test_a_first_paragraph_names_its_message_not_a_shorter_one_it_starts_like(
    lines_source: sources.Source,
) -> None:
    """``Cannot build a checker for {kind}.`` fits the paragraph's first sentence, its
    placeholder taking in the class and what follows it; the record whose first paragraph
    the paste is, word for word, is the answer, alone."""
    body = (
        "Starting the app I get:\n"
        "```kit.errors.CheckerError: Cannot build a checker for <class 'app.Report'>. Set "
        "`allow_anything=True` in the options to skip this check, or give your class a "
        "`__checker__` hook.```\n\n"
        "The docs say little about it."
    )
    assert messages(found_in(lines_source, body)) == [SCHEMA]


def test_a_message_without_its_last_stop_names_its_record(lines_source: sources.Source) -> None:
    body = (
        "raise UserError(\nkit.errors.UserError: An attribute without a type was found: "
        "`size = 3`. Every field needs a type; if `size` is no field, mark it `Fixed` or list "
        "it in `options['skipped']`\n\nFull stack:\n"
    )
    assert messages(found_in(lines_source, body)) == [FIELDS]


def test_a_message_cut_inside_its_placeholder_names_nothing(lines_source: sources.Source) -> None:
    """Less its stop, ``Cannot build a checker for {kind}`` would fit any text at all after
    its words: a paste cut in the middle of a class name is no whole message of either."""
    body = "raise CheckerError(\nkit.errors.CheckerError: Cannot build a checker for <cla"
    assert found_in(lines_source, body) == []


def test_an_error_quoted_inside_another_is_no_answer_of_its_own(
    lines_source: sources.Source,
) -> None:
    """The wrapped message quotes the error it was raised from, in an older wording that a
    record starting with a placeholder happens to fit: the paste's error is the outer one."""
    body = (
        "```\n"
        "FileNotFoundError: Could not find a loader script at /data/shop/shop.py or any file\n"
        "beside it. Could not find 'shop' in the store either: FileNotFoundError: Store 'shop'\n"
        "is missing.\n"
        "If the store is private, sign in with `store-cli login`.\n"
        "```\n"
    )
    assert messages(found_in(lines_source, body)) == [SCRIPT]


# --- a message cut short ------------------------------------------------------------------

CUT_SHORT = {
    "a title cut inside a value": (
        "# kit.errors.UserError: An attribute without a type was found: `size =\n\n"
        "Upgrading kit breaks my models.\n"
    ),
    "an excerpt ending in the middle of a word": (
        "```\nkit.errors.UserError: An attribute without a type was found: `size = 3`. Every "
        "field needs a ty"
    ),
    "its first sentence quoted alone": (
        "Only this is printed: UserError: An attribute without a type was found: `size = 3`.\n"
        "Nothing else."
    ),
}


@pytest.mark.parametrize("body", CUT_SHORT.values(), ids=CUT_SHORT.keys())
def test_the_start_of_a_message_names_its_record(lines_source: sources.Source, body: str) -> None:
    (found,) = found_in(lines_source, body)
    assert found.message == FIELDS
    assert found.confidence >= 0.9
    assert dict(found.values)["name"] == "size"


def test_a_start_names_the_message_whose_own_words_explain_more_of_it(
    lines_source: sources.Source,
) -> None:
    """Both messages start ``Unknown layout class {layout}``; the grid's placeholder would
    take in ``… for this kind of Lo``, which the loader's message says in its own words."""
    body = "ValueError: Unknown layout class <class 'kit.layouts.GridLayout'> for this kind of Lo"
    assert messages(found_in(lines_source, body)) == [LAYOUT]


FIELDS_SAID = (
    "An attribute without a type was found: `size = 3`. Every field needs a type; if `size` "
    "is no field, mark it `Fixed` or list it in `options['skipped']`."
)
THEN_MORE = {
    "the library's link after it": " See https://kit.example/errors/untyped for more.",
    "a question after it": " Error, how do I fix it?",
}


@pytest.mark.parametrize("more", THEN_MORE.values(), ids=THEN_MORE.keys())
def test_a_whole_message_then_sentences_of_the_paste_names_its_record(
    lines_source: sources.Source, more: str
) -> None:
    body = f"Loading my models:\nkit.errors.UserError: {FIELDS_SAID}{more}\n"
    assert messages(found_in(lines_source, body)) == [FIELDS]
    # Naming no exception, as a report's first paragraph too: the message is all there,
    # ending its sentence, its values no words of prose.
    assert messages(found_in(lines_source, f"{FIELDS_SAID}{more}\n\nkit 2.1")) == [FIELDS]
    # Not as a title, which may be a longer message cut at its length.
    assert found_in(lines_source, "Loading my models fails.", title=FIELDS_SAID + more) == []


def test_a_debuggers_line_naming_the_exception_above_its_message_names_its_record(
    lines_source: sources.Source,
) -> None:
    body = f"It stops in the debugger:\n\nException has occurred: UserError\n{FIELDS_SAID}\n\nWhy?"
    (found,) = found_in(lines_source, body)
    assert (found.message, found.line) == (FIELDS, 3)


@pytest.mark.parametrize("message", [PLOT_QUOTED, PLOT_BARE])
def test_of_two_messages_search_reads_alike_the_one_pasted_is_named(
    lines_source: sources.Source, message: str
) -> None:
    """Search drops quotes, so both messages match both pastes as well: the one whose
    quotes the paste keeps is the answer."""
    body = f"Plotting fails:\n\nImportError: {message}\n"
    assert messages(found_in(lines_source, body)) == [message]


def test_a_message_pasted_on_one_line_names_the_record_on_one_line(
    lines_source: sources.Source,
) -> None:
    body = "Loading fails:\n\nTypeError: Cannot cast the column of type int64 to string\n"
    assert messages(found_in(lines_source, body)) == [CAST_LINE]


OTHER_ENDINGS = {
    "another second sentence": (
        "UserError: An attribute without a type was found: `size = 3`. Give it a type first."
    ),
    "a sentence ended in a value": "UserError: An attribute without a type was found: `size` 3.",
    "one placeholder given two values": (
        "TypeError: GridView is made with `Grid\nView.create(name)` alone, never called"
    ),
    "the whole of a message too short to name": "KeyError: Layer conv9 not found",
}


@pytest.mark.parametrize("body", OTHER_ENDINGS.values(), ids=OTHER_ENDINGS.keys())
def test_a_message_that_goes_on_in_other_words_is_no_start_of_a_record(
    lines_source: sources.Source, body: str
) -> None:
    """An older wording, or another message that starts alike, ends a sentence where the
    record's message goes on, or puts two values where the record has one; a paste that is
    the whole of one message (too short to be named) is no start of a longer one."""
    assert found_in(lines_source, body) == []


# --- a title or heading that is the error, with no exception named --------------------------

TITLED = {
    "a heading above the report": (
        "## tensor_parallel_size=8 must be divisible by data_parallel_size=3.\n\n"
        "My own script then stops with KeyError: 'rank'.\n",
        "",
        DIVISIBLE,
    ),
    "the issue's title": (
        "The run stops with KeyError: 'rank'.",
        SAID.split(": ", 1)[1],
        DIVISIBLE,
    ),
    "a title after its tags": (
        "The run stops with KeyError: 'rank'.",
        ":bug: [Bug]: tensor_parallel_size=8 must be divisible by data_parallel_size=3.",
        DIVISIBLE,
    ),
    "a title keeping the first words": (
        "The run stops with KeyError: 'rank'.",
        "No available memory for the cache blocks",
        BLOCKS,
    ),
}


@pytest.mark.parametrize(("body", "title", "message"), TITLED.values(), ids=TITLED.keys())
def test_a_title_or_heading_that_is_the_message_names_its_record(
    source: sources.Source, body: str, title: str, message: str
) -> None:
    assert messages(found_in(source, body, title=title)) == [message]


UNTITLED = {
    "cut in the middle of a word": "tensor_parallel_size=8 must be divisible by data_paral",
    "ending in a value that takes in the prose": (
        "tensor_parallel_size=8 must be divisible by data_parallel_size=3 on my two nodes"
    ),
    "a message's first words, then other words": "No available memory for the cache when busy",
    "a placeholder filled with words of prose": (
        "The scheduler lost track of request to retry while draining the queue"
    ),
    "words of prose amid a message cut before its last value": (
        "The scheduler dropped request to retry from the waiting queue"
    ),
}


@pytest.mark.parametrize("title", UNTITLED.values(), ids=UNTITLED.keys())
def test_a_title_that_only_starts_like_a_message_names_nothing(
    source: sources.Source, title: str
) -> None:
    """With no exception named, a start must end in the message's own words, at a word's
    end: a piece cut in a word's middle, or prose a value would take in, is no message."""
    assert found_in(source, "The run stops with KeyError: 'rank'.", title=title) == []


NAMED_PROSE = {
    "an older wording's joining words in a value": (
        "Exception: The scheduler lost track of request or task 'r-7' while draining the queue."
    ),
    "three words of prose in a value": (
        "RuntimeError: The scheduler dropped request sent by the client from the waiting "
        "queue: full"
    ),
}


@pytest.mark.parametrize("body", NAMED_PROSE.values(), ids=NAMED_PROSE.keys())
def test_prose_amid_a_named_errors_words_names_nothing(source: sources.Source, body: str) -> None:
    """An older wording ("dimensions or multi-index levels ['height'] do not exist") fits
    the message now said otherwise ("Dimensions {invalid} do not exist. …") with prose in
    a value: a value amid the message's words that starts with a joining word, or is three
    words or more, is not what code puts there, exception named or not."""
    assert found_in(source, body) == []
    named = "Exception: The scheduler lost track of request 'r-7' while draining the queue."
    assert messages(found_in(source, named)) == [LOST]
    # Words the paste quotes are a value a user typed (``No variable named 'sea surface
    # temperature'``), not prose the message's words frame.
    typed = (
        "Exception: The scheduler lost track of request 'retry the old job' while draining "
        "the queue."
    )
    assert messages(found_in(source, typed)) == [LOST]


# --- the call that raised it -------------------------------------------------------------

RAISED = {
    "a traceback cut after the line that raised": (
        "Traceback (most recent call last):\n"
        '  File "/opt/serve/engine/core.py", line 2, in check\n'
        '    raise ValueError(f"tensor_parallel_size={tp} must be divisible by '
        'data_parallel_size={dp}.")\n',
        "",
        DIVISIBLE,
    ),
    "a title that is the exception's repr": (
        "Seen after the upgrade.",
        "ValueError('tensor_parallel_size=8 must be divisible by data_parallel_size=3.')",
        DIVISIBLE,
    ),
    "a notebook's arrow on the line it ran, cut short": (
        "----> 12     raise ValueError('No available memory for the cache blocks. Try incr",
        "",
        BLOCKS,
    ),
}


@pytest.mark.parametrize(("body", "title", "message"), RAISED.values(), ids=RAISED.keys())
def test_the_call_that_raised_names_its_record(
    source: sources.Source, body: str, title: str, message: str
) -> None:
    assert messages(found_in(source, body, title=title)) == [message]


def test_a_call_on_a_line_around_the_one_that_ran_names_nothing(source: sources.Source) -> None:
    body = (
        "     10     if free < needed:\n"
        "     11         raise ValueError('No available memory for the cache blocks. Try "
        "increasing `gpu_memory_utilization` when initializing the engine.')\n"
        "---> 12     raise KeyError(name)\n"
    )
    assert found_in(source, body) == []


# --- where the traceback says it was raised -----------------------------------------------


def raised_at(exception: str, message: str, path: str, function: str, said: str = '"..."') -> str:
    own_id = hashlib.sha256(f"{path} {function}".encode()).hexdigest()[:16]  # two raise one
    return f"""\
id: "{own_id}"
repo: example/loom
exception: {exception}
message: {json.dumps(message)}
source:
  commit: "c333333333333333333333333333333333333333"
  path: {path}
  function: {function}
  line: 2
  excerpt:
    start: 1
    code: |
      def {function.rsplit(".", 1)[-1]}():
          raise {exception}({said})
"""


MISMATCH = "The adapter weights do not match the hidden size of the base model."
STATE = "Error(s) in loading state_dict for {name}"
REMOVED = "`{name}` was removed in V2."
MIRROR = "Could not reach the package mirror at {url}"
MIRROR_LONG = "Could not reach the package mirror at {url}. Check your proxy settings."
SPLIT = 'Unknown split "{split}". Choose one of {names}.'
FETCH = "Could not download {name} from the hub to load the files, and no copy is in the cache."
SKIP = "To skip the check, set `skip_check=True` on the loader and load again."
UNSUPPORTED = "Cannot build a schema for {kind} from its type hints"
NOT_FOUND = (
    "{name} is neither a folder here nor a model listed on 'https://hub.example/models'\n"
    "If the model is private, sign in with `loom login` or pass `token=...`."
)
PROCESSOR = "Processor {name} is no processor this loader takes"
NOT_READY = "{prefix}Scheduler is not ready for the next batch: {reason}"
NOT_READY_AT = "[{step}] Scheduler is not ready for the next batch: {reason}"
DOCSTRING = "Cannot describe {func} because its docstring says nothing of the argument {arg}"
ARGUMENT = "The value {value} is no size this command line takes as its argument"
NO_ATTRIBUTE = "type object '{cls.__name__}' has no attribute {missing}"
NO_FIELD = "{type(self).__name__} object has no attribute {item}"  # the code says !r
NO_MEMBER = "module {self.__name__} has no attribute {name}"
MIGRATED = "module {module} has no attribute {name}"
HEAT = "The oven {name} did not reach its set temperature in time"
COLD = "The oven {name} is still cold; wait for it to heat up before baking"
STOPPED = "generator didn't stop"
FORGE_GONE = "The forge.legacy_mapper() function is gone since Forge 2.0; use forge.register()"
FORGE_FAILED = "One or more forges failed to start - none can. Original exception was: {cause}"
MISSING = "None of [{key}] are in the [{axis_name}]"
UNKNOWN_LOOM = "Unknown weave {kind}"
ENCODED = "Length of '{name}' ({length}) did not match the length of the columns ({width})."
FRAMES = {
    "loom/not-ready.yaml": raised_at("RuntimeError", NOT_READY, "loom/sched.py", "step"),
    "loom/not-ready-at.yaml": raised_at("RuntimeError", NOT_READY_AT, "loom/sched.py", "run"),
    "loom/docstring.yaml": raised_at("DocstringError", DOCSTRING, "loom/tools.py", "describe"),
    "loom/argument.yaml": raised_at("ArgumentTypeError", ARGUMENT, "loom/cli.py", "size"),
    "loom/processor.yaml": raised_at("TypeError", PROCESSOR, "loom/loader.py", "Loader.take"),
    "loom/not-found.yaml": raised_at("OSError", NOT_FOUND, "loom/hub.py", "resolve"),
    "loom/unsupported.yaml": raised_at(
        "LoomInvalidForSchema", UNSUPPORTED, "loom/schema.py", "Builder.build"
    ),
    "loom/fetch.yaml": raised_at("OSError", FETCH, "loom/hub.py", "download"),
    "loom/skip.yaml": raised_at("ValueError", SKIP, "loom/checks.py", "check"),
    "loom/adapters.yaml": raised_at("ValueError", MISMATCH, "loom/adapters.py", "Adapter.load"),
    "loom/merge.yaml": raised_at("ValueError", MISMATCH, "loom/merge.py", "merge"),
    "loom/state.yaml": raised_at("RuntimeError", STATE, "loom/checkpoints.py", "restore"),
    "loom/removed.yaml": raised_at(
        "LoomImportError", REMOVED, "loom/_migration.py", "getattr_migration"
    ),
    "loom/mirror.yaml": raised_at("ConnectionError", MIRROR, "loom/hub.py", "fetch"),
    "loom/mirror-long.yaml": raised_at("ConnectionError", MIRROR_LONG, "loom/hub.py", "fetch_all"),
    "loom/split.yaml": raised_at("KeyError", SPLIT, "loom/splits.py", "Splits.pick"),
    "loom/meta.yaml": raised_at("AttributeError", NO_ATTRIBUTE, "loom/meta.py", "Meta.__getattr__"),
    "loom/model.yaml": raised_at(
        "AttributeError",
        NO_FIELD,
        "loom/model.py",
        "Model.__getattr__",
        "f'{type(self).__name__!r} object has no attribute {item!r}'",
    ),
    "loom/migration.yaml": raised_at(
        "AttributeError",
        MIGRATED,
        "loom/_migration.py",
        "moved_attribute",
        "f'module {module!r} has no attribute {name!r}'",
    ),
    "kiln/heat.yaml": raised_at("RuntimeError", HEAT, "src/kiln/ovens.py", "Oven.heat"),
    "kiln/cold.yaml": raised_at("OvenColdError", COLD, "src/kiln/ovens.py", "Oven.check"),
    "forge/stopped.yaml": raised_at("RuntimeError", STOPPED, "lib/forge/ctx.py", "Ctx.__aexit__"),
    "forge/removed.yaml": raised_at("ForgeError", FORGE_GONE, "lib/forge/api.py", "legacy_mapper"),
    "forge/failed.yaml": raised_at("RuntimeError", FORGE_FAILED, "lib/forge/api.py", "start_all"),
    "loom/missing.yaml": raised_at("KeyError", MISSING, "loom/frame.py", "Frame._raise_if_missing"),
    "loom/encoded.yaml": raised_at("ValueError", ENCODED, "loom/encode.py", "encode"),
    "loom/kinds.yaml": raised_at("ValueError", UNKNOWN_LOOM, "loom/kinds.py", "kind_class"),
    "loom/lazy.yaml": raised_at(
        "AttributeError",
        NO_MEMBER,
        "loom/lazy.py",
        "LazyModule.__getattr__",
        'f"module {self.__name__} has no attribute {name}"',
    ),
}


@pytest.fixture(scope="module", params=["records", "built index"])
def frames_source(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> sources.Source:
    return source_of(request.param, tmp_path_factory.mktemp("frames"), FRAMES)


def traceback(frame: str, error: str, code: str = "    result = step(batch)") -> str:
    return (
        "Running the example fails:\n\n```\nTraceback (most recent call last):\n"
        '  File "/home/ana/train.py", line 9, in <module>\n    run()\n'
        f"{frame}\n{code}\n{error}\n```\n"
    )


STATE_SAID = "RuntimeError: Error(s) in loading state_dict for TinyNet"


def test_of_records_saying_the_same_the_one_raised_in_the_frames_file_is_named(
    frames_source: sources.Source,
) -> None:
    for path, function, record_file in (
        ("loom/merge.py", "merge", "loom/merge.yaml"),
        ("loom/adapters.py", "load", "loom/adapters.yaml"),
    ):
        frame = f'  File "/venv/lib/python3.11/site-packages/{path}", line 40, in {function}'
        (found,) = found_in(frames_source, traceback(frame, f"ValueError: {MISMATCH}"))
        assert found.url.endswith(f"/errors/{record_id(frames_source, record_file)}/")
        cut = frame.replace('  File "', "")  # the copy lost the frame line's start
        (found,) = found_in(frames_source, traceback(cut, f"ValueError: {MISMATCH}"))
        assert found.url.endswith(f"/errors/{record_id(frames_source, record_file)}/")
        wrapped = f"{frame[:50]}\n{frame[50:]}"  # a terminal 50 columns wide cut its path
        (found,) = found_in(frames_source, traceback(wrapped, f"ValueError: {MISMATCH}"))
        assert found.url.endswith(f"/errors/{record_id(frames_source, record_file)}/")


def test_of_records_saying_the_same_a_notebooks_traceback_names_the_one_raised_in_its_file(
    frames_source: sources.Source,
) -> None:
    """IPython and Jupyter number the frame's code and print a blank line under it."""
    for path, function, record_file in (
        ("loom/merge.py", "merge", "loom/merge.yaml"),
        ("loom/adapters.py", "Adapter.load", "loom/adapters.yaml"),
    ):
        listing = "".join(f"     {n} pass\n" for n in range(30, 39)) + (
            "---> 40     raise ValueError(\n     41         MESSAGE\n     42     )\n"
        )
        for frame in (
            f"File ~/venv/lib/python3.11/site-packages/{path}:40, in {function}(self, other)",
            f"~/venv/lib/python3.11/site-packages/{path} in {function.split('.')[-1]}(self, other)",
        ):
            body = (
                "In the notebook:\n\n```\n"
                "ValueError                                Traceback (most recent call last)\n"
                "Cell In[4], line 3\n----> 3 merged = loom.join(a, b)\n\n"
                f"{frame}\n{listing}\nValueError: {MISMATCH}\n```\n"
            )
            (found,) = found_in(frames_source, body)
            assert found.url.endswith(f"/errors/{record_id(frames_source, record_file)}/")


def test_an_error_raised_in_a_notebooks_own_function_names_no_record(
    frames_source: sources.Source,
) -> None:
    """Python's traceback of a function defined in a cell: its last frame is the cell's,
    so no record's code raised it, though a record says the same words."""
    frame = '  File "<ipython-input-4-1c2d>", line 3, in check'
    body = traceback(frame, f"ValueError: {MISMATCH}", "    raise ValueError(MISMATCH)")
    assert found_in(frames_source, body) == []


def test_an_exceptions_repr_in_a_task_queues_log_names_its_record(
    frames_source: sources.Source,
) -> None:
    """Celery logs a task's error as its repr: ``raised unexpected: ValueError('…')``."""
    said = f"raised unexpected: ValueError({MISMATCH!r})"
    body = (
        "From the worker log:\n\n```\n"
        "[2026-03-02 08:15:44,102: INFO/ForkPoolWorker-2] Task shop.sync[7d3a] received\n"
        f"[2026-03-02 08:15:44,120: ERROR/ForkPoolWorker-2] Task shop.sync[7d3a] {said}\n"
        "```\n"
    )
    assert messages(found_in(frames_source, body)) == [MISMATCH]


NOTEBOOK_FRAMES = {
    "IPython 8": "Cell In[12], line 3, in check(x)",
    "IPython 8.0 to 8.4": "Input In [12], in check(x)",
    "older IPython": "<ipython-input-12-1c2d> in check(x)",
}


@pytest.mark.parametrize("frame", NOTEBOOK_FRAMES.values(), ids=NOTEBOOK_FRAMES.keys())
def test_an_error_raised_in_a_cells_function_names_no_record_nor_does_the_title(
    frames_source: sources.Source, frame: str
) -> None:
    """IPython prints a function typed in a notebook's cell as a frame of the cell: the
    last frame, so that code raised the error (Python's ``int(nan)``, say), though a
    record says the same words; the issue's title saying the message is that error."""
    body = (
        "In the notebook:\n\n```\n"
        "ValueError                                Traceback (most recent call last)\n"
        "Cell In[12], line 5\n----> 5 check(1)\n\n"
        f"{frame}\n      2 def check(x):\n----> 3     raise ValueError(MESSAGE)\n\n"
        f"ValueError: {MISMATCH}\n```\n"
    )
    assert found_in(frames_source, body) == []
    assert found_in(frames_source, body, title=f"ValueError: {MISMATCH}") == []


def test_a_cells_function_with_lines_between_it_and_the_error_tells_nothing(
    frames_source: sources.Source,
) -> None:
    """A line under the cell's listing that is neither listing nor blank may be a cut
    (``<snip>``) or a frame errdex reads none of: the cell's frame may not be the last."""
    for between in ("<snip>", "... (3 frames omitted) ...", r"File c:\Users\Ana Li\loom\m.py:4"):
        body = (
            "```\nCell In[12], line 3, in check(x)\n      2 def check(x):\n"
            f"----> 3     return loom.merge(x)\n{between}\nValueError: {MISMATCH}\n```\n"
        )
        assert messages(found_in(frames_source, body)) == [MISMATCH], between


def test_a_cells_own_top_above_the_error_tells_nothing(frames_source: sources.Source) -> None:
    """``Cell In[12], line 5`` (or ``in <module>``) alone above the error: the paste may
    have left out the frames below it, as it often keeps only the cell's."""
    for frame in ("Cell In[12], line 5", "<ipython-input-12-1c2d> in <module>"):
        body = f"```\n{frame}\n----> 5 merged = loom.join(a, b)\n\nValueError: {MISMATCH}\n```\n"
        assert messages(found_in(frames_source, body)) == [MISMATCH]


@pytest.mark.parametrize(
    ("code", "marks", "named"),
    [
        ("    merged = frames[3]", "             ~~~~~~^^^", False),  # numpy's own item
        ("    merged = loom.joined", "             ^^^^^^^^^^^", False),  # an attribute
        ("    merged = loom.join(a, b)", "             ^^^^^^^^^^^^^^^", True),  # a call
        ("    merged = loom.join(", "             ^^^^^^^^^^", True),  # a call over lines
        ("    merged = loom.join(", "             ~~~~~~~~~^", True),  # as Python 3.13 marks it
        ("merged = frames[3]", "         ~~~~~~^^^", True),  # the paste lost the indent
        ("    merged = loom.join(a, b)", "", True),  # no carets: frames may be left out
    ],
)
def test_a_scripts_top_frame_whose_carets_mark_no_call_raised_the_error(
    frames_source: sources.Source, code: str, marks: str, named: bool
) -> None:
    """Python 3.11 marks what raised under a frame's code: an item or an attribute
    raised right there, so a traceback of only the script's top frame shows where,
    while a call's error was raised in a frame below it that the paste may leave out."""
    lines = ["```", "Traceback (most recent call last):"]
    lines += ['  File "/home/ana/merge_runs.py", line 7, in <module>', code]
    body = "\n".join([*lines, *([marks] if marks else []), f"ValueError: {MISMATCH}", "```"])
    assert messages(found_in(frames_source, body)) == ([MISMATCH] if named else [])


def test_a_message_of_few_words_raised_in_the_frames_file_and_function_is_named_surely(
    frames_source: sources.Source,
) -> None:
    """``Unknown weave 'twill'``: two words of its own fit many texts, too few to
    name a record alone; a traceback whose last frame is the record's file and function
    says it was raised there, as sure as a whole message gets."""
    said = "ValueError: Unknown weave 'twill'"
    assert found_in(frames_source, f"Making a loom fails:\n\n```\n{said}\n```\n") == []
    frame = '  File "/venv/site-packages/loom/kinds.py", line 2, in kind_class'
    (found,) = found_in(frames_source, traceback(frame, said, "    raise ValueError(...)"))
    assert (found.message, found.confidence) == (UNKNOWN_LOOM, 0.9)
    # Another file's frame is no such proof, nor one whose code called compiled code.
    frame = '  File "/venv/site-packages/loom/weave.py", line 2, in kind_class'
    assert found_in(frames_source, traceback(frame, said, "    raise ValueError(...)")) == []
    frame = '  File "/venv/site-packages/loom/kinds.py", line 2, in kind_class'
    assert found_in(frames_source, traceback(frame, said, "    return _weaves.lookup(kind)")) == []


def test_a_short_message_raised_in_the_frames_file_and_function_names_its_record(
    frames_source: sources.Source,
) -> None:
    """``None of […] are in the […]`` has too few words of its own to name a record alone;
    a traceback whose last frame is the record's file and function names it."""
    said = "KeyError: \"None of [Index(['Date'], dtype='object')] are in the [columns]\""
    assert found_in(frames_source, f"Selecting fails:\n\n{said}\n") == []
    frame = '  File "/venv/site-packages/loom/frame.py", line 40, in _raise_if_missing'
    (found,) = found_in(frames_source, traceback(frame, said, "    raise KeyError(...)"))
    assert found.message == MISSING
    elsewhere = frame.replace("loom/frame.py", "loom/index.py")  # another file of the package
    assert found_in(frames_source, traceback(elsewhere, said, "    raise KeyError(...)")) == []
    for other in ("/home/me/project/frame.py", "/venv/site-packages/weave/frame.py"):
        mine = frame.replace("/venv/site-packages/loom/frame.py", other)  # a file of the name
        assert found_in(frames_source, traceback(mine, said, "    raise KeyError(...)")) == []


def test_the_words_of_a_value_are_no_words_of_the_template(frames_source: sources.Source) -> None:
    """Read as ``Length of '{name}' …`` cut short inside its first value, an older
    wording of another message says only ``Length of`` of that template: the rest of
    its words are the value's, whatever words the template says later."""
    (entry,) = [e for e in frames_source.index.entries if e.template == ENCODED]
    said = "Length of values does not match length of index"
    assert reports.own_text(said, entry) > reports.Rules().min_own_text
    values = ["values does not match length of index"]
    assert reports.own_text(said, entry, values) == len("lengthof")
    assert found_in(frames_source, f"It fails with\n\nValueError: {said}\n") == []


def test_of_records_saying_the_same_pytests_report_names_the_one_raised_in_its_file(
    frames_source: sources.Source,
) -> None:
    for path, function, record_file in (
        ("loom/merge.py", "merge", "loom/merge.yaml"),
        ("loom/adapters.py", "load", "loom/adapters.yaml"),
    ):
        place = f"/venv/lib/python3.11/site-packages/{path}:40"
        long_report = (
            "CI fails:\n\n```\n    def test_merge():\n>       run()\n\ntests/test_run.py:9:\n"
            "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _\n\n    def go():\n>       raise ValueError(msg)\n"
            f"E       ValueError: {MISMATCH}\n\n{place}: ValueError\n```\n"
        )
        short_report = (
            "CI fails:\n\n```\ntests/test_run.py:9: in test_merge\n    run()\n"
            f"{place}: in {function}\n    raise ValueError(msg)\nE   ValueError: {MISMATCH}\n```\n"
        )
        for body in (long_report, short_report):
            (found,) = found_in(frames_source, body)
            assert found.url.endswith(f"/errors/{record_id(frames_source, record_file)}/")
    # A task group's traceback inside the "E" lines names the file; the place under them
    # is where the group was raised again.
    group = (
        "```\n>           tg.start_soon(go)\n"
        "E     | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n"
        "E       | Traceback (most recent call last):\n"
        'E       |   File "/venv/lib/python3.11/site-packages/loom/merge.py", line 40, in merge\n'
        "E       |     raise ValueError(msg)\n"
        f"E       | ValueError: {MISMATCH}\n\n"
        "/venv/lib/python3.11/site-packages/anyio/_backends/_asyncio.py:767: ExceptionGroup\n```\n"
    )
    (found,) = found_in(frames_source, group)
    assert found.url.endswith(f"/errors/{record_id(frames_source, 'loom/merge.yaml')}/")
    # The error raised in the test itself: no record is raised there.
    own = f"E       {STATE_SAID}\n\ntests/test_run.py:9: RuntimeError"
    assert found_in(frames_source, f"```\n>       raise RuntimeError\n{own}\n```\n") == []


def test_a_frame_line_of_thousands_of_digits_does_not_stop_triage(
    frames_source: sources.Source,
) -> None:
    path = "/venv/lib/python3.11/site-packages/loom/merge.py"
    frame = f'  File "{path}", line {"9" * 5000}, in merge'
    (found,) = found_in(frames_source, traceback(frame, f"ValueError: {MISMATCH}"))
    assert found.url.endswith(f"/errors/{record_id(frames_source, 'loom/merge.yaml')}/")


def record_id(source: sources.Source, name: str) -> str:
    """The id of the record written as ``name`` in FRAMES: the one whose page says it."""
    path = name.replace(".yaml", ".py")
    ids = [e.id for e in source.index.entries if path in source.page(e.id).paths]
    (found,) = ids
    return found


FOREIGN_FRAMES = {
    "another project's file": (
        '  File "/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 2215, '
        "in load_state_dict"
    ),
    "the record's file, another function": (
        '  File "/venv/lib/python3.11/site-packages/loom/checkpoints.py", line 12, in save'
    ),
    "code typed at the prompt": '  File "<stdin>", line 3, in check',
    "a notebook's cell": "File ~/work/notebook.py:14, in load_weights(model)",
    "a rich traceback's frame": "│ /venv/lib/python3.11/site-packages/torch/hub.py:88 in load │",
    "a frame whose start the copy lost": (
        '/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 2215, '
        "in load_state_dict"
    ),
}


@pytest.mark.parametrize("frame", FOREIGN_FRAMES.values(), ids=FOREIGN_FRAMES.keys())
def test_an_error_raised_where_no_record_is_names_nothing(
    frames_source: sources.Source, frame: str
) -> None:
    """The very words of a record, raised by code the traceback shows is elsewhere:
    another project's message that happens to say the same."""
    assert found_in(frames_source, traceback(frame, STATE_SAID)) == []


SAME_PLACE = {
    "its file and function": (
        '  File "/venv/lib/python3.11/site-packages/loom/checkpoints.py", line 12, in restore'
    ),
    "a notebook's frame": "File /venv/site-packages/loom/checkpoints.py:12, in restore(path)",
    "a frame naming the method's class": (
        '  File "loom/checkpoints.py", line 12, in loom.checkpoints.restore'
    ),
    "a frame whose start the copy lost": (
        '/venv/site-packages/loom/checkpoints.py", line 12, in restore'
    ),
}


@pytest.mark.parametrize("frame", SAME_PLACE.values(), ids=SAME_PLACE.keys())
def test_an_error_raised_where_its_record_is_names_it(
    frames_source: sources.Source, frame: str
) -> None:
    assert messages(found_in(frames_source, traceback(frame, STATE_SAID))) == [STATE]


NO_ATTRIBUTE_SAID = "AttributeError: type object 'Recipe' has no attribute 'model_fields'"


def test_a_node_runners_report_is_named_by_the_frame_under_its_message(
    frames_source: sources.Source,
) -> None:
    """ComfyUI's older report: the node, the message, then the frames, the last one
    raising it, with no header and no last line."""

    def report(path: str) -> str:
        return (
            "Error occurred when executing CheckpointNode:\n\n"
            "Error(s) in loading state_dict for TinyNet\n\n"
            '  File "/apps/runner/execution.py", line 151, in recursive_execute\n'
            "    output_data = get_output_data(obj, input_data_all)\n"
            f'  File "/venv/site-packages/{path}", line 12, in restore\n'
            '    raise RuntimeError("Error(s) in loading state_dict for TinyNet")\n'
        )

    assert messages(found_in(frames_source, report("loom/checkpoints.py"))) == [STATE]
    assert found_in(frames_source, report("torch/nn/modules/module.py")) == []
    # Frames that come after words of their own are another paste's, not the message's.
    later = report("torch/nn/modules/module.py").replace(
        "\n\n  File", "\n\nThen I tried it again and got this:\n\n  File", 1
    )
    assert messages(found_in(frames_source, later)) == [STATE]


def test_a_record_in_pythons_own_words_is_named_only_by_its_frame(
    frames_source: sources.Source,
) -> None:
    """Python says ``type object 'X' has no attribute 'y'`` of any class: the paste
    names the record that words it alike only when a frame shows its file."""
    alone = f"Running the recipe example stops with\n\n{NO_ATTRIBUTE_SAID}\n"
    assert found_in(frames_source, alone) == []
    mine = '  File "/home/ana/recipes.py", line 30, in describe'
    assert found_in(frames_source, traceback(mine, NO_ATTRIBUTE_SAID)) == []
    theirs = '  File "/venv/lib/python3.11/site-packages/loom/meta.py", line 8, in __getattr__'
    assert messages(found_in(frames_source, traceback(theirs, NO_ATTRIBUTE_SAID))) == [NO_ATTRIBUTE]


def test_a_frame_in_another_file_of_the_records_package_tells_nothing(
    frames_source: sources.Source,
) -> None:
    """An older release raised it from a file the code has moved out of since: a frame in
    a function of the record's own package, in a file that raises none of its errors now,
    neither names another record nor rules this one out."""
    moved = '  File "/venv/site-packages/loom/io.py", line 80, in load_all'
    raising = "    raise RuntimeError(f'Error(s) in loading state_dict for {name}')"
    assert messages(found_in(frames_source, traceback(moved, STATE_SAID, raising))) == [STATE]
    # Code of the package that raises nothing itself called compiled code that did:
    # numpy's words, under a frame of the package whose code calls numpy.
    for call in ("    return arr.astype(dtype, copy=True)", "    new, old = merge_all(a, b)"):
        assert found_in(frames_source, traceback(moved, STATE_SAID, call)) == [], call
    # An older Python showed a raise over lines by its last line: that tells nothing,
    # nor does a bare call or a keyword, which may be such a line.
    for last in (
        "        name, len(keys)))",
        '        "for {}".format(name))',
        "        msg.format(name=name)",
        "        name=describe(keys)",
    ):
        assert messages(found_in(frames_source, traceback(moved, STATE_SAID, last))) == [STATE]


def test_pythons_own_words_in_another_file_of_the_package_are_pythons(
    frames_source: sources.Source,
) -> None:
    """Python raises ``'X' object has no attribute 'y'`` in any file: a frame in another
    file of the package is where Python raised it, not a record of moved code."""
    said = "AttributeError: 'Encoder' object has no attribute 'norm'"
    layers = '  File "/venv/site-packages/loom/layers.py", line 31, in forward'
    assert found_in(frames_source, traceback(layers, said)) == []
    model = '  File "/venv/site-packages/loom/model.py", line 12, in __getattr__'
    assert messages(found_in(frames_source, traceback(model, said))) == [NO_FIELD]


def test_pythons_own_quotes_name_no_record_whose_code_does_not_quote(
    frames_source: sources.Source,
) -> None:
    """``module {name} has no attribute {attr}``, its code quoting neither name, never
    prints ``module 'loom' has no attribute 'Trainer'``: Python does, of any module."""
    bare = "AttributeError: module loom has no attribute Trainer"
    assert messages(found_in(frames_source, f"Importing it fails:\n\n{bare}\n")) == [NO_MEMBER]
    # Quoted, they are Python's words of any module, or the migration's (whose code
    # takes the names' repr) for a module of its own package.
    numpy = "AttributeError: module 'numpy' has no attribute 'bool'"
    assert found_in(frames_source, f"Importing it fails:\n\n{numpy}\n") == []
    ours = "AttributeError: module 'loom.fields' has no attribute 'OldField'"
    assert messages(found_in(frames_source, f"Importing it fails:\n\n{ours}\n")) == [MIGRATED]
    # A class's name tells no package: with no frame in the model's file, Python's.
    said = "AttributeError: 'Encoder' object has no attribute 'norm'"
    assert found_in(frames_source, f"Calling it fails:\n\n{said}\n") == []


def test_a_frame_in_another_file_of_a_src_layouts_package_tells_nothing(
    frames_source: sources.Source,
) -> None:
    """A record scanned from ``src/kiln/ovens.py`` is of the package ``kiln``: a frame in
    another file of it tells nothing, one in the user's own ``src/`` rules it out."""
    said = "RuntimeError: The oven north did not reach its set temperature in time"
    moved = '  File "/venv/site-packages/kiln/controls.py", line 51, in ramp'
    raising = "    raise RuntimeError(late(oven))"
    assert messages(found_in(frames_source, traceback(moved, said, raising))) == [HEAT]
    mine = '  File "/home/ana/proj/src/app/run.py", line 9, in main'
    assert found_in(frames_source, traceback(mine, said)) == []
    # Python names the class with its module, the package's and not ``src``'s.
    cold = "kiln.errors.OvenColdError: The oven north is still cold; wait for it to heat up"
    body = f"Baking fails:\n\n```\n{cold} before baking\n```\n"
    assert messages(found_in(frames_source, body)) == [COLD]


def test_a_lib_layouts_package_is_its_folder_not_lib(frames_source: sources.Source) -> None:
    """SQLAlchemy's sources are under ``lib/sqlalchemy/``: its records are of the package
    ``sqlalchemy``, not of the ``lib`` in every ``…/lib/python3.11/…`` path. Read as
    ``lib``, Python's own contextlib raising "generator didn't stop" named the package's
    record of those words at confidence 1.0, and the package's own error, under its
    frame in site-packages, was taken for another package's and named nothing."""
    python = '  File "/usr/lib/python3.11/contextlib.py", line 149, in __exit__'
    said = "RuntimeError: generator didn't stop"
    assert found_in(frames_source, traceback(python, said, "    raise RuntimeError(said)")) == []
    own = '  File "/venv/lib/python3.11/site-packages/forge/api.py", line 4, in legacy_mapper'
    error = "forge.errors.ForgeError: " + FORGE_GONE
    assert messages(found_in(frames_source, traceback(own, error, "    raise ForgeError("))) == [
        FORGE_GONE
    ]


def test_a_cause_pasted_under_its_own_frames_is_named_though_the_next_error_quotes_it(
    frames_source: sources.Source,
) -> None:
    """SQLAlchemy's "One or more mappers failed to initialize … Original exception was:
    <the cause's message>": a thread pasted the cause's traceback, then the later error's.
    The cause is no piece of the later error's words there: it is an error of its own,
    under its own frames, and the one to fix. Quoted alone, it names nothing of its own."""
    heat = "RuntimeError: The oven north did not reach its set temperature in time"
    oven = '  File "/venv/site-packages/kiln/ovens.py", line 8, in heat'
    later = f"RuntimeError: {FORGE_FAILED.format(cause=heat.removeprefix('RuntimeError: '))}"
    forge = '  File "/venv/site-packages/forge/api.py", line 3, in start_all'
    body = (
        traceback(oven, heat, "    raise RuntimeError(")
        + "\nthen:\n"
        + traceback(forge, later, "    raise e")
    )
    assert messages(found_in(frames_source, body)) == [HEAT, FORGE_FAILED]
    quoted = f"Starting fails:\n\n```\n{later}\n```\n"
    assert messages(found_in(frames_source, quoted)) == [FORGE_FAILED]


def test_a_frame_the_paste_leaves_out_tells_nothing(frames_source: sources.Source) -> None:
    """Frames left out (``...``, a blank line, a script's top alone): the last frame
    shown may not be the one that raised."""
    torch = '  File "/venv/site-packages/torch/nn/modules/module.py", line 2215, in load'
    for gap in ("    ...", ""):
        body = traceback(torch, STATE_SAID, code=f"    model.load(path)\n{gap}")
        assert messages(found_in(frames_source, body)) == [STATE]
    # Only the script's top is left: the frames below it were cut from the paste.
    body = (
        "Traceback (most recent call last):\n"
        '  File "/venv/bin/loom-train", line 8, in <module>\n'
        f"    sys.exit(main())\n{STATE_SAID}\n"
    )
    assert messages(found_in(frames_source, body)) == [STATE]


MODULE_TOPS = {
    "a module imported further down": (
        "Traceback (most recent call last):\n"
        '  File "/home/ana/train.py", line 1, in <module>\n'
        "    import loom\n"
        '  File "/venv/site-packages/loom/compat.py", line 4, in <module>\n'
        "    from torch.nn import load_state\n"
    ),
    "code typed at the prompt": (
        '>>> load("tiny.pt")\nTraceback (most recent call last):\n'
        '  File "<stdin>", line 1, in <module>\n'
    ),
}


@pytest.mark.parametrize("frames", MODULE_TOPS.values(), ids=MODULE_TOPS.keys())
def test_a_modules_top_that_raised_names_no_record_raised_elsewhere(
    frames_source: sources.Source, frames: str
) -> None:
    """A module's top raises while it is imported, and code typed at the prompt raises
    right there: neither is the record's file."""
    assert found_in(frames_source, f"{frames}{STATE_SAID}\n") == []


def test_a_validation_errors_inner_message_is_not_named_by_the_outer_frame(
    frames_source: sources.Source,
) -> None:
    """The last frame is the model's constructor, which raised the outer error; the
    inner line is the validator's, raised in a file of its own."""
    body = traceback(
        '  File "/venv/site-packages/loom/main.py", line 250, in __init__',
        "loom_core.ValidationError: 1 validation error for Settings\nadapter\n"
        f"  Value error, {MISMATCH} [type=value_error, input_value='x', input_type=str]",
        code="    validated = self.validator.validate_python(data)",
    )
    assert messages(found_in(frames_source, body)) == [MISMATCH]


def test_an_error_raised_again_in_another_process_is_named_by_its_first_frame(
    frames_source: sources.Source,
) -> None:
    """A worker's traceback, then the same error raised again where its result is read."""
    worker = traceback(
        '  File "/venv/site-packages/loom/checkpoints.py", line 12, in restore', STATE_SAID
    )
    parent = traceback(
        '  File "/usr/lib/python3.11/concurrent/futures/_base.py", line 449, in result',
        STATE_SAID,
        code="    raise self._exception",
    )
    assert messages(found_in(frames_source, worker + "\nand in the parent:\n" + parent)) == [STATE]


# --- an exception of the record's own package --------------------------------------------

OWN_PACKAGE = {
    "named with its module": "loom.errors.LoomImportError: `loom.Schema` was removed in V2.",
    "a class named after the package": "LoomImportError: `loom.Schema` was removed in V2.",
}


@pytest.mark.parametrize("body", OWN_PACKAGE.values(), ids=OWN_PACKAGE.keys())
def test_a_short_message_of_the_records_own_package_names_it(
    frames_source: sources.Source, body: str
) -> None:
    """``was removed in V2`` is too few words of its own to name a record, unless
    the exception's name says the error is the package's."""
    (found,) = found_in(frames_source, f"Upgrading breaks my import:\n\n{body}\n")
    assert (found.message, found.values) == (REMOVED, (("name", "loom.Schema"),))


NOT_OWN = {
    "a plain exception": "ImportError: `loom.Schema` was removed in V2.",
    "another package's module": ("weave.errors.LoomImportError: `loom.Schema` was removed in V2."),
}


@pytest.mark.parametrize("body", NOT_OWN.values(), ids=NOT_OWN.keys())
def test_a_short_message_of_another_package_names_nothing(
    frames_source: sources.Source, body: str
) -> None:
    assert found_in(frames_source, f"Upgrading breaks my import:\n\n{body}\n") == []


# --- what the paste leaves out, and how it quotes -----------------------------------------


def test_a_value_the_paste_left_out_names_no_message_a_longer_one_starts_like(
    frames_source: sources.Source,
) -> None:
    """``at .....`` may stand for the URL and the sentence after it: the words before it
    start two messages."""
    assert (
        found_in(frames_source, "ConnectionError: Could not reach the package mirror at .....")
        == []
    )
    said = "ConnectionError: Could not reach the package mirror at https://pkgs.example/simple"
    assert messages(found_in(frames_source, said)) == [MIRROR]


def test_a_message_quoted_otherwise_than_its_record_names_nothing(
    frames_source: sources.Source,
) -> None:
    """Search reads quotes as blanks; the record puts the split in double quotes, so a
    paste in single quotes is another library's message."""
    other = "KeyError: Unknown split 'val'. Choose one of ['train', 'test']."
    assert found_in(frames_source, other) == []
    same = "KeyError: Unknown split \"val\". Choose one of ['train', 'test']."
    assert messages(found_in(frames_source, same)) == [SPLIT]


# --- a message introduced by the paste's own words ----------------------------------------


def test_the_paragraph_after_a_line_saying_an_error_follows_names_its_record(
    frames_source: sources.Source,
) -> None:
    body = (
        "I load the adapter from the hub and I am getting this error:\n\n"
        "The adapter weights do not match the hidden size of the base model.\n\n"
        "Is the adapter for another size?"
    )
    assert messages(found_in(frames_source, body)) == [MISMATCH]


def test_a_title_naming_the_exception_alone_reads_the_body_as_its_message(
    frames_source: sources.Source,
) -> None:
    body = "`loom.Schema` was removed in V2.\n\nI followed the upgrade guide."
    (found,) = found_in(frames_source, body, title="LoomImportError")
    assert found.message == REMOVED
    assert found_in(frames_source, body, title="Upgrade question") == []


OTHER_WORDINGS = {
    "the words after a value, then others": (
        "OSError: Could not download tiny-model from the hub to load this file"
    ),
    "a quote mark of the message's own, then other words": (
        "Starting fails with `ValueError: To skip the check, set `check_fast=True` and retry.`"
    ),
}


@pytest.mark.parametrize("body", OTHER_WORDINGS.values(), ids=OTHER_WORDINGS.keys())
def test_a_paste_that_says_the_next_words_otherwise_is_no_cut_message(
    frames_source: sources.Source, body: str
) -> None:
    """An older wording goes on with the message's own words and then says others: it
    is not the message cut short (a value taking in the rest), nor is a message cut at a
    quote mark of its own (a closing mark comes before a blank, not a letter)."""
    assert found_in(frames_source, body) == []


CUT_HERE = {
    "in the words after a value": (
        "OSError: Could not download tiny-model from the hub to lo",
        FETCH,
    ),
    "in a quoted message, after its own quote": (
        "Starting fails with `ValueError: To skip the check, set `skip_check=True` on the lo",
        SKIP,
    ),
}


@pytest.mark.parametrize(("body", "message"), CUT_HERE.values(), ids=CUT_HERE.keys())
def test_a_message_cut_short_is_still_named(
    frames_source: sources.Source, body: str, message: str
) -> None:
    assert messages(found_in(frames_source, body)) == [message]


def test_a_report_that_starts_with_a_bare_message_names_its_record(
    frames_source: sources.Source,
) -> None:
    body = (
        "The adapter weights do not match the hidden size of the base model.\n\n"
        "It happens with every adapter I made last week.\n\nThanks for any help!"
    )
    assert messages(found_in(frames_source, body, title="Adapters stopped loading")) == [MISMATCH]


def test_a_qualified_class_whose_name_ends_in_no_error_is_read_as_one(
    frames_source: sources.Source,
) -> None:
    # Cut short, the message names its record only when the line names its exception.
    body = (
        "On main:\n```\nloom.errors.LoomInvalidForSchema: Cannot build a schema for "
        "Callable from its ty\n```\n"
    )
    (found,) = found_in(frames_source, body)
    assert (found.message, found.values) == (UNSUPPORTED, (("kind", "Callable"),))


def test_a_line_of_a_paragraph_introduced_as_the_error_names_its_record(
    frames_source: sources.Source,
) -> None:
    """The tool prints other lines around the message; the paragraph is no message."""
    body = (
        "Running the benchmark, it shows the error:\n"
        "Scoring failed for 2 answers\n"
        "The adapter weights do not match the hidden size of the base model.\n"
        "Run stopped.\n\nHow can I fix it?"
    )
    assert messages(found_in(frames_source, body)) == [MISMATCH]


def test_a_first_line_whole_then_an_older_second_line_names_its_record(
    frames_source: sources.Source,
) -> None:
    """The first line says what went wrong; the advice after it is reworded from one
    release to the next. Pasted on one line, as a log joins them."""
    older = (
        "OSError: tiny-model is neither a folder here nor a model listed on "
        "'https://hub.example/models' If the model is private, pass `use_auth_token=True`."
    )
    (found,) = found_in(frames_source, older)
    assert (found.message, found.values) == (NOT_FOUND, (("name", "tiny-model"),))
    # Named nowhere, the first line alone in prose is no whole message.
    assert found_in(frames_source, older.split(": ", 1)[1]) == []


LABELLED = {
    "a tool's Error label amid its output": (
        "```\nchecking tool fetch\n  timeout: float\n\n"
        "Error: The adapter weights do not match the hidden size of the base model.\n```\n"
    ),
    "a viewer's Message label, padded": (
        "The viewer shows:\n\nMessage:      The adapter weights do not match the hidden size "
        "of the base model.\n"
    ),
}


@pytest.mark.parametrize("body", LABELLED.values(), ids=LABELLED.keys())
def test_a_message_behind_a_tools_label_names_its_record(
    frames_source: sources.Source, body: str
) -> None:
    assert messages(found_in(frames_source, body)) == [MISMATCH]


INTRODUCED = {
    "a node runner's heading": (
        "Error occurred when executing AdapterLoaderNode:\n\n"
        "The adapter weights do not match the hidden size of the base model.\n\n"
        '  File "/apps/runner/execution.py", line 151, in recursive_execute\n'
    ),
    "a sentence ending in a stop": (
        "When I load it in 8 bits, the code throws an error.\n\n"
        "The adapter weights do not match the hidden size of the base model.\n"
    ),
}


@pytest.mark.parametrize("body", INTRODUCED.values(), ids=INTRODUCED.keys())
def test_a_paragraph_after_a_sentence_about_an_error_is_read_as_one(
    frames_source: sources.Source, body: str
) -> None:
    assert messages(found_in(frames_source, body, title="Loading fails")) == [MISMATCH]


def test_an_error_line_introduces_nothing_and_a_fields_name_is_no_message(
    frames_source: sources.Source,
) -> None:
    """A validation error's first line says "error" too: what follows it is its own
    body (a field's name, then the inner error), read as pydantic's, not as prose."""
    body = (
        "```\nloom_core.ValidationError: 1 validation error for Settings\n"
        "adapter\n  Value error, The adapter weights do not match the hidden size of the "
        "base model. [type=value_error, input_value='x', input_type=str]\n```\n"
    )
    assert messages(found_in(frames_source, body)) == [MISMATCH]
    assert reports.introduced(body) == []


def test_a_word_said_once_counts_once_however_often_the_message_says_it(
    frames_source: sources.Source,
) -> None:
    """A field's name alone on a line (``processor``) is not 18 letters of a message that
    says it twice: it names nothing, however it is introduced."""
    (entry,) = [e for e in frames_source.index.entries if e.template == PROCESSOR]
    assert reports.own_text("processor", entry) == len("processor")
    assert reports.own_text("Processor x is no processor", entry) == 2 * len("processor") + 4
    body = "Then it prints this error:\nprocessor\nand stops\nwithout more\n"
    assert found_in(frames_source, body) == []


CLASS_MODULES = {
    "the record's package": ("loom.tools.DocstringError", DOCSTRING),
    "Python's own module": ("argparse.ArgumentTypeError", ARGUMENT),
}


@pytest.mark.parametrize(("exception", "message"), CLASS_MODULES.values(), ids=CLASS_MODULES.keys())
def test_a_class_named_with_its_module_names_the_record_that_raises_it(
    frames_source: sources.Source, exception: str, message: str
) -> None:
    said = message.replace("{func}", "fetch").replace("{arg}", "'url'").replace("{value}", "'x'")
    assert messages(found_in(frames_source, f"It fails:\n\n{exception}: {said}\n")) == [message]


def test_a_class_of_the_same_name_in_another_package_names_nothing(
    frames_source: sources.Source,
) -> None:
    """Another package copied the function and its exception class: the module the
    paste names says whose error it is."""
    body = (
        "It fails:\n\nweave.tools.DocstringError: Cannot describe fetch because its "
        "docstring says nothing of the argument 'url'\n"
    )
    assert found_in(frames_source, body) == []


def test_a_value_that_takes_in_the_reports_sentences_names_nothing(
    frames_source: sources.Source,
) -> None:
    """With no exception named, a template that starts and ends with a placeholder fits
    a whole report around its words; its values would hold the report's sentences."""
    body = (
        "### System Info\n\n- loom 2.1\n- Python 3.12\n\n### Who can help?\n\n@someone\n\n"
        "### Reproduction\n\nRunning it fails with:\n\n"
        "```\n[32] Scheduler is not ready for the next batch: queue is closed\n```\n"
    )
    assert messages(found_in(frames_source, body)) == [NOT_READY_AT]


def test_a_traceback_after_a_sentence_about_an_error_is_read_as_a_traceback(
    frames_source: sources.Source,
) -> None:
    """Introduced by "I get this error:", a traceback is no message written out: its
    first lines would be a leading placeholder's value."""
    body = (
        "Upgrading broke it.\n\nI get this error:\n"
        "Traceback (most recent call last):\n"
        '  File "/home/ana/run.py", line 3, in <module>\n'
        "    main()\n"
        "Scheduler is not ready for the next batch: queue is closed\n"
    )
    assert [r.message for r in reports.introduced(body)] == ["Upgrading broke it."]


def test_lines_saying_what_the_code_did_leave_an_errors_lead_in_its_readings(
    source: sources.Source,
) -> None:
    """ "I ran the following:" and "It printed:" introduce code and output, whose lines
    are read one by one; the paragraph after "Now I get this error:" is read first."""
    body = (
        "It stopped working after the upgrade.\n\nI ran the following:\n\n"
        + "".join(f"engine.step({n})\n" for n in range(6))
        + "\nBefore the upgrade it printed:\n\n"
        + "".join(f"step {n} done in 0.{n} s\n" for n in range(6))
        + "\nNow I get this error:\n\nNo available memory for the cache blocks\n"
    )
    assert messages(found_in(source, body)) == [BLOCKS]


@pytest.mark.parametrize("said", ["I get:", "It says:", "but it fails with:", "Output:"])
def test_a_message_after_a_line_saying_what_the_code_did_is_read(
    source: sources.Source, said: str
) -> None:
    """ "I get:" and its kin end in a colon and name no error: the paragraph after them is
    the message, as after "I get this error:"."""
    body = f"On my laptop it stops. {said}\n\nNo available memory for the cache blocks\n\nAny idea?"
    assert messages(found_in(source, body)) == [BLOCKS]


# --- how real threads paste a message: stops, empty values, quotes, reprs -----------------

NO_FILE = "No weights file named {name} in the folder {folder}."
OPEN = "Cannot open {name} because {param} expects shape {want}, got {got}."
REACH = (
    "Could not reach {host} and {path} is no folder holding {file}. "
    "Check your connection or work offline."
)
ENTRY = "The deprecation entry {entry} should be removed since version {version} is >= {since}"
FORMAT = "Format {name} is not supported."
STRATEGY = "Unknown truncation strategy {name}."
NO_DATA = "No data file at {path}."
NO_DATA_ANYWHERE = "No data file at {path}. Not on the hub either: {error}"
IMPORT = "Failed to import {module} because of the error below (see its traceback):\n{error}"
PASTED = {
    "loaders/format.yaml": record("ValueError", FORMAT, "loaders/format.py"),
    "loaders/strategy.yaml": record("ValueError", STRATEGY, "loaders/strategy.py"),
    "loaders/data.yaml": record("FileNotFoundError", NO_DATA, "loaders/data.py"),
    "loaders/data-hub.yaml": record("FileNotFoundError", NO_DATA_ANYWHERE, "loaders/hub.py"),
    "loaders/import.yaml": record("RuntimeError", IMPORT, "loaders/lazy.py"),
    "loaders/files.yaml": record("EnvironmentError", NO_FILE, "loaders/files.py"),
    "loaders/state.yaml": record(
        "AttributeError", "`{cls}` object has no attribute `{name}`. Was reset() called?"
    ),
    "loaders/shapes.yaml": record("ValueError", OPEN, "loaders/shapes.py"),
    "loaders/hub.yaml": record("EnvironmentError", REACH, "loaders/hub.py"),
    "loaders/deprecate.yaml": record("ValueError", ENTRY, "loaders/deprecate.py"),
}
NO_FILE_SAID = "No weights file named model.bin in the folder /data/models/vae"


@pytest.fixture(scope="module", params=["records", "built index"])
def pasted_source(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> sources.Source:
    return source_of(request.param, tmp_path_factory.mktemp("pasted"), PASTED)


@pytest.mark.parametrize(
    "body",
    [
        f" {NO_FILE_SAID}\n\nAny idea?",
        f"OSError: {NO_FILE_SAID}\n",
        f"It fails:\n\n```\nTraceback (most recent call last):\nOSError: {NO_FILE_SAID}\n```",
    ],
    ids=["a bare line", "an error's line", "a traceback"],
)
def test_a_message_without_its_closing_stop_names_its_record(
    pasted_source: sources.Source, body: str
) -> None:
    (found,) = found_in(pasted_source, body)
    assert found.message == NO_FILE
    assert found.values == (("name", "model.bin"), ("folder", "/data/models/vae"))


def test_a_message_without_its_stop_whose_last_value_takes_in_prose_names_nothing(
    pasted_source: sources.Source,
) -> None:
    """With no exception named and no stop, the last value runs to the line's end: a
    value with a blank in it may hold the words the reporter went on with."""
    body = "No weights file named model.bin in the folder models and then it stops\n"
    assert found_in(pasted_source, body) == []
    assert messages(found_in(pasted_source, f"EnvironmentError: {NO_FILE_SAID}")) == [NO_FILE]


def test_a_message_without_its_stop_that_starts_a_longer_one_names_neither(
    tmp_path: Path,
) -> None:
    """A title without the stop, ending in a value, may as well be the start of another
    message that goes on after that value."""
    longer = "No weights file named {name} in the folder {folder}, which the index lists."
    source = source_of(
        "records",
        tmp_path,
        {**PASTED, "loaders/index.yaml": record("EnvironmentError", longer, "loaders/index.py")},
    )
    assert found_in(source, "It fails.", title=NO_FILE_SAID) == []
    # So may an error's line: only a frame in one of their files tells them apart.
    assert found_in(source, f"OSError: {NO_FILE_SAID}\n") == []


def test_a_message_without_its_stop_that_a_longer_list_goes_on_from_names_neither(
    tmp_path: Path,
) -> None:
    """Cut where one record's message ends but for its stop, a list may go on in
    another's: ``… supported: `Linear``` starts ``… supported: `Linear`, `Embedding`.``"""
    short = "Layer {name} is not supported. Only these layers are: `Linear`."
    longer = "Layer {name} is not supported. Only these layers are: `Linear`, `Embedding`."
    source = source_of(
        "records",
        tmp_path,
        {
            "short.yaml": record("ValueError", short, "tuners/a.py"),
            "longer.yaml": record("ValueError", longer, "tuners/b.py"),
        },
    )
    said = "ValueError: Layer conv1 is not supported. Only these layers are: `Linear"
    assert found_in(source, f"Training stops:\n\n{said}\n") == []
    assert messages(found_in(source, f"Training stops:\n\n{said}`.\n")) == [short]


def test_a_message_that_ends_where_the_paste_does_comes_before_one_missing_its_stop(
    tmp_path: Path,
) -> None:
    """Two raises word a message alike but for the closing stop: the paste without a stop
    is the one that has none."""
    source = source_of(
        "records",
        tmp_path,
        {
            "stop.yaml": record(
                "ValueError", "Column {name} is not in the table: {names}.", "a.py"
            ),
            "none.yaml": record("ValueError", "Column {name} is not in the table: {names}", "b.py"),
        },
    )
    body = "It fails:\n\nValueError: Column id is not in the table: []\n"
    assert messages(found_in(source, body)) == ["Column {name} is not in the table: {names}"]
    assert search.lookup(source.index, body)[0].entry.template.endswith("{names}")


def test_a_value_printed_empty_names_its_record(pasted_source: sources.Source) -> None:
    """``Cannot open {name} because`` with an empty name prints two blanks, which a paste
    (or the page it was copied from) turns into one."""
    body = (
        "Running the converter:\n\nValueError: Cannot open because decoder.bias expects "
        "shape (64,), got (768,).\n"
    )
    (found,) = found_in(pasted_source, body)
    assert found.message == OPEN
    assert found.values[:2] == (("name", ""), ("param", "decoder.bias"))
    # Lookup and the search box read it as the whole message too.
    (match, *_) = search.lookup(pasted_source.index, body.split("\n\n")[1])
    assert (match.entry.template, match.exact) == (OPEN, True)


def test_a_paragraph_with_a_traceback_right_under_it_is_read_apart(
    pasted_source: sources.Source,
) -> None:
    """The message as the first paragraph, the user's own sentence after it, and then
    the traceback with no blank line between: the paragraph ends where the traceback
    starts."""
    body = (
        "Could not reach hub.example and ./vae/model.pt is no folder holding weights.bin. "
        "Check your connection or work offline.\n"
        "retried with a subfolder\n"
        "Traceback (most recent call last):\n"
        '  File "/srv/app/train.py", line 9, in <module>\n'
        "    load()\n"
    )
    (found,) = found_in(pasted_source, body)
    assert (found.message, found.line) == (REACH, 1)  # lines count from 1


def test_a_message_quoted_in_a_comments_sentence_names_its_record(
    pasted_source: sources.Source,
) -> None:
    body = (
        "The node fails on a Mac.\n\nana · comment\n"
        f"Same here, it's the same problem. '{NO_FILE_SAID}'\n"
    )
    (found,) = found_in(pasted_source, body)
    assert (found.message, found.line) == (NO_FILE, 4)


def test_a_message_in_curly_quotes_in_a_sentence_names_its_record(
    pasted_source: sources.Source,
) -> None:
    """Editors and phones turn typed quotes into curly ones."""
    body = f"I keep getting \u201c{NO_FILE_SAID}\u201d when I run it on a Mac.\n"
    (found,) = found_in(pasted_source, body)
    assert found.message == NO_FILE


def test_a_few_words_of_a_message_quoted_in_passing_name_nothing(
    pasted_source: sources.Source,
) -> None:
    body = (
        "Since 2.0 I no longer see 'No weights file named' when the folder is empty, "
        "but now loading takes twice as long.\n"
    )
    assert found_in(pasted_source, body) == []


def test_a_string_in_a_line_of_code_names_nothing(pasted_source: sources.Source) -> None:
    """A string after a bracket, or on a line indented as code or raising, is code's."""
    for line in (
        f"I call load('{NO_FILE_SAID}') and it works",
        f"    message = '{NO_FILE_SAID}'",
        f"raise OSError('{NO_FILE_SAID}')  # in a script of mine",
    ):
        assert reports.in_prose(line) == [], line


def test_a_literals_repr_with_sentences_in_it_is_a_value_not_prose(
    pasted_source: sources.Source,
) -> None:
    title = (
        "The deprecation entry (\"mode=='np'\", '0.33.0', \"`make_grid` takes a device now. "
        "Pass `mode='pt'`.\") should be removed since version 0.33.1 is >= 0.33.0"
    )
    (found,) = found_in(pasted_source, "After upgrading the nodes.", title=title)
    assert found.message == ENTRY


def test_an_errors_repr_amid_a_log_line_names_its_record(pasted_source: sources.Source) -> None:
    body = (
        "**Logs**\n"
        "`3:01AM INF loader failed: could not load model: Unexpected "
        f"err=OSError(\"{NO_FILE_SAID}.\"), type(err)=<class 'OSError'>`\n"
    )
    (found,) = found_in(pasted_source, body)
    assert (found.message, found.line) == (NO_FILE, 2)


def test_a_message_with_no_value_is_no_printing_of_one_left_empty(
    pasted_source: sources.Source,
) -> None:
    """``Format {name} is not supported`` printed with an empty name has two blanks; a
    paste with one and no other value is another message, worded alike."""
    assert (
        found_in(pasted_source, "Converting fails:\n\nValueError: Format is not supported.") == []
    )


def test_a_paragraphs_sentences_after_a_message_whose_value_is_words_name_nothing(
    pasted_source: sources.Source,
) -> None:
    body = "Unknown truncation strategy in the docs. Which one should I use?\n\nThanks!"
    assert found_in(pasted_source, body) == []
    body = "Unknown truncation strategy only_third. Which one should I use?\n\nThanks!"
    assert messages(found_in(pasted_source, body)) == [STRATEGY]


def test_a_stopless_value_that_runs_past_a_sentence_is_a_longer_message(
    pasted_source: sources.Source,
) -> None:
    """Without its stop, ``No data file at {path}.`` would take ``/d. Not on the hub
    either`` as its path: that is the longer message, cut."""
    body = "FileNotFoundError: No data file at /data/train. Not on the hub either"
    assert messages(found_in(pasted_source, f"It fails:\n\n{body}\n")) == [NO_DATA_ANYWHERE]


def test_inline_code_over_a_line_break_is_one_quote(pasted_source: sources.Source) -> None:
    body = (
        "Loading the pipeline, I get the error `Failed to import kit.models.unet because of "
        "the error below (see its traceback):\nname 'Tokenizer' is not defined` every time."
    )
    (found,) = found_in(pasted_source, body)
    assert found.message == IMPORT
    assert found.values == (
        ("module", "kit.models.unet"),
        ("error", "name 'Tokenizer' is not defined"),
    )


def test_an_errors_repr_in_code_names_nothing(pasted_source: sources.Source) -> None:
    said = f'OSError("{NO_FILE_SAID}.")'
    for body in (
        f"My loader:\n\n```python\nerr = {said}\n```\n",
        f"My loader asserts it: assert found, {said}\n",
    ):
        assert found_in(pasted_source, body) == [], body


def test_a_pythons_own_message_that_starts_a_records_names_nothing(tmp_path: Path) -> None:
    """Python says ``'NoneType' object has no attribute 'to'``; a record that goes on
    after those words is another message."""
    setup = "'{cls}' object has no attribute '{name}'; call setup() first"
    source = source_of("records", tmp_path, {"setup.yaml": record("AttributeError", setup)})
    body = "Moving it fails:\n\nAttributeError: 'NoneType' object has no attribute 'to'\n"
    assert found_in(source, body) == []
    said = "AttributeError: 'Loader' object has no attribute 'to'; call setup() first"
    assert messages(found_in(source, f"Moving it fails:\n\n{said}\n")) == [setup]


def test_a_quote_ends_at_its_first_closing_mark(pasted_source: sources.Source) -> None:
    """Past it is the sentence's own words: ``'No weights file named' and then 'x'``."""
    body = "The log says 'No weights file named' and then 'model.bin in the folder /m'.\n"
    assert found_in(pasted_source, body) == []


def test_a_value_without_the_stop_takes_in_no_sentence(pasted_source: sources.Source) -> None:
    paste = "FileNotFoundError: No data file at /data/train. Then I ran it again"
    matches = search.lookup(pasted_source.index, paste)
    assert not any(m.exact and any(". " in v for _, v in m.values) for m in matches)


def test_an_attribute_error_in_backticks_is_no_pythons(pasted_source: sources.Source) -> None:
    """Python quotes names with ``'``: a message that puts them in backticks is the
    project's own, cut here before its next sentence."""
    body = "After a reset:\n\nAttributeError: `Loader` object has no attribute `size`.\n"
    assert messages(found_in(pasted_source, body)) == [
        "`{cls}` object has no attribute `{name}`. Was reset() called?"
    ]
