"""A fake language model behind a real HTTP server on 127.0.0.1, speaking the OpenAI
chat-completions protocol: for draft's tests and its benchmark, where a real model would
be slow and its answers unforeseeable.

``capable`` answers as a good model would, from the evidence in the prompt alone: the
message, and the ways out derived from the code. Other behaviours answer with what a
weak or hostile model, or a failing server, sends.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

Behaviour = Callable[[dict[str, Any], "Server"], "Reply"]


@dataclass
class Reply:
    status: int = 200
    content: str | None = None
    """The assistant message's text (a 200 answer)."""
    body: bytes | None = None
    """A whole body of one's own, instead."""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    hang: bool = False
    """Send nothing, ever (until the client gives up)."""
    cut: bool = False
    """Close the connection half way through the answer."""


@dataclass
class Server:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def count(self) -> int:
        with self.lock:
            return len(self.requests)


def _user_text(request: dict[str, Any]) -> str:
    return "\n".join(
        str(m.get("content", "")) for m in request.get("messages", []) if m.get("role") == "user"
    )


def _section(text: str, title: str) -> list[str]:
    match = re.search(rf"^## {re.escape(title)}[^\n]*\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return match.group(1).strip().splitlines() if match else []


def capable(request: dict[str, Any], server: Server) -> Reply:
    """A grounded answer, made only of what the prompt shows."""
    text = _user_text(request)
    error = dict(line.split(": ", 1) for line in _section(text, "Error") if ": " in line)
    exception = error.get("Exception", "Exception")
    message = error.get("Message (placeholders in braces)", "the error")
    ways = [line[2:] for line in _section(text, "How to avoid it") if line.startswith("- ")]
    guards = [line[2:] for line in _section(text, "Raised when") if line.startswith("- ")]
    when = " and ".join(guards) if guards else "the check before the raise fails"
    answer = {
        "meaning": f"The code raises `{exception}` when its check of the inputs fails: "
        f"{message.replace('{', '(').replace('}', ')')}",
        "trigger": f"The raise runs when {when}.",
        "situations": "A setting or an argument outside what this code accepts.",
        "solutions": ways or ["Change the value the check refuses."],
        "example_fix": [
            {
                "lang": "python",
                "code": "try:\n    pass\nexcept " + exception + " as error:\n    print(error)\n",
            }
        ],
    }
    return Reply(content=json.dumps(answer))


def slow(seconds: float, then: Behaviour = capable) -> Behaviour:
    def answer(request: dict[str, Any], server: Server) -> Reply:
        reply = then(request, server)
        reply.delay = seconds
        return reply

    return answer


def only_json_object(then: Behaviour = capable, status: int = 500) -> Behaviour:
    """As the llama.cpp server: ``json_schema`` refused (with a 500 naming the request's
    response_format, as it does; others say 400 or 422), ``json_object`` taken."""

    def answer(request: dict[str, Any], server: Server) -> Reply:
        kind = (request.get("response_format") or {}).get("type")
        if kind == "json_schema":
            return Reply(
                status,
                body=json.dumps(
                    {
                        "error": {
                            "message": "response_format type json_schema is not supported",
                            "type": "invalid_request_error",
                        }
                    }
                ).encode(),
            )
        return then(request, server)

    return answer


def sequence(*behaviours: Behaviour) -> Behaviour:
    """Each request answered by the next behaviour; the last one for all after."""
    calls = iter(range(10**9))

    def answer(request: dict[str, Any], server: Server) -> Reply:
        number = next(calls)
        return behaviours[min(number, len(behaviours) - 1)](request, server)

    return answer


def fixed(reply: Reply) -> Behaviour:
    def answer(request: dict[str, Any], server: Server) -> Reply:
        return Reply(**{**reply.__dict__})

    return answer


def content(text: str) -> Behaviour:
    return fixed(Reply(content=text))


def answered(data: dict[str, Any]) -> Behaviour:
    return content(json.dumps(data))


def _completion(text: str, request: dict[str, Any]) -> bytes:
    return json.dumps(
        {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": request.get("model", "fake"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": len(_user_text(request)) // 4,
                "completion_tokens": len(text) // 4,
                "total_tokens": (len(_user_text(request)) + len(text)) // 4,
            },
        }
    ).encode()


@contextlib.contextmanager
def serving(behaviour: Behaviour) -> Iterator[Server]:
    """A fake model on a free localhost port; ``server.url`` is its ``/v1`` address."""
    state = Server("")

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            try:
                request = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                request = {}
            with state.lock:
                state.requests.append(request)
            reply = behaviour(request, state)
            if reply.hang:
                time.sleep(30)
                return
            if reply.delay:
                time.sleep(reply.delay)
            body = (
                reply.body if reply.body is not None else _completion(reply.content or "", request)
            )
            self.send_response(reply.status)
            self.send_header("content-type", "application/json")
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if reply.cut:
                self.send_header("content-length", str(len(body) * 2))
                self.end_headers()
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_port}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
