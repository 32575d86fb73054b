"""The typed tools, run through LangGraph's own ToolNode with the run-time context injected."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from dropqa.services import Context
from dropqa.tools.registry import search_and_browse_tools
from dropqa.tools.search_tools import KeywordArgs, keyword_search_impl
from tests.support.scopes import DEFAULT

pytestmark = pytest.mark.integration


class ToolState(MessagesState):
    version: int | None


@pytest.fixture(scope="module")
def run_tool(services, indexed_examples):
    builder = StateGraph(ToolState, context_schema=Context)
    builder.add_node("tools", ToolNode(search_and_browse_tools()))
    builder.add_edge(START, "tools")
    builder.add_edge("tools", END)
    g = builder.compile()

    def call(name: str, args: dict, version: int | None = None) -> str:
        msg = AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": "call-1"}])
        out = g.invoke({"messages": [msg], "version": version}, context=Context(services=services))
        return out["messages"][-1].content

    return call


def test_fulltext_and_semantic_tools(run_tool):
    text = run_tool("fulltext_search", {"query": "恢复时间目标 RTO"})
    assert text.startswith("fulltext_search: ") and "3.2 恢复演练" in text.splitlines()[1]
    text = run_tool("semantic_search", {"query": "how much holiday do staff get"})
    assert "Annual Leave" in text


def test_keyword_modes(run_tool):
    assert "5. Security" in run_tool("keyword_search", {"pattern": "IT-HELP@aurora.example"})
    assert "no passages found" in run_tool("keyword_search", {"pattern": "IT-HELP@aurora.example",
                                                              "case_sensitive": True})
    fuzzy = run_tool("keyword_search", {"pattern": "home office allowance of 400", "mode": "fuzzy"})
    assert "2.2 Equipment" in fuzzy
    bad = run_tool("keyword_search", {"pattern": "([a-z", "mode": "regex"})
    assert "BadPattern" in bad


def test_regex_runs_under_a_statement_timeout(services, indexed_examples):
    args = KeywordArgs(pattern="(.*.*)*=(x|y)+$", mode="regex")
    svc = services
    old = svc.settings.database.regex_timeout_ms
    svc.settings.database.regex_timeout_ms = 1
    try:
        res = keyword_search_impl(svc, args, DEFAULT)
    finally:
        svc.settings.database.regex_timeout_ms = old
    assert res.error is None or "RegexTimeout" in res.error


def test_browse_tools(run_tool, services):
    outline = run_tool("get_document_structure", {"document": "运维手册"})
    assert "第2章 值班与告警" in outline and "2.1 值班制度" in outline
    section_id = next(line.split("]")[0].split("[")[1] for line in outline.splitlines() if "] 第2章" in line)
    children = run_tool("get_section_children", {"node_id": section_id})
    assert "2.1 值班制度" in children and "2.2 告警分级" in children
    hit_line = run_tool("fulltext_search", {"query": "交接班时间"}).splitlines()[1]
    node_id = hit_line.split("]")[0].lstrip("[")
    content = run_tool("get_node_content", {"node_id": node_id})
    assert "9:00 和 21:00" in content and "第2章 值班与告警" in content
    assert "no node" in run_tool("get_node_content", {"node_id": "not-a-uuid"})


def test_version_filter_from_state(run_tool, services, indexer, indexed_examples):
    import shutil

    from tests.conftest import ROOT

    shutil.copy2(ROOT / "examples" / "updates" / "pricing.md", indexed_examples / "pricing.md")
    indexer.index_file(indexed_examples / "pricing.md", "pricing.md")
    assert "350 EUR" in run_tool("keyword_search", {"pattern": "Business support costs"})
    assert "300 EUR" in run_tool("keyword_search", {"pattern": "Business support costs"}, version=1)
    assert "300 EUR" in run_tool("keyword_search", {"pattern": "Business support costs", "version": 1})
