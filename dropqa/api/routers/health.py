"""Health: always open, even when a token is required. 503 when the database is unreachable; a count the store is
too busy to give in time (past its statement timeout) is null, and the health is answered all the same."""

from __future__ import annotations

import psycopg
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from dropqa import __version__
from dropqa.store import jobs, pending
from dropqa.store.server import DatabaseUnavailable

router = APIRouter(tags=["health"])


class DatabaseHealth(BaseModel):
    ok: bool
    embedded: bool
    restarts: int = Field(0, description="times this process restarted the embedded PostgreSQL after it died")


class ModelHealth(BaseModel):
    chat: str | None
    offline: bool
    embeddings: str


class QueueHealth(BaseModel):
    depth: int | None
    embedded_workers: int


class LoadHealth(BaseModel):
    running: int = Field(description="questions being answered now")
    waiting: int = Field(description="questions waiting for a run slot")
    max_running: int
    max_waiting: int
    refused: int = Field(description="questions answered 429 since the server started")


class EmbeddingHealth(BaseModel):
    """Current versions whose embeddings are still being filled in (they answer by full-text already)."""

    pending_passages: int | None
    documents_filling: int | None


class Health(BaseModel):
    status: str
    version: str
    database: DatabaseHealth
    models: ModelHealth
    queue: QueueHealth
    load: LoadHealth | None = None
    embeddings: EmbeddingHealth


@router.get("/api/health", response_model=Health, responses={503: {"model": Health}})
def health(request: Request) -> Health | JSONResponse:
    svc = request.app.state.services
    db_ok = svc.db.ping()  # a couple of seconds at most when the database is gone
    depth = None
    if db_ok:
        try:
            depth = jobs.queue_depth(svc.db)
        except DatabaseUnavailable:  # lost between the two calls
            db_ok = False
        except psycopg.errors.QueryCanceled:  # a store too busy to count in time: the count is unknown, the
            pass  # health is still answered (a monitor polling it under load must not get an error instead)
    filling: dict[str, int] = {}
    if db_ok:
        try:
            filling = pending.totals(svc.db)
        except DatabaseUnavailable:
            db_ok = False
        except psycopg.errors.QueryCanceled:
            pass
    workers = getattr(request.app.state, "workers", None)
    limiter = getattr(request.app.state, "limiter", None)
    watchdog = getattr(svc.db, "watchdog", None)
    body = Health(
        status="ok" if db_ok else "degraded",
        version=__version__,
        database=DatabaseHealth(ok=db_ok, embedded=svc.db.embedded, restarts=watchdog.restarts if watchdog else 0),
        models=ModelHealth(chat=svc.settings.models.chat.model or None, offline=svc.settings.offline,
                           embeddings=svc.embedder.name),
        queue=QueueHealth(depth=depth, embedded_workers=workers.alive if workers else 0),
        load=LoadHealth(**vars(limiter.snapshot())) if limiter else None,
        embeddings=EmbeddingHealth(pending_passages=filling.get("nodes"), documents_filling=filling.get("documents")),
    )
    if not db_ok:
        return JSONResponse(body.model_dump(mode="json"), status_code=503)
    return body
