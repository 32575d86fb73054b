"""Auth on: a server started with DROPQA_API_TOKEN checks the bearer token on every route but
health and the web page — the REST API, /v1 (through the real `openai` client) and /mcp.
(Auth off — loopback without a token — is what the other API tests run against; refusing a
non-loopback bind without a token is tested in test_cli_and_http.)"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
import requests

from tests.e2e.api_support import Server, dropqa_server

pytestmark = pytest.mark.e2e
TOKEN = "s3cret-token"


@pytest.fixture(scope="module")
def server() -> Any:
    with dropqa_server(api_token=TOKEN, api__embedded_workers="0") as s:
        yield s


ROUTES = [("GET", "/api/documents"), ("GET", "/api/jobs"), ("GET", "/api/jobs/stream"), ("GET", "/api/topics"),
          ("GET", "/api/qa/history"), ("POST", "/api/qa/ask"), ("POST", "/api/qa/stream"),
          ("GET", "/api/images/00000000-0000-0000-0000-000000000000"), ("GET", "/v1/models"),
          ("POST", "/v1/chat/completions"), ("POST", "/api/documents/upload"), ("POST", "/mcp")]


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"}])
def test_every_route_but_health_needs_the_token(server: Server, headers: dict[str, str]) -> None:
    for method, path in ROUTES:
        r = requests.request(method, server.base + path, headers=headers, json={}, timeout=60)
        assert r.status_code == 401, (method, path, r.status_code)
        assert r.json()["error"]["code"] == "unauthorized" and r.headers["www-authenticate"] == "Bearer"
    health = requests.get(server.base + "/api/health", headers=headers, timeout=60)
    assert health.status_code == 200 and health.json()["queue"]["embedded_workers"] == 0
    page = requests.get(server.base + "/", headers=headers, timeout=60)
    assert page.status_code in (200, 404)  # the web page's static files need no token (when installed)


def test_the_token_opens_every_route(server: Server) -> None:
    assert server.get("/api/documents").json()["total"] == 0
    r = server.post("/api/qa/ask", json={"question": "What is the refund policy?"})
    assert r.status_code == 200 and r.json()["answerable"] is False  # nothing indexed: an honest "not found"
    r = server.post("/api/documents/upload", files=[("files", ("a.md", b"# A\n\nAlpha words.\n"))])
    assert r.status_code == 200 and r.json()["documents"][0]["status"] == "queued"


def test_openai_client_with_the_token_as_api_key(server: Server) -> None:
    import openai

    good = openai.OpenAI(base_url=server.base + "/v1", api_key=TOKEN, max_retries=0)
    assert [m.id for m in good.models.list()] == ["dropqa", "dropqa/default"]  # the token is an admin key
    bad = openai.OpenAI(base_url=server.base + "/v1", api_key="nope", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        bad.models.list()


def test_mcp_with_and_without_the_token(server: Server) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.exceptions import MCPError

    async def tools(headers: dict[str, str]) -> list[str]:
        async with (httpx2.AsyncClient(headers=headers, timeout=30) as http,
                    Client(streamable_http_client(server.base + "/mcp", http_client=http)) as c):
            return [t.name for t in (await c.list_tools()).tools]

    assert "ask" in anyio.run(tools, {"Authorization": f"Bearer {TOKEN}"})
    with pytest.raises(ExceptionGroup) as refused:  # the SDK reports the 401 as an MCPError in its task group
        anyio.run(tools, {})
    assert refused.group_contains(MCPError)
