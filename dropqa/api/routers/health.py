"""Health: always open, even when a token is required. 503 when the database is unreachable."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from dropqa import __version__
from dropqa.store import jobs

router = APIRouter(tags=["health"])


class DatabaseHealth(BaseModel):
    ok: bool
    embedded: bool


class ModelHealth(BaseModel):
    chat: str | None
    offline: bool
    embeddings: str


class QueueHealth(BaseModel):
    depth: int | None
    embedded_workers: int


class Health(BaseModel):
    status: str
    version: str
    database: DatabaseHealth
    models: ModelHealth
    queue: QueueHealth


@router.get("/api/health", response_model=Health, responses={503: {"model": Health}})
async def health(request: Request) -> Health | JSONResponse:
    svc = request.app.state.services
    db_ok = await run_in_threadpool(svc.db.ping)
    depth = await run_in_threadpool(jobs.queue_depth, svc.db) if db_ok else None
    workers = getattr(request.app.state, "workers", None)
    body = Health(
        status="ok" if db_ok else "degraded",
        version=__version__,
        database=DatabaseHealth(ok=db_ok, embedded=svc.db.embedded),
        models=ModelHealth(chat=svc.settings.models.chat.model or None, offline=svc.settings.offline,
                           embeddings=svc.embedder.name),
        queue=QueueHealth(depth=depth, embedded_workers=workers.alive if workers else 0),
    )
    if not db_ok:
        return JSONResponse(body.model_dump(mode="json"), status_code=503)
    return body
