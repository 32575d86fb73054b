"""The tool set: every tool's one definition (:class:`~dropqa.tools.spec.ToolSpec`), as the agent's
LangChain tools (all read-only) and as the list MCP serves."""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool

from dropqa.tools.agent_tools import FINAL_ANSWER, GET_RELATED_DOCUMENTS, SUMMARIZE_FINDINGS, VERIFY_CONSISTENCY
from dropqa.tools.browse_tools import GET_DOCUMENT_STRUCTURE, GET_NODE_CONTENT, GET_SECTION_CHILDREN
from dropqa.tools.search_tools import FULLTEXT_SEARCH, KEYWORD_SEARCH, SEMANTIC_SEARCH
from dropqa.tools.spec import ToolSpec, as_langchain

SEARCH_AND_BROWSE: tuple[ToolSpec, ...] = (KEYWORD_SEARCH, FULLTEXT_SEARCH, SEMANTIC_SEARCH, GET_NODE_CONTENT,
                                           GET_SECTION_CHILDREN, GET_DOCUMENT_STRUCTURE)
AGENT_ONLY: tuple[ToolSpec, ...] = (GET_RELATED_DOCUMENTS, VERIFY_CONSISTENCY, SUMMARIZE_FINDINGS)


def search_and_browse_tools() -> list[BaseTool]:
    return [as_langchain(s) for s in SEARCH_AND_BROWSE]


def agent_tools() -> list[BaseTool]:
    """Everything ``act`` may run: search, browse, related documents, consistency, summaries.
    ``search_web`` is deliberately absent — answers come from the user's documents only."""
    return [*search_and_browse_tools(), *(as_langchain(s) for s in AGENT_ONLY)]


def model_tools() -> list[BaseTool | dict[str, Any]]:
    """What the chat model is offered: the tools ``act`` runs, and ``final_answer``, the call that ends the loop
    (the graph reads it; no tool runs it)."""
    return [*agent_tools(), FINAL_ANSWER]


def mcp_specs() -> list[ToolSpec]:
    """The tools other agents get over MCP (besides ``ask``)."""
    return [s for s in (*SEARCH_AND_BROWSE, *AGENT_ONLY) if s.mcp]
