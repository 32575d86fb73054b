"""Embeddings filled in after a version is visible (table ``pending_embeddings``, migration 005).

A version is written whole — nodes, tree, full-text vectors — and becomes current at once, so
full-text search answers from it; its content nodes that need a new embedding get one row here
each, with the exact text to embed. :func:`fill_batch` takes a batch with ``FOR UPDATE SKIP
LOCKED``, embeds it, inserts the embeddings and deletes the rows in one transaction: a process
killed mid-batch leaves its rows to the next filler, several fillers never share a row, and
semantic search sees the embeddings that exist (only of nodes of the versions it searches).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Any

from dropqa.store.db import Database
from dropqa.store.scope import Scope
from dropqa.store.vectors import pg_vector

EmbedFn = Callable[[list[str]], Sequence[Sequence[float]]]


def fill_batch(db: Database, model_name: str, embed: EmbedFn, limit: int,
               document: tuple[uuid.UUID | str, int] | None = None, bases: set[uuid.UUID] | None = None) -> int:
    """Embed up to ``limit`` pending nodes of ``model_name`` — of one document version
    (``(document_id, version)``) or, without ``document``, the oldest of any, current versions
    first. Texts already embedded anywhere (the same text in another node or version) are copied,
    not embedded again; identical texts in the batch are embedded once. Returns how many nodes
    got their embedding (0: none left that this call could take); ``bases`` collects their
    documents' knowledge bases."""
    doc_id, version = document if document is not None else (None, None)
    with db.connection() as conn, conn.transaction():
        rows = conn.execute(
            "SELECT p.node_id, p.text_hash, p.text, d.kb_id FROM pending_embeddings p "
            "JOIN documents d ON d.id = p.document_id "
            "WHERE p.model_name = %(m)s AND (%(doc)s::uuid IS NULL OR (p.document_id = %(doc)s AND p.version = %(v)s)) "
            "ORDER BY (p.version = d.current_version AND d.deleted_at IS NULL) DESC, p.created_at, p.node_id "
            "LIMIT %(limit)s FOR UPDATE OF p SKIP LOCKED",
            {"m": model_name, "doc": doc_id, "v": version, "limit": limit},
        ).fetchall()
        if not rows:
            return 0
        if bases is not None:
            bases.update(r["kb_id"] for r in rows)
        ids = [r["node_id"] for r in rows]
        copied = {r["node_id"] for r in conn.execute(
            "INSERT INTO embeddings (node_id, model_name, text_hash, embedding) "
            "SELECT p.node_id, p.model_name, p.text_hash, c.embedding FROM pending_embeddings p "
            "CROSS JOIN LATERAL (SELECT e.embedding FROM embeddings e WHERE e.model_name = p.model_name "
            "  AND e.text_hash = p.text_hash LIMIT 1) c "
            "WHERE p.node_id = ANY(%s) ON CONFLICT (node_id) DO NOTHING RETURNING node_id",
            (ids,),
        ).fetchall()}
        todo = [r for r in rows if r["node_id"] not in copied]
        texts = dict.fromkeys(r["text_hash"] for r in todo)
        by_hash = {r["text_hash"]: r["text"] for r in todo}
        if texts:
            vectors = embed([by_hash[h] for h in texts])
            for h, v in zip(texts, vectors, strict=True):
                texts[h] = pg_vector(v)
            with conn.cursor().copy("COPY embeddings (node_id, model_name, text_hash, embedding) FROM STDIN") as cp:
                for r in todo:
                    cp.write_row((r["node_id"], model_name, r["text_hash"], texts[r["text_hash"]]))
        conn.execute("DELETE FROM pending_embeddings WHERE node_id = ANY(%s)", (ids,))
        return len(rows)


def count_for(db: Database, document_id: uuid.UUID | str, version: int) -> int:
    """Nodes of this version still waiting for their embedding."""
    with db.connection() as conn:
        row = conn.execute("SELECT count(*) AS n FROM pending_embeddings WHERE document_id = %s AND version = %s",
                           (document_id, version)).fetchone()
    return int(row["n"]) if row else 0


def pending_among(db: Database, scope: Scope, node_ids: list[str]) -> set[str]:
    """Which of these nodes still wait for their embedding (their similarity is not known yet)."""
    if not node_ids:
        return set()
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        rows = conn.execute("SELECT p.node_id FROM pending_embeddings p JOIN documents d ON d.id = p.document_id "
                            f"WHERE p.node_id = ANY(%(ids)s::uuid[]) AND {in_bases}",
                            {**params, "ids": node_ids}).fetchall()
    return {str(r["node_id"]) for r in rows}


def totals(db: Database) -> dict[str, int]:
    """Over the current versions of live documents of every base: nodes waiting for an embedding, and the
    documents they belong to (``/api/health``, ``dropqa index``: the store's own work, no one's documents)."""
    with db.connection() as conn:
        row = conn.execute(
            "SELECT count(*) AS nodes, count(DISTINCT p.document_id) AS documents FROM pending_embeddings p "
            "JOIN documents d ON d.id = p.document_id AND d.current_version = p.version AND d.deleted_at IS NULL"
        ).fetchone()
    return {"nodes": int(row["nodes"]), "documents": int(row["documents"])} if row else {"nodes": 0, "documents": 0}


def semantic_share(embedded: int, pending: int) -> int:
    """Percent of a version's embeddable nodes that have their embedding (100 when none need one)."""
    total = embedded + pending
    return 100 if total == 0 else int(100 * embedded / total)  # floor: 100 only when truly complete


def index_status(embedded: int, pending: int) -> dict[str, Any]:
    """A document version's readiness, as the API, the CLI and the web page show it."""
    share = semantic_share(embedded, pending)
    return {"fulltext": "ready", "semantic_percent": share, "embedded": embedded, "pending": pending,
            "label": f"full-text ready · semantic {share} %",
            "label_zh": f"全文可检索 · 语义 {share}%"}


def backlog(db: Database, model_name: str) -> dict[str, int]:
    """All the nodes still waiting for an embedding of ``model_name`` (any version), and the distinct
    texts among them that have no stored embedding yet — what the model still has to embed."""
    with db.connection() as conn:
        row = conn.execute(
            "SELECT count(*) AS nodes, count(DISTINCT p.text_hash) FILTER (WHERE NOT EXISTS ("
            "  SELECT 1 FROM embeddings e WHERE e.model_name = p.model_name AND e.text_hash = p.text_hash)) AS texts "
            "FROM pending_embeddings p WHERE p.model_name = %s", (model_name,)).fetchone()
    return {"nodes": int(row["nodes"]), "texts": int(row["texts"])} if row else {"nodes": 0, "texts": 0}
