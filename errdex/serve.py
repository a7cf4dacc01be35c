"""Serve a built site on localhost, the way a static host would."""

from __future__ import annotations

import functools
import http.server
import sys
from collections.abc import Callable
from pathlib import Path


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {  # noqa: RUF012 (the base class declares it as a plain attribute)
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        "": "application/json",  # /api/errors/<id>, the extension-less JSON mirror
        ".json": "application/json",
        ".js": "text/javascript",
    }

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code == 404 and page.is_file():
            body = page.read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            return
        super().send_error(code, message, explain)

    def log_message(self, format: str, *args: object) -> None:
        pass


def serve(root: Path, host: str, port: int, build: Callable[[str], object]) -> int:
    """Listen, build for the address we got (so canonical and 404 links point here), serve."""
    handler = functools.partial(_Handler, directory=str(root))
    with http.server.ThreadingHTTPServer((host, port), handler) as server:
        shown_host = f"[{host}]" if ":" in host else host
        url = f"http://{shown_host}:{server.server_port}/"
        build(url)
        print(f"errdex: serving {root}/ at {url} (Ctrl-C stops)", file=sys.stderr, flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("errdex: stopped", file=sys.stderr)
    return 0
