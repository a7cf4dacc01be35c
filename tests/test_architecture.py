"""The rules of the house, read from the imports; a broken rule names the module and line.

What importing a module loads is its module-level imports and, through them, theirs: the
rules marked "whole" follow that chain. An import inside a function is the module's own
business; the rules not marked "whole" look at every import the module writes.
"""

from __future__ import annotations

import ast
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "errdex"


@dataclass(frozen=True)
class Rule:
    modules: str
    """A module, or a package and everything in it."""
    forbidden: tuple[str, ...]
    """Modules (with everything in them) it must not import."""
    whole: bool
    """Follow module-level imports through other modules."""
    says: str


RULES = (
    Rule(
        "errdex.records",
        ("errdex.site", "errdex.search", "errdex.github", "errdex.source"),
        True,
        "the records are the floor: loading them loads no build, search, GitHub or source tool",
    ),
    Rule(
        "errdex.records.model",
        ("yaml", "jinja2", "pygments", "pathlib", "os", "errdex.records.load"),
        True,
        "the model knows no template, no YAML and no file system",
    ),
    Rule("errdex.site.render", ("yaml", "errdex.records.load"), False, "render never loads YAML"),
    Rule(
        "errdex.search",
        ("errdex.site.render", "jinja2", "pygments", "yaml", "markdown_it"),
        True,
        "search, and a lookup from a built index, load no renderer and no YAML",
    ),
    Rule(
        "errdex.source",
        ("errdex.site.render", "errdex.site.markdown", "errdex.site.highlight", "jinja2"),
        False,
        "the tools that read source code never render",
    ),
    Rule(
        "errdex.util",
        ("errdex.records", "errdex.site", "errdex.search", "errdex.github", "errdex.source"),
        False,
        "the shared tools know no room of the house",
    ),
    Rule("errdex.cli", ("yaml", "jinja2", "pygments"), False, "the command line is a thin face"),
)


@dataclass(frozen=True)
class Import:
    module: str
    line: int
    top: bool
    """At module level (runs on import), not inside a function."""


def _name(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, root: Path) -> list[Import]:
    """Every module ``path`` imports, resolved to absolute names."""
    here = _name(path, root)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    tree = ast.parse(path.read_text(), str(path))
    nested = {
        id(node)
        for func in ast.walk(tree)
        if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(func)
    }
    skipped = {  # `if TYPE_CHECKING:` blocks load nothing
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for node in ast.walk(block)
    }
    found = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        top = id(node) not in nested
        if isinstance(node, ast.Import):
            found += [Import(alias.name, node.lineno, top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            # `from . import x` imports the module x, not only the package.
            found += [Import(f"{base}.{alias.name}", node.lineno, top) for alias in node.names]
            found.append(Import(base, node.lineno, top))
    return found


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def broken_rules(root: Path, rules: tuple[Rule, ...] = RULES) -> list[str]:
    """``path:line: module imports X (through …): rule`` for every import a rule forbids."""
    modules = {_name(path, root): path for path in sorted(root.rglob("*.py"))}
    imports = {name: imports_of(path, root) for name, path in modules.items()}
    problems = set()
    for rule in rules:
        for name, path in modules.items():
            if not _within(name, rule.modules):
                continue
            for first in imports[name]:
                if rule.whole and not first.top:
                    continue
                # Breadth first from this import, remembering how each module was reached.
                via: dict[str, str | None] = {first.module: None}
                queue = [first.module]
                while queue:
                    current = queue.pop(0)
                    if any(_within(current, bad) for bad in rule.forbidden):
                        chain, step = [], via[current]
                        while step is not None:
                            chain.insert(0, step)
                            step = via[step]
                        through = f" (through {' → '.join(chain)})" if chain else ""
                        rel = path.relative_to(root.parent).as_posix()
                        problems.add(
                            f"{rel}:{first.line}: {name} imports {current}{through}: {rule.says}"
                        )
                        break
                    if rule.whole and current in imports:
                        for step in imports[current]:
                            if step.top and step.module not in via:
                                via[step.module] = current
                                queue.append(step.module)
    return sorted(problems)


def test_errdex_keeps_the_rules_of_the_house() -> None:
    assert broken_rules(PACKAGE) == []


def test_a_broken_rule_is_named_with_its_module_and_line(tmp_path: Path) -> None:
    fake = tmp_path / "errdex"
    for room in ("records", "site", "search", "source"):
        (fake / room).mkdir(parents=True)
        (fake / room / "__init__.py").write_text("")
    (fake / "__init__.py").write_text("")
    (fake / "records" / "load.py").write_text("import yaml\n")
    (fake / "records" / "document.py").write_text("from dataclasses import dataclass\n")
    # The model reaches YAML only through another module, at module level.
    (fake / "records" / "model.py").write_text("import re\n\nfrom .helpers import parse\n")
    (fake / "records" / "helpers.py").write_text("from . import load\n")
    (fake / "site" / "render.py").write_text("def page():\n    import yaml\n")
    (fake / "search" / "__init__.py").write_text("from errdex.records.model import parse\n")
    (fake / "cli.py").write_text("def main():\n    from .source import scan\n")
    (fake / "source" / "scan.py").write_text("from ..site.render import page\n")

    found = broken_rules(fake)

    model = "errdex/records/model.py:3: errdex.records.model imports"
    assert any(p.startswith(model) for p in found), found
    assert any(model in p and "through errdex.records.helpers" in p for p in found), found
    assert any(
        p.startswith("errdex/site/render.py:2: errdex.site.render imports yaml") for p in found
    )
    assert any(p.startswith("errdex/search/__init__.py:1: errdex.search imports") for p in found)
    assert any(
        p.startswith("errdex/source/scan.py:1: errdex.source.scan imports errdex.site.render")
        for p in found
    ), found
    assert not any(p.startswith("errdex/cli.py") for p in found), found


def test_an_import_inside_a_function_does_not_load_the_module_that_holds_it(
    tmp_path: Path,
) -> None:
    fake = tmp_path / "errdex"
    (fake / "records").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "records" / "__init__.py").write_text("")
    (fake / "records" / "model.py").write_text("from .helpers import parse\n")
    (fake / "records" / "helpers.py").write_text("def parse():\n    import yaml\n")
    assert broken_rules(fake) == []

    (fake / "records" / "helpers.py").write_text("import yaml\n")
    assert broken_rules(fake) != []  # the same import at module level is followed


@pytest.mark.parametrize("rule", RULES, ids=[r.modules for r in RULES])
def test_every_rule_looks_at_a_module_that_exists(rule: Rule) -> None:
    names = {_name(p, PACKAGE) for p in PACKAGE.rglob("*.py")}
    assert any(_within(name, rule.modules) for name in names)


def private_reads(root: Path) -> list[str]:
    """``path:line: module reads other._name`` for every private name (one leading
    underscore) a module takes from another module of the package: by importing it, or
    as an attribute of a module it imported. What a module keeps private is its own to
    change; what another reads is its interface, and gets a public name."""
    modules = {_name(path, root): path for path in sorted(root.rglob("*.py"))}
    found = []
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(), str(path))
        rel = path.relative_to(root.parent).as_posix()
        bound: dict[str, str] = {}  # a name in this module → the package module it is
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parent, *([base] if base else [])])
                for alias in node.names:
                    if base in modules and _private(alias.name) and base != name:
                        found.append(f"{rel}:{node.lineno}: {name} reads {base}.{alias.name}")
                    if f"{base}.{alias.name}" in modules:
                        bound[alias.asname or alias.name] = f"{base}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules and alias.asname:
                        bound[alias.asname] = alias.name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in bound
                and _private(node.attr)
                and bound[node.value.id] != name
            ):
                other = bound[node.value.id]
                found.append(f"{rel}:{node.lineno}: {name} reads {other}.{node.attr}")
    return sorted(found)


def _private(attribute: str) -> bool:
    return attribute.startswith("_") and not attribute.startswith("__")


def test_no_module_reads_another_modules_private_names() -> None:
    assert private_reads(PACKAGE) == []


def test_a_private_name_read_from_another_module_is_named_with_its_line(tmp_path: Path) -> None:
    fake = tmp_path / "errdex"
    (fake / "search").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "search" / "__init__.py").write_text("def _quoted(): ...\ndef quoted(): ...\n")
    (fake / "reports.py").write_text(
        "from errdex import search\nfrom .search import _quoted\n\n"
        "search.quoted()\nsearch._quoted()\n_quoted()\n"
    )
    assert private_reads(fake) == [
        "errdex/reports.py:2: errdex.reports reads errdex.search._quoted",
        "errdex/reports.py:5: errdex.reports reads errdex.search._quoted",
    ]


TOP_LEVEL = {
    ".ci",
    ".github",
    ".gitignore",
    "LICENSE",
    "README.md",
    "action.yml",
    "benchmarks",
    "build.py",
    "content",
    "dev",
    "docs",
    "errdex",
    "pyproject.toml",
    "static",
    "templates",
    "tests",
}
"""What a clone holds at its top: what the README and docs/layout.md describe."""


def test_a_clone_holds_nothing_at_its_top_but_what_the_docs_describe() -> None:
    """A profile or a scratch dump committed by mistake is the first thing ``ls`` shows
    a newcomer."""
    listed = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    if not listed:
        pytest.skip("not a git checkout")
    assert sorted({path.split("/")[0] for path in listed} - TOP_LEVEL) == []
