"""Bounded load: at most ``api.max_concurrent_runs`` question runs at a time, at most
``api.max_waiting_runs`` more waiting (each up to ``api.queue_wait_s``); anything beyond gets
``429`` with ``Retry-After`` at once instead of piling up threads, memory and latency for everyone.

A slot is taken on the event loop and given back from whichever thread the run ends in (a streamed
run ends in its own thread, possibly after its client left), so the count is the runs really working.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass


class Overloaded(Exception):
    """Too many questions in flight; try again after ``retry_after`` seconds."""

    def __init__(self, retry_after: int, message: str = "the server is busy with other questions; try again shortly"):
        super().__init__(message)
        self.retry_after = retry_after


@dataclass
class LoadSnapshot:
    running: int
    waiting: int
    max_running: int
    max_waiting: int
    refused: int


class RunLimiter:
    def __init__(self, max_running: int, max_waiting: int, wait_s: float):
        self.max_running = max(1, max_running)
        self.max_waiting = max(0, max_waiting)
        self.wait_s = wait_s
        self.running = 0
        self.refused = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def retry_after(self) -> int:
        return max(1, math.ceil(self.wait_s))

    def snapshot(self) -> LoadSnapshot:
        return LoadSnapshot(self.running, len(self._waiters), self.max_running, self.max_waiting, self.refused)

    def check(self) -> None:
        """:class:`Overloaded` now if a request arriving now would be refused (a stream checks this
        before it answers 200, then takes its slot inside the stream)."""
        if self.running >= self.max_running and len(self._waiters) >= self.max_waiting:
            self.refused += 1
            raise Overloaded(self.retry_after)

    def enter(self) -> asyncio.Future[None] | None:
        """Take a slot now (``None``), or a place in the bounded queue (a future to :meth:`wait` on);
        :class:`Overloaded` at once when the queue is full. Call on the event loop."""
        self._loop = asyncio.get_running_loop()
        if self.running < self.max_running and not self._waiters:
            self.running += 1
            return None
        if len(self._waiters) >= self.max_waiting:
            self.refused += 1
            raise Overloaded(self.retry_after)
        waiter: asyncio.Future[None] = self._loop.create_future()
        self._waiters.append(waiter)
        return waiter

    async def wait(self, waiter: asyncio.Future[None] | None) -> None:
        """Wait for the queued place to become a slot, at most ``wait_s``; :class:`Overloaded` after."""
        if waiter is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(waiter), timeout=self.wait_s)
        except (TimeoutError, asyncio.CancelledError) as exc:
            if waiter.done() and not waiter.cancelled():
                self._release()  # granted at the last moment: hand the slot on
            else:
                waiter.cancel()
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
            if isinstance(exc, asyncio.CancelledError):
                raise
            self.refused += 1
            raise Overloaded(self.retry_after) from None

    async def acquire(self) -> None:
        """Take a run slot, waiting in the bounded queue if need be; :class:`Overloaded` otherwise."""
        await self.wait(self.enter())

    def release(self) -> None:
        """Give the slot back; callable from any thread."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            if asyncio.get_running_loop() is loop:
                self._release()
                return
        except RuntimeError:
            pass
        loop.call_soon_threadsafe(self._release)

    def _release(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)  # the slot passes straight to the next in line
                return
        self.running = max(0, self.running - 1)

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        await self.acquire()
        try:
            yield
        finally:
            self.release()
