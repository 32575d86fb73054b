"""The HTTP API end to end: a real `dropqa serve` (embedded PostgreSQL, one embedded ingestion
worker) on a random loopback port, driven over HTTP — upload → job stream → ask → sources,
documents, topics, SSE, history and feedback, the OpenAI-compatible endpoint through the real
`openai` client, and MCP over streamable HTTP and stdio through the official `mcp` client.

The tests of this module share one server and run in file order (upload first).
"""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
import requests

from tests.conftest import EXAMPLES
from tests.e2e.api_support import DROPQA, Server, dropqa_server, sse_events, wait_for_jobs

pytestmark = pytest.mark.e2e

STATE_ORDER = ["queued", "parsing", "enriching", "embedding", "done"]
IMAGE_NAME = "../../etc/备份 报告 📷.png"
IMAGE_TEXT = "Quarterly backup drill passed"
RTO_QUESTION = "核心数据库的恢复时间目标是多少？"


def png_with_text() -> bytes:
    from tests.unit.parsers.fonts import render

    buf = io.BytesIO()
    render([(20, 30, IMAGE_TEXT, 36), (20, 90, "Restore time 45 minutes", 36)], (700, 160)).save(buf, "PNG")
    return buf.getvalue()


@pytest.fixture(scope="module")
def server() -> Any:
    with dropqa_server(api__max_upload_files="8", api__job_stream_poll_s="0.2",
                       ingestion__worker_poll_s="0.2") as s:
        yield s


@pytest.fixture(scope="module")
def uploaded(server: Server) -> dict[str, Any]:
    files = [("files", (p.name, p.read_bytes())) for p in sorted(EXAMPLES.iterdir())]
    files.append(("files", (IMAGE_NAME, png_with_text(), "image/png")))
    files.append(("files", ("junk.bin", b"\x00\x01\x02\xff" * 100)))
    r = server.post("/api/documents/upload", files=files)
    assert r.status_code == 200, r.text
    body = r.json()
    job_ids = [d["job_id"] for d in body["documents"] if d["job_id"]]
    events = wait_for_jobs(server, job_ids)
    # the worker clusters the base's topics once its queue runs empty, after the last job's end event: every test
    # of this module starts from the indexed corpus with its topics, whichever of them runs alone
    deadline = time.monotonic() + 60
    while server.get("/api/topics").json()["total"] < 2 and time.monotonic() < deadline:
        time.sleep(0.5)
    return {"upload": body, "events": events}


def by_name(upload: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {d["filename"]: d for d in upload["documents"]}


def test_upload_sanitises_names_detects_types_and_queues_jobs(server: Server, uploaded: dict[str, Any]) -> None:
    body = uploaded["upload"]
    items = by_name(body)
    assert body["success"] is False  # junk.bin was rejected
    assert items["junk.bin"]["status"] == "rejected" and "unsupported" in items["junk.bin"]["error"]
    image = items["备份 报告 📷.png"]  # path parts dropped; Chinese, spaces and emoji kept
    assert image["original_filename"] == IMAGE_NAME and image["file_type"] == "image"
    assert image["status"] == "queued" and image["job_state"] == "queued"
    assert {items[p.name]["file_type"] for p in EXAMPLES.iterdir()} == {"md", "txt"}
    # the bytes went into the database (tests/e2e/test_many_machines.py reads them there), not to the disk
    assert not (server.data_dir / "uploads").exists() and not (server.data_dir / "etc").exists()


def test_job_stream_reports_each_state_in_order(uploaded: dict[str, Any]) -> None:
    events = uploaded["events"]
    assert events[-1][0] == "end" and all(e == "job" for e, _ in events[:-1])
    per_job: dict[str, list[str]] = {}
    for _, job in events[:-1]:
        per_job.setdefault(job["id"], []).append(job["state"])
        assert set(job) >= {"id", "filename", "state", "progress", "outcome", "document_id"}
    assert len(per_job) == 5
    for states in per_job.values():
        ranks = [STATE_ORDER.index(s) for s in states]
        assert ranks == sorted(ranks) and states[-1] == "done", states
    assert any(len(states) > 2 for states in per_job.values())  # progress between queued and done was seen
    done = [job for _, job in events if _ == "job" and job["state"] == "done"]
    assert {j["outcome"] for j in done} == {"indexed"} and all(j["document_id"] for j in done)


def test_ask_cites_the_section_and_returns_an_answer_id(server: Server, uploaded: dict[str, Any]) -> None:
    r = server.post("/api/qa/ask", json={"question": RTO_QUESTION, "show_reasoning": True})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["answerable"] and "45 分钟" in body["answer"] and body["answer_id"]
    top = body["sources"][0]
    assert top["document_name"] == "云栖数据平台运维手册.md" and top["section"].endswith("3.2 恢复演练")
    node = server.get(f"/api/nodes/{top['node_id']}").json()
    assert "RTO" in node["content"] and node["document_id"] == top["document_id"]


def test_same_bytes_under_any_name_are_unchanged(server: Server, uploaded: dict[str, Any]) -> None:
    data = (EXAMPLES / "pricing.md").read_bytes()
    r = server.post("/api/documents/upload", files=[("files", ("copy of pricing.md", data))])
    item = r.json()["documents"][0]
    done = {j["filename"]: j for _, j in uploaded["events"] if _ == "job" and j["state"] == "done"}
    assert item["status"] == "unchanged" and item["job_id"] is None
    assert item["document_id"] == done["pricing.md"]["document_id"]


def test_image_source_bytes(server: Server, uploaded: dict[str, Any]) -> None:
    docs = server.get("/api/documents", params={"type": "image"}).json()["documents"]
    assert [d["filename"] for d in docs] == ["备份 报告 📷.png"]
    sources = server.post("/api/qa/ask", json={"question": "Did the quarterly backup drill pass?"}).json()["sources"]
    nodes = [server.get(f"/api/nodes/{s['node_id']}").json() for s in sources
             if s["document_name"] == docs[0]["filename"]]
    image_id = next(n["image_id"] for n in nodes if n["image_id"])  # the image node itself is a source
    r = server.get(f"/api/images/{image_id}")
    assert r.status_code == 200 and r.headers["content-type"] == "image/png"
    assert r.content.startswith(b"\x89PNG") and r.headers["x-content-type-options"] == "nosniff"
    assert server.get("/api/images/00000000-0000-0000-0000-000000000000").status_code == 404


def test_document_list_filters_and_pages(server: Server, uploaded: dict[str, Any]) -> None:
    page = server.get("/api/documents", params={"limit": 2, "offset": 1}).json()
    assert page["total"] == 5 and len(page["documents"]) == 2 and page["offset"] == 1
    md = server.get("/api/documents", params={"type": "md"}).json()
    assert {d["filename"] for d in md["documents"]} == {"aurora_handbook.md", "pricing.md", "云栖数据平台运维手册.md"}
    assert [d["filename"] for d in server.get("/api/documents", params={"q": "运维"}).json()["documents"]] == [
        "云栖数据平台运维手册.md"]
    doc = md["documents"][0]
    detail = server.get(f"/api/documents/{doc['id']}").json()
    assert detail["structure"][0]["type"] == "document" and detail["versions"][0]["version"] == 1
    # the worker clusters the base's topics once its queue runs empty, after the last job's end event
    deadline = time.monotonic() + 60
    while not detail["topics"] and time.monotonic() < deadline:
        time.sleep(0.5)
        detail = server.get(f"/api/documents/{doc['id']}").json()
    assert detail["topics"], "indexing extracts topics"
    topic_docs = server.get("/api/documents", params={"topic": detail["topics"][0]["id"]}).json()["documents"]
    assert doc["id"] in {d["id"] for d in topic_docs}


def test_reindex_writes_a_new_version(server: Server, uploaded: dict[str, Any]) -> None:
    doc = server.get("/api/documents", params={"q": "pricing"}).json()["documents"][0]
    r = server.post(f"/api/documents/{doc['id']}/reindex")
    assert r.status_code == 202, r.text
    events = wait_for_jobs(server, [r.json()["job_id"]])
    assert events[-2][1]["state"] == "done" and events[-2][1]["outcome"] == "new_version"
    versions = server.get(f"/api/documents/{doc['id']}/versions").json()
    assert [v["version"] for v in versions] == [1, 2] and versions[0]["file_hash"] == versions[1]["file_hash"]
    assert server.post("/api/documents/00000000-0000-0000-0000-000000000000/reindex").status_code == 404


def test_delete_removes_from_answers_and_keeps_history(server: Server, uploaded: dict[str, Any]) -> None:
    question = "How many days of annual leave do full-time employees get?"
    before = server.post("/api/qa/ask", json={"question": question}).json()
    assert "27 days" in before["answer"]
    doc_id = before["sources"][0]["document_id"]
    r = server.delete(f"/api/documents/{doc_id}")
    assert r.status_code == 200 and r.json() == {"id": doc_id, "deleted": True}
    after = server.post("/api/qa/ask", json={"question": question}).json()
    assert doc_id not in {s["document_id"] for s in after["sources"]}
    listed = server.get("/api/documents").json()["documents"]
    assert doc_id not in {d["id"] for d in listed}
    kept = server.get("/api/documents", params={"include_deleted": True}).json()["documents"]
    assert next(d for d in kept if d["id"] == doc_id)["deleted"] is True
    assert server.get(f"/api/documents/{doc_id}/versions").json()[0]["version"] == 1
    history = server.get("/api/qa/history", params={"limit": 5}).json()
    assert before["answer_id"] in {h["id"] for h in history}


def test_topics_list_detail_documents_and_merge(server: Server, uploaded: dict[str, Any]) -> None:
    topics = server.get("/api/topics", params={"limit": 200}).json()
    assert topics["total"] >= 2 and topics["topics"][0]["document_count"] >= 1
    first, second = topics["topics"][0], topics["topics"][1]
    detail = server.get(f"/api/topics/{first['id']}").json()
    assert detail["name"] == first["name"] and len(detail["documents"]) == first["document_count"]
    docs = server.get(f"/api/topics/{second['id']}/documents").json()["documents"]
    assert len(docs) == second["document_count"]

    r = server.post("/api/topics/merge", json={"source_ids": [second["id"]], "target_id": first["id"],
                                               "name": f"{first['name']} / {second['name']}"})
    assert r.status_code == 200, r.text
    merged = r.json()["topic"]
    expected = {d["id"] for d in detail["documents"]} | {d["id"] for d in docs}
    assert {d["id"] for d in merged["documents"]} == expected and second["name"] in merged["merged_names"]
    assert server.get(f"/api/topics/{second['id']}").json()["id"] == first["id"]  # follows the merge
    names = {t["name"] for t in server.get("/api/topics", params={"limit": 1000}).json()["topics"]}
    assert second["name"] not in names and merged["name"] in names
    bad = server.post("/api/topics/merge", json={"source_ids": [first["id"]], "target_id": first["id"]})
    assert bad.status_code == 409 and bad.json()["error"]["code"] == "conflict"
    unknown = server.post("/api/topics/merge", json={"source_ids": ["00000000-0000-0000-0000-000000000000"],
                                                     "target_id": first["id"]})
    assert unknown.status_code == 404


def test_summarize_a_document_and_a_topic(server: Server, uploaded: dict[str, Any]) -> None:
    doc = server.get("/api/documents", params={"q": "运维"}).json()["documents"][0]
    s = server.post("/api/qa/summarize", json={"document_id": doc["id"]}).json()
    assert s["scope"] == "document" and s["mode"] == "extractive" and len(s["sources"]) >= 2
    assert "[1]" in s["summary"] and any(src["section"].endswith("备份与恢复") for src in s["sources"])
    topic = server.get("/api/topics").json()["topics"][0]
    t = server.post("/api/qa/summarize", json={"topic_id": topic["id"]}).json()
    assert t["scope"] == "topic" and topic["name"] in t["summary"] and t["sources"]
    both = server.post("/api/qa/summarize", json={"document_id": doc["id"], "topic_id": topic["id"]})
    assert both.status_code == 422 and both.json()["error"]["code"] == "invalid_request"
    missing = server.post("/api/qa/summarize", json={"document_id": "00000000-0000-0000-0000-000000000000"})
    assert missing.status_code == 404


def stream(server: Server, body: dict[str, Any]) -> list[tuple[str, Any]]:
    with requests.post(server.base + "/api/qa/stream", json=body, stream=True, timeout=60) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        return list(sse_events(r))


def test_qa_stream_event_order_and_terminal_done(server: Server, uploaded: dict[str, Any]) -> None:
    events = stream(server, {"question": RTO_QUESTION, "show_reasoning": True, "thread_id": "t-stream"})
    names = [e for e, _ in events]
    assert names[0] == "status" and names[-1] == "done" and names.count("done") == 1 and "error" not in names
    assert {"retrieval", "reasoning", "token", "citation"} <= set(names)
    assert names.index("retrieval") < names.index("token")
    last_token = max(i for i, n in enumerate(names) if n == "token")
    assert last_token < names.index("citation")  # citations come after the text they number
    done = events[-1][1]
    assert "".join(d["text"] for e, d in events if e == "token") == done["answer"]
    assert done["answer_id"] and done["thread_id"] in (None, "t-stream")
    cited = [d["node_id"] for e, d in events if e == "citation"]
    assert cited == [s["node_id"] for s in done["sources"] if s["cited"]]
    history = server.get("/api/qa/history", params={"thread_id": "t-stream"}).json()
    assert [h["id"] for h in history] == [done["answer_id"]]


def test_qa_stream_failure_ends_with_one_error_event(server: Server) -> None:
    events = stream(server, {"question": "   "})  # passes the schema, fails inside the run
    assert events[-1][0] == "error" and [e for e, _ in events].count("error") == 1
    assert events[-1][1] == {"code": "bad_request", "message": "the question is empty"}
    assert "done" not in [e for e, _ in events]


def test_history_and_feedback(server: Server, uploaded: dict[str, Any]) -> None:
    answer = server.post("/api/qa/ask", json={"question": RTO_QUESTION, "thread_id": "t-feedback"}).json()
    r = server.post("/api/qa/feedback", json={"answer_id": answer["answer_id"], "rating": "down",
                                              "comment": "太简略 — too short"})
    assert r.status_code == 200 and r.json()["feedback"]["rating"] == "down"
    server.post("/api/qa/feedback", json={"answer_id": answer["answer_id"], "rating": "up", "comment": "ok"})
    item = server.get("/api/qa/history", params={"thread_id": "t-feedback"}).json()[0]
    assert item["question"] == RTO_QUESTION and item["feedback"]["rating"] == "up"
    assert item["feedback"]["comment"] == "ok" and item["response"]["sources"]
    missing = server.post("/api/qa/feedback", json={"answer_id": "00000000-0000-0000-0000-000000000000",
                                                    "rating": "up"})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    assert server.post("/api/qa/feedback", json={"answer_id": answer["answer_id"], "rating": "meh"}).status_code == 422


def test_jobs_list_get_and_cancel(server: Server, uploaded: dict[str, Any]) -> None:
    done = server.get("/api/jobs", params={"state": "done"}).json()
    assert done["total"] >= 5 and all(j["state"] == "done" for j in done["jobs"])
    job = server.get(f"/api/jobs/{done['jobs'][0]['id']}").json()
    assert job["id"] == done["jobs"][0]["id"]
    finished = server.post(f"/api/jobs/{job['id']}/cancel")
    assert finished.status_code == 409 and finished.json()["error"]["code"] == "conflict"
    fresh = server.post("/api/documents/upload", files=[("files", ("later.md", b"# Later\n\nSome new words.\n"))])
    job_id = fresh.json()["documents"][0]["job_id"]
    cancelled = server.post(f"/api/jobs/{job_id}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["state"] == "cancelled"
    events = wait_for_jobs(server, [job_id])
    assert events[-2][1]["state"] == "cancelled"
    assert server.get("/api/jobs/00000000-0000-0000-0000-000000000000").status_code == 404


def test_limits_and_json_errors(server: Server) -> None:
    nine = [("files", (f"f{i}.md", b"# x\n\ny\n")) for i in range(9)]
    r = server.post("/api/documents/upload", files=nine)
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
    big = server.post("/api/qa/ask", data=json.dumps({"question": "x" * 3_000_000}),
                      headers={"Content-Type": "application/json"})
    assert big.status_code == 413 and big.json()["error"]["code"] == "too_large"
    chunked = server.post("/api/qa/ask", data=iter([b'{"question": "', b"x" * 3_000_000, b'"}']),
                          headers={"Content-Type": "application/json"})  # no Content-Length: counted as read
    assert chunked.status_code == 413 and chunked.json()["error"]["code"] == "too_large"
    for r in (server.get("/api/documents/not-a-uuid"), server.get("/api/documents", params={"limit": 0}),
              server.post("/api/qa/ask", json={"question": ""})):
        assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"
    health = requests.get(server.base + "/api/health", timeout=10).json()
    assert health["database"]["ok"] and health["queue"]["embedded_workers"] == 1
    assert health["queue"]["depth"] == 0 and health["models"]["offline"] is True


def test_openai_client_plain_and_streaming(server: Server, uploaded: dict[str, Any]) -> None:
    from openai import OpenAI

    client = OpenAI(base_url=server.base + "/v1", api_key="unused-on-loopback", max_retries=0)
    assert [m.id for m in client.models.list()] == ["dropqa", "dropqa/default"]
    messages = [{"role": "system", "content": "Answer from the documents."},
                {"role": "user", "content": "hello"}, {"role": "assistant", "content": "Hi!"},
                {"role": "user", "content": RTO_QUESTION}]
    reply = client.chat.completions.create(model="dropqa", messages=messages)  # type: ignore[arg-type]
    text = reply.choices[0].message.content or ""
    assert "45 分钟" in text and "\n\nSources:\n[1] 云栖数据平台运维手册.md > " in text
    citations = (reply.model_extra or {})["citations"]
    assert citations[0]["document_name"] == "云栖数据平台运维手册.md" and reply.choices[0].finish_reason == "stop"

    chunks = list(client.chat.completions.create(model="dropqa", messages=messages, stream=True,  # type: ignore[arg-type]
                                                 extra_body={"thread_id": "t-openai"}))
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert streamed == text
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop" and (last.model_extra or {})["citations"] == citations
    assert server.get("/api/qa/history", params={"thread_id": "t-openai"}).json()


def test_openai_errors_reach_the_client(server: Server) -> None:
    import openai

    client = openai.OpenAI(base_url=server.base + "/v1", api_key="x", max_retries=0)
    with pytest.raises(openai.BadRequestError, match="no user message"):
        client.chat.completions.create(model="dropqa", messages=[{"role": "system", "content": "hi"}])
    with pytest.raises(openai.BadRequestError, match="no user message"):  # before the stream starts
        client.chat.completions.create(model="dropqa", stream=True, messages=[{"role": "user", "content": "  "}])


async def _mcp_session(client: Any) -> dict[str, Any]:
    async with client as c:
        tools = sorted(t.name for t in (await c.list_tools()).tools)
        search = await c.call_tool("keyword_search", {"pattern": "45 分钟"})
        ask = await c.call_tool("ask", {"question": RTO_QUESTION})
        missing = await c.call_tool("get_node_content", {"node_id": "not-a-node"})
        return {"tools": tools, "search": search, "ask": ask, "missing": missing}


def check_mcp(result: dict[str, Any]) -> None:
    assert result["tools"] == ["ask", "fulltext_search", "get_document_structure", "get_node_content",
                               "keyword_search", "semantic_search"]
    hits = result["search"].structured_content["hits"]
    assert not result["search"].is_error and hits[0]["document_name"] == "云栖数据平台运维手册.md"
    answer = result["ask"].structured_content
    assert "45 分钟" in answer["answer"] and answer["sources"][0]["section"].endswith("3.2 恢复演练")
    assert result["missing"].is_error and "no node with id" in result["missing"].content[0].text


def test_mcp_over_streamable_http(server: Server, uploaded: dict[str, Any]) -> None:
    from mcp import Client

    check_mcp(anyio.run(_mcp_session, Client(server.base + "/mcp")))


def test_mcp_over_stdio(server: Server, uploaded: dict[str, Any]) -> None:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=DROPQA, args=["mcp"], env=server.env, cwd=str(Path.cwd()))
    check_mcp(anyio.run(_mcp_session, Client(params)))
