"""``--json`` on build, check, scan, pin and ``issues import``: standard output is one JSON
object with the counts, the problems and the files, for a run that works and for one the
input stops (docs/commands.md#json-reports)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import MINIMAL, ROOT, git, git_repository, make_content

UNKNOWN_FIELD = MINIMAL + "colour: blue\n"
"""Valid, with a warning at line 14."""
NO_MESSAGE = "repo: example/project\nexception: ValueError\n"

MESSAGE = "the checkpoint at {path} was written by a newer release of the project"
PASTE = (
    "Traceback (most recent call last):\n"
    "ValueError: the checkpoint at /tmp/ck was written by a newer release of the project\n"
)


def report(result: Any) -> dict[str, Any]:
    """The JSON object of a run: the whole of standard output, and nothing else."""
    document: dict[str, Any] = json.loads(result.out)
    assert result.out.endswith("}\n")
    return document


pytestmark = pytest.mark.usefixtures("in_tmp_path")


@pytest.fixture
def content_records() -> dict[str, str]:
    return {"r.yaml": UNKNOWN_FIELD}


WARNING = {
    "file": "content/errors/r.yaml",
    "line": 14,
    "message": "unknown field 'colour'",
    "severity": "warning",
    "code": "W203",
}


def test_a_build_reports_its_counts_and_warnings(run, content: Path) -> None:  # type: ignore[no-untyped-def]
    result = run("build", "--content", "content", "--out", "public", "--json")

    assert result.code == 0, result.err
    document = report(result)
    assert document["command"] == "build" and document["exit"] == 0
    assert document["out"] == "public"
    counts = document["counts"]
    assert counts["records"] == counts["rendered"] == 1
    assert counts["written"] == len([p for p in Path("public").rglob("*") if p.is_file()]) - 1
    assert (counts["unchanged"], counts["removed"], counts["errors"], counts["warnings"]) == (
        0,
        0,
        0,
        1,
    )
    assert document["problems"] == [WARNING]
    # The person's lines are on standard error, as without --json.
    assert "errdex: built 1 error page into public/" in result.err

    again = report(run("build", "--content", "content", "--out", "public", "--json"))
    assert again["counts"]["written"] == 0 and again["counts"]["unchanged"] == counts["written"]


def test_a_build_the_input_stops_reports_each_error_at_its_line(run, content: Path) -> None:  # type: ignore[no-untyped-def]
    (content / "errors" / "broken.yaml").write_text(NO_MESSAGE)

    result = run("build", "--content", "content", "--out", "public", "--json")

    assert result.code == 1
    document = report(result)
    assert document["exit"] == 1
    assert document["counts"] == {"errors": 2, "warnings": 1}
    assert document["problems"][0] == {
        "file": "content/errors/broken.yaml",
        "line": 1,
        "message": "missing required field 'message'",
        "severity": "error",
        "code": "E200",
    }
    assert [p["message"] for p in document["problems"]] == [
        "missing required field 'message'",
        "missing required field 'source'",
        "unknown field 'colour'",
    ]
    assert not Path("public").exists()


def test_a_check_lists_the_files_a_build_would_write(run, content: Path) -> None:  # type: ignore[no-untyped-def]
    result = run("check", "--content", "content", "--json")

    assert result.code == 0, result.err
    document = report(result)  # no "would write" line around it
    assert document["command"] == "check"
    assert "public/index.html" in document["would_write"]
    assert document["would_remove"] == []
    assert document["counts"]["would_write"] == len(document["would_write"])
    assert document["counts"]["records"] == 1
    assert document["problems"] == [WARNING]


def test_a_strict_check_fails_on_its_warning(run, content: Path) -> None:  # type: ignore[no-untyped-def]
    result = run("check", "--content", "content", "--strict", "--json")

    assert result.code == 1
    document = report(result)
    assert document["exit"] == 1
    assert document["problems"] == [WARNING]
    assert document["would_write"] == []


def test_json_and_github_annotations_cannot_share_standard_output(run, content: Path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as exited:
        run("check", "--content", "content", "--json", "--format", "github")
    assert exited.value.code == 2


SOURCE = """\
def load(path):
    if not path:
        raise ValueError(f"no checkpoint at {path}")


def save(path):
    raise KeyError("the store is read-only")
"""


@pytest.fixture
def upstream(tmp_path: Path) -> Path:
    """A repository tagged v1, then v2 where both raises moved down two lines."""
    return git_repository(
        tmp_path / "upstream",
        ("v1", {"pkg/io.py": SOURCE, "pkg/broken.py": "def broken(:\n"}),
        ("v2", {"pkg/io.py": "import os\nimport sys\n" + SOURCE}),
    )


def test_a_scan_reports_the_records_it_wrote_and_what_it_skipped(  # type: ignore[no-untyped-def]
    run, content: Path, upstream: Path
) -> None:
    result = run("scan", upstream, "--repo", "me/up", "--ref", "v1", "--json")

    assert result.code == 0, result.err
    document = report(result)
    assert document["command"] == "scan" and document["dry_run"] is False
    written = sorted(str(p) for p in Path("content/errors/me/up").glob("*.yaml"))
    assert len(written) == 2
    assert document["files"] == written
    assert document["counts"] == {
        "new": 2,
        "refreshed": 0,
        "unchanged": 0,
        "no_longer_found": 0,
        "skipped": 1,
        "files": 2,
        "errors": 0,
        "warnings": 0,
    }
    assert document["changes"] == [
        {"kind": "new", "what": "pkg/io.py:3 ValueError: no checkpoint at {path}"},
        {"kind": "new", "what": "pkg/io.py:7 KeyError: the store is read-only"},
    ]
    assert document["skipped"] == ["pkg/broken.py:1: does not parse (invalid syntax); skipped"]
    step = {"new": 2, "refreshed": 0, "unchanged": 0, "no_longer_found": 0}
    commit = git(upstream, "rev-parse", "v1")
    assert document["steps"] == [{"commit": commit, "release": "v1", "counts": step}]
    assert document["problems"] == []


def test_a_scan_that_cannot_start_reports_why(run, content: Path, upstream: Path) -> None:  # type: ignore[no-untyped-def]
    result = run("scan", upstream, "--repo", "me/up", "--commit", "nowhere", "--json")

    assert result.code == 1
    document = report(result)
    assert document["exit"] == 1
    assert document["files"] == [] and document["counts"] == {"errors": 1, "warnings": 0}
    [problem] = document["problems"]
    assert problem["file"] is None and problem["line"] is None and problem["code"] is None
    assert problem["message"] == f"{upstream}: no commit 'nowhere' there"
    assert problem["severity"] == "error"
    assert f"errdex: {problem['message']}" in result.err


def test_a_pin_through_releases_reports_each_step(run, content: Path, upstream: Path) -> None:  # type: ignore[no-untyped-def]
    assert run("scan", upstream, "--repo", "me/up", "--ref", "v1").code == 0

    result = run("pin", upstream, "--repo", "me/up", "--ref", "v1..v2", "--json")

    assert result.code == 0, result.err
    document = report(result)
    assert document["command"] == "pin"
    assert [(s["release"], s["counts"]["moved"]) for s in document["steps"]] == [
        ("v1", 0),
        ("v2", 2),
    ]
    assert document["counts"]["moved"] == 2
    assert [c["kind"] for c in document["changes"]] == ["moved", "moved"]
    assert document["files"] == sorted(str(p) for p in Path("content/errors/me/up").glob("*"))
    assert document["counts"]["files"] == 2


def test_a_pin_the_input_stops_reports_why(run, content: Path, upstream: Path) -> None:  # type: ignore[no-untyped-def]
    result = run("pin", upstream, "--repo", "not-a-repo", "--ref", "v2", "--json")

    assert result.code == 1
    document = report(result)
    assert [p["message"] for p in document["problems"]] == [
        "--repo must be owner/name, not 'not-a-repo'"
    ]


@pytest.fixture
def issue_content(tmp_path: Path) -> Path:
    record = MINIMAL.replace('"size={size} must be positive"', f'"{MESSAGE}"')
    return make_content(tmp_path, {"r.yaml": record})


def export(tmp_path: Path, *bodies: str) -> Path:
    issues = [
        {
            "number": n,
            "title": f"Problem {n}",
            "body": body,
            "state": "OPEN",
            "url": f"https://github.com/example/project/issues/{n}",
            "createdAt": "2026-10-01T10:00:00Z",
            "closedAt": None,
            "labels": [],
        }
        for n, body in enumerate(bodies, start=1)
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(issues))
    return path


def test_an_import_reports_its_links_and_its_file(run, issue_content: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    exported = export(tmp_path, PASTE, "a feature request")

    result = run("issues", "import", exported, "--repo", "example/project", "--json")

    assert result.code == 0, result.err
    document = report(result)
    assert document["command"] == "issues import"
    assert document["files"] == ["content/issues/example/project.json"]
    assert Path(document["files"][0]).is_file()
    counts = document["counts"]
    assert (counts["read"], counts["linked"], counts["links"], counts["new"]) == (2, 1, 1, 2)
    assert document["skipped"] == [] and document["problems"] == []


def test_an_import_of_a_file_that_is_not_an_export_reports_why(  # type: ignore[no-untyped-def]
    run, issue_content: Path, tmp_path: Path
) -> None:
    (tmp_path / "export.json").write_text("not json")

    result = run(
        "issues", "import", tmp_path / "export.json", "--repo", "example/project", "--json"
    )

    assert result.code == 1
    document = report(result)
    [problem] = document["problems"]
    assert "is not a JSON export of issues" in problem["message"]
    assert document["files"] == []
    assert not (issue_content / "issues").exists()


def test_the_json_commands_are_the_ones_documented() -> None:
    from test_readme import subcommands

    with_json = [
        name
        for name, sub in subcommands()
        if any("--json" in a.option_strings for a in sub._actions)
    ]
    assert sorted(with_json) == [
        "build",
        "check",
        "issues import",
        "lookup",
        "pin",
        "scan",
        "triage",
    ]
    documented = (ROOT / "docs" / "commands.md").read_text()
    for name in with_json:
        if name not in ("lookup", "triage"):  # each prints its own matches
            assert f"| `{name}` |" in documented, name
