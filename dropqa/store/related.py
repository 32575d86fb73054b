"""Documents related to a document: shared topics, and other documents that mention its name."""

from __future__ import annotations

import uuid
from typing import Any

from dropqa.store.db import Database
from dropqa.store.scope import Scope


def by_shared_topics(db: Database, scope: Scope, document_id: uuid.UUID, limit: int = 10) -> list[dict[str, Any]]:
    """Visible documents of the scope's bases sharing topics with ``document_id`` (current versions), most
    shared first."""
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        return conn.execute(
            "WITH mine AS (SELECT dt.topic_id FROM document_topics dt JOIN documents d ON d.id = dt.document_id "
            "              WHERE dt.document_id = %(doc)s AND dt.version = d.current_version) "
            "SELECT d.id AS document_id, d.filename, count(*) AS shared, "
            "       array_agg(t.name ORDER BY dt.confidence DESC) AS topics "
            "FROM document_topics dt JOIN documents d ON d.id = dt.document_id "
            "JOIN topics t ON t.id = dt.topic_id "
            "WHERE dt.topic_id IN (SELECT topic_id FROM mine) AND dt.document_id <> %(doc)s "
            f"AND dt.version = d.current_version AND d.deleted_at IS NULL AND {in_bases} "
            "GROUP BY d.id, d.filename ORDER BY shared DESC, d.filename LIMIT %(limit)s",
            {**params, "doc": document_id, "limit": limit},
        ).fetchall()


def mentioning(db: Database, scope: Scope, phrase: str, exclude: uuid.UUID, limit: int = 10) -> list[dict[str, Any]]:
    """Visible documents of the scope's bases (current versions) whose text mentions ``phrase`` —
    cross-references by name."""
    if len(phrase) < 2:
        return []
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        return conn.execute(
            "SELECT d.id AS document_id, d.filename, count(*) AS mentions FROM nodes n "
            "JOIN documents d ON d.id = n.document_id "
            "WHERE n.version = d.current_version AND d.deleted_at IS NULL AND n.document_id <> %(doc)s "
            f"AND strpos(lower(n.content), lower(%(phrase)s)) > 0 AND {in_bases} "
            "GROUP BY d.id, d.filename ORDER BY mentions DESC, d.filename LIMIT %(limit)s",
            {**params, "doc": exclude, "phrase": phrase, "limit": limit},
        ).fetchall()
