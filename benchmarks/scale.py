"""How query cost grows with the corpus: 5k, 20k, 50k generated nodes (see :mod:`benchmarks.scale_corpus`).

At each step the new documents go through DropQA's indexer (normalise, summaries, topics, jieba
terms, embeddings of ``breadcrumb + content`` from the bench's embedding cache, one transaction
per document, the real HNSW index) and, as the naive baseline's chunks, the very same texts go
into ``langchain_postgres.PGVector`` with the very same vectors — both systems then hold the same
number of vectors, in the same PostgreSQL server. Then the planted-fact questions go to
``hybrid_search`` (DropQA's retrieval), ``ask`` (the compiled graph) and PGVector in interleaved
rounds. Reported per step: p50/p95 latency, recall@5 on the planted facts (same evidence rule as
the eval), and the on-disk size (``pg_total_relation_size``) of each system's tables.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.baselines import PGVectorBaseline
from benchmarks.chunks import Chunk
from benchmarks.embedcache import KeyedEmbedder
from benchmarks.quality import EMBED, TOP, chunk_sources, node_sources, safe_ask, score
from benchmarks.scale_corpus import document, documents_for, questions
from benchmarks.scale_prepare import embed_texts, prepare
from benchmarks.server import BenchServer
from benchmarks.timing import interleaved, percentiles, ratio

DROPQA_TABLES = ("documents", "document_versions", "nodes", "embeddings", "title_index", "topics", "document_topics")
NAIVE_TABLES = ("langchain_pg_embedding", "langchain_pg_collection")
DEFAULT_LEVELS = (5_000, 20_000, 50_000)


def chunk_key(text: str) -> str | None:
    """DropQA embeds ``breadcrumb \n [context \n] content``; the baseline's chunk is ``breadcrumb \n content``.

    The scale step gives both stores the vector of the latter (see :class:`~benchmarks.embedcache.KeyedEmbedder`):
    query cost and size do not depend on which text a vector came from, the context prefix is an
    ingestion-side choice that changes while the indexer evolves, and both systems then search the
    very same vectors. (The golden suites measure DropQA with its own embedded texts.)"""
    lines = text.split("\n")
    return f"{lines[0]}\n{lines[-1]}" if len(lines) > 2 else None


def table_bytes(conn: Any, tables: tuple[str, ...]) -> int:
    row = conn.execute("SELECT sum(pg_total_relation_size(t::regclass))::bigint AS b FROM unnest(%s::text[]) t",
                       (list(tables),)).fetchone()
    return int(row["b"] if isinstance(row, dict) else row[0])


def vector_index_bytes(conn: Any) -> int:
    row = conn.execute("SELECT coalesce(sum(pg_relation_size(indexrelid)), 0)::bigint AS b FROM pg_index i "
                       "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam "
                       "WHERE a.amname = 'hnsw' AND i.indrelid = 'embeddings'::regclass").fetchone()
    return int(row["b"])


def run_scale(server: BenchServer, levels: tuple[int, ...] = DEFAULT_LEVELS, *, nodes_per_doc: int = 100,
              rounds: int = 2, log: Callable[[str], None] = print) -> dict[str, Any]:
    from dropqa.ingestion.pipeline import Indexer
    from dropqa.retrieval.search import hybrid_search
    from dropqa.runtime.run import ask
    from dropqa.services import Services
    from dropqa.store.bases import DEFAULT_KB
    from dropqa.store.documents import write_version
    from dropqa.store.scope import Scope

    levels = tuple(sorted(set(levels)))
    # Each generated paragraph stays one passage, so a step holds exactly the number of nodes it names.
    settings = server.settings("bench_scale", ingestion={"merge_paragraph_chars": 0})
    svc = Services.open(settings)
    vector = None
    try:
        started = time.perf_counter()
        embedder = KeyedEmbedder(svc.embedder, chunk_key)
        prep = prepare(levels[-1], embedder, nodes_per_doc, log=log)
        prep["seconds"] = round(time.perf_counter() - started, 1)
        indexer = Indexer(svc.db, svc.settings, embedder)
        vector = PGVectorBaseline(settings.database_url, embedder, "bench_scale")
        scope = Scope(kbs=(DEFAULT_KB,))
        steps = []
        done = 0
        for level in levels:
            n_docs = documents_for(level, nodes_per_doc)
            log(f"[scale] adding documents {done}..{n_docs - 1} ({n_docs * nodes_per_doc} nodes) …")
            t0 = time.perf_counter()
            for i in range(done, n_docs):
                name, parsed, _ = document(i, nodes_per_doc)
                digest = hashlib.sha256(f"bench-scale-{i}-{nodes_per_doc}".encode()).hexdigest()
                nv = indexer.build_version(parsed, name, Path(name), "md", digest, 0, lambda _s: None)
                written = write_version(svc.db, nv)
                indexer.fill((written.document_id, written.version))  # embeddings follow the visible version
            dropqa_write = time.perf_counter() - t0
            t0 = time.perf_counter()
            for i in range(done, n_docs):
                name, passages, _ = embed_texts(i, nodes_per_doc)
                vector.add([Chunk(id=f"{name}#{j}", document_name=name, version=1, text=t)
                            for j, t in enumerate(passages)])
            naive_write = time.perf_counter() - t0
            done = n_docs
            with svc.db.connection() as conn:
                conn.execute("ANALYZE")
                conn.commit()
                nodes = int(conn.execute("SELECT count(*) AS c FROM embeddings").fetchone()["c"])
                naive_rows = int(conn.execute("SELECT count(*) AS c FROM langchain_pg_embedding").fetchone()["c"])
                sizes = {"dropqa_bytes": table_bytes(conn, DROPQA_TABLES),
                         "dropqa_hnsw_bytes": vector_index_bytes(conn),
                         "pgvector_bytes": table_bytes(conn, NAIVE_TABLES)}
            items = questions(n_docs, nodes_per_doc)
            systems = {
                "dropqa retrieval": lambda it: hybrid_search(svc, it.question, scope, k=TOP).hits,
                "dropqa ask": lambda it: safe_ask(ask, svc, it.question),
                "pgvector": lambda it: vector.search(it.question, TOP),
                EMBED: lambda it: embedder.embed_query(it.question),
            }
            log(f"[scale] {nodes} nodes: {len(items)} planted-fact questions × {len(systems) - 1} systems "
                f"(+ query embedding alone) × {rounds} round(s) …")
            outputs, latencies = interleaved(systems, items, rounds)
            sources = {
                "dropqa retrieval": [node_sources(svc.db, [(h.document_name, h.section, h.version, h.node_id,
                                                            h.snippet()) for h in hits])
                                     for hits in outputs["dropqa retrieval"]],
                "dropqa ask": [node_sources(svc.db, [(s.document_name, s.section, s.version, s.node_id, s.snippet)
                                                     for s in a.sources]) if not isinstance(a, str) else []
                               for a in outputs["dropqa ask"]],
                "pgvector": [chunk_sources(r) for r in outputs["pgvector"]],
            }
            systems_out: dict[str, Any] = {EMBED: percentiles(latencies[EMBED])}
            for name in sources:
                quality, _ranks = score(items, sources[name], frozenset())
                systems_out[name] = {"recall_at_5": quality["recall_at_5"], "mrr_at_10": quality["mrr_at_10"],
                                     **percentiles(latencies[name])}
            errors = sorted({a for a in outputs["dropqa ask"] if isinstance(a, str)})
            if errors:
                systems_out["dropqa ask"]["errors"] = errors
            ret, ask_, pgv = systems_out["dropqa retrieval"], systems_out["dropqa ask"], systems_out["pgvector"]
            step = {
                "level": level, "documents": n_docs, "nodes": nodes, "pgvector_rows": naive_rows,
                "questions": len(items), "write_seconds": {"dropqa": round(dropqa_write, 1),
                                                           "pgvector": round(naive_write, 1)},
                **sizes, "systems": systems_out,
                "ratios": {
                    "retrieval_p95_vs_pgvector": ratio(ret["p95_ms"], pgv["p95_ms"]),
                    "ask_p95_vs_pgvector": ratio(ask_["p95_ms"], pgv["p95_ms"]),
                    "retrieval_p50_vs_pgvector": ratio(ret["p50_ms"], pgv["p50_ms"]),
                    "ask_p50_vs_pgvector": ratio(ask_["p50_ms"], pgv["p50_ms"]),
                    "size_vs_pgvector": ratio(sizes["dropqa_bytes"], sizes["pgvector_bytes"]),
                },
            }
            log(f"[scale] {nodes} nodes: p95 retrieval {ret['p95_ms']} ms, ask {ask_['p95_ms']} ms, "
                f"pgvector {pgv['p95_ms']} ms")
            steps.append(step)
        prep["served_as_chunk_vectors"] = embedder.keyed
        return {"levels": list(levels), "nodes_per_doc": nodes_per_doc, "rounds": rounds, "embedding_cache": prep,
                "offline": bool(svc.settings.offline), "steps": steps}
    finally:
        if vector is not None:
            vector.close()
        svc.close()
