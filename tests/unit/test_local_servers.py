"""What local OpenAI-compatible servers do differently, met through the real langchain-openai client and a
scripted server that behaves like llama-cpp-python's (tests/support/scripted_openai.py):

- ``json_schema`` refused with a 500: structured replies switch to ``json_object`` with the schema in the
  prompt, learned once per server (not met again on the next request), and to plain text when
  ``json_object`` is refused too; an ordinary 500 teaches nothing;
- every request carries ``max_tokens``;
- a call past the question's deadline is cancelled at once (``OutOfTime``), its request abandoned;
- tool calls written as text in another dialect come back as ``tool_calls``.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from pydantic import BaseModel, Field

from dropqa.config import ChatModelSettings, ModelSettings
from dropqa.models import structured
from dropqa.models.chat import ChatUnavailable, OutOfTime, ainvoke_chat, ainvoke_structured, chat_providers
from dropqa.models.toolcalls import calls_in
from dropqa.runtime.loop import run_sync
from tests.support.scripted_openai import ScriptedOpenAI, text_parts


class Queries(BaseModel):
    """Search queries."""

    queries: list[str] = Field(description="up to three queries")


def providers(llm: ScriptedOpenAI, **overrides: Any) -> list:
    return chat_providers(ModelSettings(chat=ChatModelSettings(**llm.chat_config(**overrides))))


@pytest.fixture(autouse=True)
def fresh_learning() -> None:
    structured.forget()


def json_reply(body: dict[str, Any]) -> dict[str, Any]:
    return {"content": "Sure! ```json\n" + json.dumps({"queries": ["恢复时间目标", "RTO"]}) + "\n```"}


def test_a_server_refusing_json_schema_gets_json_object_learned_once() -> None:
    with ScriptedOpenAI(json_reply, refuse_json_schema=True) as llm:
        chat = providers(llm)
        for _ in range(3):
            reply, usage = run_sync(ainvoke_structured(chat, [HumanMessage("rewrite: RTO?")], Queries))
            assert reply.queries == ["恢复时间目标", "RTO"] and usage.completion_tokens > 0
        answered = [b for b in llm.requests if b.get("response_format", {}).get("type") == "json_object"]
        assert llm.refused == 1  # learned once, not met again on every request
        assert len(answered) == 3
        assert answered[0]["response_format"]["schema"]["properties"]["queries"]["type"] == "array"
        assert '"queries"' in text_parts(answered[0]) and "JSON" in text_parts(answered[0])  # schema in the prompt
        assert structured.method_for(f"scripted@{llm.base_url}") == "json_object"


def test_a_server_refusing_both_formats_gets_the_schema_in_the_prompt() -> None:
    with ScriptedOpenAI(json_reply, refuse_json_schema=True, refuse_json_object=True) as llm:
        chat = providers(llm)
        for _ in range(2):
            reply, _ = run_sync(ainvoke_structured(chat, [HumanMessage("rewrite: RTO?")], Queries))
            assert reply.queries[1] == "RTO"
        assert llm.refused == 2
        assert "response_format" not in llm.requests[-1] and '"queries"' in text_parts(llm.requests[-1])


def test_an_ordinary_server_error_teaches_nothing() -> None:
    with ScriptedOpenAI(lambda body: {"status": 500, "message": "upstream down"}) as llm:
        with pytest.raises(ChatUnavailable, match="upstream down"):
            run_sync(ainvoke_structured(providers(llm), [HumanMessage("q")], Queries))
        assert structured.method_for(f"scripted@{llm.base_url}") == "json_schema"


def test_a_reply_that_is_not_json_is_unreadable_not_a_refusal() -> None:
    with ScriptedOpenAI(lambda body: {"content": "I think the queries are RTO and backups."},
                        refuse_json_schema=True) as llm:
        with pytest.raises(ChatUnavailable, match="unreadable"):
            run_sync(ainvoke_structured(providers(llm), [HumanMessage("q")], Queries))
        assert structured.method_for(f"scripted@{llm.base_url}") == "json_object"


def test_every_request_carries_max_tokens() -> None:
    with ScriptedOpenAI(lambda body: {"content": json.dumps({"queries": ["q"]})}) as llm:
        run_sync(ainvoke_chat(providers(llm, max_tokens=77), [HumanMessage("hi")]))
        run_sync(ainvoke_structured(providers(llm, max_tokens=77), [HumanMessage("hi")], Queries))
        bodies = list(llm.requests)
    # the classic name, which llama-cpp-python's server reads (it ignores max_completion_tokens)
    assert [b.get("max_tokens") for b in bodies] == [77, 77]
    assert not any("max_completion_tokens" in b for b in bodies)


def test_a_call_past_the_deadline_is_cancelled_at_once() -> None:
    with ScriptedOpenAI(lambda body: {"delay": 20, "content": "late"}) as llm:
        chat = providers(llm, timeout_s=60.0, max_retries=2)
        started = time.monotonic()
        with pytest.raises(OutOfTime):
            run_sync(ainvoke_chat(chat, [HumanMessage("hi")], deadline=time.time() + 0.6))
        assert time.monotonic() - started < 3
        with pytest.raises(OutOfTime):  # nothing left: no request is made at all
            run_sync(ainvoke_chat(chat, [HumanMessage("hi")], deadline=time.time() - 1))
        deadline = time.monotonic() + 3
        while llm.abandoned < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(llm.requests) == 1 and llm.abandoned == 1


@tool
def keyword_search(pattern: str) -> str:
    """Search for an exact name or number."""
    return pattern


@tool
def final_answer(answer: str, answerable: bool = True) -> str:
    """Give the answer."""
    return answer


DIALECTS = {
    "gemma tool_code": "I will search.\n```tool_code\nkeyword_search(pattern=\"赵敏\")\n```",
    "hermes tag": '<tool_call>\n{"name": "keyword_search", "arguments": {"pattern": "赵敏"}}\n</tool_call>',
    "json fence": '```json\n{"name": "keyword_search", "parameters": {"pattern": "赵敏"}}\n```',
    "openai shape as text": '{"tool_calls": [{"function": {"name": "keyword_search", '
                            '"arguments": "{\\"pattern\\": \\"赵敏\\"}"}}]}',
    "mistral": '[TOOL_CALLS] [{"name": "keyword_search", "arguments": {"pattern": "赵敏"}}]',
    "bare line": "keyword_search(pattern='赵敏')",
}


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_tool_calls_written_as_text_are_read(dialect: str) -> None:
    assert calls_in(DIALECTS[dialect], ["keyword_search", "final_answer"]) == [("keyword_search", {"pattern": "赵敏"})]


def test_text_that_names_no_offered_tool_stays_text() -> None:
    assert calls_in('Use {"name": "rm_rf", "arguments": {}} or print("x")', ["keyword_search"]) == []
    assert calls_in("The RTO is 45 minutes (see backup(plan)).", ["keyword_search"]) == []


def test_a_text_tool_call_comes_back_as_a_tool_call_through_the_client() -> None:
    with ScriptedOpenAI(lambda body: {"content": DIALECTS["gemma tool_code"]}) as llm:
        message, _ = run_sync(ainvoke_chat(providers(llm), [HumanMessage("who?")], [keyword_search, final_answer]))
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [("keyword_search", {"pattern": "赵敏"})]
