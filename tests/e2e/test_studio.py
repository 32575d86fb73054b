"""``langgraph dev`` (what ``make studio`` runs) serves the graph offline, and one run through its
HTTP API completes — so LangGraph Studio can inspect DropQA's traces step by step.

langgraph-cli[inmem] pins libraries that clash with the test tools, so it lives in its own
virtualenv, ``.venv-studio``, which ``make test`` and ``make studio`` create.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
import requests

from tests.conftest import ROOT

pytestmark = pytest.mark.e2e
LANGGRAPH = ROOT / ".venv-studio" / "bin" / "langgraph"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_langgraph_dev_serves_the_graph(database_url: str, tmp_path: Path, indexed_examples: Path):
    if not LANGGRAPH.exists():
        pytest.fail(".venv-studio is missing: `make test` creates it (make studio-env)")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DROPQA_")}
    env.update(DATABASE_URL=database_url, DROPQA_DATA_DIR=str(tmp_path), LANGSMITH_TRACING="false",
               LANGCHAIN_TRACING_V2="false", LANGGRAPH_CLI_NO_ANALYTICS="1", OPENBLAS_NUM_THREADS="1")
    log = (tmp_path / "langgraph.log").open("w")
    proc = subprocess.Popen([str(LANGGRAPH), "dev", "--no-browser", "--host", "127.0.0.1", "--port", str(port),
                             "--no-reload"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            assert proc.poll() is None, (tmp_path / "langgraph.log").read_text()[-3000:]
            try:
                if requests.get(base + "/ok", timeout=2).ok:
                    break
            except requests.RequestException:
                time.sleep(0.5)
        else:
            pytest.fail("langgraph dev did not come up:\n" + (tmp_path / "langgraph.log").read_text()[-3000:])
        run = requests.post(base + "/runs/wait", json={
            "assistant_id": "dropqa", "input": {"question": "P2告警的响应时限是多少？"},
        }, timeout=120)
        assert run.ok, run.text
        output = run.json()
        assert "30分钟" in output["answer"] and output["sources"]
        assert [s["type"] for s in output["reasoning_trace"]][:2] == ["initial_assessment", "retrieval"]
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()
