"""``python -m dropqa.evals.devtable``: the dev-suite table from small fake report dicts."""

from __future__ import annotations

import json
from pathlib import Path

from dropqa.evals.devtable import COLUMNS, TYPE_COLUMNS, main, render, suite_name


def summary(n: int, **over) -> dict:
    s = {"n": n, "evidence_recall_at_5": 0.5, "evidence_recall_at_10": 0.75, "all_evidence_at_10": None,
         "mrr_at_10": 0.4567, "answer_accuracy": 0.25, "no_answer_accuracy": None, "false_abstention_rate": 0.0,
         "citation_precision": 0.333, "latency_p50_ms": 120, "latency_p95_ms": 900, "index_seconds": 3.2,
         "by_type": {}, "by_language": {}}
    return {**s, **over}


def report(summ: dict, **meta) -> dict:
    return {"summary": summ, "items": [], "meta": {"suite": "golden.yaml", "corpus": "../shared/x/corpus",
                                                   "offline": True, "embeddings": "multilingual-e5-small",
                                                   "judge": None, "created_at": "2026-11-25T03:00:00+0000", **meta}}


DRAGON = report(summary(98, all_evidence_at_10=0.4, no_answer_accuracy=0.75, by_type={
    "multi_hop": summary(38, all_evidence_at_10=0.421),
    "comparison": summary(14, all_evidence_at_10=0.5),
    "no_answer": summary(12, evidence_recall_at_5=None, no_answer_accuracy=0.75),
    "single_hop": summary(20),
}))
XL = report(summary(7, by_type={"cross_language": summary(7)}), suite="cmrc-dev-zh.yaml")


def rows(md: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip("|").split("|")] for line in md.splitlines() if line.startswith("| ")]


def test_one_row_per_report_with_summary_and_by_type_columns():
    md = render([("dragonball-dev-en", DRAGON), ("xl-cmrc-dev-zh", XL)], date="2026-11-25", commit="abc1234")
    assert md.startswith("# DropQA dev suites — 2026-11-25, commit abc1234\n")
    header, first, second = rows(md)
    assert header == ["suite", *(label for _, label in COLUMNS), *(label for _, _, label in TYPE_COLUMNS)]
    assert "|---|" + "---:|" * (len(header) - 1) in md
    row = dict(zip(header, first, strict=True))
    assert row["suite"] == "dragonball-dev-en" and row["n"] == "98"
    assert row["recall@5"] == "0.500" and row["MRR@10"] == "0.457" and row["all@10"] == "0.400"
    assert row["p50 ms"] == "120" and row["p95 ms"] == "900"
    assert row["multi_hop all@10"] == "0.421" and row["comparison all@10"] == "0.500"
    assert row["no_answer acc"] == "0.750"
    xl = dict(zip(header, second, strict=True))
    # a suite without those types, or a number that does not apply: a dash, never 0
    assert xl["suite"] == "xl-cmrc-dev-zh" and xl["all@10"] == "–" and xl["multi_hop all@10"] == "–"
    assert xl["no_answer acc"] == "–"
    assert "Offline (extractive answers); embeddings multilingual-e5-small." in md
    assert "- `xl-cmrc-dev-zh`: cmrc-dev-zh.yaml on `../shared/x/corpus`, run 2026-11-25T03:00:00+0000" in md


def test_judge_column_only_when_a_report_was_judged():
    judged = report(summary(3, answer_correctness=0.667), offline=False, judge="gpt-x")
    header, *_ = rows(render([("samples", judged), ("other", XL)], date="d", commit="c"))
    assert header[header.index("answer acc") + 1] == "judge"
    md = render([("samples", judged), ("other", XL)], date="d", commit="c")
    assert rows(md)[1][header.index("judge")] == "0.667" and rows(md)[2][header.index("judge")] == "–"
    assert "judge gpt-x" in md
    assert "judge" not in rows(render([("other", XL)], date="d", commit="c"))[0]


def test_suite_name_is_the_report_folder():
    assert suite_name(Path("eval-report/cmrc-dev-zh/report.json"), XL) == "cmrc-dev-zh"
    assert suite_name(Path("report.json"), XL) == "cmrc-dev-zh.yaml"


def test_command_reads_reports_and_writes_the_table(tmp_path: Path, capsys):
    for name, rep in (("samples", DRAGON), ("xl-samples", XL)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "report.json").write_text(json.dumps(rep), encoding="utf-8")
    out = tmp_path / "dev.md"
    assert main([str(tmp_path / "samples" / "report.json"), str(tmp_path / "xl-samples" / "report.json"),
                 "--out", str(out), "--commit", "deadbee", "--date", "2026-01-02"]) == 0
    md = out.read_text(encoding="utf-8")
    assert "commit deadbee" in md and [r[0] for r in rows(md)] == ["suite", "samples", "xl-samples"]
    assert main([str(tmp_path / "missing.json")]) == 2
    assert "no such report" in capsys.readouterr().err
