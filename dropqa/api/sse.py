"""Server-sent events from a synchronous generator, with a terminal event that is always sent.

The graph's ``stream()`` is synchronous (LangGraph runs its nodes in threads and keeps
run state in context variables), so the whole generator runs in ONE dedicated thread
and hands its events to the event loop through a queue: the loop never blocks, and a
client that goes away stops the generator at its next event.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import aclosing
from typing import Any

import anyio
import psycopg

from dropqa.api.load import Overloaded, RunLimiter
from dropqa.errors import CodedError
from dropqa.models.embeddings import EmbedderBusy
from dropqa.store.db import is_connection_error
from dropqa.store.server import DatabaseUnavailable

log = logging.getLogger(__name__)
Event = tuple[str, dict[str, Any]]

# OpenAPI: the schema of one event of a text/event-stream response (``data`` holds JSON).
EVENT_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["data"],
    "properties": {"event": {"type": "string"}, "data": {"type": "string"}, "id": {"type": "string"}},
}


class ShuttingDown(Exception):
    """The server is stopping; the stream ends with an error event."""


async def from_thread(factory: Callable[[], Iterator[Any]], shutdown: anyio.Event | None = None,
                      poll_s: float = 0.25, on_exit: Callable[[], None] | None = None) -> AsyncIterator[Any]:
    """Iterate ``factory()`` in its own thread. Raises what the generator raised, or
    :class:`ShuttingDown` when ``shutdown`` is set first. When the consumer stops (the client left),
    the generator is closed at its next event, which ends the run; ``on_exit`` is called from the
    thread once the run has really ended (a run slot is given back then, not before)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
    stop = threading.Event()

    def put(kind: str, value: Any) -> None:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, (kind, value))
        except RuntimeError:  # the event loop is closed: nobody listens any more
            stop.set()

    def pump() -> None:
        try:
            gen = factory()
            try:
                for item in gen:
                    if stop.is_set():
                        break
                    put("item", item)
            finally:
                close = getattr(gen, "close", None)
                if close is not None:
                    close()
        except Exception as exc:
            put("error", exc)
        finally:
            if on_exit is not None:
                on_exit()
            put("end", None)

    threading.Thread(target=pump, name="sse-stream", daemon=True).start()
    try:
        while True:
            try:
                kind, value = await asyncio.wait_for(queue.get(), timeout=poll_s)
            except TimeoutError:
                if shutdown is not None and shutdown.is_set():
                    raise ShuttingDown("the server is shutting down") from None
                continue
            if kind == "item":
                yield value
            elif kind == "error":
                raise value
            else:
                return
    finally:
        stop.set()


def error_payload(exc: BaseException) -> dict[str, Any]:
    """Code and message (and, for a coded error, its params) for an error event; never a stack trace."""
    if isinstance(exc, CodedError):
        return {"code": exc.code, "message": str(exc), "params": exc.params}
    if isinstance(exc, ShuttingDown):
        return {"code": "shutting_down", "message": str(exc)}
    if isinstance(exc, DatabaseUnavailable) or (isinstance(exc, psycopg.OperationalError)
                                                and is_connection_error(exc)):
        return {"code": "database_unavailable", "message": str(exc).split("\n")[0]}
    if isinstance(exc, Overloaded):
        return {"code": "too_many_requests", "message": str(exc), "retry_after": exc.retry_after}
    if isinstance(exc, EmbedderBusy):
        return {"code": "busy", "message": str(exc)}
    if isinstance(exc, ValueError | psycopg.DataError):
        return {"code": "bad_request", "message": str(exc).split("\n")[0]}
    log.error("stream failed", exc_info=exc)
    return {"code": "internal_error", "message": f"internal error ({type(exc).__name__})"}


def sse(event: str, data: Any, seq: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"event": event, "data": json.dumps(data, ensure_ascii=False, default=str)}
    if seq is not None:
        out["id"] = str(seq)
    return out


async def event_stream(factory: Callable[[], Iterator[Event]], *, terminal: frozenset[str] = frozenset({"done"}),
                       on_terminal: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None = None,
                       shutdown: anyio.Event | None = None,
                       limiter: RunLimiter | None = None) -> AsyncIterator[dict[str, Any]]:
    """``(event, data)`` pairs → SSE dicts. Ends with exactly one terminal event: the generator's
    own (``done``, passed through ``on_terminal`` first) or ``error`` — whatever went wrong.
    With ``limiter``, the run starts once it has a run slot (an ``error`` event ``too_many_requests``
    when none comes in time) and gives it back when the run's thread ends."""
    seq = 0
    try:
        if limiter is not None:
            await limiter.acquire()
        async with aclosing(from_thread(factory, shutdown, on_exit=limiter.release if limiter else None)) as events:
            async for name, data in events:
                if name in terminal and on_terminal is not None:
                    data = await on_terminal(data)
                seq += 1
                yield sse(name, data, seq)
                if name in terminal:
                    return
        problem: BaseException = RuntimeError("the run ended without a result")
    except Exception as exc:
        problem = exc
    yield sse("error", error_payload(problem), seq + 1)
