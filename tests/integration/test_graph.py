"""The compiled graph end to end on the indexed examples (offline mode)."""

from __future__ import annotations

import shutil

import pytest

from dropqa.graph.run import ask
from tests.conftest import ROOT

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    ("question", "expected", "section"),
    [
        ("核心数据库的恢复时间目标是多少？", "45 分钟", "第3章 备份与恢复 > 3.2 恢复演练"),
        ("How many days of annual leave do full-time employees get?", "27 days", "3. Leave > 3.1 Annual Leave"),
        ("云栖数据平台3.0的发布日期是哪天？", "2025年5月20日", "三、会议决定"),
        ("P2告警的响应时限是多少？", "30分钟", "2.2 告警分级"),
    ],
)
def test_answers_cite_the_right_section(services, indexed_examples, question, expected, section):
    result = ask(services, question)
    assert result.answerable and result.mode == "direct"
    assert expected in result.answer
    assert section in result.sources[0].section
    assert result.sources[0].cited and "[1]" in result.answer
    assert [s["type"] for s in result.reasoning_trace][:3] == ["initial_assessment", "retrieval", "quality_check"]


def test_answer_follows_question_language(services, indexed_examples):
    assert ask(services, "值班人员须在告警发出后多久内响应？").answer.startswith("根据")
    assert ask(services, "What is the meal allowance per day on business travel?").answer.startswith("From")


def test_unanswerable_question_says_so(services, indexed_examples):
    result = ask(services, "公司食堂的午餐价格是多少？")
    assert result.answerable is False
    assert "没有找到" in result.answer
    result = ask(services, "What is the CEO's favourite colour?")
    assert result.answerable is False and "do not contain" in result.answer


def test_version_filter_answers_from_the_old_version(services, indexer, indexed_examples):
    shutil.copy2(ROOT / "examples" / "updates" / "pricing.md", indexed_examples / "pricing.md")
    indexer.index_file(indexed_examples / "pricing.md", "pricing.md")
    q = "How much does business support cost per month?"
    latest, old = ask(services, q), ask(services, q, version=1)
    assert "350 EUR" in latest.answer and latest.sources[0].version == 2
    assert "300 EUR" in old.answer and old.sources[0].version == 1
