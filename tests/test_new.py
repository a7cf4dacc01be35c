"""new: a record scaffolded from a message or a traceback, ready to fill in, never over another."""

from __future__ import annotations

import io
import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from conftest import CONTENT, make_content

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
    assert (path.parent / "../../../record.schema.json").resolve() == content / "record.schema.json"

    # What is left to fill in is exactly what check names.
    check = run("check", "--content", content)
    assert check.code == 1
    assert f"{path.name}:13: source.commit must not be empty" in check.err
    filled = text.replace('commit: ""', 'commit: "abcdef1"').replace('path: ""', "path: a.py")
    path.write_text(filled.replace("line: 0", "line: 1"))
    assert run("check", "--content", content).code == 0


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
