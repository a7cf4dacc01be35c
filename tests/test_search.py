"""Search in Python: the shared vectors, the offline lookup command, the index files."""

from __future__ import annotations

import io
import json
import random
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import CONTENT, build_site

from errdex import search
from errdex.records.model import module_of
from errdex.search.sources import FolderStore, SiteIndex
from errdex.site.build import Options, gather

HERE = Path(__file__).parent / "search"
VECTORS: list[dict[str, Any]] = yaml.safe_load((HERE / "vectors.yaml").read_text())


CROWD = 48
"""Records of one message, each raised in a file of its own: more than are scored."""


def search_content(root: Path) -> Path:
    """The bundled records plus the extra ones the vectors need."""
    content = root / "content"
    shutil.copytree(CONTENT, content)
    shutil.copytree(HERE / "extra", content / "errors" / "extra")
    crowd = content / "errors" / "crowd"
    crowd.mkdir()
    for n in range(CROWD):
        (crowd / f"m{n:02}.yaml").write_text(
            f"id: 5e1f0000000001{n:02}\nrepo: vllm-project/vllm\nexception: ValueError\n"
            'message: "The crowd of {size} workers cannot share a ring of {ring}"\n'
            f"source: {{commit: c794754062, path: vllm/crowd/m{n:02}/crowd_m{n:02}.py, line: 9}}\n"
        )
    # The same message raised a second time in one of those files, further down.
    (crowd / "m46-again.yaml").write_text(
        (crowd / "m46.yaml").read_text().replace("0146", "0148").replace("line: 9", "line: 30")
    )
    return content


@pytest.fixture(scope="module")
def vector_content(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return search_content(tmp_path_factory.mktemp("search"))


@pytest.fixture(scope="module")
def index(vector_content: Path) -> search.Index:
    site, _ = gather(Options(content=vector_content))
    return search.Index.build(search.entries_from(site.records))


def check_vector(vector: dict[str, Any], matches: list[dict[str, Any]]) -> None:
    """One vector against results as both implementations report them."""
    if vector["expect"] is None:
        assert matches == [], f"{vector['name']}: expected no match, got {matches[:1]}"
        return
    assert matches, f"{vector['name']}: no match"
    first = matches[0]
    assert first["template"] == vector["expect"], vector["name"]
    if "expect_id" in vector:  # of records that say the same words
        assert first["id"] == vector["expect_id"], vector["name"]
    if "exception" in vector:
        assert first["exception"] == vector["exception"], vector["name"]
    if "values" in vector:
        assert dict(first["values"]) == vector["values"], vector["name"]
    if "first_line" in vector:
        assert first["first_line"] == vector["first_line"], vector["name"]
    assert len(first["also"]) == vector.get("also", 0), vector["name"]
    assert first["elsewhere"] == vector.get("elsewhere", vector.get("also", 0)), vector["name"]


def as_plain(matches: list[search.Match]) -> list[dict[str, Any]]:
    """Results as the browser reports them: values as [name, value] pairs, in order."""
    return [
        {
            "id": m.entry.id,
            "template": m.entry.template,
            "exception": m.entry.exception,
            "values": [list(v) for v in m.values],
            "first_line": m.first_line,
            "also": list(m.also),
            "elsewhere": m.elsewhere,
        }
        for m in matches
    ]


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_vector_in_python(vector: dict[str, Any], index: search.Index) -> None:
    check_vector(vector, as_plain(search.lookup(index, vector["paste"])))


@pytest.mark.parametrize(
    ("paste", "exception", "message"),
    [
        ("ValueError: a b", "ValueError", "a b"),
        (
            "x\n\x1b[31mtorch.cuda.OutOfMemoryError: CUDA\x1b[0m\n",
            "torch.cuda.OutOfMemoryError",
            "CUDA",
        ),
        (
            "INFO 08-14 12:00:00 [a.py:1] started\nno exception here",
            None,
            "started no exception here",
        ),
        (
            "ERROR 08-14 12:00:00 [a.py:1] ValueError: first part\nsecond part\n"
            "INFO 08-14 12:00:01 [a.py:2] shutting down",
            "ValueError",
            "first part second part",
        ),
        ("[rank1]: RuntimeError: NCCL error", "RuntimeError", "NCCL error"),
        (
            "guided decoding stops\nvllm.exceptions.SchemaNotSupported: Cannot turn it",
            "vllm.exceptions.SchemaNotSupported",
            "Cannot turn it",
        ),
        ("A note: Settings: are kept", None, "A note: Settings: are kept"),
        ("the loop ends with StopIteration: no more rows", "StopIteration", "no more rows"),
        (
            "shop.models.Invoice.DoesNotExist: Invoice matching the lookup does not exist.",
            "shop.models.Invoice.DoesNotExist",
            "Invoice matching the lookup does not exist.",
        ),
        ("Timeout: 30 s", None, "Timeout: 30 s"),  # an ending alone names no class
        # Settings and metrics that end like a class's name
        ("client settings:\nReadTimeout: 30", None, "client settings: ReadTimeout: 30"),
        ("scores:\nExactMatch: 45.2", None, "scores: ExactMatch: 45.2"),
        ("counts:\nItemsFound: 3", None, "counts: ItemsFound: 3"),
    ],
)
def test_extract_finds_the_exception_and_message(paste: str, exception: str, message: str) -> None:
    assert search.extract(paste) == search.Extracted(exception, message)


def test_a_debug_pages_message_under_its_row_is_read_at_its_own_line() -> None:
    """What triage quotes as the line it read is the message's, not the row's label."""
    paste = "Exception Type:\tKeyError\nException Value:\t\n'region'\nPython Version:\t3.12.1\n"
    first = search.readings(paste)[0]
    assert (first.exception, first.message, first.line, first.line_text) == (
        "KeyError",
        "'region'",
        2,
        "'region'",
    )


def vector(name: str) -> str:
    return str(next(v["paste"] for v in VECTORS if v["name"] == name))


def test_readings_put_the_cause_before_its_wrapper_and_say_their_lines() -> None:
    readings = search.readings(vector("a wrapper after the cause"))
    assert [(r.exception, r.line) for r in readings] == [("ValueError", 3), ("RuntimeError", 10)]
    assert readings[0].line_text == "ValueError: PCP does not support data parallelism yet."
    assert search.extract(vector("a wrapper after the cause")) == readings[0]


def test_lookup_says_which_reading_of_the_paste_matched(index: search.Index) -> None:
    paste = vector("pydantic ValidationError with several errors and an assertion")
    extracted, matches = search.find(index, paste)
    assert extracted == search.Extracted(
        "AssertionError", "The KV cache block size 24 must be a multiple of 16 on this platform."
    )
    assert extracted.line == 5 and str(extracted.line_text).startswith("Assertion failed, The KV")
    assert matches and matches[0].exact
    body = search.find(
        index, vector("a server's JSON error body in curl output, the message a repr")
    )
    assert body[0].exception == "FileNotFoundError" and body[0].line == 7
    log = search.find(index, vector("words before the message in a log line"))
    assert log[0] == search.Extracted(None, "tp_size=8 must be divisible by dcp_size=3.")
    assert log[0].line == 0


def test_a_message_a_terminals_width_cut_inside_a_word_is_read_unbroken() -> None:
    def messages(width: int, tail: str = "s not connected", frame: bool = True) -> list[str]:
        """The readings of a traceback copied from a terminal ``width`` columns wide,
        its error line cut after ``… the graph i``."""
        path = '  File "/srv/' + "x" * width + '.py", line 4, in check'
        error = "ValueError: " + "a" * (width - 24) + " the graph i"
        lines = [path[:width], path[width:]] if frame else [path[width:]]
        return [r.message for r in search.readings("\n".join([*lines, error, tail]))]

    # A cut at punctuation inside a value has no blank on either side either.
    assert "a" * 38 + " the graph i/s not connected" in messages(62, "/s not connected")
    words = "a" * 38 + " the graph i s not connected"
    assert "a" * 38 + " the graph is not connected" in messages(62)
    assert words not in messages(62)
    # A cut between words: the space is on one side of it.
    assert "a" * 38 + " the graph i  s not connected" not in messages(62, " s not connected")
    assert "a" * 38 + " the graph i s not connected" in messages(62, " s not connected")
    # Without a frame cut at that width, lines of one length may be text wrapped
    # between words by the code (``textwrap``); nor under MIN_WIDTH.
    assert words in messages(62, frame=False)
    assert "a" * 35 + " the graph i s not connected" in messages(search.MIN_WIDTH - 1)


def test_a_paste_has_a_bounded_number_of_readings() -> None:
    bodies = "".join(f'{{"message": "m{i}"}}\n  Value error, v{i}\n' for i in range(50))
    tracebacks = "".join(f"Traceback (most recent call last):\nE{i}Error: t\n" for i in range(50))
    read = search.readings(bodies + tracebacks)
    # The bodies take at most their share: the last tracebacks keep theirs.
    assert [r.line for r in read] == [96, 97, 98, 99, *range(199, 199 - 2 * 16, -2)]
    assert search.MAX_BODIES + search.MAX_CANDIDATES == 20
    # Errors read four ways each: within their quotes (to the next and to the last closing
    # mark), with the line after them, their first line alone.
    quoted = "".join(f'"E{i}Error: a{i}" b "c\nmore{i}\n\n' for i in range(40))
    read = search.readings(quoted)
    assert len(read) == search.MAX_READINGS
    assert [r.message for r in read[:4]] == ["a39", 'a39" b ', 'a39" b "c more39', 'a39" b "c']
    assert len({r.candidate for r in read}) == search.MAX_READINGS // 4
    assert search.readings("") == [search.Extracted(None, "")]


def test_normalize_remembers_where_each_character_came_from() -> None:
    text, where = search.normalize("  Model  'Llama'\n`x`  ")
    assert text == "model llama x"
    assert "".join("  Model  'Llama'\n`x`  "[i] for i in where).lower() == "model llama\nx"


def test_lookup_prints_the_page_and_the_values(run, vector_content: Path) -> None:  # type: ignore[no-untyped-def]
    result = run(
        "lookup", "tp_size=8 must be divisible by dcp_size=3.", "--content", vector_content
    )
    assert result.code == 0
    lines = result.out.splitlines()
    assert lines[0] == "1. ValueError · vllm-project/vllm · whole message matches"
    assert lines[1] == "   tp_size={tp} must be divisible by dcp_size={dcp}."
    assert lines[2] == "   raised at vllm/config/parallel.py:532"
    assert lines[3].startswith("   https://errdex.github.io/errdex/errors/")
    assert lines[4] == "   tp = 8, dcp = 3"
    paste = "tp_size=8 must be divisible by dcp_size=3."
    document = json.loads(run("lookup", "--json", paste, "--content", vector_content).out)
    where = document["matches"][0]["raised_at"]
    assert where == {"path": "vllm/config/parallel.py", "line": 532, "function": None}


def test_a_whole_match_below_one_that_says_more_of_the_paste_is_not_sure(  # type: ignore[no-untyped-def]
    run, vector_content: Path
) -> None:
    """A paste is one error: the template that takes the paste's last stop into a value
    ranks below the one whose own text ends in it, and a bot acting alone on confidence
    0.9 acts on the first."""
    paste = "ValueError: Column a is not in the table: b, c."
    document = json.loads(run("lookup", "--json", paste, "--content", vector_content).out)
    first, second = document["matches"][:2]
    assert first["message"] == "Column {name} is not in the table: {names}."
    assert (first["exact"], first["confidence"]) == (True, 0.9857)
    assert second["message"] == "Column {name} is not in the table: {names}"
    assert (second["exact"], second["confidence"]) == (True, 0.85)


def test_lookup_says_a_first_line_matches_and_claims_no_values(  # type: ignore[no-untyped-def]
    run, vector_content: Path
) -> None:
    paste = "Server fault '503 Service Unavailable' for link 'https://models.test/w'"
    result = run("lookup", paste, "--content", vector_content)
    lines = result.out.splitlines()
    assert lines[0] == "1. RuntimeError · vllm-project/vllm · first line matches"
    assert lines[1] == "   {side} '{code} {reason}' for link '{address}'"
    assert (
        lines[2] == "   Every status code is described at https://status.example.org/codes/{code}"
    )
    assert lines[3].startswith("   raised at ")
    assert lines[4].startswith("   https://errdex.github.io/errdex/errors/")
    assert len(lines) == 5  # no values: quotes alone part {code} from {reason}
    document = json.loads(run("lookup", "--json", paste, "--content", vector_content).out)
    first = document["matches"][0]
    assert (first["exact"], first["first_line"], first["confidence"]) == (False, True, 0.425)


def test_lookup_of_a_class_name_alone_points_to_the_lists_of_its_errors(  # type: ignore[no-untyped-def]
    run, vector_content: Path
) -> None:
    # OSError prints EnvironmentError's errors as its own: both are offered, the list of
    # EnvironmentError's two, and the page of OSError's one (a site lists no one error).
    result = run("lookup", "OSError", "--content", vector_content)
    assert result.code == 1
    assert result.out.splitlines() == [
        "No error in this index matches: 'OSError'",
        "   The site lists the errors raised as EnvironmentError at exceptions/EnvironmentError/",
        "   The one error raised as OSError is at errors/e48091ef8303f677/",
    ]
    document = json.loads(
        run("lookup", "--json", " loom.ShuttleJam:", "--content", vector_content).out
    )
    assert document["exceptions"] == [
        {"name": "ShuttleJam", "path": "errors/86b80211d56b684a/", "single": True}
    ]
    # A word that names no exception of the site, or a name with more after it, is no name.
    for paste in ("shuttlejam", "ShuttleJam raised twice"):
        document = json.loads(run("lookup", "--json", paste, "--content", vector_content).out)
        assert document["matches"] == [] and document["exceptions"] == [], paste


def test_lookup_of_a_packaged_error_whose_message_matches_nothing_points_to_its_errors(  # type: ignore[no-untyped-def]
    run, vector_content: Path
) -> None:
    # A client's error whose message holds what a server said (and an id it made up):
    # Python names the package's own class with its module, and that still finds it.
    paste = (
        "Traceback (most recent call last):\n"
        '  File "/srv/app.py", line 3, in <module>\n'
        "vllm.looms.errors.ShuttleJam: 409 Conflict. (Request: 7f3a-22c1)\n"
    )
    result = run("lookup", paste, "--content", vector_content)
    assert result.code == 1
    assert result.out.splitlines() == [
        "No error in this index matches: '409 Conflict. (Request: 7f3a-22c1)'",
        "   The one error raised as ShuttleJam is at errors/86b80211d56b684a/",
    ]
    # A built-in exception, one printed without its module, or another package's class
    # of the same name is none of the site's: none is offered.
    for paste in (
        "ShuttleJam: 409 Conflict.",
        "OSError: 409 Conflict.",
        "os.Nope: 409",
        "builtins.OSError: 409 Conflict.",
        "requests.exceptions.ShuttleJam: 409 Conflict.",
    ):
        document = json.loads(run("lookup", "--json", paste, "--content", vector_content).out)
        assert document["matches"] == [] and document["exceptions"] == [], paste


@pytest.mark.parametrize(
    ("paste", "error", "offered"),
    [
        ("acme.errors.OtherError: 409", "acme.errors.OtherError", ["OtherError"]),
        # Another package's class of that name: six raises no OtherError.
        ("six.OtherError: 409", "six.OtherError", []),
        ("six.errors.SixError: 409", "six.errors.SixError", ["SixError"]),
        # A class the code holds in an attribute may be any module's.
        ("acme.db.OperationalError: locked", "acme.db.OperationalError", []),
        ("OperationalError", None, ["self.dbapi.OperationalError"]),  # a name alone: any
    ],
)
def test_a_packaged_error_is_offered_only_where_that_package_raises_it(
    paste: str, error: str | None, offered: list[str]
) -> None:
    modules = {"OtherError": ["acme"], "SixError": ["six"], "self.dbapi.OperationalError": ["acme"]}
    assert search.exceptions_named(paste, error, modules, modules) == offered


@pytest.mark.parametrize(
    ("path", "module"),
    [
        ("huggingface_hub/utils/_http.py", "huggingface_hub"),
        ("src/widgets/core.py", "widgets"),
        ("lib/sqlalchemy/orm/session.py", "sqlalchemy"),
        ("six.py", "six"),
        ("lib/helpers.py", "lib"),
    ],
)
def test_the_module_of_a_path_is_what_a_traceback_names(path: str, module: str) -> None:
    assert module_of(path) == module


def test_an_index_an_earlier_errdex_wrote_offers_no_exception_pages(  # type: ignore[no-untyped-def]
    run, tmp_path: Path
) -> None:
    """Its exceptions' pages are not known: a list page it would name may not exist."""
    out = build_site(search_content(tmp_path), tmp_path)
    meta = out / "search" / "meta.json"
    head = json.loads(meta.read_text())
    assert head.pop("exception_pages")["OSError"] == "errors/e48091ef8303f677/"
    assert head.pop("exception_modules")["ShuttleJam"] == ["vllm"]
    meta.write_text(json.dumps(head))
    result = run("lookup", "OSError", "--site", out)
    assert result.out.splitlines() == ["No error in this index matches: 'OSError'"]
    result = run("lookup", "vllm.looms.errors.ShuttleJam: 409 Conflict.", "--site", out)
    assert result.out.splitlines() == ["No error in this index matches: '409 Conflict.'"]


def test_lookup_says_a_value_printed_as_an_empty_string_is_empty(  # type: ignore[no-untyped-def]
    run, vector_content: Path
) -> None:
    paste = "ValueError: Cannot open a session for an empty user name, got ''"
    result = run("lookup", paste, "--content", vector_content)
    lines = result.out.splitlines()
    assert lines[0] == "1. ValueError · vllm-project/vllm · whole message matches"
    assert lines[4] == "   user = (empty)"


def test_lookup_reads_a_traceback_on_stdin_and_prints_json(
    run,
    vector_content: Path,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(VECTORS[1]["paste"]))
    result = run("lookup", "--json", "--content", vector_content)
    assert result.code == 0
    document = json.loads(result.out)
    assert document["query"] == {
        "exception": "ValueError",
        "message": "dcp_comm_backend='a2a' requires decode_context_parallel_size > 1.",
    }
    first = document["matches"][0]
    assert first["id"] == "9c019ab65f8b8d16"
    assert first["url"] == "https://errdex.github.io/errdex/errors/9c019ab65f8b8d16/"
    assert first["exact"] is True


def test_lookup_says_when_nothing_matches(run, vector_content: Path) -> None:  # type: ignore[no-untyped-def]
    result = run("lookup", "No module named 'flash_attn'", "--content", vector_content)
    assert result.code == 1
    assert result.out.startswith("No error in this index matches")


class Recorded:
    """The files of an index in memory, as a site folder serves them, with the files read."""

    def __init__(self, files: dict[str, Any]) -> None:
        self.name = "site"
        self.files = {rel: json.dumps(data).encode() for rel, data in files.items()}
        self.read_files: set[str] = set()

    def read(self, rel: str) -> bytes:
        self.read_files.add(rel)
        return self.files[rel]


def settings(count: int) -> list[search.Entry]:
    """``count`` records, each with a rare word of its own and a word of a few others."""
    return [
        search.make_entry(
            i,
            f"{i:016x}",
            "ValueError",
            "a/b",
            f"setting{i} must be below limit{i % 97} of {{x}}",
            "",
        )
        for i in range(count)
    ]


def test_a_small_site_answers_a_paste_from_few_files() -> None:
    """On a site of a few thousand records a whole answer reads the head and at most
    every word shard and record file: a few large files, not some forty small ones."""
    built = search.Index.build(settings(3000))
    files = built.files()
    meta = files["search/meta.json"]
    assert (meta["shards"], meta["record_files"]) == (4, 4)
    assert len(files) == 9
    store = Recorded(files)
    match = search.lookup(SiteIndex(store), "ValueError: setting1234 must be below limit70 of 5")
    assert match[0].entry.id == f"{1234:016x}"
    assert "search/meta.json" in store.read_files and len(store.read_files) <= 9
    # Up to SMALL_SITE / SMALL_SITE_FILES records: the head, one shard, one record file.
    small = search.Index.build(settings(1000)).files()
    assert sorted(small) == ["search/meta.json", "search/records/0.json", "search/words/0.json"]


def test_index_is_split_so_a_query_fetches_little(
    index: search.Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search, "SMALL_SITE", 1000)  # a large site, at a test's size
    many = settings(3000)
    built = search.Index.build(many)
    files = built.files()
    meta = files["search/meta.json"]
    assert meta["shards"] > 1
    # A power of two, at least one file for every RECORDS_PER_FILE records.
    assert meta["record_files"] == 256 >= 3000 / search.RECORDS_PER_FILE
    assert len([f for f in files if f.startswith("search/records/")]) == 256
    # Each file's rows start with the numbers meta.json says it holds.
    for number in (0, 1234, 2999):
        rows = files[f"search/records/{meta['files'][number]}.json"]
        assert [row[1] for row in rows if row[0] == number] == [built.entries[number].id]
    word = "setting1234"
    shard = files[f"search/words/{search.shard_of(word, meta['shards'])}.json"]
    assert shard[word] == [next(e.index for e in built.entries if e.id == f"{1234:016x}")]
    assert "must" in meta["common"]  # in every template: left out of the shards


def test_records_sharing_a_rare_word_sit_in_one_record_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first answer reads a few record files of the best candidates: those share the
    paste's rare words, so the index keeps the records of a rare word side by side."""
    monkeypatch.setattr(search, "SMALL_SITE", 100)  # a large site, at a test's size
    templates = [f"setting{i} must be below limit{i % 97} of {{x}}" for i in range(300)]
    for i in range(0, 300, 20):  # 15 records of one rare word, spread over the input
        # "must", "be" and "below" are in every template: "frobnicator" is their rarest.
        templates[i] = f"frobnicator {{name}} must be below {i}"
    entries = [
        search.make_entry(i, f"{i:016x}", "ValueError", "a/b", t, "")
        for i, t in enumerate(templates)
    ]
    old = search.make_entry(300, f"{20:016x}", "ValueError", "a/b", "frobnicator gone {x}", "")
    index = search.Index.build([*entries, replace(old, old=("v1", "v2", templates[20]))])
    assert [e.index for e in index.entries] == list(range(301))
    numbers = sorted(e.index for e in index.entries if "frobnicator" in e.words and not e.old)
    assert len(numbers) == 15
    files = index.files()
    meta = files["search/meta.json"]
    assert meta["record_files"] == 32
    assert len({meta["files"][n] for n in numbers}) == 1
    assert index.entries[-1].old is not None  # earlier wordings after every record's own
    # Numbered anew, the index still finds every record by its words.
    posting = files[f"search/words/{search.shard_of('frobnicator', meta['shards'])}.json"]
    assert posting["frobnicator"] == [*numbers, 300]
    assert search.lookup(index, "ValueError: frobnicator x must be below 40")[0].entry.id == (
        f"{40:016x}"
    )


def test_a_reworded_message_changes_few_files_of_the_index(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A record keeps its number when its message changes, and its file moves by a hash
    of its rarest word: the files a site host must take again after a reworded message
    are meta.json, the shards of the words it lost or gained and the record files it
    left and joined, not every file numbered after it."""
    monkeypatch.setattr(search, "SMALL_SITE", 1000)  # a large site, at a test's size
    rng = random.Random(7)
    vocabulary = [f"word{k}" for k in range(2000)]

    def entry(i: int, words: list[str]) -> search.Entry:
        template = " ".join(words) + " must be {x}"
        return search.make_entry(i, f"{i * 7919 % 10007:016x}", "ValueError", "a/b", template, "")

    texts = [rng.sample(vocabulary, 6) for _ in range(3000)]
    before = search.Index.build([entry(i, t) for i, t in enumerate(texts)]).files()
    texts[1500] = ["reworded", "entirely", *texts[1500][2:]]
    after = search.Index.build([entry(i, t) for i, t in enumerate(texts)]).files()
    assert before.keys() == after.keys()
    changed = [rel for rel in after if after[rel] != before[rel]]
    # meta.json, two record files at most, a shard for each word lost or gained.
    assert "search/meta.json" in changed
    assert len([rel for rel in changed if rel.startswith("search/records/")]) <= 2
    assert len([rel for rel in changed if rel.startswith("search/words/")]) <= 4
    assert len(before) > 250


def test_fnv1a_matches_the_published_test_values() -> None:
    assert search.fnv1a("") == 0x811C9DC5
    assert search.fnv1a("a") == 0xE40C292C
    assert search.fnv1a("foobar") == 0xBF9CF968


def test_a_last_word_cut_short_stands_for_the_words_it_starts(
    index: search.Index, tmp_path: Path
) -> None:
    words = ["incremental", "decoding", "requ"]
    cut = search.cut_short(index, words, words)
    assert list(cut) == ["requ"]
    having = {e.index for e in index.entries if any(w.startswith("requ") for w in e.words)}
    assert cut["requ"] == sorted(having) and len(having) > 1
    # A word the index has, a short one, or one it has nothing for: left as it is.
    assert search.cut_short(index, ["decoding"], ["decoding"]) == {}
    assert search.cut_short(index, ["re"], ["re"]) == {}
    assert search.cut_short(index, ["zzzqx"], ["zzzqx"]) == {}
    # The index a build writes finds the same, from the one shard the word is in.
    for rel, data in index.files().items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(json.dumps(data))
    site = SiteIndex(FolderStore(tmp_path))
    assert search.cut_short(site, words, words) == cut


def test_lookup_names_an_index_of_another_release(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "search").mkdir()
    (tmp_path / "search" / "meta.json").write_text('{"version": 1}')
    result = run("lookup", "x must be y", "--site", tmp_path)
    assert result.code == 3
    said = f"of another errdex release (version 1, this one reads {search.INDEX_VERSION})"
    assert said in result.err
    assert "Traceback" not in result.err
