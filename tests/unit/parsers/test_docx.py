"""DocxParser on documents built with python-docx, plus the real sample report."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from docx import Document
from docx.enum.section import WD_SECTION
from docx.enum.style import WD_STYLE_TYPE
from docx.oxml import parse_xml
from docx.oxml.ns import nsdecls
from PIL import Image, ImageDraw, ImageFont

from dropqa.ingestion.document import ParsedDocument, ParsedNode
from dropqa.ingestion.parsers import get_parser
from dropqa.ingestion.parsers.base import ParseContext, ParseError
from dropqa.ingestion.parsers.docx import DocxParser

SAMPLES = Path(__file__).resolve().parents[4] / "shared" / "samples" / "corpus"  # ../shared beside the repository
MC_NS = 'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"'
V_NS = 'xmlns:v="urn:schemas-microsoft-com:vml"'


def parse(
    doc: Document,
    tmp_path: Path,
    name: str = "报告.docx",
    *,
    ocr_enabled: bool = False,
    max_chars: int = 10**7,
) -> ParsedDocument:
    path = tmp_path / name
    doc.save(str(path))
    context = ParseContext(filename=name, ocr_enabled=ocr_enabled, max_chars=max_chars)
    return DocxParser().parse(path.read_bytes(), context)


def locate(nodes: list[ParsedNode], match: Callable[[ParsedNode], bool]) -> tuple[ParsedNode, list[str]]:
    """The first node that matches, with the titles of the sections enclosing it (outermost first)."""
    for node in nodes:
        if match(node):
            return node, []
        if node.is_section:
            try:
                found, trail = locate(node.children, match)
            except LookupError:
                continue
            return found, [node.title or "", *trail]
    raise LookupError("no matching node")


def with_text(text: str) -> Callable[[ParsedNode], bool]:
    return lambda n: not n.is_section and text in n.content


def titled(title: str) -> Callable[[ParsedNode], bool]:
    return lambda n: n.is_section and n.title == title


def bold(doc: Document, text: str) -> None:
    doc.add_paragraph().add_run(text).bold = True


def png(width: int = 120, height: int = 60, text: str | None = None) -> bytes:
    img = Image.new("RGB", (width, height), "white")
    if text:
        ImageDraw.Draw(img).text((20, 30), text, fill="black", font=load_font(56))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def load_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    fonts = sorted(Path("/usr/share/fonts").rglob("DejaVuSans-Bold.ttf")) or sorted(
        Path("/usr/share/fonts").rglob("*.ttf")
    )
    if fonts:
        return ImageFont.truetype(str(fonts[0]), size)
    return ImageFont.load_default(size=size)


# -- structure -----------------------------------------------------------------------------------


def test_heading_styles_nest_and_cover_stays_at_top_level(tmp_path: Path) -> None:
    doc = Document()
    doc.add_paragraph("星河科技年度报告", style="Title")
    doc.add_paragraph("编制部门：总裁办公室")
    doc.add_paragraph("")
    doc.add_heading("  第1章 总体情况 ", level=1)
    doc.add_paragraph("第一章正文")
    doc.add_heading("1.1 主要指标", level=2)
    doc.add_paragraph("营业收入8.6亿元")
    doc.add_heading("1.1.1 收入", level=3)
    doc.add_paragraph("三级正文")
    doc.add_heading("第2章 展望", level=1)
    doc.add_paragraph("第二章正文")

    parsed = parse(doc, tmp_path)

    assert parsed.title == "报告" and parsed.file_type == "docx"
    top = [(n.node_type, n.title or n.content) for n in parsed.children]
    assert top == [
        ("paragraph", "星河科技年度报告"),
        ("paragraph", "编制部门：总裁办公室"),
        ("section", "第1章 总体情况"),
        ("section", "第2章 展望"),
    ]
    assert parsed.children[0].metadata["role"] == "title"
    _, trail = locate(parsed.children, with_text("三级正文"))
    assert trail == ["第1章 总体情况", "1.1 主要指标", "1.1.1 收入"]
    _, trail = locate(parsed.children, with_text("营业收入8.6亿元"))
    assert trail == ["第1章 总体情况", "1.1 主要指标"]
    assert all(n.metadata["page"] == 1 and n.metadata["page_estimated"] is True for n in parsed.walk())


def test_localized_style_names_and_outline_levels_make_headings(tmp_path: Path) -> None:
    doc = Document()
    doc.styles.add_style("标题 1", WD_STYLE_TYPE.PARAGRAPH)
    outline_style = doc.styles.add_style("章节标题", WD_STYLE_TYPE.PARAGRAPH)
    outline_style.element.get_or_add_pPr().append(parse_xml(f'<w:outlineLvl {nsdecls("w")} w:val="1"/>'))
    derived = doc.styles.add_style("章节标题-蓝", WD_STYLE_TYPE.PARAGRAPH)
    derived.base_style = outline_style

    doc.add_paragraph("总则", style="标题 1")
    doc.add_paragraph("适用范围", style="章节标题")
    doc.add_paragraph("范围正文")
    direct = doc.add_paragraph("直接大纲级别")
    direct._p.get_or_add_pPr().append(parse_xml(f'<w:outlineLvl {nsdecls("w")} w:val="2"/>'))
    doc.add_paragraph("三级正文")
    doc.add_paragraph("继承的二级", style="章节标题-蓝")
    doc.add_paragraph("继承正文")

    parsed = parse(doc, tmp_path)

    assert locate(parsed.children, with_text("范围正文"))[1] == ["总则", "适用范围"]
    assert locate(parsed.children, with_text("三级正文"))[1] == ["总则", "适用范围", "直接大纲级别"]
    assert locate(parsed.children, with_text("继承正文"))[1] == ["总则", "继承的二级"]


def test_bold_numbered_lines_become_headings_at_the_pattern_level(tmp_path: Path) -> None:
    doc = Document()
    bold(doc, "第3章 基础设施")
    doc.add_paragraph("第三章导语")
    bold(doc, "3.2 云平台建设")
    bold(doc, "3.2.1 容器化改造")
    doc.add_paragraph("容器化正文")
    bold(doc, "第4章 人才与组织")
    bold(doc, "一、招聘")
    doc.add_paragraph("招聘正文")
    bold(doc, "（一）校园招聘")
    doc.add_paragraph("首期录取应届毕业生48人")
    bold(doc, "二、培训")
    doc.add_paragraph("培训正文")
    # Not headings: long list item, bold sentence, plain short numbered line, bold unnumbered line.
    doc.add_paragraph("1. 这是一个普通的编号段落，内容比较长，说明普通编号正文不会被误认为是标题。")
    bold(doc, "3.3 这是一句加粗但以句号结尾的话。")
    doc.add_paragraph("3.4 普通短句")
    bold(doc, "重要提示")

    parsed = parse(doc, tmp_path)

    assert [n.title for n in parsed.children] == ["第3章 基础设施", "第4章 人才与组织"]
    assert locate(parsed.children, with_text("容器化正文"))[1] == [
        "第3章 基础设施",
        "3.2 云平台建设",
        "3.2.1 容器化改造",
    ]
    assert locate(parsed.children, with_text("首期录取"))[1] == [
        "第4章 人才与组织",
        "一、招聘",
        "（一）校园招聘",
    ]
    assert locate(parsed.children, with_text("培训正文"))[1] == ["第4章 人才与组织", "二、培训"]
    for text in ("1. 这是一个普通", "3.3 这是一句", "3.4 普通短句", "重要提示"):
        node, trail = locate(parsed.children, with_text(text))
        assert node.node_type == "paragraph" and trail == ["第4章 人才与组织", "二、培训"]


def test_consecutive_list_items_merge_into_one_list(tmp_path: Path) -> None:
    doc = Document()
    doc.add_paragraph("出差须准备：")
    doc.add_paragraph("身份证", style="List Bullet")
    doc.add_paragraph("护照", style="List Bullet 2")
    doc.add_paragraph("签证", style="List Bullet")
    doc.add_paragraph("以上材料须原件。")
    numbered = doc.add_paragraph("提交申请")
    numbered._p.get_or_add_pPr().append(
        parse_xml(f'<w:numPr {nsdecls("w")}><w:ilvl w:val="0"/><w:numId w:val="3"/></w:numPr>')
    )
    doc.add_paragraph("等待审批", style="List Number")

    parsed = parse(doc, tmp_path)

    assert [(n.node_type, n.content) for n in parsed.children] == [
        ("paragraph", "出差须准备："),
        ("list", "- 身份证\n  - 护照\n- 签证"),
        ("paragraph", "以上材料须原件。"),
        ("list", "- 提交申请\n- 等待审批"),
    ]
    assert parsed.children[1].metadata == {"page": 1, "page_estimated": True}


def test_tables_keep_order_repeat_merged_cells_and_take_their_caption(tmp_path: Path) -> None:
    doc = Document()
    doc.add_heading("住宿标准", level=1)
    doc.add_paragraph("标准如下表。")
    bold(doc, "表1 住宿费限额")
    table = doc.add_table(rows=4, cols=3)
    for c, text in enumerate(["城市", "普通员工", "经理"]):
        table.cell(0, c).text = text
    table.cell(1, 0).text = "一线城市"
    table.cell(1, 1).merge(table.cell(1, 2)).text = "600"
    table.cell(2, 0).merge(table.cell(3, 0)).text = "其他城市"
    table.cell(2, 1).text, table.cell(2, 2).text = "350", "500"
    table.cell(3, 1).text, table.cell(3, 2).text = "300", "450"
    doc.add_paragraph("表后说明。")
    doc.add_table(rows=1, cols=1).cell(0, 0).text = "注意：超标部分自理"

    parsed = parse(doc, tmp_path)

    content = parsed.children[0].children
    assert [n.node_type for n in content] == ["paragraph", "table", "paragraph", "paragraph"]
    tbl = content[1]
    assert tbl.title == "表1 住宿费限额"
    assert tbl.metadata["segment_type"] == "table" and tbl.metadata["page"] == 1
    assert tbl.metadata["table"] == {
        "header": ["城市", "普通员工", "经理"],
        "rows": [["一线城市", "600", "600"], ["其他城市", "350", "500"], ["其他城市", "300", "450"]],
    }
    assert "城市: 其他城市 | 普通员工: 300 | 经理: 450" in tbl.content
    assert content[3].content == "注意：超标部分自理"
    assert not any(n.content == "表1 住宿费限额" for n in parsed.walk())


# -- pages ---------------------------------------------------------------------------------------


def test_pages_count_breaks_page_break_before_and_section_breaks(tmp_path: Path) -> None:
    doc = Document()
    doc.add_paragraph("第一页")
    doc.add_page_break()
    doc.add_paragraph("第二页")
    doc.add_paragraph("第三页：分页前").paragraph_format.page_break_before = True
    doc.add_section(WD_SECTION.NEW_PAGE)
    doc.add_paragraph("第四页：新节")
    doc.add_section(WD_SECTION.CONTINUOUS)
    doc.add_paragraph("第四页：连续节")
    doc.add_page_break()
    heading = doc.add_heading("第五页标题", level=1)
    heading.paragraph_format.page_break_before = True  # already at the top of a page: no blank page
    doc.add_paragraph("第五页正文")
    doc.add_section(WD_SECTION.ODD_PAGE)
    doc.add_paragraph("第七页：奇数页节")

    parsed = parse(doc, tmp_path)

    pages = {n.content or n.title: n.metadata["page"] for n in parsed.walk()}
    assert pages == {
        "第一页": 1,
        "第二页": 2,
        "第三页：分页前": 3,
        "第四页：新节": 4,
        "第四页：连续节": 4,
        "第五页标题": 5,
        "第五页正文": 5,
        "第七页：奇数页节": 7,
    }
    assert all(n.metadata["page_estimated"] is True for n in parsed.walk())


def _rendered(doc: Document, *texts: str) -> None:
    """A paragraph whose runs are ``texts``, with Word's rendered page mark before each run but the first."""
    p = doc.add_paragraph()
    for i, text in enumerate(texts):
        mark = "<w:lastRenderedPageBreak/>" if i or len(texts) == 1 else ""
        p._p.append(parse_xml(f"<w:r {nsdecls('w')}>{mark}<w:t>{text}</w:t></w:r>"))


def test_rendered_page_marks_are_used_without_double_counting_explicit_breaks(tmp_path: Path) -> None:
    doc = Document()
    doc.add_paragraph("甲：第一页")
    _rendered(doc, "乙：自然换页到第二页")
    doc.add_page_break()
    _rendered(doc, "丙：分页符后仍是第三页")
    _rendered(doc, "丁：从第三页开始", "跨到第四页")
    doc.add_paragraph("戊：第四页")

    parsed = parse(doc, tmp_path)

    pages = [(n.content[:1], n.metadata["page"]) for n in parsed.walk()]
    assert pages == [("甲", 1), ("乙", 2), ("丙", 3), ("丁", 3), ("戊", 4)]


# -- text details --------------------------------------------------------------------------------


def test_hyperlinks_fields_and_text_boxes_keep_their_text_once(tmp_path: Path) -> None:
    doc = Document()
    p = doc.add_paragraph("请访问")
    link = "<w:r><w:t>官方网站</w:t></w:r>"
    p._p.append(parse_xml(f'<w:hyperlink {nsdecls("w", "r")} r:id="rId99">{link}</w:hyperlink>'))
    date = "<w:r><w:t>2025-01-15</w:t></w:r>"
    p._p.append(parse_xml(f'<w:fldSimple {nsdecls("w")} w:instr=" DATE ">{date}</w:fldSimple>'))
    for run in (
        '<w:fldChar w:fldCharType="begin"/>',
        '<w:instrText xml:space="preserve"> PAGE </w:instrText>',
        '<w:fldChar w:fldCharType="separate"/>',
        "<w:t>第7页</w:t>",
        '<w:fldChar w:fldCharType="end"/>',
    ):
        p._p.append(parse_xml(f"<w:r {nsdecls('w')}>{run}</w:r>"))
    box = "<w:txbxContent><w:p><w:r><w:t>文本框内容</w:t></w:r></w:p></w:txbxContent>"
    p._p.append(
        parse_xml(
            f"<w:r {nsdecls('w')} {MC_NS} {V_NS}><mc:AlternateContent>"
            f'<mc:Choice Requires="wps"><w:drawing><w:txbx>{box}</w:txbx></w:drawing></mc:Choice>'
            f"<mc:Fallback><w:pict><v:shape><v:textbox>{box}</v:textbox></v:shape></w:pict></mc:Fallback>"
            "</mc:AlternateContent></w:r>"
        )
    )

    parsed = parse(doc, tmp_path)

    text = parsed.children[0].content
    assert text.startswith("请访问官方网站2025-01-15第7页")
    assert text.count("文本框内容") == 1
    assert "PAGE" not in text and "DATE" not in text


def test_headers_and_footers_are_not_body_text(tmp_path: Path) -> None:
    doc = Document()
    doc.sections[0].header.paragraphs[0].text = "星河科技 内部资料"
    doc.sections[0].footer.paragraphs[0].text = "第 1 页 共 9 页"
    doc.add_paragraph("星河科技 内部资料")  # the cover shows it once: kept
    doc.add_heading("概述", level=1)
    doc.add_paragraph("正文")

    parsed = parse(doc, tmp_path)
    assert [n.content for n in parsed.walk() if not n.is_section] == ["星河科技 内部资料", "正文"]

    # Pasted from a PDF: the running header repeats on every page of the body and is dropped.
    doc = Document()
    doc.sections[0].header.paragraphs[0].text = "星河科技 内部资料 第 1 页"
    for page in range(1, 4):
        doc.add_paragraph(f"星河科技 内部资料 第 {page} 页")
        doc.add_paragraph(f"第{page}页的正文")
    parsed = parse(doc, tmp_path)
    assert [n.content for n in parsed.walk()] == ["第1页的正文", "第2页的正文", "第3页的正文"]


# -- images --------------------------------------------------------------------------------------


def test_pictures_become_image_nodes_in_place(tmp_path: Path) -> None:
    data = png(120, 60)
    doc = Document()
    doc.add_heading("数据中心", level=1)
    doc.add_paragraph("能耗情况见下图。")
    doc.add_picture(io.BytesIO(data))
    doc.add_paragraph("图1 能耗看板")

    parsed = parse(doc, tmp_path)

    kinds = [n.node_type for n in parsed.children[0].children]
    assert kinds == ["paragraph", "image", "paragraph"]
    image = parsed.children[0].children[1]
    assert image.image is not None and image.image.data == data
    assert (image.image.mime, image.image.width, image.image.height) == ("image/png", 120, 60)
    assert image.content == ""
    assert image.metadata == {"page": 1, "page_estimated": True, "segment_type": "figure"}


def test_pictures_are_ocred_when_enabled(tmp_path: Path) -> None:
    pytest.importorskip("dropqa.ingestion.ocr")
    doc = Document()
    doc.add_paragraph("扫描件如下：")
    doc.add_picture(io.BytesIO(png(720, 140, "INVOICE 2024")))

    parsed = parse(doc, tmp_path, ocr_enabled=True)

    image = next(n for n in parsed.walk() if n.node_type == "image")
    assert "INVOICE" in image.content.upper() and "2024" in image.content
    assert image.metadata["segment_type"] == "ocr"
    assert 0.5 < image.metadata["ocr_confidence"] <= 1.0


# -- errors and limits ---------------------------------------------------------------------------


def _docx_bytes(tmp_path: Path) -> bytes:
    doc = Document()
    doc.add_paragraph("正文")
    path = tmp_path / "ok.docx"
    doc.save(str(path))
    return path.read_bytes()


def _rezip(data: bytes, replace: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for item in src.infolist():
            dst.writestr(item, replace.get(item.filename, src.read(item.filename)))
    return out.getvalue()


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda good: good[: len(good) // 2], "damaged"),
        (lambda good: b"plain text, not a document", "damaged"),
        (lambda good: _rezip(good, {"word/document.xml": b"<w:document><w:body>"}), "damaged"),
        (lambda good: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + "EncryptionInfo".encode("utf-16-le"), "password"),
        (lambda good: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 512, "legacy .doc"),
    ],
    ids=["truncated", "not-a-zip", "broken-xml", "encrypted", "legacy-doc"],
)
def test_broken_files_raise_a_clear_parse_error(
    tmp_path: Path, damage: Callable[[bytes], bytes], message: str
) -> None:
    with pytest.raises(ParseError, match=message):
        DocxParser().parse(damage(_docx_bytes(tmp_path)), ParseContext(filename="坏文件.docx"))


def test_other_office_file_is_refused(tmp_path: Path) -> None:
    pptx = pytest.importorskip("pptx")
    path = tmp_path / "deck.pptx"
    pptx.Presentation().save(str(path))
    with pytest.raises(ParseError, match=r"not a \.docx"):
        DocxParser().parse(path.read_bytes(), ParseContext(filename="deck.docx"))


def test_character_limit_truncates_with_a_warning(tmp_path: Path) -> None:
    doc = Document()
    for i in range(50):
        doc.add_paragraph(f"第{i}段正文内容")
    parsed = parse(doc, tmp_path, max_chars=40)
    assert 1 <= len(parsed.children) < 10
    assert parsed.warnings and "truncated" in parsed.warnings[0]


def test_registry_returns_the_docx_parser() -> None:
    assert isinstance(get_parser("docx"), DocxParser)


# -- the real sample -----------------------------------------------------------------------------


def test_sample_annual_report_golden_pages_and_sections() -> None:
    path = SAMPLES / "星河科技2024年度工作报告.docx"
    if not path.exists():
        pytest.skip("sample corpus not available")
    parsed = DocxParser().parse(path.read_bytes(), ParseContext(filename=path.name, ocr_enabled=False))

    assert parsed.title == "星河科技2024年度工作报告"
    node, trail = locate(parsed.children, with_text("新增授权发明专利37项"))
    assert trail == ["第2章 研发与产品", "2.2 知识产权"] and node.metadata["page"] == 3
    node, trail = locate(parsed.children, with_text("首期录取应届毕业生48人"))
    assert trail[0] == "第4章 人才与组织" and trail[-1] == "一、" and node.metadata["page"] == 6

    # Cover page: top-level paragraphs before the first heading.
    assert parsed.children[0].content == "星河科技有限公司2024年度工作报告"
    assert parsed.children[0].node_type == "paragraph"
    table, trail = locate(parsed.children, lambda n: n.node_type == "table")
    assert trail == ["第2章 研发与产品", "2.3 重点研发项目"] and table.title == "表2-1 2024年重点研发项目一览"
    assert ["容器化改造", "王磊", "320", "已完成"] in table.metadata["table"]["rows"]
    image, trail = locate(parsed.children, lambda n: n.node_type == "image")
    assert trail == ["第3章 基础设施", "3.1 数据中心"] and image.metadata["page"] == 4
    assert not any("内部资料" in n.content for n in parsed.walk())  # footer text
    assert all(n.metadata.get("page_estimated") is True for n in parsed.walk())
