"""One definition per tool: the LangChain tool and the MCP function come from the same ToolSpec."""

from __future__ import annotations

import inspect
import uuid
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import ValidationError

from dropqa.services import Context
from dropqa.store.bases import DEFAULT_KB
from dropqa.store.scope import Scope
from dropqa.tools.registry import SEARCH_AND_BROWSE, agent_tools, mcp_specs, model_tools
from dropqa.tools.search_tools import KEYWORD_SEARCH
from dropqa.tools.spec import run_scope


def test_each_tool_once_with_one_description() -> None:
    tools = {t.name: t for t in agent_tools()}
    assert len(tools) == len(agent_tools())  # no name twice
    for spec in SEARCH_AND_BROWSE:
        assert tools[spec.name].description == spec.description
        assert tools[spec.name].args_schema is spec.args
    assert sorted(s.name for s in mcp_specs()) == ["fulltext_search", "get_document_structure",
                                                    "get_node_content", "keyword_search", "semantic_search"]


def test_final_answer_is_offered_to_the_model_but_never_run() -> None:
    offered = model_tools()
    names = [t.name if hasattr(t, "name") else t["function"]["name"] for t in offered]
    assert names[-1] == "final_answer" and "final_answer" not in {t.name for t in agent_tools()}
    schema = offered[-1]["function"]["parameters"]
    assert set(schema["properties"]) == {"answer", "answerable", "confidence"}


def test_the_mcp_signature_is_the_argument_model_without_its_bounds() -> None:
    sig = KEYWORD_SEARCH.signature()
    assert list(sig.parameters) == ["pattern", "mode", "case_sensitive", "version", "limit"]
    assert sig.parameters["pattern"].default is inspect.Parameter.empty
    assert sig.parameters["limit"].default == 10 and sig.parameters["version"].annotation == int | None


def test_a_call_over_the_bounds_is_refused_before_any_work() -> None:
    with pytest.raises(ValidationError, match="version"):
        KEYWORD_SEARCH.call(None, {"pattern": "x", "version": 10**30},  # type: ignore[arg-type]  # no services needed
                            Scope(kbs=(DEFAULT_KB,)))


@pytest.mark.parametrize("state", [{"version": 2, "topic_filter": ["财务"]},
                                   SimpleNamespace(version=2, topic_filter=["财务"])])
def test_the_run_scope_carries_the_runs_bases_version_and_topics(state: Any) -> None:
    kbs = (uuid.uuid4(), DEFAULT_KB)
    runtime = SimpleNamespace(state=state, context=Context(kbs=kbs))
    assert run_scope(runtime) == Scope(kbs=kbs, version=2, topics=("财务",))  # type: ignore[arg-type]


def test_a_run_without_bases_reads_the_default_base() -> None:
    assert Context().kbs == (DEFAULT_KB,)  # LangGraph Studio's context, made from JSON
