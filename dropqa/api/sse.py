"""Server-sent events from the graph's async stream, with a terminal event that is always sent.

The run (``graph.run.stream``: ``graph.astream`` over async nodes) is iterated in an asyncio task of
its own and hands its events over through a queue, so the response notices a server shutdown even
while a step is still working. A client that goes away cancels the task: the chat-model request in
flight is cancelled with it, a node's database work in a worker thread ends with its current query,
and the run slot is given back once the task has ended.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
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


_running: set[asyncio.Task[None]] = set()  # the loop keeps only weak references to tasks


async def in_task(factory: Callable[[], AsyncIterator[Any]], shutdown: anyio.Event | None = None,
                  poll_s: float = 0.25, on_exit: Callable[[], None] | None = None) -> AsyncIterator[Any]:
    """Iterate ``factory()`` in a task of its own. Raises what the run raised, or :class:`ShuttingDown`
    when ``shutdown`` is set first. When the consumer stops (the client left), the task is cancelled;
    ``on_exit`` is called once the run has really ended (a run slot is given back then, not before)."""
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    async def produce() -> None:
        try:
            async with aclosing(factory()) as events:
                async for item in events:
                    queue.put_nowait(("item", item))
        except Exception as exc:
            queue.put_nowait(("error", exc))
        finally:
            if on_exit is not None:
                on_exit()
            queue.put_nowait(("end", None))

    task = asyncio.create_task(produce(), name="sse-run")
    _running.add(task)
    task.add_done_callback(_running.discard)
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
        task.cancel()  # nothing when the run has ended; else the run stops at its next await


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


async def event_stream(factory: Callable[[], AsyncIterator[Event]], *, terminal: frozenset[str] = frozenset({"done"}),
                       on_terminal: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None = None,
                       shutdown: anyio.Event | None = None,
                       limiter: RunLimiter | None = None) -> AsyncIterator[dict[str, Any]]:
    """``(event, data)`` pairs → SSE dicts. Ends with exactly one terminal event: the generator's
    own (``done``, passed through ``on_terminal`` first) or ``error`` — whatever went wrong.
    With ``limiter``, the run starts once it has a run slot (an ``error`` event ``too_many_requests``
    when none comes in time) and gives it back when the run's task ends."""
    seq = 0
    try:
        if limiter is not None:
            await limiter.acquire()
        async with aclosing(in_task(factory, shutdown, on_exit=limiter.release if limiter else None)) as events:
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
