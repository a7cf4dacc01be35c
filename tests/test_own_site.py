"""A maintainer's own site: init, the site's own templates and static files, and the
first-use path of the README run from the installed wheel."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from conftest import MINIMAL, ROOT, http_server

README = (ROOT / "README.md").read_text()
LOOK = (ROOT / "docs" / "look.md").read_text()
SITE = """\
title: Own errors
base_url: https://own.example.test/
repository: me/own
releases:
- repo: example/project
  name: v1.0
  commit: "0123456789"
"""
RELEASED = (
    MINIMAL
    + "releases:\n- {release: v1.0, commit: '0123456789', path: src/project/config.py, line: 3}\n"
)


def documented(header: str) -> dict[str, list[str]]:
    """A table of docs/look.md (blocks, or names): template → its entries."""
    table = LOOK.split(f"| template | {header} |", 1)[1].split("\n\n", 1)[0]
    out: dict[str, list[str]] = {}
    for row in table.splitlines()[2:]:
        cells = row.strip("|").split("|")
        templates = re.findall(r"`(?:templates/)?([a-z0-9_]+\.html)`", cells[0])
        if "every template" in cells[0]:
            templates = ["every"]
        # The names listed, not those of the notes in brackets or after a colon.
        listed = re.sub(r"\([^)]*\)", "", cells[1]).split(": ", 1)[0]
        entries = re.findall(r"`([a-z_]+)(?:\(|`)", listed)
        for name in templates:
            out[name] = entries
    return out


def attributes(header: str) -> dict[str, list[str]]:
    """Names with the attributes the table lists for them: ``record (`id`, …)``."""
    table = LOOK.split(f"| template | {header} |", 1)[1].split("\n\n", 1)[0]
    found: dict[str, list[str]] = {}
    for row in table.splitlines()[2:]:
        for name, inside in re.findall(r"`([a-z_]+)` \(([^)]*)\)", row.split("|")[2]):
            if re.fullmatch(r"`[a-z_]+`(, `[a-z_]+`)*", inside):  # a list of its attributes
                found[name] = re.findall(r"`([a-z_]+)`", inside)
    return found


@pytest.fixture
def own(tmp_path: Path) -> Path:
    """A site folder with one record (raised in a release) and an empty templates/."""
    site = tmp_path / "own"
    (site / "content" / "errors").mkdir(parents=True)
    (site / "content" / "site.yaml").write_text(SITE)
    (site / "content" / "errors" / "r.yaml").write_text(RELEASED)
    (site / "templates").mkdir()
    (site / "static").mkdir()
    return site


def build(run, site: Path, *more: str):  # type: ignore[no-untyped-def]
    return run("build", "--content", site / "content", "--out", site / "public", *more)


def pages(site: Path) -> dict[str, str]:
    out = site / "public"
    error = next((out / "errors").iterdir()) / "index.html"
    repo = out / "repos" / "example" / "project"
    return {
        "base.html": (out / "index.html").read_text(),
        "error.html": error.read_text(),
        "list.html": (repo / "index.html").read_text(),
        "home.html": (out / "index.html").read_text(),
        "release.html": (repo / "releases" / "v1.0" / "index.html").read_text(),
        "releases.html": (repo / "releases" / "index.html").read_text(),
    }


def test_every_documented_block_can_be_overridden(run, own: Path) -> None:  # type: ignore[no-untyped-def]
    blocks = documented("blocks")
    assert "footer" in blocks["base.html"] and blocks["error.html"] == ["title", "meta", "main"]
    # base.html's blocks, seen on a page whose template fills none of them (a list),
    # then each page template's own blocks on its own page.
    for chosen in (["base.html"], [t for t in blocks if t != "base.html"]):
        for old in (own / "templates").glob("*.html"):
            old.unlink()
        for template in chosen:
            body = "".join(
                f"{{% block {name} %}}<!--{template}:{name}-->{{% endblock %}}\n"
                for name in blocks[template]
            )
            (own / "templates" / template).write_text(
                f'{{% extends "errdex/{template}" %}}\n{body}'
            )
        result = build(run, own)
        assert result.code == 0, result.err
        made = pages(own)
        for template in chosen:
            page = made["list.html" if template == "base.html" else template]
            for name in blocks[template]:
                assert f"<!--{template}:{name}-->" in page, (template, name)


def test_every_documented_name_exists(run, own: Path) -> None:  # type: ignore[no-untyped-def]
    names = documented("names it gets")
    fields = attributes("names it gets")
    checks: dict[str, list[str]] = {}
    for template, listed in names.items():
        for name in listed:
            checks.setdefault(template, []).append(name)
            checks[template] += [f"{name}.{a}" for a in fields.get(name, [])]
    assert "config.extra_css" in checks["every"] and "record.releases" in checks["error.html"]
    for template in ("error.html", "list.html", "home.html", "release.html", "releases.html"):
        shown = "".join(
            f"[{n}={{{{ {n} is defined }}}}]" for n in [*checks["every"], *checks.get(template, [])]
        )
        (own / "templates" / template).write_text(
            f'{{% extends "errdex/{template}" %}}\n{{% block main %}}{shown}{{% endblock %}}\n'
        )
    result = build(run, own)
    assert result.code == 0, result.err
    for template, page in pages(own).items():
        if template == "base.html":
            continue
        missing = re.findall(r"\[([a-z_.]+)=False\]", page)
        assert missing == [], (template, missing)
        assert "=True]" in page


def test_extra_css_and_js_load_on_every_page_under_hashed_names(run, own: Path) -> None:  # type: ignore[no-untyped-def]
    (own / "static" / "site.css").write_text(".brand { color: rgb(1, 2, 3); }\n")
    (own / "static" / "js").mkdir()
    (own / "static" / "js" / "site.js").write_text("window.ownSite = 1;\n")
    config = own / "content" / "site.yaml"
    config.write_text(SITE + "extra_css:\n- site.css\nextra_js:\n- js/site.js\n")
    result = build(run, own)
    assert result.code == 0, result.err
    assert "W311" not in result.err  # a few bytes of the site's own are within budget
    css = sorted((own / "public" / "static").glob("site.*.css"))
    js = sorted((own / "public" / "static" / "js").glob("site.*.js"))
    assert len(css) == 1 and len(js) == 1
    out = own / "public"
    error = next((out / "errors").iterdir()) / "index.html"
    for page in (out / "index.html", error, out / "repos" / "example" / "project" / "index.html"):
        styles, scripts = _loads(page)
        assert [Path(href).name for href in styles][-1:] == [css[0].name], page
        assert [Path(src).name for src in scripts][-1:] == [js[0].name], page
    config.write_text(SITE + "extra_css:\n- site.css\n- missing.css\n")
    result = build(run, own)
    assert result.code == 1
    assert "site.yaml:10: extra_css names 'missing.css', which is not a file of" in result.err
    assert "[E207]" in result.err
    (own / "static" / "big.css").write_text(".a{color:red}\n" * 2000)
    config.write_text(SITE + "extra_css:\n- big.css\n")
    result = build(run, own)
    assert result.code == 0
    assert "with extra_css, every page loads" in result.err and "[W311]" in result.err
    (own / "static" / "big.js").write_text("window.big = 1;\n" * 1000)
    config.write_text(SITE + "extra_js:\n- big.js\n")
    result = build(run, own)
    assert result.code == 0
    assert "with extra_js, every page loads" in result.err and "KiB budget [W311]" in result.err


def test_a_sites_scripts_are_published_as_written(run, own: Path) -> None:  # type: ignore[no-untyped-def]
    # Before: every script of static/ went through rjsmin, which reads a regular
    # expression right after "=>" as a division: "/ +$/" became "/+$/", a syntax error,
    # and "/[ ]{2}/" became "/[]{2}/", which matches nothing.
    script = (
        "// trims what the user typed\n"
        "const trailing = (text) => / +$/.test(text);\n"
        "const doubled = (text) => /[ ]{2}/.exec(text);\n"
    )
    (own / "static" / "js").mkdir()
    (own / "static" / "js" / "site.js").write_text(script)
    (own / "static" / "errdex.js").write_text("window.own = (s) => /a  b/.test(s);\n")
    (own / "content" / "site.yaml").write_text(SITE + "extra_js:\n- js/site.js\n")
    result = build(run, own)
    assert result.code == 0, result.err
    out = own / "public"
    (published,) = (out / "static" / "js").glob("site.*.js")
    assert published.read_text() == script
    (bundle,) = (out / "static").glob("errdex-page.*.js")
    assert bundle.read_text().endswith("\n;window.own = (s) => /a  b/.test(s);\n")


def _fails_at_a_broken_footer(run, own: Path, *more: str) -> Path:  # type: ignore[no-untyped-def]
    """Break the site's base template at its line 3 and build: the build names it there
    and writes nothing. Returns the template."""
    template = own / "templates" / "base.html"
    template.write_text(
        '{% extends "errdex/base.html" %}\n\n{% block footer %}{{ x( }}{% endblock %}\n'
    )
    result = build(run, own, *more)
    assert result.code == 1
    assert "templates/base.html:3: template error: " in result.err and "[E106]" in result.err
    assert "Traceback" not in result.err
    assert not (own / "public").exists()
    return template


def test_a_template_error_in_an_override_is_named_at_its_line(run, own: Path) -> None:  # type: ignore[no-untyped-def]
    template = _fails_at_a_broken_footer(run, own)
    template.write_text(
        '{% extends "errdex/base.html" %}\n{% block footer %}\n{{ nope.x }}{% endblock %}\n'
    )
    result = build(run, own)
    assert result.code == 1
    assert "templates/base.html:3: template error: 'nope' is undefined [E106]" in result.err


def test_a_big_site_names_a_broken_template_as_a_small_one_does(
    run,  # type: ignore[no-untyped-def]
    own: Path,
    small_parallel: list[int],
) -> None:
    """A site big enough to be read on every core compiles its templates while the
    records are read; what is wrong is said in the same order all the same: the
    records' errors first, and a template's once the records have none."""
    from benchmarks import corpus
    from errdex.util import parallel

    records = corpus.generate(parallel.PARALLEL_FROM + 20, seed=2)
    for number, record in enumerate(records):
        path = own / "content" / "errors" / corpus.record_path(number, record)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(corpus.dump_record(record))
    _fails_at_a_broken_footer(run, own, "--jobs", "2")
    assert small_parallel == [2]  # the records were read on two processes
    (own / "content" / "errors" / "r.yaml").write_text("repo: [unclosed\n")
    result = build(run, own, "--jobs", "2")
    assert result.code == 1
    assert "r.yaml:2: YAML syntax error" in result.err and "templates/base.html" not in result.err
    assert not (own / "public").exists()


def test_lists_show_the_same_however_many_cores_read_the_records(
    run,  # type: ignore[no-untyped-def]
    own: Path,
    small_parallel: list[int],
) -> None:
    """A site's own home page that counts the records with prose sees summaries, read
    on one core or on several: the same page either way."""
    from benchmarks import corpus
    from errdex.util import parallel

    records = corpus.generate(parallel.PARALLEL_FROM + 20, seed=2)
    for number, record in enumerate(records):
        path = own / "content" / "errors" / corpus.record_path(number, record)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(corpus.dump_record(record))
    (own / "templates" / "home.html").write_text(
        '{% extends "errdex/home.html" %}\n{% block main %}<p id="count">'
        '{{ site.records|selectattr("meaning")|list|length }} with a meaning of '
        "{{ site.records|length }}</p>{% endblock %}\n"
    )
    pages = {}
    for jobs in ("1", "2"):
        out = own / f"out-{jobs}"
        built = run("build", "--content", own / "content", "--out", out, "--jobs", jobs)
        assert built.code == 0, built.err
        pages[jobs] = (out / "index.html").read_text()
    assert pages["1"] == pages["2"]
    assert small_parallel[-2:] == [2, 2]  # read and rendered on two processes
    assert f"0 with a meaning of {len(records) + 1}" in pages["1"]
    assert any(record.get("meaning") for record in records)


def test_init_makes_a_site_folder_and_writes_over_nothing(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "mysite"
    made = run("init", folder, "--repo", "Acme/widgets")
    assert made.code == 0, made.err
    site = (folder / "content" / "site.yaml").read_text()
    assert "repository: Acme/widgets" in site
    assert "base_url: https://acme.github.io/widgets/" in site
    assert (folder / "content" / "errors").is_dir()
    assert "public/" in (folder / ".gitignore").read_text()
    workflow = (folder / ".github" / "workflows" / "errdex.yml").read_text()
    assert "pip install" in workflow and "errdex build" in workflow
    assert "errdex serve" in (folder / "README.md").read_text()
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    (folder / "README.md").write_text("mine")
    again = run("init", folder, "--title", "Other")
    assert again.code == 1
    assert "already there; init writes over nothing" in again.err
    assert (folder / "README.md").read_text() == "mine"
    assert {
        p: p.read_bytes() for p in folder.rglob("*") if p.is_file() and p.name != "README.md"
    } == {p: b for p, b in before.items() if p.name != "README.md"}
    bad = run("init", tmp_path / "other", "--repo", "not a repo")
    assert bad.code == 1 and "--repo must be owner/name" in bad.err
    assert not (tmp_path / "other").exists()


def readme_commands() -> list[str]:
    """The commands of the README's "Your own site", as written there."""
    part = README.split("## Your own site", 1)[1]
    block = part.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


@pytest.mark.browser
def test_the_readme_first_use_path_works_from_the_installed_wheel(tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    """Build the wheel, install it into a fresh virtual environment outside the checkout,
    and run the README's commands there as written (the wheel stands in for the git URL
    of the first): init, scan a small git repository, then serve it, with an overridden
    block and an extra stylesheet, and look at the pages in chromium."""
    commands = readme_commands()
    assert commands[0].startswith("pip install ")
    assert commands[1:] == [
        "errdex init mysite && cd mysite",
        "errdex scan ../myproject --repo me/myproject --ref HEAD",
        "errdex serve",
    ]
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            # hatchling from this environment (the test extra): nothing fetched to build.
            "--no-build-isolation",
            "--quiet",
            "-w",
            str(wheels),
            str(ROOT),
        ],
        check=True,
    )
    wheel = next(wheels.glob("errdex-*.whl"))
    venv = tmp_path / "venv"
    # Without a pip of its own (5 s of the test's 25): this environment's pip installs
    # into it.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    bin_dir = venv / "bin"
    # With the extras the README's command names (serve's watch is the serve extra).
    extras = re.search(r"errdex(\[[a-z,]+\])", commands[0])
    wanted = f"{wheel}{extras[1] if extras else ''}"
    pip = [sys.executable, "-m", "pip", "--python", str(bin_dir / "python")]
    subprocess.run([*pip, "install", "--quiet", wanted], check=True)
    work = tmp_path / "work"
    project = work / "myproject"
    project.mkdir(parents=True)
    (project / "widgets.py").write_text(
        "def make(count):\n    if count < 0:\n"
        '        raise ValueError(f"count must be positive, got {count}")\n'
    )
    for args in (["init", "-q"], ["add", "-A"]):
        subprocess.run(["git", "-C", str(project), *args], check=True)
    subprocess.run(
        [
            *("git", "-C", str(project), "-c", "user.name=me", "-c", "user.email=me@example.test"),
            *("commit", "-qm", "one"),
        ],
        check=True,
    )
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    shell = " && ".join(commands[1:3])
    done = subprocess.run(["bash", "-c", shell], cwd=work, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    site = work / "mysite"
    assert "errdex scan: 1 new" in done.stderr
    # Their own look: one block and a stylesheet.
    (site / "templates" / "base.html").write_text(
        '{% extends "errdex/base.html" %}\n'
        '{% block footer %}<p class="ours">Made by me.</p>{% endblock %}\n'
    )
    (site / "static" / "ours.css").write_text(".ours { color: rgb(10, 20, 30); }\n")
    with (site / "content" / "site.yaml").open("a") as handle:
        handle.write("extra_css:\n- ours.css\n")
    # The README's command as written, on a port no other test or program holds.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    served = subprocess.Popen(
        ["bash", "-c", f"{commands[3]} --port {port}"],
        cwd=site,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = f"http://127.0.0.1:{port}/"
        for _ in range(300):
            try:
                with urllib.request.urlopen(url, timeout=1) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                time.sleep(0.1)
        page = browser.new_page()
        page.goto(url)
        footer = page.locator("p.ours")
        assert footer.text_content() == "Made by me."
        assert footer.evaluate("e => getComputedStyle(e).color") == "rgb(10, 20, 30)"
        page.locator(".search-main textarea").fill("ValueError: count must be positive, got -1")
        first = page.locator("#results-main [role=option]").first
        first.wait_for()
        assert "count = -1" in (first.text_content() or "")
        first.click()
        page.wait_for_url("**/errors/*/?q=*")
        assert "widgets.py:3" in (page.locator(".where").text_content() or "")
        page.close()
    finally:
        served.terminate()
        served.wait(timeout=10)
    assert shutil.which("errdex", path=str(bin_dir))


def test_init_refuses_what_would_not_build_and_writes_nothing(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    for title in ("bell\x07", "two\nlines", "half \udc85"):
        result = run("init", tmp_path / "a", "--title", title, "--repo", "o/r")
        assert result.code == 1 and "--title must be one line of printable text" in result.err
        assert not (tmp_path / "a").exists()
    blocked = tmp_path / "b"
    blocked.mkdir()
    (blocked / "templates").write_text("a file where a folder goes")
    result = run("init", blocked, "--repo", "o/r")
    assert (
        result.code == 1 and "templates is a file, not a folder; init writes nothing" in result.err
    )
    assert sorted(p.name for p in blocked.iterdir()) == ["templates"]
    pages_site = run("init", tmp_path / "c", "--repo", "me/me.github.io")
    assert pages_site.code == 0
    assert (
        "base_url: https://me.github.io/\n"
        in (tmp_path / "c" / "content" / "site.yaml").read_text()
    )


def test_odd_files_in_templates_and_static_are_named_or_left_alone(run, own: Path) -> None:  # type: ignore[no-untyped-def]
    (own / "templates" / "logo.png").write_bytes(b"\x89PNG\r\n")  # not a template: left alone
    (own / "static" / ".secret.css").write_text("a{}")
    (own / "static" / "site.css").write_text("a{}")
    config = own / "content" / "site.yaml"
    config.write_text(SITE + "extra_css:\n- ./site.css\n")
    result = build(run, own)
    assert result.code == 1 and "extra_css names './site.css'" in result.err
    config.write_text(SITE + "extra_css:\n- site.css\n")
    assert build(run, own).code == 0
    assert not list((own / "public" / "static").glob(".secret*"))
    template = own / "templates" / "base.html"
    template.write_text(
        '{% extends "errdex/base.html" %}\n{% block footer %}\n'
        "{{ config.title + 1 }}{% endblock %}\n"
    )
    result = build(run, own)
    assert result.code == 1
    assert "templates/base.html:3: template error: can only concatenate str" in result.err
    template.write_text('{% extends "base.html" %}\n')
    result = build(run, own)
    assert (
        result.code == 1
        and "templates/base.html:1: template error: it extends itself" in result.err
    )
    assert "Traceback" not in result.err


def _loads(page: Path) -> tuple[list[str], list[str]]:
    """The stylesheets and the scripts ``page`` loads, in order."""
    html = BeautifulSoup(page.read_text(), "html.parser")
    css = [str(link["href"]) for link in html.find_all("link", rel="stylesheet")]
    return css, [str(script["src"]) for script in html.find_all("script", src=True)]


def _linked(page: Path, href: str) -> Path:
    """The file a relative link of ``page`` (in the built site) leads to, decoded."""
    return (page.parent / urllib.parse.unquote(href)).resolve()


def test_static_files_without_an_extension_or_in_dotted_folders_keep_their_names(
    run, own: Path
) -> None:  # type: ignore[no-untyped-def]
    (own / "static" / "LICENSE").write_text("All rights kept.\n")
    (own / "static" / "v1.2").mkdir()
    (own / "static" / "v1.2" / "logo").write_text("<svg/>\n")
    (own / "static" / "v1.2" / "logo.svg").write_text("<svg></svg>\n")
    (own / "templates" / "base.html").write_text(
        '{% extends "errdex/base.html" %}\n{% block footer %}'
        "<a id=licence href=\"{{ asset('LICENSE') }}\">Licence</a>"
        "<a id=logo href=\"{{ asset('v1.2/logo') }}\">Logo</a>"
        "<a id=svg href=\"{{ asset('v1.2/logo.svg') }}\">SVG</a>{% endblock %}\n"
    )
    result = build(run, own)
    assert result.code == 0, result.err
    static = own / "public" / "static"
    published = sorted(p.relative_to(static).as_posix() for p in static.rglob("*"))
    # Before: static/.<hash>LICENSE (a dot file, which hosts hide) and v1.<hash>.2/logo.
    assert not [name for name in published if name.split("/")[-1].startswith(".")]
    assert (
        [n for n in published if n.startswith("LICENSE")]
        == [m for m in published if re.fullmatch(r"LICENSE\.[0-9a-f]{10}", m)]
        != []
    )
    ours = [n for n in published if n.startswith("v1")]
    assert len(ours) == 3 and ours[0] == "v1.2", ours
    assert any(re.fullmatch(r"v1\.2/logo\.[0-9a-f]{10}", n) for n in ours), ours
    assert any(re.fullmatch(r"v1\.2/logo\.[0-9a-f]{10}\.svg", n) for n in ours), ours
    page = own / "public" / "index.html"
    html = page.read_text()
    for anchor, content in (("licence", "All rights kept.\n"), ("logo", "<svg/>\n")):
        href = re.search(rf'<a id={anchor} href="([^"]+)"', html)
        assert href, anchor
        assert _linked(page, href[1]).read_text() == content


def test_asset_links_are_percent_encoded(run, own: Path) -> None:  # type: ignore[no-untyped-def]
    odd = "q?x#y 100%.css"
    (own / "static" / "a b").mkdir()
    (own / "static" / odd).write_text(".brand { color: rgb(4, 5, 6); }\n")
    (own / "static" / "a b" / "c#d.js").write_text("window.odd = 1;\n")
    (own / "content" / "site.yaml").write_text(
        SITE + f"extra_css:\n- '{odd}'\nextra_js:\n- 'a b/c#d.js'\n"
    )
    result = build(run, own)
    assert result.code == 0, result.err
    error = next((own / "public" / "errors").iterdir()) / "index.html"
    for page in (own / "public" / "index.html", error):
        css, js = _loads(page)
        css, js = css[1:], js[1:]  # after ours
        assert len(css) == 1 and len(js) == 1, (css, js)
        # Before: href="static/q?x#y 100%.<hash>.css", which asks for static/q.
        assert re.fullmatch(r"(\.\./)*static/q%3Fx%23y%20100%25\.[0-9a-f]{10}\.css", css[0])
        assert re.fullmatch(r"(\.\./)*static/a%20b/c%23d\.[0-9a-f]{10}\.js", js[0])
        assert "rgb(4,5,6)" in _linked(page, css[0]).read_text()
        assert "window.odd" in _linked(page, js[0]).read_text()


def test_a_sites_errdex_css_replaces_errdexs_own_on_every_page(run, own: Path) -> None:  # type: ignore[no-untyped-def]
    (own / "static" / "errdex.css").write_text("/* mine */\n.brand { color: rgb(7, 8, 9); }\n")
    result = build(run, own)
    assert result.code == 0, result.err
    out = own / "public"
    # errdex's own is not published beside it: one errdex.css, named for the site's bytes.
    (published,) = (out / "static").glob("errdex.*.css")
    assert published.read_bytes() == b".brand{color:rgb(7,8,9)}"
    digest = hashlib.sha256(published.read_bytes()).hexdigest()[:10]
    assert published.name == f"errdex.{digest}.css"
    # Pages load it with the code's colours after it, in errdex-page.css.
    error = next((out / "errors").iterdir()) / "index.html"
    release = out / "repos" / "example" / "project" / "releases" / "v1.0" / "index.html"
    for page in (out / "index.html", error, release):  # links at every depth
        (linked,), _ = _loads(page)
        loaded = _linked(page, linked).read_bytes()
        assert loaded.startswith(b".brand{color:rgb(7,8,9)}\n"), page
        assert b".hl t-k{" in loaded and b"errdex" not in loaded.split(b"\n")[0]


@pytest.mark.parametrize("target", ["folder", "nowhere"])
def test_a_static_folder_that_is_a_link_is_refused(
    run, own: Path, tmp_path: Path, target: str
) -> None:  # type: ignore[no-untyped-def]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "notes.txt").write_text("not for the web\n")
    (own / "static").rmdir()
    (own / "static").symlink_to(elsewhere if target == "folder" else tmp_path / "nowhere")
    result = build(run, own)
    # Before: every file of the folder the link leads to was published.
    assert result.code == 1
    assert "static: is a link (to " in result.err and "[E100]" in result.err
    assert "make static/ a folder" in result.err and "Traceback" not in result.err
    assert not (own / "public").exists()
    assert run("check", "--content", own / "content").code == 1

    # A site built from a real static/ is not found up to date once the same files are
    # behind a link.
    (own / "static").unlink()
    shutil.copytree(elsewhere, own / "static")
    assert build(run, own).code == 0
    assert list((own / "public" / "static").glob("notes.*.txt"))
    shutil.rmtree(own / "static")
    (own / "static").symlink_to(elsewhere)
    again = build(run, own)
    assert again.code == 1 and "static: is a link" in again.err


def test_init_prints_a_folder_name_that_is_not_utf8_readably(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # A name of bytes that are not UTF-8, as Python gets it from the command line.
    folder = tmp_path / os.fsdecode(b"caf\xff")
    made = run("init", folder, "--repo", "me/cafe")
    # Before: "wrote" printed the name's surrogate escape, which a strict UTF-8 stdout
    # (this test's, and a terminal's outside the C locale) cannot encode: a traceback.
    assert made.code == 0, made.err
    assert f"wrote {tmp_path}/caf\ufffd/content/site.yaml\n" in made.out
    assert not re.search("[\ud800-\udfff]", made.out + made.err)
    # The command it suggests finds the folder (bash and zsh read $'\xff').
    assert "Next: cd $'" + str(tmp_path) + "/caf\\xff' && errdex scan" in made.err
    assert b"caf\xff" in os.listdir(os.fsencode(tmp_path))
    again = run("init", folder, "--repo", "me/cafe")
    assert again.code == 1
    assert f"errdex: {tmp_path}/caf\ufffd: content/site.yaml" in again.err
    assert not re.search("[\ud800-\udfff]", again.err)


def _open_error_page(out: Path, page: Any) -> list[str]:
    """Open the site's error page in ``page``; returns the errors its scripts throw."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    error = next((out / "errors").iterdir())
    with http_server(out) as url:
        page.goto(f"{url}errors/{error.name}/", wait_until="load")
        page.wait_for_load_state("networkidle")
    return errors


@pytest.mark.browser
def test_a_sites_own_errdex_js_runs_as_it_would_alone(run, own: Path, page: Any) -> None:  # type: ignore[no-untyped-def]
    """Pages load it joined after search.js (errdex-page.js), whose "use strict" must
    not hold for it: a script that sets an undeclared name works alone."""
    (own / "static" / "errdex.js").write_text(
        '(function () { undeclared = "ran"; document.body.dataset.site = undeclared; })();\n'
    )
    assert build(run, own).code == 0
    assert _open_error_page(own / "public", page) == []
    assert page.locator("body[data-site=ran]").count() == 1


@pytest.mark.browser
def test_a_sites_own_footer_and_contents_are_not_doubled(run, own: Path, page: Any) -> None:  # type: ignore[no-untyped-def]
    """A footer of the site's own that links ``report_url`` gets the title and page the
    script adds; an error page that writes its own "On this page" gets no second one."""
    (own / "templates" / "error.html").write_text(
        '{% extends "errdex/error.html" %}'
        '{% block footer %}<p><a href="{{ report_url }}">Tell us</a></p>{% endblock %}'
    )
    assert build(run, own).code == 0
    out = own / "public"
    html = next((out / "errors").iterdir()) / "index.html"
    # Its own "On this page" beside the article, as a template copied from errdex's has.
    toc = '<aside class="toc"><nav><a href="#source">Source</a></nav></aside>'
    html.write_text(html.read_text().replace("</article>", "</article>" + toc))
    assert _open_error_page(out, page) == []
    assert page.locator("aside.toc").count() == 1
    href = page.get_by_role("link", name="Tell us").get_attribute("href") or ""
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(href).query)
    assert query["title"][0].startswith("[") and "] ValueError: " in query["title"][0]
    assert query["body"][0].startswith("Page: https://")
