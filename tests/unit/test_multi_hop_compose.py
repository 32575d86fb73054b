"""The offline chain answer (``compose.multi_hop``): the first hop names the bridge entity, the second says what
the rest of the question asks of it — not every other line that names the entity again."""

from __future__ import annotations

from dropqa.answering import compose
from dropqa.answering.intent import classify
from dropqa.retrieval.hits import Hit


def _hit(node_id: str, document: str, breadcrumb: str, content: str) -> Hit:
    return Hit(node_id=node_id, document_id=document, document_name=document, version=1, node_type="paragraph",
               section=breadcrumb, breadcrumb=breadcrumb, content=content, position=0, relevance=0.5)


POOL = [
    _hit("a", "立项书.md", "星图计划立项书 > 3 项目组织", "项目负责人：林晓峰"),
    _hit("b", "工作报告.docx", "第2章 > 2.3 重点研发项目", "项目名称: 星图计划 | 负责人: 林晓峰 | 预算（万元）: 500"),
    _hit("c", "绩效考核.xlsx", "考核结果", "姓名: 林晓峰 | 部门: 智能平台部 | 考核得分: 95 | 考核等级: A"),
    _hit("d", "会议纪要.pdf", "会议纪要", "主持人：林晓峰"),
    _hit("e", "周报.md", "周报 > 1. 北斗数据中台", "项目经理：林晓峰。本周完成数据血缘分析模块开发。"),
]


def _quoted(question: str) -> list[str]:
    composed = compose.multi_hop("zh", classify(question), question, ["林晓峰"], POOL, max_items=5)
    assert composed is not None
    return [POOL[i].node_id for i in composed.citations]


def test_second_hop_quotes_the_line_that_holds_what_is_asked():
    cited = _quoted("星图计划的项目负责人的绩效考核得分是多少？")
    assert cited[0] == "a"  # the first hop: who leads the project
    assert cited[1:] == ["c"]  # the appraisal row, not the minutes' chair or the weekly report's manager


def test_second_hop_does_not_restate_the_first():
    cited = _quoted("星图计划的项目负责人还负责过哪些项目？")
    assert "b" not in cited[1:]  # the report's row names 星图计划 again: it is the first hop, not another project
    assert "e" in cited
