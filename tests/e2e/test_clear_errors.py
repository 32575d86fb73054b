"""Clear errors instead of quiet ones, over HTTP and the CLI.

An unknown version is a 404 naming the versions that exist (not "not in the documents"); an
unknown model is OpenAI's 404 ``model_not_found`` and /v1/models lists what is accepted; ``usage``
carries the chat model's real token counts when one ran (the scripted OpenAI-compatible server
counts them) and is null when none did.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import EXAMPLES
from tests.e2e.api_support import DROPQA, Server, dropqa_server, sse_events
from tests.support.scripted_openai import ScriptedOpenAI, count_tokens

pytestmark = [pytest.mark.e2e, pytest.mark.heavy(90)]
QUESTION = "核心数据库的恢复时间目标是多少？"


def index_examples(server: Server) -> None:
    done = subprocess.run([DROPQA, "index", str(EXAMPLES)], env=server.env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def offline() -> Iterator[Server]:
    with dropqa_server(api__embedded_workers="0") as server:
        index_examples(server)
        yield server


def scripted_reply(body: dict[str, Any]) -> dict[str, Any]:
    """A chat model that rewrites the question into itself and answers citing passage 1."""
    last = str(body["messages"][-1]["content"])
    if body.get("tools"):
        return {"tool_calls": [{"name": "final_answer", "arguments": {
            "answer": "恢复时间目标不超过 45 分钟。", "answerable": True, "confidence": "high", "node_ids": []}}]}
    if "改写" in last or "Rewrite" in last:
        return {"content": QUESTION}
    return {"content": "核心数据库的恢复时间目标（RTO）不超过 45 分钟 [1]。"}


def test_unknown_version_is_a_404_with_the_versions_that_exist(offline: Server) -> None:
    for path, body in (("/api/qa/ask", {"question": QUESTION, "version": 99}),
                       ("/api/qa/stream", {"question": QUESTION, "version": 99}),
                       ("/v1/chat/completions", {"model": "dropqa", "version": 99,
                                                 "messages": [{"role": "user", "content": QUESTION}]}),
                       ("/v1/chat/completions", {"model": "dropqa", "version": 99, "stream": True,
                                                 "messages": [{"role": "user", "content": QUESTION}]})):
        r = offline.post(path, json=body)
        assert r.status_code == 404, (path, r.text)
        error = r.json()["error"]
        assert error["code"] == "version_not_found" and error["params"] == {"version": 99, "versions": [1]}
        assert "no version 99" in error["message"] and "1" in error["message"]
    ok = offline.post("/api/qa/ask", json={"question": QUESTION, "version": 1}).json()
    assert ok["answerable"] and "45" in ok["answer"]
    done = subprocess.run([DROPQA, "ask", QUESTION, "--version", "99"], env=offline.env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 2 and "no version 99" in done.stderr and "version(s): 1" in done.stderr


def test_models_list_and_unknown_model_is_openai_404(offline: Server) -> None:
    import openai

    client = openai.OpenAI(base_url=offline.base + "/v1", api_key="x", max_retries=0)
    assert [m.id for m in client.models.list()] == ["dropqa", "dropqa/default"]
    for model, stream in (("gpt-4o", False), ("gpt-4o", True), ("dropqa/no-such-base", False)):
        with pytest.raises(openai.NotFoundError) as caught:
            client.chat.completions.create(model=model, stream=stream,
                                           messages=[{"role": "user", "content": QUESTION}])
        assert caught.value.code == "model_not_found" and model in str(caught.value)
        assert (caught.value.body or {}).get("param") == "model"  # type: ignore[union-attr]


def test_usage_is_null_when_no_chat_model_ran(offline: Server) -> None:
    import openai

    answer = offline.post("/api/qa/ask", json={"question": QUESTION}).json()
    assert answer["answerable"] and answer["usage"] is None
    client = openai.OpenAI(base_url=offline.base + "/v1", api_key="x", max_retries=0)
    reply = client.chat.completions.create(model="dropqa", messages=[{"role": "user", "content": QUESTION}])
    assert reply.usage is None and "45" in (reply.choices[0].message.content or "")
    with offline.post("/api/qa/stream", json={"question": QUESTION}, stream=True) as r:
        done = [d for e, d in sse_events(r) if e == "done"]
    assert done and done[0]["usage"] is None


def test_usage_has_the_chat_models_real_token_counts() -> None:
    import openai

    with ScriptedOpenAI(scripted_reply) as llm, dropqa_server(
            api__embedded_workers="0", models__chat__model=llm.model, models__chat__base_url=llm.base_url,
            models__chat__api_key="test", models__chat__max_retries="0",
            ingestion__model_enrichment="false") as server:
        index_examples(server)
        before = len(llm.requests)
        client = openai.OpenAI(base_url=server.base + "/v1", api_key="x", max_retries=0)
        reply = client.chat.completions.create(model="dropqa", messages=[{"role": "user", "content": QUESTION}])
        asked = llm.requests[before:]
    assert asked, "the chat model was not called"
    assert reply.usage is not None
    counted = [count_tokens(json.dumps(b["messages"], ensure_ascii=False)) for b in asked]
    # every call the run made counts, a structured-output reply that did not parse included
    assert reply.usage.prompt_tokens == sum(counted)
    assert reply.usage.completion_tokens > 0
    assert reply.usage.total_tokens == reply.usage.prompt_tokens + reply.usage.completion_tokens
