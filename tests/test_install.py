"""What ``pip install errdex`` gives: the wheel as pip's build backend makes it, installed
into a fresh virtual environment with its core dependencies only (no extra)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path

import pytest
from conftest import MINIMAL, ROOT, make_content

from errdex import __version__


@dataclass(frozen=True)
class Installed:
    wheel: Path
    python: Path
    """The fresh environment's Python."""
    bin: Path


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    """The wheel, built by hatchling's PEP 517 hook as ``pip wheel`` would, installed by
    pip into a virtual environment made without pip (this environment's pip installs
    into it: ``pip --python``), about 3 seconds in all."""
    where = tmp_path_factory.mktemp("install")
    wheels = where / "wheels"
    wheels.mkdir()
    built = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, hatchling.build as backend; print(backend.build_wheel(sys.argv[1]))",
            str(wheels),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    wheel = wheels / built.stdout.strip().splitlines()[-1]
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", str(wheel)],
        check=True,
        capture_output=True,
    )
    yield Installed(wheel, python, venv / "bin")


def _run(installed: Installed, *args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{installed.bin}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def _metadata(wheel: Path) -> tuple[list[str], dict[str, list[str]]]:
    """The wheel's RECORD (paths) and METADATA (each field's values)."""
    info = f"errdex-{__version__}.dist-info"
    with zipfile.ZipFile(wheel) as archive:
        record = [line.split(",")[0] for line in archive.read(f"{info}/RECORD").decode().split()]
        headers = HeaderParser().parsestr(archive.read(f"{info}/METADATA").decode())
    fields: dict[str, list[str]] = {}
    for name, value in headers.items():
        fields.setdefault(name, []).append(value)
    return record, fields


def test_the_wheel_carries_the_license_and_the_one_version(installed: Installed) -> None:
    record, fields = _metadata(installed.wheel)
    info = f"errdex-{__version__}.dist-info"
    # Before: license = "MIT" was declared and no license text shipped.
    assert f"{info}/licenses/LICENSE" in record
    with zipfile.ZipFile(installed.wheel) as archive:
        shipped = archive.read(f"{info}/licenses/LICENSE").decode()
    assert shipped == (ROOT / "LICENSE").read_text()
    assert "MIT License" in shipped and "Copyright (c) errdex authors" in shipped
    assert fields["License-Expression"] == ["MIT"]
    # The version is errdex.__version__, not a second copy in pyproject.toml.
    assert fields["Version"] == [__version__]
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject and "\nversion =" not in pyproject
    # What an index shows and searches.
    assert any(c.startswith("Programming Language :: Python :: 3.11") for c in fields["Classifier"])
    assert "error reference" in fields["Keywords"][0].split(",")
    urls = dict(u.split(", ", 1) for u in fields["Project-URL"])
    assert {"Homepage", "Source", "Issues", "Documentation"} <= set(urls)
    # The theme is inside the package: an install builds a site with no checkout.
    assert "errdex/_theme/templates/base.html" in record


def test_only_the_extras_pull_watchfiles_and_openai_and_nothing_pulls_tqdm(
    installed: Installed,
) -> None:
    _, fields = _metadata(installed.wheel)
    requires = fields["Requires-Dist"]
    core = sorted(r.split(">")[0].split("=")[0] for r in requires if "extra ==" not in r)
    assert core == ["jinja2", "markdown-it-py", "pygments", "pyyaml", "rcssmin", "rjsmin"]
    assert "watchfiles>=0.21; extra == 'serve'" in requires
    assert "openai>=1.40; extra == 'draft'" in requires
    assert not [r for r in requires if r.startswith("tqdm")]
    listed = _run(
        installed,
        installed.python,
        "-c",
        "import importlib.metadata as m; print(sorted(d.name.lower() for d in m.distributions()))",
        cwd=installed.bin,
    )
    assert "'errdex'" in listed.stdout
    for extra in ("watchfiles", "tqdm", "openai"):
        assert f"'{extra}'" not in listed.stdout, listed.stdout


def test_an_install_without_extras_runs_help_and_builds_a_site(
    installed: Installed, tmp_path: Path
) -> None:
    helped = _run(installed, installed.python, "-m", "errdex", "--help", cwd=tmp_path)
    assert helped.returncode == 0, helped.stderr
    assert helped.stdout.startswith("usage: errdex")
    version = _run(installed, "errdex", "--version", cwd=tmp_path)
    assert version.stdout.strip() == f"errdex {__version__}"
    content = make_content(tmp_path, {"a.yaml": MINIMAL})
    built = _run(
        installed, "errdex", "build", "--content", content, "--out", "public", cwd=tmp_path
    )
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "public" / "index.html").is_file()


def test_serve_without_its_extra_says_how_to_install_it(
    installed: Installed, tmp_path: Path
) -> None:
    content = make_content(tmp_path, {"a.yaml": MINIMAL})
    served = _run(installed, "errdex", "serve", "--content", content, "--port", "0", cwd=tmp_path)
    assert served.returncode == 1
    assert "pip install 'errdex[serve]'" in served.stderr
    assert "--no-watch" in served.stderr
    assert "Traceback" not in served.stderr
    # Nothing was built or listened for before the refusal.
    assert not (tmp_path / ".errdex" / "serve").exists()
