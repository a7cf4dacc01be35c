"""The error a GitHub issue pastes, wherever it sits in the text people post (#39).

What triage and ``issues import`` report (``reports.found_in``): a log line of an older
release, an error amid prose, after an environment dump or in a table, the cause of a
crash rather than its wrapper; and nothing for another project's error. Each body is read
from the records' YAML and from the index a build wrote, and both report the same.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from conftest import build_site, make_content

from errdex import lookup, search
from errdex.reports import Found, found_in


def record(exception: str, message: str) -> str:
    return f"""\
repo: example/serve
exception: {exception}
message: {json.dumps(message)}
source:
  commit: "b222222222222222222222222222222222222222"
  path: serve/engine.py
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
    "example/serve/divisible.yaml": record("ValueError", DIVISIBLE),
    "example/serve/blocks.yaml": record("ValueError", BLOCKS),
    # Wrappers, kept in triage here: they are named when nothing else is.
    "example/serve/engine-core.yaml": record("RuntimeError", WRAPPER),
    "example/serve/dead.yaml": record("EngineDeadError", DEAD),
    # Words of a foreign message, raised here with other words around them.
    "example/serve/graph-memory.yaml": record(
        "RuntimeError",
        "CUDA out of memory while capturing the graph of batch size {size}. "
        "Lower `max_num_seqs` and start again.",
    ),
}
SAID = "ValueError: tensor_parallel_size=8 must be divisible by data_parallel_size=3."


@pytest.fixture(scope="module", params=["records", "built index"])
def source(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[lookup.Source]:
    root = tmp_path_factory.mktemp("issue-text")
    content = make_content(root, RECORDS)
    if request.param == "records":
        yield lookup.content_source(content, strict=False)
        return
    yield lookup.site_source(lookup.FolderStore(build_site(content, root)))


def messages(found: list[Found]) -> list[str]:
    return [f.message for f in found]


# --- log lines of older releases ----------------------------------------------------------


def test_an_older_releases_log_line_names_its_record_with_the_values(
    source: lookup.Source,
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
    source: lookup.Source,
) -> None:
    body = (
        "With Ray on two nodes:\n"
        f"(RayWorkerWrapper pid=5120) ERROR 08-27 05:12:18 worker_base.py:382] {SAID}"
        " [repeated 6x across cluster]\n"
    )
    (found,) = found_in(source, body)
    assert found.values == (("tp", "8"), ("dp", "3"))
    assert found.confidence >= 0.9  # a whole message, the note of Ray's left out


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
    source: lookup.Source, body: str
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


def test_the_cause_is_named_not_the_wrapper_after_it(source: lookup.Source) -> None:
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


def test_a_wrapper_is_named_when_no_cause_is_known(source: lookup.Source) -> None:
    oom = CAUSE_THEN_WRAPPER.replace(
        SAID, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
    )
    assert messages(found_in(source, oom)) == [WRAPPER]
    dead = f"Every request fails with\nserve.v1.engine.exceptions.EngineDeadError: {DEAD}\n"
    assert [(f.exception, f.message) for f in found_in(source, dead)] == [("EngineDeadError", DEAD)]


def test_a_wrapper_that_quotes_its_cause_names_the_cause(source: lookup.Source) -> None:
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
def test_another_projects_error_names_no_record(source: lookup.Source, body: str) -> None:
    assert found_in(source, body) == []


def test_every_error_line_of_a_long_log_is_read_from_its_end(source: lookup.Source) -> None:
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
LINES = {
    "example/serve/layout.yaml": record("ValueError", LAYOUT),
    "example/serve/schema-short.yaml": record("CheckerError", SCHEMA_SHORT),
    "example/serve/schema.yaml": record("CheckerError", SCHEMA),
    "example/serve/fields.yaml": record("UserError", FIELDS),
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
) -> Iterator[lookup.Source]:
    root = tmp_path_factory.mktemp("message-lines")
    content = make_content(root, LINES)
    if request.param == "records":
        yield lookup.content_source(content, strict=False)
        return
    yield lookup.site_source(lookup.FolderStore(build_site(content, root)))


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
    lines_source: lookup.Source, body: str
) -> None:
    (found,) = found_in(lines_source, body)
    assert found.message == LAYOUT
    assert found.confidence >= 0.9
    assert dict(found.values)["loader"] == "TileLoader"


def test_a_first_paragraph_names_its_message_not_a_shorter_one_it_starts_like(
    lines_source: lookup.Source,
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


def test_a_message_without_its_last_stop_names_its_record(lines_source: lookup.Source) -> None:
    body = (
        "raise UserError(\nkit.errors.UserError: An attribute without a type was found: "
        "`size = 3`. Every field needs a type; if `size` is no field, mark it `Fixed` or list "
        "it in `options['skipped']`\n\nFull stack:\n"
    )
    assert messages(found_in(lines_source, body)) == [FIELDS]


def test_a_message_cut_inside_its_placeholder_names_nothing(lines_source: lookup.Source) -> None:
    """Less its stop, ``Cannot build a checker for {kind}`` would fit any text at all after
    its words: a paste cut in the middle of a class name is no whole message of either."""
    body = "raise CheckerError(\nkit.errors.CheckerError: Cannot build a checker for <cla"
    assert found_in(lines_source, body) == []


def test_an_error_quoted_inside_another_is_no_answer_of_its_own(
    lines_source: lookup.Source,
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
def test_the_start_of_a_message_names_its_record(lines_source: lookup.Source, body: str) -> None:
    (found,) = found_in(lines_source, body)
    assert found.message == FIELDS
    assert found.confidence >= 0.9
    assert dict(found.values)["name"] == "size"


def test_a_start_names_the_message_whose_own_words_explain_more_of_it(
    lines_source: lookup.Source,
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
    lines_source: lookup.Source, more: str
) -> None:
    body = f"Loading my models:\nkit.errors.UserError: {FIELDS_SAID}{more}\n"
    assert messages(found_in(lines_source, body)) == [FIELDS]
    # Quoted in prose, naming no exception, the message must be all there is.
    assert found_in(lines_source, "Loading my models fails.", title=FIELDS_SAID + more) == []


def test_a_debuggers_line_naming_the_exception_above_its_message_names_its_record(
    lines_source: lookup.Source,
) -> None:
    body = f"It stops in the debugger:\n\nException has occurred: UserError\n{FIELDS_SAID}\n\nWhy?"
    (found,) = found_in(lines_source, body)
    assert (found.message, found.line) == (FIELDS, 3)


@pytest.mark.parametrize("message", [PLOT_QUOTED, PLOT_BARE])
def test_of_two_messages_search_reads_alike_the_one_pasted_is_named(
    lines_source: lookup.Source, message: str
) -> None:
    """Search drops quotes, so both messages match both pastes as well: the one whose
    quotes the paste keeps is the answer."""
    body = f"Plotting fails:\n\nImportError: {message}\n"
    assert messages(found_in(lines_source, body)) == [message]


def test_a_message_pasted_on_one_line_names_the_record_on_one_line(
    lines_source: lookup.Source,
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
    lines_source: lookup.Source, body: str
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
    source: lookup.Source, body: str, title: str, message: str
) -> None:
    assert messages(found_in(source, body, title=title)) == [message]


UNTITLED = {
    "cut in the middle of a word": "tensor_parallel_size=8 must be divisible by data_paral",
    "ending in a value that takes in the prose": (
        "tensor_parallel_size=8 must be divisible by data_parallel_size=3 on my two nodes"
    ),
    "a message's first words, then other words": "No available memory for the cache when busy",
}


@pytest.mark.parametrize("title", UNTITLED.values(), ids=UNTITLED.keys())
def test_a_title_that_only_starts_like_a_message_names_nothing(
    source: lookup.Source, title: str
) -> None:
    """With no exception named, a start must end in the message's own words, at a word's
    end: a piece cut in a word's middle, or prose a value would take in, is no message."""
    assert found_in(source, "The run stops with KeyError: 'rank'.", title=title) == []


# --- the call that raised it -------------------------------------------------------------

RAISED = {
    "a traceback cut after the line that raised": (
        "Traceback (most recent call last):\n"
        '  File "/opt/serve/config.py", line 2, in check\n'
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
    source: lookup.Source, body: str, title: str, message: str
) -> None:
    assert messages(found_in(source, body, title=title)) == [message]


def test_a_call_on_a_line_around_the_one_that_ran_names_nothing(source: lookup.Source) -> None:
    body = (
        "     10     if free < needed:\n"
        "     11         raise ValueError('No available memory for the cache blocks. Try "
        "increasing `gpu_memory_utilization` when initializing the engine.')\n"
        "---> 12     raise KeyError(name)\n"
    )
    assert found_in(source, body) == []
