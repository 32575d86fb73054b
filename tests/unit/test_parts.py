"""answering.parts: documents a question names (idf over all names) and joined alternatives."""

import pytest

from dropqa.answering.parts import (
    Part,
    _flat_name,
    alternatives,
    decompose,
    mentions,
    named_documents,
    sibling_documents,
    source_span,
    subject_spans,
)
from dropqa.config import AnswerSettings

CFG = AnswerSettings()
SHARE = CFG.part_name_share
KNOBS = (SHARE, CFG.max_parts)  # decompose(question, titles, *KNOBS)


def _row(doc_id: str, filename: str, title: str = "", heading: str = "") -> dict:
    return {"document_id": doc_id, "filename": filename, "title": title, "heading": heading}


COURTS = [
    _row("c131", "131_Riverside, Glenwood, Court.md"),
    _row("c123", "123_Sterling, Quarryville, Court.md"),
    _row("c119", "119_Riverton, Hamilton, Court.md"),
    _row("c101", "101_Oakdale, Fairview, Court.md"),
    _row("c102", "102_Maplewood, Brookfield, Court.md"),
    _row("c103", "103_Pinecrest, Lakeside, Court.md"),
    _row("c104", "104_Ashford, Millbrook, Court.md"),
]
HOSPITALS = [
    _row("h182", "182_Granville General Hospital_J. Rodriguez.md"),
    _row("h183", "183_Parker City Hospital_M. Chen.md"),
    _row("h145", "145_银杏市第一人民医院_蓝某某.md"),
    _row("h163", "163_青龙市人民医院_廉某某.md"),
    _row("h164", "164_白鹭市人民医院_王某某.md"),
    _row("h165", "165_金沙市人民医院_赵某某.md"),
]
WIKI = [
    _row("w-signmark", "signmark.md", "Signmark"),
    _row("w-markka", "finnish-markka.md", "Finnish markka"),
    _row("w-euro", "euro.md", "Euro"),
]
TITLES = COURTS + HOSPITALS + WIKI


def _ids(named: list[tuple[dict, float]]) -> list[str]:
    return [row["document_id"] for row, _ in named]


# --- named_documents / decompose by document -------------------------------------------------

def test_two_named_courts_become_two_parts_each_searched_in_its_document():
    q = ("According to the judgments of Riverside, Glenwood, Court and Sterling, Quarryville, Court, "
         "whose sentence is longer?")
    parts = decompose(q, TITLES, *KNOBS)
    assert len(parts) == 2
    assert {p.document_id for p in parts} == {"c131", "c123"}
    by_doc = {p.document_id: p for p in parts}
    # the label is the file stem, the query the whole question (each part searched inside its document)
    assert by_doc["c131"].label == "131_Riverside, Glenwood, Court"
    assert by_doc["c123"].label == "123_Sterling, Quarryville, Court"
    assert all(p.query == q for p in parts)
    assert all(isinstance(p, Part) for p in parts)


def test_parts_come_in_the_order_the_question_names_them():
    """Whatever order the titles come in, "A and B" is searched, led and answered A first, then B."""
    ab = "According to the judgments of Sterling, Quarryville, Court and Riverside, Glenwood, Court, whose is longer?"
    ba = "According to the judgments of Riverside, Glenwood, Court and Sterling, Quarryville, Court, whose is longer?"
    assert [p.document_id for p in decompose(ab, TITLES, *KNOBS)] == ["c123", "c131"]
    assert [p.document_id for p in decompose(ba, TITLES, *KNOBS)] == ["c131", "c123"]
    zh = "根据青龙市人民医院和银杏市第一人民医院的住院病历，廉某某和蓝某某的体温谁更高？"
    assert [p.document_id for p in decompose(zh, TITLES, *KNOBS)] == ["h163", "h145"]


def test_one_named_court_is_named_but_not_decomposed():
    q = "What was the sentence in the Riverside, Glenwood, Court judgment?"
    named = named_documents(q, TITLES, SHARE)
    assert _ids(named) == ["c131"]
    assert named[0][1] == pytest.approx(1.0)  # the question holds the whole name
    assert decompose(q, TITLES, *KNOBS) == []


def test_word_shared_by_every_name_names_nothing():
    assert named_documents("What did the Court decide?", TITLES, SHARE) == []
    assert named_documents("Which court ruled on the appeal?", TITLES, SHARE) == []
    assert decompose("What did the Court decide?", TITLES, *KNOBS) == []
    assert named_documents("Which hospital treated the patient?", TITLES, SHARE) == []


def test_distinctive_word_names_its_document_not_its_near_namesakes():
    # "Riverton" and "Riverside" share nothing but "Court": only the asked one is named
    named = named_documents("Who was the defendant at Riverton Hamilton Court?", TITLES, SHARE)
    assert _ids(named) == ["c119"]


def test_hospital_record_named_by_hospital_and_patient():
    named = named_documents("What was J. Rodriguez diagnosed with at Granville General Hospital?", TITLES, SHARE)
    assert _ids(named) == ["h182"]


def test_two_chinese_hospital_records_become_two_parts():
    q = "银杏市第一人民医院的蓝某某和青龙市人民医院的廉某某分别被诊断为什么病？"
    parts = decompose(q, TITLES, *KNOBS)
    assert {p.document_id for p in parts} == {"h145", "h163"}
    assert len(parts) == 2


def test_chinese_shared_words_alone_name_nothing():
    assert named_documents("人民医院的诊断是什么？", TITLES, SHARE) == []
    # 人民 + 医院 + 某某 are most of 青龙市人民医院_廉某某's name, but every record shares them
    assert named_documents("人民医院的某某被诊断为什么病？", TITLES, SHARE) == []


def test_wikipedia_title_names_its_article():
    named = named_documents("What currency did Signmark's country use before the Euro?", WIKI + COURTS, SHARE)
    assert set(_ids(named)) == {"w-signmark", "w-euro"}
    named = named_documents("When was the Finnish markka replaced?", TITLES, SHARE)
    assert _ids(named) == ["w-markka"]
    # typed in lower case throughout: no clue from capitals, the words name it still
    assert _ids(named_documents("when was the finnish markka replaced?", TITLES, SHARE)) == ["w-markka"]


PAGES = [
    *WIKI,
    _row("w-time", "time.md", "Time"),
    _row("w-water", "body-water.md", "Body of water"),
    _row("w-dragon", "birth-of-the-dragon.md", "Birth of the Dragon"),
    _row("w-school", "greenfield-central-high-school.md", "Greenfield-Central High School"),
    _row("w-cassel", "siege-of-cassel-1761.md", "Siege of Cassel (1761)"),
]


@pytest.mark.parametrize(("question", "expected"), [
    ("What time does the state where Greenfield-Central High is stop selling booze?", ["w-school"]),
    ("What body of water is near the location where the Siege of Cassel took place?", ["w-cassel"]),
    ("Which region is Signmark's place of birth located in?", ["w-signmark"]),
    # the euro written in lower case beside a name written as one: a common noun, no page of its own
    ("What currency did Signmark's country use before the euro?", ["w-signmark"]),
    # nothing written as a name: the lower-case words name the page
    ("what is a body of water?", ["w-water"]),
])
def test_words_written_in_lower_case_name_no_page_beside_a_name_written_as_one(question, expected):
    assert _ids(named_documents(question, PAGES, SHARE)) == expected


def test_named_documents_best_first_with_share():
    q = "Compare Riverside Court and Sterling, Quarryville, Court sentences"
    named = named_documents(q, TITLES, SHARE)
    shares = [s for _, s in named]
    assert shares == sorted(shares, reverse=True)
    assert _ids(named)[0] == "c123"  # all of its name is asked; only part of Riverside, Glenwood, Court
    assert all(0.5 <= s <= 1.0 for s in shares)


def test_documents_named_alike_come_in_one_order_whatever_the_listing():
    """Three township pages the question names equally well: the order does not follow the titles' order (nor,
    through sums over sets, the process's hash seed) but their names, so one question reads one way each run."""
    pages = [
        _row("p", "poyner-township-black-hawk-county-iowa.md", "Poyner Township, Black Hawk County, Iowa"),
        _row("b", "black-hawk-township-jefferson-county-iowa.md", "Black Hawk Township, Jefferson County, Iowa"),
        _row("c", "cedar-falls-township-black-hawk-county-iowa.md", "Cedar Falls Township, Black Hawk County, Iowa"),
        # a collection of many pages, as the question's few words name few of them
        *(_row(f"f{i}", f"filler-{i}.md", f"Filler page {i}") for i in range(60)),
    ]
    q = "What county shares a border with the county where Black Hawk Township is located?"
    forward = _ids(named_documents(q, pages, SHARE))
    assert len(forward) >= 2
    assert _ids(named_documents(q, pages[::-1], SHARE)) == forward
    assert _ids(named_documents(q, pages[1:3] + pages[:1] + pages[3:], SHARE)) == forward


def test_a_word_of_a_title_the_question_writes_as_part_of_something_else_names_it_not():
    """"Real world" is no page of "a UNESCO World Heritage Site" (the question's name has words the title lacks),
    nor "Modern history" of "the first modern greenhouses" in a question writing its names capitalised; a title the
    question writes in lower case, most of it ("the hosting agreement with Northbeam"), is named still."""
    pages = [
        _row("real", "TRIAL_554.txt", "Real world"),
        _row("modern", "modern-history.md", "Modern history"),
        _row("hosting", "contract.pdf", "Hosting Services Agreement"),
        *(_row(f"f{i}", f"filler-{i}.md", f"Filler page {i}") for i in range(60)),
    ]
    q = "In which year was the old town of Cáceres in Spain inscribed as a UNESCO World Heritage Site?"
    assert named_documents(q, pages, SHARE) == []
    q = "Which explorer mapped the continent where the first modern greenhouses were built, and Northwest Africa?"
    assert named_documents(q, pages, SHARE) == []
    assert _ids(named_documents("How long is the hosting agreement with Northbeam?", pages, SHARE)) == ["hosting"]
    assert _ids(named_documents("What does the Real World single say?", pages, SHARE)) == ["real"]


def test_no_titles_or_no_terms_name_nothing():
    assert named_documents("Riverside, Glenwood, Court", [], SHARE) == []
    assert named_documents("", TITLES, SHARE) == []
    assert decompose("What was the sentence in the Riverside, Glenwood, Court judgment?", [], *KNOBS) == []


def test_more_named_documents_than_max_parts_are_not_split_by_document():
    names = ["Riverside, Glenwood", "Sterling, Quarryville", "Riverton, Hamilton", "Oakdale, Fairview",
             "Maplewood, Brookfield"]
    assert len(names) > CFG.max_parts
    q = "Which of " + "; ".join(f"{n}, Court" for n in names) + " gave the longest sentence?"
    assert len(named_documents(q, TITLES, SHARE)) == len(names)
    assert all(p.document_id is None for p in decompose(q, TITLES, *KNOBS))


# --- alternatives ----------------------------------------------------------------------------

def test_years_joined_by_and_are_alternatives_and_each_part_drops_the_other_year():
    q = "What happened to Acme in 2019 and 2021?"
    assert alternatives(q) == ["2019", "2021"]
    parts = decompose(q, TITLES, *KNOBS)
    assert [p.label for p in parts] == ["2019", "2021"]
    assert "2019" in parts[0].query and "2021" not in parts[0].query
    assert "2021" in parts[1].query and "2019" not in parts[1].query
    assert all("Acme" in p.query for p in parts)
    assert all(p.document_id is None for p in parts)


def test_three_years_in_a_list():
    q = "What was Acme's revenue in 2019, 2020 and 2021?"
    assert alternatives(q) == ["2019", "2020", "2021"]
    parts = decompose(q, [], *KNOBS)
    assert len(parts) == 3
    for p in parts:
        others = {"2019", "2020", "2021"} - {p.label}
        assert p.label in p.query and not any(o in p.query for o in others)


def test_names_joined_by_and_drop_the_leading_question_word():
    q = "Compare Acme Corp and Beta Ltd revenue"
    assert alternatives(q) == ["Acme Corp", "Beta Ltd"]
    parts = decompose(q, [], *KNOBS)
    assert [p.label for p in parts] == ["Acme Corp", "Beta Ltd"]
    assert "Beta" not in parts[0].query and "revenue" in parts[0].query
    assert "Acme" not in parts[1].query and "revenue" in parts[1].query


def test_vs_joins_names():
    assert alternatives("Acme vs Beta: which is larger?") == ["Acme", "Beta"]


def test_question_without_alternatives():
    assert alternatives("What is the revenue of Acme?") == []
    assert alternatives("What happened in 2019?") == []
    assert alternatives("What happened in 2019 and 2019?") == []  # one year twice is not two parts
    assert decompose("What is the revenue of Acme?", TITLES, *KNOBS) == []


def test_chinese_years_are_alternatives():
    assert alternatives("星河公司2019年与2021年的利润是多少？") == ["2019", "2021"]


def test_chinese_year_parts_each_drop_the_other_year():
    parts = decompose("星河公司2019年与2021年的利润是多少？", [], *KNOBS)
    assert [p.label for p in parts] == ["2019", "2021"]
    assert "2021" not in parts[0].query
    assert "2019" not in parts[1].query


def test_one_named_document_with_alternatives_searches_each_alternative_in_it():
    q = "What happened at Granville General Hospital to J. Rodriguez in 2019 and 2021?"
    parts = decompose(q, TITLES, *KNOBS)
    assert [p.label for p in parts] == ["2019", "2021"]
    assert all(p.document_id == "h182" for p in parts)


def test_part_as_dict():
    assert Part("2019", "q 2019", "d1").as_dict() == {"label": "2019", "query": "q 2019", "document_id": "d1"}


@pytest.mark.parametrize(("question", "words", "spans"), [
    ("云栖数据平台3.0的发布日期是哪天？", {"云栖", "数据", "平台"}, ["云栖数据平台3.0"]),
    ("What is the budget code of Project Falcon-03?", {"project", "falcon"}, ["project falcon-03"]),
    ("What is the budget code of Project Falcon?", {"project", "falcon"}, ["project falcon"]),
    ("Which team do the Falcons play?", {"falcon"}, []),  # inside another word: not this name
    ("星图计划的项目发起人是谁？", {"星图", "计划"}, ["星图计划"]),
])
def test_the_subject_as_the_question_writes_it(question: str, words: set[str], spans: list[str]) -> None:
    assert subject_spans(question, words) == spans


def test_another_document_mentions_the_subject_only_when_it_writes_it_out() -> None:
    spans = subject_spans("What is the budget code of Project Falcon-03?", {"project", "falcon"})
    assert mentions("Budget codes: Project Falcon-03 uses FC-2291.", spans)
    assert not mentions("Project Falcon-04 uses budget code FC-2292.", spans)
    assert not mentions("The falcon is a bird.", spans)
    assert not mentions("anything", [])


def test_a_name_the_question_writes_capitalised_is_mentioned_as_a_name_and_a_word() -> None:
    question = "What country was the author of Brand a citizen of?"
    spans = subject_spans(question, {"brand"}, whole=True)
    assert mentions("Brand is a play by the Norwegian playwright Henrik Ibsen.", spans, question)
    assert not mentions("The station airs country music under its on-air brand name.", spans, question)
    assert not mentions("a digital strategist and cofounder of a personal Branding startup", spans, question)
    # written in lower case, the question gives no case to keep: a word still, not part of one
    assert mentions("The Brand was staged in 1885.", subject_spans("who wrote brand?", {"brand"}), "who wrote brand?")
    assert not mentions("branding", subject_spans("who wrote brand?", {"brand"}), "who wrote brand?")


# --- sibling_documents ------------------------------------------------------------------------

REPORTS = {"r1": ["公司年报_1", "恒屿冷链物流股份有限公司", "新开通"],
           "r2": ["公司年报_2", "嘉沐冷链物流股份有限公司", "新开通"],
           "hb": ["员工手册", "明澜软件有限公司"]}


@pytest.mark.parametrize(("question", "words", "subject", "expected"), [
    # the subject's name with the question's words swapped for another company's: a report of the same kind
    ("嘉沐冷链2024年的研发投入是多少？", {"嘉沐冷链"}, "r2", {"r1"}),
    ("恒屿冷链2024年末的资产负债率是多少？", {"恒屿", "冷链"}, "r1", {"r2"}),
    ("What was Acme's R&D spend?", {"acme"}, "acme",
     {"globex"}),
    # the question uses the whole name: nothing else is "the same name, another subject"
    ("Who is the wife of Kim Jong-chul?", {"kim", "jong", "chul"}, "kim", set()),
])
def test_sibling_documents_are_the_same_kind_of_document_about_another_subject(question, words, subject, expected):
    names = {**REPORTS,
             "acme": ["acme-2023.pdf", "Acme Corporation Annual Report 2023"],
             "globex": ["globex-2023.pdf", "Globex Corporation Annual Report 2023"],
             "kim": ["kim-jong-chul", "Kim Jong-chul"], "kim-un": ["kim-jong-un", "Kim Jong-un"]}
    others = {doc: ns for doc, ns in names.items() if doc != subject}
    assert sibling_documents(subject_spans(question, words), names[subject], others) == expected


def test_a_document_that_writes_the_subject_out_is_not_its_sibling():
    others = {"minutes": ["会议纪要", "嘉沐冷链物流股份有限公司2025年会议纪要"], "r1": REPORTS["r1"]}
    assert sibling_documents(["嘉沐冷链"], REPORTS["r2"], others) == {"r1"}


def test_a_file_extension_makes_no_sibling_and_a_version_keeps_its_digits():
    """'peter-bonetti.md': its '.md' is no part of Peter Bonetti's name, so every other '.md' file is not a report
    of the same kind about another subject (multihop-dev-en refused 27 of 70 questions when it was)."""
    others = {"ellis": ["ellis-island.md", "Ellis Island"], "nets": ["brooklyn-nets.md", "Brooklyn Nets"]}
    assert sibling_documents(["peter bonetti"], ["peter-bonetti.md", "Peter Bonetti"], others) == set()
    assert _flat_name("peter-bonetti.md") == "peterbonetti" and _flat_name("Nova 3.0") == "nova30"
    # another version's price list is a sibling: what it writes is Nova 2.0's price, not 3.0's
    assert sibling_documents(["nova 3.0"], ["Nova 3.0 价格说明"], {"v2": ["Nova 2.0 价格说明"]}) == {"v2"}


def test_a_withheld_names_placeholder_names_no_document():
    """"烟波市苹果区人民法院 … 辩护人彭某某": 烟波市人民医院_纪某某's record shares 烟波, 人民 — and 某某, which
    every anonymised name holds: that is no reason to name it beside the court's judgement."""
    titles = [*TITLES, _row("j96", "96_烟波市苹果区人民法院.md"), _row("h176", "176_烟波市人民医院_纪某某.md")]
    named = named_documents("根据烟波市苹果区人民法院的判决书，罗某的辩护人彭某某的生日是什么时候？", titles, SHARE)
    assert _ids(named) == ["j96"]


def test_name_words_written_together_name_the_document_whose_one_name_holds_them():
    # the record of a patient called Parker at Cameron General Hospital holds parker, general and hospital —
    # in two names: "Parker General Hospital" is the hospital's record, not hers
    rows = [*HOSPITALS, _row("h179", "179_Parker General Hospital_Y. Evans.md"),
            _row("h184", "184_record.md", heading="Cameron General Hospital: E. Parker"),
            *(_row(f"h18{i}", f"18{i}_record.md", heading=f"{town} General Hospital: {patient}")
              for i, town, patient in ((6, "Glenwood", "A. Young"), (8, "Fairview", "K. Lee"))),
            *(_row(f"j{i}", f"{i}_judgement.md", heading=f"Court {i}") for i in range(200, 230))]  # a collection's size
    q = "According to the hospitalization record of Parker General Hospital, what is the colour of the patient's car?"
    assert _ids(named_documents(q, rows, SHARE)) == ["h179"]
    # written apart, the same words name her record: "E. Parker of Cameron General Hospital"
    q = "What was E. Parker of Cameron General Hospital diagnosed with?"
    assert _ids(named_documents(q, rows, SHARE)) == ["h184"]


def test_a_file_named_only_by_its_kind_is_named_by_no_question():
    """"年报_3.txt" (titled by its file name, as a plain text is) names a kind of document: "…的年报" asks of the
    company the question names, not of that file; the company's report is found by the name its text gives."""
    rows = [{**_row("a", "annual_report_manufacturing_1.txt", "annual_report_manufacturing_1.txt"),
             "subjects": ["Tarrington Precision Industries Inc"]},
            {**_row("b", "年报_3.txt", "年报_3.txt"), "subjects": ["栖川新材料股份有限公司"]},
            _row("c", "annual_report_retail_1.txt", "annual_report_retail_1.txt")]
    question = "根据Tarrington Precision Industries Inc.的年报，公司2021年7月发行的可转换债券的初始转股价格是多少？"
    assert [row["document_id"] for row, _ in named_documents(question, rows, SHARE)] == ["a"]
    question = "根据栖川新材料的年报，公司的营业收入是多少？"
    assert [row["document_id"] for row, _ in named_documents(question, rows, SHARE)] == ["b"]


def test_a_hospitals_two_records_are_told_apart_by_the_patient_the_question_names():
    """Two plain-named records of 丝路市人民医院 are named alike by the hospital's words (a withheld name such as
    苏某某 is no search term); the question's patient says which: not 俞某某's."""
    rows = [{**_row("a", "154_住院病历.md", "154_住院病历.md"), "heading": "丝路市人民医院：俞某某",
             "subjects": ["丝路市人民医院", "俞某某"]},
            {**_row("b", "156_住院病历.md", "156_住院病历.md"), "heading": "丝路市人民医院：苏某某",
             "subjects": ["丝路市人民医院", "苏某某", "张某某"]}]
    rows += [_row(f"o{i}", f"{200 + i}_judgement.md", heading=f"Court {i}") for i in range(40)]  # a collection
    question = "根据丝路市人民医院的住院病历，苏某某的入院时间是什么时候？"
    assert [row["document_id"] for row, _ in named_documents(question, rows, SHARE)] == ["b"]
    question = "根据丝路市人民医院的住院病历，患者的入院时间是什么时候？"  # no patient named: both records
    assert sorted(row["document_id"] for row, _ in named_documents(question, rows, SHARE)) == ["a", "b"]


def test_a_whole_name_spans_the_place_between_its_terms():
    """jieba keeps the 市 of "流水市人民医院" out of the terms: the name a passage must write to be about the
    subject is the whole stretch, which 夕照市人民医院's record at "流水街" does not write."""
    from dropqa.answering.parts import mentions, subject_spans

    question = "根据流水市人民医院的住院病历，总结安某某的治疗方案。"
    words = {"流水", "人民", "医院"}
    assert subject_spans(question, words, whole=True) == ["流水市人民医院"]
    assert subject_spans(question, words) == ["流水", "人民医院"]  # the parts: frames for the subject's siblings
    other = "夕照市人民医院 住院病历 姓名：路某某 住址：夕照市流水街50号"
    assert not mentions(other, subject_spans(question, words, whole=True))
    assert mentions("转入流水市人民医院继续治疗", subject_spans(question, words, whole=True))


def test_a_company_named_with_its_english_legal_form_has_every_other_company_for_a_sibling():
    """"the annual report of Velmont Harvest Foods Corp.": the span holds the legal form, so no frame of the name
    is left; another company's report ("Oxley Machinery Group Corp", "… Inc") is still another subject's."""
    from dropqa.answering.parts import writes_a_name

    question = "According to the annual report of Velmont Harvest Foods Corp., how much did it invest in R&D?"
    spans = subject_spans(question, {"velmont", "harvest", "foods", "corp"})
    own = ["annual_report_agri_2", "Velmont Harvest Foods Corp", "Greyfield Orchards"]
    others = {"oxley": ["annual_report_manufacturing_2", "Oxley Machinery Group Corp"],
              "quill": ["annual_report_tech_1", "Quillstone Data Systems Inc"],
              "policy": ["travel_policy", "Travel Policy"]}
    assert sibling_documents(spans, own, others) == {"oxley", "quill"}
    # a company the question itself names is asked about (siblings_in leaves it out)
    assert writes_a_name("… of Quillstone Data Systems Inc. and Fenwick Cloud Software Corp.?", others["quill"])
    assert not writes_a_name(question, others["quill"])
    assert not writes_a_name("What is the travel budget?", ["Travel"])  # one word is no name written out


def test_a_whole_name_opens_at_the_lone_character_jieba_leaves_out():
    """jieba cuts 雨城市人民医院 as 雨 / 城市 / 人民 / 医院 and the terms drop 雨: the whole name still opens with it,
    so 钢城市人民医院's record, which writes 城市人民医院 too, does not write the subject."""
    from dropqa.answering.parts import mentions, subject_spans

    question = "根据雨城市人民医院的住院病历，康某某进行了几项辅助检查？"
    spans = subject_spans(question, {"城市", "人民", "医院"}, whole=True)
    assert spans == ["雨城市人民医院"]
    assert not mentions("钢城市人民医院 患者：谢某某 辅助检查报告单：", spans)
    assert mentions("雨城市人民医院 住院病历 姓名：康某某", spans)
    # a stopword before the name is not part of it
    assert subject_spans("比较和城市人民医院的记录", {"城市", "人民", "医院"}, whole=True) == ["城市人民医院"]


def test_a_chinese_name_written_whole_names_its_document_not_a_namesake_of_the_same_words():
    """Both records are named by 城市 / 人民 / 医院 as jieba cuts the question; only one name is written whole."""
    rows = [_row("rain", "166_住院病历.md", heading="雨城市人民医院：康某某"),
            _row("steel", "167_钢城市人民医院_谢某某.md", heading="钢城市人民医院：谢某某"),
            *[_row(f"x{i}", f"{i}_判决书.md", heading=f"{c}{d}市{e}区人民法院") for i, (c, d, e) in
              enumerate(zip("东南西北中金木水火土" * 4, "山川河海林" * 8, "甲乙丙丁" * 10, strict=False))]]
    terms = ["城市", "人民", "医院", "住院", "病历", "某某", "进行", "辅助", "检查"]
    named = named_documents("根据雨城市人民医院的住院病历，康某某进行了几项辅助检查？", rows, SHARE, terms)
    assert [row["document_id"] for row, _ in named] == ["rain"]


def test_the_source_a_question_opens_with_is_the_document_it_asks():
    """"根据青岚证券研究所的行业研究简报，预测鲜邻零售…": the brief is the source; 鲜邻零售's own report, named only
    after it, is what the brief writes about — not a second source to quote beside it."""
    titles = [{**_row("brief", "行业研究简报_1.txt", "行业研究简报_1.txt", "农业与消费零售行业研究简报（2022年第4期）"),
               "subjects": ["青岚证券研究所", "丰穗农业科技股份有限公司", "鲜邻零售股份有限公司"]},
              {**_row("retail", "公司年报_零售_2.txt", "公司年报_零售_2.txt"),
               "subjects": ["鲜邻零售股份有限公司", "南屿市"]},
              {**_row("agri", "公司年报_农业_1.txt", "公司年报_农业_1.txt"), "subjects": ["丰穗农业科技股份有限公司"]}]
    q = "根据青岚证券研究所的行业研究简报，预测鲜邻零售2022年的营业收入是多少？"
    assert source_span(q) == "青岚证券研究所的行业研究简报"
    assert [row["document_id"] for row, _ in named_documents(q, titles, SHARE)] == ["brief"]
    # asked of itself, 鲜邻零售's report is named by the same words
    own = named_documents("鲜邻零售2021年的营业收入是多少？", titles, SHARE)
    assert [row["document_id"] for row, _ in own] == ["retail"]


def test_a_source_names_every_document_it_lists():
    q = "According to the judgments of Riverton, Hamilton, Court and Sterling, Quarryville, Court, who was older?"
    assert source_span(q).strip() == "the judgments of Riverton, Hamilton, Court and Sterling, Quarryville, Court"
    assert {row["document_id"] for row, _ in named_documents(q, COURTS, SHARE)} == {"c119", "c123"}
    assert source_span("丰穗2021年的营业收入是多少？") == ""


def test_a_record_of_the_same_hospital_about_another_patient_is_not_about_the_subject():
    """156's passages write "丝路市人民医院" out as the question does, but its heading names 苏某某, not 俞某某."""
    from dropqa.graph.nodes.retrieve import mentioning
    from dropqa.retrieval.hits import Hit

    def passage(node_id: str, document: str, patient: str) -> Hit:
        return Hit(node_id=node_id, document_id=document, document_name=f"{document}_住院病历.md", version=1,
                   node_type="paragraph", section="s", breadcrumb=f"丝路市人民医院：{patient} > 病程记录",
                   content="丝路市人民医院 首次病程记录：入院后行详细病史采集。", position=0, relevance=0.9,
                   channels=["fulltext"])

    naming = {"154": {"丝路", "人民", "医院"}}
    pool = [passage("n1", "156", "苏某某"), passage("n2", "160", "俞某某")]
    question = "根据丝路市人民医院的住院病历，总结俞某某的入院后病程记录。"
    assert set(mentioning(question, naming, pool)) == {"160"}  # 俞某某's other passage, not 苏某某's record
    assert set(mentioning("根据丝路市人民医院的住院病历，总结入院后病程记录。", naming, pool)) == {"156", "160"}


def test_a_name_several_texts_give_names_the_document_that_opens_with_it() -> None:
    """A plain report and an analyst's brief both name Quillstone Data Systems Inc. in their text; the report
    opens with it ("… ("Quillstone Data" or "the Company") was founded …"), the brief with its own title."""
    def plain(doc_id: str, filename: str, subjects: list[str], opening: str) -> dict:
        return {**_row(doc_id, filename), "subjects": subjects, "opening": opening}

    rows = [
        plain("q", "annual_report_tech_1.txt", ["Quillstone Data Systems Inc", "Quillstone Data", "Larkspur"],
              'Quillstone Data Systems Inc. ("Quillstone Data" or "the Company") was founded in May 2009.'),
        plain("f", "annual_report_tech_2.txt", ["Fenwick Cloud Software Corp", "Fenwick Cloud", "Tallis"],
              'Fenwick Cloud Software Corp. ("Fenwick Cloud" or "the Company") was founded in February 2011.'),
        plain("b", "sector_brief_1.txt", ["Quillstone Data Systems Inc", "Ridgeway Securities Research"],
              "Technology and Consumer Retail Sector Brief (Issue 4, 2022)"),
        *COURTS,
    ]
    q = ("According to the annual reports of Quillstone Data Systems Inc. and Fenwick Cloud Software Corp., "
         "which company spent more on research?")
    assert set(_ids(named_documents(q, rows, SHARE))) == {"q", "f"}
    # without the first words to tell them apart, the name the two texts give names neither
    bare = [{k: v for k, v in r.items() if k != "opening"} for r in rows]
    assert set(_ids(named_documents(q, bare, SHARE))) == {"f"}


def test_a_value_of_the_asked_kind_is_read_where_it_is_given_for_what_is_asked():
    """"判刑时间谁更长" of a judgement: the verdict ("判处有期徒刑四年": 判, 刑) gives the length of the sentence,
    the appeal window ("上诉期限为十天，自接到判决书…": 判) only a length of time; an English question's words
    count whole."""
    from dropqa.graph.nodes.retrieve import gives_for

    question = "柳某某和宋某的判刑时间谁更长？"
    verdict = "依照《中华人民共和国刑法》第133条的规定，判决如下：一、被告人宋某犯交通肇事罪，判处有期徒刑四年。"
    appeal = "被告人宋某如不服本判决，上诉期限为十天，自接到判决书的第二日起算。"
    asked = ["判刑", "时间", "更长"]
    assert gives_for(verdict, "duration", question, asked) > gives_for(appeal, "duration", question, asked) > 0
    assert gives_for("本院认为，被告人宋某的行为已构成交通肇事罪。", "duration", question, asked) == 0
    en = "How long was the sentence?"
    assert gives_for("He was sentenced to four years in prison.", "duration", en, ["sentenced"]) > gives_for(
        "An appeal may be filed within ten days.", "duration", en, ["sentenced"])


def test_a_fact_one_hop_from_the_subject_is_looked_for_in_passages_linked_to_it():
    """graph.nodes.retrieve.linked_to: the subject's pages, a passage naming the subject, a page its text names."""
    from dropqa.graph.nodes.retrieve import linked_to
    from dropqa.retrieval.hits import Hit

    def hit(doc: str, title: str, content: str) -> Hit:
        return Hit(node_id=f"{doc}:1", document_id=doc, document_name=f"{doc}.md", version=1, node_type="paragraph",
                   section="", breadcrumb=title, content=content, position=1)

    own = "knott is a mountain in the northern part of the english lake district."
    subject = {"knott"}
    assert linked_to(hit("knott", "Knott", own), {"knott"}, subject, own)
    assert linked_to(hit("lake", "Lake District", "It is located within the county of Cumbria."), {"knott"}, subject,
                     own)
    assert linked_to(hit("fells", "Fells", "Knott and Great Calva are fells."), {"knott"}, subject, own)
    assert not linked_to(hit("school", "Drama school", "Many actors trained at a drama school."), {"knott"}, subject,
                         own)


def test_a_titles_bracketed_qualifier_alone_names_no_document():
    """"第一届" of 《绝对SuperStar (第一届)》 tells that page from the other seasons' pages; a question about 南宁二中's
    第一届 students does not name it by that word alone. The name itself still names it."""
    titles = [_row("t245", "TRIAL_245.txt", "绝对SuperStar (第一届)"), _row("t600", "TRIAL_600.txt", "南宁市第二中学"),
              *[_row(f"x{i}", f"TRIAL_{i}.txt", f"其他页面{i}") for i in range(30)]]
    named = [r["document_id"] for r, _ in named_documents("南宁二中东盟校区第一届招收了多少名高中生？", titles, SHARE)]
    assert "t245" not in named
    named = [r["document_id"] for r, _ in named_documents("第一届《绝对SuperStar》的冠军是谁？", titles, SHARE)]
    assert named == ["t245"]


def test_a_quarter_names_no_document():
    # "第一季度" of the team's outing is the quarter of the business review, not its subject
    titles = [*TITLES, _row("q1", "2025年一季度经营分析会.pptx", "2025年第一季度经营分析会"),
              _row("chat", "技术部工作群聊天记录_2025年3月.txt")]
    assert "q1" not in _ids(named_documents("技术部第一季度团建最后定在哪里？", titles, SHARE))
    assert _ids(named_documents("第一季度经营分析会提出了哪些风险？", titles, SHARE)) == ["q1"]


def test_a_name_inside_another_name_and_a_lower_case_word_name_nothing():
    # "Humboldt" is written inside "Humboldt Peak", "range" in lower case: the peak's page is named, not the range's
    titles = [*TITLES, _row("range", "humboldt-range.md", "Humboldt Range"),
              _row("peak", "humboldt-peak-colorado.md", "Humboldt Peak (Colorado)"),
              _row("lake", "lake-district.md", "Lake District")]
    q = "Humboldt Peak, in the state where Silverton is located, is part of what mountain range?"
    assert _ids(named_documents(q, titles, SHARE)) == ["peak"]
    # a name the question writes whole inside a longer one is named still
    assert _ids(named_documents("Which county is the English Lake District in?", titles, SHARE)) == ["lake"]
