"""Indexing the examples into a real embedded PostgreSQL: trees, versions, unchanged files."""

from __future__ import annotations

import shutil

import pytest

from dropqa.store import documents as doc_store
from dropqa.store import nodes as node_store
from tests.conftest import EXAMPLES, ROOT
from tests.support.scopes import DEFAULT, DEFAULT_KB

pytestmark = pytest.mark.integration


def count(db, sql: str, *args) -> int:
    with db.connection() as conn:
        return conn.execute(sql, args).fetchone()["n"]


def test_examples_are_indexed_with_section_tree(services, indexed_examples):
    docs = {d["source_key"]: d for d in doc_store.list_documents(services.db, DEFAULT)}
    assert set(docs) == {p.name for p in EXAMPLES.iterdir()}
    manual = docs["云栖数据平台运维手册.md"]
    tree = node_store.outline(services.db, DEFAULT, manual["id"], 1)
    titles = [n["title"] for n in tree if n["node_type"] == "section"]
    assert "第3章 备份与恢复" in titles and "3.2 恢复演练" in titles
    assert all(n["summary"] for n in tree)  # every section and the document have a summary
    # meaningless heading "第4章 其他" is not meaningless ("其他" follows a number) — kept as written
    assert "第4章 其他" in titles


def test_breadcrumbs_and_embeddings_for_every_content_node(services, indexed_examples):
    db = services.db
    assert count(db, "SELECT count(*) AS n FROM nodes WHERE node_type NOT IN ('section','document') "
                     "AND content <> '' AND id NOT IN (SELECT node_id FROM embeddings)") == 0
    with db.connection() as conn:
        row = conn.execute("SELECT breadcrumb FROM nodes WHERE content LIKE %s", ("%恢复时间目标%",)).fetchone()
    assert row["breadcrumb"] == "云栖数据平台运维手册.md > 云栖数据平台运维手册 > 第3章 备份与恢复 > 3.2 恢复演练"


def test_unchanged_file_writes_nothing(services, indexer, indexed_examples):
    before = count(services.db, "SELECT count(*) AS n FROM nodes")
    outcome = indexer.index_file(indexed_examples / "pricing.md", "pricing.md")
    assert outcome.status == "unchanged" and outcome.version == 1
    assert count(services.db, "SELECT count(*) AS n FROM nodes") == before


def test_changed_file_becomes_version_two_and_old_one_stays(services, indexer, indexed_examples):
    shutil.copy2(ROOT / "examples" / "updates" / "pricing.md", indexed_examples / "pricing.md")
    outcome = indexer.index_file(indexed_examples / "pricing.md", "pricing.md")
    assert outcome.status == "new_version" and outcome.version == 2
    doc = doc_store.find_by_key(services.db, DEFAULT_KB, "pricing.md")
    assert doc["current_version"] == 2
    assert [v["version"] for v in doc_store.list_versions(services.db, DEFAULT, doc["id"])] == [1, 2]
    assert count(services.db, "SELECT count(*) AS n FROM nodes WHERE document_id = %s AND version = 1",
                 doc["id"]) > 0
    # identical bytes again: unchanged
    assert indexer.index_file(indexed_examples / "pricing.md", "pricing.md").status == "unchanged"


def test_bad_files_fail_alone_with_a_message(services, indexer, tmp_path):
    before = count(services.db, "SELECT count(*) AS n FROM documents")
    empty = tmp_path / "empty.md"
    empty.write_bytes(b"")
    binary = tmp_path / "blob.md"
    binary.write_bytes(bytes(range(256)) * 40)
    missing = tmp_path / "missing.md"
    results = {p.name: indexer.index_file(p, p.name) for p in (empty, binary, missing)}
    assert results["empty.md"].status == "failed" and "empty" in results["empty.md"].error
    assert "unsupported" in results["blob.md"].error
    assert "cannot read" in results["missing.md"].error
    assert count(services.db, "SELECT count(*) AS n FROM documents") == before


def test_gbk_text_and_long_single_line(services, indexer, tmp_path):
    gbk = tmp_path / "通知.txt"
    gbk.write_bytes("第一章 总则\n\n本通知自2025年1月1日起施行，适用于全体员工。\n".encode("gbk"))
    long_line = tmp_path / "long.txt"
    long_line.write_text("数据" * 200_000, encoding="utf-8")
    assert indexer.index_file(gbk, gbk.name).status == "indexed"
    out = indexer.index_file(long_line, long_line.name)
    assert out.status == "indexed" and out.nodes > 100
    with services.db.connection() as conn:
        row = conn.execute("SELECT content FROM nodes WHERE content LIKE %s", ("%2025年1月1日起施行%",)).fetchone()
    assert row is not None
