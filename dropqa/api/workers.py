"""Ingestion workers inside the server process, so uploads are processed without a separate
``dropqa worker``. They share the job queue with any external workers (``SKIP LOCKED``)."""

from __future__ import annotations

import logging
import threading

from dropqa.ingestion.worker import Worker, default_worker_id
from dropqa.services import Services

log = logging.getLogger(__name__)


class EmbeddedWorkers:
    def __init__(self, services: Services, count: int):
        self.services = services
        self.count = count
        self.stop_event = threading.Event()
        self.threads: list[threading.Thread] = []

    def start(self) -> None:
        base = default_worker_id()
        for i in range(self.count):
            worker = Worker(self.services, f"{base}:api-{i}")
            thread = threading.Thread(target=self._run, args=(worker,), name=f"dropqa-worker-{i}", daemon=True)
            thread.start()
            self.threads.append(thread)
        if self.count:
            log.info("started %d embedded ingestion worker(s)", self.count)

    def _run(self, worker: Worker) -> None:
        try:
            worker.run_forever(self.stop_event)
        except Exception:  # the worker loop logs and survives job errors; this is a start-up failure
            log.exception("embedded worker %s stopped", worker.worker_id)

    def stop(self, timeout_s: float = 30.0) -> None:
        """Ask every worker to stop after its current job and wait for them (a job still running
        after ``timeout_s`` is left to the queue's stale-job recovery)."""
        self.stop_event.set()
        for thread in self.threads:
            thread.join(timeout=timeout_s)
            if thread.is_alive():
                log.warning("%s is still finishing a job; it will be reclaimed if the process exits", thread.name)

    @property
    def alive(self) -> int:
        return sum(1 for t in self.threads if t.is_alive())
