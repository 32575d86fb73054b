"""Evals per knowledge base: two suites indexed as separate bases of one store (``dropqa eval --kb NAME
--reuse``) answer exactly as each alone in a store of its own.

The suites are small: suites/golden_en.yaml on suites/corpus_en, and a slice of the shared sample suite
(../shared/samples: its Markdown and Word files and the questions whose evidence lies in them) — or,
where ../shared is not checked out, three questions on examples/corpus.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import psycopg
import pytest
import yaml

from dropqa.config import Settings
from dropqa.evals.command import eval_command
from tests.conftest import EXAMPLES, ROOT

pytestmark = [pytest.mark.integration, pytest.mark.heavy(65)]
SAMPLES = ROOT.parent / "shared" / "samples"
SLICE = (".md", ".docx")
LIMIT = 6  # questions per suite: enough to compare answers, few enough to keep the test short
EXAMPLE_ITEMS = [
    {"id": "ex-rto", "question": "核心数据库的恢复时间目标是多少？", "answers": ["45 分钟"], "type": "single_hop",
     "language": "zh", "version": None,
     "evidence": [{"document": "云栖数据平台运维手册.md", "section": "3.2 恢复演练", "contains": "45 分钟"}]},
    {"id": "ex-leave", "question": "How many days of annual leave do full-time employees get?", "answers": ["27 days"],
     "type": "single_hop", "language": "en", "version": None,
     "evidence": [{"document": "aurora_handbook.md", "section": None, "contains": "27 days"}]},
    {"id": "ex-none", "question": "星图计划的项目发起人是谁？", "answers": [], "type": "no_answer", "language": "zh",
     "version": None, "evidence": []},
]


def second_suite(tmp: Path) -> tuple[Path, Path]:
    """(golden file, corpus folder) of the second suite."""
    corpus = tmp / "corpus-b"
    corpus.mkdir()
    golden = tmp / "golden-b.yaml"
    if not (SAMPLES / "golden.yaml").is_file():
        for f in EXAMPLES.iterdir():
            shutil.copy2(f, corpus / f.name)
        golden.write_text(yaml.safe_dump(EXAMPLE_ITEMS, allow_unicode=True), encoding="utf-8")
        return golden, corpus
    files = {p.name for p in (SAMPLES / "corpus").iterdir() if p.suffix in SLICE}
    for name in files:
        shutil.copy2(SAMPLES / "corpus" / name, corpus / name)
    items = yaml.safe_load((SAMPLES / "golden.yaml").read_text(encoding="utf-8"))
    kept = [i for i in items if i["evidence"] and {e["document"] for e in i["evidence"]} <= files][:6]
    golden.write_text(yaml.safe_dump(kept, allow_unicode=True), encoding="utf-8")
    return golden, corpus


def fresh_database(server_url: str, name: str) -> str:
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return re.sub(r"/postgres\?", f"/{name}?", server_url, count=1)


def answers(out: Path) -> dict[str, dict]:
    """Per question: what it answered and from where (node ids differ between stores; the rest may not)."""
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return {i["id"]: {"answer": i["answer"], "answerable": i["answerable"], "confidence": i["confidence"],
                      "mode": i["mode"], "error": i["error"],
                      "sources": [(s["document_name"], s["section"], s["version"], s["relevance"], s["cited"],
                                   s["snippet"]) for s in i["sources"]]}
            for i in report["items"]}


def test_two_suites_in_one_store_answer_as_each_alone(pg_server_url: str, tmp_path: Path) -> None:
    suites = {"golden-en": (ROOT / "suites" / "golden_en.yaml", ROOT / "suites" / "corpus_en"),
              "samples": second_suite(tmp_path)}
    alone, shared = {}, {}
    for i, (kb, (golden, corpus)) in enumerate(suites.items()):
        own = Settings(data_dir=tmp_path / f"alone-{i}", database_url=fresh_database(pg_server_url, f"t_alone_{i}"))
        assert eval_command(golden, corpus, tmp_path / f"alone-{kb}", limit=LIMIT, reuse=True, settings=own) == 0
        alone[kb] = answers(tmp_path / f"alone-{kb}")
    one_store = Settings(data_dir=tmp_path / "shared", database_url=fresh_database(pg_server_url, "t_shared_store"))
    for kb, (golden, corpus) in suites.items():
        assert eval_command(golden, corpus, tmp_path / f"shared-{kb}", limit=LIMIT, reuse=True, settings=one_store,
                            kb=kb) == 0
        shared[kb] = answers(tmp_path / f"shared-{kb}")
    for kb in suites:
        assert alone[kb] and all(a["error"] is None for a in alone[kb].values())
        for item, answer in alone[kb].items():
            assert shared[kb][item] == answer, (kb, item)
    with psycopg.connect(one_store.database_url) as conn:  # both suites in one store, each its own base
        rows = conn.execute("SELECT b.name, count(d.id) FROM knowledge_bases b LEFT JOIN documents d "
                            "ON d.kb_id = b.id GROUP BY b.name ORDER BY b.name").fetchall()
    assert [r[0] for r in rows] == ["default", "golden-en", "samples"] and rows[0][1] == 0
    assert all(n > 0 for _, n in rows[1:])
