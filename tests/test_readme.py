"""The README documents the record format and the commands as they are."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from errdex.cli import _parser
from errdex.schema import RECORD, SITE, Field

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")


def field_paths(field: Field, prefix: str = "") -> Iterator[str]:
    for child in field.fields:
        path = prefix + child.name
        yield path
        if child.kind == "map":
            yield from field_paths(child, path + ".")
        elif child.kind == "list" and child.items and child.items.kind == "map":
            yield from field_paths(child.items, path + "[].")


def documented_fields() -> set[str]:
    return set(re.findall(r"^\| `([a-z_.\[\]]+)` \|", README, flags=re.MULTILINE))


@pytest.mark.parametrize("spec", [RECORD, SITE], ids=["record", "site"])
def test_every_field_is_in_a_readme_table(spec: Field) -> None:
    missing = set(field_paths(spec)) - documented_fields()
    assert not missing, f"README does not document {sorted(missing)}"


def test_the_readme_documents_no_field_that_does_not_exist() -> None:
    real = set(field_paths(RECORD)) | set(field_paths(SITE))
    assert documented_fields() - real == set()


def test_the_readme_starts_with_the_two_commands() -> None:
    first_block = README.split("```sh\n", 1)[1].split("```", 1)[0]
    assert [line.split()[:2] for line in first_block.splitlines()] == [
        ["./dev", "serve"],
        ["./dev", "test"],
    ]


def test_every_command_and_option_is_in_the_readme() -> None:
    parser = _parser()
    commands = next(a for a in parser._actions if a.dest == "command")
    for name, sub in commands.choices.items():  # type: ignore[union-attr]
        assert f"python build.py {name}" in README, name
        for action in sub._actions:
            for flag in action.option_strings:
                if flag not in ("-h", "--help"):
                    assert flag in README, f"{name} {flag}"
