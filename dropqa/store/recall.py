"""Extra recall paths of seed 004 §6.1: a titled sheet's rows, appendix tables, the table after a hit."""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

from psycopg.types.json import Jsonb

from dropqa.store.db import Database
from dropqa.store.scope import Scope
from dropqa.store.search import NODE_COLUMNS


def content_under(db: Database, scope: Scope, node_id: uuid.UUID, limit: int = 3) -> list[dict[str, Any]]:
    """The first content nodes inside a section (a sheet's first row blocks), in document order."""
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        return conn.execute(
            f"WITH root AS (SELECT document_id, version, position, depth FROM nodes WHERE id = %(id)s), "
            f"nxt AS (SELECT min(n.position) AS stop FROM nodes n, root r WHERE n.document_id = r.document_id "
            f"        AND n.version = r.version AND n.position > r.position AND n.depth <= r.depth "
            f"        AND n.node_type IN ('section', 'document')) "
            f"SELECT {NODE_COLUMNS} FROM nodes n JOIN documents d ON d.id = n.document_id, root r, nxt "
            f"WHERE n.document_id = r.document_id AND n.version = r.version AND n.position > r.position "
            f"AND (nxt.stop IS NULL OR n.position < nxt.stop) AND n.node_type NOT IN ('section', 'document') "
            f"AND {in_bases} ORDER BY n.position LIMIT %(limit)s",
            {**params, "id": node_id, "limit": limit},
        ).fetchall()


def appendix_tables(db: Database, scope: Scope, document_ids: list[uuid.UUID],
                    limit_per_doc: int = 2) -> list[dict[str, Any]]:
    """The last appendix-flagged tables/figures of each document's visible version (in the scope's bases
    and version)."""
    if not document_ids:
        return []
    where, params = Scope(kbs=scope.kbs, version=scope.version, document_ids=tuple(document_ids),
                          content_only=False).sql()
    with db.connection() as conn:
        return conn.execute(  # type: ignore[call-overload]
            f"SELECT * FROM (SELECT {NODE_COLUMNS}, row_number() OVER (PARTITION BY n.document_id "
            f"ORDER BY n.position DESC) AS rn FROM nodes n JOIN documents d ON d.id = n.document_id "
            f"WHERE {where} AND (n.metadata->>'appendix_flag')::boolean IS TRUE) x WHERE rn <= %(limit)s",
            {**params, "limit": limit_per_doc},
        ).fetchall()


def next_table(db: Database, scope: Scope, document_id: uuid.UUID, version: int, position: int,
               window: int = 4) -> dict[str, Any] | None:
    """The nearest table or figure after ``position`` (within ``window`` nodes): neighbour recall."""
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        return conn.execute(
            f"SELECT {NODE_COLUMNS} FROM nodes n JOIN documents d ON d.id = n.document_id "
            "WHERE n.document_id = %(doc)s AND n.version = %(v)s AND n.position > %(lo)s AND n.position <= %(hi)s "
            f"AND n.node_type IN ('table', 'figure', 'image') AND {in_bases} ORDER BY n.position LIMIT 1",
            {**params, "doc": document_id, "v": version, "lo": position, "hi": position + window},
        ).fetchone()


def document_titles(db: Database, scope: Scope) -> list[dict[str, Any]]:
    """Every visible document's id, version, file name, title (its root node), first heading, the
    subjects found in its text at indexing (``subjects``: None for a version indexed before they were) and the
    first 200 characters of its first passage (``opening``): the names a question may call it by."""
    where, params = Scope(kbs=scope.kbs, version=scope.version, topics=scope.topics, content_only=False).sql()
    with db.connection() as conn:
        return conn.execute(
            "SELECT d.id AS document_id, n.version, d.filename, coalesce(n.title, '') AS title, "
            "coalesce((SELECT h.title FROM nodes h WHERE h.document_id = n.document_id AND h.version = n.version "
            "          AND h.depth = 1 AND h.node_type = 'section' ORDER BY h.position LIMIT 1), '') AS heading, "
            "v.metadata->'subjects' AS subjects, "
            # its first words: the name a plain report opens with ("Quillstone Data Systems Inc. (…the Company…)")
            "coalesce((SELECT left(c.content, 200) FROM nodes c WHERE c.document_id = n.document_id "
            "          AND c.version = n.version AND c.depth > 0 AND c.node_type NOT IN ('section', 'document') "
            "          ORDER BY c.position LIMIT 1), '') AS opening "
            "FROM nodes n JOIN documents d ON d.id = n.document_id "
            "JOIN document_versions v ON v.document_id = n.document_id AND v.version = n.version "
            f"WHERE n.depth = 0 AND {where} ORDER BY d.filename, d.id, n.version",  # one order: ties in naming
            params,
        ).fetchall()


def opening_nodes(db: Database, scope: Scope, document_id: uuid.UUID, limit: int = 60) -> list[dict[str, Any]]:
    """The first nodes (type, title, content) of the version of ``document_id`` that ``scope`` sees, in
    document order: what its opening says."""
    where, params = replace(scope, document_ids=(document_id,), content_only=False).sql()
    with db.connection() as conn:
        return conn.execute(
            "SELECT n.node_type, n.depth, n.title, n.content FROM nodes n JOIN documents d ON d.id = n.document_id "
            f"WHERE {where} ORDER BY n.position LIMIT %(limit)s",
            {**params, "limit": limit},  # type: ignore[arg-type]
        ).fetchall()


def set_subjects(db: Database, scope: Scope, document_id: uuid.UUID, version: int, subjects: list[str]) -> None:
    """Record the subjects found for a version indexed before subjects were kept (a version ``scope`` sees)."""
    where, params = replace(scope, document_ids=(document_id,), content_only=False).sql()
    with db.connection() as conn:
        conn.execute(
            "UPDATE document_versions v SET metadata = jsonb_set(v.metadata, '{subjects}', %(subjects)s) "
            "WHERE v.document_id = %(doc)s AND v.version = %(ver)s AND EXISTS (SELECT 1 FROM nodes n "
            f"JOIN documents d ON d.id = n.document_id WHERE n.document_id = v.document_id AND {where})",
            {**params, "subjects": Jsonb(subjects), "doc": document_id, "ver": version},  # type: ignore[arg-type]
        )
