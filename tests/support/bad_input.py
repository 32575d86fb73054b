"""Shared by the bad-input test modules: run a file as a job, and prove the rest of the index intact."""

from __future__ import annotations

from pathlib import Path

import pytest

from dropqa.ingestion.worker import Worker
from dropqa.store import jobs
from dropqa.store.search import fulltext
from dropqa.text.segment import query_terms
from tests.support import documents as gen
from tests.support.scopes import DEFAULT, DEFAULT_KB

TABLES = ("documents", "document_versions", "nodes", "embeddings", "images", "title_index", "topics",
          "document_topics")
MANUAL = ("# 运维手册\n\n## 备份与恢复\n\n核心数据库的恢复时间目标是 45 分钟，每季度演练一次。\n\n"
          "## Monitoring\n\nThe on-call engineer acknowledges a paging alert within 10 minutes.\n")
FACTS = {"manual.md": "恢复时间目标", "policy.docx": "住宿标准"}


def count_rows(db) -> dict[str, int]:
    with db.connection() as conn:
        return {t: conn.execute(f"SELECT count(*) AS n FROM {t}").fetchone()["n"] for t in TABLES}


def run(worker: Worker, path: Path, key: str | None = None) -> jobs.Job:
    """Queue one file and run the worker until that job has finished."""
    job = jobs.enqueue(worker.db, DEFAULT_KB, key or path.name, str(path))
    for _ in range(10):
        row = worker.run_once()
        assert row is not None, "the job was not claimed"
        if row["id"] == job["id"] and row["state"] in jobs.TERMINAL_STATES:
            return row
    pytest.fail(f"job for {path.name} did not finish")


def build_baseline(services, worker: Worker, folder: Path) -> dict:
    """Index two documents (Markdown, Word) and snapshot them and every table's row count."""
    (folder / "manual.md").write_text(MANUAL, encoding="utf-8")
    (folder / "policy.docx").write_bytes(gen.docx_bytes([
        ("h1", "差旅管理办法"), ("h2", "住宿"), ("p", "一线城市住宿标准为每晚 600 元，其他城市每晚 450 元。"),
    ]))
    for name in FACTS:
        row = run(worker, folder / name)
        assert (row["state"], row["outcome"]) == ("done", "indexed"), row["error"]
    with services.db.connection() as conn:
        docs = {r["source_key"]: r for r in conn.execute(
            "SELECT d.source_key, d.id, d.current_version, d.file_hash, "
            "(SELECT count(*) FROM nodes n WHERE n.document_id = d.id) AS nodes FROM documents d").fetchall()}
    return {"docs": docs, "rows": count_rows(services.db)}


def refuse(services, baseline: dict, worker: Worker, path: Path, *needles: str) -> jobs.Job:
    """Run ``path``: its job must fail with ``needles`` in the message, leave no row anywhere and
    leave the baseline intact."""
    before = count_rows(services.db)
    row = run(worker, path)
    assert_failed(row, *needles)
    assert count_rows(services.db) == before
    assert_intact(services, baseline)
    return row


def assert_intact(services, baseline: dict) -> None:
    """The baseline documents are current, unchanged and found by search."""
    db = services.db
    with db.connection() as conn:
        for key, before in baseline["docs"].items():
            now = conn.execute(
                "SELECT d.current_version, d.file_hash, d.deleted_at, "
                "(SELECT count(*) FROM nodes n WHERE n.document_id = d.id) AS nodes FROM documents d "
                "WHERE d.id = %s", (before["id"],)).fetchone()
            assert (now["current_version"], now["file_hash"], now["nodes"], now["deleted_at"]) == (
                before["current_version"], before["file_hash"], before["nodes"], None), key
    for key, fact in FACTS.items():
        hits = fulltext(db, query_terms(fact), DEFAULT, 5)
        assert any(h["document_name"] == key and fact in h["content"] for h in hits), f"{key} no longer found"


def assert_failed(row: jobs.Job, *needles: str) -> None:
    assert row["state"] == "failed", (row["state"], row["outcome"])
    assert row["attempts"] == 1  # a bad file fails the same way every time: not retried
    for needle in needles:
        assert needle in row["error"], row["error"]


def assert_indexed(row: jobs.Job) -> None:
    assert (row["state"], row["outcome"], row["error"]) == ("done", "indexed", None), row["error"]
