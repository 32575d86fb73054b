"""One error mapping for every transport (REST, SSE, /v1 streaming, MCP), the typed stream events and
the JSON each one sends, and the one token gate over every protected route."""

from __future__ import annotations

import json
from typing import Any

import psycopg
import pytest
from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.testclient import TestClient
from mcp.server.mcpserver.exceptions import ToolError
from psycopg.errors import QueryCanceled
from psycopg_pool import PoolTimeout
from pydantic import ValidationError
from starlette.exceptions import HTTPException

from dropqa.api.auth import needs_token
from dropqa.api.errors import ShuttingDown, error_code, install_error_handlers
from dropqa.api.limits import QuestionInput
from dropqa.api.load import Overloaded
from dropqa.api.mcp_server import _tool_error
from dropqa.api.sse import error_event, sse_event
from dropqa.errors import CodedError
from dropqa.models.embeddings import EmbedderBusy
from dropqa.runtime import events
from dropqa.runtime.run import Answer, Source, UnknownVersion
from dropqa.store.server import DatabaseUnavailable

TRY_AGAIN = {"Retry-After": "5"}


class Frozen(CodedError):
    """A coded error that is not a ValueError."""

    code = "frozen"
    status = 409


@pytest.mark.parametrize(("exc", "code", "status", "message", "headers"), [
    (HTTPException(404, "no job 7"), "not_found", 404, "no job 7", None),
    (HTTPException(405), "method_not_allowed", 405, "Method Not Allowed", None),
    (HTTPException(418, "teapot"), "error", 418, "teapot", None),
    (UnknownVersion(9, [1, 2]), "version_not_found", 404,
     "there is no version 9; the documents have version(s): 1, 2", None),
    (Frozen("the topic is frozen", topic="a"), "frozen", 409, "the topic is frozen", None),
    (ShuttingDown("the server is shutting down"), "shutting_down", 503, "the server is shutting down", None),
    (DatabaseUnavailable("cannot connect to PostgreSQL: refused\nmore"), "database_unavailable", 503,
     "cannot connect to PostgreSQL: refused\nmore", TRY_AGAIN),
    (PoolTimeout("couldn't get a connection after 5 sec"), "database_unavailable", 503,
     "the database connection was lost; try again", TRY_AGAIN),
    # an OperationalError, but the connection is fine: the store is busy, try again
    (QueryCanceled("canceling statement due to statement timeout"), "busy", 503,
     "the database took too long to answer; try again", TRY_AGAIN),
    (Overloaded(3), "too_many_requests", 429, "the server is busy with other questions; try again shortly",
     {"Retry-After": "3"}),
    (EmbedderBusy("the embedding model is busy"), "busy", 503, "the embedding model is busy", TRY_AGAIN),
    (psycopg.DataError("invalid byte sequence\nLINE 1: ..."), "bad_request", 400,
     "the database cannot use this input: invalid byte sequence", None),
    (ValueError("the question is empty\nsecond line"), "bad_request", 400, "the question is empty\nsecond line", None),
    (RuntimeError("secret detail"), "internal_error", 500, "internal error (RuntimeError)", None),
])
def test_error_code_maps_each_exception_once(exc: Exception, code: str, status: int, message: str,
                                             headers: dict[str, str] | None) -> None:
    problem = error_code(exc)
    assert (problem.code, problem.status, problem.message, problem.headers) == (code, status, message, headers)


def test_error_code_carries_params_details_and_retry_after() -> None:
    assert error_code(UnknownVersion(9, [1])).params == {"version": 9, "versions": [1]}
    assert error_code(Frozen("x")).params == {}
    assert error_code(Overloaded(4)).retry_after == 4
    invalid = error_code(RequestValidationError([{"loc": ("body", "question"), "msg": "too long", "type": "x"}]))
    assert (invalid.code, invalid.status, invalid.details) == ("invalid_request", 422,
                                                               [{"loc": ["body", "question"], "msg": "too long"}])


def raising(exc: Exception) -> TestClient:
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/boom")
    def boom() -> None:
        raise exc

    return TestClient(app, raise_server_exceptions=False)


@pytest.mark.parametrize(("exc", "status", "body", "retry_after"), [
    (UnknownVersion(9, [1]), 404, {"code": "version_not_found", "message": "there is no version 9; the documents "
                                   "have version(s): 1", "params": {"version": 9, "versions": [1]}}, None),
    (Overloaded(3), 429, {"code": "too_many_requests", "message": "the server is busy with other questions; try "
                          "again shortly", "retry_after": 3}, "3"),
    (PoolTimeout("gone"), 503, {"code": "database_unavailable",
                                "message": "the database connection was lost; try again"}, "5"),
    (psycopg.DataError("NUL\nmore"), 400, {"code": "bad_request",
                                           "message": "the database cannot use this input: NUL"}, None),
    (KeyError("x"), 500, {"code": "internal_error", "message": "internal error (KeyError)"}, None),
])
def test_rest_answers_with_the_mapping(exc: Exception, status: int, body: dict[str, Any],
                                       retry_after: str | None) -> None:
    r = raising(exc).get("/boom")
    assert r.status_code == status and r.json() == {"error": body}
    assert r.headers.get("retry-after") == retry_after


@pytest.mark.parametrize(("exc", "data"), [
    (ValueError("the question is empty"), {"code": "bad_request", "message": "the question is empty"}),
    (ValueError("first\nsecond"), {"code": "bad_request", "message": "first"}),
    (UnknownVersion(9, []), {"code": "version_not_found", "message": "there is no version 9; the documents have "
                             "version(s): none (nothing is indexed)", "params": {"version": 9, "versions": []}}),
    (Frozen("x"), {"code": "frozen", "message": "x", "params": {}}),
    (Overloaded(2), {"code": "too_many_requests", "message": "the server is busy with other questions; try again "
                     "shortly", "retry_after": 2}),
    (ShuttingDown("the server is shutting down"), {"code": "shutting_down", "message": "the server is shutting down"}),
    (DatabaseUnavailable("the database is unavailable: gone\ndetail"),
     {"code": "database_unavailable", "message": "the database is unavailable: gone"}),
    (RuntimeError("boom"), {"code": "internal_error", "message": "internal error (RuntimeError)"}),
])
def test_the_error_event_is_the_same_code_in_one_line(exc: Exception, data: dict[str, Any]) -> None:
    event = error_event(exc)
    assert event.event == "error" and event.terminal and event.data() == data
    assert json.loads(sse_event(event, 3)["data"]) == data and sse_event(event, 3)["id"] == "3"


def test_mcp_words_the_same_codes_for_an_agent() -> None:
    with pytest.raises(ValidationError) as bad:
        QuestionInput(question="x" * 5000)
    assert str(_tool_error(bad.value)).startswith("invalid arguments: question: String should have at most 4000")
    assert str(_tool_error(Overloaded(3))) == "the server is busy with other questions; try again shortly " \
                                              "(retry after 3 s)"
    assert str(_tool_error(psycopg.DataError("NUL\nx"))) == "the database cannot use this input: NUL"
    assert str(_tool_error(ValueError("no node with id 'x'"))) == "no node with id 'x'"
    assert str(_tool_error(PoolTimeout("gone"))) == "the database connection was lost; try again"
    assert isinstance(_tool_error(EmbedderBusy("busy")), ToolError)
    with pytest.raises(KeyError):  # a crash stays a crash: the SDK reports it without details
        _tool_error(KeyError("x"))


SOURCE = Source(document_id="d1", document_name="运维手册.md", section="3 恢复 > 3.2 演练", node_id="n1",
                snippet="RTO 45 分钟", relevance=0.9, page=None, version=1, cited=True)
ANSWER = Answer(answer="RTO 是 45 分钟 [1]", answerable=True, confidence="high", mode="direct", sources=[SOURCE],
                latency_ms=12, question="RTO?", reasoning_trace=[{"step": 0, "type": "answer", "content": "c"}])


@pytest.mark.parametrize(("event", "name", "data"), [
    (events.Status(node="start"), "status", {"node": "start"}),
    (events.Retrieval(hits=5, top_relevance=0.812), "retrieval", {"hits": 5, "top_relevance": 0.812}),
    (events.Token(text="45 分钟"), "token", {"text": "45 分钟"}),
    (events.Reasoning(step=1, type="retrieval", content="found 5", tool="hybrid_search",
                      arguments={"query": "RTO", "version": None}, result_summary="5 hits"), "reasoning",
     {"step": 1, "type": "retrieval", "content": "found 5", "tool": "hybrid_search",
      "arguments": {"query": "RTO", "version": None}, "result_summary": "5 hits"}),
    (events.Citation(**SOURCE.model_dump()), "citation", SOURCE.model_dump(mode="json")),
    (events.Done(**ANSWER.model_dump()), "done", ANSWER.model_dump(mode="json")),
    (events.Error(code="bad_request", message="the question is empty"), "error",
     {"code": "bad_request", "message": "the question is empty"}),
])
def test_each_event_sends_its_name_and_the_json_clients_read(event: events.StreamEvent, name: str,
                                                             data: dict[str, Any]) -> None:
    assert event.event == name and event.terminal == (name in ("done", "error"))
    assert event.data() == data
    sent = sse_event(event)
    assert sent["event"] == name and json.loads(sent["data"]) == data
    assert list(json.loads(sent["data"])) == list(data)  # the keys in the same order
    assert "\\u" not in sent["data"]  # Chinese as it is, not escaped


def test_the_citation_and_done_payloads_are_the_source_and_answer_shapes() -> None:
    assert list(events.Citation(**SOURCE.model_dump()).data()) == list(Source.model_fields)
    assert list(events.Done(**ANSWER.model_dump()).data()) == list(Answer.model_fields)
    assert json.loads(sse_event(events.Citation(**SOURCE.model_dump()))["data"])["page"] is None  # null is sent


def test_every_route_but_health_is_behind_the_token_gate() -> None:
    from dropqa.api.app import create_app
    from dropqa.config import Settings

    app = create_app(Settings())
    paths = [*app.openapi()["paths"], "/mcp"]
    assert "/api/qa/ask" in paths and "/v1/chat/completions" in paths
    assert [p for p in paths if not needs_token(p)] == ["/api/health"]
