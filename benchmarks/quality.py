"""Retrieval quality and query latency on a golden suite: DropQA against the baselines.

The corpus is indexed the way ``dropqa eval`` indexes it (base files, then each ``_vN`` as a
new version), with a parse hook that keeps each parsed document's text for the baselines'
chunks. Then every question goes to every system, in interleaved rounds:

- ``dropqa retrieval``: :func:`dropqa.retrieval.search.hybrid_search` (top 10), the retrieval
  step of the fast path;
- ``dropqa ask``: :func:`dropqa.runtime.run.ask`, the compiled graph as the API runs it (its
  sources are the ones the answer lists);
- ``bm25``, ``pgvector``, ``bm25+pgvector rrf``: see :mod:`benchmarks.baselines`;
- ``contextual``: the plain chunk-RAG baseline DropQA must beat — the same 500-character chunks,
  each indexed with its document's title in front (:func:`benchmarks.chunks.contextual_chunks`),
  BM25 and PGVector over them fused by RRF.

Suites in a row on the same corpus folder (a ``suites/golden_xl`` file after its corpus' own suite)
share one indexing (:func:`run_suites`).

Quality uses the eval's evidence rule (:func:`dropqa.evals.metrics.evidence_found`): a result
supports an evidence item when it is in the evidence document (right version when the corpus
has versions) and its text contains the ``contains`` string, whitespace-normalised (a contextual
chunk's text is the plain chunk's: the title prefix never counts as evidence). Recall, MRR and
all-evidence@10 (questions with several evidence items, every one in the top 10) are over
answerable items; latency over all questions.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.baselines import BM25Baseline, PGVectorBaseline, RRFBaseline
from benchmarks.chunks import Chunk, TextCapture, chunk_corpus, contextual_chunks
from benchmarks.embedcache import CachedEmbedder
from benchmarks.report import shown_path
from benchmarks.server import BenchServer
from benchmarks.timing import interleaved, percentiles, ratio
from dropqa.evals import metrics as m
from dropqa.evals.suite import EvalItem, load_suite

SYSTEMS = ("dropqa retrieval", "dropqa ask", "bm25", "pgvector", "bm25+pgvector rrf", "contextual")
BASELINES = ("bm25", "pgvector", "bm25+pgvector rrf", "contextual")
# A reference, not a system: the e5 query embedding that DropQA, PGVector and RRF each pay once per question.
EMBED = "e5 query embedding"
TOP = 10
QUALITY_KEYS = ("recall_at_5", "recall_at_10", "all_evidence_at_10", "mrr_at_10")


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
    from dropqa.store.bases import DEFAULT_KB
    from dropqa.store.scope import Scope

    out = []
    for doc, section, version, node_id, snippet in rows:
        text, _ = node_text(db, Scope(kbs=(DEFAULT_KB,)), node_id, snippet)
        out.append(m.RetrievedSource(document_name=doc, section=section, version=version, node_id=node_id,
                                     text=text, snippet=snippet))
    return out


def score(items: list[EvalItem], sources: list[list[m.RetrievedSource]], versioned: frozenset[str],
          ) -> tuple[dict[str, Any], list[int | None]]:
    """Suite recall@5 / recall@10 / MRR@10 / all-evidence@10 (answerable items; all-evidence@10 over
    those with several evidence items) and each item's first evidence rank."""
    r5, r10, rr, ranks = [], [], [], []
    all10: list[float | None] = []
    by_type: dict[str, list[float]] = {}
    all_by_type: dict[str, list[float]] = {}
    for item, srcs in zip(items, sources, strict=True):
        res = m.ItemResult(sources=srcs[:TOP])
        ranks.append(m.first_rank(item, res, versioned))
        if item.no_answer:
            continue
        r5.append(m.recall_at_5(item, res, versioned))
        r10.append(m.recall_at_10(item, res, versioned))
        rr.append(m.reciprocal_rank_at_10(item, res, versioned))
        all10.append(m.all_evidence_at_10(item, res, versioned))
        by_type.setdefault(item.type, []).append(r5[-1])
        if all10[-1] is not None:
            all_by_type.setdefault(item.type, []).append(all10[-1])

    def mean(xs: list[float | None]) -> float | None:
        vals = [x for x in xs if x is not None]
        return round(sum(vals) / len(vals), 3) if vals else None

    return ({"recall_at_5": mean(r5), "recall_at_10": mean(r10), "mrr_at_10": mean(rr),
             "all_evidence_at_10": mean(all10), "n_answerable": len(r5),
             "n_multi_evidence": sum(x is not None for x in all10),
             "recall_at_5_by_type": {t: mean(v) for t, v in sorted(by_type.items())},
             "all_evidence_at_10_by_type": {t: mean(v) for t, v in sorted(all_by_type.items())}}, ranks)


@dataclass
class IndexedCorpus:
    """A corpus indexed into DropQA and into every baseline, ready for the questions of one or more suites."""

    name: str
    corpus: Path
    svc: Any
    embedder: CachedEmbedder
    baselines: dict[str, Any]
    index: dict[str, Any]
    versioned: frozenset[str]
    files: list[str]


@contextmanager
def indexed_corpus(server: BenchServer, name: str, corpus: Path, *, log: Callable[[str], None] = print,
                   ) -> Iterator[IndexedCorpus]:
    """Index ``corpus`` into a fresh database (DropQA, BM25, PGVector, the contextual chunks); close it after."""
    from dropqa.evals.runner import corpus_files, stage_and_index
    from dropqa.ingestion.pipeline import Indexer
    from dropqa.services import Services

    settings = server.settings("bench_" + "".join(ch if ch.isalnum() else "_" for ch in name)[:40])
    svc = Services.open(settings)
    vectors: list[PGVectorBaseline] = []
    try:
        embedder = CachedEmbedder(svc.embedder)
        capture = TextCapture()
        indexer = Indexer(svc.db, svc.settings, embedder, parse=capture)
        log(f"[{name}] indexing {corpus} into DropQA …")
        work = server.tmp / f"stage-{settings.data_dir.name}"
        index_seconds, outcomes = stage_and_index(indexer, corpus, work)
        failed = [o for o in outcomes if o["status"] == "failed"]
        latest = {o["source_key"]: o["version"] for o in outcomes if o["status"] != "failed"}
        texts = {key: capture.texts[Path(key).name] for key in latest if Path(key).name in capture.texts}
        chunks = chunk_corpus(texts, latest)
        log(f"[{name}] {len(outcomes)} indexing step(s), {len(failed)} failed; "
            f"{len(chunks)} baseline chunks of ≤500 characters from {len(texts)} document(s)")
        started = time.perf_counter()
        bm25 = BM25Baseline(chunks)
        bm25_build = time.perf_counter() - started
        started = time.perf_counter()
        vectors.append(PGVectorBaseline(settings.database_url, embedder, f"bench_{settings.data_dir.name}"))
        vectors[-1].add(chunks)
        pg_build = time.perf_counter() - started
        started = time.perf_counter()
        ctx_chunks = contextual_chunks(chunks, texts)
        ctx_bm25 = BM25Baseline(ctx_chunks)
        vectors.append(PGVectorBaseline(settings.database_url, embedder, f"bench_{settings.data_dir.name}_ctx"))
        vectors[-1].add(ctx_chunks)
        ctx_build = time.perf_counter() - started
        embedder.flush()
        bases, versions = corpus_files(corpus, svc.settings.ingestion.ignore_patterns)
        yield IndexedCorpus(
            name=name, corpus=corpus, svc=svc, embedder=embedder,
            baselines={"bm25": bm25, "pgvector": vectors[0], "bm25+pgvector rrf": RRFBaseline(bm25, vectors[0]),
                       "contextual": RRFBaseline(ctx_bm25, vectors[1], name="contextual")},
            index={"dropqa_seconds": round(index_seconds, 2), "failed": failed,
                   "bm25_build_seconds": round(bm25_build, 3), "pgvector_build_seconds": round(pg_build, 2),
                   "contextual_build_seconds": round(ctx_build, 2), "chunks": len(chunks),
                   "dropqa_nodes": _count_nodes(svc.db),
                   "contextual_titles": len({c.prefix for c in ctx_chunks})},
            versioned=m.versioned_documents(p.name for p in versions), files=[p.name for p in bases + versions],
        )
    finally:
        for vector in vectors:
            vector.close()
        svc.close()


def measure(ic: IndexedCorpus, spec: SuiteSpec, *, rounds: int = 3, log: Callable[[str], None] = print,
            ) -> dict[str, Any]:
    """Every system on the questions of ``spec`` (whose corpus ``ic`` holds), in interleaved rounds."""
    from dropqa.retrieval.search import hybrid_search
    from dropqa.runtime.run import ask
    from dropqa.store.bases import DEFAULT_KB
    from dropqa.store.scope import Scope

    items = load_suite(spec.golden)[: spec.limit or None]
    svc, embedder, b = ic.svc, ic.embedder, ic.baselines
    scope = Scope(kbs=(DEFAULT_KB,))
    systems: dict[str, Callable[[EvalItem], Any]] = {
        "dropqa retrieval": lambda it: hybrid_search(svc, it.question, scope, k=TOP).hits,
        "dropqa ask": lambda it: safe_ask(ask, svc, it.question),
        **{name: (lambda it, base=b[name]: base.search(it.question, TOP)) for name in BASELINES},
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
        **{name: [chunk_sources(r) for r in outputs[name]] for name in BASELINES},
    }
    results: dict[str, Any] = {}
    ranks: dict[str, list[int | None]] = {}
    for name in SYSTEMS:
        quality, ranks[name] = score(items, sources[name], ic.versioned)
        results[name] = {**quality, **percentiles(latencies[name])}
    results[EMBED] = percentiles(latencies[EMBED])
    modes = [a.mode if not isinstance(a, str) else "error" for a in outputs["dropqa ask"]]
    results["dropqa ask"]["modes"] = {mode: modes.count(mode) for mode in sorted(set(modes))}
    errors = sorted({a for a in outputs["dropqa ask"] if isinstance(a, str)})
    if errors:
        results["dropqa ask"]["errors"] = errors
        log(f"[{spec.name}] dropqa ask failed on {modes.count('error')} question(s): {errors[0]}")
    return {
        "suite": spec.name, "golden": shown_path(spec.golden), "corpus": shown_path(spec.corpus),
        "questions": len(items), "rounds": rounds, "files": ic.files,
        "index": {**ic.index, **({"shared_with": ic.name} if ic.name != spec.name else {})},
        "offline": bool(svc.settings.offline),
        "systems": results,
        "ratios": suite_ratios(results),
        "items": [{"id": it.id, "type": it.type, "language": it.language, "no_answer": it.no_answer,
                   "first_evidence_rank": {n: ranks[n][i] for n in SYSTEMS}} for i, it in enumerate(items)],
    }


def run_suite(server: BenchServer, spec: SuiteSpec, *, rounds: int = 3, log: Callable[[str], None] = print,
              ) -> dict[str, Any]:
    """Index the suite's corpus and measure its questions."""
    with indexed_corpus(server, spec.name, spec.corpus, log=log) as ic:
        return measure(ic, spec, rounds=rounds, log=log)


def run_suites(server: BenchServer, specs: list[SuiteSpec], *, rounds: int = 3,
               log: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Each suite in turn; suites in a row on the same corpus folder share one indexing (a golden_xl
    file after its corpus' own suite: the questions differ, the documents do not)."""
    out: list[dict[str, Any]] = []
    i = 0
    while i < len(specs):
        j = i + 1
        while j < len(specs) and same_corpus(specs[j].corpus, specs[i].corpus):
            j += 1
        with indexed_corpus(server, specs[i].name, specs[i].corpus, log=log) as ic:
            out.extend(measure(ic, spec, rounds=rounds, log=log) for spec in specs[i:j])
        i = j
    return out


def same_corpus(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return a == b


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
    """DropQA against the baselines of the same run: quality differences (to the best baseline and to
    the contextual one), latency ratios."""
    best = max(BASELINES, key=lambda b: (results[b]["recall_at_5"] or 0, results[b]["mrr_at_10"] or 0))
    out: dict[str, Any] = {"best_baseline": best}
    for system in ("dropqa retrieval", "dropqa ask"):
        s = results[system]
        out[system] = {
            "recall_at_5_minus_best": _diff(s["recall_at_5"], results[best]["recall_at_5"]),
            "mrr_at_10_minus_best": _diff(s["mrr_at_10"], results[best]["mrr_at_10"]),
            **{f"{k}_minus_contextual": _diff(s.get(k), results["contextual"].get(k)) for k in QUALITY_KEYS},
            **{f"p95_vs_{b}": ratio(s["p95_ms"], results[b]["p95_ms"]) for b in BASELINES},
            **{f"p50_vs_{b}": ratio(s["p50_ms"], results[b]["p50_ms"]) for b in BASELINES},
        }
    return out


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(a - b, 3)
