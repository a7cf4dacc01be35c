"""``errdex init``: a site folder of one's own, ready to scan a project into and serve."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from errdex import __version__
from errdex.records.files import write_atomic
from errdex.records.schema import REPO_PATTERN
from errdex.urls import PLACEHOLDER_HOST, base_url_problem

TAG = f"v{__version__}"
"""The release of errdex that wrote the workflows: they install and run that one, so a
new errdex changes a site only when its owner changes the tag."""

INSTALL = f"errdex @ git+https://github.com/errdex/errdex@{TAG}"
"""What the site's workflow installs: this errdex, from its repository, core only."""

WORKFLOW = """\
# Build the site and publish it to GitHub Pages on every push to main (pull requests are
# built, not published). In the repository's settings, set Pages to "GitHub Actions".
name: errdex site

on:
  push:
    branches: [main]
  pull_request:
  workflow_dispatch:

# Only the deploy job may publish (pages and id-token); a pull request's build may read.
permissions:
  contents: read

jobs:
  # Builds of one ref take turns; a pull request's newer push cancels its older build.
  # They never join the deploys' group, so no pull request cancels a deploy of main.
  build:
    concurrency:
      group: errdex-build-${{{{ github.ref }}}}
      cancel-in-progress: ${{{{ github.event_name == 'pull_request' }}}}
    runs-on: ubuntu-latest{working}
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install errdex
        run: python -m pip install "{install}"
      # The cache and the last site: a build then renders only what changed since.
      - name: Restore the build cache
        uses: actions/cache@v4
        with:
          path: |
            {site}.errdex/cache
            {site}public
          key: errdex-cache-${{{{ hashFiles({hashed}) }}}}
          restore-keys: errdex-cache-
      - name: Check the content
        run: errdex check
      - name: Build
        run: errdex build --out public
      - uses: actions/upload-pages-artifact@v3
        with:
          path: {site}public

  deploy:
    if: github.ref == 'refs/heads/main' && github.event_name != 'pull_request'
    needs: build
    # One deploy at a time, never cancelled: a newer push waits for the one publishing.
    concurrency:
      group: pages
      cancel-in-progress: false
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

An error-reference site built with errdex: one page per error its project raises,
with the code that raises it, what it means and how to fix it.

```sh
# a record for every raise in the code
errdex scan ../project --repo {repo} --ref HEAD
# build and serve at http://127.0.0.1:8000/, rebuilding as you write
errdex serve
# the site, into public/
errdex build
# follow the code to a new release
errdex pin ../project --repo {repo} --ref v1.2
```

Records are in `content/errors/`; write what each error means in its `meaning`,
`solutions` and `example_fix` (errdex's docs/records.md lists every field). Templates in
`templates/` replace errdex's of the same name (`{{% extends "errdex/base.html" %}}`
and one block is enough); files in `static/` are published, and `extra_css` and
`extra_js` in `content/site.yaml` load them on every page.

`.github/workflows/errdex.yml` publishes the site to GitHub Pages on every push
to main: set Pages to "GitHub Actions" in the repository's settings.
"""

TRIAGE = """\
# Link each new issue to the pages of this site that explain the errors it pastes. A
# comment starting with /errdex asks again, from the issue's author or a maintainer.
# A dry run at first: the matches go to the job summary. Once they look right, set the
# repository variable ERRDEX_TRIAGE to comment and errdex keeps one comment on the issue.
name: errdex triage

on:
  issues:
    types: [opened, edited]
  issue_comment:
    types: [created]

# One run per issue at a time: an edit right after opening waits for the first run.
concurrency:
  group: errdex-triage-${{{{ github.event.issue.number }}}}

jobs:
  triage:
    # Issues, and /errdex comments by people the repository knows (no runner starts for
    # any other comment).
    if: >-
      github.event_name == 'issues' ||
      (startsWith(github.event.comment.body, '/errdex') &&
       contains(fromJSON('["OWNER", "MEMBER", "COLLABORATOR", "CONTRIBUTOR"]'),
                github.event.comment.author_association))
    runs-on: ubuntu-latest
    permissions:
      issues: write
    steps:
      - uses: errdex/errdex@{tag}
        with:
          site-url: {base_url}
          mode: ${{{{ vars.ERRDEX_TRIAGE == 'comment' && 'comment' || 'summary' }}}}
"""

GITIGNORE_LINES = ("public/", ".public.lock", ".errdex/")
"""The built site, the lock a build holds on it (``write.output_lock``) and the cache."""
GITIGNORE = "# errdex: the built site, its lock and the build cache\n" + "".join(
    f"{line}\n" for line in GITIGNORE_LINES
)


_ESCAPED = re.compile("[\udc80-\udcff]")
"""A byte of a name that is not UTF-8, as Python holds it (surrogateescape)."""


def readable(text: str) -> str:
    """``text`` as a terminal can show it: each byte of a folder's name that is not UTF-8
    as U+FFFD. Printed as it is, such a byte shows as ``\\udcff``, or ends the run with
    UnicodeEncodeError on a stdout that is strict UTF-8."""
    return re.sub("[\ud800-\udfff]", "\ufffd", text)


def cd_argument(folder: str) -> str:
    """``folder`` quoted for ``cd`` in a shell: bytes that are not UTF-8 as ``$'\\xff'``
    (bash and zsh read it), so the command printed still finds the folder."""
    import shlex

    if not _ESCAPED.search(folder):
        return shlex.quote(folder)
    raw = folder.encode("utf-8", "surrogateescape")
    kept = (chr(b) if 0x20 <= b < 0x7F and b not in b"'\\" else f"\\x{b:02x}" for b in raw)
    return "$'" + "".join(kept) + "'"


def _unencodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # half a surrogate pair: bytes a terminal could not decode
        return True
    return False


class InitError(Exception):
    """A site folder that cannot be made: files in the way, or a value that is wrong."""


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.") or "errors"


def defaults(folder: Path) -> dict[str, str]:
    try:
        shown = folder.resolve().name
    except (OSError, RuntimeError) as exc:  # a loop of links, say
        raise InitError(f"{folder}: cannot be a site folder ({exc})") from None
    name = _slug(shown)
    said = shown if shown.isprintable() else name
    # ``httpx-errors`` is titled "httpx errors", not "httpx-errors errors".
    bare = re.sub(r"(?i)[\s_.-]*errors?$", "", said)
    return {
        "title": f"{bare} errors" if bare else said.capitalize(),
        "repo": f"me/{name}",
        "base_url": f"https://{PLACEHOLDER_HOST}/{name}/",
    }


def pages_url(repo: str) -> str:
    """Where GitHub Pages publishes ``repo``: its owner's site for ``owner.github.io``."""
    owner, name = repo.split("/", 1)
    host = f"{owner.lower()}.github.io"
    return f"https://{host}/" if name.lower() == host else f"https://{host}/{name}/"


def files(title: str, base_url: str, repo: str, guessed: bool = False) -> dict[str, str]:
    """Path in the site folder → text, for a new site (its workflows aside: ``workflows``);
    a ``guessed`` repo is not put in the README's commands."""
    if not re.fullmatch(REPO_PATTERN, repo) or len(repo.split("/", 1)[0]) > 39:
        raise InitError(
            f"--repo must be owner/name (an owner of at most 39 characters), not {repo!r}"
        )
    problem = base_url_problem(base_url)
    if problem:
        raise InitError(f"--base-url {base_url!r} {problem}")
    if not title.strip() or not title.isprintable() or _unencodable(title):
        raise InitError("--title must be one line of printable text")
    quoted = title.replace("\\", "\\\\").replace('"', '\\"')
    site = (
        "# The site's own settings (errdex's docs/records.md lists every field).\n"
        f'title: "{quoted}"\n'
        f"base_url: {base_url}\n"
        "# Your own GitHub repository: 'Report an issue' opens issues there.\n"
        f"repository: {repo}\n"
    )
    if (urlsplit(base_url).hostname or "").endswith(".github.io"):
        site += (
            "# Where the site is published: the files the build writes for it, and the\n"
            "# limits it checks (plain, github-pages, cloudflare or netlify).\n"
            "host: github-pages\n"
        )
    return {
        "content/site.yaml": site,
        "content/errors/.gitkeep": "",
        "templates/.gitkeep": "",
        "static/.gitkeep": "",
        ".gitignore": GITIGNORE,
        "README.md": README.format(title=title, repo="OWNER/NAME" if guessed else repo),
    }


def workflows(base_url: str, site: str = "", triage: bool = False) -> dict[str, str]:
    """Path in the repository → text, of the workflows of a site in the repository's folder
    ``site`` ("" for its root, else a path ending in "/")."""
    working = f"\n    defaults:\n      run:\n        working-directory: {site}" if site else ""
    made = {
        ".github/workflows/errdex.yml": WORKFLOW.format(
            install=INSTALL,
            site=site,
            working=working,
            hashed=", ".join(f"'{site}{name}/**'" for name in ("content", "templates", "static")),
        )
    }
    if triage:
        made[".github/workflows/errdex-triage.yml"] = TRIAGE.format(tag=TAG, base_url=base_url)
    return made


def repository_root(folder: Path) -> Path | None:
    """The git work tree ``folder`` is in (its nearest folder holding ``.git``), or None."""
    for parent in [folder, *folder.parents]:
        if (parent / ".git").exists():
            return parent
    return None


def written_setting(folder: Path, key: str) -> str | None:
    """A setting of the site folder's ``content/site.yaml`` (``repository``, ``title``,
    ``base_url``) as init wrote it, on a line of its own."""
    text = (folder / "content" / "site.yaml").read_text(encoding="utf-8")
    found = re.search(rf"^{re.escape(key)}: (\S.*)$", text, re.M)
    return found.group(1) if found else None


def merged_gitignore(text: str) -> str | None:
    """``text`` with errdex's lines added where it lacks them; None when it has them all."""
    have = {line.strip().strip("/") for line in text.splitlines()}
    missing = [line for line in GITIGNORE_LINES if line.strip("/") not in have]
    if not missing:
        return None
    start = "" if not text or text.endswith("\n") else "\n"
    return (
        text
        + start
        + "\n# errdex: the built site, its lock and the build cache\n"
        + "".join(f"{line}\n" for line in missing)
    )


def _yes(answer: str) -> bool:
    return answer.strip().lower() in ("y", "yes")


def init(
    folder: Path,
    title: str | None = None,
    base_url: str | None = None,
    repo: str | None = None,
    ask: Callable[[str, str], str] | None = None,
    *,
    triage: bool | None = None,
    workflows_too: bool = True,
) -> list[tuple[str, Path]]:
    """Make the site folder; return what was done, as (``wrote``, ``kept`` or ``added to``,
    path). A README that is there is kept, a ``.gitignore`` gets errdex's lines; nothing
    else is written when any file it would write exists (InitError names them).
    ``ask(question, default)`` asks for what was not given: the site's settings, whether
    to write a triage workflow (``triage`` None), and where the workflows go when the
    folder is inside a git repository but not its root (GitHub reads them only there)."""
    chosen = defaults(folder)

    def pick(key: str, given: str | None, question: str) -> str:
        if given is not None:
            return given
        return (ask(question, chosen[key]) if ask else "") or chosen[key]

    chosen["title"] = pick("title", title, "Site title")
    chosen["repo"] = pick("repo", repo, "Your GitHub repository (owner/name)")
    if not re.fullmatch(REPO_PATTERN, chosen["repo"]) or len(chosen["repo"].split("/")[0]) > 39:
        raise InitError(
            f"--repo must be owner/name (an owner of at most 39 characters), not {chosen['repo']!r}"
        )
    chosen["base_url"] = pages_url(chosen["repo"])
    if base_url is None and base_url_problem(chosen["base_url"]):
        raise InitError(f"--repo {chosen['repo']!r} has no GitHub Pages address; give --base-url")
    chosen["base_url"] = pick("base_url", base_url, "Where the site will be published")
    guessed = repo is None and ask is None  # nobody gave it: a placeholder
    planned = {folder / rel: text for rel, text in files(**chosen, guessed=guessed).items()}
    if triage is None:
        question = "Also a workflow that links new issues to their error pages? (yes/no)"
        triage = _yes(ask(question, "no")) if ask else False
    if workflows_too:
        at = folder.resolve()
        root = repository_root(at) or at
        site = "" if root == at else at.relative_to(root).as_posix() + "/"
        if site and ask:
            question = (
                f"GitHub reads workflows only from the repository's root: write them to "
                f"{readable(str(root / '.github' / 'workflows'))}? (yes/no)"
            )
            workflows_too = _yes(ask(question, "yes"))
        if workflows_too:
            for rel, text in workflows(chosen["base_url"], site, triage).items():
                planned[(folder if not site else root) / rel] = text
    done: list[tuple[str, Path]] = []
    readme, gitignore = folder / "README.md", folder / ".gitignore"
    if readme.exists() or readme.is_symlink():
        del planned[readme]
        done.append(("kept", readme))
    if gitignore.is_file():
        try:
            merged = merged_gitignore(gitignore.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise InitError(f"{gitignore}: cannot be read to add errdex's lines ({exc})") from None
        if merged is None:
            del planned[gitignore]
            done.append(("kept", gitignore))
        else:
            planned[gitignore] = merged
    there = [path for path in planned if path != gitignore and (path.exists() or path.is_symlink())]
    if there:
        names = ", ".join(_shown(path, folder) for path in there)
        raise InitError(
            f"{folder}: {names} already there; init writes over nothing "
            "(choose a new folder, or move those away)"
        )
    # Every folder on the way must be a folder (or not be there yet): nothing is written
    # unless all of it can be.
    for path in planned:
        for parent in reversed(path.parents):
            if parent.is_symlink() and not parent.is_dir():
                raise InitError(f"{parent}: a link to nowhere is in the way; init writes nothing")
            if parent.exists() and not parent.is_dir():
                raise InitError(f"{parent} is a file, not a folder; init writes nothing")
    for path, text in planned.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if path == gitignore and path.exists():
            write_atomic(path, text.encode("utf-8"))  # errdex's lines added, the rest kept
            done.append(("added errdex's lines to", path))
        else:
            write_atomic(path, text.encode("utf-8"), exclusive=True)  # never over a file
            done.append(("wrote", path))
    return done


def _shown(path: Path, folder: Path) -> str:
    try:
        return path.relative_to(folder).as_posix()
    except ValueError:
        return str(path)
