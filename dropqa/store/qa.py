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


def history(db: Database, limit: int = 50, offset: int = 0, thread_id: str | None = None) -> list[dict[str, Any]]:
    """Newest first; only one conversation's answers when ``thread_id`` is given."""
    with db.connection() as conn:
        return conn.execute(
            "SELECT id, thread_id, question, answer, response, feedback, created_at FROM qa_history "
            "WHERE (%s::text IS NULL OR thread_id = %s) ORDER BY created_at DESC, id LIMIT %s OFFSET %s",
            (thread_id, thread_id, limit, offset),
        ).fetchall()


def set_feedback(db: Database, answer_id: uuid.UUID, rating: str, comment: str | None) -> dict[str, Any] | None:
    """Record thumbs up/down and a comment on an answer (the last word wins); ``None``: no such answer."""
    with db.connection() as conn:
        return conn.execute(
            "UPDATE qa_history SET feedback = jsonb_build_object('rating', %s::text, 'comment', %s::text, "
            "'at', now()) WHERE id = %s RETURNING id, feedback",
            (rating, comment, answer_id),
        ).fetchone()
