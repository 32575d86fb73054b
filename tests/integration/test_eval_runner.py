"""The eval runner end to end on suites/golden_en.yaml, against the module's fresh database."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dropqa.evals.report import SUMMARY_KEYS, print_console, write_report
from dropqa.evals.runner import run_suite
from dropqa.evals.suite import load_suite

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def report(services, tmp_path_factory: pytest.TempPathFactory) -> dict:
    items = load_suite(ROOT / "suites" / "golden_en.yaml")
    return run_suite(services, items, ROOT / "suites" / "corpus_en", work=tmp_path_factory.mktemp("stage"),
                     suite_name="golden_en.yaml")


def test_report_shape_and_metrics(report):
    s = report["summary"]
    assert tuple(s) == SUMMARY_KEYS
    assert s["n"] == 12 and len(report["items"]) == 12
    assert all(o["status"] == "indexed" for o in report["meta"]["indexing"]), report["meta"]["indexing"]
    assert s["index_seconds"] > 0
    assert s["evidence_recall_at_10"] > 0 and s["mrr_at_10"] > 0 and s["answer_accuracy"] > 0
    assert s["latency_p50_ms"] > 0 and s["latency_p95_ms"] >= s["latency_p50_ms"]
    assert s["all_evidence_at_10"] is not None  # the suite has multi-document questions
    assert {"multi_hop", "no_answer", "cross_language"} <= set(s["by_type"])
    assert set(s["by_language"]) == {"en", "zh"}
    for r in report["items"]:
        assert r["error"] is None, (r["id"], r["error"])
        assert r["mode"] in {"direct", "agent"} and isinstance(r["iterations"], int)
        assert set(r["metrics"]) >= {"recall_at_5", "answer_accuracy", "no_answer_accuracy", "citation_precision"}
    first = next(r for r in report["items"] if r["id"] == "en-annual-leave")
    assert first["sources"] and first["sources"][0]["node_id"]


def test_written_reports(report, tmp_path: Path, capsys):
    json_path, html_path = write_report(report, tmp_path / "out")
    data = json.loads(json_path.read_text(encoding="utf-8"))
    assert tuple(data["summary"]) == SUMMARY_KEYS and len(data["items"]) == 12
    page = html_path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.I)
    assert "http" not in page and "<link" not in page and "<script" not in page
    print_console(report)
    assert "en-annual-leave" in capsys.readouterr().out


def test_cli_eval_on_a_limited_subset(settings, tmp_path: Path):
    """`dropqa eval` with --reuse against the already indexed module database, two questions."""
    from dropqa.evals.command import eval_command

    rc = eval_command(ROOT / "suites" / "golden_en.yaml", ROOT / "suites" / "corpus_en", tmp_path / "r",
                      limit=2, types="single_hop,table", reuse=True, settings=settings)
    assert rc == 0
    data = json.loads((tmp_path / "r" / "report.json").read_text(encoding="utf-8"))
    assert data["summary"]["n"] == 2 and data["summary"]["index_seconds"] is None
    assert {r["type"] for r in data["items"]} <= {"single_hop", "table"}


def test_fresh_store_on_an_external_server_is_a_new_database_dropped_afterwards(settings):
    import psycopg

    from dropqa.evals.command import fresh_settings

    with fresh_settings(settings) as fresh:
        assert fresh.database_url != settings.database_url
        with psycopg.connect(fresh.database_url) as conn:
            name = conn.execute("SELECT current_database()").fetchone()[0]
        assert name.startswith("dropqa_eval_")
    with psycopg.connect(settings.database_url) as conn:
        assert conn.execute("SELECT count(*) FROM pg_database WHERE datname = %s", (name,)).fetchone()[0] == 0


def test_llm_judge_adds_answer_correctness(services, report, capsys):
    """With a judge (a scripted OpenAI-compatible server behind the real client), every answerable
    item gets a verdict and the summary gains answer_correctness; offline (above) it is absent."""
    from dropqa.config import ChatModelSettings
    from dropqa.evals.judge import AnswerJudge
    from dropqa.models.chat import build_chat_model
    from tests.support.scripted_openai import ScriptedOpenAI

    assert "answer_correctness" not in report["summary"] and report["meta"]["judge"] is None

    def grade(body: dict) -> dict:
        prompt = body["messages"][-1]["content"]
        verdict = "partial" if "SeaGlide" in prompt else "correct"
        return {"content": f'{{"verdict": "{verdict}", "reason": "scripted"}}'}

    items = [i for i in load_suite(ROOT / "suites" / "golden_en.yaml")
             if i.id in {"en-annual-leave", "en-max-depth", "en-no-ceo"}]
    with ScriptedOpenAI(grade) as llm:
        judge = AnswerJudge.for_chat_model(build_chat_model(ChatModelSettings(**llm.chat_config())), llm.model)
        judged = run_suite(services, items, ROOT / "suites" / "corpus_en", index=False, judge=judge)
    assert len(llm.requests) == 2  # the no-answer item is not judged
    assert all(b["response_format"]["type"] == "json_schema" for b in llm.requests)  # with_structured_output
    s = judged["summary"]
    assert s["answer_correctness"] == 0.75 and judged["meta"]["judge"] == llm.model
    assert s["by_type"]["table"]["answer_correctness"] == 0.5
    assert s["by_type"]["no_answer"]["answer_correctness"] is None
    by_id = {r["id"]: r for r in judged["items"]}
    assert by_id["en-annual-leave"]["judge"] == {"verdict": "correct", "score": 1.0, "reason": "scripted",
                                                 "error": None}
    assert "judge" not in by_id["en-no-ceo"]
    print_console(judged)
    assert "judge" in capsys.readouterr().out
