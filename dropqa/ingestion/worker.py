"""The indexer worker: claims jobs from the queue and runs them.

Crash safety comes from three facts: the :class:`~dropqa.ingestion.pipeline.Indexer`
writes a version in one transaction (a worker killed before it leaves nothing
half-written), the embeddings filled in after it are taken and written batch by batch
in transactions of their own (a worker killed then leaves a version that answers by
full-text; the job's retry, or any idle worker — :meth:`Worker.fill_pending` — embeds
the rest), and claimed jobs carry a heartbeat (a job whose worker died is claimed
again by another worker once the heartbeat is stale).

A job names the file's bytes stored in the database (``blob_sha256``), so a worker needs nothing
but ``DATABASE_URL``; a job without stored bytes (queued by an older version) reads its path.

Parsing runs in a child process with a time limit and an address-space limit
(:mod:`dropqa.ingestion.isolation`), so one pathological file fails that job only
and never takes the worker down. A cancelled job is noticed between stages (and
at the very write, which happens only while the worker still holds the job): the
worker stops and the document's previous version stays current.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from dropqa.config import Settings
from dropqa.ingestion.isolation import parse_isolated
from dropqa.store import blobs, jobs
from dropqa.store import documents as doc_store
from dropqa.store.db import Database

if TYPE_CHECKING:
    from dropqa.ingestion.pipeline import Indexer
    from dropqa.models.embeddings import Embedder

log = logging.getLogger(__name__)
_STAGE_STATES = {"parsing": "parsing", "enriching": "enriching", "embedding": "embedding", "writing": "embedding"}


class ServicesLike(Protocol):
    settings: Settings
    db: Database
    embedder: Embedder


__all__ = ["Worker", "default_worker_id", "parse_isolated"]


def default_worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


# --- the worker -------------------------------------------------------------------------------

class _Heartbeat:
    """Beats for one job in a background thread, so a long parse or embedding keeps the lease."""

    def __init__(self, db: Database, job_id: Any, worker_id: str, every_s: float):
        self._stop = threading.Event()
        self.lost = False
        self._thread = threading.Thread(target=self._run, args=(db, job_id, worker_id, every_s),
                                        name=f"heartbeat-{job_id}", daemon=True)

    def _run(self, db: Database, job_id: Any, worker_id: str, every_s: float) -> None:
        while not self._stop.wait(every_s):
            try:
                if not jobs.heartbeat(db, job_id, worker_id):
                    self.lost = True  # cancelled or reclaimed: our finish() will be refused
                    return
            except Exception:  # a DB hiccup must not kill the beat; the next one may succeed
                log.warning("heartbeat for job %s failed", job_id, exc_info=True)

    def __enter__(self) -> _Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


class Worker:
    """Claims and runs jobs. ``services`` is anything with ``settings``, ``db`` and ``embedder``
    (e.g. :class:`~dropqa.services.Services`); the Indexer is built on first use."""

    def __init__(self, services: ServicesLike, worker_id: str | None = None):
        self.services = services
        self.db = services.db
        self.settings = services.settings
        self.worker_id = worker_id or default_worker_id()
        self._indexer: Indexer | None = None

    @property
    def indexer(self) -> Indexer:
        if self._indexer is None:
            from dropqa.ingestion.pipeline import Indexer

            self._indexer = Indexer(self.db, self.settings, self.services.embedder)  # parses in a child process
        return self._indexer

    def run_once(self, refresh_topics: bool = False) -> jobs.Job | None:
        """Claim one job, run it to done/failed/retry, return its final row (``None``: queue empty).
        ``refresh_topics``: recompute its base's topics after a job that changed a document."""
        job = jobs.claim(self.db, self.worker_id)
        if job is None:
            return None
        log.info("worker %s: job %s %s %s (attempt %s)", self.worker_id, job["id"], job["action"],
                 job["source_key"], job["attempts"])
        with _Heartbeat(self.db, job["id"], self.worker_id, self.settings.ingestion.job_heartbeat_s):
            try:
                self._run(job)
            except Exception as exc:  # store errors etc.: retry later rather than lose the job
                log.exception("job %s failed", job["id"])
                jobs.fail(self.db, job["id"], f"unexpected {type(exc).__name__}: {exc}", worker_id=self.worker_id)
        final = jobs.get(self.db, job["id"])
        if refresh_topics and final and _changed_a_document(final):
            self.indexer.refresh_topics(final["kb_id"])
        return final

    def run_forever(self, stop_event: threading.Event, poll_interval: float | None = None) -> None:
        """Drain the queue, then poll every ``poll_interval`` s until ``stop_event`` is set."""
        poll = poll_interval if poll_interval is not None else self.settings.ingestion.worker_poll_s
        _ = self.indexer  # load the embedder before claiming, so a claimed job starts at once
        changed: set[Any] = set()  # bases whose documents changed since their topics were last recomputed
        filled: set[Any] = set()  # bases whose embeddings were filled since (a `dropqa index --no-wait` left
        #                           them): their topics again once the backlog is empty
        while not stop_event.is_set():
            try:
                job = self.run_once()
            except Exception:
                log.exception("worker %s: cannot reach the job queue", self.worker_id)
                job = None
            if job is not None:
                if _changed_a_document(job):
                    changed.add(job["kb_id"])
                continue
            for kb in sorted(changed, key=str):  # the queue ran empty: each changed base's topics, once per batch
                if stop_event.is_set():
                    break  # stopping: they are recomputed after the base next changes
                self.indexer.refresh_topics(kb)
            changed.clear()
            if self._fill_some(stop_event, filled):
                continue
            for kb in sorted(filled, key=str):  # the backlog ran empty: the topics again, from complete embeddings
                self.indexer.refresh_topics(kb)
            filled.clear()
            stop_event.wait(poll)

    def fill_pending(self, stop_event: threading.Event | None = None, batches: int | None = None,
                     bases: set[Any] | None = None) -> int:
        """Embed nodes that visible versions still wait for (left by a process that was stopped or
        killed after writing a version), ``batches`` batches at most; returns how many. ``bases``
        collects the knowledge bases of the documents whose nodes were embedded."""
        from dropqa.store import pending

        embedder, batch = self.indexer.embedder, self.settings.ingestion.embed_fill_batch
        done, runs = 0, 0
        while batches is None or runs < batches:
            n = pending.fill_batch(self.db, embedder.name, embedder.embed_passages, batch, bases=bases)
            done, runs = done + n, runs + 1
            if not n or (stop_event is not None and stop_event.is_set()):
                break
        return done

    def _fill_some(self, stop_event: threading.Event, bases: set[Any]) -> bool:
        """When the queue is empty: one batch of pending embeddings (their bases added to ``bases``);
        ``True`` if there was one."""
        try:
            return self.fill_pending(stop_event, batches=1, bases=bases) > 0
        except Exception:
            log.exception("worker %s: filling pending embeddings failed", self.worker_id)
            return False

    def _run(self, job: jobs.Job) -> None:
        if job["action"] == "delete":
            existing = doc_store.find_by_key(self.db, job["kb_id"], job["source_key"])
            deleted = doc_store.mark_deleted(self.db, job["kb_id"], job["source_key"])
            jobs.finish(self.db, job["id"], "deleted" if deleted else "unchanged",
                        existing["id"] if existing else None, existing["current_version"] if existing else None,
                        worker_id=self.worker_id)
            return

        def progress(stage: str, details: dict[str, Any] | None = None) -> None:
            """Record the stage; stop here when the job was cancelled or taken over (before the
            write: nothing is written; while embedding: the version stays, the rest stays pending)."""
            state = _STAGE_STATES.get(stage)
            if state and not jobs.set_state(self.db, job["id"], state, {"stage": stage, **(details or {})},
                                            worker_id=self.worker_id):
                raise jobs.JobLost(f"job {job['id']} was cancelled or taken over")

        data = None
        if job.get("blob_sha256"):  # the bytes are in the database: this worker may be on any machine
            data = blobs.get(self.db, job["blob_sha256"])
            if data is None:
                jobs.fail(self.db, job["id"], "the file's stored bytes are gone (collected after the document was "
                          "deleted?); upload or save the file again", retry=False, worker_id=self.worker_id)
                return
        try:
            outcome = self.indexer.index_file(Path(job["path"]), job["source_key"], progress=progress,
                                              job=(job["id"], self.worker_id), data=data, kb=job["kb_id"])
        except jobs.JobLost:
            log.info("worker %s: job %s was cancelled or taken over; stopped", self.worker_id, job["id"])
            return
        if outcome.status == "failed":
            jobs.fail(self.db, job["id"], outcome.error or "indexing failed", retry=outcome.retryable,
                      worker_id=self.worker_id)
        else:
            details = {"nodes": outcome.nodes, "warnings": list(outcome.warnings)[:20]}
            if outcome.enrichment:
                details["enrichment"] = outcome.enrichment
            jobs.finish(self.db, job["id"], _own_outcome(job, outcome), outcome.document_id, outcome.version,
                        worker_id=self.worker_id, progress=details)


def _changed_a_document(job: jobs.Job) -> bool:
    """The job is done and indexed, versioned or deleted something (the topics may have moved)."""
    return job["state"] == "done" and job["outcome"] != "unchanged"


def _own_outcome(job: dict[str, Any], outcome: Any) -> str:
    """What the job did. A version this job wrote before its worker died (while filling embeddings)
    is found "unchanged" by the retry: the job row's recorded version says it is the job's own."""
    if (outcome.status == "unchanged" and job.get("document_id") is not None
            and str(job["document_id"]) == str(outcome.document_id) and job.get("version") == outcome.version):
        return "indexed" if outcome.version == 1 else "new_version"
    return str(outcome.status)
