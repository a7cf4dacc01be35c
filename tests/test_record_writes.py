"""A record file is rewritten whole or not at all: a full disk, a failed write or a kill in
the middle of ``pin`` leaves each record with its old bytes or its new ones, never a mix,
and no temporary where a build would read it. A rewritten record keeps its mode."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path

import pytest
from conftest import ROOT, SITE_YAML

from errdex.records.files import record_files, shown_path

REPO = "example/disk"
COMMIT = "1111111111111111111111111111111111111111"
NEXT = "2222222222222222222222222222222222222222"

PROSE = "A person explains this error here, at some length. " * 6
"""About 300 bytes a line: several lines make a record longer than a page of the disk."""


def _tree(root: Path, raises: int) -> Path:
    tree = root / "src"
    (tree / "pkg").mkdir(parents=True)
    functions = [
        f'def check_{n}(value):\n    raise ValueError(f"setting {n} cannot be {{value}}")\n'
        for n in range(raises)
    ]
    (tree / "pkg" / "settings.py").write_text("\n\n".join(functions))
    return tree


def _content(run, root: Path, tree: Path, lines: int) -> Path:  # type: ignore[no-untyped-def]
    """Records scanned from ``tree`` at COMMIT, each given ``lines`` of a person's prose."""
    content = root / "content"
    (content / "errors").mkdir(parents=True)
    (content / "site.yaml").write_text(SITE_YAML)
    scanned = run("scan", tree, "--repo", REPO, "--commit", COMMIT, "--content", content)
    assert scanned.code == 0, scanned.err
    for path in _records(content):
        with path.open("a") as file:
            file.write("meaning: |\n" + "".join(f"  {PROSE}\n" for _ in range(lines)))
    return content


def _records(content: Path) -> list[Path]:
    return sorted((content / "errors").rglob("*.yaml"))


def _leftovers(content: Path) -> list[str]:
    return sorted(p.name for p in (content / "errors").rglob("*") if p.name.startswith("."))


def _launch(script: str, argv: list[str | Path], **kwargs) -> subprocess.Popen[str]:  # type: ignore[no-untyped-def]
    """errdex in a process of its own, after ``script`` (Python run first)."""
    code = script + "\nfrom errdex.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    return subprocess.Popen(
        [sys.executable, "-c", "import sys\n" + code, *map(str, argv)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


# --- A write that fails halfway -----------------------------------------------------------

FILE_SIZE_LIMIT = """
import resource, signal
# No file grows past 256 bytes, as on a disk that is full (EFBIG, and no signal).
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (256, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
"""


def _pin(run, root: Path) -> list[str | Path]:  # type: ignore[no-untyped-def]
    tree = _tree(root, 1)
    content = _content(run, root, tree, lines=2)
    return ["pin", tree, "--repo", REPO, "--commit", NEXT, "--content", content, "--no-cache"]


def _scan(run, root: Path) -> list[str | Path]:  # type: ignore[no-untyped-def]
    tree = _tree(root, 3)
    (root / "content" / "errors").mkdir(parents=True)
    (root / "content" / "site.yaml").write_text(SITE_YAML)
    content = root / "content"
    return ["scan", tree, "--repo", REPO, "--commit", COMMIT, "--content", content, "--no-cache"]


def _new(run, root: Path) -> list[str | Path]:  # type: ignore[no-untyped-def]
    content = _content(run, root, _tree(root, 1), lines=1)
    paste = "The disk of server 7 is full: cannot write /data/x."
    return ["new", paste, "--repo", REPO, "--exception", "OSError", "--content", content]


def _issues(run, root: Path) -> list[str | Path]:  # type: ignore[no-untyped-def]
    content = _content(run, root, _tree(root, 1), lines=1)

    def export(number: int) -> Path:
        path = root / f"export-{number}.json"
        issue = {
            "number": number,
            "title": f"Full disk, take {number}",
            "body": "The server stopped writing.",
            "state": "OPEN",
            "url": f"https://github.com/{REPO}/issues/{number}",
            "createdAt": "2026-11-02T08:00:00Z",
            "closedAt": None,
            "labels": [],
        }
        path.write_text(json.dumps([issue]))
        return path

    imported = run("issues", "import", export(1), "--repo", REPO, "--content", content)
    assert imported.code == 0, imported.err
    return ["issues", "import", export(2), "--repo", REPO, "--content", content]


def _init(run, root: Path) -> list[str | Path]:  # type: ignore[no-untyped-def]
    return ["init", root / "site", "--repo", "example/disk"]


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


@pytest.mark.parametrize(
    ("setup", "said"),
    [
        (_pin, "cannot be rewritten: File too large; the file is unchanged"),
        (_scan, "cannot be written: File too large; nothing was written"),
        (_new, "File too large"),
        (_issues, "cannot be written: File too large"),
        (_init, "File too large"),
    ],
    ids=["pin", "scan", "new", "issues-import", "init"],
)
def test_a_write_the_disk_cannot_hold_leaves_every_file_whole(  # type: ignore[no-untyped-def]
    run, tmp_path: Path, setup, said: str
) -> None:
    """Run once with room to spare, once on a "full disk" from the same start: each file
    of the second run is as it was before or as the first run wrote it, never a part of
    it, and no temporary is left."""
    argv = setup(run, tmp_path / "roomy")
    assert run(*argv).code == 0
    written = _files(tmp_path / "roomy")
    argv = setup(run, tmp_path / "full")
    before = _files(tmp_path / "full")

    _, err = _launch(FILE_SIZE_LIMIT, argv).communicate(timeout=60)

    after = _files(tmp_path / "full")
    assert after != written, "the limit stopped no write"
    for rel, data in after.items():
        assert data in (before.get(rel), written.get(rel)), f"{rel} was written in part"
    # Before: the record was cut off at the limit, and pin said it was "left alone".
    assert said in err, err
    assert "Traceback" not in err


def test_a_failed_write_leaves_the_record_and_no_temporary_and_says_what_happened(  # type: ignore[no-untyped-def]
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _tree(tmp_path, 1)
    content = _content(run, tmp_path, tree, lines=20)
    (record,) = _records(content)
    before = record.read_bytes()
    real_write = os.write
    written = 0

    def full_disk(fd: int, data: bytes) -> int:
        """The disk takes 1,000 bytes more, then no more."""
        nonlocal written
        if written >= 1000:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        done = real_write(fd, bytes(data[: 1000 - written]))
        written += done
        return done

    monkeypatch.setattr(os, "write", full_disk)
    argv = ["pin", tree, "--repo", REPO, "--commit", NEXT, "--content", content, "--no-cache"]
    result = run(*argv)

    assert written == 1000  # the write began, and failed halfway
    assert record.read_bytes() == before
    assert _leftovers(content) == []
    said = "cannot be rewritten: No space left on device; the file is unchanged"
    assert f"{shown_path(record)}: {said}" in result.err, result.err


# --- What a rewrite keeps -----------------------------------------------------------------


def test_a_rewritten_record_keeps_its_mode_and_the_link_to_it(  # type: ignore[no-untyped-def]
    run, tmp_path: Path
) -> None:
    tree = _tree(tmp_path, 2)
    content = _content(run, tmp_path, tree, lines=1)
    plain, linked = _records(content)
    plain.chmod(0o640)
    # A record kept elsewhere in the content folder, found through a link.
    kept = content / "kept" / linked.name
    kept.parent.mkdir()
    linked.rename(kept)
    linked.symlink_to(kept)
    linked_mode = stat.S_IMODE(kept.stat().st_mode)

    result = run("pin", tree, "--repo", REPO, "--commit", NEXT, "--content", content)

    assert result.code == 0, result.err
    assert NEXT in plain.read_text() and NEXT in kept.read_text()
    assert stat.S_IMODE(plain.stat().st_mode) == 0o640
    assert linked.is_symlink() and linked.resolve() == kept
    assert stat.S_IMODE(kept.stat().st_mode) == linked_mode
    assert _leftovers(content) == []


# --- A kill during a long pin -------------------------------------------------------------

SLOW_DISK = """
import os, pathlib, stat, time
from errdex.util import parallel

# A slow disk: every write to a file goes out in pieces of 512 bytes, a millisecond each,
# so a kill lands in the middle of one. (Path.write_bytes writes the file in place.)
real_write = os.write

def slow_write(fd, data):
    if stat.S_ISREG(os.fstat(fd).st_mode):
        time.sleep(0.001)
        return real_write(fd, bytes(memoryview(data)[:512]))
    return real_write(fd, data)

def slow_write_bytes(self, data):
    with open(self, "wb", buffering=0) as file:
        for start in range(0, len(data), 512):
            time.sleep(0.001)
            file.write(data[start : start + 512])

os.write = slow_write
pathlib.Path.write_bytes = slow_write_bytes
# The records rewritten on every core, as in a large pin, a few at a time.
parallel.PARALLEL_FROM = 2
real_chunks = parallel.chunks
parallel.chunks = lambda count, size=20: real_chunks(count, size)
"""


def _snapshot(content: Path) -> dict[str, tuple[int, int, int]]:
    found = {}
    for entry in os.scandir(content / "errors" / "example" / "disk"):
        try:
            seen = entry.stat(follow_symlinks=False)
        except FileNotFoundError:  # a temporary, gone since the folder was read
            continue
        found[entry.name] = (seen.st_ino, seen.st_mtime_ns, seen.st_size)
    return found


def test_a_pin_killed_at_any_moment_leaves_each_record_old_or_new(  # type: ignore[no-untyped-def]
    run, tmp_path: Path
) -> None:
    tree = _tree(tmp_path, 100)
    original = _content(run, tmp_path, tree, lines=4)
    old = {p.relative_to(original): p.read_bytes() for p in _records(original)}
    done = shutil.copytree(original, tmp_path / "done")
    argv: list[str | Path] = ["pin", tree, "--repo", REPO, "--commit", NEXT, "--no-cache"]
    finished = run(*argv, "--content", done)
    assert finished.code == 0, finished.err
    new = {p.relative_to(done): p.read_bytes() for p in _records(done)}
    assert new.keys() == old.keys() and all(new[k] != old[k] for k in old)

    # Killed as soon as the writing starts, a little later, and once a record has changed.
    moments = [("first write", 0.0), ("first write", 0.25), ("record changed", 0.0)]
    mixed = 0
    for number, (wait_for, after) in enumerate(moments):
        content = shutil.copytree(original, tmp_path / f"killed-{number}")
        start = _snapshot(content)
        pin = _launch(SLOW_DISK, [*argv, "--content", content], start_new_session=True)
        deadline = time.monotonic() + 30
        while pin.poll() is None and time.monotonic() < deadline:
            now = _snapshot(content)
            changed = [name for name in start if now.get(name) != start[name]]
            if (wait_for == "first write" and now != start) or changed:
                break
            time.sleep(0.002)
        time.sleep(after)
        with suppress(ProcessLookupError):  # the whole pin: its workers are in its group
            os.killpg(pin.pid, signal.SIGKILL)
        pin.communicate()

        files, problems = record_files(content)
        assert problems == []
        # What a build reads: the same record files, and no temporary among them.
        assert sorted(p.relative_to(content) for p in files) == sorted(old)
        states = []
        for rel, before in old.items():
            now_bytes = (content / rel).read_bytes()
            assert now_bytes in (before, new[rel]), f"{rel} is neither its old nor its new bytes"
            states.append(now_bytes == new[rel])
        mixed += 0 < sum(states) < len(states) or bool(_leftovers(content))
    # The kills landed while pin was writing, not before it began or after it ended.
    assert mixed >= 2, mixed
