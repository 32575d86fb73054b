"""Server-sent events from the graph's async stream, with a terminal event that is always sent.

The run (:func:`dropqa.runtime.run.stream`: ``graph.astream`` over async nodes, yielding typed events)
is iterated in an asyncio task of its own and hands its events over through a queue, so the response
notices a server shutdown even while a step is still working. A client that goes away cancels the
task: the chat-model request in flight is cancelled with it, a node's database work in a worker
thread ends with its current query, and the run slot is given back once the task has ended.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from typing import Any

import anyio
from sse_starlette import EventSourceResponse

from dropqa.api.errors import ShuttingDown, error_code, first_line
from dropqa.api.load import RunLimiter
from dropqa.runtime import events
from dropqa.runtime.events import StreamEvent

log = logging.getLogger(__name__)

# OpenAPI: the schema of one event of a text/event-stream response (``data`` holds JSON).
EVENT_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["data"],
    "properties": {"event": {"type": "string"}, "data": {"type": "string"}, "id": {"type": "string"}},
}


_running: set[asyncio.Task[None]] = set()  # the loop keeps only weak references to tasks


async def in_task(factory: Callable[[], AsyncIterator[Any]], shutdown: anyio.Event | None = None,
                  poll_s: float = 0.25, on_exit: Callable[[], None] | None = None) -> AsyncIterator[Any]:
    """Iterate ``factory()`` in a task of its own. Raises what the run raised, or :class:`ShuttingDown`
    when ``shutdown`` is set first. When the consumer stops (the client left), the task is cancelled;
    ``on_exit`` is called once the run has really ended (a run slot is given back then, not before)."""
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    async def produce() -> None:
        try:
            async with aclosing(factory()) as items:
                async for item in items:
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


def error_event(exc: BaseException) -> events.Error:
    """The ``error`` event for what went wrong (:func:`error_code`'s code, a one-line message)."""
    problem = error_code(exc)
    if problem.code == "internal_error":
        log.error("stream failed", exc_info=exc)
    return events.Error(code=problem.code, message=first_line(problem.message), params=problem.params,
                        retry_after=problem.retry_after)


def sse(event: str, data: Any, seq: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"event": event, "data": json.dumps(data, ensure_ascii=False, default=str)}
    if seq is not None:
        out["id"] = str(seq)
    return out


def sse_event(event: StreamEvent, seq: int | None = None) -> dict[str, Any]:
    """A run's event as SSE: its name, its payload as JSON."""
    return sse(event.event, event.data(), seq)


def sse_response(make: Callable[[anyio.Event], AsyncIterator[dict[str, Any]]],
                 grace_s: float = 2.0) -> EventSourceResponse:
    """An event stream as DropQA serves them: a ping every 10 s, ``\\n`` line ends, and a shutdown event
    the stream (``make(shutdown)``) watches so it can end itself when the server stops."""
    shutdown = anyio.Event()
    return EventSourceResponse(make(shutdown), shutdown_event=shutdown, shutdown_grace_period=grace_s, ping=10,
                               sep="\n")


async def run_events(factory: Callable[[], AsyncIterator[StreamEvent]], shutdown: anyio.Event | None = None,
                     limiter: RunLimiter | None = None) -> AsyncIterator[StreamEvent]:
    """The run's events once it has a run slot (:class:`Overloaded` when none comes in time), iterated
    in a task of its own (:func:`in_task`) that gives the slot back when the run has ended."""
    if limiter is not None:
        await limiter.acquire()
    async with aclosing(in_task(factory, shutdown, on_exit=limiter.release if limiter else None)) as running:
        async for event in running:
            yield event


async def event_stream(factory: Callable[[], AsyncIterator[StreamEvent]], *,
                       on_done: Callable[[events.Done], Awaitable[events.Done]] | None = None,
                       shutdown: anyio.Event | None = None,
                       limiter: RunLimiter | None = None) -> AsyncIterator[dict[str, Any]]:
    """A run's events → SSE dicts. Ends with exactly one terminal event: the run's own ``done``
    (passed through ``on_done`` first) or ``error`` — whatever went wrong. With ``limiter``, the run
    starts once it has a run slot (an ``error`` event ``too_many_requests`` when none comes in time)
    and gives it back when the run's task ends."""
    seq = 0
    try:
        async with aclosing(run_events(factory, shutdown, limiter)) as running:
            async for event in running:
                if isinstance(event, events.Done) and on_done is not None:
                    event = await on_done(event)
                seq += 1
                yield sse_event(event, seq)
                if event.terminal:
                    return
        problem: BaseException = RuntimeError("the run ended without a result")
    except Exception as exc:
        problem = exc
    yield sse_event(error_event(problem), seq + 1)
