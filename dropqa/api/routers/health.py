"""Health: always open, even when a token is required."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool

from dropqa import __version__

router = APIRouter(tags=["health"])


@router.get("/api/health")
async def health(request: Request) -> dict[str, Any]:
    svc = request.app.state.services
    db_ok = await run_in_threadpool(svc.db.ping)
    return {
        "status": "ok" if db_ok else "degraded",
        "version": __version__,
        "database": {"ok": db_ok, "embedded": svc.db.embedded},
        "models": {"chat": svc.settings.models.chat.model or None, "offline": svc.settings.offline,
                   "embeddings": svc.embedder.name},
    }
