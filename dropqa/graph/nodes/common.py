"""Small helpers the nodes share (evidence pool, trace steps, budget, answerability)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, TypeVar

from langchain_core.messages import AIMessage

from dropqa.config import AgentSettings
from dropqa.graph.state import State, TraceStep
from dropqa.retrieval.answerability import Decision, decide
from dropqa.retrieval.hits import Hit
from dropqa.services import Services

T = TypeVar("T")


def in_turns(queues: Sequence[Sequence[T]]) -> list[T]:
    """The queues' items taking turns: the first of each, then the second of each, … (A1, B1, A2, B2, …)."""
    return [queue[rank] for rank in range(max(map(len, queues), default=0)) for queue in queues if rank < len(queue)]


def merge_hits(pool: list[Hit], new: list[Hit]) -> tuple[list[Hit], int]:
    """Add ``new`` to the evidence pool (by node id, keeping the higher relevance); best first.

    Returns the merged pool and how many passages were not in it before.
    """
    by_id = {h.node_id: h for h in pool}
    added = 0
    for h in new:
        kept = by_id.get(h.node_id)
        if kept is None:
            by_id[h.node_id] = h
            added += 1
        elif h.relevance > kept.relevance:
            h.channels = sorted(set(kept.channels) | set(h.channels))
            by_id[h.node_id] = h
    merged = sorted(by_id.values(), key=lambda h: (-h.relevance, h.document_name, h.position, h.node_id))
    return merged, added


def has_model(svc: Services, degraded: bool) -> bool:
    """A chat model is configured and has not failed earlier in this run."""
    return bool(svc.chat_providers) and not degraded


def model_deadline(started_at: float, cfg: AgentSettings) -> float:
    """When the question's model time (``agent.model_seconds``, from its start) runs out (``time.time()``):
    every chat call of the question is given it (``models.chat``), so none waits past it."""
    return (started_at or time.time()) + cfg.model_seconds


def step(state: State, type_: str, content: str, **extra: Any) -> TraceStep:
    trace = state.reasoning_trace
    number = (trace[-1]["step"] + (1 if type_ in ("thought", "retrieval") else 0)) if trace else 0
    return TraceStep(step=number, type=type_, content=content, **extra)  # type: ignore[typeddict-item]


def last_ai(state: State) -> AIMessage | None:
    for message in reversed(state.messages):
        if isinstance(message, AIMessage):
            return message
    return None


def budget_spent(state: State, cfg: AgentSettings) -> str | None:
    """Why the loop must stop now, or None. The graph enforces this, not the model."""
    if state.iterations >= cfg.max_iterations:
        return f"iterations {state.iterations}/{cfg.max_iterations}"
    if state.tool_calls >= cfg.max_tool_calls:
        return f"tool calls {state.tool_calls}/{cfg.max_tool_calls}"
    tokens = state.usage.total
    if tokens >= cfg.max_tokens:
        return f"tokens {tokens}/{cfg.max_tokens}"
    started = state.started_at
    if started and time.time() - started >= cfg.max_seconds:
        return f"time {time.time() - started:.0f}s/{cfg.max_seconds:.0f}s"
    return None


def decide_answerable(state: State, hits: list[Hit], svc: Services,
                      weights: dict[str, float] | None = None) -> Decision:
    """The fitted answerability decision over the evidence pool (``retrieval.answerability``);
    ``weights`` replaces the question's term weights (evaluate rescores with the bridge's terms)."""
    return decide(svc.calibration.question, hits, list(state.terms),
                  state.quality.weights if weights is None else weights, state.language, state.intent.kind,
                  unseen=state.quality.unseen, asked=state.quality.asked,
                  absent_share=svc.settings.answer.absent_attribute_share,
                  nowhere_share=svc.settings.answer.nowhere_share, apart_share=svc.settings.answer.apart_share)
