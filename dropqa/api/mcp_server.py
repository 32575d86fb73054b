"""DropQA as an MCP server (the official ``mcp`` SDK): ask, the three searches and the two
browse tools, for other agents. Served over stdio (``dropqa mcp``) and streamable HTTP
(mounted by the app at ``/mcp``, behind the API's own gate, :class:`dropqa.api.auth.KeyGate`).

The search and browse tools are the agent's own (:mod:`dropqa.tools.registry`): one definition each —
name, description, argument model, implementation — and ``ask`` is the API's :func:`dropqa.api.ask.answer`.
Every tool takes ``kb`` (knowledge base names; default: every base the caller may read) and reads only
those bases: over HTTP the bases of the request's key, over stdio every base (the user who started
``dropqa mcp`` owns the data dir). An id of another base is "not found", like an unknown one.
Errors are :func:`dropqa.api.errors.error_code`'s, worded for a calling agent.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import ToolAnnotations
from pydantic import ValidationError
from starlette.types import ASGIApp

from dropqa import __version__
from dropqa.api import access
from dropqa.api import ask as entry
from dropqa.api.auth import CALLER, is_loopback
from dropqa.api.errors import error_code
from dropqa.api.hosts import allowed_names
from dropqa.api.limits import QuestionInput, validation_message
from dropqa.api.load import RunLimiter
from dropqa.blocking import in_thread
from dropqa.config import Settings
from dropqa.services import Services
from dropqa.store.scope import Scope
from dropqa.store.storable import refused
from dropqa.tools.registry import mcp_specs
from dropqa.tools.results import ToolResult
from dropqa.tools.spec import ToolSpec

READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
INSTRUCTIONS = (
    "DropQA answers questions about the user's own documents (Chinese and English) with citations down "
    "to the section path. Use `ask` for a complete cited answer; use the search tools and "
    "get_document_structure / get_node_content to explore the documents yourself. Every tool takes `kb`, "
    "the knowledge base name(s) to read (default: every base you may read)."
)
KB_PARAMETER = inspect.Parameter("kb", inspect.Parameter.KEYWORD_ONLY, annotation=list[str] | None, default=None)


def caller_of(ctx: Context | None) -> access.Caller:
    """The request's caller over HTTP (left by the gate); over stdio, the local user."""
    try:
        request = ctx.request_context.request if ctx is not None else None
    except ValueError:  # no request context: a direct call
        request = None
    if request is None:
        return access.LOCAL
    caller = request.scope.get("state", {}).get(CALLER)
    if not isinstance(caller, access.Caller):
        raise ToolError("unauthorized: no credential was checked for this request")
    return caller


def tool_scope(svc: Services, ctx: Context | None, kb: list[str] | None) -> Scope:
    """What a tool call may read: the bases ``kb`` names among the caller's (default: all of them). A name
    the database could not hold (NUL, …) is a ``ValueError`` naming the argument, like the tools' own."""
    for loc, reason in refused({"kb": kb}):
        raise ValueError(f"{'.'.join(map(str, loc))}: {reason}")
    return access.scope_for(svc.db, caller_of(ctx), kb)


def _tool_error(exc: Exception) -> ToolError:
    """What the calling agent reads instead of a crash: bad arguments, "not found", a busy or
    unreachable store — :func:`error_code`'s message, never a traceback. An ``internal_error`` is
    raised again as it is: a crash the SDK reports without details."""
    if isinstance(exc, ValidationError):  # the argument models' (a ValueError: bad_request)
        return ToolError(f"invalid arguments: {validation_message(exc)}")
    problem = error_code(exc)
    if problem.code == "internal_error":
        raise exc
    if problem.retry_after is not None:
        return ToolError(f"{problem.message} (retry after {problem.retry_after} s)")
    return ToolError(problem.message)


def _result(make: Callable[[], ToolResult]) -> dict[str, Any]:
    """Run a tool implementation; bad arguments and "not found" reach the calling agent as a readable
    tool error."""
    try:
        res = make()
    except Exception as exc:
        raise _tool_error(exc) from None
    if res.error:
        raise ToolError(res.error)
    return res.model_dump(mode="json")


def _mcp_function(spec: ToolSpec, get_services: Callable[[], Services]) -> Callable[..., dict[str, Any]]:
    """The tool as the MCP SDK wants it: a function whose signature is the argument model's fields and
    ``kb`` (plus the SDK's context, which carries the caller). The model itself validates each call (so its
    bounds give the same "invalid arguments" error here as everywhere else)."""

    def call(ctx: Context, kb: list[str] | None = None, **arguments: Any) -> dict[str, Any]:
        svc = get_services()
        return _result(lambda: spec.call(svc, arguments, tool_scope(svc, ctx, kb)))

    signature = spec.signature()
    context = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    call.__name__ = call.__qualname__ = spec.name
    call.__signature__ = signature.replace(parameters=[*signature.parameters.values(), KB_PARAMETER,  # type: ignore[attr-defined]
                                                       context])
    call.__annotations__ = {"ctx": Context, "kb": list[str] | None, "return": dict[str, Any]}
    return call


def build_mcp(get_services: Callable[[], Services], limiter: RunLimiter | None = None) -> MCPServer:
    """The tools. ``limiter`` (the HTTP server's) makes ``ask`` share the API's bounded run slots."""
    server = MCPServer(name="dropqa", version=__version__, instructions=INSTRUCTIONS)

    @server.tool(annotations=READ_ONLY)
    async def ask(ctx: Context, question: str, version: int | None = None, topic_filter: list[str] | None = None,
                  thread_id: str | None = None, kb: list[str] | None = None) -> dict[str, Any]:
        """Answer a question from the indexed documents (of the knowledge bases `kb` names; default: every
        base you may read). Returns the answer, its confidence, and the sources (document, section path,
        snippet, node id); `[n]` in the answer cites sources[n-1]."""
        try:  # the limits REST and /v1 apply, checked before any work
            req = QuestionInput(question=question, version=version, topic_filter=topic_filter or [],
                                thread_id=thread_id, kb=kb or [])
            svc = get_services()
            scope = await in_thread(tool_scope, svc, ctx, req.kb)
            found = await entry.answer(svc, req, scope.kbs, show_reasoning=True, limiter=limiter)
        except Exception as exc:
            raise _tool_error(exc) from None
        return found.model_dump(mode="json")

    for spec in mcp_specs():
        server.add_tool(_mcp_function(spec, get_services), name=spec.name, description=spec.description,
                        annotations=READ_ONLY)
    return server


def http_endpoint(server: MCPServer, settings: Settings) -> ASGIApp:
    """The streamable-HTTP endpoint (stateless, JSON responses: any API replica can answer).
    Run ``server.session_manager.run()`` in the app's lifespan. The app's middleware guards it as
    every other route: HostGuard holds it to ``api.allowed_hosts`` (on loopback the SDK also checks
    Host and Origin itself), KeyGate asks for the bearer token or key and names the caller."""
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
    return StreamableHTTPASGIApp(server.session_manager)
