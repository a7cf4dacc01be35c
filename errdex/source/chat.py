"""One question to a language model over the OpenAI chat-completions protocol, answered
as one JSON object: what ``errdex draft`` asks of OpenAI, a local vLLM or llama.cpp
server, Ollama or a LiteLLM proxy.

Structured output is asked for the way the server takes it: ``response_format`` of type
``json_schema`` (OpenAI, vLLM), else ``json_object`` with the schema beside it (the
llama.cpp server refuses ``json_schema`` but takes this), else a plain request that says
to answer in JSON; the first way a server accepts is kept for the run. An answer that is
not a JSON object is asked for once more, with the parse error.

Rate limits (429, waited out as ``Retry-After`` says), 5xx answers, time-outs and
unreachable servers are tried again after 1, 2, 4 … seconds, all within one budget of
waiting for the whole run (``max_wait``); every request has its own time-out. The API
key is given to the client and never appears in a message this module makes.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TIMEOUT = 120.0
"""Seconds one request may take (a small model on a CPU answers in seconds; a big one
behind a busy proxy in a minute or two)."""
MAX_WAIT = 300.0
"""Seconds of waiting (rate limits and retries) one run may spend in all."""
MODES = ("json_schema", "json_object", "plain")


class ChatError(Exception):
    """The server did not answer with a usable JSON object; the message says why."""


class Unusable(ChatError):
    """The server answered, twice, with what is not one JSON object: the model's fault,
    not the server's; ``text`` is its last answer."""

    def __init__(self, message: str, text: str, prompt: int, answer: int) -> None:
        super().__init__(message)
        self.text = text
        self.prompt_tokens = prompt
        self.answer_tokens = answer


class _FormatRefused(Exception):
    """The server refused the way of asking for JSON, not the question."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(str(cause))
        self.cause = cause


class Missing(Exception):
    """The ``openai`` package is not installed."""


@dataclass(frozen=True, slots=True)
class Answer:
    data: dict[str, Any]
    """The JSON object the model answered."""
    text: str
    """The answer as the model wrote it."""
    prompt_tokens: int
    answer_tokens: int


class Budget:
    """Seconds of waiting left for the whole run, shared by every request in flight."""

    def __init__(self, seconds: float, pause: Callable[[float], None] = time.sleep) -> None:
        self.left = seconds
        self.pause = pause
        self._lock = threading.Lock()

    def wait(self, seconds: float) -> bool:
        """Wait ``seconds`` if the budget allows it; False (and no wait) if it does not."""
        with self._lock:
            if seconds > self.left:
                return False
            self.left -= seconds
        self.pause(seconds)
        return True


class Chat:
    """A client of one server and model, for many questions from many threads."""

    def __init__(
        self,
        base_url: str | None,
        api_key: str | None,
        model: str,
        timeout: float = TIMEOUT,
        budget: Budget | None = None,
        max_tokens: int = 2000,
    ) -> None:
        try:
            import openai
        except ImportError:
            raise Missing(
                "errdex draft needs the openai package: pip install 'errdex[draft]'"
            ) from None
        self._openai = openai
        self._key = api_key or ""
        # The client's own retries would wait outside the run's budget: ours do it.
        self._client = openai.OpenAI(
            base_url=base_url, api_key=api_key or "none", timeout=timeout, max_retries=0
        )
        self.model = model
        self.base_url = base_url or ""
        """The server's address, as given (empty for OpenAI's)."""
        self.budget = budget or Budget(MAX_WAIT)
        self.max_tokens = max_tokens
        self.mode: str | None = None
        """The way of asking for JSON that this server took, once one has."""
        self._mode_lock = threading.Lock()

    def ask(self, messages: Sequence[Mapping[str, str]], schema: Mapping[str, Any]) -> Answer:
        """The model's answer to ``messages``, as a JSON object (not yet checked against
        ``schema``: the caller validates it, with its own messages)."""
        reply = self._complete(messages, schema)
        try:
            return _parsed(reply)
        except ChatError as exc:
            again = [
                *messages,
                {"role": "assistant", "content": reply.text},
                {
                    "role": "user",
                    "content": f"That answer is not valid: {exc}. Answer again with only "
                    "one JSON object of the requested shape.",
                },
            ]
            second = self._complete(again, schema)
            prompt = reply.prompt_tokens + second.prompt_tokens
            answer = reply.answer_tokens + second.answer_tokens
            try:
                return _parsed(second, prompt=prompt, answer=answer)
            except ChatError as again_wrong:
                raise Unusable(str(again_wrong), second.text, prompt, answer) from None

    def _complete(self, messages: Sequence[Mapping[str, str]], schema: Mapping[str, Any]) -> _Reply:
        modes = [self.mode] if self.mode else list(MODES)
        last: Exception | None = None
        for mode in modes:
            try:
                reply = self._send(messages, schema, mode)
            except _FormatRefused as refused:
                last = refused.cause
                continue  # this server takes structured output otherwise
            with self._mode_lock:
                self.mode = self.mode or mode
            return reply
        raise ChatError(self._said(last) if last else "no way of asking for JSON was taken")

    def _send(
        self, messages: Sequence[Mapping[str, str]], schema: Mapping[str, Any], mode: str
    ) -> _Reply:
        openai = self._openai
        extra: dict[str, Any] = {}
        asked = list(messages)
        if mode == "json_schema":
            extra["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "errdex_draft", "schema": dict(schema), "strict": True},
            }
        elif mode == "json_object":
            extra["response_format"] = {"type": "json_object", "schema": dict(schema)}
        else:
            asked.append(
                {
                    "role": "user",
                    "content": "Answer with only one JSON object matching this JSON Schema: "
                    + json.dumps(schema, sort_keys=True),
                }
            )
        delay = 1.0
        while True:
            try:
                completion = self._client.chat.completions.create(
                    model=self.model,
                    messages=asked,  # type: ignore[arg-type]
                    temperature=0.2,
                    max_tokens=self.max_tokens,
                    **extra,
                )
            except openai.RateLimitError as exc:
                wait = _retry_after(exc.response.headers) or delay
                if not self.budget.wait(wait):
                    raise ChatError(
                        f"rate limited; waiting {wait:g} s more is past the budget"
                    ) from None
                delay = min(delay * 2, 60.0)
                continue
            except openai.APIStatusError as exc:
                # A server that takes structured output otherwise says so with a 400 or
                # 422, or (llama.cpp's) a 500 about the request's response_format.
                if mode != "plain" and exc.status_code in (400, 422, 500) and _about_format(exc):
                    raise _FormatRefused(exc) from None
                if not isinstance(exc, openai.InternalServerError):
                    raise ChatError(self._said(exc)) from None
                if not self.budget.wait(delay):
                    raise ChatError(f"{self._said(exc)}; no waiting left to try again") from None
                delay = min(delay * 2, 60.0)
                continue
            except (
                openai.APITimeoutError,
                openai.APIConnectionError,
            ) as exc:
                if not self.budget.wait(delay):
                    raise ChatError(f"{self._said(exc)}; no waiting left to try again") from None
                delay = min(delay * 2, 60.0)
                continue
            except openai.APIError as exc:
                raise ChatError(self._said(exc)) from None
            except (ValueError, RecursionError, UnicodeError) as exc:
                # A body that is not JSON, not UTF-8 or nested past reading (a proxy's
                # HTML page), or a key that cannot go in a header.
                raise ChatError(
                    f"the server's answer cannot be read ({type(exc).__name__})"
                ) from None
            return _reply_of(completion)

    def _said(self, exc: Exception | None) -> str:
        """What went wrong, for a report line: never the key, never a page of HTML."""
        if exc is None:
            return "no answer"
        status = getattr(exc, "status_code", None)
        text = str(getattr(exc, "message", None) or exc)
        text = "".join(c if c.isprintable() else " " for c in " ".join(text.split()))[:300]
        if self._key:
            text = text.replace(self._key, "[key]")
        return f"HTTP {status}: {text}" if status else text


@dataclass(frozen=True, slots=True)
class _Reply:
    text: str
    prompt_tokens: int
    answer_tokens: int


def _reply_of(completion: Any) -> _Reply:
    try:
        text = completion.choices[0].message.content or ""
    except (AttributeError, IndexError, TypeError):
        raise ChatError(
            "the server's answer is not a chat completion (is --base-url the API's "
            "address, such as http://127.0.0.1:8000/v1?)"
        ) from None
    usage = getattr(completion, "usage", None)
    prompt = getattr(usage, "prompt_tokens", 0) or 0
    answer = getattr(usage, "completion_tokens", 0) or 0
    return _Reply(str(text), int(prompt), int(answer))


_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*)\n\s*```\s*$", re.DOTALL)


def _parsed(reply: _Reply, prompt: int | None = None, answer: int | None = None) -> Answer:
    text = reply.text.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        # strict=False: a line break written raw inside a string is read as one.
        data = json.loads(text, strict=False)
    except (json.JSONDecodeError, RecursionError) as exc:
        what = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
        where = (
            f" at line {exc.lineno} column {exc.colno}"
            if isinstance(exc, json.JSONDecodeError)
            else ""
        )
        raise ChatError(f"not JSON ({what}{where})") from None
    if not isinstance(data, dict):
        raise ChatError(f"a JSON {type(data).__name__}, not an object")
    return Answer(
        data,
        reply.text,
        reply.prompt_tokens if prompt is None else prompt,
        reply.answer_tokens if answer is None else answer,
    )


def _about_format(exc: Exception) -> bool:
    text = str(getattr(exc, "message", "") or exc).lower()
    return any(word in text for word in ("response_format", "json_schema", "json_object", "schema"))


def _retry_after(headers: Any) -> float | None:
    """``Retry-After`` in seconds, when it is a plain number of ASCII digits."""
    value = str(headers.get("retry-after", "") if headers is not None else "").strip()
    if re.fullmatch(r"[0-9]{1,6}(\.[0-9]{1,3})?", value, re.ASCII):
        return float(value)
    return None
