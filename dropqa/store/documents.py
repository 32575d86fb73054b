"""Documents and their versions: write a version atomically, list, look up, delete."""

from __future__ import annotations

import uuid
from pathlib import PurePosixPath
from typing import Any, Literal

import psycopg
from psycopg.types.json import Jsonb

from dropqa.store import blobs, jobs
from dropqa.store.db import Database
from dropqa.store.records import NewVersion, WriteResult
from dropqa.store.scope import Scope
from dropqa.store.vectors import pg_vector

# Uploaded files are documents of their own namespace: ``upload:<name>`` (a folder-indexed file's key is its
# relative path, which never starts so), so an upload never becomes a version of a folder document by name.
UPLOAD_PREFIX = "upload:"


def file_name(source_key: str) -> str:
    """The file name a document is shown and cited by: the key's last part, without the upload namespace."""
    return PurePosixPath(source_key.removeprefix(UPLOAD_PREFIX)).name


def find_by_key(db: Database, kb: uuid.UUID, source_key: str) -> dict[str, Any] | None:
    """The document of ``source_key`` in base ``kb`` (deleted or not): what indexing a file writes to."""
    with db.connection() as conn:
        return conn.execute("SELECT * FROM documents WHERE kb_id = %s AND source_key = %s",
                            (kb, source_key)).fetchone()


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
    # pgvector's psycopg adapter returns numpy arrays (or Vector objects, by version): normalise to floats.
    return {r["text_hash"]: [float(x) for x in getattr(r["embedding"], "to_list", lambda e=r["embedding"]: e)()]
            for r in rows}


def write_version(db: Database, nv: NewVersion, job: tuple[uuid.UUID, str] | None = None) -> WriteResult:
    """Write a new version in one transaction; readers see the old one until commit.

    The version is complete for full-text search when it commits; the embeddings of
    ``nv.pending`` are filled in afterwards (:mod:`dropqa.store.pending`), and semantic
    search uses those that exist.

    The document row is locked (``FOR UPDATE``) so two indexers of the same file
    serialise; the one that comes second sees the hash already current and
    reports ``unchanged``. With ``job`` (``(job_id, worker_id)``) the job row is
    locked first and the write happens only while that worker still holds the
    job: a job cancelled (or taken over) at the last moment raises
    :class:`~dropqa.store.jobs.JobLost` and writes nothing. The job row records the version it
    wrote (in this transaction), so a retry after a crash in the embedding phase can tell the
    version is its own (see ``Worker``).
    """
    with db.connection() as conn, conn.transaction():
        if job is not None:
            jobs.lock_if_active(conn, job[0], job[1])
        conn.execute(
            "INSERT INTO documents (kb_id, source_key, filename, file_type, file_hash, file_size, storage_path, "
            "current_version) VALUES (%s, %s, %s, %s, '', 0, %s, 0) ON CONFLICT (kb_id, source_key) DO NOTHING",
            (nv.kb_id, nv.source_key, nv.filename, nv.file_type, nv.storage_path),
        )
        doc = conn.execute(
            "SELECT id, file_hash, current_version, deleted_at FROM documents WHERE kb_id = %s AND source_key = %s "
            "FOR UPDATE",
            (nv.kb_id, nv.source_key),
        ).fetchone()
        assert doc is not None
        doc_id: uuid.UUID = doc["id"]
        if doc["file_hash"] == nv.file_hash and doc["deleted_at"] is None and doc["current_version"] > 0:
            return WriteResult(doc_id, doc["current_version"], "unchanged")
        version = (conn.execute(
            "SELECT coalesce(max(version), 0) AS v FROM document_versions WHERE document_id = %s", (doc_id,)
        ).fetchone() or {"v": 0})["v"] + 1
        if nv.data is not None:  # the bytes go in with the version that names them (one transaction)
            blobs.put_in(conn, nv.data, nv.file_hash, db.settings.storage.blob_chunk_bytes)
        conn.execute(
            "INSERT INTO document_versions (document_id, version, file_hash, file_size, storage_path, "
            "node_count, metadata) VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (doc_id, version, nv.file_hash, nv.file_size, nv.storage_path, len(nv.nodes), Jsonb(nv.metadata)),
        )
        _copy_nodes(conn, doc_id, version, nv)
        _copy_embeddings(conn, nv)
        _copy_pending(conn, doc_id, version, nv)
        _insert_images(conn, nv)
        _insert_titles(conn, doc_id, version, nv)
        _insert_topics(conn, doc_id, version, nv)
        conn.execute(
            "UPDATE documents SET filename = %s, file_type = %s, file_hash = %s, file_size = %s, "
            "storage_path = %s, current_version = %s, deleted_at = NULL, updated_at = now() WHERE id = %s",
            (nv.filename, nv.file_type, nv.file_hash, nv.file_size, nv.storage_path, version, doc_id),
        )
        if job is not None:  # a retry of this job after a crash knows the version is its own
            conn.execute("UPDATE ingestion_jobs SET document_id = %s, version = %s WHERE id = %s",
                         (doc_id, version, job[0]))
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
            copy.write_row((e.node_id, nv.model_name, e.text_hash, pg_vector(e.vector)))


def _copy_pending(conn: psycopg.Connection, doc_id: uuid.UUID, version: int, nv: NewVersion) -> None:
    with conn.cursor().copy(
        "COPY pending_embeddings (node_id, document_id, version, model_name, text_hash, text) FROM STDIN"
    ) as copy:
        for p in nv.pending:
            copy.write_row((p.node_id, doc_id, version, nv.model_name, p.text_hash, p.text))


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
            [(doc_id, version, t.node_id, t.title_text, nv.model_name, pg_vector(t.vector), t.title_terms)
             for t in nv.titles],
        )


def _insert_topics(conn: psycopg.Connection, doc_id: uuid.UUID, version: int, nv: NewVersion) -> None:
    """Link the document to its topics. A name that joins an existing cluster is kept as an alias
    row (``merged_into`` the cluster), so the next document naming it finds the cluster by name;
    the ``document_topics`` trigger of migration 003 sends links of aliases to their cluster."""
    for t in nv.topics:
        vec = pg_vector(t.vector) if t.vector else None
        topic_id = None
        if t.cluster_id is not None:
            conn.execute(
                "INSERT INTO topics (kb_id, name, embedding, embedding_model, merged_into) "
                "SELECT kb_id, %s, %s::vector, %s, coalesce(merged_into, id) FROM topics WHERE id = %s AND kb_id = %s "
                "ON CONFLICT (kb_id, name) DO NOTHING",
                (t.name, vec, nv.model_name, t.cluster_id, nv.kb_id),
            )
            row = conn.execute("SELECT coalesce(merged_into, id) AS id FROM topics WHERE id = %s AND kb_id = %s",
                               (t.cluster_id, nv.kb_id)).fetchone()
            topic_id = row["id"] if row else None  # the cluster may have been deleted meanwhile
        if topic_id is None:
            row = conn.execute(
                "INSERT INTO topics (kb_id, name, embedding, embedding_model) VALUES (%s, %s, %s::vector, %s) "
                "ON CONFLICT (kb_id, name) DO UPDATE SET "
                "embedding = CASE WHEN topics.embedding IS NULL THEN EXCLUDED.embedding ELSE topics.embedding END, "
                "embedding_model = CASE WHEN topics.embedding IS NULL THEN EXCLUDED.embedding_model "
                "ELSE topics.embedding_model END "
                "RETURNING id",
                (nv.kb_id, t.name, vec, nv.model_name if vec else None),
            ).fetchone()
            assert row is not None
            topic_id = row["id"]
        conn.execute(
            "INSERT INTO document_topics (document_id, topic_id, version, confidence) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (document_id, topic_id, version) DO UPDATE "
            "SET confidence = greatest(document_topics.confidence, EXCLUDED.confidence)",
            (doc_id, topic_id, version, t.confidence),
        )


def live_keys_under(db: Database, kb: uuid.UUID, prefix: str) -> list[str]:
    """Source keys of live documents of base ``kb`` inside the folder ``prefix`` (``"a/b"`` → ``a/b/…``)."""
    like = like_escape(prefix.rstrip("/")) + "/%"
    with db.connection() as conn:
        rows = conn.execute(
            "SELECT source_key FROM documents WHERE kb_id = %s AND source_key LIKE %s AND deleted_at IS NULL "
            "AND current_version > 0 ORDER BY source_key", (kb, like),
        ).fetchall()
    return [r["source_key"] for r in rows]


def mark_deleted(db: Database, kb: uuid.UUID, source_key: str) -> bool:
    """Hide a document of base ``kb`` from answers; its rows stay as history. Its stored file bytes are
    freed unless a live document's version or an unfinished job still names them (:func:`blobs.collect`)."""
    with db.connection() as conn:
        rows = conn.execute(
            "UPDATE documents d SET deleted_at = now(), updated_at = now() "
            "WHERE kb_id = %s AND source_key = %s AND deleted_at IS NULL "
            "RETURNING (SELECT array_agg(DISTINCT v.file_hash) FROM document_versions v "
            "           WHERE v.document_id = d.id) AS hashes",
            (kb, source_key),
        ).fetchall()
    if rows:
        blobs.collect(db, only=[h for r in rows for h in (r["hashes"] or [])])
    return bool(rows)


def like_escape(text: str) -> str:
    """``text`` matched literally inside a LIKE pattern (``%`` and ``_`` are not wildcards)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _list_filter(scope: Scope, include_deleted: bool, query: str | None, file_type: str | None,
                 topic_id: uuid.UUID | None) -> tuple[str, dict[str, Any]]:
    in_bases, params = scope.kb_sql("d")
    sql = (
        f"{in_bases} AND (%(all)s OR d.deleted_at IS NULL) AND d.current_version > 0 "
        "AND (%(q)s::text IS NULL OR d.filename ILIKE '%%' || %(q)s || '%%' ESCAPE '\\') "
        "AND (%(type)s::text IS NULL OR d.file_type = %(type)s) "
        "AND (%(topic)s::uuid IS NULL OR EXISTS (SELECT 1 FROM document_topics dt WHERE dt.document_id = d.id "
        "     AND dt.version = d.current_version AND dt.topic_id = %(topic)s))"
    )
    return sql, {**params, "all": include_deleted, "q": like_escape(query) if query is not None else None,
                 "type": file_type, "topic": topic_id}


DocumentOrder = Literal["name", "time"]
_ORDER_BY: dict[str, str] = {
    # by the name a person sees (case-folded), then the key so the order is total
    "name": "lower(d.filename), d.filename, d.source_key, d.kb_id",
    # most recently indexed or changed first
    "time": "d.updated_at DESC, lower(d.filename), d.source_key, d.kb_id",
}


def list_documents(db: Database, scope: Scope, *, include_deleted: bool = False, limit: int = 1000,
                   offset: int = 0, query: str | None = None, file_type: str | None = None,
                   topic_id: uuid.UUID | None = None, order: DocumentOrder = "name") -> list[dict[str, Any]]:
    """The scope's documents in the ``order`` the user chose: by file name (A→Z) or by time (newest first)."""
    where, params = _list_filter(scope, include_deleted, query, file_type, topic_id)
    with db.connection() as conn:
        return conn.execute(
            "SELECT d.id, d.kb_id, (SELECT b.name FROM knowledge_bases b WHERE b.id = d.kb_id) AS kb, "
            "d.source_key, d.filename, d.file_type, d.file_size, d.current_version, "
            "d.created_at, d.updated_at, d.deleted_at, "
            "(SELECT count(*) FROM document_versions v WHERE v.document_id = d.id) AS version_count, "
            "(SELECT count(*) FROM nodes n WHERE n.document_id = d.id AND n.version = d.current_version) "
            "AS node_count, "
            + _EMBED_COUNTS +
            f"FROM documents d WHERE {where} "
            f"ORDER BY {_ORDER_BY[order]} LIMIT %(limit)s OFFSET %(offset)s",
            {**params, "limit": limit, "offset": offset},
        ).fetchall()


_EMBED_COUNTS = (
    "(SELECT count(*) FROM pending_embeddings p WHERE p.document_id = d.id AND p.version = d.current_version) "
    "AS embed_pending, "
    "(SELECT count(*) FROM embeddings e JOIN nodes n ON n.id = e.node_id "
    " WHERE n.document_id = d.id AND n.version = d.current_version) AS embed_done "
)


def embedding_counts(db: Database, scope: Scope, document_id: uuid.UUID, version: int) -> tuple[int, int]:
    """(nodes of the version with an embedding, nodes still waiting for one)."""
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM embeddings e JOIN nodes n ON n.id = e.node_id "
            "        WHERE n.document_id = d.id AND n.version = %(v)s) AS done, "
            "(SELECT count(*) FROM pending_embeddings p WHERE p.document_id = d.id AND p.version = %(v)s) AS pending "
            f"FROM documents d WHERE d.id = %(d)s AND {in_bases}",
            {**params, "d": document_id, "v": version},
        ).fetchone()
    return (int(row["done"]), int(row["pending"])) if row else (0, 0)


def count_documents(db: Database, scope: Scope, *, include_deleted: bool = False, query: str | None = None,
                    file_type: str | None = None, topic_id: uuid.UUID | None = None) -> int:
    where, params = _list_filter(scope, include_deleted, query, file_type, topic_id)
    with db.connection() as conn:
        row = conn.execute(f"SELECT count(*) AS n FROM documents d WHERE {where}", params).fetchone()
    return int(row["n"]) if row else 0


def find_by_hash(db: Database, kb: uuid.UUID, file_hash: str) -> dict[str, Any] | None:
    """A live document of base ``kb`` whose current version has exactly these bytes."""
    with db.connection() as conn:
        return conn.execute(
            "SELECT * FROM documents WHERE kb_id = %s AND file_hash = %s AND deleted_at IS NULL "
            "AND current_version > 0 ORDER BY updated_at DESC LIMIT 1",
            (kb, file_hash),
        ).fetchone()


def forget_hash(db: Database, scope: Scope, document_id: uuid.UUID) -> bool:
    """Make the next indexing of this document write a new version even if its bytes did not change
    (re-index with the current parsers and settings)."""
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        cur = conn.execute(f"UPDATE documents d SET file_hash = '' WHERE d.id = %(id)s AND d.deleted_at IS NULL "
                           f"AND {in_bases}", {**params, "id": document_id})
        return cur.rowcount > 0


def version_file_hash(db: Database, scope: Scope, document_id: uuid.UUID, version: int) -> str | None:
    """The SHA-256 of one version's file bytes (the key of its stored bytes, :mod:`dropqa.store.blobs`)."""
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        row = conn.execute("SELECT v.file_hash FROM document_versions v JOIN documents d ON d.id = v.document_id "
                           f"WHERE v.document_id = %(id)s AND v.version = %(v)s AND {in_bases}",
                           {**params, "id": document_id, "v": version}).fetchone()
    return row["file_hash"] if row else None


def get_document(db: Database, scope: Scope, document_id: uuid.UUID) -> dict[str, Any] | None:
    """The document (deleted ones too) when it belongs to one of the scope's bases; ``None`` otherwise."""
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        return conn.execute("SELECT d.*, (SELECT b.name FROM knowledge_bases b WHERE b.id = d.kb_id) AS kb "
                            f"FROM documents d WHERE d.id = %(id)s AND {in_bases}",
                            {**params, "id": document_id}).fetchone()


def version_numbers(db: Database, scope: Scope) -> list[int]:
    """The version numbers some live document of the scope's bases has (``version: N`` answers from each
    document's version N)."""
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        rows = conn.execute(
            "SELECT DISTINCT v.version FROM document_versions v JOIN documents d ON d.id = v.document_id "
            f"WHERE d.deleted_at IS NULL AND {in_bases} ORDER BY 1", params,
        ).fetchall()
    return [int(r["version"]) for r in rows]


def list_versions(db: Database, scope: Scope, document_id: uuid.UUID) -> list[dict[str, Any]]:
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        return conn.execute(
            "SELECT v.version, v.file_hash, v.file_size, v.node_count, v.created_at FROM document_versions v "
            f"JOIN documents d ON d.id = v.document_id WHERE v.document_id = %(id)s AND {in_bases} ORDER BY v.version",
            {**params, "id": document_id},
        ).fetchall()


def document_topics(db: Database, scope: Scope, document_id: uuid.UUID, version: int) -> list[dict[str, Any]]:
    in_bases, params = scope.kb_sql("t")
    with db.connection() as conn:
        return conn.execute(
            "SELECT t.id, t.name, dt.confidence FROM document_topics dt JOIN topics t ON t.id = dt.topic_id "
            f"WHERE dt.document_id = %(id)s AND dt.version = %(v)s AND {in_bases} ORDER BY dt.confidence DESC",
            {**params, "id": document_id, "v": version},
        ).fetchall()


def topics_named(db: Database, scope: Scope, names: list[str], limit: int = 8) -> list[str]:
    """Known topics of the scope's bases among ``names`` (the question's terms), most documents first."""
    if not names:
        return []
    in_bases, params = scope.kb_sql("t")
    with db.connection() as conn:
        rows = conn.execute(  # a name may be an alias of a cluster: answer with the cluster's name
            "SELECT c.name, count(DISTINCT dt.document_id) AS docs FROM topics t "
            "JOIN topics c ON c.id = coalesce(t.merged_into, t.id) "
            f"JOIN document_topics dt ON dt.topic_id = c.id WHERE t.name = ANY(%(names)s) AND {in_bases} "
            "GROUP BY c.name ORDER BY docs DESC, c.name LIMIT %(limit)s",
            {**params, "names": names, "limit": limit},
        ).fetchall()
    return [r["name"] for r in rows]
