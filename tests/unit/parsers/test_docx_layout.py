"""Word pages without Word's layout: generated files of known length, laid out on their own page
size, margins and font sizes, land on the right page (±1); Word's rendered marks stay exact."""

from __future__ import annotations

import math
from pathlib import Path

from docx import Document
from docx.enum.text import WD_BREAK
from docx.shared import Pt

from tests.unit.parsers.test_docx import parse

HAN = "营收增长主要来自云平台业务与数据服务的持续扩张各部门协同推进重点项目按计划交付"  # 40 characters


def _plain(doc: Document, size_pt: float, margins_pt: float, width_pt: float, height_pt: float) -> None:
    section = doc.sections[0]
    section.page_width, section.page_height = Pt(width_pt), Pt(height_pt)
    section.top_margin = section.bottom_margin = section.left_margin = section.right_margin = Pt(margins_pt)
    normal = doc.styles["Normal"]
    normal.font.size = Pt(size_pt)
    normal.paragraph_format.space_before = normal.paragraph_format.space_after = Pt(0)
    normal.paragraph_format.line_spacing = 1.0


def _pages(parsed) -> dict[str, int]:
    return {(n.title or n.content)[:6]: n.metadata["page"] for n in parsed.walk() if (n.title or n.content)}


def test_chapters_written_without_breaks_get_their_pages(tmp_path: Path) -> None:
    """A4, 1-inch margins, 12 pt: a line holds 37 Chinese characters (451 pt / 12 pt) and a page 44 lines
    (698 pt / 15.6 pt, SimSun's single spacing). Each chapter is a one-line title and five 370-character
    paragraphs of exactly 10 lines: 51 lines, so chapter k starts on line 51 (k - 1)."""
    doc = Document()
    _plain(doc, 12, 72, 595.3, 841.9)
    chapters = "一二三四五六七八"
    for k, numeral in enumerate(chapters):
        title = doc.add_paragraph(f"第{numeral}章 概述")
        title.style = doc.styles["Normal"]
        for _ in range(5):
            doc.add_paragraph((HAN * 10)[:370])
        assert k < len(chapters)
    parsed = parse(doc, tmp_path)
    pages = _pages(parsed)
    for k, numeral in enumerate(chapters):
        expected = (51 * k) // 44 + 1
        assert abs(pages[f"第{numeral}章 概述"] - expected) <= 1, (numeral, pages[f"第{numeral}章 概述"], expected)
    assert pages["第八章 概述"] >= 8  # not "page 1 for every section up to 第八章"
    assert abs(parsed.metadata["pages"] - math.ceil(51 * 8 / 44)) <= 1
    assert all(n.metadata["page_estimated"] for n in parsed.walk())


def test_page_size_margins_and_font_size_are_read_from_the_file(tmp_path: Path) -> None:
    """The same 300 lines of text: 10 pt on Letter with half-inch margins is about 59 lines a page
    (720 pt / 12.2 pt); 14 pt on A4 with 1.5-inch margins has 30 characters a line and 30 lines a page."""
    def build(size: float, margins: float, width: float, height: float) -> int:
        doc = Document()
        _plain(doc, size, margins, width, height)
        per_line = int((width - 2 * margins) // size)
        for i in range(30):
            doc.add_paragraph(f"段{i:02d}" + (HAN * 20)[: per_line * 10 - 3])  # exactly 10 lines
        return parse(doc, tmp_path, f"{size}.docx").metadata["pages"]

    small = build(10, 36, 612, 792)
    large = build(14, 108, 595.3, 841.9)
    assert abs(small - math.ceil(300 / math.floor(720 / 13.0))) <= 1, small
    assert abs(large - math.ceil(300 / math.floor(625.9 / 18.2))) <= 1, large


def test_english_text_flows_too_and_explicit_breaks_still_start_pages(tmp_path: Path) -> None:
    doc = Document()
    _plain(doc, 11, 72, 612, 792)  # Letter: 468 pt wide, 648 pt high: ~85 characters, ~48 lines of Calibri
    sentence = "The quarterly report covers revenue, costs and the progress of every project. "  # 78 chars
    for i in range(40):
        doc.add_paragraph(f"P{i:02d} " + sentence * 6)  # ~472 characters: 6 lines
    doc.add_paragraph("Before the break")
    doc.add_paragraph().add_run().add_break(WD_BREAK.PAGE)
    doc.add_paragraph("After the break")
    pages = _pages(parse(doc, tmp_path, "report.docx"))
    expected_last = (39 * 6) // 48 + 1  # paragraph 39 starts on line 234
    assert abs(pages["P39 Th"] - expected_last) <= 1 and pages["P00 Th"] == 1
    assert pages["After "] == pages["Before"] + 1


def test_words_rendered_marks_win_over_the_estimate(tmp_path: Path) -> None:
    """A file Word saved knows its pages: 200 long paragraphs with one rendered mark are two pages."""
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    doc = Document()
    _plain(doc, 12, 72, 595.3, 841.9)
    for _ in range(100):
        doc.add_paragraph((HAN * 10)[:370])
    p = doc.add_paragraph()
    p._p.append(parse_xml(f"<w:r {nsdecls('w')}><w:lastRenderedPageBreak/><w:t>第二页开始</w:t></w:r>"))
    for _ in range(100):
        doc.add_paragraph((HAN * 10)[:370])
    parsed = parse(doc, tmp_path, "saved.docx")
    assert parsed.metadata["pages"] == 2 and _pages(parsed)["第二页开始"] == 2
