"""Serve a built site on localhost, rebuild it when its sources change, reload the browser.

The live-reload script and its event stream exist only in what this server sends: the
files it serves from (and every ``build``) never contain them.
"""

from __future__ import annotations

import functools
import http.server
import json
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

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
  var events = new EventSource("/__errdex/events");
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


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {  # noqa: RUF012 (the base class declares it as a plain attribute)
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        "": "application/json",  # /api/errors/<id>, the extension-less JSON mirror
        ".json": "application/json",
        ".js": "text/javascript",
    }
    status: Status | None = None

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if self.status is not None and path == RELOAD_PATH:
            self._send(200, "text/javascript", _RELOAD_JS)
        elif self.status is not None and path == EVENTS_PATH:
            self._events(self.status)
        elif self.status is not None and self._html_path(path):
            self._html(path)
        else:
            super().do_GET()

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
        body = target.read_bytes().replace(
            b"</body>", f'<script src="{RELOAD_PATH}"></script>\n</body>'.encode(), 1
        )
        self._send(200, "text/html; charset=utf-8", body)

    def _events(self, status: Status) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        seen = status.generation
        try:
            if status.problems:
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


def _moved_on(status: Status, seen: int) -> bool:
    return status.generation != seen


def serve(
    root: Path,
    host: str,
    port: int,
    build: Callable[[str], list[str]],
    watch: Iterable[Path] = (),
) -> int:
    """Listen, build for the address we got (so canonical and 404 links point here), serve.

    ``build`` returns the problems of a failed build (empty when it worked); with
    ``watch``, every change there rebuilds, and open pages reload or show the problems.
    """
    status = Status()
    handler = functools.partial(
        type("Handler", (_Handler,), {"status": status if watch else None}),
        directory=str(root),
    )
    with http.server.ThreadingHTTPServer((host, port), handler) as server:
        server.daemon_threads = True
        shown_host = f"[{host}]" if ":" in host else host
        url = f"http://{shown_host}:{server.server_port}/"
        problems = build(url)
        if problems and not root.is_dir():
            return 1
        status.publish(problems)
        stop = threading.Event()
        if watch:
            threading.Thread(
                target=_watch, args=(list(watch), url, build, status, stop), daemon=True
            ).start()
        print(f"errdex: serving {root}/ at {url} (Ctrl-C stops)", file=sys.stderr, flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("errdex: stopped", file=sys.stderr)
        finally:
            stop.set()
    return 0


def _watch(
    folders: list[Path],
    url: str,
    build: Callable[[str], list[str]],
    status: Status,
    stop: threading.Event,
) -> None:
    from watchfiles import watch

    existing = [str(f) for f in folders if f.exists()]
    for changes in watch(*existing, stop_event=stop, debounce=150, step=50):
        names = sorted({Path(path).name for _, path in changes})
        print(f"errdex: changed: {', '.join(names)}; rebuilding", file=sys.stderr, flush=True)
        status.publish(build(url))
