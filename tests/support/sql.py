"""Plain SQL for tests that look at the store's tables directly (through the store's own pool)."""

from __future__ import annotations

from typing import Any


def one(db: Any, sql: str, *args: Any) -> Any:
    with db.connection() as conn:
        return conn.execute(sql, args).fetchone()


def rows(db: Any, sql: str, *args: Any) -> list[Any]:
    with db.connection() as conn:
        return conn.execute(sql, args).fetchall()


def execute(db: Any, sql: str, *args: Any) -> None:
    with db.connection() as conn:
        conn.execute(sql, args)
