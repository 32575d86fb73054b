"""``finalize``: the response shape — sources, confidence, topics."""

from __future__ import annotations

import re
from typing import Any

from langgraph.runtime import Runtime

from dropqa.graph.context import Context
from dropqa.graph.nodes.common import hits_of
from dropqa.graph.state import State
from dropqa.store.documents import topics_named
from dropqa.tools.hits import Hit


def source_of(hit: Hit, snippet_chars: int, cited: bool) -> dict[str, Any]:
    return {
        "document_id": hit.document_id,
        "document_name": hit.document_name,
        "section": hit.section,
        "node_id": hit.node_id,
        "snippet": hit.snippet(snippet_chars),
        "relevance": round(min(1.0, max(0.0, hit.relevance)), 3),
        "page": hit.page,
        "page_estimated": hit.page_estimated,
        "version": hit.version,
        "cited": cited,
    }


def renumber_citations(answer: str, renumber: dict[int, int]) -> str:
    """Rewrite ``[n]`` markers (1-based) in one pass, so a new number is never rewritten again."""
    def repl(m: re.Match[str]) -> str:
        old = int(m.group(1)) - 1
        return f"[{renumber[old] + 1}]" if old in renumber else m.group(0)

    return re.sub(r"\[(\d+)\]", repl, answer)


def confidence_of(top: float, answerable: bool) -> str:
    if not answerable:
        return "high" if top < 0.2 else "medium"
    return "high" if top >= 0.7 else "medium" if top >= 0.5 else "low"


def finalize(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    svc = runtime.context.svc()
    cfg = svc.settings.retrieval
    hits = hits_of(state)
    cited = set(state.get("citations") or [])
    answerable = bool(state.get("answerable"))
    top = hits[0].relevance if hits else 0.0
    floor = top * cfg.source_min_ratio
    # Cited passages always stay (citation numbers point into this list); weak ones are dropped so
    # that what is shown as a source is something that bears on the question.
    keep = [i for i, h in enumerate(hits[: cfg.top_k]) if i in cited or h.relevance >= floor]
    sources = [source_of(hits[i], cfg.snippet_chars, i in cited) for i in keep]
    renumber = {old: new for new, old in enumerate(keep)}
    answer = state.get("answer", "")
    if cited and any(renumber.get(i) != i for i in cited):
        answer = renumber_citations(answer, renumber)
    return {
        "answer": answer,
        "sources": sources,
        "confidence": state.get("confidence") or confidence_of(top, answerable),
        "identified_topics": topics_named(svc.db, state.get("terms") or []),
        "mode": state.get("mode", "direct"),
        "iterations": state.get("iterations", 0),
    }
