"""XlsxParser on workbooks generated with openpyxl, and on the real sample corpus file."""

from __future__ import annotations

import io
import itertools
import zipfile
from datetime import date, datetime
from pathlib import Path
from typing import Any

import openpyxl
import pytest
import yaml

from dropqa.ingestion.document import ParsedDocument, ParsedNode
from dropqa.ingestion.parsers import get_parser
from dropqa.ingestion.parsers.base import ParseContext, ParseError
from dropqa.ingestion.parsers.sheet_common import format_value
from dropqa.ingestion.parsers.xlsx import XlsxParser

SAMPLES = Path(__file__).resolve().parents[4] / "shared" / "samples"  # ../shared beside the repository
SAMPLE_XLSX = SAMPLES / "corpus" / "2024年度绩效考核.xlsx"


def _bytes(wb: openpyxl.Workbook, tmp_path: Path, name: str = "book.xlsx") -> bytes:
    path = tmp_path / name
    wb.save(path)
    return path.read_bytes()


def _parse(data: bytes, filename: str = "book.xlsx", **extra: Any) -> ParsedDocument:
    return XlsxParser().parse(data, ParseContext(filename=filename, **extra))


def _tables(node: ParsedNode) -> list[ParsedNode]:
    return [n for n in node.children if n.node_type == "table"]


def _appraisal_workbook() -> openpyxl.Workbook:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "考核结果"
    ws["A1"] = "2024年度绩效考核结果"
    ws.merge_cells("A1:F1")
    ws.append(["姓名", "部门", "得分", "完成率", "评定日期", "是否晋升"])
    ws.append(["王磊", "基础设施部", 93, 0.95, datetime(2024, 3, 8), True])
    ws.append(["赵宏", None, 86.5, 0.875, datetime(2024, 3, 8, 14, 30), False])
    ws.append(["孙悦", "产品中心", 0.1 + 0.2, 1, date(2024, 12, 31), None])
    ws.merge_cells("B3:B4")  # 基础设施部 covers 王磊 and 赵宏
    for row in ws.iter_rows(min_row=3, max_row=5, min_col=4, max_col=4):
        row[0].number_format = "0.0%"
    ws["D3"].number_format = "0%"
    ws.append([])
    ws.append(["备注：得分低于60分者不参与年终奖分配。"])
    ws.append(["审批人：周明远"])
    return wb


def test_title_row_header_merged_cells_values_and_notes(tmp_path: Path) -> None:
    doc = _parse(_bytes(_appraisal_workbook(), tmp_path), "2024年度绩效考核.xlsx")
    assert doc.title == "2024年度绩效考核"
    assert doc.file_type == "xlsx"
    [sheet] = doc.children
    assert (sheet.title, sheet.metadata) == (
        "考核结果",
        {"sheet": "考核结果", "page": 1, "page_estimated": False},
    )
    kinds = [n.node_type for n in sheet.children]
    assert kinds == ["paragraph", "table", "paragraph", "paragraph"]
    title, table, note, approver = sheet.children
    assert title.content == "2024年度绩效考核结果"
    assert table.title == "2024年度绩效考核结果"
    assert table.metadata["table"]["header"] == ["姓名", "部门", "得分", "完成率", "评定日期", "是否晋升"]
    assert table.metadata["table"]["rows"] == [
        ["王磊", "基础设施部", "93", "95%", "2024-03-08", "TRUE"],
        ["赵宏", "基础设施部", "86.5", "87.5%", "2024-03-08 14:30", "FALSE"],
        ["孙悦", "产品中心", "0.3", "100.0%", "2024-12-31", ""],
    ]
    assert table.metadata["row_range"] == [3, 5]
    assert table.metadata["sheet"] == "考核结果"
    assert "姓名: 赵宏 | 部门: 基础设施部 | 得分: 86.5" in table.content
    assert "0.30000000000000004" not in table.content
    assert note.content == "备注：得分低于60分者不参与年终奖分配。"
    assert note.metadata["row_range"] == [7, 7]
    assert approver.content == "审批人：周明远"
    assert doc.metadata["sheets"] == ["考核结果"]


def test_group_rows_second_table_and_free_text_sheet(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "汇总"
    ws.append([None, "区域", "城市", "销售额"])  # table starts in column B
    ws.append([None, "华东区"])
    ws.merge_cells("B2:D2")  # a group label across the table
    ws.append([None, "华东区", "上海", 1200.5])
    ws.append([])
    ws.append([None, "制表人：刘佳"])
    ws.append([])
    ws.append([None, "季度目标"])
    ws.append([None, "季度", "目标"])
    ws.append([None, "Q1", 100])
    readme = wb.create_sheet("说明")
    readme.append(["本工作簿汇总2024年各区域销售数据，来源为财务系统月度导出。"])
    readme.append(["如有疑问请联系财务部。"])
    summary, notes = _parse(_bytes(wb, tmp_path)).children
    assert [(n.node_type, n.title) for n in summary.children] == [
        ("table", "汇总"),
        ("paragraph", None),
        ("paragraph", None),
        ("table", "季度目标"),
    ]
    first, author, _, second = summary.children
    assert first.metadata["table"]["header"] == ["区域", "城市", "销售额"]
    assert first.metadata["table"]["rows"] == [["华东区", "", ""], ["华东区", "上海", "1200.5"]]
    assert author.content == "制表人：刘佳"
    assert second.metadata["table"] == {"header": ["季度", "目标"], "rows": [["Q1", "100"]]}
    assert second.metadata["row_range"] == [9, 9]
    assert [(n.node_type, n.content) for n in notes.children] == [
        ("paragraph", "本工作簿汇总2024年各区域销售数据，来源为财务系统月度导出。"),
        ("paragraph", "如有疑问请联系财务部。"),
    ]


def test_hidden_and_empty_sheets_are_skipped(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    wb.active.title = "空白"
    hidden = wb.create_sheet("内部计算")
    hidden.append(["键", "值"])
    hidden.append(["系数", 1.2])
    hidden.sheet_state = "hidden"
    ws = wb.create_sheet("目标分解")
    ws.append(["部门", "目标值"])
    ws.append(["销售部", "9亿元"])
    doc = _parse(_bytes(wb, tmp_path))
    assert [s.title for s in doc.children] == ["目标分解"]
    assert doc.children[0].metadata["page"] == 3  # position of the tab in the workbook
    assert doc.metadata["sheets"] == ["目标分解"]
    assert any("内部计算" in w and "hidden" in w for w in doc.warnings)
    assert "系数" not in "".join(n.content for n in doc.walk())


def test_two_header_rows_with_merged_groups_are_combined(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["姓名", "考核", None, "奖金"])
    ws.append([None, "得分", "等级", None])
    ws.merge_cells("B1:C1")
    ws.merge_cells("A1:A2")
    ws.merge_cells("D1:D2")
    ws.append(["王磊", 93, "A", 20000])
    [sheet] = _parse(_bytes(wb, tmp_path)).children
    [table] = _tables(sheet)
    assert table.metadata["table"]["header"] == ["姓名", "考核 得分", "考核 等级", "奖金"]
    assert "姓名: 王磊 | 考核 得分: 93 | 考核 等级: A | 奖金: 20000" in table.content


def test_large_sheet_is_split_into_row_ranges_repeating_the_header(tmp_path: Path) -> None:
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("流水")
    ws.append(["编号", "客户", "金额", "日期"])
    for i in range(20_000):
        ws.append([i + 1, f"客户{i % 97}", i * 1.25, date(2024, 1, 1 + i % 28)])
    data = _bytes(wb, tmp_path)  # type: ignore[arg-type]

    streamed = _parse(data, xlsx_read_only_bytes=0, chunk_max_chars=0)  # constant-memory path, rows only
    [sheet] = streamed.children
    chunks = _tables(sheet)
    assert len(chunks) == 100
    assert [c.metadata["row_range"] for c in chunks[:2]] == [[2, 201], [202, 401]]
    assert chunks[-1].metadata["row_range"] == [19802, 20001]
    assert all(c.metadata["table"]["header"] == ["编号", "客户", "金额", "日期"] for c in chunks)
    assert all(len(c.metadata["table"]["rows"]) == 200 for c in chunks)
    assert "编号 | 客户 | 金额 | 日期" in chunks[-1].content
    assert "编号: 20000 | 客户: 客户17 | 金额: 24998.75 | 日期: 2024-01-08" in chunks[-1].content
    assert any("streaming" in w for w in streamed.warnings)

    regular = _parse(data, rows_per_chunk=5000, chunk_max_chars=0)
    assert [c.metadata["row_range"] for c in _tables(regular.children[0])] == [
        [2, 5001],
        [5002, 10001],
        [10002, 15001],
        [15002, 20001],
    ]
    streamed_rows = [r for c in chunks for r in c.metadata["table"]["rows"]]
    assert [r for c in _tables(regular.children[0]) for r in c.metadata["table"]["rows"]] == streamed_rows

    # by default a range is also cut by its text length, so the pipeline never splits it again
    # (which would leave two pieces claiming the same row range); ranges stay exact and contiguous
    capped = _tables(_parse(data).children[0])
    assert all(len(c.content) <= 4200 for c in capped) and len(capped) > 100
    assert capped[0].metadata["row_range"][0] == 2 and capped[-1].metadata["row_range"][1] == 20001
    assert all(a.metadata["row_range"][1] + 1 == b.metadata["row_range"][0] for a, b in itertools.pairwise(capped))
    assert [r for c in capped for r in c.metadata["table"]["rows"]] == streamed_rows


def test_stray_cell_far_away_does_not_make_the_parser_visit_the_whole_grid(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["项目", "金额"])
    ws.append(["服务器", 120])
    ws.cell(row=1_048_576, column=16_384).number_format = "0.00"  # formatted but empty
    data = _bytes(wb, tmp_path)
    for extra in ({}, {"xlsx_read_only_bytes": 0}):
        # visiting the whole 1,048,576 × 16,384 grid would never finish: the run hangs instead of passing
        [sheet] = _parse(data, **extra).children
        [table] = _tables(sheet)
        assert table.metadata["table"] == {"header": ["项目", "金额"], "rows": [["服务器", "120"]]}


def test_text_limit_truncates_with_a_warning(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["编号", "说明"])
    for i in range(1000):
        ws.append([i, "x" * 50])
    doc = XlsxParser().parse(_bytes(wb, tmp_path), ParseContext(filename="a.xlsx", max_chars=5000))
    rows = sum(len(t.metadata["table"]["rows"]) for t in _tables(doc.children[0]))
    assert 0 < rows < 110
    assert any("text limit" in w for w in doc.warnings)


def test_formula_cells_use_cached_values_not_formulas(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["项目", "金额"])
    ws.append(["合计", "=SUM(1,2)"])  # openpyxl stores no cached value: reads as empty
    doc = _parse(_bytes(wb, tmp_path))
    assert "=SUM" not in doc.children[0].children[0].content


@pytest.mark.parametrize(
    ("value", "number_format", "expected"),
    [
        (None, "General", ""),
        (True, "General", "TRUE"),
        (42.0, "General", "42"),
        (0.1 + 0.2, "General", "0.3"),
        (2 / 3, "0.00", "0.67"),
        (1234567.5, "#,##0.00", "1,234,567.50"),
        (1234567, "#,##0", "1,234,567"),
        (0.95, "0%", "95%"),
        (0.1234, "0.00%", "12.34%"),
        (0.07, "0%", "7%"),
        (-0.001, "0%", "0%"),
        (3.14159, "0.0#", "3.14"),
        (3.1, "0.0#", "3.1"),
        (-3.5, '"¥"#,##0.00;[Red]-"¥"#,##0.00', "-3.50"),
        (datetime(2024, 3, 8), "yyyy-mm-dd", "2024-03-08"),
        (datetime(2024, 3, 8, 9, 5), "yyyy-mm-dd hh:mm", "2024-03-08 09:05"),
        (datetime(2024, 3, 8, 9, 4, 59, 999_800), "yyyy-mm-dd hh:mm", "2024-03-08 09:05"),
        (date(2025, 1, 17), "yyyy-mm-dd", "2025-01-17"),
        ("  王磊 ", "@", "王磊"),
    ],
)
def test_format_value(value: object, number_format: str, expected: str) -> None:
    assert format_value(value, number_format) == expected


def test_registry_returns_this_parser() -> None:
    assert isinstance(get_parser("xlsx"), XlsxParser)


def test_corrupt_truncated_and_protected_files_raise_parse_error(tmp_path: Path) -> None:
    good = _bytes(_appraisal_workbook(), tmp_path)
    with pytest.raises(ParseError, match="damaged"):
        _parse(good[: len(good) // 2])
    with pytest.raises(ParseError, match="damaged"):
        _parse(b"this is not a spreadsheet at all")
    with pytest.raises(ParseError, match="password-protected"):
        _parse(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 512)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("hello.txt", "not a workbook")
    with pytest.raises(ParseError, match="not a readable Excel workbook"):
        _parse(buf.getvalue())
    broken = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(good)) as src, zipfile.ZipFile(broken, "w") as dst:
        for info in src.infolist():
            body = src.read(info)
            dst.writestr(info, body[:40] if info.filename.startswith("xl/worksheets/") else body)
    with pytest.raises(ParseError, match="Excel"):
        _parse(broken.getvalue())


def _golden_evidence() -> list[dict[str, Any]]:
    items = yaml.safe_load((SAMPLES / "golden.yaml").read_text(encoding="utf-8"))
    return [
        ev
        for item in items
        if item["type"] in ("table", "sheet_title", "multi_hop")
        for ev in item["evidence"]
        if ev["document"] == SAMPLE_XLSX.name
    ]


def test_real_sample_workbook() -> None:
    if not SAMPLE_XLSX.exists():
        pytest.skip("sample corpus not available")
    doc = XlsxParser().parse(SAMPLE_XLSX.read_bytes(), ParseContext(filename=SAMPLE_XLSX.name))
    assert doc.title == "2024年度绩效考核"
    assert doc.metadata["sheets"] == ["考核结果", "目标分解", "结果审批"]
    assert [s.metadata["page"] for s in doc.children] == [1, 2, 3]
    sections = {s.title: s for s in doc.children}
    [results] = _tables(sections["考核结果"])
    assert results.metadata["table"]["header"][:3] == ["工号", "姓名", "部门"]
    assert "姓名: 王磊 | 部门: 基础设施部 | 岗位: 部门经理 | 考核得分: 93 | 考核等级: A" in results.content
    assert "环节: 终审 | 签字人: 周明远 | 日期: 2025-01-17" in sections["结果审批"].children[0].content

    evidence = _golden_evidence()
    assert len(evidence) >= 4
    for ev in evidence:
        contents = [n.content for n in sections[ev["section"]].walk()]
        assert any(ev["contains"] in c for c in contents), ev
