"""The indexer worker: claims jobs from the queue and runs them.

Crash safety comes from two facts: the :class:`~dropqa.ingestion.pipeline.Indexer`
writes a version in one transaction at the end (a worker killed mid-job leaves
nothing half-written), and claimed jobs carry a heartbeat (a job whose worker
died is claimed again by another worker once the heartbeat is stale).

Parsing runs in a child process with a time limit and an address-space limit,
so one pathological file (a decompression bomb, a parser stuck in a loop, a
crash in a C extension) fails that job only and never takes the worker down.
"""

from __future__ import annotations

import functools
import logging
import multiprocessing
import os
import socket
import threading
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from dropqa.config import Settings
from dropqa.store import documents as doc_store
from dropqa.store import jobs
from dropqa.store.db import Database

if TYPE_CHECKING:
    from dropqa.ingestion.document import ParsedDocument
    from dropqa.ingestion.parsers import ParseContext
    from dropqa.ingestion.pipeline import Indexer
    from dropqa.models.embeddings import Embedder

log = logging.getLogger(__name__)
_STAGE_STATES = {"parsing": "parsing", "enriching": "enriching", "embedding": "embedding", "writing": "embedding"}


class ServicesLike(Protocol):
    settings: Settings
    db: Database
    embedder: Embedder


def default_worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


# --- parsing in a child process -------------------------------------------------------------

def _parse_child(conn: Connection, file_type: str, data: bytes, ctx: ParseContext, memory_mb: int) -> None:
    """Runs in the child: apply the memory limit, parse, send back ``(kind, payload)``."""
    if memory_mb > 0:
        import resource

        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from dropqa.ingestion.parsers import ParseError, get_parser

    try:
        conn.send(("ok", get_parser(file_type).parse(data, ctx)))
    except ParseError as exc:
        conn.send(("parse_error", str(exc)))
    except MemoryError:
        conn.send(("parse_error", f"ran out of memory while parsing (limit {memory_mb} MB); "
                                  "the file is too large or malformed"))
    except Exception as exc:
        conn.send(("parse_error", f"unexpected {type(exc).__name__} while parsing: {exc}"))
    finally:
        conn.close()


_mp_context: Any = None


def _context() -> Any:
    """forkserver: children fork from a small, single-threaded server (safe next to the worker's
    threads and the embedder's native thread pools) with the parser modules already imported."""
    global _mp_context
    if _mp_context is None:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["dropqa.ingestion.parsers", "dropqa.ingestion.parsers.markdown",
                                    "dropqa.ingestion.parsers.text"])
        _mp_context = ctx
    return _mp_context


def parse_isolated(file_type: str, data: bytes, ctx: ParseContext, *, timeout_s: float,
                   memory_mb: int) -> ParsedDocument:
    """``get_parser(file_type).parse(data, ctx)`` in a child process; raises ``ParseError`` on
    failure, timeout or a crashed child."""
    from dropqa.ingestion.parsers import ParseError

    mp = _context()
    parent, child = mp.Pipe(duplex=False)
    proc = mp.Process(target=_parse_child, args=(child, file_type, data, ctx, memory_mb), daemon=True)
    proc.start()
    child.close()
    try:
        if not parent.poll(timeout_s):
            raise ParseError(f"parsing took longer than {timeout_s:.0f} s and was stopped")
        try:
            kind, payload = parent.recv()
        except EOFError:
            proc.join(5)
            raise ParseError(f"the parser process died (exit code {proc.exitcode}); "
                             "the file is probably malformed or too large") from None
    finally:
        parent.close()
        if proc.is_alive():
            proc.join(1)
            if proc.is_alive():
                proc.kill()
                proc.join()
    if kind != "ok":
        raise ParseError(payload)
    return payload


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
    (e.g. :class:`~dropqa.tools.services.Services`); the Indexer is built on first use."""

    def __init__(self, services: ServicesLike, worker_id: str | None = None):
        self.services = services
        self.db = services.db
        self.settings = services.settings
        self.worker_id = worker_id or default_worker_id()
        self._indexer: Indexer | None = None

    @property
    def indexer(self) -> Indexer:
        if self._indexer is None:
            from dropqa.ingestion.pipeline import Indexer, parse_in_process

            limits = self.settings.ingestion
            parse = (functools.partial(parse_isolated, timeout_s=limits.parse_timeout_s,
                                       memory_mb=limits.parse_memory_limit_mb)
                     if limits.parse_in_subprocess else parse_in_process)
            self._indexer = Indexer(self.db, self.settings, self.services.embedder, parse=parse)
        return self._indexer

    def run_once(self) -> jobs.Job | None:
        """Claim one job, run it to done/failed/retry, return its final row (``None``: queue empty)."""
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
        return jobs.get(self.db, job["id"])

    def run_forever(self, stop_event: threading.Event, poll_interval: float | None = None) -> None:
        """Drain the queue, then poll every ``poll_interval`` s until ``stop_event`` is set."""
        poll = poll_interval if poll_interval is not None else self.settings.ingestion.worker_poll_s
        _ = self.indexer  # load the embedder before claiming, so a claimed job starts at once
        while not stop_event.is_set():
            try:
                job = self.run_once()
            except Exception:
                log.exception("worker %s: cannot reach the job queue", self.worker_id)
                job = None
            if job is None:
                stop_event.wait(poll)

    def _run(self, job: jobs.Job) -> None:
        if job["action"] == "delete":
            existing = doc_store.find_by_key(self.db, job["source_key"])
            deleted = doc_store.mark_deleted(self.db, job["source_key"])
            jobs.finish(self.db, job["id"], "deleted" if deleted else "unchanged",
                        existing["id"] if existing else None, existing["current_version"] if existing else None,
                        worker_id=self.worker_id)
            return

        def progress(stage: str) -> None:
            state = _STAGE_STATES.get(stage)
            if state:
                jobs.set_state(self.db, job["id"], state, {"stage": stage}, worker_id=self.worker_id)

        outcome = self.indexer.index_file(Path(job["path"]), job["source_key"], progress=progress)
        if outcome.status == "failed":
            jobs.fail(self.db, job["id"], outcome.error or "indexing failed", worker_id=self.worker_id)
        else:
            jobs.finish(self.db, job["id"], outcome.status, outcome.document_id, outcome.version,
                        worker_id=self.worker_id)
