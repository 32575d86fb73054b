"""``retrieve``: standard RAG — hybrid search over the visible version of every document."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from dropqa.graph.context import Context
from dropqa.graph.nodes.common import dump_hits, step
from dropqa.graph.prompts import render
from dropqa.graph.state import State
from dropqa.store.scope import Scope
from dropqa.text.lang import detect_language
from dropqa.tools.retrieval import hybrid_search


def retrieve(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    svc = runtime.context.svc()
    question = state["question"].strip()
    language = state.get("language") or (
        svc.settings.language if svc.settings.language != "auto" else detect_language(question)
    )
    result = hybrid_search(svc, question, Scope(version=state.get("version")), k=runtime.context.top_k)
    assessment = step(state, "initial_assessment", render(language, "assessment_direct"))
    summary = render(
        language, "retrieval_summary", n=len(result.hits), top=f"{result.top_relevance:.2f}",
        terms=", ".join(result.terms) or "—",
    )
    return {
        "language": language,
        "terms": result.terms,
        "hits": dump_hits(result.hits),
        "mode": "direct",
        "iterations": 0,
        "quality": {"weights": result.weights},
        "reasoning_trace": [
            assessment,
            {"step": 1, "type": "retrieval", "content": summary, "tool": "hybrid_search",
             "arguments": {"query": question, "version": state.get("version")},
             "result_summary": summary},
        ],
    }
