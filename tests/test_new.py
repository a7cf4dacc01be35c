"""new: a record scaffolded from a message or a traceback, ready to fill in, never over another."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import jsonschema
import pytest
import yaml
from conftest import CONTENT, MINIMAL, ROOT, least_cpu_time, make_content
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from errdex.source import new

TRACEBACK = """\
Traceback (most recent call last):
  File "/app/serve.py", line 3, in <module>
    main()
ValueError: tp_size=8 must be divisible by dcp_size=3 for model meta-llama/Llama-3 at /data/m/x.
"""


def test_a_traceback_on_stdin_becomes_a_record_with_guessed_placeholders(
    tmp_path: Path,
    run,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    content = make_content(tmp_path, {})
    monkeypatch.setattr("sys.stdin", io.StringIO(TRACEBACK))
    result = run("new", "--repo", "vllm-project/vllm", "--content", content)
    assert result.code == 0, result.err
    path = Path(result.out.strip())
    text = path.read_text()
    data = yaml.safe_load(text)
    assert data["exception"] == "ValueError"
    assert data["message"] == (
        "tp_size={number} must be divisible by dcp_size={number_2} for model {model} at {path}."
    )
    assert "#   {model} was meta-llama/Llama-3" in text
    assert "guessed placeholder {number_2} from '3'; confirm it" in result.err
    assert text.startswith("# yaml-language-server: $schema=../../../record.schema.json")
    assert "; `errdex check` says what is left." in text  # the command a pip user has
    assert (path.parent / "../../../record.schema.json").resolve() == content / "record.schema.json"

    # What is left to fill in is exactly what check names.
    check = run("check", "--content", content)
    assert check.code == 1
    assert f"{path.name}:13: source.commit must not be empty" in check.err
    filled = text.replace('commit: ""', 'commit: "abcdef1"').replace('path: ""', "path: a.py")
    path.write_text(filled.replace("line: 0", "line: 1"))
    checked = run("check", "--content", content)
    assert checked.code == 0
    # Each thing the scaffold left for the author is a warning at its line, none published
    # unsaid.
    left = re.findall(r":(\d+): warning: (.*) \[W307\]", checked.err)
    assert [what for _, what in left] == [
        "meaning is still TODO",
        "solutions.0 is still TODO",
        "example_fix.0.code is still the scaffold's '# before' and '# after'",
        "when.trigger is still TODO",
        "when.situations is still TODO",
        "analysis.by is still TODO",
    ]
    lines = filled.splitlines()
    fields = [lines[int(n) - 1].split("#")[0].strip() for n, _ in left]
    assert fields == [
        "meaning: |",
        "- TODO",
        "code: |",
        "trigger: TODO",
        "situations: TODO",
        "by: TODO",
    ]


INSTALLED = """\
Traceback (most recent call last):
  File "/home/me/app/load.py", line 5, in <module>
    settings = loader.read("config.yml")
  File "/home/me/.venv/lib/python3.11/site-packages/loader/core.py", line 88, in read
    return self._parse(text)
           ^^^^^^^^^^^^^^^^^
  File "/home/me/.venv/lib/python3.11/site-packages/loader/parse.py", line 214, in _parse
    raise ParseError(f"unknown tag {tag!r}")
loader.errors.ParseError: unknown tag '!include'
"""


PYTEST_LONG = """\
    def test_reads_the_config():
>       loader.read("config.yml")

tests/test_config.py:5:
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _

    def _parse(self, text):
>       raise ParseError(f"unknown tag {tag!r}")
E       loader.errors.ParseError: unknown tag '!include'

/home/me/.venv/lib/python3.11/site-packages/loader/parse.py:214: ParseError
"""
"""pytest's long report (its default): the place under the error's "E" line names the
class, but no message."""


@pytest.mark.parametrize(
    ("paste", "path", "line"),
    [
        (INSTALLED, "loader/parse.py", 214),
        (PYTEST_LONG, "loader/parse.py", 214),
        (INSTALLED.replace(".venv/lib/python3.11/site-packages", "src"), "", 0),
        ("loader.errors.ParseError: unknown tag '!include'\n", "", 0),
        ("".join(f"[rank0]: {line}\n" for line in INSTALLED.splitlines()), "loader/parse.py", 214),
        (
            INSTALLED.replace(
                '"/home/me/.venv/lib/python3.11/site-packages/loader/parse.py", line 214,',
                r'"C:\Users\me\venv\Lib\site-packages\loader\parse.py", line 214,',
            ),
            "loader/parse.py",
            214,
        ),
        (
            INSTALLED.replace("site-packages/loader", "site-packages/Loader-1.0-py3.11.egg/loader"),
            "loader/parse.py",
            214,
        ),
        (
            INSTALLED.replace(", line 214, in _parse", ", line 214").replace(
                "loader.errors.ParseError: unknown tag '!include'", "SyntaxError: invalid syntax"
            ),
            "loader/parse.py",
            214,
        ),
        (
            "ParseError                                Traceback (most recent call last)\n"
            "Cell In[3], line 1\n----> 1 settings = loader.read('config.yml')\n\n"
            "File ~/.venv/lib/python3.11/site-packages/loader/parse.py:214, in _parse(self, text)\n"
            "    212 tag = text.tag\n    213 if tag not in KNOWN:\n"
            "--> 214     raise ParseError(f'unknown tag {tag!r}')\n\n"
            "ParseError: unknown tag '!include'\n",
            "loader/parse.py",
            214,
        ),
        (
            "ParseError                                Traceback (most recent call last)\n"
            "[/usr/local/lib/python3.11/dist-packages/loader/parse.py](https://localhost:8080/#)"
            " in _parse(self, text)\n    213 if tag not in KNOWN:\n"
            "--> 214     raise ParseError(f'unknown tag {tag!r}')\n\n"
            "ParseError: unknown tag '!include'\n",
            "loader/parse.py",
            214,
        ),
    ],
    ids=[
        "an installed file",
        "pytest's long report, its place under the error",
        "a file of the user's",
        "no traceback",
        "each line behind a log tag",
        "a Windows path",
        "an installed egg",
        "a SyntaxError's frame, which names no function",
        "IPython's, a blank line between its listing and the error",
        "Colab's, the frame's path a link and its line the listing's arrow",
    ],
)
def test_a_traceback_gives_the_record_the_place_of_its_last_frame(
    paste: str,
    path: str,
    line: int,
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The last frame of a pasted traceback is where the error was raised: in an installed
    package, its path there is most often its path in the package's repository. The
    scaffold fills in that path and line, to confirm, and names the function; a frame
    in a file of the user's own is only named."""
    content = make_content(tmp_path, {})
    monkeypatch.setattr("sys.stdin", io.StringIO(paste))
    result = run("new", "--repo", "example/loader", "--content", content)
    assert result.code == 0, result.err
    text = Path(result.out.strip()).read_text()
    source = yaml.safe_load(text)["source"]
    assert (source["path"], source["line"]) == (path, line)
    if path:
        named = "SyntaxError" not in paste and paste is not PYTEST_LONG  # a place, no function
        function = "_parse  # as the paste names it (a method: Class.method)"
        assert f"# function: {function if named else 'Class.method'}\n" in text
        assert "confirm it in the repository" in text
    elif paste is not INSTALLED and "Traceback" in paste:
        assert "  # the paste's last frame: /home/me/src/loader/parse.py\n" in text
    filled = text.replace('commit: ""', 'commit: "abcdef1"')
    if not path:
        filled = filled.replace('path: ""', "path: a.py").replace("line: 0", "line: 1")
    Path(result.out.strip()).write_text(filled)
    assert run("check", "--content", content).code == 0  # it builds once the commit is in


def test_new_never_writes_over_a_record(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, {})
    first = run(
        "new", "Model x is gone.", "--repo", "a/b", "--exception", "KeyError", "--content", content
    )
    assert first.code == 0
    path = Path(first.out.strip())
    path.write_text(path.read_text().replace("TODO", "Written by a person."))
    before = path.read_bytes()
    again = run(
        "new", "Model x is gone.", "--repo", "a/b", "--exception", "KeyError", "--content", content
    )
    assert again.code == 1
    assert "already has this error" in again.err
    assert path.read_bytes() == before


def test_a_pasted_traceback_names_the_class_with_its_module_and_finds_the_record(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """A traceback's last line names the class with its module; a record scanned from
    the raise names it as the raise does. They are one error, and ``new`` says so."""
    content = make_content(tmp_path, {})
    first = run(
        "new", "ParserError: while parsing a block mapping", "--repo", "a/b", "--content", content
    )
    assert first.code == 0, first.err
    pasted = "yaml.parser.ParserError: while parsing a block mapping"
    again = run("new", pasted, "--repo", "a/b", "--content", content)
    assert again.code == 1
    assert f"{Path(first.out.strip()).name} already has this error" in again.err
    made = Path(first.out.strip()).name
    assert [p.name for p in (content / "errors").rglob("*.yaml")] == [made]
    # Another message of the same class is another error.
    other = run("new", f"{pasted}s", "--repo", "a/b", "--content", content)
    assert other.code == 0, other.err
    # A scanned record names its placeholders after the code; the paste has values.
    scanned = content / "errors" / "scanned.yaml"
    scanned.write_text(
        "repo: a/b\nexception: ConstructorError\n"
        'message: "could not determine a constructor for the tag {node.tag}"\n'
    )
    tag = "yaml.constructor.ConstructorError: could not determine a constructor for the tag '!x'"
    again = run("new", tag, "--repo", "a/b", "--content", content)
    assert again.code == 1 and "scanned.yaml already has this error" in again.err
    # A message over two lines, which the paste's reading joins with a space.
    (content / "errors" / "two.yaml").write_text(
        "repo: a/b\nexception: PermissionError\n"
        'message: "Token {name} may only read.\\nAsk for one that may write."\n'
    )
    pasted_two = "PermissionError: Token 'ci' may only read.\nAsk for one that may write.\n"
    again = run("new", pasted_two, "--repo", "a/b", "--content", content)
    assert again.code == 1 and "two.yaml already has this error" in again.err
    # Two classes of one name in two modules are two errors.
    made_one = run(
        "new", "requests.exceptions.HTTPError: bad gateway", "--repo", "a/b", "--content", content
    )
    assert made_one.code == 0, made_one.err
    other = run("new", "urllib.error.HTTPError: bad gateway", "--repo", "a/b", "--content", content)
    assert other.code == 0, other.err
    # A class named with its package is the one its package's code names with its module.
    full = run(
        "new", "py.urllib.error.HTTPError: bad gateway", "--repo", "a/b", "--content", content
    )
    assert full.code == 1 and "already has this error" in full.err, full.err
    # An old name of a class is the class: EnvironmentError prints as OSError.
    assert run("new", "OSError: the disk is gone", "--repo", "a/b", "--content", content).code == 0
    alias = run("new", "EnvironmentError: the disk is gone", "--repo", "a/b", "--content", content)
    assert alias.code == 1 and "already has this error" in alias.err


def test_the_record_schema_for_editors_is_current_and_accepts_the_records() -> None:
    committed = (CONTENT / "record.schema.json").read_text()
    assert committed == new.schema_text(), "refresh it: python build.py new writes it"
    schema = json.loads(committed)
    jsonschema.Draft202012Validator.check_schema(schema)
    for path in sorted((CONTENT / "errors").rglob("*.yaml")):
        record = yaml.safe_load(path.read_text())
        if "analysis" in record:
            record["analysis"]["date"] = record["analysis"]["date"].isoformat()
        jsonschema.validate(record, schema)


def test_new_refuses_a_repo_or_exception_spelt_otherwise_than_the_content_spells_it(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    content = make_content(tmp_path, {"example/project/a.yaml": MINIMAL})
    result = run(
        "new", "ValueError: a message of its own", "--repo", "Example/project", "--content", content
    )
    assert result.code == 1
    assert "the content has the owner 'example'" in result.err, result.err
    result = run(
        "new",
        "a message of its own",
        "--exception",
        "valueerror",
        "--repo",
        "example/project",
        "--content",
        content,
    )
    assert result.code == 1
    assert "valueerror is spelt 'ValueError'" in result.err, result.err
    assert sorted(p.name for p in (content / "errors" / "example" / "project").iterdir()) == [
        "a.yaml"
    ]
    ok = run(
        "new",
        "a message of its own",
        "--exception",
        "ValueError",
        "--repo",
        "example/project",
        "--content",
        content,
    )
    assert ok.code == 0, ok.err


# --- What new writes builds, or new refuses ----------------------------------------------

REPO = "example/up"
SETTINGS = settings(
    max_examples=100,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

FRAMES = (
    'Traceback (most recent call last):\n  File "/app/main.py", line 3, in <module>\n    run()\n'
)


@pytest.mark.parametrize(
    ("paste", "exception", "said"),
    [
        (FRAMES + "KeyboardInterrupt\n", None, "KeyboardInterrupt carries no message"),
        (FRAMES + "AssertionError\n", None, "AssertionError carries no message"),
        (FRAMES + "ValueError:\n", None, "ValueError carries no message"),
        ("ValueError:", None, "ValueError carries no message"),
        # What else such a paste says is another error's, or a log's, not this one's.
        (
            "2024-05-01 12:00:01 ERROR worker: lost the broker, retrying\n"
            + FRAMES
            + "StopIteration\n",
            None,
            "StopIteration carries no message",
        ),
        (
            "I got RuntimeError: the cache is full before, but now:\nValueError:\n",
            None,
            "ValueError carries no message",
        ),
        (
            FRAMES + "ValueError: size must be positive\n\nDuring handling of the above "
            "exception, another exception occurred:\n\n" + FRAMES + "KeyboardInterrupt\n",
            None,
            "KeyboardInterrupt carries no message",
        ),
        ("size must be positive", "Foo: bar", "--exception must be a Python name"),
        ("size must be positive", "A" * 300, "--exception must be a Python name"),
        ("Bad: x", "1Error", "--exception must be a Python name"),
    ],
)
def test_new_refuses_what_cannot_be_a_record(
    run,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    paste: str,
    exception: str | None,
    said: str,  # type: ignore[no-untyped-def]
) -> None:
    content = make_content(tmp_path, {})
    monkeypatch.setattr("sys.stdin", io.StringIO(paste))
    given = ["--exception", exception] if exception else []
    result = run("new", "--repo", REPO, "--content", content, *given)
    assert result.code == 1
    assert f"errdex: cannot make a record: {said}" in result.err
    assert "nothing was written" in result.err
    assert list((content / "errors").rglob("*.yaml")) == []


def test_new_quotes_names_yaml_would_read_as_something_else(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, {})
    for name in ("Null", "True", "No"):
        result = run("new", "gone", "--repo", REPO, "--exception", name, "--content", content)
        assert result.code == 0, result.err
        data = yaml.safe_load(Path(result.out.strip()).read_text())
        assert data["exception"] == name


def test_every_guessed_placeholder_is_in_the_template(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, {})
    paste = "ValueError: got {'a': 1} and '/x/y/z' at [1, 2]"
    result = run("new", paste, "--repo", REPO, "--content", content)
    assert result.code == 0, result.err
    text = Path(result.out.strip()).read_text()
    data = yaml.safe_load(text)
    assert data["message"] == "got {value} and '{path}' at {value_2}"
    assert "#   {value} was {'a': 1}" in text


# Pastes as odd as a bot may send: tracebacks ending anywhere, values of every kind,
# braces, quotes, control characters and line separators, names YAML reads as other things.
_ODD = st.characters(exclude_categories=("Cs",)) | st.sampled_from(
    list("{}[]'\"/:.\\#&*!|>%@`\x00\x01\x1b\x7f\x85\u2028\u2029\ufeff\ufffe\t\r\n ")
)
_NAMES = st.sampled_from(
    ["ValueError", "KeyboardInterrupt", "torch.OutOfMemoryError", "Null", "True", "E" * 250]
)


@st.composite
def pastes(draw: st.DrawFn) -> str:
    message = draw(st.text(_ODD, max_size=80))
    shape = draw(st.sampled_from(["bare", "line", "traceback", "log"]))
    if shape == "bare":
        return message
    name = draw(_NAMES)
    line = f"{name}:{message}" if draw(st.booleans()) else name
    if shape == "line":
        return line
    if shape == "log":
        return f"2024-01-01 12:00:00 ERROR {line}\n"
    return FRAMES + line + "\n" + draw(st.text(_ODD, max_size=20))


@settings(SETTINGS, max_examples=60)
@given(
    paste=pastes(),
    exception=st.none() | _NAMES | st.text(_ODD, max_size=20),
    stdin=st.booleans(),
)
@example(paste="x\udcff", exception=None, stdin=True)
@example(paste="ValueError: a\x00b\x01c {d}", exception=None, stdin=True)
@example(paste="ValueError: x", exception="Foo: bar", stdin=False)
def test_whatever_new_writes_builds_or_new_refuses(
    run,
    monkeypatch: pytest.MonkeyPatch,
    paste: str,
    exception: str | None,
    stdin: bool,  # type: ignore[no-untyped-def]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        content = make_content(Path(folder), {})
        monkeypatch.setattr("sys.stdin", io.StringIO(paste))
        # As one argument: a name that starts with "-" is a value, not an option.
        given = [f"--exception={exception}"] if exception is not None else []
        text = ["-"] if stdin else ["--", paste]
        result = run("new", "--repo", REPO, "--content", content, *given, *text)
        written = list((content / "errors").rglob("*.yaml"))
        assert "Traceback" not in result.err
        if result.code != 0:
            assert result.code == 1
            assert result.err.startswith("errdex: ") and result.err.count("\n") == 1
            assert written == []
            return
        (path,) = written
        assert result.out.strip() == str(path)
        filled = re.sub(r'(?m)^  commit: ""', '  commit: "abcdef1"', path.read_text())
        filled = re.sub(r'(?m)^  path: ""', "  path: a.py", filled)
        path.write_text(re.sub(r"(?m)^  line: 0", "  line: 1", filled))
        out = Path(folder) / "public"
        built = run("build", "--content", content, "--out", out)
        assert built.code == 0, built.err


# --- new is linear in its input -----------------------------------------------------------

_FRAME = '  File "/srv/app/module.py", line 123, in handler\n    result = compute(value, "x")\n'
_VALUES = "'/a/b/c' 12 [1, 2] {k: v} org/model \"q\" -3.5 "
_LOG = "2024-01-01 12:00:00 INFO worker 3 loaded /data/x/y.bin in 1.5s\n"
SHAPES = {
    # A long traceback that ends in a bare exception: before, the whole of it became the
    # template, placeholder by placeholder (8,000 lines took 78 s).
    "bare exception": ("Traceback (most recent call last):\n", _FRAME, "KeyboardInterrupt\n"),
    "empty message": ("Traceback (most recent call last):\n", _FRAME, "ValueError:\n"),
    "one line of values": ("ValueError: ", _VALUES, "\n"),
    "a log without an exception": ("", _LOG, ""),
    "braces": ("ValueError: ", "{{}", "\n"),
}

_TIMER = """
import contextlib, io, json, pathlib, sys, tempfile, time
from errdex.cli import main
head, unit, tail, sizes = json.loads(sys.argv[1])
pastes = [head + unit * (size // len(unit)) + tail for size in sizes]
best = [float("inf")] * len(sizes)
# Sizes take turns, so a busy moment slows each alike; the best of five is kept.
for _ in range(5):
    for index, paste in enumerate(pastes):
        with tempfile.TemporaryDirectory() as folder:
            (pathlib.Path(folder) / "errors").mkdir()
            sys.stdin = io.StringIO(paste)
            quiet = io.StringIO()
            started = time.process_time()
            with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
                main(["new", "--repo", "a/b", "--content", folder])
            best[index] = min(best[index], time.process_time() - started)
print(json.dumps(best))
"""


def time_new(shape: tuple[str, str, str], sizes: list[int]) -> list[float]:
    try:
        done = subprocess.run(
            [sys.executable, "-c", _TIMER, json.dumps([*shape, sizes])],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"new took more than 120 s on ten pastes of {sizes} bytes")
    times: list[float] = json.loads(done.stdout.splitlines()[-1])
    return times


@pytest.mark.parametrize("shape", list(SHAPES))
def test_new_takes_time_linear_in_the_paste(shape: str) -> None:
    small, large = time_new(SHAPES[shape], [1 << 20, 4 << 20])
    # Four times the input: linear work takes about 4 times as long, quadratic 16 times.
    assert large < 10 * small + 0.05, (shape, small, large)


def test_only_a_plain_installed_path_and_a_real_line_are_filled_in() -> None:
    """What ``new`` writes from a frame: the path inside an installed archive, never one
    with a character a record refuses, never a line no file has, no ``<frozen …>`` frame
    named, no function for a module's top."""
    from errdex.search import Frame

    installed = ("", "venv", "lib", "site-packages")
    for archive in ("Loader-1.0.egg", "bundle.zip", "loader-1.0-py3-none-any.whl"):
        frame = Frame("parse.py", "f", (*installed, archive, "loader"), 3)
        assert new.in_repository(frame) == "loader/parse.py"
    assert new.in_repository(Frame("pa\x01rse.py", "f", (*installed, "loader"), 3)) is None
    assert new.in_repository(Frame("parse.py", "f", ("", "home", "me", "loader"), 3)) is None
    for line in (0, 10**25):
        place = new._source_place(Frame("parse.py", "_parse", (*installed, "loader"), line))
        assert 'path: ""' in place and "line: 0" in place
    assert new._source_place(Frame("<frozen importlib._bootstrap>", "_load", (), 241)) == (
        '  path: ""  # the file that raises it, relative to the repository root\n'
        "  line: 0  # the line of the raise\n"
        "  # function: Class.method\n"
    )
    top = new._source_place(Frame("parse.py", "<module>", (*installed, "loader"), 9))
    assert 'path: "loader/parse.py"' in top and "  # function: Class.method\n" in top
    # A method the frame names with its class (IPython; Cython adds the module): the
    # record's function is Class.method.
    for named in ("Loader._parse", "loader.parse.Loader._parse"):
        place = new._source_place(Frame("parse.py", named, (*installed, "loader"), 9))
        assert "  # function: Loader._parse  # as the paste names it\n" in place


_NET_FRAME = '  File "/venv/lib/python3.12/site-packages/loader/net.py", line 9, in open\n'


_FROM_THE_RAISE = "port must be below 65536, got {port} for {host}"


def _scaffold(run, tmp_path: Path, paste: str) -> str:  # type: ignore[no-untyped-def]
    """The record file ``new`` writes from ``paste``, in a content folder of its own."""
    content = make_content(tmp_path, {})
    result = run("new", paste, "--repo", REPO, "--content", content)
    assert result.code == 0, result.err
    return Path(result.out.strip()).read_text()


def _message_of_new(run, tmp_path: Path, paste: str) -> str:  # type: ignore[no-untyped-def]
    """The message of the record ``new`` writes from ``paste``."""
    return str(yaml.safe_load(_scaffold(run, tmp_path, paste))["message"])


def test_a_vs_code_frame_gives_the_scaffold_its_method(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """VS Code's copy of IPython's frame makes its place a link; the function after it
    is the frame's, named with its class."""
    paste = (
        "File [~/venv/lib/python3.11/site-packages/loader/parse.py:214]"
        "(file:///home/me/venv/lib/python3.11/site-packages/loader/parse.py:214),"
        " in Loader._parse(self, text)\n"
        "---> [214](file:///home/me/venv/lib/python3.11/site-packages/loader/parse.py:214)"
        "     raise ParseError(msg)\n\nParseError: unknown tag '!include'\n"
    )
    source = _scaffold(run, tmp_path, paste)
    assert 'path: "loader/parse.py"' in source and "line: 214" in source
    assert "  # function: Loader._parse  # as the paste names it\n" in source


def test_a_number_that_ends_a_sentence_is_a_placeholder(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    paste = "ValueError: The limit must be less than 1.0. Got 1.2. A version 1.0.3 is kept."
    assert _message_of_new(run, tmp_path, paste) == (
        "The limit must be less than {number}. Got {number_2}. A version 1.0.3 is kept."
    )


def test_an_exception_groups_sub_exception_becomes_the_record(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Python 3.11 prints a group's tracebacks behind a margin (``  | ``) and ends the
    group's message with how many errors it holds: the error inside is the record, with
    its frame's place, not the group's margin and all."""
    paste = (
        "  + Exception Group Traceback (most recent call last):\n"
        '  |   File "/home/me/app.py", line 9, in <module>\n'
        '  |     raise ExceptionGroup("could not load the tags", errors)\n'
        "  | ExceptionGroup: could not load the tags (1 sub-exception)\n"
        "  +-+---------------- 1 ----------------\n"
        "    | Traceback (most recent call last):\n"
        '    |   File "/home/me/venv/lib/python3.12/site-packages/loader/parse.py", line 214,'
        " in _parse\n"
        "    |     raise BadTag(msg)\n"
        "    | loader.errors.BadTag: unknown tag '!include'\n"
        "    +------------------------------------\n"
    )
    data = yaml.safe_load(_scaffold(run, tmp_path, paste))
    assert data["exception"] == "loader.errors.BadTag"
    assert data["message"].startswith("unknown tag ")
    assert (data["source"]["path"], data["source"]["line"]) == ("loader/parse.py", 214)


def test_what_new_left_todo_is_not_published(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A scaffold built as it is (the commit filled in, nothing written) warns of each
    TODO, and its page says there is no analysis yet: no "TODO" as its meaning, no
    "TODO" as who wrote it, and the home page counts no analysed error."""
    content = make_content(tmp_path, {})
    result = run(
        "new", "ValueError: The port must be below 65536", "--repo", REPO, "--content", content
    )
    assert result.code == 0, result.err
    record = Path(result.out.strip())
    text = record.read_text().replace('commit: ""', 'commit: "abcdef1"')
    record.write_text(text.replace('path: ""', "path: a.py").replace("line: 0", "line: 1"))
    out = tmp_path / "public"

    built = run("build", "--content", content, "--out", out, "--no-cache")

    assert built.code == 0, built.err
    assert built.err.count("[W307]") == 6  # meaning, solution, fix, trigger, situations, by
    data = yaml.safe_load(record.read_text())
    (page,) = (out / "errors").glob("*/index.html")
    html = page.read_text()
    assert "No analysis yet." in html
    assert "TODO" not in html
    document = json.loads((out / "api" / "errors" / f"{page.parent.name}.json").read_text())
    assert "TODO" not in json.dumps(document)
    assert data["meaning"].strip() == "TODO"  # the record itself is left as written
    assert "0 analysed" in (out / "index.html").read_text()


def test_the_raise_a_traceback_shows_names_the_placeholders(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Under its last frame a traceback shows the raise: when what it writes reads as the
    pasted message, the record's message is that template, named as scan names it (so
    both give the record one id), with no guessing; otherwise values are guessed."""
    content = make_content(tmp_path, {})
    frame = '  File "/venv/lib/python3.12/site-packages/loader/net.py", line 9, in open\n'
    shown = (
        "Traceback (most recent call last):\n" + frame + "    raise ValueError("
        'f"port must be below 65536, got {port!r} for {host}")\n'
        "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "ValueError: port must be below 65536, got 70000 for example.org\n"
    )
    result = run("new", shown, "--repo", REPO, "--content", content)
    assert result.code == 0, result.err
    text = Path(result.out.strip()).read_text()
    data = yaml.safe_load(text)
    assert data["message"] == "port must be below 65536, got {port} for {host}"
    assert "#   {port} was 70000\n#   {host} was example.org\n" in text
    assert "placeholder {port} as the pasted raise names it, was '70000'" in result.err
    Path(result.out.strip()).unlink()
    # Another raise, or one over several lines, says nothing of this message: guessed.
    for raise_line in ('    raise ValueError(f"size {n} is too big")\n', "    raise ValueError(\n"):
        other = shown.replace(shown.splitlines(keepends=True)[2], raise_line)
        guessed = run("new", other, "--repo", REPO, "--content", content)
        assert guessed.code == 0, guessed.err
        message = yaml.safe_load(Path(guessed.out.strip()).read_text())["message"]
        assert message == "port must be below {number}, got {number_2} for example.org"
        Path(guessed.out.strip()).unlink()


@pytest.mark.parametrize(
    "shape",
    [
        # pytest's long report: the raise above is another branch's, the error is int()'s.
        "    def parse(value):\n        if not value:\n"
        '            raise ValueError(f"{value!r}")\n>       return int(value)\n'
        "E       ValueError: port must be below 65536, got 70000 for example.org\n",
        # The raise under the last frame says no words of its own to find it by.
        "Traceback (most recent call last):\n" + _NET_FRAME + '    raise ValueError(f"{exc}")\n'
        "ValueError: port must be below 65536, got 70000 for example.org\n",
        # Another class's raise.
        "Traceback (most recent call last):\n" + _NET_FRAME + "    raise KeyError("
        'f"port must be below 65536, got {port} for {host}")\n'
        "ValueError: port must be below 65536, got 70000 for example.org\n",
        # A raise too deep for Python to walk.
        "Traceback (most recent call last):\n"
        + _NET_FRAME
        + "    raise ValueError("
        + " + ".join(['f"{x}a"'] * 990)
        + ")\n"
        "ValueError: port must be below 65536, got 70000 for example.org\n",
    ],
)
def test_only_the_last_frames_own_raise_of_the_class_names_placeholders(
    shape: str,
    run,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    message = _message_of_new(run, tmp_path, shape)
    assert message == "port must be below {number}, got {number_2} for example.org"


def test_pytests_marked_raise_names_the_placeholders(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    paste = (
        "    def open(port, host):\n"
        "        if port > 65535:\n"
        '>           raise ValueError(f"port must be below 65536, got {port!r} for {host}")\n'
        "E           ValueError: port must be below 65536, got 70000 for example.org\n"
    )
    assert _message_of_new(run, tmp_path, paste) == _FROM_THE_RAISE


def test_an_exception_groups_raise_names_the_placeholders_too(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    paste = (
        "  + Exception Group Traceback (most recent call last):\n"
        '  |   File "/home/me/app.py", line 9, in <module>\n'
        '  |     raise ExceptionGroup("could not open", errors)\n'
        "  | ExceptionGroup: could not open (1 sub-exception)\n"
        "  +-+---------------- 1 ----------------\n"
        "    | Traceback (most recent call last):\n"
        "  "
        + _NET_FRAME.replace("  File", "  |   File")
        + '    |     raise ValueError(f"port must be below 65536, got {port!r} for {host}")\n'
        "    | ValueError: port must be below 65536, got 70000 for example.org\n"
        "    +------------------------------------\n"
    )
    assert _message_of_new(run, tmp_path, paste) == _FROM_THE_RAISE


def test_a_paste_that_names_no_class_says_exception_is_a_stand_in(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A command-line program's output (``Error: Missing argument 'TARGET'.``) names no
    class: the record says ``Exception`` for the author to replace, and ``new`` says so."""
    content = make_content(tmp_path, {})
    paste = "Usage: tool deploy [OPTIONS] TARGET\n\nError: Missing argument 'TARGET'.\n"
    made = run("new", paste, "--repo", "a/b", "--content", content)
    assert made.code == 0, made.err
    text = Path(made.out.strip()).read_text()
    assert "exception: Exception  # TODO: the paste names no class" in text
    assert "the paste names no exception class: wrote Exception" in made.err
    named = run(
        "new",
        paste.replace("TARGET", "NAME"),
        "--repo",
        "a/b",
        "--exception",
        "UsageError",
        "--content",
        content,
    )
    assert named.code == 0 and "names no exception class" not in named.err
    assert "exception: UsageError\n" in Path(named.out.strip()).read_text()


def test_a_template_of_placeholders_alone_holds_no_pasted_message(run, content: Path) -> None:  # type: ignore[no-untyped-def]
    """``{problem}\\n{advice}`` has no words of its own: any message with a space in it
    would read as it once white space counts as one."""
    (content / "errors" / "bare.yaml").write_text(
        'repo: a/b\nexception: ValueError\nmessage: "{problem}\\n{advice}"\n'
    )
    made = run(
        "new",
        "ValueError: size must be a positive number of bytes",
        "--repo",
        "a/b",
        "--content",
        content,
    )
    assert made.code == 0, made.err


def test_reading_a_paste_as_a_records_message_takes_time_in_step_with_it() -> None:
    """Placeholders parted by line breaks, compared as spaces, took 16 s for a paste of 300
    words (a regular expression tried every space for every placeholder)."""
    from errdex.source.new import _reads_as

    template = "The batch failed:\n{first}\n{second}\n{third}\n{fourth}\nSee the batching guide."

    def paste(words: int) -> str:
        return "The batch failed: " + " ".join(["item"] * words) + " and more"

    small = least_cpu_time(lambda: _reads_as(template, paste(200)))
    large = least_cpu_time(lambda: _reads_as(template, paste(1600)))
    assert large < 40 * max(small, 1e-4)  # linear: 8 times the words, well within 40
