"""Errors are JSON with a code and a message — never a stack trace."""

from __future__ import annotations

import logging
from typing import Any

import psycopg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

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
    401: _error("missing or wrong bearer token (only when the server has a token)"),
    404: _error("no such resource"),
    409: _error("the resource is not in a state that allows this"),
    413: _error("the body, a file or the number of files is over the limit"),
    421: _error("the Host header names a host this server does not answer for (api.allowed_hosts)"),
    422: _error("the request does not match the schema"),
    429: _error("too many questions in flight, or the ingestion queue is full; see Retry-After"),
    503: _error("the database is unavailable, or the embedding model stayed busy"),
}


def error_body(code: str, message: str, **extra: object) -> dict[str, object]:
    return {"error": {"code": code, "message": message, **extra}}


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
                405: "method_not_allowed", 409: "conflict", 413: "too_large", 415: "unsupported_media_type",
                429: "too_many_requests", 503: "unavailable"}.get(exc.status_code, "error")
        return JSONResponse(error_body(code, str(exc.detail)), status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        details = [{"loc": list(e.get("loc", [])), "msg": e.get("msg", "")} for e in exc.errors()]
        return JSONResponse(error_body("invalid_request", "the request is not valid", details=details),
                            status_code=422)

    @app.exception_handler(CodedError)
    async def coded_error(_: Request, exc: CodedError) -> JSONResponse:
        return JSONResponse(error_body(exc.code, str(exc), params=exc.params), status_code=exc.status)

    @app.exception_handler(ValueError)
    async def value_error(_: Request, exc: ValueError) -> JSONResponse:
        return JSONResponse(error_body("bad_request", str(exc)), status_code=400)

    @app.exception_handler(psycopg.DataError)
    async def data_error(_: Request, exc: psycopg.DataError) -> JSONResponse:
        # e.g. a NUL character or an invalid byte sequence in a filter: the input, not the server
        message = str(exc).split("\n")[0]
        return JSONResponse(error_body("bad_request", f"the database cannot use this input: {message}"),
                            status_code=400)

    @app.exception_handler(DatabaseUnavailable)
    async def db_error(_: Request, exc: DatabaseUnavailable) -> JSONResponse:
        return JSONResponse(error_body("database_unavailable", str(exc)), status_code=503,
                            headers={"Retry-After": "5"})

    @app.exception_handler(psycopg.OperationalError)
    async def db_lost(request: Request, exc: psycopg.OperationalError) -> JSONResponse:
        if is_connection_error(exc):  # the connection broke mid-query (the server died or restarted)
            return JSONResponse(error_body("database_unavailable", "the database connection was lost; try again"),
                                status_code=503, headers={"Retry-After": "5"})
        return await unexpected(request, exc)

    @app.exception_handler(Overloaded)
    async def overloaded(_: Request, exc: Overloaded) -> JSONResponse:
        return JSONResponse(error_body("too_many_requests", str(exc), retry_after=exc.retry_after), status_code=429,
                            headers={"Retry-After": str(exc.retry_after)})

    @app.exception_handler(EmbedderBusy)
    async def busy(_: Request, exc: EmbedderBusy) -> JSONResponse:
        return JSONResponse(error_body("busy", str(exc)), status_code=503, headers={"Retry-After": "5"})

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error")
        return JSONResponse(error_body("internal_error", f"internal error ({type(exc).__name__})"), status_code=500)
