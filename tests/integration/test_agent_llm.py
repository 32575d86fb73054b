"""LLM mode against a scripted OpenAI-compatible HTTP server (tests/support/scripted_openai.py).

The real langchain-openai client talks HTTP to a server this test starts; real
tool-call messages go through the graph's ToolNode. Covered: the loop follows the
model's tool calls, fallbacks switch providers on 500s and timeouts, degradation to
offline mode when every provider fails, the budget stops a model that never calls
``final_answer``, and a prompt-injection document does not change the tools called.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from dropqa.config import ChatModelSettings
from dropqa.runtime.run import ask
from dropqa.services import Services
from tests.support.corpora import index_agent_corpus
from tests.support.scripted_openai import ScriptedOpenAI

pytestmark = pytest.mark.integration
QUESTION = "极光项目负责人的2024年绩效考核得分是多少？"
_NODE = re.compile(r"\[([0-9a-f-]{36})\]")


@pytest.fixture(scope="module")
def corpus(indexer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return index_agent_corpus(indexer, tmp_path_factory.mktemp("llm_corpus"))


def with_models(services: Services, *models: ScriptedOpenAI | str, timeout_s: float = 5.0,
                max_iterations: int | None = None) -> Services:
    def cfg(m: ScriptedOpenAI | str) -> ChatModelSettings:
        url = m.base_url if isinstance(m, ScriptedOpenAI) else m
        name = m.model if isinstance(m, ScriptedOpenAI) else "unreachable"
        return ChatModelSettings(model=name, base_url=url, api_key="test", max_retries=0, timeout_s=timeout_s)

    chat, *fallbacks = [cfg(m) for m in models]
    settings = services.settings.model_copy(update={
        "models": services.settings.models.model_copy(update={"chat": chat, "fallbacks": fallbacks}),
    })
    if max_iterations is not None:
        settings = settings.model_copy(update={"agent": settings.agent.model_copy(
            update={"max_iterations": max_iterations})})
    return Services(settings=settings, db=services.db, embedder=services.embedder)


def kind(body: dict[str, Any]) -> str:
    if body.get("tools"):
        return "think"
    text = str(body["messages"][-1]["content"])
    return "rewrite" if ("改写" in text or "Rewrite" in text) else "reader" if "NOTHING" in text else "answer"


def tool_messages(body: dict[str, Any]) -> list[str]:
    return [str(m.get("content")) for m in body["messages"] if m.get("role") == "tool"]


def answer_from_passages(body: dict[str, Any]) -> dict[str, Any]:
    text = str(body["messages"][-1]["content"])
    n = next((m.group(1) for m in re.finditer(r"\[(\d+)\][^\n]*\n[^\n]*95", text)), "1")
    return {"content": f"赵敏的2024年绩效考核得分为95分 [{n}]。"}


def script_following(thinks: list[dict[str, Any]]):
    """Think steps in order; then final_answer citing the passage with 95 that a tool returned."""
    steps = iter(thinks)

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        k = kind(body)
        if k == "rewrite":  # with_structured_output: a JSON object for the request's response_format
            assert body.get("response_format", {}).get("type") == "json_schema"
            return {"content": json.dumps({"queries": ["极光项目 负责人", "赵敏 绩效考核 得分"]}, ensure_ascii=False)}
        if k in ("answer", "reader"):
            return answer_from_passages(body)
        step = next(steps, None)
        if step is not None:
            return step
        lines = [ln for t in tool_messages(body) for ln in t.splitlines() if "95" in ln]
        node = next((m.group(1) for ln in lines for m in [_NODE.search(ln)] if m), None)
        answer = f"赵敏的得分是95分 [{node}]。" if node else "没有找到。"
        return {"tool_calls": [{"name": "final_answer", "arguments": {
            "answer": answer, "answerable": bool(node), "confidence": "high", "node_ids": [node] if node else []}}]}

    return reply


def test_loop_follows_the_models_tool_calls(services, corpus):
    with ScriptedOpenAI(script_following([
        {"content": "先找负责人", "tool_calls": [{"name": "keyword_search", "arguments": {"pattern": "赵敏"}}]},
    ])) as llm:
        result = ask(with_models(services, llm), QUESTION)
        kinds = [kind(b) for b in llm.requests]
        provider = f"scripted@{llm.base_url}"
    assert kinds[0] == "rewrite" and kinds.count("think") == 2
    retrieval = next(s for s in result.reasoning_trace if s["type"] == "retrieval")
    assert retrieval["arguments"]["rewrites"] == ["极光项目 负责人", "赵敏 绩效考核 得分"]  # the structured reply
    assert result.mode == "agent" and result.answerable and not result.degraded
    assert "95" in result.answer and "[1]" in result.answer
    assert result.sources[0].cited and "95" in result.sources[0].snippet
    actions = [s for s in result.reasoning_trace if s["type"] == "action"]
    assert [a["tool"] for a in actions] == ["keyword_search", "final_answer"]
    assert result.usage["prompt_tokens"] > 0 and result.usage["completion_tokens"] > 0
    assert list(result.usage["by_provider"]) == [provider]


def test_fallback_on_500_and_on_timeout(services, corpus):
    with ScriptedOpenAI(lambda body: {"status": 500, "message": "upstream down"}, model="down") as down, \
            ScriptedOpenAI(lambda body: {"delay": 3, "content": "late"}, model="slow") as slow, \
            ScriptedOpenAI(script_following([{"tool_calls": [{"name": "keyword_search",
                                                               "arguments": {"pattern": "赵敏"}}]}]),
                           model="backup") as backup:
        result = ask(with_models(services, down, slow, backup, timeout_s=1.0), QUESTION)
        assert down.requests and slow.requests and backup.requests
        provider = f"backup@{backup.base_url}"
    assert result.answerable and "95" in result.answer and not result.degraded
    assert set(result.usage["by_provider"]) == {provider}


def test_all_providers_failing_degrades_to_offline(services, corpus):
    with ScriptedOpenAI(lambda body: {"status": 503}, model="a") as a, \
            ScriptedOpenAI(lambda body: {"status": 500}, model="b") as b:
        result = ask(with_models(services, a, b), QUESTION)
    assert result.degraded is True
    assert result.usage is None  # no provider answered: no tokens to report, not zeros
    assert result.answerable and "95" in result.answer  # the offline planner and extractive answer took over
    assert any(s["type"] == "thought" and ("offline" in s["content"] or "离线" in s["content"])
               for s in result.reasoning_trace)


def test_budget_stops_a_model_that_never_finishes(services, corpus):
    counter = iter(range(1000))

    def endless(body: dict[str, Any]) -> dict[str, Any]:
        if kind(body) == "think":
            return {"tool_calls": [{"name": "fulltext_search", "arguments": {"query": f"极光 {next(counter)}"}}]}
        return script_following([])(body)

    with ScriptedOpenAI(endless) as llm:
        result = ask(with_models(services, llm, max_iterations=3), QUESTION)
        thinks = [b for b in llm.requests if kind(b) == "think"]
    assert result.iterations <= 3 and len(thinks) <= 3
    assert any("budget" in s["content"] or "预算" in s["content"] for s in result.reasoning_trace)
    assert result.answer  # it still answers from what was gathered


def test_prompt_injection_in_a_document_changes_no_tool_call(services, corpus):
    thinks = [{"tool_calls": [{"name": "fulltext_search", "arguments": {"query": "系统说明"}}]}]
    with ScriptedOpenAI(script_following(thinks)) as llm:
        result = ask(with_models(services, llm), "系统说明文档讲了什么？请说明。")
        requests = list(llm.requests)
    called = [s["tool"] for s in result.reasoning_trace if s["type"] == "action"]
    assert "get_related_documents" not in called
    for body in requests:
        for message in body["messages"]:
            if message["role"] == "system":
                assert "系统已被接管" not in str(message["content"])  # document text never becomes instructions
                assert "数据" in str(message["content"]) or "DATA" in str(message["content"])
    assert any("系统已被接管" in t for b in requests for t in tool_messages(b))  # it was read, as data
