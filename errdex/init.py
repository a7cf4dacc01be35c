"""``errdex init``: a site folder of one's own, ready to scan a project into and serve."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from .schema import REPO_PATTERN
from .urls import base_url_problem

INSTALL = "git+https://github.com/errdex/errdex"
"""What the site's workflow installs: errdex itself, from its repository."""

WORKFLOW = """\
# Build the site and publish it to GitHub Pages on every push to main (pull requests are
# built, not published). In the repository's settings, set Pages to "GitHub Actions".
name: errdex site

on:
  push:
    branches: [main]
  pull_request:
  workflow_dispatch:

permissions:
  contents: read

concurrency:
  group: pages
  cancel-in-progress: false

jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install errdex
        run: python -m pip install "{install}"
      - name: Restore the highlight cache
        uses: actions/cache@v4
        with:
          path: .errdex/cache
          key: errdex-cache-${{{{ hashFiles('content/**', 'templates/**', 'static/**') }}}}
          restore-keys: errdex-cache-
      - name: Check the content
        run: errdex check
      - name: Build
        run: errdex build --out public
      - uses: actions/upload-pages-artifact@v3
        with:
          path: public

  deploy:
    if: github.ref == 'refs/heads/main' && github.event_name != 'pull_request'
    needs: build
    runs-on: ubuntu-latest
    permissions:
      pages: write
      id-token: write
    environment:
      name: github-pages
      url: ${{{{ steps.deployment.outputs.page_url }}}}
    steps:
      - id: deployment
        uses: actions/deploy-pages@v4
"""

README = """\
# {title}

An error-reference site built with errdex: one page per error {repo_words}raises,
with the code that raises it, what it means and how to fix it.

```sh
errdex scan ../project --repo OWNER/NAME --ref HEAD   # a record for every raise in the code
errdex serve                                          # build and serve at http://127.0.0.1:8000/
errdex build                                          # the site, into public/
errdex pin ../project --repo OWNER/NAME --ref v1.2    # follow the code to a new release
```

Records are in `content/errors/`; write what each error means in its `meaning`,
`solutions` and `example_fix` (errdex's README lists every field). Templates in
`templates/` replace errdex's of the same name (`{{% extends "errdex/base.html" %}}`
and one block is enough); files in `static/` are published, and `extra_css` and
`extra_js` in `content/site.yaml` load them on every page.

`.github/workflows/errdex.yml` publishes the site to GitHub Pages on every push
to main: set Pages to "GitHub Actions" in the repository's settings.
"""

GITIGNORE = """\
# errdex: the built site and the build cache
public/
.errdex/
"""


class InitError(Exception):
    """A site folder that cannot be made: files in the way, or a value that is wrong."""


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.") or "errors"


def defaults(folder: Path) -> dict[str, str]:
    name = _slug(folder.resolve().name)
    repo = f"me/{name}"
    return {
        "title": f"{folder.resolve().name or 'My'} errors",
        "repo": repo,
        "base_url": f"https://me.github.io/{name}/",
    }


def files(title: str, base_url: str, repo: str) -> dict[str, str]:
    """Path in the site folder → text, for a new site."""
    if not re.fullmatch(REPO_PATTERN, repo):
        raise InitError(f"--repo must be owner/name, not {repo!r}")
    problem = base_url_problem(base_url)
    if problem:
        raise InitError(f"--base-url {base_url!r} {problem}")
    if not title.strip() or any(c in title for c in "\n\r\t"):
        raise InitError("--title must be one line of text")
    quoted = title.replace("\\", "\\\\").replace('"', '\\"')
    site = (
        "# The site's own settings (errdex's README lists every field).\n"
        f'title: "{quoted}"\n'
        f"base_url: {base_url}\n"
        "# Your own GitHub repository: 'Report an issue' opens issues there.\n"
        f"repository: {repo}\n"
    )
    return {
        "content/site.yaml": site,
        "content/errors/.gitkeep": "",
        "templates/.gitkeep": "",
        "static/.gitkeep": "",
        ".gitignore": GITIGNORE,
        ".github/workflows/errdex.yml": WORKFLOW.format(install=INSTALL),
        "README.md": README.format(title=title, repo_words=""),
    }


def init(
    folder: Path,
    title: str | None = None,
    base_url: str | None = None,
    repo: str | None = None,
    ask: Callable[[str, str], str] | None = None,
) -> list[Path]:
    """Make the site folder; return the files written. Writes nothing when any of them
    exists (InitError names them). ``ask(question, default)`` asks for what was not given."""
    chosen = defaults(folder)

    def pick(key: str, given: str | None, question: str) -> str:
        if given is not None:
            return given
        return (ask(question, chosen[key]) if ask else "") or chosen[key]

    chosen["title"] = pick("title", title, "Site title")
    chosen["repo"] = pick("repo", repo, "Your GitHub repository (owner/name)")
    if "/" in chosen["repo"]:
        owner, name = chosen["repo"].split("/", 1)
        chosen["base_url"] = f"https://{owner.lower()}.github.io/{name}/"
    chosen["base_url"] = pick("base_url", base_url, "Where the site will be published")
    planned = files(chosen["title"], chosen["base_url"], chosen["repo"])
    there = [rel for rel in planned if (folder / rel).exists() or (folder / rel).is_symlink()]
    if there:
        raise InitError(
            f"{folder}: {', '.join(there)} already there; init writes over nothing "
            "(choose a new folder, or move those away)"
        )
    written = []
    for rel, text in planned.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x", encoding="utf-8") as handle:  # never over a file
            handle.write(text)
        written.append(path)
    return written
