"""Run the compiled graph for one question and return the public answer shape.

The API (``POST /api/qa/ask``), ``dropqa ask --json`` and the eval runner all call
:func:`ask`, so they return exactly the same JSON.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, Field

from dropqa.graph.context import Context
from dropqa.graph.graph import graph
from dropqa.tools.services import Services


class Source(BaseModel):
    document_id: str
    document_name: str
    section: str = Field(description="section path below the file name")
    node_id: str
    snippet: str
    relevance: float = Field(ge=0, le=1)
    page: int | None = None
    page_estimated: bool = False
    version: int
    cited: bool = False


class Answer(BaseModel):
    answer: str
    answerable: bool
    confidence: str = Field(pattern="^(high|medium|low)$")
    mode: str = Field(pattern="^(direct|agent)$")
    sources: list[Source]
    identified_topics: list[str] = Field(default_factory=list)
    iterations: int = 0
    reasoning_trace: list[dict[str, Any]] = Field(default_factory=list)
    latency_ms: int
    question: str
    version: int | None = None


def ask(services: Services, question: str, *, version: int | None = None,
        show_reasoning: bool = True) -> Answer:
    question = (question or "").strip()
    if not question:
        raise ValueError("the question is empty")
    started = time.perf_counter()
    result = graph.invoke(
        {"question": question, "version": version},
        context=Context(services=services),
    )
    return Answer(
        answer=result.get("answer", ""),
        answerable=bool(result.get("answerable")),
        confidence=result.get("confidence", "low"),
        mode=result.get("mode", "direct"),
        sources=[Source(**s) for s in result.get("sources") or []],
        identified_topics=result.get("identified_topics") or [],
        iterations=int(result.get("iterations") or 0),
        reasoning_trace=list(result.get("reasoning_trace") or []) if show_reasoning else [],
        latency_ms=int((time.perf_counter() - started) * 1000),
        question=question,
        version=version,
    )
