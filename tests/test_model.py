"""Message templates, short titles and ids: what records turn into."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import least_cpu_time

from errdex.records.model import (
    Part,
    TemplateError,
    derive_id,
    options_in,
    parse_template,
    short_title,
)
from errdex.site.render import message_html


@pytest.mark.parametrize(
    ("source", "parts"),
    [
        (
            "tp_size={tp} must be divisible by dcp_size={dcp}.",
            [
                Part("tp_size="),
                Part("tp", True),
                Part(" must be divisible by dcp_size="),
                Part("dcp", True),
                Part("."),
            ],
        ),
        (
            "valid DCP sizes are {sorted({1, pcp, tp * pcp})}.",
            [Part("valid DCP sizes are "), Part("sorted({1, pcp, tp * pcp})", True), Part(".")],
        ),
        (
            "{kind} parser `{name}` is not registered{}",
            [
                Part("kind", True),
                Part(" parser `"),
                Part("name", True),
                Part("` is not registered"),
                Part("", True),
            ],
        ),
        ("a literal {{brace}} stays", [Part("a literal {brace} stays")]),
        (
            "PCP does not support data parallelism yet.",
            [Part("PCP does not support data parallelism yet.")],
        ),
    ],
)
def test_templates_split_into_literal_text_and_placeholders(source: str, parts: list[Part]) -> None:
    assert list(parse_template(source).parts) == parts


def test_placeholder_names_are_listed_once_in_order() -> None:
    template = parse_template("{a} and {b} and {a} again")
    assert template.names == ("a", "b")
    assert template.display == "{a} and {b} and {a} again"


@pytest.mark.parametrize(
    ("source", "message", "column"),
    [
        ("size={size", "unclosed '{'", 5),
        ("size=size}", "unmatched '}'", 9),
        ("{a} {b", "unclosed '{'", 4),
    ],
)
def test_broken_templates_say_where(source: str, message: str, column: int) -> None:
    with pytest.raises(TemplateError, match=message) as info:
        parse_template(source)
    assert info.value.column == column


def test_short_title_cuts_at_a_word_boundary() -> None:
    message = (
        "Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` "
        "({tensor_parallel_size}) to be greater than the model's total number of KV heads"
    )
    title = short_title(message)
    assert len(title) <= 72
    assert title == "Decode context parallelism for GQA/MQA requires…"
    assert short_title("Short enough.") == "Short enough."


def test_derived_ids_depend_on_repo_exception_and_message_only() -> None:
    message = "tp_size={tp} must be divisible by dcp_size={dcp}."
    # A literal: an id is a page's address, so a derivation that changes moves every
    # page of a site whose records state no id.
    assert derive_id("vllm-project/vllm", "ValueError", message) == "6d978e90b462139e"
    others = {
        derive_id("vllm-project/vllm", "ValueError", message.replace("dcp", "pcp")),
        derive_id("vllm-project/vllm", "ValueError", message + " "),
        derive_id("vllm-project/vllm", "TypeError", message),
        derive_id("other/repo", "ValueError", message),
    }
    assert len(others) == 4 and "6d978e90b462139e" not in others


@pytest.mark.parametrize(
    "value",
    ["0", "7", "528", "012", "0x1f", "0o17", "1_000", "+3", "-4", "1:30", "99999999999999999999"],
)
def test_yaml_integers_read_as_yaml_reads_them(value: str, tmp_path: Path) -> None:
    """Line numbers take a quick way past the YAML constructor: the same values, and an
    octal ``012`` or a ``1_000`` still read as YAML 1.1 reads them."""
    import yaml

    from errdex.records.load import parse_yaml

    doc, problems = parse_yaml(f"line: {value}\n", "x.yaml", tmp_path / "x.yaml")
    assert not problems and doc is not None
    expected = yaml.safe_load(f"line: {value}\n")["line"]
    assert doc.data["line"] == expected and type(doc.data["line"]) is type(expected)


def test_a_message_of_many_placeholders_renders_in_time_linear_in_its_length() -> None:
    small = parse_template("{b} " * 10_000)
    large = parse_template("{b} " * 40_000)
    ratio = least_cpu_time(lambda: message_html(large), 5) / least_cpu_time(
        lambda: message_html(small), 5
    )
    # Four times the placeholders: a quadratic join took sixteen times as long and more.
    assert ratio < 10, ratio


def test_the_message_marks_each_placeholder_and_escapes_the_rest() -> None:
    html = str(message_html(parse_template("a <b> & {name} {{x}}")))
    assert html == "a &lt;b&gt; &amp; <var class=ph>{name}</var> {x}"


def test_a_message_is_shown_without_the_blanks_at_its_ends() -> None:
    """scikit-learn's "\\nAll the {n} fits failed.\\n…" started its page's heading with an
    empty line: the heading keeps the message's line breaks (pre-wrap)."""
    html = str(message_html(parse_template("\nAll the {n} fits failed.\n")))
    assert html == "All the <var class=ph>{n}</var> fits failed."
    assert str(message_html(parse_template("{n} fits failed. \n"))) == (
        "<var class=ph>{n}</var> fits failed."
    )
    assert str(message_html("  an earlier wording {unclosed\n")) == "an earlier wording {unclosed"


def test_source_lines_end_where_python_and_github_end_them() -> None:
    from errdex.records.model import source_lines

    assert source_lines("a\nb\n") == ["a", "b"]
    assert source_lines("a\r\nb\rc\n\nd") == ["a", "b", "c", "", "d"]
    # A form feed, NEL or U+2028 ends no line: the lines after it keep their numbers.
    assert source_lines("a\x0cb\x85c\u2028d\ne") == ["a\x0cb\x85c\u2028d", "e"]
    assert source_lines("") == []


@pytest.mark.parametrize(
    ("message", "prose", "keys"),
    [
        # An install command names pip's flags and packages, no option of the project.
        (
            "`max_retries` is too low. Try `pip install -U fast_fetch --no-build-isolation`.",
            (),
            ["max_retries"],
        ),
        ("Run pip install --upgrade fast_fetch to get `chunk_size`", (), ["chunk_size"]),
        ("pip install fast_fetch, then set max_retries", (), ["max_retries"]),
        ("pip install fast_fetch (or set use_slow_path=True)", (), ["use_slow_path"]),
        ("pip install fast_fetch if you need chunk_size", (), ["chunk_size"]),
        ("x", ("Run pip install -U fast_fetch", "Pass --chunk-size 8 instead"), ["chunk_size"]),
        ("Pip install 'fast_fetch[gpu]>=1.2.0' --no-deps --upgrade", (), []),
        (
            "`chunk_size` must be set",
            ("Run `uv pip install fast_fetch`, set `--chunk-size`",),
            ["chunk_size"],
        ),
        # The project's own package is no option either, but a flag of its name is one.
        ("fetch_hub cannot reach the hub: check `hub_url`", (), ["hub_url"]),
        ("--fetch-hub needs --hub-url", (), ["fetch_hub", "hub_url"]),
    ],
)
def test_options_are_the_projects_settings_not_installs_nor_its_package(
    message: str, prose: tuple[str, ...], keys: list[str]
) -> None:
    found = options_in(parse_template(message), prose, "example/fetch-hub")
    assert sorted({key for key, _, _ in found}) == keys
