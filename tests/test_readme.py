"""The README is a short front door, and docs/ documents the record format and the
commands as they are, with links that lead somewhere."""

from __future__ import annotations

import argparse
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from errdex.cli import DOCS_URL, _parser, main
from errdex.records.schema import RECORD, SITE, Field

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
RECORDS = (ROOT / "docs" / "records.md").read_text(encoding="utf-8")
COMMANDS = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def field_paths(field: Field, prefix: str = "") -> Iterator[str]:
    for child in field.fields:
        path = prefix + child.name
        yield path
        if child.kind == "map":
            yield from field_paths(child, path + ".")
        elif child.kind == "list" and child.items and child.items.kind == "map":
            yield from field_paths(child.items, path + "[].")


def documented_fields() -> set[str]:
    return set(re.findall(r"^\| `([a-z_.\[\]]+)` \|", RECORDS, flags=re.MULTILINE))


def subcommands() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every command with its parser, nested ones by their full name (``issues import``)."""

    def walk(
        parser: argparse.ArgumentParser, prefix: str
    ) -> Iterator[tuple[str, argparse.ArgumentParser]]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield prefix + name, sub
                    yield from walk(sub, prefix + name + " ")

    yield from walk(_parser(), "")


def leaf_commands() -> list[str]:
    names = [name for name, _ in subcommands()]
    return [name for name in names if not any(other.startswith(name + " ") for other in names)]


@pytest.mark.parametrize("spec", [RECORD, SITE], ids=["record", "site"])
def test_every_field_is_in_a_table_of_the_record_format(spec: Field) -> None:
    missing = set(field_paths(spec)) - documented_fields()
    assert not missing, f"docs/records.md does not document {sorted(missing)}"


def test_the_record_format_documents_no_field_that_does_not_exist() -> None:
    real = set(field_paths(RECORD)) | set(field_paths(SITE))
    assert documented_fields() - real == set()


def test_the_readme_starts_with_the_two_commands() -> None:
    first_block = README.split("```sh\n", 1)[1].split("```", 1)[0]
    assert [line.split()[:2] for line in first_block.splitlines()] == [
        ["./dev", "serve"],
        ["./dev", "test"],
    ]


def test_the_readme_is_a_front_door_of_at_most_3000_words() -> None:
    assert len(README.split()) <= 3000  # as `wc -w` counts


def test_every_command_and_option_is_in_the_commands_reference() -> None:
    for name, sub in subcommands():
        assert f"errdex {name}" in COMMANDS, name
        for action in sub._actions:
            for flag in action.option_strings:
                if flag not in ("-h", "--help"):
                    assert flag in COMMANDS, f"{name} {flag}"


def test_the_readme_names_every_command() -> None:
    for name in leaf_commands():
        assert f"`errdex {name}`" in README, name


@pytest.mark.parametrize("command", [name for name, _ in subcommands()])
def test_every_command_help_says_what_it_does_with_an_example_and_its_docs_page(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([*command.split(), "--help"])
    assert exited.value.code == 0
    # usage, then: what it does in one line, an example, its page in the docs.
    paragraphs = capsys.readouterr().out.split("\n\n")
    description, (example, docs) = paragraphs[1], paragraphs[2].splitlines()[:2]
    assert "\n" not in description and description.endswith("."), description
    assert example.startswith(f"Example: errdex {command}"), example
    assert docs.startswith(f"Docs: {DOCS_URL}"), docs
    page, _, anchor = docs.removeprefix(f"Docs: {DOCS_URL}").partition("#")
    assert (ROOT / page).is_file(), page
    assert not anchor or anchor in anchors(ROOT / page), docs


def test_the_docs_address_is_the_projects() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert DOCS_URL.startswith(project["urls"]["Homepage"] + "/blob/")


# --- Links ------------------------------------------------------------------------------

FENCE = re.compile(r"^\s*(```|~~~)")


def prose(text: str) -> str:
    """The text without fenced blocks and inline code, where nothing is a link or heading."""
    kept, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            kept.append(line)
    return re.sub(r"(`+).+?\1", "", "\n".join(kept), flags=re.DOTALL)


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the headings of a page: lowercased, punctuation but
    hyphens dropped, spaces as hyphens, and -1, -2 … after a repeated one."""
    kept, fenced, seen = [], False, set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and (heading := re.match(r"^#{1,6}\s+(.+?)\s*#*\s*$", line)):
            text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading[1]).replace("`", "")
            slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
            unique, n = slug, 0
            while unique in seen:
                n += 1
                unique = f"{slug}-{n}"
            seen.add(unique)
            kept.append(unique)
    return set(kept)


def relative_links() -> Iterator[tuple[Path, str]]:
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", prose(page.read_text(encoding="utf-8"))):
            if not re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                yield page, target


def test_the_pages_have_relative_links_to_check() -> None:
    assert len(list(relative_links())) > len(PAGES)


def test_every_relative_link_leads_to_a_file_and_a_heading_that_exist() -> None:
    broken = []
    for page, target in relative_links():
        file, _, anchor = target.partition("#")
        linked = (page.parent / file).resolve() if file else page
        if not linked.exists():
            broken.append(f"{page.relative_to(ROOT)}: {target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{page.relative_to(ROOT)}: {target}: no such heading")
    assert not broken, "\n".join(broken)


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {
        (ROOT / target.partition("#")[0]).resolve()
        for page, target in relative_links()
        if page.name == "README.md"
    }
    assert {page.resolve() for page in PAGES[1:]} <= linked
