"""errdex draft and review against a fake model on 127.0.0.1: what gets written, what is
refused and why, provenance on the page and in the JSON, review, staleness, publishing,
faults of the server, and a run killed half way."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ROOT, SITE_YAML, soup

from benchmarks import fake_llm
from errdex.cli import main
from errdex.records.model import derive_id

CONFIG = '''\
"""Settings of a small project, in errdex's own words."""

import os


class EngineConfig:
    def check(self, block_size, num_heads, backend):
        self.block_size = block_size
        if block_size % num_heads != 0:
            raise ValueError(f"block_size={block_size} must be divisible by num_heads={num_heads}")
        if backend not in ("fast", "exact"):
            raise ValueError(f"unknown backend {backend!r}")
        if os.environ.get("ENGINE_DEBUG") and block_size > 64:
            raise RuntimeError("debug mode takes blocks of at most 64")

    def load(self, path):
        if path is None:
            raise TypeError("a path to the weights is needed")
        if not path.endswith(".bin"):
            raise ValueError(f"weights must be a .bin file, not {path}")
'''


def scanned(root: Path, count: int = 1) -> Path:
    """A content folder scanned from ``count`` copies of a small project."""
    source = root / "src"
    for number in range(count):
        folder = source / f"engine{number}"
        folder.mkdir(parents=True)
        (folder / "config.py").write_text(CONFIG)
    content = root / "content"
    (content / "errors").mkdir(parents=True)
    (content / "site.yaml").write_text(SITE_YAML)
    argv = ["scan", str(source), "--repo", "example/engine", "--commit", "ab" * 20]
    assert main([*argv, "--content", str(content), "--no-cache"]) == 0
    return content


@pytest.fixture
def scanned_content(tmp_path: Path) -> Path:
    return scanned(tmp_path)


def record_files(content: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((content / "errors").rglob("*.yaml"))}


def draft(run: Any, content: Path, url: str, *more: str) -> Any:
    return run(
        "draft",
        "--content",
        content,
        "--base-url",
        url,
        "--model",
        "fake-model",
        "--cache",
        content.parent / "cache",
        *more,
    )


def data_of(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(path.read_text())
    return data


def test_a_capable_model_fills_every_record_and_the_pages_say_how(
    run: Any, scanned_content: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-shown-0123456789")
    with fake_llm.serving(fake_llm.capable) as server:
        result = draft(run, scanned_content, server.url)
    assert result.code == 0, result.err
    assert "5 drafted, 0 refused, 0 failed; 5 request(s)" in result.err
    for path in (scanned_content / "errors").rglob("*.yaml"):
        data = data_of(path)
        assert data["meaning"] and data["solutions"] and data["when"]["trigger"]
        analysis = data["analysis"]
        assert analysis["by"] == "AI-assisted" and analysis["model"] == "fake-model"
        assert analysis["reviewed"] is False and analysis["commit"] == "ab" * 20
        assert len(analysis["prompt"]) == len(analysis["answer"]) == 16
    # The divisibility error's solutions start from what the code says.
    divisible = next(
        data
        for data in map(data_of, (scanned_content / "errors").rglob("*.yaml"))
        if "divisible" in data["message"]
    )
    assert divisible["solutions"] == ["Make `block_size` divisible by `num_heads`."]
    out = tmp_path / "public"
    built = run("build", "--content", scanned_content, "--out", out)
    assert built.code == 0, built.err
    record_id = json.loads((out / "api" / "errors.json").read_text())["errors"][0]["id"]
    page = soup(out / "errors" / record_id / "index.html")
    notice = page.select_one(".notice.draft").get_text()
    assert "AI-assisted draft, not reviewed yet" in notice
    footer = page.select_one(".provenance").get_text(" ", strip=True)
    assert "AI-assisted analysis of example/engine@abababab" in footer
    assert "No person has reviewed it yet." in footer
    document = json.loads((out / "api" / "errors" / f"{record_id}.json").read_text())
    assert document["review"] == {"state": "unreviewed", "stale": False}
    assert document["analysis"]["model"] == "fake-model"
    # The key went to the server and nowhere else.
    assert all(r.get("model") == "fake-model" for r in server.requests)
    for path in [*scanned_content.rglob("*"), *(tmp_path / "cache").rglob("*")]:
        if path.is_file():
            assert b"sk-test-never-shown" not in path.read_bytes()
    assert "sk-test-never-shown" not in result.err + result.out


def test_a_second_run_asks_nothing_and_a_record_with_prose_is_never_drafted(
    run: Any, tmp_path: Path
) -> None:
    content = scanned(tmp_path)
    # A record a person wrote keeps every byte.
    mine = content / "errors" / "person.yaml"
    mine.write_text(PERSON)
    with fake_llm.serving(fake_llm.capable) as server:
        first = draft(run, content, server.url)
        after_first = record_files(content)
        second = draft(run, content, server.url)
    assert first.code == second.code == 0
    assert server.count == 5
    assert "no record needs a draft" in second.err
    assert record_files(content) == after_first
    assert mine.read_text() == PERSON


PERSON = """\
repo: example/engine
exception: KeyError
message: "no engine named {name}"
meaning: |
  The engine registry has no entry under that name; written by a person.
source:
  commit: "abababababababababababababababababababab"
  path: engine0/registry.py
  line: 2
  excerpt:
    start: 1
    code: |
      def find(name):
          raise KeyError(f"no engine named {name}")
"""

HOSTILE = {
    "meaning": "Run <script>alert(1)</script> to see it.",
    "trigger": "Setting `--turbo-mode` on.",
    "situations": "When `ENGINE_SECRET_KEY` is set.",
    "solutions": ["Edit `config/engine.toml` and pass `--turbo-mode`."],
    "example_fix": [
        {
            "lang": "python",
            "code": "import multiprocessing\nmultiprocessing.set_start_method('spawn')\n",
        }
    ],
}


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (json.dumps(HOSTILE), "--turbo-mode"),
        ("{not json", "not JSON"),
        ('["a", "list"]', "not an object"),
        (json.dumps({**HOSTILE, "meaning": "x", "extra": 1}), "fields no record has"),
        (json.dumps({**HOSTILE, "meaning": "][", "solutions": [".-"]}), "no words, only ]["),
        (json.dumps({**HOSTILE, "meaning": "x" * 1500}), "1500 characters, more than"),
    ],
)
def test_a_hostile_or_broken_answer_is_refused_and_nothing_is_written(
    run: Any, scanned_content: Path, tmp_path: Path, answer: str, reason: str
) -> None:
    before = record_files(scanned_content)
    rejected = tmp_path / "rejected.json"
    with fake_llm.serving(fake_llm.content(answer)) as server:
        result = draft(
            run, scanned_content, server.url, "--limit", "1", "--keep-rejected", rejected
        )
    assert result.code in (0, 1), result.err
    assert record_files(scanned_content) == before
    assert reason in result.err
    assert "0 drafted, 1 refused" in result.err
    (kept,) = json.loads(rejected.read_text())
    assert any(reason in why for why in kept["reasons"])
    if "characters" in reason:  # the summary counts each kind in a word or two
        assert " 1 too long, " in result.err, result.err
    if reason == "--turbo-mode":
        # Every problem is named, not the first only.
        text = " ".join(kept["reasons"])
        for word in ("HTML", "ENGINE_SECRET_KEY", "config/engine.toml", "multiprocessing"):
            assert word in text
    if reason.startswith("not"):
        # Asked once more with the parse error, then refused as the model's fault.
        assert server.count == 2
        assert "That answer is not valid" in server.requests[1]["messages"][-1]["content"]


def test_refused_answers_are_kept_and_asked_again_only_when_told(
    run: Any, scanned_content: Path
) -> None:
    with fake_llm.serving(fake_llm.answered(HOSTILE)) as server:
        draft(run, scanned_content, server.url, "--limit", "2")
        again = draft(run, scanned_content, server.url, "--limit", "2")
        assert server.count == 2
        assert "0 request(s), 2 answered from the cache" in again.err
        retried = draft(run, scanned_content, server.url, "--limit", "2", "--retry-refused")
        assert server.count == 4
    assert "2 refused" in retried.err


@pytest.mark.parametrize("status", [400, 422, 500])
def test_a_server_that_refuses_json_schema_is_asked_with_json_object(
    run: Any, scanned_content: Path, status: int
) -> None:
    with fake_llm.serving(fake_llm.only_json_object(status=status)) as server:
        result = draft(run, scanned_content, server.url, "--limit", "2", "--jobs", "1")
    assert "2 drafted" in result.err, result.err
    kinds = [(r.get("response_format") or {}).get("type") for r in server.requests]
    # The first way refused once; the one that worked is kept for the run.
    assert kinds == ["json_schema", "json_object", "json_object"]
    assert server.requests[1]["response_format"]["schema"]["required"][0] == "meaning"


@pytest.mark.parametrize(
    ("first", "words"),
    [
        (
            fake_llm.Reply(
                429, body=b'{"error":{"message":"slow down"}}', headers={"retry-after": "1"}
            ),
            None,
        ),
        (fake_llm.Reply(500, body=b'{"error":{"message":"boom"}}'), None),
        (fake_llm.Reply(cut=True, content="x" * 2000), None),
    ],
)
def test_passing_faults_are_tried_again_within_the_budget(
    run: Any, scanned_content: Path, first: fake_llm.Reply, words: str | None
) -> None:
    behaviour = fake_llm.sequence(fake_llm.fixed(first), fake_llm.capable)
    with fake_llm.serving(behaviour) as server:
        result = draft(run, scanned_content, server.url, "--limit", "1", "--max-wait", "5")
    assert "1 drafted" in result.err, result.err
    assert server.count == 2


def test_a_server_that_hangs_fails_the_draft_within_the_timeout(
    run: Any, scanned_content: Path
) -> None:
    before = record_files(scanned_content)
    started = time.monotonic()
    with fake_llm.serving(fake_llm.fixed(fake_llm.Reply(hang=True))) as server:
        result = draft(
            run, scanned_content, server.url, "--limit", "1", "--timeout", "1", "--max-wait", "0"
        )
        assert server.count == 1
    assert time.monotonic() - started < 20
    assert result.code == 1
    assert "0 drafted, 0 refused, 1 failed" in result.err
    assert record_files(scanned_content) == before


def test_a_wrong_key_fails_cleanly_and_the_key_is_never_shown(
    run: Any, scanned_content: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-wrong-key-4242424242"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    said = json.dumps({"error": {"message": f"Incorrect API key provided: {key}"}})
    with fake_llm.serving(fake_llm.fixed(fake_llm.Reply(401, body=said.encode()))) as server:
        result = draft(run, scanned_content, server.url, "--limit", "1")
        assert server.count == 1  # not tried again: a wrong key stays wrong
    assert result.code == 1
    assert "HTTP 401" in result.err and "[key]" in result.err
    assert key not in result.err + result.out


def test_a_dry_run_sends_nothing_and_says_how_much(run: Any, scanned_content: Path) -> None:
    with fake_llm.serving(fake_llm.capable) as server:
        result = run("draft", "--content", scanned_content, "--dry-run", "--base-url", server.url)
        assert server.count == 0
    assert result.code == 0
    assert "would draft 5 record(s): about " in result.err
    assert "answer tokens (estimated); nothing sent" in result.err


def test_review_marks_a_draft_reviewed_shows_the_next_and_rejects_one(
    run: Any, scanned_content: Path, tmp_path: Path
) -> None:
    with fake_llm.serving(fake_llm.capable) as server:
        draft(run, scanned_content, server.url)
    paths = sorted((scanned_content / "errors").rglob("*.yaml"))
    ids = {data_of(p).get("id") or p.stem: p for p in paths}
    shown = run("review", "--next", "--content", scanned_content)
    assert shown.code == 0
    assert "1 of 5 waiting" in shown.out and ">>" in shown.out and "Grounding" in shown.out
    first_id = shown.out.split("(", 1)[1].split(")", 1)[0]
    marked = run("review", first_id, "--content", scanned_content)
    assert marked.code == 0 and "marked reviewed" in marked.err
    assert "1 of 4 waiting" in run("review", "--next", "--content", scanned_content).out
    others = [i for i in run_ids(run, scanned_content) if i != first_id]
    rejected = run("review", "--reject", others[0], "--content", scanned_content)
    assert rejected.code == 0, rejected.err
    out = tmp_path / "public"
    assert run("build", "--content", scanned_content, "--out", out).code == 0
    reviewed = soup(out / "errors" / first_id / "index.html")
    assert reviewed.select_one(".notice.draft") is None
    assert "Reviewed by a person." in reviewed.select_one(".provenance").get_text()
    gone = soup(out / "errors" / others[0] / "index.html")
    assert gone.select_one("#meaning") is None
    assert "No analysis yet" in gone.get_text()
    # A rejected record is not drafted again.
    with fake_llm.serving(fake_llm.capable) as server:
        again = draft(run, scanned_content, server.url)
        assert server.count == 0
    assert "no record needs a draft" in again.err
    del ids


def run_ids(run: Any, content: Path) -> list[str]:
    out = content.parent / "ids"
    assert run("build", "--content", content, "--out", out).code == 0
    return [e["id"] for e in json.loads((out / "api" / "errors.json").read_text())["errors"]]


def test_a_person_editing_a_draft_is_told_apart_and_never_overwritten(
    run: Any, scanned_content: Path, tmp_path: Path
) -> None:
    with fake_llm.serving(fake_llm.capable) as server:
        draft(run, scanned_content, server.url)
    path = sorted((scanned_content / "errors").rglob("*.yaml"))[0]
    text = path.read_text()
    data = data_of(path)
    edited = text.replace(data["when"]["situations"], "When a person says so.")
    path.write_text(edited)
    record_id = data.get("id") or run_ids(run, scanned_content)[0]
    out = tmp_path / "public"
    assert run("build", "--content", scanned_content, "--out", out).code == 0
    document = next(
        json.loads(p.read_text())
        for p in (out / "api" / "errors").glob("*.json")
        if "When a person says so." in p.read_text()
    )
    assert document["review"]["state"] == "edited"
    with fake_llm.serving(fake_llm.capable) as server:
        draft(run, scanned_content, server.url, "--stale")
    assert path.read_text() == edited
    del record_id


def test_a_draft_whose_code_changed_is_stale_and_drafted_again_unless_reviewed(
    run: Any, scanned_content: Path, tmp_path: Path
) -> None:
    with fake_llm.serving(fake_llm.capable) as server:
        draft(run, scanned_content, server.url)
    paths = sorted((scanned_content / "errors").rglob("*.yaml"))
    reviewed_id = json.loads(json.dumps(data_of(paths[1]).get("id") or "")) or _id_of(
        run, scanned_content, paths[1]
    )
    assert run("review", reviewed_id, "--content", scanned_content).code == 0
    for path in paths[:2]:
        # As pin does when the code moved on: the excerpt is another now.
        path.write_text(path.read_text().replace("self.block_size = block_size", "pass"))
    out = tmp_path / "public"
    assert run("build", "--content", scanned_content, "--out", out).code == 0
    stale = [
        p for p in (out / "errors").glob("*/index.html") if soup(p).select_one(".notice.stale")
    ]
    assert len(stale) == 2
    before = paths[1].read_text()
    with fake_llm.serving(fake_llm.capable) as server:
        result = draft(run, scanned_content, server.url, "--stale")
        assert server.count == 1
    assert "1 drafted" in result.err
    assert paths[1].read_text() == before  # reviewed: flagged, never rewritten


def test_reviewing_a_stale_draft_checks_it_against_the_code_as_it_is_now(
    run: Any, scanned_content: Path, tmp_path: Path
) -> None:
    with fake_llm.serving(fake_llm.capable) as server:
        draft(run, scanned_content, server.url)
    path = sorted((scanned_content / "errors").rglob("*.yaml"))[0]
    path.write_text(path.read_text().replace("self.block_size = block_size", "pass"))
    record_id = _id_of(run, scanned_content, path)
    out = tmp_path / "public"
    assert run("build", "--content", scanned_content, "--out", out).code == 0
    document = out / "api" / "errors" / f"{record_id}.json"
    assert json.loads(document.read_text())["review"] == {"state": "unreviewed", "stale": True}
    reviewed = run("review", record_id, "--content", scanned_content)
    assert reviewed.code == 0, reviewed.err
    assert "marked reviewed for the code as it is now" in reviewed.err
    assert run("build", "--content", scanned_content, "--out", out).code == 0
    assert json.loads(document.read_text())["review"] == {"state": "reviewed", "stale": False}
    assert soup(out / "errors" / record_id / "index.html").select_one(".notice.stale") is None


def test_force_writes_over_the_field_it_names_and_a_persons_others_stay_theirs(
    run: Any, scanned_content: Path, tmp_path: Path
) -> None:
    path = sorted((scanned_content / "errors").rglob("*.yaml"))[0]
    record_id = _id_of(run, scanned_content, path)
    path.write_text(
        path.read_text()
        + "meaning: |\n  A person's first words.\nsolutions:\n- A person's own fix.\n"
    )
    with fake_llm.serving(fake_llm.capable) as server:
        forced = draft(run, scanned_content, server.url, "--only", record_id, "--force", "meaning")
    assert forced.code == 0 and "1 drafted" in forced.err, forced.err
    data = data_of(path)
    assert data["meaning"].startswith("The code raises")
    assert data["solutions"] == ["A person's own fix."]
    # The record holds a person's words beside the model's: an edited draft, not the
    # model's own, on the page and in the JSON.
    out = tmp_path / "public"
    assert run("build", "--content", scanned_content, "--out", out).code == 0
    document = json.loads((out / "api" / "errors" / f"{record_id}.json").read_text())
    assert document["review"] == {"state": "edited", "stale": False}
    notice = soup(out / "errors" / record_id / "index.html").select_one(".notice.draft")
    assert "edited by a person" in notice.get_text()
    # Neither a redraft of stale drafts nor a rejection takes the person's fix out.
    path.write_text(path.read_text().replace("self.block_size = block_size", "pass"))
    before = path.read_text()
    with fake_llm.serving(fake_llm.capable) as server:
        draft(run, scanned_content, server.url, "--stale")
    assert path.read_text() == before
    rejected = run("review", "--reject", record_id, "--content", scanned_content)
    assert rejected.code == 1 and "a person has edited its draft" in rejected.err
    assert path.read_text() == before


def test_prose_a_person_writes_after_a_rejection_is_not_credited_to_the_model(
    run: Any, scanned_content: Path, tmp_path: Path
) -> None:
    with fake_llm.serving(fake_llm.capable) as server:
        draft(run, scanned_content, server.url)
    path = sorted((scanned_content / "errors").rglob("*.yaml"))[0]
    record_id = _id_of(run, scanned_content, path)
    assert run("review", "--reject", record_id, "--content", scanned_content).code == 0
    path.write_text(path.read_text() + "meaning: A person's own words, after all.\n")
    out = tmp_path / "public"
    assert run("build", "--content", scanned_content, "--out", out).code == 0
    page = soup(out / "errors" / record_id / "index.html")
    assert "A person's own words" in page.select_one("#meaning").find_next("p").get_text()
    facts = json.loads(page.select_one('script[type="application/ld+json"]').string)
    assert "author" not in facts and "AI-assisted" not in page.get_text()


def test_stale_drafts_only_the_drafts_whose_code_changed(run: Any, scanned_content: Path) -> None:
    with fake_llm.serving(fake_llm.capable) as server:
        draft(run, scanned_content, server.url, "--limit", "4")  # one record left without
    drafted = [
        p for p in sorted((scanned_content / "errors").rglob("*.yaml")) if "analysis" in data_of(p)
    ]
    assert len(drafted) == 4
    path = next(p for p in drafted if "self.block_size = block_size" in p.read_text())
    path.write_text(path.read_text().replace("self.block_size = block_size", "pass"))
    with fake_llm.serving(fake_llm.capable) as server:
        said = draft(run, scanned_content, server.url, "--stale", "--dry-run")
        assert server.count == 0
    assert "would draft 1 record(s)" in said.err, said.err


def test_a_page_instead_of_a_chat_completion_says_where_to_look(
    run: Any, scanned_content: Path
) -> None:
    page = b"<!doctype html><title>Welcome</title><p>The model's web page."
    reply = fake_llm.Reply(body=page, headers={"content-type": "text/html"})
    with fake_llm.serving(fake_llm.fixed(reply)) as server:
        result = draft(run, scanned_content, server.url, "--limit", "1")
    assert result.code == 1 and "0 drafted, 0 refused, 1 failed" in result.err
    assert "not a chat completion (is --base-url the API's address" in result.err, result.err


def test_an_only_id_no_record_has_is_named_and_nothing_is_asked(
    run: Any, scanned_content: Path
) -> None:
    with fake_llm.serving(fake_llm.capable) as server:
        result = draft(run, scanned_content, server.url, "--only", "deadbeefdeadbeef")
        assert server.count == 0
    assert result.code == 1
    assert "errdex draft: --only deadbeefdeadbeef: no record has this id" in result.err


def test_a_draft_edited_after_its_review_is_never_taken_out_by_reject(
    run: Any, scanned_content: Path
) -> None:
    with fake_llm.serving(fake_llm.capable) as server:
        draft(run, scanned_content, server.url)
    path = sorted((scanned_content / "errors").rglob("*.yaml"))[0]
    record_id = _id_of(run, scanned_content, path)
    assert run("review", record_id, "--content", scanned_content).code == 0
    data = data_of(path)
    edited = path.read_text().replace(data["solutions"][0], "A person's better fix.")
    path.write_text(edited)
    rejected = run("review", "--reject", record_id, "--content", scanned_content)
    assert rejected.code == 1 and "a person has edited its draft" in rejected.err
    assert path.read_text() == edited


def _id_of(run: Any, content: Path, path: Path) -> str:
    out = content.parent / "ids"
    assert run("build", "--content", content, "--out", out).code == 0
    for document in (out / "api" / "errors").glob("*.json"):
        data = json.loads(document.read_text())
        if data.get("source", {}).get("line") == data_of(path)["source"]["line"]:
            return str(data["id"])
    raise AssertionError(path)


@pytest.mark.parametrize("publish", ["noindex", "hide"])
def test_the_site_says_how_unreviewed_drafts_are_published(
    run: Any, scanned_content: Path, tmp_path: Path, publish: str
) -> None:
    with fake_llm.serving(fake_llm.capable) as server:
        draft(run, scanned_content, server.url)
    site = scanned_content / "site.yaml"
    site.write_text(site.read_text() + f"drafts:\n  publish: {publish}\n")
    out = tmp_path / "public"
    assert run("build", "--content", scanned_content, "--out", out).code == 0
    ids = [e["id"] for e in json.loads((out / "api" / "errors.json").read_text())["errors"]]
    sitemap = (out / "sitemap.xml").read_text()
    for record_id in ids:
        page = soup(out / "errors" / record_id / "index.html")
        document = json.loads((out / "api" / "errors" / f"{record_id}.json").read_text())
        if publish == "noindex":
            assert page.find("meta", attrs={"name": "robots", "content": "noindex"})
            assert f"errors/{record_id}/" not in sitemap
            assert page.select_one("#meaning") is not None
        else:
            assert page.select_one("#meaning") is None
            assert "meaning" not in document and "analysis" not in document
            assert f"errors/{record_id}/" in sitemap


def test_killed_half_way_loses_no_finished_draft_and_goes_on_where_it_stopped(
    tmp_path: Path,
) -> None:
    content = scanned(tmp_path, count=20)  # 100 records
    env = {**os.environ, "OPENAI_API_KEY": "none", "PYTHONPATH": str(ROOT)}
    argv = [
        sys.executable,
        "-m",
        "errdex",
        "draft",
        "--content",
        str(content),
        "--model",
        "fake",
        "--cache",
        str(tmp_path / "cache"),
        "--jobs",
        "4",
    ]
    with fake_llm.serving(fake_llm.slow(0.05)) as server:
        child = subprocess.Popen(
            [*argv, "--base-url", server.url], env=env, cwd=tmp_path, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 30
        while server.count < 30 and time.monotonic() < deadline:
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
        child.wait()
        asked_first = _settled(server)
        drafted = [p for p in (content / "errors").rglob("*.yaml") if "meaning:" in p.read_text()]
        assert 0 < len(drafted) < 100
        for path in (content / "errors").rglob("*.yaml"):
            yaml.safe_load(path.read_text())  # every file whole
        second = subprocess.run(
            [*argv, "--base-url", server.url], env=env, cwd=tmp_path, capture_output=True
        )
        assert second.returncode == 0, second.stderr
        # Only the records not drafted were asked for: those in flight at the kill again,
        # save answers the cache kept just before the kill.
        asked_second = server.count - asked_first
        cached = int(second.stderr.decode().rsplit(" request(s), ", 1)[1].split()[0])
        assert asked_second + cached == 100 - len(drafted)
        assert cached <= 4
        third = subprocess.run(
            [*argv, "--base-url", server.url], env=env, cwd=tmp_path, capture_output=True
        )
        assert server.count == asked_first + asked_second
    assert b"no record needs a draft" in third.stderr
    assert all("meaning:" in p.read_text() for p in (content / "errors").rglob("*.yaml"))


def test_hostile_markup_in_a_drafted_field_never_reaches_a_page(
    run: Any, scanned_content: Path, tmp_path: Path
) -> None:
    # Grounding refuses HTML; a person's later edit with HTML is rendered inert as ever.
    with fake_llm.serving(fake_llm.answered(HOSTILE)) as server:
        draft(run, scanned_content, server.url)
    out = tmp_path / "public"
    assert run("build", "--content", scanned_content, "--out", out).code == 0
    for page in (out / "errors").glob("*/index.html"):
        assert "<script>alert(1)" not in page.read_text()


def test_stale_drafts_are_drafted_again_whole_and_read_as_unreviewed(
    run: Any, scanned_content: Path, tmp_path: Path
) -> None:
    with fake_llm.serving(fake_llm.capable) as server:
        draft(run, scanned_content, server.url)
    path = next(
        p
        for p in (scanned_content / "errors").rglob("*.yaml")
        if "divisible" in data_of(p)["message"]
    )
    path.write_text(path.read_text().replace("self.block_size = block_size", "pass"))
    other = {
        **HOSTILE,
        "meaning": "A second answer.",
        "trigger": "When `block_size` is off.",
        "situations": "Always.",
        "solutions": ["Make `block_size` divisible by `num_heads`."],
        "example_fix": [],
    }
    with fake_llm.serving(fake_llm.answered(other)) as server:
        result = draft(run, scanned_content, server.url, "--stale")
        assert server.count == 1
    assert "1 drafted" in result.err, result.err
    data = data_of(path)
    assert data["meaning"] == "A second answer." and data["when"]["situations"] == "Always."
    out = tmp_path / "public"
    assert run("build", "--content", scanned_content, "--out", out).code == 0
    document = next(
        json.loads(p.read_text())
        for p in (out / "api" / "errors").glob("*.json")
        if "A second answer." in p.read_text()
    )
    assert document["review"] == {"state": "unreviewed", "stale": False}


def test_a_record_edited_while_the_run_goes_on_is_left_alone(
    run: Any, scanned_content: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from errdex.source import draft as drafting

    path = sorted((scanned_content / "errors").rglob("*.yaml"))[0]
    real = drafting._still

    def person_writes_first(at: Path, prose: Any) -> str | None:
        if at.resolve() == path.resolve():
            at.write_text(at.read_text() + "meaning: Written by a person meanwhile.\n")
        return real(at, prose)

    monkeypatch.setattr(drafting, "_still", person_writes_first)
    with fake_llm.serving(fake_llm.capable) as server:
        result = draft(run, scanned_content, server.url)
    assert "changed while the run went on; left alone" in result.err
    assert data_of(path)["meaning"] == "Written by a person meanwhile."
    assert "analysis" not in data_of(path)


@pytest.mark.parametrize(
    "body",
    [
        b"<html><body>502 Bad Gateway from a proxy</body></html>",
        b"\xff\xfe not utf-8 \x80",
        b"[" * 100_000,
    ],
)
def test_an_answer_the_client_cannot_read_fails_that_draft_without_a_traceback(
    run: Any, scanned_content: Path, body: bytes
) -> None:
    with fake_llm.serving(fake_llm.fixed(fake_llm.Reply(200, body=body))) as server:
        result = draft(run, scanned_content, server.url, "--limit", "2")
    assert result.code == 1
    assert "0 drafted, 0 refused, 2 failed" in result.err
    assert "Traceback" not in result.err


def test_an_answer_with_half_a_surrogate_pair_is_kept_and_refused_cleanly(
    run: Any, scanned_content: Path, tmp_path: Path
) -> None:
    rejected = tmp_path / "rejected.json"
    text = json.dumps({**HOSTILE, "meaning": "half \ud800 pair"})
    with fake_llm.serving(fake_llm.content(text)) as server:
        result = draft(
            run, scanned_content, server.url, "--limit", "1", "--keep-rejected", rejected
        )
    assert result.code == 0, result.err
    assert "1 refused" in result.err
    assert json.loads(rejected.read_text())[0]["reasons"]


@pytest.mark.parametrize("where", ["missing/rejected.json", "."])
def test_a_keep_rejected_path_that_cannot_be_written_is_said_before_any_request(
    run: Any, scanned_content: Path, tmp_path: Path, where: str
) -> None:
    with fake_llm.serving(fake_llm.capable) as server:
        result = draft(run, scanned_content, server.url, "--keep-rejected", tmp_path / where)
        assert server.count == 0
    assert result.code == 1
    assert "--keep-rejected" in result.err and "not a file in a folder" in result.err


def test_review_refuses_a_rejected_draft(run: Any, scanned_content: Path) -> None:
    with fake_llm.serving(fake_llm.capable) as server:
        draft(run, scanned_content, server.url, "--limit", "1")
    shown = run("review", "--next", "--content", scanned_content).out
    record_id = shown.split("(", 1)[1].split(")", 1)[0]
    assert run("review", "--reject", record_id, "--content", scanned_content).code == 0
    again = run("review", record_id, "--content", scanned_content)
    assert again.code == 1
    assert "its draft was rejected" in again.err


@pytest.mark.parametrize("publish", ["noindex", "hide"])
def test_an_update_after_a_review_gives_what_a_full_build_gives(
    run: Any, scanned_content: Path, tmp_path: Path, publish: str
) -> None:
    from conftest import snapshot

    with fake_llm.serving(fake_llm.capable) as server:
        draft(run, scanned_content, server.url)
    site = scanned_content / "site.yaml"
    site.write_text(site.read_text() + f"drafts:\n  publish: {publish}\n")
    out, cache = tmp_path / "public", tmp_path / "build-cache"
    build = ["build", "--content", scanned_content, "--out", out, "--cache", cache]
    assert run(*build).code == 0
    record_id = (
        run("review", "--next", "--content", scanned_content).out.split("(", 1)[1].split(")")[0]
    )
    assert run("review", record_id, "--content", scanned_content).code == 0
    assert run(*build).code == 0
    fresh = tmp_path / "fresh"
    assert run("build", "--content", scanned_content, "--out", fresh, "--no-cache").code == 0
    updated = {k: v for k, (v, _) in snapshot(out).items() if k != ".errdex-site"}
    whole = {k: v for k, (v, _) in snapshot(fresh).items() if k != ".errdex-site"}
    assert sorted(updated) == sorted(whole)
    assert [k for k in whole if updated[k] != whole[k]] == []
    reviewed = f"errors/{record_id}/"
    sitemap = (out / "sitemap.xml").read_text()
    assert reviewed in sitemap


def test_hidden_drafts_are_nowhere_on_the_site(
    run: Any, scanned_content: Path, tmp_path: Path
) -> None:
    answer = {
        "meaning": "Raised when `block_size` and `num_heads` disagree.",
        "trigger": "A `block_size` the heads do not divide.",
        "situations": "Changing `num_heads` alone.",
        "solutions": ["Make `block_size` divisible by `num_heads` (`--block-size`)."],
        "example_fix": [],
    }
    with fake_llm.serving(fake_llm.answered(answer)) as server:
        draft(run, scanned_content, server.url)
    site = scanned_content / "site.yaml"
    site.write_text(site.read_text() + "drafts:\n  publish: hide\n")
    out = tmp_path / "public"
    assert run("build", "--content", scanned_content, "--out", out).code == 0
    for page in out.rglob("*"):
        if page.is_file() and page.suffix in ("", ".html", ".xml", ".json"):
            text = page.read_text(errors="replace")
            assert "the heads do not divide" not in text, page
            assert "AI-assisted" not in text or page.name == "schema.json", page
    # The flag only the hidden prose spells is nowhere either.
    assert all("--block-size" not in p.read_text(errors="replace") for p in out.rglob("*.html"))
    assert "0 analysed" in (out / "index.html").read_text()


@pytest.fixture(autouse=True)
def _no_real_key(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("OPENAI_API_KEY", "none")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    yield


def _settled(server: fake_llm.Server) -> int:
    """The server's count of requests once no more arrive: a request the killed process
    sent just before it died may reach the server's thread a moment later."""
    count, quiet_since = server.count, time.monotonic()
    while time.monotonic() - quiet_since < 0.3:
        time.sleep(0.05)
        if server.count != count:
            count, quiet_since = server.count, time.monotonic()
    return count


def test_review_finds_a_record_by_the_id_its_file_is_named_after(
    run: Any, scanned_content: Path
) -> None:
    """A record's file keeps the id it was made under (``new`` and ``scan`` name it so);
    a message edited since gives the record another id. ``review`` given the file's name
    finds the record, and says which id it has now."""
    with fake_llm.serving(fake_llm.capable) as server:
        draft(run, scanned_content, server.url, "--limit", "1")
    shown = run("review", "--next", "--content", scanned_content).out
    record_id = shown.split("(", 1)[1].split(")", 1)[0]
    (path,) = [p for p in (scanned_content / "errors").rglob(f"{record_id}.yaml")]
    data = data_of(path)
    path.write_text(path.read_text().replace(data["message"], data["message"] + " (edited)", 1))
    assert "id" not in data  # scan states none: the id follows the message
    now = derive_id(data["repo"], data["exception"], data["message"] + " (edited)")
    assert now in run_ids(run, scanned_content) and record_id not in run_ids(run, scanned_content)
    marked = run("review", record_id, "--content", scanned_content)
    assert marked.code == 0, marked.err
    assert f"{record_id} is " in marked.err and f"{path.name}, whose id is {now}" in marked.err
    assert "marked reviewed" in marked.err
    assert run("review", "0123456789abcdef", "--content", scanned_content).code == 1
    # The path new printed finds it too, and -q leaves out the note.
    quiet = run("review", str(path), "--content", scanned_content, "-q")
    assert quiet.code == 0 and quiet.err == "", quiet.err
    # A path to no record file is no record, though a file elsewhere has its name.
    elsewhere = path.parent.parent / "nowhere" / path.name
    assert run("review", str(elsewhere), "--content", scanned_content).code == 1
    # A name two files share names neither: review refuses it and lists them.
    twin = scanned_content / "errors" / "elsewhere" / path.name
    twin.parent.mkdir()
    text = path.read_text().replace(data["message"], "another error altogether", 1)
    twin.write_text(text)
    both = run("review", record_id, "--content", scanned_content)
    assert both.code == 1
    assert f"{record_id} names 2 files (" in both.err and "give the id of one" in both.err


def test_a_scaffold_left_todo_is_no_record_to_draft(run: Any, tmp_path: Path) -> None:
    """``new``'s TODO prose is left out of the page, not out of what ``draft`` reads: the
    author has the record in hand, and a draft asks no model about it."""
    from conftest import make_content

    content = make_content(tmp_path, {})
    made = run(
        "new",
        "ValueError: The port must be below 65536",
        "--repo",
        "example/engine",
        "--content",
        content,
    )
    assert made.code == 0, made.err
    path = Path(made.out.strip())
    text = path.read_text().replace('commit: ""', 'commit: "abcdef1"')
    path.write_text(text.replace('path: ""', "path: a.py").replace("line: 0", "line: 1"))
    before = path.read_bytes()
    with fake_llm.serving(fake_llm.capable) as server:
        result = draft(run, content, server.url)
        assert server.count == 0
    assert result.code == 0, result.err
    assert "no record needs a draft" in result.err
    assert path.read_bytes() == before
