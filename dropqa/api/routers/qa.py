"""Questions and answers."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field

from dropqa.api.deps import Authorized, ServicesDep
from dropqa.graph.run import Answer, ask
from dropqa.store import qa as qa_store

router = APIRouter(prefix="/api/qa", tags=["qa"], dependencies=[Authorized])


class AskRequest(BaseModel):
    question: str = Field(min_length=1, max_length=4000)
    version: int | None = Field(default=None, ge=1, description="answer from version N of each document")
    show_reasoning: bool = True


@router.post("/ask", response_model=Answer)
async def ask_question(req: AskRequest, svc: ServicesDep) -> Answer:
    if not req.question.strip():
        raise ValueError("the question is empty")
    result = await run_in_threadpool(ask, svc, req.question, version=req.version,
                                     show_reasoning=req.show_reasoning)
    await run_in_threadpool(qa_store.record_answer, svc.db, req.question, result.model_dump(mode="json"))
    return result


@router.get("/history")
async def qa_history(svc: ServicesDep, limit: int = 50, offset: int = 0) -> list[dict]:
    rows = await run_in_threadpool(qa_store.history, svc.db, min(max(limit, 1), 500), max(offset, 0))
    return [{"id": str(r["id"]), "question": r["question"], "answer": r["answer"],
             "created_at": r["created_at"].isoformat(), "thread_id": r["thread_id"]} for r in rows]
