"""Clients that open an answer stream and go away: each run is cancelled (a node's database query in
flight is cancelled on the server), its run slot comes back, and the server's threads and open files
return to their baseline within 10 s by themselves — the runs' worker threads end when idle
(``api.thread_idle_s``, :mod:`dropqa.blocking`), nothing has to ask the server anything first.

Issue 23's probe abandoned 50 streams: STREAMS = 50 (sequential, each abandoned after its first event)
still shows any leak — one thread or socket per abandoned stream would leave 50 behind.
"""

from __future__ import annotations

import http.client
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.conftest import EXAMPLES
from tests.e2e.api_support import Server, dropqa_server, sse_events, wait_for_jobs
from tests.support.scripted_openai import ScriptedOpenAI

pytestmark = [pytest.mark.faults, pytest.mark.heavy(85)]
STREAMS = 50
SLACK = 3  # a pooled worker thread or keep-alive socket may come and go
IDLE_S = 12  # longer than any worker thread stays idle (anyio: 10 s, and only pruned when the pool is used)


@pytest.fixture(scope="module")
def server() -> Any:
    # Overlapping runs grow the database pool; its idle connections close after a second here (600 s by
    # default), so a connection an abandoned run kept borrowed would show as an open file that stays.
    with dropqa_server(api__embedded_workers="1", database__pool_max_idle_s="1") as s:
        files = [("files", (p.name, p.read_bytes())) for p in sorted(EXAMPLES.iterdir())]
        body = s.post("/api/documents/upload", files=files).json()
        wait_for_jobs(s, [d["job_id"] for d in body["documents"] if d["job_id"]])
        yield s


def counts(pid: int) -> tuple[int, int]:
    return len(os.listdir(f"/proc/{pid}/task")), len(os.listdir(f"/proc/{pid}/fd"))


def settle(pid: int, baseline: tuple[int, int], timeout_s: float) -> tuple[int, int]:
    """Threads and fds, once they are back within SLACK of the baseline, or after ``timeout_s``. Nothing is
    asked of the server meanwhile: idle threads must end by themselves, not when the next request comes."""
    deadline = time.monotonic() + timeout_s
    now = counts(pid)
    while time.monotonic() < deadline:
        now = counts(pid)
        if now[0] <= baseline[0] + SLACK and now[1] <= baseline[1] + SLACK:
            break
        time.sleep(0.5)
    return now


def test_abandoned_streams_leave_nothing_behind(server: Server) -> None:
    """Issue 23: after 50 abandoned streams the threads stayed up for about a minute (the worker threads
    of the runs waited for a request to be pruned); they are back within 10 s, by themselves."""
    pid = server.proc.pid
    if not Path(f"/proc/{pid}/task").exists():
        pytest.skip("needs /proc")
    question = {"question": "How many days of annual leave do full-time employees get?"}
    for _ in range(3):  # warm up: models, pools and worker threads exist before the baseline
        with requests.post(server.base + "/api/qa/stream", json=question, stream=True, timeout=60) as r:
            assert list(sse_events(r))[-1][0] == "done"
    time.sleep(IDLE_S)  # the warm-up's idle worker threads have ended
    baseline = counts(pid)
    abandoned, busy_deadline = 0, time.monotonic() + 600
    while abandoned < STREAMS:
        with requests.post(server.base + "/api/qa/stream", json=question, stream=True, timeout=60) as r:
            # a busy machine: the runs abandoned so far still hold every slot (429), or the store answered a
            # query after its statement timeout (503 busy)
            if r.status_code == 429 or (r.status_code == 503 and r.json()["error"]["code"] == "busy"):
                assert time.monotonic() < busy_deadline, "the abandoned runs never gave their slots back"
                time.sleep(min(float(r.headers.get("Retry-After") or 1), 1.0))
                continue
            assert r.status_code == 200, r.text
            assert next(sse_events(r))[0] == "status"  # then the client is gone
            abandoned += 1
    load_deadline = time.monotonic() + 300  # the last abandoned runs end at their next step
    while requests.get(server.base + "/api/health", timeout=60).json()["load"]["running"]:
        assert time.monotonic() < load_deadline, "abandoned runs still hold their slots"
        time.sleep(0.2)
    after = settle(pid, baseline, timeout_s=10)
    assert after[0] <= baseline[0] + SLACK, f"threads: {baseline[0]} before, {after[0]} 10 s after"
    assert after[1] <= baseline[1] + SLACK, f"open files: {baseline[1]} before, {after[1]} 10 s after"
    load = requests.get(server.base + "/api/health", timeout=60).json()["load"]
    assert load["running"] == 0 and load["waiting"] == 0  # every abandoned run gave its slot back
    with requests.post(server.base + "/api/qa/stream", json=question, stream=True, timeout=60) as r:
        assert list(sse_events(r))[-1][0] == "done"  # and the server still answers


@pytest.mark.parametrize("path", ["/api/qa/stream", "/api/qa/ask", "/v1/chat/completions"])
def test_a_client_that_leaves_cancels_the_model_call_in_flight(path: str) -> None:
    """The model takes 60 s to answer; the client leaves while the run waits for it. The run is
    cancelled — streamed or not: the model's HTTP request is dropped (the model server sees the hang-up)
    and the run slot comes back before the model would have answered (no duration is asserted beyond that)."""
    question = "What is the refund policy?"
    body = ({"model": "dropqa", "messages": [{"role": "user", "content": question}]} if path.startswith("/v1")
            else {"question": question})
    with ScriptedOpenAI(lambda body: {"delay": 60, "content": "late"}) as llm, dropqa_server(
            api__embedded_workers="0", api__max_concurrent_runs="1", models__chat__model=llm.model,
            models__chat__base_url=llm.base_url, models__chat__api_key="test", models__chat__max_retries="0",
            models__chat__timeout_s="120") as s:
        host, port = s.base.removeprefix("http://").split(":")
        client = http.client.HTTPConnection(host, int(port), timeout=60)
        client.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
        deadline = time.monotonic() + 120
        while not llm.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert llm.requests, "the run never reached the model"
        client.close()  # the client is gone
        deadline = time.monotonic() + 45  # the model would answer after 60 s: what ends the run is the cancel
        while time.monotonic() < deadline and (llm.abandoned < 1 or s.get("/api/health").json()["load"]["running"]):
            time.sleep(0.1)
        assert llm.abandoned == 1, "the model request was not cancelled"
        assert s.get("/api/health").json()["load"]["running"] == 0
