"""Pastes made from real records, in every shape users paste errors in.

``make(record, shape, rng)`` fills the record's message template with values of the kind
each placeholder names (paths, sizes, shapes, dtypes, model ids, quoted names …) and
dresses the message up as one of ``SHAPES``:

- ``plain``: the message, alone or after its exception name;
- ``traceback``: a whole traceback through the package's own file, sometimes chained
  after another error, sometimes with ``^^^^`` markers;
- ``log``: log records (Python logging, loguru, vllm-style, ISO stamps, ANSI colours),
  with or without the exception name;
- ``pieces``: four or more words of the message cut anywhere, mid-word at both ends,
  lowercased or without quotes;
- ``pydantic``: a pydantic ``ValidationError`` whose ``Value error, …`` (or ``Assertion
  failed, …``) is the message, among other errors at times;
- ``http``: a client exception or a server's JSON error body carrying the message
  (``openai.BadRequestError``, ``{"object": "error", …}``, ``{"error": {…}}``, curl
  output), the message sometimes the repr of the original exception;
- ``wrapper``: the error's traceback with a wrapper after it (``Engine core initialization
  failed. See root cause above.``, ``RayTaskError(ValueError)``, a process pool's
  ``_RemoteTraceback``, ``ProcessRaisedException``, "During handling …");
- ``issue``: a GitHub issue body: headings, ``` ~~~ and ``<details>`` fences, pip list,
  nvidia-smi and env dumps, an earlier traceback, ``> `` quotes, text after the error;
- ``everyday``: IPython/Jupyter with ANSI, ``logger.exception``, pytest ``E   …`` lines,
  Windows paths, ``(Worker pid=12)`` / ``[rank3]:`` / ``(RayWorkerWrapper pid=…, ip=…)``
  prefixes, messages wrapped by a terminal or by textwrap.

A record is a dict as scanned: ``exception``, ``message`` (the template) and ``source``
(``path``, ``line``, ``function``). Everything depends only on the ``random.Random``
passed in.
"""

from __future__ import annotations

import json
import random
import re
import textwrap
from collections.abc import Callable, Mapping
from typing import Any

from benchmarks import pastes

SHAPES = (
    "plain",
    "traceback",
    "log",
    "pieces",
    "pydantic",
    "http",
    "wrapper",
    "issue",
    "everyday",
)

# --- Values --------------------------------------------------------------------------

MODELS = (
    "meta-llama/Llama-3.1-8B-Instruct",
    "Qwen/Qwen2.5-7B-Instruct",
    "google-bert/bert-base-uncased",
    "openai/whisper-large-v3",
    "mistralai/Mistral-7B-v0.3",
    "google/gemma-2-9b-it",
    "facebook/bart-large-cnn",
    "microsoft/phi-4",
    "openai-community/gpt2",
    "llava-hf/llava-1.5-7b-hf",
)
CLASSES = (
    "LlamaForCausalLM",
    "BertModel",
    "Qwen2Config",
    "WhisperProcessor",
    "PreTrainedTokenizerFast",
    "GPT2LMHeadModel",
    "CLIPImageProcessor",
    "T5ForConditionalGeneration",
    "MyCustomModel",
)
DTYPES = (
    "torch.float16",
    "torch.bfloat16",
    "torch.float32",
    "torch.int64",
    "float16",
    "bfloat16",
    "int8",
    "torch.uint8",
)
NAMES = (
    "sdpa",
    "flash_attention_2",
    "eager",
    "linear",
    "dynamic",
    "yarn",
    "gelu_new",
    "left",
    "right",
    "longest",
    "max_length",
    "pt",
    "np",
    "tf",
    "height",
    "width",
    "shortest_edge",
    "input_ids",
    "attention_mask",
    "pixel_values",
    "labels",
    "lm_head",
    "q_proj",
    "model.layers.0.self_attn.q_proj.weight",
    "bert",
    "llama",
    "audio",
    "image",
    "cuda:0",
    "auto",
)
ERRORS = (
    "CUDA out of memory. Tried to allocate 2.00 GiB",
    "No module named 'accelerate'",
    "list index out of range",
    "'NoneType' object has no attribute 'shape'",
    "Connection reset by peer",
    "Expecting value: line 1 column 1 (char 0)",
    "[Errno 2] No such file or directory: 'config.json'",
)
USERS = ("ubuntu", "root", "jane", "a.kumar", "dev")


def _path(rng: random.Random) -> str:
    model = rng.choice(MODELS).split("/")[-1]
    return rng.choice(
        (
            f"/home/{rng.choice(USERS)}/models/{model}",
            f"/root/.cache/huggingface/hub/models--{rng.choice(MODELS).replace('/', '--')}"
            f"/snapshots/{rng.getrandbits(40):010x}",
            f"./checkpoints/checkpoint-{rng.randint(1, 90) * 500}",
            f"C:\\Users\\{rng.choice(USERS)}\\Documents\\{model}",
            f"/data/{model}/pytorch_model.bin",
            f"/tmp/tmp{rng.getrandbits(32):08x}/config.json",
        )
    )


def _shape(rng: random.Random) -> str:
    dims = [
        rng.choice((1, 2, 3, 8, 16, 77, 128, 224, 512, 768, 4096)) for _ in range(rng.randint(1, 4))
    ]
    text = ", ".join(map(str, dims))
    if rng.random() < 0.5:
        return f"torch.Size([{text}])"
    return f"({text}{',' if len(dims) == 1 else ''})"


def _names(rng: random.Random, keys: bool) -> str:
    items = rng.sample(NAMES, rng.randint(1, 5))
    if keys:
        return f"dict_keys({items!r})"
    return repr(items) if rng.random() < 0.7 else ", ".join(items)


def _float(rng: random.Random) -> str:
    return rng.choice(("0.1", "0.0", "1e-05", "1.5", "-0.5", "0.95", "2.0", "1e-12", "0.02"))


def _int(rng: random.Random) -> str:
    return str(rng.choice((0, 1, 2, 3, 4, 8, 12, 16, 32, 64, 77, 128, 512, 768, 1024, 4096, -1)))


_INT_WORDS = re.compile(
    r"size|dim|len|num|count|idx|index|max|min|length|heads|layers|rank|step|batch|"
    r"width|height|stride|depth|\bn\b|\bi\b|\bk\b|_id$|^id$|position|offset|total|"
    r"channels|tokens|vocab|seq|window|patch|bits|group|experts|epoch|level|start|end|"
    r"limit|order|padding|pad|factor_int|capacity|frames|nb_|block|chunk|port"
)
_FLOAT_WORDS = re.compile(
    r"rate|ratio|dropout|eps|epsilon|temperature|scale|threshold|prob|top_p|penalty|"
    r"alpha|beta|gamma|weight_decay|lr\b|std|mean|factor|momentum|_p$"
)


def value_for(name: str, rng: random.Random) -> str:
    """A runtime value of the kind that a placeholder's source expression suggests."""
    conversion = name.endswith("!r")
    key = name.removesuffix("!r").strip().lower()
    value = _value(key, rng)
    if conversion and not re.fullmatch(r"-?[0-9.e+-]+|\[.*\]|\{.*\}|\(.*\)|None|True|False", value):
        return repr(value)
    return value


_CLASS_NAMES = ("str", "NoneType", "Tensor", "ndarray", "list", "dict", *CLASSES)
_TYPES = (
    "<class 'str'>",
    "<class 'NoneType'>",
    "<class 'torch.Tensor'>",
    "<class 'numpy.ndarray'>",
    "<class 'PIL.Image.Image'>",
    "<class 'list'>",
)


def _value(key: str, rng: random.Random) -> str:
    last = re.split(r"[.\[(]", key.rstrip(")]").rstrip("("))[-1] if key else ""
    if key.startswith("len(") or (
        re.search(r"[-+*/%]", key) and not re.search(r"path|file|dir|name|url|join", key)
    ):
        return _int(rng)
    if "shape" in key or "size()" in key or (key.startswith("(") and "," in key):
        return _shape(rng)
    if "__name__" in key or "__qualname__" in key:
        return rng.choice(_CLASS_NAMES)
    if key.startswith("type(") or "__class__" in key or last == "cls":
        return rng.choice((*_TYPES, *CLASSES))
    if "dtype" in key:
        return rng.choice(DTYPES)
    if "keys()" in key:
        return _names(rng, keys=True)
    if re.search(
        r"choices|available|supported|valid|allowed|sorted|join|list\(|names|keys|missing|"
        r"unexpected|options|modules|mapping|_list\b",
        key,
    ):
        return _names(rng, keys=False)
    if re.search(r"url|endpoint|link", key):
        return rng.choice(
            (
                f"https://huggingface.co/{rng.choice(MODELS)}/resolve/main/config.json",
                "http://localhost:8000/v1/chat/completions",
                "https://example.com/image.jpg",
            )
        )
    if re.search(r"(side|mode|type|name|strategy|format|style|kind|method|impl)$", last):
        if re.search(r"name_or_path|model_name|repo", key):
            return rng.choice(MODELS)
        return rng.choice(NAMES)
    if re.search(r"^(do_|is_|use_|return_|has_|add_|output_)", last):
        return rng.choice(("True", "False", "None"))
    if _FLOAT_WORDS.search(last):
        return _float(rng)
    if _INT_WORDS.search(last):
        return _int(rng)
    if re.search(r"path|dir\b|_dir|folder|file|filename|checkpoint|archive|cache", key):
        return _path(rng)
    if re.search(r"model_id|repo_id|name_or_path|pretrained|model_name|repo\b", key):
        return rng.choice(MODELS)
    if re.search(r"config|class|arch|processor|tokenizer|model$|module$", last):
        return rng.choice(CLASSES)
    if last in ("e", "err", "error", "exc", "exception", "reason", "msg", "message", "detail"):
        return rng.choice(ERRORS)
    if re.search(r"device", key):
        return rng.choice(("cuda:0", "cpu", "mps", "cuda:1", "meta"))
    if re.search(
        r"name|key|type|mode|method|format|strategy|backend|impl|activation|side|task|"
        r"kind|framework|tensors|attn|attention|scheme|style|policy|str|token|label|value",
        key,
    ):
        return rng.choice(NAMES)
    return _general(rng)


def _general(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.25:
        return _int(rng)
    if r < 0.45:
        return repr(rng.choice(NAMES))
    if r < 0.6:
        return rng.choice(("None", "True", "False"))
    if r < 0.7:
        return _float(rng)
    if r < 0.8:
        return repr([rng.randint(0, 9) for _ in range(rng.randint(1, 4))])
    return rng.choice(NAMES)


def fill(record: Mapping[str, Any], rng: random.Random) -> str:
    """The message as the program printed it; a name used twice gets one value."""
    return pastes.fill(record, rng, value_for)


# --- Building blocks -----------------------------------------------------------------

SITES = (
    "/usr/local/lib/python3.12/site-packages/",
    "/opt/conda/lib/python3.11/site-packages/",
    "/home/{user}/.venv/lib/python3.10/site-packages/",
    "/root/miniconda3/envs/hf/lib/python3.12/site-packages/",
    "/home/{user}/.local/lib/python3.11/site-packages/",
    "C:\\Users\\{user}\\AppData\\Local\\Programs\\Python\\Python311\\Lib\\site-packages\\",
    "C:\\ProgramData\\anaconda3\\envs\\ml\\Lib\\site-packages\\",
)
SCRIPTS = (
    ("/home/{user}/project/train.py", "<module>", "main()"),
    ("/home/{user}/project/train.py", "main", "model = AutoModel.from_pretrained(args.model)"),
    ("/workspace/infer.py", "<module>", "outputs = pipe(inputs, batch_size=8)"),
    ("/app/server.py", "load", "processor = AutoProcessor.from_pretrained(MODEL_ID)"),
    ("<stdin>", "<module>", None),
    ("C:\\Users\\{user}\\Desktop\\run.py", "<module>", "trainer.train()"),
)
MIDDLE = (
    ("transformers/models/auto/auto_factory.py", 604, "from_pretrained"),
    ("transformers/modeling_utils.py", 277, "_wrapper"),
    ("transformers/modeling_utils.py", 4971, "from_pretrained"),
    ("transformers/trainer.py", 2325, "train"),
    ("torch/nn/modules/module.py", 1773, "_wrapped_call_impl"),
    ("torch/nn/modules/module.py", 1784, "_call_impl"),
    ("transformers/pipelines/base.py", 1459, "__call__"),
    ("transformers/configuration_utils.py", 622, "from_pretrained"),
    ("transformers/tokenization_utils_base.py", 2113, "from_pretrained"),
    ("transformers/processing_utils.py", 1394, "from_pretrained"),
)


def exception_name(record: Mapping[str, Any]) -> str:
    """How Python prints the record's exception type."""
    return str(record["exception"])


def exception_line(record: Mapping[str, Any], message: str, name: str | None = None) -> str:
    name = name or exception_name(record)
    if name.rsplit(".", 1)[-1] == "KeyError":
        return f"{name}: {message!r}"
    return f"{name}: {message}" if message else name


def _site(rng: random.Random) -> str:
    return rng.choice(SITES).format(user=rng.choice(USERS))


def _frame(site: str, path: str, line: int, function: str, code: str | None) -> list[str]:
    file = site + path
    if "\\" in site:
        file = file.replace("/", "\\")
    out = [f'  File "{file}", line {line}, in {function}']
    if code is not None:
        out.append(f"    {code}")
    return out


def frames(record: Mapping[str, Any], rng: random.Random, site: str | None = None) -> list[str]:
    """The frames from a user's script down to the record's raise."""
    site = site or _site(rng)
    user = rng.choice(USERS)
    lines: list[str] = []
    script, function, code = rng.choice(SCRIPTS)
    script = script.format(user=user)
    lines += [f'  File "{script}", line {rng.randint(3, 300)}, in {function}']
    if code:
        lines.append(f"    {code}")
        if rng.random() < 0.3:
            lines.append("    " + "^" * min(len(code), rng.randint(6, 40)))
    for path, line, fn in rng.sample(MIDDLE, rng.randint(0, 3)):
        lines += _frame(site, path, line, fn, "return func(*args, **kwargs)")
    source = record.get("source") or {}
    function = str(source.get("function") or "forward").rsplit(".", 1)[-1]
    raised = str(record["exception"]).rsplit(".", 1)[-1]
    lines += _frame(
        site,
        str(source.get("path") or "transformers/utils/generic.py"),
        int(source.get("line") or 100),
        function,
        f"raise {raised}(",
    )
    return lines


def traceback_lines(record: Mapping[str, Any], message: str, rng: random.Random) -> list[str]:
    return [
        "Traceback (most recent call last):",
        *frames(record, rng),
        *exception_line(record, message).split("\n"),
    ]


_CAUSES = (
    ("KeyError: 'model_type'", "config_class = CONFIG_MAPPING[config_dict['model_type']]"),
    ("AttributeError: 'NoneType' object has no attribute 'get'", "value = kwargs.get(key)"),
    ("ImportError: cannot import name 'is_torch_fx_available'", "from .utils import x"),
    ("OSError: [Errno 28] No space left on device", "torch.save(state_dict, path)"),
    ("TypeError: 'NoneType' object is not iterable", "for item in self.items:"),
)


def cause_lines(rng: random.Random) -> list[str]:
    """Another error's short traceback, for chains."""
    text, code = rng.choice(_CAUSES)
    return [
        "Traceback (most recent call last):",
        *_frame(_site(rng), "transformers/utils/hub.py", rng.randint(50, 900), "cached_file", code),
        text,
    ]


def _clock(rng: random.Random) -> str:
    return f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"


def _date(rng: random.Random) -> str:
    return f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


RED, RESET = "\x1b[0;31m", "\x1b[0m"
GREEN, GREY, BOLD_GREEN = "\x1b[0;32m", "\x1b[38;5;241m", "\x1b[38;5;28;01m"

# --- Shapes --------------------------------------------------------------------------


def _plain(record: Mapping[str, Any], message: str, rng: random.Random) -> str:
    return message if rng.random() < 0.5 else exception_line(record, message)


def _traceback(record: Mapping[str, Any], message: str, rng: random.Random) -> str:
    lines = traceback_lines(record, message, rng)
    if rng.random() < 0.3:
        marker = rng.choice(
            (
                "During handling of the above exception, another exception occurred:",
                "The above exception was the direct cause of the following exception:",
            )
        )
        lines = [*cause_lines(rng), "", marker, "", *lines]
    return "\n".join(lines)


def _log(record: Mapping[str, Any], message: str, rng: random.Random) -> str:
    exc = exception_line(record, message)
    stamp = f"{_date(rng)} {_clock(rng)}"
    millis = f"{rng.randint(0, 999):03d}"
    style = rng.randrange(8)
    if style == 0:
        return f"{stamp},{millis} - transformers.modeling_utils - ERROR - {exc}"
    if style == 1:
        return f"{stamp}.{millis} | ERROR    | app.main:load:{rng.randint(10, 300)} - {exc}"
    if style == 2:
        return f"ERROR:__main__:Failed to load the model: {message}"
    if style == 3:
        return f"[{stamp},{millis}] [ERROR] [worker.py:{rng.randint(10, 900)}] {exc}"
    if style == 4:
        month, day = _date(rng)[5:].split("-")
        where = f"[core.py:{rng.randint(40, 1900)}]"
        pid = f"(EngineCore_DP0 pid={rng.randint(100, 99999)})"
        return f"{pid} ERROR {month}-{day} {_clock(rng)} {where} {exc}"
    if style == 5:
        return f"{_date(rng)}T{_clock(rng)}.{millis}Z {RED}ERROR{RESET} {exc}"
    if style == 6:
        prefix = f"{stamp},{millis} ERROR "
        return "\n".join(prefix + line for line in traceback_lines(record, message, rng))
    return f"{stamp} [ERROR] request {rng.getrandbits(32):08x} failed: {message}"


def _pieces(message: str, rng: random.Random) -> str:
    words = message.split()
    n = len(words)
    if n > 4:
        k = rng.randint(4, max(4, min(n, n * 8 // 10)))
        start = rng.randint(0, n - k)
        words = words[start : start + k]
    if len(words[0]) >= 4:
        words[0] = words[0][rng.randint(1, len(words[0]) - 2) :]
    if len(words[-1]) >= 4:
        words[-1] = words[-1][: rng.randint(2, len(words[-1]) - 1)]
    text = " ".join(words)
    mode = rng.randrange(3)
    if mode == 0:
        text = text.lower()
    elif mode == 1:
        text = re.sub(r"[`'\"]", "", text)
    else:
        text = re.sub(r"[`'\"]", "", text.lower())
    return text


_PYDANTIC_OTHER = (
    (
        "port",
        "Input should be a valid integer, unable to parse string as an integer "
        "[type=int_parsing, input_value='80a', input_type=str]",
        "int_parsing",
    ),
    (
        "max_tokens",
        "Input should be greater than 0 [type=greater_than, input_value=-1, input_type=int]",
        "greater_than",
    ),
    ("model", "Field required [type=missing, input_value={}, input_type=dict]", "missing"),
)


def _pydantic(record: Mapping[str, Any], message: str, rng: random.Random) -> str:
    version = rng.choice(("2.10", "2.11", "2.12"))
    owner = rng.choice(("ModelConfig", "TrainingArgs", "Settings", "GenerationRequest", "Job"))
    if str(record["exception"]).endswith("AssertionError"):
        said, kind = f"Assertion failed, {message}", "assertion_error"
    else:
        said, kind = f"Value error, {message}", "value_error"
    given = rng.choice(
        (
            "{'model': '" + rng.choice(MODELS) + "', 'dtype': 'auto'}",
            f"'{rng.choice(NAMES)}'",
            "ArgsKwargs((), {'model': '" + rng.choice(MODELS) + "'})",
        )
    )
    given_type = {"{": "dict", "'": "str", "A": "ArgsKwargs"}[given[0]]
    ours = [
        f"  {said} [type={kind}, input_value={given}, input_type={given_type}]",
        f"    For further information visit https://errors.pydantic.dev/{version}/v/{kind}",
    ]
    field = rng.random() < 0.5
    if field:
        ours.insert(0, rng.choice(("model", "config", "processor", "generation_config")))
    blocks = [ours]
    for _ in range(rng.choice((0, 0, 1, 2))):
        name, text, other = rng.choice(_PYDANTIC_OTHER)
        blocks.insert(
            rng.randint(0, len(blocks)),
            [
                name,
                f"  {text}",
                f"    For further information visit https://errors.pydantic.dev/{version}/v/{other}",
            ],
        )
    count = len(blocks)
    head = f"{count} validation error{'s' if count > 1 else ''} for {owner}"
    body = [line for block in blocks for line in block]
    if rng.random() < 0.5:
        return "\n".join([f"pydantic_core._pydantic_core.ValidationError: {head}", *body])
    site = _site(rng)
    tb = [
        "Traceback (most recent call last):",
        *_frame(site, "app/config.py", rng.randint(10, 200), "load", f"cfg = {owner}(**raw)"),
        *_frame(
            site,
            "pydantic/main.py",
            253,
            "__init__",
            "validated_self = self.__pydantic_validator__.validate_python(data, "
            "self_instance=self)",
        ),
        f"pydantic_core._pydantic_core.ValidationError: {head}",
    ]
    return "\n".join([*tb, *body])


def _http(record: Mapping[str, Any], message: str, rng: random.Random) -> str:
    name = exception_name(record).rsplit(".", 1)[-1]
    said = message
    if rng.random() < 0.3:
        said = f"{name}({message!r})"
    code = rng.choice((400, 400, 422, 500))
    kind = {400: "BadRequestError", 422: "UnprocessableEntityError", 500: "InternalServerError"}[
        code
    ]
    style = rng.randrange(5)
    if style == 0:
        body: dict[str, Any] = {
            "error": {"message": said, "type": kind, "param": None, "code": code}
        }
        return f"openai.{kind}: Error code: {code} - {body!r}"
    if style == 1:
        server = {"object": "error", "message": said, "type": kind, "param": None, "code": code}
        text = json.dumps(server, indent=2 if rng.random() < 0.4 else None)
    elif style == 2:
        text = json.dumps(
            {"error": {"message": said, "type": "invalid_request_error", "code": code}}
        )
    elif style == 3:
        text = json.dumps({"detail": said}) if rng.random() < 0.5 else json.dumps({"error": said})
    else:
        text = json.dumps({"object": "error", "message": said, "type": kind, "code": code})
        reason = {400: "Bad Request", 422: "Unprocessable Entity", 500: "Internal Server Error"}
        return "\n".join(
            [
                "$ curl -v http://localhost:8000/v1/chat/completions -H "
                "'Content-Type: application/json' -d @req.json",
                "*   Trying 127.0.0.1:8000...",
                "* Connected to localhost (127.0.0.1) port 8000",
                "> POST /v1/chat/completions HTTP/1.1",
                "> Host: localhost:8000",
                ">",
                f"< HTTP/1.1 {code} {reason[code]}",
                "< content-type: application/json",
                f"< content-length: {len(text)}",
                "<",
                text,
                "* Connection #0 to host localhost left intact",
            ]
        )
    if rng.random() < 0.5:
        return text
    return f"$ curl -s http://localhost:8000/v1/completions -d @req.json\n{text}"


def _wrapper(record: Mapping[str, Any], message: str, rng: random.Random) -> str:
    ours = traceback_lines(record, message, rng)
    site = _site(rng)
    name = exception_name(record).rsplit(".", 1)[-1]
    style = rng.randrange(5)
    direct = "The above exception was the direct cause of the following exception:"
    if style == 0:
        after = [
            "Traceback (most recent call last):",
            *_frame(site, "vllm/v1/engine/core_client.py", 95, "make_client", "return cls(...)"),
            "RuntimeError: Engine core initialization failed. See root cause above. "
            "Failed core proc(s): {}",
        ]
        return "\n".join([*ours, "", direct, "", *after])
    if style == 1:
        pid, ip = rng.randint(1000, 99999), f"10.0.{rng.randint(0, 9)}.{rng.randint(2, 250)}"
        head = (
            f"ray.exceptions.RayTaskError({name}): ray::RayWorkerWrapper.execute_method() "
            f"(pid={pid}, ip={ip}, actor_id={rng.getrandbits(64):016x}, "
            "repr=<vllm.executor.ray_utils.RayWorkerWrapper object at 0x7f2b1c0e5f90>)"
        )
        return "\n".join([head, *ours])
    if style == 2:
        remote = [
            "concurrent.futures.process._RemoteTraceback: ",
            '"""',
            "Traceback (most recent call last):",
            *_frame(
                "/usr/lib/python3.11/",
                "concurrent/futures/process.py",
                263,
                "_process_worker",
                "r = call_item.fn(*call_item.args, **call_item.kwargs)",
            ),
            *ours[1:],
            '"""',
        ]
        main = [
            "Traceback (most recent call last):",
            *_frame(
                site, "app/batch.py", 41, "<module>", "results = [f.result() for f in futures]"
            ),
            *_frame("/usr/lib/python3.11/", "concurrent/futures/_base.py", 449, "result", None),
            exception_line(record, message),
        ]
        return "\n".join([*remote, "", direct, "", *main])
    if style == 3:
        spawn = [
            "Traceback (most recent call last):",
            *_frame(
                site, "train.py", 88, "<module>", "mp.spawn(main, args=(world,), nprocs=world)"
            ),
            *_frame(site, "torch/multiprocessing/spawn.py", 215, "_join", None),
            "    raise ProcessRaisedException(msg, error_index, failed_process.pid)",
            "torch.multiprocessing.spawn.ProcessRaisedException: ",
            "",
            f"-- Process {rng.randint(0, 7)} terminated with the following error:",
            "Traceback (most recent call last):",
            *_frame(site, "torch/multiprocessing/spawn.py", 90, "_wrap", "fn(i, *args)"),
            *ours[1:],
        ]
        return "\n".join(spawn)
    during = "During handling of the above exception, another exception occurred:"
    wrap = rng.choice(
        (
            f"RuntimeError: Worker failed with error '{message}', please check the stack trace "
            "above for the root cause",
            "RuntimeError: Failed to load the model. See the error above.",
            "SystemExit: 1",
        )
    )
    after = [
        "Traceback (most recent call last):",
        *_frame(site, "app/main.py", 30, "<module>", "run()"),
        wrap,
    ]
    return "\n".join([*ours, "", during, "", *after])


_PIP_LIST = (
    "Package                  Version",
    "------------------------ ------------",
    "accelerate               1.1.1",
    "huggingface-hub          0.26.2",
    "numpy                    1.26.4",
    "safetensors              0.4.5",
    "tokenizers               0.20.3",
    "torch                    2.5.1",
    "transformers             4.57.1",
)
_NVIDIA_SMI = (
    "+-----------------------------------------------------------------------------------------+",
    "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |",
    "|-----------------------------------------+------------------------+----------------------+",
    "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
    "|   0  NVIDIA A100-SXM4-80GB          On  |   00000000:07:00.0 Off |                    0 |",
    "+-----------------------------------------+------------------------+----------------------+",
)
_ENV = (
    "- `transformers` version: 4.57.1",
    "- Platform: Linux-5.15.0-122-generic-x86_64-with-glibc2.35",
    "- Python version: 3.11.10",
    "- Huggingface_hub version: 0.26.2",
    "- Safetensors version: 0.4.5",
    "- PyTorch version (GPU?): 2.5.1+cu124 (True)",
    "- Using distributed or parallel set-up in script?: no",
)
_COLLECT_ENV = (
    "PyTorch version: 2.5.1+cu124",
    "Is debug build: False",
    "CUDA used to build PyTorch: 12.4",
    "OS: Ubuntu 22.04.4 LTS (x86_64)",
    "GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0",
    "Python version: 3.11.10 (main, Sep  7 2024, 18:35:41) [GCC 11.4.0] (64-bit runtime)",
    "Is CUDA available: True",
)


def _issue(record: Mapping[str, Any], message: str, rng: random.Random) -> str:
    parts: list[str] = []
    parts += ["### System Info", ""]
    dump = rng.choice((_PIP_LIST, _NVIDIA_SMI, _ENV, _COLLECT_ENV))
    if rng.random() < 0.5:
        parts += [
            "<details>",
            "<summary>Environment</summary>",
            "",
            "```",
            *dump,
            "```",
            "</details>",
        ]
    else:
        parts += list(dump)
    parts += ["", "### Reproduction", "", "```python", "from transformers import AutoModel"]
    parts += [f'model = AutoModel.from_pretrained("{rng.choice(MODELS)}")', "```", ""]
    if rng.random() < 0.3:
        parts += ["First I got this, which I fixed by upgrading:", "```", *cause_lines(rng), "```"]
        parts += [""]
    parts += [rng.choice(("Error:", "I get the following error:", "Full traceback:")), ""]
    body = traceback_lines(record, message, rng)
    if rng.random() < 0.3:
        body = [
            *cause_lines(rng),
            "",
            "The above exception was the direct cause of the following exception:",
            "",
            *body,
        ]
    style = rng.randrange(4)
    if style == 0:
        parts += ["```", *body, "```"]
    elif style == 1:
        parts += ["~~~python", *body, "~~~"]
    elif style == 2:
        parts += [
            "<details><summary>Traceback</summary>",
            "",
            "```",
            *body,
            "```",
            "",
            "</details>",
        ]
    else:
        parts += [f"> {line}" if line else ">" for line in body]
    if rng.random() < 0.5:
        parts += ["", "### Expected behavior", "", "The model should load without errors."]
    return "\n".join(parts)


def _everyday(record: Mapping[str, Any], message: str, rng: random.Random) -> str:
    style = rng.randrange(8)
    name = exception_name(record)
    source = record.get("source") or {}
    path = str(source.get("path") or "transformers/utils/generic.py")
    line = int(source.get("line") or 100)
    function = str(source.get("function") or "forward").rsplit(".", 1)[-1]
    if style == 0:  # IPython / Jupyter, with colours
        site = _site(rng).replace("\\", "/")
        out = [
            f"{RED}---------------------------------------------------------------------------{RESET}",
            f"{RED}{name}{RESET}                                Traceback (most recent call last)",
            f"Cell In[{rng.randint(1, 40)}], line 1",
            f"{GREEN}----> 1{RESET} model {GREY}={RESET} AutoModel.from_pretrained(path)",
            "",
            f"File {GREEN}{site}{path}:{line}{RESET}, in {function}(self, *args, **kwargs)",
            f"{GREEN}-> {line}{RESET}     {BOLD_GREEN}raise{RESET} {name.rsplit('.', 1)[-1]}(",
            "",
        ]
        text = exception_line(record, message)
        head, _, rest = text.partition(": ")
        out.append(f"{RED}{head}{RESET}: {rest}" if rest else f"{RED}{head}{RESET}")
        return "\n".join(out)
    if style == 1:  # logger.exception
        return "\n".join(
            [
                f"ERROR:app.worker:Failed to process batch {rng.randint(1, 900)}",
                *traceback_lines(record, message, rng),
            ]
        )
    if style == 2:  # pytest
        exc_lines = exception_line(record, message).split("\n")
        out = [
            "    def test_load():",
            f">       model = {rng.choice(CLASSES)}.from_pretrained(PATH)",
            "",
            f"tests/test_models.py:{rng.randint(5, 300)}: ",
            "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _",
            "",
            f">   raise {name.rsplit('.', 1)[-1]}(",
            *[f"E   {part}" for part in exc_lines],
            "",
            f"{_site(rng).replace(chr(92), '/')}{path}:{line}: {name.rsplit('.', 1)[-1]}",
        ]
        if rng.random() < 0.5:
            out += [
                "=========================== short test summary info ============================",
                f"FAILED tests/test_models.py::test_load - {exception_line(record, message)[:70]}",
            ]
        return "\n".join(out)
    if style == 3:  # Windows paths
        site = rng.choice([s for s in SITES if "\\" in s]).format(user=rng.choice(USERS))
        body = ["Traceback (most recent call last):", *frames(record, rng, site=site)]
        return "\n".join([*body, *exception_line(record, message).split("\n")])
    if style == 4:  # process prefixes on every line
        prefix = rng.choice(
            (
                f"(Worker pid={rng.randint(10, 99999)}) ",
                f"[rank{rng.randint(0, 7)}]: ",
                f"(RayWorkerWrapper pid={rng.randint(1000, 99999)}, "
                f"ip=10.0.{rng.randint(0, 9)}.{rng.randint(2, 250)}) ",
                f"(VllmWorker rank={rng.randint(0, 7)} pid={rng.randint(100, 9999)}) ",
            )
        )
        return "\n".join(prefix + line for line in traceback_lines(record, message, rng))
    exc = exception_line(record, message)
    body = traceback_lines(record, message, rng)[: -1 - exc.count("\n")]
    width = rng.choice((60, 72, 80, 100))
    if style == 5:  # a terminal that hard-wraps at its width, mid-word
        wrapped = [exc[i : i + width] for i in range(0, len(exc), width)] if exc else [exc]
        return "\n".join([*body, *wrapped])
    if style == 6:  # textwrap
        return "\n".join([*body, *textwrap.wrap(exc, width, break_long_words=False)])
    return "\n".join(
        [
            f"{_date(rng)} {_clock(rng)} ERROR {line}"
            for line in traceback_lines(record, message, rng)
        ]
    )


_MAKERS: dict[str, Callable[[Mapping[str, Any], str, random.Random], str]] = {
    "plain": _plain,
    "traceback": _traceback,
    "log": _log,
    "pieces": lambda _record, message, rng: _pieces(message, rng),
    "pydantic": _pydantic,
    "http": _http,
    "wrapper": _wrapper,
    "issue": _issue,
    "everyday": _everyday,
}


def make(record: Mapping[str, Any], shape: str, rng: random.Random) -> str:
    """What a user would paste for ``record``, in ``shape`` (one of ``SHAPES``)."""
    return dress(record, fill(record, rng), shape, rng)


def dress(record: Mapping[str, Any], message: str, shape: str, rng: random.Random) -> str:
    """``message`` (the record's, filled in) as pasted in ``shape``."""
    if shape not in _MAKERS:
        raise ValueError(f"unknown paste shape {shape!r}; expected one of {SHAPES}")
    return _MAKERS[shape](record, message, rng)
