"""Who may read what: every route × {no key, reader A, editor A, admin, revoked, reader B}, over REST, SSE,
``/v1`` and MCP, against a real ``dropqa serve`` holding two knowledge bases.

Base A (``alpha``) holds the example corpus; base B (``beta``) holds a secret plan with a marker string, an
image and spare documents. Each route is asked with no base, and — when it takes an id or a base — with
an id (or the name) of A and of B. Expected: 401 without a live key; 403 below the route's role (looked
at before anything else); 404 for every id and name of a base the key may not read (never 403: nothing
says what exists); otherwise the route's own success. And nothing of B — its document names, the
marker planted in its text — is in any response body given to A's keys (or to no key, or a revoked one).
``test_every_route_is_in_the_matrix`` fails when a route is added without a row here.
"""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest
import requests

from tests.conftest import EXAMPLES
from tests.e2e.api_support import DROPQA, Server, dropqa_env, dropqa_server, fresh_data_dir, sse_events

pytestmark = [pytest.mark.e2e, pytest.mark.heavy(120)]

MARKER = "QUOKKA-7731"
SECRET = f"""# Beta secret plan

## Budget

The secret budget plan of beta has the code name {MARKER}; its budget is 4.2 million yuan.

## Schedule

The beta dive trials start in March.
"""
B_NAMES = ["beta_secret_plan.md", "beta_figure.png", "beta_spare.md", "beta_upload"]
QUESTION = "What is the code name of the secret budget plan?"
KEYS = ["none", "reader_a", "editor_a", "admin", "revoked", "reader_b"]
A_SIDE = {"none", "reader_a", "editor_a", "revoked"}  # must never see anything of B
ROLE = {"reader_a": "reader", "editor_a": "editor", "admin": "admin", "reader_b": "reader"}
RANK = {"reader": 0, "editor": 1, "admin": 2}
SEES = {"reader_a": {"A"}, "editor_a": {"A"}, "admin": {"A", "B"}, "reader_b": {"B"}}
BASE = {"A": "alpha", "B": "beta"}


def png_with_text(lines: list[str]) -> bytes:
    import io

    from tests.unit.parsers.fonts import render

    buf = io.BytesIO()
    render([(20, 30 + 60 * i, line, 36) for i, line in enumerate(lines)], (760, 60 * len(lines) + 40)).save(buf, "PNG")
    return buf.getvalue()


@dataclass
class World:
    server: Server
    keys: dict[str, str | None]
    ids: dict[str, dict[str, str]] = field(default_factory=lambda: {"A": {}, "B": {}})
    spares: dict[tuple[str, str], str] = field(default_factory=dict)  # (base, key) → a document it may delete
    serial: int = 0

    def headers(self, key: str) -> dict[str, str]:
        secret = self.keys.get(key)
        return {"Authorization": f"Bearer {secret}"} if secret else {}

    def call(self, key: str, method: str, path: str, **kw: Any) -> requests.Response:
        return requests.request(method, self.server.base + path, headers={**self.headers(key), **kw.pop("headers", {})},
                                timeout=kw.pop("timeout", 120), **kw)

    def fresh(self, stem: str) -> str:
        self.serial += 1
        return f"{stem}-{self.serial}"


def cli(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([DROPQA, *args], env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    data = fresh_data_dir("dropqa-matrix-")
    env = dropqa_env(data)
    files = tmp_path_factory.mktemp("files")
    alpha, beta, spares = files / "alpha", files / "beta", files / "spares"
    for d in (alpha, beta, spares):
        d.mkdir()
    for f in EXAMPLES.iterdir():
        (alpha / f.name).write_bytes(f.read_bytes())
    (beta / "beta_secret_plan.md").write_text(SECRET, encoding="utf-8")
    (beta / "beta_figure.png").write_bytes(png_with_text(["Beta dive budget figure", "Trials start in March"]))
    (beta / "beta_spare.md").write_text("# Spare\n\nA spare page of the beta base about sonar buoys.\n",
                                        encoding="utf-8")
    for i in (1, 2):
        (spares / f"alpha_spare_{i}.md").write_text(f"# Spare {i}\n\nA spare page about anchors, number {i}.\n",
                                                    encoding="utf-8")
    cli(env, "kb", "create", "alpha")
    cli(env, "kb", "create", "beta")
    cli(env, "index", "--kb", "alpha", str(alpha), str(spares))
    cli(env, "index", "--kb", "beta", str(beta))
    keys: dict[str, str | None] = {"none": None}
    for name, extra in (("reader_a", ["--kb", "alpha", "--role", "reader"]),
                        ("editor_a", ["--kb", "alpha", "--role", "editor"]),
                        ("admin", ["--role", "admin"]), ("revoked", ["--kb", "alpha", "--role", "reader"]),
                        ("reader_b", ["--kb", "beta", "--role", "reader"])):
        keys[name] = json.loads(cli(env, "keys", "create", "--name", name, *extra, "--json"))["key"]
    cli(env, "keys", "revoke", "revoked")
    with dropqa_server(data, api__job_stream_poll_s="0.2", ingestion__worker_poll_s="0.2") as server:
        w = World(server, keys)
        _find_ids(w)
        yield w


def _find_ids(w: World) -> None:
    for side in ("A", "B"):
        docs = w.call("admin", "GET", "/api/documents", params={"kb": BASE[side]}).json()["documents"]
        by_name = {d["filename"]: d["id"] for d in docs}
        w.ids[side]["doc"] = by_name["云栖数据平台运维手册.md" if side == "A" else "beta_secret_plan.md"]
        topics = w.call("admin", "GET", "/api/topics", params={"kb": BASE[side]}).json()["topics"]
        assert topics, f"base {side} has no topics"
        w.ids[side]["topic"] = topics[0]["id"]
        if side == "A":
            w.spares[("A", "editor_a")] = by_name["alpha_spare_1.md"]
            w.spares[("A", "admin")] = by_name["alpha_spare_2.md"]
        else:
            w.spares[("B", "admin")] = by_name["beta_spare.md"]
            w.ids["B"]["image_doc"] = by_name["beta_figure.png"]
    a = w.call("reader_a", "POST", "/api/qa/ask", json={"question": "核心数据库的恢复时间目标是多少？"}).json()
    w.ids["A"]["answer"], w.ids["A"]["node"] = a["answer_id"], a["sources"][0]["node_id"]
    b = w.call("reader_b", "POST", "/api/qa/ask", json={"question": QUESTION, "thread_id": "t-shared"}).json()
    assert MARKER in b["answer"], b["answer"]  # the question does find B's secret, for those who may read it
    w.ids["B"]["answer"] = b["answer_id"]
    w.ids["B"]["node"] = next(s["node_id"] for s in b["sources"] if s["document_name"] == "beta_secret_plan.md")
    figure = w.call("reader_b", "POST", "/api/qa/ask", json={"question": "When do the dive trials start?"}).json()
    nodes = [w.call("reader_b", "GET", f"/api/nodes/{s['node_id']}").json() for s in figure["sources"]
             if s["document_name"] == "beta_figure.png"]
    w.ids["B"]["image"] = next(n["image_id"] for n in nodes if n.get("image_id"))
    for side, key in (("A", "editor_a"), ("B", "admin")):  # a job of each base
        up = w.call(key, "POST", "/api/documents/upload", data={"kb": BASE[side]},
                    files=[("files", (f"{side.lower()}_job.md", f"# Job\n\nA job of base {side}.\n".encode()))])
        w.ids[side]["job"] = up.json()["documents"][0]["job_id"]
    _wait(w, [w.ids["A"]["job"], w.ids["B"]["job"]])


def _wait(w: World, job_ids: list[str]) -> None:
    with requests.get(w.server.base + "/api/jobs/stream", params=[("ids", j) for j in job_ids], stream=True,
                      headers=w.headers("admin"), timeout=180) as r:
        for event, _ in sse_events(r):
            if event == "end":
                return
    raise AssertionError("the jobs did not finish")


# ---- the routes --------------------------------------------------------------------------------------

Make = Callable[[World, str | None, str], tuple[str, dict[str, Any]]]  # (world, target base, key) → path, kwargs


@dataclass(frozen=True)
class Route:
    method: str
    template: str  # as the OpenAPI document names it
    make: Make
    need: str = "reader"
    targets: tuple[str | None, ...] = (None,)  # "A"/"B": the request names that base's id or name
    ok: frozenset[int] = frozenset({200})
    open: bool = False  # needs no key (health)


def plain(path: str, **kw: Any) -> Make:
    return lambda w, side, key: (path, dict(kw))


def by_id(path: str, kind: str, **kw: Any) -> Make:
    return lambda w, side, key: (path.format(id=w.ids[side][kind]), dict(kw))


def named(kw_of: Callable[[World, str | None, str], dict[str, Any]], path: str) -> Make:
    return lambda w, side, key: (path, kw_of(w, side, key))


def spare(w: World, side: str, key: str) -> str:
    """A document this key may delete (so the main ones stay), or the main one when it may not."""
    return w.spares.pop((side, key), None) or w.ids[side]["doc"]


def upload(w: World, side: str | None, key: str) -> dict[str, Any]:
    name = f"{'beta_upload' if side == 'B' else 'alpha_upload'}-{uuid.uuid4().hex[:6]}.md"
    form = {"kb": BASE[side]} if side else {}
    return {"data": form, "files": [("files", (name, f"# Upload\n\n{name} holds nothing else.\n".encode()))]}


def ask_body(w: World, side: str | None, key: str) -> dict[str, Any]:
    return {"json": {"question": QUESTION, **({"kb": BASE[side]} if side else {})}}


def chat(stream: bool = False) -> Make:
    """``model`` is ``dropqa`` (every base the key may read) or ``dropqa/<base>``."""

    def make(w: World, side: str | None, key: str) -> tuple[str, dict[str, Any]]:
        model = "dropqa" if side is None else f"dropqa/{BASE[side]}"
        return "/v1/chat/completions", {"json": {"model": model, "stream": stream,
                                                 "messages": [{"role": "user", "content": QUESTION}]}}
    return make


def kb_admin(action: str) -> Make:
    def make(w: World, side: str | None, key: str) -> tuple[str, dict[str, Any]]:
        name = w.fresh("scratch")
        if key == "admin":  # a base of its own to rename or delete
            w.call("admin", "POST", "/api/kbs", json={"name": name})
        if action == "rename":
            return f"/api/kbs/{name}", {"json": {"name": name + "-renamed"}}
        return f"/api/kbs/{name}", {}
    return make


def key_admin(action: str) -> Make:
    def make(w: World, side: str | None, key: str) -> tuple[str, dict[str, Any]]:
        name = w.fresh("scratch-key")
        if action == "create":
            return "/api/keys", {"json": {"name": name, "role": "reader", "kb": ["alpha"]}}
        if key == "admin":
            w.call("admin", "POST", "/api/keys", json={"name": name, "role": "reader", "kb": ["alpha"]})
        return f"/api/keys/{name}", {}
    return make


AB = ("A", "B")
ROUTES: list[Route] = [
    Route("GET", "/api/health", plain("/api/health"), open=True),
    Route("GET", "/api/me", plain("/api/me")),
    Route("GET", "/api/kbs", plain("/api/kbs")),
    Route("POST", "/api/kbs", lambda w, s, k: ("/api/kbs", {"json": {"name": w.fresh("new-base")}}), need="admin",
          ok=frozenset({201})),
    Route("PATCH", "/api/kbs/{name}", kb_admin("rename"), need="admin"),
    Route("DELETE", "/api/kbs/{name}", kb_admin("delete"), need="admin"),
    Route("GET", "/api/keys", plain("/api/keys"), need="admin"),
    Route("POST", "/api/keys", key_admin("create"), need="admin", ok=frozenset({201})),
    Route("DELETE", "/api/keys/{name}", key_admin("revoke"), need="admin"),
    Route("GET", "/api/documents", plain("/api/documents")),
    Route("GET", "/api/documents", lambda w, s, k: ("/api/documents", {"params": {"kb": BASE[s]}}), targets=AB),
    Route("GET", "/api/documents/{document_id}", by_id("/api/documents/{id}", "doc"), targets=AB),
    Route("GET", "/api/documents/{document_id}/versions", by_id("/api/documents/{id}/versions", "doc"), targets=AB),
    Route("DELETE", "/api/documents/{document_id}", lambda w, s, k: (f"/api/documents/{spare(w, s, k)}", {}),
          need="editor", targets=AB),
    Route("POST", "/api/documents/{document_id}/reindex", by_id("/api/documents/{id}/reindex", "doc"), need="editor",
          targets=AB, ok=frozenset({202})),
    Route("POST", "/api/documents/upload", named(upload, "/api/documents/upload"), need="editor", targets=(None, *AB)),
    Route("GET", "/api/jobs", plain("/api/jobs")),
    Route("GET", "/api/jobs/{job_id}", by_id("/api/jobs/{id}", "job"), targets=AB),
    Route("POST", "/api/jobs/{job_id}/cancel", by_id("/api/jobs/{id}/cancel", "job"), need="editor", targets=AB,
          ok=frozenset({200, 409})),  # 409: the job has finished (nothing to cancel, nothing hidden)
    Route("GET", "/api/jobs/stream", lambda w, s, k: ("/api/jobs/stream", {"params": {"ids": w.ids[s]["job"]}}),
          targets=AB),
    Route("GET", "/api/topics", plain("/api/topics")),
    Route("GET", "/api/topics/{topic_id}", by_id("/api/topics/{id}", "topic"), targets=AB),
    Route("GET", "/api/topics/{topic_id}/documents", by_id("/api/topics/{id}/documents", "topic"), targets=AB),
    Route("POST", "/api/topics/merge", lambda w, s, k: ("/api/topics/merge", {"json": {
        "source_ids": [w.ids[s]["topic"]], "target_id": w.ids[s]["topic"]}}), need="editor", targets=AB,
          ok=frozenset({409})),  # merging a topic into itself: refused once the topic is found
    Route("POST", "/api/qa/ask", named(ask_body, "/api/qa/ask"), targets=(None, *AB)),
    Route("POST", "/api/qa/stream", named(ask_body, "/api/qa/stream"), targets=(None, *AB)),
    Route("POST", "/api/qa/summarize", lambda w, s, k: ("/api/qa/summarize", {"json": {
        "document_id": w.ids[s]["doc"]}}), targets=AB),
    Route("GET", "/api/qa/history", plain("/api/qa/history", params={"limit": 500})),
    Route("GET", "/api/qa/history", plain("/api/qa/history", params={"thread_id": "t-shared"})),
    Route("POST", "/api/qa/feedback", lambda w, s, k: ("/api/qa/feedback", {"json": {
        "answer_id": w.ids[s]["answer"], "rating": "up"}}), targets=AB),
    Route("GET", "/api/nodes/{node_id}", by_id("/api/nodes/{id}", "node"), targets=AB),
    Route("GET", "/api/images/{image_id}", by_id("/api/images/{id}", "image"), targets=("B",)),
    Route("GET", "/v1/models", plain("/v1/models")),
    Route("POST", "/v1/chat/completions", chat(), targets=(None, *AB)),
    Route("POST", "/v1/chat/completions", chat(stream=True), targets=(None, *AB)),
]


def expected(route: Route, key: str, side: str | None) -> frozenset[int]:
    if route.open:
        return frozenset({200})
    if key in ("none", "revoked"):
        return frozenset({401})
    if RANK[ROLE[key]] < RANK[route.need]:
        return frozenset({403})
    if side is not None and side not in SEES[key]:
        return frozenset({404})
    return route.ok


def leaks(text: str) -> list[str]:
    return [s for s in [*B_NAMES, MARKER, "4.2 million"] if s in text]


def test_every_route_is_in_the_matrix(world: World) -> None:
    spec = requests.get(world.server.base + "/openapi.json", timeout=120).json()
    served = {(m.upper(), p) for p, ops in spec["paths"].items() for m in ops}
    covered = {(r.method, r.template) for r in ROUTES}
    assert served - covered == set(), f"routes without a row in the matrix: {sorted(served - covered)}"
    assert covered - served == set()


def test_the_matrix(world: World) -> None:
    wrong, leaked = [], []
    for route in ROUTES:
        for side in route.targets:
            for key in KEYS:
                path, kw = route.make(world, side, key)
                r = world.call(key, route.method, path, **kw)
                want = expected(route, key, side)
                if r.status_code not in want:
                    wrong.append(f"{route.method} {path} [{side}] {key}: {r.status_code} not in {sorted(want)} "
                                 f"{r.text[:160]}")
                if key in A_SIDE and (found := leaks(r.text)):
                    leaked.append(f"{route.method} {path} [{side}] {key}: {found}")
    assert not wrong, "\n".join(wrong)
    assert not leaked, "\n".join(leaked)


def test_a_keys_see_only_their_bases(world: World) -> None:
    for key, bases in (("reader_a", ["alpha"]), ("editor_a", ["alpha"]), ("reader_b", ["beta"])):
        me = world.call(key, "GET", "/api/me").json()
        assert me["role"] == ROLE[key] and me["via"] == "key" and [b["name"] for b in me["kbs"]] == bases
        assert [b["name"] for b in world.call(key, "GET", "/api/kbs").json()] == bases
        models = [m["id"] for m in world.call(key, "GET", "/v1/models").json()["data"]]
        assert models == ["dropqa", *(f"dropqa/{b}" for b in bases)]
        docs = world.call(key, "GET", "/api/documents").json()["documents"]
        assert {d["kb"] for d in docs} == set(bases)
    admin = [b["name"] for b in world.call("admin", "GET", "/api/kbs").json()]
    assert admin[0] == "default" and {"alpha", "beta"} <= set(admin)
    refused = world.call("reader_a", "POST", "/v1/chat/completions",
                         json={"model": "dropqa/beta", "messages": [{"role": "user", "content": QUESTION}]})
    assert refused.status_code == 404 and refused.json()["error"]["code"] == "model_not_found"
    assert "dropqa/beta" not in refused.json()["error"]["params"]["models"]
    unknown = world.call("reader_a", "GET", "/api/documents", params={"kb": "no-such-base"})
    hidden = world.call("reader_a", "GET", "/api/documents", params={"kb": "beta"})
    assert unknown.status_code == hidden.status_code == 404  # an unreadable base is as unknown as a missing one
    assert unknown.json()["error"]["code"] == hidden.json()["error"]["code"] == "kb_not_found"


def test_a_conversation_of_b_is_not_continued_by_a(world: World) -> None:
    """reader B asked in thread t-shared; the same thread id with A's key is another conversation."""
    r = world.call("reader_a", "POST", "/api/qa/ask", json={"question": "And what is its budget?",
                                                           "thread_id": "t-shared"})
    assert r.status_code == 200 and not leaks(r.text)
    rows = world.call("reader_a", "GET", "/api/qa/history", params={"thread_id": "t-shared"}).json()
    assert [row["question"] for row in rows] == ["And what is its budget?"]
    theirs = world.call("reader_b", "GET", "/api/qa/history", params={"thread_id": "t-shared"}).json()
    assert [row["question"] for row in theirs] == [QUESTION]


def test_revocation_and_last_use(world: World) -> None:
    made = world.call("admin", "POST", "/api/keys", json={"name": "short", "role": "reader", "kb": ["alpha"]})
    assert made.status_code == 201 and made.json()["key"].startswith("dqa_")
    world.keys["short"] = made.json()["key"]
    assert world.call("short", "GET", "/api/documents").status_code == 200
    listed = {k["name"]: k for k in world.call("admin", "GET", "/api/keys").json()}
    assert listed["short"]["last_used_at"] and listed["reader_a"]["last_used_at"] and "key" not in listed["short"]
    assert world.call("admin", "DELETE", "/api/keys/short").status_code == 200
    assert world.call("short", "GET", "/api/documents").status_code == 401  # the very next request
    assert world.call("admin", "DELETE", "/api/keys/short").status_code == 404  # nothing live of that name


def test_the_server_without_keys_stays_open_on_loopback_and_keys_need_a_real_admin() -> None:
    with dropqa_server(api__embedded_workers="0") as s:
        assert s.get("/api/documents").status_code == 200  # no token, no key: open, as before
        me = s.get("/api/me").json()
        assert me["via"] == "open" and me["role"] == "admin" and [b["name"] for b in me["kbs"]] == ["default"]
        refused = s.post("/api/keys", json={"name": "first", "role": "admin"})
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "admin_key_required"


# ---- MCP -------------------------------------------------------------------------------------------

async def _mcp(world: World, key: str, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[bool, str]]:
    """(is_error, text) of each tool call, over streamable HTTP with ``key``."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    out = []
    async with (httpx2.AsyncClient(headers=world.headers(key), timeout=120) as http,
                Client(streamable_http_client(world.server.base + "/mcp", http_client=http)) as client):
        for name, args in calls:
            result = await client.call_tool(name, args)
            text = " ".join(getattr(c, "text", "") for c in result.content)
            out.append((bool(result.is_error), text + json.dumps(result.structured_content or {}, ensure_ascii=False)))
    return out


def test_mcp_in_the_matrix(world: World) -> None:
    b = world.ids["B"]
    calls = [("ask", {"question": QUESTION}),
             ("keyword_search", {"pattern": MARKER}),
             ("fulltext_search", {"query": "secret budget plan code name"}),
             ("semantic_search", {"query": "secret budget plan code name"}),
             ("get_node_content", {"node_id": b["node"]}),
             ("get_document_structure", {"document": b["doc"]}),
             ("get_document_structure", {"document": "beta_secret_plan"}),
             ("ask", {"question": QUESTION, "kb": ["beta"]}),
             ("keyword_search", {"pattern": MARKER, "kb": ["beta"]})]
    for key in ("none", "revoked"):
        with pytest.raises(ExceptionGroup):  # the SDK reports the 401 as an error of its task group
            anyio.run(_mcp, world, key, calls[:1])
    for key in ("reader_a", "editor_a"):
        results = anyio.run(_mcp, world, key, calls)
        assert all(not leaks(text) for _, text in results), (key, [t for _, t in results if leaks(t)])
        errors = [is_error for is_error, _ in results]
        # B's node, B's document by id or by name, and the base itself: "not found", as for anything unknown
        assert errors == [False, False, False, False, True, True, True, True, True], (key, results)
        assert "no knowledge base named 'beta'" in results[-1][1]
    for key in ("reader_b", "admin"):
        results = anyio.run(_mcp, world, key, calls)
        assert not any(is_error for is_error, _ in results), (key, results)
        assert MARKER in results[0][1] and MARKER in results[1][1] and MARKER in results[4][1]
