"""errdex draft against a real language model: SmolLM2-135M-Instruct on llama.cpp's
OpenAI-compatible server (``./dev model-test`` builds and starts it; CI runs it after the
suite). The model's prose is poor; what is tested is the pipeline: schema-constrained
answers, grounding that refuses what it must, records that validate, and provenance on
the pages and in the JSON.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import CONTENT, soup

from errdex.source import draft, grounding

URL = os.environ.get("ERRDEX_MODEL_URL")
pytestmark = pytest.mark.skipif(URL is None, reason="no model server (./dev model-test)")


def test_a_real_model_drafts_bundled_records_through_grounding(
    run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "none")
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    before = {p: p.read_bytes() for p in (content / "errors").rglob("*.yaml")}
    rejected = tmp_path / "rejected.json"
    result = run(
        "draft",
        "--content",
        content,
        "--base-url",
        URL,
        "--model",
        "SmolLM2-135M-Instruct",
        "--limit",
        "3",
        "--jobs",
        "1",
        "--timeout",
        "300",
        "--keep-rejected",
        rejected,
        "--cache",
        tmp_path / "cache",
    )
    print(result.err)
    assert result.code == 0, result.err
    counts = result.err.strip().splitlines()[-1]
    assert ", 0 failed; 3 request(s)" in counts
    changed = [p for p, data in before.items() if p.read_bytes() != data]
    kept = json.loads(rejected.read_text()) if rejected.exists() else []
    assert len(changed) + len(kept) == 3
    # The records people wrote are untouched.
    for path, data in before.items():
        if b"meaning:" in data:
            assert path.read_bytes() == data
    # What was written passes grounding again; what was refused says why.
    site_records = _records(content)
    known = draft.known_for(site_records, draft.Sources(), ())
    for path in changed:
        written = yaml.safe_load(path.read_text())
        assert written["analysis"]["by"] == "AI-assisted"
        assert written["analysis"]["model"] == "SmolLM2-135M-Instruct"
        assert grounding.refusals(draft.prose_of(written), known) == []
    for refused in kept:
        assert refused["reasons"]
    out = tmp_path / "public"
    built = run("build", "--content", content, "--out", out)
    assert built.code == 0, built.err
    for path in changed:
        record_id = yaml.safe_load(path.read_text()).get("id") or _id(out, path)
        page = soup(out / "errors" / record_id / "index.html")
        assert "not reviewed yet" in page.select_one(".notice.draft").get_text()
        document = json.loads((out / "api" / "errors" / f"{record_id}.json").read_text())
        assert document["review"]["state"] == "unreviewed"


def _records(content: Path) -> list[Any]:
    from errdex.site.build import Options, gather

    site, _ = gather(Options(content=content, cache=None))
    return list(site.records)


def _id(out: Path, path: Path) -> str:
    line = yaml.safe_load(path.read_text())["source"]["line"]
    for document in (out / "api" / "errors").glob("*.json"):
        data = json.loads(document.read_text())
        if data.get("source", {}).get("line") == line:
            return str(data["id"])
    raise AssertionError(path)
