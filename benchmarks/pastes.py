"""What users paste into the search box: a record's message filled in and dressed up.

``make_paste(record, kind, rng)`` fills the template's placeholders with plausible values
and returns it as one of ``KINDS``: the bare message, a traceback, a chained traceback,
log lines, a traceback with the message wrapped over lines, a piece of the message, or
the message as retyped by hand. ``foreign_paste(rng)`` is an error from other software
(CUDA out of memory, missing modules, HTTP errors …) that must not match any record.

Everything depends only on the ``random.Random`` passed in.
"""

from __future__ import annotations

import random
import re
import textwrap
from collections.abc import Callable, Mapping
from typing import Any

from errdex.records.model import parse_template

from .corpus import ARCH_NAMES, ATTN_BACKENDS, DTYPES, MODELS, QUANTS

KINDS = ("bare", "traceback", "chained", "log", "multiline", "partial", "retyped")

# --- Values for placeholders ---------------------------------------------------------

_WORDS = (
    "auto",
    "fp8",
    "mp",
    "ray",
    "xgrammar",
    "llama3_json",
    "deepseek_r1",
    "hermes",
    "lmcache",
    "NixlConnector",
    "pooling",
    "generate",
    "embed",
    "classify",
    "sharded_state",
    "safetensors",
    "mistral",
    "slow",
    "lm_head",
    "q_proj",
    "model.layers.31.mlp.experts.w13_weight",
    "model.embed_tokens.weight",
    "tool",
    "developer",
    "function",
    "image",
    "video",
)
_ERRORS = (
    "CUDA error: an illegal memory access was encountered",
    "No module named 'flash_attn'",
    "unsupported operand type(s) for //: 'NoneType' and 'int'",
    "list index out of range",
    "the engine core process exited with code -9",
    "Connection reset by peer",
    "expected str, bytes or os.PathLike object, not NoneType",
    "invalid load key, 'v'.",
    "NCCL error: unhandled cuda error",
    "operation not permitted",
)
_USERS = ("ubuntu", "root", "jane", "dev", "ml-ops", "a.kumar")
_SPACED_DIRS = ("My Models", "LLM Server", "New folder", "fine tunes (v2)", "Jane Doe")


def _path(rng: random.Random) -> str:
    model = rng.choice(MODELS).split("/")[-1]
    style = rng.randrange(6)
    if style == 0:
        return f"/data/models/{model}"
    if style == 1:
        return f"/home/{rng.choice(_USERS)}/{rng.choice(_SPACED_DIRS)}/{model}"
    if style == 2:
        return f"/root/.cache/huggingface/hub/models--{rng.choice(MODELS).replace('/', '--')}"
    if style == 3:
        return f"./checkpoints/{model}-lora-r{rng.choice((8, 16, 64))}"
    if style == 4:
        return f"C:\\Users\\{rng.choice(_USERS)}\\{rng.choice(_SPACED_DIRS)}\\{model}"
    kind = rng.choice(("ckpt", "weights", "adapters"))
    return f"/mnt/shared/{kind}/{model}/step_{rng.randint(100, 9000)}"


def _int(name: str, rng: random.Random) -> str:
    if re.search(
        r"tp|pp|dp|dcp|pcp|ep|parallel|world|rank|heads|loras|layers|steps|num_items", name
    ):
        return str(rng.choice((0, 1, 2, 3, 4, 6, 8, 12, 16, 32, 64)))
    if re.search(r"len|tokens|total|threshold|capture|batched|seq", name):
        return str(rng.choice((2048, 4096, 8192, 8193, 32768, 40960, 131072, 1048576, 163840)))
    if re.search(r"bytes|free|required|memory", name):
        return str(rng.randint(10**8, 9 * 10**10))
    if re.search(r"port", name):
        return str(rng.choice((8000, 29500, 13345, 5557)))
    if re.search(r"pid|exitcode|code|status", name):
        return str(rng.choice((-9, 1, 137, 4711, 28193, 500, 400)))
    return str(rng.choice((0, 1, 2, 3, 5, 7, 16, 17, 64, 100, 128, 256, 1000, 4096)))


def _list(rng: random.Random, name: str) -> str:
    if "arch" in name:
        pool: tuple[str, ...] = (*ARCH_NAMES, "Qwen3NextForCausalLM", "MyCustomForCausalLM")
    elif "backend" in name or "reason" in name:
        pool = tuple(ATTN_BACKENDS)
    elif "dtype" in name:
        pool = tuple(DTYPES)
    elif "quant" in name:
        pool = tuple(QUANTS)
    elif "missing" in name or "modules" in name:
        pool = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "lm_head")
    elif "size" in name or "head" in name:
        return repr(rng.sample((32, 64, 80, 96, 128, 160, 192, 256), rng.randint(2, 5)))
    else:
        pool = _WORDS
    items = rng.sample(pool, min(len(pool), rng.randint(1, 6)))
    if "join" in name or rng.random() < 0.2:
        return ", ".join(items)
    return repr(items) if rng.random() < 0.8 else "{" + ", ".join(repr(i) for i in items) + "}"


def value_for(name: str, rng: random.Random) -> str:
    """A plausible runtime value for a placeholder named after a source expression."""
    conversion = name.endswith("!r")
    key = name.removesuffix("!r").lower()
    value = _value(key, rng)
    if conversion and not re.fullmatch(r"-?[0-9.]+|\[.*\]|\{.*\}|\(.*\)", value):
        return repr(value)
    return value


def _value(key: str, rng: random.Random) -> str:
    last = re.split(r"[.(\[]", key.rstrip(")]"))[-1] if key else ""
    if "arch" in key:
        return _list(rng, "arch")
    if key.startswith("type(") or "__name__" in key or last in ("cls",):
        return rng.choice(
            ("<class 'str'>", "<class 'NoneType'>", "dict", "LlamaTokenizerFast", "list", "int")
        )
    if "shape" in key or "size()" in key:
        dims = [
            rng.choice((1, 8, 128, 1024, 4096, 5120, 14336, 151936))
            for _ in range(rng.randint(1, 3))
        ]
        text = ", ".join(map(str, dims))
        return (
            f"torch.Size([{text}])"
            if rng.random() < 0.5
            else f"({text}{',' if len(dims) == 1 else ''})"
        )
    if "dtype" in key and not re.search(r"supported|dtypes", key):
        return rng.choice(DTYPES)
    if re.search(
        r"choices|available|supported|valid|allowed|sorted|join|keys|registry|names|missing|modules|failed|list\(|expected_keys|dtypes|heads",
        key,
    ):
        return _list(rng, key)
    if re.search(r"path|dir\b|_dir|file|local", key):
        return _path(rng)
    if re.search(r"model|tokenizer_name|draft", key) and "model_impl" not in key:
        return rng.choice(MODELS)
    if re.search(r"request_id|req_id", key):
        return rng.choice(("chatcmpl-", "cmpl-", "embd-", "")) + f"{rng.getrandbits(64):016x}"
    if re.search(r"util|fraction|gib|_gb|ratio|temperature|top_p|penalty|min_p", key):
        return rng.choice(("0.9", "0.95", "1.5", "79.19", "23.53", "0.0", "-0.5", "2.0", "1.1"))
    if re.search(r"config|kwargs|dict|overrides|params\b", key):
        return rng.choice(
            (
                "{'type': 'json_object'}",
                "{'rope_type': 'yarn', 'factor': 4.0}",
                "{}",
                "{'image': 2, 'video': 0}",
            )
        )
    if "backend" in key:
        return rng.choice((*ATTN_BACKENDS, "xgrammar", "outlines", "gloo", "nccl"))
    if re.search(r"platform|device", key):
        return rng.choice(("cuda", "rocm", "cpu", "NVIDIA A10G", "NVIDIA H100 80GB HBM3", "xpu"))
    if re.search(r"capability|cc\b", key):
        return rng.choice(("75", "80", "86", "89", "(7, 5)", "DeviceCapability(major=8, minor=6)"))
    if last in (
        "e",
        "err",
        "exc",
        "reason",
        "msg",
        "message",
        "detail",
        "error",
        "why",
        "text",
        "import_error",
        "invalid_reasons",
    ):
        return rng.choice(_ERRORS)
    if re.search(
        r"len|num|count|size|tp|pp|dp|dcp|pcp|\bep\b|rank|tokens|idx|index|port|bytes|steps|limit|max|min|heads|layers|dim|exitcode|pid|code|status|total|threshold|free|required|needed|\bn\b|\bi\b|id$|bits|alignment|expected|actual|found|lo$|hi$|upper|minimum",
        key,
    ):
        return _int(key, rng)
    if re.search(
        r"name|key|kind|method|mode|format|role|op$|func|field|param|prefix|tag|what|resolver|parser|policy|task|runner|layout|kernel|connector|processor|sampler|impl|algo|content_format",
        key,
    ):
        return rng.choice(_WORDS) if rng.random() < 0.85 else rng.choice(_WORDS) + "_v2"
    return _general(rng)


def _general(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.05:
        return ""
    if r < 0.3:
        return str(rng.choice((0, 1, 2, 4, 8, 16, 100, 4096, -1)))
    if r < 0.45:
        return repr(rng.choice(_WORDS))
    if r < 0.55:
        return rng.choice(("not set", "a b c", "two words", "None given"))
    if r < 0.65:
        return rng.choice(("None", "True", "False", "0.5"))
    if r < 0.75:
        return repr([rng.randint(0, 9) for _ in range(rng.randint(1, 4))])
    return rng.choice(_WORDS)


def fill(
    record: Mapping[str, Any],
    rng: random.Random,
    guess: Callable[[str, random.Random], str] = value_for,
) -> str:
    """The message as the program printed it: every placeholder replaced by a value
    (from ``guess``, this module's ``value_for`` by default).

    A name used twice gets the same value; each positional ``{}`` gets its own.
    """
    template = parse_template(str(record["message"]))
    values: dict[str, str] = {}
    out: list[str] = []
    for part in template.parts:
        if not part.placeholder:
            out.append(part.text)
        elif not part.text:
            out.append(guess("", rng))
        else:
            if part.text not in values:
                values[part.text] = guess(part.text, rng)
            out.append(values[part.text])
    return "".join(out)


# --- Tracebacks ----------------------------------------------------------------------

_SITES = (
    "/usr/local/lib/python3.12/site-packages/",
    "/usr/local/lib/python3.12/dist-packages/",
    "/opt/conda/lib/python3.11/site-packages/",
    "/home/{user}/.venv/lib/python3.10/site-packages/",
    "/root/miniconda3/envs/serve/lib/python3.12/site-packages/",
    "/home/{user}/{spaced}/env/lib/python3.11/site-packages/",
    "C:\\Users\\{user}\\AppData\\Local\\Programs\\Python\\Python311\\Lib\\site-packages\\",
)
_ENTRY_FRAMES: dict[str, tuple[tuple[str, int, str, str | None], ...]] = {
    "vllm": (
        ("{site}vllm/entrypoints/cli/main.py", 54, "main", "args.dispatch_function(args)"),
        ("{site}vllm/entrypoints/cli/serve.py", 57, "cmd", "uvloop.run(run_server(args))"),
        ("{site}uvloop/__init__.py", 109, "run", "return __asyncio.run("),
        (
            "{site}vllm/entrypoints/openai/api_server.py",
            1850,
            "run_server",
            "await run_server_worker(listen_address, sock, args, **uvicorn_kwargs)",
        ),
        (
            "{site}vllm/engine/arg_utils.py",
            1201,
            "create_engine_config",
            "model_config = self.create_model_config()",
        ),
        (
            "{site}vllm/entrypoints/llm.py",
            285,
            "__init__",
            "self.llm_engine = LLMEngine.from_engine_args(",
        ),
        (
            "{site}vllm/v1/engine/llm_engine.py",
            177,
            "from_engine_args",
            "vllm_config = engine_args.create_engine_config(usage_context)",
        ),
        (
            "{site}pydantic/_internal/_dataclasses.py",
            123,
            "__init__",
            "s.__pydantic_validator__.validate_python(ArgsKwargs(args, kwargs), self_instance=s)",
        ),
        (
            "{site}vllm/v1/engine/core.py",
            83,
            "__init__",
            "self.model_executor = executor_class(vllm_config)",
        ),
        ("{site}vllm/executor/executor_base.py", 54, "__init__", "self._init_executor()"),
    ),
    "sglang": (
        ("{site}sglang/launch_server.py", 14, "<module>", "launch_server(server_args)"),
        (
            "{site}sglang/srt/entrypoints/http_server.py",
            1002,
            "launch_server",
            "tokenizer_manager, template_manager, scheduler_info = _launch_subprocesses(",
        ),
        (
            "{site}sglang/srt/entrypoints/engine.py",
            731,
            "_launch_subprocesses",
            "server_args.check_server_args()",
        ),
    ),
    "text_generation_server": (
        ("{site}typer/main.py", 311, "__call__", "return get_command(self)(*args, **kwargs)"),
        ("{site}text_generation_server/cli.py", 119, "serve", "server.serve("),
        (
            "{site}text_generation_server/server.py",
            306,
            "serve_inner",
            "model = get_model_with_lora_adapters(",
        ),
    ),
    "tensorrt_llm": (
        (
            "{site}tensorrt_llm/commands/serve.py",
            388,
            "serve",
            "launch_server(host, port, llm_args)",
        ),
        (
            "{site}tensorrt_llm/llmapi/llm.py",
            1061,
            "__init__",
            "super().__init__(model, tokenizer, tokenizer_mode,",
        ),
        ("{site}tensorrt_llm/llmapi/llm_args.py", 2104, "validate", "self._validate_model()"),
    ),
    "lmcache": (
        (
            "{site}vllm/v1/engine/core.py",
            83,
            "__init__",
            "self.model_executor = executor_class(vllm_config)",
        ),
        (
            "{site}lmcache/integration/vllm/utils.py",
            118,
            "lmcache_get_config",
            "config = LMCacheEngineConfig.from_file(config_file)",
        ),
        (
            "{site}lmcache/v1/cache_engine.py",
            96,
            "__init__",
            "self.storage_manager = StorageManager(",
        ),
    ),
}
_SCRIPTS = (
    ("/usr/local/bin/vllm", 8, "<module>", "sys.exit(main())"),
    ("/home/{user}/app/main.py", 12, "<module>", "llm = LLM(model=MODEL, tensor_parallel_size=4)"),
    ("/home/{user}/{spaced}/serve.py", 41, "main", "engine = build_engine(args)"),
    ("/workspace/bench/run_bench.py", 203, "<module>", "main(parse_args())"),
    ("<frozen runpy>", 198, "_run_module_as_main", None),
    ("<stdin>", 1, "<module>", None),
)


def _exception_name(record: Mapping[str, Any]) -> str:
    """How Python prints the type: builtins bare, others with their module."""
    return str(record["exception"])


def _exception_line(record: Mapping[str, Any], message: str) -> str:
    name = _exception_name(record)
    if name.rsplit(".", 1)[-1] == "KeyError":
        return f"{name}: {message!r}"
    return f"{name}: {message}" if message else name


def _package(record: Mapping[str, Any]) -> str:
    path = str(record["source"]["path"])
    for prefix in ("python/", "server/"):
        path = path.removeprefix(prefix)
    return path


def _frames(record: Mapping[str, Any], rng: random.Random) -> list[str]:
    user = rng.choice(_USERS)
    spaced = rng.choice(_SPACED_DIRS)
    site = rng.choice(_SITES).format(user=user, spaced=spaced)
    windows = "\\" in site
    package = _package(record).split("/", 1)[0]
    pool = _ENTRY_FRAMES.get(package, _ENTRY_FRAMES["vllm"])
    count = rng.randint(2, 6)
    chosen: list[tuple[str, int, str, str | None]] = []
    if rng.random() < 0.7:
        chosen.append(rng.choice(_SCRIPTS))
    start = rng.randrange(len(pool))
    chosen += list(pool[start : start + count - 1 - len(chosen)])
    function = str(record["source"].get("function") or "validate").rsplit(".", 1)[-1]
    raise_name = str(record["exception"]).rsplit(".", 1)[-1]
    chosen.append(
        (
            "{site}" + _package(record),
            int(record["source"]["line"]),
            function,
            f"raise {raise_name}(",
        )
    )
    lines: list[str] = []
    for file, line, fn, code in chosen:
        path = file.format(site=site, user=user, spaced=spaced)
        if windows and path.startswith("C:"):
            path = path.replace("/", "\\")
        lines.append(f'  File "{path}", line {line}, in {fn}')
        if code is not None:
            lines.append(f"    {code}")
            if rng.random() < 0.15:
                lines.append("    " + "^" * min(len(code), rng.randint(8, 60)))
    return lines


def traceback(record: Mapping[str, Any], message: str, rng: random.Random) -> list[str]:
    """A Python traceback ending in the record's exception, one list item per line."""
    return [
        "Traceback (most recent call last):",
        *_frames(record, rng),
        *_exception_line(record, message).split("\n"),
    ]


_OTHER_CAUSES = (
    ("load", "value = overrides[key]", "KeyError: 'tensor_parallel_size'"),
    ("parse", "return int(raw)", "ValueError: invalid literal for int() with base 10: 'auto'"),
    (
        "_check_device",
        "torch.cuda.set_device(local_rank)",
        "RuntimeError: CUDA error: invalid device ordinal",
    ),
    (
        "<module>",
        "import flash_attn_2_cuda as flash_attn_cuda",
        "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
    ),
    (
        "get_config",
        "return config.get('architectures')",
        "AttributeError: 'NoneType' object has no attribute 'get'",
    ),
    ("save", "torch.save(state, path)", "OSError: [Errno 28] No space left on device"),
    (
        "_profile",
        "hidden = self.model(input_ids)",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB.",
    ),
    (
        "loads",
        "return json.loads(text)",
        "json.decoder.JSONDecodeError: Expecting ',' delimiter: line 1 column 23 (char 22)",
    ),
    ("__iter__", "for item in self.items:", "TypeError: 'NoneType' object is not iterable"),
    (
        "validate_python",
        "return self.validator(value)",
        "pydantic_core._pydantic_core.ValidationError: 1 validation error for ParallelConfig",
    ),
)


def _cause(rng: random.Random) -> list[str]:
    fn, code, line = rng.choice(_OTHER_CAUSES)
    site = rng.choice(_SITES).format(user=rng.choice(_USERS), spaced=rng.choice(_SPACED_DIRS))
    file = site + "vllm/config/utils.py"
    if "\\" in site:
        file = file.replace("/", "\\")
    return [
        "Traceback (most recent call last):",
        f'  File "{file}", line {rng.randint(20, 400)}, in {fn}',
        f"    {code}",
        line,
    ]


# --- Log prefixes --------------------------------------------------------------------

_PROCS = (
    "APIServer",
    "EngineCore_DP0",
    "EngineCore_0",
    "VllmWorker TP0",
    "Worker_TP1",
    "EngineCore",
)
_LOG_FILES = (
    "core.py",
    "api_server.py",
    "llm_engine.py",
    "multiproc_executor.py",
    "engine.py",
    "utils.py",
)


def _clock(rng: random.Random) -> tuple[str, str]:
    month, day = rng.randint(1, 12), rng.randint(1, 28)
    h, m, s = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
    return f"{month:02d}-{day:02d}", f"{h:02d}:{m:02d}:{s:02d}"


def _vllm_prefix(rng: random.Random, level: str = "ERROR", tag: bool = True) -> str:
    date, time = _clock(rng)
    if rng.random() < 0.4:
        time += f".{rng.randint(0, 999):03d}"
    where = f"[{rng.choice(_LOG_FILES)}:{rng.randint(40, 1900)}] "
    proc = f"({rng.choice(_PROCS)} pid={rng.randint(100, 99999)}) " if tag else ""
    return f"{proc}{level} {date} {time} {where}"


_CONTEXT = (
    "INFO {date} {time} [__init__.py:241] Automatically detected platform cuda.",
    "INFO {date} {time} [api_server.py:1805] vLLM API server version 0.10.1.1",
    "WARNING {date} {time} [config.py:1024] Casting torch.bfloat16 to torch.float16.",
    (
        "INFO {date} {time} [utils.py:326] non-default args: "
        "{{'model': '{model}', 'tensor_parallel_size': 4}}"
    ),
    "INFO {date} {time} [model.py:547] Resolved architecture: LlamaForCausalLM",
    "DEBUG {date} {time} [core.py:612] EngineCore waiting for work.",
)


def _context(rng: random.Random) -> list[str]:
    lines = []
    for _ in range(rng.randint(0, 3)):
        date, time = _clock(rng)
        lines.append(rng.choice(_CONTEXT).format(date=date, time=time, model=rng.choice(MODELS)))
    return lines


def _iso(rng: random.Random) -> str:
    date, time = _clock(rng)
    frac = rng.choice((f".{rng.randint(0, 999):03d}", f",{rng.randint(0, 999):03d}", ""))
    zone = rng.choice(("Z", "+00:00", "", "+0530"))
    sep = rng.choice(("T", " "))
    return f"2025-{date}{sep}{time}{frac}{zone}"


def _log(record: Mapping[str, Any], message: str, rng: random.Random) -> str:
    mode = rng.random()
    red, reset = "\x1b[1;31m", "\x1b[0m"
    if mode < 0.3:
        exc = _exception_line(record, message)
        return "\n".join([*_context(rng), _vllm_prefix(rng, tag=rng.random() < 0.7) + exc])
    if mode < 0.5:
        prefix = _vllm_prefix(rng)
        body = ["EngineCore failed to start.", *traceback(record, message, rng)]
        return "\n".join([*_context(rng), *(prefix + line for line in body)])
    if mode < 0.65:
        rank = f"[rank{rng.choice((0, 0, 1, 3, 7))}]: "
        return "\n".join(rank + line for line in traceback(record, message, rng))
    if mode < 0.8:
        level = rng.choice(("ERROR", "ERROR", "CRITICAL", "[ERROR]", "ERROR:"))
        if rng.random() < 0.5:
            return f"{_iso(rng)} {level} {_exception_line(record, message)}"
        stamp = _iso(rng)
        return "\n".join(f"{stamp} {level} {line}" for line in traceback(record, message, rng))
    if mode < 0.93:
        exc = _exception_line(record, message)
        name, _, rest = exc.partition(": ")
        coloured = rng.choice(
            (
                f"{_vllm_prefix(rng, level=red + 'ERROR' + reset, tag=False)}{exc}",
                f"{_vllm_prefix(rng, level=red + 'ERROR' + reset)}{exc}",
                f"{red}{name}{reset}: {rest}",
                f"\x1b[31m{exc}\x1b[39m",
            )
        )
        return "\n".join([*_context(rng), coloured])
    # Container and journal prefixes on every line.
    style = rng.randrange(3)
    if style == 0:
        prefix = f"vllm-{rng.randint(1, 3)}  | "
    elif style == 1:
        prefix = f"2025-08-14T12:00:{rng.randint(10, 59)}.{rng.getrandbits(30):09d}Z stderr F "
    else:
        prefix = (
            f"Aug 14 12:00:{rng.randint(10, 59)} gpu-node-{rng.randint(1, 9)} "
            f"vllm[{rng.randint(100, 9999)}]: "
        )
    return "\n".join(prefix + line for line in traceback(record, message, rng))


# --- Kinds ---------------------------------------------------------------------------


def _partial(message: str, rng: random.Random) -> str:
    words = message.split()
    n = len(words)
    if n <= 4:
        return " ".join(words)
    low = max(4, -(-n * 4 // 10))
    high = max(low, n * 8 // 10)
    k = rng.randint(low, min(n, high))
    start = rng.randint(0, n - k)
    piece = words[start : start + k]
    if rng.random() < 0.3 and len(piece[0]) >= 6:
        piece[0] = piece[0][rng.randint(1, len(piece[0]) - 3) :]
    if rng.random() < 0.3 and len(piece[-1]) >= 6:
        piece[-1] = piece[-1][: rng.randint(3, len(piece[-1]) - 1)]
    return " ".join(piece)


def _retyped(message: str, rng: random.Random) -> str:
    text = message.lower()
    text = re.sub(r"[`'\"]", "", text)
    newline_rate = rng.choice((0.0, 0.0, 0.05, 0.15))

    def space(_: re.Match[str]) -> str:
        return "\n" if rng.random() < newline_rate else " "

    text = re.sub(r"\s+", space, text).strip()
    if rng.random() < 0.3:
        text = text.rstrip(".")
    return text


def make_paste(record: Mapping[str, Any], kind: str, rng: random.Random) -> str:
    """What a user would paste for ``record``, as ``kind`` (one of ``KINDS``)."""
    message = fill(record, rng)
    if kind == "bare":
        return message
    if kind == "traceback":
        return "\n".join(traceback(record, message, rng))
    if kind == "chained":
        marker = rng.choice(
            (
                "During handling of the above exception, another exception occurred:",
                "The above exception was the direct cause of the following exception:",
            )
        )
        return "\n".join([*_cause(rng), "", marker, "", *traceback(record, message, rng)])
    if kind == "log":
        return _log(record, message, rng)
    if kind == "multiline":
        width = rng.randint(60, 80)
        head = traceback(record, message, rng)[:-1]
        wrapped = textwrap.wrap(
            _exception_line(record, message),
            width,
            break_long_words=False,
            break_on_hyphens=False,
        )
        return "\n".join([*head, *wrapped])
    if kind == "partial":
        return _partial(message, rng)
    if kind == "retyped":
        return _retyped(message, rng)
    raise ValueError(f"unknown paste kind {kind!r}; expected one of {KINDS}")


# --- Errors from other software ------------------------------------------------------


def _gib(rng: random.Random) -> str:
    return f"{rng.uniform(0.01, 80):.2f} GiB"


def _foreign_messages() -> list[Callable[[random.Random], str]]:
    def model(rng: random.Random) -> str:
        return rng.choice(MODELS)

    def path(rng: random.Random) -> str:
        return _path(rng)

    return [
        lambda r: (
            f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {_gib(r)}. GPU "
            f"{r.randint(0, 7)} "
            f"has a total capacity of {r.choice(('79.19', '23.53', '39.38', '15.77'))} GiB of "
            "which "
            f"{r.randint(1, 900)}.{r.randint(10, 99)} MiB is free. Including non-PyTorch "
            "memory, this process "
            f"has {_gib(r)} memory in use. Of the allocated memory {_gib(r)} is allocated by "
            "PyTorch, and "
            f"{r.randint(1, 900)}.{r.randint(10, 99)} MiB is reserved by PyTorch but unallocated."
        ),
        lambda r: f"ModuleNotFoundError: No module named '{r.choice(_MISSING_MODULES)}'",
        lambda r: (
            f"FileNotFoundError: [Errno 2] No such file or directory: '{path(r)}/config.json'"
        ),
        lambda r: (
            "RuntimeError: Expected all tensors to be on the same device, but found at least "
            f"two devices, cuda:{r.randint(0, 7)} and cpu!"
        ),
        lambda r: (
            "requests.exceptions.ConnectionError: "
            f"HTTPConnectionPool(host='{r.choice(('localhost', '10.0.0.12', 'vllm-svc'))}', "
            f"port={r.choice((8000, 8080, 30000))}): Max retries exceeded with url: "
            f"/v1/{r.choice(('completions', 'chat/completions', 'models'))} "
            "(Caused by NewConnectionError('<urllib3.connection.HTTPConnection object at "
            "0x7f3a2c1d4e50>: "
            "Failed to establish a new connection: [Errno 111] Connection refused'))"
        ),
        lambda r: (
            "KeyError: "
            f"'{r.choice(('input_ids', 'attention_mask', 'x', 'model_type', 'choices', 'text'))}'"
        ),
        lambda r: (
            "RuntimeError: mat1 and mat2 shapes cannot be multiplied "
            f"({r.randint(1, 64)}x{r.choice((4096, 2048, 768))} and "
            f"{r.choice((2048, 1024, 3072))}x{r.choice((8192, 4096, 768))})"
        ),
        lambda r: (
            f"json.decoder.JSONDecodeError: Expecting value: line {r.randint(1, 40)} column "
            f"{r.randint(1, 80)} (char {r.randint(0, 3000)})"
        ),
        lambda r: f"PermissionError: [Errno 13] Permission denied: '{r.choice(_DENIED)}'",
        lambda r: (
            "ImportError: cannot import name "
            f"'{r.choice(_IMPORT_NAMES)}' "
            f"from '{r.choice(('transformers', 'huggingface_hub'))}' "
            "(/usr/local/lib/python3.12/site-packages/transformers/__init__.py)"
        ),
        lambda r: (
            "AttributeError: 'NoneType' object has no attribute "
            f"'{r.choice(('shape', 'encode', 'get', 'to', 'generate'))}'"
        ),
        lambda r: (
            f"TypeError: unsupported operand type(s) for {r.choice(('+', '*', '/', '//'))}: "
            f"'{r.choice(('int', 'NoneType', 'str'))}' and "
            f"'{r.choice(('str', 'NoneType', 'list'))}'"
        ),
        lambda r: "IndexError: list index out of range",
        lambda r: (
            "ValueError: invalid literal for int() with base 10: "
            f"'{r.choice(('abc', '8k', '4,096', ''))}'"
        ),
        lambda r: (
            "RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors "
            "might be asynchronously reported at some other API call, so the stacktrace "
            "below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1"
        ),
        lambda r: (
            "torch.distributed.DistBackendError: NCCL error in: "
            f"../torch/csrc/distributed/c10d/NCCLUtils.hpp:{r.randint(100, 400)}, unhandled "
            "system error (run with NCCL_DEBUG=INFO for details), NCCL version "
            f"2.{r.randint(18, 26)}.{r.randint(1, 9)}"
        ),
        lambda r: (
            "OSError: We couldn't connect to 'https://huggingface.co' to load this file, "
            f"couldn't find it in the cached files and it looks like {model(r)} is not the "
            "path to a directory containing a file named config.json."
        ),
        lambda r: (
            "huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated "
            f"repo for url https://huggingface.co/{model(r)}/resolve/main/config.json."
        ),
        lambda r: (
            "ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate "
            "verify failed: unable to get local issuer certificate "
            f"(_ssl.c:{r.choice((1000, 1006, 1129))})"
        ),
        lambda r: "ConnectionRefusedError: [Errno 111] Connection refused",
        lambda r: (
            f"TimeoutError: timed out after {r.randint(5, 600)} seconds waiting for "
            f"{r.choice(('the lock', 'redis', 'the response'))}"
        ),
        lambda r: (
            f"UnicodeDecodeError: 'utf-8' codec can't decode byte 0x{r.randint(128, 255):02x} "
            f"in position {r.randint(0, 900)}: invalid start byte"
        ),
        lambda r: "RecursionError: maximum recursion depth exceeded while calling a Python object",
        lambda r: "ZeroDivisionError: division by zero",
        lambda r: (
            "subprocess.CalledProcessError: Command "
            f"'['{r.choice(('nvcc', 'ninja', 'gcc', 'nvidia-smi'))}', '--version']' returned "
            f"non-zero exit status {r.choice((1, 127, 255))}."
        ),
        lambda r: (
            'docker: Error response from daemon: could not select device driver "" with '
            "capabilities: [[gpu]]."
        ),
        lambda r: (
            f"bash: {r.choice(('vllm', 'nvidia-smi', 'huggingface-cli', 'conda'))}: command "
            "not found"
        ),
        lambda r: (
            "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency "
            f"tree\nnpm ERR! Found: react@{r.randint(16, 19)}.0.0"
        ),
        lambda r: (
            'psycopg2.OperationalError: connection to server at "localhost" (127.0.0.1), '
            f"port {r.choice((5432, 5433))} failed: Connection refused\n\tIs the server "
            "running on that host and accepting TCP/IP connections?"
        ),
        lambda r: (
            'Exception in thread "main" java.lang.NullPointerException: Cannot invoke '
            f'"String.length()" because "{r.choice(("s", "name", "value"))}" is null\n\tat '
            f"com.example.App.main(App.java:{r.randint(5, 200)})"
        ),
        lambda r: "Segmentation fault (core dumped)",
        lambda r: (
            "error: externally-managed-environment\n\n\u00d7 This environment is externally "
            "managed\n╰─> To install Python packages system-wide, try apt install "
            "python3-xyz."
        ),
        lambda r: (
            "ERROR: Could not find a version that satisfies the requirement "
            f"torch=={r.randint(1, 3)}.{r.randint(0, 12)}.{r.randint(0, 9)} (from versions: "
            "2.5.0, 2.5.1, 2.6.0, 2.7.0)\nERROR: No matching distribution found for torch"
        ),
        lambda r: (
            "pydantic_core._pydantic_core.ValidationError: 1 validation error for "
            "Settings\nport\n  Input should be a valid integer, unable to parse string as an "
            f"integer [type=int_parsing, input_value='{r.choice(('80a', 'http', ''))}', "
            "input_type=str]"
        ),
        lambda r: (
            "yaml.scanner.ScannerError: mapping values are not allowed here\n  in "
            f'"{r.choice(("config.yaml", "values.yaml", "docker-compose.yml"))}", line '
            f"{r.randint(2, 90)}, column {r.randint(1, 40)}"
        ),
        lambda r: "sqlite3.OperationalError: database is locked",
        lambda r: (
            f"RuntimeError: The size of tensor a ({r.choice((4096, 2048, 77, 512))}) must "
            f"match the size of tensor b ({r.choice((2048, 1024, 76, 513))}) at non-singleton "
            f"dimension {r.randint(0, 3)}"
        ),
        lambda r: (
            "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: "
            f"{r.randint(100000, 300000)}, Hardware limit: "
            f"{r.choice((101376, 166912, 232448))}. Reducing block sizes or `num_stages` may "
            "help."
        ),
        lambda r: "AssertionError: Torch not compiled with CUDA enabled",
        lambda r: (
            "RuntimeError: Found no NVIDIA driver on your system. Please check that you have "
            "an NVIDIA GPU and installed a driver from "
            "http://www.nvidia.com/Download/index.aspx"
        ),
        lambda r: (
            "OSError: [Errno 98] Address already in use: ('0.0.0.0', "
            f"{r.choice((8000, 8080, 30000))})"
        ),
        lambda r: (
            f"panic: runtime error: index out of range [{r.randint(3, 9)}] with length "
            f"{r.randint(0, 3)}\n\ngoroutine 1 "
            f"[running]:\nmain.main()\n\t/app/main.go:{r.randint(5, 90)} +0x1d"
        ),
        lambda r: (
            "thread 'main' panicked at "
            f"src/{r.choice(('main', 'lib', 'server'))}.rs:{r.randint(5, 300)}:"
            f"{r.randint(1, 40)}:\ncalled "
            "`Option::unwrap()` on a `None` value"
        ),
        lambda r: "fatal: not a git repository (or any of the parent directories): .git",
        lambda r: (
            "ValueError: The checkpoint you are trying to load has model type "
            f"`{r.choice(('qwen3_next', 'gemma3n', 'llama4', 'glm4_moe'))}` but Transformers "
            "does not recognize this architecture. This could be because of an issue with "
            "the checkpoint, or because your version of Transformers is out of date."
        ),
        lambda r: (
            "ray.exceptions.RaySystemError: System error: Failed to unpickle serialized "
            f"exception (node {r.getrandbits(32):08x})"
        ),
        lambda r: (
            f"asyncio.exceptions.CancelledError: Task was cancelled after {r.randint(1, 300)}s"
        ),
        lambda r: "KeyboardInterrupt",
        lambda r: (
            "safetensors_rust.SafetensorError: Error while deserializing header: "
            f"HeaderTooLarge ({path(r)}/model-0000{r.randint(1, 4)}-of-00004.safetensors)"
        ),
        lambda r: (
            "openai.BadRequestError: Error code: 400 - "
            f"{{'error': {{'message': 'Invalid model name {model(r)}', "
            "'type': 'invalid_request_error', 'code': None}}"
        ),
        lambda r: (
            "torch._dynamo.exc.Unsupported: call_function BuiltinVariable(open) "
            f"[ConstantVariable(str: '{path(r)}')] {{}}"
        ),
    ]


_MISSING_MODULES = (
    "flash_attn",
    "vllm._C",
    "triton",
    "sentencepiece",
    "xformers",
    "torch_npu",
    "deep_gemm",
)
_DENIED = ("/root/.cache/huggingface/hub", "/data/models", "/tmp/torchinductor_root")
_IMPORT_NAMES = ("AutoProcessor", "is_torch_npu_available", "PreTrainedModel", "cached_download")
_FOREIGN_FILES = (
    "/home/ubuntu/app/client.py",
    "/workspace/train.py",
    "{site}transformers/modeling_utils.py",
    "{site}torch/nn/modules/module.py",
)
_FOREIGN_CODE = (
    "return forward_call(*args, **kwargs)",
    "resp = session.post(url, json=payload)",
    "model = AutoModel.from_pretrained(path)",
    "out = model(**batch)",
)
_FOREIGN = _foreign_messages()
FOREIGN_FAMILIES = len(_FOREIGN)


def foreign_paste(rng: random.Random) -> str:
    """An error from other software, sometimes in a traceback or with log prefixes."""
    text = rng.choice(_FOREIGN)(rng)
    shape = rng.random()
    if shape < 0.5 or not re.match(r"^[\w.]+(Error|Exception|Interrupt|Exit)\b", text):
        return text
    if shape < 0.8:
        site = rng.choice(_SITES).format(user=rng.choice(_USERS), spaced=rng.choice(_SPACED_DIRS))
        frames = [
            (
                "  File "
                f'"{rng.choice(_FOREIGN_FILES).format(site=site)}", '
                f"line {rng.randint(10, 3000)}, in "
                f"{rng.choice(('main', 'forward', '_call_impl', 'from_pretrained', 'request'))}"
            ),
            (f"    {rng.choice(_FOREIGN_CODE)}"),
        ]
        return "\n".join(["Traceback (most recent call last):", *frames * rng.randint(1, 2), text])
    stamp = _iso(rng)
    return "\n".join(f"{stamp} ERROR {line}" for line in text.split("\n"))
