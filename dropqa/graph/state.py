"""The graph's typed state. Everything in it is JSON-serialisable (checkpoints, Studio)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, NotRequired

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

RESET = {"type": "__reset__"}


def extend_or_reset(left: list | None, right: list | None) -> list:
    """Append ``right`` to ``left``; a list starting with :data:`RESET` replaces it instead.

    Appending reducers keep a thread's previous turn around under a checkpointer; each
    new question starts its own trace and findings by sending ``[RESET, ...]``.
    """
    right = list(right or [])
    if right and right[0] == RESET:
        return right[1:]
    return [*(left or []), *right]


def merge_usage(left: dict | None, right: dict | None) -> dict:
    """Add token counts: ``{"prompt_tokens", "completion_tokens", "by_provider": {name: {...}}}``."""
    if right and right.get("__reset__"):
        return {k: v for k, v in right.items() if k != "__reset__"}
    out: dict[str, Any] = {"prompt_tokens": 0, "completion_tokens": 0, "by_provider": {}, **(left or {})}
    out["by_provider"] = {k: dict(v) for k, v in out.get("by_provider", {}).items()}
    for key in ("prompt_tokens", "completion_tokens"):
        out[key] = int(out.get(key, 0)) + int((right or {}).get(key, 0))
    for name, counts in ((right or {}).get("by_provider") or {}).items():
        mine = out["by_provider"].setdefault(name, {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0})
        for key in ("prompt_tokens", "completion_tokens", "calls"):
            mine[key] = int(mine.get(key, 0)) + int(counts.get(key, 0))
    return out


class TraceStep(TypedDict):
    step: int
    type: str  # initial_assessment | retrieval | quality_check | thought | action | evaluation | adaptation | ...
    content: str
    tool: NotRequired[str]
    arguments: NotRequired[dict[str, Any]]
    result_summary: NotRequired[str]


class InputState(TypedDict):
    question: str
    version: NotRequired[int | None]
    topic_filter: NotRequired[list[str]]


class State(InputState, total=False):
    language: Literal["zh", "en"]
    query: str  # the question as searched (a follow-up is completed from the thread's last question)
    intent: dict[str, Any]  # graph.intent.Intent as a dict
    messages: Annotated[list[AnyMessage], add_messages]
    hits: list[dict[str, Any]]  # the evidence pool: serialised tools.hits.Hit, best first
    terms: list[str]
    quality: dict[str, Any]
    outline: dict[str, Any]  # a document's structure when the question is about it
    bridge: list[str]  # entities found on the way (multi-hop)
    evaluation: dict[str, Any]  # the last evaluate step's verdict
    strategy: str  # what adapt decided: refine | deeper | broaden | bridge | verify | finalize
    strategies_done: list[str]
    tried: list[str]  # tool calls already made (name + arguments), so the planner does not repeat itself
    tool_calls: int
    started_at: float  # wall-clock start of the run (budget)
    conflicts: list[dict[str, Any]]
    findings: Annotated[list[dict[str, Any]], extend_or_reset]  # one per document read (Send fan-out)
    answer: str
    answerable: bool
    confidence: Literal["high", "medium", "low"]
    citations: list[int]  # indexes into hits that the answer cites
    mode: Literal["direct", "agent"]
    iterations: int
    degraded: bool
    usage: Annotated[dict[str, Any], merge_usage]
    history: Annotated[list[dict[str, Any]], operator.add]  # earlier turns of the thread: question, answer
    reasoning_trace: Annotated[list[TraceStep], extend_or_reset]
    identified_topics: list[str]
    sources: list[dict[str, Any]]


class ReaderState(TypedDict):
    """What one ``read_document`` reader gets through ``Send``: a question and one document's passages."""

    question: str
    language: str
    terms: list[str]
    bridge: list[str]
    document: str
    hits: list[dict[str, Any]]
    degraded: bool


class OutputState(TypedDict, total=False):
    answer: str
    answerable: bool
    confidence: str
    mode: str
    sources: list[dict[str, Any]]
    identified_topics: list[str]
    iterations: int
    reasoning_trace: list[TraceStep]
    degraded: bool
    usage: dict[str, Any]
    conflicts: list[dict[str, Any]]
