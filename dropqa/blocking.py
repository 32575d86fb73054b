"""Blocking work from async code: one bounded pool of worker threads.

The graph's nodes and tools are async; their database queries, embeddings and scoring are blocking
calls, run with :func:`in_thread` in anyio's worker threads — the same pool as the server's plain
``def`` routes. Its size is anyio's default limiter, which the server sets from ``api.thread_pool_size``;
an idle thread ends after ten seconds. A cancelled caller (the client left) waits for the call in
flight to return — one query, not a whole step — so a cancelled run leaves no thread working and no
database connection borrowed behind it, and its run slot comes back when it has really ended.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import anyio.to_thread

P = ParamSpec("P")
T = TypeVar("T")


async def in_thread(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` in a worker thread (context variables go with it)."""
    return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))
