"""Documents named by their text, not their file names (issue 21): two plain-text annual reports with
generic names, each about its own company — a question about one quotes that one, never the other's
look-alike figure, and every source says where it is although the files have no headings."""

from __future__ import annotations

from pathlib import Path

import pytest

from dropqa.runtime.run import ask
from tests.support.corpora import index_texts

pytestmark = pytest.mark.integration

REPORTS = {
    "公司年报_1.txt": "恒屿冷链物流股份有限公司（以下简称“公司”）董事会现将公司2024年度经营情况报告如下。\n\n"
                  "2024年，公司实现营业收入38.6亿元，同比增长12%。报告期内，公司研发投入0.93亿元，占营业收入的2.4%，"
                  "主要用于全程温控监测平台。\n\n截至2024年末，公司在全国28个城市运营冷库，总库容86万立方米。\n",
    "公司年报_2.txt": "嘉沐冷链物流股份有限公司（以下简称“公司”）董事会现将公司2024年度经营情况报告如下。\n\n"
                  "2024年，公司实现营业收入25.1亿元，同比增长8%。乳制品冷链收入同比增长19%，是公司增长最快的业务领域。\n\n"
                  "截至2024年末，公司在全国19个城市运营冷库，总库容61万立方米。\n",
}


@pytest.fixture(scope="module")
def reports(indexer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return index_texts(indexer, tmp_path_factory.mktemp("reports"), REPORTS)


def test_a_question_naming_one_company_quotes_its_report(services, reports):
    result = ask(services, "嘉沐冷链2024年的营业收入是多少？")
    assert result.answerable and "25.1亿元" in result.answer and "38.6" not in result.answer
    cited = [s for s in result.sources if s.cited]
    assert cited and {s.document_name for s in cited} == {"公司年报_2.txt"}
    # no headings in a plain .txt: the paragraph says where it is, never an empty section
    assert all(s.section for s in result.sources)
    assert cited[0].section.startswith("第 ") and cited[0].section.endswith(" 段")


def test_another_companys_look_alike_is_never_the_answer(services, reports):
    # 嘉沐's report gives no R&D spending; 恒屿's does (0.93亿元): that is not an answer about 嘉沐
    result = ask(services, "嘉沐冷链2024年的研发投入是多少？")
    assert "0.93" not in result.answer
    assert result.confidence != "high" or not result.answerable


def test_two_companies_figures_differ_without_a_conflict(services, reports):
    result = ask(services, "恒屿冷链和嘉沐冷链2024年末的冷库总库容分别是多少？")
    assert "86万" in result.answer and "61万" in result.answer
    assert "不一致" not in result.answer and not result.conflicts
