"""Documents and their versions: write a version atomically, list, look up, delete."""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from dropqa.store.db import Database
from dropqa.store.records import NewVersion, WriteResult


def _vec(values: list[float]) -> str:
    return "[" + ",".join(f"{v:.6g}" for v in values) + "]"


def find_by_key(db: Database, source_key: str) -> dict[str, Any] | None:
    with db.connection() as conn:
        return conn.execute("SELECT * FROM documents WHERE source_key = %s", (source_key,)).fetchone()


def cached_embeddings(db: Database, model_name: str, text_hashes: list[str]) -> dict[str, list[float]]:
    """Embeddings already computed for these texts (never embed the same text twice)."""
    if not text_hashes:
        return {}
    with db.connection() as conn:
        rows = conn.execute(
            "SELECT DISTINCT ON (text_hash) text_hash, embedding FROM embeddings "
            "WHERE model_name = %s AND text_hash = ANY(%s)",
            (model_name, text_hashes),
        ).fetchall()
    return {r["text_hash"]: r["embedding"].to_list() for r in rows}


def write_version(db: Database, nv: NewVersion) -> WriteResult:
    """Write a new version in one transaction; readers see the old one until commit.

    The document row is locked (``FOR UPDATE``) so two indexers of the same file
    serialise; the one that comes second sees the hash already current and
    reports ``unchanged``.
    """
    with db.connection() as conn, conn.transaction():
        conn.execute(
            "INSERT INTO documents (source_key, filename, file_type, file_hash, file_size, storage_path, "
            "current_version) VALUES (%s, %s, %s, '', 0, %s, 0) ON CONFLICT (source_key) DO NOTHING",
            (nv.source_key, nv.filename, nv.file_type, nv.storage_path),
        )
        doc = conn.execute(
            "SELECT id, file_hash, current_version, deleted_at FROM documents WHERE source_key = %s FOR UPDATE",
            (nv.source_key,),
        ).fetchone()
        assert doc is not None
        doc_id: uuid.UUID = doc["id"]
        if doc["file_hash"] == nv.file_hash and doc["deleted_at"] is None and doc["current_version"] > 0:
            return WriteResult(doc_id, doc["current_version"], "unchanged")
        version = (conn.execute(
            "SELECT coalesce(max(version), 0) AS v FROM document_versions WHERE document_id = %s", (doc_id,)
        ).fetchone() or {"v": 0})["v"] + 1
        conn.execute(
            "INSERT INTO document_versions (document_id, version, file_hash, file_size, storage_path, "
            "node_count, metadata) VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (doc_id, version, nv.file_hash, nv.file_size, nv.storage_path, len(nv.nodes), Jsonb(nv.metadata)),
        )
        _copy_nodes(conn, doc_id, version, nv)
        _copy_embeddings(conn, nv)
        _insert_images(conn, nv)
        _insert_titles(conn, doc_id, version, nv)
        _insert_topics(conn, doc_id, version, nv)
        conn.execute(
            "UPDATE documents SET filename = %s, file_type = %s, file_hash = %s, file_size = %s, "
            "storage_path = %s, current_version = %s, deleted_at = NULL, updated_at = now() WHERE id = %s",
            (nv.filename, nv.file_type, nv.file_hash, nv.file_size, nv.storage_path, version, doc_id),
        )
        return WriteResult(doc_id, version, "indexed" if version == 1 else "new_version")


def _copy_nodes(conn: psycopg.Connection, doc_id: uuid.UUID, version: int, nv: NewVersion) -> None:
    conn.execute(
        "CREATE TEMP TABLE IF NOT EXISTS _stage_nodes (id uuid, parent_id uuid, node_type text, depth int, "
        "title text, content text, summary text, breadcrumb text, position int, metadata jsonb, "
        "content_hash text, a text, b text, c text) ON COMMIT DELETE ROWS"
    )
    with conn.cursor().copy(
        "COPY _stage_nodes (id, parent_id, node_type, depth, title, content, summary, breadcrumb, position, "
        "metadata, content_hash, a, b, c) FROM STDIN"
    ) as copy:
        for n in nv.nodes:
            copy.write_row((
                n.id, n.parent_id, n.node_type, n.depth, n.title, n.content, n.summary, n.breadcrumb,
                n.position, Jsonb(n.metadata), n.content_hash, n.title_terms, n.content_terms, n.summary_terms,
            ))
    conn.execute(
        "INSERT INTO nodes (id, document_id, version, parent_id, node_type, depth, title, content, summary, "
        "breadcrumb, position, metadata, content_hash, search_vector) "
        "SELECT id, %s, %s, parent_id, node_type, depth, title, content, summary, breadcrumb, position, "
        "metadata, content_hash, setweight(to_tsvector('simple', a), 'A') || "
        "setweight(to_tsvector('simple', b), 'B') || setweight(to_tsvector('simple', c), 'C') "
        "FROM _stage_nodes ORDER BY position",
        (doc_id, version),
    )


def _copy_embeddings(conn: psycopg.Connection, nv: NewVersion) -> None:
    with conn.cursor().copy("COPY embeddings (node_id, model_name, text_hash, embedding) FROM STDIN") as copy:
        for e in nv.embeddings:
            copy.write_row((e.node_id, nv.model_name, e.text_hash, _vec(e.vector)))


def _insert_images(conn: psycopg.Connection, nv: NewVersion) -> None:
    if nv.images:
        conn.cursor().executemany(
            "INSERT INTO images (node_id, mime, data, width, height, ocr_text) VALUES (%s, %s, %s, %s, %s, %s)",
            [(i.node_id, i.mime, i.data, i.width, i.height, i.ocr_text) for i in nv.images],
        )


def _insert_titles(conn: psycopg.Connection, doc_id: uuid.UUID, version: int, nv: NewVersion) -> None:
    if nv.titles:
        conn.cursor().executemany(
            "INSERT INTO title_index (document_id, version, node_id, title_text, model_name, embedding, "
            "search_vector) VALUES (%s, %s, %s, %s, %s, %s::vector, to_tsvector('simple', %s))",
            [(doc_id, version, t.node_id, t.title_text, nv.model_name, _vec(t.vector), t.title_terms)
             for t in nv.titles],
        )


def _insert_topics(conn: psycopg.Connection, doc_id: uuid.UUID, version: int, nv: NewVersion) -> None:
    for name, confidence in nv.topics:
        topic = conn.execute(
            "INSERT INTO topics (name) VALUES (%s) ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name "
            "RETURNING id",
            (name,),
        ).fetchone()
        assert topic is not None
        conn.execute(
            "INSERT INTO document_topics (document_id, topic_id, version, confidence) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT DO NOTHING",
            (doc_id, topic["id"], version, confidence),
        )


def mark_deleted(db: Database, source_key: str) -> bool:
    """Hide a document from answers; its rows stay as history."""
    with db.connection() as conn:
        cur = conn.execute(
            "UPDATE documents SET deleted_at = now(), updated_at = now() "
            "WHERE source_key = %s AND deleted_at IS NULL",
            (source_key,),
        )
        return cur.rowcount > 0


def list_documents(db: Database, *, include_deleted: bool = False, limit: int = 1000, offset: int = 0,
                   query: str | None = None) -> list[dict[str, Any]]:
    with db.connection() as conn:
        return conn.execute(
            "SELECT d.id, d.source_key, d.filename, d.file_type, d.file_size, d.current_version, "
            "d.created_at, d.updated_at, d.deleted_at, "
            "(SELECT count(*) FROM document_versions v WHERE v.document_id = d.id) AS version_count, "
            "(SELECT count(*) FROM nodes n WHERE n.document_id = d.id AND n.version = d.current_version) "
            "AS node_count "
            "FROM documents d WHERE (%s OR d.deleted_at IS NULL) AND d.current_version > 0 "
            "AND (%s::text IS NULL OR d.filename ILIKE '%%' || %s || '%%') "
            "ORDER BY d.source_key LIMIT %s OFFSET %s",
            (include_deleted, query, query, limit, offset),
        ).fetchall()


def get_document(db: Database, document_id: uuid.UUID) -> dict[str, Any] | None:
    with db.connection() as conn:
        return conn.execute("SELECT * FROM documents WHERE id = %s", (document_id,)).fetchone()


def list_versions(db: Database, document_id: uuid.UUID) -> list[dict[str, Any]]:
    with db.connection() as conn:
        return conn.execute(
            "SELECT version, file_hash, file_size, node_count, created_at FROM document_versions "
            "WHERE document_id = %s ORDER BY version",
            (document_id,),
        ).fetchall()


def document_topics(db: Database, document_id: uuid.UUID, version: int) -> list[dict[str, Any]]:
    with db.connection() as conn:
        return conn.execute(
            "SELECT t.id, t.name, dt.confidence FROM document_topics dt JOIN topics t ON t.id = dt.topic_id "
            "WHERE dt.document_id = %s AND dt.version = %s ORDER BY dt.confidence DESC",
            (document_id, version),
        ).fetchall()


def topics_named(db: Database, names: list[str], limit: int = 8) -> list[str]:
    """Known topics among ``names`` (the question's terms), most documents first."""
    if not names:
        return []
    with db.connection() as conn:
        rows = conn.execute(
            "SELECT t.name, count(DISTINCT dt.document_id) AS docs FROM topics t "
            "JOIN document_topics dt ON dt.topic_id = t.id WHERE t.name = ANY(%s) "
            "GROUP BY t.name ORDER BY docs DESC, t.name LIMIT %s",
            (names, limit),
        ).fetchall()
    return [r["name"] for r in rows]
