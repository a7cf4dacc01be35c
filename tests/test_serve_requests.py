"""serve against what a user can point it at and what a client can send: a folder errdex
did not build, requests a browser would never send, addresses other than its own, and
content that moves while it serves."""

from __future__ import annotations

import json
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import MINIMAL, ROOT, ctrl_c_stops, make_content
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_output_folder import MARKER

# --- serve ---------------------------------------------------------------------------


@dataclass
class Served:
    process: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)
    started: threading.Event = field(default_factory=threading.Event)

    @property
    def err(self) -> str:
        return "".join(self.lines)

    @property
    def port(self) -> int:
        assert self.started.wait(120), "serve did not start"
        for line in self.lines:
            if "errdex: serving" in line:
                return int(line.split(" at ")[1].split()[0].rstrip("/").rsplit(":", 1)[1])
        raise AssertionError(f"serve did not start:\n{self.err}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _start(cwd: Path, content: Path, out: Path, *extra: str) -> Served:
    process = subprocess.Popen(
        [
            *(sys.executable, str(ROOT / "build.py"), "serve", "--port", "0", "--no-cache"),
            *("--content", str(content), "--out", str(out), *extra),
        ],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_stops,
    )
    served = Served(process)

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            served.lines.append(line)
            if "errdex: serving" in line:
                served.started.set()
        served.started.set()

    threading.Thread(target=read, daemon=True).start()
    return served


@pytest.fixture
def serving(tmp_path: Path) -> Iterator[Callable[..., Served]]:
    started: list[Served] = []

    def start(content: Path, *extra: str, out: Path | None = None) -> Served:
        served = _start(tmp_path, content, out or tmp_path / "served", *extra)
        started.append(served)
        return served

    yield start
    for served in started:
        served.stop()
        assert "Traceback" not in served.err, served.err


def http(port: int, target: str | bytes, host: str | None = None) -> tuple[int, bytes]:
    """Send one GET as raw bytes (nothing checked or escaped on the way); the status and
    the body. Status 0 when the server answered nothing."""
    raw = target.encode("latin-1") if isinstance(target, str) else target
    head = b"GET " + raw + b" HTTP/1.1\r\n"
    head += f"Host: {host if host is not None else f'127.0.0.1:{port}'}\r\n".encode()
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        sock.sendall(head + b"Connection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status_line, _, rest = data.partition(b"\r\n")
    parts = status_line.split()
    status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
    return status, rest.partition(b"\r\n\r\n")[2]


def wait_for(what: Callable[[], bool], seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if what():
            return True
        time.sleep(0.05)
    return False


# --- serve shows only a folder errdex built (item 1) ---------------------------------------


@pytest.mark.parametrize("where", ["a home folder", "the root"])
def test_serve_refuses_a_folder_it_did_not_build_and_never_listens(
    where: str,
    tmp_path: Path,
    content: Path,
) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    out = home if where == "a home folder" else Path("/")
    served = _start(tmp_path, content, out)
    try:
        code = served.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        served.stop()
        pytest.fail(f"serve went on serving {out}:\n{served.err}")
    served.started.wait(10)
    assert code == 1
    assert "[E500]" in served.err and "errdex: serving" not in served.err
    assert "Traceback" not in served.err
    assert (home / ".ssh" / "id_rsa").read_text().startswith("-----BEGIN")


def test_serve_started_on_content_that_does_not_build_says_so_and_stops(
    tmp_path: Path, content: Path, serving
) -> None:  # type: ignore[no-untyped-def]
    """Before its first good build serve has no site to go on serving: it says the site
    was not built (not that the last good one is served), links the codes' published
    pages (no local one answers), and stops with status 1."""
    broken = next((content / "errors").rglob("*.yaml"))
    broken.write_text(broken.read_text() + "related: [\n")
    served = serving(content)
    assert served.process.wait(timeout=60) == 1
    served.started.wait(10)
    assert f"{broken.name}:" in served.err and "[E101]" in served.err
    assert "errdex: the site was not built\n" in served.err
    assert "the last good one is served" not in served.err
    assert "errdex: what the codes mean: http://127.0.0.1" not in served.err
    assert "nothing to serve" in served.err


def test_serve_shows_nothing_outside_the_site(tmp_path: Path, content: Path, serving) -> None:  # type: ignore[no-untyped-def]
    secret = tmp_path / "private"
    secret.mkdir()
    (secret / "key.txt").write_text("TOP-SECRET")
    served = serving(content, "--no-watch")
    port = served.port
    (tmp_path / "served" / "leak").symlink_to(secret, target_is_directory=True)
    status, body = http(port, "/leak/key.txt")
    assert status == 404 and b"TOP-SECRET" not in body
    status, body = http(port, "/api/errors/")  # a folder without an index.html
    assert status == 404 and b"Directory listing" not in body
    assert http(port, "/")[0] == 200


def test_serve_answers_only_files_the_build_wrote(
    tmp_path: Path,
    content: Path,
    serving,  # type: ignore[no-untyped-def]
) -> None:
    served = serving(content, "--no-watch")
    port = served.port
    site = tmp_path / "served"
    page = next(site.glob("errors/*/index.html")).parent.name
    (site / "secret.txt").write_text("TOP-SECRET")  # put there after the build
    (site / "errors" / "notes").mkdir()
    (site / "errors" / "notes" / "index.html").write_text("TOP-SECRET")
    for target in ("/secret.txt", "/errors/notes/", "/errors/notes/index.html"):
        status, body = http(port, target)
        assert status == 404 and b"TOP-SECRET" not in body, target
    assert http(port, "/")[0] == 200
    assert http(port, f"/errors/{page}/")[0] == 200
    assert http(port, f"/errors/{page}")[0] in (200, 301)


@pytest.mark.parametrize("host", ["cloudflare", "github-pages"])
def test_serve_answers_the_extension_less_json_address_as_the_host_would(
    tmp_path: Path,
    host: str,
    serving,  # type: ignore[no-untyped-def]
) -> None:
    """With a host whose rule serves /api/errors/<id> from <id>.json (no copy written),
    serve follows the same rule; with one that needs the copy, it serves the copy."""
    site_yaml = (
        "title: Test errors\nbase_url: https://errors.example.test/\n"
        f"repository: example/site\nhost: {host}\n"
    )
    content = make_content(tmp_path, {"a.yaml": MINIMAL}, site=site_yaml)
    served = serving(content, "--no-watch")
    port = served.port
    (record_id,) = [p.name for p in (tmp_path / "served" / "errors").iterdir() if p.is_dir()]
    copied = (tmp_path / "served" / "api" / "errors" / record_id).exists()
    assert copied == (host == "github-pages")
    status, document = http(port, f"/api/errors/{record_id}.json")
    assert status == 200 and json.loads(document)["id"] == record_id
    assert http(port, f"/api/errors/{record_id}") == (200, document)
    assert http(port, f"/api/errors/{record_id}?pretty=1") == (200, document)
    assert http(port, "/api/errors/0000000000000000")[0] == 404


def test_serve_refuses_a_folder_whose_marker_lists_nothing(
    tmp_path: Path,
    content: Path,
) -> None:
    # An empty .errdex-site beside a private key is no site errdex built.
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE")
    (home / MARKER).write_text("")
    served = _start(tmp_path, content, home)
    try:
        code = served.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        served.stop()
        pytest.fail(f"serve went on serving {home}:\n{served.err}")
    served.started.wait(10)
    assert code == 1
    assert "errdex: serving" not in served.err and "Traceback" not in served.err


def test_serve_refuses_a_host_port_in_other_digits(
    tmp_path: Path,
    content: Path,
    serving,  # type: ignore[no-untyped-def]
) -> None:
    port = serving(content, "--no-watch").port
    for host in ("localhost:\xb2", "localhost:\u0663"):
        assert http(port, "/", host)[0] == 400, host


def test_serve_answers_only_requests_addressed_to_it(
    tmp_path: Path, content: Path, serving
) -> None:  # type: ignore[no-untyped-def]
    port = serving(content, "--no-watch").port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"LOCALHOST:{port}"):
        assert http(port, "/", host)[0] == 200, host
    # A page of another site whose name was made to lead here (DNS rebinding) gets nothing.
    for host in (f"attacker.example:{port}", "attacker.example", f"localhost:{port + 1}", ""):
        status, body = http(port, "/api/errors.json", host)
        assert status == 400, host
        assert b'"errors"' not in body


def test_serve_warns_loudly_when_it_listens_on_every_address(
    tmp_path: Path,
    content: Path,
    serving,  # type: ignore[no-untyped-def]
) -> None:
    served = serving(content, "--no-watch", "--host", "0.0.0.0")
    port = served.port
    warnings = [line for line in served.lines if "WARNING" in line]
    assert len(warnings) >= 2
    assert "every network" in "".join(warnings) and f"port {port}" in "".join(warnings)
    assert http(port, "/")[0] == 200


def test_serve_quiet_on_this_machine_only(tmp_path: Path, content: Path, serving) -> None:  # type: ignore[no-untyped-def]
    served = serving(content, "--no-watch")
    assert served.port
    assert "WARNING" not in served.err


# --- Odd request paths (item 20) -------------------------------------------------------

ODD_PATHS = [
    "/api/errors/%00",
    "/%00",
    "/index.html%00.json",
    "/errors/%0a/",
    "/%7f",
    "/" + "a" * 5000,
    "/" + "a/" * 3000,
    "/../../../etc/passwd",
    "/errors/../../../etc/passwd",
    "/%2e%2e/%2e%2e/etc/passwd",
    "/errors%2f..%2f..%2fetc%2fpasswd",
    "/errors%5c..%5cetc",
    "/..%5c..%5cetc%5cpasswd",
    "/%c0%ae%c0%ae/etc/passwd",
    "/%ff",
    "/%",
    "/%zz",
    "//etc/passwd",
    "http://attacker.example/",
    "*",
    "/\\..\\etc\\passwd",
]


def test_odd_request_paths_get_a_4xx_and_no_traceback(
    tmp_path: Path,
    content: Path,
    serving,  # type: ignore[no-untyped-def]
) -> None:
    served = serving(content, "--no-watch")
    port = served.port
    for target in ODD_PATHS:
        status, body = http(port, target)
        assert 400 <= status < 500, (target[:80], status)
        assert b"root:" not in body
    assert http(port, "/")[0] == 200  # still serving
    served.stop()
    assert "Traceback" not in served.err, served.err


@pytest.fixture(scope="module")
def one_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, Path]]:
    root = tmp_path_factory.mktemp("served")
    content = make_content(root, {"a.yaml": MINIMAL})
    (root / "secret.txt").write_text("TOP-SECRET")
    served = _start(root, content, root / "site", "--no-watch")
    assert served.port
    yield served, root
    served.stop()


_PIECES = st.one_of(
    st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=8),
    st.sampled_from(
        [
            *("/", "..", ".", "%00", "%2f", "%2F", "%5c", "%2e", "%ff", "%c0%af", "%0a", "%25"),
            *("secret.txt", "index.html", "api", "errors", "//", "\\", "?", "#", "%", "~"),
        ]
    ),
)


@settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(pieces=st.lists(_PIECES, max_size=12))
def test_any_request_path_gets_an_answer_below_500_and_nothing_outside(
    one_server: tuple[Served, Path], pieces: list[str]
) -> None:
    served, _ = one_server
    status, body = http(served.port, "/" + "".join(pieces))
    assert 200 <= status < 500
    assert b"TOP-SECRET" not in body
    assert "Traceback" not in served.err and "request failed" not in served.err


# --- serve keeps watching (items 19 and 21) --------------------------------------------


def _titles(port: int) -> str:
    status, body = http(port, "/api/errors.json")
    return body.decode() if status == 200 else ""


def test_serve_keeps_watching_a_content_folder_deleted_and_made_again(
    tmp_path: Path,
    content: Path,
    serving,  # type: ignore[no-untyped-def]
) -> None:
    port = serving(content).port
    copy = tmp_path / "checkout"
    shutil.copytree(content, copy)
    (copy / "errors" / "a.yaml").write_text(MINIMAL + "title: From the other branch\n")
    shutil.rmtree(content)  # rm -rf content && cp -r …
    time.sleep(0.5)
    shutil.copytree(copy, content)
    assert wait_for(lambda: "From the other branch" in _titles(port)), "not rebuilt"
    record = content / "errors" / "a.yaml"
    record.write_text(MINIMAL + "title: Edited after that\n")
    assert wait_for(lambda: "Edited after that" in _titles(port)), "no longer watched"


def test_an_edit_saved_during_the_first_build_is_built(tmp_path: Path, serving) -> None:  # type: ignore[no-untyped-def]
    from benchmarks.corpus import generate, write_content

    content = tmp_path / "content"
    write_content(content, generate(300, seed=5))
    served = serving(content)
    # The first build has read every record once it stages its output: edit one then.
    assert wait_for(lambda: any(tmp_path.glob(".served.new-*")), 120), served.err
    record = sorted((content / "errors").rglob("*.yaml"))[0]
    record.write_text(record.read_text() + "title: Saved while serve started\n")
    port = served.port
    assert wait_for(lambda: "Saved while serve started" in _titles(port), 60), served.err


def _first_event(port: int, target: str, seconds: float) -> str:
    """The name of the first event the stream at ``target`` sends within ``seconds``,
    or "" when it sends none."""
    with socket.create_connection(("127.0.0.1", port), timeout=seconds) as sock:
        sock.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        data = b""
        try:
            while b"event: " not in data or not data.endswith(b"\n\n"):
                chunk = sock.recv(4096)
                if not chunk:
                    break
                data += chunk
        except TimeoutError:
            return ""
    found = re.search(rb"event: (\w+)", data)
    return found.group(1).decode() if found else ""


def test_a_page_sent_before_a_rebuild_reloads_though_its_stream_connects_after(
    content: Path,
    serving,  # type: ignore[no-untyped-def]
) -> None:
    """A second save while the browser reloads after the first: the rebuild may end
    before the reloaded page's event stream connects, and the page must still learn of
    it, not show the first save until the next one."""
    port = serving(content).port
    (entry, *_) = json.loads(_titles(port))["errors"]
    status, page = http(port, f"/errors/{entry['id']}/")
    assert status == 200
    found = re.search(rb'reload\.js" data-build=(\d+)>', page)
    assert found, page[-300:]
    built = found.group(1).decode()
    assert _first_event(port, f"/__errdex/events?since={built}", 1) == ""  # up to date

    (content / "errors" / "a.yaml").write_text(MINIMAL + "title: Saved again\n")
    assert wait_for(lambda: "Saved again" in _titles(port)), "not rebuilt"
    assert _first_event(port, f"/__errdex/events?since={built}", 5) == "reload"
