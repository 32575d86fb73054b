"""The graph's typed state.

``State`` is a dataclass: a node reads ``state.hits`` (typed, with a default when no node
has written it yet) and returns a dict of the fields it changes. Its values are plain
data or pydantic models/dataclasses (``Hit``, ``Intent``, ``Quality``, ``Evaluation``):
LangGraph's checkpoint serializer (JsonPlus/msgpack) round-trips them and allow-lists
every type it finds in this schema when the graph is compiled; Studio shows them as JSON.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, NotRequired

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from dropqa.answering.intent import Intent
from dropqa.retrieval.hits import Hit

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


class Quality(BaseModel):
    """What retrieval learnt about the question (idf weights, unseen terms, translations) and
    ``quality_check``'s verdict on the first evidence."""

    weights: dict[str, float] = Field(default_factory=dict)
    unseen: list[str] = Field(default_factory=list)
    translations: dict[str, list[str]] = Field(default_factory=dict)
    sufficient: bool = False
    top_relevance: float = 0.0
    decision: dict[str, Any] = Field(default_factory=dict, description="tools.answerability.Decision.as_dict()")


class Evaluation(BaseModel):
    """The last ``evaluate`` step's verdict on what the tool calls brought."""

    verdict: Literal["empty", "contradiction", "low", "good"] = "good"
    new: int = 0
    top: float = 0.0
    density: float = 0.0
    contradictions: int = 0
    threshold: float = 0.0
    probability: float = 0.0


class InputState(TypedDict):
    question: str
    version: NotRequired[int | None]
    topic_filter: NotRequired[list[str]]


@dataclass
class State:
    question: str
    version: int | None = None
    topic_filter: list[str] = field(default_factory=list)
    language: Literal["zh", "en"] = "en"
    query: str = ""  # the question as searched (a follow-up is completed from the thread's last question)
    intent: Intent = field(default_factory=Intent)
    messages: Annotated[list[AnyMessage], add_messages] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)  # the evidence pool, best first
    terms: list[str] = field(default_factory=list)
    quality: Quality = field(default_factory=Quality)
    outline: dict[str, Any] = field(default_factory=dict)  # get_document_structure's data, when asked for
    bridge: list[str] = field(default_factory=list)  # entities found on the way (multi-hop)
    evaluation: Evaluation | None = None  # the last evaluate step's verdict (None before the loop)
    strategy: str = "start"  # what adapt decided: refine | deeper | broaden | bridge | verify | finalize
    strategies_done: list[str] = field(default_factory=list)
    tried: list[str] = field(default_factory=list)  # tool calls already made (name + arguments)
    tool_calls: int = 0
    started_at: float = 0.0  # wall-clock start of the run (budget)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    findings: Annotated[list[dict[str, Any]], extend_or_reset] = field(default_factory=list)  # one per reader
    answer: str = ""
    answerable: bool = False
    confidence: Literal["high", "medium", "low"] | None = None
    citations: list[int] = field(default_factory=list)  # indexes into hits that the answer cites
    mode: Literal["direct", "agent"] = "direct"
    iterations: int = 0
    degraded: bool = False
    usage: Annotated[dict[str, Any], merge_usage] = field(default_factory=dict)
    history: Annotated[list[dict[str, Any]], operator.add] = field(default_factory=list)  # earlier turns
    reasoning_trace: Annotated[list[TraceStep], extend_or_reset] = field(default_factory=list)
    identified_topics: list[str] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)

    @property
    def search_text(self) -> str:
        """The question as searched (the completed follow-up), else as asked."""
        return self.query or self.question


class ReaderState(TypedDict):
    """What one ``read_document`` reader gets through ``Send``: a question and one document's passages."""

    question: str
    language: str
    terms: list[str]
    bridge: list[str]
    document: str
    hits: list[Hit]
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
