"""Property tests (Hypothesis): whatever a record file holds, errdex answers with
``path:line: message`` or a site, never a traceback; valid records always build, to the
same bytes every time; search never raises, whatever is pasted."""

from __future__ import annotations

import datetime
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import MINIMAL, ROOT, SITE_YAML, snapshot
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from test_hostile import document_mismatches, problem_lines, same_file

from errdex import search
from errdex.records.model import TemplateError, parse_template
from errdex.records.validate import REFUSED_CHARACTERS

SETTINGS = settings(
    max_examples=100,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Characters PyYAML's reader refuses outright (C0 controls but tab, LF and CR; DEL; C1
# controls but NEL; U+FFFE and U+FFFF). Generated record files may hold them: errdex must
# refuse them at their line. Only the valid records of (b) must be readable YAML.
_YAML_REFUSES = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)


def yaml_can_read(text: str) -> bool:
    return _YAML_REFUSES.search(text) is None


# --- (a) Any record file: problems as path:line: message, never a traceback ----------------

any_char = st.characters(exclude_categories=("Cs",))
any_text = st.text(any_char, max_size=300)

KEYS = [
    "id",
    "aliases",
    "repo",
    "exception",
    "message",
    "title",
    "meaning",
    "source",
    "commit",
    "path",
    "line",
    "function",
    "condition",
    "removed_in",
    "excerpt",
    "start",
    "code",
    "solutions",
    "example_fix",
    "lang",
    "caption",
    "when",
    "trigger",
    "situations",
    "related",
    "analysis",
    "by",
    "date",
    "unknown_field",
    "Message",
    "sources",
]
TRICKY_SCALARS = [
    "",
    "~",
    "null",
    "yes",
    "No",
    "0",
    "-1",
    "0x1F",
    "0o17",
    "1_000",
    "1e400",
    ".nan",
    "-.inf",
    "2026-01-01",
    "2026-13-45",
    "2026-01-01 10:00:00",
    "0123456789abcdef",
    "0123456",
    '"0123456789abcdef"',
    "'it''s'",
    '"unterminated',
    "'unterminated",
    '"\\x01\\uFFFE\\U0010FFFF"',
    '"\\z"',
    "|",
    "|2",
    ">-",
    "&anchor value",
    "*anchor",
    "!!binary aGVsbG8=",
    "!!python/object/apply:os.system ['id']",
    "!!set {a, b}",
    "!!timestamp 2026-01-01",
    "!!int 'x'",
    "!custom x",
    "[a, b",
    "{a: 1",
    "[]",
    "{}",
    "{a: [1, {b: c}]}",
    "- x",
    "? complex",
    ": colon",
    "a: b: c",
    "# comment",
    "%YAML 1.1",
    "---",
    "...",
    "@reserved",
    "`backtick",
    "{value} {{literal}}",
    "{unbalanced",
    "}",
    "[x](javascript:alert(1))",
    "<script>alert(1)</script>",
    "owner/name",
    "../../etc/passwd",
    "/abs/path.py",
    "ValueError",
]
scalars = st.one_of(
    st.sampled_from(TRICKY_SCALARS),
    st.text(
        st.characters(
            exclude_categories=("Cs",),
            exclude_characters="\n\r\x85\u2028\u2029",
        ),
        max_size=30,
    ),
    st.integers().map(str),
    st.floats().map(repr),
)
indents = st.sampled_from(["", " ", "  ", "    ", "\t", "  \t", "      "])


@st.composite
def plausible_lines(draw: st.DrawFn) -> str:
    """Lines that look like a record: keys, list items, nesting, block scalars, tabs."""
    lines = []
    for _ in range(draw(st.integers(0, 25))):
        indent = draw(indents)
        key = draw(st.sampled_from(KEYS))
        value = draw(scalars)
        shape = draw(st.integers(0, 6))
        if shape == 0:
            lines.append(f"{indent}{key}: {value}")
        elif shape == 1:
            lines.append(f"{indent}{key}:")
        elif shape == 2:
            lines.append(f"{indent}- {value}")
        elif shape == 3:
            lines.append(f"{indent}- {key}: {value}")
        elif shape == 4:
            lines.append(f"{indent}{key}: |")
            lines.extend(f"{indent}  {draw(scalars)}" for _ in range(draw(st.integers(0, 3))))
        elif shape == 5:
            lines.append(f"{indent}{value}")
        else:
            lines.append(f"{indent}{key}: {{{key}: [{value}, {value}]}}")
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


@st.composite
def mutated_minimal(draw: st.DrawFn) -> str:
    """A valid record with some lines replaced, inserted or cut: most reach the
    content rules, not only the YAML parser."""
    lines = MINIMAL.splitlines()
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(lines)))
        action = draw(st.integers(0, 3))
        if action == 0 and at < len(lines):
            head = lines[at].partition(":")[0]
            lines[at] = f"{head}: {draw(scalars)}"
        elif action == 1:
            lines.insert(at, draw(plausible_lines()))
        elif action == 2 and at < len(lines):
            del lines[at]
        else:
            lines.insert(at, f"{draw(indents)}{draw(st.sampled_from(KEYS))}: {draw(scalars)}")
    return "\n".join(lines) + "\n"


@st.composite
def record_files(draw: st.DrawFn) -> bytes:
    text = draw(st.one_of(any_text, plausible_lines(), mutated_minimal()))
    if draw(st.booleans()):
        text = text.replace("\n", draw(st.sampled_from(["\r\n", "\r", "\n\n", "\t\n"])))
    if draw(st.booleans()):
        text = text.replace("  ", "\t", draw(st.integers(1, 3)))
    data = text.encode("utf-8")
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    return data


def check_record_file(run: Callable[..., Any], data: bytes) -> list[re.Match[str]]:  # type: ignore[no-untyped-def]
    """Check a content folder holding one record file of ``data``; return its problems."""
    with tempfile.TemporaryDirectory() as tmp:
        content = Path(tmp) / "content"
        (content / "errors").mkdir(parents=True)
        (content / "site.yaml").write_text(SITE_YAML, encoding="utf-8")
        record = content / "errors" / "generated.yaml"
        record.write_bytes(data)
        result = run("check", "--content", content, "--out", Path(tmp) / "out")
    assert result.code in (0, 1), result.err
    assert "Traceback" not in result.err
    problems, other = problem_lines(result.err)
    assert other == [], f"stderr lines not of the form path:line: message: {other}"
    assert all(same_file(p["path"], record) for p in problems), result.err
    # Each problem points at a line the file has (YAML counts CR, NEL, LS and PS too).
    lines = len(re.findall("\r\n|[\r\n\x85\u2028\u2029]", data.decode("utf-8", "replace")))
    assert all(int(p["line"]) <= lines + 1 for p in problems), result.err
    if result.code == 1:
        assert [p for p in problems if not p["message"].startswith("warning: ")], result.err
    summary = result.err.splitlines()[-1] if result.err else ""
    assert summary.startswith("errdex: "), result.err
    return problems


@SETTINGS
@given(data=record_files())
@example(data=b"")
@example(data=b"\xef\xbb\xbf")
@example(data=b"\t")
@example(data=b"\x00")
@example(data=b"---\n---\n")
@example(data=b"- a\n- b\n")
@example(data=b"a: &x 1\nb: *x\n")
@example(data=MINIMAL.replace("  ", "\t").encode())
@example(data=MINIMAL.replace("\n", "\r\n").encode())
def test_any_record_file_gets_problems_at_lines_never_a_traceback(run, data: bytes) -> None:  # type: ignore[no-untyped-def]
    check_record_file(run, data)


# Byte sequences UTF-8 does not allow: a stray continuation, a lead byte cut short, an
# overlong form, a surrogate, a code point past U+10FFFF, bytes never used.
NOT_UTF8 = [b"\x80", b"\xbf", b"\xc3", b"\xe2\x82", b"\xc0\xaf", b"\xed\xa0\x80"]
NOT_UTF8 += [b"\xf4\x90\x80\x80", b"\xfe", b"\xff"]


@st.composite
def mutated_bytes(draw: st.DrawFn) -> bytes:
    """A record file's bytes with a few of them changed, inserted or cut: text made invalid
    UTF-8 at some line, or left text that reaches YAML and the content rules. Now and then
    bytes of any kind."""
    if draw(st.integers(0, 3)) == 0:
        return draw(st.binary(max_size=400))
    data = bytearray(draw(record_files()))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(data)))
        action = draw(st.integers(0, 4))
        if action == 0 and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif action == 1:
            data[at:at] = draw(st.sampled_from(NOT_UTF8))
        elif action == 2:
            data[at:at] = draw(st.binary(min_size=1, max_size=3))
        elif action == 3:
            del data[at : at + draw(st.integers(1, 4))]
        else:
            del data[at:]  # cut short, perhaps inside a character
    return bytes(data)


@settings(SETTINGS, max_examples=60)
@given(data=mutated_bytes())
@example(data=MINIMAL.replace("positive", "posi\xadtive").encode("latin-1"))
def test_any_bytes_get_problems_at_lines_never_a_traceback(run, data: bytes) -> None:  # type: ignore[no-untyped-def]
    problems = check_record_file(run, data)
    if data.startswith(b"\xef\xbb\xbf"):
        return  # see test_a_byte_that_is_not_utf8_is_named_at_its_line
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        # Lines counted at LF: a file with other line breaks before the byte is left to
        # the checks above.
        before = data[: exc.start].decode("utf-8")
        if not re.search("[\r\x85\u2028\u2029]", before):
            (problem,) = problems
            assert int(problem["line"]) == before.count("\n") + 1, problem.string
            assert f"not valid UTF-8 (byte 0x{data[exc.start]:02x})" in problem["message"]


@pytest.mark.parametrize(
    "head",
    [
        b"",
        b"\xef\xbb\xbf",
    ],
    ids=["plain", "after a BOM"],
)
def test_a_byte_that_is_not_utf8_is_named_at_its_line(run, head: bytes) -> None:  # type: ignore[no-untyped-def]
    data = head + MINIMAL.replace("message:", "\xffmessage:").encode("latin-1")
    (problem,) = check_record_file(run, data)
    assert (problem["line"], problem["message"]) == ("3", "not valid UTF-8 (byte 0xff) [E100]")


# --- (b) Valid records always build, to the same bytes -----------------------------------

# A valid record holds no control character but tab, line breaks and form feed (E204).
text_char = st.characters(exclude_categories=("Cs",), exclude_characters=REFUSED_CHARACTERS)
name_char = st.characters(exclude_categories=("Cs",), exclude_characters="{}" + REFUSED_CHARACTERS)
unicode_text = st.text(text_char, min_size=1, max_size=40).filter(lambda s: s.strip() != "")
hex_id = st.text("0123456789abcdef", min_size=16, max_size=16)
commits = st.text("0123456789abcdef", min_size=7, max_size=40)
path_part = st.text(
    st.characters(
        exclude_categories=("Cs",),
        exclude_characters="/\\" + "".join(map(chr, range(32))) + REFUSED_CHARACTERS,
    ),
    min_size=1,
    max_size=30,
).filter(lambda p: p not in (".", ".."))
# The unsafe-link rule: an inline link to these schemes is refused, so a valid record
# has none.
_UNSAFE_LINK = re.compile(r"\]\(\s*<?\s*(javascript|vbscript|data|file)\s*:", re.IGNORECASE)
markdown_text = st.one_of(
    unicode_text,
    st.lists(
        st.one_of(
            unicode_text,
            st.sampled_from(
                [
                    "**bold**",
                    "`code`",
                    "[link](https://example.test/)",
                    "<b>raw</b>",
                    "\n\n- item\n- item\n\n",
                    "\n\n```python\nx = 1\n```\n\n",
                    "\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n",
                    "~~struck~~",
                    "--some-flag",
                    "`some_key`",
                    "{{ 7*7 }}",
                ]
            ),
        ),
        min_size=1,
        max_size=6,
    ).map(" ".join),
).filter(lambda s: s.strip() != "" and not _UNSAFE_LINK.search(s))


@st.composite
def messages(draw: st.DrawFn, max_placeholders: int = 3) -> str:
    """A message template: literal text (braces doubled) and ``{name}`` placeholders."""
    parts = []
    placeholders = 0
    for _ in range(draw(st.integers(1, 5))):
        if placeholders < max_placeholders and draw(st.booleans()):
            name = draw(st.text(name_char, max_size=12))
            parts.append("{" + name + "}")
            placeholders += 1
        else:
            literal = draw(st.text(text_char, min_size=1, max_size=30))
            parts.append(literal.replace("{", "{{").replace("}", "}}"))
    message = "".join(parts)
    assume(message.strip() != "")
    return message


repos = st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9-]{0,15}/[A-Za-z0-9_.-]{1,15}\Z").filter(
    lambda r: r.split("/")[1] not in (".", "..")
)
exceptions = st.from_regex(r"\A[A-Za-z_][A-Za-z0-9_]{0,15}(\.[A-Za-z_][A-Za-z0-9_]{0,15}){0,2}\Z")
languages = st.one_of(
    st.sampled_from(["python", "bash", "yaml", "html", "javascript", "json", "text", "c", "rst"]),
    unicode_text,
)


@st.composite
def records(draw: st.DrawFn, record_id: str | None, aliases: list[str]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if record_id:
        data["id"] = record_id
    if aliases:
        data["aliases"] = aliases
    data["repo"] = draw(repos)
    data["exception"] = draw(exceptions)
    data["message"] = draw(messages())
    parts = draw(st.lists(path_part, min_size=1, max_size=4))
    path = "/".join(parts) + draw(st.sampled_from(["", ".py", ".html", ".js", ".txt"]))
    assume(not re.match(r"^[A-Za-z]:", path))
    source: dict[str, Any] = {"commit": draw(commits), "path": path}
    if draw(st.booleans()):
        code = draw(st.text(text_char, min_size=1, max_size=400))
        count = len(code.splitlines())
        assume(count >= 1 and code.strip())  # code of blanks alone is refused (E201)
        start = draw(st.integers(1, 10_000))
        source["line"] = start + draw(st.integers(0, count - 1))
        source["excerpt"] = {"start": start, "code": code}
    else:
        source["line"] = draw(st.integers(1, 10**9))
    for key in ("function", "condition"):
        if draw(st.booleans()):
            source[key] = draw(unicode_text)
    if draw(st.booleans()):
        source["removed_in"] = draw(commits)
    data["source"] = source
    if draw(st.booleans()):
        data["title"] = draw(unicode_text)
    if draw(st.booleans()):
        data["meaning"] = draw(markdown_text)
    if draw(st.booleans()):
        data["solutions"] = draw(st.lists(markdown_text, max_size=3))
    if draw(st.booleans()):
        data["example_fix"] = [
            {
                "lang": draw(languages),
                "code": draw(st.text(text_char, min_size=1, max_size=200)),
                **({"caption": draw(unicode_text)} if draw(st.booleans()) else {}),
            }
            for _ in range(draw(st.integers(0, 2)))
        ]
    if draw(st.booleans()):
        when = {}
        for key in ("trigger", "situations"):
            if draw(st.booleans()):
                when[key] = draw(markdown_text)
        data["when"] = when
    if draw(st.booleans()):
        data["related"] = draw(
            st.lists(unicode_text.filter(lambda t: not re.fullmatch(r"[0-9a-f]{16}", t)))
        )
    if draw(st.booleans()):
        data["analysis"] = {
            "by": draw(unicode_text),
            "date": draw(st.dates(datetime.date(1000, 1, 1), datetime.date(9999, 12, 31))),
        }
    if draw(st.booleans()):
        data["some_unknown_field"] = draw(st.one_of(unicode_text, st.integers()))
    return data


@st.composite
def record_sets(draw: st.DrawFn) -> list[dict[str, Any]]:
    count = draw(st.integers(1, 3))
    alias_counts = [draw(st.integers(0, 2)) for _ in range(count)]
    ids = draw(
        st.lists(hex_id, min_size=count + sum(alias_counts), max_size=count + 6, unique=True)
    )
    found = []
    taken = count
    for number in range(count):
        aliases = ids[taken : taken + alias_counts[number]]
        taken += alias_counts[number]
        stated = ids[number] if count > 1 or draw(st.booleans()) else None
        found.append(draw(records(stated, aliases)))
    # A source path cannot also be a folder of another path of the same repo: both
    # would need repos/<repo>/files/<path>/ (errdex refuses that, E301).
    places = {(data["repo"], data["source"]["path"]) for data in found}
    folders = {
        (repo, "/".join(path.split("/")[:cut]))
        for repo, path in places
        for cut in range(1, path.count("/") + 1)
    }
    assume(not places & folders)
    if count > 1 and draw(st.booleans()):
        # A related entry naming another record by id, and one by its message.
        found[0].setdefault("related", []).append(found[1]["id"])
        found[-1].setdefault("related", []).append(found[0]["message"])
    return found


def write_records(content: Path, generated: list[dict[str, Any]]) -> None:
    (content / "errors" / "sub").mkdir(parents=True)
    (content / "site.yaml").write_text(SITE_YAML, encoding="utf-8")
    for number, data in enumerate(generated):
        text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=60)
        name = f"sub/r{number}.yml" if number % 2 else f"r{number}.yaml"
        (content / "errors" / name).write_text(text, encoding="utf-8")


def round_trips(data: dict[str, Any]) -> bool:
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=60)
    return bool(yaml.safe_load(text) == data) and yaml_can_read(text)


@settings(SETTINGS, max_examples=30)  # two builds an example: the slowest property here
@given(generated=record_sets())
def test_valid_records_always_build_to_the_same_bytes(
    run, run_elsewhere, generated: list[dict[str, Any]]
) -> None:  # type: ignore[no-untyped-def]
    """The second build runs in another process, under another hash seed."""
    assume(all(round_trips(data) for data in generated))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        first, second = root / "one" / "content", root / "two" / "elsewhere" / "content"
        write_records(first, generated)
        shutil.copytree(first, second)
        result = run("build", "--content", first, "--out", root / "out1", "--no-cache")
        assert result.code == 0, result.err
        problems, other = problem_lines(result.err)
        assert other == []
        assert all(p["message"].startswith("warning: ") for p in problems), result.err
        again = run_elsewhere("build", "--content", second, "--out", root / "out2", "--no-cache")
        assert again.code == 0, again.err
        one = {rel: data for rel, (data, _) in snapshot(root / "out1").items()}
        two = {rel: data for rel, (data, _) in snapshot(root / "out2").items()}
        assert one.keys() == two.keys()
        assert [rel for rel in one if one[rel] != two[rel]] == []
        assert document_mismatches(root / "out1", first) == []


# --- (c) and (d) Search never raises, whatever is pasted -----------------------------------


def index_of(templates: list[tuple[str, str]]) -> search.Index:
    entries = [
        search.make_entry(i, f"{i:016x}", exception, "owner/name", template, template[:72])
        for i, (exception, template) in enumerate(templates)
    ]
    return search.Index.build(entries)


templates = st.lists(st.tuples(exceptions, messages(max_placeholders=5)), min_size=1, max_size=6)
LOG_PREFIXES = [
    "",
    "ERROR ",
    "2026-08-14 12:00:37,123 ",
    "(APIServer pid=123) ",
    "[rank0]: ",
    "\x1b[31m",
    "[file.py:12] ",
    "stderr F ",
    "svc-1  | ",
    "Aug 14 12:00:37 host unit[1]: ",
    "E   ",
]


@st.composite
def pastes(draw: st.DrawFn, known: list[tuple[str, str]] | None = None) -> str:
    kind = draw(st.integers(0, 6 if known else 3))
    if kind == 0:
        return draw(st.text(st.characters(exclude_categories=("Cs",)), max_size=500))
    if kind == 1:  # huge: a piece repeated up to 50,000 characters
        piece = draw(st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=40))
        return (piece * draw(st.integers(1, 50_000)))[: draw(st.integers(0, 50_000))]
    if kind == 2:  # binary-looking
        return draw(st.binary(max_size=2000)).decode("latin-1")
    if kind == 3:  # traceback-shaped
        lines = draw(
            st.lists(
                st.one_of(
                    st.sampled_from(
                        [
                            "Traceback (most recent call last):",
                            '  File "x.py", line 1, in <module>',
                            "    raise ValueError(x)",
                            "    ^^^^^^^^^",
                            "During handling of the above exception, another exception occurred:",
                            "The above exception was the direct cause of the following exception:",
                            "ValueError: ",
                            "torch.OutOfMemoryError: CUDA out of memory",
                            "",
                        ]
                    ),
                    st.text(st.characters(exclude_categories=("Cs",)), max_size=80),
                ),
                max_size=30,
            )
        )
        prefix = draw(st.sampled_from(LOG_PREFIXES))
        return "\n".join(prefix + line for line in lines)
    assert known
    exception, template = draw(st.sampled_from(known))
    parsed = parse_template(template)
    filled = "".join(
        draw(st.text(max_size=20)) if part.placeholder else part.text for part in parsed.parts
    )
    if kind == 6:  # the template's own words over and over: no backtracking blow-up
        words = [part.text for part in parsed.parts if not part.placeholder] or [template]
        repeated = " ".join(draw(st.sampled_from(words)) for _ in range(draw(st.integers(1, 50))))
        return f"{exception}: {repeated * draw(st.integers(1, 40))}"
    if kind == 4:
        filled = filled.lower() if draw(st.booleans()) else filled
        start = draw(st.integers(0, len(filled)))
        return filled[start : start + draw(st.integers(0, len(filled)))]
    prefix = draw(st.sampled_from(LOG_PREFIXES))
    return (
        "Traceback (most recent call last):\n"
        '  File "x.py", line 3, in f\n'
        f"{prefix}{exception}: {filled}\n"
        + draw(st.sampled_from(["", "\n", "\r\n", "\nnext line\n"]))
    )


@SETTINGS
@given(data=st.data(), known=templates, limit=st.integers(1, 10))
def test_lookup_never_raises_and_keeps_to_its_limit(
    data: st.DataObject, known: list[tuple[str, str]], limit: int
) -> None:
    index = index_of(known)
    paste = data.draw(pastes(known))
    matches = search.lookup(index, paste, limit=limit)
    assert isinstance(matches, list)
    assert len(matches) <= limit
    for match in matches:
        assert match.entry in index.entries
        assert {name for name, _ in match.values} <= set(match.entry.names)
        assert set(match.also) <= {entry.id for entry in index.entries}


@pytest.mark.parametrize(
    "paste",
    [
        "",
        "\x00" * 50_000,
        "ValueError: " + "x" * 50_000,
        "Traceback (most recent call last):\n" * 5_000,
        ("a | " * 12_500),
        ("[f.py:1] " * 5_000) + "ValueError: x",
        "\n".join(["ERROR x"] * 7_000),
        "\r" * 50_000,
        "\u2028\u0085\x0b\x0c" * 12_500,
        "ﬃİ" * 25_000,
    ],
    ids=lambda p: repr(p[:12]) + f"x{len(p)}",
)
def test_lookup_answers_huge_and_odd_pastes(paste: str, tmp_path: Path) -> None:
    """The junk alone, and the junk before the line that names an error: an answer within
    the limit, in seconds. In a process of its own, so a pattern that backtracks without
    end fails at the deadline instead of hanging the suite."""
    wanted = "ValueError: size=3 must be positive"
    best = [m.entry.id for m in search.lookup(index_of(CROWDED), wanted, limit=100)]
    assert len(best) > 3  # more matches than the limit lets through
    try:
        done = subprocess.run(
            [sys.executable, "-c", _LOOKUP, json.dumps(CROWDED), wanted],
            input=paste.encode("utf-8"),
            capture_output=True,
            cwd=tmp_path,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("lookup took more than 60 s")
    assert done.returncode == 0, done.stderr.decode()
    answer = json.loads(done.stdout)
    assert len(answer["alone"]) <= 3
    assert answer["before the error"] == best[:3]
    assert answer["message"] <= search.MAX_MESSAGE


CROWDED = [
    ("ValueError", "size={size} must be positive"),
    ("ValueError", "x {a} must be divisible by {b}"),
    ("RuntimeError", "CUDA error: out of memory"),
    ("ValueError", "block size={size} must be positive"),
    ("ValueError", "size={size} must be positive and even"),
    ("ValueError", "page size {size} must be positive"),
    ("ValueError", "size={size} must be positive or -1"),
    ("ValueError", "the size must be positive"),
]
"""Templates of which several match one message, so a limit of 3 has some to cut."""

_LOOKUP = """\
import json, sys
from errdex import search
templates, wanted = json.loads(sys.argv[1]), sys.argv[2]
index = search.Index.build([
    search.make_entry(i, f"{i:016x}", exception, "owner/name", template, template[:72])
    for i, (exception, template) in enumerate(templates)
])
paste = sys.stdin.buffer.read().decode("utf-8")
ids = lambda text: [m.entry.id for m in search.lookup(index, text, limit=3)]
print(json.dumps({
    "alone": ids(paste),
    "before the error": ids(paste + "\\n" + wanted),
    "message": len(search.extract(paste).message),
}))
"""


@SETTINGS
@given(paste=pastes())
@example(paste="")
@example(paste="Traceback (most recent call last):")
@example(paste="Traceback (most recent call last):\n\n\n")
@example(paste="ValueError")
@example(paste=":")
@example(paste="\x1b[")
@example(paste="A" * 50_000 + "Error: x")
@example(paste="a." * 25_000)
def test_extract_never_raises(paste: str) -> None:
    extracted = search.extract(paste)
    assert isinstance(extracted, search.Extracted)
    assert isinstance(extracted.message, str)
    assert len(extracted.message) <= search.MAX_MESSAGE
    assert extracted.exception is None or isinstance(extracted.exception, str)


def test_lookup_of_a_paste_that_repeats_a_templates_words_is_fast() -> None:
    program = (
        "from errdex import search\n"
        "entry = search.make_entry(0, '0' * 16, 'ValueError', 'o/n', "
        "'expected {a} or {b} or {c} or {d}, got {e}', 't')\n"
        "index = search.Index.build([entry])\n"
        "search.lookup(index, 'ValueError: expected ' + 'or ' * 600)\n"
    )
    try:
        subprocess.run([sys.executable, "-c", program], cwd=ROOT, check=True, timeout=5)
    except subprocess.TimeoutExpired:
        pytest.fail("lookup took more than 5 s")


@given(
    st.text(alphabet=st.sampled_from(list("aB_ 1'\"`\t\n\r\f\vé\u00a0Σ\u2019.")), max_size=40),
    st.booleans(),
    st.booleans(),
)
def test_the_quick_normalizing_of_templates_is_the_normalizing(
    text: str, lead: bool, trail: bool
) -> None:
    assert search.normalized_text(text, lead, trail) == search.normalize(text, lead, trail)[0]


def _parse_one_character_at_a_time(source: str) -> list[tuple[str, bool]] | int:
    """The plainest reading of a template, to check parse_template against: its parts,
    or the position of its error."""
    parts: list[tuple[str, bool]] = []
    literal = ""
    i = 0
    while i < len(source):
        char = source[i]
        if char in "{}" and source[i : i + 2] == char * 2:
            literal += char
            i += 2
        elif char == "}":
            return i
        elif char == "{":
            depth, end = 0, i
            while end < len(source):
                depth += {"{": 1, "}": -1}.get(source[end], 0)
                if depth == 0:
                    break
                end += 1
            if end == len(source):
                return i
            if literal:
                parts.append((literal, False))
                literal = ""
            parts.append((source[i + 1 : end].strip(), True))
            i = end + 1
        else:
            literal += char
            i += 1
    if literal:
        parts.append((literal, False))
    return parts


@given(st.text(alphabet=st.sampled_from(list("ab {}{}  x\n")), max_size=30))
def test_parse_template_reads_as_one_character_at_a_time(source: str) -> None:
    expected = _parse_one_character_at_a_time(source)
    try:
        parts = [(p.text, p.placeholder) for p in parse_template(source).parts]
    except TemplateError as error:
        assert error.column == expected
    else:
        assert parts == expected


@given(st.text(alphabet=st.sampled_from(list("ab Z.:{}()'\"/,;?$%@1 _-!|#=+>")), max_size=200))
def test_plain_text_of_markup_free_markdown_is_read_without_the_parser(text: str) -> None:
    from errdex.site import markdown

    fast = markdown.plain(text)
    slow = markdown.plain(text + "\n")  # a line break takes the parser's way; ignored at the end
    assert fast == slow


@settings(SETTINGS)  # the first code block loads a lexer
@given(
    st.lists(
        st.sampled_from(
            [
                "Set `--max-model-len` to *at most* the model's limit.",
                "![diagram](https://example.com/a.png) shows the cache.",
                "![**bold** alt](x.png)",
                "| key | value |\n|:--|--:|\n| a | 1 |",
                "- one\n- two",
                "```python\nraise ValueError(x)\n```",
                "[link](javascript:alert(1))",
                "plain words",
                "\n",
            ]
        ),
        min_size=1,
        max_size=4,
    ),
    st.booleans(),
)
def test_markdown_renders_the_same_after_its_description_is_taken(
    parts: list[str], plain_first: bool
) -> None:
    """A page's description (``plain``) and its prose (``render``) share one parse of the
    text: rendering must not change what the other reads, in either order."""
    from errdex.site import markdown

    text = "\n\n".join(parts)
    markdown.render.cache_clear()
    markdown._parsed.cache_clear()
    alone = str(markdown.render(text))
    described = markdown.plain(text)
    markdown.render.cache_clear()
    markdown._parsed.cache_clear()
    if plain_first:
        assert markdown.plain(text) == described
        assert str(markdown.render(text)) == alone
    else:
        assert str(markdown.render(text)) == alone
        assert markdown.plain(text) == described
    markdown.render.cache_clear()  # again from the same tokens
    assert str(markdown.render(text)) == alone
