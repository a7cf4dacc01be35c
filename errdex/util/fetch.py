"""HTTP(S) requests held to a deadline: the whole request, not each wait for bytes.

A socket timeout bounds one wait; a server that sends a byte just within it, again and
again, holds a request for as long as it likes (a 60 KB file at a byte every half second
takes eight hours). Here every step of a request waits at most until one moment, given as
a ``time.monotonic()`` value: connecting (each address tried), the TLS handshake, sending,
the status line and headers, each read of the body, and the same again for each redirect.
Once the moment has passed, the step raises ``TimeoutError``, which urllib passes on as it
is or as the reason of a ``URLError``. Looking the host name up is the system's, which
waits as long as it likes: it runs in a thread of its own, given up on at the moment.

Imported only when a site is fetched: a lookup in a folder loads none of this.
"""

from __future__ import annotations

import functools
import http.client
import socket
import ssl
import threading
import time
import urllib.request
from typing import Any


def left(ends: float) -> float:
    """Seconds until ``ends``; ``TimeoutError`` once none are left."""
    seconds = ends - time.monotonic()
    if seconds <= 0:
        raise TimeoutError("the deadline passed")
    return seconds


class _Socket(socket.socket):
    """A TCP socket whose every send and read waits at most until ``ends``."""

    ends: float

    def sendall(self, data: Any, flags: int = 0) -> None:
        self.settimeout(left(self.ends))
        super().sendall(data, flags)

    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
        # What a makefile() reader calls for each read: the status line, headers, body.
        self.settimeout(left(self.ends))
        return super().recv_into(buffer, nbytes, flags)


class _TLSSocket(ssl.SSLSocket):
    """The same over TLS (made by the context's ``wrap_socket``; ``ends`` is set once the
    handshake, bounded by the timeout the TCP socket had, is done)."""

    ends: float | None = None

    def sendall(self, data: Any, flags: int = 0) -> None:
        if self.ends is not None:
            self.settimeout(left(self.ends))
        super().sendall(data, flags)

    def recv_into(self, buffer: Any, nbytes: int | None = None, flags: int = 0) -> int:
        if self.ends is not None:
            self.settimeout(left(self.ends))
        return super().recv_into(buffer, nbytes, flags)


def _connector(ends: float) -> Any:
    """``socket.create_connection`` for ``http.client``, each address tried until ``ends``
    at most, the socket it returns a ``_Socket``."""

    def connect(
        address: tuple[str, int], timeout: object = None, source: tuple[str, int] | None = None
    ) -> _Socket:
        host, port = address
        error: OSError = OSError(f"{host} has no address")
        for family, kind, proto, _name, where in _addresses(host, port, ends):
            sock = _Socket(family, kind, proto)
            sock.ends = ends
            try:
                sock.settimeout(left(ends))
                if source:
                    sock.bind(source)
                sock.connect(where)
                sock.settimeout(left(ends))  # what the TLS handshake gets, in all
                return sock
            except OSError as exc:
                sock.close()
                error = exc
        raise error

    return connect


def _addresses(host: str, port: int, ends: float) -> list[Any]:
    """``socket.getaddrinfo`` of ``host``, given up on at ``ends`` (``TimeoutError``); the
    lookup left behind ends on its own, in a thread nobody waits for."""
    found: list[Any] = []
    failed: list[Exception] = []

    def look_up() -> None:
        try:
            found.extend(socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM))
        except Exception as exc:  # raised here, as the lookup would have raised it
            failed.append(exc)

    lookup = threading.Thread(target=look_up, name="errdex-resolve", daemon=True)
    lookup.start()
    lookup.join(left(ends))
    if lookup.is_alive():
        raise TimeoutError(f"{host} was not looked up within the timeout")
    if failed:
        raise failed[0]
    return found


class _Connection(http.client.HTTPConnection):
    def __init__(self, *args: Any, ends: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = _connector(ends)


class _TLSConnection(http.client.HTTPSConnection):
    def __init__(self, *args: Any, ends: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ends = ends
        self._create_connection = _connector(ends)

    def connect(self) -> None:
        super().connect()
        assert isinstance(self.sock, _TLSSocket)
        self.sock.ends = self.ends


@functools.cache
def _context() -> ssl.SSLContext:
    """The default context (certificates checked), making ``_TLSSocket``s: loaded once."""
    context = ssl.create_default_context()
    context.sslsocket_class = _TLSSocket
    return context


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, ends: float) -> None:
        super().__init__()
        self.ends = ends

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(functools.partial(_Connection, ends=self.ends), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, ends: float) -> None:
        super().__init__(context=_context())
        self.ends = ends

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        connection = functools.partial(_TLSConnection, ends=self.ends)
        return self.do_open(connection, req, context=_context())


def opener(ends: float, *handlers: urllib.request.BaseHandler) -> urllib.request.OpenerDirector:
    """urllib's opener (with ``handlers`` added), every request of which is done by
    ``ends`` (``time.monotonic()``) or raises ``TimeoutError``."""
    return urllib.request.build_opener(_HTTPHandler(ends), _HTTPSHandler(ends), *handlers)
