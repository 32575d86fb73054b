"""Evaluation metrics: plain functions ``(item, result) -> score`` plus the suite-level aggregation.

The definitions agree with the independent scorer ``shared/tools/score_golden.py``:

* **Normalisation** (:func:`norm`): NFKC, lower case, all whitespace removed.
* **Evidence found by a source** (:func:`evidence_found`): the source's document name, with
  ``STEM_vN.EXT`` folded onto ``STEM.EXT``, equals the evidence document (folded the same way);
  when the corpus has versions of that document and the source reports a version, the version
  must be the evidence's (``_vN`` → N, otherwise 1); the cited node's full text contains the
  evidence's ``contains`` (normalised); a short string (< 8 normalised characters) must also have
  the evidence ``section`` on the source's section path (or at the head of the node's text).
* Only the first 10 sources count (``@10``); ranks are 1-based.
* Per-item metrics return ``None`` when they do not apply (e.g. recall on a no-answer item); the
  suite value is the mean over the items where they apply, rounded to 3 places, ``None`` when no
  item applies.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dropqa.evals.suite import EvalItem, Evidence

VERSION_RE = re.compile(r"^(?P<stem>.+)_v(?P<n>\d+)(?P<ext>\.[^.]+)$")
SHORT_CONTAINS = 8
TOP = 10


@dataclass
class RetrievedSource:
    """One source of an answer, with the cited node's full text read from the store."""

    document_name: str
    section: str = ""
    version: int | None = None
    node_id: str | None = None
    text: str = ""
    snippet: str = ""
    relevance: float = 0.0
    cited: bool = False
    page: int | None = None


@dataclass
class ItemResult:
    answer: str = ""
    answerable: bool = True
    sources: list[RetrievedSource] = field(default_factory=list)
    latency_ms: float = 0.0
    mode: str | None = None
    iterations: int = 0
    error: str | None = None


def norm(s: str) -> str:
    s = unicodedata.normalize("NFKC", s or "").lower()
    return re.sub(r"\s+", "", s)


def base_name(doc: str) -> tuple[str, int | None]:
    """``STEM_vN.EXT`` → (``STEM.EXT``, N); anything else → (name, None)."""
    m = VERSION_RE.match(doc)
    if m:
        return m["stem"] + m["ext"], int(m["n"])
    return doc, None


def versioned_documents(names: Iterable[str]) -> frozenset[str]:
    """The base names of corpus documents that have ``_vN`` versions."""
    return frozenset(base_name(n)[0] for n in names if VERSION_RE.match(n))


def evidence_found(ev: Evidence, src: RetrievedSource, versioned: frozenset[str] = frozenset()) -> bool:
    """True when ``src`` supports ``ev`` (document, version, contains, short-string section rule above)."""
    doc, ver = base_name(ev.document)
    if base_name(Path(src.document_name or "").name)[0] != doc:
        return False
    if doc in versioned and src.version is not None and int(src.version) != (ver or 1):
        return False
    c = norm(ev.contains)
    text = src.text or src.snippet
    if c not in norm(text):
        return False
    if len(c) < SHORT_CONTAINS and ev.section:
        path = norm(src.section) + norm(text[:400])
        if norm(ev.section) not in path:
            return False
    return True


def evidence_ranks(item: EvalItem, result: ItemResult, versioned: frozenset[str] = frozenset()) -> list[int | None]:
    """For each evidence: the 1-based rank of the first source (top 10) that finds it, or None."""
    top = result.sources[:TOP]
    return [next((i + 1 for i, s in enumerate(top) if evidence_found(ev, s, versioned)), None)
            for ev in item.evidence]


def first_rank(item: EvalItem, result: ItemResult, versioned: frozenset[str] = frozenset()) -> int | None:
    return min((r for r in evidence_ranks(item, result, versioned) if r), default=None)


def recall_at_5(item: EvalItem, result: ItemResult, versioned: frozenset[str] = frozenset()) -> float | None:
    """1 if any evidence is found in the first 5 sources, else 0. Answerable items only."""
    if item.no_answer:
        return None
    r = first_rank(item, result, versioned)
    return float(bool(r and r <= 5))


def recall_at_10(item: EvalItem, result: ItemResult, versioned: frozenset[str] = frozenset()) -> float | None:
    """1 if any evidence is found in the first 10 sources, else 0. Answerable items only."""
    if item.no_answer:
        return None
    r = first_rank(item, result, versioned)
    return float(bool(r and r <= TOP))


def all_evidence_at_10(item: EvalItem, result: ItemResult,
                       versioned: frozenset[str] = frozenset()) -> float | None:
    """1 if every evidence is found in the first 10 sources. Only items with more than one evidence."""
    if item.no_answer or not item.multi_evidence:
        return None
    return float(all(evidence_ranks(item, result, versioned)))


def reciprocal_rank_at_10(item: EvalItem, result: ItemResult,
                          versioned: frozenset[str] = frozenset()) -> float | None:
    """1 / rank of the first source (top 10) that finds any evidence, 0 when none. Answerable items only."""
    if item.no_answer:
        return None
    r = first_rank(item, result, versioned)
    return 1.0 / r if r else 0.0


def answer_accuracy(item: EvalItem, result: ItemResult) -> float | None:
    """1 if the normalised answer contains ANY normalised expected answer. Items with answers only.

    The answer text is scored whether or not the system flagged it answerable (as score_golden does).
    """
    if item.no_answer or not item.answers:
        return None
    ans = norm(result.answer)
    return float(any(norm(a) in ans for a in item.answers))


def no_answer_accuracy(item: EvalItem, result: ItemResult) -> float | None:
    """1 if the system said ``answerable: false`` on a no-answer item. No-answer items only."""
    if not item.no_answer:
        return None
    return float(not result.answerable)


def false_abstention(item: EvalItem, result: ItemResult) -> float | None:
    """1 if the system said ``answerable: false`` on an answerable item (lower is better)."""
    if item.no_answer:
        return None
    return float(not result.answerable)


def citation_counts(item: EvalItem, result: ItemResult,
                    versioned: frozenset[str] = frozenset()) -> tuple[int, int]:
    """(sources among the top 10 that find some evidence, sources among the top 10). Answerable items.

    Like score_golden, every returned source counts as a citation (not only those flagged ``cited``).
    """
    if item.no_answer:
        return 0, 0
    top = result.sources[:TOP]
    ok = sum(1 for s in top if any(evidence_found(ev, s, versioned) for ev in item.evidence))
    return ok, len(top)


def citation_precision(item: EvalItem, result: ItemResult,
                       versioned: frozenset[str] = frozenset()) -> float | None:
    """Share of the top-10 sources that find some evidence; None for no-answer items or no sources.

    The suite value is micro-averaged: all supporting sources / all sources over answerable items.
    """
    ok, n = citation_counts(item, result, versioned)
    return ok / n if n else None


def latency_p50(latencies_ms: Iterable[float]) -> int | None:
    """Median latency (``statistics.median``), rounded to whole ms."""
    lat = sorted(latencies_ms)
    return round(statistics.median(lat)) if lat else None


def latency_p95(latencies_ms: Iterable[float]) -> int | None:
    """Nearest-rank-below p95: ``sorted[min(n - 1, int(0.95 * n))]``, rounded to whole ms."""
    lat = sorted(latencies_ms)
    return round(lat[min(len(lat) - 1, int(0.95 * len(lat)))]) if lat else None


def item_metrics(item: EvalItem, result: ItemResult, versioned: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Every per-item score, plus the evidence ranks and citation counts the summary needs."""
    ok, n = citation_counts(item, result, versioned)
    return {
        "evidence_ranks": evidence_ranks(item, result, versioned),
        "recall_at_5": recall_at_5(item, result, versioned),
        "recall_at_10": recall_at_10(item, result, versioned),
        "all_evidence_at_10": all_evidence_at_10(item, result, versioned),
        "reciprocal_rank_at_10": reciprocal_rank_at_10(item, result, versioned),
        "answer_accuracy": answer_accuracy(item, result),
        "no_answer_accuracy": no_answer_accuracy(item, result),
        "false_abstention": false_abstention(item, result),
        "citation_precision": citation_precision(item, result, versioned),
        "citations_supporting": ok,
        "citations": n,
    }


def _mean(xs: list[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return round(sum(vals) / len(vals), 3) if vals else None


def summarize(records: list[dict[str, Any]], judged: bool = False) -> dict[str, Any]:
    """Suite-level numbers from per-item records (each has ``metrics`` and ``latency_ms``).

    ``judged``: the LLM judge ran on this suite, so ``answer_correctness`` (mean judge score over the
    items it graded, see :mod:`dropqa.evals.judge`) follows ``answer_accuracy``; otherwise it is absent.
    """
    m = [r["metrics"] for r in records]
    cited = sum(x["citations"] for x in m)
    lat = [r["latency_ms"] for r in records]
    judge = {"answer_correctness": _mean([x.get("answer_correctness") for x in m])} if judged else {}
    return {
        "n": len(records),
        "evidence_recall_at_5": _mean([x["recall_at_5"] for x in m]),
        "evidence_recall_at_10": _mean([x["recall_at_10"] for x in m]),
        "all_evidence_at_10": _mean([x["all_evidence_at_10"] for x in m]),
        "mrr_at_10": _mean([x["reciprocal_rank_at_10"] for x in m]),
        "answer_accuracy": _mean([x["answer_accuracy"] for x in m]),
        **judge,
        "no_answer_accuracy": _mean([x["no_answer_accuracy"] for x in m]),
        "false_abstention_rate": _mean([x["false_abstention"] for x in m]),
        "citation_precision": round(sum(x["citations_supporting"] for x in m) / cited, 3) if cited else None,
        "latency_p50_ms": latency_p50(lat),
        "latency_p95_ms": latency_p95(lat),
    }


def summarize_suite(records: list[dict[str, Any]], index_seconds: float | None) -> dict[str, Any]:
    """The report's ``summary``: overall numbers, ``index_seconds``, and the same numbers by type / language."""
    judged = any("answer_correctness" in r["metrics"] for r in records)
    out = summarize(records, judged)
    out["index_seconds"] = round(index_seconds, 1) if index_seconds is not None else None
    for key, field_name in (("by_type", "type"), ("by_language", "language")):
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in records:
            groups[str(r.get(field_name))].append(r)
        out[key] = {g: summarize(rs, judged) for g, rs in sorted(groups.items())}
    return out
