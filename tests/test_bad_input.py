"""Bad input: every problem named at file:line in one run, exit 1, old output untouched."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import MINIMAL, ROOT, SITE_YAML, make_content, snapshot, soup

from errdex.records.model import derive_id

OTHER = MINIMAL.replace("must be positive", "must be even")


def case(text: str, *expected: str, name: str = "bad.yaml") -> dict[str, object]:
    return {"files": {name: text, "good.yaml": OTHER}, "expected": expected}


CASES = {
    "yaml syntax": case(
        MINIMAL.replace("  commit:", "\tcommit:"),
        "errors/bad.yaml:5: YAML syntax error: ",
        "found character '\\t' that cannot start any token",
    ),
    "key without its colon": case(
        MINIMAL.replace('message: "size', 'message "size'),
        "errors/bad.yaml:3: YAML syntax error: could not find expected ':' "
        "(while scanning a simple key)",
    ),
    "unclosed quote": case(
        MINIMAL.replace('must be positive"', "must be positive").split("  excerpt:")[0],
        "errors/bad.yaml:3: YAML syntax error: found unexpected end of stream "
        "(while scanning a quoted scalar)",
    ),
    "missing field": case(
        MINIMAL.replace("exception: ValueError\n", ""),
        "errors/bad.yaml:1: missing required field 'exception'",
    ),
    "missing nested field": case(
        MINIMAL.replace("  path: src/project/config.py\n", ""),
        "errors/bad.yaml:4: missing required field 'source.path'",
    ),
    "wrong type": case(
        MINIMAL.replace("  line: 3", "  line: three"),
        "errors/bad.yaml:7: source.line must be a whole number, not str",
    ),
    "parameters that are no names": case(
        MINIMAL.replace("  line: 3\n", "  line: 3\n  parameters: [size, 3, max-size]\n"),
        "errors/bad.yaml:8: source.parameters.1 must be text, not int",
        "errors/bad.yaml:8: source.parameters.2 must be a Python name such as input_ids, "
        "not 'max-size'",
    ),
    "optional names that are not parameters": case(
        MINIMAL.replace(
            "  line: 3\n",
            "  line: 3\n  parameters: [size, order]\n  optional:\n    - order\n    - ghost\n"
            "    - order\n",
        ),
        "errors/bad.yaml:11: source.optional: ghost is not one of source.parameters [E202]",
        "errors/bad.yaml:12: source.optional: order is listed twice [E202]",
    ),
    "optional without parameters": case(
        MINIMAL.replace("  line: 3\n", "  line: 3\n  optional: [order]\n"),
        "errors/bad.yaml:8: source.optional: order is listed, but the record has no "
        "source.parameters [E202]",
    ),
    "parameters that are no list": case(
        MINIMAL.replace("  line: 3\n", "  line: 3\n  parameters: size\n"),
        "errors/bad.yaml:8: source.parameters must be a list, not str",
    ),
    "an earlier wording that is no template": case(
        MINIMAL
        + "releases:\n- {release: v1, commit: '0123456789', path: src/project/config.py, "
        + "line: 3, message: 'size {size must be positive'}\n",
        "errors/bad.yaml:15: releases[0].message: unclosed '{' (write '{{' for a literal "
        "brace) at column 6",
    ),
    "number where text is needed": case(
        MINIMAL.replace("commit: 0123456789abcdef0123456789abcdef01234567", "commit: 1234567"),
        "errors/bad.yaml:5: source.commit must be text, not int; put it in quotes",
    ),
    "bad id": case(
        "id: 9C019AB6\n" + MINIMAL,
        "errors/bad.yaml:1: id must be 16 lowercase hex digits, not '9C019AB6'",
    ),
    "related id that resolves to nothing": case(
        MINIMAL + "related:\n  - size={size} must be even\n  - '0000000000000000'\n",
        "errors/bad.yaml:16: related id 0000000000000000 matches no record",
    ),
    "duplicate key": case(
        MINIMAL + "repo: example/other\n",
        "errors/bad.yaml:14: duplicate key 'repo' (first given on line 1)",
    ),
    "alias": case(
        "repo: &r example/project\n"
        + MINIMAL.replace("repo: example/project\n", "")
        + "title: *r\n",
        "errors/bad.yaml:14: YAML syntax error: aliases (*name) are not allowed",
    ),
    "raise outside the excerpt": case(
        MINIMAL.replace("  line: 3", "  line: 30"),
        "errors/bad.yaml:7: source.line 30 is outside the excerpt (lines 1-3)",
    ),
    "unbalanced placeholder": case(
        MINIMAL.replace("size={size} must", "size={size must"),
        "errors/bad.yaml:3: message: unclosed '{' (write '{{' for a literal brace) at column 6",
    ),
    "path leaving the repository": case(
        MINIMAL.replace("src/project/config.py", "../../etc/passwd"),
        "errors/bad.yaml:6: source.path has an empty, '.' or '..' part",
    ),
    "absolute path": case(
        MINIMAL.replace("src/project/config.py", "/etc/passwd"),
        "errors/bad.yaml:6: source.path must be relative to the repository",
    ),
    "unsafe link in markdown": case(
        MINIMAL + "meaning: |\n  Fine.\n  See [docs](JavaScript:alert(1)).\n",
        "errors/bad.yaml:14: meaning: link with unsafe scheme 'JavaScript':",
    ),
    "repo that is a path": case(
        MINIMAL.replace("repo: example/project", "repo: example/.."),
        "errors/bad.yaml:1: repo must be owner/name, not 'example/..'",
    ),
    "impossible date": case(
        MINIMAL + "analysis:\n  by: Someone\n  date: 2026-13-45\n",
        "errors/bad.yaml:16: cannot read value '2026-13-45': month must be in 1..12",
    ),
    "id with a trailing newline": case(
        'id: "0123456789abcdef\\n"\n' + MINIMAL,
        "errors/bad.yaml:1: id must be 16 lowercase hex digits",
    ),
    "a key that is not text": case(
        MINIMAL + "1: one\n", "errors/bad.yaml:14: key '1' must be text"
    ),
    "empty file": case("", "errors/bad.yaml:1: file is empty"),
    "not a mapping": case("- a\n- b\n", "errors/bad.yaml:1: the file must be a mapping of fields"),
    "duplicate stated id": {
        "files": {
            "a.yaml": "id: 00000000000000aa\n" + MINIMAL,
            "b.yaml": "id: 00000000000000aa\n" + OTHER,
        },
        "expected": (
            "errors/b.yaml:1: duplicate id 00000000000000aa; ",
            "errors/a.yaml:1 has it too",
        ),
    },
    "duplicate derived id": {
        "files": {"a.yaml": MINIMAL, "b.yaml": MINIMAL},
        "expected": (
            "errors/b.yaml:3: duplicate id ",
            " (derived from repo, exception and message); ",
        ),
    },
}


@pytest.fixture
def previous(tmp_path: Path, run) -> Path:  # type: ignore[no-untyped-def]
    """An output folder holding a good earlier build."""
    content = make_content(tmp_path / "good", {"good.yaml": MINIMAL})
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out).code == 0
    return out


@pytest.mark.parametrize("name", CASES)
def test_bad_record_is_named_at_its_line_and_nothing_is_written(
    name: str,
    tmp_path: Path,
    previous: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    spec = CASES[name]
    content = make_content(tmp_path / "bad", spec["files"])  # type: ignore[arg-type]
    before = snapshot(previous)
    result = run("build", "--content", content, "--out", previous)
    assert result.code == 1
    for expected in spec["expected"]:  # type: ignore[attr-defined]
        assert expected in result.err, result.err
    assert "nothing was written" in result.err
    assert "Traceback" not in result.err
    assert snapshot(previous) == before


def test_every_problem_of_every_file_in_one_run(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content = make_content(
        tmp_path,
        {
            "one.yaml": MINIMAL.replace("exception: ValueError\n", "").replace(
                "  line: 3", "  line: x"
            ),
            "two.yaml": "repo: [\n",
            "three.yaml": MINIMAL.replace("example/project", "no-slash"),
        },
        site=SITE_YAML.replace("base_url: https://errors.example.test/docs/\n", ""),
    )
    result = run("check", "--content", content)
    assert result.code == 1
    lines = result.err.splitlines()
    assert any(
        line.startswith(f"{content}/site.yaml:1: missing required field 'base_url'")
        for line in lines
    )
    assert any("errors/one.yaml:1: missing required field 'exception'" in line for line in lines)
    assert any("errors/one.yaml:6: source.line must be a whole number" in line for line in lines)
    assert any("errors/three.yaml:1: repo must be owner/name" in line for line in lines)
    assert any("errors/two.yaml:2: YAML syntax error" in line for line in lines)
    assert "stopped with 5 error(s)" in result.err


def test_what_linking_finds_is_named_beside_other_files_errors(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """The records that loaded are linked all the same: an id two records have is named
    in the same run as a broken file's errors. A related id that matches no record that
    loaded may be one that did not (by its id, an alias, the name of its file): it is
    counted, and named once every record loads."""
    even = derive_id("example/project", "ValueError", "size={size} must be even")  # OTHER's
    content = make_content(
        tmp_path,
        {
            "broken.yaml": MINIMAL.replace("  line: 3", "  line: [3"),
            "relates.yaml": OTHER + "related:\n  - '0123456789abcdef'\n  - '1123456789abcdef'\n",
            "twin.yaml": f"id: {even}\n" + MINIMAL.replace("must be positive", "must be odd"),
        },
    )
    result = run("check", "--content", content)
    assert result.code == 1
    problems = [line for line in result.err.splitlines() if line.endswith("]")]
    assert len(problems) == 2, result.err
    assert "errors/broken.yaml:8: YAML syntax error" in result.err
    assert "duplicate id" in result.err and "[E400]" in result.err
    assert "[E401]" not in result.err
    assert (
        "errdex: 2 related ids that no record has left unchecked: records did not load, and "
        "it may be one of theirs (related ids are checked once every record loads)\n"
        "errdex: stopped with 2 error(s) and 0 warning(s)\n"  # check writes nothing, ever
    ) in result.err
    (content / "errors" / "broken.yaml").write_text(MINIMAL)
    (content / "errors" / "twin.yaml").unlink()
    fixed = run("check", "--content", content)
    assert fixed.err.count("[E401]") == 2 and "left unchecked" not in fixed.err


def test_a_wrong_type_does_not_hide_a_content_rules_problem(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    """A rule runs when the fields it reads are well shaped, whatever the others are: the
    path that leaves the repository is named in the same run as the unquoted commit, and
    the rule that reads the path's file name too (E206) does not trip on it."""
    bad = MINIMAL.replace(
        "commit: 0123456789abcdef0123456789abcdef01234567", "commit: 1234567"
    ).replace("path: src/project/config.py", "path: ../outside.py")
    bad += "example_fix:\n  - lang: nosuchlanguage\n    code: x = 1\n"
    content = make_content(tmp_path, {"bad.yaml": bad, "good.yaml": OTHER})
    result = run("check", "--content", content)
    assert result.code == 1
    assert "errors/bad.yaml:5: source.commit must be text, not int" in result.err
    assert "errors/bad.yaml:6: source.path has an empty, '.' or '..' part" in result.err
    assert "errors/bad.yaml:15: warning: unknown language 'nosuchlanguage'" in result.err
    assert "stopped with 2 error(s) and 1 warning(s)" in result.err


@pytest.mark.parametrize(
    ("wrong", "other", "found"),
    [
        ("meaning: 5\n", "solutions:\n  - TODO\n", "solutions.0 is still TODO"),
        ("id: zz\n", "aliases: [0123456789abcdef, 0123456789abcdef]\n", "is listed twice"),
        ("when: 5\n", "meaning: see <b>this</b>\n", "meaning: raw HTML is shown as text"),
    ],
)
def test_a_wrong_field_hides_no_problem_of_another(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    wrong: str,
    other: str,
    found: str,
) -> None:
    """Each rule reads its own fields: one of the prose fields, or the id, of the wrong
    type leaves the checks of the others to run."""
    content = make_content(tmp_path, {"bad.yaml": MINIMAL + wrong + other})
    result = run("check", "--content", content)
    assert result.code == 1
    assert found in result.err, result.err


def test_unknown_field_is_a_warning_and_strict_makes_it_fatal(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    content = make_content(
        tmp_path, {"typo.yaml": MINIMAL + "solutons:\n  - Use a positive size.\n"}
    )
    out = tmp_path / "public"
    relaxed = run("build", "--content", content, "--out", out)
    assert relaxed.code == 0
    warning = "errors/typo.yaml:14: warning: unknown field 'solutons'; did you mean 'solutions'?"
    assert warning in relaxed.err
    before = snapshot(out)
    strict = run("build", "--content", content, "--out", out, "--strict")
    assert strict.code == 1
    assert warning in strict.err
    assert "--strict" in strict.err
    assert snapshot(out) == before


def test_unknown_related_message_is_plain_text_and_a_warning(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    content = make_content(tmp_path, {"a.yaml": MINIMAL + "related:\n  - Something we never saw\n"})
    result = run("build", "--content", content, "--out", tmp_path / "public")
    assert result.code == 0
    assert (
        "errors/a.yaml:15: warning: no record has the message 'Something we never saw'; "
        "it is shown as plain text"
    ) in result.err
    row = soup(next((tmp_path / "public" / "errors").glob("*/index.html"))).select_one(
        "#related ~ ul li"
    )
    assert " ".join(row.get_text(" ").split()) == "Something we never saw no page yet"
    assert row.select_one("a") is None


def test_a_related_entry_that_repeats_another_is_left_out_with_a_warning(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """The same error named twice, once by its message and once by its id: one row."""
    content = make_content(tmp_path, {"b.yaml": OTHER})
    public = tmp_path / "public"
    other_id = derive_id("example/project", "ValueError", "size={size} must be even")
    entries = f"related:\n  - size={{size}} must be even\n  - {other_id}\n"
    (content / "errors" / "a.yaml").write_text(MINIMAL + entries)
    result = run("build", "--content", content, "--out", public)
    assert result.code == 0, result.err
    assert (
        "errors/a.yaml:16: warning: it links the same record as an entry above; entry ignored"
    ) in result.err
    own_id = derive_id("example/project", "ValueError", "size={size} must be positive")
    page = soup(public / "errors" / own_id / "index.html")
    assert [a["href"] for a in page.select("#related ~ ul a")] == [f"../{other_id}/"]


def test_not_utf8_is_named_with_its_line(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, {})
    (content / "errors" / "latin1.yaml").write_bytes(
        MINIMAL.replace("must be positive", "doit être positif").encode("latin-1")
    )
    result = run("check", "--content", content)
    assert result.code == 1
    assert "errors/latin1.yaml:3: not valid UTF-8 (byte 0xea)" in result.err


@pytest.mark.parametrize("where", ["project", "content", "stranger"])
def test_the_output_folder_never_replaces_what_is_not_a_site(
    where: str,
    tmp_path: Path,
    run,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    content = make_content(tmp_path, {"good.yaml": MINIMAL})
    (tmp_path / "notes.txt").write_text("mine")
    stranger = tmp_path / "stranger"
    stranger.mkdir()
    (stranger / "thesis.tex").write_text("mine")
    monkeypatch.chdir(tmp_path)
    out = {"project": Path("."), "content": content, "stranger": stranger}[where]
    before = snapshot(tmp_path)
    result = run("build", "--content", content, "--out", out)
    assert result.code == 1
    assert "nothing was written" in result.err
    assert snapshot(tmp_path) == before


def test_a_record_file_outside_the_content_folder_is_not_read(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text(MINIMAL)
    content = make_content(tmp_path / "site", {"good.yaml": OTHER})
    (content / "errors" / "sneaky.yaml").symlink_to(secret)
    result = run("check", "--content", content)
    assert result.code == 1
    assert "errors/sneaky.yaml: links outside the content folder; not read" in result.err
    (content / "errors" / "loop.yaml").symlink_to(content / "errors" / "loop.yaml")
    looped = run("check", "--content", content)
    assert "errors/loop.yaml: a link that leads nowhere (or to itself)" in looped.err


def big_content(root: Path, count: int) -> Path:
    """A content folder of realistic records, enough that a build takes a while."""
    from benchmarks.corpus import generate, write_content

    write_content(root / "content", generate(count, seed=5))
    return root / "content"


def build_process(content: Path, out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "build.py"),
            "build",
            "--content",
            str(content),
            "--out",
            str(out),
            "--no-cache",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_build_killed_midway_leaves_the_old_site_intact(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content = big_content(tmp_path, 300)
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out, "--no-cache").code == 0
    before = snapshot(out)
    for path in sorted((content / "errors").rglob("*.yaml"))[:50]:
        path.write_text(path.read_text() + "title: A changed title\n")
    process = build_process(content, out)
    for _ in range(1500):  # kill it while it writes its new copy
        if list(tmp_path.glob(".public.new-*")):
            break
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert snapshot(out) == before
    assert run("build", "--content", content, "--out", out, "--no-cache").code == 0
    assert not list(tmp_path.glob(".public.*-*")), "the killed build's folder was not cleared"


def test_two_builds_at_once_into_one_output_both_finish_whole(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content = big_content(tmp_path, 150)
    clean = tmp_path / "clean"
    assert run("build", "--content", content, "--out", clean, "--no-cache").code == 0
    out = tmp_path / "public"
    first, second = build_process(content, out), build_process(content, out)
    assert first.wait() == 0, first.stderr.read() if first.stderr else ""
    assert second.wait() == 0, second.stderr.read() if second.stderr else ""
    assert {k: v[0] for k, v in snapshot(out).items()} == {
        k: v[0] for k, v in snapshot(clean).items()
    }


def test_crlf_bom_spaces_and_non_ascii_file_names_are_fine(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    content = make_content(tmp_path, {})
    (content / "errors" / "with space é.yaml").write_bytes(
        "\ufeff".encode() + MINIMAL.replace("\n", "\r\n").encode()
    )
    result = run("build", "--content", content, "--out", tmp_path / "public")
    assert result.code == 0, result.err
    assert len(list((tmp_path / "public" / "errors").glob("*/index.html"))) == 1


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (5_000, "errors/huge.yaml:10: source.excerpt.code has 5,000 lines; at most 1,000"),
        (200_000, "errors/huge.yaml: file is 5,089,109 bytes; the limit is 2,000,000"),
    ],
)
def test_a_huge_excerpt_is_refused(
    lines: int,
    expected: str,
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    content = make_content(tmp_path, {})
    head = MINIMAL.split("    code: |\n")[0].replace("  line: 3", "  line: 2")
    body = "".join(f"      x = {i}  # raise\n" for i in range(lines))
    (content / "errors" / "huge.yaml").write_text(head + "    code: |\n" + body)
    result = run("check", "--content", content)
    assert result.code == 1
    assert expected in result.err


def test_a_long_build_shows_progress_on_a_terminal_only(tmp_path: Path) -> None:
    import fcntl
    import os
    import pty
    import struct
    import termios

    content = big_content(tmp_path, 320)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    argv = [
        sys.executable,
        str(ROOT / "build.py"),
        "build",
        "--content",
        str(content),
        "--no-cache",
    ]

    def stderr_of(out: str, terminal: bool, extra: dict[str, str]) -> str:
        reader, writer = pty.openpty() if terminal else os.pipe()
        if terminal:  # a terminal 100 columns wide, as a person's would be
            fcntl.ioctl(writer, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
        process = subprocess.Popen(
            [*argv, "--out", str(tmp_path / out)],
            cwd=ROOT,
            stderr=writer,
            stdout=subprocess.DEVNULL,
            env={**env, **extra},
        )
        os.close(writer)
        chunks = []
        while True:
            try:
                chunk = os.read(reader, 65536)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert process.wait() == 0
        os.close(reader)
        return b"".join(chunks).decode(errors="replace")

    shown = stderr_of("a", terminal=True, extra={})
    assert "page/s" in shown or "page]" in shown or "320/320" in shown, shown[-300:]
    assert "built 320 error pages" in shown
    piped = stderr_of("b", terminal=False, extra={})
    assert "320/320" not in piped and "%|" not in piped
    in_ci = stderr_of("c", terminal=True, extra={"CI": "true"})
    assert "%|" not in in_ci and "built 320 error pages" in in_ci


def test_an_alias_bomb_and_a_folder_named_like_a_record_are_refused_quickly(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
    )
    content = make_content(tmp_path, {"bomb.yaml": bomb})
    (content / "errors" / "folder.yaml").mkdir()
    result = run("check", "--content", content)  # 9**9 nodes, were aliases followed
    assert result.code == 1
    assert "errors/bomb.yaml:2: YAML syntax error: aliases (*name) are not allowed" in result.err
    assert "errors/folder.yaml: is a folder, not a record file" in result.err


def test_a_problem_after_a_line_separator_is_named_at_the_line_an_editor_shows(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    # YAML breaks lines at NEL and U+2028 too; editors and GitHub do not.
    record = (
        "repo: a/b\nexception: ValueError\n"
        'message: "one\u2028two\u0085three"\n'
        'source:\n  commit: "abcdef0"\n  path: z.py\n  line: "4"\n'
    )
    content = make_content(tmp_path, {"t.yaml": record})
    result = run("check", "--content", content, "--out", tmp_path / "out")
    assert result.code == 1
    assert "t.yaml:7: source.line must be a whole number" in result.err, result.err


def test_a_yaml_errors_own_line_is_the_editors_too(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    """PyYAML's message names the line where what it read starts, counted its way (a
    U+2028 ends a line there): said as the editor counts, as the file:line is."""
    content = make_content(tmp_path, {"t.yaml": 'meaning: "a\u2028b"\nx: "a\n  \\q"\n'})
    result = run("check", "--content", content)
    assert (
        "t.yaml:3: YAML syntax error: found unknown escape character 'q' "
        "(while scanning a double-quoted scalar on line 2)"
    ) in result.err, result.err


def test_a_folder_with_no_site_says_how_to_start_one(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("check")
    assert result.code == 1
    assert result.err.startswith(
        "content/errors: no errors/ folder with records, nor the content folder "
        "(`errdex init` starts a site; `--content` names one) [E100]\n"
    )
    # A content folder without errors/ is another mistake: no word of init.
    (tmp_path / "content").mkdir()
    assert "errdex init" not in run("check").err


def test_strict_names_every_warning_in_one_run(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    """Under --strict a warning of a record's own (an unknown field) and one linking
    finds (a related message no record has) stop the build together, both named."""
    content = make_content(
        tmp_path,
        {
            "a.yaml": OTHER + "related:\n  - no record has this message at all\n",
            "b.yaml": MINIMAL + "bogus: 1\n",
        },
    )
    result = run("check", "--content", content, "--strict")
    assert result.code == 1
    assert "errors/b.yaml:14: warning: unknown field 'bogus' [W203]" in result.err
    assert "errors/a.yaml:15: warning: no record has the message" in result.err
    assert "stopped with 0 error(s) and 2 warning(s)" in result.err


def test_a_line_with_no_raise_is_a_warning_at_the_records_line(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    """The excerpt's line at ``source.line`` has no raise: the line is probably off. In an
    exception class's ``__init__``, the ``super().__init__(…)`` that words its message is
    where scan records the class's raise, and is no warning."""
    off = MINIMAL.replace("line: 3", "line: 2")
    worded = MINIMAL.replace("line: 3", "line: 3\n  function: Small.__init__").replace(
        'raise ValueError(f"size={size} must be positive")',
        'super().__init__(f"size={size} must be positive")',
    )
    not_there = worded.replace("line: 3\n", "line: 2\n").replace(
        'message: "size={size} must be positive"', 'message: "size={size} must be small"'
    )
    worded = worded.replace(
        'message: "size={size} must be positive"', 'message: "size={size} must be odd"'
    )
    content = make_content(
        tmp_path, {"off.yaml": off, "worded.yaml": worded, "not-there.yaml": not_there}
    )
    result = run("check", "--content", content)
    assert result.code == 0
    assert (
        "errors/off.yaml:7: warning: line 2 of the excerpt has no 'raise': 'if size <= 0:' [W303]"
        in result.err
    )
    assert "errors/not-there.yaml:7: warning: line 2 of the excerpt has no 'raise'" in result.err
    assert "worded.yaml" not in result.err


def test_an_alias_two_records_claim_says_whose_alias_or_id_it_is(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    even = derive_id("example/project", "ValueError", "size={size} must be even")  # OTHER's
    content = make_content(
        tmp_path,
        {
            "a.yaml": "aliases: ['00000000000000aa']\n" + OTHER,
            "b.yaml": "aliases: ['00000000000000aa']\n" + MINIMAL,
            "c.yaml": f"aliases: ['{even}']\n" + MINIMAL.replace("must be positive", "must be odd"),
        },
    )
    result = run("check", "--content", content)
    assert result.code == 1
    assert f"b.yaml:4: alias 00000000000000aa is also an alias of {content}/errors/a.yaml" in (
        result.err
    )
    assert f"c.yaml:4: alias {even} is also {content}/errors/a.yaml's id [E400]" in result.err
