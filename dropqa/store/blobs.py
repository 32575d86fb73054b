"""File bytes in PostgreSQL, content-addressed by SHA-256 (tables ``blobs`` and ``blob_chunks``).

Every file DropQA indexes — uploaded, watched or named to ``dropqa index`` — is stored here once,
however many documents, versions or jobs name the same bytes. The key is the hex SHA-256 that
``documents.file_hash`` and ``document_versions.file_hash`` already hold, so "the bytes of version N"
is a look-up, a job names the bytes it indexes (``ingestion_jobs.blob_sha256``) instead of a path on
one machine, and ``pg_dump`` backs up the documents themselves.

A blob is *live* while a version of a live (not deleted) document or an unfinished job names it
(a failed job waiting for a later round counts as unfinished).
:func:`collect` deletes the others (``dropqa gc``; deleting a document collects its own bytes at
once). It spares blobs stored within ``storage.blob_grace_s``: an upload stores the bytes a moment
before its job names them, and storing bytes that exist already refreshes ``touched_at``.
"""

from __future__ import annotations

import hashlib
from typing import Any

import psycopg

from dropqa.store.db import Database
from dropqa.store.jobs import TERMINAL_STATES


class BlobCorrupt(RuntimeError):
    """The stored chunks do not add up to the bytes their key names."""


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def put(db: Database, data: bytes, sha256: str | None = None) -> str:
    """Store ``data`` (once: bytes already stored are only marked as used now); returns the key."""
    key = sha256 or digest(data)
    with db.connection() as conn, conn.transaction():
        put_in(conn, data, key, db.settings.storage.blob_chunk_bytes)
    return key


def put_in(conn: psycopg.Connection, data: bytes, sha256: str, chunk_bytes: int) -> bool:
    """Inside the caller's transaction: store ``data`` under ``sha256`` unless it is there already.
    Returns ``True`` when the bytes were written now. Two writers of the same new bytes serialise on
    the key: the second waits for the first and then only refreshes ``touched_at``."""
    chunks = [data[i : i + chunk_bytes] for i in range(0, len(data), chunk_bytes)] or [b""]
    row = conn.execute(
        "INSERT INTO blobs (sha256, size, chunks) VALUES (%s, %s, %s) "
        "ON CONFLICT (sha256) DO UPDATE SET touched_at = now() RETURNING (xmax = 0) AS inserted",
        (sha256, len(data), len(chunks)),
    ).fetchone()
    inserted = bool(row and (row["inserted"] if isinstance(row, dict) else row[0]))
    if inserted:
        conn.cursor().executemany(
            "INSERT INTO blob_chunks (sha256, seq, data) VALUES (%s, %s, %b)",
            [(sha256, i, chunk) for i, chunk in enumerate(chunks)],
        )
    return inserted


def get(db: Database, sha256: str) -> bytes | None:
    """The stored bytes, checked against their key; ``None`` when nothing is stored under it."""
    with db.connection() as conn:
        rows = conn.execute(
            "SELECT b.size, b.chunks, c.data FROM blobs b JOIN blob_chunks c ON c.sha256 = b.sha256 "
            "WHERE b.sha256 = %s ORDER BY c.seq",
            (sha256,), binary=True,
        ).fetchall()
    if not rows:
        return None
    data = b"".join(bytes(r["data"]) for r in rows)
    if len(rows) != rows[0]["chunks"] or len(data) != rows[0]["size"] or digest(data) != sha256:
        raise BlobCorrupt(f"the stored bytes of {sha256[:12]}… do not match their SHA-256")
    return data


def exists(db: Database, sha256: str) -> bool:
    with db.connection() as conn:
        return conn.execute("SELECT 1 FROM blobs WHERE sha256 = %s", (sha256,)).fetchone() is not None


def collect(db: Database, grace_s: float | None = None, only: list[str] | None = None) -> tuple[int, int]:
    """Delete blobs that no version of a live document and no unfinished job names (only those among
    ``only``, when given) and that were not stored within ``grace_s`` (default ``storage.blob_grace_s``).
    Returns ``(blobs, bytes)`` freed."""
    grace = db.settings.storage.blob_grace_s if grace_s is None else grace_s
    if only is not None and not only:
        return 0, 0
    with db.connection() as conn:
        rows = conn.execute(
            "DELETE FROM blobs b WHERE (%(only)s::text[] IS NULL OR b.sha256 = ANY(%(only)s::text[])) "
            "AND b.touched_at < now() - make_interval(secs => %(grace)s) "
            "AND NOT EXISTS (SELECT 1 FROM document_versions v JOIN documents d ON d.id = v.document_id "
            "  WHERE v.file_hash = b.sha256 AND d.deleted_at IS NULL) "
            "AND NOT EXISTS (SELECT 1 FROM ingestion_jobs j WHERE j.blob_sha256 = b.sha256 "
            "  AND (j.state <> ALL(%(terminal)s) OR (j.state = 'failed' AND j.retry_failed))) "
            "RETURNING b.size",
            {"only": only, "grace": grace, "terminal": list(TERMINAL_STATES)},
        ).fetchall()
    return len(rows), sum(int(r["size"]) for r in rows)


def stats(db: Database) -> dict[str, Any]:
    """Stored files and bytes, and what the tables take on disk (compressed, with indexes)."""
    with db.connection() as conn:
        row = conn.execute(
            "SELECT count(*) AS blobs, coalesce(sum(size), 0) AS bytes, "
            "pg_total_relation_size('blobs') + pg_total_relation_size('blob_chunks') AS disk_bytes FROM blobs"
        ).fetchone()
    assert row is not None
    return {"blobs": int(row["blobs"]), "bytes": int(row["bytes"]), "disk_bytes": int(row["disk_bytes"])}


def table_sizes(db: Database) -> list[dict[str, Any]]:
    """Every table of the schema with its rows (estimated) and its size on disk, largest first."""
    with db.connection() as conn:
        return conn.execute(
            "SELECT c.relname AS table, c.reltuples::bigint AS rows, pg_total_relation_size(c.oid) AS total_bytes, "
            "pg_relation_size(c.oid) AS heap_bytes, "
            "coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0) AS toast_bytes, "
            "pg_indexes_size(c.oid) AS index_bytes "
            "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind = 'r' ORDER BY total_bytes DESC, c.relname"
        ).fetchall()
