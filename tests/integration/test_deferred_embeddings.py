"""Answerable before embedded: a version answers by full-text as soon as it is written, semantic
search uses the embeddings filled in afterwards, versions never mix, and a process killed between
the two phases leaves a version that answers and whose embeddings the next worker completes.
All against the real embedded PostgreSQL, the real e5 model and real processes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from datetime import datetime
from pathlib import Path

import pytest

from dropqa.ingestion.worker import Worker
from dropqa.retrieval.search import hybrid_search
from dropqa.runtime.run import ask
from dropqa.store import documents as doc_store
from dropqa.store import jobs, pending, search
from dropqa.store.scope import Scope
from tests.conftest import EXAMPLES, ROOT
from tests.support.scopes import DEFAULT, DEFAULT_KB

pytestmark = pytest.mark.integration

QUESTION = "核心数据库的恢复时间目标是多少？"
MANUAL = "云栖数据平台运维手册.md"


def count(db, sql: str, *args) -> int:
    with db.connection() as conn:
        return conn.execute(sql, args).fetchone()["n"]


def embedded_nodes(db, doc_id, version) -> int:
    return count(db, "SELECT count(*) AS n FROM embeddings e JOIN nodes n ON n.id = e.node_id "
                     "WHERE n.document_id = %s AND n.version = %s", doc_id, version)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("deferred")
    shutil.copy2(EXAMPLES / MANUAL, root / MANUAL)
    shutil.copy2(EXAMPLES / "pricing.md", root / "pricing.md")
    return root


def test_version_answers_by_fulltext_before_its_embeddings_exist(services, indexer, corpus):
    outcome = indexer.index_file(corpus / MANUAL, MANUAL, embed=False)
    assert outcome.status == "indexed", outcome.error
    doc_id, version = outcome.document_id, outcome.version
    waiting = pending.count_for(services.db, doc_id, version)
    assert waiting > 0 and embedded_nodes(services.db, doc_id, version) == 0
    assert doc_store.embedding_counts(services.db, DEFAULT, doc_id, version) == (0, waiting)

    qvec = services.embedder.embed_query(QUESTION).tolist()
    assert search.semantic(services.db, qvec, services.embedder.name, services.embedder.dimensions,
                           DEFAULT, 10) == []  # nothing embedded: the vector channel finds nothing
    found = hybrid_search(services, QUESTION, DEFAULT)
    top = found.hits[0]
    assert top.document_name == MANUAL and "45" in top.content
    assert top.metadata["semantic_pending"] is True and top.relevance > 0.3

    result = ask(services, QUESTION)
    assert result.answerable and "45 分钟" in result.answer
    assert result.sources[0].document_name == MANUAL


def test_semantic_search_uses_the_embeddings_once_filled(services, indexer, corpus):
    doc = doc_store.find_by_key(services.db, DEFAULT_KB, MANUAL)
    filled = indexer.fill((doc["id"], doc["current_version"]))
    assert filled > 0 and pending.count_for(services.db, doc["id"], doc["current_version"]) == 0
    assert doc_store.embedding_counts(services.db, DEFAULT, doc["id"], 1)[1] == 0
    qvec = services.embedder.embed_query(QUESTION).tolist()
    rows = search.semantic(services.db, qvec, services.embedder.name, services.embedder.dimensions, DEFAULT, 5)
    assert rows and rows[0]["document_name"] == MANUAL
    top = hybrid_search(services, QUESTION, DEFAULT).hits[0]
    assert "semantic_pending" not in top.metadata and "semantic" in top.channels


def test_new_version_filling_never_mixes_with_the_old_one(services, indexer, corpus):
    first = indexer.index_file(corpus / "pricing.md", "pricing.md")
    assert first.status == "indexed" and pending.count_for(services.db, first.document_id, 1) == 0
    shutil.copy2(ROOT / "examples" / "updates" / "pricing.md", corpus / "pricing.md")
    second = indexer.index_file(corpus / "pricing.md", "pricing.md", embed=False)
    assert second.status == "new_version" and second.version == 2
    assert pending.count_for(services.db, second.document_id, 2) > 0
    found = hybrid_search(services, "How much does business support cost per month?", DEFAULT)
    pricing = [h for h in found.hits if h.document_name == "pricing.md"]
    assert pricing and {h.version for h in pricing} == {2}  # v1's embeddings do not leak into answers
    assert "350 EUR" in pricing[0].content
    old = hybrid_search(services, "How much does business support cost per month?", Scope(kbs=(DEFAULT_KB,), version=1))
    assert {h.version for h in old.hits if h.document_name == "pricing.md"} == {1}
    listed = {d["source_key"]: d for d in doc_store.list_documents(services.db, DEFAULT)}["pricing.md"]
    assert listed["embed_pending"] > 0 and pending.index_status(listed["embed_done"], listed["embed_pending"])[
        "semantic_percent"] < 100


def test_worker_sweep_completes_pending_embeddings(services, indexer, corpus):
    assert pending.totals(services.db)["nodes"] > 0  # pricing v2 from the test before
    done = Worker(services, "sweeper").fill_pending()
    assert done > 0 and pending.totals(services.db)["nodes"] == 0
    doc = doc_store.find_by_key(services.db, DEFAULT_KB, "pricing.md")
    assert pending.index_status(*doc_store.embedding_counts(services.db, DEFAULT, doc["id"], 2))["label"] == \
        "full-text ready · semantic 100 %"


def linked_at(services, doc_id) -> datetime | None:
    """When the document's topic links were last written (None: it has none)."""
    with services.db.connection() as conn:
        row = conn.execute("SELECT min(created_at) AS at FROM document_topics WHERE document_id = %s",
                           (doc_id,)).fetchone()
    return row["at"]


def recomputed(at: datetime | None, before: datetime | None) -> bool:
    return at is not None and (before is None or at > before)


def test_worker_that_empties_a_backlog_recomputes_the_topics(services, indexer, tmp_path):
    """`dropqa index --no-wait` leaves a new document without embeddings: its topics come from its concepts
    alone (issue 24), and the worker that fills its embeddings recomputes them once the backlog is empty."""
    path = tmp_path / "glacier.md"
    path.write_text("# Glacier survey\n\n## Ice cores\n\nThe glacier survey drills ice cores every spring and "
                    "logs the ice core depth.\n\n## Meltwater\n\nMeltwater gauges on the glacier log the "
                    "meltwater flow of the glacier survey.\n", encoding="utf-8")
    outcome = indexer.index_file(path, "glacier.md", embed=False)
    indexer.refresh_topics()  # what `dropqa index --no-wait` does at its end
    doc_id = outcome.document_id
    assert pending.count_for(services.db, doc_id, 1) > 0
    before = linked_at(services, doc_id)  # the links `--no-wait` made (none, or from concepts alone)
    stop = threading.Event()
    worker = threading.Thread(target=Worker(services, "backlog").run_forever, args=(stop, 0.1), daemon=True)
    worker.start()
    try:
        deadline = time.monotonic() + 300
        while not recomputed(linked_at(services, doc_id), before) or pending.count_for(services.db, doc_id, 1):
            assert time.monotonic() < deadline, "the topics were not recomputed after the backlog was filled"
            time.sleep(0.2)
    finally:
        stop.set()
        worker.join(60)
    assert pending.count_for(services.db, doc_id, 1) == 0


KILL_AFTER_WRITE = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from dropqa.config import Settings
    from dropqa.ingestion.pipeline import Indexer
    from dropqa.services import Services

    svc = Services.open(Settings(database_url=sys.argv[1], data_dir=sys.argv[2]))
    indexer = Indexer(svc.db, svc.settings, svc.embedder)

    def progress(stage, details=None):
        if stage == "embedding":  # the version is written; die before its first embedding batch
            print("written", flush=True)
            os.kill(os.getpid(), signal.SIGKILL)

    indexer.index_file(Path(sys.argv[3]), sys.argv[4], progress=progress)
    print("not killed", flush=True)
""")


def test_killed_between_the_phases_answers_and_the_next_worker_completes(services, settings, tmp_path):
    (tmp_path / "killed.md").write_text(
        "# 极光备份规范\n\n## 保留期限\n\n极光系统的冷备份保留九十一天，由运维值班组负责巡检。\n\n"
        "## Recovery\n\nThe Aurora cold backups are restored in a quarterly drill.\n", encoding="utf-8")
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "-c", KILL_AFTER_WRITE, settings.database_url, str(settings.data_dir),
                           str(tmp_path / "killed.md"), "killed.md"], env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == -9 and "written" in proc.stdout, proc.stdout + proc.stderr
    doc = doc_store.find_by_key(services.db, DEFAULT_KB, "killed.md")
    assert doc is not None and doc["current_version"] == 1
    assert pending.count_for(services.db, doc["id"], 1) > 0 and embedded_nodes(services.db, doc["id"], 1) == 0

    result = ask(services, "极光系统的冷备份保留多少天？")
    assert result.answerable and "九十一天" in result.answer and result.sources[0].document_name == "killed.md"

    # the next worker: the job for the same file finds it unchanged and completes its embeddings
    job = jobs.enqueue(services.db, DEFAULT_KB, "killed.md", str(tmp_path / "killed.md"))
    final = Worker(services, "next-worker").run_once()
    assert final is not None and final["id"] == job["id"]
    assert final["state"] == "done" and final["outcome"] == "unchanged"
    assert pending.count_for(services.db, doc["id"], 1) == 0 and embedded_nodes(services.db, doc["id"], 1) > 0


def test_near_identical_passages_are_embedded_once(services, indexer, tmp_path):
    """Issue 23: 2,000 headings, each over one templated line that differs only in its numbers, cost a
    handful of embeddings, not 2,000; every passage still has its vector, and full-text search still tells
    them apart by the numbers."""
    lines = [f"{'#' * (1 + i % 4)} Heading {i}\n\nUnder heading {i} the quokka quota is "
             f"{10_000 + i * 7 % 2003} units.\n" for i in range(2_000)]
    path = tmp_path / "templated.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    outcome = indexer.index_file(path, "templated.md", embed=False)
    assert outcome.status == "indexed", outcome.error
    doc_id = outcome.document_id
    texts = count(services.db, "SELECT count(DISTINCT text_hash) AS n FROM pending_embeddings WHERE document_id = %s",
                  doc_id)
    assert pending.count_for(services.db, doc_id, 1) == 2_000 and texts <= 8, texts  # a text per breadcrumb depth
    indexer.fill((doc_id, 1))
    assert embedded_nodes(services.db, doc_id, 1) == 2_000 and pending.count_for(services.db, doc_id, 1) == 0
    assert count(services.db, "SELECT count(DISTINCT e.text_hash) AS n FROM embeddings e JOIN nodes n "
                              "ON n.id = e.node_id WHERE n.document_id = %s", doc_id) <= 8
    hits = search.fulltext(services.db, ["11171"], DEFAULT, 3)  # 11171 = 10,000 + 1598 * 7 % 2003
    assert [h["content"] for h in hits] == ["Under heading 1598 the quokka quota is 11171 units."]
    qvec = services.embedder.embed_query("How large is the quokka quota?").tolist()
    near = search.semantic(services.db, qvec, services.embedder.name, services.embedder.dimensions, DEFAULT, 5)
    assert near and all(h["document_name"] == "templated.md" for h in near)
