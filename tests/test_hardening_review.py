"""What an independent hostile pass found after the hardening round, each as a user meets
it: a message of many placeholders, a record with odd line breaks, an empty or too-wide
--cache, check pointed at a system folder, a base URL in capitals, and `new` spelling a
repo or an exception another record spells otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import MINIMAL, SITE_YAML, least_cpu_time, make_content, soup

from errdex.model import parse_template
from errdex.render import message_html


def test_a_message_of_many_placeholders_renders_in_time_linear_in_its_length() -> None:
    small = parse_template("{b} " * 10_000)
    large = parse_template("{b} " * 40_000)
    ratio = least_cpu_time(lambda: message_html(large), 5) / least_cpu_time(
        lambda: message_html(small), 5
    )
    # Four times the placeholders: a quadratic join took sixteen times as long and more.
    assert ratio < 8, ratio


def test_the_message_marks_each_placeholder_and_escapes_the_rest() -> None:
    html = str(message_html(parse_template("a <b> & {name} {{x}}")))
    assert html == 'a &lt;b&gt; &amp; <var class="ph">{name}</var> {x}'


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


def test_an_empty_or_enclosing_cache_folder_is_refused(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch,  # type: ignore[no-untyped-def]
    capsys,  # type: ignore[no-untyped-def]
) -> None:
    content = make_content(tmp_path, {"a.yaml": MINIMAL})
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        run("build", "--content", content, "--out", tmp_path / "out", "--cache", "")
    assert stopped.value.code == 2
    assert "--cache: must name a folder, not be empty" in capsys.readouterr().err
    for given in (".", str(tmp_path.parent)):
        result = run("build", "--content", content, "--out", tmp_path / "out", "--cache", given)
        assert result.code == 1, given
        assert "Traceback" not in result.err
        assert "cannot be this folder or one above it" in result.err, result.err
    assert not (tmp_path / "out").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["content"]


def test_check_refuses_an_output_a_build_would_refuse_without_walking_it(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    content = make_content(tmp_path, {"a.yaml": MINIMAL})
    result = run("check", "--content", content, "--out", "/proc")
    assert result.code == 1
    assert "Traceback" not in result.err
    assert "/proc: exists and is not an errdex site" in result.err, result.err
    assert "[E500]" in result.err


def test_a_base_url_in_capitals_is_written_as_browsers_compare_it(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
) -> None:
    site = SITE_YAML.replace(
        "https://errors.example.test/docs/", "HTTPS://Errors.Example.TEST/Docs"
    )
    content = make_content(tmp_path, {"a.yaml": MINIMAL}, site=site)
    out = tmp_path / "out"
    assert run("build", "--content", content, "--out", out).code == 0
    canonical = soup(out / "index.html").find("link", rel="canonical")
    assert canonical is not None
    assert canonical["href"] == "https://errors.example.test/Docs/"


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
