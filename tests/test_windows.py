"""errdex on Windows, as far as Linux can show it: every module imports without the
modules and functions only POSIX has, and build, check and lookup run and take turns at
the output's lock the way Windows does (``msvcrt``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import MINIMAL, ROOT, make_content

from errdex.records import files
from errdex.util import parallel

WINDOWS = r"""
import contextlib, importlib, io, json, os, pkgutil, signal, sys, types

import fcntl as posix_fcntl  # what the stand-in for msvcrt locks with
import subprocess  # it tells Windows by msvcrt: before the stand-in is there

HIDDEN = {"fcntl", "termios", "tty", "pty", "resource", "pwd", "grp", "syslog", "crypt",
          "spwd", "nis", "curses", "readline"}


class NotOnWindows:
    # A finder first in line that refuses what Windows' Python does not have.
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {name!r} (not on Windows)", name=name)
        return None


for name in list(sys.modules):
    if name.partition(".")[0] in HIDDEN:
        del sys.modules[name]
sys.meta_path.insert(0, NotOnWindows())
for name in ("fork", "fchmod", "fchown", "sync", "O_CLOEXEC", "O_DIRECTORY", "O_NOFOLLOW",
             "sched_getaffinity", "getuid", "geteuid", "getgid", "killpg", "setsid", "pipe2"):
    if hasattr(os, name):
        delattr(os, name)
for name in ("SIGKILL", "SIGHUP", "SIGCHLD", "SIGALRM", "SIGPIPE", "SIGUSR1", "SIG_BLOCK",
             "SIG_SETMASK", "pthread_sigmask", "alarm", "setitimer"):
    if hasattr(signal, name):
        delattr(signal, name)

# Windows' msvcrt: locking(fd, mode, 1) locks the byte at the file's position.
locks = []
msvcrt = types.ModuleType("msvcrt")
msvcrt.LK_UNLCK, msvcrt.LK_LOCK, msvcrt.LK_NBLCK = 0, 1, 2


def locking(fd, mode, nbytes):
    locks.append([mode, os.lseek(fd, 0, os.SEEK_CUR), nbytes])
    how = posix_fcntl.LOCK_UN if mode == msvcrt.LK_UNLCK else posix_fcntl.LOCK_EX
    posix_fcntl.lockf(fd, how, nbytes, 0)


msvcrt.locking = locking
sys.modules["msvcrt"] = msvcrt

import errdex

modules = sorted(m.name for m in pkgutil.walk_packages(errdex.__path__, "errdex."))
modules.remove("errdex.__main__")  # it runs the command line
for module in modules:
    importlib.import_module(module)
from errdex.cli import main

content, out, cache = sys.argv[1:4]
runs = []
for argv in (
    ["build", "--content", content, "--out", out, "--cache", cache],
    ["check", "--content", content, "--out", out],
    ["lookup", "ValueError: size=-3 must be positive", "--site", out, "--json"],
    ["build", "--content", content, "--out", out, "--cache", cache],  # nothing changed
):
    said, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(said), contextlib.redirect_stderr(err):
        code = main(argv)
    runs.append([argv[0], code, said.getvalue(), err.getvalue()])
hidden = sorted(name for name in sys.modules if name.partition(".")[0] in HIDDEN)
print(json.dumps({"modules": modules, "runs": runs, "locks": locks, "hidden": hidden}))
"""


def test_errdex_imports_builds_checks_and_looks_up_without_what_only_posix_has(
    tmp_path: Path,
) -> None:
    content = make_content(tmp_path, {"r.yaml": MINIMAL})
    out, cache = tmp_path / "public", tmp_path / "cache"
    done = subprocess.run(
        [sys.executable, "-c", WINDOWS, str(content), str(out), str(cache)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert "errdex.site.write" in found["modules"] and "errdex.source.scan" in found["modules"]
    assert found["hidden"] == []
    for command, code, _, err in found["runs"]:
        assert code == 0, (command, err)
    (page,) = (out / "errors").iterdir()
    lookup = json.loads(found["runs"][2][2])
    assert lookup["matches"][0]["url"].endswith(f"/errors/{page.name}/")
    # Each build took the output's lock and let it go: at the file's first byte.
    assert found["locks"]
    assert found["locks"][::2] == [[1, 0, 1]] * (len(found["locks"]) // 2)
    assert found["locks"][1::2] == [[0, 0, 1]] * (len(found["locks"]) // 2)
    assert (out / "index.html").is_file()


def test_without_fork_a_big_site_is_read_and_rendered_in_this_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Windows has no fork: a worker would start without what the build has loaded."""
    assert parallel.jobs_for(10_000, 4) == 4
    monkeypatch.delattr(os, "fork")
    assert parallel.jobs_for(10_000, 4) == 1


def test_an_edit_is_seen_where_the_change_time_is_when_the_file_was_made(
    tmp_path: Path,
    run,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Windows' ``st_ctime`` is when a file was made, which an edit leaves as it was: a
    build must still see the edit (here of the same size) and render it."""
    born: dict[str, int] = {}

    class Entry:
        """A record file as Windows stats it."""

        def __init__(self, entry: os.DirEntry[str]) -> None:
            self.entry, self.path = entry, entry.path

        def __getattr__(self, name: str) -> Any:
            return getattr(self.entry, name)

        def stat(self) -> SimpleNamespace:
            real = self.entry.stat()
            ctime = born.setdefault(self.path, real.st_ctime_ns)
            return SimpleNamespace(
                st_ctime_ns=ctime, st_mtime_ns=real.st_mtime_ns, st_size=real.st_size
            )

    walk = files._walk
    monkeypatch.setattr(files, "_walk", lambda folder: map(Entry, walk(folder)))
    content = make_content(tmp_path, {"r.yaml": MINIMAL + "meaning: The first words.\n"})
    out = tmp_path / "public"
    assert run("build", "--content", content, "--out", out).code == 0
    record = content / "errors" / "r.yaml"
    record.write_text(record.read_text().replace("first", "other"))
    assert run("build", "--content", content, "--out", out).code == 0
    (page,) = (out / "errors").iterdir()
    assert "The other words." in (page / "index.html").read_text()
