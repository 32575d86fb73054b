"""``quality_check``: is the retrieved evidence good enough to answer from directly?

Sufficient evidence for a plain fact question takes the fast path (``answer``).
Weak evidence — or a question whose kind one search cannot answer (chapters,
pages, versions compared, multi-hop, several documents) — enters the agent loop.
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.runtime import Runtime

from dropqa.graph.context import Context
from dropqa.graph.intent import Intent
from dropqa.graph.nodes.common import hits_of, step
from dropqa.graph.prompts import render
from dropqa.graph.state import State


def quality_check(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    threshold = runtime.context.svc().settings.retrieval.quality_min_relevance
    hits = hits_of(state)
    top = hits[0].relevance if hits else 0.0
    intent = Intent.from_dict(state.get("intent"))
    sufficient = bool(hits) and top >= threshold
    lang = state.get("language", "en")
    steps = [step(state, "quality_check", render(lang, "quality_ok" if sufficient else "quality_low",
                                                 top=f"{top:.2f}", threshold=f"{threshold:.2f}"))]
    if intent.needs_loop:
        steps.append(step(state, "quality_check", render(lang, "quality_loop", kind=intent.kind)))
    quality = {**(state.get("quality") or {}), "sufficient": sufficient and not intent.needs_loop,
               "top_relevance": top, "threshold": threshold}
    return {"quality": quality, "reasoning_trace": steps}


def route_quality(state: State) -> Literal["answer", "think"]:
    return "answer" if (state.get("quality") or {}).get("sufficient") else "think"
