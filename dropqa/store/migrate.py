"""Numbered SQL migrations (``schema/NNN_name.sql``), applied at start-up.

Runs under a transaction-level advisory lock so that two processes starting at
the same moment apply each migration exactly once.
"""

from __future__ import annotations

import logging
from importlib import resources

import psycopg

log = logging.getLogger(__name__)
_LOCK_KEY = 0x44524F50  # "DROP"


def available_migrations() -> list[tuple[int, str, str]]:
    files = resources.files("dropqa.store").joinpath("schema")
    found = []
    for entry in files.iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:3].isdigit():
            found.append((int(name[:3]), name, entry.read_text(encoding="utf-8")))
    return sorted(found)


def migrate(conn: psycopg.Connection) -> list[str]:
    """Apply pending migrations; return the names applied."""
    applied: list[str] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
        for number, name, sql in available_migrations():
            if number in done:
                continue
            log.info("applying migration %s", name)
            conn.execute(sql)  # type: ignore[arg-type]
            conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (number, name))
            applied.append(name)
    return applied


def check_vector_extension(conn: psycopg.Connection) -> None:
    row = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
    if row is None:
        raise RuntimeError(
            "the PostgreSQL server has no pgvector extension ('vector'); install pgvector "
            "or unset DATABASE_URL to use the embedded server"
        )
