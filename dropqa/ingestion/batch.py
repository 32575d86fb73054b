"""Indexing a list of files the way ``dropqa index`` does: several files parsed at once, each
written as soon as it is ready, one embedder filling embeddings behind them, stoppable.

- Parsing runs in the isolated child (:func:`~dropqa.ingestion.pipeline.default_parse`: the
  worker's time and memory limits), ``workers`` files at a time, in threads that wait on them.
- The calling thread enriches and writes each file in order: a file is answerable by full-text
  when its line is reported.
- One background thread embeds what the written versions (and any earlier, interrupted run)
  left pending, batch by batch, so semantic search improves while files are still being parsed.
- Once every file is written, the run waits for the embedder (``wait_for_embeddings``) and reports
  the backlog — passages and distinct texts left, the rate, the time left (:mod:`.backlog`) — every
  ``BACKLOG_POLL_S`` (``ingestion.backlog_report_s`` when shorter). Without waiting no embedder
  runs: the run returns once the files are written and leaves every embedding to the workers.
- :meth:`BatchRun.stop` (Ctrl-C, SIGTERM) starts no new file, finishes the files already being
  parsed, stops the embedder after its batch and returns: everything finished is kept, the rest
  of the embeddings stay pending for the next run or a worker.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from dropqa.ingestion.backlog import Backlog, BacklogClock
from dropqa.ingestion.pipeline import Indexer, IndexOutcome, ParsedFile
from dropqa.store import pending as pending_store
from dropqa.store.bases import DEFAULT_KB

BACKLOG_POLL_S = 2.0  # how often (at most) the backlog is counted while the run waits for the embedder


@dataclass
class BatchSummary:
    outcomes: list[IndexOutcome] = field(default_factory=list)
    seconds: float = 0.0
    stopped: bool = False
    embedded: int = 0  # passages embedded by this run
    first_written_s: float | None = None  # from the start to the first new version visible (full-text)
    fully_embedded_s: float | None = None  # from the start to nothing left to embed (None: stopped first)
    still_pending: int = 0  # passages of current versions left to embed (a rerun or a worker finishes them)
    embed_error: str | None = None

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)


class _Embedder(threading.Thread):
    """Fills pending embeddings until told to stop, or until writing is over and none is left."""

    def __init__(self, indexer: Indexer, on_batch: Callable[[int], None] | None):
        super().__init__(name="dropqa-embedder", daemon=True)
        self.indexer = indexer
        self.on_batch = on_batch
        self.writing_done = threading.Event()
        self.halt = threading.Event()
        self.wake = threading.Event()
        self.embedded = 0
        self.finished_at: float | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.halt.is_set():
                base = self.embedded

                def progress(_stage: str, details: dict | None = None, base: int = base) -> None:
                    self.embedded = base + int((details or {}).get("embedded", 0))
                    if self.on_batch is not None:
                        self.on_batch(self.embedded)

                self.embedded = base + self.indexer.fill(progress=progress, should_stop=self.halt.is_set)
                if self.embedded == base:
                    if self.writing_done.is_set():
                        self.finished_at = time.perf_counter()
                        return
                    self.wake.wait(0.5)
                    self.wake.clear()
        except BaseException as exc:  # reported by the run; the rest stays pending
            self.error = exc


class BatchRun:
    """One ``dropqa index`` run over ``files`` (``(path, source_key)`` pairs) into knowledge base ``kb``."""

    def __init__(self, indexer: Indexer, workers: int = 1,
                 on_file: Callable[[IndexOutcome], None] | None = None,
                 on_stage: Callable[[str, str], None] | None = None,
                 on_embedded: Callable[[int], None] | None = None,
                 on_backlog: Callable[[Backlog], None] | None = None,
                 kb: uuid.UUID = DEFAULT_KB):
        self.indexer = indexer
        self.on_backlog = on_backlog
        self.kb = kb
        self.workers = max(1, workers)
        self.on_file = on_file or (lambda _o: None)
        self.on_stage = on_stage
        self.on_embedded = on_embedded
        self._stop = threading.Event()

    def stop(self) -> None:
        """Start no new file; finish those being parsed; stop the embedder after its batch."""
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def run(self, files: Iterable[tuple[Path, str]], wait_for_embeddings: bool = True) -> BatchSummary:
        started = time.perf_counter()
        summary = BatchSummary()
        embedder = _Embedder(self.indexer, self.on_embedded)
        if wait_for_embeddings:  # else nothing is embedded here: the workers do it
            embedder.start()
        todo = deque(files)
        in_flight: deque[Future[ParsedFile]] = deque()
        with ThreadPoolExecutor(self.workers, thread_name_prefix="dropqa-parse") as pool:
            while todo or in_flight:
                while todo and len(in_flight) < self.workers + 1 and not self._stop.is_set():
                    path, key = todo.popleft()
                    in_flight.append(pool.submit(self.indexer.parse_file, path, key, self._stage_for(key),
                                                 kb=self.kb))
                if not in_flight:
                    break
                pf = in_flight.popleft().result()
                outcome = self.indexer.write_parsed(pf, self._stage_for(pf.outcome.source_key), embed=False)
                if outcome.status in ("indexed", "new_version") and summary.first_written_s is None:
                    summary.first_written_s = time.perf_counter() - started
                embedder.wake.set()
                summary.outcomes.append(outcome)
                self.on_file(outcome)
        embedder.writing_done.set()
        embedder.wake.set()
        if not wait_for_embeddings or self._stop.is_set():
            embedder.halt.set()
        self._wait(embedder)
        summary.stopped = self._stop.is_set()
        summary.embedded = embedder.embedded
        summary.seconds = time.perf_counter() - started
        summary.still_pending = pending_store.totals(self.indexer.db)["nodes"]
        if embedder.finished_at is not None and not summary.still_pending:
            summary.fully_embedded_s = embedder.finished_at - started
        if embedder.error is not None:
            if not isinstance(embedder.error, Exception):
                raise embedder.error
            summary.embed_error = f"{type(embedder.error).__name__}: {embedder.error}"
        return summary

    def _wait(self, embedder: _Embedder) -> None:
        """Until the embedder is done (or stopped), reporting the backlog every ``BACKLOG_POLL_S``."""
        clock = BacklogClock()
        every = min(BACKLOG_POLL_S, self.indexer.settings.ingestion.backlog_report_s)
        next_count = time.monotonic()
        while embedder.is_alive():
            embedder.join(0.2)
            if self._stop.is_set():
                embedder.halt.set()
            if self.on_backlog is not None and not embedder.halt.is_set() and time.monotonic() >= next_count:
                next_count = time.monotonic() + every
                try:
                    left = pending_store.backlog(self.indexer.db, self.indexer.embedder.name)
                except Exception:  # a report must never stop the run; the embedder says what went wrong
                    continue
                if left["nodes"]:
                    self.on_backlog(clock.update(left["nodes"], left["texts"]))

    def _stage_for(self, key: str) -> Callable[..., None]:
        def stage(name: str, _details: dict | None = None) -> None:
            if self.on_stage is not None:
                self.on_stage(key, name)
        return stage
