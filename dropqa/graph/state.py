"""The graph's typed state.

``State`` is a dataclass: a node reads ``state.hits`` (typed, with a default when no node has
written it yet) and returns a dict of the fields it changes. Its values are plain data or pydantic
models/dataclasses: LangGraph's checkpoint serializer (JsonPlus/msgpack) round-trips them and
allow-lists every type it finds in this schema when the graph is compiled; Studio shows them as JSON.

Two kinds of fields:

- :class:`Turn` holds everything one question writes. ``retrieve`` starts every question with
  :meth:`Turn.reset` (one line): each field back to its default, and the appending fields (trace,
  findings, usage) emptied through their reducers. A field added to ``Turn`` is reset with the
  rest; ``tests/unit/test_state_and_knobs.py`` fails when a field of ``State`` is neither a turn
  field nor one of :data:`THREAD_FIELDS`.
- The thread's own fields: the question asked (the input), the earlier turns (``history``) and the
  agent's messages (emptied per question, kept per step).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field, fields
from typing import Annotated, Any, Literal, NotRequired

from langchain_core.messages import AnyMessage, RemoveMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES, add_messages
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from dropqa.answering.consistency import ConflictNote
from dropqa.answering.followup import PastTurn
from dropqa.answering.intent import Intent
from dropqa.answering.outline import Outline
from dropqa.answering.policy import Strategy
from dropqa.models.chat import Usage, add_usage
from dropqa.retrieval.answerability import Asked, Decision
from dropqa.retrieval.hits import Hit, Source

RESET = {"type": "__reset__"}

TraceType = Literal["initial_assessment", "retrieval", "quality_check", "thought", "action", "observation",
                    "evaluation", "adaptation", "reader", "answer", "verification"]


def extend_or_reset(left: list | None, right: list | None) -> list:
    """Append ``right`` to ``left``; a list starting with :data:`RESET` replaces it instead.

    Appending reducers keep a thread's previous turn around under a checkpointer; each
    new question starts its own trace and findings by sending ``[RESET, ...]``.
    """
    right = list(right or [])
    if right and right[0] == RESET:
        return right[1:]
    return [*(left or []), *right]


class TraceStep(TypedDict):
    step: int
    type: TraceType
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
    decision: Decision | None = Field(default=None, description="the answerability decision on the first evidence")
    asked: Asked = Field(default_factory=Asked, description="what the question asks of which documents")


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


@dataclass(kw_only=True)
class Turn:
    """Everything one question writes (see the module's docstring)."""

    language: Literal["zh", "en"] = "en"
    query: str = ""  # the question as searched (a follow-up is completed from the thread's last question)
    intent: Intent = field(default_factory=Intent)
    hits: list[Hit] = field(default_factory=list)  # the evidence pool, best first
    nearest: list[Hit] = field(default_factory=list)  # the first search's passages nearest in meaning (sources only)
    terms: list[str] = field(default_factory=list)
    quality: Quality = field(default_factory=Quality)
    outline: Outline | None = None  # get_document_structure's outline, when asked for
    bridge: list[str] = field(default_factory=list)  # entities found on the way (multi-hop)
    evaluation: Evaluation | None = None  # the last evaluate step's verdict (None before the loop)
    strategy: Strategy = "start"
    strategies_done: list[Strategy] = field(default_factory=list)
    tried: list[str] = field(default_factory=list)  # tool calls already made (name + arguments)
    tool_calls: int = 0
    started_at: float = 0.0  # wall-clock start of the run (budget)
    conflicts: list[ConflictNote] = field(default_factory=list)
    findings: Annotated[list[Finding], extend_or_reset] = field(default_factory=list)  # one per reader
    answer: str = ""
    answerable: bool = False
    confidence: Literal["high", "medium", "low"] | None = None
    citations: list[int] = field(default_factory=list)  # indexes into hits that the answer cites
    inferred: bool = False  # the answer follows a link no one passage states (answering.chain): never "high"
    # [document id, section path] of the section a summary answer quotes: its other passages are listed next
    summary_section: list[str] = field(default_factory=list)
    model_wrote: bool = False  # the answer is the chat model's text: verify keeps only its supported sentences
    mode: Literal["direct", "agent"] = "direct"
    iterations: int = 0
    degraded: bool = False
    usage: Annotated[Usage, add_usage] = field(default_factory=Usage)
    reasoning_trace: Annotated[list[TraceStep], extend_or_reset] = field(default_factory=list)
    identified_topics: list[str] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)

    @classmethod
    def reset(cls) -> dict[str, Any]:
        """The update that starts a new question: every turn field at its default; the appending ones
        emptied through their reducers. ``retrieve`` adds what it found on top."""
        fresh = cls()
        update = {f.name: getattr(fresh, f.name) for f in fields(cls)}
        update.update(findings=[RESET], reasoning_trace=[RESET], usage=Usage(replace=True),
                      messages=[RemoveMessage(id=REMOVE_ALL_MESSAGES)])
        return update


@dataclass(kw_only=True)
class State(Turn):
    question: str
    version: int | None = None
    topic_filter: list[str] = field(default_factory=list)
    messages: Annotated[list[AnyMessage], add_messages] = field(default_factory=list)  # this question's agent steps
    history: Annotated[list[PastTurn], operator.add] = field(default_factory=list)  # earlier turns

    @property
    def search_text(self) -> str:
        """The question as searched (the completed follow-up), else as asked."""
        return self.query or self.question


THREAD_FIELDS = frozenset({"question", "version", "topic_filter", "messages", "history"})
"""``State``'s fields that are not the turn's: the input (set by every invocation) and the thread's own."""


class Statement(BaseModel):
    """One statement a reader found in its document, with the passage it comes from."""

    text: str
    node_id: str
    where: str = ""


class Finding(BaseModel):
    """What one ``read_document`` reader found in its document."""

    document: str
    statements: list[Statement] = Field(default_factory=list)
    degraded: bool = False


class ReaderState(TypedDict):
    """What one ``read_document`` reader gets through ``Send``: a question and one document's passages."""

    question: str
    language: str
    terms: list[str]
    bridge: list[str]
    document: str
    hits: list[Hit]
    degraded: bool
    deadline: float  # when the question's model time runs out (time.time())
    subjects: list[str]  # the question's words naming its subjects (``pick_sentences``' ``subjects``)
    named: bool  # the question names this document among several ("A 和 B 分别…"): one reader each


class OutputState(TypedDict, total=False):
    answer: str
    answerable: bool
    confidence: str
    mode: str
    sources: list[Source]
    identified_topics: list[str]
    iterations: int
    reasoning_trace: list[TraceStep]
    degraded: bool
    usage: Usage
    conflicts: list[ConflictNote]
    quality: Quality  # the answerability decision and what was asked: the evals record it (evals.fit reads it)
