"""The connection pool and the one object the rest of DropQA holds to reach the store.

Losing the database is an answer, not a hang: a new connection gives up after
``database.connect_timeout_s``, a pooled one is waited for ``database.acquire_timeout_s``, and a
connection that broke mid-query (the server died) surfaces as :class:`DatabaseUnavailable`
(the API's 503 ``database_unavailable``). Connections are checked on check-out, so after the
server is back the pool replaces dead ones by itself. A process that runs the embedded server
also runs its :class:`~dropqa.store.watchdog.EmbeddedWatchdog`, which starts it again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import psycopg
from pgvector.psycopg import register_vector
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from dropqa.blocking import CallCancelled, current_call
from dropqa.config import Settings
from dropqa.store.migrate import check_vector_extension, migrate
from dropqa.store.server import DatabaseUnavailable, resolve_database_url
from dropqa.store.watchdog import EmbeddedWatchdog

log = logging.getLogger(__name__)
_CONNECTION_STATES = ("57P01", "57P02", "57P03")  # admin / crash shutdown, cannot connect now
BORROW_SLICE_S = 0.25  # a wait for a pooled connection looks at the watchdog this often
# The connection of the :meth:`Database.transaction` block this thread/task is in, if any.
_SHARED: ContextVar[tuple[Database, psycopg.Connection] | None] = ContextVar("dropqa_transaction", default=None)


def is_connection_error(exc: BaseException) -> bool:
    """The connection is gone or cannot be made (not: a query was cancelled by its timeout)."""
    if isinstance(exc, PoolTimeout):
        return True
    if not isinstance(exc, psycopg.OperationalError):
        return False
    state = getattr(exc, "sqlstate", None)
    return state is None or state.startswith("08") or state in _CONNECTION_STATES


class Database:
    """A psycopg 3 pool over the DropQA schema. Open with :meth:`open`, close with :meth:`close`."""

    def __init__(self, url: str, pool: ConnectionPool, *, embedded: bool, settings: Settings):
        self.url = url
        self.pool = pool
        self.embedded = embedded
        self.settings = settings
        self.acquire_timeout_s = settings.database.acquire_timeout_s
        self.watchdog: EmbeddedWatchdog | None = None
        if embedded and settings.database.watchdog_s > 0:
            self.watchdog = EmbeddedWatchdog(settings.data_dir, settings.database.watchdog_s,
                                             on_recovered=self._recovered).start()

    def _recovered(self) -> None:
        try:
            self.pool.check()  # drop the idle connections to the dead server now
        except Exception:
            log.debug("pool check after recovery failed", exc_info=True)

    @staticmethod
    def pool_rules(settings: Settings) -> dict[str, Any]:
        """How every DropQA pool behaves when the database is slow or lost: a new connection gives up
        after ``connect_timeout_s``, a borrowed one is checked (a connection to a server that died is
        replaced), a wait for one ends after ``acquire_timeout_s``, reconnection never backs off for
        minutes, and idle connections close after ``pool_max_idle_s``. Arguments for ``ConnectionPool``;
        ``kwargs`` holds the connection's own and takes more."""
        db = settings.database
        return {"check": ConnectionPool.check_connection, "timeout": db.acquire_timeout_s,
                "reconnect_timeout": max(5.0, db.acquire_timeout_s), "max_idle": db.pool_max_idle_s,
                "kwargs": {"row_factory": dict_row, "connect_timeout": max(1, round(db.connect_timeout_s))}}

    @classmethod
    def open(cls, settings: Settings) -> Database:
        url, embedded = resolve_database_url(settings.database_url, settings.data_dir)
        connect_timeout = max(1, round(settings.database.connect_timeout_s))
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=max(10, connect_timeout)) as conn:
                check_vector_extension(conn)
                conn.autocommit = False
                migrate(conn)
        except psycopg.OperationalError as exc:
            raise DatabaseUnavailable(f"cannot connect to PostgreSQL: {exc}") from exc
        timeout = settings.database.statement_timeout_ms

        def configure(conn: psycopg.Connection) -> None:
            register_vector(conn)
            conn.execute(f"SET statement_timeout = {int(timeout)}")
            conn.commit()

        pool = ConnectionPool(url, min_size=settings.database.pool_min, max_size=settings.database.pool_max,
                              configure=configure, open=True, name="dropqa", **cls.pool_rules(settings))
        pool.wait(timeout=settings.database.startup_timeout_s)
        return cls(url, pool, embedded=embedded, settings=settings)

    @contextmanager
    def connection(self, timeout: float | None = None) -> Iterator[psycopg.Connection]:
        """A pooled connection; :class:`DatabaseUnavailable` at once when the embedded server is known
        to be down (also while waiting for one), after ``acquire_timeout_s`` when none can be had, or when
        it breaks mid-use. Inside :meth:`transaction`, the block's own connection (its work joins that
        transaction). Borrowed for a call of :func:`~dropqa.blocking.in_thread` whose caller is cancelled,
        its query is cancelled on the server (:class:`~dropqa.blocking.CallCancelled`)."""
        shared = _SHARED.get()
        if shared is not None and shared[0] is self:
            yield shared[1]
            return
        call = current_call()
        if call is not None:
            call.check()  # the caller was cancelled: start no new query
        self._check_alive()
        try:
            conn = self._borrow(timeout or self.acquire_timeout_s)
            try:
                forget = call.on_cancel(conn.cancel_safe) if call is not None else None
                try:
                    with conn:  # the pool's connection behaviour: commit, or roll back on an error
                        yield conn
                finally:
                    if forget is not None:
                        forget()
            finally:
                self.pool.putconn(conn)
        except psycopg.OperationalError as exc:
            if call is not None and call.cancelled:
                raise CallCancelled("the request was cancelled; its query was cancelled") from exc
            if is_connection_error(exc):
                raise DatabaseUnavailable(f"the database is unavailable: {str(exc).splitlines()[0]}") from exc
            raise

    def _check_alive(self) -> None:
        if self.watchdog is not None and not self.watchdog.alive:
            raise DatabaseUnavailable(self.watchdog.down_reason or "the embedded PostgreSQL is not running")

    def _borrow(self, timeout: float) -> psycopg.Connection:
        """A connection from the pool. With a watchdog (the embedded server) it is waited for in short
        slices: once the watchdog has seen the server gone, a request waiting here fails at once instead of
        after the whole ``acquire_timeout_s`` (each slice queues again: the pool's first-come order holds
        within a slice only, which matters little next to a dead server)."""
        if self.watchdog is None:
            return self.pool.getconn(timeout=timeout)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                return self.pool.getconn(timeout=max(0.01, min(BORROW_SLICE_S, left)))
            except PoolTimeout:
                self._check_alive()
                if left <= BORROW_SLICE_S:
                    raise

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        """One transaction for several store calls (a request that deletes, frees and queues): every
        :meth:`connection` taken inside the block, in this thread or task, is the block's connection,
        committed at the end of the block and rolled back if it raises."""
        shared = _SHARED.get()
        if shared is not None and shared[0] is self:
            with shared[1].transaction():  # nested: a savepoint
                yield shared[1]
            return
        with self.connection() as conn, conn.transaction():
            token = _SHARED.set((self, conn))
            try:
                yield conn
            finally:
                _SHARED.reset(token)

    def ping(self, timeout: float = 2.0) -> bool:
        try:
            with self.connection(timeout=min(timeout, self.acquire_timeout_s)) as conn:
                conn.execute("SELECT 1")
            return True
        except (psycopg.Error, DatabaseUnavailable):
            return False

    def close(self) -> None:
        if self.watchdog is not None:
            self.watchdog.stop()
        self.pool.close()
