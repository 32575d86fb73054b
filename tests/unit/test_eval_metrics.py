"""Eval metrics on hand-made results, and golden-suite validation errors."""

from __future__ import annotations

import pytest

from dropqa.evals import metrics as m
from dropqa.evals.report import SUMMARY_KEYS, latency_histogram_svg, render_html
from dropqa.evals.suite import EvalItem, Evidence, SuiteError, parse_suite, select


def item(evidence, answers=("37项",), type_="single_hop", **kw) -> EvalItem:
    return EvalItem(id=kw.pop("id", "q"), question="问题？", answers=list(answers), evidence=list(evidence),
                    type=type_, language="zh", **kw)


def src(doc, text, section="", version=1) -> m.RetrievedSource:
    return m.RetrievedSource(document_name=doc, section=section, version=version, text=text)


EV = Evidence(document="报告.docx", section="2.2 知识产权", contains="新增授权发明专利37项")


def test_evidence_found_normalises_whitespace_case_and_width():
    s = src("报告.docx", "全年 新增授权 发明专利３７项，同比增长。")  # full-width digits, spaces
    assert m.evidence_found(EV, s)
    assert not m.evidence_found(EV, src("别的.docx", "新增授权发明专利37项"))
    ev = Evidence(document="Policy.md", section=None, contains="Minimum LENGTH is 14")
    assert m.evidence_found(ev, src("Policy.md", "minimum\n length  is 14 characters"))


def test_versions_fold_onto_the_base_name_and_are_checked_when_the_corpus_has_versions():
    v2 = Evidence(document="办法_v2.docx", section=None, contains="住宿标准为每晚600元")
    versioned = m.versioned_documents(["办法.docx", "办法_v2.docx", "其他.md"])
    assert versioned == frozenset({"办法.docx"})
    assert m.evidence_found(v2, src("办法.docx", "住宿标准为每晚600元", version=2), versioned)
    assert not m.evidence_found(v2, src("办法.docx", "住宿标准为每晚600元", version=1), versioned)
    base = Evidence(document="办法.docx", section=None, contains="住宿标准为每晚500元")
    assert m.evidence_found(base, src("办法.docx", "住宿标准为每晚500元", version=1), versioned)
    assert not m.evidence_found(base, src("办法.docx", "住宿标准为每晚500元", version=2), versioned)
    # no versions in the corpus: the version is not checked
    assert m.evidence_found(base, src("办法.docx", "住宿标准为每晚500元", version=2))


def test_short_contains_needs_the_section_on_the_path():
    ev = Evidence(document="spec.md", section="Key specifications", contains="300 m")
    assert m.evidence_found(ev, src("spec.md", "| depth | 300 m |", section="Spec > Key specifications"))
    assert not m.evidence_found(ev, src("spec.md", "| depth | 300 m |", section="Spec > Pricing"))


def test_ranks_recall_mrr_and_all_evidence():
    ev2 = Evidence(document="b.md", section=None, contains="second fact here")
    it = item([EV, ev2])
    res = m.ItemResult(answer="新增37项", sources=[
        src("x.md", "noise"), src("x.md", "noise"), src("x.md", "noise"), src("x.md", "noise"),
        src("x.md", "noise"), src("报告.docx", "新增授权发明专利37项"),
    ] + [src("x.md", "noise")] * 3 + [src("b.md", "the second fact here"), src("b.md", "second fact here")])
    assert m.evidence_ranks(it, res) == [6, 10]
    assert m.recall_at_5(it, res) == 0.0
    assert m.recall_at_10(it, res) == 1.0
    assert m.reciprocal_rank_at_10(it, res) == pytest.approx(1 / 6)
    assert m.all_evidence_at_10(it, res) == 1.0
    assert m.citation_counts(it, res) == (2, 10)  # only the top 10 count
    assert m.citation_precision(it, res) == pytest.approx(0.2)
    single = item([EV])
    assert m.all_evidence_at_10(single, res) is None
    assert m.recall_at_5(single, m.ItemResult(sources=[src("报告.docx", "新增授权发明专利37项")])) == 1.0
    assert m.reciprocal_rank_at_10(single, m.ItemResult()) == 0.0


def test_answer_no_answer_and_false_abstention():
    it = item([EV], answers=["37项", "37 项"])
    assert m.answer_accuracy(it, m.ItemResult(answer="共新增 37 项 [1]")) == 1.0
    assert m.answer_accuracy(it, m.ItemResult(answer="新增36项")) == 0.0
    assert m.false_abstention(it, m.ItemResult(answerable=False)) == 1.0
    assert m.false_abstention(it, m.ItemResult(answerable=True)) == 0.0
    assert m.no_answer_accuracy(it, m.ItemResult()) is None
    na = item([], answers=[], type_="no_answer")
    assert m.no_answer_accuracy(na, m.ItemResult(answerable=False)) == 1.0
    assert m.no_answer_accuracy(na, m.ItemResult(answerable=True)) == 0.0
    for f in (m.recall_at_5, m.recall_at_10, m.reciprocal_rank_at_10, m.answer_accuracy, m.false_abstention):
        assert f(na, m.ItemResult(answerable=False)) is None


def test_latency_percentiles_match_the_scorer():
    lat = [float(x) for x in range(1, 21)]  # 1..20
    assert m.latency_p50(lat) == 10  # median 10.5 rounds to even
    assert m.latency_p95(lat) == 20  # sorted[min(19, int(19.0))]
    assert m.latency_p95([5.0]) == 5
    assert m.latency_p50([]) is None


def _record(it, res, type_, lang="zh"):
    return {"id": it.id, "type": type_, "language": lang, "latency_ms": res.latency_ms,
            "metrics": m.item_metrics(it, res)}


def test_summary_has_exactly_the_report_keys_and_micro_citation_precision():
    a = item([EV], id="a")
    na = item([], answers=[], type_="no_answer", id="b")
    recs = [
        _record(a, m.ItemResult(answer="37项", latency_ms=100,
                                sources=[src("报告.docx", "新增授权发明专利37项"), src("x.md", "n")]), "single_hop"),
        _record(a, m.ItemResult(answer="不知道", answerable=False, latency_ms=300,
                                sources=[src("x.md", "n")] * 6 + [src("报告.docx", "新增授权发明专利37项")]),
                "single_hop", "en"),
        _record(na, m.ItemResult(answerable=False, latency_ms=200), "no_answer"),
    ]
    s = m.summarize_suite(recs, 12.34)
    assert tuple(s) == SUMMARY_KEYS
    assert s["n"] == 3
    assert s["evidence_recall_at_5"] == 0.5
    assert s["evidence_recall_at_10"] == 1.0
    assert s["mrr_at_10"] == round((1 + 1 / 7) / 2, 3)
    assert s["answer_accuracy"] == 0.5
    assert s["no_answer_accuracy"] == 1.0
    assert s["false_abstention_rate"] == 0.5
    assert s["citation_precision"] == round(2 / 9, 3)
    assert s["all_evidence_at_10"] is None
    assert s["latency_p50_ms"] == 200 and s["latency_p95_ms"] == 300
    assert s["index_seconds"] == 12.3
    assert set(s["by_type"]) == {"single_hop", "no_answer"} and set(s["by_language"]) == {"zh", "en"}
    assert s["by_type"]["no_answer"]["evidence_recall_at_5"] is None


def test_html_is_self_contained():
    svg = latency_histogram_svg([10.0, 20.0, 500.0])
    assert svg.startswith("<svg") and "<rect" in svg
    report = {"summary": m.summarize_suite([], None) | {"by_type": {}, "by_language": {}}, "items": [], "meta": {}}
    page = render_html(report)
    assert "http" not in page and "<script" not in page


GOOD = """\
- id: one
  question: 星河科技2024年新增授权发明专利多少项？
  answers: [37项]
  evidence:
  - document: 报告.docx
    section: 2.2 知识产权
    contains: 新增授权发明专利37项
    page: 3
  type: single_hop
  language: zh
  version: null
- id: two
  question: Who is the CEO?
  answers: []
  evidence: []
  type: no_answer
  language: en
  version: null
  notes: not in the corpus
"""


def test_parse_a_valid_suite_and_select():
    items = parse_suite(GOOD, "g.yaml")
    assert [i.id for i in items] == ["one", "two"]
    assert items[0].evidence[0] == Evidence("报告.docx", "2.2 知识产权", "新增授权发明专利37项", 3)
    assert items[1].no_answer and not items[0].no_answer
    assert items[0].line == 1 and items[1].line == 12
    assert [i.id for i in select(items, types=["no_answer"])] == ["two"]
    assert [i.id for i in select(items, limit=1)] == ["one"]
    with pytest.raises(SuiteError, match="unknown type"):
        select(items, types=["nope"])


def test_validation_errors_name_item_key_and_line():
    bad = GOOD.replace("  type: single_hop\n", "  type: single-hop\n").replace(
        "    contains: 新增授权发明专利37项\n", "").replace("  answers: []\n", "  answers: [x]\n")
    bad += "- id: one\n  question: ''\n  answers: nope\n  evidence: []\n  type: table\n  language: fr\n" \
           "  version: 0\n  colour: red\n"
    with pytest.raises(SuiteError) as exc:
        parse_suite(bad, "g.yaml")
    probs = exc.value.problems
    text = "\n".join(probs)
    assert "g.yaml:8: item 0 (id 'one'): key 'type': 'single-hop' is not one of" in text
    assert "g.yaml:5: item 0 (id 'one'): evidence 0: key 'contains': is missing" in text
    assert ("g.yaml:13: item 1 (id 'two'): key 'answers': a no_answer item must have answers: [] and evidence: []"
            in text)
    assert "g.yaml:19: item 2 (id 'one'): key 'id': duplicate id (also item 0)" in text
    assert "item 2 (id 'one'): key 'question': must be a non-empty string" in text
    assert "item 2 (id 'one'): key 'answers': must be a list" in text
    assert "item 2 (id 'one'): key 'language': 'fr' is not one of" in text
    assert "item 2 (id 'one'): key 'version': must be null or an integer >= 1" in text
    assert "g.yaml:26: item 2 (id 'one'): key 'colour': unknown key" in text


def test_structural_errors():
    with pytest.raises(SuiteError, match="must be a YAML list"):
        parse_suite("id: x\n", "g.yaml")
    with pytest.raises(SuiteError, match=r"g.yaml:3: not valid YAML"):
        parse_suite("- id: x\n  question: [unclosed\n", "g.yaml")
    with pytest.raises(SuiteError, match="item 0: must be a mapping"):
        parse_suite("- just a string\n", "g.yaml")
    with pytest.raises(SuiteError, match=r"key 'section': is missing \(use section: null\)"):
        parse_suite(GOOD.replace("    section: 2.2 知识产权\n", ""), "g.yaml")
    with pytest.raises(SuiteError, match="evidence': is empty but type is 'table'"):
        parse_suite(GOOD.replace("""  evidence:
  - document: 报告.docx
    section: 2.2 知识产权
    contains: 新增授权发明专利37项
    page: 3
""", "  evidence: []\n").replace("single_hop", "table"), "g.yaml")


def test_long_form_items_have_evidence_but_no_short_answers():
    summary = parse_suite(GOOD.replace("  answers: [37项]\n", "  answers: []\n").replace("single_hop", "summary"),
                          "g.yaml")[0]
    assert summary.type == "summary" and summary.answers == [] and not summary.no_answer


def test_the_shipped_suites_are_valid():
    from pathlib import Path

    from dropqa.evals.suite import load_suite

    root = Path(__file__).resolve().parents[2]
    items = load_suite(root / "suites" / "golden_en.yaml")
    assert 10 <= len(items) <= 12
    assert sum(1 for i in items if len({e.document for e in i.evidence}) >= 2) >= 3
    assert sum(1 for i in items if i.no_answer) >= 2
    assert sum(1 for i in items if i.language == "zh") >= 2
    shared = root.parent / "shared" / "samples" / "golden.yaml"
    if shared.exists():
        assert len(load_suite(shared)) > 10


# ---------------------------------------------------------------- the optional LLM judge


def test_judge_verdicts_are_read_never_guessed():
    from pydantic import ValidationError

    from dropqa.evals.judge import Verdict, judgement_of
    from tests.support.scripted_openai import ScriptedOpenAI

    j = judgement_of(Verdict(verdict="partial", reason="only the warranty"))
    assert (j.score, j.verdict, j.reason, j.error) == (0.5, "partial", "only the warranty", None)
    assert judgement_of(Verdict(verdict="incorrect", reason="")).score == 0.0
    with pytest.raises(ValidationError):
        Verdict(verdict="maybe", reason="")  # type: ignore[arg-type]
    replies = ["looks right to me", '{"verdict": "maybe"}', "{not json}", ""]
    with ScriptedOpenAI([{"content": r} for r in replies]) as llm:
        judge = _judge(llm)
        for _ in replies:
            j = judge.judge(item([EV], answers=["37项"]), "37项")
            assert j.score is None and j.verdict is None and j.error.startswith("unreadable verdict")


def _judge(llm):
    from dropqa.config import ChatModelSettings
    from dropqa.evals.judge import AnswerJudge
    from dropqa.models.chat import build_chat_model

    return AnswerJudge.for_chat_model(build_chat_model(ChatModelSettings(**llm.chat_config())), llm.model)


def test_judge_grades_through_a_real_openai_client():
    from tests.support.scripted_openai import ScriptedOpenAI

    it = item([EV], answers=["37项"], notes="the number of new invention patents")
    with ScriptedOpenAI([{"content": '{"verdict": "correct", "reason": "37 patents, as expected"}'},
                         {"status": 500, "message": "overloaded"},
                         {"content": "I cannot grade this."}]) as llm:
        judge = _judge(llm)
        ok = judge.judge(it, "2024年共新增授权发明专利三十七项[1]。")
        failed = judge.judge(it, "37项")
        unreadable = judge.judge(it, "37项")
    assert (ok.score, ok.verdict, ok.error) == (1.0, "correct", None)
    prompt = llm.requests[0]["messages"][-1]["content"]
    for text in (it.question, "- 37项", "the number of new invention patents", "三十七项"):
        assert text in prompt
    assert failed.score is None and "overloaded" in failed.error  # a failed call is recorded, not scored
    assert unreadable.score is None and unreadable.error.startswith("unreadable verdict")


def test_judge_only_applies_to_answerable_items_without_errors():
    from dropqa.evals.judge import AnswerJudge

    assert AnswerJudge.applies(item([EV]), None)
    assert not AnswerJudge.applies(item([EV]), "TimeoutError: …")
    assert not AnswerJudge.applies(item([], answers=[], type_="no_answer"), None)


def test_judge_is_absent_offline_and_built_from_the_chat_settings():
    from dropqa.config import Settings
    from dropqa.evals.judge import AnswerJudge

    assert AnswerJudge.from_settings(Settings(models={"chat": {"model": ""}})) is None
    judge = AnswerJudge.from_settings(Settings(models={"chat": {"model": "qwen-plus", "base_url": "http://127.0.0.1:9/v1"}}))
    assert judge is not None and judge.model == "qwen-plus"


def test_answer_correctness_appears_only_when_judged():
    a, b = item([EV], id="a"), item([EV], id="b")
    plain = [_record(a, m.ItemResult(answer="37项"), "single_hop")]
    assert "answer_correctness" not in m.summarize_suite(plain, None)
    judged = [_record(a, m.ItemResult(answer="37项"), "single_hop"),
              _record(b, m.ItemResult(answer="三十七项"), "multi_hop", "en")]
    judged[0]["metrics"]["answer_correctness"] = 1.0
    judged[1]["metrics"]["answer_correctness"] = 0.5
    s = m.summarize_suite(judged, None)
    keys = list(s)
    assert keys.index("answer_correctness") == keys.index("answer_accuracy") + 1
    assert [k for k in keys if k != "answer_correctness"] == list(SUMMARY_KEYS)
    assert s["answer_correctness"] == 0.75 and s["answer_accuracy"] == 0.5
    assert s["by_type"]["multi_hop"]["answer_correctness"] == 0.5
    assert s["by_language"]["zh"]["answer_correctness"] == 1.0
    page = render_html({"summary": s, "items": [], "meta": {}})
    assert "answer correctness (LLM judge)" in page and "answer correct. (judge)" in page
