"""``adapt``: the seed's feedback rules turn the evaluation into the next strategy.

empty → broaden (semantic), then explore deeper · low relevance → refine, broaden,
deeper · multi-hop with a new bridge entity → follow it · contradictions → verify
sources · enough evidence (or the budget spent) → answer. Questions that gather
several documents' statements fan out to one reader per document (``Send``).
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.runtime import Runtime
from langgraph.types import Send

from dropqa.answering.intent import Intent
from dropqa.graph.nodes.common import budget_spent, has_model, step
from dropqa.graph.nodes.readers import readers_for
from dropqa.graph.state import State, Strategy
from dropqa.services import Context
from dropqa.text.messages import render

_ORDER = {"empty": ["broaden", "deeper"], "low": ["refine", "broaden", "deeper"]}


def strategies_done(state: State) -> set[Strategy]:
    """The strategies tried so far this turn, the one just carried out included."""
    return {*state.strategies_done, state.strategy or "start"}


def next_strategy(state: State, intent: Intent, done: set[Strategy]) -> Strategy:
    verdict = state.evaluation.verdict if state.evaluation else "good"
    if intent.kind in ("structure", "page"):
        if state.outline is not None:
            return "answer"
        return "broaden" if "broaden" not in done else "answer"
    if intent.kind == "compare_versions":
        return "answer"
    if intent.kind == "multi_hop" and state.bridge and "bridge" not in done:
        return "bridge"
    if verdict == "contradiction" and "verify" not in done:
        return "verify"
    if verdict == "good":
        return "answer"
    for option in _ORDER.get(verdict, []):
        if option not in done:
            return option
    return "answer"


async def adapt(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    svc = runtime.context.services
    lang = state.language
    intent = state.intent
    spent = budget_spent(state, svc.settings.agent)
    done = strategies_done(state)
    strategy: Strategy = "answer" if spent else next_strategy(state, intent, done)
    if strategy == "answer" and not spent and has_model(svc, state.degraded):
        # With a model, the model decides when it is done (final_answer); the rule becomes a hint.
        strategy = "answer_now"
    if spent:
        text = render(lang, "adapt_budget", why=spent)
    else:
        key = "answer" if strategy == "answer_now" else strategy
        text = render(lang, f"adapt_{key}", bridge=", ".join(state.bridge))
    return {"strategy": strategy, "strategies_done": sorted(done),
            "reasoning_trace": [step(state, "adaptation", text)]}


def route_adapt(state: State, runtime: Runtime[Context]) -> Literal["think", "answer"] | list[Send]:
    """Another round (``think``), or the answer: one reader per document when the question gathers several."""
    if state.strategy != "answer":
        return "think"
    readers = readers_for(state, runtime.context.services.settings.answer, runtime.context.services.settings.agent)
    if readers:
        return [Send("read_document", r) for r in readers]
    return "answer"
