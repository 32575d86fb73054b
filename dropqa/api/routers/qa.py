"""Questions and answers: ask, stream (SSE), summarize, history, feedback."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Annotated, Any, Literal

import anyio
from fastapi import APIRouter, HTTPException, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field, model_validator
from sse_starlette import EventSourceResponse

from dropqa.answering import summarize as summaries
from dropqa.api.deps import Authorized, LimiterDep, ServicesDep
from dropqa.api.disconnect import ClientGone, gone_response, while_connected
from dropqa.api.errors import ERROR_RESPONSES
from dropqa.api.limits import QuestionInput, Text, Version
from dropqa.api.sse import EVENT_SCHEMA, event_stream
from dropqa.runtime.run import Answer, answer_and_record, check_version, record_answer, stream
from dropqa.store import qa as qa_store

router = APIRouter(prefix="/api/qa", tags=["qa"], dependencies=[Authorized], responses=ERROR_RESPONSES)

STREAM_EVENTS = ("status", "retrieval", "reasoning", "token", "citation", "done", "error")


class AskRequest(QuestionInput):
    show_reasoning: bool = True


class SummarizeRequest(BaseModel):
    document_id: uuid.UUID | None = None
    topic_id: uuid.UUID | None = None
    version: Version | None = Field(default=None, description="document version (default: latest)")
    max_sections: int = Field(default=12, ge=1, le=100)

    @model_validator(mode="after")
    def _one_target(self) -> SummarizeRequest:
        if (self.document_id is None) == (self.topic_id is None):
            raise ValueError("give exactly one of document_id and topic_id")
        return self


class HistoryItem(BaseModel):
    id: str
    question: str
    answer: str
    thread_id: str | None
    created_at: datetime
    feedback: dict[str, Any] | None = None
    response: dict[str, Any] = Field(description="the full answer as it was returned")


class FeedbackRequest(BaseModel):
    answer_id: uuid.UUID
    rating: Literal["up", "down"]
    comment: Text | None = Field(default=None, max_length=2000)


class FeedbackResponse(BaseModel):
    answer_id: str
    feedback: dict[str, Any]


@router.post("/ask", response_model=Answer)
async def ask_question(req: AskRequest, svc: ServicesDep, limiter: LimiterDep, request: Request) -> Answer | Response:
    """The whole answer in one response. A client that hangs up first cancels its run."""
    async with limiter.slot():  # 429 with Retry-After when too many questions are in flight
        try:
            return await while_connected(request, answer_and_record(
                svc, req.question, version=req.version, show_reasoning=req.show_reasoning,
                topic_filter=req.topic_filter, thread_id=req.thread_id))
        except ClientGone:
            return gone_response()


@router.post("/stream", response_class=EventSourceResponse, responses={200: {
    "description": "server-sent events, in order: `status`, `retrieval`, `reasoning`, `token`, `citation`, and "
                   "exactly one terminal event: `done` (the full Answer, with `answer_id`) or `error` "
                   "(`{code, message}`)",
    "content": {"text/event-stream": {"schema": EVENT_SCHEMA}}}})
async def stream_answer(req: AskRequest, svc: ServicesDep, limiter: LimiterDep) -> EventSourceResponse:
    """The answer as it is produced. The terminal event is always sent, also when the run fails
    or the server shuts down. Too many questions in flight: 429 before the stream starts, or an
    ``error`` event ``too_many_requests`` when the wait for a run slot runs out inside it. A client
    that leaves ends its run at the run's next step. An unknown ``version`` is a 404 before the stream."""
    limiter.check()
    await run_in_threadpool(check_version, svc, req.version)

    def run() -> AsyncIterator[tuple[str, dict[str, Any]]]:
        return stream(svc, req.question, version=req.version, show_reasoning=req.show_reasoning,
                      topic_filter=req.topic_filter, thread_id=req.thread_id)

    async def done(data: dict[str, Any]) -> dict[str, Any]:
        data["answer_id"] = await run_in_threadpool(record_answer, svc, data)
        return data

    shutdown = anyio.Event()
    return EventSourceResponse(event_stream(run, on_terminal=done, shutdown=shutdown, limiter=limiter),
                               shutdown_event=shutdown,
                               shutdown_grace_period=2.0, ping=10, sep="\n")


@router.post("/summarize", response_model=summaries.Summary)
def summarize(req: SummarizeRequest, svc: ServicesDep) -> summaries.Summary:
    """A document's or a topic's summary, composed from the section summaries written at indexing
    time (offline, no model); every line cites its section."""
    try:
        if req.document_id is not None:
            return summaries.summarize_document(svc, req.document_id, version=req.version,
                                                max_sections=req.max_sections)
        return summaries.summarize_topic(svc, req.topic_id)  # type: ignore[arg-type]
    except summaries.NotFound as exc:
        raise HTTPException(404, str(exc)) from exc


@router.get("/history", response_model=list[HistoryItem])
def qa_history(svc: ServicesDep, limit: Annotated[int, Query(ge=1, le=500)] = 50,
               offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
               thread_id: Annotated[str | None, Query(max_length=200)] = None) -> list[HistoryItem]:
    """Answers given, newest first (one conversation's with ``thread_id``), with their feedback."""
    rows = qa_store.history(svc.db, limit, offset, thread_id or None)
    return [HistoryItem(id=str(r["id"]), question=r["question"], answer=r["answer"], thread_id=r["thread_id"],
                        created_at=r["created_at"], feedback=r["feedback"], response=r["response"]) for r in rows]


@router.post("/feedback", response_model=FeedbackResponse)
def feedback(req: FeedbackRequest, svc: ServicesDep) -> FeedbackResponse:
    """Thumbs up or down and a comment on an answer (``answer_id`` from /ask, the stream's ``done``
    or the history); a second call replaces the first."""
    row = qa_store.set_feedback(svc.db, req.answer_id, req.rating, req.comment)
    if row is None:
        raise HTTPException(404, f"no answer {req.answer_id}")
    return FeedbackResponse(answer_id=str(row["id"]), feedback=row["feedback"])
