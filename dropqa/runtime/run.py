"""Run the compiled graph for one question and return the public answer shape.

The graph is async (``ainvoke``/``astream``). The API (``POST /api/qa/ask``) awaits :func:`aask`;
``dropqa ask --json`` and the eval runner call :func:`ask`, the same run on the process's background
loop (``runtime.loop``), so they return exactly the same JSON. REST, ``/v1`` and MCP answer through
:func:`answer_and_record` (and streams keep their ``done`` answer with :func:`record_answer`), so every
answer a user got is in the QA history with the id feedback refers to.

A run reads the knowledge bases ``kbs`` it is given (``None``: the ``default`` base): the caller's access,
decided before the run, passed in the run's :class:`~dropqa.services.Context`, recorded with the answer
and part of a conversation's checkpoint thread (the same ``thread_id`` over other bases is another
conversation).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from dropqa.blocking import in_thread
from dropqa.errors import CodedError
from dropqa.graph.graph import graph
from dropqa.graph.state import RESET
from dropqa.models.chat import Usage
from dropqa.retrieval.hits import Source
from dropqa.runtime.loop import run_sync
from dropqa.services import Context, Services
from dropqa.store import qa as qa_store
from dropqa.store.bases import DEFAULT_KB, thread_name
from dropqa.store.scope import Scope

if TYPE_CHECKING:
    from dropqa.runtime.events import StreamEvent


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
    topic_filter: list[str] = Field(default_factory=list)
    thread_id: str | None = None
    degraded: bool = Field(default=False, description="true when every chat provider failed and offline mode answered")
    usage: dict[str, Any] | None = Field(default=None, description="tokens per run and per provider "
                                         "(`prompt_tokens`, `completion_tokens`, `by_provider`) when a chat model "
                                         "ran; null when none did (offline)")
    conflicts: list[dict[str, Any]] = Field(default_factory=list, description="disagreements found among sources")
    answer_id: str | None = Field(default=None, description="QA history id (for feedback); set by the API")


class UnknownVersion(CodedError, ValueError):
    """``version: N`` asked for, and no document has a version N (API: 404 ``version_not_found``)."""

    code = "version_not_found"
    status = 404

    def __init__(self, version: int, versions: list[int]):
        self.version, self.versions = version, versions
        have = ", ".join(str(v) for v in versions) if versions else "none (nothing is indexed)"
        super().__init__(f"there is no version {version}; the documents have version(s): {have}",
                         version=version, versions=versions)


Bases = Iterable[uuid.UUID] | None


def bases(kbs: Bases) -> tuple[uuid.UUID, ...]:
    """The run's knowledge bases: ``kbs``, or the ``default`` base."""
    return tuple(uuid.UUID(str(k)) for k in kbs) if kbs is not None else (DEFAULT_KB,)


def check_version(services: Services, version: int | None, kbs: Bases = None) -> None:
    """Raise :class:`UnknownVersion` when no document of the bases has ``version`` — an honest "no such
    version" instead of a quiet "not in the documents"."""
    if version is None:
        return
    from dropqa.store.documents import version_numbers

    versions = version_numbers(services.db, Scope(kbs=bases(kbs)))
    if version not in versions:
        raise UnknownVersion(version, versions)


def _clean(question: str) -> str:
    question = (question or "").strip()
    if not question:
        raise ValueError("the question is empty")
    return question


async def aask(services: Services, question: str, *, version: int | None = None, show_reasoning: bool = True,
               topic_filter: list[str] | None = None, thread_id: str | None = None, kbs: Bases = None,
               final_state: dict[str, Any] | None = None) -> Answer:
    """Answer ``question`` from the bases ``kbs`` (the graph's ``ainvoke``); cancelling the call cancels the run.
    ``final_state``, when given, receives the run's last state (the evals read the answerability decision)."""
    question = _clean(question)
    kbs = bases(kbs)
    await in_thread(check_version, services, version, kbs)
    started = time.perf_counter()
    runnable, config = await _runnable(services, kbs, thread_id)
    result = await runnable.ainvoke(_inputs(question, version, topic_filter), config,
                                    context=Context(services=services, kbs=kbs))
    if final_state is not None:
        final_state.update(result)
    return _answer(result, question, version, show_reasoning, started, topic_filter, thread_id)


def ask(services: Services, question: str, *, version: int | None = None, show_reasoning: bool = True,
        topic_filter: list[str] | None = None, thread_id: str | None = None, kbs: Bases = None,
        final_state: dict[str, Any] | None = None) -> Answer:
    """:func:`aask` for synchronous callers (CLI, evals, benchmarks), on the process's background loop."""
    return run_sync(aask(services, question, version=version, show_reasoning=show_reasoning,
                         topic_filter=topic_filter, thread_id=thread_id, kbs=kbs, final_state=final_state))


def record_answer(services: Services, data: dict[str, Any], kbs: Bases = None) -> str:
    """Keep an answer (an :class:`Answer` as JSON) given from the bases ``kbs`` in the QA history; returns its
    ``answer_id``."""
    return str(qa_store.record_answer(services.db, bases(kbs), data["question"], data, data.get("thread_id")))


async def answer_and_record(services: Services, question: str, *, version: int | None = None,
                            show_reasoning: bool = True, topic_filter: list[str] | None = None,
                            thread_id: str | None = None, kbs: Bases = None) -> Answer:
    """:func:`aask`, then :func:`record_answer`: the answer with its ``answer_id``."""
    kbs = bases(kbs)
    answer = await aask(services, question, version=version, show_reasoning=show_reasoning,
                        topic_filter=topic_filter, thread_id=thread_id, kbs=kbs)
    answer.answer_id = await in_thread(record_answer, services, answer.model_dump(mode="json"), kbs)
    return answer


async def _runnable(services: Services, kbs: tuple[uuid.UUID, ...],
                    thread_id: str | None) -> tuple[Any, dict[str, Any]]:
    """The plain graph, or — for a conversation — the graph with the PostgreSQL checkpointer (made
    once per database, in a worker thread: it opens a pool and creates its tables). The checkpoint
    thread is the conversation over these bases (:func:`~dropqa.store.bases.thread_name`)."""
    if not thread_id:
        return graph, {}
    from dropqa.runtime.threads import threaded_graph

    return (await in_thread(threaded_graph, services),
            {"configurable": {"thread_id": thread_name(kbs, thread_id)}})


def _inputs(question: str, version: int | None, topic_filter: list[str] | None) -> dict[str, Any]:
    return {"question": question, "version": version, "topic_filter": list(topic_filter or [])}


async def stream(services: Services, question: str, *, version: int | None = None, show_reasoning: bool = True,
                 topic_filter: list[str] | None = None, thread_id: str | None = None, kbs: Bases = None,
                 ) -> AsyncIterator[StreamEvent]:
    """Run the graph (``astream``) and yield its events (:mod:`dropqa.runtime.events`) as they happen.
    Closing the iterator (the client left) cancels the run, including a chat-model request in flight.

    Events: ``status`` (a node started working), ``retrieval`` (hits and the top relevance),
    ``reasoning`` (one trace step), ``token`` (the answer in pieces), ``citation`` (one source, in the
    final numbering), ``done`` (the full :class:`Answer`). The caller sends ``error`` itself if this
    raises; ``done`` is always the last event of a successful run.

    The tokens are the checked answer — ``verify``'s, numbered like ``sources`` — never the chat model's
    raw reply as it is written: a sentence no passage supports, or a reply replaced by the offline answer,
    never reaches a client that keeps what it streamed (``/v1``). The tokens joined are ``done``'s answer.
    """
    from dropqa.runtime import events  # not at the top: events' payloads are this module's Answer and Source

    question = _clean(question)
    kbs = bases(kbs)
    await in_thread(check_version, services, version, kbs)
    started = time.perf_counter()
    final: dict[str, Any] = {}
    trace: list[dict[str, Any]] = []
    yield events.Status(node="start")
    runnable, config = await _runnable(services, kbs, thread_id)
    async for chunk in runnable.astream(
        _inputs(question, version, topic_filter),
        config,
        context=Context(services=services, kbs=kbs),
        stream_mode="updates",
    ):
        for node, update in (chunk or {}).items():
            if not isinstance(update, dict):
                continue
            yield events.Status(node=node)
            if "hits" in update and node != "finalize":
                hits = update.get("hits") or []
                yield events.Retrieval(hits=len(hits), top_relevance=round(hits[0].relevance, 3) if hits else 0.0)
            steps = [s for s in update.get("reasoning_trace") or [] if s != RESET]
            trace.extend(steps)
            if show_reasoning:
                for step in steps:
                    yield events.Reasoning(**step)
            final.update(update)
    final["reasoning_trace"] = trace  # the state reducer appends; each update carries only its own steps
    answer = _answer(final, question, version, show_reasoning, started, topic_filter, thread_id)
    for piece in _pieces(answer.answer):
        yield events.Token(text=piece)
    for source in answer.sources:
        if source.cited:
            yield events.Citation(**source.model_dump())
    yield events.Done(**answer.model_dump())


def _pieces(text: str, size: int = 24) -> Iterator[str]:
    """Split the checked answer into small pieces (a client shows it as it arrives)."""
    for i in range(0, len(text), size):
        yield text[i:i + size]


def _answer(result: dict[str, Any], question: str, version: int | None, show_reasoning: bool,
            started: float, topic_filter: list[str] | None = None, thread_id: str | None = None) -> Answer:
    return Answer(
        answer=result.get("answer", ""),
        answerable=bool(result.get("answerable")),
        confidence=result.get("confidence", "low"),
        mode=result.get("mode", "direct"),
        sources=list(result.get("sources") or []),
        identified_topics=result.get("identified_topics") or [],
        iterations=int(result.get("iterations") or 0),
        reasoning_trace=list(result.get("reasoning_trace") or []) if show_reasoning else [],
        latency_ms=int((time.perf_counter() - started) * 1000),
        question=question,
        version=version,
        topic_filter=list(topic_filter or []),
        thread_id=thread_id,
        degraded=bool(result.get("degraded")),
        usage=_public_usage(result.get("usage")),
        conflicts=[c.model_dump() for c in result.get("conflicts") or []],
    )


def _public_usage(usage: Usage | None) -> dict[str, Any] | None:
    """The run's token counts when a chat model answered at least one call; ``None`` when none ran."""
    if usage is None or not usage.by_provider:
        return None
    return usage.model_dump()
