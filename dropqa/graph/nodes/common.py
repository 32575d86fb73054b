"""Small helpers the nodes share (hit (de)serialisation, evidence pool, trace steps, budget)."""

from __future__ import annotations

import time
from typing import Any

from langchain_core.messages import AIMessage

from dropqa.config import AgentSettings
from dropqa.graph.state import State, TraceStep
from dropqa.tools.answerability import Decision, decide
from dropqa.tools.hits import Hit


def hits_of(state: State | dict[str, Any]) -> list[Hit]:
    return [Hit.model_validate(h) for h in state.get("hits") or []]


def dump_hits(hits: list[Hit]) -> list[dict[str, Any]]:
    return [h.model_dump(mode="json") for h in hits]


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
    merged = sorted(by_id.values(), key=lambda h: (-h.relevance, h.document_name, h.position))
    return merged, added


def step(state: State | dict[str, Any], type_: str, content: str, **extra: Any) -> TraceStep:
    trace = state.get("reasoning_trace") or []
    number = (trace[-1]["step"] + (1 if type_ in ("thought", "retrieval") else 0)) if trace else 0
    return TraceStep(step=number, type=type_, content=content, **extra)  # type: ignore[typeddict-item]


def last_ai(state: State | dict[str, Any]) -> AIMessage | None:
    for message in reversed(state.get("messages") or []):
        if isinstance(message, AIMessage):
            return message
    return None


def budget_spent(state: State | dict[str, Any], cfg: AgentSettings) -> str | None:
    """Why the loop must stop now, or None. The graph enforces this, not the model."""
    if int(state.get("iterations") or 0) >= cfg.max_iterations:
        return f"iterations {state.get('iterations')}/{cfg.max_iterations}"
    if int(state.get("tool_calls") or 0) >= cfg.max_tool_calls:
        return f"tool calls {state.get('tool_calls')}/{cfg.max_tool_calls}"
    usage = state.get("usage") or {}
    tokens = int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
    if tokens >= cfg.max_tokens:
        return f"tokens {tokens}/{cfg.max_tokens}"
    started = state.get("started_at")
    if started and time.time() - float(started) >= cfg.max_seconds:
        return f"time {time.time() - float(started):.0f}s/{cfg.max_seconds:.0f}s"
    return None


def decide_answerable(state: State | dict[str, Any], hits: list[Hit], settings: Any = None) -> Decision:
    """The fitted answerability decision over the evidence pool (``tools.answerability``)."""
    intent = state.get("intent") or {}
    quality = state.get("quality") or {}
    path = settings.retrieval.calibration_file if settings is not None else None
    return decide(hits, list(state.get("terms") or []), quality.get("weights") or {}, state.get("language", "en"),
                  intent.get("kind", "fact"), str(path) if path else None, unseen=quality.get("unseen") or ())
