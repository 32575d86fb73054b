"""Small helpers the nodes share (hit (de)serialisation, language, trace steps)."""

from __future__ import annotations

from typing import Any

from dropqa.graph.state import State, TraceStep
from dropqa.tools.hits import Hit


def hits_of(state: State) -> list[Hit]:
    return [Hit.model_validate(h) for h in state.get("hits") or []]


def dump_hits(hits: list[Hit]) -> list[dict[str, Any]]:
    return [h.model_dump(mode="json") for h in hits]


def step(state: State, type_: str, content: str, **extra: Any) -> TraceStep:
    trace = state.get("reasoning_trace") or []
    number = (trace[-1]["step"] + (1 if type_ in ("thought", "retrieval") else 0)) if trace else 0
    return TraceStep(step=number, type=type_, content=content, **extra)  # type: ignore[typeddict-item]
