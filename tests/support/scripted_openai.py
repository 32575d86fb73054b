"""A real OpenAI-compatible HTTP server for tests, answering from a script.

Tests never call a real model API; they start this server and point the real
langchain-openai client at it, so the client's HTTP, streaming and tool-call
parsing run end to end::

    with ScriptedOpenAI([{"content": "hello"},
                         {"tool_calls": [{"name": "search", "arguments": {"q": "x"}}]}]) as llm:
        chat = ChatOpenAI(model=llm.model, base_url=llm.base_url, api_key="test", max_retries=0)
        ...
        assert llm.requests[0]["messages"][-1]["content"] == "..."

``script`` is a list of replies consumed in order (one per completion request) or
a callable ``(request_body: dict) -> reply``. A reply is a dict:

- ``{"content": str}`` — an assistant message (a bare ``str`` is accepted too);
- ``{"tool_calls": [{"name": str, "arguments": dict}, ...]}`` plus optional ``"content"``;
- ``{"status": 500}`` (any HTTP status ≥ 400, optional ``"message"``) — an OpenAI-style error;
- ``{"delay": seconds, ...}`` — wait first (a client with a shorter timeout times out),
  then answer with the other keys (empty content when there are none). A client that closes
  its connection during the wait is counted in ``abandoned`` (and gets no answer).

Like llama-cpp-python's server (``refuse_json_schema=True``): a request asking for
``response_format: {"type": "json_schema"}`` is answered 500 with that server's validation message
("Input should be 'text' or 'json_object'") without consuming the script, and counted in ``refused``;
``refuse_json_object=True`` refuses ``json_object`` the same way (a server that takes no response format).
Slow replies are ``{"delay": …}``; another tool-call dialect is text content (``tool_code`` fences,
``<tool_call>`` JSON) that the script writes.

Optional keys: ``"finish_reason"`` overrides the computed one. An exhausted list
answers 500 ``script exhausted``. Note that the OpenAI client retries 5xx and
timeouts ``max_retries`` times, and each retry consumes a reply.

``POST /v1/embeddings`` answers every input with a deterministic unit vector of its text
(:func:`scripted_vector`, ``dimensions`` from the request, else ``embedding_dims``), after
``embedding_delay`` seconds; ``embedding_requests`` records each request's inputs and
``max_embeddings_in_flight`` how many were answered at once (a client's concurrency).

Image input (a vision request): a user message's ``content`` may be a list of parts
(``{"type": "text", …}``, ``{"type": "image_url", "image_url": {"url": "data:image/png;base64,…"}}``);
it is recorded as sent, and :func:`image_urls` lists a request's image URLs.

Served: ``POST /v1/chat/completions`` (plain JSON, or ``stream: true`` as SSE with
content and tool-call deltas and a final usage chunk when
``stream_options.include_usage``), ``GET /v1/models``. Every completion carries
``usage`` with tokens counted as ``len(text) // 4``.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import select
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = dict[str, Any] | str
Script = list[Reply] | Callable[[dict[str, Any]], Reply]


def count_tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


class ScriptedOpenAI:
    """``with ScriptedOpenAI(script) as llm:`` — ``llm.base_url``, ``llm.requests``, ``llm.model``."""

    def __init__(self, script: Script, model: str = "scripted", *, chunk_chars: int = 8,
                 embedding_dims: int = 8, embedding_delay: float = 0.0, refuse_json_schema: bool = False,
                 refuse_json_object: bool = False):
        self.model = model
        self.refuse_formats = {f for f, no in (("json_schema", refuse_json_schema),
                                               ("json_object", refuse_json_object)) if no}
        self.refused = 0  # requests refused for their response_format
        self.embedding_dims = embedding_dims
        self.embedding_delay = embedding_delay
        self.embedding_requests: list[list[str]] = []
        self.max_embeddings_in_flight = 0
        self.abandoned = 0  # delayed requests whose client hung up before the answer
        self._in_flight = 0
        self.requests: list[dict[str, Any]] = []
        self.chunk_chars = chunk_chars
        self._script = script
        self._queue = list(script) if not callable(script) else []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._ids = itertools.count(1)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle --------------------------------------------------------------------------

    def start(self) -> ScriptedOpenAI:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="scripted-openai", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._closing.set()  # wakes handlers sleeping on a "delay"
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None

    def __enter__(self) -> ScriptedOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def port(self) -> int:
        assert self._server is not None, "the server is not running"
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def remaining(self) -> int:
        """Replies of a list script not consumed yet."""
        with self._lock:
            return len(self._queue)

    def chat_config(self, **overrides: Any) -> dict[str, Any]:
        """Keyword arguments for ``dropqa.config.ChatModelSettings`` pointing at this server."""
        return {"model": self.model, "base_url": self.base_url, "api_key": "test-key",
                "timeout_s": 10.0, "max_retries": 0, **overrides}

    # --- replies ----------------------------------------------------------------------------

    def next_reply(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.requests.append(body)
            if callable(self._script):
                reply: Reply | None = None
            elif self._queue:
                reply = self._queue.pop(0)
            else:
                return {"status": 500, "message": "ScriptedOpenAI: script exhausted"}
        if reply is None:
            reply = self._script(body)  # type: ignore[operator]
        return {"content": reply} if isinstance(reply, str) else dict(reply)

    def embed(self, inputs: list[str], dims: int) -> list[list[float]]:
        with self._lock:
            self.embedding_requests.append(inputs)
            self._in_flight += 1
            self.max_embeddings_in_flight = max(self.max_embeddings_in_flight, self._in_flight)
        try:
            if self.embedding_delay:
                self.wait(self.embedding_delay)
            return [scripted_vector(t, dims) for t in inputs]
        finally:
            with self._lock:
                self._in_flight -= 1

    def wait(self, seconds: float) -> None:
        self._closing.wait(seconds)

    def new_id(self, prefix: str) -> str:
        return f"{prefix}-{next(self._ids)}"


def _make_handler(llm: ScriptedOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        server_llm = llm

    return Handler


class _Handler(BaseHTTPRequestHandler):
    server_llm: ScriptedOpenAI
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def _wait_for_client(self, seconds: float) -> bool:
        """Wait ``seconds`` (or until the server closes); False as soon as the client hangs up."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0 and not self.server_llm._closing.is_set():
            readable, _, _ = select.select([self.connection], [], [], min(0.05, left))
            if readable and self.connection.recv(1, socket.MSG_PEEK) == b"":
                return False
        return True

    # --- routing ----------------------------------------------------------------------------

    def do_GET(self) -> None:
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            llm = self.server_llm
            self._json(200, {"object": "list", "data": [
                {"id": llm.model, "object": "model", "created": 0, "owned_by": "scripted"}]})
        else:
            self._error(404, f"no route GET {self.path}")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.path.rstrip("/") in ("/v1/embeddings", "/embeddings"):
            self._embeddings(json.loads(raw or b"{}"))
            return
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._error(404, f"no route POST {self.path}")
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError as exc:
            self._error(400, f"invalid JSON: {exc}")
            return
        llm = self.server_llm
        asked = (body.get("response_format") or {}).get("type")
        if asked in llm.refuse_formats:
            with llm._lock:
                llm.requests.append(body)
                llm.refused += 1
            allowed = " or ".join(f"'{f}'" for f in ("text", "json_object", "json_schema")
                                  if f not in llm.refuse_formats)
            detail = [{"type": "literal_error", "loc": ["body", "response_format", "type"],
                       "msg": f"Input should be {allowed}", "input": asked}]
            self._error(500, json.dumps(detail))
            return
        try:
            reply = llm.next_reply(body)
        except Exception as exc:  # a broken callable script: tell the test through the client
            self._error(500, f"ScriptedOpenAI: the script raised {type(exc).__name__}: {exc}")
            return
        if reply.get("delay") and not self._wait_for_client(float(reply["delay"])):
            with llm._lock:
                llm.abandoned += 1
            return
        try:
            if int(reply.get("status", 200)) >= 400:
                self._error(int(reply["status"]), str(reply.get("message") or "scripted server error"))
            elif body.get("stream"):
                self._stream(body, reply)
            else:
                self._json(200, self._completion(body, reply))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test): nothing to answer

    def _embeddings(self, body: dict[str, Any]) -> None:
        llm = self.server_llm
        inputs = body.get("input")
        inputs = [inputs] if isinstance(inputs, str) else list(inputs or [])
        vectors = llm.embed([str(t) for t in inputs], int(body.get("dimensions") or llm.embedding_dims))
        as_b64 = body.get("encoding_format") == "base64"
        data = [{"object": "embedding", "index": i,
                 "embedding": base64.b64encode(struct.pack(f"<{len(v)}f", *v)).decode() if as_b64 else v}
                for i, v in enumerate(vectors)]
        self._json(200, {"object": "list", "data": data, "model": body.get("model") or llm.model,
                         "usage": {"prompt_tokens": sum(count_tokens(str(t)) for t in inputs),
                                   "total_tokens": sum(count_tokens(str(t)) for t in inputs)}})

    # --- responses --------------------------------------------------------------------------

    def _send(self, status: int, payload: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _json(self, status: int, data: dict[str, Any]) -> None:
        self._send(status, json.dumps(data, ensure_ascii=False).encode("utf-8"), "application/json")

    def _error(self, status: int, message: str) -> None:
        kind = "server_error" if status >= 500 else "invalid_request_error"
        self._json(status, {"error": {"message": message, "type": kind, "param": None, "code": None}})

    def _completion(self, body: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        llm = self.server_llm
        content, calls = _content(reply), _tool_calls(reply, llm)
        message: dict[str, Any] = {"role": "assistant", "content": content if (content or not calls) else None}
        if calls:
            message["tool_calls"] = calls
        return {
            "id": llm.new_id("chatcmpl"), "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model") or llm.model, "system_fingerprint": "scripted",
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": _finish_reason(reply, calls)}],
            "usage": _usage(body, content, calls),
        }

    def _stream(self, body: dict[str, Any], reply: dict[str, Any]) -> None:
        llm = self.server_llm
        content, calls = _content(reply), _tool_calls(reply, llm)
        base = {"id": llm.new_id("chatcmpl"), "object": "chat.completion.chunk", "created": int(time.time()),
                "model": body.get("model") or llm.model, "system_fingerprint": "scripted"}
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

        def chunk(delta: dict[str, Any], finish: str | None = None) -> None:
            event = {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
            self._event(event)

        chunk({"role": "assistant", "content": ""})
        for piece in _pieces(content, llm.chunk_chars):
            chunk({"content": piece})
        for index, call in enumerate(calls):
            fn = call["function"]
            chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                   "function": {"name": fn["name"], "arguments": ""}}]})
            for piece in _pieces(fn["arguments"], max(1, len(fn["arguments"]) // 2 + 1)):
                chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
        chunk({}, _finish_reason(reply, calls))
        if (body.get("stream_options") or {}).get("include_usage"):
            self._event({**base, "choices": [], "usage": _usage(body, content, calls)})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def _event(self, data: dict[str, Any]) -> None:
        self.wfile.write(b"data: " + json.dumps(data, ensure_ascii=False).encode("utf-8") + b"\n\n")
        self.wfile.flush()


def image_urls(body: dict[str, Any]) -> list[str]:
    """The URLs of every ``image_url`` content part in a recorded request, in order."""
    urls = []
    for message in body.get("messages", []):
        parts = message.get("content")
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, dict) and part.get("type") == "image_url":
                url = part.get("image_url")
                urls.append(str(url.get("url") if isinstance(url, dict) else url))
    return urls


def text_parts(body: dict[str, Any]) -> str:
    """The text of a recorded request's messages (plain content and ``text`` parts), joined."""
    texts = []
    for message in body.get("messages", []):
        parts = message.get("content")
        if isinstance(parts, str):
            texts.append(parts)
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, dict) and part.get("type") == "text":
                texts.append(str(part.get("text", "")))
    return "\n".join(texts)


def _content(reply: dict[str, Any]) -> str:
    return str(reply.get("content") or "")


def _tool_calls(reply: dict[str, Any], llm: ScriptedOpenAI) -> list[dict[str, Any]]:
    calls = []
    for call in reply.get("tool_calls") or []:
        args = call.get("arguments", {})
        calls.append({
            "id": call.get("id") or llm.new_id("call"),
            "type": "function",
            "function": {"name": call["name"],
                         "arguments": args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)},
        })
    return calls


def _finish_reason(reply: dict[str, Any], calls: list[dict[str, Any]]) -> str:
    return str(reply.get("finish_reason") or ("tool_calls" if calls else "stop"))


def _usage(body: dict[str, Any], content: str, calls: list[dict[str, Any]]) -> dict[str, int]:
    prompt = count_tokens(json.dumps(body.get("messages", []), ensure_ascii=False))
    completion = count_tokens(content + "".join(c["function"]["name"] + c["function"]["arguments"] for c in calls))
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _pieces(text: str, size: int) -> Iterator[str]:
    for i in range(0, len(text), max(1, size)):
        yield text[i : i + size]


def scripted_vector(text: str, dims: int) -> list[float]:
    """A deterministic unit vector for ``text`` (the same text always gets the same vector)."""
    seed = hashlib.sha256(text.encode("utf-8")).digest()
    raw = [(seed[i % len(seed)] + 1) * (1 + i // len(seed)) for i in range(dims)]
    norm = sum(x * x for x in raw) ** 0.5
    return [x / norm for x in raw]


def services_using(services: Any, llm: ScriptedOpenAI) -> Any:
    """``services`` answering with ``llm`` as their only chat model (no retries, a 5 s timeout) over the same store
    and embedder: a module's indexed corpus asked through langchain-openai's own client."""
    from dropqa.config import ChatModelSettings
    from dropqa.services import Services

    chat = ChatModelSettings(model=llm.model, base_url=llm.base_url, api_key="test", max_retries=0, timeout_s=5)
    settings = services.settings.model_copy(update={
        "models": services.settings.models.model_copy(update={"chat": chat, "fallbacks": []})})
    return Services(settings=settings, db=services.db, embedder=services.embedder)
