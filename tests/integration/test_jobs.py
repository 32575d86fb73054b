"""The job queue and the worker against a real PostgreSQL: claims, concurrency, retries,
stale jobs, and recovery after a worker is killed with SIGKILL."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from PIL import Image

from dropqa.ingestion.worker import Worker
from dropqa.store import jobs
from tests.conftest import ROOT
from tests.support.scopes import DEFAULT, DEFAULT_KB
from tests.support.sql import execute, one

pytestmark = pytest.mark.integration

ACTIVE = ("parsing", "enriching", "embedding")


@pytest.fixture(scope="module", autouse=True)
def fast_retries(settings):
    """Tiny backoff so retry tests finish in milliseconds (this module's own Settings object)."""
    settings.ingestion.job_retry_base_s = 0.01
    settings.ingestion.job_heartbeat_s = 0.5


def write_md(folder: Path, name: str, paragraphs: int = 3, sentences: int = 1) -> Path:
    """A Markdown file of ``paragraphs`` paragraphs, each ``sentences`` sentences long (8 make a
    paragraph long enough to stay one passage of its own)."""
    body = "\n\n".join(" ".join([f"Paragraph {i} of {name}: the backup window for system {name}-{i} is {i} hours."]
                                * sentences) for i in range(paragraphs))
    path = folder / name
    path.write_text(f"# {name}\n\n## Section\n\n{body}\n", encoding="utf-8")
    return path


def drain(worker: Worker, deadline_s: float = 30.0) -> None:
    """Run jobs until none is left unfinished (waiting out retry backoffs)."""
    deadline = time.monotonic() + deadline_s
    while jobs.queue_depth(worker.db) and time.monotonic() < deadline:
        if worker.run_once() is None:
            time.sleep(0.02)
    assert jobs.queue_depth(worker.db) == 0


def test_enqueue_claim_finish(services):
    db = services.db
    first = jobs.enqueue(db, DEFAULT_KB, "q/a.md", "/nowhere/a.md")
    # an identical queued job: no duplicate
    assert jobs.enqueue(db, DEFAULT_KB, "q/a.md", "/nowhere/a.md")["id"] == first["id"]
    assert first["state"] == "queued" and jobs.queue_depth(db) == 1

    claimed = jobs.claim(db, "w1")
    assert claimed is not None and claimed["id"] == first["id"]
    assert (claimed["state"], claimed["locked_by"], claimed["attempts"]) == ("parsing", "w1", 1)
    assert jobs.claim(db, "w2") is None  # nothing else is ready
    assert jobs.heartbeat(db, first["id"], "w1") and not jobs.heartbeat(db, first["id"], "w2")
    assert jobs.set_state(db, first["id"], "embedding", {"stage": "embedding"}, worker_id="w1")
    assert jobs.finish(db, first["id"], "indexed", None, 1, worker_id="w1")
    done = jobs.get(db, first["id"])
    assert (done["state"], done["outcome"], done["version"], done["locked_by"]) == ("done", "indexed", 1, None)
    assert jobs.queue_depth(db) == 0

    # index → delete → index of one key: all three are kept and run in order
    a = jobs.enqueue(db, DEFAULT_KB, "q/b.md", "/nowhere/b.md")
    b = jobs.enqueue(db, DEFAULT_KB, "q/b.md", "/nowhere/b.md", "delete")
    c = jobs.enqueue(db, DEFAULT_KB, "q/b.md", "/nowhere/b.md")
    assert len({a["id"], b["id"], c["id"]}) == 3
    got = jobs.claim(db, "w1")
    assert got["id"] == a["id"] and jobs.claim(db, "w2") is None  # b waits for a
    assert [j["id"] for j in jobs.list_jobs(db, DEFAULT, source_key="q/b.md")] == [c["id"], b["id"], a["id"]]
    for j in (a, b, c):
        assert jobs.cancel(db, DEFAULT, j["id"])
    assert jobs.get(db, c["id"])["state"] == "cancelled" and jobs.queue_depth(db) == 0


def test_two_workers_drain_the_queue_once_each(services, tmp_path):
    db = services.db
    files = [write_md(tmp_path, f"doc{i}.md") for i in range(6)]
    enqueued = [jobs.enqueue(db, DEFAULT_KB, f"two/{p.name}", str(p)) for p in files]
    workers = [Worker(services, "alpha"), Worker(services, "beta")]
    ran: dict[str, list] = {w.worker_id: [] for w in workers}

    def work(w: Worker) -> None:
        while (job := w.run_once()) is not None:
            ran[w.worker_id].append(job["id"])

    threads = [threading.Thread(target=work, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    all_ran = ran["alpha"] + ran["beta"]
    assert sorted(map(str, all_ran)) == sorted(str(j["id"]) for j in enqueued)  # each job exactly once
    for j in enqueued:
        row = jobs.get(db, j["id"])
        assert (row["state"], row["outcome"], row["attempts"], row["error"]) == ("done", "indexed", 1, None)
        assert row["document_id"] is not None and row["version"] == 1
        versions = one(db, "SELECT count(*) AS n FROM document_versions WHERE document_id = %s", row["document_id"])
        assert versions["n"] == 1


def test_unreadable_file_is_retried_then_failed_but_a_bad_file_is_not_retried(services, tmp_path):
    db = services.db
    job = jobs.enqueue(db, DEFAULT_KB, "fail/missing.md", str(tmp_path / "missing.md"))  # maybe still being copied
    drain(Worker(services, "retrier"))
    row = jobs.get(db, job["id"])
    assert row["state"] == "failed" and row["attempts"] == row["max_attempts"] == 3
    assert "cannot read the file" in row["error"]

    empty = tmp_path / "empty.md"
    empty.write_bytes(b"")
    job = jobs.enqueue(db, DEFAULT_KB, "fail/empty.md", str(empty))
    drain(Worker(services, "retrier"))
    row = jobs.get(db, job["id"])  # the same bytes would fail the same way: no retry
    assert (row["state"], row["attempts"], row["error"]) == ("failed", 1, "the file is empty")


def test_stale_job_is_reclaimed_and_completes(services, tmp_path):
    db = services.db
    path = write_md(tmp_path, "stale.md")
    job = jobs.enqueue(db, DEFAULT_KB, "stale/stale.md", str(path))
    assert jobs.claim(db, "ghost")["id"] == job["id"]
    worker = Worker(services, "rescuer")
    assert worker.run_once() is None  # a fresh heartbeat: the ghost still owns it
    execute(db, "UPDATE ingestion_jobs SET state = 'parsing', heartbeat_at = now() - interval '1 hour' "
                "WHERE id = %s", job["id"])
    row = worker.run_once()
    assert row is not None and row["id"] == job["id"]
    assert (row["state"], row["outcome"], row["attempts"], row["locked_by"]) == ("done", "indexed", 2, None)
    assert not jobs.finish(db, job["id"], "indexed", worker_id="ghost")  # the ghost cannot overwrite it


def test_delete_job_hides_the_document(services, tmp_path):
    db = services.db
    path = write_md(tmp_path, "gone.md")
    jobs.enqueue(db, DEFAULT_KB, "del/gone.md", str(path))
    jobs.enqueue(db, DEFAULT_KB, "del/gone.md", str(path), "delete")
    drain(Worker(services, "deleter"))
    rows = {j["action"]: j for j in jobs.list_jobs(db, DEFAULT, source_key="del/gone.md")}
    assert rows["index"]["outcome"] == "indexed" and rows["delete"]["outcome"] == "deleted"
    assert one(db, "SELECT deleted_at FROM documents WHERE source_key = 'del/gone.md'")["deleted_at"] is not None


def test_worker_killed_with_sigkill_is_recovered(services, settings, database_url, tmp_path):
    db = services.db
    path = write_md(tmp_path, "big.md", paragraphs=15, sentences=8)
    job = jobs.enqueue(db, DEFAULT_KB, "kill/big.md", str(path))
    env = {**os.environ, "DATABASE_URL": database_url, "OPENBLAS_NUM_THREADS": "1",
           "DROPQA_DATA_DIR": str(settings.data_dir)}
    exe = Path(sys.executable).with_name("dropqa")
    proc = subprocess.Popen([str(exe), "worker", "--id", "victim"], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            row = jobs.get(db, job["id"])
            if row["locked_by"] == "victim" and row["state"] == "embedding":
                break  # parsed in its child process, now embedding: kill it mid-work
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            time.sleep(0.02)
        else:
            pytest.fail("the worker subprocess never got to embedding the job")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    row = jobs.get(db, job["id"])
    assert row["state"] in ACTIVE, f"the job finished before the kill: {row['state']}"
    # Killed before its version was written: nothing is visible. Killed after (filling embeddings): the
    # version is visible whole — every node, answerable by full-text — with its embeddings pending.
    visible = one(db, "SELECT v.node_count, (SELECT count(*) FROM nodes n WHERE n.document_id = d.id) AS nodes "
                      "FROM documents d JOIN document_versions v ON v.document_id = d.id "
                      "WHERE d.source_key = 'kill/big.md' AND d.current_version > 0")
    assert visible is None or visible["nodes"] == visible["node_count"], "half-written version"

    # time passes: the dead worker's heartbeat goes stale, another worker takes the job over
    execute(db, "UPDATE ingestion_jobs SET heartbeat_at = now() - interval '1 hour' WHERE id = %s", job["id"])
    done = Worker(services, "survivor").run_once()
    assert done is not None and done["id"] == job["id"]
    # the version written before the kill is not written again (the takeover fills its embeddings),
    # and the job still reports it as its own
    assert (done["state"], done["outcome"], done["attempts"]) == ("done", "indexed", 2)
    doc_id = done["document_id"]
    assert one(db, "SELECT count(*) AS n FROM document_versions WHERE document_id = %s", doc_id)["n"] == 1
    node_count = one(db, "SELECT node_count FROM document_versions WHERE document_id = %s", doc_id)["node_count"]
    assert node_count > 15
    assert one(db, "SELECT count(*) AS n FROM nodes WHERE document_id = %s", doc_id)["n"] == node_count
    assert one(db, "SELECT count(*) AS n FROM nodes WHERE document_id = %s AND node_type NOT IN "
                   "('section', 'document') AND content <> '' AND id NOT IN (SELECT node_id FROM embeddings)",
               doc_id)["n"] == 0


def test_parse_child_limits_fail_the_file_not_the_worker():
    from dropqa.ingestion.parsers import ParseContext, ParseError
    from dropqa.ingestion.worker import parse_isolated

    data = ("# t\n\n" + "text " * 1000).encode()
    ok = parse_isolated("md", data, ParseContext(filename="t.md"), timeout_s=30, memory_mb=0)
    assert ok.file_type == "md" and ok.text_length() > 1000
    with pytest.raises(ParseError, match="longer than"):
        parse_isolated("md", data * 200, ParseContext(filename="t.md"), timeout_s=0.001, memory_mb=0)
    # a blank 7000×7000 PNG is 160 KB on disk and 147 MB decoded: more than the 64 MB the child may add
    png = io.BytesIO()
    Image.new("RGB", (7000, 7000), "white").save(png, "PNG")
    with pytest.raises(ParseError, match=r"out of memory .*limit 64 MB|died"):
        parse_isolated("image", png.getvalue(), ParseContext(filename="big.png"), timeout_s=60, memory_mb=64)


def test_a_parser_bug_in_the_child_reaches_the_log_with_its_traceback(caplog):
    from dropqa.ingestion.parsers import ParseContext, ParseError
    from dropqa.ingestion.worker import parse_isolated

    broken = ParseContext(filename="bug.txt", max_chars=None)  # type: ignore[arg-type]  # a TypeError in the parser
    with caplog.at_level("ERROR", logger="dropqa.ingestion.isolation"), \
            pytest.raises(ParseError, match="unexpected TypeError while parsing") as failed:
        parse_isolated("txt", b"hello", broken, timeout_s=30, memory_mb=0)
    assert "Traceback" not in str(failed.value)  # the job's message stays one line
    [record] = [r for r in caplog.records if r.name == "dropqa.ingestion.isolation"]
    assert "bug.txt" in record.getMessage() and "Traceback (most recent call last)" in record.getMessage()
    assert "decode_limited" in record.getMessage()  # where in the parser it happened


def test_cancelling_an_active_job_stops_the_worker_and_keeps_the_old_version(services, tmp_path):
    db = services.db
    path = write_md(tmp_path, "cancel.md", paragraphs=3)
    worker = Worker(services, "canceller")
    jobs.enqueue(db, DEFAULT_KB, "cancel/cancel.md", str(path))
    first = worker.run_once()
    assert first["outcome"] == "indexed"
    path.write_text(path.read_text(encoding="utf-8") + "\n\n" + "\n\n".join(
        f"New paragraph {i}: the rotation of the walrus desk moves to slot {i}." for i in range(300)),
        encoding="utf-8")
    job = jobs.enqueue(db, DEFAULT_KB, "cancel/cancel.md", str(path))
    result: list = []
    thread = threading.Thread(target=lambda: result.append(worker.run_once()))
    thread.start()
    deadline = time.monotonic() + 300
    while jobs.get(db, job["id"])["state"] not in ("enriching", "embedding"):
        assert time.monotonic() < deadline and thread.is_alive(), "the job never got past parsing"
        time.sleep(0.01)
    assert jobs.cancel(db, DEFAULT, job["id"])
    thread.join(60)
    assert not thread.is_alive()
    row = jobs.get(db, job["id"])
    assert (row["state"], row["outcome"], row["version"]) == ("cancelled", None, None)
    doc = one(db, "SELECT id, current_version FROM documents WHERE source_key = 'cancel/cancel.md'")
    assert doc["current_version"] == 1
    assert one(db, "SELECT count(*) AS n FROM document_versions WHERE document_id = %s", doc["id"])["n"] == 1
    assert worker.run_once() is None  # the worker is fine and the queue is empty


def test_a_job_cancelled_at_the_last_moment_writes_nothing(services, tmp_path):
    from dropqa.ingestion.pipeline import Indexer

    db = services.db
    path = write_md(tmp_path, "late.md")
    job = jobs.enqueue(db, DEFAULT_KB, "late/late.md", str(path))
    assert jobs.claim(db, "late-worker")["id"] == job["id"]

    def cancel_when_writing(stage: str) -> None:
        if stage == "writing":  # after every check of the worker: only the write's own guard is left
            jobs.cancel(db, DEFAULT, job["id"])

    indexer = Indexer(db, services.settings, services.embedder)
    with pytest.raises(jobs.JobLost):
        indexer.index_file(path, "late/late.md", progress=cancel_when_writing, job=(job["id"], "late-worker"))
    assert one(db, "SELECT count(*) AS n FROM documents WHERE source_key = 'late/late.md'")["n"] == 0
