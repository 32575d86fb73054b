"""Errors are JSON with a code and a message — never a stack trace."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import psycopg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from dropqa.api.disconnect import ClientGone, gone_response
from dropqa.api.load import Overloaded
from dropqa.errors import CodedError
from dropqa.models.embeddings import EmbedderBusy
from dropqa.store.db import is_connection_error
from dropqa.store.server import DatabaseUnavailable

log = logging.getLogger(__name__)


class ErrorDetail(BaseModel):
    code: str = Field(description="machine-readable: bad_request, unauthorized, not_found, conflict, too_large, "
                                  "invalid_request, database_unavailable, internal_error, …")
    message: str
    details: list[dict[str, Any]] | None = Field(default=None, description="per-field problems (invalid_request)")
    params: dict[str, Any] | None = Field(default=None, description="the values the message is made of (e.g. "
                                          "`version_not_found`: `version`, `versions`), for clients that word "
                                          "the message themselves")


class ErrorBody(BaseModel):
    error: ErrorDetail


def _error(description: str) -> dict[str, Any]:
    return {"model": ErrorBody, "description": description}


# Declared on every router so the OpenAPI document lists the error shape clients really get.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: _error("the request cannot be served as asked"),
    401: _error("missing, wrong or revoked bearer token or API key (once the server has a token or keys)"),
    403: _error("the key's role does not allow this (reader < editor < admin)"),
    404: _error("no such resource"),
    409: _error("the resource is not in a state that allows this"),
    413: _error("the body, a file or the number of files is over the limit"),
    421: _error("the Host header names a host this server does not answer for (api.allowed_hosts)"),
    422: _error("the request does not match the schema"),
    429: _error("too many questions in flight, or the ingestion queue is full; see Retry-After"),
    503: _error("the database is unavailable, the embedding model stayed busy, or a query ran past its timeout"),
}


class ShuttingDown(Exception):
    """The server is stopping; a stream still running ends with an error event."""


@dataclass(frozen=True)
class Problem:
    """What a failure means to a client, whichever way it asked (REST, SSE, ``/v1``, MCP): a stable
    ``code``, the HTTP ``status``, a ``message`` (never a stack trace) and what else the error carries."""

    code: str
    status: int
    message: str
    params: dict[str, Any] | None = None  # a coded error's: the values its message is made of
    details: list[dict[str, Any]] | None = None  # invalid_request: per-field problems
    retry_after: int | None = None  # too_many_requests: seconds (also the Retry-After header)
    headers: dict[str, str] | None = None

    def body(self) -> dict[str, Any]:
        """``{"error": {"code", "message", …}}``: what the API answers with."""
        extra = {"details": self.details, "params": self.params, "retry_after": self.retry_after}
        return {"error": {"code": self.code, "message": self.message,
                          **{k: v for k, v in extra.items() if v is not None}}}

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers=self.headers)


# Starlette's HTTPException (routing's 404/405, the routers' own) by status.
HTTP_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
              409: "conflict", 413: "too_large", 415: "unsupported_media_type", 429: "too_many_requests",
              503: "unavailable"}
_TRY_AGAIN = {"Retry-After": "5"}


def error_code(exc: BaseException) -> Problem:
    """THE mapping of an exception to its error code and status, for every transport. Anything not
    listed is ``internal_error`` (500) and says only the exception's type."""
    if isinstance(exc, StarletteHTTPException):
        return Problem(HTTP_CODES.get(exc.status_code, "error"), exc.status_code, str(exc.detail),
                       headers=getattr(exc, "headers", None))
    if isinstance(exc, RequestValidationError):
        details = [{"loc": list(e.get("loc", [])), "msg": e.get("msg", "")} for e in exc.errors()]
        named = "; ".join(f"{'.'.join(map(str, d['loc']))}: {d['msg']}" for d in details[:3])
        return Problem("invalid_request", 422, "the request is not valid" + (f" ({named})" if named else ""),
                       details=details)
    if isinstance(exc, CodedError):
        return Problem(exc.code, exc.status, str(exc), params=exc.params)
    if isinstance(exc, ShuttingDown):
        return Problem("shutting_down", 503, str(exc))
    if isinstance(exc, DatabaseUnavailable):
        return Problem("database_unavailable", 503, str(exc), headers=_TRY_AGAIN)
    if isinstance(exc, psycopg.OperationalError) and is_connection_error(exc):
        # the connection broke mid-query (the server died or restarted)
        return Problem("database_unavailable", 503, "the database connection was lost; try again", headers=_TRY_AGAIN)
    if isinstance(exc, psycopg.errors.QueryCanceled):
        # a query ran past database.statement_timeout_ms: the store is overloaded (or a query runs away — the
        # handler logs it); the connection is fine, and the client may try again
        return Problem("busy", 503, "the database took too long to answer; try again", headers=_TRY_AGAIN)
    if isinstance(exc, Overloaded):
        return Problem("too_many_requests", 429, str(exc), retry_after=exc.retry_after,
                       headers={"Retry-After": str(exc.retry_after)})
    if isinstance(exc, EmbedderBusy):
        return Problem("busy", 503, str(exc), headers=_TRY_AGAIN)
    if isinstance(exc, psycopg.DataError):
        # e.g. a NUL character or an invalid byte sequence in a filter: the input, not the server
        return Problem("bad_request", 400, f"the database cannot use this input: {first_line(str(exc))}")
    if isinstance(exc, ValueError):
        return Problem("bad_request", 400, str(exc))
    return Problem("internal_error", 500, f"internal error ({type(exc).__name__})")


# The classes error_code names, each given its own handler: Starlette runs a handler for ``Exception``
# itself outside the other middleware, and raises the exception again after it.
HANDLED: tuple[type[Exception], ...] = (StarletteHTTPException, RequestValidationError, CodedError, ShuttingDown,
                                        DatabaseUnavailable, psycopg.OperationalError, Overloaded, EmbedderBusy,
                                        psycopg.DataError, ValueError)


def first_line(text: str) -> str:
    return text.split("\n")[0]


def install_error_handlers(app: FastAPI) -> None:
    async def respond(_: Request, exc: Exception) -> JSONResponse:
        problem = error_code(exc)
        if problem.code == "internal_error":
            log.error("unhandled error", exc_info=exc)
        elif isinstance(exc, psycopg.errors.QueryCanceled):
            log.warning("a query ran past the statement timeout", exc_info=exc)
        return problem.response()

    async def client_gone(_: Request, exc: Exception) -> Response:
        return gone_response()

    for cls in HANDLED:
        app.add_exception_handler(cls, respond)
    app.add_exception_handler(ClientGone, client_gone)
    app.add_exception_handler(Exception, respond)
