"""Questions and answers: ask, stream (SSE), summarize, history, feedback.

A question is answered from the bases its ``kb`` names among the caller's (default: all of the caller's);
history and feedback see only answers given from bases the caller may read."""

from __future__ import annotations

import uuid
from datetime import datetime
from functools import partial
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from pydantic import BaseModel, Field, model_validator
from sse_starlette import EventSourceResponse

from dropqa.answering import summarize as summaries
from dropqa.api import access, ask
from dropqa.api.deps import CallerDep, LimiterDep, ScopeDep, ServicesDep
from dropqa.api.errors import ERROR_RESPONSES
from dropqa.api.limits import KbName, QuestionInput, Text, Version
from dropqa.api.sse import EVENT_SCHEMA, event_stream, sse_response
from dropqa.blocking import in_thread
from dropqa.runtime.run import Answer
from dropqa.store import qa as qa_store

router = APIRouter(prefix="/api/qa", tags=["qa"], responses=ERROR_RESPONSES)


class AskRequest(QuestionInput):
    show_reasoning: bool = True


class SummarizeRequest(BaseModel):
    document_id: uuid.UUID | None = None
    topic_id: uuid.UUID | None = None
    kb: list[KbName] = Field(default_factory=list, max_length=20, description="the knowledge base(s) the document "
                             "or topic is in; default: every base the caller may read")
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
async def ask_question(req: AskRequest, svc: ServicesDep, caller: CallerDep, limiter: LimiterDep,
                       request: Request) -> Answer:
    """The whole answer in one response. A client that hangs up first cancels its run."""
    kbs = await in_thread(access.bases_for, svc.db, caller, req.kb)
    # 429 with Retry-After when too many questions are in flight
    return await ask.answer(svc, req, kbs, show_reasoning=req.show_reasoning, limiter=limiter, request=request)


@router.post("/stream", response_class=EventSourceResponse, responses={200: {
    "description": "server-sent events, in order: `status`, `retrieval`, `reasoning`, `token`, `citation`, and "
                   "exactly one terminal event: `done` (the full Answer, with `answer_id`) or `error` "
                   "(`{code, message}`)",
    "content": {"text/event-stream": {"schema": EVENT_SCHEMA}}}})
async def stream_answer(req: AskRequest, svc: ServicesDep, caller: CallerDep, limiter: LimiterDep,
                        ) -> EventSourceResponse:
    """The answer as it is produced. The terminal event is always sent, also when the run fails
    or the server shuts down. Too many questions in flight: 429 before the stream starts, or an
    ``error`` event ``too_many_requests`` when the wait for a run slot runs out inside it. A client
    that leaves ends its run at the run's next step. An unknown ``version`` is a 404 before the stream."""
    kbs = await in_thread(access.bases_for, svc.db, caller, req.kb)
    run = await ask.open_stream(svc, req, kbs, show_reasoning=req.show_reasoning, limiter=limiter)
    return sse_response(lambda shutdown: event_stream(run, on_done=partial(ask.record, svc, kbs), shutdown=shutdown,
                                                      limiter=limiter))


@router.post("/summarize", response_model=summaries.Summary)
def summarize(req: SummarizeRequest, svc: ServicesDep, caller: CallerDep) -> summaries.Summary:
    """A document's or a topic's summary, composed from the section summaries written at indexing
    time (offline, no model); every line cites its section."""
    scope = access.scope_for(svc.db, caller, req.kb)
    try:
        if req.document_id is not None:
            return summaries.summarize_document(svc, scope, req.document_id, version=req.version,
                                                max_sections=req.max_sections)
        return summaries.summarize_topic(svc, scope, req.topic_id)  # type: ignore[arg-type]
    except summaries.NotFound as exc:
        raise HTTPException(404, str(exc)) from exc


@router.get("/history", response_model=list[HistoryItem])
def qa_history(svc: ServicesDep, scope: ScopeDep, limit: Annotated[int, Query(ge=1, le=500)] = 50,
               offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
               thread_id: Annotated[str | None, Query(max_length=200)] = None) -> list[HistoryItem]:
    """Answers given from the request's bases, newest first (one conversation's with ``thread_id``), with their
    feedback."""
    rows = qa_store.history(svc.db, scope, limit, offset, thread_id or None)
    return [HistoryItem(id=str(r["id"]), question=r["question"], answer=r["answer"], thread_id=r["thread_id"],
                        created_at=r["created_at"], feedback=r["feedback"], response=r["response"]) for r in rows]


@router.post("/feedback", response_model=FeedbackResponse)
def feedback(req: FeedbackRequest, svc: ServicesDep, scope: ScopeDep) -> FeedbackResponse:
    """Thumbs up or down and a comment on an answer (``answer_id`` from /ask, the stream's ``done``
    or the history); a second call replaces the first."""
    row = qa_store.set_feedback(svc.db, scope, req.answer_id, req.rating, req.comment)
    if row is None:
        raise HTTPException(404, f"no answer {req.answer_id}")
    return FeedbackResponse(answer_id=str(row["id"]), feedback=row["feedback"])
