"""One event loop for synchronous callers: ``dropqa ask``, the eval runner, benchmarks, tests.

The graph's nodes are async. Code that is not async itself runs a question on this process-wide
loop (a daemon thread) rather than with ``asyncio.run`` per call: the async HTTP clients the chat
providers keep (langchain-openai caches its httpx ``AsyncClient``) then stay on the one loop their
pooled connections belong to. The server does not use it: its routes await the graph on uvicorn's loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def background_loop() -> asyncio.AbstractEventLoop:
    """The process's loop for synchronous callers, started on first use."""
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="dropqa-loop", daemon=True).start()
            _loop = loop
        return _loop


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on :func:`background_loop` and wait for its result (or its exception). An
    interrupt while waiting (Ctrl-C) cancels the run instead of leaving it working."""
    loop = background_loop()
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        coro.close()
        raise RuntimeError("run_sync() called from the loop it would wait on; await the coroutine instead")
    future = asyncio.run_coroutine_threadsafe(coro, loop)
    try:
        return future.result()
    except BaseException:
        future.cancel()
        raise
