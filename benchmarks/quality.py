"""Retrieval quality and query latency on a golden suite: DropQA against the baselines.

The corpus is indexed the way ``dropqa eval`` indexes it (base files, then each ``_vN`` as a
new version), with a parse hook that keeps each parsed document's text for the baselines'
chunks. Then every question goes to every system, in interleaved rounds:

- ``dropqa retrieval``: :func:`dropqa.tools.retrieval.hybrid_search` (top 10), the retrieval
  step of the fast path;
- ``dropqa ask``: :func:`dropqa.graph.run.ask`, the compiled graph as the API runs it (its
  sources are the ones the answer lists);
- ``bm25``, ``pgvector``, ``bm25+pgvector rrf``: see :mod:`benchmarks.baselines`.

Quality uses the eval's evidence rule (:func:`dropqa.evals.metrics.evidence_found`): a result
supports an evidence item when it is in the evidence document (right version when the corpus
has versions) and its text contains the ``contains`` string, whitespace-normalised. Recall and
MRR are over answerable items; latency over all questions.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.baselines import BM25Baseline, PGVectorBaseline, RRFBaseline
from benchmarks.chunks import Chunk, TextCapture, chunk_corpus
from benchmarks.embedcache import CachedEmbedder
from benchmarks.server import BenchServer
from benchmarks.timing import interleaved, percentiles, ratio
from dropqa.evals import metrics as m
from dropqa.evals.suite import EvalItem, load_suite

SYSTEMS = ("dropqa retrieval", "dropqa ask", "bm25", "pgvector", "bm25+pgvector rrf")
BASELINES = ("bm25", "pgvector", "bm25+pgvector rrf")
# A reference, not a system: the e5 query embedding that DropQA, PGVector and RRF each pay once per question.
EMBED = "e5 query embedding"
TOP = 10


@dataclass(frozen=True)
class SuiteSpec:
    name: str
    golden: Path
    corpus: Path
    limit: int | None = None


def chunk_sources(chunks: list[Chunk]) -> list[m.RetrievedSource]:
    return [m.RetrievedSource(document_name=c.document_name, version=c.version, node_id=c.id, text=c.text)
            for c in chunks]


def node_sources(db: Any, rows: list[tuple[str, str, int, str, str]]) -> list[m.RetrievedSource]:
    """(document, section, version, node id, snippet) → sources with the node's full text, as the eval reads it."""
    from dropqa.evals.runner import node_text

    out = []
    for doc, section, version, node_id, snippet in rows:
        text, _ = node_text(db, node_id, snippet)
        out.append(m.RetrievedSource(document_name=doc, section=section, version=version, node_id=node_id,
                                     text=text, snippet=snippet))
    return out


def score(items: list[EvalItem], sources: list[list[m.RetrievedSource]], versioned: frozenset[str],
          ) -> tuple[dict[str, Any], list[int | None]]:
    """Suite recall@5 / recall@10 / MRR@10 (answerable items) and each item's first evidence rank."""
    r5, r10, rr, ranks = [], [], [], []
    by_type: dict[str, list[float]] = {}
    for item, srcs in zip(items, sources, strict=True):
        res = m.ItemResult(sources=srcs[:TOP])
        ranks.append(m.first_rank(item, res, versioned))
        if item.no_answer:
            continue
        r5.append(m.recall_at_5(item, res, versioned))
        r10.append(m.recall_at_10(item, res, versioned))
        rr.append(m.reciprocal_rank_at_10(item, res, versioned))
        by_type.setdefault(item.type, []).append(r5[-1])

    def mean(xs: list[float | None]) -> float | None:
        vals = [x for x in xs if x is not None]
        return round(sum(vals) / len(vals), 3) if vals else None

    return ({"recall_at_5": mean(r5), "recall_at_10": mean(r10), "mrr_at_10": mean(rr), "n_answerable": len(r5),
             "recall_at_5_by_type": {t: mean(v) for t, v in sorted(by_type.items())}}, ranks)


def run_suite(server: BenchServer, spec: SuiteSpec, *, rounds: int = 3, log: Callable[[str], None] = print,
              ) -> dict[str, Any]:
    from dropqa.evals.runner import corpus_files, stage_and_index
    from dropqa.graph.run import ask
    from dropqa.ingestion.pipeline import Indexer
    from dropqa.store.scope import Scope
    from dropqa.tools.retrieval import hybrid_search
    from dropqa.tools.services import Services

    items = load_suite(spec.golden)[: spec.limit or None]
    settings = server.settings("bench_" + "".join(ch if ch.isalnum() else "_" for ch in spec.name)[:40])
    svc = Services.open(settings)
    vector = None
    try:
        embedder = CachedEmbedder(svc.embedder)
        capture = TextCapture()
        indexer = Indexer(svc.db, svc.settings, embedder, parse=capture)
        log(f"[{spec.name}] indexing {spec.corpus} into DropQA …")
        work = server.tmp / f"stage-{settings.data_dir.name}"
        index_seconds, outcomes = stage_and_index(indexer, spec.corpus, work)
        failed = [o for o in outcomes if o["status"] == "failed"]
        latest = {o["source_key"]: o["version"] for o in outcomes if o["status"] != "failed"}
        texts = {key: capture.texts[Path(key).name] for key in latest if Path(key).name in capture.texts}
        chunks = chunk_corpus(texts, latest)
        log(f"[{spec.name}] {len(outcomes)} indexing step(s), {len(failed)} failed; "
            f"{len(chunks)} baseline chunks of ≤500 characters from {len(texts)} document(s)")
        started = time.perf_counter()
        bm25 = BM25Baseline(chunks)
        bm25_build = time.perf_counter() - started
        started = time.perf_counter()
        vector = PGVectorBaseline(settings.database_url, embedder, f"bench_{settings.data_dir.name}")
        vector.add(chunks)
        pg_build = time.perf_counter() - started
        embedder.flush()
        hybrid = RRFBaseline(bm25, vector)
        scope = Scope()

        systems: dict[str, Callable[[EvalItem], Any]] = {
            "dropqa retrieval": lambda it: hybrid_search(svc, it.question, scope, k=TOP).hits,
            "dropqa ask": lambda it: safe_ask(ask, svc, it.question),
            "bm25": lambda it: bm25.search(it.question, TOP),
            "pgvector": lambda it: vector.search(it.question, TOP),
            "bm25+pgvector rrf": lambda it: hybrid.search(it.question, TOP),
            EMBED: lambda it: embedder.embed_query(it.question),
        }
        log(f"[{spec.name}] {len(items)} questions × {len(systems) - 1} systems (+ query embedding alone) × "
            f"{rounds} round(s) …")
        outputs, latencies = interleaved(systems, items, rounds)

        sources: dict[str, list[list[m.RetrievedSource]]] = {
            "dropqa retrieval": [node_sources(svc.db, [(h.document_name, h.section, h.version, h.node_id, h.snippet())
                                                       for h in hits]) for hits in outputs["dropqa retrieval"]],
            "dropqa ask": [node_sources(svc.db, [(s.document_name, s.section, s.version, s.node_id, s.snippet)
                                                 for s in a.sources]) if not isinstance(a, str) else []
                           for a in outputs["dropqa ask"]],
            **{b: [chunk_sources(r) for r in outputs[b]] for b in BASELINES},
        }
        bases, versions = corpus_files(spec.corpus, svc.settings.ingestion.ignore_patterns)
        versioned = m.versioned_documents(p.name for p in versions)
        results: dict[str, Any] = {}
        ranks: dict[str, list[int | None]] = {}
        for name in SYSTEMS:
            quality, ranks[name] = score(items, sources[name], versioned)
            results[name] = {**quality, **percentiles(latencies[name])}
        results[EMBED] = percentiles(latencies[EMBED])
        modes = [a.mode if not isinstance(a, str) else "error" for a in outputs["dropqa ask"]]
        results["dropqa ask"]["modes"] = {mode: modes.count(mode) for mode in sorted(set(modes))}
        errors = sorted({a for a in outputs["dropqa ask"] if isinstance(a, str)})
        if errors:
            results["dropqa ask"]["errors"] = errors
            log(f"[{spec.name}] dropqa ask failed on {modes.count('error')} question(s): {errors[0]}")
        return {
            "suite": spec.name, "golden": str(spec.golden), "corpus": str(spec.corpus),
            "questions": len(items), "rounds": rounds, "files": [p.name for p in bases + versions],
            "index": {"dropqa_seconds": round(index_seconds, 2), "failed": failed,
                      "bm25_build_seconds": round(bm25_build, 3), "pgvector_build_seconds": round(pg_build, 2),
                      "chunks": len(chunks), "dropqa_nodes": _count_nodes(svc.db)},
            "offline": bool(svc.settings.offline),
            "systems": results,
            "ratios": suite_ratios(results),
            "items": [{"id": it.id, "type": it.type, "language": it.language, "no_answer": it.no_answer,
                       "first_evidence_rank": {n: ranks[n][i] for n in SYSTEMS}} for i, it in enumerate(items)],
        }
    finally:
        if vector is not None:
            vector.close()
        svc.close()


def safe_ask(ask: Callable[..., Any], svc: Any, question: str) -> Any:
    """The graph's answer, or the error as a string: a failing question counts as no sources, the run goes on."""
    try:
        return ask(svc, question, show_reasoning=False)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"[:300]


def _count_nodes(db: Any) -> int:
    with db.connection() as conn:
        return int(conn.execute("SELECT count(*) AS c FROM embeddings").fetchone()["c"])


def suite_ratios(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """DropQA against the baselines of the same run: quality differences, latency ratios."""
    best = max(BASELINES, key=lambda b: (results[b]["recall_at_5"] or 0, results[b]["mrr_at_10"] or 0))
    out: dict[str, Any] = {"best_baseline": best}
    for system in ("dropqa retrieval", "dropqa ask"):
        s = results[system]
        out[system] = {
            "recall_at_5_minus_best": _diff(s["recall_at_5"], results[best]["recall_at_5"]),
            "mrr_at_10_minus_best": _diff(s["mrr_at_10"], results[best]["mrr_at_10"]),
            **{f"p95_vs_{b}": ratio(s["p95_ms"], results[b]["p95_ms"]) for b in BASELINES},
            **{f"p50_vs_{b}": ratio(s["p50_ms"], results[b]["p50_ms"]) for b in BASELINES},
        }
    return out


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(a - b, 3)
