"""Where the templates and static files of a site come from.

errdex's own theme is bundled (inside the package when installed, beside it in a
checkout). A site folder (the folder that holds ``content/``) may hold ``templates/``
and ``static/`` of its own: a template there replaces errdex's template of the same name,
errdex's own stay reachable as ``errdex/<name>``, and its static files are published
beside errdex's (``extra_css`` and ``extra_js`` of site.yaml load them on every page).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
"""The errdex package: an installed one holds its theme in ``_theme``."""


@dataclass(frozen=True, slots=True)
class Theme:
    """Where the Jinja templates and the static files are."""

    templates: Path
    static: Path
    site_templates: Path | None = None
    """The site's own templates, which replace errdex's of the same name."""
    site_static: Path | None = None
    """The site's own static files (a link there is refused by the build, never read)."""

    def folders(self) -> list[Path]:
        """Every folder the theme reads: a change in one changes pages."""
        found = [self.templates, self.static]
        return found + [f for f in (self.site_templates, self.site_static) if f is not None]


def default_theme() -> Theme:
    """The bundled theme: inside the package when installed, beside it in a checkout."""
    installed = PACKAGE / "_theme"
    root = installed if installed.is_dir() else PACKAGE.parent
    return Theme(templates=root / "templates", static=root / "static")


def site_theme(content: Path) -> Theme:
    """errdex's theme with the overrides of the site folder that holds ``content``: its
    ``templates/`` and ``static/`` (those of errdex's own checkout are errdex's own)."""
    theme = default_theme()
    site = content.resolve().parent
    templates, static = site / "templates", site / "static"
    own = templates.resolve() == theme.templates.resolve()
    # A static/ that is a link is kept, for the build to refuse by name.
    mine = static.is_dir() or static.is_symlink()
    return Theme(
        theme.templates,
        theme.static,
        templates if templates.is_dir() and not own else None,
        static if mine and static.resolve() != theme.static.resolve() else None,
    )
