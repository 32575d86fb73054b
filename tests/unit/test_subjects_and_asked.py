"""What a document is about by name (text.subjects), what a question asks of it (text.asked), and the
documents a question names through those subjects (answering.parts)."""

from __future__ import annotations

import pytest

from dropqa.answering.parts import name_terms, named_documents
from dropqa.text.asked import (
    as_written,
    capitalised_words,
    counted_noun,
    counts_by_listing,
    expected_kind,
    folded,
    gate_terms,
    held_share,
    holds_kind,
    holds_kind_for,
    lacks_required_kind,
    missing_terms,
    name_phrases,
    only_repeats,
    people_named,
    questions_asked,
    role_words,
    salient,
    says_more,
    subject_naming,
    subject_qualifiers,
    written_as_one,
    written_together,
)
from dropqa.text.segment import query_terms
from dropqa.text.subjects import document_subjects, is_stated_by_value, withheld_names

JUDGEMENT = """Criminal Judgment Document

Court and Prosecutor Information
Court: Trenton, Vandalia, Court
Procuratorate: Trenton, Vandalia, Procuratorate
Chief Judge: Q. Martin

Defendant Information
Defendant: G. Torres
Gender: Female
Occupation: Retail Manager

The defendant G. Torres sold counterfeit goods. G. Torres was arrested on 25 January 2023."""

RECORD = """霜叶市第一人民医院
住院病历
基本信息：
姓名：喻某某
性别：女
职业：教师
医院名称：霜叶市第一人民医院
主诉：贫血、体力下降2个月余"""

REPORT = ("恒屿冷链物流股份有限公司董事会现将公司2024年度经营情况报告如下。公司全年实现营业收入18.6亿元，"
          "同比增长12%。恒屿冷链物流股份有限公司冷库总容量达到42万吨。上市公司应当披露的其他事项详见年报。")


def test_a_plain_named_judgement_is_about_its_court_and_defendant() -> None:
    subjects = document_subjects(["judgement", "Criminal Judgment Document"], JUDGEMENT, JUDGEMENT)
    assert "Trenton, Vandalia, Court" in subjects and "G. Torres" in subjects
    assert not {"Criminal Judgment Document", "Gender", "January"} & set(subjects)


def test_a_chinese_record_is_about_its_hospital_and_patient() -> None:
    subjects = document_subjects(["住院病历"], RECORD, RECORD)
    assert "霜叶市第一人民医院" in subjects and "喻某某" in subjects
    assert "住院病历" not in subjects


def test_a_headingless_report_is_about_its_company_not_phrases_ending_in_company() -> None:
    subjects = document_subjects(["公司年报 农业 1"], REPORT, REPORT)
    assert "恒屿冷链物流股份有限公司" in subjects
    assert "上市公司" not in subjects


def _row(doc: str, filename: str, subjects: list[str], heading: str = "") -> dict:
    return {"document_id": doc, "filename": filename, "title": filename, "heading": heading, "subjects": subjects}


RECORDS = [
    _row("a", "180_record.md", ["Z. Walker", "Bridgewater City Hospital"]),
    _row("b", "181_record.md", ["E. Cruz", "Parker City Hospital"]),
    _row("c", "182_record.md", ["M. Chen", "Parker City Hospital"]),
    _row("d", "122_judgement.md", ["G. Torres", "Trenton, Vandalia, Court"], "Criminal Judgment Document"),
    _row("e", "123_judgement.md", ["I. Hill", "Trenton, Springfield, Court"], "Criminal Judgment Document"),
]


def test_a_document_is_named_by_a_subject_found_in_its_text() -> None:
    q = "According to the court judgment of Trenton, Vandalia, Court, who was the defendant?"
    assert [r["document_id"] for r, _ in named_documents(q, RECORDS, 0.5)] == ["d"]
    assert {"trenton", "vandalia"} <= name_terms(q, RECORDS[3])
    assert "defendant" not in name_terms(q, RECORDS[3])


def test_hospital_and_patient_name_one_record_not_every_record_of_the_hospital() -> None:
    q = "According to the hospitalization records of Parker City Hospital, what is E. Cruz's initial diagnosis?"
    assert [r["document_id"] for r, _ in named_documents(q, RECORDS, 0.5)] == ["b"]


@pytest.mark.parametrize(("question", "kind"), [
    ("Who was the defendant?", "person"), ("被告人是谁？", "person"), ("When was he arrested?", "date"),
    ("什么时候立案的？", "date"), ("How many failed password attempts lock an account?", "number"),
    ("企业版每席位每月多少钱？", "money"), ("What is the monthly fee?", "money"),
    ("通衢物流2023年收购的冷链物流公司叫什么名字？", "thing"), ("董事长叫什么名字？", "person"),
    ("朋友来玩一整天，最多收多少停车费？", "money"), ("有多少消费者投诉？", "number"),
    ("What does the Relay Scale plan cost per month?", "money"), ("What does the Team plan include?", "thing"),
    ("晶澜光能和麦乡园2023年归属于上市公司股东的净利润分别是多少？", "money"),
    ("What is the budget code of Project Falcon-03?", "thing"),
    # a comparison of named people by a measure asks each one's measure, not a name
    ("谈某和倪某某的判刑时间谁更长？", "duration"), ("Whose sentence is longer, G. Torres or P. Anderson?", "duration"),
    ("喻某某和安某某的入院时间谁更早？", "date"), ("Who was admitted earlier, V. Lewis or I. Chavez?", "date"),
    ("元某某和喻某某的体温谁更高？", "number"), ("Whose blood pressure is higher, L. Rogers or M. Young?", "number"),
    ("哪家公司的募集资金总额更多？", "number"), ("Which bridge is longer, A or B?", "number"),
    ("蓝某某和陈某某的脉搏谁更快？", "number"), ("Whose pulse was faster, S. Moore or A. Smith?", "number"),
    # a length of time asked outright: a prison term, how long something is kept or lasts — not a length
    ("被告人费某和贝某某分别被判处了什么刑期？", "duration"), ("审计日志保存多长时间？", "duration"),
    ("How long must audit logs be kept?", "duration"), ("How long is the Golden Gate Bridge?", "number"),
    # a count of years, months or days is a length of time; a count of other things, or a year, is not
    ("被告H. Walker被判处几年监禁？", "duration"), ("全职员工每年有多少天带薪年假？", "duration"),
    ("How many days of annual leave do full-time employees get?", "duration"), ("公司有几个部门？", "number"),
    ("哪一年成立的？", "date"), ("2024年度有多少项目？", "number"),
    # a share of a whole is a percentage or a fraction — not a rate with a unit, a comparison, or land taken up
    ("What percentage of the Company's total sales came from online sales?", "share"),
    ("What share of revenue came from exports?", "share"), ("线上渠道销售额占总销售额的比例是多少？", "share"),
    ("研发投入占营业收入多少？", "share"), ("What was Z. Walker's pulse rate?", "thing"),
    ("哪家公司研发投入占营业收入的比例更高？", "number"), ("厂区占地面积多少？", "number"),
    # which one, though an amount is named: a named thing — unless a count or an amount is asked outright too
    ("茅某某所销售的假冒商品中，涉及金额最大的品牌是哪一个？", "thing"), ("哪个项目的预算金额是多少？", "money"),
    # a report's figure in money, named last before what it is of — not a growth, a tax rate or where income comes from
    ("What was the revenue of each company in fiscal 2021?", "money"),
    ("What was the net profit attributable to shareholders in 2024?", "money"),
    ("What was the fine imposed on the company?", "money"),
    ("What was the Company's revenue growth in 2021?", "thing"), ("What is the income tax rate?", "thing"),
    ("What were the sources of income for the village?", "thing"),
])
def test_expected_kind(question: str, kind: str) -> None:
    assert expected_kind(question) == kind


def test_holds_kind_ignores_what_the_question_itself_says() -> None:
    assert holds_kind("Defendant: G. Torres", "person", "Who was the defendant?")
    assert not holds_kind("The defendant sold counterfeit goods.", "person", "Who was the defendant?")
    assert holds_kind("连续5次输入错误密码将锁定账户。", "number", "密码错几次会锁定？")
    assert not holds_kind("Falcon-03 has 3 phases.", "number", "How many phases does Falcon-03 have, 3?")
    assert holds_kind("Arrested on 25 January 2023.", "date", "When was he arrested?")


def test_an_age_is_asked_by_an_age_or_a_birth_date_not_any_number() -> None:
    """"Who is older, Z. Walker or I. Chavez?": the record's "Address: 71, Knoxville street" gives a number, not
    an age."""
    q = "According to the hospitalization records of A and B, who is older, Z. Walker or I. Chavez?"
    for line in ("Age: 82", "**Age:** 45", "Z. Walker, 11-year-old male, admitted with abdominal pain",
                 "He died at the age of 24.", "Date of Birth: 11th August, 1964"):
        assert holds_kind(line, "number", q), line
    assert not holds_kind("Address: 71, Knoxville street, Yorkshire", "number", q)
    assert holds_kind("年龄：45岁", "number", "患者元某某和邵某某的年龄分别是多少？")
    assert not holds_kind("住址：雷峰街4号", "number", "患者元某某和邵某某的年龄分别是多少？")
    assert holds_kind("Address: 71, Knoxville street", "number", "How many streets does Knoxville have?")


def test_a_time_limit_gives_no_length_unless_a_limit_is_asked() -> None:
    """Every judgement's appeal notice gives a length of time to act within ("within ten (10) days", "十日内"): no
    sentence's length for "whose sentence is longer", the answer to "within how many hours must … be reported"."""
    sentence_q, zh_q = "Whose sentence is longer, G. Torres or P. Anderson?", "柳某某和宋某的判刑时间谁更长？"
    appeal = "Should she disagree with the verdict or sentence, she may file an appeal within ten (10) days."
    for q in (sentence_q, zh_q):
        assert not holds_kind(appeal, "duration", q)
        assert not holds_kind("如不服本判决，可在接到判决书后十日内提起上诉。", "duration", q)
        assert holds_kind("Three years of fixed-term imprisonment, suspended for five years.", "duration", q)
        assert holds_kind("被告人宋某犯交通肇事罪，判处有期徒刑四年。", "duration", q)
    report = "A suspected incident must be reported within 2 hours."
    assert holds_kind(report, "duration", "Within how many hours must a suspected security incident be reported?")
    assert holds_kind(report, "duration", "How long do staff have to report an incident?")
    assert holds_kind("员工应在出差结束后15天内提交报销单。", "duration", "出差回来以后，多长时间内要提交报销？")
    # asked how long until something happens: the limit a document sets answers it
    refund = "装修押金在验收合格后15个工作日内无息退还。"
    assert holds_kind(refund, "duration", "装修完了，当初交的装修押金多久能退给我？")
    assert holds_kind("维修人员须在接报后20分钟内赶到现场", "duration", "水管爆了，打物业电话多久能来人？")
    assert holds_kind("Refunds are issued within 10 working days.", "duration", "How long until I get my refund?")
    assert not holds_kind(refund, "duration", "装修押金要交多长时间？")  # how long it is held: no limit asked


def test_a_price_per_unit_under_its_label_is_money() -> None:
    q = "我家住7栋，物业费每个月每平米收多少钱？"
    assert holds_kind("楼栋类型: 小高层住宅 · 物业服务费（元/㎡·月）: 2.10", "money", q)
    assert holds_kind("Hourly rate (GBP per hour): 14", "money", "How much is the hourly rate?")
    assert not holds_kind("建筑面积（㎡）: 120", "money", q)
    assert not holds_kind("Weight (kg/m): 12", "money", "How much does it cost?")


def test_a_share_is_a_percentage_or_a_fraction_not_any_number() -> None:
    q = "What percentage of the Company's total sales came from online sales?"
    for line in ("Online sales accounted for 17.6% of total sales.", "占总销售额的百分之十二", "约三分之一来自线上",
                 "about one third of sales", "17.6 percent of sales"):
        assert holds_kind(line, "share", q), line
    for line in ("The Company launched its online ordering app in 14 cities.", "The Company was founded in 2012."):
        assert not holds_kind(line, "share", q), line
    assert not holds_kind("Online sales: 20%", "share", "Did online sales reach 20% of total sales?")


def test_the_value_asked_is_given_in_a_clause_about_what_is_asked() -> None:
    q = "How much did the Company spend on research and development in fiscal 2021?"
    asked = {"spend": 5.6, "research": 2.5, "development": 2.4, "fiscal": 0.9, "company": 0.2}
    revenue = ["In fiscal 2021, the Company's research and development centre opened in Ferrisport; the Company's "
               "revenue was $1,057.2 million. [1]"]
    spent = ["In fiscal 2021, the Company's research and development expenses were $45.1 million. [1]"]
    # "the Company" is in every clause of the report: the revenue clause gives no R&D amount
    assert salient(asked, 0.25) == ["spend", "research", "development"]
    assert lacks_required_kind(revenue, q, ["money"], salient(asked, 0.25))
    assert not lacks_required_kind(spent, q, ["money"], salient(asked, 0.25))
    # every asked term counted, "the Company" lets the revenue clause pass
    assert not lacks_required_kind(revenue, q, ["money"], list(asked))
    # a line that holds none of what is asked gives no value for it: "an increase of 28.9%" is no share of online
    # sales; without asked terms a line is judged whole
    assert lacks_required_kind(["The lunch subsidy is CNY 20 a day. [1]"], q, ["money"], ["spend"])
    assert not lacks_required_kind(["The lunch subsidy is CNY 20 a day. [1]"], q, ["money"])
    share_q = "What percentage of total sales came from online sales?"
    growth = ["Revenue was $1,214.8 million, an increase of 28.9% year on year. [1]"]
    assert lacks_required_kind(growth, share_q, ["share"], ["percentage", "online", "sales"])
    # how many people: an amount of money counts none
    assert lacks_required_kind(["It trained all production employees and donated $300,000. [1]"],
                               "How many employees did the Company have?", ["number"], ["employees"])
    assert not lacks_required_kind(["Founded in 2012. [1]"], q, ["share"], ["spend"])  # not a kind it asks


def test_a_value_after_a_comma_goes_on_with_the_clause_naming_what_is_asked() -> None:
    q = "星河Pad二代的首批订单有多少台？"
    line = "星河Pad二代的首批订单来自华东区教育行业客户，共1.2万台，计划在产品发布后两周内完成交付。"
    assert holds_kind_for(line, "number", q, ["首批", "订单"])
    # a semicolon starts another statement: its figure is not the asked thing's
    assert not holds_kind_for("首批订单来自华东区教育行业客户；公司共有1200名员工。", "number", q, ["首批", "订单"])
    # a clause with a subject of its own is another statement, after a comma too
    assert not holds_kind_for("覆盖率要求不变，新增代码行覆盖率还是不低于70%。", "number", "密码至少要求多少位？",
                              ["要求", "密码"])


@pytest.mark.parametrize(("question", "noun"), [
    ("星河云平台单个集群最多支持多少个节点？", "节点"), ("公司有多少名员工参加了培训？", "员工"),
    ("截至2021年末公司共经营多少家门店？", "门店"),
    ("How many paying SaaS customers did the Company have?", "customers"),
    ("How many stores?", "stores"), ("星河Pad二代的首批订单有多少台？", None), ("营业收入是多少？", None),
])
def test_the_noun_a_count_question_counts(question: str, noun: str | None) -> None:
    assert counted_noun(question) == noun


def test_a_count_made_by_listing_is_not_gated_a_stated_figure_is() -> None:
    for q in ("How many auxiliary examinations did A. Davis undergo?", "被告人一共有几次犯罪行为？",
              "岑某某的诊断依据有几项？", "How many distinct criminal activities did H. Walker engage in?",
              "How many times was the patient admitted?"):
        assert counts_by_listing(q), q
        assert not lacks_required_kind(["Auxiliary Examinations: Upper GI endoscopy, Complete Blood Count [1]"],
                                       q, ["number"]), q
    assert counts_by_listing("全香港共有几所高中书院？")
    q = "How many employees did the Company have at the end of 2021?"
    assert not counts_by_listing(q)
    # 总共 / 一共 with 多少 ask a figure the documents state: the units sold, not a list to count
    for sold in ("任天堂的64DD在日本总共卖出了多少台？", "F1车手的父亲一共参加过多少场F1比赛？"):
        assert not counts_by_listing(sold), sold
    founded = ["Tarrington Precision Industries Inc. was founded in March 1998 in Alderbridge. [1]"]
    assert lacks_required_kind(founded, q, ["number"], ["employees", "end"])
    assert not lacks_required_kind(["As at 31 December 2021, the Company had 2,460 employees. [1]"], q, ["number"],
                                   ["employees", "end"])


def test_a_length_of_time_is_a_count_of_units_not_a_calendar_date() -> None:
    for line in ("判处有期徒刑四年，自2023年4月15日起，至2027年4月14日止。", "判处无期徒刑", "拘役六个月",
                 "V. Martin is hereby sentenced to 12 years of fixed-term imprisonment.", "three (3) years",
                 "a sentence of life imprisonment", "保存180天"):
        assert holds_kind(line, "duration", "谁的刑期更长？"), line
    for line in ("时间段：2021年5月—2021年10月", "于2023年4月15日立案", "On 4th May 2023 the court", "二〇二三年三月"):
        assert not holds_kind(line, "duration", "谁的刑期更长？"), line


def test_a_count_or_measure_is_not_the_digits_of_a_date() -> None:
    q = "Whose pulse rate was higher upon admission, J. Rodriguez or A. Davis?"
    for line in ("Pulse: 90 bpm", "Age: 64", "判处有期徒刑5年", "In 2021 revenue was 500 million.",
                 "共3次开庭，2023年", "The plant employs 2000 people.", "The team has 5 junior engineers.",
                 "12 marks were awarded."):
        assert holds_kind(line, "number", q), line
    for line in ("Admission Time: 26th, February", "On March 15, 2023, the case was filed.", "2023年4月15日开庭",
                 "10:15 AM on the 10th of March, 2023", "Date: 2023-04-15", "立案于2022年"):
        assert not holds_kind(line, "number", q), line
    assert not holds_kind_for("Admission Time: 26th, February", "number", q, ["admission"])
    # numbers are compared whole: "2.00元" is no digit of the question's "2024" or "每10股"
    dividend = "两家公司的2024年度利润分配预案分别是每10股派多少现金？"
    assert holds_kind("向全体股东每10股派发现金红利2.00元（含税）", "number", dividend)
    assert not holds_kind("2024年度，每10股", "number", dividend)
    employ = "How many people did it employ in 2021?"
    assert not holds_kind("In fiscal 2020 the plant was extended.", "number", employ)
    assert not holds_kind("It was founded in September 2012 and grew until the end of 2020, when …", "number", employ)
    assert holds_kind_for("Pulse: 90 bpm, taken on 26th, February", "number", q, ["pulse"])


def test_a_birth_date_or_a_street_number_is_no_date_of_anything_else() -> None:
    """Every judgement and record opens with its person's birth date: no answer to "判决日期", unless the
    question asks about birth; a house number (雷峰街4号) is no day."""
    q = "唐某某和尹某的判决日期分别是什么时候？"
    for line in ("被告人：尹某，女，1985年1月13日出生，汉族，荔枝市雷峰街4号居民", "出生日期：1990年5月3日",
                 "Defendant: G. Torres Gender: Female Birthdate: 10th August 1983", "She was born on March 3, 1980."):
        assert not holds_kind(line, "date", q), line
        assert holds_kind(line, "date", "罗某的出生日期是什么？") and holds_kind(line, "date", "When was she born?")
    for line in ("本判决书于2023年9月10日作出。", "Date of Judgment: 30th, September 2023", "3月5号开庭"):
        assert holds_kind(line, "date", q), line


def test_a_month_is_named_in_full_or_by_its_abbreviation() -> None:
    for line in ("Arrested in March.", "Filed 5 Sept. 2021.", "Due by 3 May"):
        assert holds_kind(line, "date", "When?"), line
    for line in ("The market grew.", "A junior engineer joined.", "The mayor spoke."):
        assert not holds_kind(line, "date", "When?"), line


def test_a_price_is_an_amount_or_a_price_of_nothing_not_any_free_thing() -> None:
    for line in ("专业版: 69元/席位/月", "基础版: 免费", "The Basic plan is free.", "试用期间免费。",
                 "USD 1,200 per month"):
        assert holds_kind(line, "money", "多少钱？"), line
    for line in ("Nova 2.x 专业版用户可免费升级到 Nova 3.0 专业版", "Start a free trial today", "提供三个版本"):
        assert not holds_kind(line, "money", "多少钱？"), line


def test_held_share_and_missing_terms_read_translations_too() -> None:
    weights = {"rpo": 3.0, "kestrel": 1.0}
    assert held_share("Kestrel fails over in 15 minutes (RTO).", weights) == 0.25
    assert missing_terms("Kestrel fails over in 15 minutes (RTO).", weights) == ["rpo"]
    zh = {"辩护律师": 2.0}
    assert held_share("The defense lawyer, Y. Patel, is instructed", zh, {"辩护律师": ["defense lawyer"]}) == 1.0
    assert held_share("anything", {}) == 1.0


def test_asked_text_is_the_question_without_its_subject() -> None:
    from dropqa.text.asked import asked_text

    q = "According to the judgment of Riverton, Hamilton, Court, how many crimes did H. Walker commit?"
    assert asked_text(q, {"riverton", "hamilton", "court", "walker"}) == \
        "According to the of, how many crimes did H. commit?"
    court = {"荔枝市", "钢城区", "人民法院"}
    assert "人民法院" not in asked_text("根据荔枝市钢城区人民法院的判决书，审判长是谁？", court)
    assert asked_text("Riverton Court", {"riverton", "court"}) == "Riverton Court"  # nothing left: as asked


def test_a_passage_outside_any_section_is_placed_by_page_or_paragraph() -> None:
    from dropqa.retrieval.hits import Hit

    def hit(section: str, content: str, position: int, page: int | None = None) -> Hit:
        return Hit(node_id="n", document_id="d", document_name="公司年报_农业_1.txt", version=1,
                   node_type="paragraph", section=section, breadcrumb="x", content=content,
                   position=position, page=page)

    assert hit("第3章 > 3.2 云平台建设", "正文", 5).where() == "第3章 > 3.2 云平台建设"
    assert hit("", "公司主营业务为农业。", 2).where() == "第 2 段"
    assert hit("", "The gateway fails over in two minutes.", 4).where() == "paragraph 4"
    assert hit("", "Monthly fee is 300 EUR.", 9, page=3).where() == "page 3"
    assert hit("", "公司主营业务为农业。", 2).source(80, cited=True).section == "第 2 段"


def test_a_latin_name_is_matched_by_the_questions_capitalised_words_only() -> None:
    from dropqa.answering.parts import named_documents

    rows = [{"document_id": str(i), "filename": f"{i}_judgement.md", "heading": h, "subjects": s}
            for i, (h, s) in enumerate([("Riverton, Hamilton, Court", ["H. Walker"]),
                                        ("Northwood, Richmond, Court", ["S. Taylor", "Counterfeiting Currency"])]
                                       + [(f"Court {k}", []) for k in range(40)])]
    q = "According to the judgment of Riverton, Hamilton, Court, what did H. Walker do about counterfeiting currency?"
    assert [r["heading"] for r, _ in named_documents(q, rows, 0.5)] == ["Riverton, Hamilton, Court"]
    # typed in lower case: no capitalisation to go by, the words still name the document
    assert [r["heading"] for r, _ in named_documents("what did riverton hamilton court decide", rows, 0.5)] \
        == ["Riverton, Hamilton, Court"]


def test_the_collections_words_replace_what_jieba_coins_from_a_questions_context() -> None:
    from dropqa.text.segment import coined_spans, query_terms, resegment

    q = "嘉沐冷链增长最快的是哪块业务？"  # jieba: 嘉沐冷 / 链增长; the report it names was indexed as 嘉沐冷链
    terms = query_terms(q)
    assert "嘉沐冷链" not in terms
    assert resegment(q, terms, {"嘉沐冷链", "增长", "最快", "业务"}) == ["增长", "最快", "业务", "嘉沐冷链"]
    q = "恒屿冷链和嘉沐冷链，哪家更大？"  # 嘉, 沐: single characters jieba could not group
    assert any(text == "和嘉沐" for _, _, text in coined_spans(q, query_terms(q)))
    assert "嘉沐冷链" in resegment(q, query_terms(q), {"恒屿", "冷链", "嘉沐冷链"})
    # an absent dictionary word stays: that no document holds it is what tells the question unanswerable
    q = "主机托管合同对逾期付款约定了多少利息或滞纳金？"
    assert "滞纳金" in resegment(q, query_terms(q), {"合同", "逾期", "付款"})
    # and so does a coined name no word of the collection overlaps: a company no document names
    q = "根据澄湖食品股份有限公司的年报，公司2021年的营业收入是多少？"
    assert "澄湖" in resegment(q, query_terms(q), {"食品", "股份", "营业", "收入"})
    q = "3月1日晚订单服务故障的原因是什么？"  # jieba coins 日晚 from a date: no name, dropped as before
    assert "日晚" not in resegment(q, query_terms(q), {"订单", "服务", "故障", "原因"})


def test_a_plain_reports_defined_name_is_its_first_subject() -> None:
    text = ("禾润农业发展股份有限公司（以下简称“禾润农业”或“公司”）成立于2008年7月，总部位于桐川市。"
            + "2021年，公司收购桐川绿丰果业有限公司。绿丰果业主营柑橘。" * 4)
    assert document_subjects(["公司年报_农业_2.txt"], text, text)[0] == "禾润农业发展股份有限公司"
    text = 'Ashgrove Packaging Group plc ("Ashgrove" or "the Group") designs packaging. Leeds Mill Works opened.'
    assert document_subjects(["annual_report_3.txt"], text, text)[0] == "Ashgrove Packaging Group"


def test_a_companys_legal_form_does_not_outweigh_its_name() -> None:
    from dropqa.answering.parts import named_documents

    rows = [{"document_id": "1", "filename": "公司年报_1.txt", "heading": "", "subjects": ["恒屿冷链物流股份有限公司"]},
            {"document_id": "2", "filename": "公司年报_2.txt", "heading": "", "subjects": ["嘉沐冷链物流股份有限公司"]}]
    rows += [{"document_id": str(i), "filename": f"{i}.md", "heading": f"文档{i}", "subjects": []}
             for i in range(3, 12)]
    named = named_documents("嘉沐冷链2024年的研发投入是多少？", rows, 0.5, ["嘉沐冷链", "2024", "研发", "投入"])
    assert [r["document_id"] for r, _ in named] == ["2"]


def test_two_named_subjects_figures_differ_without_conflicting() -> None:
    from dropqa.answering.consistency import claims_in, subject_conflicts, subject_of
    from dropqa.retrieval.hits import Hit

    def hit(doc: str, text: str, version: int = 1) -> Hit:
        return Hit(node_id=f"{doc}{version}", document_id=doc, document_name=f"{doc}.txt", version=version,
                   node_type="paragraph", section="", breadcrumb=f"{doc}.txt", content=text, position=1)

    pool = [hit("a", "冷库总库容86万立方米。"), hit("b", "冷库总库容61万立方米。"),
            hit("a", "冷库总库容80万立方米。", 2)]
    claims = [(h.document_id, c) for h in pool for c in claims_in(h, ["库容"])]
    assert subject_conflicts(claims, []), "unnamed: every source is compared"
    found = subject_conflicts(claims, ["a", "b"])
    assert len(found) == 1 and {c.version for c in found[0].claims} == {1, 2}, "a's versions only"
    # one subject named: another document's passage that names it too is compared with it
    report = hit("r", "星图计划（大模型应用平台）预算500万元。")
    charter = hit("c", "星图计划项目总预算为450万元。")
    other = hit("o", "天枢项目预算300万元。")
    pairs = [(subject_of(h, ["c"], {"星图", "计划"}), x) for h in (report, charter, other)
             for x in claims_in(h, ["预算"])]
    found = subject_conflicts(pairs, ["c"])
    assert len(found) == 1 and {x.document for x in found[0].claims} == {"r.txt", "c.txt"}


def test_a_missing_word_is_named_once_not_by_its_pieces() -> None:
    weights = {"gpu": 2.0, "服务": 1.0, "务器": 1.0, "服务器": 1.5, "供应商": 1.8}
    assert missing_terms("极光项目预算：采购服务器", {"供应商": 1.8}) == ["供应商"]
    assert missing_terms("极光项目立项书", weights) == ["gpu", "供应商", "服务器"]


@pytest.mark.parametrize(("question", "terms", "expected"), [
    ("嘉沐冷链2024年的研发投入是多少？", ["投入", "研发"], ["研发投入"]),  # side by side: the phrase written
    ("恒屿冷链2024年末的资产负债率是多少？", ["负债", "负债率", "资产负债率", "资产"], ["资产负债率"]),
    ("What is the RPO of the GPU cluster?", ["gpu", "rpo"], ["GPU", "RPO"]),  # as written, in the terms' order
    ("Where is it?", ["phone"], ["phone"]),  # not in the question: as it is
])
def test_as_written(question, terms, expected):
    assert as_written(question, terms) == expected


@pytest.mark.parametrize(("sentence", "expected"), [
    ("树高可达五十米。", True), ("研发岗配两台显示器。", True), ("这是第三次延期。", True), ("共录取二十人。", True),
    # 一 that counts nothing: "a kind of", "some", "unified", "the only"
    ("是罗汉松科鸡毛松属的一种，纽西兰的特有种。", False), ("一些员工统一管理。", False), ("唯一的入口。", False),
])
def test_a_chinese_numeral_is_a_number_when_it_counts_something(sentence, expected):
    assert holds_kind(sentence, "number", "有多高？") is expected


def test_a_value_counts_for_what_is_asked_only_in_a_clause_that_holds_it():
    from dropqa.text.asked import holds_kind_for

    q = "恒屿冷链2024年营业收入是多少？"
    other = "报告期内，公司研发投入0.93亿元，占营业收入的2.4%，主要用于全程温控监测平台。"
    own = "报告期内，公司实现营业收入38.62亿元，同比增长12.4%；实现净利润2.15亿元。"
    assert not holds_kind_for(other, "money", q, ["营业收入"])
    assert holds_kind_for(own, "money", q, ["营业收入"])
    # the number of a ratio whose base is what is asked is another thing's share, unless a share is asked
    assert expected_kind(q) == "money"  # 营业收入是多少: an amount of money
    assert not holds_kind_for(other, "number", q, ["营业收入"])
    assert holds_kind_for(own, "number", q, ["营业收入"])
    assert holds_kind_for(other, "number", "研发投入占营业收入的比例是多少？", ["营业收入"])
    assert not holds_kind_for("R&D spending was 2.4% of total revenue.", "number", "What was the revenue?",
                              ["revenue"])
    assert holds_kind_for("Revenue reached $3,800,000 in 2024.", "money", "What was the revenue?", ["revenue"])
    # a sentence holding none of the asked terms is judged whole; a person is judged on the whole sentence
    assert holds_kind_for("公司实现38.62亿元。", "money", q, ["营业收入"])
    assert holds_kind_for("The defendant, J. Smith, appealed.", "person", "Who appealed?", ["appealed"])
    assert holds_kind_for("Following the League's end in 1946, South Africa refused to surrender its mandate.",
                          "date", "When did South Africa refuse to surrender Namibia?", ["refuse", "surrender"])


def test_a_kind_of_document_naming_a_plain_file_is_no_other_subject():
    from dropqa.answering.parts import subject_count

    parker = {"d179": {"parker", "general", "hospital"}, "d184": {"parker", "general", "hospital", "record"}}
    assert subject_count(parker) == 1  # "184_record.md": "record" is the kind, not a subject
    assert subject_count({"a": {"trenton", "court"}, "b": {"hamilton", "court"}}) == 2
    assert subject_count({}) == 0


def test_a_withheld_names_placeholder_is_never_asked():
    from dropqa.text.asked import ask_weights

    assert ask_weights({"柳某": 1.0, "某某": 0.4, "辩护人": 1.2, "判决书": 0.5}, {"柳某"}) == {"辩护人": 1.2}


def test_people_a_question_asks_about_by_withheld_name_and_role_are_its_subject():
    q = "根据烟波市苹果区人民法院的判决书，罗某的辩护人彭某某的生日是什么时候？"
    people = people_named(q, query_terms(q))
    assert {"罗某", "辩护人"} <= people  # who it is about, the role's pieces (辩护, 护人) too
    assert "生日" not in people and "人民法院" not in people  # what it asks, and the document's own name
    terms = ["判决书", "被告", "被告人", "犯", "罪"]
    assert people_named("根据判决书，被告人张某某犯了什么罪？", terms) == {"被告", "被告人"}
    assert people_named("人民医院的某某被诊断为什么病？", ["人民", "医院", "某某", "诊断"]) == set()  # no one named
    assert people_named("What crimes did the defendant commit?", ["crimes", "defendant", "commit"]) == set()


def test_withheld_names_and_what_a_record_states_by_value():
    assert withheld_names("罗某的辩护人彭某某") == {"罗某", "彭某某"}
    assert withheld_names("人民医院的某某和某某") == set()
    assert is_stated_by_value("职业") and is_stated_by_value("occupation")  # "谈某，男，…，个体经营户"
    assert not is_stated_by_value("生日") and not is_stated_by_value("爱好")


def test_a_pointer_and_a_time_referred_back_to_are_not_asked() -> None:
    # "那家子公司": jieba's dictionary word 那家子 (and its pieces) points at the subsidiary the question names
    terms = query_terms("2021年10月被生态环境局罚款的那家子公司，是公司以多少价款收购的？")
    assert not {"那家", "家子", "那家子"} & set(terms) and {"罚款", "价款", "收购"} <= set(terms)
    terms = query_terms("公司2021年3月收购的那家种业公司当年为公司贡献了多少营业收入？")
    assert "当年" not in terms and "种业" in terms  # the year it refers back to is 2021, written as such
    assert "那曲" in query_terms("那曲地区在哪个省？")  # a name that starts like a pointer stays


def test_a_summary_is_asked_for_as_a_whole() -> None:
    from dropqa.text.asked import asks_for_summary

    assert asks_for_summary("根据云璟信息技术股份有限公司的年报，总结公司2021年涉及的法律诉讼和合规监管事项。")
    assert asks_for_summary("Summarize the legal proceedings of the Riverside, Glenwood, Court case.")
    assert not asks_for_summary("What is the amount of the summary judgment?")


def test_a_line_that_says_the_question_back_says_nothing_more():
    assert not says_more("节目中第一次于公开场合演唱。", "第一次在公开场合演唱是什么节目？")
    assert says_more("2006年8月，神圣十月第一次连载于日本的漫画杂志──Comic Blade月刊上。",
                     "《神圣十月》是由哪个杂志连载的？")
    assert says_more("Kestrel fails over to the standby region within 15 minutes (RTO).", "What is the RTO of Kestrel?")


def test_counts_written_as_words_are_numbers_and_references_are_not():
    q = "How many days a week am I allowed to work from home?"
    assert holds_kind("Employees may work remotely for up to two days per week.", "number", q)
    assert not holds_kind("One of the judges was absent.", "number", q)  # "one" is as often a pronoun
    assert not holds_kind("第六条 住宿费实行限额标准，在限额内凭发票据实报销。", "number", "每晚最多能报多少？")
    assert not holds_kind("能耗情况见图3-1。", "number", "平均PUE是多少？")
    assert not holds_kind("He was charged under Article 170.", "number", "How many crimes did he commit?")
    assert holds_kind("第十条 连续5次输入错误密码的，账号将被锁定。", "number", "输错几次会锁定？")


def test_the_word_after_how_is_the_kind_asked_not_a_word_of_it():
    assert query_terms("How long is the initial term of the hosting agreement?") == [
        "initial", "term", "hosting", "agreement"]
    assert "long" in query_terms("Is the bridge long?")  # asked of the bridge: a word of the question
    assert "old" not in query_terms("How old was the defendant?")
    q = "How long is the initial term of the hosting agreement with Northbeam?"
    assert expected_kind(q) == "duration"
    assert holds_kind('It runs for twenty-four (24) months (the "Initial Term").', "duration", q)
    assert not holds_kind("This Agreement is made on 20 February 2025 at 66 Wensan Road.", "duration", q)


@pytest.mark.parametrize(("question", "phrases"), [
    # jieba's pieces of one phrase (研发, 投入) make it; a year, a rate word or a frame word breaks it
    ("禾润农业2021年的研发投入是多少？", [["禾润", "农业"], ["研发", "投入"]]),
    ("星图计划的GPU服务器是哪家的？", [["星图", "计划"], ["gpu", "服务器"]]),
    ("Nova 3.0 专业版每个席位每月多少钱？", [["nova", "3.0", "专业版"]]),
    # one word and its own pieces is that word, not a phrase: 资产负债率 is judged as written
    ("公司的资产负债率是多少？", []),
    # English words side by side are as often a noun and its verb: no phrase is read into them
    ("What monthly availability does the hosting provider guarantee?", []),
])
def test_the_phrases_a_question_writes_as_one(question, phrases):
    terms = [t for t in query_terms(question) if t not in ("专业", "服务", "务器", "是从", "2021")]
    assert written_together(question, terms) == phrases


def test_a_phrase_is_written_as_one_only_within_one_statement():
    apart = "公司主要从事农产品的研发、种植和销售。冷链中心于2023年投入使用。"
    assert not written_as_one(apart, ["研发", "投入"])
    assert written_as_one("2021年，公司研发投入3.86亿元，占营业收入的21.4%。", ["研发", "投入"])
    assert written_as_one("公司持续加大研发方面的投入，全年达1.2亿元。", ["研发", "投入"])  # reworded, one statement
    assert written_as_one("第3章 研发\n全年投入1.2亿元", ["研发"])
    # a translation counts for its term
    assert written_as_one("gpu server procurement", ["gpu", "服务器"], {"服务器": ["server"]})


def test_the_names_a_question_gives_are_its_capitalised_words_past_the_first():
    assert capitalised_words("According to the annual report of Halvorsen Electronics Corp., what was the RPO?") \
        == {"halvorsen", "electronics", "corp", "rpo"}
    assert capitalised_words("what is the rpo of the gateway?") == set()
    assert capitalised_words("Who is the wife of Kim Jong-chul?") == {"kim", "jong-chul", "jong", "chul"}


def test_an_english_role_before_a_chinese_name_names_the_subject():
    assert role_words("What is the occupation of patient 彭某某 at 梅雨市第一人民医院?", {"彭某某"}) == {"patient"}
    assert role_words("Which drug is patient 安某某 at 流水市人民医院 allergic to?", {"安某某"}) == {"patient"}
    assert role_words("What did patient 杜某某 eat?", {"杜某某"}) == {"patient"}
    # and a Chinese role before a name in Latin letters
    assert role_words("Lakewood, Pinehurst法院审理的交通肇事案中，被告M. Bennett被判处几年有期徒刑？",
                      {"bennett", "lakewood", "pinehurst"}) == {"被告"}
    # a verb's form is no role, nor a word set off by a comma
    assert role_words("Who was fined, 罗某 or 彭某某?", {"罗某", "彭某某"}) == set()


def test_a_name_of_several_words_is_a_run_of_capitalised_words_joined_by_spaces():
    assert name_phrases("Which city is the band Arctic Monkeys from?") == ["Arctic Monkeys"]
    # a possessive ends a name; quotes and commas part names; the opening word is the sentence's, not a name's
    assert name_phrases('When was Ed Sheeran\'s "Thinking Out Loud" released?') == ["Ed Sheeran", "Thinking Out Loud"]
    assert name_phrases("According to the judgment of Quarryville, Yorktown, Court, who was the defendant?") == []
    # a name a comma ends is kept, though a capitalised word follows the comma
    assert name_phrases("What movie stars Morgan Freeman, Robert De Niro and the producer?") \
        == ["Morgan Freeman", "Robert De Niro"]
    assert name_phrases("How much snow does Ann Arbor, Michigan get?") == ["Ann Arbor"]
    # a full stop ends a name, but for an initial's or an abbreviation's
    assert name_phrases("We're on Ledger Team. If you miss your uptime target, how much do we get?") == ["Ledger Team"]
    assert name_phrases("Where was Dr. Martin Luther King Jr. born?") == ["Dr Martin Luther King Jr"]
    # the opening word is a name's, unless it is a question or function word
    assert name_phrases("Arctic Monkeys formed where?") == ["Arctic Monkeys"]
    assert name_phrases("Humboldt Peak, in the state where Silverton is located, is part of what range?") \
        == ["Humboldt Peak"]
    # a word in capitals is a name of its own (RPO), not a part of the one beside it
    assert name_phrases("What is the RPO of Kestrel?") == []
    assert name_phrases("Who directed The Girl Who Kicked the Hornets' Nest?") == ["The Girl Who Kicked"]


def test_names_are_compared_without_case_accents_or_punctuation():
    assert folded("Akinoshū  Kenji") == "akinoshu kenji"
    assert folded("the Hornets’ Nest (film)") == "the hornets nest film"
    assert folded("St. Louis") == folded("St Louis")


def test_how_much_of_a_thing_counted_in_money_asks_an_amount():
    from dropqa.text.asked import expected_kind, holds_kind

    assert expected_kind("How much is the home-office allowance for people who work remotely?") == "money"
    assert expected_kind("How much did the Company invest in research and development in fiscal 2021?") == "money"
    assert expected_kind("公司2021年的研发投入是多少？") == "money"
    assert expected_kind("How much did sales grow in 2021?") == "number"  # a change: a share as often
    assert expected_kind("How much storage does each seat get?") == "number"
    assert expected_kind("公司2021年末的资产负债率是多少？") == "number"
    assert holds_kind("项目名称: 同城双活数据中心 · 预算（万元）: 1,200", "money")  # the label gives the currency
    assert not holds_kind("The lunch break is 45 minutes (12:00–12:45).", "money")


@pytest.mark.parametrize(("question", "asks"), [
    ("唐某某和尹某的判决日期分别是什么时候？", True),
    ("贝某某和宋某的判决日期谁更早？", True),
    ("whose judgment time is earlier, G. Torres or J. Gonzalez?", True),
    ("What were the judgment dates for the defendants F. Williams and G. Torres?", True),
    ("When was the judgment issued?", True),
    ("根据判决书，被告人何时被逮捕？", False),  # an event the judgement tells, not its own date
    ("According to the judgment of Riverton, Hamilton, Court, when was H. Walker detained?", False),
])
def test_a_question_asking_when_the_judgement_was_given(question: str, asks: bool) -> None:
    from dropqa.text.asked import asks_document_date

    assert asks_document_date(question) is asks


@pytest.mark.parametrize(("line", "alone", "dates"), [
    ("二〇二二年十月二十五日 ", True, True),
    ("日期: 2023年8月10日", True, True),
    ("2023年10月15日", True, True),
    ("**Dated this 30th day of April, 2023**", True, True),
    ("**Date:** 1st March 2023", True, True),
    ("Date of Judgment: 30th, September, 2023", True, True),
    ("本判决书于2023年9月10日作出。", False, True),
    ("This Court's presiding judges extend this judgment on the 10th day of October, 2023.", False, True),
    ("On 1st February 2023, the Greenfield, Fairview Procuratorate received a tip.", False, False),
    ("刑事判决书 被告人：尹某，女，1985年1月13日出生，汉族。", False, False),  # a birth date dates no judgement
    ("入院时间：2月12日", False, False),
])
def test_the_line_a_judgement_signs_off_with_gives_its_date(line: str, alone: bool, dates: bool) -> None:
    from dropqa.text.asked import dates_its_document, is_date_line

    assert is_date_line(line) is alone
    assert dates_its_document(line) is dates


def test_lines_holding_only_the_questions_words_answer_nothing():
    q = "According to the judgment of Preston, Lancaster, Court, how many pets does the chief judge own?"
    assert only_repeats(["Chief Judge [1]"], q)
    assert not only_repeats(["Chief Judge: H. Moreau [1]"], q)
    assert not only_repeats(["Chief Judge [1]", "The chief judge owns two dogs. [2]"], q)
    assert not only_repeats([], q)
    assert only_repeats(["节目中第一次于公开场合演唱 [1]"], "第一次在公开场合演唱是什么节目？")


def test_the_annual_of_an_annual_report_is_its_kind_not_what_is_asked():
    # "According to the annual report of 丰穗农业…, how large was the fine": a dividend line's 年度 ("annual") adds
    # nothing the question asks beside the fine line
    from dropqa.text.asked import ask_weights

    assert ask_weights({"annual": 2.7, "report": 3.5, "fine": 4.6, "丰穗": 1.9}, {"丰穗"}) == {"fine": 4.6}


def test_an_amount_is_written_with_its_scale_before_its_currency():
    from dropqa.text.asked import holds_kind

    assert holds_kind("Region: Northwind | Q3 revenue: 4.2 million EUR", "money")
    assert holds_kind("revenue of $703.1 million", "money") and holds_kind("营业收入38.6亿元", "money")
    assert not holds_kind("12 Europeans attended", "money")
    # a budget is asked of as a thing: "the budget of code name X" may be written without a currency
    from dropqa.text.asked import expected_kind

    assert expected_kind("What is the budget of code name QUOKKA-7731?") == "thing"


def test_a_name_one_goes_by_is_given_by_a_phrase_not_the_word() -> None:
    """"also known as Louis the Do-Nothing" answers "the nickname of Louis V": the page never writes "nickname"."""
    assert is_stated_by_value("nickname") and is_stated_by_value("外号")
    assert not is_stated_by_value("budget")


def test_a_titles_bracketed_qualifier_stays_whole():
    """A title's qualifier keeps its closing bracket ("The documents describe Harbor Lights (season 1)", not
    "… (season 1")."""
    assert document_subjects(["Harbor Lights (season 1)"], "The first season of Harbor Lights premiered.") == [
        "Harbor Lights (season 1)"]
    assert document_subjects(["Privilege (Ivor Cutler album)"], "Privilege is an album.")[0] == (
        "Privilege (Ivor Cutler album)")


def test_the_other_name_an_opening_gives_its_subject_is_a_subject():
    """"南宁市第二中学，简称南宁二中": a question about 南宁二中 names the school's page."""
    opening = "广西壮族自治区南宁市第二中学，简称南宁二中。学校创建于1906年。"
    assert "南宁二中" in document_subjects(["南宁市第二中学"], opening)
    assert "Twelve Monkeys" in document_subjects(
        ["Monkeys film"], "12 Monkeys, also known as Twelve Monkeys, is a 1995 American science fiction film.")


def test_a_year_opening_a_name_is_part_of_it():
    """An ordering number opening a file name or heading is dropped; a year is the name's own ("2022 Winter
    Olympics" is not the 2018 games' page)."""
    from dropqa.text.subjects import file_stem_name

    assert file_stem_name("112_judgement.md") == "judgement" and file_stem_name("01-intro.md") == "intro"
    assert file_stem_name("2022-winter-olympics.md") == "2022-winter-olympics"
    assert file_stem_name("2024年度绩效考核.xlsx") == "2024年度绩效考核"
    assert document_subjects(["2022 Winter Olympics"], "")[0] == "2022 Winter Olympics"
    assert document_subjects(["3.2 云平台建设"], "") == ["云平台建设"]


def test_words_naming_the_subject_before_its_name_are_not_what_is_asked() -> None:
    q = "NBA球员埃里克·戈登的体重是多少？"
    assert subject_qualifiers(q, {"埃里克", "戈登"}) == {"nba", "球员"}
    assert subject_qualifiers("重庆武隆的芙蓉洞最早是由谁发现的？", {"芙蓉洞"}) == {"重庆", "武隆"}
    # a phrase of its own before a comma ("根据…年报，") is no qualifier; nor are words of a question asked first
    lead = subject_qualifiers("根据年报，2021年丰穗农业的营业收入是多少？", {"丰穗", "农业"})
    assert "2021" in lead and "年报" not in lead and "营业收入" not in lead
    assert subject_qualifiers("哪一年丰穗农业上市？", {"丰穗", "农业"}) == set()
    assert subject_qualifiers("What is the weight of NBA player Eric Gordon?", {"eric", "gordon"}) == set()
    asked = {"nba": 4.1, "球员": 3.2, "体重": 4.7}
    assert gate_terms(q, asked, {"埃里克", "戈登"}, 0.25) == ["体重"]
    # what a refusal says is missing leaves them out too ("没有给出「体重」", not "「体重」、「球员」")
    assert subject_naming(q, {"埃里克", "戈登"}) == {"nba", "球员"}
    assert "被告人" in subject_naming("被告人张某某的职业是什么？", {"张某某"})
    # a draft pick "in the NBA" gives a number, but no weight
    draft = ["2008年，戈登宣布弃学进入NBA，在当年的NBA选秀中以第一轮第7顺位被快艇选中。 [1]"]
    assert lacks_required_kind(draft, q, ["number"], gate_terms(q, asked, {"埃里克", "戈登"}, 0.25))
    assert not lacks_required_kind(draft, q, ["number"], salient(asked, 0.25))  # NBA counted as asked
    assert not lacks_required_kind(["戈登身高1.93米，体重98公斤。 [1]"], q, ["number"], ["体重"])


def test_a_measure_needs_its_attribute_a_count_may_be_worded_otherwise() -> None:
    assert lacks_required_kind(["以第一轮第7顺位被快艇选中。 [1]"], "戈登的体重是多少？", ["number"], ["体重"])
    assert not lacks_required_kind(["已婚，育有3名子女。 [1]"], "林永康有几个孩子？", ["number"], ["孩子"])


def test_a_date_of_birth_is_a_year_on_a_line_that_gives_a_birth() -> None:
    q = "演员李晨的出生日期是哪一天？"
    proposal = ["后来在2017年9月16日，李晨在女友36岁生日当天向其求婚成功。 [1]"]
    assert lacks_required_kind(proposal, q, ["year"])  # a date, but of a proposal
    for line in ("李晨，1977年4月20日出生于北京。", "阵内智则（1974年2月22日－），日本喜剧演员。"):
        assert not lacks_required_kind([f"{line} [1]"], q, ["year"]), line
    en = "When was Eric Gordon born?"
    assert not lacks_required_kind(["Eric Gordon (born December 25, 1988) is an American basketball player. [1]"],
                                   en, ["year"])
    assert lacks_required_kind(["In 2008, Gordon was drafted seventh overall. [1]"], en, ["year"])
    # another year question: any line writing a year
    assert not lacks_required_kind(["梧桐树已于1865年在一次雷雨中死去。 [1]"], "梧桐树是哪一年死掉的？", ["year"])


def test_a_measure_in_the_other_language_is_judged_on_its_whole_line() -> None:
    q = "How large was the fine in the 烟波市金桥区人民法院 judgment?"
    line = ["被告人郎某犯逃避追缴欠税罪，判处有期徒刑五年，并处罚金，即人民币400万元。 [1]"]
    assert not lacks_required_kind(line, q, ["number"], ["fine", "tax"])


@pytest.mark.parametrize(("question", "kind"), [
    ("In which town was Barry Pepper born?", "place"), ("Where was Barry Pepper born?", "place"),
    ("Which city was chosen to host the 2026 Winter Olympics?", "place"), ("黑龙江省博物馆位于哪个城市？", "place"),
    ("蔡敏的出生地在哪里？", "place"),
    # "the state where …" describes what is asked about; the question asks something else of it
    ("When did the state where Pocahontas Mounds is located become part of the United States?", "date"),
    ("Who was in charge of the state where Shringarpur is located?", "person"),
])
def test_a_question_asking_where_asks_a_place(question: str, kind: str) -> None:
    assert expected_kind(question) == kind


def test_a_place_is_a_name_a_line_puts_something_in_not_a_date_of_birth() -> None:
    q = "In which town was Barry Pepper born?"
    assert not holds_kind("Barry Robert Pepper (born April 4, 1970) is a Canadian actor.", "place", q)
    assert not holds_kind("Pepper was born in April 1970.", "place", q)
    assert holds_kind("Pepper was born in Campbell River, British Columbia.", "place", q)
    q = "黑龙江省博物馆位于哪个城市？"
    assert holds_kind("黑龙江省博物馆位于哈尔滨市南岗区。", "place", q)
    assert not holds_kind("黑龙江省博物馆于1923年建成。", "place", q)  # the place the question names is no answer


def test_two_questions_joined_by_and_ask_several_values() -> None:
    from dropqa.text.asked import asks_several

    assert asks_several("How long is the SeaGlide S2 warranty, and how many hours does its battery last?")
    assert asks_several("Which VPN must remote workers use, and how often do their passwords have to be rotated?")
    assert not asks_several("How long is the SeaGlide S2 warranty?")
    assert not asks_several("Which city hosted the games and the ceremony?")


def test_the_chinese_names_an_answer_must_keep_to():
    from dropqa.graph.nodes.verify import question_names

    assert "王穆之" in question_names("晋哀帝的皇后王穆之是在哪一年被册立为皇后的？")
    # not a withheld name, nor jieba's guess across a conjunction ("和柏某", "和紫霞")
    q = "根据晴川市紫霞区人民法院和紫霞市桂林区人民法院的判决书，唐某某和柏某的判刑时间谁更长？"
    assert not [n for n in question_names(q) if "某" in n or n.startswith("和")]
    assert question_names("Who was the defendant?") == []


@pytest.mark.parametrize(("question", "kind"), [
    ("When Kestrel pages the on-call engineer with a P1, how quickly do they have to acknowledge it?", "duration"),
    ("What monthly availability does the hosting provider guarantee?", "thing"),  # "monthly" asks no month
    ("When was Thinking Out Loud released as a single?", "date"),
])
def test_a_condition_before_the_question_does_not_say_what_is_asked(question: str, kind: str) -> None:
    assert expected_kind(question) == kind


def test_a_season_an_era_or_an_old_year_passes_the_when_gate_though_no_line_is_preferred_for_it() -> None:
    assert not lacks_required_kind(["只有在春季化雪的时候可能会短期关闭。[1]"], "峡谷什么时候可能会短期关闭？",
                                   ["date"])
    assert not lacks_required_kind(["可能晚至孔雀王朝时期才出现。[1]"], "自在奥义书的成书时间是什么时候？", ["date"])
    assert not lacks_required_kind(["The Piri Reis map is a world map compiled in 1513. [1]"],
                                   "When was the Piri Reis map compiled?", ["date"])
    assert not lacks_required_kind(["Accounts are disabled by the end of their last working day. [1]"],
                                   "When are a leaver's accounts disabled?", ["date"])
    assert lacks_required_kind(["Sheeran sought the assistance of Jake Gosling. [1]"],
                               "When was Thinking Out Loud released as a single?", ["date"])
    # the kind bonus and the kind-first choice of lines read calendar dates only
    assert not holds_kind("Delhi was the centre of the Mughal Empire from 1649 to 1857.", "date", "When …?")


def test_a_place_in_brackets_or_a_nationality_for_a_country_answers_where() -> None:
    assert holds_kind("- SH-2 (Shanghai) — standby site", "place", "Where does Kestrel fail over to?")
    assert holds_kind("Brand is a play by the Norwegian playwright Henrik Ibsen.", "place",
                      "What country was the author of Brand a citizen of?")
    assert holds_kind("475年9月，长寿王趁机率领三万大军讨伐百济。", "place", "475年9月，长寿王讨伐了哪儿？")
    assert not holds_kind("部门今年第一季度的团建经费批下来了，人均预算400元。", "place",
                          "技术部第一季度团建最后定在哪里？")
    # a nationality is no town
    assert not holds_kind("Barry Robert Pepper (born April 4, 1970) is a Canadian actor.", "place",
                          "In which town was Barry Pepper born?")


def test_a_chinese_name_a_field_or_people_counted_answer_who() -> None:
    assert holds_kind("经公司董事会审议通过，聘任郭明远为公司总经理。", "person", "2021年9月公司聘任谁为总经理？")
    assert holds_kind("保罗·皮尔斯则获得本年总决赛的最有价值球员奖。", "person", "谁获得本年总决赛的最有价值球员奖？")
    assert holds_kind("Historian: Mother", "person", "who is the historian for X. Price?")
    assert holds_kind("由马来西亚的9位世袭统治者组成", "person", "谁拥有最高元首的选举权？")
    assert not holds_kind("芙蓉洞于1993被发现，1994年对游人开放。", "person", "重庆武隆的芙蓉洞最早是由谁发现的？")


def test_a_question_asking_two_things_is_answered_by_either() -> None:
    q = "What is the hotel allowance per night in Bergen, and on which days can customers visit the test basin?"
    assert questions_asked(q) == ["What is the hotel allowance per night in Bergen",
                                  "on which days can customers visit the test basin?"]
    lines = ["The hotel allowance is 180 EUR per night for Bergen. [1]"]
    assert not lacks_required_kind(lines, q, ["date", "money"])
    assert lacks_required_kind(["Sheeran sought the assistance of Jake Gosling. [1]"],
                               "When was Thinking Out Loud released as a single?", ["date"])
    assert questions_asked("恒屿冷链和嘉沐冷链，哪家2024年末的冷库总库容更大？") == [
        "恒屿冷链和嘉沐冷链，哪家2024年末的冷库总库容更大？"]


@pytest.mark.parametrize(("question", "kind"), [
    # a "when" clause after the question's own question word is a condition ("… when the fire alarm goes off")
    ("Where do Tilbury staff gather when the fire alarm goes off?", "place"),
    ("What happened when the dam broke?", "thing"),
    ("What year was it when the war ended?", "date"),
    # how people ask an amount, a time of day, a speed; a revenue by another name
    ("居民用水进入第二阶梯以后，连污水处理费在内一方水要几块钱？", "money"),
    ("申请检定后如果表是准的，检定费要我出多少？", "money"), ("消费者有多少人？", "number"),
    ("截至2021年末公司的SaaS付费客户数是多少？", "number"), ("住宿费每天多少？", "money"),
    ("公司2024年一共做了多少营收？", "money"),
    ("押金要交几个月？", "duration"), ("滨江路那次计划停水，晚上几点开始停？", "date"),
    ("How fast are forklifts allowed to go inside the warehouse?", "number"),
    ("What was the company's turnover in 2024?", "money"),
])
def test_how_people_ask_says_the_kind_of_answer(question: str, kind: str) -> None:
    assert expected_kind(question) == kind


def test_the_askers_own_words_and_the_question_frame_are_no_words_of_what_is_asked() -> None:
    assert query_terms("我觉得自家水表走得太快，申请检定后如果表是准的，检定费要我出多少？")[:2] == ["水表", "走得"]
    assert not {"觉得", "自家", "如果"} & set(query_terms("我觉得自家水表走得太快，如果表是准的，检定费要我出多少？"))
    assert query_terms("拧开龙头流出来的水发黄，一般先放多长时间水就会变清？").count("时间") == 0
    assert "几块钱" not in query_terms("一方水要几块钱？") and "几点" not in query_terms("晚上几点开始停？")
    assert "时间" in query_terms("开庭时间是什么时候？")  # a word of what is asked, not a frame
    # asks a name: no document writes 名字
    assert "名字" not in query_terms("通衢物流2023年收购的冷链物流公司叫什么名字？")
    assert "名字" in query_terms("公司名字的由来是什么？")
    assert "fast" not in query_terms("How fast are forklifts allowed to go inside the warehouse?")


def test_working_days_are_a_length_of_time() -> None:
    q = "出差回来以后，多长时间内要提交报销？"
    assert holds_kind("员工应在出差结束后15个工作日内在OA系统提交报销单。", "duration", q)
    assert holds_kind("在接到判决书后十日内提出上诉", "duration", q)
    assert not holds_kind("每月15日发薪", "duration", q)


def test_a_line_saying_its_value_is_not_settled_leaves_it_open() -> None:
    from dropqa.text.asked import leaves_open

    assert leaves_open("今年的全员消防应急疏散演练定在9月中旬举行，具体日期由安环部根据生产安排另行通知。")
    assert leaves_open("Sydney: launch date TBC") and leaves_open("The venue is to be confirmed.")
    assert not leaves_open("演练定于9月15日举行。") and not leaves_open("TBCC Holdings reported revenue.")


def test_a_post_or_a_site_is_no_person() -> None:
    q = "Who is the site manager at Tilbury?"
    assert not holds_kind("**Owner:** Site Manager, Tilbury Distribution Centre", "person", q)
    assert holds_kind("Priya Ramanathan, Chief Financial Officer", "person", "Who is the CFO?")
    assert holds_kind("Chair: Daniel Okafor.", "person", "Who chaired the review?")


def test_a_rate_per_time_goes_on_with_the_clause_before_it() -> None:
    q = "今天早上迟到了20分钟，要扣多少钱？"
    assert holds_kind_for("1. 迟到15分钟以内（含15分钟）的，每次扣款20元；", "money", q, ["迟到", "分钟"])


def test_an_english_life_span_gives_a_birth_year_and_to_a_named_point_a_place() -> None:
    q = "In what year was the designer of Skerrow Point Lighthouse born?"
    assert not lacks_required_kind(["Gideon Marsh (23 April 1819 – 8 October 1888) was a civil engineer. [6]"], q,
                                   ["year"])
    assert lacks_required_kind(["She was born and raised in Sollentuna. [1]"], "In what year was Maia Hirasawa born?",
                               ["year"])
    from dropqa.text.asked import gives_place

    assert gives_place("Leave by the nearest exit and go to Assembly Point B.", "Where do staff gather?")


def test_english_function_words_are_no_part_of_what_is_asked() -> None:
    """"If a Relay SEV1 still isn't mitigated, after how long does the Head of Platform get pulled in?" asks nothing
    of "if", "still", "isn" (of isn't) or "after"; a word that names a thing a document may lack ("fire", "system")
    stays asked."""
    from dropqa.text.segment import english_function_words

    assert {"if", "still", "isn", "after", "re", "does"} <= english_function_words()
    assert not {"fire", "system", "name", "amount", "first", "bill", "off", "more", "within"} & english_function_words()


def test_an_aim_is_judged_in_the_clause_giving_the_figure() -> None:
    from dropqa.text.asked import counted_measure, gives_measure, states_target

    assert states_target("公司的经营目标是全年组件出货量达到15GW以上，N型产品占比超过85%。")
    assert states_target("预计2022年营业收入为52亿元。") and states_target("We expect revenue to reach $2 billion.")
    assert not states_target("MPQ-78雷达系统包括搜索雷达，有效距离30km，可同时追踪20个目标。")  # a tracked target
    # the count is done; only the delivery is planned
    assert not states_target("星河Pad二代的首批订单来自华东区教育行业客户，共1.2万台，计划在产品发布后两周内完成交付。")
    assert counted_measure("截至2023年末，鲜邻药房一共有多少家门店？") == "家"
    assert gives_measure("员工总数11,350人", "名") and not gives_measure("至少需要2人审批", "位")


def test_a_sentence_is_about_the_periods_it_names_not_the_days_it_dates() -> None:
    from dropqa.text.entities import about_other_periods

    assert about_other_periods("关于利润分配，2022年度公司曾向全体股东每10股派发现金红利1.8元。", {"2023"})
    assert not about_other_periods("环节: 审批 | 签字人: 周明远 | 日期: 2025-01-10", {"2024"})
    assert not about_other_periods("On 14 May 2021, the Company held its annual general meeting for 2020.", {"2021"})
    assert about_other_periods("In 2020 the Company opened 12 stores.", {"2021"})


def test_a_day_asked_is_not_given_by_a_line_leaving_it_open() -> None:
    from dropqa.text.asked import open_day

    line = ["下一次业委会例会计划于2024年6月中旬召开，具体时间、地点另行通知。 [1]"]
    assert open_day(line, "业委会下一次开会定在几月几号？")
    assert not open_day(line, "业委会下一次开会大概在几月？")  # the month is given
    assert not open_day(["例会定于2024年6月15日召开。 [1]"], "业委会下一次开会定在几月几号？")
    assert open_day(["Reopening date to be confirmed. [1]"], "On what date does the play area reopen?")


def test_a_chat_lines_time_of_saying_is_no_answer_to_when() -> None:
    q = "业委会下一次开会定在几月几号？"
    said = "13栋-许慧敏（15:20）：今天下午业委会开了会，纪要整理好后会在公告栏贴出来 [1]"
    assert lacks_required_kind([said], q, ["date"], ["业委会", "开会"])
    assert not lacks_required_kind(["周婷（10:03）：例会定于6月15日召开 [1]"], q, ["date"], ["开会"])
    assert "几号" not in query_terms(q)


def test_a_count_asked_in_a_measure_word_is_not_answered_by_a_count_of_something_else() -> None:
    q = "通衢物流2023年末共有多少名员工？"
    assert lacks_required_kind(["截至2023年末，公司拥有自有营运车辆2,350辆，其中新能源车辆占比达到34%。 [1]"], q,
                               ["number"], ["员工"])
    assert not lacks_required_kind(["截至2023年末，公司员工总数11,350人。 [1]"], q, ["number"], ["员工"])
    assert not lacks_required_kind(["员工人数: 11,350 | 年份: 2023 [1]"], q, ["number"], ["员工"])
    assert not lacks_required_kind(["The company had 2,350 employees. [1]"], q, ["number"], ["员工"])


def test_a_name_glossed_in_the_other_language_beside_it() -> None:
    from dropqa.text.asked import glossed_words

    assert glossed_words("Who is the chairman of Jiamu Software (嘉沐软件)?") == {"jiamu", "software"}
    assert glossed_words("What was Tongqu Logistics' (通衢物流) net profit in 2023?") == {"tongqu", "logistics"}
    assert glossed_words("恒屿冷链 (Hengyu Cold Chain) 的营收是多少？") == {"hengyu", "cold", "chain"}
    assert glossed_words("Who chairs the board (of the company)?") == set()


def test_review_cases_of_the_new_checks() -> None:
    """Cases a review found: a compared year, a person's 名字, counts with 余/多, nouns that open with a measure
    word, plans that are nouns, charges that are no price, a clause of its own after a name."""
    from dropqa.answering.chain import describes_link
    from dropqa.text.asked import counted_measure, gives_measure, states_target
    from dropqa.text.entities import about_other_periods, name_body

    assert not about_other_periods("报告期内，公司实现营业收入5.6亿元，较2022年增长12%。", {"2023"})
    assert not about_other_periods("Revenue grew 12% over 2020 to RMB 5.6 billion.", {"2021"})
    assert expected_kind("这家公司老板叫什么名字？") == "person" and expected_kind("店长叫什么名字？") == "person"
    assert gives_measure("门店2,000余家", "家") and gives_measure("共100多家", "家")
    assert counted_measure("有多少人口？") is None and counted_measure("有多少本科生？") is None
    assert counted_measure("多少家庭？") is None
    for line in ("完成年度计划的105%", "本次股权激励计划共授予激励对象120人", "预计负债余额为1,200万元",
                 "The court dismissed the claims and awarded damages of $2.1 million.",
                 "2023年，公司实现营业收入5.2亿元，预计2024年将继续增长。"):
        assert not states_target(line), line
    assert expected_kind("有多少人免费乘车？") == "number"
    assert expected_kind("What did prosecutors charge Smith with?") != "money"
    assert describes_link("Which league does the team Lionel Messi plays for belong to?")
    assert name_body("关于收购捷运物流有限公司的公告") == "" and name_body("黄山旅游发展股份有限公司") == ""


def test_the_measure_gate_waits_when_the_question_also_asks_what() -> None:
    line = ["岗位: 研发岗 · 显示器型号: Dell U2723QE [1]"]
    assert not lacks_required_kind(line, "研发岗配什么显示器？配几台？", ["number"], ["显示器"])
    assert lacks_required_kind(line, "研发岗配几台显示器？", ["number"], ["显示器"])
