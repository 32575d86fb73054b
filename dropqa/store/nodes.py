"""Reading the node tree: one node, its ancestors, children, neighbours, a document's outline, images.

Every read takes the :class:`~dropqa.store.scope.Scope` of its caller: a node, a document or an image of
a base the scope does not name is not found."""

from __future__ import annotations

import uuid
from typing import Any

from dropqa.store.db import Database
from dropqa.store.scope import Scope
from dropqa.store.search import NODE_COLUMNS


def get_node(db: Database, scope: Scope, node_id: uuid.UUID) -> dict[str, Any] | None:
    """One node of any version of a document (deleted or not) of the scope's bases."""
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        return conn.execute(
            f"SELECT {NODE_COLUMNS}, d.source_key, d.deleted_at FROM nodes n "
            f"JOIN documents d ON d.id = n.document_id WHERE n.id = %(id)s AND {in_bases}",
            {**params, "id": node_id},
        ).fetchone()


def get_nodes(db: Database, scope: Scope, node_ids: list[uuid.UUID]) -> list[dict[str, Any]]:
    if not node_ids:
        return []
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        return conn.execute(
            f"SELECT {NODE_COLUMNS} FROM nodes n JOIN documents d ON d.id = n.document_id "
            f"WHERE n.id = ANY(%(ids)s) AND {in_bases}",
            {**params, "ids": node_ids},
        ).fetchall()


def ancestors(db: Database, scope: Scope, node_id: uuid.UUID) -> list[dict[str, Any]]:
    """From the document node down to the parent of ``node_id`` (titles and summaries)."""
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        rows = conn.execute(
            "WITH RECURSIVE up AS ("
            "  SELECT p.id, p.parent_id, p.node_type, p.title, p.summary, p.depth, p.metadata FROM nodes p "
            "  JOIN nodes c ON c.parent_id = p.id JOIN documents d ON d.id = c.document_id "
            f"  WHERE c.id = %(id)s AND {in_bases} "
            "  UNION ALL SELECT n.id, n.parent_id, n.node_type, n.title, n.summary, n.depth, n.metadata "
            "  FROM nodes n JOIN up ON n.id = up.parent_id) "
            "SELECT id AS node_id, node_type, title, summary, depth, metadata FROM up ORDER BY depth",
            {**params, "id": node_id},
        ).fetchall()
    return rows


def children(db: Database, scope: Scope, node_id: uuid.UUID, limit: int = 200) -> list[dict[str, Any]]:
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        return conn.execute(
            f"SELECT {NODE_COLUMNS} FROM nodes n JOIN documents d ON d.id = n.document_id "
            f"WHERE n.parent_id = %(id)s AND {in_bases} ORDER BY n.position LIMIT %(limit)s",
            {**params, "id": node_id, "limit": limit},
        ).fetchall()


def neighbours(db: Database, scope: Scope, document_id: uuid.UUID, version: int, position: int, before: int,
               after: int) -> list[dict[str, Any]]:
    """Content nodes around ``position`` in document order (window expansion, neighbour recall)."""
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        return conn.execute(
            f"SELECT {NODE_COLUMNS} FROM nodes n JOIN documents d ON d.id = n.document_id "
            "WHERE n.document_id = %(doc)s AND n.version = %(v)s AND n.position BETWEEN %(lo)s AND %(hi)s "
            f"AND n.node_type NOT IN ('section', 'document') AND {in_bases} ORDER BY n.position",
            {**params, "doc": document_id, "v": version, "lo": position - before, "hi": position + after},
        ).fetchall()


def ends(db: Database, scope: Scope, document_id: uuid.UUID, count: int,
         ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The last ``count`` content nodes of the document's current version and its first ``count``, each in document
    order, read in one query: where it signs off (a judgement's date, its court and judges) and where it opens (a
    judgement dated under its court's name, "Judgment Dated: 14th March 2022")."""
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        rows = conn.execute(
            # the two ends' ids first (positions only), then their columns: a document's other nodes are not read
            "WITH ranked AS (SELECT n.id, row_number() OVER (ORDER BY n.position) AS from_start, "
            "row_number() OVER (ORDER BY n.position DESC) AS from_end FROM nodes n "
            "JOIN documents d ON d.id = n.document_id "
            "WHERE n.document_id = %(doc)s AND n.version = d.current_version AND d.deleted_at IS NULL "
            f"AND n.node_type NOT IN ('section', 'document') AND {in_bases}) "
            f"SELECT {NODE_COLUMNS}, r.from_start, r.from_end FROM ranked r JOIN nodes n ON n.id = r.id "
            "JOIN documents d ON d.id = n.document_id "
            "WHERE r.from_start <= %(n)s OR r.from_end <= %(n)s ORDER BY n.position",
            {**params, "doc": document_id, "n": count},
        ).fetchall()
    closing = [r for r in rows if r["from_end"] <= count]
    opening = [r for r in rows if r["from_start"] <= count]
    return closing, opening


def outline(db: Database, scope: Scope, document_id: uuid.UUID, version: int, max_depth: int = 6,
            sections_only: bool = True) -> list[dict[str, Any]]:
    """The document's tree in order: sections (and optionally content) with titles and summaries."""
    type_filter = "AND n.node_type IN ('document', 'section')" if sections_only else ""
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        return conn.execute(
            "SELECT n.id AS node_id, n.parent_id, n.node_type, n.depth, n.title, n.summary, n.position, "
            "n.metadata, left(n.content, 200) AS preview FROM nodes n JOIN documents d ON d.id = n.document_id "
            f"WHERE n.document_id = %(doc)s AND n.version = %(v)s AND n.depth <= %(depth)s {type_filter} "
            f"AND {in_bases} ORDER BY n.position",
            {**params, "doc": document_id, "v": version, "depth": max_depth},
        ).fetchall()


def find_documents(db: Database, scope: Scope, name_terms: list[str]) -> list[dict[str, Any]]:
    """Live documents of the scope's bases whose file name contains any of the terms (for "what does
    chapter 3 of X say")."""
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        return conn.execute(
            "SELECT d.id AS document_id, d.filename, d.current_version, "
            "(SELECT count(*) FROM unnest(%(terms)s::text[]) t WHERE d.filename ILIKE '%%' || t || '%%') AS hits "
            f"FROM documents d WHERE d.deleted_at IS NULL AND d.current_version > 0 AND {in_bases} "
            "ORDER BY hits DESC, d.filename",
            {**params, "terms": name_terms},
        ).fetchall()


_IMAGE_OF_SCOPE = "JOIN nodes n ON n.id = i.node_id JOIN documents d ON d.id = n.document_id"


def image_for_node(db: Database, scope: Scope, node_id: uuid.UUID) -> dict[str, Any] | None:
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        return conn.execute(
            f"SELECT i.id, i.mime, i.data, i.width, i.height FROM images i {_IMAGE_OF_SCOPE} "
            f"WHERE i.node_id = %(id)s AND {in_bases} LIMIT 1", {**params, "id": node_id},
        ).fetchone()


def get_image(db: Database, scope: Scope, image_or_node_id: uuid.UUID) -> dict[str, Any] | None:
    """An image by its own id, or the image of a node (what a source's ``node_id`` points at)."""
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        return conn.execute(
            f"SELECT i.id, i.node_id, i.mime, i.data, i.width, i.height FROM images i {_IMAGE_OF_SCOPE} "
            f"WHERE (i.id = %(id)s OR i.node_id = %(id)s) AND {in_bases} "
            "ORDER BY (i.id = %(id)s) DESC, i.created_at LIMIT 1",
            {**params, "id": image_or_node_id},
        ).fetchone()
