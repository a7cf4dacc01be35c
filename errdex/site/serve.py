"""Serve a built site on localhost, rebuild it when its sources change, reload the browser.

The live-reload script and its event stream exist only in what this server sends: the
files it serves from (and every ``build``) never contain them.

It serves only a folder errdex built (one holding its marker), only what lies inside it,
and only to requests addressed to this server by a name a browser cannot be tricked into
using for another site (DNS rebinding).
"""

from __future__ import annotations

import functools
import http.server
import ipaddress
import json
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from errdex.site.write import MARKER, read_marker
from errdex.util import words

RELOAD_PATH = "/__errdex/reload.js"
EVENTS_PATH = "/__errdex/events"

_RELOAD_JS = b"""// errdex serve: reload on rebuild, show build errors over the page.
(function () {
  var box = null;
  function overlay(text) {
    if (!box) {
      box = document.createElement("pre");
      box.id = "errdex-overlay";
      box.setAttribute("role", "alert");
      box.style.cssText = "position:fixed;inset:1rem;z-index:99999;margin:0;padding:1rem;" +
        "overflow:auto;white-space:pre-wrap;font:14px/1.5 ui-monospace,monospace;" +
        "background:#2b0b0b;color:#ffd7d7;border:2px solid #ff6b6b;border-radius:8px";
      document.body.appendChild(box);
    }
    box.textContent = "errdex: the last change does not build; " +
      "this page is the last good one.\\n\\n" + text;
  }
  // The build this page is from: one made since it was sent reloads it at once.
  var built = document.currentScript && document.currentScript.dataset.build;
  var events = new EventSource("/__errdex/events" + (built ? "?since=" + built : ""));
  events.addEventListener("reload", function () { window.location.reload(); });
  events.addEventListener("problems", function (e) { overlay(JSON.parse(e.data).join("\\n")); });
})();
"""


class Status:
    """The latest build, as every open page learns it: a generation number and problems."""

    def __init__(self) -> None:
        self.generation = 0
        self.problems: list[str] = []
        self.changed = threading.Condition()

    def publish(self, problems: list[str]) -> None:
        with self.changed:
            self.generation += 1
            self.problems = problems
            self.changed.notify_all()


JSON_FOLDER = "api/errors/"
"""Where the JSON mirror's documents are, each at ``<id>.json`` and ``<id>``."""

LONGEST_PATH = 2048
"""Longer request targets are refused (414): no address of a site comes near it."""


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {  # noqa: RUF012 (the base class declares it as a plain attribute)
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        "": "application/json",  # /api/errors/<id>, the extension-less JSON mirror
        ".json": "application/json",
        ".js": "text/javascript",
    }
    status: Status | None = None
    hosts: frozenset[str] = frozenset()
    listing: _Listing | None = None
    real_root = ""
    """The served folder with its links resolved, worked out once."""
    """The names requests may be addressed to (lowercase); any IP address may be too."""

    def do_GET(self) -> None:
        self._answer(self._get)

    def do_HEAD(self) -> None:
        self._answer(super().do_HEAD)

    def _answer(self, respond: Callable[[], None]) -> None:
        self.path = self._rewritten(self.path)
        refused = self._refusal()
        if refused is not None:
            self.send_error(*refused)
            return
        try:
            respond()
        except (BrokenPipeError, ConnectionResetError):
            return  # the browser went away
        except (OSError, ValueError):
            # A path the file system will not take (too long, unreadable) is not there.
            self.send_error(404)

    def _refusal(self) -> tuple[int, str | None] | None:
        """Why a request gets no file: addressed to another site, or a target no link
        errdex writes has (a browser never sends NUL, ``..`` or an encoded slash)."""
        if not self._host_allowed():
            return 400, "This server answers only to localhost and its own address"
        if len(self.path) > LONGEST_PATH:
            return 414, "Request target too long"
        raw = self.path.split("?", 1)[0].split("#", 1)[0]
        if not raw.startswith("/") or raw.startswith("//"):
            return 400, "Not a path of this site"
        try:
            path = unquote(raw, errors="strict")
        except UnicodeDecodeError:
            return 400, "Not UTF-8"
        encoded = raw.lower()
        if (
            "%2f" in encoded
            or "%5c" in encoded
            or "\\" in path
            or any(ord(c) < 0x20 or ord(c) == 0x7F for c in path)
            or any(part in (".", "..") for part in path.split("/"))
        ):
            return 400, "Not a path of this site"
        root = self.real_root or os.path.realpath(self.directory)
        local = os.path.realpath(self.translate_path(self.path))
        if local != root and not local.startswith(root + os.sep):
            return 404, None  # a link inside the site that leads out of it
        if path not in (RELOAD_PATH, EVENTS_PATH) and not self._written(path):
            return 404, None  # in the folder, but not a file errdex wrote there
        return None

    def _rewritten(self, target: str) -> str:
        """``/api/errors/<id>`` served from ``<id>.json`` when the site has no copy there,
        as the rule in ``_redirects`` has a host with rewrite rules do (``hosts``)."""
        path, mark, query = target.partition("?")
        rel = path.lstrip("/")
        name = rel.removeprefix(JSON_FOLDER)
        if name == rel or not name or "/" in name or name.endswith(".json"):
            return target
        listed = self.listing.files() if self.listing is not None else None
        if listed is None or rel in listed or f"{rel}.json" not in listed:
            return target
        return f"{path}.json{mark}{query}"

    def _written(self, path: str) -> bool:
        """Whether the build wrote the file ``path`` asks for (a folder asks for its
        index.html): what else lies in the folder is never served."""
        listed = self.listing.files() if self.listing is not None else None
        if listed is None:
            return False
        rel = path.lstrip("/")
        if not rel or rel.endswith("/"):
            rel += "index.html"
        return rel in listed or f"{rel}/index.html" in listed

    def _host_allowed(self) -> bool:
        given = self.headers.get("Host")
        if given is None:
            return True  # DNS rebinding needs a browser, and a browser always sends Host
        parsed = _split_host(given)
        if parsed is None:
            return False
        name, port = parsed
        if (port or 80) != self.connection.getsockname()[1]:
            return False
        return name in self.hosts or _is_address(name)

    def _get(self) -> None:
        path = self.path.split("?", 1)[0]
        if self.status is not None and path == RELOAD_PATH:
            self._send(200, "text/javascript", _RELOAD_JS)
        elif self.status is not None and path == EVENTS_PATH:
            self._events(self.status)
        elif self.status is not None and self._html_path(path):
            self._html(path)
        else:
            super().do_GET()

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        # A static host lists no folder, and neither does this: a folder shows its index.
        self.send_error(404)

    def _html_path(self, path: str) -> Path | None:
        target = Path(self.translate_path(path))
        if target.is_dir():
            if not path.endswith("/"):
                return None  # the base class redirects to the address with a slash
            target = target / "index.html"
        return target if target.suffix == ".html" and target.is_file() else None

    def _html(self, path: str) -> None:
        target = self._html_path(path)
        assert target is not None
        # The page says which build it is from: a rebuild that ends before its event
        # stream connects (a second save while it reloads) still reaches it.
        assert self.status is not None
        script = f'<script src="{RELOAD_PATH}" data-build={self.status.generation}></script>'
        body = target.read_bytes().replace(b"</body>", f"{script}\n</body>".encode(), 1)
        self._send(200, "text/html; charset=utf-8", body)

    def _events(self, status: Status) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        seen = _since(self.path, status.generation)
        try:
            if status.problems and seen == status.generation:
                self._event("problems", status.problems)
            while True:
                with status.changed:
                    status.changed.wait_for(functools.partial(_moved_on, status, seen), timeout=15)
                if status.generation == seen:
                    self.wfile.write(b": still here\n\n")  # keeps proxies from closing it
                    self.wfile.flush()
                    continue
                seen = status.generation
                if status.problems:
                    self._event("problems", status.problems)
                else:
                    self._event("reload", [])
        except (BrokenPipeError, ConnectionResetError):
            return

    def _event(self, name: str, data: list[str]) -> None:
        self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    def _send(self, code: int, kind: str, body: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code == 404 and page.is_file():
            self._send(404, "text/html; charset=utf-8", page.read_bytes())
            return
        super().send_error(code, message, explain)

    def log_message(self, format: str, *args: object) -> None:
        pass


class _Listing:
    """The files the last build wrote, as its marker names them; read again only when
    the marker changes."""

    def __init__(self, root: Path) -> None:
        self.marker = root / MARKER
        self.seen: tuple[int, int, int] | None = None
        self.listed: set[str] | None = None
        self.lock = threading.Lock()

    def files(self) -> set[str] | None:
        try:
            info = self.marker.stat()
        except OSError:
            return None
        key = (info.st_ino, info.st_mtime_ns, info.st_size)
        with self.lock:
            if key != self.seen:
                self.listed, self.seen = read_marker(self.marker.parent), key
            return self.listed


def _split_host(value: str) -> tuple[str, int | None] | None:
    """A Host header's name (lowercase, IPv6 in brackets) and port; None if unreadable."""
    value = value.strip().lower()
    if value.endswith("]") or ":" not in value:
        return value, None
    name, _, port = value.rpartition(":")
    ok = port.isascii() and port.isdigit() and len(port) <= 5  # not "²" or "٣"
    return (name, int(port)) if ok else None


def _is_address(name: str) -> bool:
    """Whether ``name`` is an IP address: no DNS answer can make it another site's."""
    try:
        ipaddress.ip_address(name[1:-1] if name.startswith("[") else name)
    except ValueError:
        return False
    return True


def _everywhere(host: str) -> bool:
    return host in ("", "0.0.0.0", "::")


def _exposure(host: str, port: int) -> str | None:
    """A loud warning when ``host`` lets other machines read the site; None if only this
    machine can."""
    if host.lower() == "localhost":
        return None
    try:
        if ipaddress.ip_address(host).is_loopback:
            return None
    except ValueError:
        pass  # a name: it may stand for any address
    where = "every network this machine is on" if _everywhere(host) else host
    return "\n".join(
        f"errdex: WARNING: {line}"
        for line in (
            f"--host {host or '0.0.0.0'} listens on {where}:",
            f"any machine that can reach this one on port {port} can read this site",
            "and see it rebuild. serve is for your own browser (--host 127.0.0.1, the",
            "default); to share the site, publish the built folder on a static host.",
        )
    )


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # One line, never a traceback: a request that breaks the handler is the request's
        # problem, and the terminal is for build problems.
        error = sys.exc_info()[1]
        if not isinstance(error, ConnectionError):
            print(f"errdex: a request failed: {error!r}", file=sys.stderr, flush=True)


class _Server6(_Server):
    address_family = socket.AF_INET6


def _since(target: str, now: int) -> int:
    """The build the page asking for events is from (``?since=N``), or ``now``."""
    given = parse_qs(urlsplit(target).query).get("since", [""])[0]
    return int(given) if given.isascii() and given.isdigit() and int(given) <= now else now


def _moved_on(status: Status, seen: int) -> bool:
    return status.generation != seen


def serve(
    root: Path,
    host: str,
    port: int,
    build: Callable[[str, list[str]], list[str]],
    watch: Iterable[Path] = (),
    quiet: bool = False,
) -> int:
    """Listen, build for the address we got (so canonical and 404 links point here), serve.

    ``build`` is given the address and the names of the files whose change it builds
    (none for the first build), and returns the problems of a failed build (empty when it
    worked); with ``watch``, every change there rebuilds, and open pages reload or show
    the problems.
    The watch is set before the first build, so an edit saved while it runs is built too.
    Only a folder holding errdex's marker is served.
    """
    status = Status()
    names = {"localhost", host.lower()}
    if _everywhere(host):
        names.add(socket.gethostname().lower())
    handler = functools.partial(
        type(
            "Handler",
            (_Handler,),
            {
                "status": status if watch else None,
                "hosts": frozenset(names),
                "listing": _Listing(root),
                "real_root": os.path.realpath(root),
            },
        ),
        directory=str(root),
    )
    try:
        server = (_Server6 if ":" in host else _Server)((host, port), handler)
    except (OSError, OverflowError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        print(f"errdex: cannot listen on {host} port {port}: {reason}", file=sys.stderr)
        return 1
    stop = threading.Event()
    building = threading.Lock()
    with server:
        shown = host if not _everywhere(host) else ("::1" if ":" in host else "127.0.0.1")
        url = f"http://{f'[{shown}]' if ':' in shown else shown}:{server.server_port}/"

        def rebuild(changed: list[str]) -> None:
            with building:
                status.publish(build(url, changed))

        terminated = _stop_on_term()
        try:  # Ctrl-C (or a SIGTERM: kill, a container stopping) stops it, and says so
            warning = _exposure(host, server.server_port)
            if warning:
                print(warning, file=sys.stderr, flush=True)
            if watch:
                armed = threading.Event()
                threading.Thread(
                    target=_watch, args=(list(watch), rebuild, stop, armed, quiet), daemon=True
                ).start()
                armed.wait(timeout=10)
            rebuild([])
            if read_marker(root) is None:
                print(
                    f"errdex: {root} holds no site errdex built ({MARKER}); nothing to serve",
                    file=sys.stderr,
                )
                return 1
            if not quiet:
                print(
                    f"errdex: serving {root}/ at {url} (Ctrl-C stops)", file=sys.stderr, flush=True
                )
            server.serve_forever()
        except KeyboardInterrupt:
            if not quiet:
                print("errdex: stopped", file=sys.stderr)
        finally:
            stop.set()
            terminated()
    return 0


def _stop_on_term() -> Callable[[], None]:
    """Take SIGTERM as Ctrl-C while serving (in the main thread, where signals are
    handled); returns what puts the old handler back."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, interrupt)

    def restore() -> None:
        signal.signal(signal.SIGTERM, before)

    return restore


WATCH_TICK_MS = 250
"""How often the watch looks whether a watched folder was replaced."""


def _identity(folder: Path) -> tuple[int, int] | None:
    try:
        found = os.stat(folder)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _aside(name: str) -> bool:
    """Whether a file's name is that of one written aside to take another's place."""
    return name.startswith(".") and name.endswith(".tmp")


def _watch(
    folders: list[Path],
    rebuild: Callable[[list[str]], None],
    stop: threading.Event,
    armed: threading.Event,
    quiet: bool = False,
) -> None:
    """Rebuild on every change in ``folders``; ``armed`` is set once the watch is; each
    change is said on standard error unless ``quiet``.

    A folder deleted and made again (``rm -r`` and a copy, some checkouts) is a new folder
    that the old watch no longer sees: it is watched again, then rebuilt from, so what
    was copied into it before the new watch was set counts too."""
    from watchfiles import watch

    replaced = False
    try:
        while not stop.is_set():
            seen = [_identity(f) for f in folders]
            there = [str(f) for f, known in zip(folders, seen, strict=True) if known is not None]
            if not there:
                armed.set()
                stop.wait(WATCH_TICK_MS / 1000)
                replaced = replaced or [_identity(f) for f in folders] != seen
                continue
            changes_seen = watch(
                *there,
                stop_event=stop,
                debounce=150,
                step=50,
                yield_on_timeout=True,
                rust_timeout=WATCH_TICK_MS,
            )
            try:
                for changes in changes_seen:
                    armed.set()  # the first answer comes once the watch is set
                    if [_identity(f) for f in folders] != seen:
                        replaced = True
                        break  # watch what is there now, then rebuild
                    # A file written aside to replace another (``.x.yaml.12-ab.tmp``, as
                    # errdex's commands write) is no change of its own: the file it
                    # replaces is one.
                    names = sorted({n for _, path in changes if not _aside(n := Path(path).name)})
                    if not (names or replaced):
                        continue
                    names = names or ["a folder"]
                    what = words.listed(names) + (" (replaced)" if replaced else "")
                    if not quiet:
                        print(f"errdex: changed: {what}; rebuilding", file=sys.stderr, flush=True)
                    replaced = False
                    rebuild(names)
            finally:
                changes_seen.close()
    except Exception as exc:  # watching is a convenience: serving goes on without it
        print(f"errdex: stopped watching for changes: {exc}", file=sys.stderr, flush=True)
        armed.set()
