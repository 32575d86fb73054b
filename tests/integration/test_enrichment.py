"""Contextual enrichment and topic naming with a chat model: the real langchain-openai client talks
to a scripted OpenAI-compatible server (tests/support/scripted_openai.py); the store is real."""

from __future__ import annotations

import json
import re
import threading
import time

import pytest

from dropqa.config import Settings
from dropqa.ingestion.pipeline import Indexer
from dropqa.ingestion.rows import embed_key
from dropqa.store import documents as doc_store
from dropqa.text.sentences import truncate
from tests.support import ScriptedOpenAI
from tests.support.scopes import DEFAULT

pytestmark = pytest.mark.integration

REPORT_ZH = """# 2024年度运维报告

## 备份与恢复

核心数据库每天凌晨 2 点做全量备份，备份保留 30 天。

它在去年的演练中把恢复时间缩短到了 45 分钟。

该方案同时覆盖了异地灾备机房。

## 值班制度

值班工程师需要在 10 分钟内响应告警。

节假日由两名工程师同时值班。
"""

REPORT_EN = """# Field Guide

## Batteries

It lasts nine hours on a single charge.

Charging to full takes ninety minutes.
"""

CHUNK = re.compile(r"^\[(\d+)\] ", re.MULTILINE)


class ModelScript:
    """Answers context and topic prompts; records concurrency; can be told to fail."""

    def __init__(self, topics: list[str] | None = None, fail_contexts: str | None = None, delay: float = 0.0):
        self.topics = topics or ["数据备份", "灾难恢复", "值班管理"]
        self.fail_contexts = fail_contexts  # None | "status" | "json" | "count"
        self.delay = delay
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()

    def __call__(self, body: dict) -> dict:
        prompt = body["messages"][-1]["content"]
        if '"topics"' in prompt:  # naming a cluster of documents (ingestion/topic_clusters.py)
            topic = {"name": self.topics[0], "description": "、".join(self.topics)}
            return {"content": "```json\n" + json.dumps({"topics": [topic]}, ensure_ascii=False) + "\n```"}
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            time.sleep(self.delay)
            n = len(CHUNK.findall(prompt))
            if self.fail_contexts == "status":
                return {"status": 500}
            if self.fail_contexts == "json":
                return {"content": "Sorry, I cannot help with that."}
            if self.fail_contexts == "count":
                n -= 1
            section = prompt.split("章节：" if "章节：" in prompt else "Section: ", 1)[1].split("\n", 1)[0]
            word = "上下文" if "章节：" in prompt else "context"
            return {"content": json.dumps({"contexts": [f"{word} {i + 1} of {section}" for i in range(n)]})}
        finally:
            with self._lock:
                self.in_flight -= 1


def indexer_for(services, llm: ScriptedOpenAI, **ingestion) -> Indexer:
    settings = Settings(data_dir=services.settings.data_dir, database_url=services.settings.database_url,
                        models={"chat": llm.chat_config()},
                        # one chunk per paragraph: these tests count the chunks a section's contexts cover
                        ingestion={"parse_in_subprocess": False, "merge_paragraph_chars": 0, **ingestion})
    return Indexer(services.db, settings, services.embedder)


def content_nodes(services, document_id) -> list[dict]:
    with services.db.connection() as conn:
        return conn.execute(
            "SELECT n.id, n.content, n.breadcrumb, n.metadata, e.text_hash FROM nodes n "
            "LEFT JOIN embeddings e ON e.node_id = n.id WHERE n.document_id = %s "
            "AND n.node_type NOT IN ('section', 'document') ORDER BY n.position", (document_id,)).fetchall()


def version_meta(services, document_id) -> dict:
    with services.db.connection() as conn:
        return conn.execute("SELECT metadata FROM document_versions WHERE document_id = %s ORDER BY version DESC "
                            "LIMIT 1", (document_id,)).fetchone()["metadata"]


def test_each_chunk_gets_a_generated_context_in_batches(services, tmp_path):
    script = ModelScript(delay=0.15)
    path = tmp_path / "运维报告.md"
    path.write_text(REPORT_ZH, encoding="utf-8")
    with ScriptedOpenAI(script) as llm:
        outcome = indexer_for(services, llm, context_batch_size=2, context_concurrency=2).index_file(
            path, "enrich/运维报告.md")
        requests = list(llm.requests)
    assert outcome.status == "indexed", outcome.error
    assert outcome.enrichment["contexts_generated"] == 5 and outcome.enrichment["contexts_fallback"] == 0
    context_prompts = [r["messages"][-1]["content"] for r in requests if '"contexts"' in r["messages"][-1]["content"]]
    # 3 chunks of 备份与恢复 in batches of 2, 2 chunks of 值班制度: 3 requests of at most 2 chunks each
    assert sorted(len(CHUNK.findall(p)) for p in context_prompts) == [1, 2, 2]
    assert all("片段" in p and "2024年度运维报告.md" not in p for p in context_prompts)  # the Chinese prompt
    assert any("章节：2024年度运维报告 > 备份与恢复" in p and "文档摘要：" in p for p in context_prompts)
    assert script.max_in_flight <= 2
    nodes = content_nodes(services, outcome.document_id)
    for n in nodes:
        context = n["metadata"]["context"]
        assert context.startswith("上下文 ") and context.endswith(n["breadcrumb"].split(" > ", 1)[1])
        embedded = f"{n['breadcrumb']}\n{context}\n{n['content']}"  # what was embedded: breadcrumb + context + chunk
        assert n["text_hash"] == embed_key(embedded)
    assert version_meta(services, outcome.document_id)["enrichment"]["mode"] == "model"
    # topics are named per cluster of documents, not per document: test_topic_naming_model.py


def test_english_document_gets_the_english_prompt(services, tmp_path):
    path = tmp_path / "guide.md"
    path.write_text(REPORT_EN, encoding="utf-8")
    with ScriptedOpenAI(ModelScript(topics=["Battery Life", "charging"])) as llm:
        indexer = indexer_for(services, llm)
        outcome = indexer.index_file(path, "enrich/guide.md")
        indexer.refresh_topics()
        prompts = [r["messages"][-1]["content"] for r in llm.requests]
    assert outcome.status == "indexed"
    assert any("Chunks:" in p and "Section: Field Guide > Batteries" in p for p in prompts)
    assert [n["metadata"]["context"] for n in content_nodes(services, outcome.document_id)] == [
        "context 1 of Field Guide > Batteries", "context 2 of Field Guide > Batteries"]
    names = {t["name"] for t in doc_store.document_topics(services.db, DEFAULT, outcome.document_id, 1)}
    assert names == {"battery life"}  # named by the model, normalised


@pytest.mark.parametrize("failure", ["status", "json", "count"])
def test_failed_enrichment_falls_back_and_never_fails_the_job(services, tmp_path, failure):
    path = tmp_path / f"report-{failure}.md"
    path.write_text(REPORT_ZH, encoding="utf-8")
    with ScriptedOpenAI(ModelScript(fail_contexts=failure)) as llm:
        outcome = indexer_for(services, llm, context_batch_size=8).index_file(path, f"enrich/fail-{failure}.md")
    assert outcome.status == "indexed", outcome.error
    assert (outcome.enrichment["contexts_generated"], outcome.enrichment["contexts_fallback"]) == (0, 5)
    assert outcome.enrichment["errors"] and any("contextual enrichment failed for 5 of 5 chunks" in w
                                                for w in outcome.warnings)
    nodes = content_nodes(services, outcome.document_id)
    assert all("context" not in n["metadata"] and n["text_hash"] for n in nodes)  # offline context, embedded


def test_unreachable_model_falls_back_to_phrase_topics(services, tmp_path):
    path = tmp_path / "down.md"
    path.write_text(REPORT_ZH, encoding="utf-8")
    with ScriptedOpenAI([]) as llm:  # every request answers 500
        indexer = indexer_for(services, llm)
    outcome = indexer.index_file(path, "enrich/down.md")  # and now nothing listens at all
    assert outcome.status == "indexed", outcome.error
    assert outcome.enrichment["contexts_fallback"] == 5
    stored = indexer.refresh_topics()  # the model cannot name the topics: the phrase names stay
    assert stored and all(s["named_by"] == "phrases" for s in stored)
    assert doc_store.document_topics(services.db, DEFAULT, outcome.document_id, 1)


def test_offline_context_is_the_section_summary(services, tmp_path):
    path = tmp_path / "offline.md"
    path.write_text(REPORT_ZH, encoding="utf-8")
    settings = Settings(data_dir=services.settings.data_dir, database_url=services.settings.database_url,
                        ingestion={"parse_in_subprocess": False, "merge_paragraph_chars": 0})  # a chunk per paragraph
    outcome = Indexer(services.db, settings, services.embedder).index_file(path, "enrich/offline.md")
    assert outcome.status == "indexed" and outcome.enrichment["mode"] == "offline"
    with services.db.connection() as conn:
        section = conn.execute("SELECT summary FROM nodes WHERE document_id = %s AND title = '备份与恢复'",
                               (outcome.document_id,)).fetchone()
    head = truncate(section["summary"], services.settings.ingestion.offline_context_chars)
    nodes = [n for n in content_nodes(services, outcome.document_id) if n["breadcrumb"].endswith("备份与恢复")]

    def digest(*parts: str) -> str:
        return embed_key("\n".join(parts))

    for n in nodes:  # breadcrumb + the section summary's start + chunk; not when the chunk already says it
        says_it = head.rstrip("…")[:40] in n["content"]
        expected = (n["breadcrumb"], n["content"]) if says_it else (n["breadcrumb"], head, n["content"])
        assert n["text_hash"] == digest(*expected)
    assert sum(1 for n in nodes if n["text_hash"] == digest(n["breadcrumb"], head, n["content"])) >= 2
