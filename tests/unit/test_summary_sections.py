"""The section a summary question asks for (dropqa.answering.sections), and its answer (compose.section_summary)."""

from dropqa.answering.compose import section_summary
from dropqa.answering.sections import asked_section, aspect_head, label_of
from dropqa.retrieval.hits import Hit
from dropqa.text.asked import summary_aspect


def hit(content: str, position: int, section: str = "", document: str = "d1") -> Hit:
    return Hit(node_id=f"n{position}-{document}", document_id=document, document_name=f"{document}.md", version=1,
               node_type="paragraph", section=section, breadcrumb=f"{document} > {section}".rstrip(" >"),
               content=content, position=position)


RECORD = [
    hit("Specialist Examination:\nDermatology consultation advised", 9),
    hit("Physical Examination:\nGeneral Condition:\nTemperature: 37°C\nPulse: 90 bpm", 7),
    hit("Auxiliary Examination:\nComplete Blood Count showed mild leukocytosis", 10),
    hit("Present Illness:\nOnset: 2 days ago.\nMain Symptoms: pain.", 3),
]
ASKED = {"physical": 1.0, "examination": 1.0, "findings": 1.0, "summarize": 0.5}


def test_labels_are_bold_first_lines_colon_lines_or_the_section_heading():
    assert label_of(hit("**CASE STATEMENT**  \nP. Anderson accepted bribes.", 1)) == "CASE STATEMENT"
    assert label_of(hit("现病史：\n患者于2个月前出现乏力。", 1)) == "现病史"
    assert label_of(hit("The court finds him guilty.", 1, section="Court > 判决结果")) == "判决结果"
    assert label_of(hit("**Name:** P. Anderson\n**Gender:** Male", 1)) is None  # a key with its value
    assert label_of(hit("Name: P. Anderson", 1)) is None  # a colon line with its value on it
    assert label_of(hit("Further, the court weighed it.", 1, section="Court > Further, the court…")) is None


def test_the_aspect_is_what_follows_the_summary_verb():
    assert summary_aspect("According to the judgment of X Court, summarize the facts of S. Taylor's crime.") == \
        "the facts of S. Taylor's crime."
    assert summary_aspect("根据某法院的判决书，总结唐某某的犯罪证据。") == "唐某某的犯罪证据。"
    assert summary_aspect("Who was the judge?") == ""


def test_the_section_holding_the_asked_words_is_picked_and_quoted_from_its_start():
    question = "According to the records of Granville Hospital, summarize the physical examination findings of J. R."
    pick = asked_section(question, ASKED, RECORD, {"d1"}, None)
    assert pick is not None and pick.label == "Physical Examination" and pick.index == 1
    composed = section_summary("en", pick, RECORD, 6)
    assert composed.citations == [1]
    assert composed.lines[1].startswith("Physical Examination: General Condition:")
    assert "Pulse: 90 bpm" in composed.lines[1] and composed.lines[1].endswith("[2]")


def test_ties_go_to_the_label_nearer_in_meaning_and_nothing_is_picked_without_an_asked_word():
    question = "summarize the examination of J. R."
    asked = {"examination": 1.0}

    def near(labels: list[str]) -> list[float]:
        return [1.0 if label == "Auxiliary Examination" else 0.0 for label in labels]

    pick = asked_section(question, asked, RECORD, {"d1"}, near)
    assert pick is not None and pick.label == "Auxiliary Examination"
    assert asked_section("summarize the facts of the crime", {"facts": 1.0, "crime": 1.0}, RECORD, {"d1"}, None) is None
    assert asked_section(question, asked, RECORD, {"another document"}, None) is None  # only the named documents
    assert asked_section("What was the pulse?", {"pulse": 1.0}, RECORD, {"d1"}, None) is None  # no summary asked


def test_a_label_on_a_passage_of_its_own_is_followed_by_the_passages_after_it():
    pool = [hit("**CASE STATEMENT**", 5), hit("Appeal notice: within ten days.", 9),
            hit("From May 2021, F. Williams took bribes. He was arrested in 2023.", 6)]
    pick = asked_section("According to the judgment of X Court, summarize the case statement of F. Williams.",
                         {"case": 1.0, "statement": 1.0}, pool, {"d1"}, None)
    assert pick is not None and pick.label == "CASE STATEMENT" and pick.index == 0
    composed = section_summary("en", pick, pool, 6)
    assert composed.citations == [0, 2]
    assert composed.lines[1] == ("CASE STATEMENT: From May 2021, F. Williams took bribes. He was arrested in 2023. "
                                 "[1][3]")
    alone = section_summary("en", pick, pool[:1], 6)  # nothing after the label: nothing to quote
    assert alone.citations == []


def test_a_short_opening_goes_on_into_the_parts_of_its_section_and_stops_at_the_next_section():
    pool = [hit("犯罪罪名：徇私枉法罪", 5, section="判决书 > 五、犯罪事实"),
            # position 6 is the heading "详细情况"
            hit("2021年5月，唐某某接受甲公司的贿赂。2021年9月，唐某某包庇乙公司。", 7,
                section="判决书 > 五、犯罪事实 > 详细情况"),
            hit("在侦查过程中，检察机关提供了足够的证据材料。", 9, section="判决书 > 六、证据描述")]
    pick = asked_section("根据某法院的判决书，总结唐某某的犯罪事实。", {"犯罪": 1.0, "事实": 1.0}, pool, {"d1"}, None)
    assert pick is not None and pick.label == "五、犯罪事实"
    composed = section_summary("zh", pick, pool, 6)
    assert composed.citations == [0, 1]  # not the next section's evidence
    assert "2021年9月，唐某某包庇乙公司" in composed.lines[1] and "证据材料" not in composed.lines[1]
    assert section_summary("zh", pick, pool, 1).citations == [0]  # an opening long enough stands alone


def test_the_facts_of_a_case_are_its_statement_and_its_process_its_procedures():
    pool = [hit("This court finds the defendant guilty.", 26, section="Court > Judgment Result"),
            hit("On 10 January the Procuratorate received a complaint.", 9, section="Court > Case Procedures"),
            hit("In November 2022, S. Taylor acquired paper and inks.", 14, section="Court > Case Statement"),
            hit("The case at bar centers upon the activities of S. Taylor.", 13, section="Court > Case Statement")]
    facts = asked_section("According to the judgment of X Court, summarize the facts of S. Taylor's crime.",
                          {"facts": 4.8, "crime": 2.2}, pool, {"d1"}, None)
    assert facts is not None and facts.label == "Case Statement" and facts.index == 3  # the section's start
    process = asked_section("According to the judgment of X Court, summarize the case process of S. Taylor.",
                            {"case": 1.0, "process": 3.0}, pool, {"d1"}, None)
    assert process is not None and process.label == "Case Procedures"


def test_a_section_whose_passages_are_all_in_its_parts_is_summed_up_from_its_first_part():
    pool = [hit("On 22 February 2023 H. Price was arrested.", 19, section="Court > Case Procedures > Arrest"),
            hit("From November 2022 H. Price engaged in counterfeiting.", 21, section="Court > Case Statement"),
            hit("On 14 February 2023 she was detained.", 15, section="Court > Case Procedures > Detention Measures"),
            hit("On 1 February 2023 the case was filed.", 13, section="Court > Case Procedures > Case Filing")]
    pick = asked_section("According to the judgment of X Court, summarize the case process of H. Price.",
                         {"case": 1.4, "process": 3.7}, pool, {"d1"}, None)
    assert pick is not None and pick.label == "Case Procedures" and pick.index == 3
    composed = section_summary("en", pick, pool, 6)
    assert composed.lines[1].startswith("Case Procedures: On 1 February 2023 the case was filed. On 14 February")
    assert composed.citations == [0, 2, 3]  # its parts in document order, not the next section
    assert "counterfeiting" not in composed.lines[1]


def test_the_head_of_what_is_asked_names_the_part():
    pool = [hit("2021年5月，唐某某接受甲公司的贿赂。", 5, section="判决书 > 五、犯罪事实"),
            hit("（1）被告人唐某某银行账户的交易记录。", 9, section="判决书 > 六、证据描述")]
    asked = {"犯罪": 1.67, "证据": 1.46}  # the modifier weighs more than the head
    pick = asked_section("根据某法院的判决书，总结唐某某的犯罪证据。", asked, pool, {"d1"}, None)
    assert pick is not None and pick.label == "六、证据描述"
    assert aspect_head("the case process of h. price.", {"case": 1.0, "process": 1.0}) == "process"
    assert aspect_head("唐某某的犯罪事实。", {"犯罪": 1.0, "事实": 1.0}) == "事实"
