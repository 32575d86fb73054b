"""Reading the node tree: one node, its ancestors, children, neighbours, a document's outline."""

from __future__ import annotations

import uuid
from typing import Any

from dropqa.store.db import Database
from dropqa.store.search import NODE_COLUMNS


def get_node(db: Database, node_id: uuid.UUID) -> dict[str, Any] | None:
    with db.connection() as conn:
        return conn.execute(
            f"SELECT {NODE_COLUMNS}, d.source_key, d.deleted_at FROM nodes n "
            "JOIN documents d ON d.id = n.document_id WHERE n.id = %s",
            (node_id,),
        ).fetchone()


def get_nodes(db: Database, node_ids: list[uuid.UUID]) -> list[dict[str, Any]]:
    if not node_ids:
        return []
    with db.connection() as conn:
        return conn.execute(
            f"SELECT {NODE_COLUMNS} FROM nodes n JOIN documents d ON d.id = n.document_id WHERE n.id = ANY(%s)",
            (node_ids,),
        ).fetchall()


def ancestors(db: Database, node_id: uuid.UUID) -> list[dict[str, Any]]:
    """From the document node down to the parent of ``node_id`` (titles and summaries)."""
    with db.connection() as conn:
        rows = conn.execute(
            "WITH RECURSIVE up AS ("
            "  SELECT id, parent_id, node_type, title, summary, depth, metadata FROM nodes "
            "  WHERE id = (SELECT parent_id FROM nodes WHERE id = %s) "
            "  UNION ALL SELECT n.id, n.parent_id, n.node_type, n.title, n.summary, n.depth, n.metadata "
            "  FROM nodes n JOIN up ON n.id = up.parent_id) "
            "SELECT id AS node_id, node_type, title, summary, depth, metadata FROM up ORDER BY depth",
            (node_id,),
        ).fetchall()
    return rows


def children(db: Database, node_id: uuid.UUID, limit: int = 200) -> list[dict[str, Any]]:
    with db.connection() as conn:
        return conn.execute(
            f"SELECT {NODE_COLUMNS} FROM nodes n JOIN documents d ON d.id = n.document_id "
            "WHERE n.parent_id = %s ORDER BY n.position LIMIT %s",
            (node_id, limit),
        ).fetchall()


def neighbours(db: Database, document_id: uuid.UUID, version: int, position: int, before: int,
               after: int) -> list[dict[str, Any]]:
    """Content nodes around ``position`` in document order (window expansion, neighbour recall)."""
    with db.connection() as conn:
        return conn.execute(
            f"SELECT {NODE_COLUMNS} FROM nodes n JOIN documents d ON d.id = n.document_id "
            "WHERE n.document_id = %s AND n.version = %s AND n.position BETWEEN %s AND %s "
            "AND n.node_type NOT IN ('section', 'document') ORDER BY n.position",
            (document_id, version, position - before, position + after),
        ).fetchall()


def outline(db: Database, document_id: uuid.UUID, version: int, max_depth: int = 6,
            sections_only: bool = True) -> list[dict[str, Any]]:
    """The document's tree in order: sections (and optionally content) with titles and summaries."""
    type_filter = "AND n.node_type IN ('document', 'section')" if sections_only else ""
    with db.connection() as conn:
        return conn.execute(
            "SELECT n.id AS node_id, n.parent_id, n.node_type, n.depth, n.title, n.summary, n.position, "
            "n.metadata, left(n.content, 200) AS preview FROM nodes n "
            f"WHERE n.document_id = %s AND n.version = %s AND n.depth <= %s {type_filter} ORDER BY n.position",
            (document_id, version, max_depth),
        ).fetchall()


def find_documents(db: Database, name_terms: list[str], version: int | None = None) -> list[dict[str, Any]]:
    """Documents whose file name contains any of the terms (for "what does chapter 3 of X say")."""
    with db.connection() as conn:
        return conn.execute(
            "SELECT d.id AS document_id, d.filename, d.current_version, "
            "(SELECT count(*) FROM unnest(%s::text[]) t WHERE d.filename ILIKE '%%' || t || '%%') AS hits "
            "FROM documents d WHERE d.deleted_at IS NULL AND d.current_version > 0 "
            "ORDER BY hits DESC, d.filename",
            (name_terms,),
        ).fetchall()


def image_for_node(db: Database, node_id: uuid.UUID) -> dict[str, Any] | None:
    with db.connection() as conn:
        return conn.execute(
            "SELECT id, mime, data, width, height FROM images WHERE node_id = %s LIMIT 1", (node_id,)
        ).fetchone()


def get_image(db: Database, image_or_node_id: uuid.UUID) -> dict[str, Any] | None:
    """An image by its own id, or the image of a node (what a source's ``node_id`` points at)."""
    with db.connection() as conn:
        return conn.execute(
            "SELECT id, node_id, mime, data, width, height FROM images WHERE id = %s OR node_id = %s "
            "ORDER BY (id = %s) DESC, created_at LIMIT 1",
            (image_or_node_id, image_or_node_id, image_or_node_id),
        ).fetchone()
