"""QA history: every answer given, with its sources, for the history view and feedback."""

from __future__ import annotations

import uuid
from typing import Any

from psycopg.types.json import Jsonb

from dropqa.store.db import Database


def record_answer(db: Database, question: str, response: dict[str, Any], thread_id: str | None = None) -> uuid.UUID:
    with db.connection() as conn:
        row = conn.execute(
            "INSERT INTO qa_history (thread_id, question, answer, response) VALUES (%s, %s, %s, %s) RETURNING id",
            (thread_id, question, response.get("answer", ""), Jsonb(response)),
        ).fetchone()
    assert row is not None
    return row["id"]


def history(db: Database, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
    with db.connection() as conn:
        return conn.execute(
            "SELECT id, thread_id, question, answer, response, feedback, created_at FROM qa_history "
            "ORDER BY created_at DESC LIMIT %s OFFSET %s",
            (limit, offset),
        ).fetchall()
