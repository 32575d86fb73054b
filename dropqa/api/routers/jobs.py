"""Ingestion jobs: list, one job, cancel, and an SSE stream of state changes and progress.

The stream polls the job table (``api.job_stream_poll_s``): it works the same with
any number of API servers and workers, and needs nothing but the database. Every route sees the jobs
of the request's bases only (a job id of another base is 404, like an unknown one — in the stream's
``ids`` too); cancelling needs the editor role.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

import anyio
from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, Field
from sse_starlette import EventSourceResponse

from dropqa.api.deps import DbDep, EditorDep, ScopeDep, SettingsDep
from dropqa.api.errors import ERROR_RESPONSES
from dropqa.api.sse import EVENT_SCHEMA, sse, sse_response
from dropqa.store import documents as doc_store
from dropqa.store import jobs
from dropqa.store.db import Database
from dropqa.store.scope import Scope

router = APIRouter(prefix="/api", tags=["jobs"], responses=ERROR_RESPONSES)

State = Literal["queued", "parsing", "enriching", "embedding", "done", "failed", "cancelled"]
LOOK_BACK = timedelta(seconds=5)  # updated_at is a transaction's start time: re-read a short window


class JobInfo(BaseModel):
    id: str
    kb: str | None = Field(None, description="the knowledge base the file is indexed into")
    source_key: str
    filename: str
    action: str
    state: str = Field(description="queued → parsing → enriching → embedding → done | failed | cancelled")
    outcome: str | None = Field(description="indexed | new_version | unchanged | deleted, once done")
    error: str | None
    progress: dict[str, Any]
    attempts: int
    max_attempts: int
    document_id: str | None
    version: int | None
    created_at: datetime
    updated_at: datetime


class JobPage(BaseModel):
    jobs: list[JobInfo]
    total: int
    limit: int
    offset: int


def job_info(j: dict[str, Any]) -> JobInfo:
    return JobInfo(
        id=str(j["id"]), kb=j.get("kb"), source_key=j["source_key"], filename=doc_store.file_name(j["source_key"]),
        action=j["action"], state=j["state"], outcome=j["outcome"], error=j["error"], progress=j["progress"] or {},
        attempts=j["attempts"], max_attempts=j["max_attempts"],
        document_id=str(j["document_id"]) if j["document_id"] else None, version=j["version"],
        created_at=j["created_at"], updated_at=j["updated_at"],
    )


@router.get("/jobs", response_model=JobPage)
def list_jobs(db: DbDep, scope: ScopeDep, state: State | None = None,
              limit: Annotated[int, Query(ge=1, le=1000)] = 100,
              offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0) -> JobPage:
    rows = jobs.list_jobs(db, scope, state=state, limit=limit, offset=offset)
    total = jobs.count_jobs(db, scope, state=state)
    return JobPage(jobs=[job_info(r) for r in rows], total=total, limit=limit, offset=offset)


async def _events(db: Database, scope: Scope, ids: list[uuid.UUID] | None, poll_s: float,
                  shutdown: anyio.Event) -> AsyncIterator[dict[str, Any]]:
    """A ``job`` event per change of a job of the scope's bases (first every unfinished job, or every job
    of ``ids``); with ``ids``, an ``end`` event once all of them have finished."""
    since: datetime = await run_in_threadpool(jobs.database_now, db)
    snapshot = await run_in_threadpool(jobs.changed_since, db, scope, None, ids)
    sent: dict[str, tuple[Any, ...]] = {}
    wanted = {str(j["id"]) for j in snapshot}
    rows = snapshot
    seq = 0
    while True:
        for j in rows:
            key = (j["updated_at"], j["state"], j["attempts"], str(j["progress"]))
            if sent.get(str(j["id"])) != key:
                sent[str(j["id"])] = key
                seq += 1
                yield sse("job", job_info(j).model_dump(mode="json"), seq)
            since = max(since, j["updated_at"])
        if ids is not None:
            finished = {k for k, v in sent.items() if v[1] in jobs.TERMINAL_STATES}
            if wanted <= finished:
                yield sse("end", {"jobs": len(sent)}, seq + 1)
                return
        # forget what can no longer come back in the look-back window
        if ids is None:
            sent = {k: v for k, v in sent.items() if v[0] >= since - LOOK_BACK or v[1] not in jobs.TERMINAL_STATES}
        # client disconnects cancel this generator (sse-starlette); shutdown ends it cooperatively
        with anyio.move_on_after(poll_s):
            await shutdown.wait()
        if shutdown.is_set():
            return
        rows = await run_in_threadpool(jobs.changed_since, db, scope, since - LOOK_BACK, ids)


MAX_STREAM_IDS = 200


def parse_ids(values: list[str] | None) -> list[uuid.UUID]:
    """Job ids from repeated ``ids=`` and/or comma-separated ``ids=a,b``; a malformed id is a 422
    naming it (code ``invalid_job_id``)."""
    out: list[uuid.UUID] = []
    for value in values or []:
        for part in value.split(","):
            part = part.strip()
            if not part:
                continue
            try:
                out.append(uuid.UUID(part))
            except ValueError:
                raise RequestValidationError([{"loc": ["query", "ids"], "msg": f"not a job id: {part[:60]!r}",
                                               "type": "uuid_parsing", "input": part[:60]}]) from None
    if len(out) > MAX_STREAM_IDS:
        raise RequestValidationError([{"loc": ["query", "ids"], "msg": f"at most {MAX_STREAM_IDS} job ids",
                                       "type": "too_long", "input": len(out)}])
    return out


@router.get("/jobs/stream", response_class=EventSourceResponse,
            responses={200: {"content": {"text/event-stream": {"schema": EVENT_SCHEMA}},
                             "description": "`job` events (a JobInfo each), then `end` when `ids` are all finished"}})
async def job_stream(request: Request, db: DbDep, settings: SettingsDep, scope: ScopeDep,
                     ids: Annotated[list[str] | None, Query(max_length=200, description="only these jobs "
                                    "(`ids=a,b` or `ids=a&ids=b`); the stream ends when all have finished")] = None,
                     ) -> EventSourceResponse:
    """Server-sent events of job state changes and progress. Ends when the client disconnects, when
    the server shuts down, or (with ``ids``) when every listed job has finished. An id that is no job of
    the request's bases is a 404 before the stream starts."""
    wanted = parse_ids(ids)
    if wanted:
        seen = await run_in_threadpool(jobs.known, db, scope, wanted)
        missing = [j for j in wanted if j not in seen]
        if missing:
            raise HTTPException(404, f"no job {missing[0]}")
    return sse_response(lambda shutdown: _events(db, scope, wanted or None, settings.api.job_stream_poll_s,
                                                 shutdown), grace_s=1.0)


@router.get("/jobs/{job_id}", response_model=JobInfo)
def get_job(job_id: uuid.UUID, db: DbDep, scope: ScopeDep) -> JobInfo:
    job = jobs.find(db, scope, job_id)
    if job is None:
        raise HTTPException(404, f"no job {job_id}")
    return job_info(job)


@router.post("/jobs/{job_id}/cancel", response_model=JobInfo)
def cancel_job(job_id: uuid.UUID, _: EditorDep, db: DbDep, scope: ScopeDep) -> JobInfo:
    """Cancel a job that has not finished (editor; a running one stops at its next heartbeat)."""
    job = jobs.find(db, scope, job_id)
    if job is None:
        raise HTTPException(404, f"no job {job_id}")
    if not jobs.cancel(db, scope, job_id):
        raise HTTPException(409, f"the job has already finished ({job['state']})")
    return job_info(jobs.find(db, scope, job_id))  # type: ignore[arg-type]
