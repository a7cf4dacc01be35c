"""Find every ``raise X("message")`` in a Python codebase: the facts a record's source holds.

A source tree is a git checkout read at a commit (``git cat-file``, so the checkout is
never switched) or a plain folder (an unpacked sdist or wheel).
"""

from __future__ import annotations

import ast
import string
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

EXCERPT_CONTEXT = 15
"""Lines kept above and below a raise in its excerpt."""


@dataclass(frozen=True, slots=True)
class Site:
    """One raise statement whose message is a string the scanner can read."""

    exception: str
    template: str
    """The message as an errdex template: placeholders named after source expressions."""
    path: str
    line: int
    """Line of the ``raise``."""
    function: str | None
    """Qualified name of the enclosing function (``ParallelConfig._verify``)."""
    condition: str | None
    """The test of the innermost ``if`` that leads to the raise."""
    excerpt_start: int
    excerpt: str


class SourceError(Exception):
    """A source tree that cannot be read: not a folder, or a commit git does not know."""


class Tree:
    """Python files of a codebase, read from a folder or from a git commit."""

    def __init__(self, root: Path, commit: str | None = None) -> None:
        self.root = root
        self.commit = commit
        if not root.is_dir():
            raise SourceError(f"{root}: not a folder")

    @staticmethod
    def is_git(root: Path) -> bool:
        return (root / ".git").exists()

    def paths(self) -> list[str]:
        if self.commit:
            listing = _git(self.root, "ls-tree", "-r", "--name-only", "-z", self.commit)
            return sorted(p for p in listing.split("\0") if p.endswith(".py"))
        return sorted(
            p.relative_to(self.root).as_posix()
            for p in self.root.rglob("*.py")
            if p.is_file() and ".git" not in p.relative_to(self.root).parts
        )

    def read_all(self, paths: list[str]) -> Iterator[tuple[str, str | None]]:
        """(path, text) for each path; text is None when the file is missing or not UTF-8."""
        if not self.commit:
            for path in paths:
                try:
                    yield path, (self.root / path).read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    yield path, None
            return
        # One git process for every file: thousands of `git show` calls would take minutes.
        request = "".join(f"{self.commit}:{path}\n" for path in paths).encode()
        output = subprocess.run(
            ["git", "-C", str(self.root), "cat-file", "--batch"],
            input=request,
            capture_output=True,
            check=True,
        ).stdout
        position = 0
        for path in paths:
            end = output.index(b"\n", position)
            header = output[position:end].split()
            position = end + 1
            if header[-1] == b"missing":
                yield path, None
                continue
            size = int(header[2])
            data = output[position : position + size]
            position += size + 1
            try:
                yield path, data.decode("utf-8")
            except UnicodeDecodeError:
                yield path, None


def resolve_commit(root: Path, ref: str) -> str:
    """The full sha of a commit, branch or tag of the git checkout at ``root``."""
    return _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").strip()


def _git(root: Path, *args: str) -> str:
    try:
        result = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
        )
    except FileNotFoundError as exc:
        raise SourceError("git is not installed") from exc
    except subprocess.CalledProcessError as exc:
        raise SourceError(f"git {' '.join(args[:2])}: {exc.stderr.strip() or 'failed'}") from exc
    return result.stdout


def scan_text(text: str, path: str) -> list[Site]:
    """Every readable raise in one file; raises SyntaxError when it does not parse."""
    tree = ast.parse(text, filename=path)
    lines = text.splitlines()
    finder = _Finder(path, lines)
    finder.visit(tree)
    return finder.sites


def scan_tree(tree: Tree) -> tuple[list[Site], list[str]]:
    """All sites of a tree, in path and line order, and the files that could not be read."""
    sites: list[Site] = []
    skipped: list[str] = []
    paths = tree.paths()
    for path, text in tree.read_all(paths):
        if text is None:
            skipped.append(f"{path}: not UTF-8 text; skipped")
            continue
        try:
            sites.extend(scan_text(text, path))
        except (SyntaxError, ValueError) as exc:
            line = getattr(exc, "lineno", None)
            where = f"{path}:{line}" if line else path
            skipped.append(f"{where}: does not parse ({getattr(exc, 'msg', exc)}); skipped")
    return sites, skipped


class _Finder(ast.NodeVisitor):
    def __init__(self, path: str, lines: list[str]) -> None:
        self.path = str(PurePosixPath(path))
        self.lines = lines
        self.scope: list[str] = []
        self.conditions: list[str] = []
        self.sites: list[Site] = []

    def _scoped(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.scope.append(node.name)
        outer, self.conditions = self.conditions, []
        self.generic_visit(node)
        self.conditions = outer
        self.scope.pop()

    visit_ClassDef = _scoped
    visit_FunctionDef = _scoped
    visit_AsyncFunctionDef = _scoped

    def visit_If(self, node: ast.If) -> None:
        test = ast.unparse(node.test)
        self.visit(node.test)
        self.conditions.append(test)
        for child in node.body:
            self.visit(child)
        self.conditions[-1] = f"not ({test})"
        for child in node.orelse:
            self.visit(child)
        self.conditions.pop()

    def visit_Raise(self, node: ast.Raise) -> None:
        call = node.exc
        if not isinstance(call, ast.Call) or not call.args:
            return
        if not isinstance(call.func, ast.Name | ast.Attribute):
            return
        template = template_of(call.args[0])
        if template is None or not template.strip():
            return
        end = node.end_lineno or node.lineno
        start = max(1, node.lineno - EXCERPT_CONTEXT)
        stop = min(len(self.lines), end + EXCERPT_CONTEXT)
        self.sites.append(
            Site(
                exception=ast.unparse(call.func),
                template=template,
                path=self.path,
                line=node.lineno,
                function=".".join(self.scope) or None,
                condition=self.conditions[-1] if self.conditions else None,
                excerpt_start=start,
                excerpt="\n".join(self.lines[start - 1 : stop]) + "\n",
            )
        )


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _field(node: ast.expr) -> str:
    return "{" + ast.unparse(node) + "}"


def template_of(node: ast.expr) -> str | None:
    """The message of a raise as a template, or None when it is not built from strings.

    Literals, f-strings, implicit and ``+`` concatenation, ``"...".format(...)`` and
    ``"..." % (...)`` are understood; placeholders are named after their expressions.
    """
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _escape(node.value)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(_escape(str(value.value)))
            elif isinstance(value, ast.FormattedValue):
                parts.append(_field(value.value))
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = template_of(node.left), template_of(node.right)
        if left is None and right is None:
            return None
        return (left if left is not None else _field(node.left)) + (
            right if right is not None else _field(node.right)
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        if isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
            return _percent(node.left.value, node.right)
        return None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
    ):
        return _format(node.func.value.value, node)
    return None


def _format(text: str, call: ast.Call) -> str | None:
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    out = []
    auto = 0
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        return None
    for literal, field, _spec, _conversion in parsed:
        out.append(_escape(literal))
        if field is None:
            continue
        if field == "" or field.isdigit():
            index = auto if field == "" else int(field)
            auto += 1
            argument = call.args[index] if index < len(call.args) else None
            known = argument is not None and not isinstance(argument, ast.Starred)
            out.append(_field(argument) if known and argument else "{}")
        else:
            name = field.split(".")[0].split("[")[0]
            out.append(_field(keywords[name]) if name in keywords else "{" + field + "}")
    return "".join(out)


def _percent(text: str, right: ast.expr) -> str:
    values = right.elts if isinstance(right, ast.Tuple) else [right]
    out = []
    position = 0
    index = 0
    while position < len(text):
        char = text[position]
        if char != "%":
            out.append(_escape(char))
            position += 1
            continue
        if text[position : position + 2] == "%%":
            out.append("%")
            position += 2
            continue
        end = position + 1
        name = None
        if end < len(text) and text[end] == "(":
            close = text.find(")", end)
            name = text[end + 1 : close] if close > 0 else None
            end = close + 1 if close > 0 else end
        while end < len(text) and text[end] in "#0- +123456789.*hlL":
            end += 1
        end += 1  # the conversion letter
        if name is not None:
            out.append("{" + name + "}")
        elif index < len(values) and not isinstance(right, ast.Dict):
            out.append(_field(values[index]))
        else:
            out.append("{}")
        index += 1
        position = end
    return "".join(out)
