"""Seed 004 §6.1's recall paths on real files: a sheet found by its title, the table after a hit."""

from __future__ import annotations

from pathlib import Path

import pytest
from openpyxl import Workbook

from dropqa.retrieval.search import hybrid_search
from tests.support.scopes import DEFAULT

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def files(indexer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("recall")
    wb = Workbook()
    ws = wb.active
    ws.title = "结果审批"
    ws.append(["环节", "签字人", "日期"])
    ws.append(["初审", "刘佳", "2025-01-10"])
    ws.append(["终审", "周明远", "2025-01-17"])
    other = wb.create_sheet("部门明细")
    other.append(["部门", "人数"])
    other.append(["研发部", 120])
    wb.save(root / "2024年度考核.xlsx")
    (root / "机房.md").write_text(
        "# 机房建设\n\n## 制冷\n\n各机房的制冷能效指标见下表，均达到设计要求。\n\n"
        "| 机房 | 数值 |\n|---|---|\n| 余杭一号 | 1.32 |\n| 萧山二号 | 1.41 |\n\n## 供电\n\n双路市电接入。\n",
        encoding="utf-8")
    for f in root.iterdir():
        assert indexer.index_file(f, f.name).status == "indexed"
    return root


def test_a_sheet_is_found_by_its_title(services, files):
    result = hybrid_search(services, "考核结果审批", DEFAULT)
    rows = [h for h in result.hits if h.document_name == "2024年度考核.xlsx" and "结果审批" in h.section]
    assert rows and any("周明远" in h.content for h in rows)
    assert any(h.metadata.get("title_hit") for h in rows)


def test_the_table_after_a_text_hit_comes_along(services, files):
    result = hybrid_search(services, "各机房的制冷能效指标", DEFAULT)
    tables = [h for h in result.hits if h.node_type == "table" and "1.32" in h.content]
    assert tables and tables[0].metadata.get("neighbour_boost")
