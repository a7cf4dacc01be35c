"""scan against hostile codebases: it never crashes, every record it writes builds, and
every excerpt numbers its lines as Python and GitHub do.

The property test at the end closes the classes: whatever raise sites a file holds and
however its lines end, the records scan writes build, and each shows its raise at the
raise's real line."""

from __future__ import annotations

import contextlib
import io
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import SITE_YAML, git, git_repository, make_content, soup, with_cache
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from errdex import search
from errdex.cli import main
from errdex.records import validate
from errdex.records.model import parse_template
from errdex.source import scan as scanner

REPO = "example/up"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def source_lines(text: str) -> list[str]:
    """Lines as Python numbers them (and GitHub): only LF, CRLF and CR end one."""
    return re.split(r"\r\n|\r|\n", text.removesuffix("\n"))


def shown(code: str) -> str:
    """A line of code as a record holds it: a character no page may carry is written as
    Python escapes it."""
    refused = re.compile("[" + re.escape(validate.REFUSED_CHARACTERS) + r"\ud800-\udfff]")
    return refused.sub(lambda found: found.group().encode("unicode_escape").decode(), code)


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        # newline="": the test decides every line ending, Python must not translate any.
        with path.open("w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    return root


def new_content(root: Path) -> Path:
    content = root / "content"
    (content / "errors").mkdir(parents=True)
    (content / "site.yaml").write_text(SITE_YAML)
    return content


def records(content: Path) -> list[dict[str, Any]]:
    return [
        {**yaml.safe_load(p.read_text(encoding="utf-8")), "_file": p}
        for p in sorted((content / "errors").rglob("*.yaml"))
    ]


def by_exception(content: Path) -> dict[str, dict[str, Any]]:
    return {r["exception"]: r for r in records(content)}


@dataclass
class Outcome:
    code: int
    out: str
    err: str


Runner = Callable[..., Outcome]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Runner:
    def call(*argv: object) -> Outcome:
        capsys.readouterr()
        code = main(with_cache([str(a) for a in argv], tmp_path / "cache"))
        captured = capsys.readouterr()
        return Outcome(code, captured.out, captured.err)

    return call


def scan(cli: Runner, source: Path, content: Path, *more: str) -> Outcome:
    where = ("--ref", "HEAD") if (source / ".git").exists() else ("--commit", COMMIT)
    result = cli("scan", source, "--repo", REPO, *where, "--content", content, *more)
    assert result.code == 0, result.err
    return result


def build(cli: Runner, content: Path) -> Path:
    out = content.parent / "public"
    result = cli("build", "--content", content, "--out", out, "--cache", content.parent / "cache")
    assert result.code == 0, result.err
    return out


def raised_row(out: Path, record_id: str) -> tuple[str, str]:
    """The marked line of an error page's code view: its number, and its code."""
    page = soup(out / "errors" / record_id / "index.html")
    number = page.select_one(".code-view .gutter mark")
    code = page.select_one(".code-view code mark")
    assert number is not None and code is not None
    hidden = code.select_one(".visually-hidden")
    assert hidden is not None
    hidden.extract()
    return number.get_text().strip(), code.get_text().rstrip("\n")


# --- Item 9: a deeply nested file is skipped with a report, the rest is scanned ----------

DEEP_RAISE = "def f():\n    raise ValueError(" + " + ".join(['"a"'] * 1000) + ")\n"
HUGE_EXPRESSION = "TOTAL = " + " + ".join(["1"] * 200_000) + "\n"
FINE = 'def g(x):\n    raise KeyError(f"no key {x}")\n'


def test_a_deeply_nested_file_is_skipped_with_a_report_and_the_rest_scanned(
    tmp_path: Path, cli: Runner
) -> None:
    source = write_tree(
        tmp_path / "src",
        {"pkg/deep.py": DEEP_RAISE, "pkg/huge.py": HUGE_EXPRESSION, "pkg/fine.py": FINE},
    )
    content = new_content(tmp_path)
    result = scan(cli, source, content)
    assert "skipped: pkg/deep.py: nested too deeply to read; skipped" in result.err
    assert "skipped: pkg/huge.py: nested too deeply to read; skipped" in result.err
    assert "Traceback" not in result.err
    assert "1 new" in result.err and "2 skipped" in result.err
    assert [r["message"] for r in records(content)] == ["no key {x}"]
    build(cli, content)


def test_pin_skips_a_file_that_became_too_deep(tmp_path: Path, cli: Runner) -> None:
    source = write_tree(tmp_path / "src", {"pkg/fine.py": FINE})
    content = new_content(tmp_path)
    scan(cli, source, content)
    write_tree(source, {"pkg/fine.py": FINE + DEEP_RAISE})
    result = cli("pin", source, "--repo", REPO, "--commit", COMMIT, "--content", content)
    assert result.code == 0, result.err
    assert "skipped: pkg/fine.py" in result.err
    assert "Traceback" not in result.err


# --- Item 10: whatever scan writes must build ------------------------------------------

REJECTED_BEFORE = """\
def close(x):
    raise ValueError(f"closing brace {'}'} after {x}")


def opens(d):
    raise ValueError(f"key {d['{']} opens")


def made():
    raise make_errors().Failure("the factory failed")


def percent(m):
    raise TypeError("bad %(}{)s and %(a{b)s" % m)


def unicode_name():
    raise Ошибка("a name outside ASCII")
"""


def test_scan_writes_only_records_that_build(tmp_path: Path, cli: Runner) -> None:
    source = write_tree(tmp_path / "src", {"pkg/bad.py": REJECTED_BEFORE})
    content = new_content(tmp_path)
    result = scan(cli, source, content)
    found = {(r["exception"], r["message"]) for r in records(content)}
    assert found == {
        ("ValueError", "closing brace }} after {x}"),
        ("ValueError", "key {} opens"),
        ("Failure", "the factory failed"),
        ("TypeError", "bad {} and {}"),
    }
    # A name the record format cannot hold is reported at its line, not written.
    assert "skipped: pkg/bad.py:18: exception must be a Python name" in result.err
    out = build(cli, content)
    failure = next(r for r in records(content) if r["exception"] == "Failure")
    assert raised_row(out, failure["_file"].stem) == (
        "10",
        '    raise make_errors().Failure("the factory failed")',
    )


def test_a_set_or_dict_in_an_f_string_stays_a_placeholder(tmp_path: Path, cli: Runner) -> None:
    source = write_tree(
        tmp_path / "src", {"m.py": 'def f(a):\n    raise ValueError(f"got { {a: 1} } here")\n'}
    )
    content = new_content(tmp_path)
    scan(cli, source, content)
    (record,) = records(content)
    assert parse_template(record["message"]).names == ("{a: 1}",)
    build(cli, content)


def test_characters_no_page_may_carry_are_written_as_escapes_whichever_plane(
    tmp_path: Path, cli: Runner
) -> None:
    """A message holding a control character, a lone surrogate and noncharacters of the
    first plane and of the last: each is written as the escape Python would write, and
    the records build."""
    message = "a\\x1b b\\ud800 c\\uffff d\\U0001fffe e\\U0010ffff f"
    source = write_tree(tmp_path / "src", {"m.py": f'raise ValueError("{message}")\n'})
    content = new_content(tmp_path)
    scan(cli, source, content)
    (record,) = records(content)
    assert record["message"] == message
    build(cli, content)


# --- Item 7: a very long message is cut at scan, with a report ----------------------------


def test_a_very_long_message_is_cut_with_a_report(tmp_path: Path, cli: Runner) -> None:
    words = " ".join(f"word{i}" for i in range(60_000))
    text = f'def f(x):\n    raise ValueError("{words} {{x}} " + str(x))\n'
    source = write_tree(tmp_path / "src", {"pkg/long.py": text})
    content = new_content(tmp_path)
    result = scan(cli, source, content)
    length = len(words + " {x} ") + 1  # counted as search counts: a placeholder is one
    limit = scanner.MAX_TEMPLATE_CHARS
    assert (
        f"skipped: pkg/long.py:2: message of {length:,} characters cut to its "
        f"first {limit:,}" in result.err
    )
    (record,) = records(content)
    message = record["message"]
    assert len(message) <= limit
    assert message.startswith("word0 word1 ") and message.endswith("…")
    assert not message.endswith(" …")  # cut between words, never inside one
    parse_template(message)
    build(cli, content)


# --- Item 11: line numbers after a form feed, U+2028 and the other splitlines breaks ------

ODD_BREAKS = ["\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("odd", ODD_BREAKS, ids=[f"U+{ord(c):04X}" for c in ODD_BREAKS])
def test_excerpt_lines_are_numbered_as_python_and_github_number_them(
    tmp_path: Path, cli: Runner, odd: str
) -> None:
    text = (
        "import os\n"
        f'NOTE = "one{odd}two"  # also in a comment: {odd}\n'
        "\x0c\n"
        "def f(size):\n"
        "    if size < 0:\n"
        '        raise ValueError(f"size={size} is negative")\n'
        "    return size\n"
    )
    source = write_tree(tmp_path / "src", {"pkg/odd.py": text})
    content = new_content(tmp_path)
    scan(cli, source, content)
    (record,) = records(content)
    excerpt = record["source"]["excerpt"]
    assert record["source"]["line"] == 6
    raise_text = '        raise ValueError(f"size={size} is negative")'
    assert source_lines(excerpt["code"])[6 - excerpt["start"]] == raise_text
    assert source_lines(excerpt["code"]) == [shown(line) for line in text.split("\n")[:-1]]
    out = build(cli, content)
    assert raised_row(out, record["_file"].stem) == ("6", raise_text)
    page = soup(out / "errors" / record["_file"].stem / "index.html")
    numbers = page.select_one(".code-view .gutter").get_text().split()
    assert numbers == [str(n) for n in range(1, 8)]


@pytest.mark.parametrize("ending", ["\r\n", "\r"], ids=["CRLF", "CR"])
def test_old_line_endings_count_as_one_line_each(tmp_path: Path, cli: Runner, ending: str) -> None:
    text = ending.join(["import os", "", "def f():", "    raise OSError('gone')", ""])
    source = write_tree(tmp_path / "src", {"m.py": text})
    content = new_content(tmp_path)
    scan(cli, source, content)
    (record,) = records(content)
    assert record["source"]["line"] == 4
    out = build(cli, content)
    assert raised_row(out, record["_file"].stem) == ("4", "    raise OSError('gone')")


def test_a_cache_inside_a_built_site_is_refused_and_nothing_is_written(
    tmp_path: Path, cli: Runner
) -> None:
    # scan has no output folder to compare with: any folder errdex built is one, and its
    # next build would refuse the files a cache left there.
    source = write_tree(tmp_path / "src", {"m.py": FINE})
    content = new_content(tmp_path)
    scan(cli, source, content)
    out = build(cli, content)
    (source / "n.py").write_text(FINE.replace("no key", "no value"))
    before = {p: p.read_bytes() for p in sorted(tmp_path.rglob("*")) if p.is_file()}
    for cache in (out, out / "cache", out / "errors" / "deeper"):
        result = cli(
            "scan", source, "--repo", REPO, "--commit", COMMIT, "--content", content,
            "--cache", cache,
        )  # fmt: skip
        assert result.code == 1
        assert f"--cache {cache}: is inside {out}, a site errdex built" in result.err
        assert "nothing was written" in result.err
    assert {p: p.read_bytes() for p in sorted(tmp_path.rglob("*")) if p.is_file()} == before
    assert len(records(content)) == 1
    build(cli, content)


# --- Item 12: a git file name with a newline ----------------------------------------------


def commit_all(repo: Path) -> None:
    git_repository(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")


def test_a_git_file_name_with_a_newline_is_refused_and_scrambles_nothing(
    tmp_path: Path, cli: Runner
) -> None:
    repo = tmp_path / "upstream"
    write_tree(
        repo,
        {
            "a\nb.py": "raise ValueError('from the newline file')\n",
            "nel\x85.py": "raise ValueError('from the NEL file')\n",
            "c.py": "raise KeyError('from c')\n",
            "z.py": "raise OSError('from z')\n",
        },
    )
    commit_all(repo)
    content = new_content(tmp_path)
    result = scan(cli, repo, content)
    assert "skipped: 'a\\nb.py': source.path has a backslash or control character" in result.err
    assert "skipped: 'nel\\x85.py': name holds the character U+0085" in result.err
    found = {r["exception"]: (r["source"]["path"], r["message"]) for r in records(content)}
    assert found == {"KeyError": ("c.py", "from c"), "OSError": ("z.py", "from z")}
    build(cli, content)
    pinned = cli("pin", repo, "--repo", REPO, "--ref", "HEAD", "--content", content)
    assert pinned.code == 0, pinned.err
    assert "errdex pin: 2 unchanged, 0 moved, 0 reworded, 0 removed" in pinned.err


def test_a_git_file_name_that_is_not_utf8_is_refused(tmp_path: Path, cli: Runner) -> None:
    repo = tmp_path / "upstream"
    write_tree(repo, {"c.py": "raise KeyError('from c')\n"})
    # Git keeps a name's bytes as they are: this one is Latin-1.
    (repo / os.fsdecode(b"caf\xe9.py")).write_bytes(b"raise TypeError('from the bad name')\n")
    commit_all(repo)
    content = new_content(tmp_path)
    result = scan(cli, repo, content)
    assert "skipped: 'caf\\udce9.py': name is not UTF-8; skipped" in result.err
    assert [r["source"]["path"] for r in records(content)] == ["c.py"]
    build(cli, content)


# --- The classes: any raise site, any line ending ------------------------------------------

REFUSED = ["\ud800", "\udfff", "\x00", "\x1b", "\U0001fffe", "\U0010ffff"]
ODD = "\x0c\x0b\x1c\x1d\x1e\x85\u2028\u2029"
SEPARATORS = ["\n", "\r\n", "\r"]
# Characters a raw string literal or comment may hold as they are (no line break, quote,
# backslash or NUL): the odd line separators above among them.
raw_text = st.text(
    st.one_of(
        st.sampled_from(list(ODD + "{}%'`$<>&\t ")),
        st.characters(exclude_categories=("Cs",), exclude_characters='\n\r"\\\x00'),
    ),
    max_size=40,
)
FIELDS = [
    "x",
    "'}'",
    "'{'",
    "d['{']",
    "d['}']",
    " {1, 2} ",
    " {'a': x} ",
    "x!r",
    "x:>10",
    "'}' if x else '{'",
    "'{}'.format(z)",
    "len(s) + 1",
    "f'{y}'",
]


@dataclass
class Raise:
    exception: str
    expression: str
    droppable: bool
    """Its message may be blank: scan leaves such raises out without a word."""


def blank(message: str) -> bool:
    """Whether a message is blank once its colour codes are dropped, as search drops them."""
    return not re.sub(search.PATTERNS["ansi"], "", message).strip()


@st.composite
def messages(draw: st.DrawFn) -> tuple[str, bool]:
    """A message expression, and whether its message may be blank."""
    form = draw(st.integers(0, 6))
    if form == 0:  # any text, escaped as Python writes it: quotes, backslashes, surrogates
        text = draw(st.text(st.one_of(st.characters(), st.sampled_from(REFUSED)), max_size=40))
        return repr(text), blank(text)
    if form == 1:  # raw odd characters inside the literal
        text = draw(raw_text)
        return '"' + text + '"', blank(text)
    if form == 2:  # an f-string whose fields hold braces and quotes
        parts = []
        for _ in range(draw(st.integers(1, 4))):
            literal = draw(raw_text).replace("{", "{{").replace("}", "}}")
            parts.append(literal + "{" + draw(st.sampled_from(FIELDS)) + "}")
        return 'f"' + "".join(parts) + '"', False
    if form == 3:  # a long concatenation: deep enough, sometimes, to skip its file
        terms = draw(st.sampled_from([2, 40, 1200]))
        return " + ".join(['"a{"'] * terms), False
    if form == 4:  # a very long message
        return '"' + "word " * draw(st.sampled_from([3, 700])) + '{}"', False
    if form == 5:
        name = draw(raw_text).replace(")", "")
        return f'"value %({name})s and %s" % m', False
    return draw(st.sampled_from(['"{}: {x}".format(a, x=b)', '"{0} {zz}".format(q)'])), False


@st.composite
def sources(draw: st.DrawFn) -> tuple[str, list[tuple[Raise, int, str]]]:
    """A Python file of raises among filler lines, each line ended by its own separator;
    the raises, each with its real line number and its line of code."""
    lines: list[str] = []
    raises: list[tuple[Raise, int, str]] = []
    for index in range(draw(st.integers(1, 5))):
        for _ in range(draw(st.integers(0, 3))):
            filler = draw(st.integers(0, 2))
            if filler == 0:
                lines.append("# " + draw(raw_text))
            elif filler == 1:
                lines.append('NOTE = "' + draw(raw_text) + '"')
            else:
                lines.append("\x0c")
        expression, droppable = draw(messages())
        exception = f"Error{index}"
        lines.append(f"def f{index}():")
        code = f"    raise {exception}({expression})"
        lines.append(code)
        raises.append((Raise(exception, expression, droppable), len(lines), code))
    # No line is empty, so a line ended by "\r" never joins a "\n" into one "\r\n".
    text = "".join(line + draw(st.sampled_from(SEPARATORS)) for line in lines)
    return text, raises


def quiet(*argv: object) -> tuple[int, str]:
    """Run the CLI in-process (no fixture: Hypothesis runs the test many times); the exit
    status and what it printed to stderr."""
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(
            [*map(str, argv), "--no-cache"] if argv[0] in ("scan", "pin") else list(map(str, argv))
        )
    return code, err.getvalue()


PROPERTY = settings(
    max_examples=10,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@PROPERTY
@given(sources())
@example(
    (
        "x = 1\x0c\ny = '\u2028'\r" + "def f0(x):\r\n    raise Error0(f\"{'}'} {d['{']}\")\n",
        [(Raise("Error0", "", False), 4, "    raise Error0(f\"{'}'} {d['{']}\")")],
    )
)
def test_every_record_scan_writes_builds_and_shows_its_raise_line(
    generated: tuple[str, list[tuple[Raise, int, str]]],
) -> None:
    text, raises = generated
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        source = write_tree(root / "src", {"pkg/gen.py": text, "pkg/other.py": FINE})
        content = new_content(root)
        code, report = quiet(
            "scan", source, "--repo", REPO, "--commit", COMMIT, "--content", content
        )
        assert code == 0, report
        assert "Traceback" not in report
        found = by_exception(content)
        # The run goes on with the rest: the other file's raise is always recorded.
        assert found.pop("KeyError")["message"] == "no key {x}"
        expected = {r.exception: (r, line, code) for r, line, code in raises}
        for exception, record in found.items():
            _, line, code = expected[exception]
            source_facts = record["source"]
            assert source_facts["line"] == line
            excerpt = source_lines(source_facts["excerpt"]["code"])
            assert excerpt[line - source_facts["excerpt"]["start"]] == shown(code)
        for exception, (raise_, line, _code) in expected.items():
            if exception not in found:
                # Left out only with a word, or because its message is blank.
                assert (
                    raise_.droppable
                    or f"pkg/gen.py:{line}:" in report
                    or "pkg/gen.py: nested too deeply" in report
                ), (exception, report)
        out = root / "public"
        code, report = quiet("build", "--content", content, "--out", out, "--cache", root / "cache")
        assert code == 0, report
        for exception, record in found.items():
            _, line, code_line = expected[exception]
            assert raised_row(out, record["_file"].stem) == (str(line), shown(code_line))


# --- Records a build would refuse for their size ----------------------------------------


def test_a_raise_longer_than_an_excerpt_may_be_is_shown_from_its_start(
    tmp_path: Path, cli: Runner
) -> None:
    parts = "".join(f'        "part {i} "\n' for i in range(1200))
    text = f"import os\n\n\ndef f():\n    raise ValueError(\n{parts}    )\n"
    source = write_tree(tmp_path / "src", {"pkg/tall.py": text})
    content = new_content(tmp_path)
    scan(cli, source, content)
    (record,) = records(content)
    excerpt = record["source"]["excerpt"]
    assert excerpt["start"] == 1
    assert len(source_lines(excerpt["code"])) == validate.MAX_EXCERPT_LINES
    out = build(cli, content)
    assert raised_row(out, record["_file"].stem) == ("5", "    raise ValueError(")


def test_a_raise_too_large_for_a_record_file_is_skipped_with_a_report(
    tmp_path: Path, cli: Runner
) -> None:
    huge = "x" * 2_100_000
    source = write_tree(
        tmp_path / "src",
        {"pkg/huge.py": f'def f():\n    raise ValueError("{huge}")\n', "pkg/fine.py": FINE},
    )
    content = new_content(tmp_path)
    result = scan(cli, source, content)
    assert "skipped: pkg/huge.py:2: the record would be 2,1" in result.err
    assert [r["source"]["path"] for r in records(content)] == ["pkg/fine.py"]
    build(cli, content)


SHA = "0123456789abcdef0123456789abcdef01234567"


def test_scan_skips_a_file_too_deep_for_the_parser_and_scans_the_rest(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    source = tmp_path / "src"
    source.mkdir()
    # Ten thousand `not`s exhaust the parser's memory, not Python's recursion limit.
    (source / "deep.py").write_text("def f():\n    raise ValueError(" + "not " * 10_000 + "x)\n")
    (source / "ok.py").write_text('def g():\n    raise ValueError("fine here")\n')
    content = make_content(tmp_path, {})
    result = run("scan", source, "--repo", "acme/nine", "--commit", SHA, "--content", content)
    assert result.code == 0, result.err
    assert "deep.py: nested too deeply to read; skipped" in result.out + result.err
    assert len(list((content / "errors").rglob("*.yaml"))) == 1


def test_scan_writes_no_pair_of_names_that_would_share_a_folder(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    source = tmp_path / "src"
    (source / "pkg").mkdir(parents=True)
    (source / "m.py").write_text(
        "def f(x):\n    if x:\n        raise HTTPError('the server said no')\n"
        "    raise HttpError('the api said no')\n"
    )
    (source / "pkg" / "Case.py").write_text("def a():\n    raise ValueError('from Case')\n")
    (source / "pkg" / "case.py").write_text("def a():\n    raise ValueError('from case')\n")
    content = make_content(tmp_path, {})
    result = run("scan", source, "--repo", "acme/http", "--commit", SHA, "--content", content)
    said = result.out + result.err
    assert result.code == 0, said
    assert "m.py:4: exception 'HttpError' differs only in case from 'HTTPError'" in said
    assert "pkg/case.py:2: file 'pkg/case.py' makes the same folder as 'pkg/Case.py'" in said
    built = run("build", "--content", content, "--out", tmp_path / "out")
    assert built.code == 0, built.err
    assert "built 2 error pages" in built.err
