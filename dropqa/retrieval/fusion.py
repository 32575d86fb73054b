"""Reciprocal rank fusion and term-coverage scoring (pure functions, no database)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from dropqa.retrieval.hits import Hit


def rrf(result_lists: Sequence[Sequence[Hit]], k: int = 60) -> list[Hit]:
    """Merge ranked lists: score = Σ 1/(k + rank). Channels and matched terms are unioned."""
    merged: dict[str, Hit] = {}
    scores: dict[str, float] = {}
    for hits in result_lists:
        for rank, hit in enumerate(hits, start=1):
            scores[hit.node_id] = scores.get(hit.node_id, 0.0) + 1.0 / (k + rank)
            if hit.node_id in merged:
                kept = merged[hit.node_id]
                kept.channels = sorted(set(kept.channels) | set(hit.channels))
                kept.matched_terms = sorted(set(kept.matched_terms) | set(hit.matched_terms))
                kept.metadata.setdefault("semantic", hit.metadata.get("semantic"))
            else:
                merged[hit.node_id] = hit.model_copy(deep=True)
    out = sorted(merged.values(), key=lambda h: (-scores[h.node_id], h.position, h.node_id))  # ties: always one order
    for h in out:
        h.score = scores[h.node_id]
    return out


def idf_weights(df: dict[str, int], total: int) -> dict[str, float]:
    """BM25's idf, floored at a small positive value so common terms still count a little."""
    return {t: max(0.05, math.log((total - n + 0.5) / (n + 0.5) + 1.0)) for t, n in df.items()}


def coverage(matched: Sequence[str], weights: dict[str, float]) -> float:
    """Share of the question's information (idf mass) that a hit contains."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    return sum(weights.get(t, 0.0) for t in set(matched)) / total


def calibrate_similarity(sim: float, floor: float, ceiling: float) -> float:
    """Map a cosine similarity onto 0–1 between a model-specific floor and ceiling
    (``Settings.retrieval.similarity_floor`` / ``similarity_ceiling``; no default: the caller passes both)."""
    if ceiling <= floor:
        return 0.0
    return min(1.0, max(0.0, (sim - floor) / (ceiling - floor)))
