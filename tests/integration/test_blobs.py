"""File bytes in PostgreSQL (store/blobs.py): stored once per content, read back by workers that cannot see
the file, freed when no live document or unfinished job names them."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from dropqa.ingestion.watcher import Watcher
from dropqa.ingestion.worker import Worker
from dropqa.store import blobs, jobs
from dropqa.store import documents as doc_store
from tests.support.scopes import DEFAULT, DEFAULT_KB
from tests.support.sql import rows

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module", autouse=True)
def small_chunks(settings):
    """Chunks of 4 KB so a small file spans several; no grace, so collection is immediate."""
    settings.storage.blob_chunk_bytes = 4096
    settings.storage.blob_grace_s = 0.0


def stored(db, sha: str) -> bool:
    return blobs.exists(db, sha)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def md(text: str, title: str) -> bytes:
    return f"# {title}\n\n## Details\n\n{text}\n".encode()


def test_put_get_stores_each_content_once_in_chunks(services) -> None:
    db = services.db
    data = os.urandom(9000) + "备份窗口".encode() * 100
    key = blobs.put(db, data)
    assert key == sha(data) and blobs.get(db, key) == data
    first = rows(db, "SELECT size, chunks, touched_at FROM blobs WHERE sha256 = %s", key)[0]
    assert first["size"] == len(data) and first["chunks"] == 3
    assert blobs.put(db, data) == key  # the same bytes again: nothing new is written, the blob is marked as used
    again = rows(db, "SELECT count(*) AS n, max(touched_at) AS t FROM blobs WHERE sha256 = %s", key)[0]
    assert again["n"] == 1 and again["t"] > first["touched_at"]
    assert rows(db, "SELECT count(*) AS n FROM blob_chunks WHERE sha256 = %s", key)[0]["n"] == 3
    assert blobs.get(db, "0" * 64) is None


def test_damaged_bytes_are_refused(services) -> None:
    db = services.db
    key = blobs.put(db, b"original bytes " * 1000)
    with db.connection() as conn:
        conn.execute("UPDATE blob_chunks SET data = 'x'::bytea WHERE sha256 = %s AND seq = 1", (key,))
    with pytest.raises(blobs.BlobCorrupt):
        blobs.get(db, key)


def test_indexing_stores_the_bytes_once_however_many_names(services, indexer, tmp_path: Path) -> None:
    db = services.db
    same = md("The staging cluster is rebuilt every Sunday at 02:00.", "Staging")
    (tmp_path / "a.md").write_bytes(same)
    (tmp_path / "b.md").write_bytes(same)
    for name in ("a.md", "b.md"):
        assert indexer.index_file(tmp_path / name, f"once/{name}").status == "indexed"
    assert rows(db, "SELECT count(*) AS n FROM blobs WHERE sha256 = %s", sha(same))[0]["n"] == 1
    changed = md("The staging cluster is rebuilt every Saturday at 03:00.", "Staging")
    (tmp_path / "a.md").write_bytes(changed)
    assert indexer.index_file(tmp_path / "a.md", "once/a.md").status == "new_version"
    assert stored(db, sha(same)) and stored(db, sha(changed)) and blobs.get(db, sha(changed)) == changed


def test_a_worker_indexes_stored_bytes_without_the_file(services, tmp_path: Path) -> None:
    """The watcher stores the bytes and names them in the job; the file is gone (or on another machine)
    before the worker runs: the worker reads the database, and re-indexing does too."""
    db = services.db
    root = tmp_path / "watched"
    root.mkdir()
    data = md("The archive tier keeps monthly snapshots for 7 years.", "Archive")
    (root / "archive.md").write_bytes(data)
    watcher = Watcher(db, services.settings, [root])
    watcher.enqueue_index("archive.md", root / "archive.md")
    job = jobs.list_jobs(db, DEFAULT, source_key="archive.md")[0]
    assert job["blob_sha256"] == sha(data)
    (root / "archive.md").unlink()
    done = Worker(services, "elsewhere").run_once()
    assert done is not None and done["state"] == "done" and done["outcome"] == "indexed", done
    doc = doc_store.find_by_key(db, DEFAULT_KB, "archive.md")
    assert doc is not None and doc["storage_path"] is None
    texts = rows(db, "SELECT content FROM nodes WHERE document_id = %s", doc["id"])
    assert any("7 years" in r["content"] for r in texts)
    # re-index: the stored bytes of the current version, again without the file
    doc_store.forget_hash(db, DEFAULT, doc["id"])
    blob = doc_store.version_file_hash(db, DEFAULT, doc["id"], 1)
    jobs.enqueue(db, DEFAULT_KB, "archive.md", "archive.md", blob=blob)
    again = Worker(services, "elsewhere").run_once()
    assert again is not None and again["outcome"] == "new_version" and again["version"] == 2


def test_a_job_whose_bytes_are_gone_fails_with_a_reason(services) -> None:
    db = services.db
    job = jobs.enqueue(db, DEFAULT_KB, "gone.md", "uploads/0000/gone.md", blob="f" * 64)
    done = Worker(services, "w").run_once()
    assert done is not None and done["id"] == job["id"] and done["state"] == "failed"
    assert "stored bytes are gone" in done["error"] and done["attempts"] == 1


def test_newer_bytes_of_a_queued_file_supersede_the_older(services) -> None:
    db = services.db
    old, new = blobs.put(db, b"# v1\n\nold text\n"), blobs.put(db, b"# v2\n\nnew text\n")
    first = jobs.enqueue(db, DEFAULT_KB, "sup.md", "/w/sup.md", blob=old, supersede=True)
    assert jobs.enqueue(db, DEFAULT_KB, "sup.md", "/w/sup.md", blob=old, supersede=True)["id"] == first["id"]
    second = jobs.enqueue(db, DEFAULT_KB, "sup.md", "/w/sup.md", blob=new, supersede=True)
    assert second["id"] == first["id"] and second["blob_sha256"] == new
    # without supersede (uploads): a job of its own
    upload = jobs.enqueue(db, DEFAULT_KB, "sup.md", "/w/sup.md", blob=old)
    assert upload["id"] != first["id"]
    for _ in range(2):
        jobs.cancel(db, DEFAULT, jobs.list_jobs(db, DEFAULT, source_key="sup.md", state="queued")[0]["id"])


def test_deleting_frees_the_bytes_nobody_else_uses(services, indexer, tmp_path: Path) -> None:
    db = services.db
    shared = md("Both teams meet on Mondays at 09:30.", "Meetings")
    own_v1 = md("Room 401 seats twelve people.", "Rooms")
    own_v2 = md("Room 401 seats fourteen people.", "Rooms")
    (tmp_path / "x.md").write_bytes(shared)
    (tmp_path / "y.md").write_bytes(shared)
    (tmp_path / "z.md").write_bytes(own_v1)
    for name in ("x.md", "y.md", "z.md"):
        assert indexer.index_file(tmp_path / name, f"del/{name}").status == "indexed"
    (tmp_path / "z.md").write_bytes(own_v2)
    assert indexer.index_file(tmp_path / "z.md", "del/z.md").status == "new_version"

    assert doc_store.mark_deleted(db, DEFAULT_KB, "del/z.md")
    assert not stored(db, sha(own_v1)) and not stored(db, sha(own_v2))  # every version's bytes: nobody else's
    assert doc_store.mark_deleted(db, DEFAULT_KB, "del/x.md")
    assert stored(db, sha(shared))  # y.md still has these bytes
    assert doc_store.mark_deleted(db, DEFAULT_KB, "del/y.md")
    assert not stored(db, sha(shared))
    assert rows(db, "SELECT count(*) AS n FROM blob_chunks WHERE sha256 = %s", sha(shared))[0]["n"] == 0
    # the versions stay as history
    assert rows(db, "SELECT count(*) AS n FROM document_versions v JOIN documents d ON d.id = v.document_id "
                    "WHERE d.source_key = 'del/z.md'")[0]["n"] == 2


def test_collection_spares_queued_jobs_and_young_bytes(services) -> None:
    db = services.db
    queued = blobs.put(db, b"# queued\n\nwaiting for a worker\n")
    loose = blobs.put(db, b"# loose\n\nnamed by nothing\n")
    job = jobs.enqueue(db, DEFAULT_KB, "gc/queued.md", "uploads/x/queued.md", blob=queued)
    assert blobs.collect(db, grace_s=3600, only=[queued, loose]) == (0, 0)  # both too young
    count, size = blobs.collect(db, grace_s=0, only=[queued, loose])
    assert (count, size) == (1, len(b"# loose\n\nnamed by nothing\n"))
    assert stored(db, queued) and not stored(db, loose)
    with db.connection() as conn:  # failed for a passing reason: a later round will need the bytes
        conn.execute("UPDATE ingestion_jobs SET state = 'failed', retry_failed = true WHERE id = %s", (job["id"],))
    assert blobs.collect(db, grace_s=0, only=[queued]) == (0, 0) and stored(db, queued)
    with db.connection() as conn:
        conn.execute("UPDATE ingestion_jobs SET retry_failed = false WHERE id = %s", (job["id"],))
    time.sleep(0.01)
    assert blobs.collect(db, grace_s=0)[0] >= 1 and not stored(db, queued)


def test_sizes_are_reported(services) -> None:
    sizes = {r["table"]: r for r in blobs.table_sizes(services.db)}
    assert {"blobs", "blob_chunks", "nodes", "embeddings"} <= set(sizes)
    assert sizes["blob_chunks"]["total_bytes"] > 0
    st = blobs.stats(services.db)
    assert st["blobs"] >= 1 and st["bytes"] > 0 and st["disk_bytes"] > 0


def test_a_delete_is_one_transaction(services, indexer, tmp_path: Path) -> None:
    """``Database.transaction``: every store call inside shares one connection; an error undoes them all
    (the DELETE route hides the document, frees its bytes and queues its delete job this way)."""
    db = services.db
    data = md("The archive closes at 17:00.", "Archive")
    (tmp_path / "t.md").write_bytes(data)
    assert indexer.index_file(tmp_path / "t.md", "tx/t.md").status == "indexed"
    with db.transaction() as conn, db.connection() as inner:
        assert inner is conn  # joined, not a second pooled connection
    with pytest.raises(RuntimeError), db.transaction():
        assert doc_store.mark_deleted(db, DEFAULT_KB, "tx/t.md")
        assert not stored(db, sha(data))  # freed inside the transaction ...
        jobs.enqueue(db, DEFAULT_KB, "tx/t.md", "", "delete")
        raise RuntimeError("the request failed after the delete")
    # ... and all of it undone with it
    assert rows(db, "SELECT deleted_at FROM documents WHERE source_key = 'tx/t.md'")[0]["deleted_at"] is None
    assert stored(db, sha(data)) and not jobs.list_jobs(db, DEFAULT, source_key="tx/t.md")
    with db.transaction():
        assert doc_store.mark_deleted(db, DEFAULT_KB, "tx/t.md")
    assert rows(db, "SELECT deleted_at FROM documents WHERE source_key = 'tx/t.md'")[0]["deleted_at"] is not None
    assert not stored(db, sha(data))
