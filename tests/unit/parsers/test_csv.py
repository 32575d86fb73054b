"""CsvParser on files written with the csv module in various encodings and dialects."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest

from dropqa.ingestion.document import ParsedDocument, ParsedNode
from dropqa.ingestion.parsers import get_parser
from dropqa.ingestion.parsers.base import ParseContext, ParseError
from dropqa.ingestion.parsers.csv import CsvParser, sniff_delimiter

ROWS = [
    ["部门", "考核指标", "权重", "目标值"],
    ["智能平台部", "大模型应用上线数", "40%", "3个"],
    ["销售部", "新签合同额", "50%", "9亿元"],
]


def _write(
    tmp_path: Path, rows: list[list[str]], *, encoding: str, delimiter: str = ",", name: str = "t.csv"
) -> bytes:
    path = tmp_path / name
    with path.open("w", encoding=encoding, newline="") as fh:
        csv.writer(fh, delimiter=delimiter).writerows(rows)
    return path.read_bytes()


def _parse(data: bytes, filename: str = "目标分解.csv", **extra: Any) -> ParsedDocument:
    return CsvParser().parse(data, ParseContext(filename=filename, **extra))


def _tables(doc: ParsedDocument) -> list[ParsedNode]:
    return [n for n in doc.walk() if n.node_type == "table"]


def test_gbk_semicolons_title_row_multiline_field_and_notes(tmp_path: Path) -> None:
    rows = [
        ["2024年度目标分解表"],
        [],
        ["部门", "考核指标", "目标值", "说明"],
        ["销售部", "新签合同额", "9亿元", "含续约合同;\n不含框架协议"],
        ["安全部", "重大安全事件数", "0起", ""],
        [],
        ["备注：目标值由战略委员会于2024年1月确定。"],
    ]
    doc = _parse(_write(tmp_path, rows, encoding="gbk", delimiter=";"))
    assert doc.title == "目标分解"
    assert doc.metadata["delimiter"] == ";"
    [sheet] = doc.children
    assert sheet.title == "目标分解"
    assert [n.node_type for n in sheet.children] == ["paragraph", "table", "paragraph"]
    title, table, note = sheet.children
    assert title.content == "2024年度目标分解表"
    assert table.title == "2024年度目标分解表"
    assert table.metadata["table"] == {
        "header": ["部门", "考核指标", "目标值", "说明"],
        "rows": [
            ["销售部", "新签合同额", "9亿元", "含续约合同; 不含框架协议"],
            ["安全部", "重大安全事件数", "0起", ""],
        ],
    }
    assert table.metadata["row_range"] == [4, 5]  # records, as a spreadsheet numbers them
    assert (
        "部门: 销售部 | 考核指标: 新签合同额 | 目标值: 9亿元 | 说明: 含续约合同; 不含框架协议"
        in table.content
    )
    assert note.content == "备注：目标值由战略委员会于2024年1月确定。"
    assert not doc.warnings


@pytest.mark.parametrize(
    ("encoding", "delimiter"),
    [("utf-8", ","), ("utf-8-sig", ","), ("utf-8", "\t"), ("utf-8", "|"), ("utf-16", "\t"), ("gb18030", ",")],
)
def test_encodings_and_delimiters(tmp_path: Path, encoding: str, delimiter: str) -> None:
    doc = _parse(_write(tmp_path, ROWS, encoding=encoding, delimiter=delimiter))
    assert doc.metadata["delimiter"] == delimiter
    [table] = _tables(doc)
    assert table.metadata["table"]["header"] == ROWS[0]
    assert table.metadata["table"]["rows"] == ROWS[1:]
    assert "部门: 销售部 | 考核指标: 新签合同额 | 权重: 50% | 目标值: 9亿元" in table.content


def test_large_csv_is_split_by_row_ranges(tmp_path: Path) -> None:
    rows = [["编号", "客户", "金额"]] + [
        [str(i), f"客户{i % 13}", f"{i * 1.5:.2f}"] for i in range(1, 20_001)
    ]
    doc = _parse(_write(tmp_path, rows, encoding="utf-8"), rows_per_chunk=1000, chunk_max_chars=0)
    chunks = _tables(doc)
    assert len(chunks) == 20
    assert [c.metadata["row_range"] for c in chunks[:2]] == [[2, 1001], [1002, 2001]]
    assert chunks[-1].metadata["row_range"] == [19002, 20001]
    assert all(c.metadata["table"]["header"] == ["编号", "客户", "金额"] for c in chunks)
    assert chunks[-1].content.splitlines()[1] == "编号 | 客户 | 金额"
    assert chunks[-1].content.splitlines()[-1] == "编号: 20000 | 客户: 客户6 | 金额: 30000.00"


def test_headerless_numeric_rows_stay_a_table(tmp_path: Path) -> None:
    doc = _parse(_write(tmp_path, [["1", "2.5", "3"], ["4", "5", "6"]], encoding="utf-8"))
    [table] = _tables(doc)
    assert table.metadata["table"] == {"header": ["", "", ""], "rows": [["1", "2.5", "3"], ["4", "5", "6"]]}
    assert table.content.splitlines()[1:] == ["1 | 2.5 | 3", "4 | 5 | 6"]


def test_unbalanced_quote_falls_back_to_plain_splitting(tmp_path: Path) -> None:
    body = 'name,comment\nA,"never closed\n' + "".join(f"R{i},text {i}\n" for i in range(2000))
    limit_before = csv.field_size_limit()
    doc = _parse(body.encode(), csv_max_field_chars=10_000)
    assert csv.field_size_limit() == limit_before
    assert any("unbalanced quote" in w for w in doc.warnings)
    rows = [r for t in _tables(doc) for r in t.metadata["table"]["rows"]]
    assert rows[-1] == ["R1999", "text 1999"]


def test_gigantic_field_without_quotes_is_refused(tmp_path: Path) -> None:
    data = ("a,b\n1," + "x" * 50_000 + "\n").encode()
    with pytest.raises(ParseError, match="field larger than field limit"):
        _parse(data, csv_max_field_chars=10_000)
    assert len(_tables(_parse(data))[0].metadata["table"]["rows"][0][1]) == 50_000  # default limit: 1M


def test_empty_file() -> None:
    doc = _parse(b"\xef\xbb\xbf  \r\n")
    assert doc.children == []
    assert doc.warnings == ["the file is empty"]


@pytest.mark.parametrize(
    ("sample", "expected"),
    [
        ("名称;金额\n苹果;1,5\n梨;2,3\n", ";"),
        ("a,b,c\n1,2,3\n", ","),
        ("a\tb\n1\t2\n", "\t"),
        ("a|b|c\n1|2|3\n", "|"),
        ("just one column\nsecond line\n", ","),
    ],
)
def test_sniff_delimiter(sample: str, expected: str) -> None:
    assert sniff_delimiter(sample) == expected


def test_registry_returns_this_parser() -> None:
    assert isinstance(get_parser("csv"), CsvParser)
