"""The scripted OpenAI-compatible server, driven by the real langchain-openai client."""

from __future__ import annotations

import json

import httpx
import openai
import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI

from tests.support import ScriptedOpenAI


def client(llm: ScriptedOpenAI, **kw) -> ChatOpenAI:
    return ChatOpenAI(model=llm.model, base_url=llm.base_url, api_key="test-key",
                      max_retries=kw.pop("max_retries", 0), timeout=kw.pop("timeout", 10), **kw)


@tool
def search_documents(query: str, top_k: int = 5) -> str:
    """Search the indexed documents."""
    return query


def test_invoke_returns_content_usage_and_records_the_request():
    with ScriptedOpenAI([{"content": "备份窗口是每天凌晨 2 点。"}, "second"]) as llm:
        chat = client(llm)
        reply = chat.invoke([SystemMessage("be brief"), HumanMessage("备份窗口是几点？")])
        assert isinstance(reply, AIMessage) and reply.content == "备份窗口是每天凌晨 2 点。"
        usage = reply.usage_metadata
        assert usage and usage["output_tokens"] == len("备份窗口是每天凌晨 2 点。") // 4
        assert usage["input_tokens"] > 0 and usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]
        assert chat.invoke("again").content == "second"
        assert llm.remaining == 0
        body = llm.requests[0]
        assert body["model"] == "scripted"
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        assert body["messages"][1]["content"] == "备份窗口是几点？"
        models = httpx.get(f"{llm.base_url}/models").json()
        assert [m["id"] for m in models["data"]] == ["scripted"]


def test_bound_tools_produce_tool_calls_and_the_tools_are_sent():
    script = [{"content": "let me look", "tool_calls": [
        {"name": "search_documents", "arguments": {"query": "备份 窗口", "top_k": 3}},
        {"name": "search_documents", "arguments": {"query": "RTO"}},
    ]}]
    with ScriptedOpenAI(script) as llm:
        reply = client(llm).bind_tools([search_documents]).invoke("when is the backup window?")
        assert [(c["name"], c["args"]) for c in reply.tool_calls] == [
            ("search_documents", {"query": "备份 窗口", "top_k": 3}),
            ("search_documents", {"query": "RTO"}),
        ]
        assert all(c["id"] for c in reply.tool_calls) and reply.content == "let me look"
        assert reply.response_metadata["finish_reason"] == "tool_calls"
        sent = llm.requests[0]["tools"]
        assert sent[0]["function"]["name"] == "search_documents"
        assert set(sent[0]["function"]["parameters"]["properties"]) == {"query", "top_k"}


def test_streaming_content_tool_call_deltas_and_usage():
    def script(body: dict) -> dict:
        if body.get("tools"):
            return {"tool_calls": [{"name": "search_documents", "arguments": {"query": "灾备 演练"}}]}
        return {"content": "The recovery drill runs every quarter."}

    with ScriptedOpenAI(script, model="stream-model", chunk_chars=5) as llm:
        chat = client(llm, stream_usage=True)
        chunks = list(chat.stream("how often is the drill?"))
        assert len([c for c in chunks if c.content]) > 3  # really several tokens
        total = chunks[0]
        for c in chunks[1:]:
            total += c
        assert total.content == "The recovery drill runs every quarter."
        assert total.usage_metadata and total.usage_metadata["output_tokens"] == len(total.content) // 4
        assert llm.requests[0]["stream"] is True and llm.requests[0]["stream_options"] == {"include_usage": True}

        merged = None
        for c in chat.bind_tools([search_documents]).stream("drill?"):
            merged = c if merged is None else merged + c
        assert merged is not None
        assert [(c["name"], c["args"]) for c in merged.tool_calls] == [("search_documents", {"query": "灾备 演练"})]
        assert llm.requests[1]["model"] == "stream-model"


def test_raw_sse_stream_format():
    with ScriptedOpenAI([{"content": "abcdefghij"}], chunk_chars=4) as llm:
        body = {"model": "scripted", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
        with httpx.stream("POST", f"{llm.base_url}/chat/completions", json=body) as resp:
            assert resp.headers["content-type"].startswith("text/event-stream")
            lines = [line for line in resp.iter_lines() if line]
        assert lines[-1] == "data: [DONE]"
        events = [json.loads(line.removeprefix("data: ")) for line in lines[:-1]]
        deltas = [e["choices"][0]["delta"].get("content") for e in events]
        assert deltas == ["", "abcd", "efgh", "ij", None]
        assert events[-1]["choices"][0]["finish_reason"] == "stop"
        assert all("usage" not in e for e in events)  # only when include_usage is asked for


def test_http_500_is_an_error_and_retries_consume_replies():
    with ScriptedOpenAI([{"status": 500}, {"status": 500, "message": "overloaded"}, {"content": "ok"}]) as llm:
        with pytest.raises(openai.InternalServerError):
            client(llm).invoke("x")
        assert client(llm, max_retries=2).invoke("x").content == "ok"  # 500, then ok (the client retried)
        assert len(llm.requests) == 3
        with pytest.raises(openai.InternalServerError, match="script exhausted"):
            client(llm).invoke("x")


def test_delay_longer_than_the_client_timeout_times_out():
    with ScriptedOpenAI([{"delay": 3, "content": "too late"}, {"delay": 0.05, "content": "in time"}]) as llm:
        with pytest.raises(openai.APITimeoutError):  # the client gave up before the 3 s reply
            client(llm, timeout=0.3).invoke("x")
        assert client(llm, timeout=5).invoke("x").content == "in time"
    # leaving the block wakes the handler still sleeping on the first delay
