"""The folder watcher against a real PostgreSQL: file-system events become debounced jobs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dropqa.ingestion.watcher import Watcher
from dropqa.store import jobs
from dropqa.store.db import Database
from tests.support.scopes import DEFAULT

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def db(settings) -> Iterator[Database]:
    settings.ingestion.watch_debounce_s = 0.3
    database = Database.open(settings)  # no embedder needed: the watcher only enqueues
    yield database
    database.close()


def queued(db: Database) -> set[tuple[str, str]]:
    return {(j["action"], j["source_key"]) for j in jobs.list_jobs(db, DEFAULT, limit=1000)}


def wait_for(db: Database, expected: set[tuple[str, str]], deadline_s: float = 10.0) -> set[tuple[str, str]]:
    deadline = time.monotonic() + deadline_s
    while not expected <= (got := queued(db)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return got


def test_watcher_enqueues_debounced_jobs(db: Database, settings, tmp_path: Path):
    root = tmp_path / "watched"
    (root / "sub").mkdir(parents=True)
    (root / "old.md").write_text("# old\n\nexisting before the watcher started\n", encoding="utf-8")
    (root / "sub" / "keep.txt").write_text("existing too\n", encoding="utf-8")
    watcher = Watcher(db, settings, [root])
    watcher.start()
    try:
        # the initial scan queues what already exists, keyed like `dropqa index`
        assert wait_for(db, {("index", "old.md"), ("index", "sub/keep.txt")}) == {
            ("index", "old.md"), ("index", "sub/keep.txt")}

        a = root / "a.md"
        for i in range(5):  # an editor saving repeatedly: one job once it is quiet
            a.write_text(f"# a\n\nrevision {i}\n", encoding="utf-8")
            time.sleep(0.05)
        (root / "~$lock.docx").write_bytes(b"owner file")
        (root / ".~lock.a.md#").write_text("lock", encoding="utf-8")
        (root / "b.md").write_text("# b\n\nto be moved\n", encoding="utf-8")
        wait_for(db, {("index", "a.md"), ("index", "b.md")})
        (root / "b.md").rename(root / "sub" / "c.md")
        (root / "old.md").unlink()
        got = wait_for(db, {("delete", "b.md"), ("index", "sub/c.md"), ("delete", "old.md")})
    finally:
        watcher.stop()

    assert got == {
        ("index", "old.md"), ("index", "sub/keep.txt"), ("index", "a.md"), ("index", "b.md"),
        ("delete", "b.md"), ("index", "sub/c.md"), ("delete", "old.md"),
    }
    a_jobs = jobs.list_jobs(db, DEFAULT, source_key="a.md")
    assert len(a_jobs) == 1 and a_jobs[0]["path"] == str(a.resolve())
    assert not any("lock" in j["source_key"] for j in jobs.list_jobs(db, DEFAULT, limit=1000))


def test_dropqa_watch_indexes_changes(db: Database, settings, database_url: str, tmp_path: Path):
    """`dropqa watch DIR` alone is a working indexer: it enqueues and its worker thread indexes."""
    root = tmp_path / "live"
    root.mkdir()
    env = {**os.environ, "DATABASE_URL": database_url, "OPENBLAS_NUM_THREADS": "1",
           "DROPQA_DATA_DIR": str(settings.data_dir), "DROPQA_INGESTION__WATCH_DEBOUNCE_S": "0.2",
           "DROPQA_INGESTION__WORKER_POLL_S": "0.1", "PYTHONFAULTHANDLER": "1"}
    exe = Path(sys.executable).with_name("dropqa")
    # as from a terminal: Ctrl-C's SIGINT is not ignored (a pytest-xdist worker ignores it, and a child
    # started from it would inherit that, so SIGINT would never stop `dropqa watch`)
    proc = subprocess.Popen([str(exe), "watch", str(root)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        (root / "live.md").write_text("# Live\n\n## Notes\n\nThe watcher indexed this file by itself.\n",
                                      encoding="utf-8")
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            done = [j for j in jobs.list_jobs(db, DEFAULT, source_key="live.md") if j["state"] == "done"]
            if done:
                break
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            time.sleep(0.1)
        assert done and done[0]["outcome"] == "indexed"
    finally:
        proc.send_signal(signal.SIGINT)
        try:  # the worker may be recomputing topics: `watch` waits up to 60 s for it (cli.worker.watch)
            proc.wait(120)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)  # faulthandler writes every thread's stack to stderr: where it hangs
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    assert proc.returncode == 0, proc.stderr.read().decode() if proc.stderr else ""


def test_folder_moves_enqueue_each_file(db: Database, settings, indexer, tmp_path: Path):
    """A folder moved or removed in one step reports only the folder: each file inside still gets
    its own job (deletes for the documents known under the old path, index jobs under the new)."""
    root, outside = tmp_path / "tree", tmp_path / "outside"
    (root / "proj" / "sub").mkdir(parents=True)
    (outside / "incoming").mkdir(parents=True)
    for rel in ("proj/a.md", "proj/sub/b.md"):
        (root / rel).write_text(f"# {rel}\n\nThe tapir schedule of {rel} is weekly.\n", encoding="utf-8")
        assert indexer.index_file(root / rel, rel).status == "indexed"
    (outside / "incoming" / "c.md").write_text("# c\n\ncopied in as a folder\n", encoding="utf-8")
    watcher = Watcher(db, settings, [root])
    watcher.start(initial_scan=False)
    try:
        (root / "proj").rename(root / "moved")
        expected = {("delete", "proj/a.md"), ("delete", "proj/sub/b.md"), ("index", "moved/a.md"),
                    ("index", "moved/sub/b.md")}
        assert expected <= wait_for(db, expected)
        (outside / "incoming").rename(root / "incoming")
        assert ("index", "incoming/c.md") in wait_for(db, {("index", "incoming/c.md")})
        assert indexer.index_file(root / "moved" / "a.md", "moved/a.md").status == "indexed"
        (root / "moved").rename(outside / "gone")  # out of the watched tree: only a delete of the folder
        assert ("delete", "moved/a.md") in wait_for(db, {("delete", "moved/a.md")})
    finally:
        watcher.stop()
