"""Keeps the embedded PostgreSQL alive for the process that runs it.

Every ``database.watchdog_s`` a daemon thread looks at the postmaster of the data dir. When it has
died (``kill -9``, the OOM killer) the thread marks the database down — requests then get
``database_unavailable`` at once instead of waiting for a connection — and starts the server again;
the pool's connections to the dead server are discarded on their next check-out and new ones made.
A server stopped with ``dropqa db stop --force`` is not started again (the mark it leaves,
:func:`~dropqa.store.server.stopped_on_purpose`): the database stays down, saying so, until a DropQA
process opens it on purpose; then this watchdog sees it running and takes it back.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from dropqa.store.server import StoppedOnPurpose, embedded_running, restart_embedded

log = logging.getLogger(__name__)


class EmbeddedWatchdog:
    def __init__(self, data_dir: Path, every_s: float, on_recovered: object = None):
        self.data_dir = data_dir
        self.every_s = every_s
        self.alive = True
        self.down_reason = ""  # why the database is down, for the 503s while it is
        self.restarts = 0
        self._on_recovered = on_recovered
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="dropqa-pg-watchdog", daemon=True)

    def start(self) -> EmbeddedWatchdog:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def check(self) -> bool:
        """One look: restart the server if it is down. Returns whether it runs now."""
        try:
            running = embedded_running(self.data_dir)
        except Exception:  # an unreadable pid file: treat as running, the pool reports real failures
            log.debug("cannot read the postmaster state", exc_info=True)
            return True
        if running:
            if not self.alive:
                self._recovered()
            return True
        if self.alive:
            log.warning("the embedded PostgreSQL in %s is not running; restarting it", self.data_dir / "pg")
            self.down_reason = "the embedded PostgreSQL is not running; it is being restarted"
        self.alive = False
        try:
            restart_embedded(self.data_dir)
        except StoppedOnPurpose as exc:  # `dropqa db stop --force`: stays down until opened on purpose
            if self.down_reason != str(exc):
                log.warning("%s", exc)
            self.down_reason = str(exc)
            return False
        except Exception as exc:  # still down (old backends hold its memory, disk full…): next round
            log.warning("restarting the embedded PostgreSQL failed: %s", exc)
            return False
        self.restarts += 1
        self._recovered()
        return True

    def _recovered(self) -> None:
        log.warning("the embedded PostgreSQL is running again")
        self.alive, self.down_reason = True, ""
        if callable(self._on_recovered):
            self._on_recovered()

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            self.check()
