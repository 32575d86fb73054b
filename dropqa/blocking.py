"""Blocking work from async code: one bounded pool of worker threads that end when they are idle.

The graph's nodes and tools are async; their database queries, embeddings and scoring are blocking
calls, run with :func:`in_thread` in this pool. It holds at most ``max_threads`` threads (the server
sets it from ``api.thread_pool_size``), and a thread idle for ``idle_s`` (``api.thread_idle_s``) ends by
itself — not when the next call comes, as anyio's pool does — so after a burst (50 abandoned answer
streams) the process is back to its baseline of threads within seconds.

A cancelled caller (the client left) cancels the call: the database query in flight is cancelled on the
server (the store registers each borrowed connection with :func:`current_call`), any later query of the
same call refuses to start (:class:`CallCancelled`), and the caller waits for the thread to return —
so a cancelled run leaves no thread working and no connection borrowed behind it, and its run slot
comes back when it has really ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")
log = logging.getLogger(__name__)


class CallCancelled(RuntimeError):
    """The async caller of this blocking call was cancelled: the rest of its work is not started."""


class Call:
    """One blocking call made by :func:`in_thread`: what cancels its work in flight."""

    def __init__(self) -> None:
        self.cancelled = False
        self._lock = threading.Lock()
        self._cancellers: dict[int, Callable[[], object]] = {}
        self._next = 0

    def on_cancel(self, cancel: Callable[[], object]) -> Callable[[], None]:
        """Run ``cancel`` if the call is cancelled while it is registered; returns what unregisters it."""
        with self._lock:
            key, self._next = self._next, self._next + 1
            self._cancellers[key] = cancel

        def forget() -> None:
            with self._lock:
                self._cancellers.pop(key, None)

        return forget

    def check(self) -> None:
        if self.cancelled:
            raise CallCancelled("the request was cancelled")

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            cancellers = list(self._cancellers.values())
        for cancel in cancellers:
            try:
                cancel()
            except Exception:  # the query may have ended meanwhile; the thread returns either way
                log.debug("cancelling a blocking call's work failed", exc_info=True)


_CALL: contextvars.ContextVar[Call | None] = contextvars.ContextVar("dropqa_blocking_call", default=None)


def current_call() -> Call | None:
    """The :class:`Call` this thread's work belongs to (``None`` outside :func:`in_thread`)."""
    return _CALL.get()


class ThreadPool:
    """At most ``max_threads`` threads; one idle for ``idle_s`` ends. Work waits in order when all are busy."""

    def __init__(self, max_threads: int = 40, idle_s: float = 2.0) -> None:
        self.max_threads, self.idle_s = max_threads, idle_s
        self._queue: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = self._idle = self._pending = 0

    @property
    def threads(self) -> int:
        return self._threads

    def submit(self, work: Callable[[], None]) -> None:
        with self._lock:
            self._queue.put(work)
            self._pending += 1
            if self._pending > self._idle and self._threads < self.max_threads:
                self._threads += 1
                self._idle += 1
                threading.Thread(target=self._work, name="dropqa-worker", daemon=True).start()

    def _work(self) -> None:
        while True:
            try:
                work = self._queue.get(timeout=self.idle_s)
            except queue.Empty:
                with self._lock:
                    if self._queue.empty():
                        self._threads -= 1
                        self._idle -= 1
                        return
                continue
            with self._lock:
                self._pending -= 1
                self._idle -= 1
            try:
                work()
            finally:
                with self._lock:
                    self._idle += 1


POOL = ThreadPool()


def configure(max_threads: int, idle_s: float) -> None:
    """Size the pool (the server does, from ``api.thread_pool_size`` and ``api.thread_idle_s``)."""
    POOL.max_threads, POOL.idle_s = max_threads, idle_s


def _settle(future: asyncio.Future[Any], ok: bool, value: Any) -> None:
    if not future.done():
        future.set_result(value) if ok else future.set_exception(value)


async def in_thread(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` in a worker thread of :data:`POOL` (context variables go with it). Cancelled,
    it cancels the call (:class:`Call`) and returns — raising ``CancelledError`` — once the thread has."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    call = Call()
    context = contextvars.copy_context()
    context.run(_CALL.set, call)
    work = functools.partial(fn, *args, **kwargs)

    def run() -> None:
        try:
            outcome: tuple[bool, Any] = (True, context.run(work))
        except BaseException as exc:
            outcome = (False, exc)
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(_settle, future, *outcome)

    POOL.submit(run)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        # the query in flight is cancelled from a thread of its own (it talks to the server)
        threading.Thread(target=call.cancel, name="dropqa-cancel", daemon=True).start()
        while not future.done():  # however often this task is cancelled again
            with contextlib.suppress(BaseException):
                await asyncio.shield(future)
        if not future.cancelled():
            future.exception()  # retrieved: what the cancelled work raised (a cancelled query) is not news
        raise
