"""answering.extractive.table_cell / asked_terms and answering.compose.locate (offline 'which section' answers)."""

import pytest

from dropqa.answering.compose import locate
from dropqa.answering.extractive import asked_terms, table_cell
from dropqa.config import AnswerSettings
from dropqa.retrieval.hits import Hit
from dropqa.text.segment import query_terms

CFG = AnswerSettings()

ROW = "Department: Marketing | Q1: 120,000 | Q2: 140,000 | Q3: 185,000 | Q4: 160,000"


# --- table_cell ------------------------------------------------------------------------------

def test_table_cell_keeps_the_row_subject_and_the_asked_cells():
    assert table_cell(ROW, ["q3"]) == "Department: Marketing · Q3: 185,000"
    assert table_cell(ROW, ["marketing", "q1", "q4"]) == "Department: Marketing · Q1: 120,000 · Q4: 160,000"


def test_table_cell_chinese_headers():
    assert table_cell("部门: 市场部 | 一季度: 120 | 三季度: 185", ["三季度"]) == "部门: 市场部 · 三季度: 185"


def test_table_cell_keeps_the_cell_giving_the_kind_asked_when_the_named_ones_do_not():
    row = ("编号: JD-EQ-004 | 名称: 光纤激光切割机 | 车间: 二车间 | 购置日期: 2021-05-10 | 原值(万元): 142 | "
           "负责人: 赵敏")
    terms = ["车间", "激光", "切割机"]
    assert table_cell(row, terms, "车间那台激光切割机是谁管的？") == "编号: JD-EQ-004 · 车间: 二车间 · 负责人: 赵敏"
    assert table_cell(row, terms, "二车间的激光切割机是哪一年买的？").endswith("购置日期: 2021-05-10")
    assert table_cell(row, terms, "二车间的激光切割机在哪个车间？") == "编号: JD-EQ-004 · 车间: 二车间"
    # not a look-alike column's value: 专业版's price is no answer for 企业版
    prices = "项目: 价格 | 基础版: 免费 | 专业版: 69元/席位/月 | 企业版: 联系销售获取报价"
    q = "Nova 3.0 企业版多少钱一个席位？"
    assert table_cell(prices, ["企业版", "席位"], q) == "项目: 价格 · 企业版: 联系销售获取报价"


def test_table_cell_whole_row_when_no_header_or_every_header_is_asked():
    assert table_cell(ROW, ["revenue"]) == ROW
    assert table_cell(ROW, []) == ROW
    assert table_cell(ROW, ["q1", "q2", "q3", "q4"]) == ROW


def test_table_cell_leaves_short_or_unlabelled_rows_alone():
    assert table_cell("Department: Marketing | Q3: 185,000", ["q3"]) == "Department: Marketing | Q3: 185,000"
    assert table_cell("Marketing | 120,000 | 185,000", ["q3"]) == "Marketing | 120,000 | 185,000"
    assert table_cell("Department: Marketing | 120,000 | Q3: 185,000", ["q3"]) == \
        "Department: Marketing | 120,000 | Q3: 185,000"


# --- asked_terms -----------------------------------------------------------------------------

def _hit(node_id: str, content: str, relevance: float = 0.5, name: str = "security-policy.md",
         section: str = "3 Access Control > 3.2 Remote Access", node_type: str = "paragraph") -> Hit:
    crumb = f"{name} > {section}" if section else name
    return Hit(node_id=node_id, document_id=name, document_name=name, version=1, node_type=node_type,
               section=section, breadcrumb=crumb, content=content, position=1, relevance=relevance)


def test_asked_terms_discount_the_terms_that_name_the_document():
    # "security" names the document (security-policy.md); remote and vpn are what is asked
    hit = _hit("n", "x")
    weights = {"security": 1.0, "remote": 2.0, "vpn": 3.0}
    ask = asked_terms(hit, weights, CFG.subject_weight)
    assert ask["remote"] == 2.0 and ask["vpn"] == 3.0
    assert ask.get("security", 0.0) < 1.0
    assert weights == {"security": 1.0, "remote": 2.0, "vpn": 3.0}  # the caller's weights are not changed


def test_asked_terms_keep_the_proportions_when_only_the_name_is_asked():
    hit = _hit("n", "x")
    ask = asked_terms(hit, {"security": 1.0, "policy": 1.5}, CFG.subject_weight)
    assert set(ask) == {"security", "policy"}
    assert ask["policy"] / ask["security"] == pytest.approx(1.5)
    assert all(w > 0 for w in ask.values())


def test_asked_terms_use_the_root_title_not_the_section():
    # "remote" is in the section path (3.2 Remote Access), not the document's name: asked in full
    hit = _hit("n", "x", name="handbook.md")
    ask = asked_terms(hit, {"remote": 1.0, "handbook": 1.0}, CFG.subject_weight)
    assert ask["remote"] == 1.0
    assert ask.get("handbook", 0.0) < 1.0


# --- compose.locate --------------------------------------------------------------------------

QUESTION = "Which section covers remote access through the VPN?"


def _pool() -> list[Hit]:
    return [
        _hit("n0", "Passwords must be at least 12 characters long.", 0.4, section="2 Passwords"),
        _hit("n1", "General rules apply. **Remote access** must go through the *company VPN* with `MFA` enabled. "
                   "Staff are trained yearly.", 0.9),
    ]


def _weights(question: str) -> tuple[list[str], dict[str, float]]:
    terms = query_terms(question)
    return terms, {t: 1.0 for t in terms}


def test_locate_names_the_section_path_and_quotes_the_sentence():
    terms, weights = _weights(QUESTION)
    composed = locate("en", QUESTION, terms, weights, _pool(), cfg=CFG)
    assert composed is not None
    assert composed.citations == [1]
    assert len(composed.lines) == 2
    first, second = composed.lines
    assert first == "It is in security-policy.md > 3 Access Control > 3.2 Remote Access [2]."
    assert second == "Remote access must go through the company VPN with MFA enabled. [2]"
    assert not any(mark in second for mark in ("**", "*", "`"))


def test_locate_in_chinese():
    question = "哪一节规定了伙食补助标准？"
    terms, weights = _weights(question)
    pool = [
        _hit("a", "住宿费按城市分档报销。", 0.5, name="差旅费管理办法.docx", section="第三章 住宿"),
        _hit("b", "出差期间伙食补助标准为每人每天**100元**。", 0.8, name="差旅费管理办法.docx",
             section="第四章 伙食补助 > 4.1 标准"),
    ]
    composed = locate("zh", question, terms, weights, pool, cfg=CFG)
    assert composed is not None and composed.citations == [1]
    assert composed.lines[0] == "见于「差旅费管理办法.docx > 第四章 伙食补助 > 4.1 标准」[2]。"
    assert composed.lines[1] == "出差期间伙食补助标准为每人每天100元。 [2]"


def test_locate_at_document_top_level_names_the_paragraph():
    terms, weights = _weights(QUESTION)
    pool = [_hit("n", "Remote access must go through the company VPN.", 0.9, section="")]
    composed = locate("en", QUESTION, terms, weights, pool, cfg=CFG)
    assert composed is not None
    assert composed.lines[0] == "It is in security-policy.md > paragraph 1 [1]."


def test_locate_with_no_evidence_is_none():
    terms, weights = _weights(QUESTION)
    assert locate("en", QUESTION, terms, weights, [], cfg=CFG) is None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_locate_text_property_joins_lines(lang):
    terms, weights = _weights(QUESTION)
    composed = locate(lang, QUESTION, terms, weights, _pool(), cfg=CFG)
    assert composed is not None and composed.text == "\n".join(composed.lines)
    assert "[2]" in composed.lines[0] and composed.lines[1].endswith("[2]")
