"""One definition per tool: name, argument model, implementation and description.

A :class:`ToolSpec` is written once, beside its implementation; :func:`as_langchain` turns it into the
tool the graph's ``ToolNode`` runs, and ``dropqa.api.mcp_server`` turns the ones marked ``mcp`` into MCP
tools — the same name, the same description, the same argument model, the same code.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from langgraph.prebuilt import ToolRuntime
from pydantic import BaseModel

from dropqa.blocking import in_thread
from dropqa.services import Services
from dropqa.store.scope import Scope
from dropqa.store.storable import refused
from dropqa.tools.results import ToolResult


def _standard_text(result: ToolResult) -> str | None:
    return None  # ToolResult.render(): the status line and one line per hit


@dataclass(frozen=True)
class ToolSpec:
    """``run(services, args, run_scope)``: ``args`` is an instance of ``args``; ``run_scope`` is what every
    read of the tool is held to: the knowledge bases the run (or the MCP caller) may read, and the run's
    version and topics, for tools whose own ``version`` argument defaults to it. ``text`` is what the agent
    reads (``None``: the standard render)."""

    name: str
    description: str
    args: type[BaseModel]
    run: Callable[[Services, Any, Scope], ToolResult]
    text: Callable[[ToolResult], str | None] = field(default=_standard_text)
    mcp: bool = False  # also served to other agents by ``dropqa mcp`` / ``/mcp``

    def call(self, services: Services, arguments: Mapping[str, Any], run_scope: Scope) -> ToolResult:
        """Validate ``arguments`` against the argument model (``ValidationError`` when they do not fit;
        ``ValueError`` naming the argument for text the database cannot store) and run the tool in
        ``run_scope``."""
        for loc, reason in refused(dict(arguments)):
            raise ValueError(f"{'.'.join(map(str, loc))}: {reason}")
        return self.run(services, self.args.model_validate(dict(arguments)), run_scope)

    def signature(self) -> inspect.Signature:
        """The argument model as a plain keyword-only signature: the fields' types and defaults, without
        their bounds — the bounds are checked by :meth:`call`, so a caller over them gets the same
        readable error from every entry point."""
        params = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=f.annotation,
                                    default=inspect.Parameter.empty if f.is_required() else f.get_default(
                                        call_default_factory=True))
                  for name, f in self.args.model_fields.items()]
        return inspect.Signature(params, return_annotation=dict[str, Any])


def run_scope(runtime: ToolRuntime[Any, Any]) -> Scope:
    """What the graph run may read and asked for: the run's knowledge bases (its ``Context``), its version,
    and the asker's topic filter, which holds for every tool (``State``; a plain dict state in tests)."""
    state = runtime.state

    def field(name: str) -> Any:
        return state.get(name) if isinstance(state, Mapping) else getattr(state, name, None)

    return runtime.context.scope(field("version"), field("topic_filter") or ())


def as_langchain(spec: ToolSpec) -> BaseTool:
    """The LangChain tool: the argument model is its schema, the run-time context (``Context``)
    comes through ``ToolRuntime``, the model reads ``spec.text`` and the graph reads the
    :class:`ToolResult` from the artifact."""

    def invoke(runtime: ToolRuntime, **arguments: Any) -> tuple[str, dict[str, Any]]:
        result = spec.call(runtime.context.services, arguments, run_scope(runtime))
        return result.as_tool_output(spec.text(result))

    async def ainvoke(runtime: ToolRuntime, **arguments: Any) -> tuple[str, dict[str, Any]]:
        return await in_thread(invoke, runtime, **arguments)  # the graph's async ToolNode: the shared pool

    return StructuredTool.from_function(func=invoke, coroutine=ainvoke, name=spec.name, description=spec.description,
                                        args_schema=spec.args, response_format="content_and_artifact")
