"""The agent's pure parts, no database: intent, planner, bridge entities, consistency, citation
support, state reducers and follow-up completion."""

from __future__ import annotations

from dropqa.answering.bridge import bridge_entities
from dropqa.answering.consistency import claims_in, distinctive_terms, find_conflicts
from dropqa.answering.extractive import sentence_units
from dropqa.answering.followup import PastTurn, complete
from dropqa.answering.intent import classify
from dropqa.answering.policy import plan
from dropqa.config import AnswerSettings
from dropqa.graph.nodes.verify import check_citations, supports
from dropqa.graph.state import RESET, extend_or_reset
from dropqa.models.chat import ProviderUsage, Usage, add_usage
from dropqa.retrieval.hits import Hit

CFG = AnswerSettings()


def hit(content: str, doc: str = "a.md", section: str = "s", node_type: str = "paragraph", version: int = 1,
        node_id: str | None = None, **meta: object) -> Hit:
    return Hit(node_id=node_id or f"{doc}:{content[:6]}", document_id=doc, document_name=doc, version=version,
               node_type=node_type, section=section, breadcrumb=f"{doc} > {section}", content=content, position=0,
               metadata=dict(meta))


def test_intent_kinds():
    assert classify("年度工作报告第3章讲了哪些内容？").kind == "structure"
    assert classify("年度工作报告第3章讲了哪些内容？").chapter == 3
    assert classify("What sections does the Information Security Policy have?").kind == "structure"
    page = classify("年度工作报告中“容器化改造”一节在第几页？")
    assert page.kind == "page" and page.quoted == ["容器化改造"]
    compare = classify("差旅费报销管理办法V2.0相比V1.0，住宿标准有什么变化？")
    assert compare.kind == "compare_versions" and compare.versions == [2, 1] and compare.version is None
    assert classify("差旅费报销管理办法V1.0中，住宿标准是多少？").version == 1
    assert classify("按照现行的办法，住宿最多能报多少？").version is None
    hop = classify("负责容器化改造的人在2024年度绩效考核中得了多少分？")
    assert hop.kind == "multi_hop" and "容器化改造" in hop.first_hop
    assert classify("星图计划的项目负责人还负责过哪些项目？").aggregate
    assert classify("星图计划的项目发起人是谁？").kind == "fact"
    assert classify("Who owns the Information Security Policy?").kind == "fact"


def test_planner_follows_the_strategy_table():
    q = "年度报告第3章讲了哪些内容？"
    structure = plan(q, classify(q), "start", [], [], set(), None)
    assert [c["name"] for c in structure.calls] == ["get_document_structure"]
    hop = classify("负责容器化改造的人在2024年度绩效考核中得了多少分？")
    first = plan("q", hop, "start", [], [], set(), None)
    assert first.calls == [{"name": "fulltext_search", "args": {"query": hop.first_hop, "limit": 8}}]
    bridge = plan("q", hop, "bridge", [], ["王磊"], set(), None)
    assert bridge.calls[0] == {"name": "keyword_search", "args": {"pattern": "王磊", "limit": 10}}
    tried = {"semantic_search:" + '{"limit": 8, "query": "q"}'}
    broaden = plan("q", classify("q"), "broaden", [hit("x")], [], tried, None)
    assert [c["name"] for c in broaden.calls] == ["get_node_content"]  # semantic already tried: go deeper


def test_bridge_entity_from_the_first_hop():
    hits = [hit("容器化改造项目由基础设施部王磊负责，于2024年11月全部完成。", section="3.2.1 容器化改造"),
            hit("项目名称: 星图计划 | 负责人: 林晓峰 | 预算（万元）: 500", node_type="table")]
    knobs = {"passages": CFG.bridge_passages, "limit": CFG.bridge_names, "share": CFG.bridge_vote_share}
    assert bridge_entities("负责容器化改造的人", hits, **knobs) == ["王磊"]
    assert bridge_entities("星图计划的项目负责人", hits, **knobs) == ["林晓峰"]


def test_conflicts_between_documents_and_versions():
    terms = ["星图", "计划", "预算"]
    prose = hit("项目总预算为450万元，其中GPU采购280万元。", doc="立项书.md", section="星图计划 > 预算")
    table = hit("项目名称: 星图计划 | 负责人: 林晓峰 | 预算（万元）: 500\n"
                "项目名称: 北辰 | 负责人: 孙立 | 预算（万元）: 860", doc="报告.docx", node_type="table")
    claims = claims_in(prose, terms) + claims_in(table, terms)
    conflicts = find_conflicts(claims)
    assert len(conflicts) == 1 and conflicts[0].values == [450.0, 500.0]
    same = claims_in(hit("可用性为99.9%", doc="a"), ["可用性"]) + claims_in(hit("可用性为99.9%", doc="b"), ["可用性"])
    assert find_conflicts(same) == []
    versions = claims_in(hit("城市: 一线 | 普通员工: 600", node_type="table", version=1), ["普通", "一线"]) + \
        claims_in(hit("城市: 一线 | 普通员工: 750", node_type="table", version=2), ["普通", "一线"])
    (conflict,) = find_conflicts(versions)
    assert conflict.across_versions and conflict.label == "普通员工"


def test_two_purchases_are_no_conflict():
    """"星图计划的GPU服务器是从哪家供应商采购的？": the charter's GPU purchase (280万元) and the migration's yearly
    saving on buying servers (260万元) are figures of two things — each qualified by question words the other
    lacks."""
    terms = ["gpu", "服务器", "供应商", "采购"]
    charter = hit("项目总预算为450万元，其中GPU算力采购280万元。", doc="立项书.md", section="4.1 项目预算")
    report = hit("服务器资源利用率由28%提升到61%，每年可节省服务器采购成本260万元。", doc="报告.docx",
                 section="3.2.1 容器化改造")
    claims = claims_in(charter, terms) + claims_in(report, terms)
    assert {c.value for c in claims if c.attribute == "采购"} == {280.0, 260.0} and find_conflicts(claims) == []
    other = hit("星图计划的GPU算力采购预算调整为300万元。", doc="周报.md", section="星图计划")
    (conflict,) = find_conflicts(claims + claims_in(other, terms))  # the GPU purchase said twice, differently
    assert conflict.values == [260.0, 280.0, 300.0]


def test_another_projects_figure_is_no_conflict():
    weights = {"同城": 3.39, "双活": 3.39, "预算": 3.08, "数据中心": 2.74, "项目": 2.03, "2024": 3.5}
    rare = distinctive_terms(weights, 0.8)
    assert sorted(rare) == ["双活", "同城", "数据中心", "预算"]  # the rarest words, no number
    terms = ["同城", "双活", "数据中心", "项目", "预算"]
    other = hit("项目总预算为450万元，其中GPU算力采购280万元。", doc="星图计划立项书.md", section="4.1 项目预算")
    row = hit("项目名称: 同城双活数据中心 | 预算（万元）: 1,200", doc="report.docx", node_type="table")
    question = "同城双活数据中心项目的预算是多少？"
    assert claims_in(other, terms) and not claims_in(other, terms, distinctive=rare, question=question)
    assert find_conflicts(claims_in(other, terms, distinctive=rare, question=question)
                          + claims_in(row, terms, distinctive=rare, question=question)) == []
    # a rare word written with the attribute says which figure, not whose: "实际" of "的实际可用性"
    report = hit("2024年全年可用性为99.9%。", doc="report.docx", section="3.2.3 平台可用性")
    rare = distinctive_terms({"实际": 4.18, "可用性": 3.84, "平台": 1.28}, 0.8)
    question = "2024年星河云平台的实际可用性是多少？"
    assert claims_in(report, ["实际", "可用性", "平台"], distinctive=rare, question=question)
    # the attribute alone is rare: no other word is asked of the statement, as before
    assert claims_in(other, ["星图", "预算"], distinctive=distinctive_terms({"预算": 3.08, "星图": 1.32}, 0.8))


def test_years_and_dates_are_not_quantities():
    assert claims_in(hit("2024年星河云平台全年可用性为99.9%"), ["可用性", "2024"])[0].value == 99.9


def test_citation_support_is_checked_and_repaired():
    pool = [hit("全年营业收入8.6亿元。", node_id="n1"), hit("新增授权发明专利37项。", node_id="n2")]
    assert supports("新增授权发明专利37项 [2]", pool[1], CFG)
    assert not supports("新增授权发明专利38项 [2]", pool[1], CFG)  # a number the passage does not state
    text, cited, checked, dropped, repaired = check_citations("新增授权发明专利37项。[1]\n营收9亿元 [1]", pool, CFG)
    assert text.splitlines()[0].endswith("[2]") and repaired == 1
    assert "[" not in text.splitlines()[1] and dropped == 1 and cited == [1] and checked == 2


def test_a_sentence_a_page_break_cut_cites_both_passages():
    pool = [hit("备份数据默认保留30天。对于核心数据库服务，平台承诺RPO不超过15分钟，", node_id="n1"),
            hit("RTO不超过30分钟。", node_id="n2"), hit("RTO不超过30分钟。", doc="b.md", node_id="n3")]
    pool[1] = pool[1].model_copy(update={"position": 1})
    pool[2] = pool[2].model_copy(update={"position": 1})
    line = "对于核心数据库服务，平台承诺RPO不超过15分钟，RTO不超过30分钟。 [1][2]"
    assert not supports(line, pool[1], CFG)  # the rest of the sentence alone lacks its first half's number
    text, cited, *_ = check_citations(line, pool, CFG)
    assert cited == [0, 1] and text.endswith("[1][2]")
    text, cited, *_ = check_citations(line.replace("[2]", "[3]"), pool, CFG)  # another document's passage
    assert cited == [0]


def test_a_line_quoting_a_section_over_several_passages_keeps_each_of_their_citations():
    proc = "Court > Case Procedures"
    pool = [hit("From November 2022 H. Price engaged in counterfeiting currency with printing equipment.",
                section="Court > Case Statement", node_id="n1"),
            hit("On 14th February 2023 detention measures were set in motion targeting H. Price.",
                section=f"{proc} > Detention", node_id="n2"),
            hit("On 22nd February 2023 an official arrest of H. Price was executed by the court.",
                section=f"{proc} > Arrest", node_id="n3"),
            hit("An unrelated passage about appeal rights of the defendant.", section="Court > Appeal", node_id="n4")]
    pool = [h.model_copy(update={"position": p}) for h, p in zip(pool, (21, 15, 19, 30), strict=True)]
    line = ("Case Procedures: On 14th February 2023 detention measures were set in motion targeting H. Price. "
            "On 22nd February 2023 an official arrest of H. Price was executed by the court. [2][3]")
    assert not supports(line, pool[1], CFG) and not supports(line, pool[2], CFG)  # neither holds it all
    text, cited, checked, dropped, repaired = check_citations(line, pool, CFG)
    assert cited == [1, 2] and checked == 2 and dropped == repaired == 0 and text.endswith("[2][3]")
    # a passage of the document the line quotes nothing of is no part of it
    text, cited, *_ = check_citations(line.replace("[3]", "[4]"), pool, CFG)
    assert 3 not in cited


def test_ocr_dashboard_labels_meet_their_values():
    h = hit("能耗看板\n全年平均PUE\n年度节电量\n1.32\n243万千瓦时\n数据来源：系统", segment_type="ocr")
    assert "全年平均PUE：1.32" in sentence_units(h) and "年度节电量：243万千瓦时" in sentence_units(h)


def test_reducers_reset_per_turn_and_sum_usage():
    assert extend_or_reset([1, 2], [3]) == [1, 2, 3]
    assert extend_or_reset([1, 2], [RESET, 3]) == [3]
    total = add_usage(Usage(prompt_tokens=5, completion_tokens=1,
                            by_provider={"a": ProviderUsage(prompt_tokens=5, completion_tokens=1, calls=1)}),
                      Usage(prompt_tokens=3, completion_tokens=2,
                            by_provider={"a": ProviderUsage(prompt_tokens=3, completion_tokens=2, calls=1)}))
    assert total.prompt_tokens == 8 and total.by_provider["a"].calls == 2 and total.total == 11
    assert add_usage(total, Usage(replace=True)) == Usage()
    fresh = add_usage(total, Usage(prompt_tokens=1, replace=True))
    assert fresh.prompt_tokens == 1 and not fresh.replace and "replace" not in fresh.model_dump()


def test_follow_up_completion():
    history = [PastTurn(question="What was the revenue in 2024?")]
    assert complete("And in 2023?", history) == "What was the revenue in 2023?"
    assert complete("北辰项目的预算是多少？", [PastTurn(question="x")]) == "北辰项目的预算是多少？"
    assert complete("那它的预算呢？", [PastTurn(question="北辰项目的负责人是谁？")]).startswith("北辰项目")
    assert complete("And in 2023?", [{"question": "Revenue in 2024?"}]) == "Revenue in 2023?"  # a thread from before


def test_the_words_naming_the_subject_are_never_the_attribute():
    """"云栖数据平台3.0" is the platform's version, "7×24 小时" its duty roster: neither is a claim about
    平台 when the question names the platform and asks its release date."""
    terms, naming = ["云栖", "数据", "平台", "发布", "日期"], {"云栖", "数据", "平台"}
    assert claims_in(hit("云栖数据平台3.0的发布日期定为2025年5月20日。"), terms, naming=naming) == []
    assert claims_in(hit("平台实行 7×24 小时值班。"), terms, naming=naming) == []
    budget = claims_in(hit("极光项目总预算为300万元。"), ["极光", "项目", "预算"], naming={"极光", "项目"})
    assert [(c.attribute, c.value) for c in budget] == [("预算", 300.0)]


def test_another_years_figure_is_no_conflict():
    """"丰穗2021年的营业收入是多少？": a brief's forecast of 2022's revenue is another period's figure, not a second
    account of 2021's; a sentence naming no year may still be about the year asked."""
    terms = ["营业", "收入"]
    question = "丰穗2021年的营业收入是多少？"
    report = hit("2021年，公司实现营业收入31.26亿元，同比增长18.4%。", doc="年报.txt")
    brief = hit("根据本所模型测算，我们预测丰穗农业2022年营业收入约为36.10亿元。", doc="简报.txt")
    undated = hit("公司实现营业收入36.10亿元。", doc="简报.txt")
    assert claims_in(brief, terms) and not claims_in(brief, terms, question=question)
    assert find_conflicts(claims_in(report, terms, question=question)
                          + claims_in(brief, terms, question=question)) == []
    assert len(find_conflicts(claims_in(report, terms, question=question)
                              + claims_in(undated, terms, question=question))) == 1
