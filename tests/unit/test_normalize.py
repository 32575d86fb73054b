from dropqa.ingestion.document import ParsedDocument, paragraph, section, table_node
from dropqa.ingestion.normalize import NormalizeLimits, is_meaningless_title, normalize, pack_sentences
from dropqa.ingestion.rows import flatten

LIMITS = NormalizeLimits(max_paragraph_chars=80, paragraph_target_chars=50, max_section_chars=300)


def test_meaningless_titles():
    for t in ("一、", "1.", "其他", "Untitled", "（二）", "第三章", ""):
        assert is_meaningless_title(t), t
    for t in ("一、人才培养", "3.2 云平台建设", "Other expenses"):
        assert not is_meaningless_title(t), t


def test_meaningless_heading_keeps_numbering_and_gains_content_title():
    text = "“星火”管培生计划首期录取应届毕业生48人，分布在研发岗位。"
    doc = ParsedDocument("d", "md", [section("一、", [paragraph(text)])])
    normalize(doc, LIMITS)
    title = doc.children[0].title
    assert title.startswith("一、 ") and "星火" in title
    assert doc.children[0].metadata["original_title"] == "一、"


def test_long_paragraph_split_at_sentence_boundaries():
    text = "这是一个比较长的句子，用来测试切分。" * 8
    doc = ParsedDocument("d", "md", [paragraph(text)])
    normalize(doc, LIMITS)
    parts = [n.content for n in doc.children]
    assert len(parts) > 1 and "".join(parts) == text
    assert all(p.endswith("。") for p in parts)


def test_endless_line_is_cut():
    chunks = pack_sentences(["x" * 1000], target=100, hard_max=200)
    assert all(len(c) <= 200 for c in chunks) and "".join(chunks) == "x" * 1000


def test_long_section_without_subsections_gets_auto_subsections():
    paras = [paragraph(f"第{i}段：" + "内容说明。" * 12) for i in range(8)]
    doc = ParsedDocument("d", "md", [section("总则", paras)])
    normalize(doc, LIMITS)
    subs = doc.children[0].children
    assert len(subs) > 1 and all(s.is_section and s.metadata["auto_title"] for s in subs)
    assert sum(len(s.children) for s in subs) == 8


def test_big_table_split_repeats_header():
    rows = [[f"name{i}", str(i)] for i in range(100)]
    doc = ParsedDocument("d", "md", [table_node(["name", "value"], rows)])
    normalize(doc, LIMITS)
    tables = [n for n in doc.walk() if n.node_type == "table"]
    assert len(tables) > 1
    assert all(n.content.startswith("name | value") for n in tables)
    assert sum(len(n.metadata["table"]["rows"]) for n in tables) == 100


def test_flatten_depth_position_breadcrumb_and_pages():
    doc = ParsedDocument("年报", "docx", [
        section("第3章 基础设施", [section("3.2 云平台建设", [paragraph("预算500万", page=7)])]),
    ])
    rows = flatten(doc, "年报.docx")
    assert [r.depth for r in rows] == [0, 1, 2, 3]
    assert [r.position for r in rows] == [0, 1, 2, 3]
    leaf = rows[-1]
    assert leaf.breadcrumb("年报.docx") == "年报.docx > 第3章 基础设施 > 3.2 云平台建设"
    assert leaf.parent_id == rows[2].id
    assert rows[1].metadata["page"] == 7  # sections inherit the page they start on
