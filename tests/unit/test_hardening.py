"""The holes a probe found, closed at the unit level: one validated question for every entry point,
the loopback rule on the address really bound, the Host allow-list, LIKE escaping, the bounded run
queue, and an embedder no request holds for long."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from pydantic import ValidationError

from dropqa.api.auth import is_loopback, needs_token
from dropqa.api.hosts import allowed_names, host_name
from dropqa.api.limits import MAX_QUESTION_CHARS, QuestionInput, validation_message
from dropqa.api.load import Overloaded, RunLimiter
from dropqa.api.sse import event_stream
from dropqa.runtime import events
from dropqa.store.documents import like_escape

MEGABYTE_QUESTION = "为什么" * 350_000  # ~1 MB of UTF-8


@pytest.mark.parametrize("fields", [
    {"question": MEGABYTE_QUESTION},
    {"question": "x" * (MAX_QUESTION_CHARS + 1)},
    {"question": ""},
    {"question": "a\x00b"},
    {"question": "ok", "version": -1},
    {"question": "ok", "version": 0},
    {"question": "ok", "version": 10**30},
    {"question": "ok", "thread_id": "t" * 10_000},
    {"question": "ok", "topic_filter": ["x"] * 51},
])
def test_question_input_refuses_what_rest_refuses(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError) as refused:
        QuestionInput(**fields)
    assert validation_message(refused.value)  # one readable line for the CLI and MCP


def test_question_input_accepts_a_normal_question() -> None:
    q = QuestionInput(question="恢复时间目标是多少？", version=2, thread_id="t-1", topic_filter=["备份"])
    assert (q.question, q.version, q.thread_id, q.topic_filter) == ("恢复时间目标是多少？", 2, "t-1", ["备份"])


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("localhost", True), ("::1", True), ("[::1]", True), ("127.0.0.2", True),
    ("", False), (" ", False), ("0.0.0.0", False), ("::", False), ("192.168.1.5", False), ("example.com", False),
])
def test_loopback_is_the_address_really_bound(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_host_names_and_the_allow_list() -> None:
    assert host_name("127.0.0.1:8000") == "127.0.0.1"
    assert host_name("[::1]:8000") == "::1" and host_name("[::1]") == "::1"
    assert host_name("LocalHost") == "localhost" and host_name("") == ""
    names = allowed_names(["localhost", "127.0.0.1", "::1"], "0.0.0.0")
    assert names == {"localhost", "127.0.0.1", "::1"}  # a wildcard bind adds nothing
    assert "10.0.0.7" in allowed_names(["localhost"], "10.0.0.7")  # the address bound is its own name
    assert allowed_names(["*"], "0.0.0.0") is None


def test_token_first_covers_the_api_but_not_health_or_the_page() -> None:
    assert needs_token("/api/documents") and needs_token("/v1/models") and needs_token("/mcp")
    assert not needs_token("/api/health") and not needs_token("/") and not needs_token("/static/js/app.js")


def test_like_escape_makes_wildcards_literal() -> None:
    assert like_escape("%_") == "\\%\\_"
    assert like_escape("a\\b") == "a\\\\b"


def test_run_limiter_bounds_running_and_waiting() -> None:
    async def scenario() -> None:
        limiter = RunLimiter(max_running=1, max_waiting=1, wait_s=5)
        await limiter.acquire()
        waiting = asyncio.create_task(limiter.acquire())
        await asyncio.sleep(0)
        assert limiter.snapshot().waiting == 1
        with pytest.raises(Overloaded) as refused:  # the queue is full: refused at once
            await limiter.acquire()
        assert refused.value.retry_after == 5
        threading.Thread(target=limiter.release).start()  # a run ends in its own thread
        await asyncio.wait_for(waiting, 5)
        assert limiter.snapshot().running == 1 and limiter.snapshot().waiting == 0
        limiter.release()
        assert limiter.snapshot().running == 0 and limiter.snapshot().refused == 1

    asyncio.run(scenario())


def test_a_wait_for_a_run_slot_that_runs_out_is_refused() -> None:
    async def scenario() -> None:
        limiter = RunLimiter(max_running=1, max_waiting=4, wait_s=0.05)
        await limiter.acquire()
        with pytest.raises(Overloaded):
            await limiter.acquire()
        assert limiter.snapshot().waiting == 0
        limiter.release()
        await limiter.acquire()  # the slot is free again
        limiter.release()

    asyncio.run(scenario())


def test_a_stream_without_a_run_slot_ends_with_an_error_event() -> None:
    async def scenario() -> list[dict[str, Any]]:
        limiter = RunLimiter(max_running=1, max_waiting=1, wait_s=0.05)
        await limiter.acquire()  # someone else's run
        ran = []

        async def run():  # type: ignore[no-untyped-def]
            ran.append(True)
            yield events.Status(node="start")

        sent = [e async for e in event_stream(run, limiter=limiter)]
        assert not ran
        return sent

    sent = asyncio.run(scenario())
    assert [e["event"] for e in sent] == ["error"]
    assert '"too_many_requests"' in sent[0]["data"] and '"retry_after"' in sent[0]["data"]


def test_a_stream_gives_its_slot_back_when_the_run_ends() -> None:
    async def scenario() -> RunLimiter:
        limiter = RunLimiter(max_running=1, max_waiting=0, wait_s=1)

        async def run():  # type: ignore[no-untyped-def]
            yield events.Status(node="start")
            yield events.Done(answer="x", answerable=True, confidence="high", mode="direct", sources=[], latency_ms=1,
                              question="q")

        sent = [e["event"] async for e in event_stream(run, limiter=limiter)]
        assert sent == ["status", "done"]
        for _ in range(100):  # the slot comes back when the run's task has ended
            if limiter.snapshot().running == 0:
                break
            await asyncio.sleep(0.01)
        return limiter

    assert asyncio.run(scenario()).snapshot().running == 0


@pytest.fixture(scope="module")
def embedder() -> Any:
    from dropqa.config import EmbeddingSettings
    from dropqa.models.embeddings import LocalE5Embedder

    return LocalE5Embedder(EmbeddingSettings(max_query_chars=200, lock_timeout_s=0.2, query_cache=0))


def test_a_huge_query_is_cut_before_the_model_reads_it(embedder: Any) -> None:
    head = "backup window recovery time objective " * 6  # > 200 characters
    assert len(head) > 200
    same = embedder.embed_query(head[:200])
    assert (embedder.embed_query(head + "x" * 1_000_000) == same).all()


def test_a_busy_model_fails_the_request_instead_of_hanging_it(embedder: Any) -> None:
    from dropqa.models.embeddings import EmbedderBusy

    held = embedder._model_lock()  # another request holds the model
    held.__enter__()
    try:
        with pytest.raises(EmbedderBusy):
            embedder.embed_query("who owns the policy?")
        with pytest.raises(EmbedderBusy):
            embedder.embed_passages(["a passage"])
    finally:
        held.__exit__(None, None, None)
    assert embedder.embed_query("who owns the policy?").shape == (embedder.dimensions,)
