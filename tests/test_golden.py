"""The golden site: a small content folder whose full expected output is committed.

After an intended change to the output, refresh it with
``.venv/bin/pytest tests/test_golden.py --update-golden`` and review the diff in git.
"""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import pytest
from conftest import snapshot

GOLDEN = Path(__file__).parent / "golden"


def test_golden_site_matches_committed_output(
    tmp_path: Path,
    run,
    request: pytest.FixtureRequest,  # type: ignore[no-untyped-def]
) -> None:
    out = tmp_path / "public"
    result = run("build", "--content", GOLDEN / "content", "--out", out)
    assert result.code == 0, result.err
    assert (
        "batch-size.yaml:45: warning: no record has the message "
        "'Checkpoint {path} was written by a newer version'"
    ) in result.err
    expected_dir = GOLDEN / "expected"
    if request.config.getoption("--update-golden"):
        shutil.rmtree(expected_dir, ignore_errors=True)
        shutil.copytree(out, expected_dir)
        pytest.skip("golden output refreshed; review it with git diff")
    built = {name: data for name, (data, _) in snapshot(out).items()}
    expected = {name: data for name, (data, _) in snapshot(expected_dir).items()}
    assert sorted(built) == sorted(expected), "the set of output files changed"
    for name in sorted(expected):
        if built[name] != expected[name]:
            diff = difflib.unified_diff(
                expected[name].decode(errors="replace").splitlines(),
                built[name].decode(errors="replace").splitlines(),
                f"expected/{name}",
                f"built/{name}",
                lineterm="",
            )
            pytest.fail("\n".join(list(diff)[:60]))
