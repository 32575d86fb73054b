"""API helpers without a server: upload file names, and the SSE bridge that runs the graph's async
event stream in a task of its own and always ends with exactly one terminal event."""

from __future__ import annotations

import asyncio
import json
import unicodedata
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from dropqa.api.sse import event_stream, in_task
from dropqa.api.uploads import safe_filename
from dropqa.runtime import events


@pytest.mark.parametrize(("raw", "expected"), [
    ("../../etc/passwd", "passwd"),
    ("..\\..\\Windows\\win.ini", "win.ini"),
    ("/abs/path/备份 报告 📷.png", "备份 报告 📷.png"),
    ("项目规划.docx", "项目规划.docx"),
    ("family 👨\u200d👩\u200d👧.md", "family 👨\u200d👩\u200d👧.md"),
    ("a\x00b\nc\u202e.md", "a b c.md"),
    ('a<b>:c?"d|e*.md', "a_b__c__d_e_.md"),
    ("  .hidden.  ", "hidden"),
    ("..", "upload"),
    ("", "upload"),
    (None, "upload"),
])
def test_safe_filename(raw: str | None, expected: str) -> None:
    assert safe_filename(raw) == expected


def test_safe_filename_normalises_and_keeps_the_extension_of_long_names() -> None:
    assert safe_filename("cafe\u0301.md") == unicodedata.normalize("NFC", "café.md")
    long = safe_filename("报告" * 200 + ".docx")
    assert long.endswith(".docx") and len(long.encode("utf-8")) <= 200 and long.startswith("报告")


def done(answer: str) -> events.Done:
    return events.Done(answer=answer, answerable=True, confidence="high", mode="direct", sources=[], latency_ms=1,
                       question="q")


def collect(factory: Any, **kw: Any) -> list[tuple[str, Any]]:
    async def run() -> list[tuple[str, Any]]:
        return [(e["event"], json.loads(e["data"])) async for e in event_stream(factory, **kw)]

    return anyio.run(run)


def test_events_pass_through_and_done_is_completed_by_the_caller() -> None:
    async def gen() -> AsyncIterator[events.StreamEvent]:
        yield events.Status(node="start")
        yield events.Token(text="hi")
        yield done("hi")
        yield events.Token(text="never sent")

    async def add_id(answer: events.Done) -> events.Done:
        answer.answer_id = "42"
        return answer

    sent = collect(gen, on_done=add_id)
    assert sent == [("status", {"node": "start"}), ("token", {"text": "hi"}),
                    ("done", {**done("hi").model_dump(mode="json"), "answer_id": "42"})]


@pytest.mark.parametrize(("exc", "code"), [(ValueError("the question is empty"), "bad_request"),
                                           (RuntimeError("boom"), "internal_error")])
def test_a_failing_run_ends_with_one_error_event_and_no_stack_trace(exc: Exception, code: str) -> None:
    async def gen() -> AsyncIterator[events.StreamEvent]:
        yield events.Status(node="start")
        raise exc

    sent = collect(gen)
    assert [e for e, _ in sent] == ["status", "error"] and sent[-1][1]["code"] == code
    assert "Traceback" not in sent[-1][1]["message"]
    if code == "internal_error":
        assert sent[-1][1]["message"] == "internal error (RuntimeError)"


def test_a_run_without_done_ends_with_error() -> None:
    async def gen() -> AsyncIterator[events.StreamEvent]:
        yield events.Status(node="start")

    assert collect(gen)[-1] == ("error", {"code": "internal_error", "message": "internal error (RuntimeError)"})


def test_shutdown_ends_a_blocked_stream_with_an_error_event() -> None:
    async def gen() -> AsyncIterator[events.StreamEvent]:
        yield events.Status(node="start")
        await asyncio.sleep(10)  # a slow model call
        yield done("late")

    async def run() -> list[str]:
        shutdown = anyio.Event()
        names = []
        async for e in event_stream(gen, shutdown=shutdown):
            names.append(e["event"])
            if e["event"] == "status":
                shutdown.set()
        return names

    assert anyio.run(run) == ["status", "error"]


def test_a_consumer_that_leaves_cancels_the_run_in_flight_and_the_run_then_ends() -> None:
    """The client left during a slow step: the step's await is cancelled (not waited out), the
    generator is closed, and ``on_exit`` (the run slot) comes back once the run has ended."""
    seen: list[str] = []

    async def gen() -> AsyncIterator[str]:
        try:
            yield "first"
            await asyncio.sleep(30)  # a model call in flight
            yield "never"
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise
        finally:
            seen.append("closed")

    async def run() -> None:
        exited = asyncio.Event()
        async for item in in_task(gen, on_exit=exited.set):
            assert item == "first"
            break  # the client leaves
        await asyncio.wait_for(exited.wait(), timeout=25)  # ended by the cancel, not by the 30 s sleep

    anyio.run(run)
    assert seen == ["cancelled", "closed"]
