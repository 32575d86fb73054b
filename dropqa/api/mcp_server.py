"""DropQA as an MCP server (the official ``mcp`` SDK): ask, the three searches and the two
browse tools, for other agents. Served over stdio (``dropqa mcp``) and streamable HTTP
(mounted by the app at ``/mcp``, behind the same bearer token as the API).

The search and browse tools are the agent's own (:mod:`dropqa.tools.registry`): one definition each —
name, description, argument model, implementation — and ``ask`` is the API's :func:`answer_and_record`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import ToolAnnotations
from pydantic import ValidationError
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from dropqa import __version__
from dropqa.api.auth import bearer_matches, is_loopback
from dropqa.api.errors import error_body
from dropqa.api.hosts import allowed_names
from dropqa.api.limits import QuestionInput, validation_message
from dropqa.api.load import Overloaded, RunLimiter
from dropqa.config import Settings
from dropqa.models.embeddings import EmbedderBusy
from dropqa.runtime.run import answer_and_record
from dropqa.services import Services
from dropqa.store.server import DatabaseUnavailable
from dropqa.tools.registry import mcp_specs
from dropqa.tools.results import ToolResult
from dropqa.tools.spec import ToolSpec

READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
INSTRUCTIONS = (
    "DropQA answers questions about the user's own documents (Chinese and English) with citations down "
    "to the section path. Use `ask` for a complete cited answer; use the search tools and "
    "get_document_structure / get_node_content to explore the documents yourself."
)


def _tool_error(exc: Exception) -> ToolError:
    """What the calling agent reads instead of a crash: bad arguments, "not found", a busy or
    unreachable store — one line, never a traceback."""
    if isinstance(exc, ValidationError):
        return ToolError(f"invalid arguments: {validation_message(exc)}")
    if isinstance(exc, Overloaded):
        return ToolError(f"{exc} (retry after {exc.retry_after} s)")
    if isinstance(exc, psycopg.DataError):
        return ToolError(f"the database cannot use this input: {str(exc).splitlines()[0]}")
    return ToolError(str(exc))


EXPECTED = (ValueError, psycopg.DataError, DatabaseUnavailable, EmbedderBusy, Overloaded)


def _result(make: Callable[[], ToolResult]) -> dict[str, Any]:
    """Run a tool implementation; bad arguments and "not found" reach the calling agent as a readable
    tool error (anything else is a crash the SDK reports without details)."""
    try:
        res = make()
    except EXPECTED as exc:  # ValueError includes pydantic's ValidationError of the argument models
        raise _tool_error(exc) from None
    if res.error:
        raise ToolError(res.error)
    return res.model_dump(mode="json")


def _mcp_function(spec: ToolSpec, get_services: Callable[[], Services]) -> Callable[..., dict[str, Any]]:
    """The tool as the MCP SDK wants it: a function whose signature is the argument model's fields.
    The model itself validates each call (so its bounds give the same "invalid arguments" error here
    as everywhere else)."""

    def call(**arguments: Any) -> dict[str, Any]:
        return _result(lambda: spec.call(get_services(), arguments))

    call.__name__ = call.__qualname__ = spec.name
    call.__signature__ = spec.signature()  # type: ignore[attr-defined]
    return call


def build_mcp(get_services: Callable[[], Services], limiter: RunLimiter | None = None) -> MCPServer:
    """The tools. ``limiter`` (the HTTP server's) makes ``ask`` share the API's bounded run slots."""
    server = MCPServer(name="dropqa", version=__version__, instructions=INSTRUCTIONS)

    async def answer(req: QuestionInput) -> dict[str, Any]:
        found = await answer_and_record(get_services(), req.question, version=req.version, show_reasoning=True,
                                        topic_filter=req.topic_filter, thread_id=req.thread_id)
        return found.model_dump(mode="json")

    @server.tool(annotations=READ_ONLY)
    async def ask(question: str, version: int | None = None, topic_filter: list[str] | None = None,
                  thread_id: str | None = None) -> dict[str, Any]:
        """Answer a question from the indexed documents. Returns the answer, its confidence, and the
        sources (document, section path, snippet, node id); `[n]` in the answer cites sources[n-1]."""
        try:  # the limits REST and /v1 apply, checked before any work
            req = QuestionInput(question=question, version=version, topic_filter=topic_filter or [],
                                thread_id=thread_id)
            if limiter is None:
                return await answer(req)
            async with limiter.slot():
                return await answer(req)
        except EXPECTED as exc:
            raise _tool_error(exc) from None

    for spec in mcp_specs():
        server.add_tool(_mcp_function(spec, get_services), name=spec.name, description=spec.description,
                        annotations=READ_ONLY)
    return server


class TokenGate:
    """Refuses requests without the API's bearer token (when one is configured)."""

    def __init__(self, app: ASGIApp, expected: str | None):
        self.app = app
        self.expected = expected

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        authorization = Headers(scope=scope).get("authorization") if scope["type"] == "http" else None
        if scope["type"] == "http" and self.expected and not bearer_matches(authorization, self.expected):
            response = JSONResponse(error_body("unauthorized", "missing or wrong bearer token"),
                                    status_code=401, headers={"WWW-Authenticate": "Bearer"})
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


def http_endpoint(server: MCPServer, settings: Settings, token: str | None) -> ASGIApp:
    """The streamable-HTTP endpoint (stateless, JSON responses: any API replica can answer).
    Run ``server.session_manager.run()`` in the app's lifespan. The app's HostGuard already holds
    every route to ``api.allowed_hosts``; on loopback the SDK also checks Host and Origin itself."""
    host = settings.api.host
    names = allowed_names(settings.api.allowed_hosts, host)
    if is_loopback(host) and names is not None:
        hosts = [f"[{n}]" if ":" in n else n for n in sorted(names)]
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=[*hosts, *(f"{h}:*" for h in hosts)],
            allowed_origins=[f"http://{h}:*" for h in hosts] + [f"http://{h}" for h in hosts],
        )
    else:  # reachable from other machines: the bearer token is the protection
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    server.streamable_http_app(streamable_http_path="/mcp", stateless_http=True, json_response=True,
                               transport_security=security, host=host)
    return TokenGate(StreamableHTTPASGIApp(server.session_manager), token)
