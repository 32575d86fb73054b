"""DropQA as an MCP server (the official ``mcp`` SDK): ask, the three searches and the two
browse tools, for other agents. Served over stdio (``dropqa mcp``) and streamable HTTP
(mounted by the app at ``/mcp``, behind the same bearer token as the API).

The tools call the same ``*_impl`` functions the agent's LangChain tools call, so
search logic exists once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import anyio
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
from dropqa.graph.run import ask as run_ask
from dropqa.models.embeddings import EmbedderBusy
from dropqa.store import qa as qa_store
from dropqa.store.scope import Scope as SearchScope
from dropqa.store.server import DatabaseUnavailable
from dropqa.tools.browse_tools import StructureArgs, get_document_structure_impl, get_node_content_impl
from dropqa.tools.results import ToolResult
from dropqa.tools.search_tools import (
    KeywordArgs,
    TextQueryArgs,
    fulltext_search_impl,
    keyword_search_impl,
    semantic_search_impl,
)
from dropqa.tools.services import Services

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


def build_mcp(get_services: Callable[[], Services], limiter: RunLimiter | None = None) -> MCPServer:
    """The tools. ``limiter`` (the HTTP server's) makes ``ask`` share the API's bounded run slots."""
    server = MCPServer(name="dropqa", version=__version__, instructions=INSTRUCTIONS)

    def answer(req: QuestionInput) -> dict[str, Any]:
        svc = get_services()
        result = run_ask(svc, req.question, version=req.version, show_reasoning=True,
                         topic_filter=req.topic_filter, thread_id=req.thread_id)
        data = result.model_dump(mode="json")
        data["answer_id"] = str(qa_store.record_answer(svc.db, result.question, data, req.thread_id))
        return data

    @server.tool(annotations=READ_ONLY)
    async def ask(question: str, version: int | None = None, topic_filter: list[str] | None = None,
                  thread_id: str | None = None) -> dict[str, Any]:
        """Answer a question from the indexed documents. Returns the answer, its confidence, and the
        sources (document, section path, snippet, node id); `[n]` in the answer cites sources[n-1]."""
        try:  # the limits REST and /v1 apply, checked before any work
            req = QuestionInput(question=question, version=version, topic_filter=topic_filter or [],
                                thread_id=thread_id)
            if limiter is None:
                return await anyio.to_thread.run_sync(answer, req)
            async with limiter.slot():
                return await anyio.to_thread.run_sync(answer, req)
        except EXPECTED as exc:
            raise _tool_error(exc) from None

    @server.tool(annotations=READ_ONLY)
    def keyword_search(pattern: str, mode: Literal["exact", "regex", "fuzzy"] = "exact",
                       case_sensitive: bool = False, version: int | None = None, limit: int = 10) -> dict[str, Any]:
        """Find exact names, numbers, codes or phrases (mode=exact), a POSIX regular expression
        (mode=regex) or an approximate phrase (mode=fuzzy)."""
        return _result(lambda: keyword_search_impl(get_services(), KeywordArgs(
            pattern=pattern, mode=mode, case_sensitive=case_sensitive, version=version, limit=limit),
            SearchScope(version=version)))

    @server.tool(annotations=READ_ONLY)
    def fulltext_search(query: str, version: int | None = None, limit: int = 8) -> dict[str, Any]:
        """Full-text search (jieba-segmented, BM25-style; titles weigh more). Best for several keywords."""
        return _result(lambda: fulltext_search_impl(get_services(), TextQueryArgs(
            query=query, version=version, limit=limit), SearchScope(version=version)))

    @server.tool(annotations=READ_ONLY)
    def semantic_search(query: str, version: int | None = None, limit: int = 8) -> dict[str, Any]:
        """Semantic (embedding) search: passages that mean the same in other words or the other language."""
        return _result(lambda: semantic_search_impl(get_services(), TextQueryArgs(
            query=query, version=version, limit=limit), SearchScope(version=version)))

    @server.tool(annotations=READ_ONLY)
    def get_document_structure(document: str, version: int | None = None, max_depth: int = 3) -> dict[str, Any]:
        """A document's outline (sections with titles, summaries and node ids). `document` is its id
        or (part of) its file name."""
        return _result(lambda: get_document_structure_impl(get_services(), StructureArgs(
            document=document, version=version, max_depth=max_depth)))

    @server.tool(annotations=READ_ONLY)
    def get_node_content(node_id: str) -> dict[str, Any]:
        """The full text of one node (from a search hit or the outline) with the titles and summaries
        of the sections above it."""
        return _result(lambda: get_node_content_impl(get_services(), node_id))

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
