"""The graph's typed state. Everything in it is JSON-serialisable (checkpoints, Studio)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, NotRequired

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict


class TraceStep(TypedDict):
    step: int
    type: str  # initial_assessment | retrieval | quality_check | thought | action | evaluation | answer | ...
    content: str
    tool: NotRequired[str]
    arguments: NotRequired[dict[str, Any]]
    result_summary: NotRequired[str]


class InputState(TypedDict):
    question: str
    version: NotRequired[int | None]


class State(InputState, total=False):
    language: Literal["zh", "en"]
    messages: Annotated[list[AnyMessage], add_messages]
    hits: list[dict[str, Any]]  # serialised tools.hits.Hit, best first
    terms: list[str]
    quality: dict[str, Any]
    answer: str
    answerable: bool
    confidence: Literal["high", "medium", "low"]
    citations: list[int]  # indexes into hits that the answer cites
    mode: Literal["direct", "agent"]
    iterations: int
    reasoning_trace: Annotated[list[TraceStep], operator.add]
    identified_topics: list[str]
    sources: list[dict[str, Any]]


class OutputState(TypedDict, total=False):
    answer: str
    answerable: bool
    confidence: str
    mode: str
    sources: list[dict[str, Any]]
    identified_topics: list[str]
    iterations: int
    reasoning_trace: list[TraceStep]
