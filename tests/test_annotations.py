"""``check --format github``: each problem is an annotation GitHub shows on its file and line."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import MINIMAL

from errdex.records.problems import Problem, Severity, annotation

ODD_NAME = "a,b:c.yaml"
"""A record file whose name holds the two characters a property must escape."""
UNKNOWN_FIELD = MINIMAL + '"50%key": 1\n'
"""Valid, with a warning at line 14 whose message holds a ``%``."""
NO_MESSAGE = "repo: example/project\nexception: ValueError\n"


pytestmark = pytest.mark.usefixtures("in_tmp_path")


@pytest.fixture
def content_records() -> dict[str, str]:
    return {ODD_NAME: UNKNOWN_FIELD}


def test_each_problem_is_an_annotation_on_its_file_and_line(run, content: Path) -> None:  # type: ignore[no-untyped-def]
    (content / "errors" / "broken.yaml").write_text(NO_MESSAGE)

    result = run("check", "--content", "content", "--format", "github")

    assert result.code == 1
    assert result.out.splitlines() == [
        "::warning file=content/errors/a%2Cb%3Ac.yaml,line=14::unknown field '50%25key' [W203]",
        "::error file=content/errors/broken.yaml,line=1::missing required field 'message' [E200]",
        "::error file=content/errors/broken.yaml,line=1::missing required field 'source' [E200]",
    ]
    # The log keeps its lines for a person, as without --format.
    assert "content/errors/broken.yaml:1: missing required field 'message' [E200]" in result.err


def test_a_valid_site_with_a_warning_passes_and_annotates_it(run, content: Path) -> None:  # type: ignore[no-untyped-def]
    result = run("check", "--content", "content", "--format", "github")

    assert result.code == 0
    annotations = [line for line in result.out.splitlines() if line.startswith("::")]
    assert annotations == [
        "::warning file=content/errors/a%2Cb%3Ac.yaml,line=14::unknown field '50%25key' [W203]"
    ]
    assert "would write public/404.html" in result.out


def test_the_text_format_writes_no_annotation(run, content: Path) -> None:  # type: ignore[no-untyped-def]
    result = run("check", "--content", "content")

    assert result.code == 0
    assert "::" not in result.out
    assert "content/errors/a,b:c.yaml:14: warning: unknown field '50%key' [W203]" in result.err


@pytest.mark.parametrize(
    ("problem", "expected"),
    [
        (
            Problem("x.yaml", 3, "50%\r\nof it", Severity.ERROR, "E201"),
            "::error file=x.yaml,line=3::50%25%0D%0Aof it [E201]",
        ),
        (
            Problem("dir:1/a,b%\n.yaml", 0, "whole file: bad", Severity.WARNING),
            "::warning file=dir%3A1/a%2Cb%25%0A.yaml::whole file: bad",
        ),
        (Problem("", 0, "no file", Severity.ERROR, "E100"), "::error::no file [E100]"),
    ],
    ids=["data-escapes", "property-escapes-and-no-line", "no-file"],
)
def test_messages_and_properties_are_escaped_as_github_reads_them(
    problem: Problem, expected: str
) -> None:
    assert annotation(problem) == expected
