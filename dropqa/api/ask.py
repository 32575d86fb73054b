"""The one way a question enters a run from the API.

``POST /api/qa/ask``, ``/v1/chat/completions`` without ``stream`` and the MCP ``ask`` tool all call
:func:`answer`; ``POST /api/qa/stream`` and ``/v1/chat/completions`` with ``stream`` call
:func:`open_stream`. Either way the question has been held to :class:`QuestionInput`'s limits, takes
one of the bounded run slots (``429 too_many_requests`` when none comes), is checked for its
``version`` (``404 version_not_found``), and ends in the QA history with the ``answer_id`` feedback
refers to. The caller's entry point has decided the knowledge bases ``kbs`` the run reads
(:mod:`dropqa.api.access`); the run sees nothing else.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, nullcontext

from starlette.requests import Request

from dropqa.api.disconnect import while_connected
from dropqa.api.limits import QuestionInput
from dropqa.api.load import RunLimiter
from dropqa.blocking import in_thread
from dropqa.runtime.events import Done, StreamEvent
from dropqa.runtime.run import Answer, answer_and_record, check_version, record_answer, stream
from dropqa.services import Services

Bases = tuple[uuid.UUID, ...]


async def answer(svc: Services, q: QuestionInput, kbs: Bases, *, show_reasoning: bool = True,
                 limiter: RunLimiter | None = None, request: Request | None = None) -> Answer:
    """The whole answer, recorded. With ``limiter``, in a run slot (:class:`~dropqa.api.load.Overloaded`
    when none comes in time); with ``request``, cancelled when its client hangs up
    (:class:`~dropqa.api.disconnect.ClientGone`, once the run has ended)."""
    slot: AbstractAsyncContextManager[None] = limiter.slot() if limiter is not None else nullcontext()
    async with slot:
        work = answer_and_record(svc, q.question, version=q.version, show_reasoning=show_reasoning,
                                 topic_filter=q.topic_filter, thread_id=q.thread_id, kbs=kbs)
        return await (work if request is None else while_connected(request, work))


async def open_stream(svc: Services, q: QuestionInput, kbs: Bases, *, show_reasoning: bool,
                      limiter: RunLimiter) -> Callable[[], AsyncIterator[StreamEvent]]:
    """What a stream checks before it answers 200 — a run slot free now (else ``Overloaded``: a 429)
    and a known ``version`` (else a 404) — and the run to iterate. The stream takes its slot when it
    starts the run (:func:`dropqa.api.sse.run_events`)."""
    limiter.check()
    await in_thread(check_version, svc, q.version, kbs)

    def run() -> AsyncIterator[StreamEvent]:
        return stream(svc, q.question, version=q.version, show_reasoning=show_reasoning,
                      topic_filter=q.topic_filter, thread_id=q.thread_id, kbs=kbs)

    return run


async def record(svc: Services, kbs: Bases, done: Done) -> Done:
    """Keep a streamed answer (from the bases ``kbs``) in the QA history; ``done`` then carries its
    ``answer_id``."""
    done.answer_id = await in_thread(record_answer, svc, done.model_dump(mode="json"), kbs)
    return done
