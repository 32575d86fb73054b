"""A Chinese company named by its short name ("恒屿和嘉沐…") names its report, whatever the file is called."""

from dropqa.answering.parts import decompose, name_terms, named_documents
from dropqa.text.entities import short_names


def _row(doc_id: str, filename: str, subjects: list[str]) -> dict:
    return {"document_id": doc_id, "filename": filename, "title": filename, "heading": "", "subjects": subjects}


TITLES = [
    _row("hy", "公司年报_1.txt", ["恒屿冷链物流股份有限公司", "预案尚需提交公司", "新开通"]),
    _row("jm", "公司年报_2.txt", ["嘉沐冷链物流股份有限公司", "预案尚需提交公司", "华南地区"]),
    _row("hj", "公司年报_3.txt", ["恒钧精密制造股份有限公司", "智能制造"]),
    _row("policy", "policy_2025.txt", ["明澜软件有限公司", "安全事件"]),
]


def test_short_name_is_the_two_characters_after_the_place_of_registration():
    assert short_names("恒屿冷链物流股份有限公司") == {"恒屿"}
    assert short_names("深圳市腾讯计算机系统有限公司") == {"腾讯"}


def test_no_short_name_for_a_common_word_a_place_or_a_name_without_legal_form():
    assert short_names("星河科技有限公司") == set()  # 星河 is a common word
    assert short_names("中国石油天然气集团") == set()  # 中国 names far more than this company
    assert short_names("恒屿冷链") == set()  # not a full name
    assert short_names("某某公司") == set()
    assert short_names("谭振华继续担任公司") == set()  # a fragment of a sentence, not a company's name
    assert short_names("Xinghe Technology Co., Ltd.") == set()


def test_two_companies_by_their_short_names_are_two_parts():
    question = "恒屿和嘉沐两家公司的2024年度利润分配预案分别是每10股派多少现金？"
    named = {row["document_id"] for row, _ in named_documents(question, TITLES, 0.5)}
    assert named == {"hy", "jm"}
    assert [p.document_id for p in decompose(question, TITLES, 0.5, 4)] in (["hy", "jm"], ["jm", "hy"])
    assert "嘉沐" in name_terms(question, TITLES[1])


def test_a_short_name_opening_another_companys_full_name_names_neither():
    question = "根据恒钧电子股份有限公司的年报，公司2021年的研发投入是多少？"
    assert "hj" not in {row["document_id"] for row, _ in named_documents(question, TITLES, 0.5)}


def test_the_full_name_still_names_its_document():
    question = "根据恒钧精密制造股份有限公司的年报，公司2021年的研发投入是多少？"
    assert [row["document_id"] for row, _ in named_documents(question, TITLES, 0.5)] == ["hj"]


def test_a_title_opening_with_the_full_name_gives_its_short_name():
    """A plain report's first line is its title: "杭州嘉沐软件股份有限公司2023年年度报告（节选）" — the company
    is 嘉沐 whether or not its place of registration is written with 市 or 省."""
    assert short_names("杭州嘉沐软件股份有限公司2023年年度报告（节选）") == {"嘉沐"}
    assert short_names("广东鲜邻大药房连锁股份有限公司2023年年度报告摘要") == {"鲜邻"}
    assert short_names("江苏恒宇新型建材股份有限公司2022年年度报告摘要") == {"恒宇"}
    assert short_names("2023年年度报告摘要") == set()
    assert short_names("关于杭州嘉沐软件股份有限公司的说明") == set()  # a title that does not open with the name


def test_a_short_name_of_a_title_names_its_report_beside_a_look_alike():
    titles = [
        {"document_id": "jm", "filename": "年报_05.txt", "heading": "",
         "title": "杭州嘉沐软件股份有限公司2023年年度报告（节选）", "subjects": []},
        {"document_id": "hy", "filename": "年报_06.md", "heading": "",
         "title": "江苏恒屿新材料股份有限公司 2023年年度报告（节选）", "subjects": []},
        {"document_id": "hyjc", "filename": "年报_07.txt", "heading": "",
         "title": "江苏恒宇新型建材股份有限公司2022年年度报告摘要", "subjects": []},
        {"document_id": "xl", "filename": "年报_04.md", "heading": "",
         "title": "广东鲜邻大药房连锁股份有限公司2023年年度报告摘要", "subjects": []},
    ]
    for question, doc in (("嘉沐公司的总部设在哪里？", "jm"), ("鲜邻药房的财务总监是谁？", "xl"),
                          ("恒宇建材2023年实现的营业收入是多少？", "hyjc"), ("恒屿新材料的董事长是谁？", "hy")):
        assert [row["document_id"] for row, _ in named_documents(question, titles, 0.5)] == [doc], question


def test_a_name_without_its_place_and_legal_form_names_its_report():
    """通衢 is a common word, so 湖北通衢物流股份有限公司 has no two-character short name; "通衢物流" still names it."""
    from dropqa.text.entities import name_body

    assert name_body("湖北通衢物流股份有限公司2023年年度报告（摘录）") == "通衢物流"
    assert name_body("星河科技有限公司") == "星河科技" and name_body("某某公司") == ""
    titles = [{"document_id": "tq", "filename": "年报_02.txt", "heading": "",
               "title": "湖北通衢物流股份有限公司2023年年度报告（摘录）", "subjects": []},
              {"document_id": "mx", "filename": "年报_01.txt", "heading": "",
               "title": "山东麦乡园食品股份有限公司2023年年度报告摘要", "subjects": []}]
    named = named_documents("通衢物流2023年度的分红方案是每10股派发多少现金红利？", titles, 0.5)
    assert [row["document_id"] for row, _ in named] == ["tq"]
