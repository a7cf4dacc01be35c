"""pin and scan against careless records and record files in any YAML style.

- Records whose fields pin and scan read are missing or of the wrong type are reported at
  their line and left alone; the rest of the run goes on.
- Rewriting a record file changes only the blocks pin owns; a file whose style cannot be
  rewritten safely is reported and left as it was, never written broken.
"""

from __future__ import annotations

import codecs
import re
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import SITE_YAML
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errdex.records import load
from errdex.records.model import derive_id
from errdex.source import update

REPO = "example/up"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
NEXT = "89abcdef0123456789abcdef0123456789abcdef"

CODE = """\
def check(size):
    if size <= 0:
        raise ValueError(f"size={size} must be positive")


def other(name):
    raise KeyError(f"no option {name}")
"""

SETTINGS = settings(
    max_examples=100,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def content_with(root: Path, records: dict[str, str]) -> Path:
    content = root / "content"
    folder = content / "errors" / "example" / "up"
    folder.mkdir(parents=True)
    (content / "site.yaml").write_text(SITE_YAML)
    for name, text in records.items():
        (folder / name).write_text(textwrap.dedent(text))
    return content


def source_tree(root: Path, code: str = CODE) -> Path:
    tree = root / "src"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "config.py").write_text(code)
    return tree


def record_text(**overrides: str) -> str:
    fields = {
        "repo": REPO,
        "exception": "ValueError",
        "message": '"size={size} must be positive"',
        "commit": f'"{COMMIT}"',
        "path": "pkg/config.py",
        "line": "3",
    }
    fields.update(overrides)
    head = "".join(f"{k}: {fields[k]}\n" for k in ("repo", "exception", "message") if fields[k])
    return (
        head
        + "source:\n"
        + f"  commit: {fields['commit']}\n  path: {fields['path']}\n  line: {fields['line']}\n"
        + "meaning: Written by a person.\n"
    )


def build_ok(run, content: Path, out: Path) -> None:  # type: ignore[no-untyped-def]
    result = run("build", "--content", content, "--out", out, "--cache", out.parent / "cache")
    assert result.code == 0, result.err


# --- 13. Careless records are reported at their line and left alone -----------------------

CARELESS = {
    # The line of a raise written as text.
    "quoted-line.yaml": (record_text(line='"2"'), 7, "source.line must be a whole number"),
    # Half written: no exception yet.
    "half.yaml": (record_text(exception=""), 1, "missing required field 'exception'"),
    "no-source.yaml": (
        f"repo: {REPO}\nexception: KeyError\nmessage: no option {{name}}\n",
        1,
        "missing required field 'source'",
    ),
    "source-text.yaml": (
        f"repo: {REPO}\nexception: KeyError\nmessage: m\nsource: pkg/config.py\n",
        4,
        "source must be a mapping of fields",
    ),
    "bad-id.yaml": ("id: 12\n" + record_text(), 1, "id must be text"),
    # A path that leads out of the source tree is never read.
    "outside.yaml": (
        record_text(path="../secret.py", line="1"),
        6,
        "source.path has an empty, '.' or '..' part",
    ),
    "absolute.yaml": (
        record_text(path="/etc/secret.py", line="1"),
        6,
        "source.path must be relative to the repository",
    ),
    "a-list.yaml": ("- repo: example/up\n", 1, "the file must be a mapping of fields"),
}


@pytest.mark.parametrize("command", ["pin", "scan"])
def test_careless_records_are_reported_at_their_line_and_left_alone(
    run,
    tmp_path: Path,
    command: str,  # type: ignore[no-untyped-def]
) -> None:
    records = {name: text for name, (text, _, _) in CARELESS.items()}
    records["good.yaml"] = record_text(line="2")  # moved to line 3
    content = content_with(tmp_path, records)
    (tmp_path / "secret.py").write_text('raise ValueError("size={size} must be positive")\n')
    tree = source_tree(tmp_path)
    folder = content / "errors" / "example" / "up"
    before = {name: (folder / name).read_bytes() for name in CARELESS}

    result = run(command, tree, "--repo", REPO, "--commit", NEXT, "--content", content)

    assert result.code == 0, result.err
    for name, (_, line, message) in CARELESS.items():
        shown = f"skipped: {folder / name}:{line}: {message}"
        assert any(
            row.startswith(shown) and row.endswith("; left alone")
            for row in result.err.splitlines()
        ), (shown, result.err)
        assert (folder / name).read_bytes() == before[name]
    good = yaml.safe_load((folder / "good.yaml").read_text())
    assert good["source"]["line"] == 3
    assert good["source"]["commit"] == NEXT
    assert good["meaning"] == "Written by a person."
    assert "Traceback" not in result.err


def test_scan_never_writes_over_a_record_file_it_cannot_read(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # A half-written record under the very name scan gives the record of that raise.
    record_id = derive_id(REPO, "ValueError", "size={size} must be positive")
    half = f"repo: {REPO}\nmessage: size={{size}} must be positive\nmeaning: Draft by a person.\n"
    content = content_with(tmp_path, {f"{record_id}.yaml": half})
    path = content / "errors" / "example" / "up" / f"{record_id}.yaml"
    tree = source_tree(tmp_path)

    for dry in (["--dry-run"], []):
        result = run("scan", tree, "--repo", REPO, "--commit", NEXT, "--content", content, *dry)
        assert result.code == 0, result.err
        assert path.read_text() == half
        assert f"{path}:1: missing required field 'exception'" in result.err
        assert f"skipped: {path}: " in result.err  # the new record is not written over it
        assert "1 new" in result.err  # the other raise of the file


@pytest.mark.parametrize("command", ["scan", "pin", "new"])
def test_a_repo_whose_records_would_not_build_is_refused(
    run,
    tmp_path: Path,
    command: str,  # type: ignore[no-untyped-def]
) -> None:
    content = content_with(tmp_path, {})
    tree = source_tree(tmp_path)
    repo = "o" * 40 + "/up"  # GitHub owners have at most 39 characters
    where = ["ValueError: x"] if command == "new" else [tree, "--commit", NEXT]
    result = run(command, *where, "--repo", repo, "--content", content)
    assert result.code == 1
    assert "is longer than 39 bytes" in result.err
    assert list(content.rglob("*.yaml")) == [content / "site.yaml"]


# --- 14. Rewriting a record file keeps it whole -------------------------------------------

REWORDED = CODE.replace("size={size} must be positive", "size={size} must be above zero")


def test_pin_writes_an_id_below_the_document_marker(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = "# Kept by hand.\n---\n" + record_text()
    content = content_with(tmp_path, {"marked.yaml": text})
    tree = source_tree(tmp_path, REWORDED)
    result = run("pin", tree, "--repo", REPO, "--commit", NEXT, "--content", content)
    assert "1 reworded" in result.err, result.err
    written = (content / "errors" / "example" / "up" / "marked.yaml").read_text()
    assert written.startswith("# Kept by hand.\n---\nid: ")
    data = yaml.safe_load(written)
    assert data["id"] == derive_id(REPO, "ValueError", "size={size} must be above zero")
    assert data["aliases"] == [derive_id(REPO, "ValueError", "size={size} must be positive")]
    assert data["message"] == "size={size} must be above zero"
    build_ok(run, content, tmp_path / "public")


@pytest.mark.parametrize(
    "key", ['"source"', "'source'", '"sou\\x72ce"', "? source\n"], ids=["dq", "sq", "esc", "?"]
)
def test_pin_rewrites_a_quoted_key_in_place(run, tmp_path: Path, key: str) -> None:  # type: ignore[no-untyped-def]
    text = record_text().replace("source:", key + ":")
    content = content_with(tmp_path, {"quoted.yaml": text})
    tree = source_tree(tmp_path)
    result = run("pin", tree, "--repo", REPO, "--commit", NEXT, "--content", content)
    assert "1 unchanged, 0 moved" in result.err, result.err
    path = content / "errors" / "example" / "up" / "quoted.yaml"
    doc, problems = load.load_file(path)
    assert problems == []
    assert doc is not None and doc.data["source"]["commit"] == NEXT
    assert doc.data["meaning"] == "Written by a person."
    build_ok(run, content, tmp_path / "public")


def test_a_record_written_as_one_flow_mapping_is_reported_and_left_alone(
    run,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    text = (
        f'{{repo: {REPO}, exception: ValueError, message: "size={{size}} must be positive",\n'
        f' source: {{commit: "{COMMIT}", path: pkg/config.py, line: 2}}}}\n'
    )
    content = content_with(tmp_path, {"flow.yaml": text})
    path = content / "errors" / "example" / "up" / "flow.yaml"
    tree = source_tree(tmp_path)
    for dry in (["--dry-run"], []):
        result = run("pin", tree, "--repo", REPO, "--commit", NEXT, "--content", content, *dry)
        assert result.code == 0
        assert f"skipped: {path}:1: is written as one flow mapping" in result.err
        assert "0 moved" in result.err and "1 skipped" in result.err
        assert path.read_text() == text


# Record files in the styles YAML allows, with what a rewrite must keep.

_WORDS = st.text(st.sampled_from("abcxyz {}:#'\"-_/.0123456789é→"), min_size=1, max_size=30)
_LINES = st.lists(
    st.text(st.sampled_from("ab #:'\"{}-"), max_size=12).map(str.rstrip), min_size=1, max_size=4
)


@st.composite
def excerpts(draw: st.DrawFn) -> dict[str, Any]:
    lines = draw(_LINES)
    ending = draw(st.sampled_from(["\n", "\n\n", "", "\n\n\n"]))
    return {"start": draw(st.integers(1, 50)), "code": "\n".join(lines) + ending}


@st.composite
def sources(draw: st.DrawFn) -> dict[str, Any]:
    source: dict[str, Any] = {
        "commit": draw(st.sampled_from([COMMIT, "0123456", "1234567"])),
        "path": draw(st.sampled_from(["pkg/config.py", "a b/c.py", "x.py"])),
        "line": draw(st.integers(1, 60)),
    }
    if draw(st.booleans()):
        source["function"] = draw(st.sampled_from(["check", "Config.check"]))
    if draw(st.booleans()):
        source["excerpt"] = draw(excerpts())
    return source


@st.composite
def scalars(draw: st.DrawFn, value: str) -> str:
    """A text value as YAML: plain, quoted, or a block scalar that reads back the same."""
    style = draw(st.sampled_from(["", "'", '"']))
    return (
        yaml.dump(value, default_style=style or None, allow_unicode=True, width=1000)
        .split("\n...", 1)[0]
        .rstrip("\n")
        + "\n"
    )


@st.composite
def keys(draw: st.DrawFn, name: str) -> str:
    style = draw(st.sampled_from(["plain", "plain", "dq", "sq", "escaped"]))
    return {
        "plain": name,
        "dq": f'"{name}"',
        "sq": f"'{name}'",
        "escaped": '"' + "".join(f"\\x{ord(c):02x}" if c in "eo" else c for c in name) + '"',
    }[style]


@st.composite
def record_files(draw: st.DrawFn) -> tuple[str, dict[str, Any], list[str], bool]:
    """A record file's text in a drawn style, its data, the top-level comments it holds,
    and whether it is one flow mapping (which pin must refuse to rewrite)."""
    data: dict[str, Any] = {}
    if draw(st.booleans()):
        data["id"] = draw(st.sampled_from(["0123456789abcdef", "1234567890123456"]))
    data.update(repo=REPO, exception="ValueError", message=draw(_WORDS))
    data["source"] = draw(sources())
    data["meaning"] = draw(_WORDS) + "\n" + draw(_WORDS)
    if draw(st.booleans()):
        data["solutions"] = draw(st.lists(_WORDS, min_size=1, max_size=3))
    if draw(st.booleans()):
        data["when"] = {"trigger": draw(_WORDS)}
    order = draw(st.permutations(list(data)))
    data = {k: data[k] for k in order}
    if draw(st.integers(0, 9)) == 0:
        text = yaml.dump(data, default_flow_style=True, allow_unicode=True, width=60)
        return text, data, [], True

    indent = draw(st.sampled_from([0, 0, 2]))
    nested = draw(st.sampled_from([2, 4]))
    comments: list[str] = []
    parts: list[str] = []
    for number, (key, value) in enumerate(data.items()):
        if draw(st.integers(0, 3)) == 0:
            comment = f"# note {number}: {{keep}} 'me'"
            comments.append(comment)
            parts.append(comment + "\n")
        if draw(st.integers(0, 4)) == 0:
            parts.append("\n")
        name = draw(keys(key))
        if isinstance(value, str) and draw(st.integers(0, 4)) == 0 and key != "meaning":
            parts.append(f"? {name}\n: {draw(scalars(value))}")  # an explicit key
        elif key == "meaning":
            style = draw(st.sampled_from(["|", "|-", "plain"]))
            if style == "plain" or value != value.strip():
                parts.append(f"{name}: {draw(scalars(value))}")
            else:
                # "|" keeps the last line break, "|-" strips it.
                data[key] = value + "\n" if style == "|" else value
                parts.append(f"{name}: {style}\n" + textwrap.indent(value + "\n", "  "))
        elif isinstance(value, (dict, list)):
            flow = draw(st.integers(0, 3)) == 0
            dumped = yaml.dump(
                value,
                default_flow_style=flow,
                allow_unicode=True,
                indent=nested,
                width=1000,
                sort_keys=False,
            )
            if flow:
                parts.append(f"{name}: {dumped}")
            else:
                inner = textwrap.indent(dumped, " " * nested)
                if draw(st.booleans()):  # a comment inside the block goes with it
                    inner += " " * nested + "# inside\n"
                parts.append(f"{name}:\n{inner}")
        else:
            tail = "  # a trailing comment\n" if draw(st.integers(0, 3)) == 0 else "\n"
            parts.append(f"{name}: {draw(scalars(value)).rstrip(chr(10))}{tail}")
    body = textwrap.indent("".join(parts), " " * indent)
    head = draw(st.sampled_from(["", "---\n", "--- # the record\n", "%YAML 1.1\n---\n"]))
    if head and draw(st.booleans()):
        head = "# yaml-language-server: $schema=../x.json\n" + head
    tail = draw(st.sampled_from(["", "", "...\n", "...\n# after the end\n", "# the end\n"]))
    if tail.startswith("# "):
        comments.append(tail.strip())
    return head + body + tail, data, comments, False


@st.composite
def rewrites(draw: st.DrawFn, data: dict[str, Any]) -> dict[str, Any]:
    kind = draw(st.sampled_from(["source", "reworded", "removed"]))
    if kind == "source":
        return {"source": draw(sources())}
    if kind == "removed":
        return {"source": {**data["source"], "removed_in": NEXT}}
    blocks: dict[str, Any] = {} if "id" in data else {"id": "00000000000000ff"}
    blocks.update(message=draw(_WORDS), source=draw(sources()))
    return blocks


@pytest.mark.parametrize(
    "text",
    [
        "---\n" + record_text(),
        "# Kept.\n---\n" + record_text() + "...\n",
        record_text().replace("source:", '"source":'),
        record_text().replace("meaning:", "\n# Prose below.\nmeaning:"),
    ],
    ids=["marker", "marker-and-end", "quoted-key", "comment"],
)
@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_the_files_of_the_issue_are_rewritten_whole(text: str, newline: str) -> None:
    parsed = yaml.safe_load(text)
    comments = [line for line in text.splitlines() if line.startswith("#")]
    kept = {"commit": NEXT, "path": "x.py", "line": 1, "excerpt": {"start": 1, "code": "a\n\n"}}
    for blocks in ({"id": "00000000000000ff"}, {"source": kept}, {"message": "m", "x": 1}):
        for bom in (False, True):
            check_rewrite(text, parsed, comments, False, blocks, bom, newline)


@SETTINGS
@given(st.data())
def test_rewriting_a_record_file_of_any_style_keeps_the_record(data: Any) -> None:
    text, parsed, comments, flow = data.draw(record_files())
    blocks = data.draw(rewrites(parsed))
    bom = data.draw(st.booleans())
    newline = data.draw(st.sampled_from(["\n", "\r\n"]))
    check_rewrite(text, parsed, comments, flow, blocks, bom, newline)


def check_rewrite(
    text: str,
    parsed: dict[str, Any],
    comments: list[str],
    flow: bool,
    blocks: dict[str, Any],
    bom: bool,
    newline: str,
) -> None:
    assert yaml.safe_load(text) == parsed, "the generator wrote a file that reads otherwise"
    raw = (codecs.BOM_UTF8 if bom else b"") + text.replace("\n", newline).encode()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "record.yaml"
        path.write_bytes(raw)
        refused = update.write_blocks(path, blocks)
        after = path.read_bytes()
        if flow:
            assert refused and "is written as one flow mapping" in refused
            assert re.match(rf"{re.escape(str(path))}:\d+: ", refused)
            assert after == raw
            return
        assert refused is None, (refused, text)
        doc, problems = load.load_file(path)
    assert problems == [], (problems, after.decode())
    assert doc is not None and doc.data == {**parsed, **blocks}
    assert after.startswith(codecs.BOM_UTF8) == bom
    if newline == "\r\n":
        assert b"\n" not in after.replace(b"\r\n", b""), "line endings were mixed"
    written = after.decode("utf-8-sig")
    kept = [line.strip() for line in written.splitlines()]
    for comment in comments:
        assert comment in kept, (comment, written)
    if text.startswith(("---", "%", "#")):
        first = text.split("\n", 1)[0]
        assert written.splitlines()[0] == first  # the marker or comment stays on top


def test_an_excerpt_whose_last_line_ends_in_three_dots_is_re_pinned(tmp_path: Path) -> None:
    # "    # input_ids, ..." closed the excerpt of a transformers record: it was taken for
    # YAML's document end marker and cut off, so pin refused to rewrite the file.
    path = tmp_path / "record.yaml"
    path.write_text(record_text())
    code = "    x = f(y)\n    # input_values, input_ids, ...\n"
    moved = {"commit": NEXT, "path": "x.py", "line": 1, "excerpt": {"start": 1, "code": code}}
    assert update.write_blocks(path, {"source": moved}) is None
    assert yaml.safe_load(path.read_text())["source"] == moved
