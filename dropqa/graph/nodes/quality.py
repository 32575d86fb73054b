"""``quality_check``: is the retrieved evidence good enough to answer from?"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.runtime import Runtime

from dropqa.graph.context import Context
from dropqa.graph.nodes.common import hits_of, step
from dropqa.graph.prompts import render
from dropqa.graph.state import State


def quality_check(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    threshold = runtime.context.svc().settings.retrieval.quality_min_relevance
    hits = hits_of(state)
    top = hits[0].relevance if hits else 0.0
    sufficient = bool(hits) and top >= threshold
    key = "quality_ok" if sufficient else "quality_low"
    lang = state.get("language", "en")
    quality = {**(state.get("quality") or {}), "sufficient": sufficient, "top_relevance": top,
               "threshold": threshold}
    return {
        "quality": quality,
        "reasoning_trace": [step(state, "quality_check",
                                 render(lang, key, top=f"{top:.2f}", threshold=f"{threshold:.2f}"))],
    }


def route_quality(state: State) -> Literal["answer", "abstain"]:
    return "answer" if (state.get("quality") or {}).get("sufficient") else "abstain"
