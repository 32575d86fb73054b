"""Run a golden suite: stage and index the corpus, ask every question, score every answer.

Staging is the same as ``shared/tools/score_golden.py``: the corpus folder's base files are
copied to a staging folder and indexed first; then every ``STEM_vN.EXT`` is copied over
``STEM.EXT`` and indexed again, in N order, so the store sees a real new version of the same
document (source key = the base file name). Questions go through :func:`dropqa.runtime.run.ask`
(what the API and ``dropqa ask`` call) without a version: the question's text says which
version it means. The first question is asked once untimed as a warm-up (lazy loads), so the
latencies compare with a running server's. Each source's node is read back from the store.

A suite runs in one knowledge base (``kb``, default ``default``): its corpus is indexed into it and
its questions are asked of it alone, so several suites indexed as separate bases of one store answer
exactly as each alone.
"""

from __future__ import annotations

import fnmatch
import json
import logging
import os
import shutil
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from dropqa.evals.judge import AnswerJudge, Judgement
from dropqa.evals.metrics import (
    VERSION_RE,
    ItemResult,
    RetrievedSource,
    base_name,
    evidence_found,
    item_metrics,
    summarize_suite,
    versioned_documents,
)
from dropqa.evals.suite import EvalItem
from dropqa.store.bases import DEFAULT_KB
from dropqa.store.scope import Scope

log = logging.getLogger(__name__)
Progress = Callable[[str, int, int], None]


def corpus_files(corpus: Path, ignore_patterns: list[str] | None = None) -> tuple[list[Path], list[Path]]:
    """(base files sorted by name, ``_vN`` files sorted by N) directly inside ``corpus``."""
    if not corpus.is_dir():
        raise FileNotFoundError(f"corpus folder not found: {corpus}")
    files = sorted(p for p in corpus.iterdir() if p.is_file()
                   and not any(fnmatch.fnmatch(p.name, pat) for pat in ignore_patterns or []))
    bases = [p for p in files if not VERSION_RE.match(p.name)]
    versions = sorted((p for p in files if VERSION_RE.match(p.name)),
                      key=lambda p: (int(VERSION_RE.match(p.name)["n"]), p.name))
    return bases, versions


def stage_and_index(indexer: Any, corpus: Path, staged: Path, progress: Progress | None = None,
                    kb: uuid.UUID = DEFAULT_KB) -> tuple[float, list[dict[str, Any]]]:
    """Index the corpus into base ``kb`` as score_golden does; return (seconds, one outcome row per indexing)."""
    bases, versions = corpus_files(corpus, indexer.settings.ingestion.ignore_patterns)
    staged.mkdir(parents=True, exist_ok=True)
    for p in bases:
        shutil.copy2(p, staged / p.name)
    steps = [(staged / p.name, p.name) for p in bases]
    steps += [(p, base_name(p.name)[0]) for p in versions]
    outcomes: list[dict[str, Any]] = []
    started = time.perf_counter()
    for i, (src, key) in enumerate(steps):
        target = staged / key
        if src != target:  # a _vN file: copy over the base file, then index the same key again
            shutil.copy2(src, target)
            os.utime(target)
        if progress:
            progress(f"indexing {src.name}", i, len(steps))
        o = indexer.index_file(target, key, kb=kb)
        outcomes.append({"file": src.name, "source_key": key, "status": o.status, "version": o.version,
                         "nodes": o.nodes, "seconds": round(o.seconds, 2), "error": o.error})
        if o.status == "failed":
            log.warning("indexing %s failed: %s", src.name, o.error)
    indexer.refresh_topics(kb)
    return time.perf_counter() - started, outcomes


def node_text(db: Any, scope: Scope, node_id: str | None, snippet: str) -> tuple[str, str]:
    """(full text of the node, its breadcrumb): title, breadcrumb, content, summary, metadata, snippet."""
    from dropqa.store.nodes import get_node

    if not node_id:
        return snippet or "", ""
    try:
        node = get_node(db, scope, uuid.UUID(str(node_id)))
    except (ValueError, TypeError):
        node = None
    if node is None:
        return snippet or "", ""
    meta = node.get("metadata") or {}
    parts = [node.get("title") or "", node.get("breadcrumb") or "", node.get("content") or "",
             node.get("summary") or "", json.dumps(meta, ensure_ascii=False) if meta else "", snippet or ""]
    return "\n".join(p for p in parts if p), node.get("breadcrumb") or ""


def ask_item(services: Any, item: EvalItem, kb: uuid.UUID = DEFAULT_KB) -> tuple[ItemResult, dict[str, Any]]:
    """Ask one question of base ``kb``; return the scored-ready result and the raw answer fields."""
    from dropqa.runtime.run import ask

    started = time.perf_counter()
    state: dict[str, Any] = {}
    try:
        answer = ask(services, item.question, show_reasoning=False, kbs=(kb,), final_state=state)
    except Exception as exc:  # record the failure and go on with the suite
        log.exception("question %s failed", item.id)
        return (ItemResult(answer="", answerable=True, latency_ms=(time.perf_counter() - started) * 1000,
                           error=f"{type(exc).__name__}: {exc}"[:500]), {})
    latency = (time.perf_counter() - started) * 1000
    sources = []
    for s in answer.sources:
        text, _crumb = node_text(services.db, Scope(kbs=(kb,)), s.node_id, s.snippet)
        sources.append(RetrievedSource(document_name=s.document_name, section=s.section, version=s.version,
                                       node_id=s.node_id, text=text, snippet=s.snippet, relevance=s.relevance,
                                       cited=s.cited, page=s.page))
    result = ItemResult(answer=answer.answer, answerable=answer.answerable, sources=sources, latency_ms=latency,
                        mode=answer.mode, iterations=answer.iterations)
    quality = state.get("quality")
    decision = quality.decision.as_dict() if quality is not None and quality.decision is not None else None
    if decision is not None:
        decision["quoted"] = quoted_measures(answer.answer if answer.answerable else "", quality, item.question)
        decision["apart"] = list(quality.asked.apart_terms)  # what the apart check read (fit apart replays it)
        asked = quality.asked.weights(quality.weights)  # what the kinds gate read (fit kinds replays it)
        decision["asked"] = {t: round(w, 4) for t, w in asked.items()}
        decision["subject"] = sorted(quality.asked.subject)  # what the kinds gate leaves out (fit kinds replays it)
        decision["translations"] = {t: list(quality.asked.translations.get(t, ())) for t in asked
                                    if quality.asked.translations.get(t)}
    return result, {"confidence": answer.confidence, "decision": decision}


def quoted_measures(answer: str, quality: Any, question: str = "") -> dict[str, float]:
    """How much of what the question asks (its terms beyond its subject, idf-weighted) the answer's quoted lines
    hold between them (``held``), and whether they hold its heaviest asked term (``focus``): what a refusal
    rule on the composed answer would read (``python -m dropqa.evals.fit`` replays such rules on reports)."""
    from dropqa.retrieval.answerability import quote_holds
    from dropqa.text.asked import held_share, quoted

    ask = quality.asked.weights(quality.weights)
    text = quoted(answer)
    focus = max(ask, key=lambda t: ask[t]) if ask else None
    return {"held": round(held_share(text, ask, quality.asked.translations), 4),
            "focus": held_share(text, {focus: 1.0}, quality.asked.translations) if focus else 1.0,
            # what the unlinked check reads (fit unlinked replays it)
            "asked_held": round(quote_holds(text, question, quality.asked, quality.weights), 4)}


def item_failed(item: EvalItem, metrics: dict[str, Any], error: str | None) -> bool:
    """Shown in the report's failures: an error, a no-answer item answered, or an answerable item
    whose evidence is not in the top 10, whose answer misses every expected string, or that abstained."""
    if error:
        return True
    if item.no_answer:
        return metrics["no_answer_accuracy"] == 0
    return (metrics["recall_at_10"] == 0 or metrics["answer_accuracy"] == 0
            or metrics["false_abstention"] == 1)


def record(item: EvalItem, result: ItemResult, extra: dict[str, Any], versioned: frozenset[str],
           judgement: Judgement | None = None) -> dict[str, Any]:
    metrics = item_metrics(item, result, versioned)
    if judgement is not None:
        metrics["answer_correctness"] = judgement.score
    rec = {
        "id": item.id, "question": item.question, "type": item.type, "language": item.language,
        "version": item.version, "no_answer": item.no_answer,
        "expected_answers": list(item.answers), "expected_evidence": item.to_dict()["evidence"],
        "answer": result.answer, "answerable": result.answerable, "confidence": extra.get("confidence"),
        "decision": extra.get("decision"),  # the answerability model's features and verdict (evals.fit reads them)
        "mode": result.mode, "iterations": result.iterations, "latency_ms": round(result.latency_ms, 1),
        "error": result.error,
        "sources": [{
            "rank": i, "document_name": s.document_name, "section": s.section, "version": s.version,
            "node_id": s.node_id, "relevance": round(s.relevance, 4), "cited": s.cited, "page": s.page,
            "snippet": s.snippet[:300],
            "supports": [j for j, ev in enumerate(item.evidence) if evidence_found(ev, s, versioned)],
        } for i, s in enumerate(result.sources[:10], start=1)],
        "metrics": metrics,
        "failed": item_failed(item, metrics, result.error),
    }
    if judgement is not None:
        rec["judge"] = judgement.to_dict()
    return rec


def run_suite(services: Any, items: list[EvalItem], corpus: Path, *, index: bool = True,
              work: Path | None = None, progress: Progress | None = None,
              suite_name: str = "", judge: AnswerJudge | Literal["auto"] | None = "auto",
              kb: uuid.UUID = DEFAULT_KB) -> dict[str, Any]:
    """Index into base ``kb`` (unless ``index`` is False) and ask every item of it; return the report dict
    ``{"summary", "items", "meta"}`` (see :mod:`dropqa.evals.report`).

    ``judge``: ``"auto"`` grades answers with the configured chat model when there is one (nothing
    offline), ``None`` never, or a given :class:`~dropqa.evals.judge.AnswerJudge`."""
    import tempfile

    from dropqa.ingestion.pipeline import Indexer

    bases, versions = corpus_files(corpus, services.settings.ingestion.ignore_patterns)
    versioned = versioned_documents(p.name for p in versions)
    index_seconds = None
    outcomes: list[dict[str, Any]] = []
    if index:
        indexer = Indexer(services.db, services.settings, services.embedder)
        if work is not None:
            index_seconds, outcomes = stage_and_index(indexer, corpus, work / "corpus", progress, kb)
        else:
            with tempfile.TemporaryDirectory(prefix="dropqa-eval-stage-") as tmp:
                index_seconds, outcomes = stage_and_index(indexer, corpus, Path(tmp) / "corpus", progress, kb)
    if items:  # one untimed question first: lazy model / tokenizer loads are not a question's latency
        ask_item(services, items[0], kb)
    if judge == "auto":
        judge = AnswerJudge.from_settings(services.settings)
    records = []
    for i, item in enumerate(items):
        if progress:
            progress(f"asking {item.id}", i, len(items))
        result, extra = ask_item(services, item, kb)
        judgement = None
        if judge is not None and judge.applies(item, result.error):
            if progress:
                progress(f"judging {item.id}", i, len(items))
            judgement = judge.judge(item, result.answer)
        records.append(record(item, result, extra, versioned, judgement))
    if progress:
        progress("done", len(items), len(items))
    return {
        "summary": summarize_suite(records, index_seconds),
        "items": records,
        "meta": {
            "suite": suite_name, "corpus": str(corpus), "files": [p.name for p in bases + versions],
            "versioned_documents": sorted(versioned), "indexing": outcomes,
            "offline": bool(services.settings.offline),
            "embeddings": services.settings.models.embeddings.model,
            "judge": judge.model if judge is not None else None,
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        },
    }
