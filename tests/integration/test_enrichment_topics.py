"""Topics shared across documents (seed 000 §5.3): per-document names (jieba keywords offline, the chat
model when configured) clustered into one topic row per subject, with document_topics filled."""

from __future__ import annotations

import json

import pytest

from dropqa.config import Settings
from dropqa.ingestion.pipeline import Indexer
from dropqa.ingestion.topics import normalize_topic, related_names
from dropqa.store import documents as doc_store
from tests.support import ScriptedOpenAI

pytestmark = pytest.mark.integration

NAMES = {  # the topics the scripted model gives each document
    "backup-a.md": ["数据备份", "灾难恢复"],
    "backup-b.md": ["备份", "差旅报销"],
    "backup-c.md": ["数据备份"],
    "sec-a.md": ["信息安全"],
    "sec-b.md": ["网络安全"],
}


def script(body: dict) -> dict:
    prompt = body["messages"][-1]["content"]
    if '"topics"' in prompt:
        name = next(n for n in NAMES if f"文档：{n}" in prompt or f"Document: {n}" in prompt)
        return {"content": json.dumps({"topics": NAMES[name]}, ensure_ascii=False)}
    return {"status": 500}  # contexts: not what this module is about (offline fallback)


def topics_of(services, document_id) -> dict[str, object]:
    with services.db.connection() as conn:
        rows = conn.execute("SELECT t.name, t.id FROM document_topics dt JOIN topics t ON t.id = dt.topic_id "
                            "WHERE dt.document_id = %s", (document_id,)).fetchall()
    return {r["name"]: r["id"] for r in rows}


def test_names_are_normalised_and_related_only_when_they_overlap():
    assert normalize_topic("  Data　Backup!! ") == "data backup"
    assert related_names("备份", "数据备份") and related_names("backup", "backups")
    assert related_names("data backup", "backup data")  # same words
    assert not related_names("信息安全", "网络安全")  # close embeddings (0.97), different subjects
    assert not related_names("员工", "人员") and not related_names("a", "ab")


def test_model_named_topics_cluster_across_documents(services, tmp_path):
    settings = Settings(data_dir=services.settings.data_dir, database_url=services.settings.database_url,
                        ingestion={"parse_in_subprocess": False})
    with ScriptedOpenAI(script) as llm:
        settings.models.chat = type(settings.models.chat)(**llm.chat_config())
        indexer = Indexer(services.db, settings, services.embedder)
        docs = {}
        for name in NAMES:
            (tmp_path / name).write_text(f"# {name}\n\n## 说明\n\n这是关于{NAMES[name][0]}的制度说明。\n",
                                         encoding="utf-8")
            outcome = indexer.index_file(tmp_path / name, f"topics/{name}")
            assert outcome.status == "indexed" and outcome.enrichment["topics"] == "model", outcome.error
            docs[name] = outcome.document_id
    a, b, c = (topics_of(services, docs[n]) for n in ("backup-a.md", "backup-b.md", "backup-c.md"))
    assert set(a) == {"数据备份", "灾难恢复"}
    assert set(b) == {"数据备份", "差旅报销"}  # "备份" joined the 数据备份 cluster
    assert a["数据备份"] == b["数据备份"] == c["数据备份"]  # one topic row for the three documents
    with services.db.connection() as conn:
        alias = conn.execute("SELECT t.merged_into, c.name FROM topics t JOIN topics c ON c.id = t.merged_into "
                             "WHERE t.name = '备份'").fetchone()
        docs_on_cluster = conn.execute("SELECT count(DISTINCT document_id) AS n FROM document_topics "
                                       "WHERE topic_id = %s", (a["数据备份"],)).fetchone()["n"]
    assert alias["name"] == "数据备份" and docs_on_cluster == 3
    assert doc_store.topics_named(services.db, ["备份"]) == ["数据备份"]  # a question naming the alias
    sec_a, sec_b = topics_of(services, docs["sec-a.md"]), topics_of(services, docs["sec-b.md"])
    assert set(sec_a) == {"信息安全"} and set(sec_b) == {"网络安全"}  # close but different: two topics


def test_offline_keyword_topics_are_shared_by_name(services, indexer, tmp_path):
    body = "灾备演练每季度进行一次。灾备演练由运维部组织，灾备演练记录需归档。"
    ids = []
    for name in ("drill-1.md", "drill-2.md"):
        (tmp_path / name).write_text(f"# {name}\n\n{body}\n\n{name} 的其他内容。\n", encoding="utf-8")
        outcome = indexer.index_file(tmp_path / name, f"topics/{name}")
        assert outcome.status == "indexed" and outcome.enrichment["topics"] == "keywords"
        ids.append(outcome.document_id)
    first, second = topics_of(services, ids[0]), topics_of(services, ids[1])
    shared = set(first) & set(second)
    assert shared and all(first[n] == second[n] for n in shared)
    with services.db.connection() as conn:
        row = conn.execute("SELECT embedding_model, embedding IS NOT NULL AS has_vector FROM topics WHERE name = %s",
                           (sorted(shared)[0],)).fetchone()
    assert row["embedding_model"] == services.embedder.name and row["has_vector"]
