"""Who uses the embedded PostgreSQL: a lease file of live processes, so the last one out stops it.

Every DropQA process that starts (or joins) the embedded server of a data dir adds itself to
``<data_dir>/pg-users.json`` (pid and process start time, so a reused pid is not mistaken for
it) under an exclusive ``flock`` on ``<data_dir>/pg-users.lock``. When it exits — normally, by an
exception, or by SIGTERM / SIGINT / SIGHUP, which the CLI turns into an orderly exit — it removes
itself, drops entries whose process is gone (killed with SIGKILL, crashed), and stops the server
when nobody is left. A server left behind by a process killed with SIGKILL is stopped by the next
DropQA process that exits, or at once by ``dropqa db stop``.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psutil

LEASES = "pg-users.json"
LOCK = "pg-users.lock"


@dataclass(frozen=True)
class Lease:
    pid: int
    started: float  # the process' create_time: a reused pid has another one

    def alive(self) -> bool:
        try:
            proc = psutil.Process(self.pid)
            return abs(proc.create_time() - self.started) < 0.5 and proc.status() != psutil.STATUS_ZOMBIE
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            return False

    def command(self) -> str:
        try:
            return " ".join(psutil.Process(self.pid).cmdline())[:200]
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            return ""


def this_process() -> Lease:
    return Lease(os.getpid(), psutil.Process(os.getpid()).create_time())


@contextmanager
def locked(data_dir: Path) -> Iterator[Path]:
    """Hold the data dir's lease lock; yields the lease file's path."""
    data_dir.mkdir(parents=True, exist_ok=True)
    with open(data_dir / LOCK, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield data_dir / LEASES
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def read(path: Path) -> list[Lease]:
    try:
        raw = json.loads(path.read_text() or "[]")
    except (FileNotFoundError, json.JSONDecodeError):
        return []
    return [Lease(int(r["pid"]), float(r["started"])) for r in raw if isinstance(r, dict) and "pid" in r]


def write(path: Path, leases: list[Lease]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps([{"pid": x.pid, "started": x.started} for x in leases]))
    tmp.replace(path)


def live(path: Path, without: Lease | None = None) -> list[Lease]:
    """The leases whose process still runs (``without`` left out)."""
    return [x for x in read(path) if x != without and x.alive()]


def join(path: Path, me: Lease) -> None:
    write(path, [*live(path, me), me])


def leave(path: Path, me: Lease) -> list[Lease]:
    """Remove ``me`` (and the dead); returns who is still using the server."""
    rest = live(path, me)
    write(path, rest)
    return rest
