"""The ingestion job queue (table ``ingestion_jobs``). All job SQL lives here.

Workers claim with ``FOR UPDATE SKIP LOCKED`` so any number of them (threads or
processes, on one machine or several) drain the same queue without taking a job
twice. A claimed job carries a heartbeat; a job in an active state whose
heartbeat is older than ``ingestion.job_stale_s`` belonged to a worker that died
(``kill -9``, power loss) and is claimed again — with the default heartbeat of 2 s and
``job_stale_s`` of 15 s, within seconds. Because the indexer writes a version in one
transaction at the very end, and only while its worker still holds the job, re-running such
a job is safe.

A job that fails for a passing reason (its worker died on every attempt, the store was down)
is not lost: it is queued again after ``job_failed_retry_s`` (doubling each round) for up to
``job_failed_rounds`` rounds — unless a newer job for the same file came meanwhile. A job that
fails for its input (a corrupt file) is failed for good.

A job indexes a file into one knowledge base (``kb_id``); "the same file" is the same source key in
the same base. The queue's own bookkeeping (claim, heartbeat, finish) works on the job a worker
holds; what a caller reads (:func:`find`, :func:`list_jobs`, :func:`changed_since`) takes its
:class:`~dropqa.store.scope.Scope`.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

import psycopg
from psycopg.types.json import Jsonb

from dropqa.store.db import Database
from dropqa.store.scope import Scope

Action = Literal["index", "delete"]
ACTIVE_STATES = ("parsing", "enriching", "embedding")
TERMINAL_STATES = ("done", "failed", "cancelled")
_LOCK_CLASS = 0x4A4F42  # "JOB": advisory-lock key space for per-source_key enqueue serialisation
# SET clause of a job failed for a passing reason: a later round after the back-off, while rounds are left
_LATER_ROUND = ("retry_failed = failed_rounds < %(rounds)s, "
                "run_after = now() + make_interval(secs => %(round_s)s * power(2, failed_rounds))")

Job = dict[str, Any]


def enqueue(db: Database, kb: uuid.UUID, source_key: str, path: str, action: Action = "index",
            max_attempts: int | None = None, blob: str | None = None, supersede: bool = False) -> Job:
    """Queue a job, unless the newest queued job for this key is already the same one.

    Only the *newest* queued job is compared so that index → delete → index of one
    key keeps all three (the last one must win); an editor saving a file five
    times in a row still produces a single queued job.

    ``blob`` names the stored bytes the job indexes (:mod:`dropqa.store.blobs`): a worker on any
    machine reads them from the database, and ``path`` only says where they came from. With
    ``supersede`` (the watcher: newer bytes of the same file), a queued job for the same path takes
    the new bytes instead of a second job being queued.
    """
    attempts = max_attempts or db.settings.ingestion.job_max_attempts
    with db.connection() as conn, conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_LOCK_CLASS, f"{kb}/{source_key}"))
        newest = conn.execute(
            "SELECT * FROM ingestion_jobs WHERE kb_id = %s AND source_key = %s AND state = 'queued' "
            "ORDER BY created_at DESC LIMIT 1",
            (kb, source_key),
        ).fetchone()
        if newest and newest["action"] == action and newest["path"] == path:
            if newest["blob_sha256"] == blob:
                return newest
            if supersede:
                row = conn.execute(  # not if a worker claimed it meanwhile: then a new job follows it
                    "UPDATE ingestion_jobs SET blob_sha256 = %s, updated_at = now() WHERE id = %s AND state = 'queued' "
                    "RETURNING *", (blob, newest["id"]),
                ).fetchone()
                if row is not None:
                    return row
        row = conn.execute(
            "INSERT INTO ingestion_jobs (kb_id, source_key, path, action, max_attempts, blob_sha256) "
            "VALUES (%s, %s, %s, %s, %s, %s) RETURNING *",
            (kb, source_key, path, action, attempts, blob),
        ).fetchone()
        assert row is not None
        return row


def claim(db: Database, worker_id: str, stale_s: float | None = None) -> Job | None:
    """Take the next ready job (or a stale one) for ``worker_id``; ``None`` when there is none.

    A job is skipped while an earlier unfinished job for the same ``source_key``
    exists (so index/delete of one file run in order) or while another worker is
    actively on that key. A stale job that has used up its attempts is failed
    here instead of being retried forever (a file that kills its worker every time).
    """
    ing = db.settings.ingestion
    stale = stale_s if stale_s is not None else ing.job_stale_s
    active = list(ACTIVE_STATES)
    with db.connection() as conn, conn.transaction():
        conn.execute(
            "UPDATE ingestion_jobs SET state = 'failed', locked_by = NULL, updated_at = now(), "
            "error = 'the worker processing this job stopped responding ' || attempts || ' time(s)', "
            f"{_LATER_ROUND} "
            "WHERE state = ANY(%(active)s) AND heartbeat_at < now() - make_interval(secs => %(stale)s) "
            "AND attempts >= max_attempts",
            {"active": active, "stale": stale, "rounds": ing.job_failed_rounds, "round_s": ing.job_failed_retry_s},
        )
        conn.execute(  # a failed job's later round is due (and no newer job for its file came meanwhile)
            "UPDATE ingestion_jobs j SET state = 'queued', attempts = 0, failed_rounds = j.failed_rounds + 1, "
            "retry_failed = false, locked_by = NULL, updated_at = now() "
            "WHERE j.state = 'failed' AND j.retry_failed AND j.run_after <= now() "
            "AND NOT EXISTS (SELECT 1 FROM ingestion_jobs o WHERE o.source_key = j.source_key "
            "                AND o.kb_id = j.kb_id AND o.created_at > j.created_at)"
        )
        row = conn.execute(
            "WITH c AS ("
            " SELECT j.id FROM ingestion_jobs j"
            " WHERE ((j.state = 'queued' AND j.run_after <= now())"
            "     OR (j.state = ANY(%(active)s) AND j.heartbeat_at < now() - make_interval(secs => %(stale)s)))"
            "   AND NOT EXISTS (SELECT 1 FROM ingestion_jobs o WHERE o.source_key = j.source_key"
            "     AND o.kb_id = j.kb_id AND o.id <> j.id"
            "     AND (o.state = 'queued' OR o.state = ANY(%(active)s)) AND (o.created_at < j.created_at"
            "       OR (o.state = ANY(%(active)s) AND o.heartbeat_at >= now() - make_interval(secs => %(stale)s))))"
            " ORDER BY j.run_after, j.created_at LIMIT 1 FOR UPDATE OF j SKIP LOCKED)"
            " UPDATE ingestion_jobs j SET state = 'parsing', locked_by = %(worker)s, heartbeat_at = now(),"
            "   attempts = j.attempts + 1, error = NULL, updated_at = now(), progress = '{}'::jsonb"
            " FROM c WHERE j.id = c.id RETURNING j.*",
            {"active": active, "stale": stale, "worker": worker_id},
        ).fetchone()
        return row


def heartbeat(db: Database, job_id: uuid.UUID, worker_id: str) -> bool:
    """Prove the worker is alive; ``False`` means the job is no longer ours (reclaimed or cancelled)."""
    with db.connection() as conn:
        cur = conn.execute(
            "UPDATE ingestion_jobs SET heartbeat_at = now() WHERE id = %s AND locked_by = %s AND state = ANY(%s)",
            (job_id, worker_id, list(ACTIVE_STATES)),
        )
        return cur.rowcount > 0


def set_state(db: Database, job_id: uuid.UUID, state: str, progress: dict[str, Any] | None = None,
              worker_id: str | None = None) -> bool:
    """Move an active job to another active state; merges ``progress`` into the job's progress."""
    if state not in ACTIVE_STATES:
        raise ValueError(f"not an active state: {state}")
    with db.connection() as conn:
        cur = conn.execute(
            "UPDATE ingestion_jobs SET state = %s, progress = progress || %s, heartbeat_at = now(), "
            "updated_at = now() WHERE id = %s AND state = ANY(%s) AND (%s::text IS NULL OR locked_by = %s)",
            (state, Jsonb(progress or {}), job_id, list(ACTIVE_STATES), worker_id, worker_id),
        )
        return cur.rowcount > 0


def finish(db: Database, job_id: uuid.UUID, outcome: str, document_id: uuid.UUID | str | None = None,
           version: int | None = None, worker_id: str | None = None,
           progress: dict[str, Any] | None = None) -> bool:
    """Mark the job done (merging ``progress`` into its progress). ``False`` if it was cancelled or
    taken over meanwhile."""
    with db.connection() as conn:
        cur = conn.execute(
            "UPDATE ingestion_jobs SET state = 'done', outcome = %s, document_id = %s, version = %s, "
            "error = NULL, locked_by = NULL, updated_at = now(), progress = progress || %s "
            "WHERE id = %s AND state <> ALL(%s) AND (%s::text IS NULL OR locked_by = %s)",
            (outcome, document_id, version, Jsonb(progress or {}), job_id, list(TERMINAL_STATES), worker_id,
             worker_id),
        )
        return cur.rowcount > 0


def fail(db: Database, job_id: uuid.UUID, error: str, *, retry: bool = True, base_s: float | None = None,
         worker_id: str | None = None) -> str | None:
    """Record a failure: back to ``queued`` after ``base * 2^attempts`` s, or ``failed`` once
    ``max_attempts`` is used up (or ``retry`` is False). Returns the new state, ``None`` if
    the job was no longer ours."""
    ing = db.settings.ingestion
    base = base_s if base_s is not None else ing.job_retry_base_s
    with db.connection() as conn:
        row = conn.execute(
            "UPDATE ingestion_jobs SET error = %(error)s, locked_by = NULL, updated_at = now(), "
            "state = CASE WHEN %(retry)s AND attempts < max_attempts THEN 'queued' ELSE 'failed' END, "
            "run_after = CASE WHEN %(retry)s AND attempts < max_attempts "
            "  THEN now() + make_interval(secs => %(base)s * power(2, attempts)) "
            "  WHEN %(retry)s THEN now() + make_interval(secs => %(round_s)s * power(2, failed_rounds)) "
            "  ELSE run_after END, "
            "retry_failed = %(retry)s AND attempts >= max_attempts AND failed_rounds < %(rounds)s "
            "WHERE id = %(id)s AND state <> ALL(%(terminal)s) AND (%(worker)s::text IS NULL OR locked_by = %(worker)s) "
            "RETURNING state",
            {"error": error, "retry": retry, "base": base, "round_s": ing.job_failed_retry_s,
             "rounds": ing.job_failed_rounds, "id": job_id, "terminal": list(TERMINAL_STATES), "worker": worker_id},
        ).fetchone()
        return row["state"] if row else None


class JobLost(Exception):
    """The job was cancelled or taken over by another worker while this one was on it."""


def lock_if_active(conn: psycopg.Connection, job_id: uuid.UUID, worker_id: str) -> None:
    """Inside a caller's transaction: lock the job row while ``worker_id`` still holds it in an
    active state (a concurrent :func:`cancel` then waits for that transaction), else raise
    :class:`JobLost`."""
    row = conn.execute(
        "SELECT state FROM ingestion_jobs WHERE id = %s AND locked_by = %s AND state = ANY(%s) FOR UPDATE",
        (job_id, worker_id, list(ACTIVE_STATES)),
    ).fetchone()
    if row is None:
        raise JobLost(f"job {job_id} is no longer held by {worker_id} (cancelled or taken over)")


def cancel(db: Database, scope: Scope, job_id: uuid.UUID) -> bool:
    """Cancel a job of the scope's bases that has not finished. A worker on it notices between stages
    (and at its heartbeat), stops, and writes nothing: the document's previous version stays current."""
    in_bases, params = scope.kb_sql("j")
    with db.connection() as conn:
        cur = conn.execute(
            "UPDATE ingestion_jobs j SET state = 'cancelled', locked_by = NULL, updated_at = now() "
            f"WHERE j.id = %(id)s AND j.state <> ALL(%(terminal)s) AND {in_bases}",
            {**params, "id": job_id, "terminal": list(TERMINAL_STATES)},
        )
        return cur.rowcount > 0


def get(db: Database, job_id: uuid.UUID | str) -> Job | None:
    """The job a worker holds (the queue's own look-up; callers read through :func:`find`)."""
    with db.connection() as conn:
        return conn.execute("SELECT * FROM ingestion_jobs WHERE id = %s", (job_id,)).fetchone()


# A job as callers read it: with the name of its base.
_READ = "SELECT j.*, (SELECT b.name FROM knowledge_bases b WHERE b.id = j.kb_id) AS kb FROM ingestion_jobs j"


def find(db: Database, scope: Scope, job_id: uuid.UUID | str) -> Job | None:
    """A job of the scope's bases; ``None`` for any other."""
    in_bases, params = scope.kb_sql("j")
    with db.connection() as conn:
        return conn.execute(f"{_READ} WHERE j.id = %(id)s AND {in_bases}", {**params, "id": job_id}).fetchone()


def known(db: Database, scope: Scope, job_ids: list[uuid.UUID]) -> set[uuid.UUID]:
    """Which of ``job_ids`` are jobs of the scope's bases."""
    in_bases, params = scope.kb_sql("j")
    with db.connection() as conn:
        rows = conn.execute(f"SELECT j.id FROM ingestion_jobs j WHERE j.id = ANY(%(ids)s::uuid[]) AND {in_bases}",
                            {**params, "ids": job_ids}).fetchall()
    return {r["id"] for r in rows}


def list_jobs(db: Database, scope: Scope, *, state: str | None = None, source_key: str | None = None,
              limit: int = 100, offset: int = 0) -> list[Job]:
    """Jobs of the scope's bases, newest first."""
    in_bases, params = scope.kb_sql("j")
    with db.connection() as conn:
        return conn.execute(
            f"{_READ} WHERE (%(state)s::text IS NULL OR j.state = %(state)s) "
            f"AND (%(key)s::text IS NULL OR j.source_key = %(key)s) AND {in_bases} "
            "ORDER BY j.created_at DESC, j.id LIMIT %(limit)s OFFSET %(offset)s",
            {**params, "state": state, "key": source_key, "limit": limit, "offset": offset},
        ).fetchall()


def queue_depth(db: Database) -> int:
    """Jobs not finished yet (queued, waiting for a retry, or being worked on)."""
    with db.connection() as conn:
        row = conn.execute(
            "SELECT count(*) AS n FROM ingestion_jobs WHERE state <> ALL(%s)", (list(TERMINAL_STATES),)
        ).fetchone()
        return int(row["n"]) if row else 0


def count_jobs(db: Database, scope: Scope, *, state: str | None = None, source_key: str | None = None) -> int:
    in_bases, params = scope.kb_sql("j")
    with db.connection() as conn:
        row = conn.execute(
            "SELECT count(*) AS n FROM ingestion_jobs j WHERE (%(state)s::text IS NULL OR j.state = %(state)s) "
            f"AND (%(key)s::text IS NULL OR j.source_key = %(key)s) AND {in_bases}",
            {**params, "state": state, "key": source_key},
        ).fetchone()
        return int(row["n"]) if row else 0


def changed_since(db: Database, scope: Scope, since: Any | None, job_ids: list[uuid.UUID] | None = None,
                  limit: int = 500) -> list[Job]:
    """Jobs of the scope's bases updated at or after ``since``, oldest change first, optionally only
    ``job_ids``. With ``since`` None: all of ``job_ids``, or every unfinished job. ``updated_at`` is a
    transaction's start time, so callers should look back a little and de-duplicate."""
    in_bases, params = scope.kb_sql("j")
    with db.connection() as conn:
        return conn.execute(
            f"{_READ} WHERE "
            "(CASE WHEN %(since)s::timestamptz IS NULL "
            "      THEN (%(ids)s::uuid[] IS NOT NULL OR j.state <> ALL(%(terminal)s)) "
            "      ELSE j.updated_at >= %(since)s::timestamptz END) "
            f"AND (%(ids)s::uuid[] IS NULL OR j.id = ANY(%(ids)s::uuid[])) AND {in_bases} "
            "ORDER BY j.updated_at, j.id LIMIT %(limit)s",
            {**params, "since": since, "terminal": list(TERMINAL_STATES), "ids": job_ids, "limit": limit},
        ).fetchall()


def unfinished_for_key(db: Database, kb: uuid.UUID, source_key: str) -> int:
    """How many jobs for this file of base ``kb`` are queued or running."""
    with db.connection() as conn:
        row = conn.execute(
            "SELECT count(*) AS n FROM ingestion_jobs WHERE kb_id = %s AND source_key = %s AND state <> ALL(%s)",
            (kb, source_key, list(TERMINAL_STATES)),
        ).fetchone()
        return int(row["n"]) if row else 0


def database_now(db: Database) -> Any:
    with db.connection() as conn:
        row = conn.execute("SELECT clock_timestamp() AS now").fetchone()
        assert row is not None
        return row["now"]
