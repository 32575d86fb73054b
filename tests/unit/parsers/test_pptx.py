"""PptxParser on decks built with python-pptx, plus the real sample presentation."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image
from pptx import Presentation
from pptx.chart.data import CategoryChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.oxml import parse_xml
from pptx.oxml.ns import nsdecls
from pptx.slide import Slide
from pptx.util import Inches

from dropqa.ingestion.document import ParsedDocument, ParsedNode
from dropqa.ingestion.parsers import get_parser
from dropqa.ingestion.parsers.base import ParseContext, ParseError
from dropqa.ingestion.parsers.pptx import PptxParser

SAMPLES = Path(__file__).resolve().parents[4] / "shared" / "samples" / "corpus"  # ../shared beside the repository
TITLE_SLIDE, TITLE_AND_CONTENT, TITLE_ONLY, BLANK = 0, 1, 5, 6


def parse(prs: Presentation, tmp_path: Path, name: str = "季度汇报.pptx", **limits: int) -> ParsedDocument:
    path = tmp_path / name
    prs.save(str(path))
    return PptxParser().parse(path.read_bytes(), ParseContext(filename=name, ocr_enabled=False, **limits))


def png(width: int, height: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), "navy").save(buf, format="PNG")
    return buf.getvalue()


def summary(section: ParsedNode) -> list[tuple[str, str]]:
    return [(n.node_type, n.content) for n in section.children]


def textbox(slide: Slide, text: str, left: float, top: float) -> None:
    slide.shapes.add_textbox(Inches(left), Inches(top), Inches(3), Inches(0.5)).text_frame.text = text


@pytest.fixture
def deck(tmp_path: Path) -> ParsedDocument:
    prs = Presentation()

    s1 = prs.slides.add_slide(prs.slide_layouts[TITLE_SLIDE])
    s1.shapes.title.text = "2025年第一季度经营分析会"
    s1.placeholders[1].text = "财务部 ｜ 2025年4月8日"

    s2 = prs.slides.add_slide(prs.slide_layouts[TITLE_AND_CONTENT])
    s2.shapes.title.text = "Roadmap"
    body = s2.placeholders[1].text_frame
    body.text = "Launch A"
    for text, level in (("Beta in May", 1), ("Launch B", 0)):
        para = body.add_paragraph()
        para.text, para.level = text, level
    s2.notes_slide.notes_text_frame.text = "Mention the three partners."

    s3 = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
    s3.shapes.title.text = "分产品线收入"
    textbox(s3, "数据来源：财务部月度报表", 1, 6)  # added first, read last: it is lower
    table = s3.shapes.add_table(3, 3, Inches(1), Inches(2), Inches(8), Inches(2)).table
    for c, text in enumerate(["产品线", "收入（万元）", "同比"]):
        table.cell(0, c).text = text
    table.cell(1, 0).text, table.cell(1, 1).text = "云服务", "9,800"
    table.cell(1, 2).merge(table.cell(2, 2))
    table.cell(1, 2).text = "12%"
    table.cell(2, 0).merge(table.cell(2, 1))
    table.cell(2, 0).text = "合计"
    s3.notes_slide.notes_text_frame.text = "补充说明：首批订单共1.2万台，暂不对外公布。"

    s4 = prs.slides.add_slide(prs.slide_layouts[BLANK])
    textbox(s4, "下方说明文字", 1, 5)
    group = s4.shapes.add_group_shape()
    group.shapes.add_textbox(Inches(5), Inches(2), Inches(3), Inches(0.5)).text_frame.text = "组内右侧"
    group.shapes.add_textbox(Inches(1), Inches(2), Inches(3), Inches(0.5)).text_frame.text = "组内左侧"
    textbox(s4, "项目里程碑", 1, 0.5)
    s4.shapes.add_picture(io.BytesIO(png(80, 40)), Inches(1), Inches(6))

    s5 = prs.slides.add_slide(prs.slide_layouts[BLANK])
    s5.shapes.add_picture(io.BytesIO(png(64, 64)), Inches(1), Inches(1))

    s6 = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
    s6.shapes.title.text = "月度收入趋势"
    data = CategoryChartData()
    data.categories = ["一月", "二月", "三月"]
    data.add_series("收入", (1.5, 2, 2.25))
    data.add_series("成本", (1, 1.2, 1.4))
    chart = s6.shapes.add_chart(
        XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2), Inches(6), Inches(4), data
    ).chart
    chart.has_title = True
    chart.chart_title.text_frame.text = "收入与成本（亿元）"
    return parse(prs, tmp_path)


def test_one_section_per_slide_with_exact_pages(deck: ParsedDocument) -> None:
    assert deck.title == "季度汇报" and deck.file_type == "pptx"
    assert [n.title for n in deck.children] == [
        "2025年第一季度经营分析会",
        "Roadmap",
        "分产品线收入",
        "项目里程碑",
        "第5页",
        "月度收入趋势",
    ]
    assert all(n.is_section for n in deck.children)
    for number, slide in enumerate(deck.children, start=1):
        for node in slide.walk():
            assert (node.metadata["page"], node.metadata["slide"]) == (number, number)
            assert node.metadata["page_estimated"] is False
    assert deck.children[4].metadata["auto_title"] is True
    assert "auto_title" not in deck.children[3].metadata
    assert summary(deck.children[0]) == [("paragraph", "财务部 ｜ 2025年4月8日")]


def test_bullets_become_a_list_and_english_notes_get_an_english_prefix(deck: ParsedDocument) -> None:
    assert summary(deck.children[1]) == [
        ("list", "- Launch A\n  - Beta in May\n- Launch B"),
        ("paragraph", "Speaker notes: Mention the three partners."),
    ]
    assert deck.children[1].children[1].metadata["notes"] is True
    assert "notes" not in deck.children[1].children[0].metadata


def test_tables_repeat_merged_cells_and_shapes_read_top_to_bottom(deck: ParsedDocument) -> None:
    slide = deck.children[2]
    assert [n.node_type for n in slide.children] == ["table", "paragraph", "paragraph"]
    assert slide.children[0].metadata["table"] == {
        "header": ["产品线", "收入（万元）", "同比"],
        "rows": [["云服务", "9,800", "12%"], ["合计", "合计", "12%"]],
    }
    assert slide.children[1].content == "数据来源：财务部月度报表"
    notes = slide.children[2]
    assert notes.content == "演讲者备注：补充说明：首批订单共1.2万台，暂不对外公布。"
    assert notes.metadata["notes"] is True


def test_groups_are_read_in_place_and_pictures_become_images(deck: ParsedDocument) -> None:
    slide = deck.children[3]
    # The first short text became the title and is not repeated as a paragraph.
    assert [(n.node_type, n.content) for n in slide.children] == [
        ("paragraph", "组内左侧"),
        ("paragraph", "组内右侧"),
        ("paragraph", "下方说明文字"),
        ("image", ""),
    ]
    image = slide.children[3]
    assert image.image is not None
    assert (image.image.mime, image.image.width, image.image.height) == ("image/png", 80, 40)
    assert image.metadata["segment_type"] == "figure"
    assert [n.node_type for n in deck.children[4].children] == ["image"]


def test_chart_data_becomes_a_chart_table(deck: ParsedDocument) -> None:
    (chart,) = deck.children[5].children
    assert chart.node_type == "table" and chart.metadata["segment_type"] == "chart"
    assert chart.title == "收入与成本（亿元）"
    assert chart.metadata["table"] == {
        "header": ["类别", "收入", "成本"],
        "rows": [["一月", "1.5", "1"], ["二月", "2", "1.2"], ["三月", "2.25", "1.4"]],
    }
    assert "类别: 三月 | 收入: 2.25 | 成本: 1.4" in chart.content


def test_text_boxes_are_lists_only_when_they_have_bullets(tmp_path: Path) -> None:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
    slide.shapes.title.text = "Agenda"
    plain = slide.shapes.add_textbox(Inches(1), Inches(2), Inches(4), Inches(1)).text_frame
    plain.text = "First line"
    plain.add_paragraph().text = "Second line"
    bulleted = slide.shapes.add_textbox(Inches(1), Inches(4), Inches(4), Inches(1)).text_frame
    bulleted.text = "Budget"
    bulleted.add_paragraph().text = "Hiring"
    for para in bulleted.paragraphs:
        para._p.get_or_add_pPr().append(parse_xml(f'<a:buChar {nsdecls("a")} char="•"/>'))

    parsed = parse(prs, tmp_path, "agenda.pptx")

    assert summary(parsed.children[0]) == [
        ("paragraph", "First line\nSecond line"),
        ("list", "- Budget\n- Hiring"),
    ]


def test_footer_and_slide_number_placeholders_are_ignored(tmp_path: Path) -> None:
    prs = Presentation()
    layout = prs.slide_layouts[BLANK]
    slide = prs.slides.add_slide(layout)
    for placeholder in layout.placeholders:  # date, footer and slide number are not cloned by default
        slide.shapes.clone_placeholder(placeholder)
    for shape in slide.placeholders:
        shape.text_frame.text = "星河科技 内部资料 7"
    textbox(slide, "本页只有这一句正文内容，但它太长了不适合作为标题使用。", 1, 3)

    parsed = parse(prs, tmp_path)

    assert len(slide.placeholders) >= 2
    assert parsed.children[0].title == "第1页"
    assert [n.content for n in parsed.walk() if not n.is_section] == [
        "本页只有这一句正文内容，但它太长了不适合作为标题使用。"
    ]


def test_untitled_slides_in_an_english_deck_are_named_slide_n(tmp_path: Path) -> None:
    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
    slide.shapes.title.text = "Quarterly review"
    prs.slides.add_slide(prs.slide_layouts[BLANK])
    textbox(
        prs.slides.add_slide(prs.slide_layouts[BLANK]),
        "This is a long sentence that cannot be a title at all.",
        1,
        1,
    )

    parsed = parse(prs, tmp_path, "review.pptx")

    assert [n.title for n in parsed.children] == ["Quarterly review", "Slide 2", "Slide 3"]
    assert parsed.children[2].children[0].content.startswith("This is a long sentence")


def test_slide_limit_truncates_with_a_warning(tmp_path: Path) -> None:
    prs = Presentation()
    for i in range(4):
        prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY]).shapes.title.text = f"第{i + 1}部分"
    parsed = parse(prs, tmp_path, max_pages=2)
    assert [n.title for n in parsed.children] == ["第1部分", "第2部分"]
    assert parsed.warnings and "truncated" in parsed.warnings[0]


def _pptx_bytes(tmp_path: Path) -> bytes:
    path = tmp_path / "ok.pptx"
    Presentation().save(str(path))
    return path.read_bytes()


def test_broken_files_raise_a_clear_parse_error(tmp_path: Path) -> None:
    good = _pptx_bytes(tmp_path)
    ctx = ParseContext(filename="坏文件.pptx")
    with pytest.raises(ParseError, match="damaged"):
        PptxParser().parse(good[: len(good) // 3], ctx)
    with pytest.raises(ParseError, match="password-protected"):
        PptxParser().parse(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + "EncryptionInfo".encode("utf-16-le"), ctx)
    with pytest.raises(ParseError, match=r"legacy \.ppt"):
        PptxParser().parse(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 512, ctx)
    docx = pytest.importorskip("docx")
    path = tmp_path / "report.docx"
    docx.Document().save(str(path))
    with pytest.raises(ParseError, match=r"not a \.pptx"):
        PptxParser().parse(path.read_bytes(), ctx)


def test_registry_returns_the_pptx_parser() -> None:
    assert isinstance(get_parser("pptx"), PptxParser)


def test_sample_deck_speaker_notes_are_found_on_their_slide() -> None:
    path = SAMPLES / "2025年一季度经营分析会.pptx"
    if not path.exists():
        pytest.skip("sample corpus not available")
    parsed = PptxParser().parse(path.read_bytes(), ParseContext(filename=path.name, ocr_enabled=False))

    assert len(parsed.children) == 6
    slide = next(n for n in parsed.children if n.title == "重点项目进展")
    assert slide.metadata["page"] == 4
    (notes,) = [n for n in slide.children if n.metadata.get("notes")]
    assert "共1.2万台" in notes.content and notes.content.startswith("演讲者备注：")
    assert notes.metadata["page"] == 4 and notes.metadata["slide"] == 4
    holders = [n for n in parsed.walk() if "1.2万台" in n.content]
    assert holders == [notes]
    table = next(n for n in parsed.walk() if n.node_type == "table")
    assert table.metadata["page"] == 3 and table.metadata["table"]["header"][0] == "产品线"
