"""Many machines, one database. Data dir A runs `dropqa serve` without embedded workers; its embedded
PostgreSQL listens on loopback TCP with a password (`dropqa db url --tcp`). Workers run in data dirs B
and C with nothing but that DATABASE_URL — the way a worker on another machine runs: no shared disk,
no path of A's. Uploads, jobs, re-indexing and answers all go through the database."""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from dropqa.store.documents import UPLOAD_PREFIX
from tests.conftest import EXAMPLES
from tests.e2e.api_support import DROPQA, Server, dropqa_env, dropqa_server, fresh_data_dir, wait_for_jobs

pytestmark = pytest.mark.e2e

MANUAL = EXAMPLES / "云栖数据平台运维手册.md"
RTO_QUESTION = "核心数据库的恢复时间目标是多少？"


def _env(**extra: str) -> dict[str, str]:
    return dropqa_env(**extra)


@pytest.fixture(scope="module")
def machine_a() -> Iterator[tuple[Server, str]]:
    """Server A and the TCP URL of its embedded database."""
    data = fresh_data_dir("dropqa-machine-a-")
    r = subprocess.run([DROPQA, "db", "url", "--tcp"], env=_env(DROPQA_DATA_DIR=str(data)), capture_output=True,
                       text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    url = r.stdout.strip()
    assert re.fullmatch(r"postgresql://postgres:[\w-]{20,}@127\.0\.0\.1:\d+/postgres", url), url
    with dropqa_server(data, api__embedded_workers="0", api__job_stream_poll_s="0.2",
                       storage__blob_grace_s="0") as server:
        yield server, url


def _sigint_default() -> None:
    """As from a terminal: an xdist worker ignores SIGINT and its children would inherit that, so the
    SIGINT that stops the worker below would be lost and the stop would wait out its 60 s."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextmanager
def worker(url: str, name: str) -> Iterator[Path]:
    """`dropqa worker` in a data dir of its own with only DATABASE_URL; yields its log."""
    data = fresh_data_dir(f"dropqa-machine-{name}-")
    log_path = data / "worker.log"
    log = open(log_path, "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([DROPQA, "-v", "worker", "--id", name], stdout=log, stderr=subprocess.STDOUT,
                            env=_env(DATABASE_URL=url, DROPQA_DATA_DIR=str(data),
                                     DROPQA_INGESTION__WORKER_POLL_S="0.2"),
                            start_new_session=True, preexec_fn=_sigint_default)
    try:
        yield log_path
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)  # finishes its job, then stops
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)
        log.close()
        assert not any(p.name != "worker.log" for p in data.iterdir()), "a worker keeps nothing on its disk"


@pytest.fixture(scope="module")
def worker_b(machine_a: tuple[Server, str]) -> Iterator[Path]:
    with worker(machine_a[1], "B") as log:
        yield log


def query(url: str, sql: str, *args: Any) -> list[dict[str, Any]]:
    with psycopg.connect(url, row_factory=dict_row) as conn:
        return conn.execute(sql, args).fetchall()


def claims(log: Path) -> list[str]:
    """The jobs a worker claimed, from its log."""
    return re.findall(r"worker \S+: job ([0-9a-f-]{36}) ", log.read_text(errors="replace"))


def upload(server: Server, *files: tuple[str, bytes]) -> list[dict[str, Any]]:
    r = server.post("/api/documents/upload", files=[("files", f) for f in files])
    assert r.status_code == 200, r.text
    return r.json()["documents"]


def test_upload_to_a_is_indexed_by_b_and_answers_with_its_citation(machine_a, worker_b: Path) -> None:
    server, url = machine_a
    data = MANUAL.read_bytes()
    [item] = upload(server, (MANUAL.name, data))
    assert item["status"] == "queued", item
    # A kept no copy of the upload on its disk: the bytes are in the database, named by the job
    assert not (server.data_dir / "uploads").exists()
    outside_db = [p for p in server.data_dir.rglob("*")
                  if p.is_file() and "pg" not in p.relative_to(server.data_dir).parts]
    assert all(p.read_bytes() != data for p in outside_db)
    [job] = query(url, "SELECT blob_sha256, path FROM ingestion_jobs WHERE id = %s", item["job_id"])
    assert job["blob_sha256"] == hashlib.sha256(data).hexdigest()
    assert query(url, "SELECT size FROM blobs WHERE sha256 = %s", job["blob_sha256"]) == [{"size": len(data)}]

    events = wait_for_jobs(server, [item["job_id"]], timeout_s=180)
    assert events[-2][1]["state"] == "done" and events[-2][1]["outcome"] == "indexed", events[-2]
    assert claims(worker_b) == [item["job_id"]]  # worker B did it

    body = server.post("/api/qa/ask", json={"question": RTO_QUESTION}).json()
    assert body["answerable"] and "45 分钟" in body["answer"], body["answer"]
    top = body["sources"][0]
    assert top["document_name"] == MANUAL.name and top["section"].endswith("3.2 恢复演练")


def test_reindex_reads_the_stored_bytes_on_another_machine(machine_a, worker_b: Path) -> None:
    server, _url = machine_a
    doc = server.get("/api/documents", params={"q": "运维手册"}).json()["documents"][0]
    r = server.post(f"/api/documents/{doc['id']}/reindex")
    assert r.status_code == 202, r.text
    events = wait_for_jobs(server, [r.json()["job_id"]], timeout_s=180)
    assert events[-2][1]["state"] == "done" and events[-2][1]["outcome"] == "new_version", events[-2]
    assert r.json()["job_id"] in claims(worker_b)
    versions = server.get(f"/api/documents/{doc['id']}/versions").json()
    assert [v["version"] for v in versions] == [1, 2] and versions[0]["file_hash"] == versions[1]["file_hash"]


def test_two_workers_one_server_every_job_done_once(machine_a, worker_b: Path) -> None:
    server, url = machine_a
    files = [(p.name, p.read_bytes()) for p in sorted(EXAMPLES.iterdir()) if p != MANUAL]
    files += [(f"team-{i}.md", f"# Team {i}\n\n## Rota\n\nTeam {i} is on call in week {i + 10}.\n".encode())
              for i in range(8)]
    with worker(url, "C") as worker_c:
        items = upload(server, *files)
        job_ids = [i["job_id"] for i in items]
        assert all(i["status"] == "queued" for i in items) and len(set(job_ids)) == len(files)
        events = wait_for_jobs(server, job_ids, timeout_s=300)
        assert events[-1][0] == "end"
        by_worker = {"B": set(claims(worker_b)), "C": set(claims(worker_c))}
    rows = query(url, "SELECT id::text, state, outcome, attempts FROM ingestion_jobs WHERE id = ANY(%s::uuid[])",
                 job_ids)
    assert len(rows) == len(files)
    assert all(r["state"] == "done" and r["outcome"] == "indexed" and r["attempts"] == 1 for r in rows), rows
    taken = Counter(j for ids in (claims(worker_b), claims(worker_c)) for j in ids if j in set(job_ids))
    assert set(taken) == set(job_ids) and set(taken.values()) == {1}, taken  # each job claimed by exactly one worker
    print(f"worker B did {len(by_worker['B'] & set(job_ids))}, worker C {len(by_worker['C'] & set(job_ids))}")
    versions = query(url, "SELECT d.source_key, count(*) AS n FROM document_versions v JOIN documents d "
                          "ON d.id = v.document_id WHERE d.source_key = ANY(%s) GROUP BY d.source_key",
                     [UPLOAD_PREFIX + name for name, _ in files])
    assert len(versions) == len(files) and {r["n"] for r in versions} == {1}
    body = server.post("/api/qa/ask", json={"question": "Which week is team 5 on call?"}).json()
    assert "week 15" in body["answer"] and body["sources"][0]["document_name"] == "team-5.md"


def test_deleting_a_document_frees_its_bytes(machine_a, worker_b: Path) -> None:
    server, url = machine_a
    data = b"# Parking\n\n## Rules\n\nVisitors park on level B2 for up to four hours.\n"
    [item] = upload(server, ("parking.md", data))
    wait_for_jobs(server, [item["job_id"]], timeout_s=180)
    key = hashlib.sha256(data).hexdigest()
    assert query(url, "SELECT count(*) AS n FROM blob_chunks WHERE sha256 = %s", key)[0]["n"] >= 1
    doc_id = server.get("/api/documents", params={"q": "parking"}).json()["documents"][0]["id"]
    assert server.delete(f"/api/documents/{doc_id}").status_code == 200
    assert query(url, "SELECT count(*) AS n FROM blobs WHERE sha256 = %s", key)[0]["n"] == 0
    assert query(url, "SELECT count(*) AS n FROM blob_chunks WHERE sha256 = %s", key)[0]["n"] == 0


def test_sizes_and_gc_from_another_machine(machine_a, tmp_path: Path) -> None:
    _server, url = machine_a
    env = _env(DATABASE_URL=url, DROPQA_DATA_DIR=str(tmp_path))
    r = subprocess.run([DROPQA, "db", "sizes"], env=env, capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0 and "blob_chunks" in r.stdout and "stored files:" in r.stdout, r.stdout + r.stderr
    r = subprocess.run([DROPQA, "gc", "--grace", "0"], env=env, capture_output=True, text=True, timeout=120,
                       check=False)
    assert r.returncode == 0 and r.stdout.startswith("freed "), r.stdout + r.stderr
    r = subprocess.run([DROPQA, "db", "url"], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert r.returncode == 0 and r.stdout.strip() == url
