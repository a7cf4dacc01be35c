"""Hostile input for ``issues import`` and the issue files a build reads: odd titles and
URLs, duplicates, failed writes, links out of the content folder, huge files. Each test
names what went wrong before."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from errdex.github import issues

REPO = "vllm-project/vllm"
A2A = "9c019ab65f8b8d16"
TRACEBACK = (
    '```\nTraceback (most recent call last):\n  File "x", line 1, in f\n'
    "ValueError: dcp_comm_backend='a2a' requires decode_context_parallel_size > 1.\n```\n"
)


def _gh(number: Any, **more: Any) -> dict[str, Any]:
    item = {
        "number": number,
        "title": f"Problem {number}",
        "body": TRACEBACK,
        "state": "OPEN",
        "url": f"https://github.com/{REPO}/issues/{number}",
        "createdAt": "2026-10-01T10:00:00Z",
        "closedAt": None,
        "labels": [{"name": "bug"}],
    }
    return {**item, **more}


def _import(run, content: Path, items: list[Any], *more: str):  # type: ignore[no-untyped-def]
    export = content.parent / "export.json"
    export.write_text(json.dumps(items))
    return run("issues", "import", export, "--repo", REPO, "--content", content, *more)


def _numbers(content: Path) -> list[int]:
    data = json.loads((content / "issues" / "vllm-project" / "vllm.json").read_text())
    return [i["number"] for i in data["issues"]]


# --- issues import ---------------------------------------------------------------------


def test_a_title_with_half_a_surrogate_pair_or_bidi_controls_is_imported_clean(  # type: ignore[no-untyped-def]
    run, bundled_content: Path
) -> None:
    # Before: UnicodeEncodeError from writing the file, a traceback and nothing written.
    hostile = "a\ud800b \u202egnp.exe\u2069 \x85c"
    result = _import(run, bundled_content, [_gh(1, title=hostile, labels=[{"name": "x\ud800"}])])

    assert result.code == 0, result.err
    (issue,) = json.loads((bundled_content / "issues" / "vllm-project" / "vllm.json").read_text())[
        "issues"
    ]
    assert issue["title"] == "ab gnp.exe c"
    assert issue["labels"] == ["x"]


@pytest.mark.parametrize(
    "url",
    [
        f"https://github.com/{REPO}/../../evil/repo",  # another repository of github.com
        f"https://github.com/{REPO}/issues/99",  # another issue
        f"https://github.com/{REPO}/issues/1 onmouseover=alert(1)",
        f"https://github.com/{REPO}/issues/1/../../../../attacker/x",
    ],
)
def test_an_issue_url_is_only_ever_the_issues_own_address(  # type: ignore[no-untyped-def]
    run, bundled_content: Path, url: str
) -> None:
    # Before: anything starting with https://github.com/OWNER/NAME/ was linked.
    result = _import(run, bundled_content, [_gh(1, url=url), _gh(2)])

    assert result.code == 0, result.err
    assert "skipped item 0 (#1): url must be the issue's address" in result.err
    assert _numbers(bundled_content) == [2]
    text = (bundled_content / "issues" / "vllm-project" / "vllm.json").read_text()
    (bundled_content / "issues" / "vllm-project" / "vllm.json").write_text(
        text.replace(f"https://github.com/{REPO}/issues/2", url.replace("/1", "/2", 1))
    )
    built = run("build", "--content", bundled_content, "--out", bundled_content.parent / "public")
    assert built.code == 1
    assert "vllm.json:2: issues[0] (#2): url must be the issue's address" in built.err


def test_an_issue_listed_twice_in_one_export_is_said_and_counted_once(  # type: ignore[no-untyped-def]
    run, bundled_content: Path
) -> None:
    # Before: the second silently replaced the first, and "2 issue(s) read" for one issue.
    result = _import(run, bundled_content, [_gh(8, title="first"), _gh(8, title="second")])

    assert result.code == 0, result.err
    assert "skipped item 1 (#8): listed again (item 0 kept)" in result.err
    assert "1 issue(s) read" in result.err
    data = json.loads((bundled_content / "issues" / "vllm-project" / "vllm.json").read_text())
    assert [i["title"] for i in data["issues"]] == ["first"]


def test_a_write_that_fails_leaves_no_partial_file_and_the_old_one_whole(  # type: ignore[no-untyped-def]
    run, bundled_content: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _import(run, bundled_content, [_gh(1)]).code == 0
    folder = bundled_content / "issues" / "vllm-project"
    before = (folder / "vllm.json").read_bytes()

    def read_only(*args: Any) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", read_only)
    # Before: PermissionError escaped as a traceback and .vllm.json.<pid> stayed behind.
    result = _import(run, bundled_content, [_gh(2)])

    assert result.code == 1
    assert "vllm.json: cannot be written: Permission denied" in result.err
    assert sorted(p.name for p in folder.iterdir()) == ["vllm.json"]
    assert (folder / "vllm.json").read_bytes() == before


def test_an_issues_folder_that_is_a_file_is_said_not_a_traceback(  # type: ignore[no-untyped-def]
    run, bundled_content: Path
) -> None:
    (bundled_content / "issues").write_text("not a folder")

    # Before: FileExistsError from mkdir, a traceback.
    result = _import(run, bundled_content, [_gh(1)])

    assert result.code == 1
    assert "cannot be written" in result.err


def test_an_issue_file_or_folder_that_links_outside_the_content_folder_is_refused(  # type: ignore[no-untyped-def]
    run, bundled_content: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (bundled_content / "issues").symlink_to(outside)

    # Before: the import wrote into the folder the link leads to.
    result = _import(run, bundled_content, [_gh(1)])

    assert result.code == 1
    assert "content/issues: is a link" in result.err
    assert list(outside.iterdir()) == []

    (bundled_content / "issues").unlink()
    (bundled_content / "issues" / "vllm-project").mkdir(parents=True)
    elsewhere = outside / "vllm.json"
    elsewhere.write_text(
        json.dumps(
            {
                "repo": REPO,
                "issues": [
                    issues.Issue(
                        REPO,
                        5,
                        "secret",
                        "open",
                        f"https://github.com/{REPO}/issues/5",
                        "2026-10-01",
                        None,
                        (),
                        (A2A,),
                    ).document()
                ],
            }
        )
    )
    (bundled_content / "issues" / "vllm-project" / "vllm.json").symlink_to(elsewhere)

    # Before: a build read the file outside and showed it.
    built = run("build", "--content", bundled_content, "--out", tmp_path / "public")

    assert built.code == 1
    assert "vllm.json: links outside the content folder (or nowhere); not read [E100]" in built.err
    assert not (tmp_path / "public").exists()

    # A build never skips a linked issues/ folder (or owner folder) without a word.
    shutil.rmtree(bundled_content / "issues")
    (bundled_content / "issues").symlink_to(outside)
    built = run("build", "--content", bundled_content, "--out", tmp_path / "public")
    assert built.code == 1
    assert "content/issues: is a link; issue files are read only from folders" in built.err


@pytest.mark.parametrize(
    "hostile",
    ['{"repo": "x/y", "issues": [{"number": ' + "1" * 5000 + "}]}", "[" * 100_000 + "]" * 100_000],
    ids=["5000-digit-number", "nesting-too-deep"],
)
def test_an_issue_file_json_cannot_read_is_a_problem_at_its_line(
    tmp_path: Path, hostile: str
) -> None:
    path = tmp_path / "x" / "y.json"
    path.parent.mkdir()
    path.write_text(hostile)

    # Before: ValueError or RecursionError escaped the build.
    repo, found, problems = issues.read_file(path, "y.json")

    assert (repo, found) == (None, [])
    assert [(p.line, p.code) for p in problems] == [(1, "E101")]


def test_the_lines_of_an_issue_file_of_50000_issues_are_found_in_linear_time() -> None:
    rows = [
        json.dumps({"number": n, "title": "t" * 150, "errors": [A2A]}) for n in range(1, 50_001)
    ]
    text = '{"repo": "x/y", "issues": [\n' + ",\n".join(rows) + "\n]}\n"

    started = time.process_time()  # this process's own time: a busy neighbour adds none
    lines = issues._lines(text)

    # Before: each issue counted the lines from the file's start, minutes for this file.
    assert time.process_time() - started < 5
    assert (lines[1], lines[50_000]) == (2, 50_001)


def test_a_value_with_a_line_break_at_its_end_is_not_an_id_or_a_date() -> None:
    from errdex.github import issues

    row = {
        "number": 3,
        "title": "T",
        "state": "open",
        "url": "https://github.com/o/r/issues/3",
        "created": "2026-01-01",
        "closed": None,
        "labels": [],
        "errors": ["0123456789abcdef"],
    }
    assert issues._issue("o/r", row)[0] is not None
    assert issues._issue("o/r", {**row, "created": "2026-01-01\n"})[0] is None
    assert issues._issue("o/r", {**row, "errors": ["0123456789abcdef\n"]})[0] is None
    # An export whose labels are one text is read as no labels, never as its letters.
    [one], _ = issues.from_export(
        [{**row, "url": row["url"], "createdAt": "2026-01-01", "labels": "bug", "body": ""}],
        "o/r",
    )
    assert one.issue.labels == ()


def test_an_import_never_writes_through_a_folder_linked_out_of_the_content(
    tmp_path: Path,
) -> None:
    # The command reads the content first, which refuses such a link; the import checks
    # again where it writes, for a folder that became a link since.
    from errdex.records.problems import BuildError

    content = tmp_path / "content"
    elsewhere = tmp_path / "elsewhere"
    (content / "issues").mkdir(parents=True)
    elsewhere.mkdir()
    (content / "issues" / "example").symlink_to(elsewhere)
    with pytest.raises(BuildError) as refused:
        issues.import_issues([], "example/up", content, lambda title, body: [])
    (problem,) = refused.value.problems
    assert problem.code == "E100" and "outside the content folder" in problem.message
    assert list(elsewhere.iterdir()) == []
