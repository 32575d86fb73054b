"""The tool set the agent may use (all read-only)."""

from __future__ import annotations

from langchain_core.tools import BaseTool

from dropqa.tools.agent_tools import (
    final_answer,
    get_related_documents,
    summarize_findings,
    verify_consistency,
)
from dropqa.tools.browse_tools import get_document_structure, get_node_content, get_section_children
from dropqa.tools.search_tools import fulltext_search, keyword_search, semantic_search


def search_and_browse_tools() -> list[BaseTool]:
    return [keyword_search, fulltext_search, semantic_search, get_node_content, get_section_children,
            get_document_structure]


def agent_tools() -> list[BaseTool]:
    """Everything ``act`` may run: search, browse, related documents, consistency, summaries, final_answer.
    ``search_web`` is deliberately absent — answers come from the user's documents only."""
    return [*search_and_browse_tools(), get_related_documents, verify_consistency, summarize_findings,
            final_answer]
