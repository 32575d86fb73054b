"""``quality_check``: is the retrieved evidence good enough to answer from directly?

The decision is the fitted answerability model (``retrieval.answerability``): features of the
best passages — similarity, the share of the question's idf-weighted terms they hold, whether
full-text and vector search agree, the margin over other documents, the language pair — give
P(the documents hold the answer). Sufficient evidence for a plain fact question takes the
fast path (``answer``). Weak evidence — or a question whose kind one search cannot answer
(chapters, pages, versions compared, multi-hop, several documents) — enters the agent loop.
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.runtime import Runtime
from langgraph.types import Send

from dropqa.graph.nodes.common import decide_answerable, step
from dropqa.graph.nodes.readers import readers_for
from dropqa.graph.state import State
from dropqa.services import Context
from dropqa.text.asked import as_written
from dropqa.text.messages import render


def distinct(value: float, threshold: float) -> tuple[str, str]:
    """Both numbers with as many decimals (2–4) as it takes to show they differ, so the trace never
    reads "0.66, answers from 0.66 up" for 0.655 below 0.66."""
    for decimals in (2, 3, 4):
        a, b = f"{value:.{decimals}f}", f"{threshold:.{decimals}f}"
        if a != b or value == threshold:
            break
    if a == b and value != threshold:  # closer than 0.00005: say which side it is on
        a = ("<" if value < threshold else ">") + b
    return a, b


async def quality_check(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    hits = state.hits
    intent = state.intent
    decision = decide_answerable(state, hits, runtime.context.services)
    threshold = decision.threshold
    lang = state.language
    key = "quality_ok" if decision.answerable else "quality_low"
    shown_p, shown_threshold = distinct(decision.probability, threshold)
    steps = [step(state, "quality_check", render(lang, key, p=shown_p, threshold=shown_threshold))]
    asked = state.quality.asked
    said = {"attribute_absent": ("quality_absent", asked.missing, asked.absent),
            "attribute_nowhere": ("quality_nowhere", asked.nowhere_terms, asked.nowhere),
            "attribute_apart": ("quality_apart", asked.apart_terms, asked.apart)}.get(decision.rule or "")
    if said is not None:  # a check refused: which words are missing, and what share of the question they are
        key, missing, share = said
        steps.append(step(state, "quality_check", render(
            lang, key, missing=("、" if lang == "zh" else ", ").join(as_written(state.question, missing[:3])),
            share=f"{share:.0%}")))
    if intent.needs_loop:
        steps.append(step(state, "quality_check", render(lang, "quality_loop", kind=intent.kind)))
    quality = state.quality.model_copy(update={
        "sufficient": decision.answerable and not intent.needs_loop,
        "top_relevance": hits[0].relevance if hits else 0.0, "decision": decision})
    return {"quality": quality, "reasoning_trace": steps}


def route_quality(state: State, runtime: Runtime[Context]) -> Literal["answer", "think"] | list[Send]:
    """Enough evidence → answer (one reader per document when the question names several, via
    ``Send``); else the agent loop."""
    if not state.quality.sufficient:
        return "think"
    readers = readers_for(state, runtime.context.services.settings.answer, runtime.context.services.settings.agent)
    return [Send("read_document", r) for r in readers] if readers else "answer"
