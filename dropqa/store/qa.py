"""QA history: every answer given, with its sources, for the history view and feedback.

An answer remembers the knowledge bases it was answered from (``kb_ids``); a reader sees it only when
it may read every one of them (:meth:`~dropqa.store.scope.Scope.answers_sql`)."""

from __future__ import annotations

import uuid
from typing import Any

from psycopg.types.json import Jsonb

from dropqa.store.db import Database
from dropqa.store.scope import Scope


def record_answer(db: Database, kbs: tuple[uuid.UUID, ...], question: str, response: dict[str, Any],
                  thread_id: str | None = None) -> uuid.UUID:
    """Keep an answer given from the bases ``kbs``."""
    with db.connection() as conn:
        row = conn.execute(
            "INSERT INTO qa_history (kb_ids, thread_id, question, answer, response) VALUES (%s, %s, %s, %s, %s) "
            "RETURNING id",
            (list(kbs), thread_id, question, response.get("answer", ""), Jsonb(response)),
        ).fetchone()
    assert row is not None
    return row["id"]


def history(db: Database, scope: Scope, limit: int = 50, offset: int = 0,
            thread_id: str | None = None) -> list[dict[str, Any]]:
    """Newest first, the answers the scope may see; only one conversation's when ``thread_id`` is given."""
    visible, params = scope.answers_sql("h")
    with db.connection() as conn:
        return conn.execute(
            "SELECT h.id, h.thread_id, h.question, h.answer, h.response, h.feedback, h.created_at FROM qa_history h "
            f"WHERE (%(thread)s::text IS NULL OR h.thread_id = %(thread)s) AND {visible} "
            "ORDER BY h.created_at DESC, h.id LIMIT %(limit)s OFFSET %(offset)s",
            {**params, "thread": thread_id, "limit": limit, "offset": offset},
        ).fetchall()


def set_feedback(db: Database, scope: Scope, answer_id: uuid.UUID, rating: str,
                 comment: str | None) -> dict[str, Any] | None:
    """Record thumbs up/down and a comment on an answer (the last word wins); ``None``: no such answer
    that the scope may see."""
    visible, params = scope.answers_sql("h")
    with db.connection() as conn:
        return conn.execute(
            "UPDATE qa_history h SET feedback = jsonb_build_object('rating', %(rating)s::text, "
            "'comment', %(comment)s::text, 'at', now()) "
            f"WHERE h.id = %(id)s AND {visible} RETURNING h.id, h.feedback",
            {**params, "rating": rating, "comment": comment, "id": answer_id},
        ).fetchone()
