"""A question answered in one response (``POST /api/qa/ask``, ``/v1/chat/completions`` without
``stream``) is cancelled when its client hangs up, as a stream is: the chat-model request in flight is
dropped, a database call in flight returns first, and the run slot comes back."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import Response

T = TypeVar("T")

# nginx's "client closed request": logged, never seen by the client, which has gone.
CLIENT_CLOSED = 499


class ClientGone(Exception):
    """The client hung up before the answer was ready; its run was cancelled."""


async def while_connected(request: Request, work: Coroutine[Any, Any, T], poll_s: float = 0.25) -> T:
    """``await work``, cancelled (and :class:`ClientGone` raised once it has ended) when the client
    disconnects first."""
    task = asyncio.ensure_future(work)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=poll_s)
            if done:
                return task.result()
            if await request.is_disconnected():
                task.cancel()
                await asyncio.wait({task})  # the run has ended (its slot is given back by the caller)
                raise ClientGone()
    finally:
        if not task.done():  # the request itself was cancelled
            task.cancel()


def gone_response() -> Response:
    return Response(status_code=CLIENT_CLOSED)
