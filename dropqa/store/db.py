"""The connection pool and the one object the rest of DropQA holds to reach the store."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from pgvector.psycopg import register_vector
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from dropqa.config import Settings
from dropqa.store.migrate import check_vector_extension, migrate
from dropqa.store.server import DatabaseUnavailable, resolve_database_url

log = logging.getLogger(__name__)


class Database:
    """A psycopg 3 pool over the DropQA schema. Open with :meth:`open`, close with :meth:`close`."""

    def __init__(self, url: str, pool: ConnectionPool, *, embedded: bool, settings: Settings):
        self.url = url
        self.pool = pool
        self.embedded = embedded
        self.settings = settings

    @classmethod
    def open(cls, settings: Settings) -> Database:
        url, embedded = resolve_database_url(settings.database_url, settings.data_dir)
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
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

        pool = ConnectionPool(
            url,
            min_size=settings.database.pool_min,
            max_size=settings.database.pool_max,
            kwargs={"row_factory": dict_row},
            configure=configure,
            open=True,
            name="dropqa",
        )
        pool.wait(timeout=settings.database.startup_timeout_s)
        return cls(url, pool, embedded=embedded, settings=settings)

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        with self.pool.connection() as conn:
            yield conn

    def ping(self) -> bool:
        try:
            with self.connection() as conn:
                conn.execute("SELECT 1")
            return True
        except psycopg.Error:
            return False

    def close(self) -> None:
        self.pool.close()
