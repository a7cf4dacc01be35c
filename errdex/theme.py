"""Where the templates and static files of a site come from."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


@dataclass(frozen=True, slots=True)
class Theme:
    """Where the Jinja templates and the static files are."""

    templates: Path
    static: Path


def default_theme() -> Theme:
    """The bundled theme: inside the package when installed, beside it in a checkout."""
    installed = PACKAGE / "_theme"
    root = installed if installed.is_dir() else PACKAGE.parent
    return Theme(templates=root / "templates", static=root / "static")
