"""Ground drafted prose in the code: a draft may name only what the code, its docs or an
allow-list has.

``errdex draft`` asks a language model to write the prose of a record, and a model writes
fluent text about flags, variables and functions that do not exist. ``known_from`` reads
what a codebase has once; ``refusals`` lists every reason a draft cannot be published: a
field missing, mistyped or too long, raw HTML or an unsafe link, a placeholder left in,
and every claim the code does not back (a flag, an environment variable, a name written as
code, a file, a module a Python example imports).

A draft is read as its page shows it: Markdown code spans and fenced blocks are code,
checked like the example fixes; the rest is prose, where only flags, environment
variables and paths are claims. No pattern here can backtrack past one run of a character
class, and no loop goes back: a hostile draft costs time linear in its size.
"""

from __future__ import annotations

import ast
import builtins
import html
import io
import keyword
import re
import tokenize
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

DEFAULT_ALLOWED: frozenset[str] = frozenset(
    {
        # Tools a fix may tell a user to run; flags given to them are theirs (see _foreign).
        *("pip", "pip3", "python", "python3", "uv", "uvx", "conda", "mamba", "git", "bash"),
        *("sh", "zsh", "export", "source", "unset", "cd", "ls", "cat", "echo", "env", "sudo"),
        *("apt", "apt-get", "brew", "docker", "make", "cmake", "curl", "wget", "which"),
        *("nvidia-smi", "nvcc", "rocm-smi", "free", "df", "ulimit", "ps", "kill", "ldd"),
        # Environment variables of the shell, of Python and of proxies.
        *("PATH", "PYTHONPATH", "LD_LIBRARY_PATH", "HOME", "TMPDIR", "USER", "LANG", "LC_ALL"),
        *("PYTHONUNBUFFERED", "VIRTUAL_ENV", "CONDA_PREFIX", "HTTP_PROXY", "HTTPS_PROXY"),
        "NO_PROXY",
        # CUDA, ROCm, NCCL and PyTorch's launcher: set on the machine, read below the code.
        *("CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_LAUNCH_BLOCKING", "HIP_VISIBLE_DEVICES"),
        *("ROCR_VISIBLE_DEVICES", "NCCL_DEBUG", "NCCL_P2P_DISABLE", "NCCL_IB_DISABLE"),
        *("NCCL_SOCKET_IFNAME", "OMP_NUM_THREADS", "TORCH_CUDA_ARCH_LIST"),
        *("PYTORCH_CUDA_ALLOC_CONF", "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK"),
        "LOCAL_RANK",
        # The Hugging Face Hub, where most models come from.
        *("HF_TOKEN", "HF_HOME", "HF_HUB_OFFLINE", "HF_ENDPOINT", "HUGGING_FACE_HUB_TOKEN"),
        "TOKENIZERS_PARALLELISM",
        # pip's flags that fixes name in prose, where no command says whose flag it is.
        *("--upgrade", "--user", "--pre", "--no-cache-dir", "--force-reinstall"),
        *("--no-build-isolation", "--index-url", "--extra-index-url", "--editable"),
        *("--help", "--version"),
        # Folders every Linux machine has.
        *("/tmp", "/dev/shm"),
    }
)
"""Names from other tools a draft may use: common commands, environment variables and pip's
flags. No Python module is here: a fix that imports one the code never imports is refused."""

LIMITS: Mapping[str, int] = MappingProxyType(
    {
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
)
"""Bounds of a draft. ``*_chars`` count characters of a text: ``meaning``, ``when.trigger``,
``when.situations``, each solution, each example fix's ``code`` and ``caption``.
``solutions`` and ``example_fixes`` count list items; ``example_fix_lines`` counts the
lines of each example fix's ``code``."""

_PYTHON_LANGS = frozenset({"python", "py", "python3", "py3"})
_SHELL_LANGS = frozenset({"bash", "sh", "shell", "zsh", "console", "shell-session"})
_SESSION_LANGS = frozenset({"console", "shell-session"})
"""Shell sessions: only the lines after a prompt are commands; the rest is their output."""
_EXTENSIONS = frozenset(
    {"py", "pyi", "pyx", "yaml", "yml", "json", "jsonl", "toml", "cfg", "ini", "txt", "md"}
    | {"rst", "sh", "cu", "cuh", "cpp", "cc", "hpp", "ipynb", "lock"}
)
"""Endings that make a word a file name. Single letters (``.c``, ``.h``) are left out:
``self.h`` is an attribute far more often than a header."""
_PYTHON_WORDS = frozenset(dir(builtins)) | {"__file__"} | frozenset(keyword.kwlist)
_UNSAFE_SCHEMES = ("javascript:", "vbscript:", "data:", "file:")
_SPAN_PARSE_LIMIT = 200
"""Longer code spans are commands or prose, not a name to look up: not parsed as Python."""
_SHOWN_LIMIT = 80

_WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RUN_RE = re.compile(r"[\w.~/+-]+")
"""A word as a path, flag or dotted name spells it."""
_FLAG_RE = re.compile(r"(?<![\w-])--[A-Za-z0-9][\w.-]*")
_ENV_RE = re.compile(
    r"(?:\$\{?|\bexport[ \t]+)([A-Z_][A-Z0-9_]*)(?![\w-])"
    r"|(?<![\w$.-])([A-Z][A-Z0-9]*_[A-Z0-9_]*)(?![\w-])"
)
"""An environment variable: UPPER_CASE with an underscore, or any upper-case name after
``$`` or ``export`` (``$name`` in lower case is a shell's own variable)."""
_QUOTED_RE = re.compile(r"\"([^\"\\\n]{0,100})\"|'([^'\\\n]{0,100})'")
_IMPORT_RE = re.compile(r"^[ \t]*(?:from|import)[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
_PLACEHOLDER_RE = re.compile(r"(?<!\$)\{ ?[A-Za-z_][\w.-]{0,80} ?\}")
_PROSE_HTML_RE = re.compile(r"<(?!https?://)(?:!--|[!?]|/?[A-Za-z][A-Za-z0-9-]*)")
"""Any tag in prose; an autolink to a web page is Markdown, not HTML."""
_CODE_HTML_RE = re.compile(r"(?<!<)<(?:!--|/?[A-Za-z][A-Za-z0-9-]*(?=[\s/>]|$))")
"""A tag in code: ``a<b`` and ``cat <<EOF`` are not one."""
_LINK_RE = re.compile(r"\]\s*[(:]")
"""Where a link's or image's destination starts, inline or in a reference definition."""
_IGNORED_IN_URL_RE = re.compile(r"[\s\x00-\x1f]+")
_BACKTICKS_RE = re.compile(r"`+")
_FENCE_RE = re.compile(r"[ \t]*(`{3,}|~{3,})(.*)")
_COMMENT_RE = re.compile(r"(?:^|\s)#")
_COMMAND_SEP_RE = re.compile(r"&&|\|\||[|;&]")
_ASSIGNMENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON_PROGRAM_RE = re.compile(r"python(?:3(?:\.[0-9]+)?)?")
_LANG_RE = re.compile(r"[A-Za-z0-9][\w+#.-]{0,39}")
_WRAPPERS = frozenset({"sudo", "env", "time", "nohup", "exec", "command", "nice"})
"""Commands that run the next word as the program."""


@dataclass(frozen=True, slots=True)
class Known:
    """Names a draft may use: those of the code, the project's docs and an allow-list."""

    identifiers: frozenset[str]
    """Every Python identifier the code defines or uses: names, attribute names, function,
    class and parameter names, keyword-argument names, dataclass fields."""
    strings: frozenset[str]
    """Short string literals of the code (at most 100 characters), where flags, variable and
    file names are spelled; and the flags and variables named inside longer ones."""
    files: frozenset[str]
    """Repository-relative paths of the code's files, and their base names."""
    modules: frozenset[str]
    """Top-level names of the modules the code imports, and every package and module name
    in its paths (where the import root lies, ``src/`` or the top, is not known)."""
    docs: str
    """The docs' text (may be empty)."""
    allowed: frozenset[str]
    """Names allowed from other tools: DEFAULT_ALLOWED and the site's own list."""
    doc_terms: frozenset[str] = field(init=False, repr=False, compare=False)
    """Derived: every word, flag and path of ``docs``."""
    paths: frozenset[str] = field(init=False, repr=False, compare=False)
    """Derived: every file and folder of the code, by each tail of its path."""
    folders: frozenset[str] = field(init=False, repr=False, compare=False)
    """Derived: the top folders of the code; ``vllm/engine`` is a path when ``vllm`` is one."""
    names: frozenset[str] = field(init=False, repr=False, compare=False)
    """Derived: all a name written as code may be (identifiers, strings, modules, doc
    terms, allowed)."""

    def __post_init__(self) -> None:
        # Derived once here, not per draft: docs and codebases are large, drafts are many.
        set_ = object.__setattr__
        set_(self, "doc_terms", _terms(self.docs))
        set_(self, "paths", _path_tails(self.files))
        set_(self, "folders", frozenset(p.split("/", 1)[0] for p in self.files if "/" in p))
        everything = self.identifiers | self.strings | self.modules | self.allowed
        set_(self, "names", everything | self.doc_terms)


def known_from(
    code: Iterable[tuple[str, str]],
    docs: Iterable[tuple[str, str]] = (),
    allowed: Iterable[str] = (),
) -> Known:
    """What a codebase has. ``code``: (repository-relative path, text) of each source file;
    Python files are parsed with ast, and a file that does not parse (or is not Python)
    gives its words and quoted strings by a regex instead. ``docs``: (path, text) of the
    doc files; ``allowed``: the site's own names, added to DEFAULT_ALLOWED."""
    identifiers: set[str] = set()
    strings: set[str] = set()
    files: set[str] = set()
    modules: set[str] = set()
    with warnings.catch_warnings():
        # Invalid escapes and the like warn while parsing; they are the code's business.
        warnings.simplefilter("ignore")
        for path, text in code:
            path = path.removeprefix("./")
            files.update((path, path.rsplit("/", 1)[-1]))
            python = path.endswith((".py", ".pyi"))
            tree = _parsed(text) if python else None
            if python:
                modules.update(_module_names(path))
            if tree is not None:
                _read_tree(tree, identifiers, strings, modules)
            else:
                _read_text(text, identifiers, strings, modules, python=python)
    return Known(
        identifiers=frozenset(identifiers),
        strings=frozenset(strings),
        files=frozenset(files),
        modules=frozenset(modules),
        docs="\n\n".join(text for _, text in docs),
        allowed=DEFAULT_ALLOWED | frozenset(allowed),
    )


def _parsed(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _module_names(path: str) -> set[str]:
    *folders, name = path.split("/")
    stem = name.rpartition(".")[0]
    return {part for part in (*folders, stem) if part.isidentifier()} - {"__init__", "__main__"}


def _read_tree(tree: ast.AST, identifiers: set[str], strings: set[str], modules: set[str]) -> None:
    """Gather the names and strings of a module. One loop over a stack with a table of
    readers, rather than ast.walk and a match: walking is half of known_from's time, and a
    vllm-sized codebase (600,000 lines) must be read in seconds; ast.walk takes twice as
    long."""
    stack: list[Any] = [tree]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Name:
            identifiers.add(node.id)
            continue
        if kind is ast.Constant:
            if type(node.value) is str:
                _read_string(node.value, strings)
            continue
        if kind is ast.Attribute:
            identifiers.add(node.attr)
            stack.append(node.value)
            continue
        reader = _READERS.get(kind)
        if reader is not None:
            reader(node, identifiers, modules)
        for name in _children(kind):
            value = getattr(node, name)
            if type(value) is list:
                stack.extend(item for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append(value)


_NOT_CHILDREN = frozenset({"ctx", "op", "type_comment", "kind", "is_async", "conversion"}) | {
    *("level", "module", "asname", "id", "attr", "arg", "name", "rest")
}
"""Fields that hold no node worth a visit: strings, numbers, and a Load's or an Add's."""
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _children(kind: type) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        fields = tuple(name for name in kind._fields if name not in _NOT_CHILDREN)  # type: ignore[attr-defined]
        _CHILD_FIELDS[kind] = fields
    return fields


def _read_string(value: str, strings: set[str]) -> None:
    if len(value) <= 100:
        strings.add(value)
    else:
        # A help text or message naming a flag or variable: the code knows that name too.
        strings.update(_FLAG_RE.findall(value))
        strings.update(m.group(1) or m.group(2) for m in _ENV_RE.finditer(value))


def _read_definition(node: Any, identifiers: set[str], modules: set[str]) -> None:
    identifiers.add(node.name)


def _read_optional_name(node: Any, identifiers: set[str], modules: set[str]) -> None:
    if node.name:
        identifiers.add(node.name)


def _read_arg(node: Any, identifiers: set[str], modules: set[str]) -> None:
    if node.arg:  # None for a keyword's **kwargs
        identifiers.add(node.arg)


def _read_alias(node: Any, identifiers: set[str], modules: set[str]) -> None:
    identifiers.update(node.name.split("."))
    if node.asname:
        identifiers.add(node.asname)


def _read_import(node: Any, identifiers: set[str], modules: set[str]) -> None:
    modules.update(alias.name.split(".")[0] for alias in node.names)


def _read_import_from(node: Any, identifiers: set[str], modules: set[str]) -> None:
    if node.module:
        identifiers.update(node.module.split("."))
        if node.level == 0:
            modules.add(node.module.split(".")[0])


def _read_names(node: Any, identifiers: set[str], modules: set[str]) -> None:
    identifiers.update(node.names)


def _read_pattern(node: Any, identifiers: set[str], modules: set[str]) -> None:
    identifiers.update(node.kwd_attrs)


def _read_rest(node: Any, identifiers: set[str], modules: set[str]) -> None:
    if node.rest:
        identifiers.add(node.rest)


_READERS: Mapping[type, Callable[[Any, set[str], set[str]], None]] = MappingProxyType(
    {
        ast.FunctionDef: _read_definition,
        ast.AsyncFunctionDef: _read_definition,
        ast.ClassDef: _read_definition,
        ast.arg: _read_arg,
        ast.keyword: _read_arg,
        ast.alias: _read_alias,
        ast.Import: _read_import,
        ast.ImportFrom: _read_import_from,
        ast.Global: _read_names,
        ast.Nonlocal: _read_names,
        ast.ExceptHandler: _read_optional_name,
        ast.MatchAs: _read_optional_name,
        ast.MatchStar: _read_optional_name,
        ast.MatchClass: _read_pattern,
        ast.MatchMapping: _read_rest,
    }
)
"""What each kind of node adds besides its children: the names it binds or imports."""


def _read_text(
    text: str, identifiers: set[str], strings: set[str], modules: set[str], *, python: bool
) -> None:
    identifiers.update(_WORD_RE.findall(text))
    strings.update(a or b for a, b in _QUOTED_RE.findall(text))
    strings.update(_FLAG_RE.findall(text))
    strings.update(m.group(1) or m.group(2) for m in _ENV_RE.finditer(text))
    if python:
        modules.update(_IMPORT_RE.findall(text))


def _terms(docs: str) -> frozenset[str]:
    terms = set(_WORD_RE.findall(docs))
    for run in set(_RUN_RE.findall(docs)):
        run = run.rstrip(".")
        terms.update((run, run.removeprefix("./"), run.rstrip("/").rsplit("/", 1)[-1]))
    return frozenset(terms)


def _path_tails(files: frozenset[str]) -> frozenset[str]:
    """Every tail of every folder and file path: ``a/b/c.py`` gives ``a``, ``a/b``, ``b``,
    ``a/b/c.py``, ``b/c.py`` and ``c.py``."""
    tails: set[str] = set()
    for path in files:
        parts = path.strip("/").split("/")
        for end in range(1, len(parts) + 1):
            tails.update("/".join(parts[start:end]) for start in range(end))
    return frozenset(tails)


# ---- What a draft claims ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Kind:
    """A kind of claim: what the reason says, and when the code backs it."""

    says: str
    """The reason, with ``{}`` for the claim's text."""
    grounded: Callable[[Known, str], bool] | None
    """None for a fault no code can back (raw HTML, a placeholder)."""


@dataclass(frozen=True, slots=True)
class _Claim:
    kind: _Kind
    text: str
    line: int | None = None
    """Line in a code block, for Python."""


def _flag_known(known: Known, flag: str) -> bool:
    if flag in known.strings or flag in known.doc_terms or flag in known.allowed:
        return True
    # CLIs derive flags from config fields (--max-model-len from max_model_len), and
    # argparse's BooleanOptionalAction adds --no-… to each.
    name = flag[2:]
    for base in {name, name.removeprefix("no-"), name.removeprefix("no_")}:
        if base.replace("-", "_") in known.identifiers or "--" + base in known.strings:
            return True
    return False


def _env_known(known: Known, name: str) -> bool:
    places = (known.strings, known.identifiers, known.doc_terms, known.allowed)
    return any(name in names for names in places)


def _name_known(known: Known, name: str) -> bool:
    return name in _PYTHON_WORDS or name in known.names


def _module_known(known: Known, module: str) -> bool:
    top, *rest = module.split(".")
    if top in known.allowed and top not in known.modules:
        return True
    return top in known.modules and all(p in known.modules or p in known.identifiers for p in rest)


def _path_known(known: Known, path: str) -> bool:
    bare = path.removeprefix("./").rstrip("/")
    return any(
        candidate in names
        for candidate in (path, bare)
        for names in (known.paths, known.strings, known.doc_terms, known.allowed)
    )


def _address_known(known: Known, address: str) -> bool:
    return address in known.docs or address in known.strings


_FLAG = _Kind("names the flag {}, which the code does not define", _flag_known)
_ENV = _Kind("names the environment variable {}, which the code does not read", _env_known)
_NAME = _Kind("names `{}`, which the code does not define", _name_known)
_ATTRIBUTE = _Kind("uses the attribute .{}, which the code does not define", _name_known)
_KEYWORD = _Kind("passes the keyword argument {}=, which the code does not define", _name_known)
_MODULE = _Kind("imports {}, a module the code neither defines nor imports", _module_known)
_PATH = _Kind("names the file {}, which is not in the code", _path_known)
_PLACEHOLDER = _Kind("leaves the placeholder {} unfilled", None)
_HTML = _Kind("holds raw HTML: {}", None)
_LINK = _Kind("links to a {} URL", None)
_WEB_LINK = _Kind("links to {}, which neither the code nor the docs give", _address_known)
_UNPARSABLE = _Kind("the Python does not parse ({})", None)
_TOO_DEEP = _Kind("the Python is nested too deeply to read", None)


def _token_claims(text: str, known: Known, line: int | None = None) -> Iterator[_Claim]:
    """The flags, environment variables and paths a stretch of text names."""
    for found in _FLAG_RE.finditer(text):
        yield _Claim(_FLAG, found.group().rstrip(".-"), line)
    for found in _ENV_RE.finditer(text):
        name = found.group(1) or found.group(2)
        if any(c.isalpha() for c in name):
            yield _Claim(_ENV, name, line)
    for run in _RUN_RE.finditer(text):
        path = _as_path(run.group(), known)
        # After "<" a slash ends a tag (</b>), which the HTML rule refuses.
        if path and text[run.start() - 1 : run.start()] != "<":
            yield _Claim(_PATH, path, line)


def _as_path(run: str, known: Known) -> str | None:
    """The file path a word is, or None. A path ends in a file extension, starts at a root
    (``/``, ``./``, ``../``, ``~/``) or in a top folder of the code. ``CPU/GPU``, ``and/or``
    and a model id (``org/model``) are words with a slash, not paths."""
    run = run.rstrip(".-")
    if run.startswith(("-", "//")) or not any(c.isalnum() for c in run):
        return None  # a flag, or the rest of a URL after its scheme
    stem, dot, extension = run.rsplit("/", 1)[-1].rpartition(".")
    if dot and stem.strip(".") and extension.lower() in _EXTENSIONS:
        return run
    if run.startswith(("/", "./", "../", "~/")) or run.split("/", 1)[0] in known.folders:
        return run if "/" in run else None
    return None


def _placeholder_claims(text: str) -> Iterator[_Claim]:
    for found in _PLACEHOLDER_RE.finditer(text):
        yield _Claim(_PLACEHOLDER, found.group())


def _link_claims(text: str) -> Iterator[_Claim]:
    for found in _LINK_RE.finditer(text):
        target = text[found.end() : found.end() + 80]
        if "&" in target:
            target = html.unescape(target)  # markdown-it decodes &#106;avascript: too
        # As markdown.py reads a destination: spaces and controls inside do not count.
        cleaned = _IGNORED_IN_URL_RE.sub("", target).lstrip("<").lower()
        unsafe = [scheme for scheme in _UNSAFE_SCHEMES if cleaned.startswith(scheme)]
        for scheme in unsafe:
            yield _Claim(_LINK, scheme)
        # Any other address of a link must be one the code or the docs give: a model
        # invents addresses as it invents flags, and a link is what a reader follows.
        address = _DESTINATION_RE.match(text, found.end(), found.end() + MAX_ADDRESS)
        if not unsafe and address and _ADDRESS_RE.match(address.group(1)):
            yield _Claim(_WEB_LINK, address.group(1))
    for found in _AUTOLINK_RE.finditer(text):
        yield _Claim(_WEB_LINK, found.group(1))


MAX_ADDRESS = 2000
"""Longer link destinations are read up to here (and so never found in the code)."""
_DESTINATION_RE = re.compile(r"[ \t]*\n?[ \t]*<?([^\s<>()]+)")
"""A link's destination as markdown-it reads it, up to a space, a bracket or the end of
the ``<…>`` that may hold it."""
_ADDRESS_RE = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:|//)")
"""An address that leaves the site: it has a scheme (``https:``, ``mailto:``), or starts
with ``//``. Relative ones (``../other/``, ``#anchor``) stay on it."""
_AUTOLINK_RE = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>")
"""``<https://…>``, a link markdown-it makes of an address in angle brackets."""


def _html_claims(text: str, pattern: re.Pattern[str]) -> Iterator[_Claim]:
    for found in pattern.finditer(text):
        yield _Claim(_HTML, found.group()[:40])


# ---- Markdown prose -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Piece:
    """A stretch of Markdown: prose text, a code span, or a fenced block and its language."""

    kind: str
    """One of text, span and fence."""
    text: str
    lang: str = ""


def _prose_claims(text: str, known: Known) -> Iterator[_Claim]:
    # HTML and links are looked for in the whole text, not per piece: a span this reader
    # sees where markdown-it sees none must not hide a tag.
    yield from _html_claims(text, _PROSE_HTML_RE)
    yield from _link_claims(text)
    spans: set[str] = set()
    for piece in _pieces(text):
        if piece.kind == "text":
            yield from _token_claims(piece.text, known)
            yield from _placeholder_claims(piece.text)
        elif piece.kind == "span":
            if piece.text in spans:
                continue  # its claims are made, and reading a span as Python costs
            spans.add(piece.text)
            yield from _span_claims(piece.text.replace("\n", " ").strip(), known)
            yield from _placeholder_claims(piece.text)
        else:
            yield from _code_claims(piece.lang, piece.text, known)
            if piece.lang not in _PYTHON_LANGS:
                yield from _placeholder_claims(piece.text)


def _pieces(text: str) -> Iterator[_Piece]:
    """Fenced blocks, then code spans in what is left. Fences are found at any indent (in a
    list item a fence is indented): reading too much as code is stricter, never looser."""
    lines = text.split("\n")
    prose: list[str] = []
    index = 0
    while index < len(lines):
        opened = _FENCE_RE.match(lines[index])
        fence = opened.group(1) if opened else ""
        if not opened or (fence[0] == "`" and "`" in opened.group(2)):
            prose.append(lines[index])
            index += 1
            continue
        yield from _inline_pieces("\n".join(prose))
        prose = []
        info = opened.group(2).split()
        body: list[str] = []
        index += 1
        while index < len(lines) and not _closes(lines[index], fence):
            body.append(lines[index])
            index += 1
        index += 1
        yield _Piece("fence", "\n".join(body), info[0].lower() if info else "")
    yield from _inline_pieces("\n".join(prose))


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= len(fence) and stripped == fence[0] * len(stripped)


def _inline_pieces(text: str) -> Iterator[_Piece]:
    """Text and code spans. A run of backticks opens a span closed by the next run of the
    same length; for each length a cursor only moves forward, so a text full of runs of
    every length is still read in one pass."""
    runs = [(found.start(), found.end()) for found in _BACKTICKS_RE.finditer(text)]
    of_length: dict[int, list[int]] = {}
    for number, (start, end) in enumerate(runs):
        of_length.setdefault(end - start, []).append(number)
    cursor = dict.fromkeys(of_length, 0)
    position = number = 0
    while number < len(runs):
        start, end = runs[number]
        same = of_length[end - start]
        at = cursor[end - start]
        while at < len(same) and same[at] <= number:
            at += 1
        cursor[end - start] = at
        if at == len(same):
            number += 1  # never closed: literal backticks
            continue
        closing = same[at]
        if text[position:start].strip():
            yield _Piece("text", text[position:start])
        yield _Piece("span", text[end : runs[closing][0]])
        position = runs[closing][1]
        number = closing + 1
    if text[position:].strip():
        yield _Piece("text", text[position:])


def _span_claims(span: str, known: Known) -> Iterator[_Claim]:
    """A code span is one flag, variable or path; or a Python name, call or import; or
    else a command line."""
    if not span:
        return
    name = span.split("=", 1)[0]
    if _FLAG_RE.fullmatch(name):
        yield _Claim(_FLAG, name.rstrip(".-"))
    elif _ENV_RE.fullmatch(name):
        yield from _token_claims(span, known)
    elif _RUN_RE.fullmatch(span) and _as_path(span, known):
        yield _Claim(_PATH, span.rstrip(".-"))
    elif span in known.names:
        return  # spelled as the code or docs spell it: `nvidia-smi`, `cuda:0`
    else:
        tree = _reference(span)
        if tree is not None:
            yield from _python_names(tree, known, None)
        else:
            yield from _shell_claims("sh", span, known)


_NAMING_STATEMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Import, ast.ImportFrom)


def _reference(span: str) -> ast.Module | None:
    """A span as Python, when it is one statement that names things: a name, attribute,
    call, subscript, comparison, assignment or import. ``nvidia-smi`` and ``CPU/GPU``
    parse as arithmetic and are read as words instead."""
    if len(span) > _SPAN_PARSE_LIMIT:
        return None
    tree = _parse_quietly(span)
    if not isinstance(tree, ast.Module) or len(tree.body) != 1:
        return None
    statement = tree.body[0]
    if isinstance(statement, _NAMING_STATEMENTS):
        return tree
    if not isinstance(statement, ast.Expr):
        return None
    value = statement.value
    if isinstance(value, ast.BinOp):
        return None if isinstance(value.op, ast.Sub | ast.Div) else tree
    if isinstance(value, ast.UnaryOp):
        return tree if isinstance(value.op, ast.Not) else None
    names = ast.Name | ast.Attribute | ast.Call | ast.Subscript | ast.Compare | ast.BoolOp
    return tree if isinstance(value, names | ast.Constant) else None


def _parse_quietly(code: str) -> ast.Module | SyntaxError | ValueError | None:
    """The module, the error that stops it parsing, or None when it is too deep to parse."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(code)
        except (SyntaxError, ValueError) as error:
            return error
        except (RecursionError, MemoryError):
            # CPython's parser gives up on deep nesting with either, not a SyntaxError.
            return None


# ---- Code blocks --------------------------------------------------------------------


def _block_claims(lang: str, code: str, known: Known) -> Iterator[_Claim]:
    """An example fix: code, where f-strings and ``{}`` mean something; only in a shell
    block is ``{name}`` a placeholder left in."""
    yield from _html_claims(code, _CODE_HTML_RE)
    yield from _code_claims(lang.lower(), code, known)
    if lang.lower() in _SHELL_LANGS:
        yield from _placeholder_claims(code)


def _code_claims(lang: str, code: str, known: Known) -> Iterator[_Claim]:
    if lang in _PYTHON_LANGS:
        yield from _python_claims(code, known)
    elif lang in _SHELL_LANGS:
        yield from _shell_claims(lang, code, known)
    else:
        yield from _token_claims(code, known)


@dataclass(frozen=True, slots=True)
class _Bound:
    """What a Python example makes itself, needing no grounding."""

    names: frozenset[str]
    """Names it assigns, imports, defines or takes as parameters, anywhere in it."""
    attributes: frozenset[str]
    """Attributes it sets (``self.x = …``)."""
    literals: Mapping[str, frozenset[type]]
    """Names it assigns a literal to, with the literal's types: ``s = "a"`` makes
    ``s.split`` a method of str, not a name the code must have."""


def _python_claims(code: str, known: Known) -> Iterator[_Claim]:
    """An example in Python: it must parse, import only the code's modules (or allowed
    ones), and use only names it binds itself, builtins and names the code has. The rule
    is flow-insensitive: a name bound anywhere in the example counts as bound."""
    tree = _parse_quietly(code)
    if tree is None:
        yield _Claim(_TOO_DEEP, "")
        return
    if not isinstance(tree, ast.Module):
        line = tree.lineno if isinstance(tree, SyntaxError) else None
        message = tree.msg if isinstance(tree, SyntaxError) else str(tree)
        yield _Claim(_UNPARSABLE, message, line)
        return
    yield from _python_names(tree, known, _bound(tree), _comments(code))


def _bound(tree: ast.AST) -> _Bound:
    names: set[str] = set()
    attributes: set[str] = set()
    literals: dict[str, set[type]] = {}
    for node in ast.walk(tree):
        match node:
            case ast.Name(id=name, ctx=ast.Store() | ast.Del()):
                names.add(name)
            case ast.Attribute(attr=name, ctx=ast.Store()):
                attributes.add(name)
            case ast.FunctionDef(name=name) | ast.AsyncFunctionDef(name=name):
                names.add(name)
            case ast.ClassDef(name=name) | ast.arg(arg=name):
                names.add(name)
            case ast.alias(name=name, asname=asname):
                names.add(asname or name.split(".")[0])
            case ast.ExceptHandler(name=str() as name) | ast.MatchAs(name=str() as name):
                names.add(name)
            case ast.MatchStar(name=str() as name) | ast.MatchMapping(rest=str() as name):
                names.add(name)
            case ast.Global(names=declared) | ast.Nonlocal(names=declared):
                names.update(declared)
            case ast.Assign(targets=targets, value=value):
                for target in targets:
                    _note_literal(target, value, literals)
            case ast.AnnAssign(target=target, value=ast.AST() as value):
                _note_literal(target, value, literals)
    frozen = {name: frozenset(types) for name, types in literals.items()}
    return _Bound(frozenset(names), frozenset(attributes), MappingProxyType(frozen))


def _note_literal(target: ast.AST, value: ast.AST, literals: dict[str, set[type]]) -> None:
    made = _literal_type(value)
    if made is not None and isinstance(target, ast.Name):
        literals.setdefault(target.id, set()).add(made)


_LITERAL_NODES: Mapping[type, type] = MappingProxyType(
    {
        ast.JoinedStr: str,
        ast.List: list,
        ast.ListComp: list,
        ast.Dict: dict,
        ast.DictComp: dict,
        ast.Set: set,
        ast.SetComp: set,
        ast.Tuple: tuple,
    }
)


def _literal_type(node: ast.AST) -> type | None:
    if isinstance(node, ast.Constant):
        return type(node.value)
    return _LITERAL_NODES.get(type(node))


def _python_names(
    tree: ast.AST,
    known: Known,
    bound: _Bound | None,
    comments: Iterable[tokenize.TokenInfo] = (),
) -> Iterator[_Claim]:
    """The names, attributes, keyword arguments and imports of Python, and what its strings
    and comments name, in reading order. ``bound`` is None for a code span, where every
    name is a reference (``max_num_seqs=8`` names a field, it does not make one)."""
    found: list[tuple[tuple[int, int], _Claim]] = []
    for node in ast.walk(tree):
        at = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        found.extend((at, claim) for claim in _node_claims(node, known, bound))
    for comment in comments:
        line = comment.start[0]
        found.extend((comment.start, claim) for claim in _token_claims(comment.string, known, line))
    found.sort(key=lambda item: item[0])
    return (claim for _, claim in found)


def _node_claims(node: ast.AST, known: Known, bound: _Bound | None) -> Iterator[_Claim]:
    line = getattr(node, "lineno", None) if bound is not None else None
    match node:
        case ast.Name(id=name, ctx=ctx):
            if bound is None or (isinstance(ctx, ast.Load) and name not in bound.names):
                yield _Claim(_NAME, name, line)
        case ast.Attribute(value=value, attr=name, ctx=ctx):
            if bound is not None and (not isinstance(ctx, ast.Load) or name in bound.attributes):
                return
            if not any(hasattr(made, name) for made in _made_from_literal(value, bound)):
                yield _Claim(_ATTRIBUTE, name, line)
        case ast.keyword(arg=str() as name):
            if bound is None or name not in bound.names:
                yield _Claim(_KEYWORD, name, line)
        case ast.Import(names=aliases):
            for alias in aliases:
                yield _Claim(_MODULE, alias.name, line)
        case ast.ImportFrom(module=module, level=level, names=aliases):
            if module and level == 0:
                yield _Claim(_MODULE, module, line)
            # Names from a module the code has must be the code's; from another, the
            # module's own refusal says enough.
            if level or (module and module.split(".")[0] in known.modules):
                for alias in aliases:
                    if alias.name != "*":
                        yield _Claim(_NAME, alias.name, line)
        case ast.Constant(value=str() as text):
            yield from _token_claims(text, known, line)


def _made_from_literal(node: ast.AST, bound: _Bound | None) -> frozenset[type]:
    made = _literal_type(node)
    if made is not None:
        return frozenset({made})
    if bound is not None and isinstance(node, ast.Name):
        return bound.literals.get(node.id, frozenset())
    return frozenset()


def _comments(code: str) -> list[tokenize.TokenInfo]:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return []  # the code parsed, so this is tokenize's own limit; the names are checked
    return [token for token in tokens if token.type == tokenize.COMMENT]


def _shell_claims(lang: str, code: str, known: Known) -> Iterator[_Claim]:
    """Flags of the commands (not of another tool's, such as ``pip install --upgrade``),
    and the variables and paths of the lines. ``NAME=value`` alone on a line makes a shell
    variable of the script's own, used later as ``$NAME``; before a command, or after
    ``export``, it sets an environment variable the code must read."""
    lines = _command_lines(code, session=lang in _SESSION_LANGS)
    own: set[str] = set()
    for line in lines:
        comment = _COMMENT_RE.search(line)
        commands = line[: comment.start()] if comment else line
        if comment:
            yield from (c for c in _token_claims(line[comment.start() :], known) if c.kind is _FLAG)
        for command in _COMMAND_SEP_RE.split(commands):
            words = [word.strip("'\"") for word in command.split()]
            assigned = [w.split("=", 1)[0] for w in _leading_assignments(words)]
            if words and len(assigned) == len(words):
                own.update(assigned)
            elif not _foreign(words[len(assigned) :], known):
                for flag in _FLAG_RE.finditer(command):
                    yield _Claim(_FLAG, flag.group().rstrip(".-"))
    for claim in _token_claims("\n".join(lines), known):
        if claim.kind is not _FLAG and not (claim.kind is _ENV and claim.text in own):
            yield claim


def _command_lines(code: str, *, session: bool) -> list[str]:
    """The command lines of a script or session, continuations joined, prompts taken off."""
    lines: list[str] = []
    pending = ""
    for raw in code.split("\n"):
        line = raw
        if session and not pending:
            stripped = raw.lstrip()
            if not stripped.startswith(("$ ", "# ", "% ")):
                continue  # output
            line = stripped[2:]
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        lines.append(pending + line)
        pending = ""
    if pending:
        lines.append(pending)
    return lines


def _leading_assignments(words: list[str]) -> list[str]:
    count = 0
    while count < len(words) and _ASSIGNMENT_RE.match(words[count]):
        count += 1
    return words[:count]


def _foreign(words: list[str], known: Known) -> bool:
    """Whether a command runs another tool (an allowed program the code is not), whose
    flags are its own: ``pip install --upgrade``, ``python -m pip …``."""
    index = 0
    while index < len(words) and (words[index] in _WRAPPERS or _ASSIGNMENT_RE.match(words[index])):
        index += 1
    if index == len(words):
        return False
    program = words[index].rsplit("/", 1)[-1]
    if _PYTHON_PROGRAM_RE.fullmatch(program):
        rest = words[index + 1 : index + 3]
        if len(rest) == 2 and rest[0] == "-m":
            program = rest[1].split(".")[0]
        else:
            return False
    return program in known.allowed and program not in known.modules


# ---- The draft ----------------------------------------------------------------------

_MISSING: Any = object()
_DRAFTED = ("meaning", "when", "solutions", "example_fix")
_WHEN = ("trigger", "situations")
_BLOCK = ("lang", "code", "caption")


@dataclass(frozen=True, slots=True)
class _Text:
    """One text of a draft to ground."""

    where: str
    """The field, as reasons name it: ``solutions[1]``, ``example_fix[0]``."""
    text: str
    lang: str | None
    """An example fix's language; None for Markdown prose and captions."""


def refusals(fields: Mapping[str, Any], known: Known) -> list[str]:
    """Why drafted prose cannot be published: one plain-English reason per problem found
    (all of them, not the first only), empty when it can. Each reason starts with the field
    (``solutions[1]: …``; list items count from 0).

    ``fields`` has the record-schema shape: {"meaning": str, "when": {"trigger": str,
    "situations": str}, "solutions": [str, ...], "example_fix": [{"lang": str, "code":
    str, "caption": str (optional)}, ...]}; ``example_fix`` may be left out."""
    if not isinstance(fields, Mapping):
        return [f"the draft should be a mapping of fields, not {_kind(fields)}"]
    reasons = list(_shape(fields))
    for text in _texts(fields):
        reasons.extend(_text_reasons(text, known))
    return list(dict.fromkeys(reasons))


def _shape(fields: Mapping[str, Any]) -> Iterator[str]:
    yield from _unknown_keys(fields, _DRAFTED, "")
    yield from _text_shape("meaning", fields.get("meaning", _MISSING), LIMITS["meaning_chars"])
    when = fields.get("when", _MISSING)
    if when is _MISSING:
        yield "when: missing"
    elif not isinstance(when, Mapping):
        yield f"when: should be a mapping, not {_kind(when)}"
    else:
        yield from _unknown_keys(when, _WHEN, "when.")
        for name in _WHEN:
            limit = LIMITS[f"{name}_chars"]
            yield from _text_shape(f"when.{name}", when.get(name, _MISSING), limit)
    yield from _solutions_shape(fields.get("solutions", _MISSING))
    yield from _fixes_shape(fields.get("example_fix", []))


def _unknown_keys(mapping: Mapping[Any, Any], names: tuple[str, ...], prefix: str) -> Iterator[str]:
    for key in mapping:
        if key not in names:
            yield f"{prefix}{_shown(str(key))}: not a field a draft writes"


def _text_shape(where: str, value: Any, limit: int | None, prose: bool = True) -> Iterator[str]:
    if value is _MISSING:
        yield f"{where}: missing"
    elif not isinstance(value, str):
        yield f"{where}: should be text, not {_kind(value)}"
    elif not value.strip():
        yield f"{where}: empty"
    elif limit is not None and len(value) > limit:
        yield f"{where}: {len(value)} characters, more than the {limit} allowed"
    elif prose and not any(c.isalnum() for c in value):
        yield f"{where}: no words, only {_shown(value.strip())}"


def _solutions_shape(solutions: Any) -> Iterator[str]:
    if solutions is _MISSING:
        yield "solutions: missing"
    elif not isinstance(solutions, list | tuple):
        yield f"solutions: should be a list, not {_kind(solutions)}"
    elif not solutions:
        yield "solutions: empty, at least one is needed"
    else:
        if len(solutions) > LIMITS["solutions"]:
            yield f"solutions: {len(solutions)} given, more than the {LIMITS['solutions']} allowed"
        for index, text in enumerate(solutions):
            yield from _text_shape(f"solutions[{index}]", text, LIMITS["solution_chars"])


def _fixes_shape(blocks: Any) -> Iterator[str]:
    if not isinstance(blocks, list | tuple):
        yield f"example_fix: should be a list, not {_kind(blocks)}"
        return
    if len(blocks) > LIMITS["example_fixes"]:
        yield f"example_fix: {len(blocks)} blocks, more than the {LIMITS['example_fixes']} allowed"
    for index, block in enumerate(blocks):
        yield from _block_shape(f"example_fix[{index}]", block)


def _block_shape(where: str, block: Any) -> Iterator[str]:
    if not isinstance(block, Mapping):
        yield f"{where}: should be a mapping, not {_kind(block)}"
        return
    yield from _unknown_keys(block, _BLOCK, f"{where}.")
    lang = block.get("lang", _MISSING)
    yield from _text_shape(f"{where}.lang", lang, None)
    if isinstance(lang, str) and lang.strip() and not _LANG_RE.fullmatch(lang):
        yield f"{where}.lang: {_shown(lang)} is not a language name"
    code = block.get("code", _MISSING)
    yield from _text_shape(f"{where}.code", code, LIMITS["example_fix_chars"], prose=False)
    lines = len(code.rstrip("\n").split("\n")) if isinstance(code, str) else 0
    if lines > LIMITS["example_fix_lines"]:
        yield f"{where}.code: {lines} lines, more than the {LIMITS['example_fix_lines']} allowed"
    if "caption" in block:
        yield from _text_shape(f"{where}.caption", block["caption"], LIMITS["caption_chars"])


def _texts(fields: Mapping[str, Any]) -> Iterator[_Text]:
    """Every text of the draft that is text, whatever its length: all reasons are given."""
    when = fields.get("when")
    solutions = fields.get("solutions")
    blocks = fields.get("example_fix")
    prose = [("meaning", fields.get("meaning"))]
    if isinstance(when, Mapping):
        prose += [(f"when.{name}", when.get(name)) for name in _WHEN]
    if isinstance(solutions, list | tuple):
        prose += [(f"solutions[{index}]", text) for index, text in enumerate(solutions)]
    for where, text in prose:
        if isinstance(text, str):
            yield _Text(where, text, None)
    for index, block in enumerate(blocks if isinstance(blocks, list | tuple) else ()):
        if not isinstance(block, Mapping):
            continue
        lang, code, caption = block.get("lang"), block.get("code"), block.get("caption")
        if isinstance(code, str):
            yield _Text(f"example_fix[{index}]", code, lang if isinstance(lang, str) else "")
        if isinstance(caption, str):
            yield _Text(f"example_fix[{index}].caption", caption, None)


def _text_reasons(text: _Text, known: Known) -> Iterator[str]:
    if text.lang is None:
        claims = _prose_claims(text.text, known)
    else:
        claims = _block_claims(text.lang, text.text, known)
    for claim in dict.fromkeys(claims):
        grounded = claim.kind.grounded
        if grounded is None or not grounded(known, claim.text):
            line = f"line {claim.line}: " if claim.line else ""
            yield f"{text.where}: {line}{claim.kind.says.format(_shown(claim.text))}"


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    return type(value).__name__


def _shown(text: str) -> str:
    """Text for a reason: short, and escaped when it holds a control character."""
    cut = text[:_SHOWN_LIMIT]
    shown = cut if cut.isprintable() else ascii(cut)
    return shown + "…" if len(text) > _SHOWN_LIMIT else shown
