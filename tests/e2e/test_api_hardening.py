"""The holes a probe of the running service found, each tried against a real `dropqa serve`:
over-long input on every entry point, the Host allow-list, the token before the body, bounded load
(429 with Retry-After), the ingestion queue bound, and a wildcard bind without a token."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
import requests

from tests.e2e.api_support import DROPQA, Server, dropqa_env, dropqa_server, sse_events

pytestmark = [pytest.mark.e2e, pytest.mark.heavy(50)]
TOKEN = "hardening-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
MEGABYTE = "why is that? " * 80_000  # ~1 MB, under the body limit


@pytest.fixture(scope="module")
def server() -> Any:
    with dropqa_server(api_token=TOKEN, api__embedded_workers="0", api__max_concurrent_runs="1",
                       api__max_waiting_runs="0", api__max_queued_jobs="2") as s:
        yield s


def mcp_calls(server: Server, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def run() -> list[Any]:
        async with (httpx2.AsyncClient(headers=AUTH, timeout=60) as http,
                    Client(streamable_http_client(server.base + "/mcp", http_client=http)) as c):
            return [await c.call_tool(name, args) for name, args in calls]

    return anyio.run(run)


def test_a_megabyte_question_is_refused_on_every_entry_point(server: Server) -> None:
    for path in ("/api/qa/ask", "/api/qa/stream"):
        r = server.post(path, json={"question": MEGABYTE})
        assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request", path
    r = server.post("/v1/chat/completions", json={"model": "dropqa", "messages": [{"role": "user",
                                                                                  "content": MEGABYTE}]})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"  # refused, not cut to fit
    [result] = mcp_calls(server, [("ask", {"question": MEGABYTE})])
    assert result.is_error and "at most 4000 characters" in result.content[0].text
    # the CLI (one argument is at most 128 KB on Linux: a 100 KB question)
    cli = subprocess.run([DROPQA, "ask", "x" * 100_000], env=server.env, capture_output=True, text=True, timeout=60)
    assert cli.returncode == 2 and "at most 4000 characters" in cli.stderr


def test_mcp_holds_to_the_rest_limits_and_answers_bad_numbers_cleanly(server: Server) -> None:
    results = mcp_calls(server, [
        ("ask", {"question": "What is the refund policy?", "version": -1}),
        ("ask", {"question": "What is the refund policy?", "thread_id": "t" * 10_000}),
        ("ask", {"question": "What is the refund policy?", "version": 10**30}),
        ("keyword_search", {"pattern": "refund", "version": 10**30}),
        ("get_document_structure", {"document": "x", "version": 10**12}),
    ])
    for result in results:
        assert result.is_error and "invalid arguments" in result.content[0].text, result.content
    log = (server.data_dir / "server.log").read_text(errors="replace")
    assert "Traceback" not in log


def test_the_token_is_checked_before_the_body_is_parsed(server: Server) -> None:
    for path in ("/api/qa/ask", "/v1/chat/completions", "/api/topics/merge"):
        r = requests.post(server.base + path, data=b"{not json", headers={"Content-Type": "application/json"},
                          timeout=60)
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized", path


def test_only_allowed_host_names_are_answered(server: Server) -> None:
    for path in ("/api/health", "/api/documents", "/v1/models", "/", "/static/js/app.js"):
        r = requests.get(server.base + path, headers={**AUTH, "Host": "rebound.example:8000"}, timeout=60)
        assert r.status_code == 421 and r.json()["error"]["code"] == "misdirected_request", path
    r = requests.post(server.base + "/mcp", headers={**AUTH, "Host": "rebound.example"}, json={}, timeout=60)
    assert r.status_code == 421
    port = server.base.rsplit(":", 1)[1]
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", "LOCALHOST"):
        assert requests.get(server.base + "/api/documents", headers={**AUTH, "Host": host}, timeout=60).ok, host


def test_questions_beyond_the_run_slots_get_429_with_retry_after(server: Server) -> None:
    question = "What does the backup and recovery chapter say about restore drills? " * 50
    statuses: list[tuple[int, dict[str, Any], str | None]] = []

    def client() -> None:
        r = server.post("/api/qa/ask", json={"question": question[:3900]}, timeout=120)
        statuses.append((r.status_code, r.json(), r.headers.get("retry-after")))

    threads = [threading.Thread(target=client) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(180)
    codes = [s for s, _, _ in statuses]
    assert len(codes) == 12 and set(codes) <= {200, 429} and 200 in codes and 429 in codes, codes
    for status, body, retry_after in statuses:
        if status == 429:
            assert body["error"]["code"] == "too_many_requests" and retry_after and int(retry_after) >= 1
    load = server.get("/api/health").json()["load"]
    assert load["max_running"] == 1 and load["refused"] >= codes.count(429) and load["running"] == 0


def test_a_stream_beyond_the_run_slots_is_refused_before_it_starts(server: Server) -> None:
    refused: list[int] = []
    done: list[str] = []

    def streamer() -> None:
        with requests.post(server.base + "/api/qa/stream", json={"question": "What is the refund policy? " * 100},
                           headers=AUTH, stream=True, timeout=120) as r:
            if r.status_code == 429:
                assert r.headers["retry-after"] and r.json()["error"]["code"] == "too_many_requests"
                refused.append(r.status_code)
                return
            events = list(sse_events(r))
            done.append(events[-1][0])
            assert events[-1][0] == "done" or events[-1][1]["code"] == "too_many_requests"

    threads = [threading.Thread(target=streamer) for _ in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(180)
    assert len(refused) + len(done) == 10 and refused and "done" in done


def test_uploads_beyond_the_ingestion_queue_depth_get_429(server: Server) -> None:
    files = [("files", (f"q{i}.md", f"# Q{i}\n\nQueue depth test {i}.\n".encode())) for i in range(3)]
    r = server.post("/api/documents/upload", files=files)
    assert r.status_code == 429 and r.headers["retry-after"] and r.json()["error"]["code"] == "too_many_requests"
    assert server.get("/api/jobs").json()["total"] == 0  # nothing was queued
    r = server.post("/api/documents/upload", files=files[:2])
    assert r.status_code == 200 and [d["status"] for d in r.json()["documents"]] == ["queued", "queued"]
    r = server.post("/api/documents/upload", files=files[2:])
    assert r.status_code == 429  # two unfinished jobs (no worker runs here): the queue is full


def test_an_empty_host_or_a_blank_token_is_refused_at_start(tmp_path: Path) -> None:
    """Issue 23: `--host ""` used to start on 127.0.0.1 and a whitespace token to start and answer 401 to
    everything; both are refused before anything starts, saying what to do. A wildcard needs a token."""

    def start(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([DROPQA, *args, "--port", "1"], env=dropqa_env(tmp_path, **env), capture_output=True,
                              text=True, timeout=60)

    for args in (["serve", "--host", ""], ["serve", "--host", "  "], ["run", "--host", ""]):
        proc = start(*args)
        assert proc.returncode == 2 and "the address to listen on is empty" in proc.stderr, (args, proc.stderr)
        assert "127.0.0.1" in proc.stderr and "0.0.0.0" in proc.stderr
    proc = start("serve", DROPQA_API__HOST=" ")
    assert proc.returncode == 2 and "DROPQA_API__HOST" in proc.stderr and "empty" in proc.stderr, proc.stderr
    for token in (" ", "\t", " secret", "secret\n"):
        proc = start("serve", "--host", "0.0.0.0", DROPQA_API_TOKEN=token)
        assert proc.returncode == 2 and "DROPQA_API_TOKEN" in proc.stderr, (token, proc.stderr)
        assert ("blank" if not token.strip() else "spaces") in proc.stderr, (token, proc.stderr)
    for args in (["serve", "--host", "0.0.0.0"], ["serve", "--host", "::"]):
        proc = start(*args)
        assert proc.returncode == 2 and "without a token" in proc.stderr, (args, proc.stderr)
    assert not (tmp_path / "pg").exists()  # refused before any database was started


def _string_like(schema: dict[str, Any], components: dict[str, Any]) -> str | None:
    """'str' for a string schema, 'list' for an array of strings, else None (refs and anyOf followed; a file
    part of a form is no string)."""
    if "contentMediaType" in schema or schema.get("format") == "binary":
        return None
    if "$ref" in schema:
        return _string_like(components[schema["$ref"].rsplit("/", 1)[1]], components)
    for option in schema.get("anyOf", []):
        kind = _string_like(option, components)
        if kind:
            return kind
    if schema.get("type") == "string":
        return "str"
    if schema.get("type") == "array" and _string_like(schema.get("items", {}), components) == "str":
        return "list"
    return None


def test_text_the_database_refuses_is_a_422_naming_the_field_on_every_route(server: Server) -> None:
    """Issue 23: `?type=%00` reached PostgreSQL and came back as its message. Every string query, path and
    JSON body field of every route in the OpenAPI schema now gets a 422 naming it, before any work."""
    schema = server.get("/openapi.json").json()
    components = schema["components"]["schemas"]
    bad, tried = "a\x00b", []
    for path, operations in schema["paths"].items():
        for method, op in operations.items():
            params = op.get("parameters", [])
            fill = {p["name"]: "00000000-0000-0000-0000-000000000000" for p in params if p["in"] == "path"}
            for p in params:
                kind = _string_like(p["schema"], components)
                if p["in"] not in ("query", "path") or kind is None:
                    continue
                url = path.format(**{**fill, **({p["name"]: "a%00b"} if p["in"] == "path" else {})})
                query = {p["name"]: [bad] if kind == "list" else bad} if p["in"] == "query" else {}
                r = server.request(method.upper(), url, params=query)
                tried.append((method, path, p["name"]))
                assert r.status_code == 422, (method, path, p["name"], r.status_code, r.text)
                assert r.json()["error"]["details"][0]["loc"] == [p["in"], p["name"]], r.text
            content = op.get("requestBody", {}).get("content", {})
            body = content.get("application/json") or content.get("multipart/form-data")
            if body is None:
                continue
            form = "application/json" not in content  # an upload's fields (issue 25's `kb`): the same rule
            model = components[body["schema"]["$ref"].rsplit("/", 1)[1]]
            files = [(name, ("edge.md", b"# Edge\n\nnothing\n")) for name, prop in model["properties"].items()
                     if form and name in model.get("required", []) and _string_like(prop, components) is None]
            for name, prop in model["properties"].items():
                kind = _string_like(prop, components)
                if kind is None:
                    continue
                value = [bad] if kind == "list" else bad
                r = (server.request(method.upper(), path.format(**fill), data={name: value}, files=files) if form
                     else server.request(method.upper(), path.format(**fill), json={name: value}))
                tried.append((method, path, name))
                loc = ["body", name, 0] if kind == "list" and not form else ["body", name]
                assert r.status_code == 422 and r.json()["error"]["details"][0]["loc"] == loc, (path, name, r.text)
                assert ".".join(map(str, loc)) in r.json()["error"]["message"]
    assert len(tried) >= 15 and ("get", "/api/documents", "type") in tried, tried
    assert ("post", "/api/documents/upload", "kb") in tried and ("post", "/api/keys", "name") in tried, tried
    nested = server.post("/v1/chat/completions", json={"messages": [{"role": "user", "content": "hi\ud800"}]})
    assert nested.status_code == 422 and nested.json()["error"]["details"][0]["loc"] == [
        "body", "messages", 0, "content"], nested.text
    [result] = mcp_calls(server, [("keyword_search", {"pattern": "a\x00b"})])
    assert result.is_error and "pattern: NUL characters" in result.content[0].text, result.content
    [result] = mcp_calls(server, [("keyword_search", {"pattern": "ab", "kb": ["a\x00b"]})])  # issue 25's argument
    assert result.is_error and "kb.0: NUL characters" in result.content[0].text, result.content
