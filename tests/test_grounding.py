"""Grounding of drafted prose: a draft names only what the code, its docs or the allow-list
has, every reason a draft cannot be published is given, and no draft makes it crash."""

from __future__ import annotations

import copy
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errdex.source.grounding import DEFAULT_ALLOWED, LIMITS, Known, known_from, refusals

CONFIG = """\
from dataclasses import dataclass


@dataclass(frozen=True)
class CacheConfig:
    block_size: int = 16
    max_num_seqs: int = 256
    swap_space: float = 4.0

    def verify(self) -> None:
        if self.block_size % 8:
            raise ValueError(f"block_size={self.block_size} must be a multiple of 8")


def get_config(path: str) -> CacheConfig:
    return CacheConfig()
"""

CLI = """\
import argparse
import os


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="myproj")
    parser.add_argument("--block-size", type=int, default=16)
    parser.add_argument("--enforce-eager", action=argparse.BooleanOptionalAction)
    return parser


DEBUG = os.environ.get("MYPROJ_DEBUG", "0") == "1"
"""

# Syntax of a Python this one cannot parse: read by a regex instead.
BROKEN = """\
def load(:
    shard_loader = open_shards("weights/index.json")
"""

DOCS = "Set `MYPROJ_CACHE_DIR` to move the cache. Serve with `myproj serve --port 8000`.\n"

CODE = [("myproj/config.py", CONFIG), ("myproj/cli.py", CLI), ("myproj/broken.py", BROKEN)]
KNOWN = known_from(CODE, [("docs/usage.md", DOCS)], allowed=["sitetool"])

CLEAN: dict[str, Any] = {
    "meaning": (
        "Each cache block holds `block_size` tokens, and `CacheConfig.verify()` refuses a "
        "size that is not a multiple of 8."
    ),
    "when": {
        "trigger": "Raised by `verify()` when `--block-size` is not a multiple of 8.",
        "situations": (
            "Passing `--block-size 12` to `myproj serve`, or a config from `get_config()` "
            "that sets `block_size=12`."
        ),
    },
    "solutions": [
        "Pass `--block-size 16`, the default.",
        "Set `MYPROJ_DEBUG=1` and read myproj/config.py to see the check.",
        "Reinstall with `pip install --upgrade myproj` if an old copy is imported.",
    ],
    "example_fix": [
        {"lang": "bash", "code": "myproj serve --block-size 16 --port 8000\n"},
        {
            "lang": "python",
            "code": (
                "from myproj.config import CacheConfig\n"
                "\n"
                "config = CacheConfig(block_size=16, max_num_seqs=128)\n"
                "config.verify()\n"
                "sizes = [16, 32]\n"
                'print(f"{sizes.count(16)} of {len(sizes)} sizes fit")\n'
            ),
            "caption": "The same, from Python",
        },
    ],
}

GONE = object()
"""A change that takes the field out."""


def draft(**changes: Any) -> dict[str, Any]:
    """The clean draft with some fields changed; trigger and situations are under when."""
    fields = copy.deepcopy(CLEAN)
    for name, value in changes.items():
        where = fields["when"] if name in ("trigger", "situations") else fields
        if value is GONE:
            del where[name]
        else:
            where[name] = value
    return fields


def reasons(**changes: Any) -> list[str]:
    return refusals(draft(**changes), KNOWN)


def fix(lang: str, code: str) -> list[dict[str, str]]:
    return [{"lang": lang, "code": code}]


def test_a_draft_grounded_in_the_code_is_published() -> None:
    assert refusals(CLEAN, KNOWN) == []
    assert reasons(example_fix=[]) == []
    assert reasons(example_fix=GONE) == []


def test_known_from_reads_names_strings_files_and_modules_of_a_codebase() -> None:
    names = {"CacheConfig", "block_size", "max_num_seqs", "swap_space", "verify", "get_config"}
    assert names | {"path", "build_parser", "add_argument", "prog", "environ"} <= KNOWN.identifiers
    assert {"--block-size", "--enforce-eager", "MYPROJ_DEBUG", "myproj"} <= KNOWN.strings
    assert {"myproj/config.py", "config.py", "myproj/cli.py", "cli.py"} <= KNOWN.files
    assert {"myproj", "config", "cli", "dataclasses", "argparse", "os"} <= KNOWN.modules
    # The file that does not parse still gives its words and strings.
    assert {"shard_loader", "open_shards"} <= KNOWN.identifiers
    assert "weights/index.json" in KNOWN.strings
    assert "multiprocessing" not in KNOWN.modules
    assert DEFAULT_ALLOWED | {"sitetool"} == KNOWN.allowed
    assert KNOWN.docs == DOCS


def test_the_allow_list_holds_tools_and_variables_but_no_python_module() -> None:
    assert {"pip", "python", "git", "nvidia-smi", "CUDA_VISIBLE_DEVICES", "HF_TOKEN"} <= (
        DEFAULT_ALLOWED
    )
    assert not {"multiprocessing", "os", "sys", "subprocess", "json"} & DEFAULT_ALLOWED


def test_limits_are_those_of_the_record_pages() -> None:
    assert dict(LIMITS) == {
        "meaning_chars": 1200,
        "trigger_chars": 400,
        "situations_chars": 600,
        "solution_chars": 300,
        "solutions": 6,
        "example_fixes": 3,
        "example_fix_chars": 1500,
        "example_fix_lines": 40,
        "caption_chars": 200,
    }


# ---- 1. Shape and length ------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"meaning": GONE}, ["meaning: missing"]),
        ({"meaning": "  \n"}, ["meaning: empty"]),
        ({"meaning": ["a list"]}, ["meaning: should be text, not a list"]),
        ({"meaning": "x" * 1201}, ["meaning: 1201 characters, more than the 1200 allowed"]),
        ({"trigger": ""}, ["when.trigger: empty"]),
        ({"situations": 3}, ["when.situations: should be text, not a number"]),
        ({"trigger": "x" * 401}, ["when.trigger: 401 characters, more than the 400 allowed"]),
        ({"when": GONE}, ["when: missing"]),
        ({"when": "soon"}, ["when: should be a mapping, not text"]),
        ({"solutions": []}, ["solutions: empty, at least one is needed"]),
        ({"solutions": GONE}, ["solutions: missing"]),
        ({"solutions": "Pass a size."}, ["solutions: should be a list, not text"]),
        ({"solutions": ["Pass 16."] * 7}, ["solutions: 7 given, more than the 6 allowed"]),
        (
            {"solutions": ["Pass 16.", "y" * 301, None]},
            [
                "solutions[1]: 301 characters, more than the 300 allowed",
                "solutions[2]: should be text, not null",
            ],
        ),
        ({"example_fix": "echo"}, ["example_fix: should be a list, not text"]),
        ({"example_fix": fix("text", "a") * 4}, ["example_fix: 4 blocks, more than the 3 allowed"]),
        ({"example_fix": ["echo"]}, ["example_fix[0]: should be a mapping, not text"]),
        ({"example_fix": [{"code": "a"}]}, ["example_fix[0].lang: missing"]),
        ({"example_fix": [{"lang": "text"}]}, ["example_fix[0].code: missing"]),
        (
            {"example_fix": fix("text", "a\n" * 41)},
            ["example_fix[0].code: 41 lines, more than the 40 allowed"],
        ),
        (
            {"example_fix": fix("text", "a" * 1501)},
            ["example_fix[0].code: 1501 characters, more than the 1500 allowed"],
        ),
        (
            {"example_fix": [{"lang": "text", "code": "a", "caption": True}]},
            ["example_fix[0].caption: should be text, not true/false"],
        ),
        (
            {"example_fix": [{"lang": "py thon", "code": "a", "note": "n"}]},
            [
                "example_fix[0].note: not a field a draft writes",
                "example_fix[0].lang: py thon is not a language name",
            ],
        ),
        ({"title": "Block size"}, ["title: not a field a draft writes"]),
    ],
)
def test_a_field_missing_mistyped_or_too_long_is_refused(
    changes: dict[str, Any], expected: list[str]
) -> None:
    assert reasons(**changes) == expected


def test_a_draft_that_is_not_a_mapping_is_refused() -> None:
    assert refusals(["meaning"], KNOWN) == [  # type: ignore[arg-type]
        "the draft should be a mapping of fields, not a list"
    ]


def test_text_at_its_limit_is_published() -> None:
    at_limit = "Pass `--block-size 16`. " + "x" * (LIMITS["solution_chars"] - 24)
    assert len(at_limit) == LIMITS["solution_chars"]
    assert reasons(solutions=[at_limit], example_fix=fix("text", "a\n" * 40)) == []


# ---- 2. Flags -----------------------------------------------------------------------


def test_a_flag_the_code_does_not_define_is_refused() -> None:
    assert reasons(trigger="Raised when --max-seq-len is too small.") == [
        "when.trigger: names the flag --max-seq-len, which the code does not define"
    ]


@pytest.mark.parametrize(
    "flag",
    [
        "--block-size",  # a string of the code
        "--max-num-seqs",  # the flag form of a config field
        "--max_num_seqs",
        "--no-enforce-eager",  # BooleanOptionalAction's negative
        "--port",  # the docs
        "--upgrade",  # allowed
    ],
)
def test_a_flag_the_code_strings_docs_fields_or_allow_list_have_is_published(flag: str) -> None:
    assert reasons(solutions=[f"Pass {flag} with a value that fits."]) == []


# ---- 3. Environment variables -------------------------------------------------------


def test_an_environment_variable_the_code_does_not_read_is_refused() -> None:
    assert reasons(
        solutions=["Set MYPROJ_USE_V2=1 first.", "Run `export TOKEN=abc` then `echo $SECRET`."]
    ) == [
        "solutions[0]: names the environment variable MYPROJ_USE_V2, which the code does not read",
        "solutions[1]: names the environment variable TOKEN, which the code does not read",
        "solutions[1]: names the environment variable SECRET, which the code does not read",
    ]


def test_environment_variables_of_the_code_docs_and_allow_list_are_published() -> None:
    text = "Set MYPROJ_DEBUG=1, MYPROJ_CACHE_DIR, `$CUDA_VISIBLE_DEVICES` and `${HF_HOME}`."
    assert reasons(situations=text) == []


# ---- 4. Names written as code -------------------------------------------------------


def test_a_name_written_as_code_that_the_code_lacks_is_refused() -> None:
    assert reasons(
        meaning="Lower `max_batch_tokens`, or call `get_confg()` with `CacheConfig(blok=8)`."
    ) == [
        "meaning: names `max_batch_tokens`, which the code does not define",
        "meaning: names `get_confg`, which the code does not define",
        "meaning: passes the keyword argument blok=, which the code does not define",
    ]


def test_names_literals_builtins_and_commands_written_as_code_are_published() -> None:
    text = (
        "`max_num_seqs`, `get_config()`, `CacheConfig.swap_space`, `block_size=16`, `True`, "
        "`None`, `'a2a'`, `8`, `len(path)`, `ValueError`, `nvidia-smi`, `CPU/GPU`, "
        "`pip install myproj`."
    )
    assert reasons(meaning=text) == []


def test_a_name_in_plain_prose_is_words_not_a_claim() -> None:
    assert reasons(meaning="The max_batch_tokens limit does not exist as a word here.") == []


# ---- 5. Files -----------------------------------------------------------------------


def test_a_file_not_in_the_code_is_refused() -> None:
    assert reasons(solutions=["Edit myproj/engine.py, `settings.yaml` and ~/.myproj/state."]) == [
        "solutions[0]: names the file myproj/engine.py, which is not in the code",
        "solutions[0]: names the file settings.yaml, which is not in the code",
        "solutions[0]: names the file ~/.myproj/state, which is not in the code",
    ]


def test_files_of_the_code_and_words_with_a_slash_are_published() -> None:
    text = (
        "See myproj/config.py, `config.py`, ./myproj/cli.py and /tmp; it runs on CPU/GPU "
        "and/or TPU, with meta-llama/Llama-3-8B, per https://example.com/a/b/setup.py."
    )
    assert reasons(meaning=text) == []


# ---- 6. Python example fixes --------------------------------------------------------


def test_a_python_fix_that_does_not_parse_is_refused_at_its_line() -> None:
    assert reasons(example_fix=fix("python", "config = 1\nif config\n    pass\n")) == [
        "example_fix[0]: line 2: the Python does not parse (expected ':')"
    ]


def test_a_python_fix_importing_a_module_the_code_never_uses_is_refused() -> None:
    code = "import multiprocessing\n\nmultiprocessing.set_start_method('spawn')\n"
    assert reasons(example_fix=fix("python", code)) == [
        "example_fix[0]: line 1: imports multiprocessing, a module the code neither defines "
        "nor imports",
        "example_fix[0]: line 3: uses the attribute .set_start_method, which the code does "
        "not define",
    ]


def test_a_python_fix_using_names_the_code_lacks_is_refused() -> None:
    code = (
        "from myproj.config import CacheConfig, LoadConfig\n"
        "config = CacheConfig(block_size=16, page_size=8)\n"
        "config.resize(2)\n"
        "tune(config)  # or pass --page-size\n"
    )
    assert reasons(example_fix=fix("py", code)) == [
        "example_fix[0]: line 1: names `LoadConfig`, which the code does not define",
        "example_fix[0]: line 2: passes the keyword argument page_size=, which the code does "
        "not define",
        "example_fix[0]: line 3: uses the attribute .resize, which the code does not define",
        "example_fix[0]: line 4: names `tune`, which the code does not define",
        "example_fix[0]: line 4: names the flag --page-size, which the code does not define",
    ]


def test_a_python_fix_may_use_what_it_binds_builtins_and_methods_of_its_literals() -> None:
    code = (
        "import os\n"
        "\n"
        "def pick(size, *, step=8):\n"
        "    return size - size % step\n"
        "\n"
        "class Choice:\n"
        "    def __init__(self):\n"
        "        self.picked = pick(12)\n"
        "\n"
        "words = 'a b'\n"
        "for word in words.split():\n"
        "    print(word, words.upper(), Choice().picked, pick(9, step=4), os.environ.get('HOME'))\n"
    )
    assert reasons(example_fix=fix("python", code)) == []


def test_an_attribute_that_a_literal_lacks_must_be_the_codes() -> None:
    code = "name = 'cache'\nname.frobnicate()\n"
    assert reasons(example_fix=fix("python", code)) == [
        "example_fix[0]: line 2: uses the attribute .frobnicate, which the code does not define"
    ]


# ---- 7. Shell example fixes ---------------------------------------------------------


def test_a_shell_fix_using_a_flag_the_code_does_not_define_is_refused() -> None:
    code = (
        "pip install --no-deps myproj  # pip's own flag\n"
        "MYPROJ_DEBUG=1 myproj serve --block-size 16 \\\n"
        "    --max-seq-len 4096 | tee log.out\n"
    )
    assert reasons(example_fix=fix("bash", code)) == [
        "example_fix[0]: names the flag --max-seq-len, which the code does not define"
    ]


def test_only_the_commands_of_a_console_session_are_read() -> None:
    code = "$ myproj serve --block-size 16\nerror: see --verbose-log in /var/log/x.txt\n"
    assert reasons(example_fix=fix("console", code)) == []
    code = "$ myproj serve --bogus\n"
    assert reasons(example_fix=fix("console", code)) == [
        "example_fix[0]: names the flag --bogus, which the code does not define"
    ]


def test_a_shell_variable_the_script_sets_itself_is_not_an_environment_variable() -> None:
    code = "SIZE_NOW=16\nmyproj serve --block-size $SIZE_NOW\nNEW_VAR=1 myproj serve\n"
    assert reasons(example_fix=fix("sh", code)) == [
        "example_fix[0]: names the environment variable NEW_VAR, which the code does not read"
    ]


# ---- 8. Placeholders ----------------------------------------------------------------


def test_a_placeholder_left_in_prose_or_a_shell_fix_is_refused() -> None:
    assert reasons(
        trigger="Raised for {model_name} when the size is off.",
        example_fix=fix("bash", "myproj serve --block-size {tensor_parallel_size}\n"),
    ) == [
        "when.trigger: leaves the placeholder {model_name} unfilled",
        "example_fix[0]: leaves the placeholder {tensor_parallel_size} unfilled",
    ]


def test_braces_that_are_code_are_not_placeholders() -> None:
    python = 'size = 16\nprint(f"{size}", {"a": 1}, "{size}".format(size=size))\n'
    shell = 'echo "${HOME}" {a,b}\n'
    assert reasons(example_fix=[*fix("python", python), *fix("bash", shell)]) == []


# ---- 9. HTML and unsafe links -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Run it <script>alert(1)</script>.",
            ["holds raw HTML: <script", "holds raw HTML: </script"],
        ),
        ("A <b>bold</b> claim.", ["holds raw HTML: <b", "holds raw HTML: </b"]),
        ('See <img src="x" onerror="y">.', ["holds raw HTML: <img"]),
        ("Hidden <!-- note --> text.", ["holds raw HTML: <!--"]),
        ("[Docs](javascript:alert(1))", ["links to a javascript: URL"]),
        ("![chart](data:image/png;base64,AAAA)", ["links to a data: URL"]),
        ("[Docs]( JaVa\tScRiPt:alert(1))", ["links to a javascript: URL"]),
        ("[Docs](&#106;avascript:alert(1))", ["links to a javascript: URL"]),
        ("[ref]: javascript:alert(1)", ["links to a javascript: URL"]),
    ],
)
def test_raw_html_and_unsafe_links_are_refused(text: str, expected: list[str]) -> None:
    assert reasons(meaning=text) == [f"meaning: {reason}" for reason in expected]


def test_html_in_a_fix_is_refused_but_comparisons_and_heredocs_are_code() -> None:
    assert reasons(example_fix=fix("python", "size = 8\nok = size<16 and size >2\n")) == []
    assert reasons(example_fix=fix("bash", "cat <<EOF\nmyproj\nEOF\n")) == []
    assert reasons(example_fix=fix("text", "<div onclick=x>")) == [
        "example_fix[0]: holds raw HTML: <div"
    ]


def test_links_to_addresses_the_code_or_docs_give_are_published() -> None:
    code = [*CODE, ("myproj/urls.py", 'HELP = "https://myproj.example.org/help"\n')]
    docs = [("docs/usage.md", DOCS + "The guide is at https://docs.myproj.example.org/.\n")]
    known = known_from(code, docs)
    meaning = (
        "See [the help](https://myproj.example.org/help) or <https://docs.myproj.example.org/>."
    )
    assert refusals(draft(meaning=meaning), known) == []


@pytest.mark.parametrize(
    "text",
    [
        "Log in at [the portal](https://myproj-support.example.net/login) to fix it.",
        "Log in at [the portal]( <https://myproj-support.example.net/login> ).",
        "Log in at <https://myproj-support.example.net/login>.",
        "Log in at [the portal][p].\n\n[p]: https://myproj-support.example.net/login",
        "Log in at [the portal](//myproj-support.example.net/login).",
    ],
)
def test_a_link_to_an_address_neither_the_code_nor_docs_give_is_refused(text: str) -> None:
    # A model invents addresses as it invents flags, and a reader follows a link.
    address = "//" + text.split("//", 1)[1].split(")")[0].split(">")[0].split()[0]
    scheme = "https:" if "https://" in text else ""
    assert reasons(meaning=text) == [
        f"meaning: links to {scheme}{address}, which neither the code nor the docs give"
    ]


# ---- Markdown code in prose ---------------------------------------------------------


def test_a_fenced_block_in_prose_is_read_as_code() -> None:
    solution = "Use:\n\n```python\nimport multiprocessing\n```\n\n```bash\nmyproj serve --nope\n```"
    assert reasons(solutions=[solution]) == [
        "solutions[0]: line 1: imports multiprocessing, a module the code neither defines "
        "nor imports",
        "solutions[0]: names the flag --nope, which the code does not define",
    ]


def test_a_draft_breaking_several_rules_gets_every_reason() -> None:
    assert reasons(
        meaning="Set `max_batch_tokens` <b>now</b>.",
        trigger="x" * 401,
        situations="When MYPROJ_USE_V2 is set and myproj/engine.py runs.",
        solutions=["Pass --max-seq-len {size}.", ""],
        example_fix=[
            *fix("python", "import multiprocessing\n"),
            *fix("sh", "myproj serve --tp 2\n"),
            *fix("python", "def f(:\n"),
        ],
    ) == [
        "when.trigger: 401 characters, more than the 400 allowed",
        "solutions[1]: empty",
        "meaning: holds raw HTML: <b",
        "meaning: holds raw HTML: </b",
        "meaning: names `max_batch_tokens`, which the code does not define",
        "when.situations: names the environment variable MYPROJ_USE_V2, which the code does "
        "not read",
        "when.situations: names the file myproj/engine.py, which is not in the code",
        "solutions[0]: names the flag --max-seq-len, which the code does not define",
        "solutions[0]: leaves the placeholder {size} unfilled",
        "example_fix[0]: line 1: imports multiprocessing, a module the code neither defines "
        "nor imports",
        "example_fix[1]: names the flag --tp, which the code does not define",
        "example_fix[2]: line 1: the Python does not parse (invalid syntax)",
    ]


# ---- Hostile drafts -----------------------------------------------------------------

HOSTILE = {
    "braces": "{{{{" * 25_000,
    "nested brackets": "[" * 50_000 + "]" * 50_000,
    "backtick runs of every length": "".join("`" * (n % 9 + 1) + "x" for n in range(20_000)),
    "upper case and underscores": "A_" * 50_000 + "a",
    "dollars": "$A" * 50_000,
    "link starts": "](" * 50_000,
    "tag starts": "<a" * 50_000,
    "dashes": "--a" * 33_000,
    "slashes": "a/" * 50_000,
    "fences": "```\n~~~~\n" * 12_000,
    "spans": "".join(f"`n{n}` " for n in range(10_000)),
    "everything": "`{<$A_--/.](#|;&\\\n" * 6_000,
}


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_draft_is_refused_in_time_without_a_traceback(text: str) -> None:
    hostile = draft(
        meaning=text,
        solutions=[text],
        example_fix=[
            {"lang": "python", "code": text},
            {"lang": "bash", "code": text, "caption": text},
            {"lang": "console", "code": "$ " + text},
        ],
    )
    started = time.process_time()  # this process's own time: a busy neighbour adds none
    found = refusals(hostile, KNOWN)
    # Linear work on 100 KB is a fraction of a second; anything quadratic takes minutes.
    assert time.process_time() - started < 10
    assert f"meaning: {len(text)} characters, more than the 1200 allowed" in found
    assert all(isinstance(reason, str) and reason for reason in found)


def test_python_too_deep_to_parse_is_a_refusal_not_a_traceback() -> None:
    deep = "x = " + "-" * 5_000 + "1\n"
    assert reasons(example_fix=fix("python", deep)) == [
        "example_fix[0].code: 5006 characters, more than the 1500 allowed",
        "example_fix[0]: the Python is nested too deeply to read",
    ]
    brackets = "x = " + "[" * 300 + "]" * 300 + "\n"
    assert reasons(example_fix=fix("python", brackets)) == [
        "example_fix[0]: line 1: the Python does not parse (too many nested parentheses)"
    ]


def test_a_reason_shows_hostile_text_short_and_printable() -> None:
    lang = "\x1b[31m" + "x" * 200
    assert reasons(example_fix=[{"lang": lang, "code": "a"}]) == [
        "example_fix[0].lang: '\\x1b[31m" + "x" * 75 + "'… is not a language name"
    ]


# ---- Properties ---------------------------------------------------------------------

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

LANGS = st.sampled_from(["python", "py", "bash", "sh", "console", "yaml", "text", ""]) | st.text()
# Characters that mean something to a rule, so generated text hits the rules often.
RULE_TEXT = st.text(alphabet=st.sampled_from("`{}<>[]()$_-/.:#=!\\\n\t 'aAzZ09") | st.characters())
ANY_TEXT = st.text() | RULE_TEXT


@SETTINGS
@given(
    meaning=ANY_TEXT,
    trigger=ANY_TEXT,
    situations=ANY_TEXT,
    solutions=st.lists(ANY_TEXT, max_size=3),
    blocks=st.lists(st.tuples(LANGS, ANY_TEXT, ANY_TEXT), max_size=3),
)
def test_refusals_never_raise_for_any_text_in_any_field(
    meaning: str,
    trigger: str,
    situations: str,
    solutions: list[str],
    blocks: list[tuple[str, str, str]],
) -> None:
    fields = {
        "meaning": meaning,
        "when": {"trigger": trigger, "situations": situations},
        "solutions": solutions,
        "example_fix": [
            {"lang": lang, "code": code, "caption": caption} for lang, code, caption in blocks
        ],
    }
    found = refusals(fields, KNOWN)
    assert all(isinstance(reason, str) for reason in found)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@SETTINGS
@given(
    st.dictionaries(st.sampled_from(["meaning", "when", "solutions", "example_fix", "other"]), JSON)
)
def test_refusals_never_raise_for_any_shape(fields: dict[str, Any]) -> None:
    assert all(isinstance(reason, str) for reason in refusals(fields, KNOWN))


def test_known_can_be_built_directly() -> None:
    known = Known(
        identifiers=frozenset({"block_size"}),
        strings=frozenset(),
        files=frozenset({"pkg/a.py", "a.py"}),
        modules=frozenset({"pkg"}),
        docs="",
        allowed=frozenset(),
    )
    clean = draft(
        meaning="`block_size` in pkg/a.py.",
        trigger="With --block-size.",
        situations="Always.",
        solutions=["Pass --block-size."],
        example_fix=GONE,
    )
    assert refusals(clean, known) == []
