"""End to end through the real command and a real HTTP server on a random loopback port.

The server and the indexer are separate processes sharing one embedded PostgreSQL
data dir, exactly as a user runs them (`dropqa serve` in one terminal,
`dropqa index` in another).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.conftest import EXAMPLES
from tests.e2e.api_support import dropqa_env, free_port, fresh_data_dir, wait_until_healthy

pytestmark = [pytest.mark.e2e, pytest.mark.heavy(215)]
DROPQA = [str(Path(sys.executable).with_name("dropqa"))]


@pytest.fixture(scope="module")
def env() -> Iterator[dict[str, str]]:
    data = fresh_data_dir("dropqa-e2e-")
    yield dropqa_env(data)
    shutil.rmtree(data, ignore_errors=True)


@pytest.fixture(scope="module")
def server(env: dict[str, str]) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen([*DROPQA, "serve", "--host", "127.0.0.1", "--port", str(port)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    wait_until_healthy(proc, base, 300, lambda: proc.stdout.read().decode() if proc.stdout else "")
    yield base
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(20)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("e2e-corpus")
    for f in EXAMPLES.iterdir():
        shutil.copy2(f, root / f.name)
    return root


def run(env: dict[str, str], *args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*DROPQA, *args], env=env, capture_output=True, text=True, timeout=timeout)


def test_index_while_serving_then_ask_over_http(server: str, env: dict[str, str], corpus: Path) -> None:
    out = run(env, "index", str(corpus))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "indexed: 4" in out.stdout and "failed: 0" in out.stdout

    again = run(env, "index", str(corpus))
    assert again.returncode == 0 and "unchanged: 4" in again.stdout

    r = requests.post(server + "/api/qa/ask", json={"question": "核心数据库的恢复时间目标是多少？"}, timeout=60)
    assert r.status_code == 200
    body = r.json()
    assert body["answerable"] is True and "45 分钟" in body["answer"]
    top = body["sources"][0]
    assert top["document_name"] == "云栖数据平台运维手册.md"
    assert top["section"].endswith("第3章 备份与恢复 > 3.2 恢复演练")
    node = requests.get(f"{server}/api/nodes/{top['node_id']}", timeout=10).json()
    assert "RTO" in node["content"] and node["breadcrumb"].startswith("云栖数据平台运维手册.md > ")

    docs = requests.get(server + "/api/documents", timeout=10).json()["documents"]
    assert {d["filename"] for d in docs} == {p.name for p in corpus.iterdir()}
    detail = requests.get(f"{server}/api/documents/{docs[0]['id']}", timeout=10).json()
    assert detail["structure"][0]["type"] == "document" and detail["versions"][0]["version"] == 1

    history = requests.get(server + "/api/qa/history", timeout=10).json()
    assert history[0]["question"] == "核心数据库的恢复时间目标是多少？"


def test_new_version_and_version_filter_over_cli(server: str, env: dict[str, str], corpus: Path) -> None:
    shutil.copy2(EXAMPLES.parent / "updates" / "pricing.md", corpus / "pricing.md")
    out = run(env, "index", str(corpus))
    assert out.returncode == 0 and "new_version: 1" in out.stdout
    q = "How much does business support cost per month?"
    latest = json.loads(run(env, "ask", q, "--json").stdout)
    old = json.loads(run(env, "ask", q, "--json", "--version", "1").stdout)
    assert "350 EUR" in latest["answer"] and latest["sources"][0]["version"] == 2
    assert "300 EUR" in old["answer"] and old["sources"][0]["version"] == 1
    assert set(latest) >= {"answer", "answerable", "confidence", "mode", "sources", "identified_topics",
                           "iterations", "reasoning_trace", "latency_ms"}
    listing = run(env, "docs")
    assert "pricing.md" in listing.stdout


def test_http_errors_are_json(server: str) -> None:
    r = requests.post(server + "/api/qa/ask", json={"question": ""}, timeout=10)
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"
    r = requests.get(server + "/api/nodes/00000000-0000-0000-0000-000000000000", timeout=10)
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    r = requests.get(server + "/api/nodes/not-a-uuid", timeout=10)
    assert r.status_code == 422


def test_failed_file_is_reported_and_exit_status_is_one(env: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "good.md").write_text("# Title\n\nSome words about kittens.\n", encoding="utf-8")
    (tmp_path / "broken.docx").write_bytes(b"PK\x03\x04 this is not really a zip")
    out = run(env, "index", str(tmp_path))
    assert out.returncode == 1
    assert "failed: 1" in out.stdout and "indexed: 1" in out.stdout


def test_refuses_public_bind_without_token(env: dict[str, str]) -> None:
    out = run(env, "serve", "--host", "0.0.0.0", "--port", str(free_port()), timeout=60)
    assert out.returncode == 2 and "DROPQA_API_TOKEN" in out.stderr


def test_piped_ask_keeps_breadcrumbs_and_sentences_whole(server: str, env: dict[str, str], corpus: Path) -> None:
    """Through a pipe nothing is wrapped: the answer's lines are the JSON answer's lines, each source's
    breadcrumb is on one line (rich would cut both at 80 columns)."""
    from rich.cells import cell_len

    q = "核心数据库的恢复时间目标是多少？"
    data = json.loads(run(env, "ask", q, "--json").stdout)
    out = run(env, "ask", q, "--show-reasoning")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    answer = data["answer"].splitlines()
    assert lines[:len(answer)] == answer
    assert any(cell_len(line) > 80 for line in lines), "the test needs a line wider than 80 columns"
    for i, s in enumerate(data["sources"][:5], start=1):
        assert any(line.startswith(f"[{i}] {s['document_name']} > {s['section']}") for line in lines), (s, lines)


def test_documents_are_listed_by_name_or_by_time(server: str, env: dict[str, str], corpus: Path) -> None:
    """An uploaded file (key ``upload:…``) sorts among the others by its name, or first by time."""
    body = "# Aardvark notes\n\nThe aardvark eats ants and termites at night.\n"
    up = requests.post(server + "/api/documents/upload", files={"files": ("Aardvark_notes.md", body.encode())},
                       timeout=60).json()["documents"][0]
    with requests.get(server + "/api/jobs/stream", params={"ids": up["job_id"]}, stream=True, timeout=120) as r:
        for line in r.iter_lines(decode_unicode=True):
            if line == "event: end":
                break
    by_name = requests.get(server + "/api/documents", params={"sort": "name"}, timeout=10).json()["documents"]
    names = [d["filename"] for d in by_name]
    assert names == sorted(names, key=lambda n: (n.lower(), n)) and names[0] == "Aardvark_notes.md", names
    by_time = requests.get(server + "/api/documents", params={"sort": "time"}, timeout=10).json()["documents"]
    assert by_time[0]["filename"] == "Aardvark_notes.md"
    assert [d["updated_at"] for d in by_time] == sorted((d["updated_at"] for d in by_time), reverse=True)
    assert requests.get(server + "/api/documents", params={"sort": "size"}, timeout=10).status_code == 422
    listed = run(env, "docs", "--sort", "time").stdout.splitlines()
    assert listed[0].startswith("upload:") and "Aardvark_notes.md" in listed[0], listed
    listed = run(env, "docs", "--sort", "name").stdout.splitlines()
    assert "Aardvark_notes.md" in listed[0], listed
