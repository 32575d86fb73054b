"""The graph never blocks the event loop it runs on. Every node awaits the chat model and runs its
database, embedding, scoring and file work in worker threads (``dropqa.blocking``), so one slow
question does not stall the server's other requests, and ``langgraph dev`` (which runs graphs under
blockbuster) accepts it. Here blockbuster raises on any blocking call made on the loop's thread while
questions take every path: direct, the agent loop and its tools, several documents (readers),
versions, a conversation (the checkpointer), the answer stream, and a chat model over HTTP.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from blockbuster import BlockBuster, blockbuster_ctx

from dropqa.config import ChatModelSettings
from dropqa.runtime.run import Answer, aask, stream
from dropqa.services import Services
from tests.conftest import ROOT
from tests.support.scripted_openai import ScriptedOpenAI

pytestmark = pytest.mark.integration

QUESTIONS = [
    ("How many days of annual leave do full-time employees get?", {}),  # direct
    ("全职员工每年有多少天带薪年假？", {}),  # Chinese question, English text
    ("Which section covers sick leave?", {}),  # locate
    ("云栖数据平台运维手册有哪些章节？", {}),  # structure: the agent loop and its tools
    ("Compare the Aurora Analytics Employee Handbook and the 云栖数据平台运维手册: how long is the annual "
     "leave and what is the recovery time objective?", {}),  # two documents: one reader each
    ("How much does business support cost per month?", {"version": 1}),  # an older version
    ("What is the CEO's favourite colour?", {}),  # not in the documents
    ("P2告警的响应时限是多少？", {"thread_id": "loop-thread"}),  # a conversation: the checkpointer
    ("那P1呢？", {"thread_id": "loop-thread"}),
]


@pytest.fixture
def watchdog() -> Iterator[BlockBuster]:
    """Blocking calls on an event loop's thread raise ``BlockingError`` (worker threads are free to)."""
    with blockbuster_ctx() as bb:
        yield bb


@pytest.fixture(scope="module")
def corpus(indexed_examples, indexer):  # type: ignore[no-untyped-def]
    shutil.copy2(ROOT / "examples" / "updates" / "pricing.md", indexed_examples / "pricing.md")
    assert indexer.index_file(indexed_examples / "pricing.md", "pricing.md").status == "new_version"
    return indexed_examples


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_no_question_blocks_the_loop(services: Services, corpus, watchdog) -> None:  # type: ignore[no-untyped-def]
    async def all_questions() -> list[Answer]:
        return [await aask(services, q, **kw) for q, kw in QUESTIONS]

    answers = run(all_questions())
    assert answers[0].answerable and "27" in answers[0].answer
    assert any(s["type"] == "reader" for s in answers[4].reasoning_trace)
    assert not answers[6].answerable


def test_the_answer_stream_does_not_block_the_loop(services: Services, corpus, watchdog) -> None:  # type: ignore[no-untyped-def]
    async def events() -> list[str]:
        return [e.event async for e in stream(services, "What is the recovery time objective?")]

    names = run(events())
    assert names[0] == "status" and names[-1] == "done" and "token" in names


def test_a_chat_model_over_http_does_not_block_the_loop(services: Services, corpus) -> None:  # type: ignore[no-untyped-def]
    def reply(body: dict[str, Any]) -> dict[str, Any]:
        if body.get("tools"):
            return {"tool_calls": [{"name": "final_answer", "arguments": {
                "answer": "27 days", "answerable": True, "confidence": "high"}}]}
        if body.get("response_format") or "queries" in str(body):
            return {"content": '{"queries": ["annual leave days"]}'}
        return {"content": "Full-time employees get 27 days of annual leave [1]."}

    with ScriptedOpenAI(reply) as llm:
        chat = ChatModelSettings(**llm.chat_config())
        settings = services.settings.model_copy(update={
            "models": services.settings.models.model_copy(update={"chat": chat})})
        with_model = Services(settings=settings, db=services.db, embedder=services.embedder)
        with blockbuster_ctx():  # the model clients exist already (Services); every call is made on the loop
            answer = run(aask(with_model, "How many days of annual leave do full-time employees get?"))
    assert answer.answerable and "27" in answer.answer and answer.usage
    assert llm.requests
