"""A build in CI: a fresh checkout (every record file new, with a new change time) and the
last run's cache and built site restored (every file new again). What changed is told by
the files' bytes, so one edited record is an update, not a full build."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import jinja2
import pytest
from conftest import MINIMAL, make_content, snapshot

RECORD = """\
repo: example/project
exception: KeyError
message: "no column named {n} in the table"
meaning: Column {n} is missing.
source:
  commit: 0123456789abcdef0123456789abcdef01234567
  path: src/project/table.py
  line: {line}
  excerpt:
    start: {line}
    code: |
      raise KeyError(f"no column named {n} in the table")
"""


def _site(tmp_path: Path, run: Any) -> tuple[Path, Any]:
    content = make_content(
        tmp_path, {f"c{n}.yaml": RECORD.format(n=n, line=n + 1) for n in range(6)}
    )
    out, cache = tmp_path / "public", tmp_path / "cache"

    def build() -> str:
        result = run("build", "--content", content, "--out", out, "--cache", cache, "-v")
        assert result.code == 0, result.err
        return str(result.err)

    assert "full build" in build()
    return content, build


def _restore(folder: Path) -> None:
    """``folder`` as a checkout or a cache restore leaves it: the same bytes in new files."""
    copy = folder.with_name(folder.name + ".copy")
    shutil.copytree(folder, copy, symlinks=True)
    shutil.rmtree(folder)
    copy.rename(folder)


def _fresh(content: Path, tmp_path: Path, run: Any) -> dict[str, bytes]:
    out = tmp_path / "fresh"
    shutil.rmtree(out, ignore_errors=True)
    assert run("build", "--content", content, "--out", out, "--no-cache").code == 0
    return {rel: data for rel, (data, _) in snapshot(out).items()}


def _bytes(out: Path) -> dict[str, bytes]:
    return {rel: data for rel, (data, _) in snapshot(out).items()}


def test_a_fresh_checkout_with_the_site_restored_is_up_to_date(run: Any, tmp_path: Path) -> None:
    content, build = _site(tmp_path, run)
    for folder in (content, tmp_path / "public", tmp_path / "cache"):
        _restore(folder)
    assert "errdex: nothing changed" in build()
    # The new times were kept: the next build compares times, and finds nothing again.
    assert "errdex: nothing changed" in build()


def test_one_record_edited_after_a_restore_is_an_update(run: Any, tmp_path: Path) -> None:
    content, build = _site(tmp_path, run)
    for folder in (content, tmp_path / "public", tmp_path / "cache"):
        _restore(folder)
    record = content / "errors" / "c2.yaml"
    record.write_text(record.read_text().replace("Column 2 is missing.", "It was renamed."))
    said = build()
    assert "errdex: update: 1 record changed" in said, said
    assert _bytes(tmp_path / "public") == _fresh(content, tmp_path, run)


def test_a_restored_site_with_a_page_changed_is_built_again_whole(run: Any, tmp_path: Path) -> None:
    content, build = _site(tmp_path, run)
    out = tmp_path / "public"
    _restore(out)
    page = next(out.glob("errors/*/index.html"))
    page.write_text(page.read_text().replace("Column", "Row"))
    said = build()
    assert "full build" in said and "changed since the last build into it" in said, said
    assert _bytes(out) == _fresh(content, tmp_path, run)


def test_a_restored_site_with_a_file_missing_is_built_again_whole(run: Any, tmp_path: Path) -> None:
    content, build = _site(tmp_path, run)
    out = tmp_path / "public"
    _restore(out)
    next(out.glob("api/errors/*.json")).unlink()
    assert "full build" in build()
    assert _bytes(out) == _fresh(content, tmp_path, run)


def test_a_record_edited_to_the_same_size_is_still_seen(run: Any, tmp_path: Path) -> None:
    content, build = _site(tmp_path, run)
    _restore(content)
    record = content / "errors" / "c3.yaml"
    before = record.read_text()
    record.write_text(before.replace("Column 3 is missing.", "Column 3 is unknown."))
    assert len(record.read_bytes()) == len(before.encode())
    said = build()
    assert "errdex: update: 1 record changed" in said, said
    assert _bytes(tmp_path / "public") == _fresh(content, tmp_path, run)


@pytest.mark.usefixtures("own_template_cache")
def test_a_build_keeps_its_compiled_templates_and_the_next_compiles_none(
    run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    content = make_content(tmp_path, {"a.yaml": MINIMAL})
    cache = tmp_path / "cache"
    first = run("build", "--content", content, "--out", tmp_path / "one", "--cache", cache)
    assert first.code == 0, first.err
    assert len(list((cache / "templates").glob("__jinja2_*.cache"))) > 10

    def compiled(*args: object, **kwargs: object) -> object:
        raise AssertionError("a template was compiled again")

    monkeypatch.setattr(jinja2.Environment, "compile", compiled)
    again = run("build", "--content", content, "--out", tmp_path / "two", "--cache", cache)
    assert again.code == 0, again.err
    assert snapshot(tmp_path / "two").keys() == snapshot(tmp_path / "one").keys()
