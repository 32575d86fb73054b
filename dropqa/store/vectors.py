"""Per-model HNSW indexes over the dimension-less ``embeddings.embedding`` column.

pgvector indexes need a fixed dimension; casting in an expression index lets
several embedding models (384-d local e5, 1024-d Qwen3 …) share one table.
Queries must use the same expression, which :func:`vector_expr` returns.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from dropqa.store.db import Database


def pg_vector(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """A query or stored vector as a parameter: the pgvector adapter (registered on every pooled
    connection) sends it, in queries and in COPY alike — never a hand-formatted literal."""
    return np.asarray(values, dtype=np.float32)


def vector_expr(column: str, dims: int) -> str:
    return f"({column}::vector({int(dims)}))"


def _index_name(table: str, model_name: str) -> str:
    return f"{table}_hnsw_{hashlib.sha1(model_name.encode()).hexdigest()[:10]}"


def ensure_vector_index(db: Database, model_name: str, dims: int) -> None:
    with db.connection() as conn:
        for table in ("embeddings", "title_index"):
            name = _index_name(table, model_name)
            conn.execute(
                f"CREATE INDEX IF NOT EXISTS {name} ON {table} USING hnsw "
                f"({vector_expr('embedding', dims)} vector_cosine_ops) "
                f"WHERE model_name = '{model_name.replace(chr(39), chr(39) * 2)}'"
            )
        conn.commit()
