"""How to avoid an error, derived from the code: the words each shape of test gets, the
section on the bundled and scanned pages, the JSON mirror, and hints with a paste's values."""

from __future__ import annotations

import ast
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import CONTENT, build_site, make_content, soup

from errdex.records.load import load_file
from errdex.records.model import record_from
from errdex.source import avoid

HERE = Path(__file__).resolve().parent
VECTORS: list[dict[str, Any]] = yaml.safe_load((HERE / "avoid" / "vectors.yaml").read_text())
A2A = "9c019ab65f8b8d16"
GQA = "23b4373e94335665"


def said(*guards: str, aliases: dict[str, str] | None = None) -> list[str]:
    flags = {"tensor_parallel_size": "--tensor-parallel-size"}
    return [avoid.said(way, flags.get) for way in avoid.ways_out(guards, aliases)]


@pytest.mark.parametrize(
    ("guard", "ways"),
    [
        # De Morgan over and/or: each way out of an ``and`` is one line; an ``or`` needs all.
        (
            "mode == 'a2a' and size <= 1",
            ["Set `mode` to something other than `'a2a'`.", "Set `size` above `1`."],
        ),
        ("a is None or b > 2", ["Give `a` a value (not `None`), and set `b` to `2` or less."]),
        # ``not`` folded into the comparison.
        ("not (size >= 4)", ["Set `size` to `4` or more."]),
        ("not x != 'fast'", ["Set `x` to something other than `'fast'`."]),
        ("mode not in ('fast', 'slow')", ["Set `mode` to `'fast'` or `'slow'`."]),
        ("mode in ['a', 'b']", ["Set `mode` to something other than `'a'` or `'b'`."]),
        # A collection the code names but does not spell out.
        ("name in self.registry", ["Set `name` to a value not in `registry`."]),
        ("kind not in KINDS", ["Set `kind` to a value in `KINDS`."]),
        ("value is not None", ["Leave `value` unset (`None`)."]),
        ("not isinstance(x, (int, float))", ["Pass `x` as `int` or `float`."]),
        ("isinstance(x, str)", ["Pass `x` as something other than `str`."]),
        ("heads % tp != 0", ["Make `heads` divisible by `tp`."]),
        ("heads % tp", ["Make `heads` divisible by `tp`."]),
        # A number written in the code is not the user's to change: its divisor is.
        ("64 % heads != 0", ["Set `heads` to a divisor of `64`."]),
        ("1 > size", ["Set `size` to `1` or more."]),
        ("0 <= rank < world", ["Set `rank` below `0`.", "Set `rank` to `world` or more."]),
        ("len(names) > 0", ["Give `names` no items."]),
        ("len(names) == 0", ["Give `names` at least one item."]),
        ("len(colors) != channels", ["Give `colors` exactly `channels` items."]),
        ("self.x * self.y != self.z", ["Make `x * y` equal to `z`."]),
        ("sys.version_info < (3, 10)", ["Use Python 3.10 or newer."]),
        # A private name, or a name's private part, is the code's own: said as it is, never
        # as something the caller sets ("Set `_check` to …").
        ("_check", ["Make `_check` false or empty."]),
        ("constraint._type_bound", ["Make `constraint._type_bound` false or empty."]),
        ("est.classes_ is None", ["Make sure `est.classes_` is not `None`."]),
        # A name kept off a keyword or a builtin's name is no fitted attribute.
        ("self.class_ is None", ["Give `class_` a value (not `None`)."]),
        ("args.type_ == 'x'", ["Set `args.type_` to something other than `'x'`."]),
        ("sys.platform == 'win32'", ["Run on a system other than Windows."]),
        # The system's other names: not a setting of the user's ("Set `os.name` to …").
        ("os.name == 'nt'", ["Run on a system other than Windows."]),
        ("os.name != 'posix'", ["Run on Linux or macOS."]),
        ("platform.system() == 'Darwin'", ["Run on a system other than macOS."]),
        ("sys.platform in ('win32', 'cygwin')", ["Run on a system other than Windows or Cygwin."]),
        ("os.name not in ('nt',)", ["Run on Windows."]),
        # The system tested by a part of its name, or lowercased.
        ("sys.platform.startswith('win')", ["Run on a system other than Windows."]),
        ("not sys.platform.startswith('linux')", ["Run on Linux."]),
        ("'win' in sys.platform", ["Run on a system other than Windows, macOS or Cygwin."]),
        ("platform.system().lower() == 'windows'", ["Run on a system other than Windows."]),
        ("platform.system().lower() != 'darwin'", ["Run on macOS."]),
        ("sys.platform.startswith('freebsd')", []),
        ("'free' not in sys.platform", []),
        ("platform.system().upper() == 'WINDOWS'", []),
        ("platform.system().startswith('Win')", ["Run on a system other than Windows."]),
        ("not sys.platform.startswith(('win', 'cygwin'))", ["Run on Windows or Cygwin."]),
        ("sys.platform.startswith(prefix)", []),
        ("sys.platform.startswith('')", []),  # true on every system
        (
            "'win' in platform.system().lower()",
            ["Run on a system other than Windows, macOS or Cygwin."],
        ),
        ("os.name in ('nt', 'posix')", ["Run on a system other than Windows, Linux or macOS."]),
        # A system errdex has no name for is no setting of the user's: not said.
        ("os.name in ('nt', 'ce')", []),
        ("sys.platform == 'aix'", []),
        ("not current_platform.is_cuda()", ["Run on CUDA."]),
        ("current_platform.is_rocm()", ["Run on a platform other than ROCm."]),
        ("not torch.cuda.is_available()", ["Run on CUDA."]),
        (
            "not is_torch_available()",
            ["Make `torch` available (what `is_torch_available()` checks)."],
        ),
        ("importlib.util.find_spec('flash_attn') is None", ["Install `flash_attn`."]),
        # A module whose package is named otherwise: pip finds no package "yaml".
        ("importlib.util.find_spec('yaml') is None", ["Install `PyYAML` (imported as `yaml`)."]),
        # A module's top module is what a package gives, but under a namespace packages share.
        ("find_spec('PIL.Image') is None", ["Install `Pillow` (imported as `PIL`)."]),
        (
            "find_spec('google.protobuf.descriptor') is None",
            ["Install `protobuf` (imported as `google.protobuf`)."],
        ),
        ("find_spec('ruamel.yaml') is None", ["Install `ruamel.yaml`."]),
        (
            "find_spec('azure.storage.blob') is None",
            ["Install the package that gives `azure.storage.blob`."],
        ),
        ("not os.path.isfile(path)", ["Make `path` an existing file."]),
        ("'height' not in size", ["Make `size` contain `'height'`."]),
        ("not secrets.is_dir()", ["Make `secrets` an existing folder."]),
        (
            "by_alias is False and by_name is not True",
            ["Set `by_alias` to something other than `False`.", "Set `by_name` to `True`."],
        ),
        (
            "default is Parameter.empty",
            ["Set `default` to something other than `Parameter.empty`."],
        ),
        (
            "envs.VLLM_USE_V1",
            ["Set the environment variable `VLLM_USE_V1` to a false or empty value."],
        ),
        (
            "os.environ.get('HF_HOME') is None",
            ["Give the environment variable `HF_HOME` a value (not `None`)."],
        ),
        (
            "not tensor_parallel_size > 1",
            ["Set `tensor_parallel_size` (`--tensor-parallel-size`) above `1`."],
        ),
        # Exactly one of two: the way out is both or neither.
        (
            "(ids is None) ^ (embeds is not None)",
            [
                "Give `ids` a value (not `None`), and leave `embeds` unset (`None`).",
                "Leave `ids` unset (`None`), and give `embeds` a value (not `None`).",
            ],
        ),
    ],
)
def test_each_shape_of_test_is_said_as_its_way_out(guard: str, ways: list[str]) -> None:
    assert said(guard) == ways


@pytest.mark.parametrize(
    "guard",
    [
        "not valid_images(images)",  # a call whose effects nobody knows
        "self.registry.check(x)",
        "HAS_TRITON",  # a module's flag: what sets it is not in the code shown
        "config.HAS_TRITON",
        "mysettings.DEBUG",
        "x[compute()] > 1",
        "a + b + c + d + e + f + g + h + i + j + k + l + m + n + o + p + q + r + s > 1",
        "True",
        "'a' == 'b'",
        "not (",  # not even Python
    ],
)
def test_a_test_that_cannot_be_said_safely_says_nothing(guard: str) -> None:
    assert said(guard) == []


def test_a_setting_in_capitals_is_the_users_to_set() -> None:
    # Django's settings are read as ``settings.DEBUG``: the user's settings module.
    assert said("not settings.DEBUG and not settings.ALLOWED_HOSTS") == [
        "Set `settings.DEBUG` to a true or non-empty value.",
        "Set `settings.ALLOWED_HOSTS` to a true or non-empty value.",
    ]
    assert said("conf.settings.USE_TZ") == ["Set `conf.settings.USE_TZ` to a false or empty value."]


@pytest.mark.parametrize(
    ("code", "way"),
    [
        # A sparse matrix's format cannot be set: the words ask that it be so.
        (
            "def check(graph):\n    if graph.format not in ('csr', 'csc'):\n"
            "        raise TypeError('wrong format')\n",
            "Make sure `graph.format` is `'csr'` or `'csc'`.",
        ),
        # An object that exists to hold settings is the user's to set.
        (
            "def check(model_config):\n    if model_config.heads < 1:\n"
            "        raise ValueError('no heads')\n",
            "Set `model_config.heads` to `1` or more.",
        ),
        (
            "def check(self, args):\n    if args.heads < 1:\n"
            "        raise ValueError('no heads')\n",
            "Set `args.heads` to `1` or more.",
        ),
        # The settings of an object a parameter holds (``model.config``) are the user's.
        (
            "def generate(model):\n    if not model.generation_config.use_cache:\n"
            "        raise ValueError('set use_cache')\n",
            "Set `model.generation_config.use_cache` to a true or non-empty value.",
        ),
        # An attribute of what the object holds may be read-only too (a pandas index's).
        (
            "class PandasIndex:\n    def reindex(self, other):\n"
            "        if not self.index.is_unique:\n"
            "            raise ValueError('duplicate values')\n",
            "Make `index.is_unique` true or non-empty.",
        ),
        # So may one of what the code opens when the caller passes none (dask's TileDB).
        (
            "def from_tiledb(uri, attribute=None):\n    if isinstance(uri, tiledb.Array):\n"
            "        tdb = uri\n    else:\n        tdb = tiledb.open(uri)\n"
            "    if tdb.schema.sparse:\n        raise ValueError('sparse arrays')\n",
            "Make `tdb.schema.sparse` false or empty.",
        ),
        # Django's settings are the user's in a private helper too.
        (
            "def _check_session(request):\n    if settings.CSRF_USE_SESSIONS:\n"
            "        raise ImproperlyConfigured('sessions')\n",
            "Set `settings.CSRF_USE_SESSIONS` to a false or empty value.",
        ),
    ],
)
def test_an_attribute_of_what_the_caller_passes_is_set_only_on_a_settings_object(
    code: str, way: str
) -> None:
    assert _ways_of(code) == [way]


@pytest.mark.parametrize(
    ("signature", "way"),
    [
        ("def weights(class_weight, *, classes):", "Set `class_weight` to `None`."),
        ("def weights(classes, class_weight='balanced'):", "Set `class_weight` to `None`."),
        ("def weights(classes, *, class_weight):", "Set `class_weight` to `None`."),
        ("def weights(classes, class_weight=None):", "Leave `class_weight` unset (`None`)."),
    ],
)
def test_only_a_parameter_that_defaults_to_none_is_left_unset(signature: str, way: str) -> None:
    code = (
        f"{signature}\n"
        "    if class_weight is not None:\n"
        "        if len(classes) > 3:\n"
        "            raise ValueError('too many classes')\n"
    )
    assert _ways_of(code)[0] == way


def test_a_way_that_cannot_be_said_is_dropped_and_the_others_stay() -> None:
    assert said("size > 1 and not self.registry.supports(model)") == ["Set `size` to `1` or less."]
    # Within a way, all terms must be said: an ``or`` with an unsaid part gives nothing.
    assert said("size > 1 or not self.registry.supports(model)") == []


def test_ways_that_contradict_or_ask_for_more_than_another_are_left_out() -> None:
    # Tests 1 and 2: either leave both unset, or leave one unset; the first asks more.
    guards = ("not (a is None and b is None)", "a is not None and b is not None")
    assert said(*guards) == ["Leave `a` unset (`None`).", "Leave `b` unset (`None`)."]


def test_too_many_ways_read_as_a_puzzle_and_are_not_shown() -> None:
    guard = " and ".join(f"x{i} > {i}" for i in range(avoid.MAX_WAYS + 1))
    assert said(guard) == []
    assert len(said(" and ".join(f"x{i} > {i}" for i in range(avoid.MAX_WAYS)))) == avoid.MAX_WAYS


def test_names_bound_before_the_raise_are_said_with_the_setting_they_read() -> None:
    aliases = {"tp": "self.tensor_parallel_size"}
    assert said("tp % dcp != 0", aliases=aliases) == [
        "Make `tp` (`tensor_parallel_size`, `--tensor-parallel-size`) divisible by `dcp`."
    ]


def test_hostile_text_in_the_code_stays_inside_its_code_span() -> None:
    (way,) = said("mode == '<script>`x``'")
    assert way == "Set `mode` to something other than ``` '<script>`x``' ```."
    from errdex.site.markdown import render_inline

    html = str(render_inline(way))
    assert "<script>" not in html and "&lt;script&gt;" in html


EXCERPT = """\
def check(self, tp, pcp, dcp):
    if pcp == 1:
        if tp % dcp != 0:
            raise ValueError("a")
    elif dcp not in (
        1,
        pcp,
    ):
        raise ValueError("b")
    else:
        if dcp > 8: raise ValueError("c")
    while True:
        if dcp:
            pass
        else:
            raise ValueError("d")
"""


@pytest.mark.parametrize(
    ("line", "tests"),
    [
        (4, ["pcp == 1", "tp % dcp != 0"]),
        (9, ["not (pcp == 1)", "dcp not in (1, pcp)"]),
        (11, ["not (pcp == 1 or dcp not in (1, pcp))", "dcp > 8"]),
        (16, ["not (dcp)"]),
    ],
)
def test_the_tests_around_a_raise_are_read_from_the_excerpt(line: int, tests: list[str]) -> None:
    lines = EXCERPT.splitlines()
    assert avoid.enclosing_tests(lines, line - 1) == tests


def test_an_excerpt_cut_mid_statement_gives_the_tests_it_holds() -> None:
    lines = ["        )", "        if size > 2:", "            raise ValueError(", "    'x')"]
    assert avoid.enclosing_tests(lines, 2) == ["size > 2"]
    assert avoid.enclosing_tests(lines, 7) == []


def scanned(code: str, raise_line: int) -> Any:
    """A record as scan writes it for the raise at ``raise_line`` of ``code``."""
    from errdex.records.model import Excerpt, Source

    base = record("pcp-data-parallelism.yaml")
    from dataclasses import replace

    source = Source("0" * 40, "m.py", raise_line, None, None, None, Excerpt(1, code))
    return replace(base, source=source)


# Each of these was a wrong way out in a hand-checked sample of a real scan.


def _ways_at(code: str, line: int) -> list[str]:
    """The ways out of the raise at ``line`` of ``code``, read as a build reads it."""
    record = scanned(code, line)
    found = avoid.avoid_of(replace(record, source=replace(record.source, condition=None)))
    return [avoid.said(way) for way in found.ways] if found else []


@pytest.mark.parametrize(
    ("after", "ways"),
    [
        # The code raises anyway when the test is false: no way out (xarray's DataTree).
        ("    raise NotImplementedError()\n", []),
        ("    raise\n", []),
        ("    return other\n", ["Pass `other` as something other than `GroupBy`."]),
        # Another branch, or more code, before the raise: it may be a way out.
        (
            "    elif other is None:\n        return 0\n    raise TypeError('x')\n",
            ["Pass `other` as something other than `GroupBy`."],
        ),
        (
            "    other = other.data\n    raise TypeError('x')\n",
            ["Pass `other` as something other than `GroupBy`."],
        ),
    ],
)
def test_a_test_whose_false_side_only_reaches_another_raise_is_no_way_out(
    after: str, ways: list[str]
) -> None:
    code = (
        "def inplace(other):\n    if isinstance(other, GroupBy):\n"
        "        raise TypeError('not with a grouped object')\n" + after
    )
    assert _ways_at(code, 3) == ways


def test_a_collection_the_code_fills_itself_is_no_way_out() -> None:
    # xarray's calculate_dimensions: ``dims`` is the code's own bookkeeping, not the user's.
    code = (
        "def calculate_dimensions(variables):\n    dims = {}\n"
        "    for k, var in variables.items():\n"
        "        for dim, size in zip(var.dims, var.shape):\n"
        "            if dim not in dims:\n                dims[dim] = size\n"
        "            elif dims[dim] != size:\n"
        "                raise ValueError(f'conflicting sizes for dimension {dim!r}')\n"
    )
    assert _ways_of(code) == []
    # A collection the caller passes is theirs, filled or not.
    given = code.replace("    dims = {}\n", "")
    assert _ways_of(given.replace("(variables)", "(variables, dims)")) == [
        "Make sure `dim` is not in `dims`."
    ]


def test_a_branch_whose_later_branches_all_raise_has_no_way_forward() -> None:
    # dask's visualize: past ``elif engine is None`` only the ``else`` is left, and it
    # raises; the ways into the branches before it stay.
    code = (
        "def visualize(engine=None):\n"
        "    if engine == 'graphviz':\n        return 1\n"
        "    elif engine in ('cytoscape', 'ipycytoscape'):\n        return 2\n"
        "    elif engine is None:\n        raise RuntimeError('No visualization engine')\n"
        "    else:\n        raise ValueError(f'Visualization engine {engine} not recognized')\n"
    )
    assert _ways_at(code, 7) == [
        "Set `engine` to `'graphviz'`.",
        "Set `engine` to `'cytoscape'` or `'ipycytoscape'`.",
    ]
    # An ``else`` that may not raise is a way forward.
    lenient = code.replace(
        "raise ValueError(f'Visualization engine {engine} not recognized')", "return 3"
    )
    assert "Give `engine` a value (not `None`)." in _ways_at(lenient, 7)


def test_in_a_method_python_calls_for_an_operation_self_holds_state_not_settings() -> None:
    # dask's ``Array.__bool__``: ``size`` is a property, read-only.
    code = (
        "    def __bool__(self):\n        if self.size > 1:\n"
        "            raise ValueError('ambiguous')\n"
    )
    record = scanned(code, 3)
    record = replace(
        record, source=replace(record.source, condition=None, function="Array.__bool__")
    )
    found = avoid.avoid_of(record)
    assert found is not None
    assert [avoid.said(way) for way in found.ways] == ["Make `size` at most `1`."]
    setup = replace(record, source=replace(record.source, function="Array.__init__"))
    assert [avoid.said(w) for w in avoid.avoid_of(setup).ways] == ["Set `size` to `1` or less."]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("test", "way"),
    [
        # dask's elemwise: ``kwargs`` is what the caller passes by keyword, not a value.
        ("kwargs", "Pass no other keyword arguments (`**kwargs`)."),
        ("'strategy' in kwargs", "Pass no keyword argument `strategy` (`**kwargs`)."),
        ("'dtype' not in kwargs", "Pass the keyword argument `dtype` (`**kwargs`)."),
        ("not args", "Pass at least one positional argument (`*args`)."),
    ],
)
def test_a_functions_star_arguments_are_said_as_what_the_caller_passes(test: str, way: str) -> None:
    code = (
        "def elemwise(op, *args, out=None, **kwargs):\n"
        f"    if {test}:\n        raise TypeError('not taken')\n"
    )
    assert _ways_of(code) == [way]
    # A name that is no star argument of the signature in view is said as before.
    plain = code.replace("*args, out=None, **kwargs", "args, out=None, kwargs=None")
    assert "(`**kwargs`)" not in " ".join(_ways_of(plain))


def test_a_flag_that_skips_the_check_is_never_the_way_out() -> None:
    # xarray's ``concat(…, shortcut=True)`` skips the check and relabels a dimension.
    assert said("not shortcut", "var.dims != first_dims") == [
        "Make `var.dims` equal to `first_dims`."
    ]
    assert said("not fastpath") == said("not skip_checks") == []
    assert said("fastpath is False") == said("fastpath == False") == []
    assert said("not strict") == ["Set `strict` to a true or non-empty value."]
    # Nor is turning off a flag that turns the check on (dask's ``assert_eq``).
    assert said("check_dtype and str(a) != str(b)") == []
    assert said("validate and x < 0") == ["Set `x` to `0` or more."]


def test_two_objects_tested_for_identity_are_not_said_as_equal() -> None:
    # ``existing is not bindparam`` asks for the same object; "equal" is another test.
    assert said("existing is not bindparam") == []
    assert said("self.model is not model") == []
    # A marker object, a class or a constant reads as equality, as before.
    assert said("value is _MISSING") == ["Set `value` to something other than `_MISSING`."]
    assert said("flag is not True") != []
    # A module's function or value is a marker too (SQLAlchemy's automap, a torch dtype).
    code = (
        "def generate(return_fn, dtype):\n    if return_fn is not backref:\n"
        "        raise TypeError('Unknown relationship function')\n"
    )
    assert _ways_of(code) == ["Set `return_fn` to `backref`."]
    assert _ways_of(code.replace("return_fn is not backref", "dtype is not torch.float16")) == [
        "Set `dtype` to `torch.float16`."
    ]


def test_a_false_value_is_asked_for_never_an_unset_one() -> None:
    # Leaving a setting out may give it a true default: only "false or empty" is safe.
    (way,) = said("self.use_cache")
    assert way == "Set `use_cache` to a false or empty value."


def test_an_availability_check_is_said_as_the_check_not_as_an_install() -> None:
    # A check for a package may also want a device: installing alone need not pass it.
    (way,) = said("not is_torch_npu_available()")
    assert way == "Make `torch_npu` available (what `is_torch_npu_available()` checks)."


def test_a_name_bound_in_a_branch_off_the_path_is_not_taken_as_an_alias() -> None:
    code = """\
def run(self, rounds=None):
    if rounds is None:
        rounds = self.config.max_rounds
    else:
        if rounds < 0:
            raise ValueError("rounds must not be negative")
"""
    found = scanned(code, 6)
    # Not an alias; and since the code may give it a value of its own, no way may ask
    # for it unset.
    assert avoid.aliases_of(found) == {"rounds": avoid.DEFAULTED}
    avoided = avoid.avoid_of(found)
    assert avoided is not None
    assert [avoid.said(w) for w in avoided.ways] == ["Set `rounds` to `0` or more."]


def test_a_name_bound_on_the_path_is_an_alias_and_the_nearest_binding_wins() -> None:
    code = """\
def run(self):
    size = self.first_size
    size = self.config.batch_size
    if size > 8:
        raise ValueError("too big")
"""
    assert avoid.aliases_of(scanned(code, 5)) == {"size": "self.config.batch_size"}


def test_the_way_out_follows_names_bound_by_any_statement_that_may_bind_them() -> None:
    # avoid_of parses only the statements that may bind a name its tests read: each
    # binding below must still be found (a chained target, one on a continuation line,
    # an attribute), and one that binds another name must not be taken for it.
    code = """\
def run(self, batch):
    world = tp = self.tensor_parallel_size
    (first,
     heads) = self.config.heads, 1
    self.size = batch
    self.size_limit = 4
    if tp > 8 or heads > 2 or self.size > 3:
        raise ValueError("too big")
"""
    found = avoid.avoid_of(scanned(code, 8))
    assert found is not None
    assert [avoid.said(way) for way in found.ways] == [
        "Set `tp` (`tensor_parallel_size`) to `8` or less, and make `heads` at most `2`, "
        "and set `size` (`batch`) to `3` or less."
    ]


@pytest.mark.parametrize(
    ("binding", "test"),
    [
        ("\uff54\uff50 = self.tensor_parallel_size", "tp > 8"),  # Python reads it as tp
        ("\u2118 = self.tensor_parallel_size", "\u2118 > 8"),  # ℘: a name, no word character
    ],
)
def test_a_name_spelled_otherwise_than_python_reads_it_is_still_followed(
    binding: str, test: str
) -> None:
    code = f"""\
def run(self):
    {binding}
    if {test}:
        raise ValueError("too many")
"""
    found = avoid.avoid_of(scanned(code, 4))
    assert found is not None
    (way,) = found.ways
    assert "(`tensor_parallel_size`) to `8` or less." in avoid.said(way)


def test_a_recorded_condition_spelled_otherwise_than_python_reads_it_is_followed() -> None:
    from dataclasses import replace

    code = """\
def run(self):
    tp = self.tensor_parallel_size
    raise ValueError("too many")
"""
    found = scanned(code, 3)
    recorded = replace(found, source=replace(found.source, condition="\uff54\uff50 > 8"))
    avoided = avoid.avoid_of(recorded)
    assert avoided is not None
    assert [avoid.said(way) for way in avoided.ways] == [
        "Set `tp` (`tensor_parallel_size`) to `8` or less."
    ]


def test_the_excerpts_tests_are_kept_only_where_they_end_in_the_recorded_condition() -> None:
    from dataclasses import replace

    code = """\
def run(self, size):
    if self.strict:
        if size > 1:
            raise ValueError("too big")
"""
    found = scanned(code, 4)
    spaced = replace(found, source=replace(found.source, condition="size>1"))
    assert avoid.guards_of(spaced) == ("self.strict", "size > 1")
    # A condition recorded at another pin (the excerpt's test changed since) is all
    # that is known, though its text is part of the excerpt's.
    stale = replace(found, source=replace(found.source, condition="size > 10"))
    assert avoid.guards_of(stale) == ("size > 10",)


def test_a_name_reshaped_before_the_raise_says_nothing_of_what_the_user_gave() -> None:
    code = """\
def check(self, offsets, batch):
    if len(offsets) > 0:
        if isinstance(offsets[0], tuple):
            offsets = [offsets]
        if len(offsets) != batch:
            raise ValueError("one list of offsets a sequence")
"""
    found = scanned(code, 6)
    assert avoid.aliases_of(found) == {"offsets": None}
    avoided = avoid.avoid_of(found)
    assert avoided is None or all("offsets" not in avoid.said(w) for w in avoided.ways)


def test_a_length_compared_with_a_value_stays_a_length() -> None:
    assert said("batch != len(sizes)") == ["Set `batch` to the number of items in `sizes`."]
    assert said("len(a) != len(b)") == ["Give `a` as many items as `b`."]
    assert said("len(x) % 2") == ["Make the number of items in `x` divisible by `2`."]


@pytest.mark.parametrize(
    ("guard", "way"),
    [
        ("len(a) != len(b)", "Give `a` as many items as `b`."),
        ("len(a) == len(b)", "Give `a` a number of items other than `b` has."),
        ("len(a) < len(b)", "Give `a` at least as many items as `b`."),
        ("len(a) > len(b)", "Give `a` at most as many items as `b`."),
    ],
)
def test_two_lengths_compared_keep_their_comparison(guard: str, way: str) -> None:
    assert said(guard) == [way]


@pytest.mark.parametrize(
    ("guard", "way"),
    [
        ("len(a) > 1", "Give `a` at most `1` item."),
        ("len(a) != 1", "Give `a` exactly `1` item."),
        ("len(a) <= 1", "Give `a` more than `1` item."),
        ("len(a) == 1", "Give `a` a number of items other than `1`."),
        ("len(a) > 2", "Give `a` at most `2` items."),
        ("len(a) == 2", "Give `a` a number of items other than `2`."),
    ],
)
def test_a_count_of_one_says_one_item(guard: str, way: str) -> None:
    assert said(guard) == [way]


def test_a_length_of_a_name_the_code_fills_asks_for_no_empty_value() -> None:
    code = """\
def generate(self, stop=None):
    stop = stop or self.default_stop
    if len(stop) > 0:
        raise ValueError("no stop words here")
"""
    assert avoid.avoid_of(scanned(code, 4)) is None


def test_a_constant_looked_for_among_names_asks_of_each_name() -> None:
    assert said("None in (mean, std)") == [
        "Give `mean` a value (not `None`), and give `std` a value (not `None`)."
    ]
    assert said("0 not in (a, b)") == ["Set `a` to `0`.", "Set `b` to `0`."]
    assert said("None in ()") == []
    assert said("None in (a, None)") == []


def test_a_name_remade_from_itself_on_the_path_says_nothing_of_the_argument() -> None:
    # The caller's value is replaced (a default from elsewhere, a reshaped tensor): words
    # about the name would send the user to change what the test no longer sees.
    code = """\
def forward(self, cache=None, masks=None):
    cache = cache if cache is not None else self.config.cache
    masks = masks.flatten(0, 1)
    if cache is True:
        if masks.shape[0] != 3:
            raise ValueError("bad")
"""
    found = scanned(code, 6)
    assert avoid.aliases_of(found) == {"cache": avoid.DEFAULTED, "masks": None}
    # "Set cache to something other than True" would not do: None becomes the config's.
    assert avoid.avoid_of(found) is None


def test_setting_an_attribute_of_self_reshapes_that_attribute_only() -> None:
    code = """\
def check(self, heads):
    self.dim = self.dim * 2
    self.heads = heads
    if self.dim % self.heads != 0:
        raise ValueError("dim")
    if self.width > 8:
        raise ValueError("width")
"""
    found = scanned(code, 5)
    assert avoid.aliases_of(found) == {"self.dim": None, "self.heads": "heads"}
    assert avoid.avoid_of(found) is None  # self.dim is no longer what was configured
    wide = avoid.avoid_of(scanned(code, 7))
    assert wide is not None
    assert [avoid.said(w) for w in wide.ways][-1] == "Set `width` to `8` or less."


def test_a_part_of_an_unpacked_value_is_no_alias_of_it() -> None:
    code = """\
def embed(self, pixels):
    batch, channels, height = pixels.shape
    if channels != self.channels:
        raise ValueError("channels")
"""
    found = scanned(code, 4)
    computed = avoid.COMPUTED
    assert avoid.aliases_of(found) == {"batch": computed, "channels": computed, "height": computed}
    avoided = avoid.avoid_of(found)
    assert avoided is not None
    # Worked out by the code, not a setting: said as written, with no flag.
    assert [avoid.said(w) for w in avoided.ways] == ["Make `channels` equal to `self.channels`."]


def test_keyword_arguments_of_a_call_are_not_taken_for_statements() -> None:
    code = """\
def run(self, size, names):
    validate(
        size=size,
        names=[names],
    )
    if size > 8:
        raise ValueError("too big")
"""
    found = scanned(code, 7)
    assert avoid.aliases_of(found) == {}
    avoided = avoid.avoid_of(found)
    assert avoided is not None
    assert [avoid.said(w) for w in avoided.ways] == ["Set `size` to `8` or less."]


def record(name: str) -> Any:
    doc, problems = load_file(CONTENT / "errors" / "vllm-project" / "vllm" / name)
    assert doc is not None, problems
    return record_from(doc, CONTENT)


def ways_on(page: Path) -> list[str]:
    section = soup(page).find("section", class_="avoid")
    assert section is not None
    return [li.get_text() for li in section.select("ul.ways li")]


def test_the_a2a_page_shows_both_ways_out_of_its_seed_page_with_their_flags(
    built_site: Path,
) -> None:
    page = built_site / "errors" / A2A / "index.html"
    assert ways_on(page) == [
        "Set dcp_comm_backend (--dcp-comm-backend) to something other than 'a2a'.",
        "Set decode_context_parallel_size (--decode-context-parallel-size) above 1.",
    ]
    html = soup(page)
    headings = [h.get_text() for h in html.select("article h2")]
    # The people's solutions come first; the derived lines say where they come from.
    assert headings.index("Solutions") < headings.index("How to avoid it")
    note = html.select_one("section.avoid .derived-note").get_text()
    assert "Derived from the code" in note
    assert "the test under When it happens, negated" in note
    assert html.select_one('.derived-note a[href="#when"]') is not None
    raised_when = html.select_one("#when ~ dl.when dd").get_text()
    condition = "self.dcp_comm_backend == 'a2a' and self.decode_context_parallel_size <= 1"
    assert condition in raised_when


def test_the_gqa_page_shows_its_own_ways_from_both_enclosing_tests(built_site: Path) -> None:
    assert ways_on(built_site / "errors" / GQA / "index.html") == [
        "Set decode_context_parallel_size (--decode-context-parallel-size) to 1 or less.",
        "Set use_mla to a true or non-empty value.",
        "Set tensor_parallel_size (--tensor-parallel-size) above total_num_kv_heads.",
    ]


def test_the_json_mirror_carries_the_ways_as_words_and_as_data(built_site: Path) -> None:
    document = json.loads((built_site / "api" / "errors" / f"{A2A}.json").read_text())
    avoided = document["avoid"]
    assert avoided["guards"] == [
        "self.dcp_comm_backend == 'a2a' and self.decode_context_parallel_size <= 1"
    ]
    texts = [way["text"] for way in avoided["ways"]]
    assert texts[1] == (
        "Set `decode_context_parallel_size` (`--decode-context-parallel-size`) above `1`."
    )
    (term,) = avoided["ways"][1]["terms"]
    assert term["kind"] == "compare" and term["op"] == ">"
    assert term["subject"]["label"] == "--decode-context-parallel-size"
    assert term["other"]["number"] == "1"
    schema = json.loads((built_site / "api" / "schema.json").read_text())
    assert "avoid" in schema["required"]
    assert "negated" in schema["properties"]["avoid"]["description"]
    assert all(avoid.well_formed(t) for way in avoided["ways"] for t in way["terms"])


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_hints_with_the_users_values_match_the_shared_vectors(vector: dict[str, Any]) -> None:
    assert avoid.hints(vector["ways"], vector["values"]) == vector["hints"]


def test_lookup_json_works_out_the_divisors_with_the_pasted_values(
    run: Any, built_site: Path
) -> None:
    paste = "ValueError: tp_size=12 must be divisible by dcp_size=5."
    result = run("lookup", "--site", built_site, "--json", paste)
    assert result.code == 0, result.err
    (top, *_) = json.loads(result.out)["matches"]
    assert top["title"].startswith("tp_size={tp} must be divisible")
    hints = [hint for way in top["avoid"] for hint in way["hints"]]
    assert hints == [
        "--decode-context-parallel-size: 1, 2, 3, 4, 6 or 12 "
        "(the divisors of --tensor-parallel-size = 12); yours is 5"
    ]


@pytest.mark.parametrize(
    "damage",
    [
        {"guards": [], "ways": "many"},
        {"guards": [], "ways": [{"text": 1, "terms": []}]},
        {"guards": [], "ways": [{"text": "x", "terms": [{"kind": "compare", "op": "in"}]}]},
        {"ways": [{"text": "x", "terms": [{"kind": "rm -rf", "subject": {}}]}]},
    ],
)
def test_lookup_answers_without_hints_from_a_damaged_avoid(
    run: Any, built_site: Path, tmp_path: Path, damage: dict[str, Any]
) -> None:
    import shutil

    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    paste = "ValueError: tp_size=12 must be divisible by dcp_size=5."
    (top, *_) = json.loads(run("lookup", "--site", site, "--json", paste).out)["matches"]
    doc = site / "api" / "errors" / f"{top['id']}.json"
    data = json.loads(doc.read_text())
    data["avoid"] = damage
    doc.write_text(json.dumps(data))
    result = run("lookup", "--site", site, "--json", paste)
    assert result.code == 0, result.err
    assert json.loads(result.out)["matches"][0]["avoid"] == []


_BLOCK = '''\
    if heads % size != 0:
        raise ValueError(
            f"{heads} heads do not split over {size} ranks"
        )
    elif (size > 8 and
          backend == "a2a"):
        pass
    else:
        size = size or 1
    try:
        value = int(text)
    except ValueError:
        value = None
    finally:
        done = True
    @cached
    def helper(x):
        return x
    total = first + \\
        second
    note = """a string
    over lines = still one"""
    )
    # a comment = not a statement
    x = [
        1,
'''


def test_a_statement_is_found_whole_as_trying_each_end_finds_it() -> None:
    """Where a statement of an excerpt ends is told by the tokenizer, and only a simple
    statement is parsed: the same statements as parsing every longer run of lines until
    one parses, on clauses, decorators, continued lines, strings and cut-off brackets."""
    lines = _BLOCK.splitlines()

    def tried(start: int) -> str | None:
        for end in range(start, min(len(lines), start + 40)):
            tree = avoid._parse_block(lines[start : end + 1])
            if tree is not None:
                body = tree.body
                blocks = (
                    ast.If,
                    ast.For,
                    ast.While,
                    ast.With,
                    ast.Try,
                    ast.FunctionDef,
                    ast.ClassDef,
                )
                if len(body) != 1 or isinstance(body[0], blocks):
                    return None  # a block binds nothing the derivation reads
                return ast.dump(body[0])
        return None

    def simple(start: int) -> ast.stmt | None:
        logical = avoid._logical_line(lines, start)
        return None if logical is None else avoid._simple_statement(logical)

    for start in range(len(lines)):
        found = simple(start)
        assert (ast.dump(found) if found is not None else None) == tried(start), lines[start]
    assert simple(lines.index("    total = first + \\")) is not None
    assert simple(lines.index('    note = """a string')) is not None


_CHAINS = """\
def check(x, y, mode, kind):
    if x is None:
        raise ValueError("x is required")
    else:
        raise ValueError("x is wrong")
    if y > 10:
        raise ValueError("too big")
    elif y > 5:
        raise ValueError("big")
    else:
        raise ValueError("small")
    if mode is None:
        if kind:
            raise ValueError("a kind needs a mode")
        else:
            raise ValueError("no mode")
    elif mode < 0:
        raise ValueError("negative mode")
    if mode not in (DEFAULT_MODE,):
        raise ValueError("one mode only")
    if kind in self.kinds:
        raise ValueError("a kind taken")
"""


@pytest.mark.parametrize(
    ("line", "ways"),
    [
        # Every branch after it raises (dask's ``elif engine is None`` before an ``else``
        # that raises): a way out of it is another error.
        (3, []),
        # Every branch before it raises: each way out of it is another error.
        (5, []),
        (9, []),
        (11, []),
        # A branch whose every path raises, inside an ``if``/``else``, raises as well.
        (18, ["Set `mode` to `0` or more."]),
        (16, ["Give `mode` a value (not `None`)."]),
        # A tuple of one name lists it; a collection named alone is its contents.
        (20, ["Set `mode` to `DEFAULT_MODE`."]),
        (22, ["Set `kind` to a value not in `kinds`."]),
    ],
)
def test_no_way_out_leads_into_another_raise_of_the_chain(line: int, ways: list[str]) -> None:
    from errdex.source import scan

    sites = {site.line: site for site in scan.scan_text(_CHAINS, "m.py")}
    record = scanned(_CHAINS, line)
    record = replace(record, source=replace(record.source, condition=sites[line].condition))
    found = avoid.avoid_of(record)
    assert ([avoid.said(way) for way in found.ways] if found else []) == ways


@pytest.mark.parametrize(
    ("code", "way"),
    [
        (
            "def split(dim, heads):\n"
            "    head_dim = dim // heads\n"
            "    if head_dim * heads != dim:\n"
            "        raise ValueError('dim must be divisible by heads')\n",
            "Make `dim` divisible by `heads`.",
        ),
        (
            "def __init__(self, config):\n"
            "    self.embed_dim = config.hidden_size\n"
            "    self.num_heads = config.num_attention_heads\n"
            "    self.head_dim = self.embed_dim // self.num_heads\n"
            "    if self.head_dim * self.num_heads != self.embed_dim:\n"
            "        raise ValueError('embed_dim must be divisible by num_heads')\n",
            # ``self.x = config.y`` names the setting the user gives.
            "Make `embed_dim` (`hidden_size`) divisible by `num_heads` (`num_attention_heads`).",
        ),
        (
            "def split(dim, heads):\n"
            "    if dim // heads * heads != dim:\n"
            "        raise ValueError('dim must be divisible by heads')\n",
            "Make `dim` divisible by `heads`.",
        ),
    ],
)
def test_a_quotient_multiplied_back_asks_for_a_divisor(code: str, way: str) -> None:
    """``head_dim = dim // heads`` then ``head_dim * heads != dim``: the test asks whether
    ``heads`` divides ``dim``, which is what a user can act on, not ``head_dim``."""
    line = len(code.splitlines())
    record = scanned(code, line)
    record = replace(record, source=replace(record.source, condition=None))
    found = avoid.avoid_of(record)
    assert found is not None and [avoid.said(w) for w in found.ways] == [way]


def test_two_ways_that_read_alike_are_one_line() -> None:
    """``self.data`` is said `data`, as is the argument it was given from."""
    found = avoid.Avoid(("self.data is None and data is None",), ())
    ways = avoid.ways_out(found.guards)
    assert [avoid.said(w) for w in ways] == ["Give `data` a value (not `None`)."] * 2
    document = avoid.document(avoid.Avoid(found.guards, ways))
    assert [w["text"] for w in document["ways"]] == ["Give `data` a value (not `None`)."]


def _ways_of(code: str) -> list[str]:
    """The ways out of the raise on the last line of ``code``, read as a build reads it."""
    return _ways_of_cut(code, 1)


def _ways_of_cut(code: str, cut: int) -> list[str]:
    """The ways out of the raise on the last line of ``code``, from an excerpt that
    starts at its line ``cut`` (as scan cuts one out of a long function)."""
    from errdex.records.model import Excerpt

    record = scanned(code, len(code.splitlines()))
    excerpt = Excerpt(cut, "".join(code.splitlines(keepends=True)[cut - 1 :]))
    record = replace(record, source=replace(record.source, condition=None, excerpt=excerpt))
    found = avoid.avoid_of(record)
    return [avoid.said(way) for way in found.ways] if found else []


@pytest.mark.parametrize(
    ("rebinding", "way"),
    [
        (
            "    if kv_heads is not None:\n        heads = kv_heads\n",
            "Make `head_dim * heads` equal to `hidden`.",
        ),
        # ``hidden`` now holds what the caller gave as ``kv_heads``.
        ("    hidden = kv_heads\n", "Make `head_dim * heads` equal to `hidden` (`kv_heads`)."),
    ],
)
def test_a_quotient_whose_parts_change_after_it_is_said_as_written(
    rebinding: str, way: str
) -> None:
    """After ``heads = kv_heads``, ``head_dim * heads`` is no longer ``hidden // heads``
    times its divisor: "make hidden divisible by heads" would not keep the raise away."""
    code = (
        "def f(hidden, heads, kv_heads):\n"
        "    head_dim = hidden // heads\n"
        f"{rebinding}"
        "    if head_dim * heads != hidden:\n"
        "        raise ValueError('sizes do not split')\n"
    )
    assert _ways_of(code) == [way]


def test_a_quotient_too_deep_to_write_out_is_no_way_and_no_crash() -> None:
    long = " + ".join(["c"] * 400)
    code = (
        "def f(c, heads, dim):\n"
        f"    q = ({long}) // heads\n"
        "    if q * heads != dim:\n"
        "        raise ValueError('sizes do not split')\n"
    )
    assert _ways_of(code) == ["Make `q * heads` equal to `dim`."]


def test_a_constant_looked_for_in_a_collection_names_nothing_to_set() -> None:
    assert _ways_of("def f(sizes):\n    if None in sizes:\n        raise ValueError('x')\n") == []


def test_ways_that_read_alike_keep_what_each_reads_of_a_paste() -> None:
    """Merged into one line, the way still finds the pasted numbers either one names."""
    guards = ("dim % heads != 0 and self.dim % self.heads != 0",)
    document = avoid.document(avoid.Avoid(guards, avoid.ways_out(guards)))
    assert len(document["ways"]) == 1
    hints = avoid.hints(
        [way["terms"] for way in document["ways"]], {"self.dim": "12", "self.heads": "5"}
    )
    assert hints == [["heads: 1, 2, 3, 4, 6 or 12 (the divisors of dim = 12); yours is 5"]]


@pytest.mark.parametrize(
    "between",
    [
        "    self._setup_heads()\n",
        "    setattr(self, 'heads', 0)\n",
        "    super().__init__(config)\n",
    ],
)
def test_an_attribute_after_a_call_names_no_setting(between: str) -> None:
    """A call may set any attribute: after it, ``self.heads`` need not be what
    ``config.num_heads`` gave."""
    code = (
        "def __init__(self, config):\n"
        "    self.heads = config.num_heads\n"
        f"{between}"
        "    if self.heads < 1:\n"
        "        raise ValueError('heads must be positive')\n"
    )
    assert _ways_of(code) == ["Make `self.heads` at least `1`."]
    logged = code.replace(between, "    logger.info('heads set')\n")
    assert _ways_of(logged) == ["Set `heads` (`num_heads`) to `1` or more."]


def test_an_attribute_of_an_object_replaced_since_names_no_setting() -> None:
    code = (
        "def __init__(self, config):\n"
        "    self.attn.dim = config.hidden_size\n"
        "    self.attn = OtherAttention()\n"
        "    if self.attn.dim % 8:\n"
        "        raise ValueError('dim must be a multiple of 8')\n"
    )
    assert _ways_of(code) == ["Make `self.attn.dim` divisible by `8`."]
    kept = code.replace("    self.attn = OtherAttention()\n", "")
    assert _ways_of(kept) == ["Make `attn.dim` (`hidden_size`) divisible by `8`."]


def test_a_draft_is_given_ways_that_read_alike_once() -> None:
    """The model's evidence lists the ways as the page does: each line once."""
    from errdex.source import draft

    code = (
        "def fit(self, data=None):\n"
        "    if self.data is None and data is None:\n"
        "        raise ValueError('no data')\n"
    )
    record = replace(scanned(code, 3), id="0" * 16)
    record = replace(record, source=replace(record.source, condition=None))
    given = draft.evidence(record, [record], draft.Sources())
    text = "\n".join(section.text for section in given.sections)
    assert text.count("Give `data` a value (not `None`).") == 1


@pytest.mark.parametrize(
    ("code", "ways"),
    [
        (
            # transformers' attention layers: the argument copied into ``self`` first.
            "def __init__(self, embed_dim, num_heads):\n"
            "    super().__init__()\n"
            "    self.embed_dim = embed_dim\n"
            "    self.num_heads = num_heads\n"
            "    self.head_dim = embed_dim // num_heads\n"
            "    if (self.head_dim * num_heads) != self.embed_dim:\n"
            "        raise ValueError('embed_dim must be divisible by num_heads')\n",
            ["Make `embed_dim` divisible by `num_heads`."],
        ),
        (
            "def __init__(self, hidden):\n"
            "    self.dim = hidden\n"
            "    if self.dim < 1:\n"
            "        raise ValueError('dim must be positive')\n",
            ["Set `dim` (`hidden`) to `1` or more."],
        ),
        (
            "def __init__(self, config):\n"
            "    size = config.hidden_size\n"
            "    dim = size\n"
            "    self.dim = dim\n"
            "    if self.dim % 8:\n"
            "        raise ValueError('dim must be a multiple of 8')\n",
            ["Make `dim` (`hidden_size`) divisible by `8`."],
        ),
        (
            # The copy holds what the argument holds, no longer what the caller gave: a
            # value worked out here, said as the code names it.
            "def __init__(self, hidden):\n"
            "    hidden += 1\n"
            "    self.dim = hidden\n"
            "    if self.dim % 8:\n"
            "        raise ValueError('dim must be a multiple of 8')\n",
            ["Make `self.dim` divisible by `8`."],
        ),
        (
            # Nor after a default of the code's own, where "anything but" is asked.
            "def __init__(self, dim=None):\n"
            "    dim = dim or 4\n"
            "    self.dim = dim\n"
            "    if self.dim == 4:\n"
            "        raise ValueError('dim must not be 4')\n",
            [],
        ),
        (
            # ``x`` is bound again after ``y = x`` copied it: what ``y`` holds is not
            # followed, and it is said as the code names it.
            "def f(x, y):\n"
            "    x = y\n"
            "    y = x\n"
            "    if y < 1:\n"
            "        raise ValueError('y must be positive')\n",
            ["Make `y` at least `1`."],
        ),
    ],
)
def test_a_name_copied_from_another_holds_what_that_one_holds(code: str, ways: list[str]) -> None:
    """``self.dim = dim`` above the test: the way names what the caller gives (``dim``,
    or the setting it was read from), and says nothing when that is no longer theirs."""
    assert _ways_of(code) == ways


def test_a_paste_finds_the_number_a_copied_name_holds() -> None:
    """The message names ``self.embed_dim``; the quotient divides the argument it was
    copied from: a paste's 768 is still the number to divide."""
    code = (
        "def __init__(self, embed_dim, num_heads):\n"
        "    self.embed_dim = embed_dim\n"
        "    self.head_dim = embed_dim // num_heads\n"
        "    if self.head_dim * num_heads != self.embed_dim:\n"
        "        raise ValueError(f'{self.embed_dim} must be divisible by {num_heads}')\n"
    )
    record = scanned(code, 5)
    found = avoid.avoid_of(replace(record, source=replace(record.source, condition=None)))
    assert found is not None
    document = avoid.document(found)
    hints = avoid.hints(
        [way["terms"] for way in document["ways"]], {"self.embed_dim": "768", "num_heads": "5"}
    )
    divisors = "1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48 or 64"
    assert hints == [[f"num_heads: {divisors} (the divisors of embed_dim = 768); yours is 5"]]


@pytest.mark.parametrize(
    ("code", "ways"),
    [
        (
            # ``hidden`` is bound anew after the copy: ``self.dim`` keeps the caller's.
            "def f(self, hidden, other):\n"
            "    self.dim = hidden\n"
            "    hidden = other\n"
            "    if self.dim < 1:\n"
            "        raise ValueError('x')\n",
            ["Set `dim` (`hidden`) to `1` or more."],
        ),
        (
            # The same, with the rebinding read by the test: not followed at all.
            "def f(self, hidden, other):\n"
            "    self.dim = hidden\n"
            "    hidden = other\n"
            "    if self.dim < 1 or hidden > 100:\n"
            "        raise ValueError('x')\n",
            ["Make `self.dim` at least `1`, and set `hidden` (`other`) to `100` or less."],
        ),
        (
            "def f(self, embed_dim, config):\n"
            "    self.embed_dim = embed_dim\n"
            "    embed_dim = config.hidden_size\n"
            "    self.hidden = embed_dim\n"
            "    if self.embed_dim % 8 or self.hidden < 0:\n"
            "        raise ValueError('x')\n",
            [
                "Make `self.embed_dim` divisible by `8`, "
                "and set `hidden` (`hidden_size`) to `0` or more."
            ],
        ),
        (
            # The divisor changed after the copy: the quotient is of the old one.
            "def f(self, dim, heads, kv_heads):\n"
            "    self.heads = heads\n"
            "    heads = kv_heads\n"
            "    head_dim = dim // self.heads\n"
            "    if head_dim * heads != dim:\n"
            "        raise ValueError('x')\n",
            ["Make `head_dim * heads` equal to `dim`."],
        ),
        (
            "def f(self, other):\n"
            "    a = self.size\n"
            "    self.n = a\n"
            "    self.size = other\n"
            "    if self.n < 1 or self.size > 9:\n"
            "        raise ValueError('x')\n",
            ["Make `self.n` at least `1`, and set `size` (`other`) to `9` or less."],
        ),
        (
            # A list grown in place after the copy grows the copy too.
            "def f(self, layers, extra):\n"
            "    self.blocks = layers\n"
            "    layers += extra\n"
            "    if len(self.blocks) > 4:\n"
            "        raise ValueError('x')\n",
            ["Make sure `self.blocks` has at most `4` items."],
        ),
        (
            "def f(layers, head):\n"
            "    blocks = layers\n"
            "    layers.append(head)\n"
            "    if len(blocks) > 4:\n"
            "        raise ValueError('x')\n",
            ["Make sure `blocks` has at most `4` items."],
        ),
        (
            # The standard library's functions that change the list they are given.
            "def f(layers, head):\n"
            "    blocks = layers\n"
            "    heapq.heappush(layers, head)\n"
            "    if len(blocks) > 4:\n"
            "        raise ValueError('x')\n",
            ["Make sure `blocks` has at most `4` items."],
        ),
        (
            "def f(layers, head):\n"
            "    blocks = layers\n"
            "    insort(layers, head)\n"
            "    if len(blocks) > 4:\n"
            "        raise ValueError('x')\n",
            ["Make sure `blocks` has at most `4` items."],
        ),
        (
            # A call written over lines, as black writes a long one.
            "def f(layers, head):\n"
            "    blocks = layers\n"
            "    heapq.heappush(\n"
            "        layers, (head.priority, head)\n"
            "    )\n"
            "    if len(blocks) > 4:\n"
            "        raise ValueError('x')\n",
            ["Make sure `blocks` has at most `4` items."],
        ),
        (
            "def f(layers, rng):\n"
            "    blocks = layers\n"
            "    rng.shuffle(layers)\n"
            "    if len(blocks) > 4:\n"
            "        raise ValueError('x')\n",
            ["Make sure `blocks` has at most `4` items."],
        ),
        (
            # Read, not changed: the copy still holds the setting.
            "def f(layers, head):\n"
            "    blocks = layers\n"
            "    heapq.heappush(head, layers)\n"
            "    if len(blocks) > 4:\n"
            "        raise ValueError('x')\n",
            ["Give `blocks` (`layers`) at most `4` items."],
        ),
        (
            # ``config`` is bound anew: its ``hidden_size`` is another value.
            "def f(self, config, text):\n"
            "    self.hidden = config.hidden_size\n"
            "    config = text\n"
            "    head_dim = config.hidden_size // config.heads\n"
            "    if head_dim * config.heads != self.hidden:\n"
            "        raise ValueError('x')\n",
            ["Make `head_dim * config.heads` equal to `hidden` (`hidden_size`)."],
        ),
        (
            "def f(sizes):\n"
            "    for s in sizes:\n"
            "        n = s\n"
            "        if n < 1:\n"
            "            raise ValueError('x')\n",
            ["Make `n` at least `1`."],
        ),
        (
            "def f(size, lock):\n"
            "    with lock as size:\n"
            "        n = size\n"
            "        if n < 1:\n"
            "            raise ValueError('x')\n",
            ["Make `n` at least `1`."],
        ),
        (
            "def f(data):\n"
            "    if (m := compute(data)) is None:\n"
            "        return\n"
            "    n = m\n"
            "    if n < 1:\n"
            "        raise ValueError('x')\n",
            ["Make `n` at least `1`."],
        ),
        (
            "def f(x):\n    n = MAX\n    if n > 3:\n        raise ValueError('x')\n",
            ["Make `n` at most `3`."],
        ),
        (
            # The code's own default may be what the copy holds: not "anything but 4".
            "def f(dim=None):\n"
            "    dim = dim or 4\n"
            "    n = dim\n"
            "    if n == 4:\n"
            "        raise ValueError('x')\n",
            [],
        ),
        (
            "def f(dim=None):\n"
            "    dim = dim or 4\n"
            "    n = dim\n"
            "    if n < 1:\n"
            "        raise ValueError('x')\n",
            ["Set `n` (`dim`) to `1` or more."],
        ),
    ],
)
def test_a_copy_holds_what_its_name_held_where_it_was_made(code: str, ways: list[str]) -> None:
    """Bindings after a copy do not change it, but changes in place do; a copy of a
    loop's item, a context, a walrus or a module constant names no setting."""
    assert _ways_of(code) == ways


@pytest.mark.parametrize(
    ("code", "ways"),
    [
        (
            # Flaubert's encoder-only check: setting ``is_decoder`` itself does nothing.
            "def __init__(self, config):\n"
            "    self.is_encoder = config.is_encoder\n"
            "    self.is_decoder = not config.is_encoder\n"
            "    if self.is_decoder:\n"
            "        raise NotImplementedError('only an encoder')\n",
            ["Set `config.is_encoder` to a true or non-empty value."],
        ),
        (
            "def f(a):\n    b = not a\n    c = not b\n    if c:\n        raise ValueError('x')\n",
            ["Set `a` to a false or empty value."],
        ),
        (
            # Bound anew nearer the raise: said as the code names it.
            "def f(self, strict, other):\n"
            "    self.lenient = not strict\n"
            "    strict = other\n"
            "    if self.lenient or strict:\n"
            "        raise ValueError('x')\n",
            [
                "Make `self.lenient` false or empty, "
                "and set `strict` (`other`) to a false or empty value."
            ],
        ),
    ],
)
def test_a_name_bound_to_not_another_is_said_as_the_opposite_of_that_one(
    code: str, ways: list[str]
) -> None:
    assert _ways_of(code) == ways


def test_a_parameter_of_a_signature_on_many_lines_is_the_callers() -> None:
    """Parameters written a line each sit at the body's indent: ``size: int = 1,`` is
    the caller's ``size``, not a statement that binds it."""
    code = (
        "def __call__(\n"
        "    self,\n"
        "    text,\n"
        "    return_offsets_mapping: bool = False,\n"
        "    query_length: int = 1,\n"
        "):\n"
        "    if return_offsets_mapping or query_length > 0:\n"
        "        raise NotImplementedError('offsets are not available here')\n"
    )
    assert _ways_of(code) == [
        "Set `return_offsets_mapping` to a false or empty value, "
        "and set `query_length` to `0` or less."
    ]


def test_a_flag_the_code_works_out_is_made_false_not_set() -> None:
    code = (
        "def f(speech):\n"
        "    is_batched = isinstance(speech, list) and len(speech) > 1\n"
        "    if is_batched:\n"
        "        raise ValueError('one at a time')\n"
    )
    assert _ways_of(code) == ["Make `is_batched` false or empty."]


def test_no_block_longer_than_the_limit_reaches_pythons_parser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Python's parser takes seconds over an f-string of thousands of fields, which a
    record's message may be: such a block is not parsed, and the recorded condition
    alone gives the way out."""
    fields = " ".join(f"word{n} {{value{n}}}" for n in range(5_000))
    code = f"def check(size):\n    if size < 1:\n        raise ValueError(f'{fields}')\n"
    record = scanned(code, 3)
    record = replace(record, source=replace(record.source, condition="size < 1"))
    longest: list[int] = []
    parse = ast.parse

    def measured(source: str, *args: object, **kwargs: object) -> ast.AST:
        longest.append(len(source))
        return parse(source, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(avoid.ast, "parse", measured)
    found = avoid.avoid_of(record)
    assert found is not None
    assert [avoid.said(way) for way in found.ways] == ["Set `size` to `1` or more."]
    assert max(longest) <= avoid.MAX_PARSED


@pytest.mark.parametrize(
    ("code", "ways"),
    [
        # A statement that does end in a comma binds a tuple, which is always true.
        ("def f(n):\n    n = n - 1,\n    if n:\n        raise ValueError('x')\n", []),
        (
            # A parameter line with a comment, and the last one with no comma.
            "def f(\n    self,\n    size: int = 1,  # how many\n    limit: int = 2\n):\n"
            "    if size < 1 or limit > 3:\n        raise ValueError('x')\n",
            ["Set `size` to `1` or more, and set `limit` to `3` or less."],
        ),
        (
            # One capital letter is a parameter (``X`` of a fit), not a module constant.
            "def fit(self, X):\n    data = X\n"
            "    if data is None:\n        raise ValueError('x')\n",
            ["Give `data` (`X`) a value (not `None`)."],
        ),
        (
            # A method that does not change its object leaves the copy the caller's.
            "def f(self, size):\n    self.size = size\n    logger.info('%s', size.bit_length())\n"
            "    if self.size < 1:\n        raise ValueError('x')\n",
            ["Set `size` to `1` or more."],
        ),
        (
            # One that does, called on the copy itself.
            "def f(self, hidden):\n    self.h = hidden\n    self.h.append(4)\n"
            "    if self.h:\n        raise ValueError('x')\n",
            ["Make `self.h` false or empty."],
        ),
        (
            # ``:=`` in a string binds nothing.
            "def f(self, use_x):\n    print('set use_x:= True to enable')\n"
            "    if use_x:\n        raise ValueError('x')\n",
            ["Set `use_x` to a false or empty value."],
        ),
        (
            "def f(self, dim):\n    async for dim in agen():\n        pass\n"
            "    if dim < 1:\n        raise ValueError('x')\n",
            ["Make `dim` at least `1`."],
        ),
        (
            "def f(self, dim):\n    for dim in range(3): pass\n"
            "    if dim < 1:\n        raise ValueError('x')\n",
            ["Make `dim` at least `1`."],
        ),
        (
            # An attribute copied from one bound to ``not`` above it.
            "def f(self, config):\n    self.dec = not config.is_encoder\n    self.enc = self.dec\n"
            "    if self.enc:\n        raise ValueError('x')\n",
            ["Set `config.is_encoder` to a true or non-empty value."],
        ),
    ],
)
def test_shapes_a_review_of_copies_and_flags_found(code: str, ways: list[str]) -> None:
    assert _ways_of(code) == ways


def test_a_long_chain_of_not_is_no_way_and_no_crash() -> None:
    chain = "".join(f"    a{n + 1} = not a{n}\n" for n in range(990))
    code = f"def f(a0):\n{chain}    if a990:\n        raise ValueError('x')\n"
    assert _ways_of(code) == []


def test_an_excerpt_that_starts_inside_a_call_reads_no_argument_as_a_statement() -> None:
    code = (
        "def __init__(self, trim_offsets=False, **kwargs):\n"
        "    super().__init__(\n"
        "        mask_token=mask_token,\n"
        "        trim_offsets=trim_offsets,\n"
        "        **kwargs,\n"
        "    )\n"
        "    if trim_offsets:\n"
        "        raise NotImplementedError('trim_offsets is not supported')\n"
    )
    # Without the signature in view, the parameter may be a value bound above: "make".
    assert _ways_of_cut(code, 3) == ["Make `trim_offsets` false or empty."]


def test_an_excerpt_that_starts_inside_a_docstring_reads_no_example_as_a_statement() -> None:
    code = (
        "def export(self, input_ids=None, inputs_embeds=None):\n"
        '    """Export.\n'
        "\n"
        "        inputs_embeds = torch.randn(1, 3, 768)\n"
        '    """\n'
        "    if not (input_ids is None) ^ (inputs_embeds is None):\n"
        "        raise ValueError('Need to specify either input_ids or inputs_embeds.')\n"
    )
    assert _ways_of_cut(code, 3) == [
        "Make sure `input_ids` is `None`, and make sure `inputs_embeds` is not `None`.",
        "Make sure `input_ids` is not `None`, and make sure `inputs_embeds` is `None`.",
    ]


_RESHAPED = "    n = n - 1\n"
_RAISE = "    if n < 1:\n        raise ValueError('x')\n"


@pytest.mark.parametrize(
    ("code", "cut", "ways"),
    [
        # Triple quotes in a comment or a string are no docstring's end.
        ("def f(self, n):\n" + _RESHAPED + '    # strip the """ of a docstring\n' + _RAISE, 1, []),
        (
            "def f(self, n):\n"
            + _RESHAPED
            + '    if s.startswith(\'"""\'):\n        pass\n'
            + _RAISE,
            1,
            [],
        ),
        ("def f(self, n):\n    '''Use \"\"\" for docs.'''\n" + _RESHAPED + _RAISE, 1, []),
        # Cut inside a docstring that mentions the other quotes: the code after it counts.
        (
            'def f(self, n):\n    """Doc.\n\n    Example: s = \'\'\'x\n    """\n'
            + _RESHAPED
            + _RAISE,
            3,
            [],
        ),
        # Cut inside a docstring whose example reshapes n: the example is not code.
        (
            'def f(self, n):\n    """Doc.\n\n        n = n - 1\n    """\n' + _RAISE,
            3,
            ["Make `n` at least `1`."],  # the signature is cut off
        ),
        # A string continued with a backslash inside a call closes no bracket.
        ("def f(self, n):\n    warn('n is \\\n  small')\n" + _RESHAPED + _RAISE, 1, []),
        # A walrus in a call spread over lines binds n.
        (
            "def f(self, n):\n    total = (n := self.count(\n        items))\n" + _RAISE,
            1,
            ["Make `n` at least `1`."],
        ),
        # A capital letter no signature in view names is a module's constant.
        ("def f(self):\n    n = N\n" + _RAISE, 1, ["Make `n` at least `1`."]),
        # A queue emptied, a frame changed with inplace=True: the copy is changed too.
        (
            "def f(self, q):\n    p = q\n    q.popleft()\n"
            "    if not p:\n        raise ValueError('x')\n",
            1,
            ["Make `p` true or non-empty."],
        ),
        (
            "def f(self, df):\n    d = df\n    df.drop(columns=['a'], inplace=True)\n"
            "    if 'a' not in d:\n        raise ValueError('x')\n",
            1,
            ["Make `d` contain `'a'`."],
        ),
    ],
)
def test_shapes_a_review_of_brackets_and_docstrings_found(
    code: str, cut: int, ways: list[str]
) -> None:
    assert _ways_of_cut(code, cut) == ways


@pytest.mark.parametrize(
    ("code", "cut", "ways"),
    [
        # Bound again on a line no statement is read from: the copy is not followed.
        (
            "def f(self, dim, other):\n    n = other\n    if dim: n = dim\n" + _RAISE,
            1,
            ["Make `n` at least `1`."],
        ),
        (
            "def f(self, dim, other):\n    n = dim\n    tmp = 0; n = other * 2\n" + _RAISE,
            1,
            ["Make `n` at least `1`."],
        ),
        (
            "def f(self, dim, s):\n    n = dim\n    try: n = int(s)\n    except ValueError: pass\n"
            + _RAISE,
            1,
            ["Make `n` at least `1`."],
        ),
        # Nor a negation whose name or source is.
        (
            "def f(self, strict, c):\n    if c: strict = False\n    lenient = not strict\n"
            "    if lenient:\n        raise ValueError('x')\n",
            1,
            ["Make `lenient` false or empty."],
        ),
        (
            "def f(self, strict, other):\n    check(\n        (strict := other),\n    )\n"
            "    lenient = not strict\n    if lenient:\n        raise ValueError('x')\n",
            1,
            ["Make `lenient` false or empty."],
        ),
        # A class body has no parameters: a name copied there is no setting.
        (
            "class C(Base):\n    dim = hidden\n    if dim < 1:\n        raise ValueError('x')\n",
            1,
            ["Make `dim` at least `1`."],
        ),
        # With the signature in view, a name it does not give is a module's.
        ("def f(self):\n    n = default_size\n" + _RAISE, 1, ["Make `n` at least `1`."]),
        # A lone closing quote passed to a call is no docstring's end.
        (
            "def f(self, n):\n" + _RESHAPED + '    logger.warning(\n        """\n'
            '        deprecated\n        """\n    )\n' + _RAISE,
            1,
            [],
        ),
        # A bracket opened in a docstring's text leaves the count off: none is trusted.
        (
            'def f(self, n):\n    """Doc.\n\n    Use it (like this\n    and that."""\n'
            + _RESHAPED
            + _RAISE,
            3,
            [],
        ),
        # ``del`` of an item changes what a copy holds.
        (
            "def f(self, layers):\n    blocks = layers\n    del layers[-1]\n"
            "    if len(blocks) < 4:\n        raise ValueError('x')\n",
            1,
            ["Make sure `blocks` has at least `4` items."],
        ),
    ],
)
def test_shapes_a_last_review_found(code: str, cut: int, ways: list[str]) -> None:
    assert _ways_of_cut(code, cut) == ways


def test_a_brace_that_ends_an_f_string_field_over_two_lines_opens_no_excerpt() -> None:
    """Python 3.12 lets an f-string's field span lines: its closing brace is not a
    bracket the excerpt started inside, and the reshape above it still counts."""
    code = "def f(self, n):\n" + _RESHAPED + '    msg = f"{\n        n!r}"\n' + _RAISE
    assert _ways_of_cut(code, 1) == []


def test_a_parameter_the_code_works_out_anew_is_not_said_as_the_callers() -> None:
    """``count = count_of(scale)`` throws the caller's ``count`` away: "Make `count` at
    most `8`" would read as advice about what to pass."""
    code = (
        "def pick(count, scale):\n"
        "    count = count_of(scale)\n"
        "    if count > 8:\n"
        "        raise ValueError('too many')\n"
    )
    assert _ways_of(code) == []


@pytest.mark.parametrize("cut", [1, 2])  # with the signature in the excerpt, and without
def test_a_test_above_where_a_name_is_worked_out_reads_what_it_held_there(cut: int) -> None:
    """The outer test reads the caller's ``count``; the inner one the code's own, which
    no value the caller passes can bring under ``total``."""
    code = (
        "def pick(metadata, count=None, fps=None):\n"
        "    total = metadata.total\n"
        "    if count is None and fps is not None:\n"
        "        count = int(total * fps)\n"
        "        if count > total:\n"
        "            raise ValueError('more frames than the video has')\n"
    )
    assert _ways_of_cut(code, cut) == (
        ["Give `count` a value (not `None`).", "Leave `fps` unset (`None`)."]
        if cut == 1  # the signature shows them as the caller's
        else ["Make sure `count` is not `None`.", "Make sure `fps` is `None`."]
    )


def test_a_test_below_the_new_value_that_reads_as_one_above_still_reads_the_new_one() -> None:
    """The inner ``n > 5`` is also written inside the outer test: where a test is read
    from decides whose ``n`` it reads, not its words."""
    code = (
        "def f(n=None, m=0):\n"
        "    if m > 10 or n > 5:\n"
        "        n = compute(m)\n"
        "        if n > 5:\n"
        "            raise ValueError('too far')\n"
    )
    assert _ways_of(code) == ["Set `m` to `10` or less, and set `n` to `5` or less."]


@pytest.mark.parametrize(
    ("signature", "above", "ways"),
    [
        ("m, size", "    n = compute(m)\n", ["Make `n` at most `5`."]),  # the code's own
        ("m, size", "    n = size\n", ["Set `n` (`size`) to `5` or less."]),  # a setting
        ("m, n", "    n += m\n", []),  # remade from the caller's: nothing to say of it
    ],
)
def test_a_test_above_a_new_value_reads_what_the_lines_above_it_left(
    signature: str, above: str, ways: list[str]
) -> None:
    code = (
        f"def f({signature}):\n" + above + "    if n > 5:\n"
        "        n = other(m)\n"
        "        if n > 7:\n"
        "            raise ValueError('x')\n"
    )
    assert _ways_of(code) == ways


def test_a_value_worked_out_in_place_of_the_callers_is_not_asked_of_the_caller() -> None:
    code = (
        "def resume(path):\n"
        "    if isinstance(path, bool) and path:\n"
        "        path = last_checkpoint()\n"
        "        if path is None:\n"
        "            raise ValueError('no checkpoint to resume from')\n"
    )
    assert _ways_of(code) == [
        "Pass `path` as something other than `bool`.",
        "Set `path` to a false or empty value.",
    ]


def test_a_key_named_in_a_string_is_not_the_name_the_code_binds() -> None:
    code = (
        "def load(kwargs, n):\n"
        "    if 'labels' in kwargs:\n"
        "        labels = kwargs['labels']\n"
        "        if len(labels) != n:\n"
        "            raise ValueError('labels and n disagree')\n"
    )
    assert _ways_of(code) == [
        "Make `kwargs` not contain `'labels'`.",
        "Make sure `labels` has exactly `n` items.",
    ]


@pytest.mark.parametrize(
    ("code", "cut", "ways"),
    [
        # Bound above the excerpt (scan cuts 15 lines above the raise): a value the code
        # works out, as far as the excerpt tells; not "Set `y_type` to 'binary'".
        (
            "def roc(y_true, pos_label):\n"
            "    y_type = type_of_target(y_true)\n"
            "    check(y_true)\n"
            "    if y_type != 'binary':\n"
            "        raise ValueError('only binary targets')\n",
            3,
            ["Make `y_type` equal to `'binary'`."],
        ),
        # The same test with the signature in view: the caller's parameter, set.
        (
            "def roc(y_type, pos_label):\n"
            "    check(y_type)\n"
            "    if y_type != 'binary':\n"
            "        raise ValueError('only binary targets')\n",
            1,
            ["Set `y_type` to `'binary'`."],
        ),
        # A parameter of a private helper is what the code passes it, not the user.
        (
            "def _fit(self, X, for_partial_fit=False):\n"
            "    if self.early_stopping and for_partial_fit:\n"
            "        raise ValueError('early stopping is not supported in partial_fit')\n",
            1,
            [
                "Set `early_stopping` to a false or empty value.",
                "Make `for_partial_fit` false or empty.",
            ],
        ),
        # Nor an attribute of one of its arguments (``coef`` is the code's warm start).
        (
            "def _path(X, coef=None):\n"
            "    if coef is not None and coef.size != 3:\n"
            "        raise ValueError('bad initial coef')\n",
            1,
            ["Make sure `coef` is `None`.", "Make `coef.size` equal to `3`."],
        ),
        # The length of a name the excerpt does not show given: "make sure", as its test.
        (
            "def fit(self, y, class_weight):\n"
            "    n_outputs = y.shape[1]\n"
            "    check(y)\n"
            "    if isinstance(class_weight, list) and len(class_weight) != n_outputs:\n"
            "        raise ValueError('one weight an output')\n",
            3,
            [
                "Make sure `class_weight` is not of type `list`.",
                "Make sure `class_weight` has exactly `n_outputs` items.",
            ],
        ),
        # A public function whose name ends in "_" works in place; it is no private one.
        (
            "def clip_grad_norm_(parameters, max_norm, error_if_nonfinite=False):\n"
            "    if error_if_nonfinite and total.isnan():\n"
            "        raise RuntimeError('the total norm is not finite')\n",
            1,
            ["Set `error_if_nonfinite` to a false or empty value."],
        ),
        # A closure reads the parameters of the function around it.
        (
            "def make_validator(mode):\n"
            "    def validate(value):\n"
            "        if mode not in ('strict', 'lax'):\n"
            "            raise ValueError('unknown mode')\n",
            1,
            ["Set `mode` to `'strict'` or `'lax'`."],
        ),
        # Not the caller's: an outer parameter bound anew, a private outer function's, and
        # a function above a class (which encloses none of its methods).
        (
            "def make(size):\n"
            "    size = len(size)\n"
            "    def check(x):\n"
            "        if size > 3:\n"
            "            raise ValueError('too many')\n",
            1,
            ["Make `size` at most `3`."],
        ),
        (
            "def _build(mode):\n"
            "    def validate(value):\n"
            "        if mode not in ('strict', 'lax'):\n"
            "            raise ValueError('unknown mode')\n",
            1,
            ["Make sure `mode` is `'strict'` or `'lax'`."],
        ),
        (
            "def helper(mode):\n"
            "    return mode\n"
            "class Reader:\n"
            "    def read(self, path):\n"
            "        if mode not in ('a', 'b'):\n"
            "            raise ValueError('unknown mode')\n",
            1,
            ["Make sure `mode` is `'a'` or `'b'`."],
        ),
        # Cut inside a long signature, as scan cuts one: its last parameters are in view.
        (
            "    def __init__(\n"
            "        self,\n"
            "        size=None,\n"
            "        mode='a',\n"
            "        **kwargs,\n"
            "    ):\n"
            "        super().__init__(**kwargs)\n"
            "        if mode not in ('a', 'b'):\n"
            "            raise ValueError('bad mode')\n",
            3,
            ["Set `mode` to `'a'` or `'b'`."],
        ),
        # A default's name is no parameter: ``size`` is the module's.
        (
            "def f(x, n=size):\n    if size > 3:\n        raise ValueError('too big')\n",
            1,
            ["Make `size` at most `3`."],
        ),
        # An attribute fitting sets (``classes_``) or a private one is no setting.
        (
            "def predict(self, X):\n"
            "    if self.n_classes_ > 2:\n"
            "        raise ValueError('binary only')\n",
            1,
            ["Make `self.n_classes_` at most `2`."],
        ),
        (
            "def __exit__(self, *args):\n"
            "    if not self._entered:\n"
            "        raise RuntimeError('not entered')\n",
            1,
            ["Make `self._entered` true or non-empty."],
        ),
        # An attribute of a loop's item; a computed value's items, said with "make sure".
        (
            "def check(parameters):\n"
            "    for p in parameters:\n"
            "        if p.kind == p.VAR_POSITIONAL:\n"
            "            raise RuntimeError('no *args')\n",
            1,
            ["Make `p.kind` different from `p.VAR_POSITIONAL`."],
        ),
        (
            "def split(groups):\n"
            "    unique_groups = np.unique(groups)\n"
            "    if len(unique_groups) <= 1:\n"
            "        raise ValueError('one group')\n",
            1,
            ["Make sure `unique_groups` has more than `1` item."],
        ),
        (
            "def search(refit, results):\n"
            "    best_index = refit(results)\n"
            "    if not isinstance(best_index, numbers.Integral):\n"
            "        raise TypeError('best_index must be an int')\n",
            1,
            ["Make sure `best_index` is of type `numbers.Integral`."],
        ),
    ],
)
def test_a_value_the_caller_may_not_set_is_said_as_one_to_make(
    code: str, cut: int, ways: list[str]
) -> None:
    assert _ways_of_cut(code, cut) == ways


def test_a_name_the_excerpt_does_not_show_given_is_set_where_the_site_knows_its_flag() -> None:
    code = (
        "def verify(self, parallel_config):\n"
        "    tensor_parallel_size = parallel_config.tensor_parallel_size\n"
        "    check(parallel_config)\n"
        "    if tensor_parallel_size > 8:\n"
        "        raise ValueError('too many')\n"
    )
    record = scanned(code, 5)
    from errdex.records.model import Excerpt

    cut = Excerpt(3, "".join(code.splitlines(keepends=True)[2:]))
    record = replace(record, source=replace(record.source, condition=None, excerpt=cut))
    found = avoid.avoid_of(record)
    assert found is not None
    flags = {"tensor_parallel_size": ["--tensor-parallel-size"]}
    assert [avoid.said(way, avoid.flag_of(flags)) for way in found.ways] == [
        "Set `tensor_parallel_size` (`--tensor-parallel-size`) to `8` or less."
    ]
    assert [avoid.said(way) for way in found.ways] == ["Make `tensor_parallel_size` at most `8`."]


@pytest.mark.parametrize(
    ("code", "caught"),
    [
        (
            "def version(package_name):\n"
            "    try:\n"
            "        return metadata.version(package_name)\n"
            "    except metadata.PackageNotFoundError:\n"
            "        raise RuntimeError(f'{package_name!r} is not installed') from None\n",
            ("metadata.PackageNotFoundError",),
        ),
        (
            "def load(path):\n"
            "    try:\n"
            "        data = read(path)\n"
            "    except (KeyError, IndexError) as exc:  # the table is short\n"
            "        try:\n"
            "            data = fallback(path)\n"
            "        except:\n"
            "            raise ValueError('no table in ' + path)\n",
            ("any exception", "KeyError, IndexError"),
        ),
        (
            "def get(table, key):\n"
            "    try:\n"
            "        return table[key]\n"
            "    except KeyError: raise LookupError('no ' + key)\n",
            ("KeyError",),
        ),
        # Not a handler of the raise: a branch after it, and a function's own body.
        (
            "def f(x):\n"
            "    try:\n"
            "        g(x)\n"
            "    except OSError:\n"
            "        pass\n"
            "    if x:\n"
            "        raise ValueError('x')\n",
            (),
        ),
        (
            "try:\n"
            "    import yaml\n"
            "except ImportError:\n"
            "    def load(text):\n"
            "        raise RuntimeError('no yaml')\n",
            (),
        ),
    ],
)
def test_the_except_clauses_around_a_raise_are_what_it_handles(
    code: str, caught: tuple[str, ...]
) -> None:
    assert avoid.handling_of(scanned(code, len(code.splitlines()))) == caught


HANDLED = """\
repo: pallets/click
exception: RuntimeError
message: "{package_name} is not installed. Try passing 'package_name' instead."
source:
  commit: 0123456789abcdef0123456789abcdef01234567
  path: src/click/decorators.py
  line: 6
  function: version_option
  excerpt:
    start: 1
    code: |
      def version_option(version=None, package_name=None):
          if version is None and package_name is not None:
              try:
                  version = metadata.version(package_name)
              except metadata.PackageNotFoundError:
                  raise RuntimeError(
                      f"{package_name!r} is not installed. Try passing 'package_name' instead."
                  ) from None
"""


def test_a_raise_in_an_except_clause_says_what_it_handles(tmp_path: Path) -> None:
    """ "Raised when `version is None and package_name is not None`" read as if the test
    were enough: the raise runs only once ``metadata.version`` raised what it catches."""
    site = build_site(make_content(tmp_path, {"handled.yaml": HANDLED}), tmp_path)
    (page,) = (site / "errors").glob("*/index.html")
    when = soup(page).select_one("dl.when")
    assert when is not None
    terms = [dt.get_text() for dt in when.select("dt")]
    assert terms[:2] == ["Raised when", "Raised while handling"]
    assert when.select("dd")[1].get_text() == (
        "metadata.PackageNotFoundError: the code in the try above raised it first"
    )
    (document,) = (site / "api" / "errors").glob("*.json")
    assert json.loads(document.read_text())["handling"] == ["metadata.PackageNotFoundError"]


# --- What scan reads of the whole function: ``source.parameters`` ---------------------


FILLER = "    width = 1\n" * 20
"""Lines enough to push a signature above the excerpt scan keeps (15 above a raise)."""


def from_scan(tmp_path: Path, code: str, words: str) -> Any:
    """The record scan writes for the raise of ``code`` whose message holds ``words``,
    read back from its file as a build reads it."""
    from errdex.source.scan import scan_text
    from errdex.source.update import new_record

    site = next(s for s in scan_text(code, "pkg/m.py") if words in s.template)
    content = tmp_path / "content"
    path = content / "errors" / "record.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new_record("o/n", site, "0" * 40, None), encoding="utf-8")
    doc, problems = load_file(path)
    assert doc is not None and problems == []
    return record_from(doc, content)


def ways(found: Any) -> list[str]:
    avoided = avoid.avoid_of(found)
    return [] if avoided is None else [avoid.said(w) for w in avoided.ways]


def test_a_parameter_whose_signature_lies_above_the_excerpt_is_the_callers(
    tmp_path: Path,
) -> None:
    code = (
        "def generate(self, input_ids=None, inputs_embeds=None, *args, **kwargs):\n"
        + FILLER
        + "    if input_ids is None and inputs_embeds is None:\n"
        + "        raise ValueError('give input_ids or inputs_embeds')\n"
    )
    found = from_scan(tmp_path, code, "give input_ids")
    assert found.source.excerpt.start > 1  # the excerpt does not show the signature
    text = (tmp_path / "content" / found.content_path).read_text()
    assert "  parameters: [input_ids, inputs_embeds, args, kwargs]\n" in text
    assert ways(found) == [
        "Give `input_ids` a value (not `None`).",
        "Give `inputs_embeds` a value (not `None`).",
    ]
    # Without what scan read, the excerpt alone cannot tell whose the names are.
    unknown = replace(found, source=replace(found.source, parameters=None))
    assert ways(unknown) == [
        "Make sure `input_ids` is not `None`.",
        "Make sure `inputs_embeds` is not `None`.",
    ]


def test_a_parameter_whose_default_lies_above_the_excerpt_is_set_to_none_not_left_unset(
    tmp_path: Path,
) -> None:
    # ``weight`` defaults to a column name 20 lines above the excerpt: leaving it unset
    # keeps that name, and the raise. scan records that ``order`` defaults to None.
    code = (
        "def to_matrix(graph, weight='weight', order=None):\n"
        + FILLER
        + "    if weight is not None and order is not None:\n"
        + "        raise ValueError('weight and order cannot both be given')\n"
    )
    found = from_scan(tmp_path, code, "cannot both")
    text = (tmp_path / "content" / found.content_path).read_text()
    assert "  parameters: [graph, weight, order]\n  optional: [order]\n" in text
    assert ways(found) == ["Set `weight` to `None`.", "Leave `order` unset (`None`)."]
    # A record scanned before scan wrote ``optional`` does not tell which default is
    # None: setting each to None holds whatever its default.
    older = replace(found, source=replace(found.source, optional=()))
    assert ways(older) == ["Set `weight` to `None`.", "Set `order` to `None`."]


def test_the_defaults_of_a_signature_the_excerpt_starts_inside_are_read(tmp_path: Path) -> None:
    # The excerpt's first line is inside the signature: the defaults it shows tell
    # which parameter a caller may leave out to make it None.
    code = (
        "def to_matrix(\n"
        + "".join(f"    unused_{n}=1,\n" for n in range(12))
        + "    weight='weight',\n"
        + "    order=None,\n"
        + "    *sizes,\n"
        + "):\n"
        + "    if weight is not None and order is not None:\n"
        + "        raise ValueError('weight and order cannot both be given')\n"
        + "    if sizes:\n"
        + "        raise ValueError('no sizes are taken')\n"
    )
    found = from_scan(tmp_path, code, "cannot both")
    assert found.source.excerpt.code.startswith("    unused_")
    assert ways(found) == ["Set `weight` to `None`.", "Leave `order` unset (`None`)."]
    unknown = replace(found, source=replace(found.source, parameters=None))
    assert ways(unknown) == ways(found)
    sizes = from_scan(tmp_path, code, "no sizes")
    assert ways(sizes) == ["Pass no other positional arguments (`*sizes`)."]


def test_a_call_whose_arguments_end_as_a_signature_does_is_no_signature(tmp_path: Path) -> None:
    # The excerpt starts inside a call that closes with ``):``, as a signature does: its
    # ``order=None`` is an argument, not the default of the function's ``order``.
    code = (
        "def to_matrix(graph, weight='weight', order='asc', nodelist=None):\n"
        + FILLER
        + "    if order is not None and clashes(\n"
        + "".join(f"        key{n}={n},\n" for n in range(14))
        + "        order=None,\n"
        + "    ):\n"
        + "        raise ValueError('order clashes with the graph')\n"
    )
    found = from_scan(tmp_path, code, "clashes with")
    assert found.source.excerpt.code.startswith("        key")
    assert found.source.optional == ("nodelist",)
    assert ways(found) == ["Set `order` to `None`."]


def test_a_call_passing_the_callers_own_names_is_no_signature_either(tmp_path: Path) -> None:
    # Every argument the call names is a parameter, but not all of them from the first
    # on, in order, as a signature's tail holds them.
    code = (
        "def to_matrix(graph, weight='weight', order='asc', nodelist=None):\n"
        + FILLER
        + "    if order is not None and clashes(\n"
        + "        graph,\n"
        + "".join(f"        # note {n}\n" for n in range(14))
        + "        order=None,\n"
        + "    ):\n"
        + "        raise ValueError('order clashes with the graph')\n"
    )
    assert ways(from_scan(tmp_path, code, "clashes with")) == ["Set `order` to `None`."]


def test_a_signature_tail_with_parameters_bound_anew_below_it_is_read(tmp_path: Path) -> None:
    # scan leaves out of ``parameters`` those bound anew, in any way: the tail still
    # holds the rest in order.
    code = (
        "def to_matrix(\n"
        + "".join(f"    unused_{n}=1,\n" for n in range(12))
        + "    order=None,\n"
        + "    *sizes,\n"
        + "):\n"
        + "    unused_3: int = 4\n"
        + "    del unused_4\n"
        + "    if sizes:\n"
        + "        raise ValueError('no sizes are taken')\n"
    )
    found = from_scan(tmp_path, code, "no sizes")
    assert "unused_3" not in (found.source.parameters or ())
    assert ways(found) == ["Pass no other positional arguments (`*sizes`)."]


def test_a_helper_a_function_calls_in_its_return_takes_the_outer_codes_values(
    tmp_path: Path,
) -> None:
    # ``return inner(mode)`` returns what ``inner`` gives, not ``inner``: its ``mode`` is
    # what the outer code passes it, and the caller's ``mode`` defaults to "fast".
    code = (
        "def outer(mode='fast', level=None):\n"
        + "    def inner(mode=None):\n"
        + FILLER.replace("    ", "        ")
        + "        if mode is not None and level is not None:\n"
        + "            raise ValueError('mode and level are both set')\n"
        + "    return inner(mode)\n"
    )
    found = from_scan(tmp_path, code, "both set")
    assert found.source.parameters == ("level",)
    assert ways(found) == ["Make sure `mode` is `None`.", "Leave `level` unset (`None`)."]


def test_the_objects_value_and_the_callers_that_print_alike_are_told_apart(
    tmp_path: Path,
) -> None:
    # ``self.`` is left out of a setting's name: a test of the object's value against the
    # caller's must not read "Make `rows * cols` equal to `rows * cols`".
    code = (
        "class Matrix:\n"
        "    def reshape(self, rows, cols):\n"
        "        if self.rows * self.cols != rows * cols:\n"
        "            raise ValueError('cannot reshape to that size')\n"
        "        if self.size != size or self.cols < cols:\n"
        "            raise ValueError('the size is fixed')\n"
    )
    assert ways(from_scan(tmp_path, code, "cannot reshape")) == [
        "Make `rows * cols` equal to `self.rows * self.cols`."
    ]
    fixed = from_scan(tmp_path, code, "size is fixed")
    assert ways(fixed) == [
        "Make `size` equal to `self.size`, and set `cols` to `self.cols` or less."
    ]
    # Lookup's hints: a placeholder ``{size}`` is the caller's value, ``{self.size}`` the
    # object's. Before, "size: 3; yours is 3", both read from the caller's ``{size}``.
    avoided = avoid.avoid_of(fixed)
    assert avoided is not None
    documented = avoid.document(avoided, avoid.flag_of({}))["ways"]
    terms = [way["terms"] for way in documented]
    assert avoid.hints(terms, {"size": "3", "cols": "2"}) == [[]]
    assert avoid.hints(terms, {"size": "3", "self.size": "4"}) == [["size: 4; yours is 3"]]
    # Each side with a ``self.`` of its own, or a membership: no way reads them apart.
    others = (
        "class Matrix:\n"
        "    def fit(self, rows, cols, items, size):\n"
        "        if self.rows * cols != rows * self.cols:\n"
        "            raise ValueError('the sides are mixed')\n"
        "        if len(self.items) != len(items):\n"
        "            raise ValueError('the lengths differ')\n"
        "        if size in self.size:\n"
        "            raise ValueError('the size is taken')\n"
    )
    for words in ("sides are mixed", "lengths differ", "size is taken"):
        assert ways(from_scan(tmp_path, others, words)) == [], words


def test_a_parameter_bound_anew_above_the_excerpt_is_the_codes(tmp_path: Path) -> None:
    code = (
        "def fit(self, batch=None, rounds=None):\n"
        + "    batch = batch or self.default_batch\n"
        + FILLER
        + "    if batch is None or rounds is None:\n"
        + "        raise ValueError('batch and rounds are both needed')\n"
    )
    found = from_scan(tmp_path, code, "both needed")
    assert found.source.parameters == ("rounds",)
    assert ways(found) == [
        "Make sure `batch` is not `None`, and give `rounds` a value (not `None`)."
    ]


def test_a_helper_defined_in_a_function_takes_the_outer_codes_values(tmp_path: Path) -> None:
    # The helper's parameters are what the outer code passes it, not the caller's; the
    # outer function's parameters are the caller's.
    code = """\
def draw(graph, labels, size=12):
    def check(value, name):
        if isinstance(value, dict):
            if len(value) != len(labels):
                raise ValueError('a value for every label')
    check(size, "size")
"""
    found = from_scan(tmp_path, code, "every label")
    assert found.source.parameters == ("graph", "labels", "size")
    said_ways = ways(found)
    assert said_ways and not any(w.startswith(("Pass `value`", "Give `value`")) for w in said_ways)
    # A record without what scan read (written by hand, or by an older scan): the
    # excerpt shows the outer ``def``, and tells as much.
    unknown = replace(found, source=replace(found.source, parameters=None))
    assert ways(unknown) == said_ways


def test_a_wrapper_a_function_returns_takes_the_callers_values(tmp_path: Path) -> None:
    code = """\
def retried(func):
    def wrapper(attempts=None):
        if attempts is None:
            raise TypeError('attempts must be given to a retried call')
        return func(attempts)
    return wrapper
"""
    found = from_scan(tmp_path, code, "retried call")
    assert found.source.parameters == ("attempts", "func")
    assert ways(found) == ["Give `attempts` a value (not `None`)."]
    unknown = replace(found, source=replace(found.source, parameters=None))
    assert ways(unknown) == ["Give `attempts` a value (not `None`)."]


def test_scan_reads_every_way_a_function_binds_a_name() -> None:
    import ast as python

    from errdex.source.scan import bindings

    tree = python.parse(
        """\
def f(a, b, c, d, e, g, h, k, m, n):
    a = 1
    for b in []: pass
    with open(x) as c: pass
    import d
    try: pass
    except E as e: pass
    del g
    match x:
        case [*h]: pass
        case {**k}: pass
    def m(): n = 1
    [n for n in []]
"""
    )
    function = tree.body[0]
    assert isinstance(function, python.FunctionDef)
    bound = {name for _, name in bindings(function)}
    # ``n`` is bound only in the nested function and in the comprehension: scopes of
    # their own.
    assert bound == set("abcdeghkm")


def test_an_else_whose_chain_starts_above_the_excerpt_is_said_from_every_test(
    tmp_path: Path,
) -> None:
    # scan records the ``else`` of an ``if``/``elif`` chain as none of the chain's tests
    # (it read only the last one): each test that does not raise is a way out.
    code = (
        "def transport(proxy, kind):\n"
        "    if proxy is None:\n"
        + FILLER.replace("    ", "        ")
        + "        pool = None\n"
        + "    elif proxy.scheme in ('http', 'https'):\n"
        + "        pool = 1\n"
        + "    elif proxy.scheme == 'socks5':\n"
        + "        pool = 2\n"
        + "    elif proxy.scheme == 'ftp':\n"
        + "        raise ValueError('ftp proxies are gone')\n"
        + "    else:\n"
        + "        raise ValueError('the proxy protocol must be http, https or socks5')\n"
    )
    found = from_scan(tmp_path, code, "proxy protocol")
    assert found.source.excerpt.start > 2  # the excerpt does not reach the chain's ``if``
    assert found.source.condition == (
        "not (proxy is None or proxy.scheme in ('http', 'https') or proxy.scheme == 'socks5')"
    )
    # ``proxy`` has no default: a caller sets it to None, leaving it out is a TypeError.
    assert ways(found) == [
        "Set `proxy` to `None`.",
        "Make sure `proxy.scheme` is `'http'` or `'https'`.",
        "Make `proxy.scheme` equal to `'socks5'`.",
    ]


def test_a_record_scanned_before_the_chain_was_recorded_whole_reads_as_it_did() -> None:
    # An older scan recorded the ``else`` as ``not (…)`` of the test before it alone: the
    # excerpt, which shows the whole chain, is read as before.
    code = """\
def kind_of(value, strict):
    if strict:
        if value is None:
            return 0
        elif isinstance(value, int):
            return 1
        else:
            raise TypeError("value must be an int or None")
"""
    found = scanned(code, 8)
    old = replace(found, source=replace(found.source, condition="not (isinstance(value, int))"))
    new = replace(
        found,
        source=replace(found.source, condition="not (value is None or isinstance(value, int))"),
    )
    assert (
        avoid.guards_of(old)
        == avoid.guards_of(new)
        == (
            "strict",
            "not (value is None or isinstance(value, int))",
        )
    )


def test_a_parameter_the_excerpt_binds_anew_where_its_reader_cannot_see_is_the_codes(
    tmp_path: Path,
) -> None:
    # The excerpt's reader does not follow a ``with`` body, a ``;`` or a ``match``: scan,
    # which reads the whole function, leaves such a name out of what the caller gives.
    in_with = "    with lock:\n        value = compute(path)\n"
    for binds in (in_with, "    y = 1; value = f(path)\n"):
        code = (
            "def with_block(path, value, lock=None):\n"
            + FILLER
            + binds
            + "    if value is None:\n"
            + "        raise ValueError('with_block failed')\n"
        )
        found = from_scan(tmp_path, code, "with_block failed")
        assert found.source.parameters == ("path", "lock")
        assert ways(found) == ["Make sure `value` is not `None`."]


def test_a_parameter_named_in_any_script_is_written_and_read(tmp_path: Path) -> None:
    code = (
        "def f(caf\u00e9, na\u00efve=None):\n"
        + FILLER
        + "    if na\u00efve is None:\n"
        + "        raise ValueError('naive missing')\n"
    )
    found = from_scan(tmp_path, code, "naive missing")
    assert found.source.parameters == ("caf\u00e9", "na\u00efve")
    assert ways(found) == ["Give `na\u00efve` a value (not `None`)."]


def test_a_wrapper_returned_wrapped_takes_the_callers_values(tmp_path: Path) -> None:
    code = """\
import functools
def retried(func):
    def wrapper(attempts=None):
        if attempts is None:
            raise TypeError('attempts must be given to a wrapped call')
        return func(attempts)
    return functools.wraps(func)(wrapper)
"""
    found = from_scan(tmp_path, code, "wrapped call")
    assert found.source.parameters == ("attempts", "func")
    assert ways(found) == ["Give `attempts` a value (not `None`)."]


def test_a_test_whose_else_raises_is_still_said_as_what_raises_it() -> None:
    # "When it happens" says the test that leads to the raise, whatever the ``else`` does
    # (a rule that dropped it, and the way out with it, was taken back: an ``else`` that
    # may return first still avoids this raise).
    code = """\
def read_literal(rep, fallback=None):
    if isinstance(rep, str):
        raise TypeError("a string is not read here")
    else:
        if fallback is not None:
            return fallback
        raise ValueError("no fallback")
"""
    assert avoid.guards_of(scanned(code, 3)) == ("isinstance(rep, str)",)
    assert ways(scanned(code, 3)) == ["Pass `rep` as something other than `str`."]


def test_a_name_a_loop_binds_below_the_test_is_the_codes(tmp_path: Path) -> None:
    # ``root = n`` below the test runs before it on the loop's next pass: the test reads
    # the code's value, not the caller's. scan, which reads the whole function, says so
    # in ``source.parameters``; a loop's ``else``, run once after it, binds nothing
    # before the test.
    body = """\
    if root is None:
        for n, degree in graph.in_degree:
            if degree == 0:
                if root is not None:
                    raise ValueError("more than one source")
                root = n
"""
    far = "def find_root(graph, root=None):\n" + FILLER + body
    from_far = from_scan(tmp_path, far, "more than one source")
    assert from_far.source.parameters == ("graph",)
    assert "Leave `root` unset (`None`)." not in ways(from_far)
    after = """\
    for item in items:
        pass
    else:
        if mode is None:
            raise ValueError("a mode is needed after the loop")
        mode = mode.lower()
"""
    found = from_scan(tmp_path, "def find(items, mode=None):\n" + FILLER + after, "after the")
    assert found.source.parameters == ("items", "mode")
    assert ways(found) == ["Give `mode` a value (not `None`)."]


NESTED_OR = """\
repo: example/mirror
exception: ValueError
message: "Cannot keep the file '{name}' on Windows."
source:
  commit: 0123456789abcdef0123456789abcdef01234567
  path: mirror/local.py
  line: 4
  function: local_name
  excerpt:
    start: 1
    code: |
      def local_name(name):
          if os.name == "nt":
              if name.startswith("..\\\\") or "\\\\..\\\\" in name:
                  raise ValueError(f"Cannot keep the file '{name}' on Windows.")
          return name
"""


def test_tests_joined_by_and_keep_an_or_of_their_own_whole(tmp_path: Path) -> None:
    """An ``or`` nested under an ``if`` read "os.name == 'nt' and a or b": Python reads
    that as ``(nt and a) or b``, as if the error came off Windows too."""
    site = build_site(make_content(tmp_path, {"nested.yaml": NESTED_OR}), tmp_path)
    (page,) = (site / "errors").glob("*/index.html")
    when = soup(page).select_one("dl.when dd")
    assert when is not None
    assert [code.get_text() for code in when.select("code")][:2] == [
        "os.name == 'nt'",
        "(name.startswith('..\\\\') or '\\\\..\\\\' in name)",
    ]
    (document,) = (site / "api" / "errors").glob("*.json")
    # The data keeps each test as the code has it: a list of tests that all hold.
    assert json.loads(document.read_text())["avoid"]["guards"][1].startswith("name.startswith")


@pytest.mark.parametrize(
    ("tests", "said"),
    [
        (["a or b"], ["a or b"]),  # alone: nothing to join
        (["x", "a or b", "c and d", "not e"], ["x", "(a or b)", "c and d", "not e"]),
        (["x", "y if z else w", "(a or b)"], ["x", "(y if z else w)", "(a or b)"]),
        (["x", "a or (b"], ["x", "(a or (b)"]),  # not Python: its "or" read as one
        # An else branch's test as a reader reads it; "not (a < b)" is no "a >= b" (NaN).
        (["not (text_pair is not None)"], ["text_pair is None"]),
        (["not (mode == 'a')", "not (k in seen)"], ["mode != 'a'", "k not in seen"]),
        (["not not ready", "not (a < b)"], ["ready", "not (a < b)"]),
    ],
)
def test_anded_puts_what_binds_looser_than_and_in_parentheses(
    tests: list[str], said: list[str]
) -> None:
    assert avoid.anded(tests) == said


@pytest.mark.parametrize(
    ("code", "modules"),
    [
        (
            "def load():\n"
            "    try:\n"
            "        import rjieba\n"
            "    except ModuleNotFoundError as error:\n"
            "        raise error.__class__('You need rjieba to cut words')\n",
            ("rjieba",),
        ),
        (  # the top module of a dotted import; the clause of two that catches it
            "try:\n"
            "    from fast_fetch.hub import Client\n"
            "    import zstandard\n"
            "except ValueError:\n"
            "    pass\n"
            "except (ImportError, ModuleNotFoundError):\n"
            "    raise RuntimeError('the hub client needs fast_fetch')\n",
            ("fast_fetch", "zstandard"),
        ),
        (  # a module of its own package is no install
            "try:\n    from . import _speedups\nexcept ImportError:\n    raise ImportError('x')\n",
            (),
        ),
        (  # a raise handling another error
            "try:\n    import yaml\nexcept KeyError:\n    raise RuntimeError('x')\n",
            (),
        ),
        (  # the try above the excerpt
            "    import yaml\nexcept ImportError:\n    raise RuntimeError('x')\n",
            (),
        ),
        (  # an import in the clause's own code, not in the try
            "try:\n    load()\nexcept ImportError:\n    import sys\n    raise RuntimeError('x')\n",
            (),
        ),
        (  # every module of one import; a name it is bound to is no module
            "try:\n    import numpy, scipy as sp\n"
            "except ImportError:\n    raise RuntimeError('x')\n",
            ("numpy", "scipy"),
        ),
        (  # a clause that catches more than a failed import
            "try:\n    import numpy\n    numpy.float128\n"
            "except (ImportError, AttributeError):\n    raise RuntimeError('x')\n",
            (),
        ),
        (  # Python's own modules, and the record's own package (vllm, m.py), are none
            "try:\n    from __future__ import annotations\n    import lzma\n"
            "    from vllm._native import fast\n    import m\n    import zstandard\n"
            "except ModuleNotFoundError:\n    raise RuntimeError('x')\n",
            ("zstandard",),
        ),
        (  # an import in a block of the try's own, whose failure that block handles
            "try:\n    import core\n    try:\n        import speedups\n"
            "    except ImportError:\n        speedups = None\n"
            "except ImportError:\n    raise RuntimeError('x')\n",
            ("core",),
        ),
        (  # a namespace that many packages share: the module, not `google`
            "try:\n    from google.protobuf import descriptor_pb2\n"
            "    import azure.storage.blob\n    from ruamel.yaml import YAML\n"
            "except ImportError:\n    raise RuntimeError('x')\n",
            ("google.protobuf", "azure.storage.blob", "ruamel.yaml"),
        ),
        (  # a raise under a test inside the clause: the import failed all the same
            "try:\n    import rjieba\nexcept ImportError:\n    if strict:\n"
            "        pass\n    elif quiet:\n        log()\n    else:\n"
            "        raise RuntimeError('x')\n",
            ("rjieba",),
        ),
        (  # a test of why the import failed: installed, maybe, but broken
            "try:\n    import eetq\nexcept ImportError as exc:\n"
            "    if 'shard_checkpoint' in str(exc):\n        raise ImportError('x')\n",
            (),
        ),
        (  # its else, or a name made of the exception: why the import failed, too
            "try:\n    import eetq\nexcept ImportError as exc:\n"
            "    if 'shard' not in str(exc):\n        pass\n    else:\n"
            "        raise ImportError('x')\n",
            (),
        ),
        (
            "try:\n    import eetq\nexcept ImportError as exc:\n    msg = str(exc)\n"
            "    if 'shard' in msg:\n        raise ImportError('x')\n",
            (),
        ),
        (  # the modules a namespace's own from-import names
            "try:\n    from google import genai\n    from azure import identity as az\n"
            "except ImportError:\n    raise RuntimeError('x')\n",
            ("google.genai", "azure.identity"),
        ),
        (  # under a loop inside the clause: not read
            "try:\n    import rjieba\nexcept ImportError:\n    for name in names:\n"
            "        raise RuntimeError('x')\n",
            (),
        ),
    ],
)
def test_a_raise_handling_a_failed_import_names_what_to_install(
    code: str, modules: tuple[str, ...]
) -> None:
    assert avoid.imports_tried(scanned(code, len(code.splitlines()))) == modules


TRIED = """\
repo: example/words
exception: ModuleNotFoundError
message: "You need rjieba to cut words. See how to install it."
source:
  commit: 0123456789abcdef0123456789abcdef01234567
  path: words/cut.py
  line: 5
  function: Cutter.load
  excerpt:
    start: 1
    code: |
      def load(self):
          try:
              import rjieba
          except ModuleNotFoundError as error:
              raise error.__class__("You need rjieba to cut words. See how to install it.")
"""


def test_a_page_of_a_failed_import_says_to_install_it(tmp_path: Path) -> None:
    """A raise that handles a failed import led by no test had no "How to avoid it"
    (48 pages of transformers 4.57.1); installing what the ``try`` imports avoids it."""
    site = build_site(make_content(tmp_path, {"tried.yaml": TRIED}), tmp_path)
    (page,) = (site / "errors").glob("*/index.html")
    section = soup(page).select_one("section.avoid")
    assert section is not None
    assert [li.get_text() for li in section.select("li.derived")] == ["Install rjieba."]
    assert "what the try above the raise imports" in section.get_text()
    assert "under When it happens" not in section.get_text()  # no test leads to it
    (document,) = (site / "api" / "errors").glob("*.json")
    assert json.loads(document.read_text())["avoid"]["imports"] == ["rjieba"]


def test_a_failed_import_of_a_package_named_otherwise_names_the_package(tmp_path: Path) -> None:
    """``pip install PIL`` finds no package: the way names the one that gives ``PIL``."""
    record = TRIED.replace("rjieba", "PIL")
    site = build_site(make_content(tmp_path, {"tried.yaml": record}), tmp_path)
    (page,) = (site / "errors").glob("*/index.html")
    section = soup(page).select_one("section.avoid")
    assert section is not None
    assert [li.get_text() for li in section.select("li.derived")] == [
        "Install Pillow (imported as PIL)."
    ]
    (document,) = (site / "api" / "errors").glob("*.json")
    assert json.loads(document.read_text())["avoid"]["imports"] == ["PIL"]


UNSAID = """\
repo: example/words
exception: RuntimeError
message: "The fast path needs fastmath and a batch of the right size."
source:
  commit: 0123456789abcdef0123456789abcdef01234567
  path: words/fast.py
  line: 6
  function: run
  excerpt:
    start: 1
    code: |
      def run(x):
          if x.shape[0] != compute(x):
              try:
                  import fastmath
              except ImportError:
                  raise RuntimeError("The fast path needs fastmath and a batch of the right size.")
"""


def test_the_note_names_no_test_whose_way_out_cannot_be_said(tmp_path: Path) -> None:
    """A test that leads to the raise but cannot be said safely gives no way out: the
    note says the install way comes from the import alone."""
    site = build_site(make_content(tmp_path, {"unsaid.yaml": UNSAID}), tmp_path)
    (page,) = (site / "errors").glob("*/index.html")
    section = soup(page).select_one("section.avoid")
    assert section is not None
    assert [li.get_text() for li in section.select("li.derived")] == ["Install fastmath."]
    note = section.select_one(".derived-note")
    assert note is not None and "When it happens" not in note.get_text()
