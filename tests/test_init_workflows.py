"""``errdex init`` in the places people run it: inside a repository's subfolder, beside a
README and a .gitignore of their own, with the triage workflow, pinned to this errdex."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from errdex import __version__
from errdex.site.init import init, written_setting


def _repository(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def test_a_site_in_a_subfolder_gets_its_workflow_where_github_reads_it(
    run: Any, tmp_path: Path
) -> None:
    root = _repository(tmp_path)
    folder = root / "docs" / "errors"
    made = run("init", folder, "--repo", "acme/widgets")
    assert made.code == 0, made.err
    assert not (folder / ".github").exists()
    workflow = root / ".github" / "workflows" / "errdex.yml"
    assert f"wrote {workflow}" in made.out
    build = yaml.safe_load(workflow.read_text())["jobs"]["build"]
    assert build["defaults"]["run"]["working-directory"] == "docs/errors/"
    steps = {step.get("name") or step["uses"].split("@")[0]: step for step in build["steps"]}
    assert steps["actions/upload-pages-artifact"]["with"]["path"] == "docs/errors/public"
    cache = steps["Restore the build cache"]["with"]
    assert cache["path"].split() == ["docs/errors/.errdex/cache", "docs/errors/public"]
    assert "'docs/errors/content/**'" in cache["key"]
    assert (folder / "content" / "site.yaml").is_file()


def test_a_site_at_the_repository_root_keeps_its_workflow_there(run: Any, tmp_path: Path) -> None:
    root = _repository(tmp_path)
    assert run("init", root, "--repo", "acme/widgets").code == 0
    build = yaml.safe_load((root / ".github/workflows/errdex.yml").read_text())["jobs"]["build"]
    assert "defaults" not in build
    upload = [s for s in build["steps"] if s.get("uses", "").startswith("actions/upload-pages")]
    assert upload[0]["with"]["path"] == "public"


def test_a_site_for_github_pages_says_so_and_builds_what_pages_reads(
    run: Any, tmp_path: Path
) -> None:
    root = _repository(tmp_path)
    assert run("init", root, "--repo", "acme/widgets").code == 0
    assert yaml.safe_load((root / "content/site.yaml").read_text())["host"] == "github-pages"
    out = tmp_path / "public"
    assert run("build", "--content", root / "content", "--out", out).code == 0
    assert not (out / "_headers").exists() and not (out / "_redirects").exists()
    elsewhere = tmp_path / "elsewhere"
    assert run("init", elsewhere, "--base-url", "https://errors.example.org/").code == 0
    assert "host" not in yaml.safe_load((elsewhere / "content/site.yaml").read_text())


def test_the_workflow_installs_the_errdex_that_wrote_it(run: Any, tmp_path: Path) -> None:
    folder = tmp_path / "site"
    assert run("init", folder, "--repo", "acme/widgets").code == 0
    steps = yaml.safe_load((folder / ".github/workflows/errdex.yml").read_text())["jobs"]["build"]
    install = next(s["run"] for s in steps["steps"] if s.get("name") == "Install errdex")
    assert install == (
        f'python -m pip install "errdex @ git+https://github.com/errdex/errdex@v{__version__}"'
    )


def test_no_workflows_writes_none(run: Any, tmp_path: Path) -> None:
    root = _repository(tmp_path)
    made = run("init", root / "site", "--repo", "acme/widgets", "--no-workflows", "--triage")
    assert made.code == 0, made.err
    assert not (root / ".github").exists() and not (root / "site" / ".github").exists()
    readme = (root / "site" / "README.md").read_text()
    assert "one page per error its project raises, with the code that raises it" in " ".join(
        readme.split()
    )
    # The repository given is the one its commands scan and pin, here and in the hint.
    assert "errdex scan ../project --repo acme/widgets --ref HEAD\n" in readme
    assert "errdex pin ../project --repo acme/widgets --ref v1.2\n" in readme
    assert (
        "errdex scan PROJECT --repo acme/widgets --ref HEAD (a plain tree, not a git checkout: "
        "--commit SHA), then errdex serve" in made.err
    )


def test_a_readme_and_a_gitignore_of_ones_own_are_kept(run: Any, tmp_path: Path) -> None:
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "README.md").write_text("# My errors\n")
    (folder / ".gitignore").write_text("node_modules/\n/public")  # no newline at the end
    made = run("init", folder, "--repo", "acme/widgets")
    assert made.code == 0, made.err
    assert (folder / "README.md").read_text() == "# My errors\n"
    assert f"kept {folder / 'README.md'} (already there)" in made.out
    assert f"added errdex's lines to {folder / '.gitignore'}" in made.out
    lines = (folder / ".gitignore").read_text().splitlines()
    assert lines[:2] == ["node_modules/", "/public"]
    assert ".errdex/" in lines and "public/" not in lines  # /public already ignores it
    # Run on a folder whose .gitignore has every line: it is left byte for byte.
    other = tmp_path / "other"
    other.mkdir()
    (other / ".gitignore").write_bytes(b"public/\r\n.public.lock\r\n.errdex\r\n")
    again = run("init", other, "--repo", "acme/widgets")
    assert again.code == 0, again.err
    assert (other / ".gitignore").read_bytes() == b"public/\r\n.public.lock\r\n.errdex\r\n"
    assert f"kept {other / '.gitignore'} (already there)" in again.out


def test_after_a_build_git_sees_only_what_the_author_wrote(run: Any, tmp_path: Path) -> None:
    """A build run as the site's README says (in the site folder, every default) leaves
    its output, the lock it held on it and its cache: init's .gitignore names them all."""
    folder = tmp_path / "site"
    assert run("init", folder, "--repo", "acme/widgets", "--no-workflows").code == 0
    built = subprocess.run(
        [sys.executable, "-m", "errdex", "build"], cwd=folder, capture_output=True, text=True
    )
    assert built.returncode == 0, built.stderr
    assert (folder / ".public.lock").exists() and (folder / "public" / "index.html").exists()
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    )
    untracked = sorted(line[3:] for line in status.stdout.splitlines())
    assert untracked and all(not name.startswith((".errdex/", "public/")) for name in untracked)
    assert ".public.lock" not in untracked


def test_a_workflow_already_there_stops_init_before_it_writes_anything(
    run: Any, tmp_path: Path
) -> None:
    root = _repository(tmp_path)
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".github" / "workflows" / "errdex.yml").write_text("mine\n")
    (root / ".gitignore").write_text("*.pyc\n")
    made = run("init", root / "site", "--repo", "acme/widgets")
    assert made.code == 1
    assert "errdex.yml already there; init writes over nothing" in made.err
    assert not (root / "site").exists()
    assert (root / ".github" / "workflows" / "errdex.yml").read_text() == "mine\n"


def test_the_triage_workflow_answers_issues_and_known_peoples_commands(
    run: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "site"
    made = run("init", folder, "--repo", "acme/widgets", "--triage")
    assert made.code == 0, made.err
    workflow = yaml.safe_load((folder / ".github/workflows/errdex-triage.yml").read_text())
    job = workflow["jobs"]["triage"]
    # No runner starts for a comment that is not a command, nor for a stranger's command.
    assert "startsWith(github.event.comment.body, '/errdex')" in job["if"]
    assert "github.event.comment.author_association" in job["if"]
    assert "github.event_name == 'issues'" in job["if"]
    assert job["permissions"] == {"issues": "write"}
    step = job["steps"][0]
    assert step["uses"] == f"errdex/errdex@v{__version__}"
    assert step["with"]["site-url"] == "https://acme.github.io/widgets/"
    assert "ERRDEX_TRIAGE" in step["with"]["mode"]
    # on: is read by YAML 1.1 as True.
    events = workflow.get("on", workflow.get(True))
    assert events["issues"]["types"] == ["opened", "edited"]
    without = tmp_path / "plain"
    assert run("init", without, "--repo", "acme/widgets").code == 0
    assert not (without / ".github/workflows/errdex-triage.yml").exists()


def test_on_a_terminal_init_asks_about_triage_and_where_workflows_go(tmp_path: Path) -> None:
    root = _repository(tmp_path)
    asked: list[str] = []

    def answer(question: str, default: str) -> str:
        asked.append(question)
        if "issues" in question:
            return "yes"
        if "repository's root" in question:
            return "no"
        return ""

    done = init(root / "site", ask=answer)
    readme = (root / "site" / "README.md").read_text()
    assert "errdex scan ../project --repo me/site --ref HEAD" in readme  # the default taken
    assert written_setting(root / "site", "repository") == "me/site"  # what the Next hint names
    assert any("links new issues" in q for q in asked)
    assert any(str(root / ".github" / "workflows") in q for q in asked)
    assert not (root / ".github").exists()
    assert all(".github" not in str(path) for _, path in done)

    def yes(question: str, default: str) -> str:
        return "y" if "(yes/no)" in question else ""

    init(root / "other", ask=yes)
    assert (root / ".github/workflows/errdex-triage.yml").is_file()
    assert "working-directory: other/" in (root / ".github/workflows/errdex.yml").read_text()


def test_init_says_which_settings_are_guesses_when_nobody_was_asked(
    run: Any, tmp_path: Path
) -> None:
    """Without a terminal, nobody is asked: the repository and the address made from it
    are placeholders, and init says so rather than leave dead links to be found later."""
    guessed = run("init", tmp_path / "mysite")
    assert guessed.code == 0
    assert (
        "mysite/content/site.yaml, repository: me/mysite and base_url: "
        "https://me.github.io/mysite/ are placeholders: put your own there"
    ) in guessed.err
    addressed = run("init", tmp_path / "ours", "--base-url", "https://errors.example.org/")
    assert "ours/content/site.yaml, repository: me/ours is a placeholder:" in addressed.err
    given = run("init", tmp_path / "theirs", "--repo", "acme/widgets")
    assert given.code == 0 and "placeholder" not in given.err
    # What was made from the repository and the folder's name is said too, as such.
    assert (
        'theirs/content/site.yaml, title: "theirs errors" (from the folder\'s name) and '
        "base_url: https://acme.github.io/widgets/ (the GitHub Pages address of "
        "acme/widgets): change them there if they are not so"
    ) in given.err
    titled = run(
        "init",
        tmp_path / "named",
        "--repo",
        "acme/widgets",
        "--title",
        "Widgets errors",
        "--base-url",
        "https://errors.example.org/",
    )
    assert titled.code == 0 and "change them there" not in titled.err
    # The README's commands name a repository only when somebody gave one.
    readme = (tmp_path / "mysite" / "README.md").read_text()
    assert "--repo OWNER/NAME --ref HEAD" in readme and "me/mysite" not in readme
    assert "errdex scan PROJECT --repo OWNER/NAME --ref HEAD" in guessed.err


@pytest.mark.parametrize(
    ("folder", "title"),
    [("httpx-errors", "httpx errors"), ("widget_errors", "widget errors"), ("errors", "Errors")],
)
def test_a_folder_named_for_its_errors_is_not_titled_errors_twice(
    run: Any, tmp_path: Path, folder: str, title: str
) -> None:
    made = run("init", tmp_path / folder, "--repo", "acme/widgets")
    assert made.code == 0, made.err
    site = yaml.safe_load((tmp_path / folder / "content" / "site.yaml").read_text())
    assert site["title"] == title
