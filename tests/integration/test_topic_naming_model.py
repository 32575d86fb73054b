"""Topics named by a chat model: each cluster of documents is named with a JSON object checked
against a schema and the naming rules; a reply that breaks them leaves the phrase name."""

from __future__ import annotations

import json

import pytest

from dropqa.config import Settings
from dropqa.ingestion.phrases import valid_name
from dropqa.ingestion.pipeline import Indexer
from dropqa.ingestion.topic_clusters import refresh_topics
from tests.support import ScriptedOpenAI

pytestmark = pytest.mark.integration


def cluster_script(body: dict) -> dict:
    prompt = str(body["messages"][-1]["content"])
    if '"topics"' not in prompt or ("Documents:" not in prompt and "文档：" not in prompt):
        return {"status": 500}  # chunk contexts: not what this test is about
    if "- backup-a.md" in prompt:  # the cluster of the backup documents
        return {"content": json.dumps({"topics": [{"name": "Data Backup",
                                                   "description": "How data is backed up and restored."}]})}
    return {"content": json.dumps({"topics": [{"name": "Tom 2024", "description": "x"}]})}  # breaks the rules


def test_chat_model_names_the_clusters_and_bad_names_fall_back(services, tmp_path):
    settings = Settings(data_dir=services.settings.data_dir, database_url=services.settings.database_url,
                        ingestion={"parse_in_subprocess": False})
    docs = {"backup-a.md": "Nightly backups of the database are kept for 30 days. Restore drills run monthly.",
            "backup-b.md": "The backup policy: full backups weekly, incremental backups daily, restore tests.",
            "travel-a.md": "Travel expenses: hotel costs are reimbursed up to the city limit; meals per diem.",
            "travel-b.md": "Travel expenses are claimed within 30 days; the travel request needs approval."}
    with ScriptedOpenAI(cluster_script) as llm:
        settings.models.chat = type(settings.models.chat)(**llm.chat_config())
        indexer = Indexer(services.db, settings, services.embedder)
        for name, body in docs.items():
            (tmp_path / name).write_text(f"# {name[:-3]}\n\n{body}\n", encoding="utf-8")
            assert indexer.index_file(tmp_path / name, f"model/{name}").status == "indexed"
        stored = refresh_topics(services.db, settings, services.embedder.name, indexer.model)
        asked = [b for b in llm.requests if "Documents:" in str(b["messages"][-1]["content"])]
    by_model = [s for s in stored if s["named_by"] == "model"]
    assert asked and [s["name"] for s in by_model] == ["data backup"], stored
    assert by_model[0]["description"] == "How data is backed up and restored."
    rest = [s for s in stored if s["named_by"] != "model"]
    assert rest and all(valid_name(s["name"]) and "tom" not in s["name"] for s in rest), stored
