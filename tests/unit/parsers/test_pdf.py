"""PDF parser on PDFs generated with PyMuPDF (text, outline, tables, scans, pictures) and the real samples."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path

import pymupdf
import pytest
from PIL import Image

from dropqa.ingestion.document import ParsedDocument, ParsedNode, paragraph
from dropqa.ingestion.parsers import get_parser
from dropqa.ingestion.parsers.base import ParseContext, ParseError
from dropqa.ingestion.parsers.pdf import PdfParser
from dropqa.ingestion.parsers.pdf_layout import (
    Heading,
    appendix_pages,
    build_tree,
    pattern_level,
    plausible_heading,
)
from tests.unit.parsers.fonts import CJK, render

PDF_FONT = "china-s"  # PyMuPDF's built-in CJK font
SAMPLES = Path(__file__).resolve().parents[4] / "shared" / "samples"  # ../shared beside the repository
WHITEPAPER = "星河云平台技术白皮书.pdf"
MINUTES = "产品路线评审会会议纪要（扫描件）.pdf"

TEXT_A = (
    "本手册说明数据平台的日常运维要求，适用于平台运维团队和各业务线的值班人员，"
    "内容包括监控告警、数据备份、故障处理和变更管理四个方面，未尽事项以公司制度为准。"
)
TEXT_B = "本手册适用于生产环境和预发环境的全部数据库集群，测试环境可参照执行，具体要求由各团队负责人结合实际情况确定。"
TEXT_RTO = "数据库集群每日零点执行全量备份，每十五分钟备份一次增量日志，核心数据库的RPO不超过15分钟，RTO不超过30分钟。"
HYPHEN_LINES = [
    "The nightly backup window can be changed by platform administrators and is config-",
    "urable for every tenant and region.",
]
BACKUP_TABLE = [
    ["存储类型", "存储介质", "单盘最大IOPS"],
    ["高性能块存储", "NVMe SSD", "100,000"],
    ["通用块存储", "SATA SSD", "25,000"],
    ["对象存储", "HDD", "不适用"],
]
APPENDIX_TABLE = [["指标", "数值"], ["单集群最大节点数", "5,000"], ["平台最大租户数", "800"]]


# ---------------------------------------------------------------- builders


def write(page: pymupdf.Page, x: float, y: float, text: str, size: float, font: str = PDF_FONT) -> None:
    page.insert_text((x, y), text, fontsize=size, fontname=font)


def body(page: pymupdf.Page, y: float, text: str, size: float = 10.5, per_line: int = 40) -> float:
    """Write ``text`` as a justified-looking paragraph (2-character first-line indent); return the next y."""
    first = per_line - 2
    chunks = [text[:first]] + [text[i : i + per_line] for i in range(first, len(text), per_line)]
    for i, chunk in enumerate(chunks):
        write(page, 72 + (2 * size if i == 0 else 0), y, chunk, size)
        y += size * 1.8
    return y + size


def grid(page: pymupdf.Page, y: float, rows: list[list[str]], widths: list[float]) -> float:
    row_h = 20
    for r, row in enumerate(rows):
        x = 72.0
        for text, width in zip(row, widths, strict=True):
            page.draw_rect(pymupdf.Rect(x, y + r * row_h, x + width, y + (r + 1) * row_h), color=(0, 0, 0), width=0.6)
            write(page, x + 4, y + r * row_h + 14, text, 9.5)
            x += width
    return y + len(rows) * row_h + 16


def running_header_footer(doc: pymupdf.Document) -> None:
    for number, page in enumerate(doc, start=1):
        write(page, 72, 40, "数据平台运维手册 内部资料", 8)
        write(page, 280, 805, f"第 {number} 页", 8)


def text_pdf(toc: bool = False) -> bytes:
    """Three pages: cover title, chapters (16pt), sections (13pt), body (10.5pt), two tables, an appendix.

    With ``toc`` the headings are printed at body size and only the outline tells the structure.
    """
    h1, h2 = (10.5, 10.5) if toc else (16, 13)
    doc = pymupdf.open()
    p1 = doc.new_page()  # adding a page invalidates the other Page objects: build one at a time
    write(p1, 72, 90, "数据平台运维手册", 10.5 if toc else 22)
    write(p1, 72, 140, "第1章 总则", h1)
    write(p1, 72, 175, "1.1 编写目的", h2)
    y = body(p1, 200, TEXT_A)
    write(p1, 72, y + 10, "1.2 适用范围", h2)
    body(p1, y + 35, TEXT_B)
    p2 = doc.new_page()
    write(p2, 72, 80, "第2章 数据备份", h1)
    write(p2, 72, 115, "2.1 备份策略", h2)
    y = body(p2, 140, TEXT_RTO)
    write(p2, 230, y + 6, "表2-1 存储类型与性能", 10)
    y = grid(p2, y + 14, BACKUP_TABLE, [130, 130, 130])
    write(p2, 72, y, "注：以上数值为实验室测试结果。", 9)
    for i, text in enumerate(HYPHEN_LINES):
        write(p2, 72, y + 30 + i * 19, text, 10.5, font="helv")
    p3 = doc.new_page()
    write(p3, 72, 80, "附录", h1)
    y = body(p3, 110, "本附录汇总平台的主要技术指标，供容量规划参考。")
    write(p3, 72, y + 6, "附表1 主要技术指标", h2)
    y = grid(p3, y + 16, APPENDIX_TABLE, [200, 120])
    write(p3, 72, y, "注：指标为压测结果。", 9)
    running_header_footer(doc)
    if toc:
        doc.set_toc(
            [
                [1, "第1章 总则", 1],
                [2, "1.1 编写目的", 1],
                [2, "1.2 适用范围", 1],
                [1, "第2章 数据备份", 2],
                [2, "2.1 备份策略", 2],
                [1, "附录", 3],
                [2, "附表1 主要技术指标", 3],
                [2, "Bookmark only", 3],  # not printed on the page: a heading is still created
            ]
        )
    return doc.tobytes()




SCAN_HEADING = "三、测试结论" if CJK else "3.1 Test results"
SCAN_LINES = (
    ["本次恢复演练在二十分钟内完成全部切换，", "核心业务未受影响。"]
    if CJK
    else ["The restore drill finished within twenty", "minutes and no service was affected."]
)
PICTURE_TEXT = "一号机房PUE为1.32" if CJK else "Room one PUE 1.32"


def picture(lines: list[tuple[int, int, str, int]], size: tuple[int, int]) -> bytes:
    buf = io.BytesIO()
    render(lines, size).save(buf, format="PNG")
    return buf.getvalue()


def scanned_pdf() -> bytes:
    """Page 1 has text, page 2 is only a picture of text (a scan), page 3 is blank."""
    doc = pymupdf.open()
    body(doc.new_page(), 100, TEXT_A)
    scan = doc.new_page(width=420, height=300)  # small page: 875×625 px at 150 dpi
    layout = [(60, 60, SCAN_HEADING, 44), (60, 160, SCAN_LINES[0], 30), (60, 204, SCAN_LINES[1], 30)]
    scan.insert_image(scan.rect, stream=picture(layout, (875, 625)))
    doc.new_page(width=200, height=200)
    return doc.tobytes()


def parse(data: bytes, name: str = "手册.pdf", **ctx: object) -> ParsedDocument:
    return PdfParser().parse(data, ParseContext(filename=name, **ctx))  # type: ignore[arg-type]


def located(nodes: list[ParsedNode], path: tuple[str, ...] = ()) -> Iterator[tuple[ParsedNode, tuple[str, ...]]]:
    """Every node with the titles of the sections above it."""
    for node in nodes:
        yield node, path
        if node.is_section:
            yield from located(node.children, (*path, node.title or ""))


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def find(doc: ParsedDocument, needle: str) -> list[tuple[ParsedNode, tuple[str, ...]]]:
    return [(n, p) for n, p in located(doc.children) if not n.is_section and squash(needle) in squash(n.content)]


# ---------------------------------------------------------------- text PDFs


@pytest.fixture(scope="module")
def manual() -> ParsedDocument:
    return parse(text_pdf())


def test_sections_from_font_sizes_with_exact_titles_and_pages(manual: ParsedDocument) -> None:
    assert manual.title == "手册" and manual.file_type == "pdf" and manual.warnings == []
    top = [n for n in manual.children if n.is_section]
    assert [n.title for n in top] == ["数据平台运维手册", "第1章 总则", "第2章 数据备份", "附录"]
    assert [n.metadata["page"] for n in top] == [1, 1, 2, 3]
    chapter1 = top[1]
    assert [(s.title, s.metadata["page"]) for s in chapter1.children] == [("1.1 编写目的", 1), ("1.2 适用范围", 1)]
    assert [s.title for s in top[2].children] == ["2.1 备份策略"]
    assert [s.title for s in top[3].children if s.is_section] == ["附表1 主要技术指标"]
    assert manual.metadata["page_count"] == 3 and manual.metadata["outline"] is False


def test_paragraphs_merge_lines_and_drop_running_headers(manual: ParsedDocument) -> None:
    (purpose,) = [n for n, path in located(manual.children) if path[-1:] == ("1.1 编写目的",)]
    assert purpose.node_type == "paragraph" and purpose.content == TEXT_A  # 3 lines, joined without spaces
    assert purpose.metadata == {"page": 1, "page_estimated": False, "segment_type": "text"}
    contents = [n.content for n in manual.walk()]
    assert not any("内部资料" in c or re.search(r"第 \d 页", c) for c in contents)
    assert "The nightly backup window can be changed by platform administrators and is configurable" in "".join(
        contents
    )


def log_line(i: int) -> str:
    return f"Page {i + 1} of the long inspection log. Reading {i * 7 % 997}."


def test_one_line_per_page_is_the_body_not_a_running_header() -> None:
    """Issue 23: every page's only line sat where a header sits and looked alike once digits were masked."""
    doc = pymupdf.open()
    for i in range(600):
        doc.new_page().insert_text((72, 72), log_line(i))
    parsed = parse(doc.tobytes(), "log.pdf")
    got = [(n.content, n.metadata["page"]) for n in parsed.walk()]
    assert got == [(log_line(i), i + 1) for i in range(600)]


def test_a_page_of_running_lines_only_keeps_them_but_page_numbers_go() -> None:
    """Furniture is dropped only beside a body: a page whose every line repeats elsewhere keeps them."""
    doc = pymupdf.open()
    for number in range(1, 5):
        page = doc.new_page()
        write(page, 72, 40, "Platform operations manual, internal edition for the on-call team", 8, font="helv")
        write(page, 280, 805, f"- {number} -", 8, font="helv")
        if number != 3:
            body(page, 200, TEXT_B)
    parsed = parse(doc.tobytes(), "manual.pdf")
    by_page = {p: [n.content for n in parsed.walk() if n.metadata["page"] == p] for p in range(1, 5)}
    assert by_page[1] == by_page[2] == by_page[4] == [TEXT_B]
    assert by_page[3] == ["Platform operations manual, internal edition for the on-call team"]


def test_a_top_line_whose_numbers_vary_like_data_is_body_beside_a_real_header() -> None:
    """A running header's numbers stay put or follow the page number; a reading that jumps about is content."""
    doc = pymupdf.open()
    for i in range(8):
        page = doc.new_page()
        write(page, 72, 40, f"Inspection log, page {i + 1}", 8, font="helv")
        write(page, 72, 72, log_line(i), 11, font="helv")
        body(page, 200, TEXT_B)
    parsed = parse(doc.tobytes(), "log.pdf")
    contents = [n.content for n in parsed.walk()]
    assert contents == [c for i in range(8) for c in (log_line(i), TEXT_B)]


def test_every_node_has_its_exact_page(manual: ParsedDocument) -> None:
    ((rto, path),) = find(manual, "RTO不超过30分钟")
    assert path == ("第2章 数据备份", "2.1 备份策略") and rto.metadata["page"] == 2
    for node in manual.walk():
        assert isinstance(node.metadata["page"], int) and node.metadata["page_estimated"] is False


def test_tables_with_captions_clean_cells_and_appendix_flags(manual: ParsedDocument) -> None:
    tables = [(n, p) for n, p in located(manual.children) if n.node_type == "table"]
    assert len(tables) == 2
    (storage, storage_path), (appendix, appendix_path) = tables
    assert storage.title == "表2-1 存储类型与性能" and storage_path == ("第2章 数据备份", "2.1 备份策略")
    assert storage.metadata["table"] == {"header": BACKUP_TABLE[0], "rows": BACKUP_TABLE[1:]}
    assert storage.metadata["page"] == 2 and "appendix_flag" not in storage.metadata
    assert "单盘最大IOPS: 100,000" in storage.content
    assert appendix.title == "附表1 主要技术指标" and appendix_path == ("附录", "附表1 主要技术指标")
    assert appendix.metadata["table"] == {"header": APPENDIX_TABLE[0], "rows": APPENDIX_TABLE[1:]}
    assert appendix.metadata["appendix_flag"] is True and appendix.metadata["page"] == 3
    paragraphs = [n.content for n in manual.walk() if n.node_type == "paragraph"]
    assert not any("100,000" in c or "表2-1" in c or "平台最大租户数" in c for c in paragraphs)
    ((note, _),) = find(manual, "注：指标为压测结果。")
    assert note.metadata["appendix_flag"] is True  # content under 附录 / 附表 headings


def test_outline_gives_sections_when_headings_look_like_body_text() -> None:
    doc = parse(text_pdf(toc=True))
    assert doc.metadata["outline"] is True
    titles = [(n.title, len(p), n.metadata["page"]) for n, p in located(doc.children) if n.is_section]
    assert titles == [
        ("第1章 总则", 0, 1),
        ("1.1 编写目的", 1, 1),
        ("1.2 适用范围", 1, 1),
        ("第2章 数据备份", 0, 2),
        ("2.1 备份策略", 1, 2),
        ("附录", 0, 3),
        ("附表1 主要技术指标", 1, 3),
        ("Bookmark only", 1, 3),  # placed after the content of the entry before it
    ]
    (table,) = [n for n, p in located(doc.children) if n.node_type == "table" and p[-1] == "附表1 主要技术指标"]
    assert table.metadata["appendix_flag"] is True
    ((rto, path),) = find(doc, "RTO不超过30分钟")
    assert path == ("第2章 数据备份", "2.1 备份策略") and rto.metadata["page"] == 2


# ---------------------------------------------------------------- OCR in PDFs


def test_scanned_page_is_ocred_and_blank_page_warns() -> None:
    doc = parse(scanned_pdf(), "扫描.pdf")
    assert doc.metadata["ocr_pages"] == [2]
    assert doc.warnings == ["page 3 has no text layer and OCR found nothing"]
    (section,) = [n for n in doc.children if n.is_section]
    assert section.title == SCAN_HEADING and section.metadata["page"] == 2
    (para,) = section.children
    assert re.sub(r"\W", "", para.content) == re.sub(r"\W", "", "".join(SCAN_LINES))  # one paragraph
    assert para.metadata["segment_type"] == "ocr" and para.metadata["page"] == 2
    assert 0.8 < para.metadata["ocr_confidence"] <= 1.0
    assert doc.children[0].metadata == {"page": 1, "page_estimated": False, "segment_type": "text"}


def test_scanned_page_without_ocr_is_reported() -> None:
    doc = parse(scanned_pdf(), "扫描.pdf", ocr_enabled=False)
    assert [n.content for n in doc.walk()] == [TEXT_A]
    assert doc.warnings == [
        "page 2 has no text layer and OCR is disabled",
        "page 3 has no text layer and OCR is disabled",
    ]


def test_large_picture_on_text_page_becomes_ocred_image_node() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    y = body(page, 90, TEXT_B)
    png = picture([(40, 120, PICTURE_TEXT, 40)], (640, 320))
    page.insert_image(pymupdf.Rect(72, y, 472, y + 200), stream=png)  # 17% of the page
    page.insert_image(pymupdf.Rect(500, 40, 540, 60), stream=png)  # a small logo: ignored
    write(page, 72, y + 220, "图3-1 机房能效截图", 9)
    parsed = parse(doc.tobytes(), "能效.pdf")
    (image,) = [n for n in parsed.walk() if n.node_type == "image"]
    assert re.sub(r"\W", "", image.content) == re.sub(r"\W", "", PICTURE_TEXT)
    assert image.title == "图3-1 机房能效截图"
    assert image.image is not None and image.image.mime == "image/png"
    assert Image.open(io.BytesIO(image.image.data)).size == (640, 320)
    assert image.metadata["segment_type"] == "ocr" and 0.8 < image.metadata["ocr_confidence"] <= 1.0
    assert image.metadata["page"] == 1 and image.metadata["appendix_flag"] is True  # on the last page
    assert [n.node_type for n in parsed.children] == ["paragraph", "image", "paragraph"]


def test_searchable_scan_uses_its_text_layer_without_ocr() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_image(page.rect, stream=picture([(40, 40, PICTURE_TEXT, 40)], (620, 877)))
    body(page, 100, TEXT_A)  # the scanner's OCR layer printed over the page image
    parsed = parse(doc.tobytes(), "searchable.pdf")
    assert [(n.node_type, n.content) for n in parsed.walk()] == [("paragraph", TEXT_A)]
    assert "ocr_pages" not in parsed.metadata and parsed.warnings == []


def test_numbering_patterns_levels_and_tree_building() -> None:
    levels = {
        t: pattern_level(t) for t in ["第3章 基础设施", "3.2 备份策略", "3.2.1 容器化", "一、会议议题", "附表1 指标"]
    }
    assert levels == {"第3章 基础设施": 1, "3.2 备份策略": 2, "3.2.1 容器化": 3, "一、会议议题": 1, "附表1 指标": 2}
    assert pattern_level("附录") == 1 and pattern_level("Appendix A") == 1
    assert [pattern_level(t) for t in ["1.星河Pad二代上市计划", "2025年工作计划", "(1) item"]] == [None] * 3
    assert plausible_heading("3.2 备份策略") and not plausible_heading("2.0版本，由何静负责制定迁移方案")
    assert appendix_pages(5) == {5} and appendix_pages(30) == {28, 29, 30}
    items = [
        paragraph("前言"),
        Heading("第1章", 1, 1),
        Heading("1.1", 2, 1),
        paragraph("a"),
        Heading("1.1.1", 3, 2),
        paragraph("b"),
        Heading("第2章", 1, 3),
        paragraph("c"),
    ]
    tree = build_tree(items)
    assert [n.content or n.title for n in tree] == ["前言", "第1章", "第2章"]
    assert tree[1].children[0].title == "1.1" and tree[1].children[0].children[1].title == "1.1.1"
    assert tree[1].children[0].children[1].metadata == {"page": 2, "page_estimated": False}


# ---------------------------------------------------------------- broken input


def test_encrypted_corrupt_truncated_and_too_long_pdfs() -> None:
    doc = pymupdf.open()
    write(doc.new_page(), 72, 72, "secret", 12, font="helv")
    locked = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="u", owner_pw="o")
    with pytest.raises(ParseError, match="password-protected"):
        parse(locked)
    with pytest.raises(ParseError, match="damaged or is not a PDF"):
        parse(b"%PDF-1.7\nthis is not really a pdf")
    with pytest.raises(ParseError, match="damaged or is not a PDF"):
        parse(b"")
    data = text_pdf()
    with pytest.raises(ParseError, match="truncated"):
        parse(data[: len(data) * 6 // 10])
    with pytest.raises(ParseError, match="the PDF has 3 pages; the limit is 2 pages"):
        parse(data, max_pages=2)


def test_registry_returns_pdf_parser() -> None:
    assert isinstance(get_parser("pdf"), PdfParser)


# ---------------------------------------------------------------- real samples (golden evidence)

needs_samples = pytest.mark.skipif(not (SAMPLES / "corpus").is_dir(), reason="sample corpus not available")


def _evidence(document: str) -> list[tuple[dict[str, object], dict[str, object]]]:
    yaml = pytest.importorskip("yaml")
    items = yaml.safe_load((SAMPLES / "golden.yaml").read_text(encoding="utf-8"))
    return [(item, ev) for item in items for ev in item.get("evidence") or [] if ev["document"] == document]


def _check_evidence(doc: ParsedDocument, document: str) -> int:
    checked = 0
    for item, ev in _evidence(document):
        hits = [(n, p) for n, p in find(doc, str(ev["contains"])) if n.metadata.get("page") == ev.get("page")]
        if ev.get("section"):
            hits = [(n, p) for n, p in hits if ev["section"] in p]
        assert hits, f"{item['id']}: {ev['contains']!r} not found on page {ev.get('page')} under {ev.get('section')}"
        if item["type"] == "appendix":
            assert any(n.metadata.get("appendix_flag") and n.node_type in ("table", "paragraph") for n, _ in hits)
        if item.get("ocr"):
            assert all(n.metadata["segment_type"] == "ocr" for n, _ in hits)
        checked += 1
    return checked


@needs_samples
def test_whitepaper_golden_evidence() -> None:
    doc = parse((SAMPLES / "corpus" / WHITEPAPER).read_bytes(), WHITEPAPER)
    assert doc.title == "星河云平台技术白皮书" and doc.warnings == []
    ((rto, path),) = find(doc, "RTO不超过30分钟")
    assert path == ("3 高可用与容灾", "3.2 备份策略") and rto.metadata["page"] == 3
    assert _check_evidence(doc, WHITEPAPER) >= 5


@needs_samples
def test_scanned_minutes_golden_evidence() -> None:
    doc = parse((SAMPLES / "corpus" / MINUTES).read_bytes(), MINUTES)
    assert doc.metadata["ocr_pages"] == [1, 2] and doc.warnings == []
    assert _check_evidence(doc, MINUTES) == 2
    titles = [n.title for n in doc.walk() if n.is_section]
    assert {"一、会议议题", "二、会议决定", "三、待办事项"} <= set(titles)
